//! Rewrite rules for the nodes the canonical forms leave alone: comparisons,
//! `and`/`or`/`not` and `min`/`max`, in the spirit of TVM's
//! `RewriteSimplifier` (the subset of its rules that index expressions meet).
//!
//! Operands arrive simplified. A rule's result is returned as it is, or visited
//! again through `recursive_rewrite` when it may simplify further.

use super::build;
use super::simplify::{CompareResult, Simplifier};
use crate::ir::structural::expr_deep_equal;
use crate::ir::{BinaryOp, Expr, ExprKind};

/// The operands of `expr` when it is a binary node of operator `op`.
fn parts(expr: &Expr, op: BinaryOp) -> Option<(&Expr, &Expr)> {
    match expr.kind() {
        ExprKind::Binary(o, a, b) if *o == op => Some((a, b)),
        _ => None,
    }
}

/// The signed terms of a printed sum, left to right (`+` for the first).
pub(super) fn flatten_sum(expr: &Expr, terms: &mut Vec<(BinaryOp, Expr)>) {
    match expr.kind() {
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            flatten_sum(a, terms);
            terms.push((*op, b.clone()));
        }
        _ => terms.push((BinaryOp::Add, expr.clone())),
    }
}

/// `(x, c)` for `x * c` with a constant `c`.
fn times_constant(expr: &Expr) -> Option<(&Expr, i64)> {
    let (x, c) = parts(expr, BinaryOp::Mul)?;
    Some((x, c.as_int()?))
}

/// `(x, c)` for `op(x, c)` with a constant `c`.
fn with_constant(expr: &Expr, op: BinaryOp) -> Option<(&Expr, i64)> {
    let (x, c) = parts(expr, op)?;
    Some((x, c.as_int()?))
}

fn same(a: &Expr, b: &Expr) -> bool {
    a.same_as(b) || expr_deep_equal(a, b)
}

fn less(a: Expr, b: Expr) -> Expr {
    build::node(BinaryOp::Lt, a, b)
}

impl Simplifier<'_> {
    /// `(rest, c)` when `expr` is a canonical sum `rest + c` with terms and a
    /// non-zero constant `c`.
    pub(super) fn split_offset(&mut self, expr: &Expr) -> Option<(Expr, i64)> {
        if !build::is_index_type(expr.dtype()) {
            return None;
        }
        // Read the printed sum (already simplified) rather than simplify it again,
        // which would cost a pass over the operands at every level of nesting.
        let mut terms = Vec::new();
        flatten_sum(expr, &mut terms);
        if terms.len() < 2 {
            return None;
        }
        let (position, base) = if terms[0].1.as_int().is_some() {
            // `0 - n - c`: the constant is last; `c - n` has no positive term and keeps its shape.
            let (op, last) = terms.last()?;
            match (terms[0].1.as_int(), *op, last.as_int()) {
                (Some(0), BinaryOp::Sub, Some(c)) if terms.len() >= 3 => {
                    (terms.len() - 1, c.checked_neg()?)
                }
                _ => return None,
            }
        } else {
            let position = (1..terms.len()).find(|&i| terms[i].1.as_int().is_some())?;
            let c = terms[position].1.as_int()?;
            let base = if terms[position].0 == BinaryOp::Add {
                c
            } else {
                c.checked_neg()?
            };
            (position, base)
        };
        if base == 0 {
            return None;
        }
        let mut rest: Option<Expr> = None;
        for (index, (op, term)) in terms.into_iter().enumerate() {
            if index == position {
                continue;
            }
            rest = Some(match rest {
                None => term,
                Some(acc) => Expr::new(ExprKind::Binary(op, acc, term), expr.dtype(), expr.span()),
            });
        }
        Some((rest?, base))
    }

    /// `a < b` without the canonical divisor step: operands, folding, then rules.
    pub(super) fn rewrite_less_plain(&mut self, expr: &Expr, a: &Expr, b: &Expr) -> Expr {
        let new_a = self.visit(a);
        let new_b = self.visit(b);
        if let Some(folded) = build::try_fold(BinaryOp::Lt, &new_a, &new_b) {
            return folded;
        }
        let node = if new_a.same_as(a) && new_b.same_as(b) {
            expr.clone()
        } else {
            less(new_a.clone(), new_b.clone())
        };
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        self.apply_less_rules(node, &new_a, &new_b)
    }

    /// `a <= b`, rewritten as `not (b < a)` so that both share the `<` rules.
    pub(super) fn rewrite_less_equal(&mut self, expr: &Expr, a: &Expr, b: &Expr) -> Expr {
        let new_a = self.visit(a);
        let new_b = self.visit(b);
        if let Some(folded) = build::try_fold(BinaryOp::Le, &new_a, &new_b) {
            return folded;
        }
        let node = if new_a.same_as(a) && new_b.same_as(b) {
            expr.clone()
        } else {
            build::node(BinaryOp::Le, new_a.clone(), new_b.clone())
        };
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        let flipped = self.apply_less_rules(less(new_b.clone(), new_a.clone()), &new_b, &new_a);
        let result = self.rewrite_not(flipped);
        if let Some((x, y)) = parts(&result, BinaryOp::Le) {
            if build::is_index_type(x.dtype()) {
                let (x, y) = (x.clone(), y.clone());
                match self.try_compare(&x, &y) {
                    CompareResult::Le | CompareResult::Lt | CompareResult::Eq => {
                        return Expr::bool(true)
                    }
                    CompareResult::Gt => return Expr::bool(false),
                    CompareResult::Ne => {
                        return self.apply_less_rules(less(x.clone(), y.clone()), &x, &y)
                    }
                    CompareResult::Ge => {
                        let equal = build::node(BinaryOp::Eq, x.clone(), y.clone());
                        return self.rewrite_equal(equal, &x, &y);
                    }
                    _ => {}
                }
            }
        }
        result
    }

    /// The `<` rules on simplified operands `x < y` (`node`).
    pub(super) fn apply_less_rules(&mut self, node: Expr, x: &Expr, y: &Expr) -> Expr {
        let dtype = x.dtype();
        if !build::is_index_type(dtype) {
            return node;
        }
        match self.try_compare(x, y) {
            CompareResult::Lt => return Expr::bool(true),
            CompareResult::Eq | CompareResult::Gt | CompareResult::Ge => return Expr::bool(false),
            _ => {}
        }
        let int = |v: i64| build::int(v, dtype);
        let zero = int(0);

        // Cancellation of a common operand.
        if let (Some((a1, a2)), Some((b1, b2))) = (parts(x, BinaryOp::Add), parts(y, BinaryOp::Add))
        {
            if same(a1, b1) {
                return less(a2.clone(), b2.clone());
            }
            if same(a1, b2) {
                return less(a2.clone(), b1.clone());
            }
            if same(a2, b1) {
                return less(a1.clone(), b2.clone());
            }
            if same(a2, b2) {
                return less(a1.clone(), b1.clone());
            }
        }
        if let (Some((a1, a2)), Some((b1, b2))) = (parts(x, BinaryOp::Sub), parts(y, BinaryOp::Sub))
        {
            if same(a2, b2) {
                return less(a1.clone(), b1.clone());
            }
            if same(a1, b1) {
                return less(b2.clone(), a2.clone());
            }
        }
        if let Some((b1, b2)) = parts(y, BinaryOp::Add) {
            if same(x, b1) {
                return less(zero, b2.clone());
            }
            if same(x, b2) {
                return less(zero, b1.clone());
            }
        }
        if let Some((b1, b2)) = parts(y, BinaryOp::Sub) {
            if same(x, b1) {
                return less(b2.clone(), zero);
            }
        }

        // Common constant factors.
        if let (Some((xa, c1)), Some((ya, c2))) = (times_constant(x), times_constant(y)) {
            if c1 == c2 && c1 > 0 {
                return less(xa.clone(), ya.clone());
            }
            if c1 == c2 && c1 < 0 {
                return less(ya.clone(), xa.clone());
            }
        }
        // x * c2 < c1, with truncating division (what the bounds below need).
        if let (Some((xa, c2)), Some(c1)) = (times_constant(x), y.as_int()) {
            let rewritten = match (c1 > 0, c2 > 0, c2 < 0) {
                (true, true, _) => (c1 - 1)
                    .checked_div(c2)
                    .and_then(|q| q.checked_add(1))
                    .map(|b| less(xa.clone(), int(b))),
                (false, true, _) => c1.checked_div(c2).map(|b| less(xa.clone(), int(b))),
                (true, _, true) => (c1 - 1)
                    .checked_div(c2)
                    .and_then(|q| q.checked_sub(1))
                    .map(|b| less(int(b), xa.clone())),
                (false, _, true) => c1.checked_div(c2).map(|b| less(int(b), xa.clone())),
                _ => None,
            };
            if let Some(result) = rewritten {
                return result;
            }
        }
        // c1 < x * c2.
        if let (Some(c1), Some((ya, c2))) = (x.as_int(), times_constant(y)) {
            let rewritten = match (c1 < 0, c2 > 0, c2 < 0) {
                (true, true, _) => (c1 + 1)
                    .checked_div(c2)
                    .and_then(|q| q.checked_sub(1))
                    .map(|b| less(int(b), ya.clone())),
                (false, true, _) => c1.checked_div(c2).map(|b| less(int(b), ya.clone())),
                (true, _, true) => (c1 + 1)
                    .checked_div(c2)
                    .and_then(|q| q.checked_add(1))
                    .map(|b| less(ya.clone(), int(b))),
                (false, _, true) => c1.checked_div(c2).map(|b| less(ya.clone(), int(b))),
                _ => None,
            };
            if let Some(result) = rewritten {
                return result;
            }
        }
        // Division by a positive constant compared with a constant.
        if let (Some((xa, c1)), Some(c2)) = (with_constant(x, BinaryOp::FloorDiv), y.as_int()) {
            if c1 > 0 {
                if let Some(b) = c1.checked_mul(c2) {
                    return less(xa.clone(), int(b));
                }
            }
        }
        if let (Some(c1), Some((ya, c2))) = (x.as_int(), with_constant(y, BinaryOp::FloorDiv)) {
            if c2 > 0 {
                if let Some(b) = c1.checked_add(1).and_then(|v| v.checked_mul(c2)) {
                    if let Some(b) = b.checked_sub(1) {
                        return less(int(b), ya.clone());
                    }
                }
            }
        }
        if let (Some((xa, c1)), Some(c2)) = (with_constant(x, BinaryOp::Div), y.as_int()) {
            if c1 > 0 && c2 > 0 {
                if let Some(b) = c1.checked_mul(c2) {
                    return less(xa.clone(), int(b));
                }
            }
            if c1 > 0 && c2 <= 0 {
                if let Some(b) = c2
                    .checked_sub(1)
                    .and_then(|v| v.checked_mul(c1))
                    .and_then(|v| v.checked_add(1))
                {
                    return less(xa.clone(), int(b));
                }
            }
        }
        if let (Some(c1), Some((ya, c2))) = (x.as_int(), with_constant(y, BinaryOp::Div)) {
            if c1 >= 0 && c2 > 0 {
                if let Some(b) = c1.checked_add(1).and_then(|v| v.checked_mul(c2)) {
                    if let Some(b) = b.checked_sub(1) {
                        return less(int(b), ya.clone());
                    }
                }
            }
            if c1 < 0 && c2 > 0 {
                if let Some(b) = c1.checked_mul(c2) {
                    return less(int(b), ya.clone());
                }
            }
        }
        // floordiv(x, c) * c < x  <=>  0 < floormod(x, c).
        if let Some((quotient, c1)) = times_constant(x) {
            if let Some((inner, c)) = with_constant(quotient, BinaryOp::FloorDiv) {
                if c == c1 && c1 > 0 && same(inner, y) {
                    return less(zero, build::floormod(y.clone(), int(c1)));
                }
                // floordiv(y + k, c) * c < y  <=>  k < floormod(y + k, c): a
                // round-up to a multiple of c (`(n + 7) // 8 * 8`) is at least n.
                if let Some((base, k)) = with_constant(inner, BinaryOp::Add) {
                    if c == c1 && c1 > 0 && same(base, y) {
                        return less(int(k), build::floormod(inner.clone(), int(c1)));
                    }
                }
            }
        }

        // Comparisons with min and max become boolean combinations.
        if let Some((a, b)) = parts(x, BinaryOp::Min) {
            let rewritten = build::node(
                BinaryOp::Or,
                less(a.clone(), y.clone()),
                less(b.clone(), y.clone()),
            );
            return self.recursive_rewrite(&rewritten);
        }
        if let Some((a, b)) = parts(x, BinaryOp::Max) {
            let rewritten = build::node(
                BinaryOp::And,
                less(a.clone(), y.clone()),
                less(b.clone(), y.clone()),
            );
            return self.recursive_rewrite(&rewritten);
        }
        // An offset added to a min or max moves to the other side, so that the
        // rule below sees it: `X < max(X - 1, 0) + 2` is `X - 2 < max(X - 1, 0)`.
        if x.as_int().is_none() {
            if let Some((rest, c)) = self.split_offset(y) {
                let min_or_max = matches!(
                    rest.kind(),
                    ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, _, _)
                );
                if c != 0 && min_or_max {
                    let moved = build::sub(x.clone(), int(c));
                    return self.recursive_rewrite(&less(moved, rest));
                }
            }
        }
        if let Some((a, b)) = parts(y, BinaryOp::Min) {
            let rewritten = build::node(
                BinaryOp::And,
                less(x.clone(), a.clone()),
                less(x.clone(), b.clone()),
            );
            return self.recursive_rewrite(&rewritten);
        }
        if let Some((a, b)) = parts(y, BinaryOp::Max) {
            let rewritten = build::node(
                BinaryOp::Or,
                less(x.clone(), a.clone()),
                less(x.clone(), b.clone()),
            );
            return self.recursive_rewrite(&rewritten);
        }

        // Constants move to one side. The canonical form prints `a + 2 - b`, which TVM's
        // rewrite pass regroups as `(a - b) + 2` before these rules see it; the sum's
        // constant plays the part of the offset here.
        if let Some(c1) = x.as_int() {
            if let Some((c2, ya)) = parts(y, BinaryOp::Sub) {
                if let Some(b) = c2.as_int().and_then(|c2| c2.checked_sub(c1)) {
                    return self.recursive_rewrite(&less(ya.clone(), int(b)));
                }
            }
            if let Some((rest, c2)) = self.split_offset(y) {
                if let Some(b) = c1.checked_sub(c2) {
                    return self.recursive_rewrite(&less(int(b), rest));
                }
            }
        }
        if let Some(c2) = y.as_int() {
            if let Some((c1, xa)) = parts(x, BinaryOp::Sub) {
                if let Some(b) = c1.as_int().and_then(|c1| c1.checked_sub(c2)) {
                    return self.recursive_rewrite(&less(int(b), xa.clone()));
                }
            }
            if let Some((rest, c1)) = self.split_offset(x) {
                if let Some(b) = c2.checked_sub(c1) {
                    return self.recursive_rewrite(&less(rest, int(b)));
                }
            }
        }
        if let Some((c1, ya)) = parts(y, BinaryOp::Sub) {
            if c1.as_int().is_some() {
                let moved = less(build::add(x.clone(), ya.clone()), c1.clone());
                return self.recursive_rewrite(&moved);
            }
        }
        if let Some((c1, xa)) = parts(x, BinaryOp::Sub) {
            if c1.as_int().is_some() {
                let moved = less(c1.clone(), build::add(y.clone(), xa.clone()));
                return self.recursive_rewrite(&moved);
            }
        }

        // x + a < y + b  =>  x + (a - b) < y, keeping the offsets on one side.
        let (lhs, lhs_offset) = self.split_offset(x).unwrap_or_else(|| (x.clone(), 0));
        let (rhs, rhs_offset) = self.split_offset(y).unwrap_or_else(|| (y.clone(), 0));
        if lhs_offset != 0 || rhs_offset != 0 {
            if let Some(difference) = rhs_offset.checked_sub(lhs_offset) {
                let merged = if difference == 0 {
                    Some(less(lhs, rhs))
                } else if difference == 1 {
                    Some(build::node(BinaryOp::Le, lhs, rhs))
                } else if difference < 0 && rhs_offset != 0 {
                    difference
                        .checked_neg()
                        .map(|d| less(build::add(lhs, int(d)), rhs))
                } else if difference > 0 && lhs_offset != 0 {
                    Some(less(lhs, build::add(rhs, int(difference))))
                } else {
                    None
                };
                if let Some(merged) = merged {
                    return self.recursive_rewrite(&merged);
                }
            }
        }
        // Both sides are multiples of a common factor.
        let (modular_x, modular_y) = (self.modular(x), self.modular(y));
        let factor = build::gcd(
            build::gcd(modular_x.base, modular_x.coeff),
            build::gcd(modular_y.base, modular_y.coeff),
        );
        if factor > 1 {
            let divided = less(
                build::floordiv(x.clone(), int(factor)),
                build::floordiv(y.clone(), int(factor)),
            );
            return self.recursive_rewrite(&divided);
        }
        node
    }

    /// `not value` for a simplified `value`: comparisons flip, negations cancel,
    /// De Morgan pushes negation inward.
    pub(super) fn rewrite_not(&mut self, value: Expr) -> Expr {
        if let Some(v) = value.as_int() {
            return Expr::bool(v == 0);
        }
        let node = build::not(value.clone());
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        match value.kind() {
            ExprKind::Not(inner) => inner.clone(),
            ExprKind::Binary(op, a, b) => match op {
                BinaryOp::Le => less(b.clone(), a.clone()),
                BinaryOp::Ge => less(a.clone(), b.clone()),
                BinaryOp::Lt => build::node(BinaryOp::Le, b.clone(), a.clone()),
                BinaryOp::Gt => build::node(BinaryOp::Le, a.clone(), b.clone()),
                BinaryOp::Eq => build::node(BinaryOp::Ne, a.clone(), b.clone()),
                BinaryOp::Ne => build::node(BinaryOp::Eq, a.clone(), b.clone()),
                BinaryOp::Or => {
                    let pushed =
                        build::node(BinaryOp::And, build::not(a.clone()), build::not(b.clone()));
                    self.recursive_rewrite(&pushed)
                }
                BinaryOp::And => {
                    let pushed =
                        build::node(BinaryOp::Or, build::not(a.clone()), build::not(b.clone()));
                    self.recursive_rewrite(&pushed)
                }
                _ => node,
            },
            _ => node,
        }
    }

    /// The `==` rules on simplified operands.
    pub(super) fn rewrite_equal(&mut self, node: Expr, a: &Expr, b: &Expr) -> Expr {
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        let dtype = a.dtype();
        if !build::is_index_type(dtype) {
            if same(a, b) && !matches!(a.kind(), ExprKind::Call { .. }) {
                return Expr::bool(true);
            }
            return node;
        }
        match self.try_compare(a, b) {
            CompareResult::Eq => return Expr::bool(true),
            CompareResult::Ne | CompareResult::Gt | CompareResult::Lt => return Expr::bool(false),
            _ => {}
        }
        let equal = |x: Expr, y: Expr| build::node(BinaryOp::Eq, x, y);
        if a.as_int().is_some() {
            return equal(b.clone(), a.clone());
        }
        if let Some(c2) = b.as_int() {
            if let Some((x, c1)) = with_constant(a, BinaryOp::Sub) {
                return equal(
                    x.clone(),
                    build::add(build::int(c2, dtype), build::int(c1, dtype)),
                );
            }
            if let Some((c1, x)) = parts(a, BinaryOp::Sub) {
                if c1.as_int().is_some() {
                    return equal(x.clone(), build::sub(c1.clone(), build::int(c2, dtype)));
                }
            }
            if let Some((rest, c1)) = self.split_offset(a) {
                // x + c1 == c2, with the sum's constant as c1.
                let bound = build::sub(build::int(c2, dtype), build::int(c1, dtype));
                return equal(rest, bound);
            }
            if c2 == 0 {
                if let Some((x, y)) = parts(a, BinaryOp::Mul) {
                    let zero = build::int(0, dtype);
                    let either = build::node(
                        BinaryOp::Or,
                        equal(x.clone(), zero.clone()),
                        equal(y.clone(), zero),
                    );
                    return self.recursive_rewrite(&either);
                }
            }
        }
        if same(a, b) {
            return Expr::bool(true);
        }
        node
    }

    /// The `!=` rules on simplified operands: what `<` and `==` know, negated.
    pub(super) fn rewrite_not_equal(&mut self, node: Expr, a: &Expr, b: &Expr) -> Expr {
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        if build::is_index_type(a.dtype()) {
            match self.try_compare(a, b) {
                CompareResult::Ne | CompareResult::Gt | CompareResult::Lt => {
                    return Expr::bool(true)
                }
                CompareResult::Eq => return Expr::bool(false),
                CompareResult::Ge => {
                    return self.apply_less_rules(less(b.clone(), a.clone()), b, a)
                }
                CompareResult::Le => {
                    return self.apply_less_rules(less(a.clone(), b.clone()), a, b)
                }
                _ => {}
            }
        }
        let equal = self.rewrite_equal(build::node(BinaryOp::Eq, a.clone(), b.clone()), a, b);
        self.rewrite_not(equal)
    }

    /// The `and` rules on simplified operands (constants are already folded).
    pub(super) fn rewrite_and(&mut self, node: Expr, a: &Expr, b: &Expr) -> Expr {
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        if same(a, b) {
            return a.clone();
        }
        if contradicts(a, b) {
            return Expr::bool(false);
        }
        // x == c1 and x == c2 with c1 != c2.
        if let (Some((x1, c1)), Some((x2, c2))) = (
            with_constant(a, BinaryOp::Eq),
            with_constant(b, BinaryOp::Eq),
        ) {
            if same(x1, x2) && c1 != c2 {
                return Expr::bool(false);
            }
        }
        if let Some((y, z)) = parts(b, BinaryOp::And) {
            let regrouped = build::node(
                BinaryOp::And,
                build::node(BinaryOp::And, a.clone(), y.clone()),
                z.clone(),
            );
            return self.recursive_rewrite(&regrouped);
        }
        node
    }

    /// The `or` rules on simplified operands (constants are already folded).
    pub(super) fn rewrite_or(&mut self, node: Expr, a: &Expr, b: &Expr) -> Expr {
        if let Some(known) = self.match_literal_fact(&node) {
            return Expr::bool(known);
        }
        if same(a, b) {
            return a.clone();
        }
        let (not_a, not_b) = (self.negate(a), self.negate(b));
        if contradicts(&not_a, &not_b) {
            return Expr::bool(true);
        }
        // x < y or y < x  =>  x != y.
        if let (Some((x1, y1)), Some((y2, x2))) = (parts(a, BinaryOp::Lt), parts(b, BinaryOp::Lt)) {
            if same(x1, x2) && same(y1, y2) {
                return build::node(BinaryOp::Ne, x1.clone(), y1.clone());
            }
        }
        // x < y or x == y  =>  x <= y.
        if let Some((x, y)) = parts(a, BinaryOp::Lt) {
            if let Some((p, q)) = parts(b, BinaryOp::Eq) {
                if (same(x, p) && same(y, q)) || (same(x, q) && same(y, p)) {
                    let merged = build::node(BinaryOp::Le, x.clone(), y.clone());
                    return self.recursive_rewrite(&merged);
                }
            }
        }
        if let Some((x, y)) = parts(b, BinaryOp::Lt) {
            if let Some((p, q)) = parts(a, BinaryOp::Eq) {
                if (same(x, p) && same(y, q)) || (same(x, q) && same(y, p)) {
                    let merged = build::node(BinaryOp::Le, x.clone(), y.clone());
                    return self.recursive_rewrite(&merged);
                }
            }
        }
        if let Some((y, z)) = parts(b, BinaryOp::Or) {
            let regrouped = build::node(
                BinaryOp::Or,
                build::node(BinaryOp::Or, a.clone(), y.clone()),
                z.clone(),
            );
            return self.recursive_rewrite(&regrouped);
        }
        node
    }

    /// The `min`/`max` rules on simplified operands: dominated arms go, common
    /// parts factor out, constants gather on the outside.
    pub(super) fn rewrite_min_max(&mut self, node: Expr, is_min: bool, a: &Expr, b: &Expr) -> Expr {
        let (this, other) = if is_min {
            (BinaryOp::Min, BinaryOp::Max)
        } else {
            (BinaryOp::Max, BinaryOp::Min)
        };
        let combine = |x: Expr, y: Expr| build::binary(this, x, y);
        let combine_other = |x: Expr, y: Expr| build::binary(other, x, y);
        let dtype = a.dtype();
        if build::is_index_type(dtype) {
            if same(a, b) {
                return a.clone();
            }
            // An arm that is never better than the other is dropped.
            let (bound_a, bound_b) = (self.bound(a), self.bound(b));
            let a_wins = if is_min {
                bound_a.max <= bound_b.min
            } else {
                bound_a.min >= bound_b.max
            };
            let b_wins = if is_min {
                bound_b.max <= bound_a.min
            } else {
                bound_b.min >= bound_a.max
            };
            if a_wins {
                return a.clone();
            }
            if b_wins {
                return b.clone();
            }
            // The same expression plus different constants: the constants decide.
            let (rest_a, offset_a) = self.split_offset(a).unwrap_or_else(|| (a.clone(), 0));
            let (rest_b, offset_b) = self.split_offset(b).unwrap_or_else(|| (b.clone(), 0));
            if (offset_a != 0 || offset_b != 0) && same(&rest_a, &rest_b) {
                let a_smaller = offset_a <= offset_b;
                return if a_smaller == is_min {
                    a.clone()
                } else {
                    b.clone()
                };
            }
            // min(c1 - x, c2 - x) is decided the same way.
            if let (Some((c1, x1)), Some((c2, x2))) =
                (parts(a, BinaryOp::Sub), parts(b, BinaryOp::Sub))
            {
                if let (Some(c1), Some(c2)) = (c1.as_int(), c2.as_int()) {
                    if same(x1, x2) {
                        return if (c1 <= c2) == is_min {
                            a.clone()
                        } else {
                            b.clone()
                        };
                    }
                }
            }
            // Rounding up to a multiple: min(ceil(x / c) * c, x) == x.
            for (rounded, plain) in [(a, b), (b, a)] {
                if let Some((quotient, c2)) = times_constant(rounded) {
                    if let Some((numerator, c)) = with_constant(quotient, BinaryOp::FloorDiv) {
                        if c == c2 && c2 > 0 {
                            if let Some((x, c1)) = with_constant(numerator, BinaryOp::Add) {
                                if same(x, plain) && c1.checked_add(1) == Some(c2) {
                                    return if is_min {
                                        plain.clone()
                                    } else {
                                        rounded.clone()
                                    };
                                }
                            }
                            if same(numerator, plain) {
                                return if is_min {
                                    rounded.clone()
                                } else {
                                    plain.clone()
                                };
                            }
                        }
                    }
                }
            }
            // Absorption: min(max(x, y), x) == x and min(min(x, y), x) == min(x, y).
            for (nested, plain) in [(a, b), (b, a)] {
                if let Some((x, y)) = parts(nested, other) {
                    if same(x, plain) || same(y, plain) {
                        return plain.clone();
                    }
                }
                if let Some((x, y)) = parts(nested, this) {
                    if same(x, plain) || same(y, plain) {
                        return nested.clone();
                    }
                }
            }
            // min(max(x, y), min(x, y)) == min(x, y).
            for (p, q) in [(a, b), (b, a)] {
                if let (Some((x1, y1)), Some((x2, y2))) = (parts(p, other), parts(q, this)) {
                    if (same(x1, x2) && same(y1, y2)) || (same(x1, y2) && same(y1, x2)) {
                        return q.clone();
                    }
                }
            }
            // A common addend or subtrahend factors out.
            if let (Some((a1, a2)), Some((b1, b2))) =
                (parts(a, BinaryOp::Add), parts(b, BinaryOp::Add))
            {
                let factored = if same(a2, b2) {
                    Some(build::add(combine(a1.clone(), b1.clone()), a2.clone()))
                } else if same(a1, b1) {
                    Some(build::add(combine(a2.clone(), b2.clone()), a1.clone()))
                } else if same(a1, b2) {
                    Some(build::add(combine(a2.clone(), b1.clone()), a1.clone()))
                } else if same(a2, b1) {
                    Some(build::add(combine(a1.clone(), b2.clone()), a2.clone()))
                } else {
                    None
                };
                if let Some(factored) = factored {
                    return self.recursive_rewrite(&factored);
                }
            }
            if let (Some((a1, a2)), Some((b1, b2))) =
                (parts(a, BinaryOp::Sub), parts(b, BinaryOp::Sub))
            {
                if same(a2, b2) {
                    let factored = build::sub(combine(a1.clone(), b1.clone()), a2.clone());
                    return self.recursive_rewrite(&factored);
                }
                if same(a1, b1) {
                    let factored = build::sub(a1.clone(), combine_other(a2.clone(), b2.clone()));
                    return self.recursive_rewrite(&factored);
                }
            }
            // Scaling by a common constant.
            if let (Some((x, c1)), Some((y, c2))) = (times_constant(a), times_constant(b)) {
                if c1 == c2 && c1 != 0 {
                    let inner = if c1 > 0 {
                        combine(x.clone(), y.clone())
                    } else {
                        combine_other(x.clone(), y.clone())
                    };
                    return build::mul(inner, build::int(c1, dtype));
                }
            }
            if let (Some((x, c1)), Some((y, c2))) = (
                with_constant(a, BinaryOp::FloorDiv),
                with_constant(b, BinaryOp::FloorDiv),
            ) {
                if c1 == c2 && c1 != 0 {
                    let inner = if c1 > 0 {
                        combine(x.clone(), y.clone())
                    } else {
                        combine_other(x.clone(), y.clone())
                    };
                    return build::floordiv(inner, build::int(c1, dtype));
                }
            }
            if let (Some((x, c1)), Some(c2)) = (times_constant(a), b.as_int()) {
                if c1 != 0 && c2.checked_rem(c1) == Some(0) {
                    let bound = build::int(c2 / c1, dtype);
                    let inner = if c1 > 0 {
                        combine(x.clone(), bound)
                    } else {
                        combine_other(x.clone(), bound)
                    };
                    return build::mul(inner, build::int(c1, dtype));
                }
            }
            // Constants gather outermost: min(min(x, c1), c2) == min(x, min(c1, c2)).
            if let Some((x, c1)) = with_constant(a, this) {
                if let Some(c2) = b.as_int() {
                    let constant = if is_min { c1.min(c2) } else { c1.max(c2) };
                    return combine(x.clone(), build::int(constant, dtype));
                }
                if b.as_int().is_none() {
                    let regrouped = combine(combine(x.clone(), b.clone()), build::int(c1, dtype));
                    return self.recursive_rewrite(&regrouped);
                }
            }
            // min(c1 - x, c2) == c1 - max(x, c1 - c2).
            if let (Some((c1, x)), Some(c2)) = (parts(a, BinaryOp::Sub), b.as_int()) {
                if let Some(c1) = c1.as_int() {
                    if c2 != 0 {
                        if let Some(shift) = c1.checked_sub(c2) {
                            let rewritten = build::sub(
                                build::int(c1, dtype),
                                combine_other(x.clone(), build::int(shift, dtype)),
                            );
                            return self.recursive_rewrite(&rewritten);
                        }
                    }
                }
            }
        }
        // select(c, y, z) against select(c, s1, s2) chooses per branch.
        if let (ExprKind::Select(c1, y, z), ExprKind::Select(c2, s1, s2)) = (a.kind(), b.kind()) {
            if same(c1, c2) {
                let chosen = Expr::new(
                    ExprKind::Select(
                        c1.clone(),
                        combine(y.clone(), s1.clone()),
                        combine(z.clone(), s2.clone()),
                    ),
                    node.dtype(),
                    node.span(),
                );
                return chosen;
            }
        }
        node
    }
}

/// True when `a and b` can never hold: `x == y` with `x != y`, `x` with `not x`,
/// `x <= y` with `y < x`, or constant ranges that do not meet.
fn contradicts(a: &Expr, b: &Expr) -> bool {
    for (p, q) in [(a, b), (b, a)] {
        if let (Some((x1, y1)), Some((x2, y2))) = (parts(p, BinaryOp::Eq), parts(q, BinaryOp::Ne)) {
            if same(x1, x2) && same(y1, y2) {
                return true;
            }
        }
        if let ExprKind::Not(inner) = q.kind() {
            if same(inner, p) {
                return true;
            }
        }
        if let (Some((x1, y1)), Some((y2, x2))) = (parts(p, BinaryOp::Le), parts(q, BinaryOp::Lt)) {
            if same(x1, x2) && same(y1, y2) {
                return true;
            }
        }
    }
    // Constant ranges on one expression: an empty intersection.
    let range = |e: &Expr| -> Option<(Expr, i64, i64)> {
        let ExprKind::Binary(op, l, r) = e.kind() else {
            return None;
        };
        match (op, l.as_int(), r.as_int()) {
            (BinaryOp::Lt, None, Some(c)) => Some((l.clone(), i64::MIN, c.checked_sub(1)?)),
            (BinaryOp::Le, None, Some(c)) => Some((l.clone(), i64::MIN, c)),
            (BinaryOp::Lt, Some(c), None) => Some((r.clone(), c.checked_add(1)?, i64::MAX)),
            (BinaryOp::Le, Some(c), None) => Some((r.clone(), c, i64::MAX)),
            _ => None,
        }
    };
    if let (Some((x1, lo1, hi1)), Some((x2, lo2, hi2))) = (range(a), range(b)) {
        if same(&x1, &x2) && lo1.max(lo2) > hi1.min(hi2) {
            return true;
        }
    }
    false
}
