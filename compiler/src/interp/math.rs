//! The pure builtins of `ir::builtin` that compute a value from their
//! arguments: math functions, float classification, bit operations and
//! fixed-point multiplication.
//!
//! Float math on `float32` and narrower formats is computed in `f32` with the
//! platform's `f32` functions (what compiled code calls) and rounded to the
//! format; `float64` in `f64`. `erf` has no standard Rust function: it is
//! computed in `f64` to within a few ulps and rounded, so the `float32` result
//! is the correctly rounded one in all but rare cases.

use super::error::{InterpError, InterpResult};
use super::operations::lane;
use super::value::{wrap_signed, wrap_unsigned, ElementType, Scalar, Value};
use crate::ir::DataType;

/// The result of the math builtin `name` on `args`, or `None` when `name` is
/// not one of them.
pub fn evaluate_math_builtin(name: &str, args: &[Value]) -> Option<InterpResult<Value>> {
    if let Some((in_f32, in_f64)) = unary_float_function(name) {
        return Some(unary_float(name, args, in_f32, in_f64));
    }
    if let Some((in_f32, in_f64)) = binary_float_function(name) {
        return Some(binary_float(name, args, in_f32, in_f64));
    }
    Some(match name {
        "fabs" => absolute_value(args),
        "ldexp" => ldexp(args),
        "isnan" => classify(args, |x| x.is_nan(), false),
        "isinf" => classify(args, |x| x.is_infinite(), false),
        "isfinite" => classify(args, |x| x.is_finite(), true),
        "clz" | "popcount" | "bitwise_not" => unary_integer(name, args),
        "shift_left" | "shift_right" | "bitwise_and" | "bitwise_or" | "bitwise_xor" => {
            binary_integer(name, args)
        }
        "q_multiply_shift" => q_multiply_shift(args),
        "fma" => fused_multiply_add(args),
        _ => return None,
    })
}

/// True when `name` is one of the builtins [`evaluate_math_builtin`] computes.
pub fn is_math_builtin(name: &str) -> bool {
    unary_float_function(name).is_some()
        || binary_float_function(name).is_some()
        || OTHER_MATH_BUILTINS.contains(&name)
}

/// The math builtins outside the two tables of float functions.
const OTHER_MATH_BUILTINS: &[&str] = &[
    "fabs",
    "ldexp",
    "isnan",
    "isinf",
    "isfinite",
    "clz",
    "popcount",
    "bitwise_not",
    "shift_left",
    "shift_right",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "q_multiply_shift",
    "fma",
];

type UnaryF32 = fn(f32) -> f32;
type UnaryF64 = fn(f64) -> f64;
type BinaryF32 = fn(f32, f32) -> f32;
type BinaryF64 = fn(f64, f64) -> f64;

fn unary_float_function(name: &str) -> Option<(UnaryF32, UnaryF64)> {
    Some(match name {
        "exp" => (f32::exp, f64::exp),
        "exp2" => (f32::exp2, f64::exp2),
        "exp10" => (|x| 10f32.powf(x), |x| 10f64.powf(x)),
        "log" => (f32::ln, f64::ln),
        "log2" => (f32::log2, f64::log2),
        "log10" => (f32::log10, f64::log10),
        "log1p" => (f32::ln_1p, f64::ln_1p),
        "sqrt" => (f32::sqrt, f64::sqrt),
        "rsqrt" => (|x| 1.0 / x.sqrt(), |x| 1.0 / x.sqrt()),
        "sin" => (f32::sin, f64::sin),
        "cos" => (f32::cos, f64::cos),
        "tan" => (f32::tan, f64::tan),
        "sinh" => (f32::sinh, f64::sinh),
        "cosh" => (f32::cosh, f64::cosh),
        "tanh" => (f32::tanh, f64::tanh),
        "asin" => (f32::asin, f64::asin),
        "acos" => (f32::acos, f64::acos),
        "atan" => (f32::atan, f64::atan),
        "asinh" => (f32::asinh, f64::asinh),
        "acosh" => (f32::acosh, f64::acosh),
        "atanh" => (f32::atanh, f64::atanh),
        "erf" => (|x| erf(x as f64) as f32, erf),
        "sigmoid" => (|x| 1.0 / (1.0 + (-x).exp()), |x| 1.0 / (1.0 + (-x).exp())),
        "floor" => (f32::floor, f64::floor),
        "ceil" => (f32::ceil, f64::ceil),
        "round" => (f32::round, f64::round),
        "trunc" => (f32::trunc, f64::trunc),
        "nearbyint" => (f32::round_ties_even, f64::round_ties_even),
        _ => return None,
    })
}

fn binary_float_function(name: &str) -> Option<(BinaryF32, BinaryF64)> {
    Some(match name {
        "pow" => (f32::powf, f64::powf),
        "atan2" => (f32::atan2, f64::atan2),
        "fmod" => (|x, y| x % y, |x, y| x % y),
        "hypot" => (f32::hypot, f64::hypot),
        "copysign" => (f32::copysign, f64::copysign),
        "nextafter" => (next_after_f32, next_after_f64),
        _ => return None,
    })
}

fn expect_arguments(name: &str, args: &[Value], count: usize) -> InterpResult<()> {
    if args.len() == count {
        Ok(())
    } else {
        Err(InterpError::new(format!(
            "`T.{name}` takes {count} argument(s), found {}",
            args.len()
        )))
    }
}

/// The float element type of a math argument, or an error naming the builtin.
fn float_element(name: &str, value: &Value) -> InterpResult<ElementType> {
    let element = ElementType::of(value.dtype())?;
    if element.is_float() {
        Ok(element)
    } else {
        Err(InterpError::new(format!(
            "`T.{name}` needs a float argument, found {}",
            value.dtype()
        )))
    }
}

fn float_lane(value: &Value, position: usize) -> f64 {
    match lane(value, position) {
        Scalar::Float(x) => x,
        _ => f64::NAN,
    }
}

fn unary_float(
    name: &str,
    args: &[Value],
    in_f32: UnaryF32,
    in_f64: UnaryF64,
) -> InterpResult<Value> {
    expect_arguments(name, args, 1)?;
    let element = float_element(name, &args[0])?;
    let lanes = args[0]
        .lanes()
        .iter()
        .map(|lane| {
            let x = match lane {
                Scalar::Float(x) => *x,
                _ => f64::NAN,
            };
            let result = if element == ElementType::Float64 {
                in_f64(x)
            } else {
                in_f32(x as f32) as f64
            };
            Scalar::Float(element.round_float(result))
        })
        .collect();
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        lanes,
    ))
}

fn binary_float(
    name: &str,
    args: &[Value],
    in_f32: BinaryF32,
    in_f64: BinaryF64,
) -> InterpResult<Value> {
    expect_arguments(name, args, 2)?;
    let element = float_element(name, &args[0])?;
    if args[0].dtype().element_of() != args[1].dtype().element_of() {
        return Err(InterpError::new(format!(
            "the arguments of `T.{name}` have different types {} and {}",
            args[0].dtype(),
            args[1].dtype()
        )));
    }
    let lanes = super::operations::combined_lanes(&args[0], &args[1], name)?;
    let results = (0..lanes)
        .map(|position| {
            let (x, y) = (
                float_lane(&args[0], position),
                float_lane(&args[1], position),
            );
            let result = if element == ElementType::Float64 {
                in_f64(x, y)
            } else {
                in_f32(x as f32, y as f32) as f64
            };
            Scalar::Float(element.round_float(result))
        })
        .collect();
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        results,
    ))
}

/// `T.fma(a, b, c)`: `a * b + c` rounded once (in `f32` for 32-bit and
/// narrower formats, then to the format).
fn fused_multiply_add(args: &[Value]) -> InterpResult<Value> {
    expect_arguments("fma", args, 3)?;
    let element = float_element("fma", &args[0])?;
    if args
        .iter()
        .any(|arg| arg.dtype().element_of() != args[0].dtype().element_of())
    {
        return Err(InterpError::new(
            "the arguments of `T.fma` have different types",
        ));
    }
    let lanes = args.iter().map(Value::lane_count).max().unwrap_or(1);
    if args
        .iter()
        .any(|arg| arg.lane_count() != 1 && arg.lane_count() != lanes)
    {
        return Err(InterpError::new(
            "the arguments of `T.fma` have different lane counts",
        ));
    }
    let results = (0..lanes)
        .map(|position| {
            let [a, b, c] = [0, 1, 2].map(|argument| float_lane(&args[argument], position));
            let result = if element == ElementType::Float64 {
                a.mul_add(b, c)
            } else {
                (a as f32).mul_add(b as f32, c as f32) as f64
            };
            Scalar::Float(element.round_float(result))
        })
        .collect();
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        results,
    ))
}

/// `T.fabs`, which TVM also prints for `abs` of integers.
fn absolute_value(args: &[Value]) -> InterpResult<Value> {
    expect_arguments("fabs", args, 1)?;
    let element = ElementType::of(args[0].dtype())?;
    let lanes = args[0]
        .lanes()
        .iter()
        .map(|lane| match (*lane, element) {
            (Scalar::Float(x), _) => Ok(Scalar::Float(x.abs())),
            // The most negative integer has no positive counterpart; it wraps to itself.
            (Scalar::Int(x), ElementType::Int(bits)) => {
                Ok(Scalar::Int(wrap_signed(x.wrapping_abs(), bits)))
            }
            (Scalar::UInt(x), _) => Ok(Scalar::UInt(x)),
            _ => Err(InterpError::new(format!(
                "`T.fabs` needs a number, found {}",
                args[0].dtype()
            ))),
        })
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        lanes,
    ))
}

/// `T.ldexp(x, e)`: `x * 2^e` with one rounding.
fn ldexp(args: &[Value]) -> InterpResult<Value> {
    expect_arguments("ldexp", args, 2)?;
    let element = float_element("ldexp", &args[0])?;
    let lanes = super::operations::combined_lanes(&args[0], &args[1], "ldexp")?;
    let results = (0..lanes)
        .map(|position| {
            let exponent = match lane(&args[1], position) {
                Scalar::Int(e) => e,
                Scalar::UInt(e) => e.min(i64::MAX as u64) as i64,
                Scalar::Float(e) => e as i64,
                _ => 0,
            };
            // Scaling in steps keeps intermediate powers of two finite while
            // the product may still be representable.
            let mut value = float_lane(&args[0], position);
            let mut remaining = exponent.clamp(-4000, 4000) as i32;
            while remaining != 0 {
                let step = remaining.clamp(-1000, 1000);
                value *= 2f64.powi(step);
                remaining -= step;
            }
            Scalar::Float(element.round_float(value))
        })
        .collect();
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        results,
    ))
}

/// `T.isnan` and its siblings; integers are never NaN or infinite.
fn classify(args: &[Value], test: fn(f64) -> bool, integer_answer: bool) -> InterpResult<Value> {
    expect_arguments("isnan", args, 1)?;
    let lanes = args[0]
        .lanes()
        .iter()
        .map(|lane| {
            Scalar::Bool(match lane {
                Scalar::Float(x) => test(*x),
                _ => integer_answer,
            })
        })
        .collect();
    Ok(Value::from_canonical_lanes(DataType::bool(), lanes))
}

/// An integer lane as its bit pattern within `bits`, and a way back.
fn integer_bits(scalar: Scalar, element: ElementType) -> Option<(u64, u16)> {
    match (scalar, element) {
        (Scalar::Int(x), ElementType::Int(bits)) => Some((wrap_unsigned(x as u64, bits), bits)),
        (Scalar::UInt(x), ElementType::UInt(bits)) => Some((x, bits)),
        _ => None,
    }
}

fn from_integer_bits(pattern: u64, element: ElementType) -> Scalar {
    match element {
        ElementType::Int(bits) => Scalar::Int(wrap_signed(pattern as i64, bits)),
        ElementType::UInt(bits) => Scalar::UInt(wrap_unsigned(pattern, bits)),
        _ => Scalar::UInt(pattern),
    }
}

fn not_an_integer(name: &str, dtype: DataType) -> InterpError {
    InterpError::new(format!("`T.{name}` needs integer arguments, found {dtype}"))
}

fn unary_integer(name: &str, args: &[Value]) -> InterpResult<Value> {
    expect_arguments(name, args, 1)?;
    let element = ElementType::of(args[0].dtype())?;
    let lanes = args[0]
        .lanes()
        .iter()
        .map(|lane| {
            let (pattern, bits) = integer_bits(*lane, element)
                .ok_or_else(|| not_an_integer(name, args[0].dtype()))?;
            let result = match name {
                "clz" => (pattern.leading_zeros() - (64 - bits as u32)) as u64,
                "popcount" => pattern.count_ones() as u64,
                _ => !pattern,
            };
            Ok(from_integer_bits(result, element))
        })
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        lanes,
    ))
}

fn binary_integer(name: &str, args: &[Value]) -> InterpResult<Value> {
    expect_arguments(name, args, 2)?;
    let element = ElementType::of(args[0].dtype())?;
    let amount_element = ElementType::of(args[1].dtype())?;
    let lanes = super::operations::combined_lanes(&args[0], &args[1], name)?;
    let results = (0..lanes)
        .map(|position| {
            let (a, bits) = integer_bits(lane(&args[0], position), element)
                .ok_or_else(|| not_an_integer(name, args[0].dtype()))?;
            let (b, _) = integer_bits(lane(&args[1], position), amount_element)
                .ok_or_else(|| not_an_integer(name, args[1].dtype()))?;
            let signed_amount = match lane(&args[1], position) {
                Scalar::Int(amount) => amount,
                _ => b.min(i64::MAX as u64) as i64,
            };
            let shift_amount = || {
                if (0..bits as i64).contains(&signed_amount) {
                    Ok(signed_amount as u32)
                } else {
                    Err(InterpError::new(format!(
                        "`T.{name}` by {signed_amount} bits of a {bits}-bit value: \
                         C and LLVM leave the result undefined"
                    )))
                }
            };
            let pattern = match name {
                "shift_left" => a << shift_amount()?,
                "shift_right" => match lane(&args[0], position) {
                    // Arithmetic shift of the sign-extended value.
                    Scalar::Int(signed) => (signed >> shift_amount()?) as u64,
                    _ => a >> shift_amount()?,
                },
                "bitwise_and" => a & b,
                "bitwise_or" => a | b,
                _ => a ^ b,
            };
            Ok(from_integer_bits(pattern, element))
        })
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        results,
    ))
}

/// `T.q_multiply_shift(x, y, q, s)`, as TVM lowers it: shift `x` left by
/// `max(s, 0)`, multiply by `y` in 64 bits, add `2^(q + max(-s, 0) - 1)` and
/// shift right by `q + max(-s, 0)`, then wrap to the type of `x`.
fn q_multiply_shift(args: &[Value]) -> InterpResult<Value> {
    expect_arguments("q_multiply_shift", args, 4)?;
    let element = ElementType::of(args[0].dtype())?;
    let lanes = args.iter().map(Value::lane_count).max().unwrap_or(1);
    if args
        .iter()
        .any(|arg| arg.lane_count() != 1 && arg.lane_count() != lanes)
    {
        return Err(InterpError::new(
            "the arguments of `T.q_multiply_shift` have different lane counts",
        ));
    }
    let signed_lane = |value: &Value, position: usize| -> InterpResult<i64> {
        match lane(value, position) {
            Scalar::Int(x) => Ok(x),
            Scalar::UInt(x) => Ok(x as i64),
            _ => Err(not_an_integer("q_multiply_shift", value.dtype())),
        }
    };
    let results = (0..lanes)
        .map(|position| {
            let x = signed_lane(&args[0], position)?;
            let y = signed_lane(&args[1], position)?;
            let q = signed_lane(&args[2], position)?;
            let s = signed_lane(&args[3], position)?;
            let left_shift = s.max(0);
            let total_right_shift = s.min(0).saturating_neg().saturating_add(q);
            if !(0..63).contains(&left_shift) || !(1..64).contains(&total_right_shift) {
                return Err(InterpError::new(format!(
                    "`T.q_multiply_shift` with q = {q} and s = {s} shifts out of range"
                )));
            }
            let product = (x << left_shift).wrapping_mul(y);
            let rounded = product.wrapping_add(1i64 << (total_right_shift - 1));
            Ok(from_integer_bits(
                (rounded >> total_right_shift) as u64,
                element,
            ))
        })
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(
        args[0].dtype().element_of(),
        results,
    ))
}

/// The next float after `x` toward `y` (C's `nextafterf`).
fn next_after_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    let away_from_zero = (y > x) == (x > 0.0);
    f32::from_bits(if away_from_zero { bits + 1 } else { bits - 1 })
}

/// The next float after `x` toward `y` (C's `nextafter`).
fn next_after_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f64::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    let away_from_zero = (y > x) == (x > 0.0);
    f64::from_bits(if away_from_zero { bits + 1 } else { bits - 1 })
}

/// The error function in `f64`: a series with positive terms below 3 (no
/// cancellation), `1 - erfc` with erfc's continued fraction above.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let magnitude = x.abs();
    let result = if magnitude < 3.0 {
        // erf(x) = 2/sqrt(pi) * exp(-x^2) * sum 2^n x^(2n+1) / (1*3*...*(2n+1)).
        let square = magnitude * magnitude;
        let mut term = magnitude;
        let mut sum = magnitude;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * square / (2.0 * n + 1.0);
            sum += term;
        }
        std::f64::consts::FRAC_2_SQRT_PI * (-square).exp() * sum
    } else if magnitude < 6.0 {
        1.0 - erfc_continued_fraction(magnitude)
    } else {
        // erfc(6) < 2.2e-17, below half an ulp of 1.
        1.0
    };
    result.copysign(x)
}

/// erfc(x) for x >= 3 by the continued fraction
/// `exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))`,
/// evaluated with the modified Lentz method.
fn erfc_continued_fraction(x: f64) -> f64 {
    let tiny = 1e-300;
    let mut fraction = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..200 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        fraction *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (fraction * std::f64::consts::PI.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: Vec<Value>) -> Value {
        evaluate_math_builtin(name, &args).unwrap().unwrap()
    }

    #[test]
    fn erf_matches_reference_values() {
        // Values from the defining integral, to 17 digits.
        let references = [
            (0.1, 0.112_462_916_018_284_9),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (2.9, 0.999_958_902_121_900_5),
            (3.5, 0.999_999_256_901_627_7),
        ];
        for (x, expected) in references {
            let relative = ((erf(x) - expected) / expected).abs();
            assert!(relative < 1e-14, "erf({x}) = {} vs {expected}", erf(x));
            assert_eq!(erf(-x), -erf(x));
        }
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(10.0), 1.0);
    }

    #[test]
    fn float32_math_is_computed_in_float32() {
        let x = Value::float(DataType::float32(), 0.7).unwrap();
        let expected = (0.7f32).exp() as f64;
        assert_eq!(call("exp", vec![x.clone()]).as_f64().unwrap(), expected);
        let sigmoid = call("sigmoid", vec![x]).as_f64().unwrap();
        assert_eq!(sigmoid, (1.0 / (1.0 + (-0.7f32).exp())) as f64);
    }

    #[test]
    fn rounding_functions_differ_on_ties() {
        let f32 = DataType::float32();
        let half = Value::float(f32, 2.5).unwrap();
        assert_eq!(call("round", vec![half.clone()]).as_f64().unwrap(), 3.0);
        assert_eq!(call("nearbyint", vec![half.clone()]).as_f64().unwrap(), 2.0);
        let negative = Value::float(f32, -2.5).unwrap();
        assert_eq!(
            call("trunc", vec![negative.clone()]).as_f64().unwrap(),
            -2.0
        );
        assert_eq!(
            call("floor", vec![negative.clone()]).as_f64().unwrap(),
            -3.0
        );
        assert_eq!(call("ceil", vec![negative]).as_f64().unwrap(), -2.0);
    }

    #[test]
    fn bit_operations_respect_width_and_sign() {
        let i8 = DataType::int(8);
        let u8 = DataType::uint(8);
        let value = |dtype, x| Value::int(dtype, x).unwrap();
        assert_eq!(call("clz", vec![value(i8, 1)]), value(i8, 7));
        assert_eq!(call("popcount", vec![value(i8, -1)]), value(i8, 8));
        assert_eq!(
            call("shift_right", vec![value(i8, -64), value(i8, 2)]),
            value(i8, -16)
        );
        assert_eq!(
            call("shift_right", vec![value(u8, 192), value(u8, 2)]),
            value(u8, 48)
        );
        assert_eq!(
            call("shift_left", vec![value(i8, 64), value(i8, 1)]),
            value(i8, -128)
        );
        assert_eq!(call("bitwise_not", vec![value(u8, 0)]), value(u8, 255));
        let error = evaluate_math_builtin("shift_left", &[value(i8, 1), value(i8, 8)])
            .unwrap()
            .unwrap_err();
        assert!(error.message.contains("undefined"), "{error}");
    }

    #[test]
    fn q_multiply_shift_rounds_like_tvm() {
        let i32 = DataType::int32();
        let value = |x| Value::int(i32, x).unwrap();
        // 0.5 in Q31 times 3, no extra shift: round(1.5) = 2.
        let result = call(
            "q_multiply_shift",
            vec![value(3), value(1 << 30), value(31), value(0)],
        );
        assert_eq!(result, value(2));
        // With a right shift of 1: round(0.75) = 1.
        let result = call(
            "q_multiply_shift",
            vec![value(3), value(1 << 30), value(31), value(-1)],
        );
        assert_eq!(result, value(1));
    }

    #[test]
    fn every_listed_builtin_is_computed() {
        for name in OTHER_MATH_BUILTINS {
            assert!(evaluate_math_builtin(name, &[]).is_some(), "{name}");
        }
        assert!(!is_math_builtin("call_extern"));
    }

    #[test]
    fn fma_rounds_once() {
        let f32 = DataType::float32();
        let value = |x: f64| Value::float(f32, x).unwrap();
        // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: the product alone would round
        // the 2^-24 away.
        let a = 1.0 + 2f64.powi(-12);
        let result = call("fma", vec![value(a), value(a), value(-1.0)]);
        assert_eq!(result.as_f64().unwrap(), 2f64.powi(-11) + 2f64.powi(-24));
    }

    #[test]
    fn classification_and_next_after() {
        let f32 = DataType::float32();
        let nan = Value::float(f32, f64::NAN).unwrap();
        assert!(call("isnan", vec![nan.clone()]).as_bool().unwrap());
        assert!(!call("isfinite", vec![nan]).as_bool().unwrap());
        let one = Value::float(f32, 1.0).unwrap();
        let two = Value::float(f32, 2.0).unwrap();
        let next = call("nextafter", vec![one, two]).as_f64().unwrap();
        assert_eq!(next, (1.0f32 + f32::EPSILON) as f64);
    }
}
