//! `simplify`: expressions are simplified with the arithmetic analyzer,
//! knowing the range of every enclosing loop and the conditions of enclosing
//! `if`s (TVM's `StmtSimplify`, plus the unit-loop removal of
//! `LowerOpaqueBlock`).
//!
//! Beyond rewriting expressions it removes what provably does nothing: an
//! `if` whose condition is decided, a loop of extent one (its variable
//! replaced by the loop's start) or of no iterations, an assertion that
//! holds, `T.evaluate` of a constant, and a loop, allocation or declaration
//! whose body became empty. Loops with annotations and thread-bound loops
//! are kept whatever their extent.

use super::LowerOptions;
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, substitute_stmt, Mutator};
use crate::ir::{
    AttrNode, AttrStmt, BufferLoad, BufferStore, Expr, ExprKind, For, ForKind, PrimFunc, Range,
    Stmt, StmtKind,
};

/// Simplifies every expression and statement of `func`.
pub fn simplify(func: &PrimFunc, _options: &LowerOptions) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut analyzer = Analyzer::new();
    let body = simplify_stmt(&mut analyzer, &func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// `expr` simplified: the indices of its loads first, then the whole.
pub fn simplify_expr(analyzer: &Analyzer, expr: &Expr) -> Expr {
    let with_simple_indices = IndexSimplifier { analyzer }.mutate_expr(expr);
    if !simplifiable(&with_simple_indices) {
        return with_simple_indices;
    }
    analyzer.simplify(&with_simple_indices)
}

/// True for expressions the analyzer may rewrite: not strings or handles.
fn simplifiable(expr: &Expr) -> bool {
    let dtype = expr.dtype();
    !dtype.is_handle() && !dtype.is_void() && !matches!(expr.kind(), ExprKind::Str(_))
}

/// Simplifies the indices of every load in an expression, and the
/// arguments of calls the analyzer cannot rewrite whole (a `void` wmma
/// call's tile index, a `T.tvm_access_ptr`'s offset).
pub(crate) struct IndexSimplifier<'a> {
    /// The analyzer the indices are simplified with.
    pub analyzer: &'a Analyzer,
}

impl Mutator for IndexSimplifier<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rebuilt = mutate_expr_children(self, expr);
        if let ExprKind::Call { op, args } = rebuilt.kind() {
            if !simplifiable(&rebuilt) {
                let args = args
                    .iter()
                    .map(|arg| match simplifiable(arg) {
                        true => self.analyzer.simplify(arg),
                        false => arg.clone(),
                    })
                    .collect();
                return Expr::new(
                    ExprKind::Call { op: *op, args },
                    rebuilt.dtype(),
                    rebuilt.span(),
                );
            }
        }
        if let ExprKind::Load(load) = rebuilt.kind() {
            let indices: Vec<Expr> = load
                .indices
                .iter()
                .map(|index| self.analyzer.simplify(index))
                .collect();
            return Expr::new(
                ExprKind::Load(BufferLoad {
                    buffer: load.buffer.clone(),
                    indices,
                }),
                rebuilt.dtype(),
                rebuilt.span(),
            );
        }
        rebuilt
    }
}

/// Simplifies the expressions of statements this file has no rule for.
struct ChildSimplifier<'a> {
    analyzer: &'a mut Analyzer,
}

impl Mutator for ChildSimplifier<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        simplify_expr(self.analyzer, expr)
    }
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        simplify_stmt(self.analyzer, stmt)
    }
}

fn is_no_op(stmt: &Stmt) -> bool {
    stmt.is_no_op()
}

/// True when a loop may be replaced by its body at its first value.
fn removable_unit_loop(for_loop: &For) -> bool {
    for_loop.extent.as_int() == Some(1)
        && for_loop.annotations.is_empty()
        && for_loop.kind != ForKind::ThreadBinding
}

/// Simplifies a statement under what `analyzer` knows.
pub fn simplify_stmt(analyzer: &mut Analyzer, stmt: &Stmt) -> Stmt {
    match stmt.kind() {
        StmtKind::For(for_loop) => {
            let min = simplify_expr(analyzer, &for_loop.min);
            let extent = simplify_expr(analyzer, &for_loop.extent);
            let empty =
                extent.as_int().is_some_and(|e| e <= 0) && for_loop.kind != ForKind::ThreadBinding;
            if empty {
                return Stmt::no_op();
            }
            let simplified = For {
                min: min.clone(),
                extent: extent.clone(),
                ..for_loop.clone()
            };
            if removable_unit_loop(&simplified) {
                let map = VarMap::from_iter([(for_loop.loop_var.clone(), min)]);
                let body = substitute_stmt(&for_loop.body, &map);
                return simplify_stmt(analyzer, &body);
            }
            analyzer.bind(&for_loop.loop_var, &Range::new(min, extent));
            let body = simplify_stmt(analyzer, &for_loop.body);
            if is_no_op(&body) && for_loop.kind != ForKind::ThreadBinding {
                return Stmt::no_op();
            }
            stmt.with_kind(StmtKind::For(For { body, ..simplified }))
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } => {
            let condition = simplify_expr(analyzer, condition);
            if let Some(value) = condition.as_int() {
                return if value != 0 {
                    simplify_stmt(analyzer, then_case)
                } else {
                    match else_case {
                        Some(else_case) => simplify_stmt(analyzer, else_case),
                        None => Stmt::no_op(),
                    }
                };
            }
            let then_case =
                analyzer.with_constraint(&condition, |inner| simplify_stmt(inner, then_case));
            let else_case = else_case.as_ref().map(|else_case| {
                match crate::ir::operators::logical_not(condition.clone()) {
                    Ok(negated) => {
                        analyzer.with_constraint(&negated, |inner| simplify_stmt(inner, else_case))
                    }
                    Err(_) => simplify_stmt(analyzer, else_case),
                }
            });
            let else_case = else_case.filter(|s| !is_no_op(s));
            if is_no_op(&then_case) {
                return match else_case {
                    None => Stmt::no_op(),
                    Some(else_case) => match crate::ir::operators::logical_not(condition.clone()) {
                        Ok(negated) => stmt.with_kind(StmtKind::IfThenElse {
                            condition: negated,
                            then_case: else_case,
                            else_case: None,
                        }),
                        Err(_) => stmt.with_kind(StmtKind::IfThenElse {
                            condition,
                            then_case,
                            else_case: Some(else_case),
                        }),
                    },
                };
            }
            stmt.with_kind(StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            })
        }
        StmtKind::LetStmt { var, value, body } => {
            let value = simplify_expr(analyzer, value);
            if value.dtype().is_integer() && value.dtype().is_scalar() {
                // The analyzer learns the bounds of the value without
                // substituting it, so uses keep the variable.
                let bound = analyzer.const_int_bound(&value);
                if bound.has_finite_min() && bound.has_finite_max() && bound.min < bound.max {
                    if let Some(extent) = (bound.max - bound.min).checked_add(1) {
                        let dtype = value.dtype();
                        analyzer.bind(
                            var,
                            &Range::new(Expr::int(bound.min, dtype), Expr::int(extent, dtype)),
                        );
                    }
                }
            }
            let body = simplify_stmt(analyzer, body);
            stmt.with_kind(StmtKind::LetStmt {
                var: var.clone(),
                value,
                body,
            })
        }
        StmtKind::BufferStore(store) => {
            let value = simplify_expr(analyzer, &store.value);
            let indices = store
                .indices
                .iter()
                .map(|index| analyzer.simplify(index))
                .collect();
            stmt.with_kind(StmtKind::BufferStore(BufferStore {
                buffer: store.buffer.clone(),
                value,
                indices,
            }))
        }
        StmtKind::Seq(stmts) => {
            let kept: Vec<Stmt> = stmts
                .iter()
                .map(|s| simplify_stmt(analyzer, s))
                .filter(|s| !is_no_op(s))
                .collect();
            match kept.len() {
                0 => Stmt::no_op(),
                1 => kept.into_iter().next().unwrap_or_else(Stmt::no_op),
                _ => stmt.with_kind(StmtKind::Seq(kept)),
            }
        }
        StmtKind::Evaluate(value) => {
            // `T.assume` states a fact and runs nothing (TVM's RemoveAssume):
            // dropped, its loops go too, and no kernel is left with a host loop.
            if matches!(value.kind(), ExprKind::Call { op, .. } if op.name() == "assume") {
                return Stmt::no_op();
            }
            let value = simplify_expr(analyzer, value);
            if value.is_const() {
                return Stmt::no_op();
            }
            stmt.with_kind(StmtKind::Evaluate(value))
        }
        StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } => {
            let body = simplify_stmt(analyzer, body);
            if is_no_op(&body) {
                return body;
            }
            stmt.with_kind(StmtKind::AllocBuffer {
                buffer: buffer.clone(),
                annotations: annotations.clone(),
                body,
            })
        }
        StmtKind::DeclBuffer { buffer, body } => {
            let body = simplify_stmt(analyzer, body);
            if is_no_op(&body) {
                return body;
            }
            stmt.with_kind(StmtKind::DeclBuffer {
                buffer: buffer.clone(),
                body,
            })
        }
        StmtKind::AttrStmt(attr) => {
            let value = simplify_expr(analyzer, &attr.value);
            if let AttrNode::Thread { var, .. } = &attr.node {
                if value.dtype().is_integer() {
                    analyzer.bind(var, &Range::from_extent(value.clone()));
                }
            }
            let body = simplify_stmt(analyzer, &attr.body);
            stmt.with_kind(StmtKind::AttrStmt(AttrStmt {
                value,
                body,
                ..attr.clone()
            }))
        }
        StmtKind::Assert {
            condition,
            error_kind,
            message,
            body,
        } => {
            let condition = simplify_expr(analyzer, condition);
            let body = simplify_stmt(analyzer, body);
            if condition.as_int().is_some_and(|v| v != 0) {
                return body;
            }
            stmt.with_kind(StmtKind::Assert {
                condition,
                error_kind: error_kind.clone(),
                message: message.clone(),
                body,
            })
        }
        _ => mutate_stmt_children(&mut ChildSimplifier { analyzer }, stmt),
    }
}
