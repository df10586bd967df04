//! The language server (`dldoctor lsp`): a thin [`LanguageServer`] whose methods delegate to
//! one handler module per LSP method. It calls the same analysis as `check` and the same
//! diagnosis as `explain`; it has no analysis of its own.

pub mod convert;
pub mod document;
pub mod explain;
pub mod handlers;
pub mod hover_docs;
pub mod index;
pub mod noqa;
pub mod notebook;
pub mod session;
pub mod settings;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use self::session::Session;

pub struct Server {
    session: Arc<Session>,
}

impl Server {
    fn new(client: Client) -> Self {
        Self {
            session: Arc::new(Session::new(client)),
        }
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        handlers::initialize::initialize(&self.session, params)
    }

    async fn initialized(&self, _: InitializedParams) {
        handlers::initialize::initialized(&self.session).await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.session
            .shutdown_requested
            .store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        handlers::did_change::did_open(&self.session, params).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        handlers::did_change::did_change(&self.session, params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        handlers::did_change::did_save(&self.session, params).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        handlers::did_change::did_close(&self.session, params).await;
    }

    async fn notebook_did_open(&self, params: DidOpenNotebookDocumentParams) {
        handlers::notebook::did_open(&self.session, params).await;
    }

    async fn notebook_did_change(&self, params: DidChangeNotebookDocumentParams) {
        handlers::notebook::did_change(&self.session, params).await;
    }

    async fn notebook_did_save(&self, params: DidSaveNotebookDocumentParams) {
        handlers::notebook::did_save(&self.session, params).await;
    }

    async fn notebook_did_close(&self, params: DidCloseNotebookDocumentParams) {
        handlers::notebook::did_close(&self.session, params).await;
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        handlers::diagnostic::pull(&self.session, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        handlers::code_action::code_action(&self.session, params)
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        handlers::hover::hover(&self.session, params)
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        handlers::execute_command::execute_command(&self.session, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        handlers::did_change::did_change_watched_files(&self.session, params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        handlers::configuration::did_change_configuration(&self.session, params).await;
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        handlers::initialize::did_change_workspace_folders(&self.session, params).await;
    }
}

/// Serves the protocol on stdin/stdout until `exit` or until stdin closes. Returns the process
/// exit code the protocol asks for: 0 after a `shutdown` request, 1 otherwise.
pub async fn serve_stdio() -> i32 {
    let stdin = tokio::io::stdin();
    let stdout = tokio::io::stdout();
    let mut session = None;
    let (service, socket) = LspService::new(|client| {
        let server = Server::new(client);
        session = Some(Arc::clone(&server.session));
        server
    });
    tower_lsp_server::Server::new(stdin, stdout, socket)
        .serve(service)
        .await;
    match session {
        Some(s) if s.shutdown_requested.load(Ordering::SeqCst) => 0,
        _ => 1,
    }
}
