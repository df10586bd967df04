//! Notebooks in the server: the cells of an open notebook are analysed as one module (as
//! `check` reads an `.ipynb`), and each cell document gets the findings that lie in it, in its
//! own offsets.

use std::path::Path;
use std::sync::Arc;

use tower_lsp_server::ls_types::Uri;

use crate::diagnostic::Diagnostic;
use crate::notebook;
use crate::python;
use crate::server::session::Session;
use crate::text::TextRange;

/// One analysis of a notebook's code cells as a module, for the state it was computed from.
pub struct Findings {
    /// The code cells (document and generation) in order, and the configuration epoch.
    key: (Vec<(Uri, u64)>, u64),
    diagnostics: Vec<Diagnostic>,
    /// Each code cell's document and its place in the module.
    cells: Vec<(Uri, TextRange)>,
}

/// The findings of one cell of an open notebook; `None` when `cell` is not a notebook cell.
/// The notebook is analysed once per state and the result shared by its cells.
pub fn cell_findings(session: &Session, cell: &Uri, path: &Path) -> Option<Vec<Diagnostic>> {
    let notebook_uri = session.cell_notebook.get(cell)?.clone();
    let order = session.notebooks.get(&notebook_uri)?.clone();
    let mut texts = Vec::new();
    let mut key = Vec::new();
    for (i, (uri, is_code)) in order.iter().enumerate() {
        if !is_code {
            continue;
        }
        let Some(doc) = session.documents.get(uri) else {
            continue;
        };
        key.push((uri.clone(), doc.generation));
        texts.push((i + 1, uri.clone(), doc.text.clone()));
    }
    let key = (key, session.epoch());
    let cached = session
        .notebook_findings
        .get(&notebook_uri)
        .filter(|f| f.key == key)
        .map(|f| Arc::clone(&f));
    let findings = match cached {
        Some(findings) => findings,
        None => {
            let findings = Arc::new(analyze(session, texts, key, path)?);
            session
                .notebook_findings
                .insert(notebook_uri, Arc::clone(&findings));
            findings
        }
    };
    let span = findings.cells.iter().find(|(uri, _)| uri == cell)?.1;
    Some(
        findings
            .diagnostics
            .iter()
            .filter_map(|d| in_cell(d.clone(), span))
            .collect(),
    )
}

fn analyze(
    session: &Session,
    texts: Vec<(usize, Uri, String)>,
    key: (Vec<(Uri, u64)>, u64),
    path: &Path,
) -> Option<Findings> {
    let (source, map) = notebook::module_of(texts.iter().map(|(n, _, t)| (*n, t.as_str())));
    let tree = python::parse(&source, None)?;
    let mut diagnostics = session.analyze_source(&source, &tree, path);
    notebook::relabel_lines(&mut diagnostics, &source, &map);
    let cells = texts
        .into_iter()
        .zip(map.cells())
        .map(|((_, uri, _), span)| (uri, span.range))
        .collect();
    Some(Findings {
        key,
        diagnostics,
        cells,
    })
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
