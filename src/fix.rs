//! Edits on byte ranges, graded fixes, and applying them.
//!
//! Rules build fixes from the syntax they saw; this module only knows text. Helpers that
//! need the tree (adding a keyword argument to a call, inserting an import) live beside the
//! semantic model in `python::edit`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

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

/// Applies whole fixes in order, skipping any fix whose edits overlap one already taken (the
/// next `check --fix` pass picks it up). Returns the new text and how many fixes were applied.
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
}
