//! Integer arithmetic analysis: constant bounds, modular sets, a canonical
//! simplifier, interval sets and affine iterator maps, after TVM's `arith`.
//!
//! [`Analyzer`] is the entry point: bind loop variables to ranges, then ask it
//! to simplify index expressions, prove conditions, bound values or evaluate
//! the set of values an expression takes.

pub(crate) mod build;
mod canonical_form;
pub mod const_int_bound;
mod final_form;
pub mod int_set;
pub mod iter_map;
pub mod modular_set;
pub mod polynomial;
mod rewrite_rules;
mod shifted_quotients;
mod simplify;

#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod simplify_tests;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tvm_parity_tests;

pub(crate) use build::{floor_div_i128, floor_div_i64, floor_mod_i128, floor_mod_i64};
pub use const_int_bound::{ConstIntBound, ConstIntBoundAnalyzer};
pub use int_set::{eval_set, IntSet};
pub use iter_map::{
    detect_iter_map, is_affine_binding, IterMapError, IterMapLevel, IterMapResult, IterMark,
    IterSplit, IterSum,
};
pub use modular_set::{ModularSet, ModularSetAnalyzer};
pub(crate) use shifted_quotients::merge_remainder_quotients;

use crate::ir::identity::VarMap;
use crate::ir::{BinaryOp, Expr, ExprKind, Range, Var};
use simplify::Simplifier;

/// What is known about variables, and the queries that use it.
///
/// Facts come from [`Analyzer::bind`] (loop ranges), [`Analyzer::bind_value`]
/// (a variable equal to an expression) and [`Analyzer::with_constraint`]
/// (conditions that hold in a scope).
#[derive(Clone, Debug, Default)]
pub struct Analyzer {
    pub(crate) bounds: ConstIntBoundAnalyzer,
    pub(crate) modular: ModularSetAnalyzer,
    pub(crate) var_values: VarMap<Expr>,
    pub(crate) int_set_domains: VarMap<IntSet>,
    pub(crate) literal_constraints: Vec<Expr>,
}

impl Analyzer {
    /// An analyzer that knows nothing.
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// Records that `var` takes the values `[min, min + extent)`; a range of one
    /// value binds the variable to that value.
    pub fn bind(&mut self, var: &Var, range: &Range) {
        if range.extent.as_int() == Some(1) {
            self.bind_value(var, &range.min);
            return;
        }
        self.bounds.bind(var, range);
        self.int_set_domains
            .insert(var.clone(), IntSet::from_range(range));
    }

    /// TVM's `MarkGlobalNonNegValue`: `value` (a buffer's extent) is at least
    /// zero. For `c * n + k` with `c > 0` this sets `n >= -k / c` as a constant
    /// bound only, not a range, so symbolic-bound proofs keep `n` symbolic
    /// (`f % n < n` relaxes to `n - (n - 1) >= 1`).
    pub fn mark_global_non_negative(&mut self, value: &Expr) {
        let mut terms = Vec::new();
        rewrite_rules::flatten_sum(value, &mut terms);
        let mut offset = 0i64;
        let mut symbols = Vec::new();
        for (op, term) in terms {
            let sign = if op == BinaryOp::Sub { -1 } else { 1 };
            match term.as_int() {
                Some(v) => offset = offset.saturating_add(sign * v),
                None => symbols.push((sign, term)),
            }
        }
        let [(1, symbol)] = symbols.as_slice() else {
            return;
        };
        let (var, scale) = match symbol.kind() {
            ExprKind::Binary(BinaryOp::Mul, a, b) => match (a.as_var(), b.as_int()) {
                (Some(var), Some(scale)) => (var, scale),
                _ => match (b.as_var(), a.as_int()) {
                    (Some(var), Some(scale)) => (var, scale),
                    _ => return,
                },
            },
            _ => match symbol.as_var() {
                Some(var) => (var, 1),
                None => return,
            },
        };
        if scale <= 0 || !build::is_index_type(var.dtype()) {
            return;
        }
        // TVM sets `n >= -k` whatever `c` is; `c * n + k >= 0` only gives
        // `n >= ceil(-k / c)`, the same for `c == 1` and sound for the rest.
        let Some(quotient) = floor_div_i64(offset, scale) else {
            return;
        };
        let bound = ConstIntBound {
            min: quotient.saturating_neg(),
            max: ConstIntBound::POS_INF,
        };
        self.bounds.update(var, bound);
    }

    /// Records that `var` equals `value`: the simplifier substitutes it.
    pub fn bind_value(&mut self, var: &Var, value: &Expr) {
        let simplified = self.simplify(value);
        let bound = self.const_int_bound(&simplified);
        let modular = self.modular_set(&simplified);
        let set = self.int_set(&simplified);
        self.bounds.update(var, bound);
        self.modular.update(var, modular);
        self.int_set_domains.insert(var.clone(), set);
        self.var_values.insert(var.clone(), simplified);
    }

    /// Runs `f` with `condition` assumed to hold (the body of an `if`, a `T.where`).
    pub fn with_constraint<R>(
        &mut self,
        condition: &Expr,
        f: impl FnOnce(&mut Analyzer) -> R,
    ) -> R {
        let simplified = self.simplify(condition);
        let bound_count = self.bounds.push_constraints(&simplified);
        let facts = literal_facts(&simplified);
        let fact_count = facts.len();
        self.literal_constraints.extend(facts);
        let result = f(self);
        self.bounds.pop_constraints(bound_count);
        let keep = self.literal_constraints.len().saturating_sub(fact_count);
        self.literal_constraints.truncate(keep);
        result
    }

    /// The simplified expression (canonical form for integer index arithmetic).
    pub fn simplify(&self, expr: &Expr) -> Expr {
        if expr.as_int().is_some() {
            return expr.clone();
        }
        Simplifier::new(self).simplify(expr)
    }

    /// True when `condition` simplifies to true under what is known.
    pub fn can_prove(&self, condition: &Expr) -> bool {
        if let Some(v) = condition.as_int() {
            return v != 0;
        }
        // Iterator maps ask about constant extents often: fold those directly.
        if let ExprKind::Binary(op, a, b) = condition.kind() {
            if a.as_int().is_some() && b.as_int().is_some() {
                if let Some(v) = build::try_fold(*op, a, b).and_then(|folded| folded.as_int()) {
                    return v != 0;
                }
            }
        }
        self.simplify(condition).as_int().is_some_and(|v| v != 0)
    }

    /// [`Analyzer::can_prove`], and for a comparison that it cannot prove,
    /// TVM's `ProofStrength::kSymbolicBound`: the smallest value of the
    /// difference over the ranges given to [`Analyzer::bind`], found as a
    /// symbolic bound and then simplified, is provably large enough
    /// (`(f0 * 16 + f1) < n * 64` when `f0 < n * 4` and `f1 < 16`).
    pub fn can_prove_with_symbolic_bound(&self, condition: &Expr) -> bool {
        if self.can_prove(condition) {
            return true;
        }
        let ExprKind::Binary(op, a, b) = condition.kind() else {
            return false;
        };
        let (difference, lower_bound) = match op {
            BinaryOp::Lt => (build::sub(b.clone(), a.clone()), 1),
            BinaryOp::Le => (build::sub(b.clone(), a.clone()), 0),
            BinaryOp::Gt => (build::sub(a.clone(), b.clone()), 1),
            BinaryOp::Ge => (build::sub(a.clone(), b.clone()), 0),
            _ => return false,
        };
        if !build::is_index_type(difference.dtype()) {
            return false;
        }
        let set = self.int_set(&self.simplify(&difference));
        match set.min() {
            Some(min) if set.has_lower_bound() => {
                let min = self.simplify(min);
                if self.const_int_bound(&min).min >= lower_bound {
                    return true;
                }
                // `max(a, b) + r >= l` holds where `a + r >= l` does: a loop
                // bounded by `max(n - 1, 0) + 1` has `n - 1 - i >= 0` below it.
                bounded_through_min_max_arms(&min, |arm| {
                    self.const_int_bound(&self.simplify(arm)).min >= lower_bound
                })
            }
            _ => false,
        }
    }

    /// True when `a == b` is provable.
    pub fn can_prove_equal(&self, a: &Expr, b: &Expr) -> bool {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            return x == y;
        }
        let difference = build::sub(a.clone(), b.clone());
        self.simplify(&difference).as_int() == Some(0)
    }

    /// True when `expr >= lower` is provable from constant bounds.
    pub fn can_prove_greater_equal(&self, expr: &Expr, lower: i64) -> bool {
        if let Some(v) = expr.as_int() {
            return v >= lower;
        }
        self.const_int_bound(&self.simplify(expr)).min >= lower
    }

    /// True when `expr < upper` is provable from constant bounds.
    pub fn can_prove_less(&self, expr: &Expr, upper: i64) -> bool {
        if let Some(v) = expr.as_int() {
            return v < upper;
        }
        self.const_int_bound(&self.simplify(expr)).max < upper
    }

    /// The constant bound of `expr`'s values.
    pub fn const_int_bound(&self, expr: &Expr) -> ConstIntBound {
        self.bounds.context(&[], Some(&self.modular)).bound(expr)
    }

    /// The modular set of `expr`'s values.
    pub fn modular_set(&self, expr: &Expr) -> ModularSet {
        let context = self.bounds.context(&[], Some(&self.modular));
        self.modular.eval_with_bounds(expr, &context)
    }

    /// The values `expr` takes when each variable in `dom_map` ranges over its set
    /// (other variables stay symbolic).
    pub fn eval_set(&self, expr: &Expr, dom_map: &VarMap<IntSet>) -> IntSet {
        int_set::eval_set_with(self, expr, dom_map)
    }

    /// The values `expr` takes over the ranges given to [`Analyzer::bind`].
    pub fn int_set(&self, expr: &Expr) -> IntSet {
        int_set::eval_set_with(self, expr, &self.int_set_domains)
    }
}

/// The facts a simplified condition contributes to literal matching: each
/// conjunct, and for comparisons the negation marked false.
pub(crate) fn literal_facts(condition: &Expr) -> Vec<Expr> {
    let mut facts = Vec::new();
    for part in const_int_bound::split_conjunction(condition) {
        if part.as_int().is_some() {
            continue;
        }
        if let ExprKind::Binary(op, a, b) = part.kind() {
            let negation = match op {
                BinaryOp::Lt => Some(build::node(BinaryOp::Le, b.clone(), a.clone())),
                BinaryOp::Le => Some(build::node(BinaryOp::Lt, b.clone(), a.clone())),
                BinaryOp::Gt => Some(build::node(BinaryOp::Le, a.clone(), b.clone())),
                BinaryOp::Ge => Some(build::node(BinaryOp::Lt, a.clone(), b.clone())),
                BinaryOp::Eq => Some(build::node(BinaryOp::Ne, a.clone(), b.clone())),
                BinaryOp::Ne => Some(build::node(BinaryOp::Eq, a.clone(), b.clone())),
                _ => None,
            };
            if let Some(negation) = negation {
                let dtype = negation.dtype();
                facts.push(Expr::new(
                    ExprKind::Not(negation),
                    dtype,
                    crate::source::Span::NONE,
                ));
            }
        }
        facts.push(part);
    }
    facts
}

/// `expr` with its first min or max term (reached through sums and
/// differences) replaced by one arm and by the other, and whether a lower
/// bound of either version bounds `expr` (`true`: a max added or a min
/// subtracted is at least either arm) or only one of both (`false`: a min
/// added or a max subtracted is one of them).
pub(crate) fn min_max_arms(expr: &Expr) -> Option<(Expr, Expr, bool)> {
    fn walk(expr: &Expr, positive: bool) -> Option<(Expr, Expr, bool)> {
        match expr.kind() {
            ExprKind::Binary(BinaryOp::Max, a, b) => Some((a.clone(), b.clone(), positive)),
            ExprKind::Binary(BinaryOp::Min, a, b) => Some((a.clone(), b.clone(), !positive)),
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), left, right) => {
                let rebuild = |l: Expr, r: Expr| build::binary(*op, l, r);
                if let Some((a, b, either)) = walk(left, positive) {
                    return Some((rebuild(a, right.clone()), rebuild(b, right.clone()), either));
                }
                let right_positive = (*op == BinaryOp::Add) == positive;
                let (a, b, either) = walk(right, right_positive)?;
                Some((rebuild(left.clone(), a), rebuild(left.clone(), b), either))
            }
            _ => None,
        }
    }
    walk(expr, true)
}

/// Whether a lower bound that `bounded` proves of an expression holds of
/// `expr` by its first min or max term ([`min_max_arms`]): of either arm
/// where that bounds `expr`, of both arms otherwise. `false` when `expr`
/// has no such term.
pub(crate) fn bounded_through_min_max_arms(
    expr: &Expr,
    mut bounded: impl FnMut(&Expr) -> bool,
) -> bool {
    match min_max_arms(expr) {
        Some((a, b, true)) => bounded(&a) || bounded(&b),
        Some((a, b, false)) => bounded(&a) && bounded(&b),
        None => false,
    }
}
