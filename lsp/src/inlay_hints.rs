//! Inlay hints: the `T.reads`/`T.writes` tirc infers for a block that omits
//! them (at the end of its `with` line), and what each schedule handle
//! denotes (after its name).

use crate::analysis::Analysis;
use crate::inferred_regions::block_signatures;
use tower_lsp::lsp_types::{InlayHint, InlayHintKind, InlayHintLabel, Position, Range};

fn inside(range: &Range, position: Position) -> bool {
    (range.start.line, range.start.character) <= (position.line, position.character)
        && (position.line, position.character) <= (range.end.line, range.end.character)
}

/// The hints whose position is inside `range`.
pub fn inlay_hints(analysis: &Analysis, range: Range) -> Vec<InlayHint> {
    let text = analysis.text.as_str();
    let mut hints = Vec::new();
    for signature in block_signatures(analysis) {
        if signature.reads_written && signature.writes_written {
            continue;
        }
        let start = signature.span.start as usize;
        let line_end = text[start.min(text.len())..]
            .find('\n')
            .map(|i| start + i)
            .unwrap_or(text.len());
        let line_end = if text[..line_end].ends_with('\r') {
            line_end - 1
        } else {
            line_end
        };
        let position = analysis.line_index.position(text, line_end);
        if !inside(&range, position) {
            continue;
        }
        let mut parts = Vec::new();
        if !signature.reads_written {
            parts.push(signature.reads_line());
        }
        if !signature.writes_written {
            parts.push(signature.writes_line());
        }
        hints.push(InlayHint {
            position,
            label: InlayHintLabel::String(format!("inferred: {}", parts.join(" "))),
            kind: None,
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: None,
        });
    }
    for script in analysis.schedule_scripts() {
        for handle in &script.handles {
            let position = analysis.line_index.position(text, handle.span.end as usize);
            if !inside(&range, position) {
                continue;
            }
            hints.push(InlayHint {
                position,
                label: InlayHintLabel::String(format!(": {}", handle.denotes.describe())),
                kind: Some(InlayHintKind::TYPE),
                text_edits: None,
                tooltip: None,
                padding_left: None,
                padding_right: Some(true),
                data: None,
            });
        }
    }
    hints.sort_by_key(|h| (h.position.line, h.position.character));
    hints
}
