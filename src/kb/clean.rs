//! Terminal text to plain lines: what a person would read on the screen.
//!
//! The [`LineReader`] splits a byte stream into lines with a bounded buffer (a multi-gigabyte
//! log without newlines costs at most [`MAX_LINE`] bytes) and applies carriage returns as a
//! terminal does: the text after a bare `\r` replaces the line (progress bars). [`clean_line`]
//! then strips ANSI escapes, log prefixes of distributed launchers (`[rank0]:`) and tqdm bars
//! that the next output was printed after.

use std::io::{self, BufRead};
use std::sync::LazyLock;

use regex::Regex;

/// Longest line kept; the rest of a longer line is dropped.
pub const MAX_LINE: usize = 64 * 1024;

/// Reads lines of at most [`MAX_LINE`] bytes, honouring `\r` the way a terminal does.
pub struct LineReader<R> {
    inner: R,
    line: Vec<u8>,
    pending_cr: bool,
    done: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            line: Vec::with_capacity(256),
            pending_cr: false,
            done: false,
        }
    }

    /// The next line without its terminator, or `None` at the end of input.
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        if self.done {
            return Ok(None);
        }
        self.line.clear();
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if buf.is_empty() {
                self.done = true;
                self.pending_cr = false;
                return Ok(Some(&self.line));
            }
            let mut consumed = 0;
            let mut ended = false;
            while consumed < buf.len() {
                if self.pending_cr {
                    self.pending_cr = false;
                    if buf[consumed] == b'\n' {
                        consumed += 1;
                        ended = true;
                        break;
                    }
                    // A bare carriage return: what follows is drawn over the line.
                    self.line.clear();
                }
                let rest = &buf[consumed..];
                let (chunk, end) = match memchr::memchr2(b'\n', b'\r', rest) {
                    Some(at) => (&rest[..at], Some(rest[at])),
                    None => (rest, None),
                };
                let room = MAX_LINE.saturating_sub(self.line.len());
                self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                consumed += chunk.len();
                match end {
                    Some(b'\n') => {
                        consumed += 1;
                        ended = true;
                        break;
                    }
                    Some(_) => {
                        consumed += 1;
                        self.pending_cr = true;
                    }
                    None => {}
                }
            }
            self.inner.consume(consumed);
            if ended {
                return Ok(Some(&self.line));
            }
        }
    }
}

/// A cleaned line: the launcher prefix it carried (its output stream) and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanLine {
    /// `[rank1]:`, `[default0]:` or empty: lines of one prefix belong to one process.
    pub stream: String,
    pub text: String,
}

static LOG_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\[(?:rank|default)\d+\]:|\[rank\d+\]\s*\|) ?").unwrap_or_else(|_| never())
});

/// A tqdm bar (`desc:  40%|████      | 4/10 [00:01<00:02,  3.1it/s]`) that other output was
/// printed right after.
static TQDM_BAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^.*?\d{1,3}%\|[^|]*\|[^\[\n]*\[[^\]\n]*(?:it/s|s/it|\?)[^\]\n]*\]")
        .unwrap_or_else(|_| never())
});

/// A regex that matches nothing, for the impossible case that a constant pattern fails.
fn never() -> Regex {
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable!("constant regex"))
}

/// Cleans one raw line; `None` when nothing of it is left to read (a bare progress bar).
pub fn clean_line(raw: &[u8]) -> Option<CleanLine> {
    let mut text = String::from_utf8_lossy(raw).into_owned();
    if text.contains('\x1b') {
        text = strip_ansi_escapes::strip_str(&text);
    }
    if text.chars().any(|c| c.is_control() && c != '\t') {
        text.retain(|c| !c.is_control() || c == '\t');
    }
    let mut stream = String::new();
    strip_log_prefixes(&mut text, &mut stream);
    if text.contains("%|")
        && let Some(m) = TQDM_BAR.find(&text)
    {
        let rest = text[m.end()..].trim_start();
        if rest.is_empty() {
            return None;
        }
        text = rest.to_string();
        // A bar printed by another process before this one's prefixed line.
        strip_log_prefixes(&mut text, &mut stream);
    }
    let trimmed = text.trim_end().len();
    text.truncate(trimmed);
    if !text.is_ascii() {
        normalize_punctuation(&mut text);
    }
    Some(CleanLine { stream, text })
}

/// Punctuation a person retyping a message on a Chinese or Japanese keyboard produces, as the
/// ASCII the patterns are written in: full-width forms (`：`, `（`, `）`, `，`, `［`),
/// the ideographic space and full stop, and curly quotes.
pub fn normalize_punctuation(text: &mut String) {
    if !text.chars().any(|c| ascii_of(c).is_some()) {
        return;
    }
    *text = text.chars().map(|c| ascii_of(c).unwrap_or(c)).collect();
}

fn ascii_of(c: char) -> Option<char> {
    match c {
        // U+FF01..U+FF5E are U+0021..U+007E shifted by 0xFEE0.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
        '\u{3000}' => Some(' '),
        '\u{3002}' => Some('.'),
        '\u{3001}' => Some(','),
        '\u{2018}' | '\u{2019}' => Some('\''),
        '\u{201C}' | '\u{201D}' => Some('"'),
        _ => None,
    }
}

/// Removes launcher prefixes; they can repeat (`[rank0]:[rank0]: ...` after re-logging) and the
/// first one names the stream.
fn strip_log_prefixes(text: &mut String, stream: &mut String) {
    while let Some(m) = LOG_PREFIX.find(text) {
        if stream.is_empty() {
            *stream = m.as_str().trim_end().to_string();
        }
        text.replace_range(..m.end(), "");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<String> {
        let mut reader = LineReader::new(input);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push(String::from_utf8_lossy(line).into_owned());
        }
        out
    }

    #[test]
    fn carriage_returns_redraw_the_line() {
        assert_eq!(
            lines(b"a\r\nb\n 10%\r 20%\rdone\nlast"),
            vec!["a", "b", "done", "last"]
        );
    }

    #[test]
    fn long_lines_are_bounded() {
        let mut input = vec![b'x'; MAX_LINE * 3];
        input.extend_from_slice(b"\nnext\n");
        let got = lines(&input);
        assert_eq!(got[0].len(), MAX_LINE);
        assert_eq!(got[1], "next");
    }

    #[test]
    fn ansi_and_rank_prefix() {
        let line = clean_line(b"[rank1]: \x1b[31mRuntimeError\x1b[0m: boom").unwrap();
        assert_eq!(line.stream, "[rank1]:");
        assert_eq!(line.text, "RuntimeError: boom");
        let frame = clean_line(b"[rank0]:   File \"x.py\", line 3, in <module>").unwrap();
        assert_eq!(frame.text, "  File \"x.py\", line 3, in <module>");
    }

    #[test]
    fn tqdm_bar_before_output() {
        let line = clean_line(
            "Epoch 1:  26%|██▌       | 19/74 [00:07<00:21,  2.59it/s]Traceback (most recent call last):"
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(line.text, "Traceback (most recent call last):");
        assert!(clean_line(" 50%|█████     | 5/10 [00:01<00:01,  4.98it/s]".as_bytes()).is_none());
        // A percentage in ordinary text is left alone.
        let plain = clean_line(b"loss 50%|acc 20% [ok]").unwrap();
        assert_eq!(plain.text, "loss 50%|acc 20% [ok]");
    }

    #[test]
    fn full_width_punctuation_becomes_ascii() {
        let line = clean_line(
            "RuntimeError：DataLoader worker （pid 123） is killed by signal： Killed。".as_bytes(),
        )
        .unwrap();
        assert_eq!(
            line.text,
            "RuntimeError:DataLoader worker (pid 123) is killed by signal: Killed."
        );
        // Other text is left alone.
        let zh = clean_line("页面文件太小".as_bytes()).unwrap();
        assert_eq!(zh.text, "页面文件太小");
    }

    #[test]
    fn invalid_utf8_is_kept_lossily() {
        let line = clean_line(b"RuntimeError: \xff\xfe bad").unwrap();
        assert!(line.text.starts_with("RuntimeError: "));
        assert!(line.text.ends_with(" bad"));
    }
}
