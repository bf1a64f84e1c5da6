//! What `tirc fmt` keeps of the file it formats beyond the IR: the comments
//! in the program's body (each comes out once, in order, above the statement
//! it preceded or at the end of the line it ended), and the user's choice to
//! leave out `T.reads`/`T.writes` and the `# with T.block("root"):` line.

use crate::ir::NodeId;
use crate::source::{FileId, Span};
use std::collections::HashSet;

/// A comment of the program's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceComment {
    /// Byte offset of the `#`.
    pub start: u32,
    /// The text after `#`.
    pub text: String,
    /// True when nothing but blanks precede it on its line.
    pub own_line: bool,
    /// The line it is on, from 0.
    pub line: u32,
}

/// The layout facts of one source file.
#[derive(Clone, Debug)]
pub struct SourceLayout {
    /// The file the IR's spans point into.
    pub file: FileId,
    /// The body comments, in source order (header comments and the schedule
    /// sections' comments are kept elsewhere).
    pub comments: Vec<SourceComment>,
    /// Byte offset where each line starts.
    line_starts: Vec<u32>,
    /// Blocks whose `T.reads` the source left out (tirc inferred them).
    pub inferred_reads: HashSet<NodeId>,
    /// Blocks whose `T.writes` the source left out.
    pub inferred_writes: HashSet<NodeId>,
    /// Where the source wrote a `# with T.block("root"):` line.
    pub root_block_comments: Vec<u32>,
    /// The whole text of each function, decorator to last line.
    pub function_extents: Vec<Span>,
}

/// True for the comment TVM prints in place of an implicit root block.
pub fn is_root_block_comment(text: &str) -> bool {
    let text = text.trim();
    text == "with T.block(\"root\"):" || text == "with T.sblock(\"root\"):"
}

impl SourceLayout {
    /// The layout of `source` with `comments` (offset, text, own line), in
    /// source order; root-block comments are set apart.
    pub fn new(
        file: FileId,
        source: &str,
        comments: impl IntoIterator<Item = (u32, String, bool)>,
    ) -> SourceLayout {
        let line_starts: Vec<u32> = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        let mut layout = SourceLayout {
            file,
            comments: Vec::new(),
            line_starts,
            inferred_reads: HashSet::new(),
            inferred_writes: HashSet::new(),
            root_block_comments: Vec::new(),
            function_extents: Vec::new(),
        };
        for (start, text, own_line) in comments {
            if own_line && is_root_block_comment(&text) {
                layout.root_block_comments.push(start);
                continue;
            }
            let line = layout.line_of(start);
            layout.comments.push(SourceComment {
                start,
                text,
                own_line,
                line,
            });
        }
        layout
    }

    /// The line (from 0) of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        (self.line_starts.partition_point(|start| *start <= offset) as u32).saturating_sub(1)
    }

    /// The column (in bytes, from 0) of a byte offset.
    pub fn column_of(&self, offset: u32) -> u32 {
        offset - self.line_starts[self.line_of(offset) as usize]
    }

    /// The index of the first comment at or after `offset`.
    pub fn first_comment_from(&self, offset: u32) -> usize {
        self.comments.partition_point(|c| c.start < offset)
    }

    /// The whole text of the function whose name is at `name_span`.
    pub fn function_extent(&self, name_span: Span) -> Option<Span> {
        self.function_extents
            .iter()
            .find(|extent| {
                extent.file == name_span.file
                    && extent.start <= name_span.start
                    && name_span.start < extent.end
            })
            .copied()
    }

    /// True when the source wrote the root-block line in the function
    /// whose name is at `name_span`.
    pub fn wrote_root_block_in(&self, name_span: Span) -> bool {
        self.function_extent(name_span).is_some_and(|extent| {
            self.root_block_comments
                .iter()
                .any(|offset| (extent.start..extent.end).contains(offset))
        })
    }
}

impl super::Printer {
    /// Prints, as lines of their own, the comments not printed yet that
    /// start before `position`.
    pub(crate) fn comments_before(&mut self, position: u32, out: &mut Vec<super::Line>) {
        let Some(layout) = self.options.layout.clone() else {
            return;
        };
        while let Some(comment) = layout.comments.get(self.next_comment) {
            if comment.start >= position {
                break;
            }
            out.push(super::Line::Text(format!("#{}", comment.text)));
            self.next_comment += 1;
        }
    }

    /// Prints the own-line comments that follow a body indented like `first`
    /// (its first statement) at least as deep: they end that body.
    pub(crate) fn comments_ending_body(&mut self, first: Span, out: &mut Vec<super::Line>) {
        if !self.placed_in_source(first) {
            return;
        }
        let Some(layout) = self.options.layout.clone() else {
            return;
        };
        let column = layout.column_of(first.start);
        while let Some(comment) = layout.comments.get(self.next_comment) {
            if !comment.own_line
                || comment.start < first.start
                || comment.start >= self.comment_limit
                || layout.column_of(comment.start) < column
            {
                break;
            }
            out.push(super::Line::Text(format!("#{}", comment.text)));
            self.next_comment += 1;
        }
    }

    /// Prints every comment not printed yet.
    pub(crate) fn remaining_comments(&mut self, out: &mut Vec<super::Line>) {
        self.comments_before(u32::MAX, out);
    }

    /// The comment ending the first line of the statement at `span`, taken
    /// so that it is printed at the end of the statement's first line.
    fn trailing_comment(&mut self, span: Span) -> Option<String> {
        let layout = self.options.layout.clone()?;
        let comment = layout.comments.get(self.next_comment)?;
        if comment.own_line || comment.line != layout.line_of(span.start) {
            return None;
        }
        self.next_comment += 1;
        Some(comment.text.clone())
    }

    /// True when the statement at `span` comes from the formatted file, so
    /// the comments before it belong above it.
    fn placed_in_source(&self, span: Span) -> bool {
        self.options
            .layout
            .as_ref()
            .is_some_and(|layout| span != Span::NONE && span.file == layout.file)
    }

    /// Prints the statement at `span` with `print`, the comments before it
    /// above it and the comment ending its first line at the end of that line.
    pub(crate) fn with_comments(
        &mut self,
        span: Span,
        out: &mut Vec<super::Line>,
        print: impl FnOnce(&mut Self, &mut Vec<super::Line>),
    ) {
        if !self.placed_in_source(span) {
            return print(self, out);
        }
        self.comments_before(span.start, out);
        let trailing = self.trailing_comment(span);
        let first = out.len();
        print(self, out);
        if let Some(text) = trailing {
            match out.get_mut(first) {
                Some(super::Line::Text(line) | super::Line::Nested(line, _)) => {
                    line.push_str("  #");
                    line.push_str(&text);
                }
                None => out.push(super::Line::Text(format!("#{text}"))),
            }
        }
    }

    /// True when the formatter leaves out the block's `T.reads`.
    pub(crate) fn omits_reads(&self, block: NodeId) -> bool {
        self.keeps_user_choices()
            && self
                .options
                .layout
                .as_ref()
                .is_some_and(|layout| layout.inferred_reads.contains(&block))
    }

    /// True when the formatter leaves out the block's `T.writes`.
    pub(crate) fn omits_writes(&self, block: NodeId) -> bool {
        self.keeps_user_choices()
            && self
                .options
                .layout
                .as_ref()
                .is_some_and(|layout| layout.inferred_writes.contains(&block))
    }

    /// True when the function's root-block line is printed: always, unless
    /// the formatter keeps a source that left it out.
    pub(crate) fn prints_root_block_line(&self, function_span: Span) -> bool {
        !self.keeps_user_choices()
            || self
                .options
                .layout
                .as_ref()
                .is_some_and(|layout| layout.wrote_root_block_in(function_span))
    }

    fn keeps_user_choices(&self) -> bool {
        self.options.layout.is_some() && !self.options.explicit
    }
}
