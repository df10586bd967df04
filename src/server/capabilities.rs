//! What the server offers (the `initialize` answer), and the names clients call it by: the
//! commands of `workspace/executeCommand` and the fix-all code action kind.

use tower_lsp_server::ls_types::*;

pub const EXPLAIN: &str = "dldoctor.explain";
pub const ENV: &str = "dldoctor.env";
pub const COMMANDS: &[&str] = &[EXPLAIN, ENV];

/// `source.fixAll` for this server only: the safe fixes of a whole file.
pub const FIX_ALL_KIND: &str = "source.fixAll.dldoctor";

/// The source of diagnostics placed by `dldoctor.explain`, apart from the static ones.
pub const EXPLAIN_SOURCE: &str = "dldoctor-explain";

/// The capabilities for a client that agreed on `encoding` and pulls its diagnostics or not.
pub fn server(encoding: PositionEncodingKind, pull: bool) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding),
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
                CodeActionKind::new(FIX_ALL_KIND),
            ]),
            resolve_provider: Some(false),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: COMMANDS.iter().map(|c| (*c).to_owned()).collect(),
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
    }
}
