//! `workspace/didChangeConfiguration`: the editor's new settings, pushed or (when it sends
//! none) pulled with `workspace/configuration`.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::server::session::Session;
use crate::server::settings::ClientSettings;
use crate::server::{config, publish};

pub async fn did_change_configuration(
    session: &Arc<Session>,
    params: DidChangeConfigurationParams,
) {
    // VS Code sends the new settings; Neovim and others often send null and expect a pull.
    let pushed = (!params.settings.is_null()).then(|| ClientSettings::from_value(&params.settings));
    let client = match pushed {
        Some((settings, warnings))
            if warnings.is_empty() || settings != ClientSettings::default() =>
        {
            for warning in warnings {
                tracing::warn!("{warning}");
            }
            Some(settings)
        }
        _ => config::fetch(session).await,
    };
    if let Some(client) = client {
        config::apply(session, client);
    }
    publish::all(session).await;
}
