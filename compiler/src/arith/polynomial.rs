//! Integer expressions expanded into polynomials: sums of integer-scaled
//! products of atoms (variables, and anything that is not `+`, `-` or `*`,
//! such as `(n + 79) // 80`, compared structurally).
//!
//! The canonical simplifier, like TVM's, keeps a product of two sums as one
//! opaque term, so it cannot see that `(a * 8 + b) * k * 7` and
//! `a * (k * 56) + b * (k * 7)` are equal. A split of a loop whose extent is
//! symbolic prints its predicate in one form and its binding in the other;
//! the verifier needs that they differ by a constant.

use crate::ir::structural::expr_deep_equal;
use crate::ir::{BinaryOp, Expr, ExprKind};
use std::collections::BTreeMap;

/// How many terms an expansion may reach before it gives up (products of
/// sums multiply their term counts).
const MAX_TERMS: usize = 256;

/// Products of atoms (sorted atom indices, empty for the constant) and their
/// coefficients.
type Polynomial = BTreeMap<Vec<usize>, i128>;

/// Expands expressions over one shared table of atoms, so that the same
/// atom in two expressions is one index.
#[derive(Default)]
pub struct PolynomialExpander {
    atoms: Vec<Expr>,
}

impl PolynomialExpander {
    /// `a - b` when it is a constant once both are expanded, `None` when it
    /// is not or an expansion grew too large.
    pub fn constant_difference(&mut self, a: &Expr, b: &Expr) -> Option<i128> {
        if !a.dtype().is_integer() || !b.dtype().is_integer() {
            return None;
        }
        let mut difference = self.expand(a)?;
        for (monomial, coefficient) in self.expand(b)? {
            let entry = difference.entry(monomial).or_insert(0);
            *entry = entry.checked_sub(coefficient)?;
        }
        difference.retain(|_, c| *c != 0);
        match difference.len() {
            0 => Some(0),
            1 => difference.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    fn atom(&mut self, expr: &Expr) -> usize {
        if let Some(index) = self.atoms.iter().position(|a| expr_deep_equal(a, expr)) {
            return index;
        }
        self.atoms.push(expr.clone());
        self.atoms.len() - 1
    }

    fn expand(&mut self, expr: &Expr) -> Option<Polynomial> {
        if let Some(value) = expr.as_int() {
            return Some(BTreeMap::from([(Vec::new(), i128::from(value))]));
        }
        match expr.kind() {
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
                let mut sum = self.expand(a)?;
                let sign = if *op == BinaryOp::Add { 1 } else { -1 };
                for (monomial, coefficient) in self.expand(b)? {
                    let entry = sum.entry(monomial).or_insert(0);
                    *entry = entry.checked_add(coefficient.checked_mul(sign)?)?;
                }
                sum.retain(|_, c| *c != 0);
                (sum.len() <= MAX_TERMS).then_some(sum)
            }
            ExprKind::Binary(BinaryOp::Mul, a, b) => {
                let (a, b) = (self.expand(a)?, self.expand(b)?);
                if a.len().saturating_mul(b.len()) > MAX_TERMS {
                    return None;
                }
                let mut product = Polynomial::new();
                for (left, x) in &a {
                    for (right, y) in &b {
                        let mut monomial: Vec<usize> = left.iter().chain(right).copied().collect();
                        monomial.sort_unstable();
                        let entry = product.entry(monomial).or_insert(0);
                        *entry = entry.checked_add(x.checked_mul(*y)?)?;
                    }
                }
                product.retain(|_, c| *c != 0);
                Some(product)
            }
            _ => Some(BTreeMap::from([(vec![self.atom(expr)], 1)])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DataType, Var};
    use crate::source::Span;

    fn var(name: &str) -> Expr {
        Var::new(name, DataType::int32(), Span::NONE).to_expr()
    }

    fn int(value: i64) -> Expr {
        Expr::i32(value)
    }

    fn add(a: Expr, b: Expr) -> Expr {
        crate::ir::operators::add(a, b).unwrap()
    }

    fn mul(a: Expr, b: Expr) -> Expr {
        crate::ir::operators::mul(a, b).unwrap()
    }

    #[test]
    fn products_of_sums_with_a_symbolic_factor_expand_to_the_same_terms() {
        let (a, b, c, n) = (var("a"), var("b"), var("c"), var("n"));
        let k = crate::ir::operators::floordiv(add(n.clone(), int(79)), int(80)).unwrap();
        // ((a * 5 + b) * k + c) * 5 + 3  against  (a * 5 + b) * (k * 5) + c * 5
        let nested = add(
            mul(
                add(
                    mul(add(mul(a.clone(), int(5)), b.clone()), k.clone()),
                    c.clone(),
                ),
                int(5),
            ),
            int(3),
        );
        let flat = add(
            mul(
                add(mul(a.clone(), int(5)), b.clone()),
                mul(k.clone(), int(5)),
            ),
            mul(c.clone(), int(5)),
        );
        let mut expander = PolynomialExpander::default();
        assert_eq!(expander.constant_difference(&nested, &flat), Some(3));
        // A different atom (another variable named `n`) is not the same term.
        let other_k = crate::ir::operators::floordiv(add(var("n"), int(79)), int(80)).unwrap();
        let other = add(
            mul(add(mul(a, int(5)), b), mul(other_k, int(5))),
            mul(c, int(5)),
        );
        assert_eq!(expander.constant_difference(&nested, &other), None);
    }
}
