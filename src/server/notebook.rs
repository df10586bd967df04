//! Notebooks in the server: the cells of an open notebook are analysed as one module (as
//! `check` reads an `.ipynb`), and each cell document gets the findings that lie in it, in its
//! own offsets.

use std::path::Path;

use tower_lsp_server::ls_types::Uri;

use crate::diagnostic::Diagnostic;
use crate::notebook;
use crate::python;
use crate::server::session::Session;
use crate::text::TextRange;

/// The findings of one cell of an open notebook; `None` when `cell` is not a notebook cell.
pub fn cell_findings(session: &Session, cell: &Uri, path: &Path) -> Option<Vec<Diagnostic>> {
    let notebook_uri = session.cell_notebook.get(cell)?.clone();
    let cells = session.notebooks.get(&notebook_uri)?.clone();
    let mut texts = Vec::new();
    let mut mine = None;
    for (i, (uri, is_code)) in cells.iter().enumerate() {
        if !is_code {
            continue;
        }
        let Some(doc) = session.documents.get(uri) else {
            continue;
        };
        if uri == cell {
            mine = Some(texts.len());
        }
        texts.push((i + 1, doc.text.clone()));
    }
    let mine = mine?;
    let (source, map) = notebook::module_of(texts.iter().map(|(n, t)| (*n, t.as_str())));
    let tree = python::parse(&source, None)?;
    let mut found = session.analyze_source(&source, &tree, path);
    notebook::relabel_lines(&mut found, &source, &map);
    let span = map.cells().get(mine)?.range;
    Some(found.into_iter().filter_map(|d| in_cell(d, span)).collect())
}

/// A finding of the notebook's module moved into the offsets of the cell at `cell`, or `None`
/// when it lies elsewhere. Related places in other cells are left out, and so are fixes that
/// edit other cells (an edit of this document cannot reach them).
fn in_cell(mut d: Diagnostic, cell: TextRange) -> Option<Diagnostic> {
    let local = |r: TextRange| {
        (cell.start <= r.start && r.end <= cell.end)
            .then(|| TextRange::new(r.start - cell.start, r.end - cell.start))
    };
    d.range = local(d.range)?;
    d.related.retain_mut(|r| {
        if r.file.is_some() {
            return true;
        }
        local(r.range).map(|l| r.range = l).is_some()
    });
    d.fixes.retain_mut(|f| {
        let moved: Option<Vec<TextRange>> = f.edits.iter().map(|e| local(e.range)).collect();
        match moved {
            Some(ranges) => {
                for (edit, range) in f.edits.iter_mut().zip(ranges) {
                    edit.range = range;
                }
                true
            }
            None => false,
        }
    });
    Some(d)
}
