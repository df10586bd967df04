//! Coordinates: byte offsets <-> lines and columns in every encoding a client may use.
//!
//! Everything in dldoctor stores byte offsets (`TextRange`). Conversion to the LSP's
//! negotiated position encoding, to 1-based CLI rows and columns, and back, lives here and
//! nowhere else. Out-of-range input is clamped, never a panic: positions come from editors.

use serde::{Deserialize, Serialize};

/// A half-open byte range `[start, end)` into one source text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct TextRange {
    pub start: usize,
    pub end: usize,
}

impl TextRange {
    pub fn new(start: usize, end: usize) -> Self {
        Self {
            start,
            end: end.max(start),
        }
    }
    pub fn empty(at: usize) -> Self {
        Self { start: at, end: at }
    }
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
    pub fn contains(&self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }
    pub fn contains_range(&self, other: TextRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

impl From<std::ops::Range<usize>> for TextRange {
    fn from(r: std::ops::Range<usize>) -> Self {
        TextRange::new(r.start, r.end)
    }
}

/// How a client counts columns (LSP `positionEncoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    Utf8,
    /// The LSP default, and what VS Code uses.
    #[default]
    Utf16,
    Utf32,
}

/// A zero-based line and a column counted in some [`Encoding`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Line starts of one text, for fast offset <-> position conversion.
///
/// Lines end at `\n`; a `\r` before it belongs to the line's terminator, so CRLF files get
/// the same columns as LF files.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self {
            line_starts,
            len: text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The zero-based line holding `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> u32 {
        let offset = offset.min(self.len);
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line as u32,
            Err(next) => (next - 1) as u32,
        }
    }

    /// Byte range of a line's content, without its `\n` or `\r\n`.
    pub fn line_range(&self, text: &str, line: u32) -> TextRange {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return TextRange::empty(self.len);
        };
        let mut end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(self.len, |next| next - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        TextRange::new(start, end)
    }

    /// Offset -> (line, column in `encoding`). An offset inside a UTF-8 sequence is moved back
    /// to the character's start.
    pub fn position(&self, text: &str, offset: usize, encoding: Encoding) -> LineCol {
        let offset = floor_char_boundary(text, offset.min(self.len));
        let line = self.line_of(offset);
        let start = self.line_starts[line as usize];
        let prefix = &text[start..offset];
        LineCol {
            line,
            col: column_width(prefix, encoding) as u32,
        }
    }

    /// (line, column in `encoding`) -> offset. A line past the end is the end of the text; a
    /// column past the line's end is the line's end; a column inside a character (half of a
    /// surrogate pair) is that character's start.
    pub fn offset(&self, text: &str, pos: LineCol, encoding: Encoding) -> usize {
        if pos.line as usize >= self.line_starts.len() {
            return self.len;
        }
        let line = self.line_range(text, pos.line);
        let content = &text[line.start..line.end];
        let mut width = 0usize;
        for (i, ch) in content.char_indices() {
            let w = char_width(ch, encoding);
            if width + w > pos.col as usize {
                return line.start + i;
            }
            width += w;
        }
        line.end
    }

    /// 1-based row and 1-based column counted in characters, as the CLI prints them.
    pub fn row_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let pos = self.position(text, offset, Encoding::Utf32);
        (pos.line as usize + 1, pos.col as usize + 1)
    }
}

fn char_width(ch: char, encoding: Encoding) -> usize {
    match encoding {
        Encoding::Utf8 => ch.len_utf8(),
        Encoding::Utf16 => ch.len_utf16(),
        Encoding::Utf32 => 1,
    }
}

fn column_width(s: &str, encoding: Encoding) -> usize {
    match encoding {
        Encoding::Utf8 => s.len(),
        Encoding::Utf16 => s.chars().map(char::len_utf16).sum(),
        Encoding::Utf32 => s.chars().count(),
    }
}

/// The greatest char boundary at or below `offset` (stable `str::floor_char_boundary`).
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_round_trip() {
        let text = "ab\ncd\n";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.position(text, 4, Encoding::Utf16),
            LineCol { line: 1, col: 1 }
        );
        assert_eq!(
            idx.offset(text, LineCol { line: 1, col: 1 }, Encoding::Utf16),
            4
        );
        assert_eq!(idx.line_count(), 3);
    }

    #[test]
    fn emoji_and_chinese_columns_differ_by_encoding() {
        // "😀" is 4 bytes, 2 UTF-16 units, 1 scalar; "数" is 3 bytes, 1 unit, 1 scalar.
        let text = "x = '😀数' # 注释\ny";
        let idx = LineIndex::new(text);
        let after = text.find('#').unwrap();
        assert_eq!(idx.position(text, after, Encoding::Utf8).col, after as u32);
        assert_eq!(idx.position(text, after, Encoding::Utf16).col, 10);
        assert_eq!(idx.position(text, after, Encoding::Utf32).col, 9);
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let pos = idx.position(text, after, enc);
            assert_eq!(idx.offset(text, pos, enc), after, "{enc:?}");
        }
    }

    #[test]
    fn half_surrogate_and_mid_char_offsets_clamp_to_char_start() {
        let text = "😀b";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 1 }, Encoding::Utf16),
            0
        );
        assert_eq!(idx.position(text, 2, Encoding::Utf16).col, 0);
    }

    #[test]
    fn crlf_lines_exclude_the_carriage_return() {
        let text = "ab\r\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_range(text, 0), TextRange::new(0, 2));
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 99 }, Encoding::Utf16),
            2
        );
        assert_eq!(
            idx.position(text, 4, Encoding::Utf16),
            LineCol { line: 1, col: 0 }
        );
    }

    #[test]
    fn out_of_range_positions_are_clamped() {
        let text = "ab\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.offset(text, LineCol { line: 40, col: 0 }, Encoding::Utf16),
            text.len()
        );
        assert_eq!(
            idx.position(text, 999, Encoding::Utf16),
            LineCol { line: 1, col: 2 }
        );
        assert_eq!(idx.row_column(text, 3), (2, 1));
    }
}
