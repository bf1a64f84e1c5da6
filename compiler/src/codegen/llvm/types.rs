//! TIR data types as LLVM types, in registers and in memory.
//!
//! In registers `bool` is `i1`; in memory it takes a byte (`i8`), as in TVM.
//! float16 is LLVM's `half`. bfloat16 has no LLVM 14 type: it is carried as
//! its 16-bit pattern (`i16`) and computed in float32, as TVM's codegen does.

use super::context::{CodegenError, CodegenResult};
use crate::ir::{DataType, TypeCode};
use crate::source::Span;
use inkwell::context::Context;
use inkwell::types::BasicTypeEnum;
use inkwell::AddressSpace;

/// The LLVM type of one lane of `dtype` in registers.
pub fn scalar_type(
    context: &Context,
    dtype: DataType,
    span: Span,
) -> CodegenResult<BasicTypeEnum<'_>> {
    Ok(match (dtype.code, dtype.bits) {
        (TypeCode::Bool, _) => context.bool_type().into(),
        (TypeCode::Int | TypeCode::UInt, bits) if matches!(bits, 1 | 4 | 8 | 16 | 32 | 64) => {
            int_type(context, u32::from(bits)).into()
        }
        (TypeCode::Float, 16) => context.f16_type().into(),
        (TypeCode::Float, 32) => context.f32_type().into(),
        (TypeCode::Float, 64) => context.f64_type().into(),
        (TypeCode::BFloat, 16) => context.i16_type().into(),
        (TypeCode::Handle, _) => context.i8_type().ptr_type(AddressSpace::default()).into(),
        _ => {
            return Err(CodegenError::unsupported(
                format!("the LLVM backend does not support values of type {dtype}"),
                span,
            ))
        }
    })
}

/// The integer type of `bits` bits (1 to 64).
pub fn int_type(context: &Context, bits: u32) -> inkwell::types::IntType<'_> {
    match bits {
        1 => context.bool_type(),
        8 => context.i8_type(),
        16 => context.i16_type(),
        32 => context.i32_type(),
        64 => context.i64_type(),
        _ => std::num::NonZeroU32::new(bits)
            .and_then(|bits| context.custom_width_int_type(bits).ok())
            .unwrap_or_else(|| context.i64_type()),
    }
}

/// The LLVM type of a `dtype` value in registers (a vector when it has lanes).
pub fn value_type(
    context: &Context,
    dtype: DataType,
    span: Span,
) -> CodegenResult<BasicTypeEnum<'_>> {
    let scalar = scalar_type(context, dtype.element_of(), span)?;
    if dtype.is_scalar() {
        return Ok(scalar);
    }
    vector_of(scalar, u32::from(dtype.lanes))
}

/// The LLVM type of one element of `dtype` in memory.
pub fn memory_type(
    context: &Context,
    dtype: DataType,
    span: Span,
) -> CodegenResult<BasicTypeEnum<'_>> {
    let scalar = if dtype.is_bool() {
        context.i8_type().into()
    } else {
        scalar_type(context, dtype.element_of(), span)?
    };
    if dtype.is_scalar() {
        return Ok(scalar);
    }
    vector_of(scalar, u32::from(dtype.lanes))
}

/// A vector of `lanes` values of `scalar`.
pub fn vector_of(scalar: BasicTypeEnum<'_>, lanes: u32) -> CodegenResult<BasicTypeEnum<'_>> {
    Ok(match scalar {
        BasicTypeEnum::IntType(int) => int.vec_type(lanes).into(),
        BasicTypeEnum::FloatType(float) => float.vec_type(lanes).into(),
        BasicTypeEnum::PointerType(pointer) => pointer.vec_type(lanes).into(),
        other => {
            return Err(CodegenError::internal(format!(
                "no vector of {other:?} values"
            )))
        }
    })
}

/// A pointer to `element` values.
pub fn pointer_to(element: BasicTypeEnum<'_>) -> inkwell::types::PointerType<'_> {
    match element {
        BasicTypeEnum::IntType(t) => t.ptr_type(AddressSpace::default()),
        BasicTypeEnum::FloatType(t) => t.ptr_type(AddressSpace::default()),
        BasicTypeEnum::VectorType(t) => t.ptr_type(AddressSpace::default()),
        BasicTypeEnum::PointerType(t) => t.ptr_type(AddressSpace::default()),
        BasicTypeEnum::ArrayType(t) => t.ptr_type(AddressSpace::default()),
        BasicTypeEnum::StructType(t) => t.ptr_type(AddressSpace::default()),
        BasicTypeEnum::ScalableVectorType(t) => t.ptr_type(AddressSpace::default()),
    }
}

/// The size in bytes of one element of `dtype` in memory.
pub fn memory_bytes(dtype: DataType) -> u32 {
    dtype.bytes_of_all_lanes() as u32
}
