//! Tree-aware edits every fix needs: add a keyword argument to a call, remove an argument with
//! its comma, replace an argument's value, insert an import. They keep the user's formatting:
//! multi-line calls stay one argument per line, trailing commas stay, comments stay with the
//! argument they follow.

use tree_sitter::Node;

use crate::fix::Edit;
use crate::python::model::Module;
use crate::text::TextRange;

/// Adds `keyword=value` to the call's arguments: before a `**kwargs` (keywords after `**`
/// are legal but read badly), else after the last argument, on its own line when the call is
/// written one argument per line. `None` when the call has no plain argument list.
///
/// The caller makes sure the keyword is not already passed (also not through `**kwargs`,
/// which would make a duplicate keyword a `TypeError`).
pub fn add_keyword(source: &str, call: Node, keyword: &str, value: &str) -> Option<Vec<Edit>> {
    let args = call.child_by_field_name("arguments")?;
    if args.kind() != "argument_list" {
        return None;
    }
    let items = items(args);
    let close = args.child(args.child_count().checked_sub(1)?)?;
    if close.kind() != ")" {
        return None;
    }
    let newline = newline_of(source);
    let new_arg = format!("{keyword}={value}");
    if let Some(splat) = items.iter().find(|n| n.kind() == "dictionary_splat") {
        let indent = own_line_indent(source, splat.start_byte());
        let text = match indent {
            Some(indent) => format!("{new_arg},{newline}{indent}"),
            None => format!("{new_arg}, "),
        };
        return Some(vec![Edit::insert(splat.start_byte(), text)]);
    }
    let Some(last) = items.last() else {
        let open = args.child(0)?;
        return Some(vec![Edit::insert(open.end_byte(), new_arg)]);
    };
    let trailing_comma = next_token(*last).filter(|n| n.kind() == ",");
    let after_last = trailing_comma.map_or(last.end_byte(), |c| c.end_byte());
    let multi_line = source
        .get(after_last..close.start_byte())
        .is_some_and(|between| between.contains('\n'));
    if !multi_line {
        return Some(vec![Edit::insert(last.end_byte(), format!(", {new_arg}"))]);
    }
    let indent = line_indent(source, last.start_byte());
    let line_end = line_end(source, after_last);
    match trailing_comma {
        Some(_) => Some(vec![Edit::insert(
            line_end,
            format!("{newline}{indent}{new_arg},"),
        )]),
        None => Some(vec![
            Edit::insert(last.end_byte(), ","),
            Edit::insert(line_end, format!("{newline}{indent}{new_arg}")),
        ]),
    }
}

/// Removes one argument of a call (`num_workers=4`, a positional one, a `**kwargs`) with its
/// comma. An argument alone on its line goes with its whole line, including a comment after
/// it.
pub fn remove_argument(source: &str, arg: Node) -> Option<Vec<Edit>> {
    let args = arg.parent()?;
    if args.kind() != "argument_list" {
        return None;
    }
    let next_comma = next_token(arg).filter(|n| n.kind() == ",");
    let prev_comma = prev_token(arg).filter(|n| n.kind() == ",");
    let own_line = own_line_indent(source, arg.start_byte()).is_some();
    match next_comma {
        Some(comma) => {
            let rest_of_line = line_end(source, comma.end_byte());
            let tail = source.get(comma.end_byte()..rest_of_line)?;
            if own_line && (tail.trim().is_empty() || tail.trim_start().starts_with('#')) {
                let start = line_start(source, arg.start_byte());
                return Some(vec![Edit::delete(TextRange::new(
                    start,
                    after_newline(source, rest_of_line),
                ))]);
            }
            let end = comma.end_byte() + spaces_after(source, comma.end_byte());
            Some(vec![Edit::delete(TextRange::new(arg.start_byte(), end))])
        }
        None => {
            let arg_line_end = line_end(source, arg.end_byte());
            let tail = source.get(arg.end_byte()..arg_line_end)?;
            let alone = own_line && (tail.trim().is_empty() || tail.trim_start().starts_with('#'));
            match (prev_comma, alone) {
                (Some(comma), true) => Some(vec![
                    Edit::delete(Module::range(comma)),
                    Edit::delete(TextRange::new(
                        line_start(source, arg.start_byte()),
                        after_newline(source, arg_line_end),
                    )),
                ]),
                (Some(comma), false) => {
                    let between = source.get(comma.end_byte()..arg.start_byte())?;
                    if between.contains('#') {
                        // A comment sits between the comma and the argument: keep it.
                        return Some(vec![
                            Edit::delete(Module::range(comma)),
                            Edit::delete(Module::range(arg)),
                        ]);
                    }
                    Some(vec![Edit::delete(TextRange::new(
                        comma.start_byte(),
                        arg.end_byte(),
                    ))])
                }
                (None, true) => Some(vec![Edit::delete(TextRange::new(
                    line_start(source, arg.start_byte()),
                    after_newline(source, arg_line_end),
                ))]),
                (None, false) => Some(vec![Edit::delete(Module::range(arg))]),
            }
        }
    }
}

/// Replaces an expression (an argument's value) with `text`.
pub fn replace(node: Node, text: impl Into<String>) -> Edit {
    Edit::replace(Module::range(node), text)
}

/// What inserting `import <module>` takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportEdit {
    /// The module is already imported under its own name at module level.
    Present,
    Insert(Edit),
    /// The name is bound to something else at module level: a fix must not rely on it.
    Conflict,
}

/// Inserts `import <module>` (a top-level module such as `os` or `shutil`) after the
/// docstring, `__future__` imports and the leading block of imports, unless it is already
/// there.
pub fn insert_import(m: &Module, module: &str) -> ImportEdit {
    if m.module_imports(module, module) {
        return ImportEdit::Present;
    }
    if m.module_binds(module) {
        return ImportEdit::Conflict;
    }
    let source = m.source;
    let newline = newline_of(source);
    let mut after: Option<Node> = None;
    for (i, &stmt) in m.top_level_statements().iter().enumerate() {
        let is_docstring = i == 0
            && stmt.kind() == "expression_statement"
            && stmt.named_child_count() == 1
            && stmt.named_child(0).is_some_and(|s| s.kind() == "string");
        let is_import = matches!(
            stmt.kind(),
            "import_statement" | "import_from_statement" | "future_import_statement"
        );
        if is_docstring || is_import {
            after = Some(stmt);
        } else {
            break;
        }
    }
    let text = format!("import {module}{newline}");
    let at = match after {
        Some(stmt) => {
            let end = line_end(source, stmt.end_byte());
            if end >= source.len() {
                return ImportEdit::Insert(Edit::insert(
                    source.len(),
                    format!("{newline}import {module}"),
                ));
            }
            after_newline(source, end)
        }
        // Keep a shebang, an encoding line and a license header first.
        None => leading_comment_end(source),
    };
    ImportEdit::Insert(Edit::insert(at, text))
}

// ---- helpers ----------------------------------------------------------------------------

/// The arguments of an argument list, without punctuation and comments.
fn items(args: Node) -> Vec<Node> {
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// The next sibling that is not a comment.
fn next_token(node: Node) -> Option<Node> {
    let mut next = node.next_sibling();
    while let Some(n) = next {
        if n.kind() != "comment" {
            return Some(n);
        }
        next = n.next_sibling();
    }
    None
}

fn prev_token(node: Node) -> Option<Node> {
    let mut prev = node.prev_sibling();
    while let Some(n) = prev {
        if n.kind() != "comment" {
            return Some(n);
        }
        prev = n.prev_sibling();
    }
    None
}

/// The file's line ending, as its first line ends (reading the whole file per fix is what a
/// large file cannot afford).
pub(crate) fn newline_of(source: &str) -> &'static str {
    match memchr::memchr(b'\n', source.as_bytes()) {
        Some(i) if i > 0 && source.as_bytes().get(i - 1) == Some(&b'\r') => "\r\n",
        _ => "\n",
    }
}

fn line_start(source: &str, offset: usize) -> usize {
    source
        .get(..offset)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// The offset of the line terminator (`\n`, or the `\r` of `\r\n`) of the line holding
/// `offset`, or the end of the text.
fn line_end(source: &str, offset: usize) -> usize {
    let end = source
        .get(offset..)
        .and_then(|s| s.find('\n'))
        .map_or(source.len(), |i| offset + i);
    if end > offset && source.as_bytes().get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    }
}

/// Past the line terminator at `line_end`.
fn after_newline(source: &str, line_end: usize) -> usize {
    let bytes = source.as_bytes();
    let mut at = line_end;
    if bytes.get(at) == Some(&b'\r') {
        at += 1;
    }
    if bytes.get(at) == Some(&b'\n') {
        at += 1;
    }
    at
}

/// The indentation of the line holding `offset`.
fn line_indent(source: &str, offset: usize) -> &str {
    let start = line_start(source, offset);
    let line = source.get(start..).unwrap_or("");
    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
    line.get(..width).unwrap_or("")
}

/// The indentation before `offset` when only whitespace precedes it on its line.
fn own_line_indent(source: &str, offset: usize) -> Option<&str> {
    let start = line_start(source, offset);
    let before = source.get(start..offset)?;
    before
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then_some(before)
}

fn spaces_after(source: &str, offset: usize) -> usize {
    source
        .get(offset..)
        .map_or(0, |s| s.len() - s.trim_start_matches([' ', '\t']).len())
}

/// After the leading lines that are comments (shebang, encoding, license header).
fn leading_comment_end(source: &str) -> usize {
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            at += line.len();
        } else {
            break;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::fix::apply_edits;
    use crate::python::index::ProjectIndex;
    use crate::python::parse;

    /// Applies `make` to the first call of `source` and returns the edited text.
    fn on_first_call(source: &str, make: impl Fn(&str, Node) -> Vec<Edit>) -> String {
        let tree = parse(source, None).expect("tree");
        let index = ProjectIndex::default();
        let m = Module::build(source, &tree, Path::new("t.py"), &index);
        let call = m.calls().first().expect("a call").node;
        let edits = make(source, call);
        let out = apply_edits(source, &edits).expect("edits apply");
        assert!(
            !parse(&out, None).expect("tree").root_node().has_error(),
            "edited source does not parse:\n{out}"
        );
        out
    }

    fn add(source: &str) -> String {
        on_first_call(source, |src, call| {
            add_keyword(src, call, "multiprocessing_context", "\"spawn\"").expect("edit")
        })
    }

    fn remove(source: &str, keyword: &str) -> String {
        on_first_call(source, |src, call| {
            let args = call.child_by_field_name("arguments").expect("args");
            let arg = items(args)
                .into_iter()
                .find(|n| src[n.byte_range()].starts_with(keyword))
                .expect("argument");
            remove_argument(src, arg).expect("edit")
        })
    }

    #[test]
    fn add_keyword_single_line() {
        assert_eq!(
            add("DataLoader(ds, num_workers=4)\n"),
            "DataLoader(ds, num_workers=4, multiprocessing_context=\"spawn\")\n"
        );
        assert_eq!(
            add("DataLoader()\n"),
            "DataLoader(multiprocessing_context=\"spawn\")\n"
        );
        assert_eq!(
            add("DataLoader(ds, **kw)\n"),
            "DataLoader(ds, multiprocessing_context=\"spawn\", **kw)\n"
        );
    }

    #[test]
    fn add_keyword_multi_line_keeps_layout() {
        assert_eq!(
            add("x = DataLoader(\n    ds,\n    num_workers=4,  # workers\n)\n"),
            "x = DataLoader(\n    ds,\n    num_workers=4,  # workers\n    multiprocessing_context=\"spawn\",\n)\n"
        );
        assert_eq!(
            add("x = DataLoader(ds,\n               num_workers=4  # workers\n)\n"),
            "x = DataLoader(ds,\n               num_workers=4,  # workers\n               multiprocessing_context=\"spawn\"\n)\n"
        );
        assert_eq!(
            add("x = DataLoader(\n    ds,\n    **kw,\n)\n"),
            "x = DataLoader(\n    ds,\n    multiprocessing_context=\"spawn\",\n    **kw,\n)\n"
        );
        assert_eq!(
            add("x = DataLoader(\r\n    ds,\r\n)\r\n"),
            "x = DataLoader(\r\n    ds,\r\n    multiprocessing_context=\"spawn\",\r\n)\r\n"
        );
    }

    #[test]
    fn remove_argument_with_its_comma() {
        assert_eq!(
            remove("DataLoader(ds, prefetch_factor=4)\n", "prefetch_factor"),
            "DataLoader(ds)\n"
        );
        assert_eq!(
            remove(
                "DataLoader(ds, prefetch_factor=4, batch_size=2)\n",
                "prefetch_factor"
            ),
            "DataLoader(ds, batch_size=2)\n"
        );
        assert_eq!(
            remove("DataLoader(ds, prefetch_factor=4,)\n", "prefetch_factor"),
            "DataLoader(ds, )\n"
        );
        assert_eq!(
            remove(
                "DataLoader(\n    ds,\n    prefetch_factor=4,  # why\n    batch_size=2,\n)\n",
                "prefetch_factor"
            ),
            "DataLoader(\n    ds,\n    batch_size=2,\n)\n"
        );
        assert_eq!(
            remove(
                "DataLoader(\n    ds,\n    prefetch_factor=4\n)\n",
                "prefetch_factor"
            ),
            "DataLoader(\n    ds\n)\n"
        );
        assert_eq!(
            remove(
                "DataLoader(ds,  # data\n    prefetch_factor=4)\n",
                "prefetch_factor"
            ),
            "DataLoader(ds  # data\n    )\n"
        );
    }

    fn import_into(source: &str, module: &str) -> Option<String> {
        let tree = parse(source, None).expect("tree");
        let index = ProjectIndex::default();
        let m = Module::build(source, &tree, Path::new("t.py"), &index);
        match insert_import(&m, module) {
            ImportEdit::Insert(edit) => Some(apply_edits(source, &[edit]).expect("applies")),
            ImportEdit::Present => Some(source.to_owned()),
            ImportEdit::Conflict => None,
        }
    }

    #[test]
    fn imports_go_after_docstring_future_and_imports() {
        assert_eq!(
            import_into(
                "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport torch\n\nx = 1\n",
                "os"
            )
            .as_deref(),
            Some(
                "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport torch\nimport os\n\nx = 1\n"
            )
        );
        assert_eq!(
            import_into("#!/usr/bin/env python\nx = 1\n", "os").as_deref(),
            Some("#!/usr/bin/env python\nimport os\nx = 1\n")
        );
        assert_eq!(
            import_into("import torch", "os").as_deref(),
            Some("import torch\nimport os")
        );
        assert_eq!(
            import_into("import os\nx = 1\n", "os").as_deref(),
            Some("import os\nx = 1\n")
        );
        assert_eq!(import_into("from x import os\n", "os"), None);
    }
}
