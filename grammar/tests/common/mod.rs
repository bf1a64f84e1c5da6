//! Helpers shared by the grammar's integration tests: a compact S-expression view of the tree and error positions.

#![allow(dead_code)]

use tirc_grammar::ast::{Expr, ExprKind, Stmt, StmtKind, UnaryOp};
use tirc_grammar::parse_file;

/// The tree of an expression as an S-expression, such as `(+ 1 (* 2 3))`.
pub fn expr_sexpr(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Name(name) => name.clone(),
        ExprKind::Int(value) => value.to_string(),
        ExprKind::Float(value) => format!("{value:?}"),
        ExprKind::Str(value) => format!("{value:?}"),
        ExprKind::Bool(value) => if *value { "True" } else { "False" }.to_string(),
        ExprKind::None => "None".to_string(),
        ExprKind::Attribute { value, attr } => format!("(. {} {})", expr_sexpr(value), attr.name),
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            let mut parts = vec!["call".to_string(), expr_sexpr(func)];
            parts.extend(args.iter().map(expr_sexpr));
            parts.extend(
                keywords
                    .iter()
                    .map(|keyword| format!("{}={}", keyword.name.name, expr_sexpr(&keyword.value))),
            );
            format!("({})", parts.join(" "))
        }
        ExprKind::Subscript { value, indices } => {
            let mut parts = vec!["sub".to_string(), expr_sexpr(value)];
            parts.extend(indices.iter().map(expr_sexpr));
            format!("({})", parts.join(" "))
        }
        ExprKind::Slice { lower, upper, step } => {
            let part =
                |value: &Option<Box<Expr>>| value.as_deref().map_or("_".to_string(), expr_sexpr);
            format!("(slice {} {} {})", part(lower), part(upper), part(step))
        }
        ExprKind::BinOp { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), expr_sexpr(lhs), expr_sexpr(rhs))
        }
        ExprKind::UnaryOp { op, operand } => {
            let symbol = match op {
                UnaryOp::Neg => "neg",
                UnaryOp::Pos => "pos",
                UnaryOp::Not => "not",
                UnaryOp::Invert => "~",
            };
            format!("({symbol} {})", expr_sexpr(operand))
        }
        ExprKind::BoolOp { op, lhs, rhs } => {
            let symbol = match op {
                tirc_grammar::ast::BoolOp::And => "and",
                tirc_grammar::ast::BoolOp::Or => "or",
            };
            format!("({symbol} {} {})", expr_sexpr(lhs), expr_sexpr(rhs))
        }
        ExprKind::Compare { left, rest } => {
            let mut parts = vec!["cmp".to_string(), expr_sexpr(left)];
            for (op, operand) in rest {
                parts.push(op.symbol().to_string());
                parts.push(expr_sexpr(operand));
            }
            format!("({})", parts.join(" "))
        }
        ExprKind::IfExp { test, body, orelse } => {
            format!(
                "(if {} {} {})",
                expr_sexpr(test),
                expr_sexpr(body),
                expr_sexpr(orelse)
            )
        }
        ExprKind::Tuple(items) => list_sexpr("tuple", items),
        ExprKind::List(items) => list_sexpr("list", items),
        ExprKind::Dict(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|(key, value)| format!("{}:{}", expr_sexpr(key), expr_sexpr(value)))
                .collect();
            format!(
                "(dict{}{})",
                if parts.is_empty() { "" } else { " " },
                parts.join(" ")
            )
        }
        ExprKind::Lambda { params, body } => {
            let names: Vec<&str> = params.iter().map(|param| param.name.as_str()).collect();
            format!("(lambda ({}) {})", names.join(" "), expr_sexpr(body))
        }
        ExprKind::Starred(value) => format!("(* {})", expr_sexpr(value)),
        ExprKind::Error => "error".to_string(),
    }
}

/// `(tag item item ...)`.
fn list_sexpr(tag: &str, items: &[Expr]) -> String {
    let mut parts = vec![tag.to_string()];
    parts.extend(items.iter().map(expr_sexpr));
    format!("({})", parts.join(" "))
}

/// A block as `{a; b}`.
fn body_sexpr(body: &[Stmt]) -> String {
    let parts: Vec<String> = body.iter().map(stmt_sexpr).collect();
    format!("{{{}}}", parts.join("; "))
}

/// The tree of a statement as an S-expression, such as `(for i (call range 4) {pass})`.
pub fn stmt_sexpr(stmt: &Stmt) -> String {
    match &stmt.kind {
        StmtKind::FunctionDef(function) => {
            let mut parts = vec!["def".to_string()];
            parts.extend(
                function
                    .decorators
                    .iter()
                    .map(|decorator| format!("@{}", expr_sexpr(decorator))),
            );
            parts.push(function.name.name.clone());
            let params: Vec<String> = function
                .params
                .iter()
                .map(|param| {
                    let mut text = param.name.name.clone();
                    if let Some(annotation) = &param.annotation {
                        text.push(':');
                        text.push_str(&expr_sexpr(annotation));
                    }
                    if let Some(default) = &param.default {
                        text.push('=');
                        text.push_str(&expr_sexpr(default));
                    }
                    text
                })
                .collect();
            parts.push(format!("({})", params.join(" ")));
            if let Some(returns) = &function.returns {
                parts.push(format!("-> {}", expr_sexpr(returns)));
            }
            parts.push(body_sexpr(&function.body));
            format!("({})", parts.join(" "))
        }
        StmtKind::ClassDef(class) => {
            let mut parts = vec!["class".to_string()];
            parts.extend(
                class
                    .decorators
                    .iter()
                    .map(|decorator| format!("@{}", expr_sexpr(decorator))),
            );
            parts.push(class.name.name.clone());
            parts.push(list_sexpr("bases", &class.bases));
            parts.push(body_sexpr(&class.body));
            format!("({})", parts.join(" "))
        }
        StmtKind::Assign { target, value } => {
            format!("(= {} {})", expr_sexpr(target), expr_sexpr(value))
        }
        StmtKind::AnnAssign {
            target,
            annotation,
            value,
        } => match value {
            Some(value) => format!(
                "(: {} {} {})",
                expr_sexpr(target),
                expr_sexpr(annotation),
                expr_sexpr(value)
            ),
            None => format!("(: {} {})", expr_sexpr(target), expr_sexpr(annotation)),
        },
        StmtKind::AugAssign { target, op, value } => {
            format!(
                "({}= {} {})",
                op.symbol(),
                expr_sexpr(target),
                expr_sexpr(value)
            )
        }
        StmtKind::Expr(value) => expr_sexpr(value),
        StmtKind::For { target, iter, body } => {
            format!(
                "(for {} {} {})",
                expr_sexpr(target),
                expr_sexpr(iter),
                body_sexpr(body)
            )
        }
        StmtKind::While { test, body } => {
            format!("(while {} {})", expr_sexpr(test), body_sexpr(body))
        }
        StmtKind::If { test, body, orelse } => {
            format!(
                "(if {} {} {})",
                expr_sexpr(test),
                body_sexpr(body),
                body_sexpr(orelse)
            )
        }
        StmtKind::With { items, body } => {
            let items: Vec<String> = items
                .iter()
                .map(|item| match &item.target {
                    Some(target) => {
                        format!("{} as {}", expr_sexpr(&item.context), expr_sexpr(target))
                    }
                    None => expr_sexpr(&item.context),
                })
                .collect();
            format!("(with {} {})", items.join(", "), body_sexpr(body))
        }
        StmtKind::Return(value) => match value {
            Some(value) => format!("(return {})", expr_sexpr(value)),
            None => "(return)".to_string(),
        },
        StmtKind::Pass => "pass".to_string(),
        StmtKind::Assert { test, msg } => match msg {
            Some(msg) => format!("(assert {} {})", expr_sexpr(test), expr_sexpr(msg)),
            None => format!("(assert {})", expr_sexpr(test)),
        },
        StmtKind::Import { from, names } => {
            let names: Vec<String> = names
                .iter()
                .map(|(name, alias)| match alias {
                    Some(alias) => format!("{name} as {alias}"),
                    None => name.clone(),
                })
                .collect();
            match from {
                Some(module) => format!("(from {module} import {})", names.join(", ")),
                None => format!("(import {})", names.join(", ")),
            }
        }
        StmtKind::Error => "error".to_string(),
    }
}

/// Parses `source`, asserts it has no errors, and returns its statements as S-expressions.
pub fn parse_ok(source: &str) -> Vec<String> {
    let parsed = parse_file(source);
    assert!(
        parsed.errors.is_empty(),
        "unexpected errors for {source:?}: {:?}",
        errors_of(source)
    );
    parsed.file.body.iter().map(stmt_sexpr).collect()
}

/// Parses `source` as one expression statement and returns its S-expression.
pub fn parse_expr(source: &str) -> String {
    let statements = parse_ok(source);
    assert_eq!(statements.len(), 1, "expected one statement in {source:?}");
    statements[0].clone()
}

/// One-based line and column (in characters) of a byte offset in `source`.
pub fn line_and_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The errors of `source` as `line:column: message` strings, in order.
pub fn errors_of(source: &str) -> Vec<String> {
    parse_file(source)
        .errors
        .iter()
        .map(|error| {
            let (line, column) = line_and_column(source, error.span.start as usize);
            format!("{line}:{column}: {}", error.message)
        })
        .collect()
}
