//! `initialize`, `initialized` and workspace folders: negotiate the position encoding and the
//! diagnostic mode, read the first settings, and watch the workspace's Python files. Nothing
//! is indexed up front: other files are summarised when an analysis follows an import to them.

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::server::handlers::{configuration, execute_command};
use crate::server::session::{Negotiated, Session, uri_path};
use crate::server::settings::ClientSettings;
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
        watch_files: workspace
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false),
        roots,
    };
    tracing::info!(
        "client {:?}: {encoding:?} positions, {} diagnostics",
        params.client_info.as_ref().map(|c| c.name.as_str()),
        if pull { "pulled" } else { "pushed" }
    );
    session.set_project_roots(negotiated.roots.clone());
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
    configuration::apply(session, client_settings);

    Ok(InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(kind),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                },
            )),
            // Python cells of Jupyter notebooks, analysed together (see `handlers::notebook`).
            notebook_document_sync: Some(OneOf::Left(NotebookDocumentSyncOptions {
                notebook_selector: vec![NotebookSelector::ByNotebook {
                    notebook: Notebook::String("jupyter-notebook".into()),
                    cells: Some(vec![NotebookCellSelector {
                        language: "python".into(),
                    }]),
                }],
                save: Some(true),
            })),
            diagnostic_provider: pull.then(|| {
                DiagnosticServerCapabilities::Options(DiagnosticOptions {
                    identifier: Some("dldoctor".into()),
                    inter_file_dependencies: true,
                    workspace_diagnostics: false,
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                })
            }),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![
                    CodeActionKind::QUICKFIX,
                    CodeActionKind::SOURCE_FIX_ALL,
                    CodeActionKind::new(super::code_action::FIX_ALL_KIND),
                ]),
                resolve_provider: Some(false),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: execute_command::COMMANDS
                    .iter()
                    .map(|c| (*c).to_owned())
                    .collect(),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            }),
            workspace: Some(WorkspaceServerCapabilities {
                workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                    supported: Some(true),
                    change_notifications: Some(OneOf::Left(true)),
                }),
                file_operations: None,
            }),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "dldoctor".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    })
}

pub async fn initialized(session: &Arc<Session>) {
    configuration::refresh_from_client(session).await;
    if session.negotiated().watch_files {
        watch_python_files(session).await;
    }
}

/// Asks the client to report changes of Python files on disk, which other files' analyses
/// may depend on.
async fn watch_python_files(session: &Session) {
    let Some(registration) = crate::server::index::watcher_registration() else {
        return;
    };
    let registered = tokio::time::timeout(
        configuration::CLIENT_REQUEST_TIMEOUT,
        session.client.register_capability(vec![registration]),
    )
    .await;
    if !matches!(registered, Ok(Ok(()))) {
        tracing::warn!("the client did not register the Python file watcher: {registered:?}");
    }
}

pub async fn did_change_workspace_folders(
    session: &Arc<Session>,
    params: DidChangeWorkspaceFoldersParams,
) {
    let mut roots = session.negotiated().roots;
    let removed: Vec<PathBuf> = params
        .event
        .removed
        .iter()
        .map(|f| uri_path(&f.uri))
        .collect();
    roots.retain(|r| !removed.contains(r));
    roots.extend(params.event.added.iter().map(|f| uri_path(&f.uri)));
    if let Ok(mut negotiated) = session.negotiated.write() {
        negotiated.roots = roots.clone();
    }
    session.set_project_roots(roots);
    configuration::reload(session).await;
}
