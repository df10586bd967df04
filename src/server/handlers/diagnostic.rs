//! `textDocument/diagnostic`: diagnostics pulled by a client that supports it. Such a client
//! never gets the same diagnostics pushed ([`crate::server::publish`]), but for notebook
//! cells, whose are pushed: a pull for a cell is answered empty, so nothing shows twice.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::server::session::Session;

pub async fn pull(
    session: &Arc<Session>,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let uri = params.text_document.uri;
    let Some((_, diagnostics)) = session.diagnostics_off_runtime(&uri).await else {
        return Err(Error::invalid_params(format!(
            "document is not open: {}",
            uri.as_str()
        )));
    };
    let items = if session.pulled(&uri) {
        diagnostics.as_ref().clone()
    } else {
        Vec::new()
    };
    Ok(DocumentDiagnosticReportResult::Report(
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        }),
    ))
}
