//! Notebook sync (LSP 3.17): `notebookDocument/didOpen`, `didChange`, `didSave`, `didClose`.
//!
//! Each cell is an open document of its own (edits to its text arrive here rather than as
//! `textDocument/didChange`); the notebook keeps the cells' order. Any change can move what
//! every other cell sees (a dataset defined in cell 2 is used in cell 5), so each one
//! republishes every code cell of the notebook, after the same quiet time as a text edit
//! ([`publish::after_notebook_edit`]). As for text documents, every change is applied before
//! the handler's first `.await`, so changes are never reordered.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::server::document::{Change, Document};
use crate::server::notebook::OpenNotebook;
use crate::server::publish;
use crate::server::session::{Session, uri_path};

pub async fn did_open(session: &Arc<Session>, params: DidOpenNotebookDocumentParams) {
    let notebook = params.notebook_document;
    let path = uri_path(&notebook.uri);
    for doc in params.cell_text_documents {
        open_cell(session, &notebook.uri, doc, &path);
    }
    let open = OpenNotebook {
        cells: cells(&notebook.cells),
        generation: 0,
    };
    session.notebooks.insert(notebook.uri.clone(), open);
    publish::notebook(session, &notebook.uri).await;
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
            if let Some(mut open) = session.notebooks.get_mut(&notebook_uri) {
                let order = &mut open.cells;
                let start = (structure.array.start as usize).min(order.len());
                let end = (start + structure.array.delete_count as usize).min(order.len());
                let inserted = cells(&structure.array.cells.unwrap_or_default());
                order.splice(start..end, inserted);
            }
        }
        for content in change.text_content.unwrap_or_default() {
            let changes = Change::all_of(&content.changes);
            if let Some(mut doc) = session.documents.get_mut(&content.document.uri) {
                doc.apply_changes(&changes, content.document.version, encoding);
            }
        }
    }
    let generation = changed(session, &notebook_uri);
    for uri in closed {
        publish::cleared(session, uri).await;
    }
    if let Some(generation) = generation {
        publish::after_notebook_edit(session, notebook_uri, generation);
    }
}

pub async fn did_save(session: &Arc<Session>, params: DidSaveNotebookDocumentParams) {
    publish::notebook(session, &params.notebook_document.uri).await;
}

pub async fn did_close(session: &Arc<Session>, params: DidCloseNotebookDocumentParams) {
    session.notebooks.remove(&params.notebook_document.uri);
    session
        .notebook_findings
        .remove(&params.notebook_document.uri);
    for doc in params.cell_text_documents {
        session.forget(&doc.uri);
        session.cell_notebook.remove(&doc.uri);
        publish::cleared(session, doc.uri).await;
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

/// Counts a change to the notebook and drops its code cells' cached findings at once (a
/// hover or code action before the next publish reads the new state); the notebook's new
/// generation, or `None` when it is not open.
fn changed(session: &Session, notebook: &Uri) -> Option<u64> {
    let (cells, generation) = {
        let mut open = session.notebooks.get_mut(notebook)?;
        open.generation += 1;
        (open.cells.clone(), open.generation)
    };
    for (uri, is_code) in cells {
        if is_code {
            session.invalidate(&uri);
        }
    }
    Some(generation)
}
