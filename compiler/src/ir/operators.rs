//! TVM's operator semantics: type promotion, implicit casts and constant
//! folding, exactly as `tvm::add`, `tvm::cast` and `TryConstFold` apply them.
//!
//! The frontend builds every Python operator through these functions so that
//! `parse(text)` gives the same IR as TVM's parser, and the printer asks them
//! whether `a + b` would rebuild an `Add` node unchanged (else it prints
//! `T.Add(a, b)`).

use super::dtype::{DataType, TypeCode};
use super::expr::{BinaryOp, Expr, ExprKind};
use crate::source::Span;

/// Why an operator could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorError(pub String);

type OperatorResult = Result<Expr, OperatorError>;

fn err(message: impl Into<String>) -> OperatorError {
    OperatorError(message.into())
}

/// The type both operands of a binary operator are converted to, or `None`
/// when TVM refuses the pair.
pub fn promote(lhs: DataType, rhs: DataType) -> Option<DataType> {
    if lhs == rhs {
        return Some(lhs);
    }
    let float_like = |t: DataType| t.is_float();
    let result = if float_like(lhs) && float_like(rhs) {
        if lhs.bits < rhs.bits {
            rhs
        } else {
            lhs
        }
    } else if !float_like(lhs) && float_like(rhs) {
        rhs
    } else if float_like(lhs) && !float_like(rhs) {
        lhs
    } else if lhs.is_bool() && rhs.is_integer() {
        rhs
    } else if lhs.is_integer() && rhs.is_bool() {
        lhs
    } else if lhs.code == rhs.code && lhs.is_integer() {
        if lhs.bits < rhs.bits {
            rhs
        } else {
            lhs
        }
    } else if lhs.is_integer() && rhs.is_integer() {
        // Mixed signedness: the wider wins; at equal width, unsigned wins.
        if lhs.bits < rhs.bits {
            rhs
        } else if lhs.bits > rhs.bits {
            lhs
        } else {
            DataType {
                code: TypeCode::UInt,
                ..lhs
            }
        }
    } else {
        return None;
    };
    Some(result.with_lanes(lhs.lanes.max(rhs.lanes)))
}

/// Wraps an integer to the width and signedness of `dtype`, as TVM does after folding.
pub fn wrap_int(value: i64, dtype: DataType) -> i64 {
    let bits = dtype.bits as u32;
    if dtype.is_bool() {
        return (value != 0) as i64;
    }
    let mut x = value;
    if bits < 64 {
        x &= (1i64 << bits) - 1;
    }
    if dtype.is_int() && bits < 64 && bits > 0 {
        let m = 1i64 << (bits - 1);
        x = (x ^ m).wrapping_sub(m);
    }
    x
}

/// A constant of `dtype` with an integer value (TVM's `MakeConst`).
pub fn make_const_int(dtype: DataType, value: i64) -> Expr {
    let scalar = dtype.element_of();
    let imm = if scalar.is_float() {
        Expr::float(value as f64, scalar)
    } else if scalar.is_bool() {
        Expr::int((value != 0) as i64, scalar)
    } else {
        Expr::int(value, scalar)
    };
    broadcast_if_vector(imm, dtype)
}

/// A constant of `dtype` with a float value (TVM's `MakeConst`).
pub fn make_const_float(dtype: DataType, value: f64) -> Expr {
    let scalar = dtype.element_of();
    let imm = if scalar.is_float() {
        Expr::float(value, scalar)
    } else if scalar.is_bool() {
        Expr::int((value != 0.0) as i64, scalar)
    } else {
        Expr::int(value as i64, scalar)
    };
    broadcast_if_vector(imm, dtype)
}

fn broadcast_if_vector(scalar: Expr, dtype: DataType) -> Expr {
    if dtype.lanes > 1 {
        Expr::new(
            ExprKind::Broadcast {
                value: scalar,
                lanes: dtype.lanes,
            },
            dtype,
            Span::NONE,
        )
    } else {
        scalar
    }
}

/// `tvm::cast`: no node when the type already matches; constants are converted in place.
pub fn cast(dtype: DataType, value: Expr) -> Expr {
    if value.dtype() == dtype {
        return value;
    }
    if dtype.lanes == 1 {
        return match value.kind() {
            ExprKind::Int(v) => make_const_int(dtype, *v).with_span(value.span()),
            ExprKind::Float(v) => make_const_float(dtype, *v).with_span(value.span()),
            _ => Expr::new(ExprKind::Cast(value.clone()), dtype, value.span()),
        };
    }
    let element = dtype.element_of();
    if value.dtype().lanes == 1 {
        // Cast the scalar, then broadcast it.
        let scalar = cast(element, value);
        return Expr::new(
            ExprKind::Broadcast {
                value: scalar,
                lanes: dtype.lanes,
            },
            dtype,
            Span::NONE,
        );
    }
    if let ExprKind::Broadcast {
        value: inner,
        lanes,
    } = value.kind()
    {
        return Expr::new(
            ExprKind::Broadcast {
                value: cast(element, inner.clone()),
                lanes: *lanes,
            },
            dtype,
            Span::NONE,
        );
    }
    Expr::new(ExprKind::Cast(value.clone()), dtype, value.span())
}

fn broadcast_to_match(a: Expr, lanes: u16) -> Expr {
    if a.dtype().lanes == 1 && lanes > 1 {
        let dtype = a.dtype().with_lanes(lanes);
        Expr::new(ExprKind::Broadcast { value: a, lanes }, dtype, Span::NONE)
    } else {
        a
    }
}

/// `BinaryOpMatchTypes`: broadcasts scalars to vectors and casts both sides to the promoted type.
pub fn match_types(a: Expr, b: Expr) -> Result<(Expr, Expr), OperatorError> {
    if a.dtype() == b.dtype() {
        return Ok((a, b));
    }
    let lanes = a.dtype().lanes.max(b.dtype().lanes);
    let a = broadcast_to_match(a, lanes);
    let b = broadcast_to_match(b, lanes);
    if a.dtype().lanes != b.dtype().lanes {
        return Err(err(format!(
            "cannot combine {} and {}: the lane counts differ",
            a.dtype(),
            b.dtype()
        )));
    }
    let promoted = promote(a.dtype(), b.dtype()).ok_or_else(|| {
        err(format!(
            "cannot combine {} and {} in one operation",
            a.dtype(),
            b.dtype()
        ))
    })?;
    Ok((cast(promoted, a), cast(promoted, b)))
}

fn is_index_type(dtype: DataType) -> bool {
    dtype.is_int() && (dtype.bits == 32 || dtype.bits == 64) && dtype.lanes == 1
}

/// Division rounding toward negative infinity, wrapping where it overflows
/// (`i64::MIN // -1`) as the hardware and TVM's folding do: folding and the
/// interpreter must not panic on it.
pub fn wrapping_floor_div(a: i64, b: i64) -> i64 {
    let quotient = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        quotient.wrapping_sub(1)
    } else {
        quotient
    }
}

/// The remainder of [`wrapping_floor_div`]: it has the sign of the divisor.
pub fn wrapping_floor_mod(a: i64, b: i64) -> i64 {
    let remainder = a.wrapping_rem(b);
    if remainder != 0 && ((remainder < 0) != (b < 0)) {
        remainder.wrapping_add(b)
    } else {
        remainder
    }
}

/// Folds a float result of 32-bit arithmetic, keeping overflow as infinity.
fn fold_f32(value: f32) -> f64 {
    value as f64
}

/// TVM's `TryConstFold` for binary operators: `Some` when the operation
/// simplifies to a constant or to one of its operands. Operands must already
/// have matching types.
pub fn try_const_fold(op: BinaryOp, a: &Expr, b: &Expr) -> Result<Option<Expr>, OperatorError> {
    let result_type = a.dtype();
    let (pa, pb) = (a.as_int(), b.as_int());
    let (fa, fb) = (a.as_float(), b.as_float());
    let int = |v: i64| Some(Expr::int(wrap_int(v, result_type), result_type));
    let float32 = |v: f32| Some(Expr::float(fold_f32(v), result_type));
    let bits = result_type.bits;
    let division = matches!(
        op,
        BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod
    );
    // A vector of zeros divides by zero in every lane, as a scalar zero does.
    if division {
        if let ExprKind::Broadcast { value, .. } = b.kind() {
            if value.as_int() == Some(0) || value.as_float() == Some(0.0) {
                return Err(err("division by zero"));
            }
        }
    }
    let folded = match op {
        BinaryOp::Add => {
            if let (Some(x), Some(y)) = (pa, pb) {
                int(x.wrapping_add(y))
            } else if pa == Some(0) {
                Some(b.clone())
            } else if pb == Some(0) {
                Some(a.clone())
            } else if let (Some(x), Some(y)) = (fa, fb) {
                match bits {
                    32 => float32(x as f32 + y as f32),
                    64 => Some(Expr::float(x + y, result_type)),
                    _ => None,
                }
                .or_else(|| fold_float_identity_add(a, b, fa, fb))
            } else {
                fold_float_identity_add(a, b, fa, fb)
            }
        }
        BinaryOp::Sub => {
            if let (Some(x), Some(y)) = (pa, pb) {
                int(x.wrapping_sub(y))
            } else if pb == Some(0) {
                Some(a.clone())
            } else if let (Some(x), Some(y)) = (fa, fb) {
                match bits {
                    32 => float32(x as f32 - y as f32),
                    64 => Some(Expr::float(x - y, result_type)),
                    _ => (y == 0.0).then(|| a.clone()),
                }
            } else if fb == Some(0.0) {
                Some(a.clone())
            } else {
                None
            }
        }
        BinaryOp::Mul => {
            if let (Some(x), Some(y)) = (pa, pb) {
                int(x.wrapping_mul(y))
            } else if pa == Some(1) {
                Some(b.clone())
            } else if pa == Some(0) || pb == Some(1) {
                Some(a.clone())
            } else if pb == Some(0) {
                Some(b.clone())
            } else if let (Some(x), Some(y)) = (fa, fb) {
                match bits {
                    32 => float32(x as f32 * y as f32),
                    64 => Some(Expr::float(x * y, result_type)),
                    _ => fold_float_identity_mul(a, b, fa, fb),
                }
            } else {
                fold_float_identity_mul(a, b, fa, fb)
            }
        }
        BinaryOp::Div => {
            if pb == Some(0) || fb == Some(0.0) {
                return Err(err("division by zero"));
            }
            if let (Some(x), Some(y)) = (pa, pb) {
                int(x.wrapping_div(y))
            } else if pa == Some(0) || pb == Some(1) {
                Some(a.clone())
            } else if let (Some(x), Some(y)) = (fa, fb) {
                match bits {
                    32 => float32(x as f32 / y as f32),
                    64 => Some(Expr::float(x / y, result_type)),
                    _ => None,
                }
            } else if fa == Some(0.0) || fb == Some(1.0) {
                Some(a.clone())
            } else {
                None
            }
        }
        BinaryOp::Mod => {
            if !(is_index_type(a.dtype()) && is_index_type(b.dtype())) {
                None
            } else {
                if pb == Some(0) {
                    return Err(err("division by zero"));
                }
                if let (Some(x), Some(y)) = (pa, pb) {
                    int(x.wrapping_rem(y))
                } else if pa == Some(0) {
                    Some(a.clone())
                } else if pb == Some(1) {
                    Some(Expr::int(0, result_type))
                } else {
                    None
                }
            }
        }
        BinaryOp::FloorDiv => {
            if pb == Some(0) {
                return Err(err("division by zero"));
            }
            if let (Some(x), Some(y)) = (pa, pb) {
                int(wrapping_floor_div(x, y))
            } else if pa == Some(0) || pb == Some(1) {
                Some(a.clone())
            } else if let (Some(x), Some(y)) = (fa, fb) {
                if y == 0.0 {
                    None
                } else {
                    match bits {
                        32 => float32((x as f32 / y as f32).floor()),
                        64 => Some(Expr::float((x / y).floor(), result_type)),
                        _ => None,
                    }
                }
            } else if fa == Some(0.0) || fb == Some(1.0) {
                Some(a.clone())
            } else {
                None
            }
        }
        BinaryOp::FloorMod => {
            if result_type.is_uint() && a.dtype() == b.dtype() && pa.is_some() && pb.is_some() {
                let mask = |v: i64| -> u64 {
                    if bits < 64 {
                        (v as u64) & ((1u64 << bits) - 1)
                    } else {
                        v as u64
                    }
                };
                let (x, y) = (mask(pa.unwrap_or(0)), mask(pb.unwrap_or(1)));
                if y == 0 {
                    return Err(err("division by zero"));
                }
                Some(Expr::int((x % y) as i64, result_type))
            } else if !(is_index_type(a.dtype()) && is_index_type(b.dtype())) {
                None
            } else {
                if pb == Some(0) {
                    return Err(err("division by zero"));
                }
                if let (Some(x), Some(y)) = (pa, pb) {
                    int(wrapping_floor_mod(x, y))
                } else if pa == Some(0) {
                    Some(a.clone())
                } else if pb == Some(1) {
                    Some(Expr::int(0, result_type))
                } else {
                    None
                }
            }
        }
        BinaryOp::Min | BinaryOp::Max => {
            let pick_min = op == BinaryOp::Min;
            if let (Some(x), Some(y)) = (pa, pb) {
                Some(Expr::int(
                    if pick_min { x.min(y) } else { x.max(y) },
                    result_type,
                ))
            } else if let (Some(x), Some(y)) = (fa, fb) {
                Some(Expr::float(
                    if pick_min { x.min(y) } else { x.max(y) },
                    result_type,
                ))
            } else if same_operand(a, b) {
                Some(a.clone())
            } else {
                None
            }
        }
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            let compare = |ord: std::cmp::Ordering| match op {
                BinaryOp::Eq => ord == std::cmp::Ordering::Equal,
                BinaryOp::Ne => ord != std::cmp::Ordering::Equal,
                BinaryOp::Lt => ord == std::cmp::Ordering::Less,
                BinaryOp::Le => ord != std::cmp::Ordering::Greater,
                BinaryOp::Gt => ord == std::cmp::Ordering::Greater,
                _ => ord != std::cmp::Ordering::Less,
            };
            if let (Some(x), Some(y)) = (pa, pb) {
                Some(Expr::bool(compare(x.cmp(&y))))
            } else if let (Some(x), Some(y)) = (fa, fb) {
                x.partial_cmp(&y)
                    .map(|ord| Expr::bool(compare(ord)))
                    .or_else(|| {
                        // NaN compares false except for `!=`.
                        Some(Expr::bool(op == BinaryOp::Ne))
                    })
            } else {
                None
            }
        }
        BinaryOp::And => match (pa, pb) {
            (Some(x), _) if x != 0 => Some(b.clone()),
            (Some(_), _) => Some(a.clone()),
            (_, Some(y)) if y != 0 => Some(a.clone()),
            (_, Some(_)) => Some(b.clone()),
            _ => None,
        },
        BinaryOp::Or => match (pa, pb) {
            (Some(x), _) if x != 0 => Some(a.clone()),
            (Some(_), _) => Some(b.clone()),
            (_, Some(y)) if y != 0 => Some(b.clone()),
            (_, Some(_)) => Some(a.clone()),
            _ => None,
        },
    };
    Ok(folded)
}

/// TVM's `same_as` on operands: the same node, or two uses of one variable
/// (a TVM variable is itself the expression, so every use is the same object).
fn same_operand(a: &Expr, b: &Expr) -> bool {
    a.same_as(b) || matches!((a.as_var(), b.as_var()), (Some(x), Some(y)) if x == y)
}

fn fold_float_identity_add(a: &Expr, b: &Expr, fa: Option<f64>, fb: Option<f64>) -> Option<Expr> {
    if fa == Some(0.0) {
        Some(b.clone())
    } else if fb == Some(0.0) {
        Some(a.clone())
    } else {
        None
    }
}

fn fold_float_identity_mul(a: &Expr, b: &Expr, fa: Option<f64>, fb: Option<f64>) -> Option<Expr> {
    if fa == Some(1.0) {
        Some(b.clone())
    } else if fa == Some(0.0) || fb == Some(1.0) {
        Some(a.clone())
    } else if fb == Some(0.0) {
        Some(b.clone())
    } else {
        None
    }
}

/// Applies a binary operator the way `tvm::add` and its siblings do:
/// match types, fold constants, else build the node.
pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> OperatorResult {
    if op.is_logical() && (!a.dtype().is_bool() || !b.dtype().is_bool()) {
        return Err(err(format!(
            "`{}` needs bool operands, found {} and {}",
            if op == BinaryOp::And { "and" } else { "or" },
            a.dtype(),
            b.dtype()
        )));
    }
    let (a, b) = match_types(a, b)?;
    if let Some(folded) = try_const_fold(op, &a, &b)? {
        return Ok(folded);
    }
    Ok(Expr::binary(op, a, b))
}

/// True when `binary(op, a, b)` would rebuild `Binary(op, a, b)` itself: the
/// printer then writes the operator form; otherwise it writes `T.Add(a, b)`.
pub fn rebuilds_unchanged(op: BinaryOp, a: &Expr, b: &Expr) -> bool {
    if a.dtype() != b.dtype() {
        return false;
    }
    if op.is_logical() && !a.dtype().is_bool() {
        return false;
    }
    matches!(try_const_fold(op, a, b), Ok(None))
}

/// `a + b`.
pub fn add(a: Expr, b: Expr) -> OperatorResult {
    binary(BinaryOp::Add, a, b)
}
/// `a - b`.
pub fn sub(a: Expr, b: Expr) -> OperatorResult {
    binary(BinaryOp::Sub, a, b)
}
/// `a * b`.
pub fn mul(a: Expr, b: Expr) -> OperatorResult {
    binary(BinaryOp::Mul, a, b)
}
/// `a // b`.
pub fn floordiv(a: Expr, b: Expr) -> OperatorResult {
    binary(BinaryOp::FloorDiv, a, b)
}
/// `a % b` (floor modulo).
pub fn floormod(a: Expr, b: Expr) -> OperatorResult {
    binary(BinaryOp::FloorMod, a, b)
}

/// `-x`, which TVM builds as `x * -1`.
pub fn neg(x: Expr) -> OperatorResult {
    let minus_one = make_const_int(x.dtype(), -1);
    let minus_one = if x.dtype().is_float() {
        make_const_float(x.dtype(), -1.0)
    } else {
        minus_one
    };
    mul(x, minus_one)
}

/// `not x`.
pub fn logical_not(x: Expr) -> OperatorResult {
    if !x.dtype().is_bool() {
        return Err(err(format!(
            "`not` needs a bool operand, found {}",
            x.dtype()
        )));
    }
    if let Some(v) = x.as_int() {
        return Ok(Expr::bool(v == 0));
    }
    let dtype = x.dtype();
    Ok(Expr::new(ExprKind::Not(x), dtype, Span::NONE))
}

/// `T.if_then_else(cond, a, b)`: a constant condition picks a side.
pub fn if_then_else(condition: Expr, a: Expr, b: Expr) -> OperatorResult {
    if !condition.dtype().is_bool() {
        return Err(err(format!(
            "the condition of T.if_then_else must be bool, found {}",
            condition.dtype()
        )));
    }
    let (a, b) = match_types(a, b)?;
    if let Some(v) = condition.as_int() {
        return Ok(if v != 0 { a } else { b });
    }
    let dtype = a.dtype();
    Ok(Expr::call(
        super::builtin::Op::named("if_then_else"),
        vec![condition, a, b],
        dtype,
    ))
}

/// True when `e` is the constant 1 (or `True`).
pub fn is_one(e: &Expr) -> bool {
    e.as_int() == Some(1) || e.as_float() == Some(1.0)
}

/// True when `e` is the constant 0.
pub fn is_zero(e: &Expr) -> bool {
    e.as_int() == Some(0) || e.as_float() == Some(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Var;

    fn var(name: &str, dtype: DataType) -> Expr {
        Var::new(name, dtype, Span::NONE).to_expr()
    }

    #[test]
    fn int32_literal_is_promoted_to_int64() {
        let i = var("i", DataType::int64());
        let sum = add(i, Expr::i32(1)).unwrap();
        match sum.kind() {
            ExprKind::Binary(BinaryOp::Add, _, one) => {
                assert_eq!(one.dtype(), DataType::int64());
                assert_eq!(one.as_int(), Some(1));
            }
            other => panic!("expected an Add, got {other:?}"),
        }
    }

    #[test]
    fn int8_operand_is_widened_to_int32() {
        let x = var("x", DataType::int(8));
        let sum = add(x, Expr::i32(1)).unwrap();
        assert_eq!(sum.dtype(), DataType::int32());
        match sum.kind() {
            ExprKind::Binary(_, lhs, _) => assert!(matches!(lhs.kind(), ExprKind::Cast(_))),
            other => panic!("expected an Add, got {other:?}"),
        }
    }

    #[test]
    fn range_end_and_last_fold_constants_and_keep_symbols() {
        let range = crate::ir::Range::new(Expr::i32(2), Expr::i32(3));
        assert_eq!(range.end().unwrap().as_int(), Some(5));
        assert_eq!(range.last().unwrap().as_int(), Some(4));
        let n = var("n", DataType::int32());
        let symbolic = crate::ir::Range::from_extent(n.clone());
        // `0 + n` folds to `n`; the last value stays `n - 1`.
        assert!(symbolic.end().unwrap().same_as(&n));
        match symbolic.last().unwrap().kind() {
            ExprKind::Binary(BinaryOp::Sub, lhs, rhs) => {
                assert!(lhs.same_as(&n));
                assert_eq!(rhs.as_int(), Some(1));
            }
            other => panic!("expected n - 1, got {other:?}"),
        }
    }

    #[test]
    fn identities_fold_like_tvm() {
        let i = var("i", DataType::int32());
        assert!(add(i.clone(), Expr::i32(0)).unwrap().same_as(&i));
        assert!(mul(Expr::i32(1), i.clone()).unwrap().same_as(&i));
        assert_eq!(mul(Expr::i32(0), i.clone()).unwrap().as_int(), Some(0));
        assert_eq!(
            floordiv(Expr::i32(-7), Expr::i32(2)).unwrap().as_int(),
            Some(-4)
        );
        assert_eq!(
            floormod(Expr::i32(-7), Expr::i32(2)).unwrap().as_int(),
            Some(1)
        );
        assert!(!rebuilds_unchanged(BinaryOp::Add, &i, &Expr::i32(0)));
        assert!(rebuilds_unchanged(BinaryOp::Add, &i, &Expr::i32(3)));
    }

    #[test]
    fn int32_fold_wraps() {
        let big = add(Expr::i32(i32::MAX as i64), Expr::i32(1)).unwrap();
        assert_eq!(big.as_int(), Some(i32::MIN as i64));
    }

    #[test]
    fn float32_fold_uses_single_precision() {
        let f32_type = DataType::float32();
        let sum = add(Expr::float(0.1, f32_type), Expr::float(0.2, f32_type)).unwrap();
        assert_eq!(sum.as_float(), Some((0.1f32 + 0.2f32) as f64));
    }

    #[test]
    fn negation_multiplies_by_minus_one() {
        let x = var("x", DataType::float32());
        let negated = neg(x).unwrap();
        match negated.kind() {
            ExprKind::Binary(BinaryOp::Mul, _, c) => assert_eq!(c.as_float(), Some(-1.0)),
            other => panic!("expected a Mul, got {other:?}"),
        }
        assert_eq!(neg(Expr::i32(5)).unwrap().as_int(), Some(-5));
    }

    #[test]
    fn extreme_division_wraps_instead_of_panicking() {
        let min = Expr::int(i64::MIN, DataType::int64());
        let minus_one = Expr::int(-1, DataType::int64());
        assert_eq!(
            floordiv(min.clone(), minus_one.clone()).unwrap().as_int(),
            Some(i64::MIN)
        );
        assert_eq!(floormod(min, minus_one).unwrap().as_int(), Some(0));
    }

    #[test]
    fn division_by_zero_is_an_error() {
        assert!(floordiv(var("i", DataType::int32()), Expr::i32(0)).is_err());
    }
}
