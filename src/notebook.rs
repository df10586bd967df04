//! Jupyter notebooks (`.ipynb`, nbformat 4): the code cells, in order, read as one Python module.
//!
//! The module text is the cells' sources joined, each ending with a newline, with IPython-only
//! syntax (`%magic`, `%%cell magic`, `!shell`, `?help`, `obj?`) masked into comments of the same
//! length, so every byte offset of the module is the same offset in its cell. [`CellMap`] turns
//! offsets back into cells and cell-relative rows. Fixes are applied to the cells' own text and
//! written back into the notebook's JSON text in place: formatting, key order, metadata and
//! outputs stay byte for byte, and only the edited cells' `source` values change.

use std::collections::HashMap;
use std::sync::LazyLock;

use jsonc_parser::ast::{Array, Object, Value};
use jsonc_parser::common::Range;
use jsonc_parser::{CollectOptions, ParseOptions};
use regex::Regex;
use thiserror::Error;

use crate::diagnostic::Diagnostic;
use crate::fix::{self, Edit, Fix};
use crate::text::{LineIndex, TextRange};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum NotebookError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("not a Jupyter notebook: {0}")]
    Shape(String),
    #[error("nbformat {0} is not supported (dldoctor reads nbformat 4)")]
    Version(String),
    #[error("a fix could not be applied to cell {cell}: {error}")]
    Fix { cell: usize, error: fix::FixError },
}

/// Whether a path names a notebook.
pub fn is_notebook(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}

/// Cell magics whose body is Python (IPython runs it as Python code); the body of any other
/// (`%%bash`, `%%writefile`, `%%html`) is not Python and is masked whole. The same list as
/// ruff's.
const PYTHON_CELL_MAGICS: &[&str] = &[
    "capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit",
];

/// One code cell.
#[derive(Clone, Debug)]
struct CodeCell {
    /// 1-based, counting every cell of the notebook (markdown and raw too), as Jupyter shows.
    number: usize,
    /// The cell's own text, unmasked.
    text: String,
    /// Where the `source` value sits in the JSON text, and how it is written.
    json: SourceJson,
}

#[derive(Clone, Debug)]
struct SourceJson {
    /// The value: a string, or an array of strings (one per line, as Jupyter writes it).
    range: Range,
    /// For an array: each element's JSON text and decoded value.
    elements: Option<Vec<(Range, String)>>,
    /// The indentation of the `"source"` key's line, for an array that was empty.
    key_indent: String,
}

/// Where each code cell lies in the module text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellMap {
    cells: Vec<CellSpan>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellSpan {
    /// 1-based over all cells of the notebook.
    pub number: usize,
    /// The cell's text in the module (without the newline added after a cell that lacks one).
    pub range: TextRange,
    /// The module's zero-based line on which the cell starts.
    pub first_line: u32,
}

impl CellMap {
    /// The code cell holding `offset`. An offset where one cell ends and the next begins is
    /// the next cell's (the start of its first line).
    pub fn cell_at(&self, offset: usize) -> Option<&CellSpan> {
        let after = self.cells.partition_point(|c| c.range.start <= offset);
        self.cells.get(after.checked_sub(1)?)
    }

    /// The cell holding `range` whole and the range inside that cell's text, or `None` when
    /// the range spans cells or the newline between them.
    pub fn local_range(&self, range: TextRange) -> Option<(usize, TextRange)> {
        let after = self.cells.partition_point(|c| c.range.start <= range.start);
        let i = after.checked_sub(1)?;
        let cell = self.cells[i];
        (range.end <= cell.range.end).then(|| {
            (
                i,
                TextRange::new(range.start - cell.range.start, range.end - cell.range.start),
            )
        })
    }

    /// 1-based row inside the cell for the module's zero-based `line`.
    pub fn row_in_cell(&self, cell: &CellSpan, line: u32) -> usize {
        (line.saturating_sub(cell.first_line)) as usize + 1
    }

    pub fn cells(&self) -> &[CellSpan] {
        &self.cells
    }
}

/// A notebook read from its JSON text.
#[derive(Clone, Debug)]
pub struct Notebook {
    json: String,
    cells: Vec<CodeCell>,
    source: String,
    map: CellMap,
}

impl Notebook {
    /// Reads a notebook. Not JSON, not an nbformat 4 notebook, or a cell without a readable
    /// `source` is an error. A notebook whose kernel language is not Python has no code cells.
    pub fn parse(json: &str) -> Result<Self, NotebookError> {
        let options = ParseOptions {
            allow_comments: false,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            // Python's json module writes and reads NaN and Infinity, which outputs can hold.
            allow_non_finite_numbers: true,
            allow_extended_string_escapes: false,
        };
        let parsed = jsonc_parser::parse_to_ast(json, &CollectOptions::default(), &options)
            .map_err(|e| NotebookError::Json(e.to_string()))?;
        let Some(Value::Object(root)) = parsed.value else {
            return Err(NotebookError::Shape(
                "the top level is not an object".into(),
            ));
        };
        match root.get_number("nbformat") {
            Some(n) if n.value == "4" => {}
            Some(n) => return Err(NotebookError::Version(n.value.to_owned())),
            None => return Err(NotebookError::Shape("no `nbformat` number".into())),
        }
        let cells = root
            .get_array("cells")
            .ok_or_else(|| NotebookError::Shape("no `cells` array".into()))?;
        let mut code = Vec::new();
        if is_python(&root) {
            for (i, cell) in cells.elements.iter().enumerate() {
                let number = i + 1;
                let Value::Object(cell) = cell else {
                    return Err(NotebookError::Shape(format!(
                        "cell {number} is not an object"
                    )));
                };
                let kind = cell.get_string("cell_type").map(|s| s.value.as_ref());
                match kind {
                    Some("code") => code.push(code_cell(json, cell, number)?),
                    Some(_) => {}
                    None => {
                        return Err(NotebookError::Shape(format!(
                            "cell {number} has no `cell_type`"
                        )));
                    }
                }
            }
        }
        Ok(Self::assemble(json.to_owned(), code))
    }

    fn assemble(json: String, cells: Vec<CodeCell>) -> Self {
        let (source, map) = module_of(cells.iter().map(|c| (c.number, c.text.as_str())));
        Self {
            json,
            cells,
            source,
            map,
        }
    }

    /// The Python module the code cells make, IPython syntax masked.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn cell_map(&self) -> &CellMap {
        &self.map
    }

    /// The notebook's JSON text.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// Whether every edit of `fix` lies inside one cell (a fix cannot reach across cells).
    pub fn can_apply(&self, fix: &Fix) -> bool {
        fix.edits
            .iter()
            .all(|e| self.map.local_range(e.range).is_some())
    }

    /// The notebook with `edits` (offsets in [`Notebook::source`]) applied to its cells, and
    /// the JSON text rewritten where a cell's source changed.
    pub fn with_edits(&self, edits: &[Edit]) -> Result<Self, NotebookError> {
        let mut per_cell: HashMap<usize, Vec<Edit>> = HashMap::new();
        for edit in edits {
            let (i, range) = self.map.local_range(edit.range).ok_or_else(|| {
                NotebookError::Shape("an edit reaches across notebook cells".into())
            })?;
            per_cell.entry(i).or_default().push(Edit {
                range,
                content: edit.content.clone(),
            });
        }
        let mut cells = self.cells.clone();
        let mut changed: Vec<usize> = Vec::new();
        for (i, cell_edits) in per_cell {
            let cell = &mut cells[i];
            let text =
                fix::apply_edits(&cell.text, &cell_edits).map_err(|error| NotebookError::Fix {
                    cell: cell.number,
                    error,
                })?;
            if text != cell.text {
                cell.text = text;
                changed.push(i);
            }
        }
        if changed.is_empty() {
            return Ok(self.clone());
        }
        // Rewrite from the end of the JSON text so earlier ranges stay valid.
        changed.sort_by_key(|&i| std::cmp::Reverse(cells[i].json.range.start));
        let mut json = self.json.clone();
        for &i in &changed {
            let cell = &cells[i];
            let written = write_source(&json, &cell.json, &cell.text);
            json.replace_range(cell.json.range.start..cell.json.range.end, &written);
        }
        // The rewritten cells moved what follows them: read the notebook again for new ranges.
        Self::parse(&json)
    }
}

/// The Python module that code cells make, given as (number, text) in order: each cell masked
/// ([`mask`]) and ended with a newline, and where each one lies in it.
pub fn module_of<'t>(cells: impl IntoIterator<Item = (usize, &'t str)>) -> (String, CellMap) {
    let mut source = String::new();
    let mut spans = Vec::new();
    let mut line = 0u32;
    for (number, text) in cells {
        let start = source.len();
        let masked = mask(text);
        source.push_str(&masked);
        spans.push(CellSpan {
            number,
            range: TextRange::new(start, source.len()),
            first_line: line,
        });
        if !masked.is_empty() && !masked.ends_with('\n') {
            source.push('\n');
        }
        line += memchr::memchr_iter(b'\n', &source.as_bytes()[start..]).count() as u32;
    }
    (source, CellMap { cells: spans })
}

/// `metadata.language_info.name` or `metadata.kernelspec.language`, where given, is Python.
fn is_python(root: &Object) -> bool {
    let Some(metadata) = root.get_object("metadata") else {
        return true;
    };
    let language = metadata
        .get_object("language_info")
        .and_then(|l| l.get_string("name"))
        .or_else(|| {
            metadata
                .get_object("kernelspec")
                .and_then(|k| k.get_string("language"))
        });
    language.is_none_or(|l| l.value.eq_ignore_ascii_case("python"))
}

fn code_cell(json: &str, cell: &Object, number: usize) -> Result<CodeCell, NotebookError> {
    let prop = cell
        .get("source")
        .ok_or_else(|| NotebookError::Shape(format!("cell {number} has no `source`")))?;
    let key_indent = indentation_at(json, prop.range.start);
    let (text, elements, range) = match &prop.value {
        Value::StringLit(s) => (s.value.to_string(), None, s.range),
        Value::Array(Array { range, elements }) => {
            let mut text = String::new();
            let mut lines = Vec::with_capacity(elements.len());
            for element in elements {
                let Value::StringLit(s) = element else {
                    return Err(NotebookError::Shape(format!(
                        "cell {number}: `source` holds something other than strings"
                    )));
                };
                text.push_str(&s.value);
                lines.push((s.range, s.value.to_string()));
            }
            (text, Some(lines), *range)
        }
        _ => {
            return Err(NotebookError::Shape(format!(
                "cell {number}: `source` is neither a string nor a list of strings"
            )));
        }
    };
    Ok(CodeCell {
        number,
        text,
        json: SourceJson {
            range,
            elements,
            key_indent,
        },
    })
}

/// The whitespace from the start of the line holding `offset` up to it.
fn indentation_at(text: &str, offset: usize) -> String {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..offset]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

/// The JSON for a cell's new `source`, written as the old one was: a string stays a string; an
/// array keeps one element per line, its layout, and the original text of unchanged lines.
fn write_source(json: &str, old: &SourceJson, text: &str) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    let Some(elements) = &old.elements else {
        return quote(text);
    };
    if text.is_empty() {
        return "[]".to_owned();
    }
    let (lead, trail) = match (elements.first(), elements.last()) {
        (Some((first, _)), Some((last, _))) => (
            json[old.range.start + 1..first.start].to_owned(),
            json[last.end..old.range.end - 1].to_owned(),
        ),
        _ => (
            format!("\n{} ", old.key_indent),
            format!("\n{}", old.key_indent),
        ),
    };
    let original: HashMap<&str, &str> = elements
        .iter()
        .map(|(range, value)| (value.as_str(), &json[range.start..range.end]))
        .collect();
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|line| {
            original
                .get(line)
                .map_or_else(|| quote(line), |raw| (*raw).to_owned())
        })
        .collect();
    format!("[{lead}{}{trail}]", lines.join(&format!(",{lead}")))
}

/// `x = !ls` and `x = %time f()`: an assignment from a shell command or a line magic.
static ASSIGNED_MAGIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")
        .unwrap_or_else(|_| unreachable!("a fixed pattern"))
});

/// The cell's text with IPython syntax turned into comments of the same byte length, so it
/// parses as Python and every offset stays where it was.
pub fn mask(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    let first = cell.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let whole_cell = first.trim_start().strip_prefix("%%").is_some_and(|rest| {
        let name = rest.split_whitespace().next().unwrap_or("");
        !PYTHON_CELL_MAGICS.contains(&name)
    });
    let mut continued = false;
    let mut seen_cell_magic = false;
    for line in cell.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let body = content.trim_start();
        let indent = content.len() - body.len();
        let is_cell_magic = !seen_cell_magic && body.starts_with("%%");
        seen_cell_magic |= !body.is_empty();
        let is_line_magic = body.starts_with(['%', '!', '?']) || is_help(body);
        let masked = if whole_cell || continued || is_cell_magic || is_line_magic {
            comment_out(line, indent)
        } else if let Some(m) = ASSIGNED_MAGIC.find(content) {
            // `x = !ls` becomes `x = 0   `: still an assignment, the same length.
            let at = m.end() - 1;
            let mut masked = String::with_capacity(line.len());
            masked.push_str(&line[..at]);
            masked.push('0');
            masked.extend(std::iter::repeat_n(' ', content.len() - at - 1));
            masked.push_str(&line[content.len()..]);
            continued = content.ends_with('\\');
            out.push_str(&masked);
            continue;
        } else {
            continued = false;
            out.push_str(line);
            continue;
        };
        continued = content.ends_with('\\');
        out.push_str(&masked);
    }
    out
}

/// `obj?`, `obj.attr??`: IPython's help on a name (not a comment that ends with `?`).
fn is_help(body: &str) -> bool {
    !body.starts_with('#')
        && body.ends_with('?')
        && body
            .trim_end_matches('?')
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '*' | '[' | ']' | '(' | ')'))
}

/// `line` with the character at `indent` replaced by `#` and later ones kept: a comment of the
/// same length.
fn comment_out(line: &str, indent: usize) -> String {
    let content_len = line.trim_end_matches(['\n', '\r']).len();
    if indent >= content_len {
        return line.to_owned();
    }
    let mut out = String::with_capacity(line.len());
    out.push_str(&line[..indent]);
    let first = line[indent..].chars().next().map_or(1, char::len_utf8);
    // A multi-byte first character keeps its length with `#` and spaces.
    out.push('#');
    out.extend(std::iter::repeat_n(' ', first - 1));
    out.push_str(&line[indent + first..]);
    out
}

/// `line 12` and `第 12 行` in a message count the module's lines; in a notebook they become
/// `cell 3, line 4` and `第 3 个单元格第 4 行`, as the locations do.
pub fn relabel_lines(diagnostics: &mut [Diagnostic], source: &str, map: &CellMap) {
    let relabel = Relabel::new(source, map);
    for d in diagnostics {
        relabel.en(&mut d.message);
        d.message_zh.iter_mut().for_each(|m| relabel.zh(m));
        for r in &mut d.related {
            relabel.en(&mut r.message);
            r.message_zh.iter_mut().for_each(|m| relabel.zh(m));
        }
        for f in &mut d.fixes {
            relabel.en(&mut f.title);
            f.title_zh.iter_mut().for_each(|t| relabel.zh(t));
        }
    }
}

/// [`relabel_lines`] for a text in either language (a hover in a notebook cell).
pub fn relabel_text(text: &mut String, source: &str, map: &CellMap) {
    let relabel = Relabel::new(source, map);
    relabel.en(text);
    relabel.zh(text);
}

/// The cell and the row inside it of the module's 1-based `line`, when a cell holds it.
pub fn cell_row(source: &str, map: &CellMap, line: u32) -> Option<(usize, usize)> {
    Relabel::new(source, map).place_line(line)
}

/// Rewrites the module's line numbers in a text as cell and row.
struct Relabel<'a> {
    source: &'a str,
    map: &'a CellMap,
    index: LineIndex,
}

impl<'a> Relabel<'a> {
    fn new(source: &'a str, map: &'a CellMap) -> Self {
        Self {
            source,
            map,
            index: LineIndex::new(source),
        }
    }

    /// The cell and the row inside it of the module's 1-based `line`, as written in a text.
    fn place(&self, line: &str) -> Option<(usize, usize)> {
        self.place_line(line.parse::<u32>().ok()?)
    }

    fn place_line(&self, line: u32) -> Option<(usize, usize)> {
        let line = line.checked_sub(1)?;
        if line as usize >= self.index.line_count() {
            return None;
        }
        let start = self.index.line_range(self.source, line).start;
        let cell = self.map.cell_at(start)?;
        Some((cell.number, self.map.row_in_cell(cell, line)))
    }

    fn en(&self, text: &mut String) {
        static EN: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"\b(on )?line (\d+)\b").unwrap_or_else(|_| unreachable!("a fixed pattern"))
        });
        // "passed on line 12" reads "passed in cell 3, line 4".
        let replaced = EN.replace_all(text, |c: &regex::Captures| match self.place(&c[2]) {
            Some((cell, row)) if c.get(1).is_some() => format!("in cell {cell}, line {row}"),
            Some((cell, row)) => format!("cell {cell}, line {row}"),
            None => c[0].to_owned(),
        });
        *text = replaced.into_owned();
    }

    fn zh(&self, text: &mut String) {
        static ZH: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"第 ?(\d+) ?行").unwrap_or_else(|_| unreachable!("a fixed pattern"))
        });
        let replaced = ZH.replace_all(text, |c: &regex::Captures| match self.place(&c[1]) {
            Some((cell, row)) => format!("第 {cell} 个单元格第 {row} 行"),
            None => c[0].to_owned(),
        });
        *text = replaced.into_owned();
    }
}

/// Row (1-based, inside the cell), column and cell number for `offset` of a notebook's module.
pub fn cell_location(
    map: &CellMap,
    index: &LineIndex,
    source: &str,
    offset: usize,
) -> Option<(usize, usize, usize)> {
    let cell = map.cell_at(offset)?;
    let (_, column) = index.row_column(source, offset);
    let row = map.row_in_cell(cell, index.line_of(offset));
    Some((cell.number, row, column))
}

#[cfg(test)]
#[path = "notebook_tests.rs"]
mod tests;

/// `check --fix` edits a notebook's cells through the one fix engine.
impl fix::Fixable for Notebook {
    type Error = NotebookError;
    fn text(&self) -> &str {
        self.source()
    }
    fn accepts(&self, fix: &Fix) -> bool {
        self.can_apply(fix)
    }
    fn edited(&self, edits: &[Edit], _text: String) -> Result<Self, NotebookError> {
        self.with_edits(edits)
    }
}
