//! Run-time values: scalars and vectors of every IR data type, kept in a
//! canonical form (integers wrapped to their width, floats rounded to their
//! format), and the conversions between types.

use super::error::{InterpError, InterpResult};
use super::float_format::{integer_to_f64_round_to_odd, FloatFormat};
use crate::ir::{DataType, TypeCode};
use std::fmt;

/// One lane of a value.
///
/// Integers are held sign-extended (`Int`) or zero-extended (`UInt`) from
/// their width; floats of every format are held as the exact `f64` of their
/// value, which each format's values all are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A `bool`.
    Bool(bool),
    /// A signed integer of any width up to 64 bits.
    Int(i64),
    /// An unsigned integer of any width up to 64 bits.
    UInt(u64),
    /// A float of any format.
    Float(f64),
    /// A `handle`: the interpreter's id of a storage, 0 for null.
    Handle(u64),
}

/// The element types the interpreter computes with, one per lane kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementType {
    /// `bool`, one byte in memory.
    Bool,
    /// A signed integer of this many bits (1 to 64), whole bytes in memory.
    Int(u16),
    /// An unsigned integer of this many bits (1 to 64), whole bytes in memory.
    UInt(u16),
    /// IEEE binary16.
    Float16,
    /// bfloat16.
    BFloat16,
    /// IEEE binary32.
    Float32,
    /// IEEE binary64.
    Float64,
    /// float8 e4m3fn.
    Float8E4M3FN,
    /// float8 e5m2.
    Float8E5M2,
    /// An opaque pointer.
    Handle,
}

impl ElementType {
    /// The element type of one lane of `dtype`, or an error for `void` and
    /// widths the interpreter does not know.
    pub fn of(dtype: DataType) -> InterpResult<ElementType> {
        let unsupported =
            || InterpError::new(format!("the interpreter has no values of type {dtype}"));
        Ok(match (dtype.code, dtype.bits) {
            (TypeCode::Bool, _) => ElementType::Bool,
            (TypeCode::Int, bits @ 1..=64) => ElementType::Int(bits),
            (TypeCode::UInt, bits @ 1..=64) => ElementType::UInt(bits),
            (TypeCode::Float, 16) => ElementType::Float16,
            (TypeCode::Float, 32) => ElementType::Float32,
            (TypeCode::Float, 64) => ElementType::Float64,
            (TypeCode::BFloat, 16) => ElementType::BFloat16,
            (TypeCode::Float8E4M3FN, 8) => ElementType::Float8E4M3FN,
            (TypeCode::Float8E5M2, 8) => ElementType::Float8E5M2,
            (TypeCode::Handle, _) => ElementType::Handle,
            _ => return Err(unsupported()),
        })
    }

    /// True for every float format.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::Float16
                | ElementType::BFloat16
                | ElementType::Float32
                | ElementType::Float64
                | ElementType::Float8E4M3FN
                | ElementType::Float8E5M2
        )
    }

    /// The format of a float narrower than `float32`.
    pub fn narrow_float_format(self) -> Option<FloatFormat> {
        match self {
            ElementType::Float16 => Some(FloatFormat::FLOAT16),
            ElementType::BFloat16 => Some(FloatFormat::BFLOAT16),
            ElementType::Float8E4M3FN => Some(FloatFormat::FLOAT8_E4M3FN),
            ElementType::Float8E5M2 => Some(FloatFormat::FLOAT8_E5M2),
            _ => None,
        }
    }

    /// `value` rounded to this float format (ties to even, in one step).
    pub fn round_float(self, value: f64) -> f64 {
        match self {
            ElementType::Float32 => value as f32 as f64,
            _ => match self.narrow_float_format() {
                Some(format) => format.round(value),
                None => value,
            },
        }
    }
}

/// Wraps `value` to a signed integer of `bits` bits (two's complement).
pub fn wrap_signed(value: i64, bits: u16) -> i64 {
    if bits >= 64 {
        return value;
    }
    let shift = 64 - bits as u32;
    (value << shift) >> shift
}

/// Wraps `value` to an unsigned integer of `bits` bits.
pub fn wrap_unsigned(value: u64, bits: u16) -> u64 {
    if bits >= 64 {
        return value;
    }
    value & ((1u64 << bits) - 1)
}

/// The lanes of a value; one lane is stored inline since most values are scalars.
#[derive(Clone, Debug, PartialEq)]
enum Lanes {
    One(Scalar),
    Many(Vec<Scalar>),
}

/// A scalar or vector value with its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    dtype: DataType,
    lanes: Lanes,
}

impl Value {
    /// A value from lanes already in canonical form for `element`; the lane
    /// count gives the vector width.
    pub(crate) fn from_canonical_lanes(element: DataType, lanes: Vec<Scalar>) -> Value {
        let dtype = element.with_lanes(lanes.len() as u16);
        if lanes.len() == 1 {
            return Value {
                dtype,
                lanes: Lanes::One(lanes[0]),
            };
        }
        Value {
            dtype,
            lanes: Lanes::Many(lanes),
        }
    }

    /// A scalar already in canonical form for `dtype`.
    pub(crate) fn from_canonical_scalar(dtype: DataType, scalar: Scalar) -> Value {
        Value {
            dtype: dtype.element_of(),
            lanes: Lanes::One(scalar),
        }
    }

    /// An integer or bool of type `dtype` (wrapped to its width); a float
    /// type takes the integer's value rounded to the format. Vector types
    /// get the value in every lane.
    pub fn int(dtype: DataType, value: i64) -> InterpResult<Value> {
        let scalar = cast_scalar(
            ElementType::Int(64),
            Scalar::Int(value),
            ElementType::of(dtype)?,
        )?;
        Ok(Value::splat(dtype, scalar))
    }

    /// A float of type `dtype`, rounded to its format; an integer type takes
    /// the value truncated toward zero. Vector types get it in every lane.
    pub fn float(dtype: DataType, value: f64) -> InterpResult<Value> {
        let scalar = cast_scalar(
            ElementType::Float64,
            Scalar::Float(value),
            ElementType::of(dtype)?,
        )?;
        Ok(Value::splat(dtype, scalar))
    }

    /// `scalar` in every lane of `dtype`.
    fn splat(dtype: DataType, scalar: Scalar) -> Value {
        if dtype.lanes <= 1 {
            return Value::from_canonical_scalar(dtype, scalar);
        }
        Value::from_canonical_lanes(dtype.element_of(), vec![scalar; dtype.lanes as usize])
    }

    /// A `bool`.
    pub fn bool(value: bool) -> Value {
        Value::from_canonical_scalar(DataType::bool(), Scalar::Bool(value))
    }

    /// A `handle` holding a storage id (0 for null).
    pub fn handle(storage: u64) -> Value {
        Value::from_canonical_scalar(DataType::handle(), Scalar::Handle(storage))
    }

    /// The type, lanes included.
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The lanes in order.
    pub fn lanes(&self) -> &[Scalar] {
        match &self.lanes {
            Lanes::One(scalar) => std::slice::from_ref(scalar),
            Lanes::Many(lanes) => lanes,
        }
    }

    /// The number of lanes.
    pub fn lane_count(&self) -> usize {
        self.lanes().len()
    }

    /// The single lane of a scalar value.
    pub fn scalar(&self) -> InterpResult<Scalar> {
        match &self.lanes {
            Lanes::One(scalar) => Ok(*scalar),
            Lanes::Many(_) => Err(InterpError::new(format!(
                "expected a scalar, found a {} vector",
                self.dtype
            ))),
        }
    }

    /// The value of a scalar integer or bool as `i64` (unsigned 64-bit
    /// values above `i64::MAX` are an error).
    pub fn as_i64(&self) -> InterpResult<i64> {
        match self.scalar()? {
            Scalar::Int(value) => Ok(value),
            Scalar::UInt(value) => i64::try_from(value)
                .map_err(|_| InterpError::new(format!("{value} does not fit in int64"))),
            Scalar::Bool(value) => Ok(value as i64),
            other => Err(InterpError::new(format!(
                "expected an integer, found {} of type {}",
                ScalarDisplay(other),
                self.dtype
            ))),
        }
    }

    /// The truth of a scalar bool (integers count as true when non-zero).
    pub fn as_bool(&self) -> InterpResult<bool> {
        scalar_truth(self.scalar()?, self.dtype)
    }

    /// The value of a scalar number as `f64` (exact for every float format).
    pub fn as_f64(&self) -> InterpResult<f64> {
        scalar_as_f64(self.scalar()?)
            .ok_or_else(|| InterpError::new(format!("expected a number, found a {}", self.dtype)))
    }

    /// The storage id of a scalar handle.
    pub fn as_handle(&self) -> InterpResult<u64> {
        match self.scalar()? {
            Scalar::Handle(id) => Ok(id),
            _ => Err(InterpError::new(format!(
                "expected a handle, found a {}",
                self.dtype
            ))),
        }
    }

    /// The value converted to `to` lane by lane (the lane counts must agree,
    /// or the value must be a scalar, which is broadcast).
    pub fn cast(&self, to: DataType) -> InterpResult<Value> {
        if self.dtype == to {
            return Ok(self.clone());
        }
        let from_element = ElementType::of(self.dtype)?;
        let to_element = ElementType::of(to)?;
        let lanes = self.lanes();
        if lanes.len() != to.lanes as usize && lanes.len() != 1 {
            return Err(InterpError::new(format!(
                "cannot convert a {} to {}: the lane counts differ",
                self.dtype, to
            )));
        }
        let converted: Vec<Scalar> = lanes
            .iter()
            .map(|lane| cast_scalar(from_element, *lane, to_element))
            .collect::<InterpResult<_>>()?;
        let converted = if converted.len() == to.lanes as usize {
            converted
        } else {
            vec![converted[0]; to.lanes as usize]
        };
        Ok(Value::from_canonical_lanes(to.element_of(), converted))
    }
}

/// A scalar as `f64` when it is a number.
pub fn scalar_as_f64(scalar: Scalar) -> Option<f64> {
    match scalar {
        Scalar::Bool(value) => Some(value as i64 as f64),
        Scalar::Int(value) => Some(value as f64),
        Scalar::UInt(value) => Some(value as f64),
        Scalar::Float(value) => Some(value),
        Scalar::Handle(_) => None,
    }
}

/// The truth of a condition lane: bools as they are, numbers when non-zero.
pub fn scalar_truth(scalar: Scalar, dtype: DataType) -> InterpResult<bool> {
    match scalar {
        Scalar::Bool(value) => Ok(value),
        Scalar::Int(value) => Ok(value != 0),
        Scalar::UInt(value) => Ok(value != 0),
        Scalar::Float(_) | Scalar::Handle(_) => Err(InterpError::new(format!(
            "a condition must be a bool, found a {dtype}"
        ))),
    }
}

/// Converts one lane between element types.
///
/// Integer to integer wraps; integer to float rounds once to the nearest
/// value of the format; float to float rounds to nearest even; float to
/// integer truncates toward zero as C does. A float whose truncated value does
/// not fit the integer type (NaN and infinities included) is an error: C and
/// LLVM leave the result undefined, and an oracle that picked a value would
/// hide the bug that produced it.
pub fn cast_scalar(from: ElementType, scalar: Scalar, to: ElementType) -> InterpResult<Scalar> {
    let mismatch = || {
        InterpError::new(format!(
            "cannot convert {} of type {:?} to {:?}",
            ScalarDisplay(scalar),
            from,
            to
        ))
    };
    Ok(match to {
        ElementType::Bool => Scalar::Bool(match scalar {
            Scalar::Bool(value) => value,
            Scalar::Int(value) => value != 0,
            Scalar::UInt(value) => value != 0,
            // NaN is not zero, so it converts to true as in C.
            Scalar::Float(value) => value != 0.0,
            Scalar::Handle(value) => value != 0,
        }),
        ElementType::Int(bits) => Scalar::Int(match scalar {
            Scalar::Bool(value) => value as i64,
            Scalar::Int(value) => wrap_signed(value, bits),
            Scalar::UInt(value) => wrap_signed(value as i64, bits),
            Scalar::Float(value) => float_to_signed(value, bits, from)?,
            Scalar::Handle(_) => return Err(mismatch()),
        }),
        ElementType::UInt(bits) => Scalar::UInt(match scalar {
            Scalar::Bool(value) => value as u64,
            Scalar::Int(value) => wrap_unsigned(value as u64, bits),
            Scalar::UInt(value) => wrap_unsigned(value, bits),
            Scalar::Float(value) => float_to_unsigned(value, bits, from)?,
            Scalar::Handle(_) => return Err(mismatch()),
        }),
        ElementType::Handle => match scalar {
            Scalar::Handle(value) => Scalar::Handle(value),
            _ => return Err(mismatch()),
        },
        float => Scalar::Float(match scalar {
            Scalar::Bool(value) => value as i64 as f64,
            Scalar::Int(value) => integer_to_float(value.unsigned_abs(), value < 0, float),
            Scalar::UInt(value) => integer_to_float(value, false, float),
            Scalar::Float(value) => float.round_float(value),
            Scalar::Handle(_) => return Err(mismatch()),
        }),
    })
}

/// The integer `±magnitude` rounded once to a float format.
fn integer_to_float(magnitude: u64, negative: bool, to: ElementType) -> f64 {
    let value = match to {
        // Rust's integer-to-float conversions round correctly in one step.
        ElementType::Float32 => magnitude as f32 as f64,
        ElementType::Float64 => magnitude as f64,
        narrow => narrow.round_float(integer_to_f64_round_to_odd(magnitude)),
    };
    if negative {
        -value
    } else {
        value
    }
}

fn out_of_range(value: f64, from: ElementType, to: &str) -> InterpError {
    InterpError::new(format!(
        "converting {value} ({from:?}) to {to} is out of range: C and LLVM leave the result undefined"
    ))
}

fn float_to_signed(value: f64, bits: u16, from: ElementType) -> InterpResult<i64> {
    let truncated = value.trunc();
    let limit = 2f64.powi(bits as i32 - 1);
    if !(truncated >= -limit && truncated < limit) {
        return Err(out_of_range(value, from, &format!("int{bits}")));
    }
    Ok(truncated as i64)
}

fn float_to_unsigned(value: f64, bits: u16, from: ElementType) -> InterpResult<u64> {
    let truncated = value.trunc();
    let limit = 2f64.powi(bits as i32);
    // `-0.5` truncates to `-0.0`, which is zero and in range.
    if !(truncated >= 0.0 && truncated < limit) {
        return Err(out_of_range(value, from, &format!("uint{bits}")));
    }
    Ok(truncated as u64)
}

/// Formats one lane the way TVMScript writes literals.
pub struct ScalarDisplay(pub Scalar);

impl fmt::Display for ScalarDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Scalar::Bool(value) => write!(f, "{}", if value { "True" } else { "False" }),
            Scalar::Int(value) => write!(f, "{value}"),
            Scalar::UInt(value) => write!(f, "{value}"),
            Scalar::Float(value) => write!(f, "{value:?}"),
            Scalar::Handle(0) => write!(f, "null"),
            Scalar::Handle(value) => write!(f, "<storage {value}>"),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.lanes {
            Lanes::One(scalar) => write!(f, "{}", ScalarDisplay(*scalar)),
            Lanes::Many(lanes) => {
                f.write_str("[")?;
                for (position, lane) in lanes.iter().enumerate() {
                    if position > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", ScalarDisplay(*lane))?;
                }
                f.write_str("]")
            }
        }
    }
}
