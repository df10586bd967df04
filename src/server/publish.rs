//! The one place diagnostics leave the server: pushed at once (open), after a quiet time
//! (edits, with the workspace index refreshed after a longer one), for every open document
//! (configuration or index changed), or cleared (close). Handlers call these and never each
//! other.
//!
//! In pull mode (`textDocument/diagnostic`) the static diagnostics are never pushed: a push
//! then carries only the diagnostics `dldoctor.explain` placed, and a workspace change asks the
//! client to pull again. Notebook cells are the exception: theirs are always pushed
//! ([`Session::pulled`]).

use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::ls_types::Uri;

use crate::server::session::{CLIENT_REQUEST_TIMEOUT, Session};

/// Quiet time after the last edit before diagnostics are pushed.
pub const DEBOUNCE: Duration = Duration::from_millis(60);

/// Quiet time after the last edit before the file's entry in the workspace index is refreshed.
/// Only other files depend on it, and summarising every class of a large file costs as much as
/// analysing it, so it waits for a pause in typing rather than competing with the diagnostics
/// of each keystroke.
pub const REINDEX_AFTER: Duration = Duration::from_millis(500);

/// Pushes what the client should show for `uri`: in push mode the static diagnostics and the
/// explain ones together (a push replaces the file's set); in pull mode only the explain
/// ones, since the static ones are pulled.
pub async fn document(session: &Arc<Session>, uri: &Uri) {
    let pull = session.pulled(uri);
    let mut all = Vec::new();
    let mut version = None;
    if !pull && let Some((v, diagnostics)) = session.diagnostics_off_runtime(uri).await {
        all.extend(diagnostics.iter().cloned());
        version = Some(v);
    }
    all.extend(session.explained_for(uri));
    session
        .client
        .publish_diagnostics(uri.clone(), all, version)
        .await;
}

/// A newly opened document: its static diagnostics, unless the client pulls them. Other open
/// files may have used what it defined on disk; the editor's text now counts.
pub async fn opened(session: &Arc<Session>, uri: &Uri) {
    if !session.pulled(uri) {
        document(session, uri).await;
    }
    if session.reindex_off_runtime(uri, None).await {
        all_except(session, Some(uri)).await;
    }
}

/// A closed document: nothing of it stays on the client.
pub async fn cleared(session: &Session, uri: Uri) {
    session
        .client
        .publish_diagnostics(uri, Vec::new(), None)
        .await;
}

/// After [`DEBOUNCE`] without a newer change (whose own task takes over): publishes; after
/// [`REINDEX_AFTER`] still without one, refreshes this file's entry in the workspace index,
/// and when what the file defines changed, the other open files that may use it are published
/// again. Analysis runs in the task, on the newest text. In pull mode only a dropped explain
/// result needs a push (`cleared_explained`).
pub fn after_edit(session: &Arc<Session>, uri: Uri, generation: u64, cleared_explained: bool) {
    let session = Arc::clone(session);
    tokio::spawn(async move {
        tokio::time::sleep(DEBOUNCE).await;
        let current = session.generation(&uri) == Some(generation);
        let pull = session.pulled(&uri);
        if (current && !pull) || cleared_explained {
            document(&session, &uri).await;
        }
        if !current {
            return;
        }
        tokio::time::sleep(REINDEX_AFTER.saturating_sub(DEBOUNCE)).await;
        if session.generation(&uri) == Some(generation)
            && session.reindex_off_runtime(&uri, None).await
        {
            all_except(&session, Some(&uri)).await;
        }
    });
}

/// Every code cell of an open notebook: a change to one cell can change what another shows.
/// Its cells' cached findings must already be dropped.
pub async fn notebook(session: &Arc<Session>, notebook: &Uri) {
    let Some(cells) = session.notebooks.get(notebook).map(|n| n.cells.clone()) else {
        return;
    };
    for (uri, is_code) in cells {
        if is_code && session.documents.contains_key(&uri) {
            document(session, &uri).await;
        }
    }
}

/// After [`DEBOUNCE`] without a newer change to the notebook (whose own task takes over):
/// [`notebook`]. Typing in a cell analyses the notebook once per pause, not per keystroke.
pub fn after_notebook_edit(session: &Arc<Session>, notebook_uri: Uri, generation: u64) {
    let session = Arc::clone(session);
    tokio::spawn(async move {
        tokio::time::sleep(DEBOUNCE).await;
        let current = session
            .notebooks
            .get(&notebook_uri)
            .is_some_and(|n| n.generation == generation);
        if current {
            notebook(&session, &notebook_uri).await;
        }
    });
}

/// A saved file: other open files may use what it defines.
pub async fn after_save(session: &Arc<Session>, uri: &Uri, text: Option<String>) {
    if session.reindex_off_runtime(uri, text).await {
        all(session).await;
    }
}

/// After a configuration or index change: every open document again, and a refresh request
/// to a pulling client.
pub async fn all(session: &Arc<Session>) {
    all_except(session, None).await;
}

/// [`all`] but for `done`, whose own diagnostics are already out (a pulling client refreshes
/// everything).
async fn all_except(session: &Arc<Session>, done: Option<&Uri>) {
    let negotiated = session.negotiated();
    if negotiated.pull_diagnostics && negotiated.diagnostic_refresh {
        let refresh = session.client.workspace_diagnostic_refresh();
        let _ = tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, refresh).await;
    }
    for uri in session.open_uris() {
        if Some(&uri) != done && !session.pulled(&uri) {
            document(session, &uri).await;
        }
    }
}
