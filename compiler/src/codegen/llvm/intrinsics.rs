//! Calls of builtins: math functions as LLVM intrinsics where one exists
//! (`llvm.exp`, `llvm.fma`, `llvm.sqrt`, ...) and as libm calls otherwise,
//! bit operations, `if_then_else` (only the taken side evaluated),
//! `reinterpret`, `q_multiply_shift`, and external calls by name.

use super::context::{codes, Codegen, CodegenError, CodegenResult};
use super::raw::{self, FloatPredicate, Opcode};
use crate::diagnostics::Diagnostic;
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Op, TypeCode};
use crate::source::Span;
use inkwell::intrinsics::Intrinsic;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValue, BasicValueEnum};

/// The LLVM intrinsic computing a math builtin, when there is one.
fn llvm_intrinsic_for(name: &str) -> Option<&'static str> {
    Some(match name {
        "exp" => "llvm.exp",
        "exp2" => "llvm.exp2",
        "log" => "llvm.log",
        "log2" => "llvm.log2",
        "log10" => "llvm.log10",
        "sqrt" => "llvm.sqrt",
        "sin" => "llvm.sin",
        "cos" => "llvm.cos",
        "floor" => "llvm.floor",
        "ceil" => "llvm.ceil",
        "round" => "llvm.round",
        "trunc" => "llvm.trunc",
        "nearbyint" => "llvm.nearbyint",
        "pow" => "llvm.pow",
        "copysign" => "llvm.copysign",
        "fma" => "llvm.fma",
        _ => return None,
    })
}

/// Math builtins computed by the C library (`expf`/`exp` by width).
const LIBM_FUNCTIONS: &[&str] = &[
    "exp10",
    "log1p",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "atan2",
    "hypot",
    "nextafter",
];

impl<'ctx> Codegen<'ctx> {
    /// Calls an overloaded float intrinsic on values of type `dtype`
    /// (float16 and bfloat16 compute in float32 where LLVM has no variant).
    pub fn call_float_intrinsic(
        &self,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if dtype.code == TypeCode::BFloat {
            let wide = DataType::float32().with_lanes(dtype.lanes);
            let widened = args
                .iter()
                .map(|a| self.bfloat16_to_float32(*a, dtype))
                .collect::<CodegenResult<Vec<_>>>()?;
            let result = self.call_float_intrinsic(name, &widened, wide, span)?;
            return self.float32_to_bfloat16(result, dtype);
        }
        let intrinsic = Intrinsic::find(name)
            .ok_or_else(|| CodegenError::internal(format!("LLVM has no intrinsic `{name}`")))?;
        let value_type = self.llvm_type(dtype, span)?;
        let declaration = intrinsic
            .get_declaration(&self.module, &[value_type])
            .ok_or_else(|| {
                CodegenError::internal(format!("cannot declare `{name}` for {dtype}"))
            })?;
        let call_args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        let call = self.builder.build_call(declaration, &call_args, "")?;
        call.try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::internal(format!("`{name}` returned nothing")))
    }

    /// Calls a libm function lane by lane (`expf` for float32, `exp` for
    /// float64; float16 and bfloat16 go through float32).
    fn call_libm(
        &self,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let compute = if dtype.bits == 64 {
            DataType::float(64)
        } else {
            DataType::float32()
        };
        let compute_vector = compute.with_lanes(dtype.lanes);
        let converted = args
            .iter()
            .map(|a| self.cast(*a, dtype, compute_vector, span))
            .collect::<CodegenResult<Vec<_>>>()?;
        let symbol = if compute.bits == 64 {
            name.to_string()
        } else {
            format!("{name}f")
        };
        let scalar_type = self.llvm_type(compute, span)?;
        let parameter_types: Vec<BasicMetadataTypeEnum> =
            args.iter().map(|_| scalar_type.into()).collect();
        let function = self.module.get_function(&symbol).unwrap_or_else(|| {
            self.module
                .add_function(&symbol, scalar_type.fn_type(&parameter_types, false), None)
        });
        let call_scalar =
            |lane_args: Vec<BasicMetadataValueEnum<'ctx>>| -> CodegenResult<BasicValueEnum<'ctx>> {
                let call = self.builder.build_call(function, &lane_args, "")?;
                call.try_as_basic_value()
                    .basic()
                    .ok_or_else(|| CodegenError::internal(format!("`{symbol}` returned nothing")))
            };
        let result = if dtype.is_scalar() {
            call_scalar(converted.iter().map(|a| (*a).into()).collect())?
        } else {
            let vector_type = self.llvm_type(compute_vector, span)?.into_vector_type();
            let mut vector = vector_type.get_undef();
            for lane in 0..u64::from(dtype.lanes) {
                let position = self.context.i32_type().const_int(lane, false);
                let lane_args = converted
                    .iter()
                    .map(|a| {
                        self.builder
                            .build_extract_element(a.into_vector_value(), position, "")
                            .map(Into::into)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let value = call_scalar(lane_args)?;
                vector = self
                    .builder
                    .build_insert_element(vector, value, position, "")?;
            }
            vector.as_basic_value_enum()
        };
        self.cast(result, compute_vector, dtype, span)
    }

    /// A call of a builtin operator with result type `dtype`.
    pub fn emit_call(
        &mut self,
        op: Op,
        args: &[Expr],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let name = op.name();
        match name {
            "if_then_else" => return self.emit_if_then_else(args, dtype, span),
            "likely" => return self.emit_expr(&args[0]),
            "call_extern" | "call_pure_extern" => return self.emit_extern_call(args, dtype, span),
            "call_llvm_pure_intrin" | "call_llvm_intrin" => {
                return self.emit_llvm_intrinsic_call(args, dtype, span)
            }
            "address_of" => {
                return match args.first().map(Expr::kind) {
                    Some(ExprKind::Load(load)) => {
                        self.emit_address_of(&load.buffer, &load.indices, span)
                    }
                    _ => Err(CodegenError::unsupported(
                        "`T.address_of` takes a buffer element",
                        span,
                    )),
                }
            }
            "reinterpret" => {
                let value = self.emit_expr(&args[0])?;
                let target = self.llvm_type(dtype, span)?;
                if value.get_type() == target {
                    return Ok(value);
                }
                return Ok(raw::cast(&self.builder, Opcode::LLVMBitCast, value, target));
            }
            "assume" => return self.const_int(DataType::int32(), 0, span),
            "undef" => return Ok(undef_of(self.llvm_type(dtype, span)?)),
            "tvm_fill_fragment"
            | "tvm_load_matrix_sync"
            | "tvm_mma_sync"
            | "tvm_store_matrix_sync"
            | "tvm_bmma_sync" => {
                return Err(tensor_core_on_cpu(name, "wmma", span));
            }
            _ if crate::ir::builtin::MmaBuiltin::of(name).is_some() => {
                return Err(tensor_core_on_cpu(name, "mma.sync", span));
            }
            _ => {}
        }
        let values = args
            .iter()
            .map(|a| self.emit_expr(a))
            .collect::<CodegenResult<Vec<_>>>()?;
        let argument_type = args.first().map(Expr::dtype).unwrap_or(dtype);
        if let Some(intrinsic) = llvm_intrinsic_for(name) {
            let converted = values
                .iter()
                .zip(args)
                .map(|(v, a)| self.cast(*v, a.dtype(), dtype, span))
                .collect::<CodegenResult<Vec<_>>>()?;
            return self.call_float_intrinsic(intrinsic, &converted, dtype, span);
        }
        if LIBM_FUNCTIONS.contains(&name) {
            return self.call_libm(name, &values, dtype, span);
        }
        let builder = &self.builder;
        match name {
            "fmod" => Ok(raw::binary(builder, Opcode::LLVMFRem, values[0], values[1])),
            "fabs" if argument_type.is_float() => {
                self.call_float_intrinsic("llvm.fabs", &values, dtype, span)
            }
            "fabs" => {
                let zero = self.const_int(dtype, 0, span)?;
                let negative = self.binary(BinaryOp::Lt, values[0], zero, dtype, span)?;
                let negated = self.binary(BinaryOp::Sub, zero, values[0], dtype, span)?;
                self.select(negative, negated, values[0])
            }
            "rsqrt" => {
                let root = self.call_float_intrinsic("llvm.sqrt", &values, dtype, span)?;
                let one = self.const_float(dtype, 1.0, span)?;
                self.binary(BinaryOp::Div, one, root, dtype, span)
            }
            "sigmoid" => {
                let zero = self.const_float(dtype, 0.0, span)?;
                let negated = self.binary(BinaryOp::Sub, zero, values[0], dtype, span)?;
                let exponential = self.call_float_intrinsic("llvm.exp", &[negated], dtype, span)?;
                let one = self.const_float(dtype, 1.0, span)?;
                let denominator = self.binary(BinaryOp::Add, one, exponential, dtype, span)?;
                self.binary(BinaryOp::Div, one, denominator, dtype, span)
            }
            "ldexp" => {
                let exponent = self.cast(
                    values[1],
                    args[1].dtype(),
                    DataType::int32().with_lanes(dtype.lanes),
                    span,
                )?;
                self.call_ldexp(values[0], exponent, dtype, span)
            }
            "isnan" | "isinf" | "isfinite" => {
                self.emit_classify(name, values[0], argument_type, span)
            }
            "clz" | "popcount" => {
                let intrinsic = if name == "clz" {
                    "llvm.ctlz"
                } else {
                    "llvm.ctpop"
                };
                let declaration = Intrinsic::find(intrinsic)
                    .and_then(|i| i.get_declaration(&self.module, &[values[0].get_type()]))
                    .ok_or_else(|| {
                        CodegenError::internal(format!("cannot declare `{intrinsic}`"))
                    })?;
                let mut call_args: Vec<BasicMetadataValueEnum> = vec![values[0].into()];
                if name == "clz" {
                    call_args.push(self.context.bool_type().const_zero().into());
                }
                let call = self.builder.build_call(declaration, &call_args, "")?;
                call.try_as_basic_value()
                    .basic()
                    .ok_or_else(|| CodegenError::internal("bit count returned nothing"))
            }
            "shift_left" => Ok(raw::binary(builder, Opcode::LLVMShl, values[0], values[1])),
            "shift_right" => {
                let opcode = if argument_type.is_int() {
                    Opcode::LLVMAShr
                } else {
                    Opcode::LLVMLShr
                };
                Ok(raw::binary(builder, opcode, values[0], values[1]))
            }
            "bitwise_and" => Ok(raw::binary(builder, Opcode::LLVMAnd, values[0], values[1])),
            "bitwise_or" => Ok(raw::binary(builder, Opcode::LLVMOr, values[0], values[1])),
            "bitwise_xor" => Ok(raw::binary(builder, Opcode::LLVMXor, values[0], values[1])),
            "bitwise_not" => {
                let ones = self.const_int(dtype, -1, span)?;
                Ok(raw::binary(builder, Opcode::LLVMXor, values[0], ones))
            }
            "q_multiply_shift" => self.emit_q_multiply_shift(&values, args, dtype, span),
            _ => Err(CodegenError::unsupported(
                format!("`T.{name}` is not supported by the LLVM CPU backend"),
                span,
            )),
        }
    }

    fn call_ldexp(
        &self,
        value: BasicValueEnum<'ctx>,
        exponent: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let compute = if dtype.bits == 64 {
            DataType::float(64)
        } else {
            DataType::float32()
        };
        let symbol = if dtype.bits == 64 { "ldexp" } else { "ldexpf" };
        let scalar_type = self.llvm_type(compute, span)?;
        let function = self.module.get_function(symbol).unwrap_or_else(|| {
            self.module.add_function(
                symbol,
                scalar_type.fn_type(&[scalar_type.into(), self.context.i32_type().into()], false),
                None,
            )
        });
        let mut lanes = Vec::new();
        for lane in 0..u64::from(dtype.lanes) {
            let (x, e) = if dtype.is_scalar() {
                (value, exponent)
            } else {
                let position = self.context.i32_type().const_int(lane, false);
                (
                    self.builder
                        .build_extract_element(value.into_vector_value(), position, "")?,
                    self.builder.build_extract_element(
                        exponent.into_vector_value(),
                        position,
                        "",
                    )?,
                )
            };
            let x = self.cast(x, dtype.element_of(), compute, span)?;
            let call = self
                .builder
                .build_call(function, &[x.into(), e.into()], "")?;
            let result = call
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| CodegenError::internal("ldexp returned nothing"))?;
            lanes.push(self.cast(result, compute, dtype.element_of(), span)?);
        }
        if dtype.is_scalar() {
            return Ok(lanes[0]);
        }
        let vector_type = self.llvm_type(dtype, span)?.into_vector_type();
        let mut vector = vector_type.get_undef();
        for (lane, value) in lanes.into_iter().enumerate() {
            let position = self.context.i32_type().const_int(lane as u64, false);
            vector = self
                .builder
                .build_insert_element(vector, value, position, "")?;
        }
        Ok(vector.as_basic_value_enum())
    }

    fn emit_classify(
        &self,
        name: &str,
        value: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if !dtype.is_float() {
            // Integers are never NaN or infinite.
            return self.const_int(
                DataType::bool().with_lanes(dtype.lanes),
                i64::from(name == "isfinite"),
                span,
            );
        }
        let (value, dtype) = if dtype.code == TypeCode::BFloat {
            (
                self.bfloat16_to_float32(value, dtype)?,
                DataType::float32().with_lanes(dtype.lanes),
            )
        } else {
            (value, dtype)
        };
        if name == "isnan" {
            return Ok(raw::float_compare(
                &self.builder,
                FloatPredicate::LLVMRealUNO,
                value,
                value,
            ));
        }
        let magnitude = self.call_float_intrinsic("llvm.fabs", &[value], dtype, span)?;
        let infinity = self.const_float(dtype, f64::INFINITY, span)?;
        let predicate = if name == "isinf" {
            FloatPredicate::LLVMRealOEQ
        } else {
            FloatPredicate::LLVMRealOLT
        };
        Ok(raw::float_compare(
            &self.builder,
            predicate,
            magnitude,
            infinity,
        ))
    }

    /// `(x * y) >> (q - s)` with rounding, in 64 bits, as the interpreter
    /// computes it.
    fn emit_q_multiply_shift(
        &self,
        values: &[BasicValueEnum<'ctx>],
        args: &[Expr],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let wide = DataType::int64().with_lanes(dtype.lanes);
        let widened = values
            .iter()
            .zip(args)
            .map(|(v, a)| {
                let v = self.cast(*v, a.dtype(), a.dtype().with_lanes(dtype.lanes), span)?;
                self.cast(v, a.dtype().with_lanes(dtype.lanes), wide, span)
            })
            .collect::<CodegenResult<Vec<_>>>()?;
        let (x, y, q, s) = (widened[0], widened[1], widened[2], widened[3]);
        let zero = self.const_int(wide, 0, span)?;
        let one = self.const_int(wide, 1, span)?;
        let left_shift = self.binary(BinaryOp::Max, s, zero, wide, span)?;
        let negative_part = self.binary(BinaryOp::Min, s, zero, wide, span)?;
        let right_shift = self.binary(BinaryOp::Sub, q, negative_part, wide, span)?;
        let builder = &self.builder;
        let shifted = raw::binary(builder, Opcode::LLVMShl, x, left_shift);
        let product = raw::binary(builder, Opcode::LLVMMul, shifted, y);
        let half_step = raw::binary(builder, Opcode::LLVMSub, right_shift, one);
        let rounding = raw::binary(builder, Opcode::LLVMShl, one, half_step);
        let rounded = raw::binary(builder, Opcode::LLVMAdd, product, rounding);
        let result = raw::binary(builder, Opcode::LLVMAShr, rounded, right_shift);
        self.cast(result, wide, dtype, span)
    }

    /// `T.if_then_else(c, a, b)`: a branch for a scalar condition, so only
    /// the taken side runs (it may guard an out-of-bounds load); a lane-wise
    /// select for a vector condition.
    fn emit_if_then_else(
        &mut self,
        args: &[Expr],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let condition = self.emit_expr(&args[0])?;
        if args[0].dtype().is_vector() {
            let a = self.emit_expr(&args[1])?;
            let b = self.emit_expr(&args[2])?;
            return self.select(condition, a, b);
        }
        let condition = self.as_condition(condition, span)?;
        let then_block = self.append_block("if_then_else.then")?;
        let else_block = self.append_block("if_then_else.else")?;
        let merge_block = self.append_block("if_then_else.merge")?;
        self.builder
            .build_conditional_branch(condition, then_block, else_block)?;
        self.builder.position_at_end(then_block);
        let a = self.emit_expr(&args[1])?;
        let a = self.cast(a, args[1].dtype(), dtype, span)?;
        let then_end = self.insert_block()?;
        self.builder.build_unconditional_branch(merge_block)?;
        self.builder.position_at_end(else_block);
        let b = self.emit_expr(&args[2])?;
        let b = self.cast(b, args[2].dtype(), dtype, span)?;
        let else_end = self.insert_block()?;
        self.builder.build_unconditional_branch(merge_block)?;
        self.builder.position_at_end(merge_block);
        let phi = self.builder.build_phi(a.get_type(), "")?;
        phi.add_incoming(&[(&a, then_end), (&b, else_end)]);
        Ok(phi.as_basic_value())
    }

    /// `T.call_extern(dtype, "name", args...)`: a C function of the process
    /// (or of what the library is linked with), declared from the argument
    /// and result types.
    fn emit_extern_call(
        &mut self,
        args: &[Expr],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let name = match args.first().map(Expr::kind) {
            Some(ExprKind::Str(name)) => name.clone(),
            _ => {
                return Err(CodegenError::unsupported(
                    "an extern call names its function with a string first",
                    span,
                ))
            }
        };
        let values = args[1..]
            .iter()
            .map(|a| self.emit_expr(a))
            .collect::<CodegenResult<Vec<_>>>()?;
        let parameter_types: Vec<BasicMetadataTypeEnum> =
            values.iter().map(|v| v.get_type().into()).collect();
        let function_type = if dtype.is_void() {
            self.context.void_type().fn_type(&parameter_types, false)
        } else {
            self.llvm_type(dtype, span)?
                .fn_type(&parameter_types, false)
        };
        let function = match self.module.get_function(&name) {
            Some(existing) if existing.get_type() == function_type => existing,
            Some(_) => {
                return Err(CodegenError::unsupported(
                    format!("extern function `{name}` is called with two different signatures"),
                    span,
                ))
            }
            None => self.module.add_function(&name, function_type, None),
        };
        let call_args: Vec<BasicMetadataValueEnum> = values.iter().map(|v| (*v).into()).collect();
        let call = self.builder.build_call(function, &call_args, "")?;
        match call.try_as_basic_value().basic() {
            Some(value) => Ok(value),
            None => self.const_int(DataType::int32(), 0, span),
        }
    }
}

fn undef_of(value_type: BasicTypeEnum<'_>) -> BasicValueEnum<'_> {
    match value_type {
        BasicTypeEnum::IntType(t) => t.get_undef().into(),
        BasicTypeEnum::FloatType(t) => t.get_undef().into(),
        BasicTypeEnum::VectorType(t) => t.get_undef().into(),
        BasicTypeEnum::PointerType(t) => t.get_undef().into(),
        BasicTypeEnum::ArrayType(t) => t.get_undef().into(),
        BasicTypeEnum::StructType(t) => t.get_undef().into(),
        BasicTypeEnum::ScalableVectorType(t) => t.get_undef().into(),
    }
}

/// The refusal of a CUDA tensor-core builtin (`family`: wmma, mma.sync) on the CPU.
fn tensor_core_on_cpu(name: &str, family: &str, span: Span) -> CodegenError {
    CodegenError(Box::new(
        Diagnostic::error(
            codes::UNSUPPORTED,
            format!(
                "`T.{name}` is a CUDA tensor-core ({family}) operation, which the LLVM CPU backend cannot run"
            ),
            span,
        )
        .with_help("run it with `--target cuda` (add `--emulate` on a machine without a GPU)"),
    ))
}
