//! The x86 integer dot products that tensor intrinsics call through
//! `T.call_llvm_pure_intrin` (VNNI's `vpdpbusd`, AVX-512's `pmaddubsw` and
//! `pmaddwd`), modelled lane by lane as Intel's manual defines them, so the
//! interpreter can check a tensorized program on any CPU.

use super::error::{InterpError, InterpResult};
use super::eval::reinterpret;
use super::value::{Scalar, Value};
use crate::ir::DataType;

/// What one modelled intrinsic computes.
#[derive(Clone, Copy)]
enum DotProduct {
    /// `vpdpbusd(s)`: each i32 lane plus four u8 × i8 products.
    BytesToWords { saturate: bool },
    /// AArch64 `sdot`/`udot`: each 32-bit lane plus four i8 × i8 (u8 × u8)
    /// products.
    SameSignBytesToWords { signed: bool },
    /// `vpdpwssd(s)`: each i32 lane plus two i16 × i16 products.
    HalvesToWords { saturate: bool },
    /// `vdpbf16ps`: each f32 lane plus two bf16 × bf16 products, the odd
    /// pair added first, each sum rounded to f32.
    BFloat16PairsToFloats,
    /// `pmaddubsw`: pairs of u8 × i8 products summed into i16, saturated.
    BytesToHalves,
    /// `pmaddwd`: pairs of i16 × i16 products summed into i32.
    HalvesToWordsNoAccumulator,
}

fn model(name: &str) -> Option<DotProduct> {
    let width_suffix = |base: &str| {
        ["128", "256", "512"]
            .iter()
            .any(|w| name == format!("{base}.{w}"))
    };
    Some(if width_suffix("llvm.x86.avx512.vpdpbusd") {
        DotProduct::BytesToWords { saturate: false }
    } else if name.starts_with("llvm.aarch64.neon.sdot") {
        DotProduct::SameSignBytesToWords { signed: true }
    } else if name.starts_with("llvm.aarch64.neon.udot") {
        DotProduct::SameSignBytesToWords { signed: false }
    } else if width_suffix("llvm.x86.avx512bf16.dpbf16ps") {
        DotProduct::BFloat16PairsToFloats
    } else if width_suffix("llvm.x86.avx512.vpdpbusds") {
        DotProduct::BytesToWords { saturate: true }
    } else if width_suffix("llvm.x86.avx512.vpdpwssd") {
        DotProduct::HalvesToWords { saturate: false }
    } else if width_suffix("llvm.x86.avx512.vpdpwssds") {
        DotProduct::HalvesToWords { saturate: true }
    } else if matches!(
        name,
        "llvm.x86.avx512.pmaddubs.w.512"
            | "llvm.x86.avx2.pmadd.ub.sw"
            | "llvm.x86.ssse3.pmadd.ub.sw.128"
    ) {
        DotProduct::BytesToHalves
    } else if matches!(
        name,
        "llvm.x86.avx512.pmaddw.d.512" | "llvm.x86.avx2.pmadd.wd" | "llvm.x86.sse2.pmadd.wd"
    ) {
        DotProduct::HalvesToWordsNoAccumulator
    } else {
        return None;
    })
}

/// True when the interpreter can run the LLVM intrinsic `name`.
pub fn is_modelled(name: &str) -> bool {
    model(name).is_some()
}

/// The lanes of `value` read as `element` integers.
fn lanes_as(value: &Value, element: DataType) -> InterpResult<Vec<i64>> {
    let bits = value.dtype().bits as usize * value.lane_count();
    let lanes = bits / element.bits as usize;
    let viewed = reinterpret(value, element.with_lanes(lanes as u16))?;
    viewed
        .lanes()
        .iter()
        .map(|lane| match lane {
            Scalar::Int(v) => Ok(*v),
            Scalar::UInt(v) => Ok(*v as i64),
            _ => Err(InterpError::new(
                "an LLVM intrinsic operand is not an integer vector",
            )),
        })
        .collect()
}

fn wrap_i32(value: i64) -> i64 {
    value as i32 as i64
}

/// `vdpbf16ps(acc, a, b)` as Intel defines it, except that denormal inputs
/// and results are kept where the instruction flushes them to zero.
fn bfloat16_dot(args: &[Value], dtype: DataType) -> InterpResult<Value> {
    let floats = |value: &Value| -> InterpResult<Vec<f32>> {
        Ok(lanes_as(value, DataType::uint(32))?
            .into_iter()
            .map(|bits| f32::from_bits(bits as u32))
            .collect())
    };
    let bfloats = |value: &Value| -> InterpResult<Vec<f32>> {
        Ok(lanes_as(value, DataType::uint(16))?
            .into_iter()
            .map(|bits| f32::from_bits((bits as u32) << 16))
            .collect())
    };
    let accumulator = floats(&args[0])?;
    let (a, b) = (bfloats(&args[1])?, bfloats(&args[2])?);
    if a.len() != 2 * accumulator.len() || b.len() != a.len() {
        return Err(InterpError::new(format!(
            "`vdpbf16ps` takes 2 bfloat16 lanes per float lane: {} floats, operands of {} and {} lanes",
            accumulator.len(),
            a.len(),
            b.len()
        )));
    }
    let lanes: Vec<Scalar> = accumulator
        .iter()
        .enumerate()
        .map(|(lane, acc)| {
            let odd = acc + a[2 * lane + 1] * b[2 * lane + 1];
            Scalar::Float((odd + a[2 * lane] * b[2 * lane]) as f64)
        })
        .collect();
    let value = Value::from_canonical_lanes(DataType::float32(), lanes);
    if value.dtype() == dtype {
        Ok(value)
    } else {
        reinterpret(&value, dtype)
    }
}

/// The sums of the products of `a` and `b`, `group` lanes at a time; with
/// an accumulator, one sum for each of its `lanes`.
fn group_dots(
    name: &str,
    a: &[i64],
    b: &[i64],
    group: usize,
    lanes: Option<usize>,
) -> InterpResult<Vec<i64>> {
    let expected = lanes.map_or(a.len(), |lanes| lanes * group);
    if a.len() != expected || b.len() != expected || !expected.is_multiple_of(group) {
        return Err(InterpError::new(format!(
            "`{name}` takes {group} operand lanes per result lane; its operands have {} and {} lanes",
            a.len(),
            b.len()
        )));
    }
    Ok(a.chunks(group)
        .zip(b.chunks(group))
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
        .collect())
}

fn saturate_to(value: i64, bits: u32) -> i64 {
    let max = (1i64 << (bits - 1)) - 1;
    value.clamp(-max - 1, max)
}

/// Runs `T.call_llvm_pure_intrin(dtype, name, args...)`.
pub(super) fn evaluate(name: &str, args: &[Value], dtype: DataType) -> InterpResult<Value> {
    let Some(kind) = model(name) else {
        return Err(InterpError::new(format!(
            "the interpreter does not model the LLVM intrinsic `{name}`; run the program compiled (`tirc run` checks against the unscheduled program)"
        )));
    };
    let operands = |count: usize| {
        if args.len() == count {
            Ok(())
        } else {
            Err(InterpError::new(format!(
                "`{name}` takes {count} operands, given {}",
                args.len()
            )))
        }
    };
    let (element, results): (DataType, Vec<i64>) = match kind {
        DotProduct::BytesToWords { saturate } | DotProduct::HalvesToWords { saturate } => {
            operands(3)?;
            let (a_type, b_type, group) = match kind {
                DotProduct::BytesToWords { .. } => (DataType::uint(8), DataType::int(8), 4),
                _ => (DataType::int(16), DataType::int(16), 2),
            };
            let accumulator = lanes_as(&args[0], DataType::int32())?;
            let dots = group_dots(
                name,
                &lanes_as(&args[1], a_type)?,
                &lanes_as(&args[2], b_type)?,
                group,
                Some(accumulator.len()),
            )?;
            let results = accumulator
                .iter()
                .zip(dots)
                .map(|(acc, dot)| {
                    if saturate {
                        saturate_to(acc + dot, 32)
                    } else {
                        wrap_i32(acc + dot)
                    }
                })
                .collect();
            (DataType::int32(), results)
        }
        DotProduct::SameSignBytesToWords { signed } => {
            operands(3)?;
            let (element, bytes) = if signed {
                (DataType::int32(), DataType::int(8))
            } else {
                (DataType::uint(32), DataType::uint(8))
            };
            let accumulator = lanes_as(&args[0], element)?;
            let dots = group_dots(
                name,
                &lanes_as(&args[1], bytes)?,
                &lanes_as(&args[2], bytes)?,
                4,
                Some(accumulator.len()),
            )?;
            let results = accumulator
                .iter()
                .zip(dots)
                .map(|(acc, dot)| {
                    let sum = acc + dot;
                    if signed {
                        wrap_i32(sum)
                    } else {
                        sum & 0xffff_ffff
                    }
                })
                .collect();
            (element, results)
        }
        DotProduct::BFloat16PairsToFloats => {
            operands(3)?;
            return bfloat16_dot(args, dtype);
        }
        DotProduct::BytesToHalves => {
            operands(2)?;
            let dots = group_dots(
                name,
                &lanes_as(&args[0], DataType::uint(8))?,
                &lanes_as(&args[1], DataType::int(8))?,
                2,
                None,
            )?;
            (
                DataType::int(16),
                dots.into_iter().map(|d| saturate_to(d, 16)).collect(),
            )
        }
        DotProduct::HalvesToWordsNoAccumulator => {
            operands(2)?;
            let dots = group_dots(
                name,
                &lanes_as(&args[0], DataType::int(16))?,
                &lanes_as(&args[1], DataType::int(16))?,
                2,
                None,
            )?;
            (DataType::int32(), dots.into_iter().map(wrap_i32).collect())
        }
    };
    let lanes = results.len() as u16;
    let scalar = |value: i64| {
        if element.code == crate::ir::TypeCode::UInt {
            Scalar::UInt(value as u64)
        } else {
            Scalar::Int(value)
        }
    };
    let value = if lanes == 1 {
        Value::from_canonical_scalar(element, scalar(results[0]))
    } else {
        Value::from_canonical_lanes(element, results.into_iter().map(scalar).collect())
    };
    if value.dtype() == dtype {
        Ok(value)
    } else {
        reinterpret(&value, dtype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(element: DataType, lanes: &[i64]) -> Value {
        Value::from_canonical_lanes(element, lanes.iter().map(|v| Scalar::Int(*v)).collect())
    }

    #[test]
    fn vpdpbusd_adds_four_unsigned_by_signed_byte_products_to_each_word() {
        let accumulator = vector(DataType::int32(), &[10, -5]);
        // Bytes 255 (u8) read from the same bits as -1 (i8) in `b`.
        let a = Value::from_canonical_lanes(
            DataType::uint(8),
            [255u64, 1, 2, 3, 0, 0, 0, 1]
                .iter()
                .map(|v| Scalar::UInt(*v))
                .collect(),
        );
        let b = vector(DataType::int(8), &[-1, 2, 3, 4, 9, 9, 9, -128]);
        let result = evaluate(
            "llvm.x86.avx512.vpdpbusd.128",
            &[accumulator, a, b],
            DataType::int32().with_lanes(2),
        )
        .expect("modelled");
        assert_eq!(
            result.lanes(),
            &[Scalar::Int(10 - 255 + 2 + 6 + 12), Scalar::Int(-5 - 128)]
        );
    }

    #[test]
    fn vdpbf16ps_adds_two_bfloat16_products_to_each_float() {
        let accumulator = Value::from_canonical_lanes(
            DataType::float32(),
            vec![Scalar::Float(1.0), Scalar::Float(-1.0)],
        );
        // bfloat16 bits of 1, 2, 3, 4, 0.5, 0.5, 2, 2.
        let bits = |v: &[u64]| {
            Value::from_canonical_lanes(
                DataType::uint(16),
                v.iter().map(|b| Scalar::UInt(*b)).collect(),
            )
        };
        let a = bits(&[0x3F80, 0x4000, 0x3F00, 0x3F00]);
        let b = bits(&[0x4040, 0x4080, 0x4000, 0x4000]);
        let result = evaluate(
            "llvm.x86.avx512bf16.dpbf16ps.512",
            &[accumulator, a, b],
            DataType::float32().with_lanes(2),
        )
        .expect("modelled");
        assert_eq!(result.lanes(), &[Scalar::Float(12.0), Scalar::Float(1.0)]);
    }

    #[test]
    fn pmaddubsw_saturates_to_int16() {
        let a = Value::from_canonical_lanes(
            DataType::uint(8),
            [255u64, 255].iter().map(|v| Scalar::UInt(*v)).collect(),
        );
        let b = vector(DataType::int(8), &[127, 127]);
        let result =
            evaluate("llvm.x86.avx2.pmadd.ub.sw", &[a, b], DataType::int(16)).expect("modelled");
        assert_eq!(result.lanes(), &[Scalar::Int(32767)]);
        assert!(evaluate("llvm.x86.avx512.unknown", &[], DataType::int32()).is_err());
    }
}
