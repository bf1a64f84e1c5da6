//! The last touches TVM's `Simplify` gives a canonical result: its rewrite pass
//! runs between two canonical passes and leaves two visible traces on sums,
//! which this pass reproduces on the finished expression.
//!
//! - A sum that is only `0 - x * c` becomes `x * -c` (the rewrite of
//!   `a - y * c` into `a + y * -c` survives only when nothing else is added).
//! - Bare `min`/`max` terms of a sum move before the other plain terms of the
//!   same scale (the rewrite of `x + min(y, z)` into `min(y, z) + x`), the
//!   later ones first; the first term of a sum never moves, and a second one
//!   stays when the first is itself a `min`/`max` (the two swaps cancel).

use super::build;
use super::rewrite_rules::flatten_sum;
use crate::ir::mutate::{mutate_expr_children, Mutator};
use crate::ir::{BinaryOp, Expr, ExprKind};

/// The expression with the rewrite pass's traces applied to every sum.
pub(crate) fn finish(expr: &Expr) -> Expr {
    FinalForm.mutate_expr(expr)
}

struct FinalForm;

fn is_sum(expr: &Expr) -> bool {
    matches!(
        expr.kind(),
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, _, _)
    ) && build::is_index_type(expr.dtype())
}

fn is_min_max(expr: &Expr) -> bool {
    matches!(
        expr.kind(),
        ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, _, _)
    )
}

/// `(scale, lower factor, upper factor)` of a printed term, as the canonical sort sees it.
fn sort_key(term: &Expr) -> (i64, i64, i64) {
    let (scale, inner) = match term.kind() {
        ExprKind::Binary(BinaryOp::Mul, inner, c) if c.as_int().is_some() => {
            (c.as_int().unwrap_or(1), inner)
        }
        _ => (1, term),
    };
    let (lower, inner) = match inner.kind() {
        ExprKind::Binary(BinaryOp::FloorDiv | BinaryOp::Div, e, c) if c.as_int().is_some() => {
            (c.as_int().unwrap_or(1), e)
        }
        _ => (1, inner),
    };
    let upper = match inner.kind() {
        ExprKind::Binary(BinaryOp::FloorMod | BinaryOp::Mod, _, c) => {
            c.as_int().unwrap_or(i64::MAX)
        }
        _ => i64::MAX,
    };
    (scale, lower, upper)
}

impl FinalForm {
    /// An index sum (`is_sum`) in TVM's final form; its terms all share its
    /// index type, so `flatten_sum` splits it whole.
    fn finish_sum(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Binary(BinaryOp::Sub, zero, product) = expr.kind() {
            if let ExprKind::Binary(BinaryOp::Mul, x, factor) = product.kind() {
                let negated = factor.as_int().and_then(i64::checked_neg);
                if let (Some(0), Some(c)) = (zero.as_int(), negated) {
                    let x = self.mutate_expr(x);
                    return build::mul(x, build::int(c, factor.dtype()));
                }
            }
        }
        let mut terms = Vec::new();
        flatten_sum(expr, &mut terms);
        let terms: Vec<(BinaryOp, Expr)> = terms
            .into_iter()
            .map(|(op, t)| (op, self.mutate_expr(&t)))
            .collect();
        // The positive, non-constant terms, which the hoisting reorders.
        let positive: Vec<usize> = (0..terms.len())
            .filter(|&i| terms[i].0 == BinaryOp::Add && terms[i].1.as_int().is_none())
            .collect();
        let hoisted: Vec<usize> = positive
            .iter()
            .enumerate()
            .filter(|(k, &i)| {
                let first_is_min_max = positive.first().is_some_and(|&f| is_min_max(&terms[f].1));
                *k >= 1 && is_min_max(&terms[i].1) && !(*k == 1 && first_is_min_max)
            })
            .map(|(_, &i)| i)
            .collect();
        let mut order: Vec<usize> = positive.clone();
        if !hoisted.is_empty() {
            // Hoisted terms lead their run of equal sort keys, the last one first.
            let key = sort_key(&terms[hoisted[0]].1);
            let run: Vec<usize> = positive
                .iter()
                .copied()
                .filter(|&i| sort_key(&terms[i].1) == key)
                .collect();
            let mut reordered: Vec<usize> = hoisted.iter().rev().copied().collect();
            reordered.extend(run.iter().copied().filter(|i| !hoisted.contains(i)));
            let mut next = reordered.into_iter();
            for slot in order.iter_mut() {
                if sort_key(&terms[*slot].1) == key {
                    *slot = next.next().unwrap_or(*slot);
                }
            }
        }
        let mut replacement = order.into_iter();
        let mut result: Option<Expr> = None;
        for (index, (op, term)) in terms.iter().enumerate() {
            let term = if positive.contains(&index) {
                replacement
                    .next()
                    .map_or_else(|| term.clone(), |i| terms[i].1.clone())
            } else {
                term.clone()
            };
            result = Some(match result {
                None => term,
                Some(acc) => Expr::new(ExprKind::Binary(*op, acc, term), expr.dtype(), expr.span()),
            });
        }
        result.unwrap_or_else(|| expr.clone())
    }
}

impl Mutator for FinalForm {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if is_sum(expr) {
            self.finish_sum(expr)
        } else {
            mutate_expr_children(self, expr)
        }
    }
}
