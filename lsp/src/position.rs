//! Conversions between byte offsets (what spans hold) and protocol positions
//! (line and UTF-16 code unit, as the Language Server Protocol counts them).

use tower_lsp::lsp_types::{Position, Range};

/// The line starts of one text, for converting offsets and positions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// True when every byte is ASCII, so columns in bytes and UTF-16 agree.
    ascii: bool,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> LineIndex {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex {
            line_starts,
            ascii: text.is_ascii(),
        }
    }

    /// The number of lines (a text ending in a newline has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The protocol position of byte `offset` of `text`; an offset inside a
    /// character or past the end is moved back to a character boundary.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        };
        let start = self.line_starts[line];
        let character = if self.ascii {
            offset - start
        } else {
            text[start..offset].chars().map(char::len_utf16).sum()
        };
        Position::new(line as u32, character as u32)
    }

    /// The protocol range of bytes `start..end` of `text`.
    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }

    /// The byte offset of a protocol position; a position past the end of
    /// its line is the line's end, one past the last line is the text's end,
    /// and one inside a surrogate pair is the start of that character.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.line_starts.get(line) else {
            return text.len();
        };
        let line_end = self
            .line_starts
            .get(line + 1)
            .map(|next| next - 1)
            .unwrap_or(text.len());
        let line_text = &text[start..line_end];
        // A `\r\n` line ending: the `\r` is not a column either.
        let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        let wanted = position.character as usize;
        if self.ascii {
            return start + wanted.min(line_text.len());
        }
        let mut units = 0;
        for (index, character) in line_text.char_indices() {
            if units >= wanted {
                return start + index;
            }
            units += character.len_utf16();
            if units > wanted {
                return start + index;
            }
        }
        start + line_text.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_offsets_and_positions_agree() {
        let text = "ab\ncd\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 4), Position::new(1, 1));
        assert_eq!(index.offset(text, Position::new(1, 1)), 4);
        assert_eq!(index.offset(text, Position::new(1, 99)), 5);
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len());
    }

    #[test]
    fn astral_characters_count_two_utf16_units() {
        // "𝔸" is 4 bytes and 2 UTF-16 units; "é" is 2 bytes and 1 unit.
        let text = "# 𝔸é\nx = \"𝔸\" + y\n";
        let index = LineIndex::new(text);
        let y = text.find('y').unwrap_or(0);
        assert_eq!(index.position(text, y), Position::new(1, 11));
        assert_eq!(index.offset(text, Position::new(1, 11)), y);
        let e = text.find('é').unwrap_or(0);
        assert_eq!(index.position(text, e), Position::new(0, 4));
        // Inside the surrogate pair: the start of the character.
        assert_eq!(index.offset(text, Position::new(0, 3)), 2);
    }

    #[test]
    fn offsets_inside_characters_move_back() {
        let text = "é";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 1), Position::new(0, 0));
    }
}
