//! Parallel loops, outlined as TVM does: the loop body becomes a function of
//! the values it uses and a range of iterations; a small "lambda" unpacks a
//! closure struct, takes its static chunk of the iterations
//! (`ceil(extent / num_task)` each, as `TVMBackendParallelLaunch`'s callers
//! do) and calls the body; the loop itself becomes one call of
//! `tirc_parallel_launch(lambda, &closure, 0)`, which runs the lambda on
//! every thread of the runtime's pool and returns the first non-zero code.
//!
//! The body function takes buffer pointers as `noalias` parameters when the
//! kernel is `tir.noalias`, so LLVM keeps knowing that distinct buffers do
//! not overlap after the values went through the closure.

use super::context::{Codegen, CodegenError, CodegenResult};
use super::raw::{self, Opcode};
use crate::ir::{BinaryOp, DataType, For, Var};
use crate::source::Span;
use inkwell::module::Linkage;
use inkwell::types::{BasicTypeEnum, FunctionType};
use inkwell::values::{BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue};
use inkwell::AddressSpace;

/// The runtime entry point that runs a lambda on the thread pool.
pub const PARALLEL_LAUNCH_SYMBOL: &str = "tirc_parallel_launch";

impl<'ctx> Codegen<'ctx> {
    /// The signature of a parallel lambda: `i32 (i32 task_id, i32 num_task, i8* closure)`.
    fn lambda_type(&self) -> FunctionType<'ctx> {
        let i32_type = self.context.i32_type();
        let byte_pointer = self.context.i8_type().ptr_type(AddressSpace::default());
        i32_type.fn_type(
            &[i32_type.into(), i32_type.into(), byte_pointer.into()],
            false,
        )
    }

    /// `tirc_parallel_launch`, declared once per module.
    fn parallel_launch_function(&self) -> FunctionValue<'ctx> {
        if let Some(function) = self.module.get_function(PARALLEL_LAUNCH_SYMBOL) {
            return function;
        }
        let i32_type = self.context.i32_type();
        let byte_pointer = self.context.i8_type().ptr_type(AddressSpace::default());
        let lambda_pointer = self.lambda_type().ptr_type(AddressSpace::default());
        let launch_type = i32_type.fn_type(
            &[lambda_pointer.into(), byte_pointer.into(), i32_type.into()],
            false,
        );
        self.module
            .add_function(PARALLEL_LAUNCH_SYMBOL, launch_type, None)
    }

    /// Outlines `for_loop` and launches it on the thread pool.
    pub fn emit_parallel_for(&mut self, for_loop: &For, span: Span) -> CodegenResult<()> {
        let dtype = for_loop.loop_var.dtype();
        let start = self.emit_expr(&for_loop.min)?;
        let start = self.cast(start, for_loop.min.dtype(), dtype, span)?;
        let extent = self.emit_expr(&for_loop.extent)?;
        let extent = self.cast(extent, for_loop.extent.dtype(), dtype, span)?;

        let captured = self.captured_values(for_loop)?;
        self.outlined_count += 1;
        let base_name = format!("{}_compute_{}", self.kernel_symbol, self.outlined_count);
        let body_function = self.outline_body(&base_name, for_loop, &captured, true, &[])?;
        let lambda = self.build_lambda(&base_name, body_function, &captured, dtype)?;

        // The closure: every captured value, then the loop's start and extent.
        let mut field_types: Vec<BasicTypeEnum> =
            captured.iter().map(|(_, v)| v.get_type()).collect();
        field_types.push(start.get_type());
        field_types.push(extent.get_type());
        let closure_type = self.context.struct_type(&field_types, false);
        let entry = self.current()?.entry;
        let entry_builder = self.context.create_builder();
        match entry.get_terminator() {
            Some(terminator) => entry_builder.position_before(&terminator),
            None => entry_builder.position_at_end(entry),
        }
        let closure = entry_builder.build_alloca(closure_type, "closure")?;
        let values: Vec<BasicValueEnum> = captured
            .iter()
            .map(|(_, v)| *v)
            .chain([start, extent])
            .collect();
        for (position, value) in values.into_iter().enumerate() {
            let field = self
                .builder
                .build_struct_gep(closure, position as u32, "")?;
            self.builder.build_store(field, value)?;
        }
        let byte_pointer = self.context.i8_type().ptr_type(AddressSpace::default());
        let closure_bytes = self.builder.build_pointer_cast(closure, byte_pointer, "")?;
        let launch = self.parallel_launch_function();
        let lambda_pointer = lambda.as_global_value().as_pointer_value();
        let zero = self.context.i32_type().const_zero();
        let call = self.builder.build_call(
            launch,
            &[lambda_pointer.into(), closure_bytes.into(), zero.into()],
            "",
        )?;
        let code = call
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::internal("the parallel launch returned nothing"))?
            .into_int_value();
        let succeeded =
            self.builder
                .build_int_compare(inkwell::IntPredicate::EQ, code, zero, "")?;
        self.return_code_unless(succeeded, code)
    }

    /// The lambda the pool calls: unpacks the closure, computes this task's
    /// chunk and calls the body.
    fn build_lambda(
        &mut self,
        base_name: &str,
        body_function: FunctionValue<'ctx>,
        captured: &[(Var, BasicValueEnum<'ctx>)],
        dtype: DataType,
    ) -> CodegenResult<FunctionValue<'ctx>> {
        let saved_block = self.insert_block()?;
        let lambda = self.module.add_function(
            &format!("{base_name}_lambda"),
            self.lambda_type(),
            Some(Linkage::Internal),
        );
        self.apply_function_attributes(lambda);
        let entry = self.context.append_basic_block(lambda, "entry");
        self.builder.position_at_end(entry);
        let bound_type = self.llvm_type(dtype, Span::NONE)?;
        let mut field_types: Vec<BasicTypeEnum> =
            captured.iter().map(|(_, v)| v.get_type()).collect();
        field_types.push(bound_type);
        field_types.push(bound_type);
        let closure_type = self.context.struct_type(&field_types, false);
        let parameter = |n: u32| {
            lambda
                .get_nth_param(n)
                .ok_or_else(|| CodegenError::internal("missing lambda parameter"))
        };
        let task = parameter(0)?.into_int_value();
        let task_count = parameter(1)?.into_int_value();
        let closure = self.builder.build_pointer_cast(
            parameter(2)?.into_pointer_value(),
            closure_type.ptr_type(AddressSpace::default()),
            "",
        )?;
        let mut fields = Vec::new();
        for (position, field_type) in field_types.iter().enumerate() {
            let address = self
                .builder
                .build_struct_gep(closure, position as u32, "")?;
            fields.push(raw::load(
                &self.builder,
                *field_type,
                address,
                1.max(alignment_of(*field_type)),
            ));
        }
        let extent = fields
            .pop()
            .ok_or_else(|| CodegenError::internal("closure without extent"))?;
        let start = fields
            .pop()
            .ok_or_else(|| CodegenError::internal("closure without start"))?;
        // Static chunking in 64 bits: step = ceil(extent / tasks).
        let i64_type = self.context.i64_type();
        let wide = DataType::int64();
        let widen =
            |value: BasicValueEnum<'ctx>, from: DataType| self.cast(value, from, wide, Span::NONE);
        let extent64 = widen(extent, dtype)?;
        let task64: BasicValueEnum = self
            .builder
            .build_int_s_extend(task, i64_type, "")?
            .as_basic_value_enum();
        let tasks64: BasicValueEnum = self
            .builder
            .build_int_s_extend(task_count, i64_type, "")?
            .as_basic_value_enum();
        let one = self.const_int(wide, 1, Span::NONE)?;
        let rounded_up = self.binary(BinaryOp::Add, extent64, tasks64, wide, Span::NONE)?;
        let rounded_up = self.binary(BinaryOp::Sub, rounded_up, one, wide, Span::NONE)?;
        let step = raw::binary(&self.builder, Opcode::LLVMSDiv, rounded_up, tasks64);
        let first = self.binary(BinaryOp::Mul, task64, step, wide, Span::NONE)?;
        let first = self.binary(BinaryOp::Min, first, extent64, wide, Span::NONE)?;
        let last = self.binary(BinaryOp::Add, first, step, wide, Span::NONE)?;
        let last = self.binary(BinaryOp::Min, last, extent64, wide, Span::NONE)?;
        let first = self.cast(first, wide, dtype, Span::NONE)?;
        let last = self.cast(last, wide, dtype, Span::NONE)?;
        let begin = self.binary(BinaryOp::Add, start, first, dtype, Span::NONE)?;
        let end = self.binary(BinaryOp::Add, start, last, dtype, Span::NONE)?;
        let mut arguments: Vec<BasicMetadataValueEnum> =
            fields.into_iter().map(Into::into).collect();
        arguments.push(begin.into());
        arguments.push(end.into());
        let call = self.builder.build_call(body_function, &arguments, "")?;
        let code = call
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::internal("the outlined body returned nothing"))?;
        self.builder.build_return(Some(&code))?;
        self.builder.position_at_end(saved_block);
        Ok(lambda)
    }
}

/// A safe alignment for loading a closure field of this type.
fn alignment_of(field_type: BasicTypeEnum<'_>) -> u32 {
    match field_type {
        BasicTypeEnum::IntType(t) => (t.get_bit_width() / 8).clamp(1, 8),
        // Claiming less alignment than a field has is always safe.
        _ => 1,
    }
}
