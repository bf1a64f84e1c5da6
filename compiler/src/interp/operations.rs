//! The arithmetic, comparison and logical operators of TIR on run-time
//! values, lane by lane, with TVM's semantics.
//!
//! Integers wrap at their width. `Div`/`Mod` truncate toward zero and
//! `FloorDiv`/`FloorMod` round toward negative infinity; dividing an integer
//! by zero is an error. Floats of 32 bits and fewer are computed in `f32` and
//! rounded once to their format (what TVM's legalization and CUDA do; for
//! `+ - * /` it equals the correctly rounded result); `float64` in `f64`.
//! `Min`/`Max` on floats are `a < b ? a : b` and `a > b ? a : b`, the selects
//! TVM's LLVM backend emits, so a NaN in `b` wins and a NaN in `a` loses.
//! Comparisons are IEEE's: every ordered comparison with NaN is false and
//! `!=` is true.

use super::error::{InterpError, InterpResult};
use super::value::{scalar_truth, wrap_signed, wrap_unsigned, ElementType, Scalar, Value};
use crate::ir::operators::{wrapping_floor_div, wrapping_floor_mod};
use crate::ir::{BinaryOp, DataType};

/// The lane count two operands combine to: equal counts, or a scalar
/// broadcast against a vector. `what` names the operation in the error.
pub fn combined_lanes(a: &Value, b: &Value, what: &str) -> InterpResult<usize> {
    let (left, right) = (a.lane_count(), b.lane_count());
    if left == right || right == 1 {
        Ok(left)
    } else if left == 1 {
        Ok(right)
    } else {
        Err(InterpError::new(format!(
            "operands of `{what}` have {left} and {right} lanes"
        )))
    }
}

/// Lane `position` of a value, a scalar standing for every lane.
pub fn lane(value: &Value, position: usize) -> Scalar {
    let lanes = value.lanes();
    lanes[if lanes.len() == 1 { 0 } else { position }]
}

/// The spelling of an operator in messages.
pub fn operator_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Mod => "T.truncmod",
        BinaryOp::FloorDiv => "//",
        BinaryOp::FloorMod => "%",
        BinaryOp::Min => "T.min",
        BinaryOp::Max => "T.max",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::And => "and",
        BinaryOp::Or => "or",
    }
}

/// `a op b`, lane by lane. Both operands must have the same element type.
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> InterpResult<Value> {
    let symbol = operator_symbol(op);
    let lanes = combined_lanes(a, b, symbol)?;
    let element = a.dtype().element_of();
    if element != b.dtype().element_of() {
        return Err(InterpError::new(format!(
            "operands of `{symbol}` have different types {} and {}",
            a.dtype(),
            b.dtype()
        )));
    }
    let element_type = ElementType::of(element)?;
    let result_element = if op.is_comparison() || op.is_logical() {
        DataType::bool()
    } else {
        element
    };
    if lanes == 1 {
        // Most values are scalars: no vector to build.
        let result = binary_lane(op, element_type, element, lane(a, 0), lane(b, 0))?;
        return Ok(Value::from_canonical_scalar(result_element, result));
    }
    let results = (0..lanes)
        .map(|position| {
            binary_lane(
                op,
                element_type,
                element,
                lane(a, position),
                lane(b, position),
            )
        })
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(result_element, results))
}

fn compare<T: PartialOrd>(op: BinaryOp, x: T, y: T) -> bool {
    match op {
        BinaryOp::Eq => x == y,
        BinaryOp::Ne => x != y,
        BinaryOp::Lt => x < y,
        BinaryOp::Le => x <= y,
        BinaryOp::Gt => x > y,
        _ => x >= y,
    }
}

fn division_by_zero(op: BinaryOp, dividend: impl std::fmt::Display) -> InterpError {
    InterpError::new(format!(
        "integer division by zero: {dividend} {} 0",
        operator_symbol(op)
    ))
}

fn binary_lane(
    op: BinaryOp,
    element_type: ElementType,
    element: DataType,
    x: Scalar,
    y: Scalar,
) -> InterpResult<Scalar> {
    if op.is_logical() {
        let (left, right) = (scalar_truth(x, element)?, scalar_truth(y, element)?);
        return Ok(Scalar::Bool(if op == BinaryOp::And {
            left && right
        } else {
            left || right
        }));
    }
    match (x, y, element_type) {
        (Scalar::Int(a), Scalar::Int(b), ElementType::Int(bits)) => signed_lane(op, bits, a, b),
        (Scalar::UInt(a), Scalar::UInt(b), ElementType::UInt(bits)) => {
            unsigned_lane(op, bits, a, b)
        }
        (Scalar::Float(a), Scalar::Float(b), float) => Ok(float_lane(op, float, a, b)),
        (Scalar::Bool(a), Scalar::Bool(b), _) if op.is_comparison() => {
            Ok(Scalar::Bool(compare(op, a, b)))
        }
        (Scalar::Bool(a), Scalar::Bool(b), _) if matches!(op, BinaryOp::Min | BinaryOp::Max) => {
            Ok(Scalar::Bool(if op == BinaryOp::Min {
                a && b
            } else {
                a || b
            }))
        }
        (Scalar::Handle(a), Scalar::Handle(b), _) if matches!(op, BinaryOp::Eq | BinaryOp::Ne) => {
            Ok(Scalar::Bool(compare(op, a, b)))
        }
        _ => Err(InterpError::new(format!(
            "`{}` is not defined on {element}",
            operator_symbol(op)
        ))),
    }
}

fn signed_lane(op: BinaryOp, bits: u16, a: i64, b: i64) -> InterpResult<Scalar> {
    let wrap = |value: i64| Ok(Scalar::Int(wrap_signed(value, bits)));
    match op {
        BinaryOp::Add => wrap(a.wrapping_add(b)),
        BinaryOp::Sub => wrap(a.wrapping_sub(b)),
        BinaryOp::Mul => wrap(a.wrapping_mul(b)),
        BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod if b == 0 => {
            Err(division_by_zero(op, a))
        }
        // The most negative value divided by -1 wraps back to itself.
        BinaryOp::Div => wrap(a.wrapping_div(b)),
        BinaryOp::Mod => wrap(a.wrapping_rem(b)),
        BinaryOp::FloorDiv => wrap(wrapping_floor_div(a, b)),
        BinaryOp::FloorMod => wrap(wrapping_floor_mod(a, b)),
        BinaryOp::Min => wrap(a.min(b)),
        BinaryOp::Max => wrap(a.max(b)),
        _ => Ok(Scalar::Bool(compare(op, a, b))),
    }
}

fn unsigned_lane(op: BinaryOp, bits: u16, a: u64, b: u64) -> InterpResult<Scalar> {
    let wrap = |value: u64| Ok(Scalar::UInt(wrap_unsigned(value, bits)));
    match op {
        BinaryOp::Add => wrap(a.wrapping_add(b)),
        BinaryOp::Sub => wrap(a.wrapping_sub(b)),
        BinaryOp::Mul => wrap(a.wrapping_mul(b)),
        BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod if b == 0 => {
            Err(division_by_zero(op, a))
        }
        // Unsigned division already rounds toward negative infinity.
        BinaryOp::Div | BinaryOp::FloorDiv => wrap(a / b),
        BinaryOp::Mod | BinaryOp::FloorMod => wrap(a % b),
        BinaryOp::Min => wrap(a.min(b)),
        BinaryOp::Max => wrap(a.max(b)),
        _ => Ok(Scalar::Bool(compare(op, a, b))),
    }
}

/// A float operator computed in `f32` for 32-bit and narrower formats and
/// rounded to the format; in `f64` for `float64`.
fn float_lane(op: BinaryOp, float: ElementType, a: f64, b: f64) -> Scalar {
    if op.is_comparison() {
        return Scalar::Bool(compare(op, a, b));
    }
    let value = if float == ElementType::Float64 {
        float_arithmetic(op, a, b)
    } else {
        float_arithmetic(op, a as f32, b as f32) as f64
    };
    Scalar::Float(float.round_float(value))
}

/// The float operators over one precision; each step rounds to it.
fn float_arithmetic<F>(op: BinaryOp, a: F, b: F) -> F
where
    F: Copy
        + PartialOrd
        + std::ops::Add<Output = F>
        + std::ops::Sub<Output = F>
        + std::ops::Mul<Output = F>
        + std::ops::Div<Output = F>
        + std::ops::Rem<Output = F>
        + Floor,
{
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        // C's fmod, which is what LLVM's `frem` computes.
        BinaryOp::Mod => a % b,
        BinaryOp::FloorDiv => (a / b).floor_value(),
        // TVM lowers float floormod to `a - floor(a / b) * b`.
        BinaryOp::FloorMod => a - (a / b).floor_value() * b,
        BinaryOp::Min => {
            if a < b {
                a
            } else {
                b
            }
        }
        _ => {
            if a > b {
                a
            } else {
                b
            }
        }
    }
}

/// `floor` for the two float precisions, so one generic body serves both.
trait Floor {
    fn floor_value(self) -> Self;
}
impl Floor for f32 {
    fn floor_value(self) -> f32 {
        self.floor()
    }
}
impl Floor for f64 {
    fn floor_value(self) -> f64 {
        self.floor()
    }
}

/// Logical negation, lane by lane.
pub fn logical_not(value: &Value) -> InterpResult<Value> {
    let lanes = value
        .lanes()
        .iter()
        .map(|lane| Ok(Scalar::Bool(!scalar_truth(*lane, value.dtype())?)))
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(DataType::bool(), lanes))
}

/// `T.Select(condition, a, b)` on values already computed, lane by lane.
pub fn select(condition: &Value, a: &Value, b: &Value) -> InterpResult<Value> {
    let lanes = condition
        .lane_count()
        .max(a.lane_count())
        .max(b.lane_count());
    if [condition, a, b]
        .iter()
        .any(|value| value.lane_count() != 1 && value.lane_count() != lanes)
    {
        return Err(InterpError::new(format!(
            "`T.Select` mixes {}, {} and {} lanes",
            condition.lane_count(),
            a.lane_count(),
            b.lane_count()
        )));
    }
    if a.dtype().element_of() != b.dtype().element_of() {
        return Err(InterpError::new(format!(
            "the two values of `T.Select` have different types {} and {}",
            a.dtype(),
            b.dtype()
        )));
    }
    let chosen = (0..lanes)
        .map(|position| {
            let take_first = scalar_truth(lane(condition, position), condition.dtype())?;
            Ok(if take_first {
                lane(a, position)
            } else {
                lane(b, position)
            })
        })
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(a.dtype().element_of(), chosen))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(dtype: DataType, value: i64) -> Value {
        Value::int(dtype, value).unwrap()
    }

    #[test]
    fn floor_and_truncating_division_differ_on_negative_operands() {
        let i32 = DataType::int32();
        let cases = [
            (-7, 2, -4, 1, -3, -1),
            (7, -2, -4, -1, -3, 1),
            (-7, -2, 3, -1, 3, -1),
        ];
        for (a, b, floor_q, floor_r, trunc_q, trunc_r) in cases {
            let (a, b) = (int(i32, a), int(i32, b));
            assert_eq!(
                binary(BinaryOp::FloorDiv, &a, &b).unwrap(),
                int(i32, floor_q)
            );
            assert_eq!(
                binary(BinaryOp::FloorMod, &a, &b).unwrap(),
                int(i32, floor_r)
            );
            assert_eq!(binary(BinaryOp::Div, &a, &b).unwrap(), int(i32, trunc_q));
            assert_eq!(binary(BinaryOp::Mod, &a, &b).unwrap(), int(i32, trunc_r));
        }
    }

    #[test]
    fn integer_division_by_zero_is_an_error() {
        let i32 = DataType::int32();
        let error = binary(BinaryOp::FloorDiv, &int(i32, 5), &int(i32, 0)).unwrap_err();
        assert!(error.message.contains("division by zero"), "{error}");
        let float = Value::float(DataType::float32(), 1.0).unwrap();
        let zero = Value::float(DataType::float32(), 0.0).unwrap();
        assert_eq!(
            binary(BinaryOp::Div, &float, &zero)
                .unwrap()
                .as_f64()
                .unwrap(),
            f64::INFINITY
        );
    }

    #[test]
    fn narrow_integers_wrap() {
        let i8 = DataType::int(8);
        let u8 = DataType::uint(8);
        assert_eq!(
            binary(BinaryOp::Add, &int(i8, 127), &int(i8, 1)).unwrap(),
            int(i8, -128)
        );
        assert_eq!(
            binary(BinaryOp::Mul, &int(i8, 16), &int(i8, 16)).unwrap(),
            int(i8, 0)
        );
        assert_eq!(
            binary(BinaryOp::Sub, &int(u8, 0), &int(u8, 1)).unwrap(),
            int(u8, 255)
        );
        assert_eq!(
            binary(BinaryOp::Add, &int(u8, 200), &int(u8, 100)).unwrap(),
            int(u8, 44)
        );
        let min = int(i8, -128);
        assert_eq!(binary(BinaryOp::Div, &min, &int(i8, -1)).unwrap(), min);
    }

    #[test]
    fn float_min_max_follow_the_select_tvm_emits() {
        let f32 = DataType::float32();
        let nan = Value::float(f32, f64::NAN).unwrap();
        let one = Value::float(f32, 1.0).unwrap();
        assert_eq!(binary(BinaryOp::Min, &nan, &one).unwrap(), one);
        assert!(binary(BinaryOp::Min, &one, &nan)
            .unwrap()
            .as_f64()
            .unwrap()
            .is_nan());
        assert!(!binary(BinaryOp::Eq, &nan, &nan).unwrap().as_bool().unwrap());
        assert!(binary(BinaryOp::Ne, &nan, &nan).unwrap().as_bool().unwrap());
    }

    #[test]
    fn float16_addition_rounds_to_the_format() {
        let f16 = DataType::float(16);
        let one = Value::float(f16, 1.0).unwrap();
        let half_ulp = Value::float(f16, 2f64.powi(-11)).unwrap();
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even wins.
        assert_eq!(binary(BinaryOp::Add, &one, &half_ulp).unwrap(), one);
        let three_quarter_ulp = Value::float(f16, 1.5 * 2f64.powi(-11)).unwrap();
        assert_eq!(
            binary(BinaryOp::Add, &one, &three_quarter_ulp)
                .unwrap()
                .as_f64()
                .unwrap(),
            1.0 + 2f64.powi(-10)
        );
    }

    #[test]
    fn mixed_types_are_refused() {
        let error = binary(
            BinaryOp::Add,
            &int(DataType::int32(), 1),
            &int(DataType::int64(), 1),
        )
        .unwrap_err();
        assert!(error.message.contains("int32 and int64"), "{error}");
    }

    #[test]
    fn vectors_combine_lane_by_lane_and_broadcast_scalars() {
        let i32 = DataType::int32();
        let vector = Value::from_canonical_lanes(i32, vec![Scalar::Int(1), Scalar::Int(2)]);
        let sum = binary(BinaryOp::Add, &vector, &int(i32, 10)).unwrap();
        assert_eq!(sum.lanes(), &[Scalar::Int(11), Scalar::Int(12)]);
        assert_eq!(sum.dtype(), i32.with_lanes(2));
    }
}
