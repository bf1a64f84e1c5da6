//! Block names a schedule asks for: two blocks sharing a name are only a
//! warning (W0230) until a schedule section calls `sch.get_block` with that
//! name, which cannot tell them apart; that call is an error.

use super::codes;
use crate::diagnostics::Diagnostic;
use crate::frontend::Program;
use crate::ir::visit::walk_stmts;
use crate::ir::{PrimFunc, StmtKind};
use crate::source::Span;
use tirc_grammar::ast;

/// Reports `sch.get_block("name")` calls whose name several blocks share.
pub fn verify_schedule_block_names(program: &Program) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for schedule in &program.schedules {
        let mut calls = Vec::new();
        collect_get_block_calls(&schedule.def.body, &mut calls);
        for call in calls {
            let functions: Vec<&PrimFunc> = match &call.function {
                Some(name) => program.module.function(name).into_iter().collect(),
                None => match program.module.function("main") {
                    Some(main) => vec![main],
                    None => program.module.functions.iter().collect(),
                },
            };
            for function in functions {
                let spans = block_spans_named(function, &call.block);
                if spans.len() < 2 {
                    continue;
                }
                let mut diagnostic = Diagnostic::error(
                    codes::AMBIGUOUS_BLOCK_NAME,
                    format!(
                        "{} blocks of `{}` are named \"{}\", so the schedule cannot tell which one it asks for",
                        spans.len(),
                        function.name,
                        call.block
                    ),
                    Span::from_syntax(program.file, call.span),
                )
                .with_help("rename the blocks so each name is unique, then ask for the one you mean");
                for span in spans {
                    diagnostic = diagnostic.with_secondary(span, "a block with this name");
                }
                diagnostics.push(diagnostic);
            }
        }
    }
    diagnostics
}

struct GetBlockCall {
    block: String,
    function: Option<String>,
    span: ast::Span,
}

fn block_spans_named(function: &PrimFunc, name: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    walk_stmts(&function.body, &mut |stmt| {
        if let StmtKind::BlockRealize(realize) = stmt.kind() {
            if realize.block.name == name {
                spans.push(stmt.span());
            }
        }
    });
    spans
}

fn collect_get_block_calls(body: &[ast::Stmt], out: &mut Vec<GetBlockCall>) {
    for stmt in body {
        match &stmt.kind {
            ast::StmtKind::Assign { value, .. } | ast::StmtKind::AugAssign { value, .. } => {
                collect_in_expr(value, out)
            }
            ast::StmtKind::AnnAssign {
                value: Some(value), ..
            } => collect_in_expr(value, out),
            ast::StmtKind::Expr(expr) => collect_in_expr(expr, out),
            ast::StmtKind::For { body, .. } | ast::StmtKind::While { body, .. } => {
                collect_get_block_calls(body, out)
            }
            ast::StmtKind::If { body, orelse, .. } => {
                collect_get_block_calls(body, out);
                collect_get_block_calls(orelse, out);
            }
            ast::StmtKind::With { body, .. } => collect_get_block_calls(body, out),
            _ => {}
        }
    }
}

fn string_of(expr: &ast::Expr) -> Option<String> {
    match &expr.kind {
        ast::ExprKind::Str(text) => Some(text.clone()),
        _ => None,
    }
}

fn collect_in_expr(expr: &ast::Expr, out: &mut Vec<GetBlockCall>) {
    let ast::ExprKind::Call {
        func,
        args,
        keywords,
    } = &expr.kind
    else {
        return;
    };
    for arg in args {
        collect_in_expr(arg, out);
    }
    let ast::ExprKind::Attribute { attr, .. } = &func.kind else {
        return;
    };
    if attr.name != "get_block" && attr.name != "get_sblock" {
        return;
    }
    let keyword = |name: &str| keywords.iter().find(|k| k.name.name == name);
    let (block, span) = match (args.first(), keyword("name")) {
        (Some(first), _) => (string_of(first), first.span),
        (None, Some(k)) => (string_of(&k.value), k.value.span),
        (None, None) => (None, expr.span),
    };
    let function = args
        .get(1)
        .and_then(string_of)
        .or_else(|| keyword("func_name").and_then(|k| string_of(&k.value)));
    if let Some(block) = block {
        out.push(GetBlockCall {
            block,
            function,
            span,
        });
    }
}
