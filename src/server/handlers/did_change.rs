//! Document sync: `didOpen`, `didChange` (incremental), `didSave`, `didClose`, and files
//! changed on disk (`workspace/didChangeWatchedFiles`).
//!
//! Handlers run up to four at a time, so every change is applied to the stored document (text,
//! `Tree::edit`, re-parse) synchronously, before the handler's first `.await`: edits can then
//! never be reordered. Analysis and publishing happen afterwards, debounced per document
//! ([`publish::after_edit`]).

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::server::document::{Change, Document};
use crate::server::session::{Session, uri_path};
use crate::server::{config, publish};

pub async fn did_open(session: &Arc<Session>, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    let path = uri_path(&doc.uri);
    session
        .documents
        .insert(doc.uri.clone(), Document::new(doc.text, doc.version, path));
    publish::opened(session, &doc.uri).await;
}

pub async fn did_change(session: &Arc<Session>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let encoding = session.encoding();
    let changes = Change::all_of(&params.content_changes);
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
    publish::after_edit(session, uri, generation, had_explained);
}

pub async fn did_save(session: &Arc<Session>, params: DidSaveTextDocumentParams) {
    let uri = params.text_document.uri;
    let path = uri_path(&uri);
    if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        config::reload(session).await;
        return;
    }
    publish::after_save(session, &uri, params.text).await;
}

pub async fn did_close(session: &Arc<Session>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    session.forget(&uri);
    if let Ok(mut map) = session.explained.lock() {
        map.remove(&uri);
    }
    publish::cleared(session, uri.clone()).await;
    // What the file defines is read from disk again, unsaved edits gone.
    if session.file_changed(&uri_path(&uri)) {
        publish::all(session).await;
    }
}

/// Files changed on disk (another tool, a `git checkout`): summaries made from them are
/// forgotten, and the open files analysed again if one was used or a file appeared or went
/// away (an import that found nothing may find it now). An open file's own text is the
/// editor's, not the disk's, but a summary read from disk before it was opened is dropped too.
/// A YAML file or shell script that changes may be a config the analysis read: every open
/// file is analysed again.
pub async fn did_change_watched_files(session: &Arc<Session>, params: DidChangeWatchedFilesParams) {
    let mut changed = false;
    for event in &params.changes {
        let path = uri_path(&event.uri);
        // A config file or script: what was read from the shipped ones is read again.
        if crate::server::index::is_config(&path) {
            session.config_file_changed();
            changed = true;
            continue;
        }
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
        publish::all(session).await;
    }
}
