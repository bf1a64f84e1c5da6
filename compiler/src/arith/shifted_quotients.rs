//! TVM's rewrite rules for the difference of two quotients of one value
//! shifted by constants, which its `Simplify` applies between two canonical
//! passes: `(x + c1) // d - (x + c2) // d` becomes
//! `((x + c2 % d) % d + (c1 - c2)) // d` (and `x % 2 * ... + ...` for
//! `d == 2`). `compute_at` relaxes a strided read over such rows: a
//! stride-2 window of 4 is `(h + 3) // 2 + 1 - h // 2`, which TVM prints
//! `h % 2 + 2`.
//!
//! The rules match the printed canonical sum, as TVM's do: only where the
//! whole sum is `q1 - q2`, `q1 + c - q2` or `q1 * k - q2 * k` (a third term
//! in between leaves it alone).
//!
//! The fold hides that `x // d + (x % d + c) // d` is `(x + c) // d`, which
//! a proof of a loop's last value needs; [`merge_remainder_quotients`]
//! undoes it for proofs.

use super::build;
use super::rewrite_rules::flatten_sum;
use crate::ir::mutate::rewrite_post_order;
use crate::ir::structural::expr_deep_equal;
use crate::ir::{BinaryOp, Expr, ExprKind};

/// `expr` with every difference of shifted quotients folded; the caller
/// simplifies the result again.
pub(crate) fn fold_shifted_quotients(expr: &Expr) -> Expr {
    rewrite_post_order(expr, |expr| match expr.kind() {
        ExprKind::Binary(BinaryOp::Sub, a, b) if build::is_index_type(expr.dtype()) => {
            fold_difference(a, b).unwrap_or(expr)
        }
        _ => expr,
    })
}

/// `a - b` folded, through a constant added to `a` (`(x + c) - y` is
/// `(x - y) + c`) or a common constant factor (`x * k - y * k`).
fn fold_difference(a: &Expr, b: &Expr) -> Option<Expr> {
    if let Some(folded) = fold_quotients(a, b) {
        return Some(folded);
    }
    match (a.kind(), b.kind()) {
        (ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), x, c), _) if c.is_const() => {
            let folded = fold_difference(x, b)?;
            Some(build::binary(*op, folded, c.clone()))
        }
        (ExprKind::Binary(BinaryOp::Mul, x, k), ExprKind::Binary(BinaryOp::Mul, y, l))
            if k.as_int().is_some() && k.as_int() == l.as_int() =>
        {
            Some(build::mul(fold_quotients(x, y)?, k.clone()))
        }
        _ => None,
    }
}

/// `expr` with `x // d + (x % d + c) // d` merged into `(x + c) // d` in
/// every sum that adds both, for proofs; the caller simplifies the result.
pub(crate) fn merge_remainder_quotients(expr: &Expr) -> Expr {
    rewrite_post_order(expr, merge_in_sum)
}

/// One sum with its first `x // d + (x % d + c) // d` pair merged.
fn merge_in_sum(expr: Expr) -> Expr {
    let is_sum = matches!(
        expr.kind(),
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, _, _)
    );
    if !is_sum || !build::is_index_type(expr.dtype()) {
        return expr;
    }
    let mut terms = Vec::new();
    flatten_sum(&expr, &mut terms);
    let mut merged = false;
    for i in 0..terms.len() {
        let Some((x, d, c)) = remainder_quotient(&terms[i]) else {
            continue;
        };
        let partner = terms.iter().position(|(op, term)| {
            *op == BinaryOp::Add
                && matches!(term.kind(), ExprKind::Binary(BinaryOp::FloorDiv, y, e)
                    if e.as_int() == Some(d) && expr_deep_equal(x, y))
        });
        if let Some(j) = partner {
            let dtype = expr.dtype();
            let shifted = build::add(x.clone(), build::int(c, dtype));
            terms[j].1 = build::floordiv(shifted, build::int(d, dtype));
            terms[i].1 = build::int(0, dtype);
            merged = true;
            break;
        }
    }
    if !merged {
        return expr;
    }
    let mut terms = terms.into_iter();
    let first = terms.next().map(|(_, term)| term);
    terms.fold(first.unwrap_or(expr), |sum, (op, term)| {
        build::binary(op, sum, term)
    })
}

/// `(x, d, c)` for an added `(x % d + c) // d` with positive `d`.
fn remainder_quotient((op, term): &(BinaryOp, Expr)) -> Option<(&Expr, i64, i64)> {
    if *op != BinaryOp::Add {
        return None;
    }
    let ExprKind::Binary(BinaryOp::FloorDiv, dividend, d) = term.kind() else {
        return None;
    };
    let d = d.as_int().filter(|d| *d > 0)?;
    let (remainder, c) = shifted(dividend);
    match remainder.kind() {
        ExprKind::Binary(BinaryOp::FloorMod, x, e) if e.as_int() == Some(d) && c != 0 => {
            Some((x, d, c))
        }
        _ => None,
    }
}

/// `(x + c1) // d - (x + c2) // d` for a positive constant `d`, as TVM's
/// rules rewrite it (its rules for `d == 2` come first).
fn fold_quotients(a: &Expr, b: &Expr) -> Option<Expr> {
    let (
        ExprKind::Binary(BinaryOp::FloorDiv, dividend_a, d),
        ExprKind::Binary(BinaryOp::FloorDiv, dividend_b, e),
    ) = (a.kind(), b.kind())
    else {
        return None;
    };
    let divisor = d.as_int().filter(|d| *d > 0)?;
    if e.as_int() != Some(divisor) {
        return None;
    }
    let (x, c1) = shifted(dividend_a);
    let (y, c2) = shifted(dividend_b);
    if !expr_deep_equal(x, y) || (c1 == 0 && c2 == 0) {
        return None;
    }
    let dtype = a.dtype();
    let int = |v: i64| build::int(v, dtype);
    if divisor == 2 {
        let parity = build::floormod(x.clone(), int(2));
        let scale = c1.rem_euclid(2) - c2.rem_euclid(2);
        let offset = c1.div_euclid(2) - c2.div_euclid(2);
        return Some(build::add(build::mul(parity, int(scale)), int(offset)));
    }
    // TVM matches `x + c1` only where `a`'s dividend has a constant.
    if c1 == 0 {
        return None;
    }
    let remainder = if c2 == 0 {
        build::floormod(x.clone(), int(divisor))
    } else {
        let shift = c2.rem_euclid(divisor);
        build::floormod(build::add(x.clone(), int(shift)), int(divisor))
    };
    let difference = c1.checked_sub(c2)?;
    Some(build::floordiv(
        build::add(remainder, int(difference)),
        int(divisor),
    ))
}

/// `x + c` or `x - c` as `(x, ±c)`; anything else as `(expr, 0)`.
fn shifted(expr: &Expr) -> (&Expr, i64) {
    if let ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), x, c) = expr.kind() {
        if let Some(value) = c.as_int() {
            let signed = if *op == BinaryOp::Add {
                Some(value)
            } else {
                value.checked_neg()
            };
            if let Some(signed) = signed {
                return (x, signed);
            }
        }
    }
    (expr, 0)
}

#[cfg(test)]
mod tests {
    use super::{fold_shifted_quotients, merge_remainder_quotients};
    use crate::arith::{build, Analyzer};
    use crate::ir::{DataType, Expr, Var};
    use crate::source::Span;

    fn quotient(x: &Expr, shift: i64, d: i64) -> Expr {
        let dividend = if shift == 0 {
            x.clone()
        } else {
            build::add(x.clone(), Expr::i32(shift))
        };
        build::floordiv(dividend, Expr::i32(d))
    }

    #[test]
    fn a_strided_window_extent_folds_and_merges_back() {
        let h = Var::new("h", DataType::int32(), Span::NONE).to_expr();
        let analyzer = Analyzer::new();
        // `(h + 3) // 2 + 1 - h // 2`: TVM's `h % 2 + 2`.
        let extent = build::sub(
            build::add(quotient(&h, 3, 2), Expr::i32(1)),
            quotient(&h, 0, 2),
        );
        assert_eq!(analyzer.simplify(&extent).to_string(), "h % 2 + 2");
        // A third term in between leaves the difference alone, as in TVM.
        let w = Var::new("w", DataType::int32(), Span::NONE).to_expr();
        let with_w = build::sub(build::add(quotient(&h, 7, 4), w), quotient(&h, 0, 4));
        assert!(fold_shifted_quotients(&with_w).to_string() == with_w.to_string());
        // The last value `h // 196 + (h % 196 + 15) // 196` merges back.
        let remainder = build::floormod(h.clone(), Expr::i32(196));
        let last = build::add(quotient(&h, 0, 196), quotient(&remainder, 15, 196));
        let merged = analyzer.simplify(&merge_remainder_quotients(&last));
        assert_eq!(merged.to_string(), "(h + 15) // 196");
        // Different divisors do not merge.
        let other = build::add(quotient(&h, 0, 98), quotient(&remainder, 15, 196));
        assert_eq!(
            merge_remainder_quotients(&other).to_string(),
            other.to_string()
        );
    }
}
