//! Hover: what a variable, buffer, block, function, builtin, schedule
//! primitive or schedule handle is, in a few lines of Markdown.

use crate::analysis::Analysis;
use crate::catalog;
use crate::navigation::{target_at, Target};
use crate::program_tree::{role_of, VarRole};
use tirc::frontend::symbols::{SymbolKind, SymbolTarget};
use tirc::ir::{Buffer, ForKind, IterKind, Var};
use tirc::printer::expr_to_string;
use tower_lsp::lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

fn code(text: &str) -> String {
    format!("```python\n{text}\n```")
}

fn iter_kind(kind: IterKind) -> &'static str {
    match kind {
        IterKind::Spatial => "spatial",
        IterKind::Reduce => "reduce",
        IterKind::Scan => "scan",
        IterKind::Opaque => "opaque",
    }
}

fn describe_var(analysis: &Analysis, var: &Var) -> String {
    let dtype = var.dtype();
    let name = var.name();
    let Some(program) = analysis.program() else {
        return code(&format!("{name}: {dtype}"));
    };
    match role_of(program, var) {
        Some(VarRole::Loop(for_loop)) => {
            let min = expr_to_string(&for_loop.min);
            let extent = expr_to_string(&for_loop.extent);
            let range = if for_loop.min.is_int(0) {
                format!("range({extent})")
            } else {
                format!("range({min}, {min} + {extent})")
            };
            let kind = match (for_loop.kind, &for_loop.thread) {
                (ForKind::ThreadBinding, Some(tag)) => format!("thread-bound to {tag}"),
                (kind, _) => kind.script_name().to_string(),
            };
            format!(
                "{}\nloop variable, {kind} loop over {range}",
                code(&format!("{name}: {dtype}"))
            )
        }
        Some(VarRole::IterVar(iter_var, realize, index)) => {
            let min = expr_to_string(&iter_var.dom.min);
            let extent = expr_to_string(&iter_var.dom.extent);
            let domain = if iter_var.dom.min.is_int(0) {
                format!("[0, {extent})")
            } else {
                format!("[{min}, {min} + {extent})")
            };
            let binding = realize
                .iter_values
                .get(index)
                .map(expr_to_string)
                .unwrap_or_default();
            format!(
                "{}\nblock iteration variable of block \"{}\": {} over {domain}, bound to `{binding}`",
                code(&format!("{name}: {dtype}")),
                realize.block.name,
                iter_kind(iter_var.kind)
            )
        }
        Some(VarRole::Param(function)) => format!(
            "{}\nscalar parameter of `{}`",
            code(&format!("{name}: {dtype}")),
            function.name
        ),
        Some(VarRole::ShapeVar(buffer)) => format!(
            "{}\nsymbolic shape variable (in the shape of `{buffer}`)",
            code(&format!("{name}: {dtype}"))
        ),
        Some(VarRole::Let(value)) => format!(
            "{}\nlet binding",
            code(&format!("{name}: {dtype} = {}", expr_to_string(value)))
        ),
        None => code(&format!("{name}: {dtype}")),
    }
}

fn describe_buffer(analysis: &Analysis, buffer: &Buffer, definition: tirc::source::Span) -> String {
    let shape: Vec<String> = buffer.shape().iter().map(expr_to_string).collect();
    let shape = if shape.len() == 1 {
        format!("({},)", shape[0])
    } else {
        format!("({})", shape.join(", "))
    };
    let mut text = code(&format!(
        "{}: T.Buffer({shape}, \"{}\")",
        buffer.name(),
        buffer.dtype()
    ));
    text.push_str(&format!("\nbuffer, scope `{}`", buffer.scope()));
    if definition.is_known() {
        let line = analysis
            .line_index
            .position(&analysis.text, definition.start as usize)
            .line;
        let line_text = analysis
            .text
            .lines()
            .nth(line as usize)
            .unwrap_or_default()
            .trim();
        text.push_str(&format!(", declared on line {}: `{line_text}`", line + 1));
    }
    text
}

fn describe_block(analysis: &Analysis, name: &str, definition: tirc::source::Span) -> String {
    let mut text = code(&format!("T.block(\"{name}\")"));
    let Some(program) = analysis.program() else {
        return text;
    };
    let Some(block) = crate::program_tree::block_named_at(program, definition) else {
        return text;
    };
    if !block.iter_vars.is_empty() {
        let vars: Vec<String> = block
            .iter_vars
            .iter()
            .map(|iv| {
                format!(
                    "`{}` {} {}",
                    iv.var.name(),
                    iter_kind(iv.kind),
                    expr_to_string(&iv.dom.extent)
                )
            })
            .collect();
        text.push_str(&format!("\n\niteration variables: {}", vars.join(", ")));
    }
    let signature = crate::inferred_regions::block_signatures(analysis)
        .into_iter()
        .find(|s| {
            s.span.start <= definition.start && definition.end <= s.span.end && s.name == name
        });
    let (reads_inferred, writes_inferred) = signature
        .map(|s| (!s.reads_written, !s.writes_written))
        .unwrap_or((false, false));
    let regions = |regions: &[tirc::ir::BufferRegion]| {
        regions
            .iter()
            .map(crate::inferred_regions::region_text)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let marker = |inferred: bool| if inferred { " (inferred)" } else { "" };
    text.push_str(&format!(
        "\n\nreads{}: `{}`\n\nwrites{}: `{}`",
        marker(reads_inferred),
        regions(&block.reads),
        marker(writes_inferred),
        regions(&block.writes)
    ));
    text
}

fn describe_function(analysis: &Analysis, name: &str) -> String {
    let Some(function) = analysis
        .program()
        .and_then(|p| p.module.functions.iter().find(|f| f.name == name))
    else {
        return code(&format!("def {name}(...)"));
    };
    let params: Vec<String> = function
        .params
        .iter()
        .map(|param| match function.buffer_of(param) {
            Some(buffer) => {
                let shape: Vec<String> = buffer.shape().iter().map(expr_to_string).collect();
                format!(
                    "{}: T.Buffer(({}), \"{}\")",
                    param.name(),
                    shape.join(", "),
                    buffer.dtype()
                )
            }
            None => format!("{}: {}", param.name(), param.dtype()),
        })
        .collect();
    format!(
        "{}\n`@T.prim_func`",
        code(&format!("def {name}({})", params.join(", ")))
    )
}

fn describe_entry(entry: &catalog::Entry, prefix: &str) -> String {
    format!("{}\n\n{}", code(&entry.signature(prefix)), entry.doc)
}

/// The hover at `position`.
pub fn hover(analysis: &Analysis, position: Position) -> Option<Hover> {
    let offset = analysis.offset(position);
    let target = target_at(analysis, offset)?;
    let (markdown, span) = match &target {
        Target::Symbol(id, span) => {
            let program = analysis.program()?;
            let symbol = program.symbols.symbol(*id)?;
            let text = match (&symbol.kind, &symbol.target) {
                (SymbolKind::Variable, SymbolTarget::Var(var)) => describe_var(analysis, var),
                (SymbolKind::Buffer, SymbolTarget::Buffer(buffer)) => {
                    describe_buffer(analysis, buffer, symbol.definition)
                }
                (SymbolKind::Block, _) => describe_block(analysis, &symbol.name, symbol.definition),
                (SymbolKind::Function, _) => describe_function(analysis, &symbol.name),
                (SymbolKind::Builtin, _) => match catalog::builtin(&symbol.name) {
                    Some(entry) => describe_entry(&entry, "T"),
                    None => code(&format!("T.{}", symbol.name)),
                },
                _ => return None,
            };
            (text, *span)
        }
        Target::Primitive(name, span) => {
            let entry = catalog::primitive(name)?;
            (describe_entry(&entry, "sch"), *span)
        }
        Target::Handle {
            script,
            handle,
            span,
        } => {
            let script = analysis.schedule_scripts().get(*script)?;
            let handle = script.handles.get(*handle)?;
            let step = script.steps.get(handle.step);
            let line = step
                .and_then(|s| analysis.text.get(s.span.range()))
                .unwrap_or_default();
            (
                format!(
                    "{}\nschedule handle: {} (assigned at step {}: `{}`)",
                    code(&handle.name),
                    handle.denotes.describe(),
                    handle.step + 1,
                    line.trim()
                ),
                *span,
            )
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(analysis.range(span)),
    })
}

/// `position` of `current` at the same line of `earlier`'s text: the nearest
/// line with the same content (edits above it move it), same column.
pub fn same_line_in(
    current: &Analysis,
    earlier: &Analysis,
    position: Position,
) -> Option<Position> {
    let line = current.text.lines().nth(position.line as usize)?;
    let lines: Vec<&str> = earlier.text.lines().collect();
    let wanted = position.line as usize;
    let found = (0..lines.len())
        .filter(|&index| lines[index] == line)
        .min_by_key(|&index| index.abs_diff(wanted))?;
    Some(Position::new(found as u32, position.character))
}
