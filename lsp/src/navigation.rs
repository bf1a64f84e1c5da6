//! Go to definition, find references and rename, for variables, buffers,
//! functions and blocks (the string in `sch.get_block("C")` is an occurrence
//! of block `"C"`) and for schedule handles (resolved to their assignment).

use crate::analysis::Analysis;
use std::collections::HashMap;
use tirc::frontend::symbols::{SymbolId, SymbolKind};
use tirc::source::Span;
use tower_lsp::lsp_types::{
    Location, Position, PrepareRenameResponse, Range, TextEdit, Url, WorkspaceEdit,
};

/// What the cursor is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A symbol of the program, written at `span`.
    Symbol(SymbolId, Span),
    /// A handle of schedule section `script`, written at `span`.
    Handle {
        /// Index of the schedule section.
        script: usize,
        /// Index of the handle in the section.
        handle: usize,
        /// Where it is written.
        span: Span,
    },
    /// A schedule primitive name after `sch.`.
    Primitive(String, Span),
}

fn span_of(analysis: &Analysis, span: tirc_grammar::Span) -> Span {
    Span::from_syntax(analysis.file(), span)
}

/// The block symbol a `get_block` string names.
fn block_symbol(analysis: &Analysis, name: &str) -> Option<SymbolId> {
    let program = analysis.program()?;
    program
        .symbols
        .symbols
        .iter()
        .position(|s| s.kind == SymbolKind::Block && s.name == name)
        .map(|i| SymbolId(i as u32))
}

/// What is at byte `offset`.
pub fn target_at(analysis: &Analysis, offset: usize) -> Option<Target> {
    let offset = offset as u32;
    for (script_index, script) in analysis.schedule_scripts().iter().enumerate() {
        if offset < script.span.start || offset > script.span.end {
            continue;
        }
        if let Some((span, handle)) = script.handle_at(offset) {
            return Some(Target::Handle {
                script: script_index,
                handle,
                span: span_of(analysis, span),
            });
        }
        for string in &script.block_strings {
            if string.span.start <= offset && offset <= string.span.end {
                let symbol = block_symbol(analysis, &string.name)?;
                return Some(Target::Symbol(symbol, span_of(analysis, string.span)));
            }
        }
        for step in &script.steps {
            if let (Some(primitive), Some(span)) = (&step.primitive, step.primitive_span) {
                if span.start <= offset && offset <= span.end {
                    return Some(Target::Primitive(
                        primitive.clone(),
                        span_of(analysis, span),
                    ));
                }
            }
        }
        return None;
    }
    let program = analysis.program()?;
    let occurrence = program.symbols.occurrence_at(offset)?;
    Some(Target::Symbol(occurrence.symbol, occurrence.span))
}

/// Every span that denotes the same thing as `target`, the definition first.
pub fn occurrences(analysis: &Analysis, target: &Target) -> Vec<Span> {
    match target {
        Target::Symbol(id, _) => {
            let Some(program) = analysis.program() else {
                return Vec::new();
            };
            let mut spans: Vec<Span> = program
                .symbols
                .occurrences_of(*id)
                .map(|o| o.span)
                .collect();
            if let Some(symbol) = program.symbols.symbol(*id) {
                if symbol.kind == SymbolKind::Block {
                    for script in analysis.schedule_scripts() {
                        for string in &script.block_strings {
                            if string.name == symbol.name {
                                spans.push(span_of(analysis, string.span));
                            }
                        }
                    }
                }
                if symbol.definition.is_known() {
                    spans.retain(|s| *s != symbol.definition);
                    spans.insert(0, symbol.definition);
                }
            }
            spans
        }
        Target::Handle { script, handle, .. } => analysis
            .schedule_scripts()
            .get(*script)
            .map(|s| {
                s.handle_occurrences(*handle)
                    .into_iter()
                    .map(|span| span_of(analysis, span))
                    .collect()
            })
            .unwrap_or_default(),
        Target::Primitive(name, _) => analysis
            .schedule_scripts()
            .iter()
            .flat_map(|s| s.steps.iter())
            .filter(|step| step.primitive.as_deref() == Some(name))
            .filter_map(|step| step.primitive_span)
            .map(|span| span_of(analysis, span))
            .collect(),
    }
}

/// Where the thing at `position` is defined.
pub fn definition(analysis: &Analysis, uri: &Url, position: Position) -> Option<Location> {
    let target = target_at(analysis, analysis.offset(position))?;
    let span = match &target {
        Target::Symbol(id, _) => {
            let symbol = analysis.program()?.symbols.symbol(*id)?;
            if !symbol.definition.is_known() {
                return None;
            }
            symbol.definition
        }
        Target::Handle { .. } => *occurrences(analysis, &target).first()?,
        Target::Primitive(..) => return None,
    };
    Some(Location::new(uri.clone(), analysis.range(span)))
}

/// Every place the thing at `position` is written.
pub fn references(
    analysis: &Analysis,
    uri: &Url,
    position: Position,
    include_declaration: bool,
) -> Vec<Location> {
    let Some(target) = target_at(analysis, analysis.offset(position)) else {
        return Vec::new();
    };
    let spans = occurrences(analysis, &target);
    let skip = usize::from(!include_declaration && !matches!(target, Target::Primitive(..)));
    spans
        .into_iter()
        .skip(skip)
        .map(|span| Location::new(uri.clone(), analysis.range(span)))
        .collect()
}

/// The text a rename replaces inside a span: a block-name string loses its quotes.
fn rename_range(analysis: &Analysis, span: Span) -> Option<Range> {
    let text = analysis.text.get(span.range())?;
    let quote = text.find(['"', '\''])?;
    if text.len() >= quote + 2 && text.ends_with(&text[quote..quote + 1]) && quote < text.len() - 1
    {
        let inner = Span::new(span.file, span.start + quote as u32 + 1, span.end - 1);
        return Some(analysis.range(inner));
    }
    None
}

fn editable_range(analysis: &Analysis, target: &Target, span: Span) -> Option<Range> {
    let is_block = match target {
        Target::Symbol(id, _) => analysis
            .program()
            .and_then(|p| p.symbols.symbol(*id))
            .is_some_and(|s| s.kind == SymbolKind::Block),
        _ => false,
    };
    if is_block {
        rename_range(analysis, span)
    } else {
        Some(analysis.range(span))
    }
}

/// Whether the thing at `position` can be renamed, and the range to rename.
pub fn prepare_rename(analysis: &Analysis, position: Position) -> Option<PrepareRenameResponse> {
    let target = target_at(analysis, analysis.offset(position))?;
    let span = match &target {
        Target::Symbol(id, span) => {
            let symbol = analysis.program()?.symbols.symbol(*id)?;
            if symbol.kind == SymbolKind::Builtin {
                return None;
            }
            *span
        }
        Target::Handle { span, .. } => *span,
        Target::Primitive(..) => return None,
    };
    Some(PrepareRenameResponse::Range(editable_range(
        analysis, &target, span,
    )?))
}

/// Python's keywords and the module aliases TVMScript reads (`T`, `I`).
const RESERVED_NAMES: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "T", "I", "tir", "tirx", "tvm",
];

/// True for a name TVMScript accepts as an identifier.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The edits that rename the thing at `position` to `new_name`, or why not.
pub fn rename(
    analysis: &Analysis,
    uri: &Url,
    position: Position,
    new_name: &str,
) -> Result<Option<WorkspaceEdit>, String> {
    let Some(target) = target_at(analysis, analysis.offset(position)) else {
        return Ok(None);
    };
    if matches!(target, Target::Primitive(..)) {
        return Err("schedule primitives cannot be renamed".to_string());
    }
    let is_block = matches!(&target, Target::Symbol(id, _)
        if analysis.program().and_then(|p| p.symbols.symbol(*id)).is_some_and(|s| s.kind == SymbolKind::Block));
    if let Target::Symbol(id, _) = &target {
        if analysis
            .program()
            .and_then(|p| p.symbols.symbol(*id))
            .is_some_and(|s| s.kind == SymbolKind::Builtin)
        {
            return Err("builtins cannot be renamed".to_string());
        }
    }
    if !is_block && !is_identifier(new_name) {
        return Err(format!("`{new_name}` is not a valid name"));
    }
    if !is_block && RESERVED_NAMES.contains(&new_name) {
        return Err(format!(
            "`{new_name}` is a Python keyword or a name TVMScript reserves"
        ));
    }
    // A name another definition of the same kind family already has would
    // merge two things into one (rust-analyzer refuses such renames too).
    // Blocks are checked among blocks, every other name among the rest.
    if let (Some(program), Target::Symbol(id, _)) = (analysis.program(), &target) {
        let clash = program
            .symbols
            .symbols
            .iter()
            .enumerate()
            .find(|(other, symbol)| {
                *other != id.0 as usize
                    && symbol.kind != SymbolKind::Builtin
                    && (symbol.kind == SymbolKind::Block) == is_block
                    && symbol.name == new_name
            });
        if let Some((_, symbol)) = clash {
            return Err(format!(
                "`{new_name}` is already the name of a {} in this file; choose another name",
                format!("{:?}", symbol.kind).to_lowercase()
            ));
        }
    }
    if is_block && new_name.contains(['"', '\'', '\\', '\n']) {
        return Err(format!("`{new_name}` is not a valid block name"));
    }
    let mut edits: Vec<TextEdit> = occurrences(analysis, &target)
        .into_iter()
        .filter_map(|span| editable_range(analysis, &target, span))
        .map(|range| TextEdit::new(range, new_name.to_string()))
        .collect();
    edits.sort_by_key(|e| (e.range.start.line, e.range.start.character));
    edits.dedup_by(|a, b| a.range == b.range);
    let mut changes = HashMap::new();
    changes.insert(uri.clone(), edits);
    Ok(Some(WorkspaceEdit::new(changes)))
}
