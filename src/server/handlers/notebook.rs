//! Notebook sync (LSP 3.17): `notebookDocument/didOpen`, `didChange`, `didSave`, `didClose`.
//!
//! Each cell is an open document of its own (edits to its text arrive here rather than as
//! `textDocument/didChange`); the notebook keeps the cells' order. Any change can move what
//! every other cell sees (a dataset defined in cell 2 is used in cell 5), so each one
//! republishes every code cell of the notebook.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::server::document::Document;
use crate::server::session::{Session, uri_path};

pub async fn did_open(session: &Arc<Session>, params: DidOpenNotebookDocumentParams) {
    let notebook = params.notebook_document;
    let path = uri_path(&notebook.uri);
    for doc in params.cell_text_documents {
        open_cell(session, &notebook.uri, doc, &path);
    }
    session
        .notebooks
        .insert(notebook.uri.clone(), cells(&notebook.cells));
    republish(session, &notebook.uri).await;
}

pub async fn did_change(session: &Arc<Session>, params: DidChangeNotebookDocumentParams) {
    let notebook_uri = params.notebook_document.uri;
    let path = uri_path(&notebook_uri);
    let encoding = session.encoding();
    let mut closed = Vec::new();
    if let Some(change) = params.change.cells {
        if let Some(structure) = change.structure {
            for doc in structure.did_open.unwrap_or_default() {
                open_cell(session, &notebook_uri, doc, &path);
            }
            for doc in structure.did_close.unwrap_or_default() {
                session.forget(&doc.uri);
                session.cell_notebook.remove(&doc.uri);
                closed.push(doc.uri);
            }
            if let Some(mut order) = session.notebooks.get_mut(&notebook_uri) {
                let start = (structure.array.start as usize).min(order.len());
                let end = (start + structure.array.delete_count as usize).min(order.len());
                let inserted = cells(&structure.array.cells.unwrap_or_default());
                order.splice(start..end, inserted);
            }
        }
        for content in change.text_content.unwrap_or_default() {
            let changes = super::did_change::changes_of(&content.changes);
            if let Some(mut doc) = session.documents.get_mut(&content.document.uri) {
                doc.apply_changes(&changes, content.document.version, encoding);
            }
        }
    }
    for uri in closed {
        session
            .client
            .publish_diagnostics(uri, Vec::new(), None)
            .await;
    }
    republish(session, &notebook_uri).await;
}

pub async fn did_save(session: &Arc<Session>, params: DidSaveNotebookDocumentParams) {
    republish(session, &params.notebook_document.uri).await;
}

pub async fn did_close(session: &Arc<Session>, params: DidCloseNotebookDocumentParams) {
    session.notebooks.remove(&params.notebook_document.uri);
    session
        .notebook_findings
        .remove(&params.notebook_document.uri);
    for doc in params.cell_text_documents {
        session.forget(&doc.uri);
        session.cell_notebook.remove(&doc.uri);
        session
            .client
            .publish_diagnostics(doc.uri, Vec::new(), None)
            .await;
    }
}

fn open_cell(session: &Session, notebook: &Uri, doc: TextDocumentItem, path: &std::path::Path) {
    session
        .cell_notebook
        .insert(doc.uri.clone(), notebook.clone());
    session.documents.insert(
        doc.uri,
        Document::new(doc.text, doc.version, path.to_owned()),
    );
}

/// The notebook's cells in order: each one's document and whether it is code.
fn cells(cells: &[NotebookCell]) -> Vec<(Uri, bool)> {
    cells
        .iter()
        .map(|c| (c.document.clone(), c.kind == NotebookCellKind::CODE))
        .collect()
}

/// Every code cell's findings again: a change to one cell can change another's.
async fn republish(session: &Arc<Session>, notebook: &Uri) {
    let Some(order) = session.notebooks.get(notebook).map(|o| o.clone()) else {
        return;
    };
    for (uri, is_code) in &order {
        if *is_code && session.documents.contains_key(uri) {
            session.invalidate(uri);
        }
    }
    if session.negotiated().pull_diagnostics {
        // A pulling client asks again for what it shows.
        super::diagnostic::republish_all(session).await;
        return;
    }
    for (uri, is_code) in order {
        if is_code && session.documents.contains_key(&uri) {
            session.publish(&uri).await;
        }
    }
}
