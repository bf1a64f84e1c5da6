//! Proofs "for every value" shared by the binding and region checks: the
//! arith analyzer knows the range of every loop, iteration variable and
//! launched thread in scope and the conditions that hold (`if`, `T.where`);
//! a fact holds when the analyzer proves it symbolically, or when interval
//! evaluation of the variables that may be relaxed bounds it. Nothing is
//! sampled: a fact that is not proved is reported.

use crate::arith::iter_map::{detect_iter_map, IterMapLevel, IterSum};
use crate::arith::polynomial::PolynomialExpander;
use crate::arith::{Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_expr_children, substitute, Mutator};
use crate::ir::operators;
use crate::ir::visit::expr_uses_var;
use crate::ir::{BinaryOp, Expr, ExprKind, Range, Var};
use crate::source::Span;
use std::collections::HashMap;

/// How many min or max terms one proof of `expr >= 0` may split into arms.
const MAX_MIN_MAX_SPLITS: usize = 4;

/// What is known at one point of a walk.
#[derive(Default)]
pub(super) struct Facts {
    analyzer: Analyzer,
    /// Conditions that hold here, innermost last.
    constraints: Vec<Expr>,
    /// Variables relaxed to their whole range by interval evaluation.
    relaxed: VarMap<IntSet>,
    /// Calls without variables (`T.vscale()`) stand for one unknown value
    /// each; they become these variables so terms with them cancel.
    atoms: HashMap<String, Var>,
}

/// Replaces integer calls that mention no variable by one atom variable per
/// distinct call.
struct Atomizer<'a> {
    atoms: &'a mut HashMap<String, Var>,
}

impl Mutator for Atomizer<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Call { .. } = expr.kind() {
            let constant = !expr_uses_var(expr, &mut |_| true);
            if constant && expr.dtype().is_integer() && expr.dtype().is_scalar() {
                let key = super::spans::show(expr);
                let atom = self
                    .atoms
                    .entry(key.clone())
                    .or_insert_with(|| Var::new(key, expr.dtype(), Span::NONE));
                return atom.to_expr();
            }
        }
        mutate_expr_children(self, expr)
    }
}

/// What [`Facts::affine_value_ranges`] finds: `(min, max)` of each index
/// whose affine form bounds it, or `None` when the indices have no affine form.
pub(super) type AffineValueRanges = Option<Vec<Option<(Expr, Expr)>>>;

/// The variables of `expr`'s linear terms (`v`, `v * c`, `c * v`, in sums
/// and differences) with their coefficients times `sign`; other terms are skipped.
fn linear_terms(expr: &Expr, sign: i64, terms: &mut Vec<(Var, i64)>) {
    match expr.kind() {
        ExprKind::Var(var) => terms.push((var.clone(), sign)),
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            linear_terms(a, sign, terms);
            linear_terms(b, sign, terms);
        }
        ExprKind::Binary(BinaryOp::Sub, a, b) => {
            linear_terms(a, sign, terms);
            linear_terms(b, -sign, terms);
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            let (term, factor) = match (a.as_int(), b.as_int()) {
                (Some(factor), None) => (b, factor),
                (None, Some(factor)) => (a, factor),
                _ => return,
            };
            if let Some(sign) = sign.checked_mul(factor) {
                linear_terms(term, sign, terms);
            }
        }
        _ => {}
    }
}

/// Rewrites `e % k` to `e` and `e // k` to `0` where `0 <= e < k` follows
/// from the analyzer or from `bounds` (each used as it is, not tightened).
struct DivisionUnderBounds<'a> {
    facts: &'a mut Facts,
    bounds: &'a [(Expr, Expr)],
    changed: bool,
}

impl DivisionUnderBounds<'_> {
    /// The rewritten expression, or `None` when nothing changed.
    fn rewrite(mut self, expr: &Expr) -> Option<Expr> {
        let rewritten = self.mutate_expr(expr);
        self.changed.then_some(rewritten)
    }

    /// True when `0 <= dividend < divisor` always holds.
    fn below_divisor(&mut self, dividend: &Expr, divisor: &Expr) -> bool {
        if !self.facts.prove_nonnegative(dividend) {
            return false;
        }
        let below = operators::binary(BinaryOp::Lt, dividend.clone(), divisor.clone());
        below.is_ok_and(|below| self.facts.prove(&below))
            || self
                .facts
                .prove_below_through_bounds(dividend, divisor, self.bounds)
    }
}

impl Mutator for DivisionUnderBounds<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Binary(op @ (BinaryOp::FloorMod | BinaryOp::FloorDiv), a, b) = expr.kind()
        {
            if b.as_int().is_some_and(|k| k > 0) && self.below_divisor(a, b) {
                self.changed = true;
                return match op {
                    BinaryOp::FloorMod => self.mutate_expr(a),
                    _ => Expr::zero(expr.dtype()),
                };
            }
        }
        mutate_expr_children(self, expr)
    }
}

/// `a - b` with TVM's type matching; `None` when the types cannot be combined.
fn difference(a: &Expr, b: &Expr) -> Option<Expr> {
    operators::sub(a.clone(), b.clone()).ok()
}

impl Facts {
    /// Records that `var` takes the values of `range`; with `relax`, interval
    /// evaluation may replace it by that range.
    pub(super) fn bind_range(&mut self, var: &Var, range: &Range, relax: bool) {
        if !range.min.dtype().is_integer() || !range.extent.dtype().is_integer() {
            return;
        }
        let range = Range::new(self.atomize(&range.min), self.atomize(&range.extent));
        self.analyzer.bind(var, &range);
        if relax {
            self.relaxed.insert(var.clone(), IntSet::from_range(&range));
        }
    }

    /// Stops relaxing `var` (it left the scope of the walk).
    pub(super) fn unrelax(&mut self, var: &Var) {
        self.relaxed.remove(var);
    }

    /// Records that `var` equals `value` (a let).
    pub(super) fn bind_value(&mut self, var: &Var, value: &Expr) {
        if value.dtype().is_integer() && value.dtype().is_scalar() {
            self.analyzer.bind_value(var, value);
        }
    }

    /// Assumes `condition` until the matching [`Facts::pop_condition`].
    pub(super) fn push_condition(&mut self, condition: &Expr) {
        self.constraints.push(condition.clone());
    }

    /// Drops the innermost condition.
    pub(super) fn pop_condition(&mut self) {
        self.constraints.pop();
    }

    /// The conjunction of the conditions that hold, when there are any.
    fn assumption(&self) -> Option<Expr> {
        let mut conjunction: Option<Expr> = None;
        for condition in &self.constraints {
            if !condition.dtype().is_bool() || condition.dtype().is_vector() || condition.is_int(1)
            {
                continue;
            }
            conjunction = Some(match conjunction {
                None => condition.clone(),
                Some(previous) => {
                    operators::binary(BinaryOp::And, previous.clone(), condition.clone())
                        .unwrap_or(previous)
                }
            });
        }
        conjunction
    }

    /// True when `condition` holds for every value of the variables in scope
    /// where the assumed conditions hold.
    fn prove(&mut self, condition: &Expr) -> bool {
        let condition = self.atomize(condition);
        match self.assumption() {
            Some(assumption) => {
                let assumption = self.atomize(&assumption);
                self.analyzer
                    .with_constraint(&assumption, |analyzer| analyzer.can_prove(&condition))
            }
            None => self.analyzer.can_prove(&condition),
        }
    }

    /// True when `expr >= 0` holds for every value of the variables in scope
    /// where the conditions hold.
    pub(super) fn prove_nonnegative(&mut self, expr: &Expr) -> bool {
        self.prove_nonnegative_within(expr, MAX_MIN_MAX_SPLITS)
    }

    /// [`Facts::prove_nonnegative`] splitting at most `splits` more min or
    /// max terms, so that a simplifier rule that made one could not recurse
    /// without end.
    fn prove_nonnegative_within(&mut self, expr: &Expr, splits: usize) -> bool {
        let expr = &self.atomize(expr);
        let Ok(condition) = operators::binary(BinaryOp::Ge, expr.clone(), Expr::zero(expr.dtype()))
        else {
            return false;
        };
        if self.prove(&condition) {
            return true;
        }
        // A min or max term splits into its arms: `15 - s - T.min(16 - s, 2)`
        // is at least `15 - s - (16 - s)`, which the start cancels in.
        if splits > 0 {
            let simplified = self.analyzer.simplify(expr);
            if crate::arith::bounded_through_min_max_arms(&simplified, |arm| {
                self.prove_nonnegative_within(arm, splits - 1)
            }) {
                return true;
            }
        }
        // Relax the inner variables to their ranges and prove the lower bound.
        if self.relaxed.is_empty() {
            return false;
        }
        let set = self.analyzer.eval_set(expr, &self.relaxed);
        let Some(lower) = set.min() else {
            return false;
        };
        let lower = self.atomize(lower);
        match operators::binary(BinaryOp::Ge, lower.clone(), Expr::zero(lower.dtype())) {
            Ok(condition) => self.prove(&condition),
            Err(_) => false,
        }
    }

    /// True when the comparison `op(a, b)` always holds, tried as written (the
    /// form a `T.where` states it in) and as a difference.
    fn prove_comparison(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> bool {
        if let Ok(condition) = operators::binary(op, a.clone(), b.clone()) {
            if self.prove(&condition) {
                return true;
            }
        }
        let difference = match op {
            BinaryOp::Ge => difference(a, b),
            // a < b  as  b - a - 1 >= 0
            BinaryOp::Lt => difference(b, a).and_then(|d| difference(&d, &Expr::one(d.dtype()))),
            _ => None,
        };
        if difference.is_some_and(|d| self.prove_nonnegative(&d)) {
            return true;
        }
        op == BinaryOp::Lt && self.prove_below_through_constraints(a, b)
    }

    /// True when `value < end` follows from an assumed upper bound on a sum
    /// the value contains scaled: under `T.where(i_0 * 3 + f // 16 < 64)`,
    /// `i_0 * 96 + f * 2 + i_1` is `32 * (i_0 * 3 + f // 16) + (f % 16) * 2
    /// + i_1`, at most `32 * 63 + 31`, which interval evaluation of the
    /// binding alone (with `f` up to 47) cannot see.
    fn prove_below_through_constraints(&mut self, value: &Expr, end: &Expr) -> bool {
        let bounds = self.assumed_upper_bounds();
        if self.prove_below_through_equal_bounds(value, end, &bounds) {
            return true;
        }
        if self.prove_below_through_bounds(value, end, &bounds) {
            return true;
        }
        // Tightening costs a proof per division in the bounds: only when needed.
        let tightened = self.tighten_bounds(&bounds);
        self.prove_below_through_bounds(value, end, &tightened)
    }

    /// True when `value` is a bounded side plus a constant `c` once both are
    /// expanded as polynomials, and `limit + c < end`: a split of a symbolic
    /// extent states its predicate as `((a * 8 + b) * k + c) * 7 < n` and
    /// binds `a * (k * 56) + b * (k * 7) + c * 7`.
    fn prove_below_through_equal_bounds(
        &mut self,
        value: &Expr,
        end: &Expr,
        bounds: &[(Expr, Expr)],
    ) -> bool {
        let mut expander = PolynomialExpander::default();
        for (bounded, limit) in bounds {
            let Some(offset) = expander.constant_difference(value, bounded) else {
                continue;
            };
            let Ok(offset) = i64::try_from(offset) else {
                continue;
            };
            let shifted = operators::add(limit.clone(), Expr::int(offset, limit.dtype()));
            let below =
                shifted.and_then(|shifted| operators::binary(BinaryOp::Lt, shifted, end.clone()));
            if below.is_ok_and(|below| self.prove(&below)) {
                return true;
            }
        }
        false
    }

    /// [`Facts::prove_below_through_constraints`] with the bounds given.
    fn prove_below_through_bounds(
        &mut self,
        value: &Expr,
        end: &Expr,
        bounds: &[(Expr, Expr)],
    ) -> bool {
        let below_end = difference(end, value).and_then(|d| difference(&d, &Expr::one(d.dtype())));
        let Some(below_end) = below_end.filter(|_| !bounds.is_empty()) else {
            return false;
        };
        let mut value_terms = Vec::new();
        linear_terms(value, 1, &mut value_terms);
        let mut combined: Option<Expr> = None;
        let mut covered = Vec::new();
        for (bounded, limit) in bounds {
            let mut bounded_terms = Vec::new();
            linear_terms(bounded, 1, &mut bounded_terms);
            // value = k * bounded + rest <= k * limit + rest for k > 0, so it
            // suffices that end - 1 - k * limit - rest >= 0 everywhere.
            let mut scales: Vec<i64> = bounded_terms
                .iter()
                .filter(|(_, coefficient)| *coefficient > 0)
                .filter_map(|(var, coefficient)| {
                    let (_, in_value) = value_terms.iter().find(|(v, _)| v == var)?;
                    (*in_value > 0 && in_value % coefficient == 0).then(|| in_value / coefficient)
                })
                .collect();
            scales.sort_unstable();
            scales.dedup();
            // end - 1 - (k * limit + rest) = (end - 1 - value) + k * (bounded - limit)
            let Some(over_limit) = difference(bounded, limit) else {
                continue;
            };
            // A bound over variables an earlier one covered would count them twice.
            let disjoint = bounded_terms.iter().all(|(var, _)| !covered.contains(var));
            if let (Some(first), true) = (scales.first(), disjoint) {
                covered.extend(bounded_terms.iter().map(|(var, _)| var.clone()));
                let scaled = operators::mul(Expr::int(*first, value.dtype()), over_limit.clone());
                combined = match (combined, scaled) {
                    (Some(sum), Ok(scaled)) => operators::add(sum, scaled).ok(),
                    (None, Ok(scaled)) => Some(scaled),
                    (sum, Err(_)) => sum,
                };
            }
            for scale in scales {
                let k = Expr::int(scale, value.dtype());
                let slack = operators::mul(k, over_limit.clone())
                    .and_then(|scaled| operators::add(below_end.clone(), scaled));
                if slack.is_ok_and(|slack| self.prove_nonnegative(&self.analyzer.simplify(&slack)))
                {
                    return true;
                }
            }
        }
        // Every bound at once: a unit loop split twice under one fused loop
        // binds `i_0 * 8 + x + y` with `x <= 7` and `y <= 0` each in the
        // `T.where`; each term k * (bounded - limit) is at most zero.
        combined
            .and_then(|sum| operators::add(below_end, sum).ok())
            .is_some_and(|slack| self.prove_nonnegative(&self.analyzer.simplify(&slack)))
    }

    /// The bounds whose bounded side changes once each `e % k` and `e // k`
    /// in it is read under the other bounds: with `x < 16` also assumed,
    /// `x % 16 < 1` says `x < 1` (a unit loop split by 16 and fused).
    fn tighten_bounds(&mut self, bounds: &[(Expr, Expr)]) -> Vec<(Expr, Expr)> {
        let mut tightened = Vec::new();
        for (bounded, limit) in bounds {
            let rewritten = DivisionUnderBounds {
                facts: self,
                bounds,
                changed: false,
            }
            .rewrite(bounded);
            if let Some(rewritten) = rewritten {
                tightened.push((self.analyzer.simplify(&rewritten), limit.clone()));
            }
        }
        tightened
    }

    /// The assumed conditions of the form `bounded <= limit` on integers
    /// (`a < b` read as `a <= b - 1`), conjunctions taken apart.
    fn assumed_upper_bounds(&self) -> Vec<(Expr, Expr)> {
        fn collect(condition: &Expr, out: &mut Vec<(Expr, Expr)>) {
            let ExprKind::Binary(op, a, b) = condition.kind() else {
                return;
            };
            let (bounded, limit, strict) = match op {
                BinaryOp::And => {
                    collect(a, out);
                    collect(b, out);
                    return;
                }
                BinaryOp::Lt => (a, b, true),
                BinaryOp::Le => (a, b, false),
                BinaryOp::Gt => (b, a, true),
                BinaryOp::Ge => (b, a, false),
                _ => return,
            };
            if !bounded.dtype().is_integer() || !bounded.dtype().is_scalar() {
                return;
            }
            let limit = if strict {
                match operators::sub(limit.clone(), Expr::one(limit.dtype())) {
                    Ok(limit) => limit,
                    Err(_) => return,
                }
            } else {
                limit.clone()
            };
            out.push((bounded.clone(), limit));
        }
        let mut bounds = Vec::new();
        for condition in &self.constraints {
            collect(condition, &mut bounds);
        }
        bounds
    }

    /// True when `a >= b` always holds.
    pub(super) fn prove_greater_equal(&mut self, a: &Expr, b: &Expr) -> bool {
        self.prove_comparison(BinaryOp::Ge, a, b)
    }

    /// True when `low <= value < low + extent` always holds.
    pub(super) fn prove_inside(&mut self, value: &Expr, range: &Range) -> bool {
        self.prove_values_inside(value, value, range)
    }

    /// True when `min..=max` always lies inside `low..low + extent`.
    pub(super) fn prove_values_inside(&mut self, min: &Expr, max: &Expr, range: &Range) -> bool {
        let Ok(end) = range.end() else {
            return false;
        };
        self.prove_greater_equal(min, &range.min) && self.prove_comparison(BinaryOp::Lt, max, &end)
    }

    /// The values `expr` takes, as text for a message (`0..=127`, `1..=n`).
    pub(super) fn describe_values(&self, expr: &Expr) -> String {
        let set = self.analyzer.int_set(expr);
        let end = |e: Option<&Expr>| e.map(|e| self.analyzer.simplify(e));
        let (low, high) = (end(set.min()), end(set.max()));
        let bound = self.analyzer.const_int_bound(expr);
        let limit = |v: i64| {
            let dtype = expr.dtype();
            let max = if dtype.bits >= 64 {
                i64::MAX
            } else {
                (1i64 << (dtype.bits.max(1) - 1)) - 1
            };
            v.abs() >= max
        };
        let text = |symbolic: Option<Expr>, constant: i64, infinity: &str| match symbolic {
            Some(e) if e.as_int().is_some() || limit(constant) => super::spans::show(&e),
            _ if !limit(constant) => constant.to_string(),
            Some(e) => super::spans::show(&e),
            None => infinity.to_string(),
        };
        format!(
            "{}..={}",
            text(low, bound.min, "-inf"),
            text(high, bound.max, "+inf")
        )
    }

    fn atomize(&mut self, expr: &Expr) -> Expr {
        Atomizer {
            atoms: &mut self.atoms,
        }
        .mutate_expr(expr)
    }

    /// The simplified form of an expression, for messages.
    pub(super) fn simplify(&self, expr: &Expr) -> Expr {
        self.analyzer.simplify(expr)
    }

    /// `indices`, `loops` and `predicate` with every loop the assumed
    /// conditions keep at its first value replaced by that value: a
    /// `T.where(u * 12 + g < 1)` leaves `g` of `0:12` only 0, and `f + g`
    /// is then a map of `f` alone.
    fn pin_loops(
        &mut self,
        indices: &[Expr],
        loops: &[(Var, Range)],
        predicate: &Expr,
    ) -> (Vec<Expr>, Vec<(Var, Range)>, Expr) {
        let mut pinned = VarMap::default();
        let mut loops = loops.to_vec();
        for (var, range) in &mut loops {
            let (Some(_), Some(extent)) = (range.min.as_int(), range.extent.as_int()) else {
                continue;
            };
            let mentioned = expr_uses_var(predicate, &mut |v| v == var);
            if extent <= 1 || !mentioned {
                continue;
            }
            let next = operators::add(range.min.clone(), Expr::one(range.min.dtype()));
            if next.is_ok_and(|next| self.prove_comparison(BinaryOp::Lt, &var.to_expr(), &next)) {
                pinned.insert(var.clone(), range.min.clone());
                *range = Range::new(range.min.clone(), Expr::one(range.extent.dtype()));
            }
        }
        if pinned.is_empty() {
            return (indices.to_vec(), loops, predicate.clone());
        }
        let indices = indices
            .iter()
            .map(|index| substitute(index, &pinned))
            .collect();
        let predicate = self.analyzer.simplify(&substitute(predicate, &pinned));
        (indices, loops, predicate)
    }

    /// The values each of `indices` takes as `(min, max)`, read off their
    /// affine form over `loops` under `predicate` (TVM's `DetectIterMap`):
    /// a fused binding such as `f // m` over `f < n * m` takes `0..=n - 1`,
    /// which interval evaluation cannot see without knowing `m > 0`.
    /// `None` when the indices are not an affine map of the loops; an entry
    /// is `None` when a digit's scale may be negative.
    pub(super) fn affine_value_ranges(
        &mut self,
        indices: &[Expr],
        loops: &[(Var, Range)],
        predicate: &Expr,
    ) -> AffineValueRanges {
        let (indices, loops, predicate) = self.pin_loops(indices, loops, predicate);
        let result = detect_iter_map(
            &indices,
            &loops,
            &predicate,
            IterMapLevel::Surjective,
            &self.analyzer,
            false,
        );
        if !result.is_success() || result.indices.len() != indices.len() {
            return None;
        }
        let range_of = |sum: &IterSum| {
            let mut max = sum.base.clone();
            for split in &sum.args {
                if split.scale.as_int().is_none_or(|scale| scale < 0) {
                    return None;
                }
                // A digit takes 0..=extent - 1, scaled.
                let last = operators::sub(split.extent.clone(), Expr::one(split.extent.dtype()));
                let term = last.and_then(|last| operators::mul(last, split.scale.clone()));
                max = operators::add(max, term.ok()?).ok()?;
            }
            Some((sum.base.clone(), self.analyzer.simplify(&max)))
        };
        Some(result.indices.iter().map(range_of).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::Facts;
    use crate::arith::build;
    use crate::ir::{DataType, Expr, Range, Var};
    use crate::source::Span;

    /// `16 - s - T.min(16 - s, 2)`: the room after a region clamped to the
    /// end of a 16-element buffer, with `s` in `[0, 16)`.
    fn room_after_clamp(s: &Var, length: i64) -> Expr {
        let clamp = build::binary(
            crate::ir::BinaryOp::Min,
            build::sub(Expr::i32(length), s.to_expr()),
            Expr::i32(2),
        );
        build::sub(build::sub(Expr::i32(16), s.to_expr()), clamp)
    }

    #[test]
    fn a_min_term_splits_into_arms_where_the_start_cancels() {
        let s = Var::new("s", DataType::int32(), Span::NONE);
        let mut facts = Facts::default();
        facts.bind_range(&s, &Range::from_extent(Expr::i32(16)), false);
        assert!(facts.prove_nonnegative(&room_after_clamp(&s, 16)));
        // Clamped one element too late, the region may end past the buffer.
        assert!(!facts.prove_nonnegative(&room_after_clamp(&s, 17)));
    }
}
