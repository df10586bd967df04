//! `initialize`, `initialized` and workspace folders: negotiate the position encoding and the
//! diagnostic mode, read the first settings, and index the workspace in the background.

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::server::session::{CLIENT_REQUEST_TIMEOUT, Negotiated, Session, uri_path};
use crate::server::settings::ClientSettings;
use crate::server::{capabilities, config, publish};
use crate::text::Encoding;

pub fn initialize(session: &Session, params: InitializeParams) -> Result<InitializeResult> {
    let caps = &params.capabilities;
    let offered = caps
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_deref())
        .unwrap_or_default();
    let (encoding, kind) = if offered.contains(&PositionEncodingKind::UTF8) {
        (Encoding::Utf8, PositionEncodingKind::UTF8)
    } else {
        (Encoding::Utf16, PositionEncodingKind::UTF16)
    };
    let pull = caps
        .text_document
        .as_ref()
        .is_some_and(|t| t.diagnostic.is_some());
    let workspace = caps.workspace.as_ref();
    #[allow(deprecated)]
    let legacy_root = params.root_uri.as_ref().map(uri_path);
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .map(|f| uri_path(&f.uri))
        .collect();
    if roots.is_empty() {
        roots.extend(legacy_root);
    }
    let negotiated = Negotiated {
        encoding,
        pull_diagnostics: pull,
        diagnostic_refresh: workspace
            .and_then(|w| w.diagnostics.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
        configuration_request: workspace.and_then(|w| w.configuration).unwrap_or(false),
        work_done_progress: caps
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
        client_locale: params.locale.clone(),
        roots,
    };
    tracing::info!(
        "client {:?}: {encoding:?} positions, {} diagnostics",
        params.client_info.as_ref().map(|c| c.name.as_str()),
        if pull { "pulled" } else { "pushed" }
    );
    if let Ok(mut slot) = session.negotiated.write() {
        *slot = negotiated;
    }
    let (client_settings, warnings) = params
        .initialization_options
        .as_ref()
        .map(ClientSettings::from_value)
        .unwrap_or_default();
    for warning in &warnings {
        tracing::warn!("{warning}");
    }
    config::apply(session, client_settings);

    Ok(InitializeResult {
        capabilities: capabilities::server(kind, pull),
        server_info: Some(ServerInfo {
            name: "dldoctor".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    })
}

pub async fn initialized(session: &Arc<Session>) {
    config::refresh_from_client(session).await;
    index_workspace(Arc::clone(session));
}

pub async fn did_change_workspace_folders(
    session: &Arc<Session>,
    params: DidChangeWorkspaceFoldersParams,
) {
    if let Ok(mut negotiated) = session.negotiated.write() {
        let removed: Vec<PathBuf> = params
            .event
            .removed
            .iter()
            .map(|f| uri_path(&f.uri))
            .collect();
        negotiated.roots.retain(|r| !removed.contains(r));
        negotiated
            .roots
            .extend(params.event.added.iter().map(|f| uri_path(&f.uri)));
    }
    config::reload(session).await;
    index_workspace(Arc::clone(session));
}

/// Fills the workspace index in the background, reporting `$/progress`, then re-analyses the
/// open documents (a Dataset defined in another file may now be known).
fn index_workspace(session: Arc<Session>) {
    tokio::spawn(async move {
        let negotiated = session.negotiated();
        let progress = if negotiated.work_done_progress {
            let token = NumberOrString::String("dldoctor/index".into());
            let created = tokio::time::timeout(
                CLIENT_REQUEST_TIMEOUT,
                session.client.create_work_done_progress(token.clone()),
            )
            .await;
            match created {
                Ok(Ok(())) => Some(
                    session
                        .client
                        .progress(token, "dldoctor: indexing the workspace")
                        .begin()
                        .await,
                ),
                _ => None,
            }
        } else {
            None
        };
        let roots = negotiated.roots.clone();
        let built = tokio::task::spawn_blocking(move || crate::server::index::build(&roots)).await;
        match built {
            Ok((index, files)) => {
                session.update_index(|slot| *slot = index);
                if let Some(progress) = progress {
                    progress
                        .finish_with_message(format!("{files} Python files"))
                        .await;
                }
            }
            Err(err) => {
                tracing::error!("indexing the workspace failed: {err}");
                if let Some(progress) = progress {
                    progress.finish_with_message("failed").await;
                }
            }
        }
        publish::all(&session).await;
    });
}
