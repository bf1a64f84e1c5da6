//! Rewriting block bindings after a loop transformation: substituting the old
//! loop variables and simplifying the new bindings through their affine
//! iterator form, as TVM's `IterMapSimplifyBlockBinding` does, so that printed
//! results match TVM's text (`i_0 * 32 + i_1`, `i_j_fused // 128`).

use crate::arith::{iter_map::iter_map_simplify, Analyzer, IterMapLevel};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_block_children, mutate_stmt_children, Mutator};
use crate::ir::operators;
use crate::ir::{BinaryOp, Block, BlockRealize, Expr, ExprKind, For, Range, Stmt, StmtKind, Var};

/// Replaces loop variables by expressions (cast to the variable's type), in
/// bindings, predicates and bodies alike.
struct SubstituteLoopVars<'a> {
    map: &'a VarMap<Expr>,
}

impl Mutator for SubstituteLoopVars<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Var(var) = expr.kind() {
            return match self.map.get(var) {
                Some(value) => operators::cast(var.dtype(), value.clone()),
                None => expr.clone(),
            };
        }
        crate::ir::mutate::mutate_expr_children(self, expr)
    }
}

/// `stmt` with each variable of `map` replaced by its value.
pub(crate) fn substitute_loop_vars(stmt: &Stmt, map: &VarMap<Expr>) -> Stmt {
    SubstituteLoopVars { map }.mutate_stmt(stmt)
}

/// Appends `predicate` (with `and`) to the predicate of every block realize
/// reachable from `stmt` without entering another block (TVM's
/// `BlockPredicateAppender`).
pub(crate) fn append_predicate(stmt: &Stmt, predicate: &Expr) -> Stmt {
    match stmt.kind() {
        StmtKind::BlockRealize(realize) => {
            let combined =
                operators::binary(BinaryOp::And, realize.predicate.clone(), predicate.clone())
                    .unwrap_or_else(|_| predicate.clone());
            stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
                predicate: combined,
                ..realize.clone()
            }))
        }
        _ => {
            struct Appender<'a>(&'a Expr);
            impl Mutator for Appender<'_> {
                fn mutate_expr(&mut self, expr: &Expr) -> Expr {
                    expr.clone()
                }
                fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
                    if matches!(stmt.kind(), StmtKind::BlockRealize(_)) {
                        return append_predicate(stmt, self.0);
                    }
                    mutate_stmt_children(self, stmt)
                }
            }
            Appender(predicate).mutate_stmt(stmt)
        }
    }
}

/// Simplifies the bindings of the blocks in `stmt`, knowing the loops around
/// it (`outer_loops`, outermost first); loops inside `stmt` are added as they
/// are met. A block with bindings is simplified and not entered; an opaque
/// block (no bindings) is entered, as in TVM.
pub(crate) fn simplify_block_bindings(
    stmt: &Stmt,
    outer_loops: &[(Var, Range)],
    preserve_unit_iters: bool,
) -> Stmt {
    BindingSimplifier {
        loops: outer_loops.to_vec(),
        preserve_unit_iters,
    }
    .mutate_stmt(stmt)
}

struct BindingSimplifier {
    loops: Vec<(Var, Range)>,
    preserve_unit_iters: bool,
}

impl Mutator for BindingSimplifier {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        expr.clone()
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.loops
                    .push((for_loop.loop_var.clone(), for_loop.range()));
                let body = self.mutate_stmt(&for_loop.body);
                self.loops.pop();
                if body.same_as(&for_loop.body) {
                    return stmt.clone();
                }
                stmt.with_kind(StmtKind::For(For {
                    body,
                    ..for_loop.clone()
                }))
            }
            StmtKind::BlockRealize(realize) if realize.iter_values.is_empty() => {
                let block = mutate_block_children(self, &realize.block);
                stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
                    block,
                    ..realize.clone()
                }))
            }
            StmtKind::BlockRealize(realize) => {
                let values = simplify_binding(
                    &realize.iter_values,
                    &self.loops,
                    &realize.predicate,
                    !self.preserve_unit_iters,
                );
                let unchanged = values
                    .iter()
                    .zip(&realize.iter_values)
                    .all(|(a, b)| a.same_as(b));
                if unchanged {
                    return stmt.clone();
                }
                stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
                    iter_values: values,
                    ..realize.clone()
                }))
            }
            _ => mutate_stmt_children(self, stmt),
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        mutate_block_children(self, block)
    }
}

/// TVM's `IterMapSimplify` at the surjective level, on the indices with
/// their constants folded first (see [`fold_constants`]); the indices as
/// they were when no affine form is found.
fn simplify_binding(
    indices: &[Expr],
    input_iters: &[(Var, Range)],
    predicate: &Expr,
    simplify_trivial_iterators: bool,
) -> Vec<Expr> {
    let folded: Vec<Expr> = indices.iter().map(fold_constants).collect();
    iter_map_simplify(
        &folded,
        input_iters,
        predicate,
        IterMapLevel::Surjective,
        &Analyzer::new(),
        simplify_trivial_iterators,
    )
    .unwrap_or_else(|| indices.to_vec())
}

/// WORKAROUND(arith): TVM's `IterMapRewriter` applies `TryConstFold` at every
/// integer `+ - * // %` it rewrites, so `0 * 128 + f % 128` (what fusing a
/// unit loop leaves) becomes `f % 128` before detection. tirc's rewriter does
/// not fold yet; folding the indices first gives the same result, because
/// `TryConstFold` only looks at constant operands, which are the same
/// subexpressions here as inside the rewriter.
fn fold_constants(expr: &Expr) -> Expr {
    let ExprKind::Binary(op, a, b) = expr.kind() else {
        return expr.clone();
    };
    let foldable = matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::FloorDiv | BinaryOp::FloorMod
    );
    if !foldable || !expr.dtype().is_int() {
        return expr.clone();
    }
    let (fa, fb) = (fold_constants(a), fold_constants(b));
    if fa.dtype() == fb.dtype() {
        if let Ok(Some(folded)) = operators::try_const_fold(*op, &fa, &fb) {
            return folded;
        }
    }
    if fa.same_as(a) && fb.same_as(b) {
        return expr.clone();
    }
    Expr::new(ExprKind::Binary(*op, fa, fb), expr.dtype(), expr.span())
}

/// `predicate and conjunct`, or `conjunct` alone where `predicate` is `True`.
pub(crate) fn and_conjunct(predicate: Expr, conjunct: Expr) -> Expr {
    match predicate.as_int() {
        Some(1) => conjunct,
        _ => crate::arith::build::binary(BinaryOp::And, predicate, conjunct),
    }
}

/// The conjuncts of a predicate (`a and b and c`), in order; none for `True`.
pub(crate) fn conjuncts(predicate: &Expr) -> Vec<Expr> {
    let mut all = operands_of(predicate, BinaryOp::And);
    all.retain(|conjunct| conjunct.as_int() != Some(1));
    all
}

/// The disjuncts of a condition (`a or b or c`), in order.
pub(crate) fn disjuncts(condition: &Expr) -> Vec<Expr> {
    operands_of(condition, BinaryOp::Or)
}

/// The operands of a chain of one logical operator, in order.
fn operands_of(expr: &Expr, op: BinaryOp) -> Vec<Expr> {
    match expr.kind() {
        ExprKind::Binary(found, a, b) if *found == op => {
            let mut all = operands_of(a, op);
            all.extend(operands_of(b, op));
            all
        }
        _ => vec![expr.clone()],
    }
}
