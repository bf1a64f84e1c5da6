//! Integer sets: intervals with symbolic, inclusive bounds (either end may be
//! unbounded), and the evaluation of the values an expression takes when its
//! variables range over such sets (TVM's `IntervalSet` and `EvalSet`).
//!
//! Results are built with TVM's operator semantics (constant folding only);
//! callers simplify them, as [`IntSet::cover_range`] does.

use super::build;
use super::Analyzer;
use crate::ir::identity::{VarMap, VarSet};
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{operators, BinaryOp, DataType, Expr, ExprKind, Range, Var};

/// A set of integers: empty, or every value between two symbolic bounds.
#[derive(Clone, Debug)]
pub enum IntSet {
    /// No value at all.
    Nothing,
    /// The values `min..=max`; `None` is an unbounded end.
    Interval {
        /// The smallest value, or `None` for negative infinity.
        min: Option<Expr>,
        /// The largest value, or `None` for positive infinity.
        max: Option<Expr>,
    },
}

impl IntSet {
    /// Every integer.
    pub fn everything() -> IntSet {
        IntSet::Interval {
            min: None,
            max: None,
        }
    }
    /// The empty set.
    pub fn nothing() -> IntSet {
        IntSet::Nothing
    }
    /// The single value `value`.
    pub fn single_point(value: Expr) -> IntSet {
        IntSet::Interval {
            min: Some(value.clone()),
            max: Some(value),
        }
    }
    /// The values `min..=max`.
    pub fn interval(min: Expr, max: Expr) -> IntSet {
        IntSet::Interval {
            min: Some(min),
            max: Some(max),
        }
    }
    /// The values `min..min + extent`.
    pub fn from_min_extent(min: Expr, extent: Expr) -> IntSet {
        if extent.as_int() == Some(1) {
            return IntSet::single_point(min);
        }
        let one = build::int(1, extent.dtype());
        let max = build::sub(build::add(extent, min.clone()), one);
        IntSet::interval(min, max)
    }
    /// The values of a range `[min, min + extent)`.
    pub fn from_range(range: &Range) -> IntSet {
        IntSet::from_min_extent(range.min.clone(), range.extent.clone())
    }

    /// The lower bound, when there is one.
    pub fn min(&self) -> Option<&Expr> {
        match self {
            IntSet::Interval { min, .. } => min.as_ref(),
            IntSet::Nothing => None,
        }
    }
    /// The upper bound, when there is one.
    pub fn max(&self) -> Option<&Expr> {
        match self {
            IntSet::Interval { max, .. } => max.as_ref(),
            IntSet::Nothing => None,
        }
    }
    /// True when the set has a finite lower bound.
    pub fn has_lower_bound(&self) -> bool {
        self.min().is_some()
    }
    /// True when the set has a finite upper bound.
    pub fn has_upper_bound(&self) -> bool {
        self.max().is_some()
    }
    /// True for the empty set.
    pub fn is_nothing(&self) -> bool {
        matches!(self, IntSet::Nothing)
    }
    /// True for the set of every integer.
    pub fn is_everything(&self) -> bool {
        matches!(
            self,
            IntSet::Interval {
                min: None,
                max: None
            }
        )
    }
    /// True when both bounds are the same expression.
    pub fn is_single_point(&self) -> bool {
        match self {
            IntSet::Interval {
                min: Some(a),
                max: Some(b),
            } => a.same_as(b) || expr_deep_equal(a, b),
            _ => false,
        }
    }
    /// The value of a single-point set.
    pub fn point_value(&self) -> Option<&Expr> {
        if self.is_single_point() {
            self.min()
        } else {
            None
        }
    }
    /// True when the bounds are provably equal under `analyzer`.
    pub fn can_prove_single_point(&self, analyzer: &Analyzer) -> bool {
        match self {
            IntSet::Interval {
                min: Some(a),
                max: Some(b),
            } => self.is_single_point() || analyzer.can_prove_equal(a, b),
            _ => false,
        }
    }

    /// The range `[min, max + 1)` covering the set, simplified; `fallback` when
    /// the set is unbounded or empty (TVM's `CoverRange`).
    pub fn cover_range(&self, fallback: &Range) -> Range {
        match self {
            IntSet::Interval {
                min: Some(min),
                max: Some(max),
            } => {
                let analyzer = Analyzer::new();
                let one = build::int(1, max.dtype());
                let extent = build::sub(build::add(max.clone(), one), min.clone());
                Range::new(analyzer.simplify(min), analyzer.simplify(&extent))
            }
            _ => fallback.clone(),
        }
    }

    /// True when the set is exactly the values of `range`.
    pub fn match_range(&self, range: &Range) -> bool {
        let (Some(min), Some(max)) = (self.min(), self.max()) else {
            return false;
        };
        let analyzer = Analyzer::new();
        let one = build::int(1, range.extent.dtype());
        let range_max = build::sub(build::add(range.extent.clone(), range.min.clone()), one);
        analyzer.can_prove_equal(min, &range.min) && analyzer.can_prove_equal(max, &range_max)
    }

    /// The smallest interval holding both sets (bounds not simplified).
    pub fn union_with(&self, other: &IntSet) -> IntSet {
        match (self, other) {
            (IntSet::Nothing, _) => other.clone(),
            (_, IntSet::Nothing) => self.clone(),
            _ => IntSet::Interval {
                min: lower_min(self.min(), other.min()),
                max: upper_max(self.max(), other.max()),
            },
        }
    }

    /// The values in both sets (bounds not simplified); empty when provably so.
    pub fn intersect_with(&self, other: &IntSet, analyzer: &Analyzer) -> IntSet {
        let (IntSet::Interval { .. }, IntSet::Interval { .. }) = (self, other) else {
            return IntSet::Nothing;
        };
        let min = lower_max(self.min(), other.min());
        let max = upper_min(self.max(), other.max());
        if let (Some(lo), Some(hi)) = (&min, &max) {
            let integers = lo.dtype().is_integer() && hi.dtype().is_integer();
            if integers && analyzer.can_prove(&build::node(BinaryOp::Lt, hi.clone(), lo.clone())) {
                return IntSet::Nothing;
            }
        }
        IntSet::Interval { min, max }
    }
}

/// The union of the sets, with simplified bounds.
pub fn union(sets: &[IntSet]) -> IntSet {
    let Some(first) = sets.first() else {
        return IntSet::Nothing;
    };
    if sets.len() == 1 {
        return first.clone();
    }
    let combined = sets[1..]
        .iter()
        .fold(first.clone(), |acc, s| acc.union_with(s));
    simplify_bounds(combined, &Analyzer::new())
}

/// The intersection of the sets, with simplified bounds.
pub fn intersect(sets: &[IntSet]) -> IntSet {
    let Some(first) = sets.first() else {
        return IntSet::Nothing;
    };
    if sets.len() == 1 {
        return first.clone();
    }
    let analyzer = Analyzer::new();
    let combined = sets[1..]
        .iter()
        .fold(first.clone(), |acc, s| acc.intersect_with(s, &analyzer));
    simplify_bounds(combined, &analyzer)
}

fn simplify_bounds(set: IntSet, analyzer: &Analyzer) -> IntSet {
    match set {
        IntSet::Nothing => IntSet::Nothing,
        IntSet::Interval { min, max } => IntSet::Interval {
            min: min.map(|e| analyzer.simplify(&e)),
            max: max.map(|e| analyzer.simplify(&e)),
        },
    }
}

/// The smaller of two lower bounds (`None` is negative infinity).
fn lower_min(a: Option<&Expr>, b: Option<&Expr>) -> Option<Expr> {
    Some(build::min(a?.clone(), b?.clone()))
}
/// The larger of two lower bounds.
fn lower_max(a: Option<&Expr>, b: Option<&Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(build::max(a.clone(), b.clone())),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}
/// The larger of two upper bounds (`None` is positive infinity).
fn upper_max(a: Option<&Expr>, b: Option<&Expr>) -> Option<Expr> {
    Some(build::max(a?.clone(), b?.clone()))
}
/// The smaller of two upper bounds.
fn upper_min(a: Option<&Expr>, b: Option<&Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(build::min(a.clone(), b.clone())),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

/// The values `expr` takes when each variable of `dom_map` ranges over its set;
/// variables not in the map stay symbolic.
pub fn eval_set(expr: &Expr, dom_map: &VarMap<IntSet>) -> IntSet {
    eval_set_with(&Analyzer::new(), expr, dom_map)
}

/// The values a range's members take: `[min, min + extent - 1]` relaxed over `dom_map`.
pub fn eval_range(range: &Range, dom_map: &VarMap<IntSet>) -> IntSet {
    let analyzer = Analyzer::new();
    if range.min.dtype().is_integer()
        && analyzer.can_prove_equal(&range.extent, &Expr::int(1, range.extent.dtype()))
    {
        return eval_set(&range.min, dom_map);
    }
    let one = build::int(1, range.extent.dtype());
    let last = analyzer.simplify(&build::sub(
        build::add(range.min.clone(), range.extent.clone()),
        one,
    ));
    let mut evaluator = SetEvaluator::new(&analyzer, dom_map);
    evaluator.relax(&IntSet::interval(range.min.clone(), last))
}

/// [`eval_set`] with `analyzer` proving signs.
pub(crate) fn eval_set_with(analyzer: &Analyzer, expr: &Expr, dom_map: &VarMap<IntSet>) -> IntSet {
    SetEvaluator::new(analyzer, dom_map).eval(expr)
}

struct SetEvaluator<'a> {
    analyzer: &'a Analyzer,
    dom_map: &'a VarMap<IntSet>,
    relax_depth: usize,
    relaxed: VarMap<IntSet>,
    relaxing: VarSet,
}

impl<'a> SetEvaluator<'a> {
    fn new(analyzer: &'a Analyzer, dom_map: &'a VarMap<IntSet>) -> SetEvaluator<'a> {
        SetEvaluator {
            analyzer,
            dom_map,
            relax_depth: 0,
            relaxed: Default::default(),
            relaxing: Default::default(),
        }
    }

    /// Relaxes a set whose bounds may mention variables of the domain map.
    fn relax(&mut self, set: &IntSet) -> IntSet {
        // Bounds that mention each other would otherwise expand forever.
        if self.relax_depth >= self.dom_map.len() {
            return set.clone();
        }
        let IntSet::Interval { min, max } = set else {
            return IntSet::Nothing;
        };
        self.relax_depth += 1;
        let min = min.as_ref().and_then(|m| self.eval(m).min().cloned());
        let max = max.as_ref().and_then(|m| self.eval(m).max().cloned());
        self.relax_depth -= 1;
        IntSet::Interval { min, max }
    }

    fn eval(&mut self, expr: &Expr) -> IntSet {
        match expr.kind() {
            ExprKind::Int(_) => IntSet::single_point(expr.clone()),
            ExprKind::Var(var) => self.eval_var(expr, var),
            ExprKind::Binary(op, a, b) => {
                let (set_a, set_b) = (self.eval(a), self.eval(b));
                let unchanged = |set: &IntSet, e: &Expr| matches!(set, IntSet::Interval { min: Some(lo), max: Some(hi) } if lo.same_as(e) && hi.same_as(e));
                if unchanged(&set_a, a) && unchanged(&set_b, b) {
                    return IntSet::single_point(expr.clone());
                }
                self.combine(*op, expr, set_a, set_b)
            }
            ExprKind::Not(value) => {
                let set = self.eval(value);
                match set.point_value() {
                    Some(point) => IntSet::single_point(build::not(point.clone())),
                    None => bool_range(expr.dtype()),
                }
            }
            ExprKind::Select(_, a, b) => {
                let (true_set, false_set) = (self.eval(a), self.eval(b));
                false_set.union_with(&true_set)
            }
            ExprKind::Cast(value) => {
                let set = self.eval(value);
                let dtype = expr.dtype();
                match set {
                    IntSet::Nothing => IntSet::Nothing,
                    IntSet::Interval { min, max } => IntSet::Interval {
                        min: min.map(|m| operators::cast(dtype, m)),
                        max: max.map(|m| operators::cast(dtype, m)),
                    },
                }
            }
            ExprKind::Load(load) => {
                if !expr.dtype().is_integer() {
                    return IntSet::everything();
                }
                // Loaded data is unknown once an index varies.
                let dom_map = self.dom_map;
                let varies = load
                    .indices
                    .iter()
                    .any(|index| expr_uses_var(index, &mut |v| dom_map.contains_key(v)));
                if varies {
                    IntSet::everything()
                } else {
                    IntSet::single_point(expr.clone())
                }
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let Some(stride) = stride.as_int() else {
                    return IntSet::everything();
                };
                let base_set = self.eval(base);
                let dtype = base.dtype();
                let span = build::int(stride.saturating_mul(i64::from(*lanes) - 1), dtype);
                let zero = build::int(0, dtype);
                let offsets = if stride > 0 {
                    IntSet::interval(zero, span)
                } else {
                    IntSet::interval(span, zero)
                };
                combine_add(base_set, offsets)
            }
            ExprKind::Broadcast { value, .. } => self.eval(value),
            _ => IntSet::everything(),
        }
    }

    fn eval_var(&mut self, expr: &Expr, var: &Var) -> IntSet {
        let Some(domain) = self.dom_map.get(var) else {
            return IntSet::single_point(expr.clone());
        };
        if let Some(point) = domain.point_value() {
            if point.as_var() == Some(var) {
                return domain.clone();
            }
        }
        if let Some(done) = self.relaxed.get(var) {
            return done.clone();
        }
        if self.relaxing.contains(var) {
            return domain.clone();
        }
        self.relaxing.insert(var.clone());
        let relaxed = self.relax(domain);
        self.relaxing.remove(var);
        self.relaxed.insert(var.clone(), relaxed.clone());
        relaxed
    }

    fn proves_non_negative(&self, expr: &Expr) -> bool {
        self.analyzer.can_prove_greater_equal(expr, 0)
    }

    fn proves_negative(&self, expr: &Expr) -> bool {
        let negated = build::sub(build::int(0, expr.dtype()), expr.clone());
        self.analyzer.can_prove_greater_equal(&negated, 1)
    }

    fn combine(&mut self, op: BinaryOp, expr: &Expr, a: IntSet, b: IntSet) -> IntSet {
        let dtype = expr.dtype();
        if let (Some(x), Some(y)) = (a.point_value(), b.point_value()) {
            return IntSet::single_point(build::binary(op, x.clone(), y.clone()));
        }
        if op.is_comparison() || op.is_logical() {
            return bool_range(dtype);
        }
        if a.is_nothing() {
            return a;
        }
        if b.is_nothing() {
            return b;
        }
        match op {
            BinaryOp::Add => combine_add(a, b),
            BinaryOp::Sub => IntSet::Interval {
                min: match (a.min(), b.max()) {
                    (Some(x), Some(y)) => Some(build::sub(x.clone(), y.clone())),
                    _ => None,
                },
                max: match (a.max(), b.min()) {
                    (Some(x), Some(y)) => Some(build::sub(x.clone(), y.clone())),
                    _ => None,
                },
            },
            BinaryOp::Mul => self.combine_mul(a, b),
            BinaryOp::Div | BinaryOp::FloorDiv => self.combine_div(op, a, b),
            BinaryOp::Mod => self.combine_truncated_mod(a, b),
            BinaryOp::FloorMod => self.combine_floor_mod(expr, a, b),
            BinaryOp::Max => IntSet::Interval {
                min: lower_max(a.min(), b.min()),
                max: upper_max(a.max(), b.max()),
            },
            BinaryOp::Min => IntSet::Interval {
                min: lower_min(a.min(), b.min()),
                max: upper_min(a.max(), b.max()),
            },
            _ => IntSet::everything(),
        }
    }

    fn combine_mul(&mut self, a: IntSet, b: IntSet) -> IntSet {
        let (a, b) = if a.is_single_point() { (b, a) } else { (a, b) };
        let Some(factor) = b.point_value().cloned() else {
            return IntSet::everything();
        };
        if factor.as_int() == Some(0) {
            return b;
        }
        if factor.as_int() == Some(1) {
            return a;
        }
        let scaled = |bound: Option<&Expr>| bound.map(|x| build::mul(x.clone(), factor.clone()));
        if self.proves_non_negative(&factor) {
            return IntSet::Interval {
                min: scaled(a.min()),
                max: scaled(a.max()),
            };
        }
        if self.proves_negative(&factor) {
            return IntSet::Interval {
                min: scaled(a.max()),
                max: scaled(a.min()),
            };
        }
        if let (Some(lo), Some(hi)) = (scaled(a.min()), scaled(a.max())) {
            return sign_dependent(&factor, lo, hi);
        }
        IntSet::everything()
    }

    fn combine_div(&mut self, op: BinaryOp, a: IntSet, b: IntSet) -> IntSet {
        let Some(divisor) = b.point_value().cloned() else {
            return IntSet::everything();
        };
        match divisor.as_int() {
            Some(0) => return IntSet::everything(),
            Some(1) => return a,
            _ => {}
        }
        let divided =
            |bound: Option<&Expr>| bound.map(|x| build::binary(op, x.clone(), divisor.clone()));
        if self.proves_non_negative(&divisor) {
            return IntSet::Interval {
                min: divided(a.min()),
                max: divided(a.max()),
            };
        }
        if self.proves_negative(&divisor) {
            return IntSet::Interval {
                min: divided(a.max()),
                max: divided(a.min()),
            };
        }
        if let (Some(lo), Some(hi)) = (divided(a.min()), divided(a.max())) {
            return sign_dependent(&divisor, lo, hi);
        }
        IntSet::everything()
    }

    fn combine_truncated_mod(&mut self, a: IntSet, b: IntSet) -> IntSet {
        let Some(divisor) = b.point_value().cloned() else {
            return IntSet::everything();
        };
        if divisor.as_int() == Some(0) {
            return IntSet::everything();
        }
        let dtype = divisor.dtype();
        // TVM assumes a non-negative dividend here; a negative one keeps its sign, so
        // the remainder is only non-negative when the dividend provably is.
        let dividend_non_negative = a.min().is_some_and(|lo| self.proves_non_negative(lo));
        if dividend_non_negative && self.proves_non_negative(&divisor) {
            return IntSet::interval(
                build::int(0, dtype),
                build::sub(divisor, build::int(1, dtype)),
            );
        }
        symmetric_remainder(&divisor)
    }

    fn combine_floor_mod(&mut self, expr: &Expr, a: IntSet, b: IntSet) -> IntSet {
        let Some(divisor) = b.point_value().cloned() else {
            return IntSet::everything();
        };
        if divisor.as_int() == Some(0) {
            return IntSet::everything();
        }
        let dtype = divisor.dtype();
        if !self.proves_non_negative(&divisor) {
            return symmetric_remainder(&divisor);
        }
        if let Some(modulus) = divisor.as_int() {
            // One quotient over the whole interval: the remainder is a shifted interval.
            if let (Some(lo), Some(hi)) = (a.min(), a.max()) {
                let quotient_min = build::floordiv(lo.clone(), divisor.clone());
                let quotient_max = build::floordiv(hi.clone(), divisor.clone());
                let same_quotient = build::node(BinaryOp::Eq, quotient_max, quotient_min.clone());
                if self.analyzer.can_prove(&same_quotient) {
                    let shift = build::mul(divisor.clone(), quotient_min);
                    return IntSet::interval(
                        build::sub(lo.clone(), shift.clone()),
                        build::sub(hi.clone(), shift),
                    );
                }
            }
            // A dividend that is a multiple of g leaves remainders that are multiples of g.
            if let ExprKind::Binary(_, dividend, _) = expr.kind() {
                let set = self.analyzer.modular_set(dividend);
                if set.coeff > 0 {
                    let common = build::gcd(set.coeff, modulus);
                    if common > 1 && modulus % common == 0 {
                        let largest = (modulus / common - 1) * common + set.base % common;
                        if largest >= 0 && largest < modulus {
                            return IntSet::interval(
                                build::int(0, dtype),
                                build::int(largest, dtype),
                            );
                        }
                    }
                }
            }
        }
        IntSet::interval(
            build::int(0, dtype),
            build::sub(divisor, build::int(1, dtype)),
        )
    }
}

fn combine_add(a: IntSet, b: IntSet) -> IntSet {
    if let (Some(x), Some(y)) = (a.point_value(), b.point_value()) {
        return IntSet::single_point(build::add(x.clone(), y.clone()));
    }
    if a.is_nothing() {
        return a;
    }
    if b.is_nothing() {
        return b;
    }
    IntSet::Interval {
        min: match (a.min(), b.min()) {
            (Some(x), Some(y)) => Some(build::add(x.clone(), y.clone())),
            _ => None,
        },
        max: match (a.max(), b.max()) {
            (Some(x), Some(y)) => Some(build::add(x.clone(), y.clone())),
            _ => None,
        },
    }
}

/// `[0, 1]` in the type of a comparison.
fn bool_range(dtype: DataType) -> IntSet {
    IntSet::interval(Expr::int(0, dtype), Expr::int(1, dtype))
}

/// For a factor of unknown sign: `select(f >= 0, lo, hi)` to `select(f >= 0, hi, lo)`.
fn sign_dependent(factor: &Expr, lo: Expr, hi: Expr) -> IntSet {
    let dtype = lo.dtype();
    let sign = build::node(BinaryOp::Ge, factor.clone(), build::int(0, factor.dtype()));
    let select = |a: Expr, b: Expr| {
        Expr::new(
            ExprKind::Select(sign.clone(), a, b),
            dtype,
            crate::source::Span::NONE,
        )
    };
    IntSet::interval(select(lo.clone(), hi.clone()), select(hi, lo))
}

/// `[-(|d| - 1), |d| - 1]` for a divisor of unknown sign.
fn symmetric_remainder(divisor: &Expr) -> IntSet {
    let dtype = divisor.dtype();
    if let Some(bound) = divisor
        .as_int()
        .and_then(|d| d.checked_abs())
        .map(|d| d - 1)
    {
        return IntSet::interval(build::int(-bound, dtype), build::int(bound, dtype));
    }
    let zero = build::int(0, dtype);
    let absolute = Expr::new(
        ExprKind::Select(
            build::node(BinaryOp::Ge, divisor.clone(), zero.clone()),
            divisor.clone(),
            build::sub(zero.clone(), divisor.clone()),
        ),
        dtype,
        crate::source::Span::NONE,
    );
    let bound = build::sub(absolute, build::int(1, dtype));
    IntSet::interval(build::sub(zero, bound.clone()), bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn var(name: &str) -> Var {
        Var::new(name, DataType::int32(), Span::NONE)
    }

    fn text(set: &IntSet) -> (String, String) {
        let show = |e: Option<&Expr>| e.map_or("inf".to_string(), |e| e.to_string());
        (show(set.min()), show(set.max()))
    }

    fn domains(entries: &[(&Var, IntSet)]) -> VarMap<IntSet> {
        entries
            .iter()
            .map(|(v, s)| ((*v).clone(), s.clone()))
            .collect()
    }

    #[test]
    fn split_index_covers_the_product_of_extents() {
        let (i0, i1) = (var("i0"), var("i1"));
        let dom = domains(&[
            (&i0, IntSet::from_range(&Range::from_extent(Expr::i32(4)))),
            (&i1, IntSet::from_range(&Range::from_extent(Expr::i32(32)))),
        ]);
        let index = build::add(build::mul(i0.to_expr(), Expr::i32(32)), i1.to_expr());
        let set = eval_set(&index, &dom);
        assert_eq!(text(&set), ("0".to_string(), "127".to_string()));
        let cover = set.cover_range(&Range::from_extent(Expr::i32(1)));
        assert_eq!(cover.min.to_string(), "0");
        assert_eq!(cover.extent.to_string(), "128");
    }

    #[test]
    fn free_variables_stay_symbolic() {
        let (i, n) = (var("i"), var("n"));
        let dom = domains(&[(&i, IntSet::from_range(&Range::from_extent(Expr::i32(8))))]);
        let index = build::add(build::mul(n.to_expr(), Expr::i32(8)), i.to_expr());
        let set = eval_set(&index, &dom);
        assert_eq!(text(&set), ("n * 8".to_string(), "n * 8 + 7".to_string()));
        let cover = set.cover_range(&Range::from_extent(Expr::i32(1)));
        assert_eq!(
            (cover.min.to_string(), cover.extent.to_string()),
            ("n * 8".to_string(), "8".to_string())
        );
    }

    #[test]
    fn negative_factor_swaps_the_ends() {
        let i = var("i");
        let dom = domains(&[(&i, IntSet::interval(Expr::i32(2), Expr::i32(5)))]);
        let expr = build::mul(i.to_expr(), Expr::i32(-3));
        assert_eq!(
            text(&eval_set(&expr, &dom)),
            ("-15".to_string(), "-6".to_string())
        );
    }

    #[test]
    fn floor_division_and_modulo_by_constants() {
        let i = var("i");
        let dom = domains(&[(&i, IntSet::from_range(&Range::from_extent(Expr::i32(100))))]);
        let quotient = build::floordiv(i.to_expr(), Expr::i32(8));
        assert_eq!(
            text(&eval_set(&quotient, &dom)),
            ("0".to_string(), "12".to_string())
        );
        let remainder = build::floormod(i.to_expr(), Expr::i32(8));
        assert_eq!(
            text(&eval_set(&remainder, &dom)),
            ("0".to_string(), "7".to_string())
        );
        let narrow = domains(&[(&i, IntSet::interval(Expr::i32(17), Expr::i32(20)))]);
        assert_eq!(
            text(&eval_set(&remainder, &narrow)),
            ("1".to_string(), "4".to_string())
        );
    }

    #[test]
    fn min_max_and_select_combine_bounds() {
        let i = var("i");
        let dom = domains(&[(&i, IntSet::from_range(&Range::from_extent(Expr::i32(10))))]);
        let clipped = build::min(i.to_expr(), Expr::i32(4));
        assert_eq!(
            text(&eval_set(&clipped, &dom)),
            ("0".to_string(), "4".to_string())
        );
        let condition = build::node(BinaryOp::Lt, i.to_expr(), Expr::i32(3));
        let chosen = Expr::new(
            ExprKind::Select(condition, Expr::i32(20), i.to_expr()),
            DataType::int32(),
            Span::NONE,
        );
        assert_eq!(
            text(&eval_set(&chosen, &dom)),
            ("0".to_string(), "20".to_string())
        );
    }

    #[test]
    fn union_intersection_and_points() {
        let a = IntSet::interval(Expr::i32(0), Expr::i32(7));
        let b = IntSet::interval(Expr::i32(4), Expr::i32(12));
        assert_eq!(
            text(&union(&[a.clone(), b.clone()])),
            ("0".to_string(), "12".to_string())
        );
        assert_eq!(
            text(&intersect(&[a.clone(), b])),
            ("4".to_string(), "7".to_string())
        );
        let far = IntSet::interval(Expr::i32(20), Expr::i32(30));
        assert!(intersect(&[a.clone(), far]).is_nothing());
        assert!(IntSet::single_point(Expr::i32(3)).is_single_point());
        assert!(!a.is_single_point());
        assert!(IntSet::everything().is_everything());
        let fallback = Range::from_extent(Expr::i32(64));
        assert_eq!(
            IntSet::everything()
                .cover_range(&fallback)
                .extent
                .to_string(),
            "64"
        );
        assert!(a.match_range(&Range::from_extent(Expr::i32(8))));
    }

    #[test]
    fn unbounded_ends_propagate() {
        let (i, j) = (var("i"), var("j"));
        let dom = domains(&[
            (
                &i,
                IntSet::Interval {
                    min: Some(Expr::i32(0)),
                    max: None,
                },
            ),
            (&j, IntSet::from_range(&Range::from_extent(Expr::i32(4)))),
        ]);
        let sum = build::add(i.to_expr(), j.to_expr());
        let set = eval_set(&sum, &dom);
        assert_eq!(text(&set), ("0".to_string(), "inf".to_string()));
        let difference = build::sub(j.to_expr(), i.to_expr());
        assert_eq!(
            text(&eval_set(&difference, &dom)),
            ("inf".to_string(), "3".to_string())
        );
    }

    #[test]
    fn domains_that_mention_other_variables_are_relaxed() {
        let (i, j) = (var("i"), var("j"));
        // j ranges over [i, i + 3] and i over [0, 9].
        let dom = domains(&[
            (&i, IntSet::from_range(&Range::from_extent(Expr::i32(10)))),
            (
                &j,
                IntSet::interval(i.to_expr(), build::add(i.to_expr(), Expr::i32(3))),
            ),
        ]);
        assert_eq!(
            text(&eval_set(&j.to_expr(), &dom)),
            ("0".to_string(), "12".to_string())
        );
    }
}
