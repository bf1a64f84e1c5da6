//! Modular sets: every value of an integer expression has the form
//! `coeff * k + base`, the facts TVM's `ModularSetAnalyzer` tracks to tighten
//! remainders and prove that a difference is never zero.

use super::build::gcd;
use super::const_int_bound::BoundContext;
use crate::ir::identity::VarMap;
use crate::ir::{BinaryOp, Expr, ExprKind, Var};

/// The set `{coeff * k + base | k integer}`; `coeff == 0` is the single value `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModularSet {
    /// The stride between values (0 for a constant).
    pub coeff: i64,
    /// A value of the set, in `[0, coeff)` when `coeff > 0`.
    pub base: i64,
}

impl ModularSet {
    /// The set with the given stride and any member, normalised.
    pub fn new(coeff: i64, base: i64) -> ModularSet {
        let coeff = coeff.checked_abs().unwrap_or(0);
        if coeff == 0 {
            return ModularSet { coeff: 0, base };
        }
        ModularSet {
            coeff,
            base: base.rem_euclid(coeff),
        }
    }
    /// Every integer.
    pub fn everything() -> ModularSet {
        ModularSet { coeff: 1, base: 0 }
    }
    /// The single value `value`.
    pub fn constant(value: i64) -> ModularSet {
        ModularSet {
            coeff: 0,
            base: value,
        }
    }
    /// True for a single value.
    pub fn is_constant(&self) -> bool {
        self.coeff == 0
    }

    /// The smallest modular set holding both sets.
    pub fn union(self, other: ModularSet) -> ModularSet {
        let coeff = gcd(self.coeff, other.coeff);
        if coeff == 0 {
            // Two different constants: TVM gives up rather than take the gcd of their difference.
            return if self.base == other.base {
                self
            } else {
                ModularSet::everything()
            };
        }
        let (b0, b1) = (self.base.rem_euclid(coeff), other.base.rem_euclid(coeff));
        if b0 == b1 {
            ModularSet::new(coeff, b0)
        } else {
            ModularSet::new(gcd(gcd(b0, b1), coeff), b0)
        }
    }
}

/// Modular facts about variables, as set by `Analyzer::bind` with a value.
#[derive(Clone, Debug, Default)]
pub struct ModularSetAnalyzer {
    var_sets: VarMap<ModularSet>,
}

impl ModularSetAnalyzer {
    /// An analyzer that knows nothing about any variable.
    pub fn new() -> ModularSetAnalyzer {
        ModularSetAnalyzer::default()
    }
    /// Records the modular set of a variable.
    pub fn update(&mut self, var: &Var, set: ModularSet) {
        self.var_sets.insert(var.clone(), set);
    }
    /// The modular set of `expr` with only this analyzer's facts.
    pub fn eval(&self, expr: &Expr) -> ModularSet {
        ModularEvaluator {
            vars: &self.var_sets,
            bounds: None,
            let_sets: Default::default(),
        }
        .visit(expr)
    }
    /// The modular set of `expr`, asking `bounds` whether a truncated division's dividend is non-negative.
    pub(crate) fn eval_with_bounds(&self, expr: &Expr, bounds: &BoundContext<'_>) -> ModularSet {
        ModularEvaluator {
            vars: &self.var_sets,
            bounds: Some(bounds),
            let_sets: Default::default(),
        }
        .visit(expr)
    }
}

struct ModularEvaluator<'a> {
    vars: &'a VarMap<ModularSet>,
    bounds: Option<&'a BoundContext<'a>>,
    let_sets: VarMap<ModularSet>,
}

fn checked(coeff: Option<i64>, base: Option<i64>) -> ModularSet {
    match (coeff, base) {
        (Some(c), Some(b)) => ModularSet::new(c, b),
        _ => ModularSet::everything(),
    }
}

impl ModularEvaluator<'_> {
    fn visit(&mut self, expr: &Expr) -> ModularSet {
        if !(expr.dtype().is_integer() || expr.dtype().is_bool()) {
            return ModularSet::everything();
        }
        match expr.kind() {
            ExprKind::Int(v) => ModularSet::constant(*v),
            ExprKind::Var(v) => self
                .let_sets
                .get(v)
                .or_else(|| self.vars.get(v))
                .copied()
                .unwrap_or_else(ModularSet::everything),
            ExprKind::Cast(value) => self.visit(value),
            ExprKind::Binary(op, a, b) => self.visit_binary(*op, a, b),
            ExprKind::Select(_, a, b) => {
                let (a, b) = (self.visit(a), self.visit(b));
                a.union(b)
            }
            ExprKind::Let { var, value, body } => {
                let value_set = self.visit(value);
                let previous = self.let_sets.insert(var.clone(), value_set);
                let result = self.visit(body);
                match previous {
                    Some(p) => self.let_sets.insert(var.clone(), p),
                    None => self.let_sets.remove(var),
                };
                result
            }
            ExprKind::Broadcast { value, .. } => self.visit(value),
            _ => ModularSet::everything(),
        }
    }

    fn visit_binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> ModularSet {
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                let (x, y) = (self.visit(a), self.visit(b));
                let base = if op == BinaryOp::Add {
                    x.base.checked_add(y.base)
                } else {
                    x.base.checked_sub(y.base)
                };
                checked(Some(gcd(x.coeff, y.coeff)), base)
            }
            BinaryOp::Mul => {
                // (p*x + n) * (q*y + m) = pq*xy + pm*x + qn*y + nm.
                let (x, y) = (self.visit(a), self.visit(b));
                let pq = x.coeff.checked_mul(y.coeff);
                let pm = x.coeff.checked_mul(y.base);
                let qn = x.base.checked_mul(y.coeff);
                let coeff = match (pq, pm, qn) {
                    (Some(pq), Some(pm), Some(qn)) => Some(gcd(pq, gcd(pm, qn))),
                    _ => None,
                };
                checked(coeff, x.base.checked_mul(y.base))
            }
            BinaryOp::FloorDiv | BinaryOp::Div => {
                let divisor = self.visit(b);
                if !divisor.is_constant() || divisor.base == 0 {
                    return ModularSet::everything();
                }
                self.divide_by_constant(a, divisor.base, op == BinaryOp::FloorDiv)
            }
            BinaryOp::FloorMod | BinaryOp::Mod => {
                let divisor = self.visit(b);
                if !divisor.is_constant() || divisor.base == 0 {
                    return ModularSet::everything();
                }
                self.modulo_by_constant(a, divisor.base, op == BinaryOp::FloorMod)
            }
            BinaryOp::Min | BinaryOp::Max => {
                let (x, y) = (self.visit(a), self.visit(b));
                x.union(y)
            }
            _ => ModularSet::everything(),
        }
    }

    fn dividend_is_non_negative(&self, dividend: &Expr) -> bool {
        self.bounds
            .is_some_and(|bounds| bounds.bound(dividend).min >= 0)
    }

    fn divide_by_constant(
        &mut self,
        dividend: &Expr,
        divisor: i64,
        round_down: bool,
    ) -> ModularSet {
        let x = self.visit(dividend);
        if x.coeff.checked_rem(divisor) == Some(0) {
            if x.base == 0 {
                return checked(x.coeff.checked_div(divisor), Some(0));
            }
            // Only a positive division has a rounding mode we can follow.
            if x.base > 0 && divisor > 0 && (round_down || self.dividend_is_non_negative(dividend))
            {
                return ModularSet::new(x.coeff / divisor, x.base / divisor);
            }
        }
        ModularSet::everything()
    }

    fn modulo_by_constant(
        &mut self,
        dividend: &Expr,
        divisor: i64,
        round_down: bool,
    ) -> ModularSet {
        let x = self.visit(dividend);
        let coeff = gcd(x.coeff, divisor);
        if coeff == 0 {
            return ModularSet::everything();
        }
        if x.base % coeff == 0
            || (x.base > 0 && (round_down || self.dividend_is_non_negative(dividend)))
        {
            return ModularSet::new(coeff, x.base % coeff);
        }
        ModularSet::everything()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{operators, DataType};
    use crate::source::Span;

    fn var(name: &str) -> Expr {
        Var::new(name, DataType::int32(), Span::NONE).to_expr()
    }

    #[test]
    fn scaled_sums_keep_their_common_stride() {
        let (x, y) = (var("x"), var("y"));
        let expr = operators::add(
            operators::mul(x, Expr::i32(8)).unwrap(),
            operators::add(operators::mul(y, Expr::i32(4)).unwrap(), Expr::i32(6)).unwrap(),
        )
        .unwrap();
        assert_eq!(ModularSetAnalyzer::new().eval(&expr), ModularSet::new(4, 2));
    }

    #[test]
    fn floor_division_of_a_multiple_divides_the_stride() {
        let x = var("x");
        let expr =
            operators::floordiv(operators::mul(x, Expr::i32(16)).unwrap(), Expr::i32(4)).unwrap();
        assert_eq!(ModularSetAnalyzer::new().eval(&expr), ModularSet::new(4, 0));
    }

    #[test]
    fn union_of_different_residues_keeps_their_gcd() {
        let set = ModularSet::new(8, 2).union(ModularSet::new(8, 6));
        assert_eq!(set, ModularSet::new(2, 0));
        let constants = ModularSet::constant(3).union(ModularSet::constant(7));
        assert_eq!(constants, ModularSet::everything());
    }
}
