//! Statements: the dispatch over statement forms, bodies and sequences, and
//! expression statements (`T.reads`, `T.where`, `T.func_attr`, calls).

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::ir::{Expr, Stmt, StmtKind, Var};
use tirc_grammar::ast;

impl Lowerer {
    /// The builtin a call expression names (`T.grid` → `grid`), when it is one.
    pub(crate) fn called_builtin<'e>(
        &self,
        expr: &'e ast::Expr,
    ) -> Option<(String, &'e [ast::Expr], &'e [ast::Keyword])> {
        let ast::ExprKind::Call {
            func,
            args,
            keywords,
        } = &expr.kind
        else {
            return None;
        };
        let path = func.dotted_name()?;
        let head = path.split('.').next().unwrap_or("");
        if self.lookup(head).is_some() {
            return None;
        }
        let name = if path == "range" {
            "range"
        } else {
            super::builtin_name(&path)?
        };
        Some((name.to_string(), args.as_slice(), keywords.as_slice()))
    }

    /// Lowers a body (a list of statements) to one statement.
    pub(crate) fn lower_body(&mut self, stmts: &[ast::Stmt]) -> Stmt {
        self.push_scope();
        let result = self.lower_sequence(stmts);
        self.pop_scope();
        result
    }

    /// Lowers statements in the current scope; statements that scope over the
    /// rest of the body take it as their body.
    pub(crate) fn lower_sequence(&mut self, stmts: &[ast::Stmt]) -> Stmt {
        let mut out: Vec<Stmt> = Vec::new();
        let mut index = 0;
        while index < stmts.len() {
            let stmt = &stmts[index];
            index += 1;
            if let Some(scoping) = self.scoping_stmt(stmt) {
                let rest = self.lower_sequence(&stmts[index..]);
                out.push(scoping.wrap(rest, self.span(stmt.span)));
                break;
            }
            if let Some(lowered) = self.lower_stmt(stmt) {
                out.push(lowered);
            }
        }
        if out.is_empty() {
            return Stmt::no_op();
        }
        Stmt::seq(out)
    }

    /// Lowers one statement that does not scope over the rest.
    pub(crate) fn lower_stmt(&mut self, stmt: &ast::Stmt) -> Option<Stmt> {
        let span = self.span(stmt.span);
        match &stmt.kind {
            ast::StmtKind::Expr(expr) => self.lower_expr_stmt(expr),
            ast::StmtKind::Assign { target, value } => self.lower_assign(target, value),
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value: None,
            } => {
                let ast::ExprKind::Name(name) = &target.kind else {
                    self.error(
                        codes::BAD_ASSIGNMENT,
                        "only a name can be declared",
                        target.span,
                    );
                    return None;
                };
                match self.eval(annotation) {
                    Value::DType(dtype) => {
                        let var = Var::new(name.clone(), dtype, self.span(target.span));
                        self.bind(name, Value::Expr(var.to_expr()));
                    }
                    Value::Pointer(element, scope) => {
                        let var =
                            Var::pointer(name.clone(), element, &scope, self.span(target.span));
                        self.bind(name, Value::Expr(var.to_expr()));
                    }
                    other => {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            format!("expected a type annotation, found {}", other.describe()),
                            annotation.span,
                        );
                    }
                }
                None
            }
            ast::StmtKind::AugAssign { target, op, value } => {
                let current = self.eval(target);
                let rhs = self.eval(value);
                let updated = self.binary_op(*op, current, rhs, stmt.span);
                match &target.kind {
                    ast::ExprKind::Subscript { .. } => self.store(target, updated, stmt.span),
                    ast::ExprKind::Name(name) => {
                        if let Some(Value::Scalar(buffer)) = self.lookup(name).cloned() {
                            return Some(self.scalar_store(&buffer, updated, stmt.span));
                        }
                        self.bind(name, updated);
                        None
                    }
                    _ => {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            "cannot update this target",
                            target.span,
                        );
                        None
                    }
                }
            }
            ast::StmtKind::For { target, iter, body } => {
                self.lower_for(target, iter, body, stmt.span)
            }
            ast::StmtKind::While { test, body } => {
                let condition = self.eval_expr(test);
                let body = self.lower_body(body);
                Some(Stmt::new(StmtKind::While { condition, body }, span))
            }
            ast::StmtKind::If { test, body, orelse } => match self.eval(test) {
                Value::Bool(true) => Some(self.lower_body(body)),
                Value::Bool(false) => (!orelse.is_empty()).then(|| self.lower_body(orelse)),
                other => {
                    let condition = self.expr_of_value(other, test.span);
                    if !condition.dtype().is_bool() {
                        self.error(
                            codes::TYPE_MISMATCH,
                            format!(
                                "an `if` condition must be bool, found {}",
                                condition.dtype()
                            ),
                            test.span,
                        );
                    }
                    let then_case = self.lower_body(body);
                    let else_case = (!orelse.is_empty()).then(|| self.lower_body(orelse));
                    Some(Stmt::new(
                        StmtKind::IfThenElse {
                            condition,
                            then_case,
                            else_case,
                        },
                        span,
                    ))
                }
            },
            ast::StmtKind::With { items, body } => self.lower_with(items, body, stmt.span),
            ast::StmtKind::Return(value) => {
                let value = match value {
                    Some(v) => self.eval_expr(v),
                    None => Expr::i32(0),
                };
                let dtype = value.dtype();
                Some(Stmt::new(
                    StmtKind::Evaluate(Expr::call(crate::ir::Op::named("ret"), vec![value], dtype)),
                    span,
                ))
            }
            ast::StmtKind::Pass | ast::StmtKind::Error | ast::StmtKind::Import { .. } => None,
            ast::StmtKind::FunctionDef(_) | ast::StmtKind::ClassDef(_) => {
                self.error(
                    codes::UNSUPPORTED,
                    "nested definitions are not supported in a TIR function",
                    stmt.span,
                );
                None
            }
            ast::StmtKind::Assert { .. } | ast::StmtKind::AnnAssign { .. } => None,
        }
    }

    pub(crate) fn lower_expr_stmt(&mut self, expr: &ast::Expr) -> Option<Stmt> {
        let span = self.span(expr.span);
        if matches!(expr.kind, ast::ExprKind::Str(_)) {
            return None; // a docstring
        }
        if let Some((name, args, keywords)) = self.called_builtin(expr) {
            match name.as_str() {
                "reads" | "writes" => {
                    let regions = self.regions(args);
                    match self.blocks.last_mut() {
                        Some(block) => {
                            if name == "reads" {
                                block.reads = Some(regions);
                            } else {
                                block.writes = Some(regions);
                            }
                        }
                        None => {
                            self.error(
                                codes::MISPLACED,
                                format!("`T.{name}` is only allowed inside a block"),
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "where" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.where` takes one condition",
                            expr.span,
                        );
                        return None;
                    }
                    let predicate = self.eval_expr(&args[0]);
                    match self.blocks.last_mut() {
                        Some(block) => block.predicate = Some(predicate),
                        None => {
                            self.error(
                                codes::MISPLACED,
                                "`T.where` is only allowed inside a block",
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "block_attr" | "sblock_attr" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("`T.{name}` takes one dict"),
                            expr.span,
                        );
                        return None;
                    }
                    let value = self.eval(&args[0]);
                    let annotations = self.annotations_from(value, args[0].span);
                    match self.blocks.last_mut() {
                        Some(block) => block.annotations.extend(annotations),
                        None => {
                            self.error(
                                codes::MISPLACED,
                                format!("`T.{name}` is only allowed inside a block"),
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "func_attr" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.func_attr` takes one dict",
                            expr.span,
                        );
                        return None;
                    }
                    let value = self.eval(&args[0]);
                    let attrs = self.annotations_from(value, args[0].span);
                    match self.function.as_mut() {
                        Some(function) => {
                            for (key, value) in attrs {
                                function.attrs.retain(|(k, _)| *k != key);
                                function.attrs.push((key, value));
                            }
                        }
                        None => {
                            self.error(
                                codes::MISPLACED,
                                "`T.func_attr` is only allowed in a function",
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "evaluate" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.evaluate` takes one expression",
                            expr.span,
                        );
                        return None;
                    }
                    let value = self.eval_expr(&args[0]);
                    return Some(Stmt::new(StmtKind::Evaluate(value), span));
                }
                _ => {
                    let _ = keywords;
                }
            }
        }
        match self.eval(expr) {
            Value::Expr(value) => Some(Stmt::new(StmtKind::Evaluate(value), span)),
            Value::Poison => None,
            other => {
                self.error(
                    codes::UNSUPPORTED,
                    format!("{} on its own is not a statement", other.describe()),
                    expr.span,
                );
                None
            }
        }
    }
}
