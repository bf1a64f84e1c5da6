//! Infallible expression builders for the analyzers: TVM's operator semantics
//! (type matching, constant folding) without the error path.
//!
//! The analyzers only combine operands of one integer type and never divide by
//! a zero constant, so `ir::operators` cannot fail for them; should it fail
//! anyway, the plain node is built instead of panicking.

use crate::ir::operators;
use crate::ir::{BinaryOp, DataType, Expr, ExprKind};

/// True for `i64::MIN / -1` and its siblings, which `ir::operators` cannot fold
/// without overflowing (its floor division computes `i64::MIN % -1`).
fn folding_overflows(op: BinaryOp, a: &Expr, b: &Expr) -> bool {
    let division = matches!(
        op,
        BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod
    );
    division && a.as_int() == Some(i64::MIN) && b.as_int() == Some(-1)
}

/// `op(a, b)` with TVM's folding, or the plain node when the operator refuses.
pub(crate) fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    if folding_overflows(op, &a, &b) {
        return Expr::binary(op, a, b);
    }
    // Operands of one type need no conversion: fold without cloning them.
    let logical_mismatch = op.is_logical() && !a.dtype().is_bool();
    if a.dtype() == b.dtype() && !logical_mismatch {
        return match operators::try_const_fold(op, &a, &b) {
            Ok(Some(folded)) => folded,
            _ => Expr::binary(op, a, b),
        };
    }
    match operators::binary(op, a.clone(), b.clone()) {
        Ok(folded) => folded,
        Err(_) => Expr::binary(op, a, b),
    }
}

/// TVM's `TryConstFold` on operands of matching types, `None` when nothing folds.
pub(crate) fn try_fold(op: BinaryOp, a: &Expr, b: &Expr) -> Option<Expr> {
    if folding_overflows(op, a, b) {
        return None;
    }
    operators::try_const_fold(op, a, b).ok().flatten()
}

/// `a + b`.
pub(crate) fn add(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::Add, a, b)
}

/// `a - b`.
pub(crate) fn sub(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::Sub, a, b)
}

/// `a * b`.
pub(crate) fn mul(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::Mul, a, b)
}

/// `a // b`.
pub(crate) fn floordiv(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::FloorDiv, a, b)
}

/// `a % b` (floor modulo).
pub(crate) fn floormod(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::FloorMod, a, b)
}

/// `T.min(a, b)`.
pub(crate) fn min(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::Min, a, b)
}

/// `T.max(a, b)`.
pub(crate) fn max(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::Max, a, b)
}

/// A comparison or logical node built without folding, for rewrite results
/// that the simplifier visits again.
pub(crate) fn node(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    match operators::match_types(a.clone(), b.clone()) {
        Ok((a, b)) => Expr::binary(op, a, b),
        Err(_) => Expr::binary(op, a, b),
    }
}

/// `not x`, folding constants.
pub(crate) fn not(x: Expr) -> Expr {
    match operators::logical_not(x.clone()) {
        Ok(e) => e,
        Err(_) => {
            let dtype = x.dtype();
            Expr::new(ExprKind::Not(x), dtype, crate::source::Span::NONE)
        }
    }
}

/// An integer constant of `dtype`, wrapped to the type's width as TVM's folding does.
pub(crate) fn int(value: i64, dtype: DataType) -> Expr {
    Expr::int(operators::wrap_int(value, dtype), dtype)
}

/// True for the scalar `int32`/`int64` types the canonical simplifier handles (TVM's `IsIndexType`).
pub(crate) fn is_index_type(dtype: DataType) -> bool {
    dtype.is_int() && dtype.is_scalar() && (dtype.bits == 32 || dtype.bits == 64)
}

/// The greatest common divisor of two values, with `gcd(0, x) = |x|`.
pub(crate) fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

/// Defines checked floor division and modulo for one integer type: the
/// simplifier folds `i64` constants, the front end Python's `i128` integers.
macro_rules! checked_floor_division {
    ($int:ty, $div:ident, $rem:ident) => {
        /// Floor division of integers; `None` for a zero divisor or overflow.
        pub(crate) fn $div(a: $int, b: $int) -> Option<$int> {
            let q = a.checked_div(b)?;
            if a % b != 0 && ((a < 0) != (b < 0)) {
                q.checked_sub(1)
            } else {
                Some(q)
            }
        }

        /// Floor modulo of integers (the sign of the divisor); `None` for a zero divisor.
        pub(crate) fn $rem(a: $int, b: $int) -> Option<$int> {
            // `MIN % -1` overflows in Rust, but every integer is a multiple of -1.
            let r = if b == -1 { 0 } else { a.checked_rem(b)? };
            // Opposite signs: adding the divisor cannot overflow.
            if r != 0 && ((r < 0) != (b < 0)) {
                Some(r + b)
            } else {
                Some(r)
            }
        }
    };
}

checked_floor_division!(i64, floor_div_i64, floor_mod_i64);
checked_floor_division!(i128, floor_div_i128, floor_mod_i128);
