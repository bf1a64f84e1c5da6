//! Constant integer bounds: the smallest `[min, max]` (with ±infinity) known
//! to hold every value of an expression, given bounds of its variables, as
//! TVM's `ConstIntBoundAnalyzer` computes them.

use super::build::{floor_div_i64, gcd};
use super::modular_set::ModularSetAnalyzer;
use crate::ir::identity::VarMap;
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Range, TypeCode, Var};
use std::fmt;

/// An inclusive interval of integers; [`ConstIntBound::POS_INF`] and
/// [`ConstIntBound::NEG_INF`] stand for unbounded ends.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConstIntBound {
    /// The smallest value, or `NEG_INF`.
    pub min: i64,
    /// The largest value, or `POS_INF`.
    pub max: i64,
}

impl fmt::Debug for ConstIntBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |v: i64| match v {
            ConstIntBound::POS_INF => "+inf".to_string(),
            ConstIntBound::NEG_INF => "-inf".to_string(),
            v => v.to_string(),
        };
        write!(f, "[{}, {}]", end(self.min), end(self.max))
    }
}

impl ConstIntBound {
    /// Positive infinity.
    pub const POS_INF: i64 = i64::MAX;
    /// Negative infinity (`-POS_INF`, so negation maps the infinities onto each other).
    pub const NEG_INF: i64 = -i64::MAX;

    /// The interval `[min, max]`; an infinite `min` at the top (or `max` at
    /// the bottom) is moved one step inward, as TVM's `MakeBound` does.
    pub fn new(min: i64, max: i64) -> ConstIntBound {
        ConstIntBound {
            min: if min == Self::POS_INF { min - 1 } else { min },
            max: if max == Self::NEG_INF { max + 1 } else { max },
        }
    }
    /// The single value `value`.
    pub fn single(value: i64) -> ConstIntBound {
        ConstIntBound::new(value, value)
    }
    /// Every integer.
    pub fn unbounded() -> ConstIntBound {
        ConstIntBound::new(Self::NEG_INF, Self::POS_INF)
    }
    /// Every value a `dtype` can hold (bool is `[0, 1]`, non-integers are unbounded).
    pub fn everything(dtype: DataType) -> ConstIntBound {
        match dtype.code {
            TypeCode::Bool => ConstIntBound::new(0, 1),
            TypeCode::Int | TypeCode::UInt => {
                let value_bits = dtype.bits as i64 - i64::from(dtype.code == TypeCode::Int);
                let max = if value_bits >= 63 {
                    Self::POS_INF
                } else {
                    (1i64 << value_bits) - 1
                };
                let min = if dtype.code == TypeCode::UInt {
                    0
                } else if value_bits >= 63 {
                    Self::NEG_INF
                } else {
                    -(1i64 << value_bits)
                };
                ConstIntBound::new(min, max)
            }
            _ => ConstIntBound::unbounded(),
        }
    }
    /// True when the interval is the single value `value`.
    pub fn is_const(&self, value: i64) -> bool {
        self.min == value && self.max == value
    }
    /// True when `value` lies in the interval.
    pub fn contains(&self, value: i64) -> bool {
        self.min <= value && value <= self.max
    }
    /// True when the minimum is a finite value.
    pub fn has_finite_min(&self) -> bool {
        self.min != Self::NEG_INF
    }
    /// True when the maximum is a finite value.
    pub fn has_finite_max(&self) -> bool {
        self.max != Self::POS_INF
    }
    /// The smallest interval holding both.
    pub fn union(self, other: ConstIntBound) -> ConstIntBound {
        ConstIntBound {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
    /// The values in both intervals (may be empty: `min > max`).
    pub fn intersect(self, other: ConstIntBound) -> ConstIntBound {
        ConstIntBound {
            min: self.min.max(other.min),
            max: self.max.min(other.max),
        }
    }
}

/// `x + y` where either may be infinite; overflow saturates to infinity.
pub(crate) fn inf_aware_add(x: i64, y: i64) -> i64 {
    use ConstIntBound as B;
    if x == B::POS_INF || x == B::NEG_INF {
        return x;
    }
    if y == B::POS_INF || y == B::NEG_INF {
        return y;
    }
    match x.checked_add(y) {
        Some(v) if v > B::NEG_INF => v,
        Some(_) => B::NEG_INF,
        None if x > 0 => B::POS_INF,
        None => B::NEG_INF,
    }
}

/// `x * y` where either may be infinite; overflow saturates to infinity.
fn inf_aware_mul(x: i64, y: i64) -> i64 {
    use ConstIntBound as B;
    match x.checked_mul(y) {
        Some(v) if v > B::NEG_INF => v,
        _ if (x > 0) == (y > 0) => B::POS_INF,
        _ => B::NEG_INF,
    }
}

/// Truncated `x / y` where `x` may be infinite; `y` is never zero.
fn inf_aware_div(x: i64, y: i64) -> i64 {
    use ConstIntBound as B;
    if x == B::POS_INF || x == B::NEG_INF {
        return if y > 0 { x } else { -x };
    }
    x.checked_div(y).unwrap_or(B::POS_INF)
}

/// `floordiv(x, y)` where `x` may be infinite; `y` is never zero.
fn inf_aware_floor_div(x: i64, y: i64) -> i64 {
    use ConstIntBound as B;
    if x == B::POS_INF || x == B::NEG_INF {
        return if y > 0 { x } else { -x };
    }
    floor_div_i64(x, y).unwrap_or(B::POS_INF)
}

/// The bound of `op(a, b)` for an operator monotonic in each argument: the
/// extremes are reached at the corners.
fn corners(a: ConstIntBound, b: ConstIntBound, op: impl Fn(i64, i64) -> i64) -> ConstIntBound {
    let values = [
        op(a.min, b.min),
        op(a.max, b.max),
        op(a.min, b.max),
        op(a.max, b.min),
    ];
    ConstIntBound {
        min: values
            .iter()
            .copied()
            .min()
            .unwrap_or(ConstIntBound::NEG_INF),
        max: values
            .iter()
            .copied()
            .max()
            .unwrap_or(ConstIntBound::POS_INF),
    }
}

/// A fact `expr ∈ bound` that holds in the current scope (from an `if` or `T.where`).
#[derive(Clone, Debug)]
pub(crate) struct BoundConstraint {
    pub expr: Expr,
    pub bound: ConstIntBound,
}

/// The bounds that a condition such as `x < 16 and 0 <= x` implies on its operands.
pub(crate) fn detect_bound_constraints(condition: &Expr) -> Vec<BoundConstraint> {
    use ConstIntBound as B;
    let mut found = Vec::new();
    for part in split_conjunction(condition) {
        let ExprKind::Binary(op, a, b) = part.kind() else {
            continue;
        };
        // Normalise to `expr OP constant`, flipping the operator when the constant is on the left.
        let (expr, constant, op) = match (a.as_int(), b.as_int()) {
            (None, Some(c)) => (a, c, *op),
            (Some(c), None) => (b, c, flip_comparison(*op)),
            _ => continue,
        };
        if !expr.dtype().is_integer() {
            continue;
        }
        let bound = match op {
            BinaryOp::Lt => B::new(B::NEG_INF, constant.saturating_sub(1)),
            BinaryOp::Le => B::new(B::NEG_INF, constant),
            BinaryOp::Gt => B::new(constant.saturating_add(1), B::POS_INF),
            BinaryOp::Ge => B::new(constant, B::POS_INF),
            BinaryOp::Eq => B::single(constant),
            _ => continue,
        };
        found.push(BoundConstraint {
            expr: expr.clone(),
            bound,
        });
    }
    found
}

/// The operator with its operands swapped: `c < x` is `x > c`.
pub(crate) fn flip_comparison(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    }
}

/// The conjuncts of `a and b and ...`.
pub(crate) fn split_conjunction(condition: &Expr) -> Vec<Expr> {
    let mut parts = Vec::new();
    let mut stack = vec![condition.clone()];
    while let Some(e) = stack.pop() {
        match e.kind() {
            ExprKind::Binary(BinaryOp::And, a, b) => {
                stack.push(b.clone());
                stack.push(a.clone());
            }
            _ => parts.push(e),
        }
    }
    parts
}

/// Bounds of variables and scoped facts, the state of the bound analysis.
#[derive(Clone, Debug, Default)]
pub struct ConstIntBoundAnalyzer {
    var_bounds: VarMap<ConstIntBound>,
    constraints: Vec<BoundConstraint>,
}

impl ConstIntBoundAnalyzer {
    /// An analyzer that knows nothing about any variable.
    pub fn new() -> ConstIntBoundAnalyzer {
        ConstIntBoundAnalyzer::default()
    }
    /// Bounds `var` to `[min, min + extent)`, using the bounds of `min` and `extent`.
    pub fn bind(&mut self, var: &Var, range: &Range) {
        let min = self.bound(&range.min);
        let extent = self.bound(&range.extent);
        let bound = ConstIntBound::new(
            min.min,
            inf_aware_add(min.max, inf_aware_add(extent.max, -1)),
        );
        self.update(var, bound);
    }
    /// Sets the bound of `var`, replacing what was known.
    pub fn update(&mut self, var: &Var, bound: ConstIntBound) {
        self.var_bounds.insert(var.clone(), bound);
    }
    /// The recorded bound of `var`, when one was set.
    pub fn var_bound(&self, var: &Var) -> Option<ConstIntBound> {
        self.var_bounds.get(var).copied()
    }
    /// The bound of `expr` under what this analyzer knows.
    pub fn bound(&self, expr: &Expr) -> ConstIntBound {
        self.context(&[], None).bound(expr)
    }
    /// Adds the facts `condition` implies; returns how many to pop later.
    pub(crate) fn push_constraints(&mut self, condition: &Expr) -> usize {
        let found = detect_bound_constraints(condition);
        let count = found.len();
        self.constraints.extend(found);
        count
    }
    /// Removes the last `count` scoped facts.
    pub(crate) fn pop_constraints(&mut self, count: usize) {
        let keep = self.constraints.len().saturating_sub(count);
        self.constraints.truncate(keep);
    }
    /// A view for one evaluation, with extra scoped facts and modular information.
    pub(crate) fn context<'a>(
        &'a self,
        extra_constraints: &'a [BoundConstraint],
        modular: Option<&'a ModularSetAnalyzer>,
    ) -> BoundContext<'a> {
        BoundContext {
            var_bounds: &self.var_bounds,
            constraints: &self.constraints,
            extra_constraints,
            modular,
        }
    }
}

/// Everything one bound evaluation reads.
pub(crate) struct BoundContext<'a> {
    var_bounds: &'a VarMap<ConstIntBound>,
    constraints: &'a [BoundConstraint],
    extra_constraints: &'a [BoundConstraint],
    modular: Option<&'a ModularSetAnalyzer>,
}

impl BoundContext<'_> {
    /// The bound of `expr`.
    pub(crate) fn bound(&self, expr: &Expr) -> ConstIntBound {
        BoundEvaluator {
            context: self,
            let_bounds: Default::default(),
        }
        .visit(expr)
    }
}

struct BoundEvaluator<'c, 'a> {
    context: &'c BoundContext<'a>,
    let_bounds: VarMap<ConstIntBound>,
}

impl BoundEvaluator<'_, '_> {
    fn visit(&mut self, expr: &Expr) -> ConstIntBound {
        let mut result = self.visit_node(expr);
        let scoped = self
            .context
            .constraints
            .iter()
            .chain(self.context.extra_constraints);
        for constraint in scoped {
            if crate::ir::structural::expr_deep_equal(&constraint.expr, expr) {
                result = result.intersect(constraint.bound);
            }
        }
        result
    }

    fn visit_node(&mut self, expr: &Expr) -> ConstIntBound {
        let dtype = expr.dtype();
        // A float value is not an integer: no integer bound describes it.
        if dtype.is_float() {
            return ConstIntBound::unbounded();
        }
        match expr.kind() {
            ExprKind::Int(v) => {
                if dtype.is_uint() && dtype.bits == 64 && *v < 0 {
                    // A bit-cast uint64 above i64::MAX.
                    ConstIntBound::new(0, ConstIntBound::POS_INF)
                } else {
                    ConstIntBound::single((*v).max(ConstIntBound::NEG_INF))
                }
            }
            ExprKind::Var(var) => {
                if let Some(bound) = self.let_bounds.get(var) {
                    return *bound;
                }
                if let Some(bound) = self.context.var_bounds.get(var) {
                    return *bound;
                }
                let everything = ConstIntBound::everything(dtype);
                if var.node().is_size_var {
                    everything.intersect(ConstIntBound::new(0, ConstIntBound::POS_INF))
                } else {
                    everything
                }
            }
            ExprKind::Cast(value) => self
                .visit(value)
                .intersect(ConstIntBound::everything(dtype)),
            ExprKind::Binary(op, a, b) => self.visit_binary(*op, a, b, dtype),
            ExprKind::Not(_) => ConstIntBound::everything(dtype),
            ExprKind::Select(_, a, b) => {
                let (a, b) = (self.visit(a), self.visit(b));
                a.union(b)
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let base = self.visit(base);
                let stride = self.visit(stride);
                let steps = ConstIntBound::new(0, i64::from(*lanes).saturating_sub(1));
                let offset = corners(stride, steps, inf_aware_mul);
                ConstIntBound::new(
                    inf_aware_add(base.min, offset.min),
                    inf_aware_add(base.max, offset.max),
                )
            }
            ExprKind::Broadcast { value, .. } => self.visit(value),
            ExprKind::Let { var, value, body } => {
                let value_bound = self.visit(value);
                let previous = self.let_bounds.insert(var.clone(), value_bound);
                let result = self.visit(body);
                match previous {
                    Some(p) => self.let_bounds.insert(var.clone(), p),
                    None => self.let_bounds.remove(var),
                };
                result
            }
            ExprKind::Call { op, args } => self.visit_call(op.name(), args, dtype),
            ExprKind::Load(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Shuffle { .. }
            | ExprKind::CallFunction { .. } => ConstIntBound::everything(dtype),
        }
    }

    fn visit_call(&mut self, name: &str, args: &[Expr], dtype: DataType) -> ConstIntBound {
        match (name, args) {
            ("if_then_else", [_, a, b]) => {
                let (a, b) = (self.visit(a), self.visit(b));
                a.union(b)
            }
            ("shift_right", [a, b]) => {
                let (a, b) = (self.visit(a), self.visit(b));
                if b.min < 0 || b.max > 63 {
                    return ConstIntBound::everything(dtype);
                }
                corners(a, b, |x, y| {
                    if x == ConstIntBound::POS_INF || x == ConstIntBound::NEG_INF {
                        x
                    } else {
                        x >> y
                    }
                })
            }
            ("shift_left", [a, b]) => {
                let (a, b) = (self.visit(a), self.visit(b));
                // A negative operand may be undefined behaviour on some targets: assume nothing.
                if a.min < 0 || b.min < 0 {
                    return ConstIntBound::everything(dtype);
                }
                corners(a, b, |x, y| {
                    if x == ConstIntBound::POS_INF {
                        return x;
                    }
                    let width = 64 - x.leading_zeros() as i64;
                    if y < 64 && width + y < 64 {
                        x << y
                    } else {
                        ConstIntBound::POS_INF
                    }
                })
            }
            ("bitwise_and", [a, b]) => {
                let (a, b) = (self.visit(a), self.visit(b));
                if a.min >= 0 && b.min >= 0 {
                    ConstIntBound::new(0, a.max.min(b.max))
                } else if b.min >= 0 {
                    ConstIntBound::new(0, b.max)
                } else if a.min >= 0 {
                    ConstIntBound::new(0, a.max)
                } else {
                    ConstIntBound::everything(dtype)
                }
            }
            _ => ConstIntBound::everything(dtype),
        }
    }

    fn visit_binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, dtype: DataType) -> ConstIntBound {
        if op.is_comparison() || op.is_logical() {
            return ConstIntBound::everything(dtype);
        }
        let x = self.visit(a);
        let y = self.visit(b);
        match op {
            BinaryOp::Add => {
                ConstIntBound::new(inf_aware_add(x.min, y.min), inf_aware_add(x.max, y.max))
            }
            BinaryOp::Sub => ConstIntBound::new(
                inf_aware_add(x.min, negate(y.max)),
                inf_aware_add(x.max, negate(y.min)),
            ),
            BinaryOp::Mul => corners(x, y, inf_aware_mul),
            BinaryOp::Div => match assume_no_zero_divisor(y) {
                Some(y) => divide(x, y, dtype, inf_aware_div),
                None => ConstIntBound::everything(dtype),
            },
            BinaryOp::FloorDiv => match assume_no_zero_divisor(y) {
                Some(y) => divide(x, y, dtype, inf_aware_floor_div),
                None => ConstIntBound::everything(dtype),
            },
            BinaryOp::Mod => match assume_no_zero_divisor(y) {
                Some(y) => self.truncated_mod(a, x, y, dtype),
                None => ConstIntBound::everything(dtype),
            },
            BinaryOp::FloorMod => match assume_no_zero_divisor(y) {
                Some(y) => self.floor_mod(a, x, y, dtype),
                None => ConstIntBound::everything(dtype),
            },
            BinaryOp::Min => ConstIntBound::new(x.min.min(y.min), x.max.min(y.max)),
            BinaryOp::Max => ConstIntBound::new(x.min.max(y.min), x.max.max(y.max)),
            _ => ConstIntBound::everything(dtype),
        }
    }

    /// The residue class of a dividend, when the modular analysis is available.
    fn modular_gcd(&self, dividend: &Expr, modulus: i64) -> Option<(i64, i64)> {
        let modular = self.context.modular?;
        let set = modular.eval_with_bounds(dividend, self.context);
        let common = gcd(set.coeff, modulus);
        (common > 1).then(|| (common, set.base.rem_euclid(common)))
    }

    fn truncated_mod(
        &mut self,
        dividend: &Expr,
        a: ConstIntBound,
        b: ConstIntBound,
        dtype: DataType,
    ) -> ConstIntBound {
        if b.min <= 0 {
            // Modulo by a negative value is rare; assume only the type's range.
            return ConstIntBound::everything(dtype);
        }
        let b_max_cap = inf_aware_add(b.max, -1);
        let interval = if a.min >= 0 {
            if a.max < b.min {
                a
            } else {
                ConstIntBound::new(0, a.max.min(b_max_cap))
            }
        } else if a.max < 0 {
            // The result keeps the dividend's sign.
            if a.min > negate(b.min) {
                a
            } else {
                ConstIntBound::new(a.min.max(negate(b_max_cap)), 0)
            }
        } else {
            ConstIntBound::new(a.min.max(negate(b_max_cap)), a.max.max(0).min(b_max_cap))
        };
        if b.min == b.max {
            if let Some((common, base_mod)) = self.modular_gcd(dividend, b.min) {
                let tight_max = b.min - common + base_mod;
                let modular_bound = if a.min >= 0 {
                    ConstIntBound::new(base_mod, tight_max)
                } else {
                    let negative_base = (common - base_mod) % common;
                    let tight_min = -(b.min - common + negative_base);
                    if a.max < 0 {
                        ConstIntBound::new(tight_min, -negative_base)
                    } else {
                        ConstIntBound::new(tight_min, tight_max)
                    }
                };
                return interval.intersect(modular_bound);
            }
        }
        interval
    }

    fn floor_mod(
        &mut self,
        dividend: &Expr,
        a: ConstIntBound,
        b: ConstIntBound,
        dtype: DataType,
    ) -> ConstIntBound {
        if b.min <= 0 {
            // floormod(a, b) lies between min(0, b_min + 1) and max(0, b_max - 1).
            return ConstIntBound::new(
                inf_aware_add(b.min, 1).min(0),
                inf_aware_add(b.max, -1).max(0),
            )
            .intersect(ConstIntBound::everything(dtype));
        }
        let b_max_cap = inf_aware_add(b.max, -1);
        let interval = if a.min >= 0 {
            if a.max < b.min {
                a
            } else {
                ConstIntBound::new(0, a.max.min(b_max_cap))
            }
        } else {
            ConstIntBound::new(0, b_max_cap)
        };
        if b.min == b.max {
            if let Some((common, base_mod)) = self.modular_gcd(dividend, b.min) {
                let tight_max = b.min - common + base_mod;
                return interval.intersect(ConstIntBound::new(base_mod, tight_max));
            }
        }
        interval
    }
}

fn negate(value: i64) -> i64 {
    // NEG_INF is -POS_INF, so negation is exact for both infinities.
    -value.max(ConstIntBound::NEG_INF)
}

/// A valid program never divides by zero: a divisor range starting at zero
/// starts at one. `None` when the divisor is exactly zero.
fn assume_no_zero_divisor(divisor: ConstIntBound) -> Option<ConstIntBound> {
    if divisor.is_const(0) {
        return None;
    }
    let mut divisor = divisor;
    if divisor.min == 0 {
        divisor.min = 1;
    }
    if divisor.max == 0 {
        divisor.max = -1;
    }
    Some(divisor)
}

/// The bound of a division, splitting a divisor range that spans zero into
/// its negative and positive parts.
fn divide(
    a: ConstIntBound,
    b: ConstIntBound,
    dtype: DataType,
    op: impl Fn(i64, i64) -> i64 + Copy,
) -> ConstIntBound {
    if b.min <= 0 && 0 <= b.max && dtype.is_int() {
        let mut result: Option<ConstIntBound> = None;
        if b.min < 0 {
            result = Some(corners(a, ConstIntBound::new(b.min, -1), op));
        }
        if b.max > 0 {
            let positive = corners(a, ConstIntBound::new(1, b.max), op);
            result = Some(result.map_or(positive, |r| r.union(positive)));
        }
        return result.unwrap_or_else(|| ConstIntBound::everything(dtype));
    }
    if b.min <= 0 && 0 <= b.max {
        // Unsigned: only the positive part exists.
        return corners(a, ConstIntBound::new(1, b.max.max(1)), op);
    }
    corners(a, b, op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{operators, VarNode};
    use crate::source::Span;

    fn var(name: &str) -> Var {
        Var::new(name, DataType::int32(), Span::NONE)
    }

    fn bound_of(analyzer: &ConstIntBoundAnalyzer, expr: &Expr) -> (i64, i64) {
        let b = analyzer.bound(expr);
        (b.min, b.max)
    }

    #[test]
    fn unbound_variables_take_their_type_range() {
        let analyzer = ConstIntBoundAnalyzer::new();
        let x = var("x").to_expr();
        assert_eq!(bound_of(&analyzer, &x), (-(1 << 31), (1 << 31) - 1));
        let wide = Var::new("n", DataType::int64(), Span::NONE).to_expr();
        let b = analyzer.bound(&wide);
        assert!(!b.has_finite_min() && !b.has_finite_max());
        let size = Var::from_node(VarNode {
            name: "n".into(),
            dtype: DataType::int64(),
            pointer: None,
            is_size_var: true,
            span: Span::NONE,
        });
        assert_eq!(analyzer.bound(&size.to_expr()).min, 0);
    }

    #[test]
    fn split_loop_index_is_bounded_by_both_extents() {
        let (i0, i1) = (var("i0"), var("i1"));
        let mut analyzer = ConstIntBoundAnalyzer::new();
        analyzer.bind(&i0, &Range::from_extent(Expr::i32(4)));
        analyzer.bind(&i1, &Range::from_extent(Expr::i32(32)));
        let index = operators::add(
            operators::mul(i0.to_expr(), Expr::i32(32)).unwrap(),
            i1.to_expr(),
        )
        .unwrap();
        assert_eq!(bound_of(&analyzer, &index), (0, 127));
        let quotient = operators::floordiv(index.clone(), Expr::i32(32)).unwrap();
        assert_eq!(bound_of(&analyzer, &quotient), (0, 3));
        let remainder = operators::floormod(index, Expr::i32(32)).unwrap();
        assert_eq!(bound_of(&analyzer, &remainder), (0, 31));
    }

    #[test]
    fn subtraction_and_negative_division_flip_ends() {
        let x = var("x");
        let mut analyzer = ConstIntBoundAnalyzer::new();
        analyzer.bind(&x, &Range::new(Expr::i32(-3), Expr::i32(10)));
        let negated = operators::sub(Expr::i32(0), x.to_expr()).unwrap();
        assert_eq!(bound_of(&analyzer, &negated), (-6, 3));
        let divided = operators::floordiv(x.to_expr(), Expr::i32(-2)).unwrap();
        assert_eq!(bound_of(&analyzer, &divided), (-3, 1));
        let truncated = operators::binary(BinaryOp::Div, x.to_expr(), Expr::i32(4)).unwrap();
        assert_eq!(bound_of(&analyzer, &truncated), (0, 1));
        let truncated_mod = operators::binary(BinaryOp::Mod, x.to_expr(), Expr::i32(4)).unwrap();
        assert_eq!(bound_of(&analyzer, &truncated_mod), (-3, 3));
    }

    #[test]
    fn min_max_select_and_if_then_else_combine_arms() {
        let x = var("x");
        let mut analyzer = ConstIntBoundAnalyzer::new();
        analyzer.bind(&x, &Range::from_extent(Expr::i32(10)));
        let minimum = operators::binary(BinaryOp::Min, x.to_expr(), Expr::i32(4)).unwrap();
        assert_eq!(bound_of(&analyzer, &minimum), (0, 4));
        let maximum = operators::binary(BinaryOp::Max, x.to_expr(), Expr::i32(4)).unwrap();
        assert_eq!(bound_of(&analyzer, &maximum), (4, 9));
        let condition = operators::binary(BinaryOp::Lt, x.to_expr(), Expr::i32(3)).unwrap();
        let chosen = operators::if_then_else(condition, Expr::i32(-1), x.to_expr()).unwrap();
        assert_eq!(bound_of(&analyzer, &chosen), (-1, 9));
    }

    #[test]
    fn casts_clip_to_the_target_type() {
        let x = var("x");
        let analyzer = ConstIntBoundAnalyzer::new();
        let narrowed = operators::cast(DataType::int(8), x.to_expr());
        assert_eq!(bound_of(&analyzer, &narrowed), (-128, 127));
        let unsigned = operators::cast(DataType::uint(8), x.to_expr());
        assert_eq!(bound_of(&analyzer, &unsigned), (0, 255));
    }

    #[test]
    fn infinities_saturate_instead_of_overflowing() {
        let n = Var::new("n", DataType::int64(), Span::NONE);
        let analyzer = ConstIntBoundAnalyzer::new();
        let product = operators::mul(n.to_expr(), Expr::int(1 << 40, DataType::int64())).unwrap();
        let b = analyzer.bound(&product);
        assert_eq!(
            (b.min, b.max),
            (ConstIntBound::NEG_INF, ConstIntBound::POS_INF)
        );
        let sum = operators::add(n.to_expr(), Expr::int(5, DataType::int64())).unwrap();
        assert_eq!(analyzer.bound(&sum), ConstIntBound::unbounded());
    }

    #[test]
    fn scoped_constraints_narrow_matching_subexpressions() {
        let x = var("x");
        let mut analyzer = ConstIntBoundAnalyzer::new();
        analyzer.bind(&x, &Range::from_extent(Expr::i32(100)));
        let condition = operators::binary(BinaryOp::Lt, x.to_expr(), Expr::i32(10)).unwrap();
        let pushed = analyzer.push_constraints(&condition);
        assert_eq!(bound_of(&analyzer, &x.to_expr()), (0, 9));
        analyzer.pop_constraints(pushed);
        assert_eq!(bound_of(&analyzer, &x.to_expr()), (0, 99));
    }

    #[test]
    fn division_by_a_range_through_zero_is_split() {
        let (x, y) = (var("x"), var("y"));
        let mut analyzer = ConstIntBoundAnalyzer::new();
        analyzer.bind(&x, &Range::new(Expr::i32(1), Expr::i32(8)));
        analyzer.bind(&y, &Range::new(Expr::i32(-2), Expr::i32(5)));
        let quotient = operators::floordiv(x.to_expr(), y.to_expr()).unwrap();
        assert_eq!(bound_of(&analyzer, &quotient), (-8, 8));
        let by_zero = Expr::binary(BinaryOp::FloorDiv, x.to_expr(), Expr::i32(0));
        assert_eq!(bound_of(&analyzer, &by_zero), (-(1 << 31), (1 << 31) - 1));
    }
}
