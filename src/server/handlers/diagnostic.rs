//! `textDocument/diagnostic`: diagnostics pulled by a client that supports it. Such a client
//! never gets the same diagnostics pushed ([`crate::server::publish`]), but for notebook
//! cells, whose are pushed: a pull for a cell is answered empty, so nothing shows twice.
//!
//! Each full report carries a `resultId`, a hash of its items; a pull whose
//! `previousResultId` is the hash of what the analysis gives now is answered `unchanged`, so a
//! keystroke that moves no diagnostic sends a few bytes, not every diagnostic again (over SSH,
//! the answer is most of a keystroke's cost).

use std::hash::{DefaultHasher, Hash, Hasher};
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
    let result_id = result_id(&items);
    if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
        return Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                related_documents: None,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                    result_id,
                },
            }),
        ));
    }
    Ok(DocumentDiagnosticReportResult::Report(
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        }),
    ))
}

/// The id of a report's items: equal items, equal ids, whatever the document's version. The
/// hash is of the items' JSON, what the client would receive (a `Diagnostic` has no `Hash`:
/// its `data` is JSON); SipHash with fixed keys, so ids stay stable for the session's life.
fn result_id(items: &[Diagnostic]) -> String {
    let mut hasher = DefaultHasher::new();
    match serde_json::to_vec(items) {
        Ok(json) => json.hash(&mut hasher),
        // Never happens for these types; a fresh id per call keeps every answer full.
        Err(_) => std::time::SystemTime::now().hash(&mut hasher),
    }
    format!("{:016x}", hasher.finish())
}
