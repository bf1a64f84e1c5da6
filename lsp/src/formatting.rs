//! Formatting through the printer: the whole document exactly as `tirc fmt`
//! prints it, or only the changed lines that meet a range. Edits are the
//! line-level differences, so the cursor and folds outside them stay put.

use crate::analysis::Analysis;
use similar::{DiffOp, TextDiff};
use tirc::format::{format_source_leniently, Formatted};
use tirc::printer::Dialect;
use tower_lsp::lsp_types::{Position, Range, TextEdit};

/// The text `tirc fmt` prints for the document (only its layout formatted
/// while the program has errors), or `None` for a syntax error.
pub fn formatted_text(analysis: &Analysis, dialect: Option<Dialect>) -> Option<String> {
    match format_source_leniently("<editor>", &analysis.text, dialect, false).ok()? {
        Formatted::Canonical(text) | Formatted::LayoutOnly(text, ..) => Some(text),
    }
}

/// Byte offsets where each line of `text` starts, plus the end.
fn line_offsets(text: &str) -> Vec<usize> {
    let mut offsets: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    if offsets.last() != Some(&text.len()) {
        offsets.push(text.len());
    }
    offsets
}

/// The line-level edits that turn the document into `formatted`.
pub fn edits_to(analysis: &Analysis, formatted: &str) -> Vec<TextEdit> {
    let old = analysis.text.as_str();
    let diff = TextDiff::from_lines(old, formatted);
    let old_lines = line_offsets(old);
    let new_lines = line_offsets(formatted);
    let mut edits = Vec::new();
    let mut ranges = Vec::new();
    for op in diff.ops() {
        ranges.push(match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } if old_len == new_len => {
                // Line for line, so formatting a range changes only its lines.
                for line in 0..old_len {
                    ranges.push((
                        old_index + line..old_index + line + 1,
                        new_index + line..new_index + line + 1,
                    ));
                }
                continue;
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        });
    }
    for (old_range, new_range) in ranges {
        let at =
            |offsets: &[usize], line: usize, len: usize| offsets.get(line).copied().unwrap_or(len);
        let start = at(&old_lines, old_range.start, old.len());
        let end = at(&old_lines, old_range.end, old.len());
        let new_start = at(&new_lines, new_range.start, formatted.len());
        let new_end = at(&new_lines, new_range.end, formatted.len());
        edits.push(TextEdit::new(
            analysis.line_index.range(old, start, end),
            formatted[new_start..new_end].to_string(),
        ));
    }
    edits
}

/// Edits formatting the whole document.
pub fn format_document(analysis: &Analysis, dialect: Option<Dialect>) -> Option<Vec<TextEdit>> {
    let formatted = formatted_text(analysis, dialect)?;
    Some(edits_to(analysis, &formatted))
}

fn overlaps(edit: &Range, range: &Range) -> bool {
    let before = |a: Position, b: Position| (a.line, a.character) < (b.line, b.character);
    // An empty range (a cursor) asks for its whole line.
    let range = if range.start == range.end {
        Range::new(
            Position::new(range.start.line, 0),
            Position::new(range.start.line + 1, 0),
        )
    } else {
        *range
    };
    if edit.start == edit.end {
        // An insertion at the range's edge counts as inside it.
        !before(edit.start, range.start) && !before(range.end, edit.start)
    } else {
        // A replaced line that ends where the range starts is the line above.
        before(edit.start, range.end) && before(range.start, edit.end)
    }
}

/// Edits formatting the lines that meet `range`.
pub fn format_range(
    analysis: &Analysis,
    range: Range,
    dialect: Option<Dialect>,
) -> Option<Vec<TextEdit>> {
    let edits = format_document(analysis, dialect)?;
    Some(
        edits
            .into_iter()
            .filter(|e| overlaps(&e.range, &range))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Formatting one line leaves the line above alone, though it needs
    /// formatting too (issue 25.10).
    #[test]
    fn range_formatting_touches_only_the_lines_in_the_range() {
        let text = "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.float32(1)\n    A[1] = T.float32(2)\n";
        let analysis = Analysis::new("t.tir", Arc::new(text.to_string()), 1);
        let everything = format_document(&analysis, None).expect("the file formats");
        assert!(everything
            .iter()
            .any(|e| e.range.start.line <= 2 && e.range.end.line > 2));
        for range in [
            Range::new(Position::new(3, 0), Position::new(3, 23)),
            Range::new(Position::new(3, 0), Position::new(4, 0)),
            Range::new(Position::new(3, 4), Position::new(3, 4)),
        ] {
            let edits = format_range(&analysis, range, None).expect("the file formats");
            assert!(!edits.is_empty(), "{range:?}: nothing formatted");
            for edit in &edits {
                assert!(
                    edit.range.start.line >= 3,
                    "{range:?} rewrote line {}: {edit:?}",
                    edit.range.start.line
                );
            }
        }
    }
}
