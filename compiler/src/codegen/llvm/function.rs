//! One kernel as an LLVM function with the C ABI of
//! [`crate::codegen::signature`], its attributes (`noalias` pointers under
//! `tir.noalias`, the target CPU and features), and the packed wrapper the
//! JIT calls: `i32 wrapper(i64* slots)` with one 64-bit slot per argument.

use super::context::{AssertInfo, Codegen, CodegenError, CodegenResult, FunctionState};
use super::types::{memory_type, pointer_to};
use crate::codegen::signature::{KernelArgument, KernelSignature};
use crate::ir::identity::VarMap;
use crate::ir::{AttrValue, DataType, PrimFunc, TypeCode};
use crate::source::Span;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue};
use inkwell::AddressSpace;

/// A kernel that was generated: its ABI and its asserts' messages.
#[derive(Clone, Debug)]
pub struct GeneratedKernel {
    /// The C ABI.
    pub signature: KernelSignature,
    /// The asserts, numbered from 1 in this order (the return codes).
    pub asserts: Vec<AssertInfo>,
    /// The loops marked vectorized that reached LLVM as loops (the
    /// vectorizer pass could not turn them into vector code itself).
    pub vectorized_loops: Vec<Span>,
    /// The loops bound to GPU threads, run as CPU loops.
    pub thread_bound_loops: Vec<Span>,
}

/// The symbol of the packed wrapper of a kernel exported as `symbol`.
pub fn packed_symbol(symbol: &str) -> String {
    format!("__tirc_packed_{symbol}")
}

/// True when the function promises that distinct buffers never overlap.
fn is_noalias(func: &PrimFunc) -> bool {
    ["tir.noalias", "tirx.noalias"]
        .iter()
        .any(|key| func.attr(key).and_then(AttrValue::as_int) == Some(1))
}

impl<'ctx> Codegen<'ctx> {
    /// The register or ABI type of one argument.
    fn argument_type(&self, argument: &KernelArgument) -> CodegenResult<BasicTypeEnum<'ctx>> {
        Ok(match argument {
            KernelArgument::Buffer { buffer, .. } => {
                pointer_to(memory_type(self.context, buffer.dtype(), buffer.span())?).into()
            }
            KernelArgument::Scalar { param } => match (param.dtype().code, param.dtype().bits) {
                // C passes bool as a byte, and 16-bit floats as their bits.
                (TypeCode::Bool, _) => self.context.i8_type().into(),
                (TypeCode::Float, 16) | (TypeCode::BFloat, 16) => self.context.i16_type().into(),
                _ => self.llvm_type(param.dtype(), param.span())?,
            },
            KernelArgument::ShapeVar { .. } => self.context.i64_type().into(),
        })
    }

    /// Sets the attributes every generated function has: the target CPU and
    /// features (so the JIT, whose own machine is generic, still uses them)
    /// and `nounwind`.
    pub fn apply_function_attributes(&self, function: FunctionValue<'ctx>) {
        let cpu = self
            .context
            .create_string_attribute("target-cpu", &self.target.cpu);
        function.add_attribute(AttributeLoc::Function, cpu);
        if !self.target.features.is_empty() {
            let features = self
                .context
                .create_string_attribute("target-features", &self.target.features);
            function.add_attribute(AttributeLoc::Function, features);
        }
        let nounwind = Attribute::get_named_enum_kind_id("nounwind");
        function.add_attribute(
            AttributeLoc::Function,
            self.context.create_enum_attribute(nounwind, 0),
        );
    }

    /// With alignment checks on, returns an error code at entry for every
    /// buffer argument less aligned than the code generated for it assumes.
    fn check_argument_alignment(&mut self, signature: &KernelSignature) -> CodegenResult<()> {
        if !self.check_alignment {
            return Ok(());
        }
        let function = self.current()?.value;
        for (position, argument) in signature.arguments.iter().enumerate() {
            let KernelArgument::Buffer { buffer, .. } = argument else {
                continue;
            };
            let alignment = buffer.node().data_alignment;
            if alignment <= 1 {
                continue;
            }
            let pointer = function
                .get_nth_param(position as u32)
                .ok_or_else(|| CodegenError::internal("missing parameter"))?
                .into_pointer_value();
            let i64_type = self.context.i64_type();
            let address = self.builder.build_ptr_to_int(pointer, i64_type, "")?;
            let mask = i64_type.const_int(alignment as u64 - 1, false);
            let low_bits = self.builder.build_and(address, mask, "")?;
            let aligned = self.builder.build_int_compare(
                inkwell::IntPredicate::EQ,
                low_bits,
                i64_type.const_zero(),
                "",
            )?;
            self.asserts.push(AssertInfo {
                kind: "ValueError".to_string(),
                message: format!(
                    "buffer `{}` must be aligned to {alignment} bytes; the pointer passed is not",
                    buffer.name()
                ),
                span: buffer.span(),
            });
            let code = self
                .context
                .i32_type()
                .const_int(self.asserts.len() as u64, false);
            self.return_code_unless(aligned, code)?;
        }
        Ok(())
    }

    /// Generates `func` as the exported function `symbol`, and its packed
    /// wrapper when `packed` is set.
    pub fn emit_kernel(
        &mut self,
        func: &PrimFunc,
        symbol: &str,
        packed: bool,
    ) -> CodegenResult<GeneratedKernel> {
        let signature = KernelSignature::of(func, symbol).map_err(CodegenError)?;
        if func.has_blocks() {
            return Err(CodegenError::unsupported(
                format!(
                    "function `{}` still has blocks: the LLVM backend takes lowered TIR (run `tirc lower` to see it)",
                    func.name
                ),
                func.span,
            ));
        }
        let parameter_types = signature
            .arguments
            .iter()
            .map(|a| self.argument_type(a).map(BasicMetadataTypeEnum::from))
            .collect::<CodegenResult<Vec<_>>>()?;
        let function_type = self.context.i32_type().fn_type(&parameter_types, false);
        if self.module.get_function(symbol).is_some() {
            return Err(CodegenError::unsupported(
                format!("two functions are exported as `{symbol}`"),
                func.span,
            ));
        }
        let function = self
            .module
            .add_function(symbol, function_type, Some(Linkage::External));
        self.apply_function_attributes(function);
        let noalias = is_noalias(func);
        let entry = self.context.append_basic_block(function, "entry");
        let body = self.context.append_basic_block(function, "body");
        self.builder.position_at_end(entry);
        self.builder.build_unconditional_branch(body)?;
        self.builder.position_at_end(body);

        let mut vars = VarMap::default();
        let mut data_alignment = VarMap::default();
        let noalias_kind = Attribute::get_named_enum_kind_id("noalias");
        for (position, argument) in signature.arguments.iter().enumerate() {
            let value = function
                .get_nth_param(position as u32)
                .ok_or_else(|| CodegenError::internal("missing parameter"))?;
            match argument {
                KernelArgument::Buffer { param, buffer } => {
                    value.set_name(buffer.name());
                    if noalias {
                        let attribute = self.context.create_enum_attribute(noalias_kind, 0);
                        function.add_attribute(AttributeLoc::Param(position as u32), attribute);
                    }
                    vars.insert(param.clone(), value);
                    vars.insert(buffer.data().clone(), value);
                    let alignment = u32::try_from(buffer.node().data_alignment)
                        .unwrap_or(1)
                        .max(1);
                    data_alignment.insert(buffer.data().clone(), alignment);
                }
                KernelArgument::Scalar { param } => {
                    value.set_name(param.name());
                    let converted = self.scalar_from_abi(value, param.dtype(), param.span())?;
                    vars.insert(param.clone(), converted);
                }
                KernelArgument::ShapeVar { var } => {
                    value.set_name(var.name());
                    let converted = self.cast(value, DataType::int64(), var.dtype(), var.span())?;
                    vars.insert(var.clone(), converted);
                }
            }
        }
        self.function = Some(FunctionState {
            value: function,
            entry,
            vars,
            data_alignment,
            known_multiples: Default::default(),
            heap_allocations: Vec::new(),
            in_parallel: false,
            noalias,
        });
        self.asserts.clear();
        self.vectorized_loops.clear();
        self.thread_bound_loops.clear();
        self.kernel_symbol = symbol.to_string();
        self.outlined_count = 0;
        self.thread_collective = thread_collective(&func.body);
        let result = self
            .check_argument_alignment(&signature)
            .and_then(|()| self.emit_stmt(&func.body));
        let finished = result.and_then(|()| {
            let zero = self.context.i32_type().const_zero();
            self.builder.build_return(Some(&zero))?;
            Ok(())
        });
        self.function = None;
        finished?;
        if packed {
            self.emit_packed_wrapper(function, &signature)?;
        }
        Ok(GeneratedKernel {
            signature,
            asserts: std::mem::take(&mut self.asserts),
            vectorized_loops: std::mem::take(&mut self.vectorized_loops),
            thread_bound_loops: std::mem::take(&mut self.thread_bound_loops),
        })
    }

    /// A scalar argument from its C form to its register form.
    fn scalar_from_abi(
        &self,
        value: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        Ok(match (dtype.code, dtype.bits) {
            (TypeCode::Bool, _) => self.cast(value, DataType::int(8), DataType::bool(), span)?,
            (TypeCode::Float, 16) => {
                self.builder
                    .build_bit_cast(value, self.context.f16_type(), "")?
            }
            _ => value,
        })
    }

    /// `i32 __tirc_packed_<symbol>(i64* slots)`: each slot holds one
    /// argument (pointers and integers as 64-bit integers, floats as their
    /// bits), so the runtime calls every kernel the same way.
    fn emit_packed_wrapper(
        &mut self,
        kernel: FunctionValue<'ctx>,
        signature: &KernelSignature,
    ) -> CodegenResult<()> {
        let i64_type = self.context.i64_type();
        let slots_type = i64_type.ptr_type(AddressSpace::default());
        let wrapper_type = self.context.i32_type().fn_type(&[slots_type.into()], false);
        let wrapper = self.module.add_function(
            &packed_symbol(&signature.symbol),
            wrapper_type,
            Some(Linkage::External),
        );
        self.apply_function_attributes(wrapper);
        let entry = self.context.append_basic_block(wrapper, "entry");
        self.builder.position_at_end(entry);
        let slots = wrapper
            .get_first_param()
            .ok_or_else(|| CodegenError::internal("missing slots parameter"))?
            .into_pointer_value();
        let mut arguments: Vec<BasicMetadataValueEnum> = Vec::new();
        for (position, parameter) in kernel.get_param_iter().enumerate() {
            let index = i64_type.const_int(position as u64, false);
            let address = super::raw::element_address(&self.builder, i64_type.into(), slots, index);
            let slot =
                super::raw::load(&self.builder, i64_type.into(), address, 8).into_int_value();
            let argument: BasicValueEnum = match parameter.get_type() {
                BasicTypeEnum::PointerType(pointer) => {
                    self.builder.build_int_to_ptr(slot, pointer, "")?.into()
                }
                BasicTypeEnum::IntType(int) => self
                    .builder
                    .build_int_truncate_or_bit_cast(slot, int, "")?
                    .into(),
                BasicTypeEnum::FloatType(float) => {
                    let bits = super::types::int_type(self.context, float.get_bit_width());
                    let narrow = self
                        .builder
                        .build_int_truncate_or_bit_cast(slot, bits, "")?;
                    self.builder.build_bit_cast(narrow, float, "")?
                }
                other => {
                    return Err(CodegenError::internal(format!(
                        "unexpected parameter type {other:?}"
                    )))
                }
            };
            arguments.push(argument.into());
        }
        let call = self.builder.build_call(kernel, &arguments, "")?;
        let code = call
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::internal("the kernel returned nothing"))?;
        self.builder
            .build_return(Some(&code.as_basic_value_enum()))?;
        Ok(())
    }
}

/// The builtin by which the threads of `body` wait for one another, if any.
fn thread_collective(body: &crate::ir::Stmt) -> Option<&'static str> {
    let mut found = None;
    crate::ir::visit::walk_exprs_in_stmt(body, &mut |expr| {
        if let crate::ir::ExprKind::Call { op, .. } = expr.kind() {
            if let Some(name) = crate::ir::builtin::THREAD_COLLECTIVES
                .iter()
                .find(|name| **name == op.name())
            {
                found = Some(*name);
            }
        }
    });
    found
}
