//! The literal prefilter of `explain`: lines that cannot match cost one SIMD literal search.
//!
//! Every knowledge-base pattern needs some fixed text to match (`killed by signal: Bus error`,
//! `Too many open files`); [`required_literals`] reads it from the pattern's syntax tree. One
//! automaton over all of them, plus the markers that change the traceback parser's state
//! (`Traceback (most recent call last)`, `File "`), tells whether a line may matter. A line that
//! holds none of them, outside a traceback, only has to be remembered as the line before the
//! next (a message a terminal wrapped over two lines); the cleaning, the traceback parser and
//! the regex set never see it.
//!
//! The check runs on the raw line, so it must never miss what cleaning would reveal:
//! [`plain_text`] accepts only lines whose cleaned text is the raw text minus colour codes
//! (ASCII, no control characters, no launcher prefix, no tqdm bar); any other line takes the
//! full path.

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex_syntax::hir::{Hir, HirKind};

/// A literal shorter than this would let too many lines through to be worth it.
const MIN_LITERAL: usize = 3;
/// Literals are cut to this many bytes (any part of a required literal is required too): the
/// knowledge base's patterns then share fewer, shorter literals, few enough for the SIMD
/// (Teddy) search of `aho-corasick`, which takes at most 64.
const MAX_LITERAL: usize = 8;

/// Text that changes how the lines after it are read, or that cleaning rewrites.
const MARKERS: &[&str] = &[
    "Traceback (most recent call last)",
    "File \"",
    "[rank",
    "[default",
    "%|",
];

/// The literals every pattern needs, compiled into one automaton.
#[derive(Debug, Clone)]
pub struct Prefilter {
    automaton: AhoCorasick,
    /// The literals of three bytes or more, searched with SIMD (Teddy) on a whole line: about
    /// a fifth faster than stepping the automaton through every byte. `None` when there are
    /// too many of them; the automaton then decides.
    packed: Option<aho_corasick::packed::Searcher>,
    /// The shorter ones (the marker `%|`): Teddy's fingerprint is as long as the shortest
    /// literal, and a two-byte one lets far more lines through to its verification.
    short: Vec<memchr::memmem::Finder<'static>>,
    /// The longest literal: a literal split over two lines lies within this of their join.
    max_len: usize,
}

impl Prefilter {
    /// `None` when some pattern has no literal it always needs (then every line is read).
    pub fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Option<Self> {
        let mut literals: Vec<Vec<u8>> = MARKERS.iter().map(|m| m.as_bytes().to_vec()).collect();
        for pattern in patterns {
            match required_literals(pattern) {
                Some(set) => literals.extend(set),
                None => {
                    tracing::debug!("no literal prefilter: `{pattern}` needs no fixed text");
                    return None;
                }
            }
        }
        for literal in &mut literals {
            literal.truncate(MAX_LITERAL);
        }
        literals.sort();
        literals.dedup();
        // A literal that contains another adds nothing.
        let needed: Vec<Vec<u8>> = literals
            .iter()
            .filter(|l| {
                !literals
                    .iter()
                    .any(|o| o.len() < l.len() && memchr::memmem::find(l, o).is_some())
            })
            .cloned()
            .collect();
        // [`Prefilter::may_match_across`] separates its two joins with a NUL byte.
        if needed.iter().any(|l| l.contains(&0)) {
            tracing::debug!("no literal prefilter: a pattern needs a NUL byte");
            return None;
        }
        let max_len = needed.iter().map(Vec::len).max().unwrap_or(0);
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(&needed)
            .map_err(|err| tracing::warn!("literal prefilter: {err}"))
            .ok()?;
        let (short, long): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
            needed.iter().cloned().partition(|l| l.len() < 3);
        let packed = aho_corasick::packed::Config::new()
            .builder()
            .extend(&long)
            .build();
        let short = short
            .iter()
            .map(|l| memchr::memmem::Finder::new(l).into_owned())
            .collect();
        Some(Prefilter {
            automaton,
            packed,
            short,
            max_len,
        })
    }

    /// Whether `text` holds a literal of some pattern or a marker.
    pub fn may_match(&self, text: &[u8]) -> bool {
        match &self.packed {
            Some(packed) => {
                packed.find(text).is_some() || self.short.iter().any(|f| f.find(text).is_some())
            }
            None => self.automaton.is_match(text),
        }
    }

    /// Whether joining `prev` and `next` (with or without a space) could create a literal
    /// that neither holds: only the text around the join can.
    pub fn may_match_across(&self, prev: &[u8], next: &[u8], scratch: &mut Vec<u8>) -> bool {
        let reach = self.max_len.saturating_sub(1);
        let tail = &prev[prev.len().saturating_sub(reach)..];
        let head = &next[..next.len().min(reach)];
        // Both joins in one search: no literal holds a NUL byte, so none spans the separator.
        scratch.clear();
        scratch.extend_from_slice(tail);
        scratch.extend_from_slice(head);
        scratch.push(0);
        scratch.extend_from_slice(tail);
        scratch.push(b' ');
        scratch.extend_from_slice(head);
        self.may_match(scratch)
    }
}

/// The cleaned text of `raw` when cleaning would only remove colour codes (CSI sequences):
/// printable ASCII and tabs otherwise. `None` for anything else (other escapes, control
/// characters, non-ASCII text that normalisation might rewrite), which takes the full path.
pub fn plain_text<'a>(raw: &'a [u8], buf: &'a mut Vec<u8>) -> Option<&'a [u8]> {
    let text = if memchr::memchr(0x1b, raw).is_none() {
        raw
    } else {
        buf.clear();
        let mut rest = raw;
        while let Some(at) = memchr::memchr(0x1b, rest) {
            buf.extend_from_slice(&rest[..at]);
            rest = after_csi(&rest[at..])?;
        }
        buf.extend_from_slice(rest);
        buf.as_slice()
    };
    // One branch-free pass the compiler can vectorise.
    let printable = text.iter().fold(true, |ok, &b| {
        ok & ((0x20..0x7f).contains(&b) | (b == b'\t'))
    });
    printable.then_some(text)
}

/// The bytes after the CSI sequence `ESC [ params intermediates final` at the start of `s`.
fn after_csi(s: &[u8]) -> Option<&[u8]> {
    let body = s.strip_prefix(b"\x1b[")?;
    let params = body
        .iter()
        .take_while(|b| (0x30..=0x3f).contains(*b))
        .count();
    let inter = body[params..]
        .iter()
        .take_while(|b| (0x20..=0x2f).contains(*b))
        .count();
    let end = params + inter;
    match body.get(end) {
        Some(b) if (0x40..=0x7e).contains(b) => body.get(end + 1..),
        _ => None,
    }
}

/// Literals of which every match of `pattern` contains at least one; `None` when the pattern
/// can match without any fixed text of [`MIN_LITERAL`] bytes or more.
pub fn required_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let set = required(&hir)?;
    set.iter().all(|l| l.len() >= MIN_LITERAL).then_some(set)
}

fn required(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![lit.0.to_vec()]),
        HirKind::Capture(cap) => required(&cap.sub),
        HirKind::Repetition(rep) if rep.min >= 1 => required(&rep.sub),
        // The child whose weakest literal is the longest.
        HirKind::Concat(subs) => subs
            .iter()
            .filter_map(required)
            .max_by_key(|set| set.iter().map(Vec::len).min().unwrap_or(0)),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(required(sub)?);
            }
            Some(all)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(pattern: &str) -> Option<Vec<String>> {
        required_literals(pattern).map(|set| {
            set.into_iter()
                .map(|l| String::from_utf8(l).unwrap())
                .collect()
        })
    }

    #[test]
    fn literals_every_match_needs() {
        assert_eq!(
            lits(r"DataLoader worker \(pid \d+\) is killed by signal: Bus error").unwrap(),
            [") is killed by signal: Bus error"]
        );
        assert_eq!(
            lits(r"killed by signal: (?:Aborted|Trace/BPT trap)").unwrap(),
            ["killed by signal: "]
        );
        assert_eq!(lits(r"(?:Aborted|Quit)").unwrap(), ["Aborted", "Quit"]);
        assert_eq!(lits(r"\d+ bytes"), Some(vec![" bytes".to_string()]));
        // Nothing fixed to require.
        assert_eq!(lits(r"\d+"), None);
        assert_eq!(lits(r"(?:ab|[xy]z)"), None);
        assert_eq!(lits(r"(?i)killed"), None);
    }

    #[test]
    fn every_embedded_pattern_has_a_literal() {
        let kb = crate::kb::KnowledgeBase::embedded();
        for entry in kb.entries() {
            for pattern in entry.patterns() {
                assert!(
                    required_literals(pattern).is_some(),
                    "{}: `{pattern}` has no literal for the prefilter",
                    entry.id
                );
            }
        }
    }

    #[test]
    fn plain_text_is_what_cleaning_leaves() {
        let mut buf = Vec::new();
        assert_eq!(
            plain_text(b"\x1b[32mINFO\x1b[0m step 3", &mut buf),
            Some(&b"INFO step 3"[..])
        );
        assert_eq!(plain_text(b"loss\t0.3", &mut buf), Some(&b"loss\t0.3"[..]));
        // Other escapes, control characters and non-ASCII text take the full path.
        assert_eq!(plain_text(b"\x1b]0;title\x07x", &mut buf), None);
        assert_eq!(plain_text(b"a\x00b", &mut buf), None);
        assert_eq!(plain_text("a：b".as_bytes(), &mut buf), None);
        assert_eq!(plain_text(b"\x1b[3", &mut buf), None);
    }

    #[test]
    fn a_literal_split_over_two_lines_is_seen_at_the_join() {
        let pf = Prefilter::new(["Bus error"]).unwrap();
        let mut scratch = Vec::new();
        assert!(!pf.may_match(b"worker is killed by signal: Bu"));
        assert!(pf.may_match_across(b"killed by signal: Bu", b"s error.", &mut scratch));
        assert!(pf.may_match_across(b"killed by signal: Bus", b"error.", &mut scratch));
        assert!(!pf.may_match_across(b"epoch 1", b"loss 0.3", &mut scratch));
    }
}
