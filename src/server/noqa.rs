//! "Ignore DLxxx on this line": the `# noqa: DLxxx` edit for a diagnostic, merged into an
//! existing `# noqa:` list, and never placed where a comment would change the code (inside a
//! string that goes on past the line, after a line continuation).

use tree_sitter::Tree;

use crate::diagnostic::Diagnostic;
use crate::fix::{Applicability, Edit};
use crate::server::convert::{Coords, FixAction};
use crate::server::settings::Locale;
use crate::text::TextRange;

pub fn ignore_action(
    text: &str,
    tree: &Tree,
    coords: &Coords,
    diagnostic: &Diagnostic,
    locale: Locale,
) -> Option<FixAction> {
    let code = diagnostic.code.as_str();
    let edit = ignore_edit(text, tree, coords, diagnostic.range.start, code)?;
    Some(FixAction {
        title: match locale {
            Locale::En => format!("Ignore {code} on this line"),
            Locale::Zh => format!("在此行忽略 {code}"),
        },
        applicability: Applicability::Safe,
        preferred: false,
        edits: vec![coords.text_edit(&edit)],
    })
}

/// The edit that suppresses `code` on the line holding `offset`, or `None` when the line is
/// already suppressed or no comment can go there.
pub fn ignore_edit(
    text: &str,
    tree: &Tree,
    coords: &Coords,
    offset: usize,
    code: &str,
) -> Option<Edit> {
    let line = coords.index.line_of(offset);
    let line_range = coords.index.line_range(text, line);
    let content = text.get(line_range.start..line_range.end)?;
    let end = line_range.start + content.trim_end().len();
    if end == line_range.start || content.trim_end().ends_with('\\') {
        return None;
    }
    let last = tree.root_node().descendant_for_byte_range(end - 1, end)?;
    if last.kind() == "comment" && last.start_byte() >= line_range.start {
        let comment = text.get(last.start_byte()..last.end_byte())?;
        return match NoqaComment::parse(comment) {
            Some(NoqaComment::All) => None,
            Some(NoqaComment::Codes { codes, list_end }) => {
                if codes.iter().any(|c| c.eq_ignore_ascii_case(code)) {
                    None
                } else {
                    Some(Edit::insert(
                        last.start_byte() + list_end,
                        format!(", {code}"),
                    ))
                }
            }
            None => Some(Edit::insert(last.start_byte(), format!("# noqa: {code} "))),
        };
    }
    // A string (or f-string) that goes on past this line would swallow the comment.
    let mut node = Some(last);
    while let Some(n) = node {
        if n.kind() == "string" && n.end_byte() > line_range.end {
            return None;
        }
        node = n.parent();
    }
    Some(Edit::insert(end, format!("  # noqa: {code}")))
}

/// A `# noqa` comment: bare (suppresses everything on the line) or with a list of codes.
#[derive(Debug, PartialEq, Eq)]
enum NoqaComment<'a> {
    All,
    /// `list_end` is the byte offset in the comment just after the last code.
    Codes {
        codes: Vec<&'a str>,
        list_end: usize,
    },
}

impl<'a> NoqaComment<'a> {
    fn parse(comment: &'a str) -> Option<Self> {
        let body = comment.strip_prefix('#')?;
        let lead = body.len() - body.trim_start().len();
        let body = &body[lead..];
        if !body
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("noqa"))
        {
            return None;
        }
        let after = body.get(4..)?;
        let rest_start = 1 + lead + 4;
        let trimmed = after.trim_start();
        let Some(list) = trimmed.strip_prefix(':') else {
            return Some(NoqaComment::All);
        };
        let mut position = rest_start + (after.len() - trimmed.len()) + 1;
        let mut codes = Vec::new();
        let mut list_end = position;
        let mut rest = list;
        loop {
            let skipped = rest.len() - rest.trim_start_matches([' ', ',', '\t']).len();
            rest = &rest[skipped..];
            position += skipped;
            let len = rest
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(rest.len());
            let word = &rest[..len];
            let is_code = len > 1
                && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && word.chars().last().is_some_and(|c| c.is_ascii_digit());
            if !is_code {
                break;
            }
            codes.push(word);
            position += len;
            list_end = position;
            rest = &rest[len..];
        }
        if codes.is_empty() {
            return Some(NoqaComment::All);
        }
        Some(NoqaComment::Codes { codes, list_end })
    }
}

/// The DL code under `offset` if it lies in a `# noqa:` or `# dldoctor: ignore[...]` comment.
pub fn code_in_comment(text: &str, tree: &Tree, offset: usize) -> Option<(TextRange, String)> {
    let node = tree.root_node().descendant_for_byte_range(offset, offset)?;
    if node.kind() != "comment" {
        return None;
    }
    let comment = text.get(node.start_byte()..node.end_byte())?;
    let lower = comment.to_ascii_lowercase();
    if !(lower.contains("noqa") || lower.contains("dldoctor")) {
        return None;
    }
    let at = offset - node.start_byte();
    let bytes = comment.as_bytes();
    let mut start = at.min(bytes.len());
    while start > 0 && bytes[start - 1].is_ascii_alphanumeric() {
        start -= 1;
    }
    let mut end = at.min(bytes.len());
    while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
        end += 1;
    }
    let word = comment.get(start..end)?;
    word.to_ascii_uppercase().starts_with("DL").then(|| {
        (
            TextRange::new(node.start_byte() + start, node.start_byte() + end),
            word.to_ascii_uppercase(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply_edits;
    use crate::python;
    use crate::text::{Encoding, LineIndex};

    fn ignore(src: &str, at: &str) -> Option<String> {
        let tree = python::parse(src, None).unwrap();
        let index = LineIndex::new(src);
        let coords = Coords::new(src, &index, Encoding::Utf16);
        let edit = ignore_edit(src, &tree, &coords, src.find(at).unwrap(), "DL301")?;
        Some(apply_edits(src, &[edit]).unwrap())
    }

    #[test]
    fn appends_a_new_comment() {
        assert_eq!(
            ignore("x = DataLoader(ds, prefetch_factor=2)\n", "prefetch").unwrap(),
            "x = DataLoader(ds, prefetch_factor=2)  # noqa: DL301\n"
        );
        assert_eq!(
            ignore(
                "x = DataLoader(ds,\n    prefetch_factor=2,   \n)\n",
                "prefetch"
            )
            .unwrap(),
            "x = DataLoader(ds,\n    prefetch_factor=2,  # noqa: DL301   \n)\n"
        );
    }

    #[test]
    fn merges_into_an_existing_list_and_keeps_other_comments() {
        assert_eq!(
            ignore(
                "f(prefetch_factor=2)  # noqa: DL201, DL305 trailing words\n",
                "pre"
            )
            .unwrap(),
            "f(prefetch_factor=2)  # noqa: DL201, DL305, DL301 trailing words\n"
        );
        assert_eq!(
            ignore("f(prefetch_factor=2)  # NOQA:DL201\n", "pre").unwrap(),
            "f(prefetch_factor=2)  # NOQA:DL201, DL301\n"
        );
        assert_eq!(
            ignore("f(prefetch_factor=2)  # 预取 😀\n", "pre").unwrap(),
            "f(prefetch_factor=2)  # noqa: DL301 # 预取 😀\n"
        );
    }

    #[test]
    fn nothing_where_already_suppressed_or_no_comment_fits() {
        assert_eq!(ignore("f(prefetch_factor=2)  # noqa\n", "pre"), None);
        assert_eq!(ignore("f(prefetch_factor=2)  # noqa: DL301\n", "pre"), None);
        assert_eq!(ignore("f(prefetch_factor=2, s='''a\nb''')\n", "pre"), None);
        assert_eq!(ignore("f(prefetch_factor=2) + \\\n  g()\n", "pre"), None);
    }

    #[test]
    fn finds_the_code_under_the_cursor_in_a_noqa_comment() {
        let src = "f()  # noqa: DL201, dl305\ng()  # DL201 is not a directive here\n";
        let tree = python::parse(src, None).unwrap();
        let at = src.find("dl305").unwrap() + 2;
        let (range, code) = code_in_comment(src, &tree, at).unwrap();
        assert_eq!(code, "DL305");
        assert_eq!(&src[range.start..range.end], "dl305");
        assert_eq!(
            code_in_comment(src, &tree, src.find("DL201 is").unwrap()),
            None
        );
        assert_eq!(code_in_comment(src, &tree, 1), None);
    }
}
