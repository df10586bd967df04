//! Suppression comments: `# noqa`, `# noqa: DL201, DL202`, `# dldoctor: ignore`,
//! `# dldoctor: ignore[DL201]`. One parser serves filtering a file's findings (`check` through
//! [`analyze`](crate::analyze), and the server), the "ignore on this line" edit and hover over a
//! code in a comment.
//!
//! A directive counts only inside a comment (`"# noqa"` in a string is text), and a `noqa` naming
//! only other tools' codes (`# noqa: E501`) suppresses nothing of ours.

use std::collections::{HashMap, HashSet};

use tree_sitter::Tree;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::fix::Edit;
use crate::text::{LineIndex, TextRange};

/// One directive in a comment, with positions relative to the text given to [`Directive::find`].
#[derive(Debug, PartialEq, Eq)]
pub enum Directive<'a> {
    /// A bare `# noqa` or `# dldoctor: ignore`: every finding on the line.
    All,
    /// The codes listed (ours or other tools'), each with its range; `list_end` is where
    /// another code would be added.
    Codes {
        codes: Vec<(TextRange, &'a str)>,
        list_end: usize,
    },
}

impl<'a> Directive<'a> {
    /// The directives of a comment's text (from its `#` to the end of the line).
    pub fn find(comment: &'a str) -> Vec<Directive<'a>> {
        comment
            .match_indices('#')
            .filter_map(|(at, _)| Self::parse_at(comment, at))
            .collect()
    }

    /// The directive starting with the `#` at `at`, if there is one.
    fn parse_at(text: &'a str, at: usize) -> Option<Self> {
        let after_hash = at + 1;
        let body = text.get(after_hash..)?;
        let start = after_hash + (body.len() - body.trim_start().len());
        let word = |from: usize, w: &str| {
            text.get(from..from + w.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(w))
        };
        if word(start, "noqa") {
            let after = start + 4;
            let Some(colon) = skip_blanks(text, after).filter(|&p| text[p..].starts_with(':'))
            else {
                return Some(Directive::All);
            };
            let (codes, list_end) = code_list(text, colon + 1, |_| false);
            if codes.is_empty() {
                return Some(Directive::All);
            }
            return Some(Directive::Codes { codes, list_end });
        }
        if !word(start, "dldoctor") {
            return None;
        }
        let colon = skip_blanks(text, start + 8).filter(|&p| text[p..].starts_with(':'))?;
        let ignore = skip_blanks(text, colon + 1).filter(|&p| word(p, "ignore"))?;
        let Some(open) = Some(ignore + 6).filter(|&p| text[p..].starts_with('[')) else {
            return Some(Directive::All);
        };
        // `ignore[` without its `]` is a bare ignore; a list naming none of ours, nothing.
        if !text[open..].contains(']') {
            return Some(Directive::All);
        }
        let (codes, list_end) = code_list(text, open + 1, |c| c == ']');
        Some(Directive::Codes { codes, list_end })
    }
}

/// The offset of the first non-blank byte at or after `from`, if any.
fn skip_blanks(text: &str, from: usize) -> Option<usize> {
    let rest = text.get(from..)?;
    let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    (from + skipped < text.len()).then_some(from + skipped)
}

/// Codes (`DL201`, `E501`: a letter first, a digit last) separated by commas and blanks, from
/// `from`; stops at the first other word or at `stop`. Returns them and the end of the last.
fn code_list(
    text: &str,
    from: usize,
    stop: impl Fn(char) -> bool,
) -> (Vec<(TextRange, &str)>, usize) {
    let mut codes = Vec::new();
    let mut position = from;
    let mut list_end = from;
    loop {
        let rest = &text[position..];
        position += rest.len() - rest.trim_start_matches([' ', ',', '\t']).len();
        let rest = &text[position..];
        if rest.starts_with(&stop) {
            break;
        }
        let len = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let word = &rest[..len];
        let is_code = len > 1
            && word.starts_with(|c: char| c.is_ascii_alphabetic())
            && word.ends_with(|c: char| c.is_ascii_digit());
        if !is_code {
            break;
        }
        codes.push((TextRange::new(position, position + len), word));
        position += len;
        list_end = position;
    }
    (codes, list_end)
}

/// The suppression directives of a file, by zero-based line.
#[derive(Debug, Default)]
pub struct Suppressions {
    lines: HashMap<u32, Vec<Code>>,
    all: HashSet<u32>,
}

impl Suppressions {
    /// The directives of `source`; a `#` where `is_comment` says the text is not a comment
    /// (`"# noqa"` in a string) starts none.
    pub fn parse(source: &str, is_comment: impl Fn(usize) -> bool) -> Self {
        let mut out = Self::default();
        let bytes = source.as_bytes();
        if memchr::memmem::find(bytes, b"noqa").is_none()
            && memchr::memmem::find(bytes, b"dldoctor").is_none()
        {
            return out;
        }
        let mut line_start = 0;
        for (line_no, line) in source.split_inclusive('\n').enumerate() {
            let Ok(line_no) = u32::try_from(line_no) else {
                break;
            };
            let start = line_start;
            line_start += line.len();
            if !line.contains('#') {
                continue;
            }
            let line = line.trim_end_matches(['\n', '\r']);
            for (at, _) in line.match_indices('#') {
                if !is_comment(start + at) {
                    continue;
                }
                match Directive::parse_at(line, at) {
                    Some(Directive::All) => {
                        out.all.insert(line_no);
                    }
                    Some(Directive::Codes { codes, .. }) => {
                        out.lines
                            .entry(line_no)
                            .or_default()
                            .extend(codes.iter().filter_map(|(_, c)| c.parse::<Code>().ok()));
                    }
                    None => {}
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.lines.values().all(Vec::is_empty)
    }

    /// Whether a diagnostic of `code` starting on zero-based `line` is suppressed.
    pub fn suppresses(&self, line: u32, code: Code) -> bool {
        self.all.contains(&line) || self.lines.get(&line).is_some_and(|c| c.contains(&code))
    }

    /// Drops the diagnostics these directives suppress.
    pub fn filter(&self, source: &str, diagnostics: &mut Vec<Diagnostic>) {
        if self.is_empty() {
            return;
        }
        let index = LineIndex::new(source);
        diagnostics.retain(|d| !self.suppresses(index.line_of(d.range.start), d.code));
    }
}

/// The edit that suppresses `code` on the line holding `offset`: a new `# noqa: CODE`, or the
/// code added to the line's existing list. `None` when the line is already suppressed or no
/// comment can go there (inside a string that goes on past the line, after a continuation).
pub fn ignore_edit(
    text: &str,
    tree: &Tree,
    index: &LineIndex,
    offset: usize,
    code: Code,
) -> Option<Edit> {
    let code = code.as_str();
    let line_range = index.line_range(text, index.line_of(offset));
    let content = text.get(line_range.start..line_range.end)?;
    let end = line_range.start + content.trim_end().len();
    if end == line_range.start || content.trim_end().ends_with('\\') {
        return None;
    }
    let last = tree.root_node().descendant_for_byte_range(end - 1, end)?;
    if last.kind() == "comment" && last.start_byte() >= line_range.start {
        let comment = text.get(last.start_byte()..last.end_byte())?;
        let directives = Directive::find(comment);
        if directives.iter().any(|d| d.covers(code)) {
            return None;
        }
        return Some(match directives.first() {
            Some(Directive::Codes { codes, list_end }) => {
                let separator = if codes.is_empty() { "" } else { ", " };
                Edit::insert(last.start_byte() + list_end, format!("{separator}{code}"))
            }
            _ => Edit::insert(last.start_byte(), format!("# noqa: {code} ")),
        });
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

impl Directive<'_> {
    /// Whether this directive suppresses `code`.
    fn covers(&self, code: &str) -> bool {
        match self {
            Directive::All => true,
            Directive::Codes { codes, .. } => {
                codes.iter().any(|(_, c)| c.eq_ignore_ascii_case(code))
            }
        }
    }
}

/// The rule code under `offset` if it is listed in a suppression directive (for hover).
pub fn code_in_comment(text: &str, tree: &Tree, offset: usize) -> Option<(TextRange, Code)> {
    let node = tree.root_node().descendant_for_byte_range(offset, offset)?;
    if node.kind() != "comment" {
        return None;
    }
    let comment = text.get(node.start_byte()..node.end_byte())?;
    let at = offset - node.start_byte();
    Directive::find(comment).into_iter().find_map(|d| match d {
        Directive::All => None,
        Directive::Codes { codes, .. } => codes.into_iter().find_map(|(range, word)| {
            let code = word.parse::<Code>().ok()?;
            (range.start <= at && at <= range.end).then(|| {
                (
                    TextRange::new(
                        node.start_byte() + range.start,
                        node.start_byte() + range.end,
                    ),
                    code,
                )
            })
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply_edits;
    use crate::python;

    #[test]
    fn suppression_comments() {
        let src = "a = 1  # noqa: DL201, DL202\nb = 2  # noqa\nc = 3  # noqa: E501\n\
                   d = 4  # dldoctor: ignore[DL301,DL302]\ne = 5  # NOQA:DL203 DL204\n\
                   f = 6  # dldoctor: ignore\ng = 7\nh = 8  # type: ignore  # noqa: DL101\n";
        let s = Suppressions::parse(src, |_| true);
        assert!(s.suppresses(0, Code::DL201) && s.suppresses(0, Code::DL202));
        assert!(!s.suppresses(0, Code::DL203));
        assert!(s.suppresses(1, Code::DL101));
        assert!(!s.suppresses(2, Code::DL101));
        assert!(s.suppresses(3, Code::DL302) && !s.suppresses(3, Code::DL303));
        assert!(s.suppresses(4, Code::DL203) && s.suppresses(4, Code::DL204));
        assert!(s.suppresses(5, Code::DL307));
        assert!(!s.suppresses(6, Code::DL101));
        assert!(s.suppresses(7, Code::DL101) && !s.suppresses(7, Code::DL102));
        assert!(Suppressions::parse("x = 1\n", |_| true).is_empty());
        assert!(Suppressions::parse("x = 1  # noqa: E501\n", |_| true).is_empty());
        // Only comments count.
        let in_string = "x = '# noqa'\n";
        assert!(Suppressions::parse(in_string, |offset| offset > 8).is_empty());
    }

    #[test]
    fn a_noqa_in_a_string_suppresses_nothing_in_a_real_tree() {
        let src = "f(prefetch_factor=2, s='# noqa')\n";
        let tree = python::parse(src, None).unwrap();
        let s = Suppressions::parse(src, |offset| python::is_in_comment(&tree, offset));
        assert!(s.is_empty());
    }

    fn ignore(src: &str, at: &str) -> Option<String> {
        let tree = python::parse(src, None).unwrap();
        let index = LineIndex::new(src);
        let edit = ignore_edit(src, &tree, &index, src.find(at).unwrap(), Code::DL301)?;
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
            ignore("f(prefetch_factor=2)  # noqa: E501\n", "pre").unwrap(),
            "f(prefetch_factor=2)  # noqa: E501, DL301\n"
        );
        assert_eq!(
            ignore("f(prefetch_factor=2)  # dldoctor: ignore[DL201]\n", "pre").unwrap(),
            "f(prefetch_factor=2)  # dldoctor: ignore[DL201, DL301]\n"
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
        assert_eq!(
            ignore("f(prefetch_factor=2)  # dldoctor: ignore\n", "pre"),
            None
        );
        assert_eq!(ignore("f(prefetch_factor=2, s='''a\nb''')\n", "pre"), None);
        assert_eq!(ignore("f(prefetch_factor=2) + \\\n  g()\n", "pre"), None);
    }

    #[test]
    fn finds_the_code_under_the_cursor_in_a_directive() {
        let src = "f()  # noqa: DL201, dl305\ng()  # DL201 is not a directive here\n\
                   h()  # dldoctor: ignore[DL302]\n";
        let tree = python::parse(src, None).unwrap();
        let at = src.find("dl305").unwrap() + 2;
        let (range, code) = code_in_comment(src, &tree, at).unwrap();
        assert_eq!(code, Code::DL305);
        assert_eq!(&src[range.start..range.end], "dl305");
        assert_eq!(
            code_in_comment(src, &tree, src.find("DL201 is").unwrap()),
            None
        );
        assert_eq!(code_in_comment(src, &tree, 1), None);
        let at = src.find("DL302").unwrap();
        assert_eq!(
            code_in_comment(src, &tree, at).map(|(_, c)| c),
            Some(Code::DL302)
        );
    }
}
