//! Renderers for `check`: text, json, sarif, github — one module per format behind
//! [`Emitter`]. `check` hands each file's results over in path order as they complete;
//! streaming formats (text, github) write them at once, document formats (json, sarif)
//! collect them and write one document in [`Emitter::finish`].
//!
//! Rows and columns are 1-based, columns counted in characters ([`LineIndex::row_column`]).
//! In a notebook, rows count inside the code cell, and every format names the cell (1-based
//! over all the notebook's cells, as Jupyter and ruff number them).

pub mod github;
pub mod json;
pub mod sarif;
pub mod text;

use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::notebook::CellMap;
use crate::text::{LineIndex, TextRange};

/// One checked file and what was found in it.
pub struct FileReport<'a> {
    /// The path as the user named it (relative paths stay relative).
    pub path: &'a Path,
    pub source: &'a str,
    pub index: &'a LineIndex,
    pub diagnostics: &'a [Diagnostic],
    /// For a notebook, where its code cells lie in `source`.
    pub cells: Option<&'a CellMap>,
}

impl FileReport<'_> {
    /// The notebook cell holding `offset`; `None` outside notebooks.
    pub fn cell(&self, offset: usize) -> Option<usize> {
        self.cells?.cell_at(offset).map(|c| c.number)
    }
}

/// Totals for the closing line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Findings left after fixing.
    pub remaining: usize,
    /// Findings that `--fix` removed.
    pub fixed: usize,
    /// Remaining findings with a safe fix (`--fix` would remove them).
    pub fixable: usize,
    /// Remaining findings whose only fix is unsafe (`--unsafe-fixes` would apply it).
    pub unsafe_fixable: usize,
    /// Whether this run had `--fix`.
    pub fix_mode: bool,
    /// Files that could not be checked (unreadable, not UTF-8, a bad config).
    pub errors: usize,
}

pub trait Emitter {
    /// One file's results, called in path order.
    fn file(&mut self, out: &mut dyn Write, file: &FileReport) -> io::Result<()>;
    /// After the last file.
    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()>;
}

/// A 1-based row and character column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    pub row: usize,
    pub column: usize,
}

impl Location {
    /// Where `offset` is; in a notebook, the row counts inside its cell.
    pub fn of(file: &FileReport, offset: usize) -> Self {
        let (mut row, column) = file.index.row_column(file.source, offset);
        if let Some(map) = file.cells
            && let Some(cell) = map.cell_at(offset)
        {
            row = map.row_in_cell(cell, file.index.line_of(offset));
        }
        Self { row, column }
    }

    pub fn range(file: &FileReport, range: TextRange) -> (Self, Self) {
        (Self::of(file, range.start), Self::of(file, range.end))
    }
}

/// A path for output: forward slashes on every platform, so CI logs and SARIF agree; a path
/// that climbs out of the current folder and back into it (`../tools/train.py`, named so from
/// the project's folder above) as the current folder names it (`train.py`).
pub fn display_path(path: &Path) -> String {
    let back_inside = back_inside_cwd(path);
    let path = back_inside.as_deref().unwrap_or(path);
    let text = path.to_string_lossy();
    let text = text.strip_prefix("./").unwrap_or(&text);
    if std::path::MAIN_SEPARATOR == '\\' {
        text.replace('\\', "/")
    } else {
        text.to_owned()
    }
}

/// `path` relative to the current folder when it starts with `..` and leads back inside it.
fn back_inside_cwd(path: &Path) -> Option<PathBuf> {
    static CWD: OnceLock<Option<PathBuf>> = OnceLock::new();
    if !path.starts_with("..") {
        return None;
    }
    let cwd = CWD.get_or_init(|| std::env::current_dir().ok()).as_ref()?;
    let mut absolute = cwd.clone();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                absolute.pop();
            }
            Component::CurDir => {}
            Component::Normal(name) => absolute.push(name),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    absolute.strip_prefix(cwd).ok().map(Path::to_path_buf)
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use crate::codes::Code;
    use crate::fix::{Edit, Fix};

    pub const SOURCE: &str = "import torch\nloader = DataLoader(ds, prefetch_factor=4)\n# é\nx = torch.cuda.current_device()\n";

    /// Two diagnostics built by hand: one with a safe fix and a related place, one without.
    /// The first carries Chinese too, which no CLI format may print.
    pub fn diagnostics() -> Vec<Diagnostic> {
        let kw = SOURCE.find("prefetch_factor=4").unwrap();
        let cuda = SOURCE.find("torch.cuda").unwrap();
        let remove = TextRange::new(kw - 2, kw + "prefetch_factor=4".len());
        vec![
            Diagnostic::new(
                Code::DL301,
                Code::DL301.rule().severity,
                TextRange::new(kw, kw + 17),
                "prefetch_factor option could only be specified in multiprocessing",
            )
            .zh("prefetch_factor 只能在多进程加载时指定")
            .with_fix(
                Fix::safe("Remove `prefetch_factor=4`", vec![Edit::delete(remove)])
                    .zh("删除 `prefetch_factor=4`"),
            )
            .with_related(
                TextRange::new(cuda, cuda + 10),
                "CUDA is initialised here",
                "CUDA 在此处初始化",
            ),
            Diagnostic::new(
                Code::DL203,
                Code::DL203.rule().severity,
                TextRange::new(SOURCE.find("DataLoader").unwrap(), kw - 2),
                "this machine's /dev/shm is 64 MiB",
            ),
        ]
    }

    pub fn render(emitter: &mut dyn Emitter, summary: &Summary) -> String {
        let diagnostics = diagnostics();
        let index = LineIndex::new(SOURCE);
        let file = FileReport {
            path: Path::new("pkg/train.py"),
            source: SOURCE,
            index: &index,
            diagnostics: &diagnostics,
            cells: None,
        };
        let mut out = Vec::new();
        emitter.file(&mut out, &file).unwrap();
        emitter.finish(&mut out, summary).unwrap();
        String::from_utf8(out).unwrap()
    }

    pub fn summary() -> Summary {
        Summary {
            remaining: 2,
            fixable: 1,
            ..Summary::default()
        }
    }
}
