//! Loops: `for` over `range`, `T.grid` and the loop kinds (`T.serial`,
//! `T.parallel`, `T.vectorized`, `T.unroll`, `T.thread_binding`).

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::operators;
use crate::ir::{Annotations, Expr, For, ForKind, NodeId, Range, Stmt, StmtKind, Var};
use tirc_grammar::ast;

/// The loop kinds of `for` headers.
fn loop_kind(name: &str) -> Option<ForKind> {
    Some(match name {
        "serial" => ForKind::Serial,
        "parallel" => ForKind::Parallel,
        "vectorized" => ForKind::Vectorized,
        "unroll" => ForKind::Unrolled,
        "thread_binding" => ForKind::ThreadBinding,
        _ => return None,
    })
}

impl Lowerer {
    pub(crate) fn lower_for(
        &mut self,
        target: &ast::Expr,
        iter: &ast::Expr,
        body: &[ast::Stmt],
        span: ast::Span,
    ) -> Option<Stmt> {
        let Some((name, args, keywords)) = self.called_builtin(iter) else {
            self.error(codes::BAD_LOOP, "a loop must iterate over `range(...)`, `T.grid(...)` or a loop kind such as `T.serial(...)`", iter.span);
            self.poison_loop_targets(target);
            return None;
        };
        let targets = super::target_names(target);
        // Each loop: (min, extent, kind, thread, annotations).
        let mut loops: Vec<(Expr, Expr, ForKind, Option<String>, Annotations)> = Vec::new();
        if name == "grid" {
            if !keywords.is_empty() {
                self.error(
                    codes::BAD_ARGUMENTS,
                    "`T.grid` takes extents only",
                    iter.span,
                );
            }
            for arg in args {
                let extent = self.eval_expr(arg);
                loops.push((
                    Expr::zero(extent.dtype()),
                    extent,
                    ForKind::Serial,
                    None,
                    Vec::new(),
                ));
            }
        } else {
            let kind = if name == "range" {
                ForKind::Serial
            } else if let Some(kind) = loop_kind(&name) {
                kind
            } else {
                let iterators = [
                    "grid",
                    "serial",
                    "parallel",
                    "vectorized",
                    "unroll",
                    "thread_binding",
                ];
                let mut diagnostic = Diagnostic::error(
                    codes::BAD_LOOP,
                    format!("`T.{name}` is not a loop iterator"),
                    self.span(iter.span),
                );
                if let Some(s) = super::suggest(&name, iterators) {
                    diagnostic = diagnostic.with_help(format!("did you mean `T.{s}`?"));
                }
                self.report(diagnostic);
                self.poison_loop_targets(target);
                return None;
            };
            let (min, extent) = match args {
                [extent] => {
                    let extent = self.eval_expr(extent);
                    (Expr::zero(extent.dtype()), extent)
                }
                [start, stop] | [start, stop, _] => {
                    if let Some(step) = args.get(2) {
                        if !matches!(self.eval(step), Value::Int(1)) {
                            self.error(
                                codes::UNSUPPORTED,
                                "loops with a step other than 1 are not supported",
                                step.span,
                            );
                        }
                    }
                    let start = self.eval_expr(start);
                    let stop = self.eval_expr(stop);
                    match operators::match_types(start, stop) {
                        Ok((start, stop)) => match operators::sub(stop, start.clone()) {
                            Ok(extent) => (start, extent),
                            Err(e) => {
                                self.apply(Err(e), iter.span);
                                return None;
                            }
                        },
                        Err(e) => {
                            self.apply(Err(e), iter.span);
                            return None;
                        }
                    }
                }
                _ => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        format!("`{name}` takes an extent, or a start and a stop"),
                        iter.span,
                    );
                    return None;
                }
            };
            let mut thread = None;
            let mut annotations = Vec::new();
            for keyword in keywords {
                match keyword.name.name.as_str() {
                    "thread" if kind == ForKind::ThreadBinding => {
                        let tag = self.eval_string(&keyword.value, "thread");
                        thread = Some(tag);
                    }
                    "annotations" => {
                        let value = self.eval(&keyword.value);
                        annotations = self.annotations_from(value, keyword.value.span);
                    }
                    other => {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("unknown argument `{other}` of `{name}`"),
                            keyword.name.span,
                        );
                    }
                }
            }
            if kind == ForKind::ThreadBinding && thread.is_none() {
                self.error(
                    codes::BAD_ARGUMENTS,
                    "`T.thread_binding` needs `thread=\"...\"`",
                    iter.span,
                );
                thread = Some("threadIdx.x".to_string());
            }
            loops.push((min, extent, kind, thread, annotations));
        }
        if targets.len() != loops.len() {
            self.error(
                codes::BAD_LOOP,
                format!(
                    "{} loop variable(s) for {} loop(s)",
                    targets.len(),
                    loops.len()
                ),
                target.span,
            );
            return None;
        }
        self.push_scope();
        let mut vars = Vec::new();
        for ((name, var_span), (min, extent, ..)) in targets.iter().zip(&loops) {
            let var = Var::new(name.as_str(), extent.dtype(), self.span(*var_span));
            self.bind(name, Value::Expr(var.to_expr()));
            self.loops
                .push((var.clone(), Range::new(min.clone(), extent.clone())));
            vars.push(var);
        }
        let mut body = self.lower_body(body);
        self.loops.truncate(self.loops.len() - vars.len());
        self.pop_scope();
        for (var, (min, extent, kind, thread, annotations)) in vars.into_iter().zip(loops).rev() {
            let min = operators::cast(var.dtype(), min);
            body = Stmt::new(
                StmtKind::For(For {
                    id: NodeId::fresh(),
                    loop_var: var,
                    min,
                    extent,
                    kind,
                    thread,
                    annotations,
                    body,
                }),
                self.span(span),
            );
        }
        Some(body)
    }
}
