//! Diagnostics out: pushed (debounced per document) or pulled with `textDocument/diagnostic`
//! when the client supports it — never both for the same diagnostics.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use crate::server::session::Session;

pub async fn publish_now(session: &Arc<Session>, uri: &Uri) {
    if session.negotiated().pull_diagnostics {
        return;
    }
    session.publish(uri).await;
}

/// After [`super::did_change::DEBOUNCE`] without a newer change (whose own task takes over):
/// publishes; after [`super::did_change::REINDEX_AFTER`] still without one, refreshes this
/// file's entry in the workspace index, and when what the file defines changed, the other open
/// files that may use it are published again. Analysis runs in the task, on the newest text.
/// In pull mode only a dropped explain result needs a push (`cleared_explained`).
pub fn publish_debounced(
    session: &Arc<Session>,
    uri: Uri,
    generation: u64,
    cleared_explained: bool,
) {
    let session = Arc::clone(session);
    tokio::spawn(async move {
        tokio::time::sleep(super::did_change::DEBOUNCE).await;
        let current = session.generation(&uri) == Some(generation);
        let pull = session.negotiated().pull_diagnostics;
        if (current && !pull) || cleared_explained {
            session.publish(&uri).await;
        }
        if !current {
            return;
        }
        tokio::time::sleep(
            super::did_change::REINDEX_AFTER.saturating_sub(super::did_change::DEBOUNCE),
        )
        .await;
        if session.generation(&uri) == Some(generation)
            && session.reindex_off_runtime(&uri, None).await
        {
            republish_except(&session, Some(&uri)).await;
        }
    });
}

/// After a configuration or index change: every open document again, and a refresh request
/// to a pulling client.
pub async fn republish_all(session: &Arc<Session>) {
    republish_except(session, None).await;
}

/// [`republish_all`] but for `done`, whose own diagnostics are already out (a pulling client
/// refreshes everything).
pub async fn republish_except(session: &Arc<Session>, done: Option<&Uri>) {
    let negotiated = session.negotiated();
    if negotiated.pull_diagnostics {
        if negotiated.diagnostic_refresh {
            let refresh = session.client.workspace_diagnostic_refresh();
            let _ =
                tokio::time::timeout(super::configuration::CLIENT_REQUEST_TIMEOUT, refresh).await;
        }
        return;
    }
    for uri in session.open_uris() {
        if Some(&uri) != done {
            session.publish(&uri).await;
        }
    }
}

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
    Ok(DocumentDiagnosticReportResult::Report(
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items: diagnostics.as_ref().clone(),
            },
        }),
    ))
}
