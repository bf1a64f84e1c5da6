//! Source files, file ids and the spans every IR node and diagnostic carries.

use std::fmt;
use std::sync::Arc;

/// Identifies a source file within a [`SourceMap`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct FileId(pub u32);

impl FileId {
    /// The id used by spans that point at no file (nodes built by a pass).
    pub const NONE: FileId = FileId(u32::MAX);
}

/// A byte range in one source file. Nodes created by transformations carry
/// [`Span::NONE`] or the span of the source construct they were derived from.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span that points nowhere.
    pub const NONE: Span = Span {
        file: FileId::NONE,
        start: 0,
        end: 0,
    };

    /// A span in `file` covering `start..end`.
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span { file, start, end }
    }

    /// The span of a syntax-tree node of `file`.
    pub fn from_syntax(file: FileId, span: tirc_grammar::Span) -> Span {
        Span::new(file, span.start, span.end)
    }

    /// The part of the span on its first line, trailing blanks left out:
    /// a whole loop, block or `def` is blamed at its header line. `text` is
    /// the text of the span's file.
    pub fn first_line(self, text: &str) -> Span {
        let end = (self.end as usize).min(text.len());
        let start = (self.start as usize).min(end);
        match text
            .get(start..end)
            .and_then(|part| part.find('\n').map(|n| &part[..n]))
        {
            Some(line) => Span::new(
                self.file,
                self.start,
                self.start + line.trim_end().len() as u32,
            ),
            None => self,
        }
    }

    /// True when the span points into a file.
    pub fn is_known(self) -> bool {
        self.file != FileId::NONE
    }

    /// The smallest span covering both (when both are in the same file).
    pub fn to(self, other: Span) -> Span {
        if !self.is_known() {
            return other;
        }
        if !other.is_known() || other.file != self.file {
            return self;
        }
        Span::new(
            self.file,
            self.start.min(other.start),
            self.end.max(other.end),
        )
    }

    /// The byte range as `usize`s.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl Default for Span {
    fn default() -> Span {
        Span::NONE
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_known() {
            write!(f, "{}:{}..{}", self.file.0, self.start, self.end)
        } else {
            f.write_str("<no span>")
        }
    }
}

/// One source file: its name, text and line starts.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (a path, or `<stdin>`).
    pub name: String,
    /// The full text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// A source file from its name and text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// Byte offsets where each line starts.
    pub fn line_starts(&self) -> &[usize] {
        &self.line_starts
    }

    /// The 0-based line and 0-based byte column of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        };
        (line, offset - self.line_starts[line])
    }

    /// `name:line:column` with 1-based line and character column, as editors expect.
    pub fn location(&self, offset: usize) -> String {
        let (line, _) = self.line_column(offset);
        let line_start = self.line_starts[line];
        let characters = self.text[line_start..offset.min(self.text.len())]
            .chars()
            .count();
        format!("{}:{}:{}", self.name, line + 1, characters + 1)
    }
}

/// The set of source files of one compilation.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<Arc<SourceFile>>,
}

impl SourceMap {
    /// An empty source map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(Arc::new(SourceFile::new(name, text)));
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with the given id.
    pub fn get(&self, id: FileId) -> Option<&Arc<SourceFile>> {
        self.files.get(id.0 as usize)
    }

    /// Every file with its id.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &Arc<SourceFile>)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// The source text a span covers, when the span is known.
    pub fn snippet(&self, span: Span) -> Option<&str> {
        self.get(span.file)?.text.get(span.range())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_of_offsets() {
        let file = SourceFile::new("a.tir", "ab\ncd\n\nx");
        assert_eq!(file.line_column(0), (0, 0));
        assert_eq!(file.line_column(4), (1, 1));
        assert_eq!(file.line_column(7), (3, 0));
        assert_eq!(file.location(4), "a.tir:2:2");
    }

    #[test]
    fn location_counts_characters_not_bytes() {
        let file = SourceFile::new("u.tir", "# é x");
        assert_eq!(file.location(5), "u.tir:1:5");
    }
}
