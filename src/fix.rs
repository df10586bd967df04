//! Edits on byte ranges, graded fixes, and the one fix engine: which fix of a finding applies,
//! which fixes go together, rounds until nothing more applies, and the syntax guard. `check
//! --fix` and the server's `source.fixAll` both run [`fix_all`]; renderers show [`primary_fix`].
//!
//! Rules build fixes from the syntax they saw; this module only knows text. Helpers that
//! need the tree (adding a keyword argument to a call, inserting an import) live beside the
//! semantic model in `python::edit`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::python;
use crate::text::TextRange;

/// ruff's grading: `check --fix` applies only safe fixes; unsafe ones change behaviour (start
/// method, main guard, worker count) and need `--unsafe-fixes`; display-only ones are advice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    DisplayOnly,
    Unsafe,
    Safe,
}

impl Applicability {
    /// Whether a run applies fixes of this grade: safe ones always, unsafe ones with
    /// `--unsafe-fixes`, display-only ones never.
    pub fn applies(self, unsafe_fixes: bool) -> bool {
        match self {
            Applicability::Safe => true,
            Applicability::Unsafe => unsafe_fixes,
            Applicability::DisplayOnly => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub range: TextRange,
    pub content: String,
}

impl Edit {
    pub fn replace(range: TextRange, content: impl Into<String>) -> Self {
        Self {
            range,
            content: content.into(),
        }
    }
    pub fn insert(at: usize, content: impl Into<String>) -> Self {
        Self {
            range: TextRange::empty(at),
            content: content.into(),
        }
    }
    pub fn delete(range: TextRange) -> Self {
        Self {
            range,
            content: String::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// The code action's title, e.g. `Add multiprocessing_context="spawn"`.
    pub title: String,
    /// The title for a Chinese editor; never part of the CLI's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_zh: Option<String>,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
    /// Editors show a preferred fix first (`isPreferred`).
    pub preferred: bool,
}

impl Fix {
    pub fn safe(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self {
            title: title.into(),
            title_zh: None,
            applicability: Applicability::Safe,
            edits,
            preferred: false,
        }
    }
    pub fn unsafe_(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self {
            title: title.into(),
            title_zh: None,
            applicability: Applicability::Unsafe,
            edits,
            preferred: false,
        }
    }
    /// The Chinese of the title.
    pub fn zh(mut self, title: impl Into<String>) -> Self {
        self.title_zh = Some(crate::diagnostic::tidy_zh(title.into()));
        self
    }
    pub fn preferred(mut self) -> Self {
        self.preferred = true;
        self
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum FixError {
    #[error("edit {start}..{end} lies outside the text ({len} bytes)")]
    OutOfRange {
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("edit {start}..{end} splits a UTF-8 character")]
    NotCharBoundary { start: usize, end: usize },
    #[error("edits overlap at byte {at}")]
    Overlap { at: usize },
}

/// Applies non-overlapping edits to `source`. Edits may come in any order; two insertions at
/// the same offset keep their given order.
pub fn apply_edits(source: &str, edits: &[Edit]) -> Result<String, FixError> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(source.len() + 64);
    let mut cursor = 0usize;
    for edit in sorted {
        let TextRange { start, end } = edit.range;
        if end > source.len() || start > end {
            return Err(FixError::OutOfRange {
                start,
                end,
                len: source.len(),
            });
        }
        if !source.is_char_boundary(start) || !source.is_char_boundary(end) {
            return Err(FixError::NotCharBoundary { start, end });
        }
        if start < cursor {
            return Err(FixError::Overlap { at: start });
        }
        out.push_str(&source[cursor..start]);
        out.push_str(&edit.content);
        cursor = end;
    }
    out.push_str(&source[cursor..]);
    Ok(out)
}

/// The fix a renderer shows for a diagnostic: the preferred one, else the first.
pub fn primary_fix(diagnostic: &Diagnostic) -> Option<&Fix> {
    let fixes = &diagnostic.fixes;
    fixes.iter().find(|f| f.preferred).or_else(|| fixes.first())
}

/// The fix a run applies for a diagnostic: the preferred applicable one, else the first
/// applicable one.
pub fn applicable_fix(diagnostic: &Diagnostic, unsafe_fixes: bool) -> Option<&Fix> {
    let applies = |f: &&Fix| f.applicability.applies(unsafe_fixes);
    let fixes = &diagnostic.fixes;
    fixes
        .iter()
        .filter(applies)
        .find(|f| f.preferred)
        .or_else(|| fixes.iter().find(applies))
}

/// Rounds of fixing before giving up on a file whose fixes keep producing new findings.
pub const MAX_FIX_ROUNDS: usize = 10;

/// What the fix engine edits: Python text, or a document that keeps its own form around the
/// Python it holds (a notebook's JSON around its code cells).
pub trait Fixable: Sized {
    type Error;
    /// The Python text that findings and edits refer to.
    fn text(&self) -> &str;
    /// Whether `fix` can be applied here at all (a notebook's fix must stay inside one cell).
    fn accepts(&self, _fix: &Fix) -> bool {
        true
    }
    /// This document after `edits` (offsets in [`Fixable::text`], not overlapping); `text` is
    /// the Python text they make, already computed.
    fn edited(&self, edits: &[Edit], text: String) -> Result<Self, Self::Error>;
}

impl Fixable for String {
    type Error = std::convert::Infallible;
    fn text(&self) -> &str {
        self
    }
    fn edited(&self, _edits: &[Edit], text: String) -> Result<Self, Self::Error> {
        Ok(text)
    }
}

/// What [`fix_all`] did to a file.
#[derive(Debug)]
pub struct Fixed<D = String> {
    /// The document after every round.
    pub document: D,
    /// The findings of the document's text.
    pub diagnostics: Vec<Diagnostic>,
    /// The fixes applied, in order: the finding's code and the fix's title.
    pub applied: Vec<(Code, String)>,
}

/// Applies the applicable fix of every finding, in rounds: fixes whose edits clash with one
/// already taken wait for the next round, and after each round `analyze` finds what is left.
/// A fix that would turn a parsing file into a broken one is dropped (its finding stays).
pub fn fix_all(
    source: &str,
    diagnostics: Vec<Diagnostic>,
    unsafe_fixes: bool,
    analyze: impl FnMut(&str) -> Vec<Diagnostic>,
) -> Fixed {
    match fix_document(source.to_owned(), diagnostics, unsafe_fixes, analyze) {
        Ok(fixed) => fixed,
        Err(never) => match never {},
    }
}

/// [`fix_all`] for any [`Fixable`] document: the one rounds loop of `check --fix` and of the
/// server's fix-all.
pub fn fix_document<D: Fixable>(
    document: D,
    diagnostics: Vec<Diagnostic>,
    unsafe_fixes: bool,
    mut analyze: impl FnMut(&str) -> Vec<Diagnostic>,
) -> Result<Fixed<D>, D::Error> {
    let guard = !has_syntax_errors(document.text());
    let mut fixed = Fixed {
        document,
        diagnostics,
        applied: Vec::new(),
    };
    for _ in 0..MAX_FIX_ROUNDS {
        let current = fixed.document.text();
        let chosen: Vec<(Code, &Fix)> = fixed
            .diagnostics
            .iter()
            .filter_map(|d| applicable_fix(d, unsafe_fixes).map(|f| (d.code, f)))
            .filter(|(_, f)| fixed.document.accepts(f))
            .collect();
        let (mut text, mut taken) = apply_fixes_reporting(current, chosen.iter().map(|(_, f)| *f));
        if guard && !taken.is_empty() && has_syntax_errors(&text) {
            (text, taken) = apply_parsing_fixes(current, &chosen);
        }
        if taken.is_empty() || text == current {
            break;
        }
        let edits: Vec<Edit> = taken
            .iter()
            .flat_map(|&i| chosen[i].1.edits.iter().cloned())
            .collect();
        let applied: Vec<(Code, String)> = taken
            .iter()
            .map(|&i| (chosen[i].0, chosen[i].1.title.clone()))
            .collect();
        let document = fixed.document.edited(&edits, text)?;
        fixed.applied.extend(applied);
        fixed.diagnostics = analyze(document.text());
        fixed.document = document;
    }
    Ok(fixed)
}

/// The fixes of `chosen` one by one, keeping each whose result still parses: the slow path
/// of a round whose fixes together broke the syntax.
fn apply_parsing_fixes(source: &str, chosen: &[(Code, &Fix)]) -> (String, Vec<usize>) {
    let mut kept: Vec<usize> = Vec::new();
    let mut text = source.to_owned();
    for i in 0..chosen.len() {
        let trial: Vec<&Fix> = kept.iter().chain([&i]).map(|&k| chosen[k].1).collect();
        let (candidate, taken) = apply_fixes_reporting(source, trial);
        if taken.len() == kept.len() + 1 && !has_syntax_errors(&candidate) {
            kept.push(i);
            text = candidate;
        }
    }
    (text, kept)
}

fn has_syntax_errors(source: &str) -> bool {
    python::parse(source, None).is_none_or(|tree| tree.root_node().has_error())
}

/// Applies whole fixes in order, skipping any fix whose edits overlap one already taken (the
/// next round picks it up). Returns the new text and how many fixes were applied.
pub fn apply_fixes<'a>(source: &str, fixes: impl IntoIterator<Item = &'a Fix>) -> (String, usize) {
    let (text, applied) = apply_fixes_reporting(source, fixes);
    (text, applied.len())
}

/// [`apply_fixes`], returning the positions (in `fixes`) of the fixes that were applied.
pub fn apply_fixes_reporting<'a>(
    source: &str,
    fixes: impl IntoIterator<Item = &'a Fix>,
) -> (String, Vec<usize>) {
    let mut taken: Vec<Edit> = Vec::new();
    let mut applied = Vec::new();
    for (i, fix) in fixes.into_iter().enumerate() {
        let clashes = fix.edits.iter().any(|e| {
            taken.iter().any(|t| {
                e.range.start < t.range.end && t.range.start < e.range.end
                    || (e.range.is_empty() && t.range.is_empty() && e.range.start == t.range.start)
            })
        });
        if clashes {
            continue;
        }
        let mut candidate = taken.clone();
        candidate.extend(fix.edits.iter().cloned());
        if apply_edits(source, &candidate).is_ok() {
            taken = candidate;
            applied.push(i);
        }
    }
    match apply_edits(source, &taken) {
        Ok(text) => (text, applied),
        Err(_) => (source.to_owned(), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_edits_in_offset_order() {
        let src = "DataLoader(ds, num_workers=4)";
        let edits = vec![
            Edit::insert(src.len() - 1, ", pin_memory=False"),
            Edit::replace(TextRange::new(27, 28), "2"),
        ];
        assert_eq!(
            apply_edits(src, &edits).unwrap(),
            "DataLoader(ds, num_workers=2, pin_memory=False)"
        );
    }

    #[test]
    fn rejects_overlap_and_bad_ranges() {
        let src = "abc";
        assert!(matches!(
            apply_edits(
                src,
                &[
                    Edit::delete(TextRange::new(0, 2)),
                    Edit::delete(TextRange::new(1, 3))
                ]
            ),
            Err(FixError::Overlap { .. })
        ));
        assert!(matches!(
            apply_edits(src, &[Edit::delete(TextRange::new(2, 9))]),
            Err(FixError::OutOfRange { .. })
        ));
        assert!(matches!(
            apply_edits("é", &[Edit::insert(1, "x")]),
            Err(FixError::NotCharBoundary { .. })
        ));
    }

    #[test]
    fn clashing_fixes_are_left_for_the_next_pass() {
        let src = "abc";
        let a = Fix::safe("a", vec![Edit::replace(TextRange::new(0, 2), "X")]);
        let b = Fix::safe("b", vec![Edit::replace(TextRange::new(1, 3), "Y")]);
        assert_eq!(apply_fixes(src, [&a, &b]), ("Xc".to_owned(), 1));
    }

    fn finding(code: Code, fixes: Vec<Fix>) -> Diagnostic {
        let mut d = Diagnostic::new(code, code.rule().severity, TextRange::new(0, 1), "m");
        d.fixes = fixes;
        d
    }

    #[test]
    fn picks_the_preferred_applicable_fix() {
        let edit = || vec![Edit::insert(0, "x")];
        let d = finding(
            Code::DL301,
            vec![
                Fix::unsafe_("u", edit()).preferred(),
                Fix::safe("s1", edit()),
                Fix::safe("s2", edit()),
            ],
        );
        assert_eq!(applicable_fix(&d, false).map(|f| &*f.title), Some("s1"));
        assert_eq!(applicable_fix(&d, true).map(|f| &*f.title), Some("u"));
        assert_eq!(primary_fix(&d).map(|f| &*f.title), Some("u"));
        let display = finding(
            Code::DL301,
            vec![Fix {
                applicability: Applicability::DisplayOnly,
                ..Fix::safe("d", edit())
            }],
        );
        assert!(applicable_fix(&display, true).is_none());
    }

    #[test]
    fn rounds_apply_clashing_fixes_later_and_drop_fixes_that_break_the_syntax() {
        // Two fixes on the same text: one per round, each round re-analysing.
        let src = "a = 1\n";
        let replace = |to: &str| Fix::safe(to, vec![Edit::replace(TextRange::new(4, 5), to)]);
        let analyze = |text: &str| match text {
            "a = 2\n" => vec![finding(Code::DL302, vec![replace("3")])],
            _ => Vec::new(),
        };
        let first = vec![
            finding(Code::DL301, vec![replace("2")]),
            finding(Code::DL303, vec![replace("9")]),
        ];
        let fixed = fix_all(src, first, false, analyze);
        assert_eq!(fixed.document, "a = 3\n");
        assert_eq!(
            fixed.applied,
            [(Code::DL301, "2".to_owned()), (Code::DL302, "3".to_owned())]
        );
        // A fix that leaves a syntax error is dropped; the other one of its round stays.
        let broken = Fix::safe("break", vec![Edit::insert(0, "(")]);
        let fine = Fix::safe("fine", vec![Edit::replace(TextRange::new(4, 5), "2")]);
        let fixed = fix_all(
            src,
            vec![
                finding(Code::DL301, vec![broken]),
                finding(Code::DL302, vec![fine]),
            ],
            false,
            |_| Vec::new(),
        );
        assert_eq!(fixed.document, "a = 2\n");
        assert_eq!(fixed.applied, [(Code::DL302, "fine".to_owned())]);
    }
}
