//! Notebooks in the server: the cells of an open notebook are analysed as one module (as
//! `check` reads an `.ipynb`), and each cell document gets the findings that lie in it, in its
//! own offsets.

use std::path::Path;
use std::sync::Arc;

use tower_lsp_server::ls_types::Uri;

use crate::diagnostic::Diagnostic;
use crate::notebook::{self, CellMap, CellSpan};
use crate::python;
use crate::server::session::{Session, Snapshot};
use crate::text::{LineIndex, TextRange};

/// One analysis of a notebook's code cells as a module, for the state it was computed from.
pub struct Findings {
    /// The code cells (document and generation) in order, and the configuration epoch.
    key: (Vec<(Uri, u64)>, u64),
    diagnostics: Vec<Diagnostic>,
    /// Each code cell's document and its place in the module.
    cells: Vec<(Uri, TextRange)>,
}

/// An open notebook: its cells in order, as (cell document, is code), and a count of the
/// changes made to it, so a debounced publish can tell whether a newer change followed.
#[derive(Clone, Debug, Default)]
pub struct OpenNotebook {
    pub cells: Vec<(Uri, bool)>,
    pub generation: u64,
}

/// The code cells of an open notebook in order, as (cell number, document, text), and the key
/// of their state (each document's generation).
fn code_cells(session: &Session, notebook: &Uri) -> Option<CodeCells> {
    let order = session.notebooks.get(notebook)?.cells.clone();
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
    Some((texts, key))
}

type CodeCells = (Vec<(usize, Uri, String)>, Vec<(Uri, u64)>);

/// The findings of one cell of an open notebook; `None` when `cell` is not a notebook cell.
/// The notebook is analysed once per state and the result shared by its cells.
pub fn cell_findings(session: &Session, cell: &Uri, path: &Path) -> Option<Vec<Diagnostic>> {
    let notebook_uri = session.cell_notebook.get(cell)?.clone();
    let (texts, key) = code_cells(session, &notebook_uri)?;
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

/// The module a notebook cell belongs to, for requests that read the whole notebook (hover):
/// the module as a snapshot, where the cell lies in it, and where every code cell lies.
pub struct CellModule {
    pub module: Snapshot,
    pub cell: CellSpan,
    pub map: CellMap,
}

impl CellModule {
    /// The module's offset of the cell's `offset` (masking keeps every offset).
    pub fn to_module(&self, offset: usize) -> usize {
        self.cell.range.start + offset
    }

    /// The cell's range of the module's `range`, when it lies in this cell.
    pub fn to_cell(&self, range: TextRange) -> Option<TextRange> {
        within(self.cell.range, range)
    }
}

/// The notebook module of `cell`; `None` when it is not a cell of an open notebook or the
/// module does not parse.
pub fn cell_module(session: &Session, cell: &Uri) -> Option<CellModule> {
    let notebook_uri = session.cell_notebook.get(cell)?.clone();
    let (texts, _) = code_cells(session, &notebook_uri)?;
    let at = texts.iter().position(|(_, uri, _)| uri == cell)?;
    let doc = session.snapshot(cell)?;
    let (source, map) = notebook::module_of(texts.iter().map(|(n, _, t)| (*n, t.as_str())));
    let tree = python::parse(&source, None)?;
    let span = *map.cells().get(at)?;
    Some(CellModule {
        module: Snapshot {
            index: LineIndex::new(&source),
            text: source,
            tree: Some(tree),
            path: doc.path,
            version: doc.version,
            generation: doc.generation,
        },
        cell: span,
        map,
    })
}

/// A finding of the notebook's module moved into the offsets of the cell at `cell`, or `None`
/// when it lies elsewhere. Related places in other cells are left out, and so are fixes that
/// edit other cells (an edit of this document cannot reach them).
fn in_cell(mut d: Diagnostic, cell: TextRange) -> Option<Diagnostic> {
    let local = |r: TextRange| within(cell, r);
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

/// `range` of the module in the offsets of the cell at `cell`, when it lies inside it.
fn within(cell: TextRange, range: TextRange) -> Option<TextRange> {
    (cell.start <= range.start && range.end <= cell.end)
        .then(|| TextRange::new(range.start - cell.start, range.end - cell.start))
}
