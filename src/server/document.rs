//! One open document: its text, line index and syntax tree, kept in step with the editor.
//!
//! Edits are applied synchronously (text, `Tree::edit`, incremental re-parse) so that the
//! handler that receives a `didChange` has the new state before it reaches any `.await`:
//! rapid edits can then never be applied out of order.

use std::path::PathBuf;

use tree_sitter::{InputEdit, Point, Tree};

use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;

use crate::python;
use crate::server::convert::line_col;
use crate::text::{Encoding, LineCol, LineIndex, TextRange};

#[derive(Clone, Debug)]
pub struct Document {
    pub text: String,
    pub index: LineIndex,
    /// `None` only if the parser could not be set up; analysis is then skipped.
    pub tree: Option<Tree>,
    pub version: i32,
    /// The file on disk this document is, for relative imports and `per-file-ignores`.
    pub path: PathBuf,
    /// Bumped on every change; a debounced or pulled analysis is stored only for the
    /// generation it was computed from.
    pub generation: u64,
}

/// One change of `textDocument/didChange`: a range in the negotiated encoding (`None` for the
/// whole text) and its replacement.
pub struct Change<'a> {
    pub range: Option<(LineCol, LineCol)>,
    pub text: &'a str,
}

impl Change<'_> {
    /// The changes of a `didChange` notification, in the order they apply.
    pub fn all_of(events: &[TextDocumentContentChangeEvent]) -> Vec<Change<'_>> {
        events
            .iter()
            .map(|c| Change {
                range: c.range.map(|r| (line_col(r.start), line_col(r.end))),
                text: &c.text,
            })
            .collect()
    }
}

impl Document {
    pub fn new(text: String, version: i32, path: PathBuf) -> Self {
        let tree = python::parse(&text, None);
        Self {
            index: LineIndex::new(&text),
            text,
            tree,
            version,
            path,
            generation: 0,
        }
    }

    /// Applies the changes of one notification in order, then re-parses once, reusing the
    /// edited tree. Positions past the end of a line or of the text are clamped.
    pub fn apply_changes(&mut self, changes: &[Change], version: i32, encoding: Encoding) {
        let mut reusable = self.tree.is_some();
        for change in changes {
            match change.range {
                None => {
                    self.text = change.text.to_owned();
                    self.index = LineIndex::new(&self.text);
                    reusable = false;
                }
                Some((start, end)) => {
                    let start = self.index.offset(&self.text, start, encoding);
                    let end = self.index.offset(&self.text, end, encoding).max(start);
                    self.splice(TextRange::new(start, end), change.text);
                }
            }
        }
        let old = if reusable { self.tree.as_ref() } else { None };
        self.tree = python::parse(&self.text, old);
        self.version = version;
        self.generation += 1;
    }

    /// Replaces a byte range (already on char boundaries) and tells the tree about it.
    fn splice(&mut self, range: TextRange, replacement: &str) {
        let start_position = self.point(range.start);
        let old_end_position = self.point(range.end);
        self.text.replace_range(range.start..range.end, replacement);
        self.index = LineIndex::new(&self.text);
        let new_end_byte = range.start + replacement.len();
        let new_end_position = self.point(new_end_byte);
        if let Some(tree) = self.tree.as_mut() {
            tree.edit(&InputEdit {
                start_byte: range.start,
                old_end_byte: range.end,
                new_end_byte,
                start_position,
                old_end_position,
                new_end_position,
            });
        }
    }

    /// tree-sitter's points count columns in bytes, which is the UTF-8 encoding's column.
    fn point(&self, offset: usize) -> Point {
        let pos = self.index.position(&self.text, offset, Encoding::Utf8);
        Point::new(pos.line as usize, pos.col as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lc(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    fn assert_tree_matches_fresh_parse(doc: &Document) {
        let fresh = python::parse(&doc.text, None).unwrap();
        assert_eq!(
            doc.tree.as_ref().unwrap().root_node().to_sexp(),
            fresh.root_node().to_sexp(),
            "incremental tree differs for {:?}",
            doc.text
        );
    }

    #[test]
    fn incremental_edits_keep_the_tree_equal_to_a_fresh_parse() {
        let mut doc = Document::new(
            "# 数据 😀\nloader = DataLoader(ds, num_workers=4)\n".into(),
            1,
            PathBuf::from("t.py"),
        );
        // Replace `4` with `16` (utf-16 columns: the emoji on line 0 does not matter here).
        doc.apply_changes(
            &[Change {
                range: Some((lc(1, 36), lc(1, 37))),
                text: "16",
            }],
            2,
            Encoding::Utf16,
        );
        assert_eq!(
            doc.text,
            "# 数据 😀\nloader = DataLoader(ds, num_workers=16)\n"
        );
        assert_tree_matches_fresh_parse(&doc);
        // Insert after the emoji: utf-16 column 7 is after "# 数据 😀" (2+1+1+1+2).
        doc.apply_changes(
            &[Change {
                range: Some((lc(0, 7), lc(0, 7))),
                text: " 注释",
            }],
            3,
            Encoding::Utf16,
        );
        assert_eq!(doc.text.lines().next(), Some("# 数据 😀 注释"));
        assert_tree_matches_fresh_parse(&doc);
        // The same place in utf-8 columns: "# 数据 😀 注释" is 2+6+1+4+1+6 = 20 bytes.
        doc.apply_changes(
            &[Change {
                range: Some((lc(0, 20), lc(0, 20))),
                text: "!",
            }],
            4,
            Encoding::Utf8,
        );
        assert_eq!(doc.text.lines().next(), Some("# 数据 😀 注释!"));
        assert_eq!(doc.version, 4);
        assert_eq!(doc.generation, 3);
        assert_tree_matches_fresh_parse(&doc);
    }

    #[test]
    fn several_changes_in_one_notification_apply_in_sequence() {
        let mut doc = Document::new("a = 1\nb = 2\n".into(), 1, PathBuf::from("t.py"));
        doc.apply_changes(
            &[
                Change {
                    range: Some((lc(0, 0), lc(0, 0))),
                    text: "x = 0\n",
                },
                Change {
                    range: Some((lc(2, 4), lc(2, 5))),
                    text: "3",
                },
            ],
            2,
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "x = 0\na = 1\nb = 3\n");
        assert_tree_matches_fresh_parse(&doc);
    }

    #[test]
    fn out_of_range_and_reversed_ranges_are_clamped() {
        let mut doc = Document::new("ab\ncd".into(), 1, PathBuf::from("t.py"));
        doc.apply_changes(
            &[Change {
                range: Some((lc(9, 9), lc(3, 0))),
                text: "\nef",
            }],
            2,
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "ab\ncd\nef");
        doc.apply_changes(
            &[Change {
                range: Some((lc(0, 1), lc(0, 99))),
                text: "",
            }],
            3,
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "a\ncd\nef");
        assert_tree_matches_fresh_parse(&doc);
    }

    #[test]
    fn half_of_a_surrogate_pair_snaps_to_the_character_start() {
        let mut doc = Document::new("😀x".into(), 1, PathBuf::from("t.py"));
        doc.apply_changes(
            &[Change {
                range: Some((lc(0, 1), lc(0, 1))),
                text: "y",
            }],
            2,
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "y😀x");
    }

    #[test]
    fn full_text_change_replaces_everything() {
        let mut doc = Document::new("a = 1\n".into(), 1, PathBuf::from("t.py"));
        doc.apply_changes(
            &[Change {
                range: None,
                text: "def f(:\n",
            }],
            2,
            Encoding::Utf16,
        );
        assert_eq!(doc.text, "def f(:\n");
        assert!(doc.tree.as_ref().unwrap().root_node().has_error());
    }
}
