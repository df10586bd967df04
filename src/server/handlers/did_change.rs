//! Document sync: `didOpen`, `didChange` (incremental), `didSave`, `didClose`, and files
//! changed on disk (`workspace/didChangeWatchedFiles`).
//!
//! Handlers run up to four at a time, so every change is applied to the stored document (text,
//! `Tree::edit`, re-parse) synchronously, before the handler's first `.await`: edits can then
//! never be reordered. Analysis and publishing happen afterwards, debounced per document.

use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::ls_types::*;

use crate::server::convert::line_col;
use crate::server::document::{Change, Document};
use crate::server::session::{Session, uri_path};

/// Quiet time after the last edit before diagnostics are pushed.
pub const DEBOUNCE: Duration = Duration::from_millis(60);

/// Quiet time after the last edit before the file's entry in the workspace index is refreshed.
/// Only other files depend on it, and summarising every class of a large file costs as much as
/// analysing it, so it waits for a pause in typing rather than competing with the diagnostics
/// of each keystroke.
pub const REINDEX_AFTER: Duration = Duration::from_millis(500);

pub async fn did_open(session: &Arc<Session>, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let path = uri_path(&doc.uri);
    session
        .documents
        .insert(doc.uri.clone(), Document::new(doc.text, doc.version, path));
    super::diagnostic::publish_now(session, &doc.uri).await;
    // Other files may have used what this one defined on disk; the editor's text now counts.
    if session.reindex_off_runtime(&doc.uri, None).await {
        super::diagnostic::republish_except(session, Some(&doc.uri)).await;
    }
}

pub async fn did_change(session: &Arc<Session>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let encoding = session.encoding();
    let changes = changes_of(&params.content_changes);
    let generation = {
        let Some(mut doc) = session.documents.get_mut(&uri) else {
            tracing::warn!(
                "didChange for a document that is not open: {}",
                uri.as_str()
            );
            return;
        };
        doc.apply_changes(&changes, params.text_document.version, encoding);
        doc.generation
    };
    // Explain results on this file described the old text.
    let had_explained = session
        .explained
        .lock()
        .map(|mut map| map.remove(&uri).is_some())
        .unwrap_or(false);
    super::diagnostic::publish_debounced(session, uri, generation, had_explained);
}

/// The changes of a notification, in the order they apply.
pub fn changes_of(events: &[TextDocumentContentChangeEvent]) -> Vec<Change<'_>> {
    events
        .iter()
        .map(|c| Change {
            range: c.range.map(|r| (line_col(r.start), line_col(r.end))),
            text: &c.text,
        })
        .collect()
}

pub async fn did_save(session: &Arc<Session>, params: DidSaveTextDocumentParams) {
    let uri = params.text_document.uri;
    let path = uri_path(&uri);
    if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        super::configuration::reload(session).await;
        return;
    }
    // Other open files may use what this one defines.
    if session.reindex_off_runtime(&uri, params.text).await {
        super::diagnostic::republish_all(session).await;
    }
}

pub async fn did_close(session: &Arc<Session>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    session.forget(&uri);
    if let Ok(mut map) = session.explained.lock() {
        map.remove(&uri);
    }
    session
        .client
        .publish_diagnostics(uri.clone(), Vec::new(), None)
        .await;
    // What the file defines is read from disk again, unsaved edits gone.
    if session.file_changed(&uri_path(&uri)) {
        super::diagnostic::republish_all(session).await;
    }
}

/// Files changed on disk (another tool, a `git checkout`): summaries made from them are
/// forgotten, and the open files analysed again if one was used or a file appeared or went
/// away (an import that found nothing may find it now). An open file's own text is the
/// editor's, not the disk's, but a summary read from disk before it was opened is dropped too.
pub async fn did_change_watched_files(session: &Arc<Session>, params: DidChangeWatchedFilesParams) {
    let mut changed = false;
    for event in &params.changes {
        let path = uri_path(&event.uri);
        if !crate::server::index::is_python(&path) {
            continue;
        }
        changed |= session.file_changed(&path);
        if event.typ != FileChangeType::CHANGED {
            session.files_came_or_went();
            changed = true;
        }
    }
    if changed {
        super::diagnostic::republish_all(session).await;
    }
}
