//! Code actions: insert the inferred `T.reads`/`T.writes` of a block, convert
//! the file between the classic and tirx dialects, and apply the "did you
//! mean" suggestion of a diagnostic (a misspelled builtin, buffer or name).

use crate::analysis::Analysis;
use crate::formatting;
use crate::inferred_regions::block_signatures;
use std::collections::HashMap;
use tirc::printer::Dialect;
use tower_lsp::lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, Range, TextEdit, Url,
    WorkspaceEdit,
};

fn edit(uri: &Url, edits: Vec<TextEdit>) -> WorkspaceEdit {
    let mut changes = HashMap::new();
    changes.insert(uri.clone(), edits);
    WorkspaceEdit::new(changes)
}

/// The suggestion in a help line: the text in the first backticks or quotes.
pub fn suggestion(help: &str) -> Option<String> {
    for quote in ['`', '"'] {
        let start = help.find(quote)? + 1;
        if let Some(length) = help[start..].find(quote) {
            let text = &help[start..start + length];
            if !text.is_empty() {
                return Some(text.to_string());
            }
        }
    }
    None
}

fn quick_fix(analysis: &Analysis, uri: &Url, diagnostic: &Diagnostic) -> Option<CodeAction> {
    let help = diagnostic.data.as_ref()?.get("help")?.as_str()?;
    let suggested = suggestion(help)?;
    let start = analysis.offset(diagnostic.range.start);
    let end = analysis.offset(diagnostic.range.end);
    let written = analysis.text.get(start..end)?;
    if written.is_empty() || written.contains('\n') {
        return None;
    }
    let replacement = match written.chars().next() {
        Some(q @ ('"' | '\'')) => format!("{q}{suggested}{q}"),
        _ => suggested.clone(),
    };
    // A diagnostic on a whole call (`T.gird(128)`) fixes only the name it starts with.
    let name_length = written
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(written.len());
    let (written, range) =
        if name_length > 0 && name_length < written.len() && !written.starts_with(['"', '\'']) {
            let end = analysis
                .line_index
                .position(&analysis.text, start + name_length);
            (
                &written[..name_length],
                Range::new(diagnostic.range.start, end),
            )
        } else {
            (written, diagnostic.range)
        };
    if replacement == written {
        return None;
    }
    Some(CodeAction {
        title: format!("Replace `{written}` with `{replacement}`"),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![diagnostic.clone()]),
        edit: Some(edit(uri, vec![TextEdit::new(range, replacement)])),
        command: None,
        is_preferred: Some(true),
        disabled: None,
        data: None,
    })
}

/// The code actions for `range` with the diagnostics the client sent.
pub fn code_actions(
    analysis: &Analysis,
    uri: &Url,
    range: Range,
    diagnostics: &[Diagnostic],
) -> Vec<CodeActionOrCommand> {
    let mut actions = Vec::new();
    for diagnostic in diagnostics {
        if let Some(action) = quick_fix(analysis, uri, diagnostic) {
            actions.push(CodeActionOrCommand::CodeAction(action));
        }
    }
    let start = analysis.offset(range.start) as u32;
    for signature in block_signatures(analysis) {
        if signature.reads_written && signature.writes_written {
            continue;
        }
        if start < signature.span.start || start > signature.span.end {
            continue;
        }
        let mut lines = String::new();
        if !signature.reads_written {
            lines.push_str(&format!("{}{}\n", signature.indent, signature.reads_line()));
        }
        if !signature.writes_written {
            lines.push_str(&format!(
                "{}{}\n",
                signature.indent,
                signature.writes_line()
            ));
        }
        let position = analysis
            .line_index
            .position(&analysis.text, signature.insert_at);
        actions.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!(
                "Insert the inferred T.reads/T.writes of block \"{}\"",
                signature.name
            ),
            kind: Some(CodeActionKind::REFACTOR_REWRITE),
            diagnostics: None,
            edit: Some(edit(
                uri,
                vec![TextEdit::new(Range::new(position, position), lines)],
            )),
            command: None,
            is_preferred: None,
            disabled: None,
            data: None,
        }));
    }
    if let Some(program) = analysis
        .program()
        .filter(|_| !analysis.checked.has_errors())
    {
        let (target, name) = match program.dialect {
            Dialect::Classic => (Dialect::Tirx, "tirx (TVM 0.25+)"),
            Dialect::Tirx => (Dialect::Classic, "classic"),
        };
        if let Some(edits) = formatting::format_document(analysis, Some(target)) {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Convert the file to the {name} dialect"),
                kind: Some(CodeActionKind::new("source.convertDialect")),
                diagnostics: None,
                edit: Some(edit(uri, edits)),
                command: None,
                is_preferred: None,
                disabled: None,
                data: None,
            }));
        }
    }
    actions
}
