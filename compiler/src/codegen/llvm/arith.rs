//! Arithmetic, comparisons and conversions with TIR's semantics, for scalars
//! and vectors of every supported type: integers wrap (with `nsw` on signed
//! 32- and 64-bit arithmetic, as TVM emits), floor division rounds toward
//! negative infinity, float min/max are `a < b ? a : b`, and float-to-int
//! conversions truncate as in C.

use super::context::{Codegen, CodegenError, CodegenResult};
use super::raw::{self, FloatPredicate, IntPredicate, Opcode};
use super::types::{scalar_type, value_type, vector_of};
use crate::ir::{BinaryOp, DataType, TypeCode};
use crate::source::Span;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue};

/// The float32 type with the lanes of `dtype`.
fn float32_like(dtype: DataType) -> DataType {
    DataType::float32().with_lanes(dtype.lanes)
}

impl<'ctx> Codegen<'ctx> {
    /// The LLVM type of a `dtype` value.
    pub fn llvm_type(&self, dtype: DataType, span: Span) -> CodegenResult<BasicTypeEnum<'ctx>> {
        value_type(self.context, dtype, span)
    }

    /// An integer or bool constant of `dtype` (splatted for vectors).
    pub fn const_int(
        &self,
        dtype: DataType,
        value: i64,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if dtype.is_float() {
            return self.const_float(dtype, value as f64, span);
        }
        let scalar = scalar_type(self.context, dtype.element_of(), span)?.into_int_type();
        let constant = scalar
            .const_int(value as u64, dtype.is_int())
            .as_basic_value_enum();
        self.splat(constant, dtype.lanes)
    }

    /// A float constant of `dtype`, rounded to its format.
    pub fn const_float(
        &self,
        dtype: DataType,
        value: f64,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let constant = match dtype.code {
            TypeCode::BFloat => {
                let bits = half::bf16::from_f64(value).to_bits();
                self.context
                    .i16_type()
                    .const_int(u64::from(bits), false)
                    .as_basic_value_enum()
            }
            TypeCode::Float => scalar_type(self.context, dtype.element_of(), span)?
                .into_float_type()
                .const_float(value)
                .as_basic_value_enum(),
            _ => return self.const_int(dtype, value as i64, span),
        };
        self.splat(constant, dtype.lanes)
    }

    /// `value` in every one of `lanes` lanes (itself for one lane).
    pub fn splat(
        &self,
        value: BasicValueEnum<'ctx>,
        lanes: u16,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if lanes <= 1 || value.is_vector_value() {
            return Ok(value);
        }
        let vector_type = vector_of(value.get_type(), u32::from(lanes))?;
        let undef = match vector_type {
            BasicTypeEnum::VectorType(vector) => vector.get_undef(),
            _ => return Err(CodegenError::internal("splat of a non-vector type")),
        };
        let zero = self.context.i32_type().const_zero();
        let single = self.builder.build_insert_element(undef, value, zero, "")?;
        let mask = self
            .context
            .i32_type()
            .vec_type(u32::from(lanes))
            .const_zero();
        Ok(self
            .builder
            .build_shuffle_vector(single, undef, mask, "")?
            .as_basic_value_enum())
    }

    /// bfloat16 bits (`i16`, scalar or vector) widened to float32 exactly.
    pub fn bfloat16_to_float32(
        &self,
        value: BasicValueEnum<'ctx>,
        dtype: DataType,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let wide_type = self.llvm_type(DataType::uint(32).with_lanes(dtype.lanes), Span::NONE)?;
        let wide = raw::cast(&self.builder, Opcode::LLVMZExt, value, wide_type);
        let sixteen = self.const_int(DataType::uint(32).with_lanes(dtype.lanes), 16, Span::NONE)?;
        let shifted = raw::binary(&self.builder, Opcode::LLVMShl, wide, sixteen);
        let float_type = self.llvm_type(float32_like(dtype), Span::NONE)?;
        Ok(raw::cast(
            &self.builder,
            Opcode::LLVMBitCast,
            shifted,
            float_type,
        ))
    }

    /// float32 (scalar or vector) rounded to the nearest bfloat16, ties to
    /// even, NaN kept quiet.
    pub fn float32_to_bfloat16(
        &self,
        value: BasicValueEnum<'ctx>,
        dtype: DataType,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let lanes = dtype.lanes;
        let u32_type = DataType::uint(32).with_lanes(lanes);
        let bits = raw::cast(
            &self.builder,
            Opcode::LLVMBitCast,
            value,
            self.llvm_type(u32_type, Span::NONE)?,
        );
        let constant = |v: i64| self.const_int(u32_type, v, Span::NONE);
        let upper = raw::binary(&self.builder, Opcode::LLVMLShr, bits, constant(16)?);
        let lowest_kept = raw::binary(&self.builder, Opcode::LLVMAnd, upper, constant(1)?);
        let rounding = raw::binary(
            &self.builder,
            Opcode::LLVMAdd,
            lowest_kept,
            constant(0x7fff)?,
        );
        let rounded = raw::binary(&self.builder, Opcode::LLVMAdd, bits, rounding);
        let rounded = raw::binary(&self.builder, Opcode::LLVMLShr, rounded, constant(16)?);
        let is_nan = raw::float_compare(&self.builder, FloatPredicate::LLVMRealUNO, value, value);
        let quiet_nan = constant(0x7fc0)?;
        let chosen = self.select(is_nan, quiet_nan, rounded)?;
        Ok(raw::cast(
            &self.builder,
            Opcode::LLVMTrunc,
            chosen,
            self.llvm_type(DataType::uint(16).with_lanes(lanes), Span::NONE)?,
        ))
    }

    /// `condition ? a : b`, lane-wise for vector conditions.
    pub fn select(
        &self,
        condition: BasicValueEnum<'ctx>,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let value = match condition {
            BasicValueEnum::IntValue(c) => self.builder.build_select(c, a, b, "")?,
            BasicValueEnum::VectorValue(c) => self.builder.build_select(c, a, b, "")?,
            _ => return Err(CodegenError::internal("select on a non-bool condition")),
        };
        Ok(value)
    }

    /// A scalar bool (`i1`) from a value known to be one.
    pub fn as_condition(
        &self,
        value: BasicValueEnum<'ctx>,
        span: Span,
    ) -> CodegenResult<IntValue<'ctx>> {
        match value {
            BasicValueEnum::IntValue(int) if int.get_type().get_bit_width() == 1 => Ok(int),
            _ => Err(CodegenError::unsupported(
                "a condition must be a scalar bool",
                span,
            )),
        }
    }

    /// Converts `value` of type `from` to type `to`, as TVM's `Cast`.
    pub fn cast(
        &self,
        value: BasicValueEnum<'ctx>,
        from: DataType,
        to: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if from.is_scalar() && to.is_vector() {
            let scalar = self.cast(value, from, to.element_of(), span)?;
            return self.splat(scalar, to.lanes);
        }
        if from.lanes != to.lanes {
            return Err(CodegenError::unsupported(
                format!("cannot convert {from} to {to}: the lane counts differ"),
                span,
            ));
        }
        if from == to {
            return Ok(value);
        }
        if from.code == TypeCode::BFloat {
            let wide = self.bfloat16_to_float32(value, from)?;
            return self.cast(wide, float32_like(from), to, span);
        }
        if to.code == TypeCode::BFloat {
            let narrow = float32_like(to);
            let as_float = self.cast(value, from, narrow, span)?;
            return self.float32_to_bfloat16(as_float, to);
        }
        if from.is_handle() || to.is_handle() {
            if from.is_handle() && to.is_handle() {
                return Ok(value);
            }
            return Err(CodegenError::unsupported(
                format!("cannot convert {from} to {to} on the CPU"),
                span,
            ));
        }
        let target = self.llvm_type(to, span)?;
        let builder = &self.builder;
        Ok(if to.is_bool() {
            if from.is_float() {
                let zero = self.const_float(from, 0.0, span)?;
                raw::float_compare(builder, FloatPredicate::LLVMRealUNE, value, zero)
            } else {
                let zero = self.const_int(from, 0, span)?;
                raw::int_compare(builder, IntPredicate::LLVMIntNE, value, zero)
            }
        } else if from.is_float() && to.is_float() {
            match from.bits.cmp(&to.bits) {
                std::cmp::Ordering::Less => raw::cast(builder, Opcode::LLVMFPExt, value, target),
                std::cmp::Ordering::Greater => {
                    raw::cast(builder, Opcode::LLVMFPTrunc, value, target)
                }
                std::cmp::Ordering::Equal => value,
            }
        } else if from.is_float() {
            let opcode = if to.is_int() {
                Opcode::LLVMFPToSI
            } else {
                Opcode::LLVMFPToUI
            };
            raw::cast(builder, opcode, value, target)
        } else if to.is_float() {
            let opcode = if from.is_int() {
                Opcode::LLVMSIToFP
            } else {
                Opcode::LLVMUIToFP
            };
            raw::cast(builder, opcode, value, target)
        } else {
            let (from_bits, to_bits) = (bit_width(from), bit_width(to));
            match from_bits.cmp(&to_bits) {
                std::cmp::Ordering::Less if from.is_int() => {
                    raw::cast(builder, Opcode::LLVMSExt, value, target)
                }
                std::cmp::Ordering::Less => raw::cast(builder, Opcode::LLVMZExt, value, target),
                std::cmp::Ordering::Greater => raw::cast(builder, Opcode::LLVMTrunc, value, target),
                std::cmp::Ordering::Equal => value,
            }
        })
    }

    /// `a <op> b` where both operands have type `dtype` (bfloat16 computes in
    /// float32 and rounds once).
    pub fn binary(
        &self,
        op: BinaryOp,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if dtype.code == TypeCode::BFloat {
            let wide = float32_like(dtype);
            let a = self.bfloat16_to_float32(a, dtype)?;
            let b = self.bfloat16_to_float32(b, dtype)?;
            let result = self.binary(op, a, b, wide, span)?;
            if op.is_comparison() || op.is_logical() {
                return Ok(result);
            }
            return self.float32_to_bfloat16(result, dtype);
        }
        if op.is_comparison() {
            return self.compare(op, a, b, dtype);
        }
        let builder = &self.builder;
        if dtype.is_float() {
            let opcode = match op {
                BinaryOp::Add => Opcode::LLVMFAdd,
                BinaryOp::Sub => Opcode::LLVMFSub,
                BinaryOp::Mul => Opcode::LLVMFMul,
                BinaryOp::Div => Opcode::LLVMFDiv,
                BinaryOp::Mod => Opcode::LLVMFRem,
                BinaryOp::Min | BinaryOp::Max => {
                    let predicate = if op == BinaryOp::Min {
                        FloatPredicate::LLVMRealOLT
                    } else {
                        FloatPredicate::LLVMRealOGT
                    };
                    let pick_a = raw::float_compare(builder, predicate, a, b);
                    return self.select(pick_a, a, b);
                }
                BinaryOp::FloorDiv => {
                    let quotient = raw::binary(builder, Opcode::LLVMFDiv, a, b);
                    return self.call_float_intrinsic("llvm.floor", &[quotient], dtype, span);
                }
                BinaryOp::FloorMod => {
                    let quotient = raw::binary(builder, Opcode::LLVMFDiv, a, b);
                    let floor =
                        self.call_float_intrinsic("llvm.floor", &[quotient], dtype, span)?;
                    let product = raw::binary(builder, Opcode::LLVMFMul, floor, b);
                    return Ok(raw::binary(builder, Opcode::LLVMFSub, a, product));
                }
                _ => {
                    return Err(CodegenError::unsupported(
                        format!("`{}` is not defined on {dtype}", op.tvm_name()),
                        span,
                    ))
                }
            };
            return Ok(raw::binary(builder, opcode, a, b));
        }
        let signed = dtype.is_int();
        let wide_signed = signed && dtype.bits >= 32;
        let arithmetic = |opcode| {
            if wide_signed {
                raw::binary_no_signed_wrap(builder, opcode, a, b)
            } else {
                raw::binary(builder, opcode, a, b)
            }
        };
        Ok(match op {
            BinaryOp::Add => arithmetic(Opcode::LLVMAdd),
            BinaryOp::Sub => arithmetic(Opcode::LLVMSub),
            BinaryOp::Mul => arithmetic(Opcode::LLVMMul),
            BinaryOp::Div => raw::binary(
                builder,
                if signed {
                    Opcode::LLVMSDiv
                } else {
                    Opcode::LLVMUDiv
                },
                a,
                b,
            ),
            BinaryOp::Mod => raw::binary(
                builder,
                if signed {
                    Opcode::LLVMSRem
                } else {
                    Opcode::LLVMURem
                },
                a,
                b,
            ),
            BinaryOp::FloorDiv | BinaryOp::FloorMod if !signed => {
                let opcode = if op == BinaryOp::FloorDiv {
                    Opcode::LLVMUDiv
                } else {
                    Opcode::LLVMURem
                };
                raw::binary(builder, opcode, a, b)
            }
            BinaryOp::FloorDiv | BinaryOp::FloorMod => {
                return self.floor_division(op, a, b, dtype, span)
            }
            BinaryOp::Min | BinaryOp::Max => {
                let predicate = match (op == BinaryOp::Min, signed) {
                    (true, true) => IntPredicate::LLVMIntSLT,
                    (true, false) => IntPredicate::LLVMIntULT,
                    (false, true) => IntPredicate::LLVMIntSGT,
                    (false, false) => IntPredicate::LLVMIntUGT,
                };
                let pick_a = raw::int_compare(builder, predicate, a, b);
                return self.select(pick_a, a, b);
            }
            BinaryOp::And => raw::binary(builder, Opcode::LLVMAnd, a, b),
            BinaryOp::Or => raw::binary(builder, Opcode::LLVMOr, a, b),
            _ => return Err(CodegenError::internal(format!("unhandled operator {op:?}"))),
        })
    }

    /// Signed floor division and modulo. A positive power-of-two divisor is
    /// a shift or a mask (exact for floor semantics in two's complement);
    /// otherwise the truncating result is corrected where the signs differ.
    fn floor_division(
        &self,
        op: BinaryOp,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let builder = &self.builder;
        if let Some(divisor) = constant_splat(b) {
            if divisor > 0 && (divisor as u64).is_power_of_two() {
                let shift = i64::from((divisor as u64).trailing_zeros());
                return Ok(if op == BinaryOp::FloorDiv {
                    raw::binary(
                        builder,
                        Opcode::LLVMAShr,
                        a,
                        self.const_int(dtype, shift, span)?,
                    )
                } else {
                    raw::binary(
                        builder,
                        Opcode::LLVMAnd,
                        a,
                        self.const_int(dtype, divisor - 1, span)?,
                    )
                });
            }
        }
        let zero = self.const_int(dtype, 0, span)?;
        let quotient = raw::binary(builder, Opcode::LLVMSDiv, a, b);
        let remainder = raw::binary(builder, Opcode::LLVMSRem, a, b);
        let remainder_nonzero = raw::int_compare(builder, IntPredicate::LLVMIntNE, remainder, zero);
        let remainder_negative =
            raw::int_compare(builder, IntPredicate::LLVMIntSLT, remainder, zero);
        let divisor_negative = raw::int_compare(builder, IntPredicate::LLVMIntSLT, b, zero);
        let signs_differ = raw::binary(
            builder,
            Opcode::LLVMXor,
            remainder_negative,
            divisor_negative,
        );
        let needs_fix = raw::binary(builder, Opcode::LLVMAnd, remainder_nonzero, signs_differ);
        if op == BinaryOp::FloorDiv {
            let one = self.const_int(dtype, 1, span)?;
            let fixed = raw::binary(builder, Opcode::LLVMSub, quotient, one);
            self.select(needs_fix, fixed, quotient)
        } else {
            let fixed = raw::binary(builder, Opcode::LLVMAdd, remainder, b);
            self.select(needs_fix, fixed, remainder)
        }
    }

    fn compare(
        &self,
        op: BinaryOp,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
        dtype: DataType,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if dtype.is_float() {
            let predicate = match op {
                BinaryOp::Eq => FloatPredicate::LLVMRealOEQ,
                BinaryOp::Ne => FloatPredicate::LLVMRealUNE,
                BinaryOp::Lt => FloatPredicate::LLVMRealOLT,
                BinaryOp::Le => FloatPredicate::LLVMRealOLE,
                BinaryOp::Gt => FloatPredicate::LLVMRealOGT,
                _ => FloatPredicate::LLVMRealOGE,
            };
            return Ok(raw::float_compare(&self.builder, predicate, a, b));
        }
        let signed = dtype.is_int();
        let predicate = match (op, signed) {
            (BinaryOp::Eq, _) => IntPredicate::LLVMIntEQ,
            (BinaryOp::Ne, _) => IntPredicate::LLVMIntNE,
            (BinaryOp::Lt, true) => IntPredicate::LLVMIntSLT,
            (BinaryOp::Lt, false) => IntPredicate::LLVMIntULT,
            (BinaryOp::Le, true) => IntPredicate::LLVMIntSLE,
            (BinaryOp::Le, false) => IntPredicate::LLVMIntULE,
            (BinaryOp::Gt, true) => IntPredicate::LLVMIntSGT,
            (BinaryOp::Gt, false) => IntPredicate::LLVMIntUGT,
            (_, true) => IntPredicate::LLVMIntSGE,
            (_, false) => IntPredicate::LLVMIntUGE,
        };
        Ok(raw::int_compare(&self.builder, predicate, a, b))
    }
}

/// The bit width an integer or bool type has in registers.
fn bit_width(dtype: DataType) -> u16 {
    if dtype.is_bool() {
        1
    } else {
        dtype.bits
    }
}

/// The integer every lane of a constant holds, when it is one.
fn constant_splat(value: BasicValueEnum<'_>) -> Option<i64> {
    match value {
        BasicValueEnum::IntValue(int) => int.get_sign_extended_constant(),
        // An all-zero vector is a `zeroinitializer`, which has no elements to read.
        BasicValueEnum::VectorValue(vector) if vector.is_const() && vector.is_null() => Some(0),
        // Elements can be read only from constant data vectors.
        BasicValueEnum::VectorValue(vector) if vector.is_constant_data_vector() => {
            let lane_value = |lane: u32| match vector.get_element_as_constant(lane) {
                BasicValueEnum::IntValue(int) => int.get_sign_extended_constant(),
                _ => None,
            };
            let first = lane_value(0)?;
            let lanes = vector.get_type().get_size();
            (1..lanes)
                .all(|lane| lane_value(lane) == Some(first))
                .then_some(first)
        }
        _ => None,
    }
}
