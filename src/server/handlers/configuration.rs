//! Settings: `initializationOptions`, `workspace/configuration` (asked with a timeout, since a
//! client that never answers must not stall the server), `didChangeConfiguration`, and the
//! workspace's `pyproject.toml` underneath.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::ls_types::*;

use crate::config::ProjectConfig;
use crate::kb::KnowledgeBase;
use crate::server::session::{Config, Session};
use crate::server::settings::{ClientSettings, Locale};

pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// Installs `client` settings over the projects' and this machine's facts, and loads the
/// knowledge base they name.
pub fn apply(session: &Session, client: ClientSettings) {
    let negotiated = session.negotiated();
    let locale = client
        .locale
        .as_deref()
        .or(negotiated.client_locale.as_deref())
        .map(Locale::from_tag)
        .unwrap_or_default();
    let kb_dirs = kb_dirs(&client, &negotiated.roots);
    let kb = if kb_dirs.is_empty() {
        session.config().kb.clone()
    } else {
        let (kb, errors) = KnowledgeBase::with_dirs_lenient(&kb_dirs);
        for err in errors {
            tracing::warn!("knowledge base: {err}");
        }
        Arc::new(kb)
    };
    session.set_config(Config::new(
        client,
        session.measured_host.clone(),
        locale,
        kb,
    ));
}

/// Extra knowledge-base folders: the editor's, then the `kb` of each workspace folder's
/// pyproject.toml (relative to it).
fn kb_dirs(client: &ClientSettings, roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = client.kb.clone().unwrap_or_default();
    for root in roots {
        let pyproject = root.join("pyproject.toml");
        if !pyproject.is_file() {
            continue;
        }
        match ProjectConfig::load(&pyproject) {
            Ok(project) => dirs.extend(project.settings.kb.iter().map(|d| root.join(d))),
            Err(err) => tracing::warn!("{err}"),
        }
    }
    let mut dirs: Vec<PathBuf> = dirs
        .into_iter()
        .map(|d| match d.is_relative() {
            true => roots.first().map_or(d.clone(), |r| r.join(&d)),
            false => d,
        })
        .collect();
    dirs.dedup();
    dirs
}

/// Asks the client for the `dldoctor` section, if it can answer; `None` when it cannot or
/// does not answer in time.
async fn fetch(session: &Session) -> Option<ClientSettings> {
    if !session.negotiated().configuration_request {
        return None;
    }
    let request = session.client.configuration(vec![ConfigurationItem {
        scope_uri: None,
        section: Some("dldoctor".into()),
    }]);
    match tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, request).await {
        Ok(Ok(values)) => {
            // A client without a `dldoctor` section answers null: keep what we have.
            let value = values.into_iter().next().filter(|v| !v.is_null())?;
            let (settings, warnings) = ClientSettings::from_value(&value);
            for warning in warnings {
                tracing::warn!("{warning}");
                session
                    .client
                    .log_message(MessageType::WARNING, warning)
                    .await;
            }
            Some(settings)
        }
        Ok(Err(err)) => {
            tracing::warn!("workspace/configuration failed: {err}");
            None
        }
        Err(_) => {
            tracing::warn!("workspace/configuration: no answer within {CLIENT_REQUEST_TIMEOUT:?}");
            None
        }
    }
}

pub async fn refresh_from_client(session: &Arc<Session>) {
    if let Some(client) = fetch(session).await {
        apply(session, client);
        // Documents opened while the client was answering were analysed with the old settings.
        super::diagnostic::republish_all(session).await;
    }
}

/// Re-reads the project settings (folders changed, pyproject.toml saved) keeping the
/// editor's, and re-analyses.
pub async fn reload(session: &Arc<Session>) {
    let client = session.config().client.clone();
    apply(session, client);
    super::diagnostic::republish_all(session).await;
}

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
        _ => fetch(session).await,
    };
    if let Some(client) = client {
        apply(session, client);
    }
    super::diagnostic::republish_all(session).await;
}
