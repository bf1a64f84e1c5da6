//! Formatting through the printer: the whole document exactly as `tirc fmt`
//! prints it, or only the changed lines that meet a range. Edits are the
//! line-level differences, so the cursor and folds outside them stay put.

use crate::analysis::Analysis;
use similar::{DiffOp, TextDiff};
use tirc::format::format_source;
use tirc::printer::Dialect;
use tower_lsp::lsp_types::{Position, Range, TextEdit};

/// The text `tirc fmt` prints for the document, or `None` when the formatter
/// refuses it (as `tirc fmt` does for a file with errors).
pub fn formatted_text(analysis: &Analysis, dialect: Option<Dialect>) -> Option<String> {
    format_source("<editor>", &analysis.text, dialect).ok()
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
    for op in diff.ops() {
        let (old_range, new_range) = match *op {
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
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
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
    // An insertion at the range's edge counts as inside it.
    !before(edit.end, range.start) && !before(range.end, edit.start)
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
