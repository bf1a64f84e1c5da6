//! The blocks whose `T.reads`/`T.writes` are omitted, with the regions tirc
//! infers for them (as TVM does) and where the written form would go. Shared
//! by hover, inlay hints and the code action that inserts them.

use crate::analysis::Analysis;
use tirc::ir::{Block, BufferRegion};
use tirc::source::Span;
use tirc_grammar::ast;

/// A block with its signature as written.
#[derive(Clone, Debug)]
pub struct BlockSignature {
    /// The block name.
    pub name: String,
    /// The `with T.block(...)` statement.
    pub span: Span,
    /// True when `T.reads` is written.
    pub reads_written: bool,
    /// True when `T.writes` is written.
    pub writes_written: bool,
    /// The inferred (or declared) reads, as text: `A[vi, vk]`.
    pub reads: Vec<String>,
    /// The inferred (or declared) writes, as text.
    pub writes: Vec<String>,
    /// Byte offset of the start of the line where `T.reads` would be inserted.
    pub insert_at: usize,
    /// The indentation of the block's body.
    pub indent: String,
}

impl BlockSignature {
    /// `T.reads(...)` as it would be written.
    pub fn reads_line(&self) -> String {
        format!("T.reads({})", self.reads.join(", "))
    }

    /// `T.writes(...)` as it would be written.
    pub fn writes_line(&self) -> String {
        format!("T.writes({})", self.writes.join(", "))
    }
}

/// A region as TVMScript writes it, with unit ranges as points.
pub fn region_text(region: &BufferRegion) -> String {
    if region.region.is_empty() {
        return format!("{}[()]", region.buffer.name());
    }
    let parts: Vec<String> = region
        .region
        .iter()
        .map(|range| {
            if range.extent.is_int(1) {
                tirc::printer::expr_to_string(&range.min)
            } else {
                let stop = tirc::ir::operators::add(range.min.clone(), range.extent.clone())
                    .unwrap_or_else(|_| range.extent.clone());
                format!(
                    "{}:{}",
                    tirc::printer::expr_to_string(&range.min),
                    tirc::printer::expr_to_string(&stop)
                )
            }
        })
        .collect();
    format!("{}[{}]", region.buffer.name(), parts.join(", "))
}

/// The builtin a statement calls (`reads` for `T.reads(...)`), when it is a call statement.
fn called(stmt: &ast::Stmt) -> Option<String> {
    let expr = match &stmt.kind {
        ast::StmtKind::Expr(expr) => expr,
        ast::StmtKind::Assign { value, .. } => value,
        _ => return None,
    };
    let ast::ExprKind::Call { func, .. } = &expr.kind else {
        return None;
    };
    let path = func.dotted_name()?;
    Some(
        path.rsplit_once('.')
            .map(|(_, last)| last.to_string())
            .unwrap_or(path),
    )
}

fn find_with<'a>(stmts: &'a [ast::Stmt], span: Span, found: &mut Option<&'a ast::Stmt>) {
    for stmt in stmts {
        if stmt.span.start > span.start || stmt.span.end < span.start {
            continue;
        }
        if stmt.span.start == span.start && matches!(stmt.kind, ast::StmtKind::With { .. }) {
            *found = Some(stmt);
            return;
        }
        match &stmt.kind {
            ast::StmtKind::FunctionDef(def) => find_with(&def.body, span, found),
            ast::StmtKind::ClassDef(class) => find_with(&class.body, span, found),
            ast::StmtKind::For { body, .. }
            | ast::StmtKind::While { body, .. }
            | ast::StmtKind::With { body, .. } => find_with(body, span, found),
            ast::StmtKind::If { body, orelse, .. } => {
                find_with(body, span, found);
                if found.is_none() {
                    find_with(orelse, span, found);
                }
            }
            _ => {}
        }
        if found.is_some() {
            return;
        }
    }
}

fn signature(analysis: &Analysis, block: &Block, span: Span) -> Option<BlockSignature> {
    let file = &analysis.syntax().file;
    let mut found = None;
    find_with(&file.body, span, &mut found);
    let ast::StmtKind::With { body, .. } = &found?.kind else {
        return None;
    };
    let calls: Vec<Option<String>> = body.iter().map(called).collect();
    let reads_written = calls.iter().any(|c| c.as_deref() == Some("reads"));
    let writes_written = calls.iter().any(|c| c.as_deref() == Some("writes"));
    // TVM's order: iteration variables and the predicate come before the regions.
    let insert_before = body
        .iter()
        .zip(&calls)
        .find(|(_, call)| {
            !matches!(
                call.as_deref(),
                Some("spatial" | "reduce" | "scan" | "opaque" | "remap" | "S" | "R" | "where")
            )
        })
        .map(|(stmt, _)| stmt)
        .or(body.first())?;
    let text = analysis.text.as_str();
    let start = (insert_before.span.start as usize).min(text.len());
    let line_start = text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let indent: String = text[line_start..start]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    Some(BlockSignature {
        name: block.name.clone(),
        span,
        reads_written,
        writes_written,
        reads: block.reads.iter().map(region_text).collect(),
        writes: block.writes.iter().map(region_text).collect(),
        insert_at: line_start,
        indent,
    })
}

/// Every block of the document with its signature as written.
pub fn block_signatures(analysis: &Analysis) -> Vec<BlockSignature> {
    let Some(program) = analysis.program() else {
        return Vec::new();
    };
    crate::program_tree::blocks(program)
        .into_iter()
        .filter(|(block, _)| block.name != "root" || !block.iter_vars.is_empty())
        .filter_map(|(block, span)| signature(analysis, block, span))
        .collect()
}
