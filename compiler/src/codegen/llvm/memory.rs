//! Buffer memory: element addresses, loads and stores (contiguous vectors,
//! gathers and scatters), their alignment, and allocations on the stack or
//! the heap.
//!
//! Lowered TIR indexes flat buffers; an N-d buffer that is still indexed
//! with N indices is flattened here with its strides (row-major when it has
//! none), so hand-written low-level functions run too.

use super::context::{Codegen, CodegenError, CodegenResult};
use super::raw::{self, Opcode};
use super::types::{memory_bytes, memory_type, pointer_to, vector_of};
use crate::ir::{BinaryOp, Buffer, BufferLoad, DataType, Expr, ExprKind, Var};
use crate::source::Span;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::AddressSpace;

/// Allocations up to this many bytes with a constant size live on the stack
/// (in the function's entry block, so loops do not grow the stack); larger
/// or symbolic ones on the heap. Worker threads get stacks big enough.
pub const MAX_STACK_ALLOCATION: u64 = 256 * 1024;

/// The runtime function large allocations come from: `i8* (i64 bytes)`,
/// 64-byte aligned. Like TVM's `TVMBackendAllocWorkspace`, it reuses freed
/// blocks, so a kernel run many times does not fault its pages in each time.
pub const WORKSPACE_ALLOCATE_SYMBOL: &str = "tirc_workspace_allocate";

/// The runtime function that takes a workspace block back: `void (i8*)`.
pub const WORKSPACE_FREE_SYMBOL: &str = "tirc_workspace_free";

/// Alignment of every allocation tirc makes, as TVM's `kAllocAlignment`.
pub const ALLOCATION_ALIGNMENT: u32 = 64;

/// A flat index: one element, a contiguous run, or any vector of indices.
enum FlatIndex {
    /// A scalar index.
    Scalar(Expr),
    /// `base, base + 1, ..., base + lanes - 1`.
    Contiguous {
        /// The first index.
        base: Expr,
        /// The number of elements.
        lanes: u16,
    },
    /// The same element in every lane.
    Broadcast {
        /// The index.
        index: Expr,
        /// The number of lanes.
        lanes: u16,
    },
    /// Arbitrary indices (a gather or a scatter).
    Vector(Expr),
}

fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// `expr` converted to the scalar integer type `dtype`.
fn as_index(expr: &Expr, dtype: DataType) -> Expr {
    Expr::cast(dtype.with_lanes(expr.dtype().lanes), expr.clone())
}

/// The type element offsets are computed in: 64-bit, the width of an address.
const ADDRESS_INDEX: DataType = DataType::int64();

/// `index` as a 64-bit element offset. Sums, differences and products of
/// int32 terms (whose overflow is undefined already: they carry `nsw`) are
/// widened term by term, so LLVM sees each sign-extended loop variable
/// rather than one sign-extended sum, which hides the induction variables
/// from scalar evolution: on the conv2d example's padding loop that cost
/// loop strength reduction alone about 45 ms. Anything else is extended as
/// a whole; divisions stay 32-bit, where they are cheaper.
fn widen_index(index: &Expr) -> Expr {
    let dtype = index.dtype();
    let wide = ADDRESS_INDEX.with_lanes(dtype.lanes);
    if dtype != DataType::int32().with_lanes(dtype.lanes) {
        return Expr::cast(wide, index.clone());
    }
    match index.kind() {
        ExprKind::Int(value) => Expr::int(*value, wide),
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), a, b) => {
            binary(*op, widen_index(a), widen_index(b))
        }
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } => Expr::new(
            ExprKind::Ramp {
                base: widen_index(base),
                stride: widen_index(stride),
                lanes: *lanes,
            },
            wide,
            index.span(),
        ),
        ExprKind::Broadcast { value, lanes } => Expr::new(
            ExprKind::Broadcast {
                value: widen_index(value),
                lanes: *lanes,
            },
            wide,
            index.span(),
        ),
        _ => Expr::cast(wide, index.clone()),
    }
}

impl<'ctx> Codegen<'ctx> {
    /// The flat element index of `indices` into `buffer`, offset included.
    fn flat_index(
        &self,
        buffer: &Buffer,
        indices: &[Expr],
        span: Span,
    ) -> CodegenResult<FlatIndex> {
        let node = buffer.node();
        let index_type = ADDRESS_INDEX;
        // The last index may be a vector; every other must be a scalar.
        let (last, leading) = match indices.split_last() {
            Some(split) => split,
            None => return Ok(FlatIndex::Scalar(widen_index(&node.elem_offset))),
        };
        if leading.iter().any(|i| i.dtype().is_vector()) {
            return Err(CodegenError::unsupported(
                format!(
                    "buffer `{}` is indexed with a vector before its last dimension; flatten it first",
                    buffer.name()
                ),
                span,
            ));
        }
        let strides: Vec<Expr> = if node.strides.is_empty() {
            let mut strides = vec![Expr::int(1, index_type); indices.len()];
            for dimension in (0..indices.len().saturating_sub(1)).rev() {
                let extent = node
                    .shape
                    .get(dimension + 1)
                    .cloned()
                    .unwrap_or_else(|| Expr::int(1, index_type));
                strides[dimension] = binary(
                    BinaryOp::Mul,
                    strides[dimension + 1].clone(),
                    widen_index(&extent),
                );
            }
            strides
        } else {
            node.strides.iter().map(widen_index).collect()
        };
        if strides.len() != indices.len() {
            return Err(CodegenError::unsupported(
                format!(
                    "buffer `{}` has {} strides but is indexed with {} indices",
                    buffer.name(),
                    strides.len(),
                    indices.len()
                ),
                span,
            ));
        }
        let mut scalar_part = widen_index(&node.elem_offset);
        for (index, stride) in leading.iter().zip(&strides) {
            let term = binary(BinaryOp::Mul, widen_index(index), stride.clone());
            scalar_part = binary(BinaryOp::Add, scalar_part, term);
        }
        let last_stride = strides
            .last()
            .cloned()
            .unwrap_or_else(|| Expr::int(1, index_type));
        let offset_is_zero = scalar_part.is_int(0);
        let stride_is_one = last_stride.is_int(1);
        let plus_offset = |e: Expr| {
            if offset_is_zero {
                e
            } else {
                binary(BinaryOp::Add, scalar_part.clone(), e)
            }
        };
        let times_stride = |e: Expr| {
            if stride_is_one {
                e
            } else {
                binary(BinaryOp::Mul, e, last_stride.clone())
            }
        };
        Ok(match last.kind() {
            _ if last.dtype().is_scalar() => {
                FlatIndex::Scalar(plus_offset(times_stride(widen_index(last))))
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } if stride_is_one && stride.is_int(1) => FlatIndex::Contiguous {
                base: plus_offset(widen_index(base)),
                lanes: *lanes,
            },
            ExprKind::Broadcast { value, lanes } => FlatIndex::Broadcast {
                index: plus_offset(times_stride(widen_index(value))),
                lanes: *lanes,
            },
            _ => {
                let lanes = last.dtype().lanes;
                let vector_type = index_type.with_lanes(lanes);
                let mut flat = widen_index(last);
                if !stride_is_one {
                    flat = binary(
                        BinaryOp::Mul,
                        flat,
                        Expr::new(
                            ExprKind::Broadcast {
                                value: last_stride.clone(),
                                lanes,
                            },
                            vector_type,
                            Span::NONE,
                        ),
                    );
                }
                if !offset_is_zero {
                    flat = binary(
                        BinaryOp::Add,
                        Expr::new(
                            ExprKind::Broadcast {
                                value: scalar_part.clone(),
                                lanes,
                            },
                            vector_type,
                            Span::NONE,
                        ),
                        flat,
                    );
                }
                FlatIndex::Vector(flat)
            }
        })
    }

    /// The storage of `buffer` as a pointer to its memory element type.
    fn typed_data(
        &self,
        buffer: &Buffer,
        span: Span,
    ) -> CodegenResult<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)> {
        let data = self.buffer_data(buffer, span)?;
        let element = memory_type(self.context, buffer.dtype(), span)?;
        let wanted = pointer_to(element);
        let pointer = if data.get_type() == wanted {
            data
        } else {
            self.builder.build_pointer_cast(data, wanted, "")?
        };
        Ok((pointer, element))
    }

    /// The alignment in bytes of an access of `access_bytes` at element
    /// `index` of `buffer`: what the storage's alignment and the index's
    /// known divisor guarantee, at least the element's own.
    fn access_alignment(&self, buffer: &Buffer, index: &Expr, access_bytes: u32) -> u32 {
        let element_bytes = memory_bytes(buffer.dtype()).max(1);
        let natural = 1u32 << element_bytes.trailing_zeros().min(6);
        let storage = self
            .function
            .as_ref()
            .and_then(|state| state.data_alignment.get(buffer.data()).copied())
            .unwrap_or(natural);
        let offset_bytes =
            (self.known_multiple(index).max(1) as u64).saturating_mul(u64::from(element_bytes));
        let offset_alignment = 1u64 << offset_bytes.trailing_zeros().min(12);
        let access = u64::from(access_bytes.next_power_of_two());
        let alignment = u64::from(storage)
            .min(offset_alignment)
            .min(access.max(u64::from(natural)));
        (alignment as u32).max(natural).max(1)
    }

    fn element_pointer(
        &mut self,
        pointer: PointerValue<'ctx>,
        element: BasicTypeEnum<'ctx>,
        index: &Expr,
    ) -> CodegenResult<PointerValue<'ctx>> {
        let index_value = self.emit_expr(index)?.into_int_value();
        Ok(raw::element_address(
            &self.builder,
            element,
            pointer,
            index_value,
        ))
    }

    /// The address, vector type and alignment of a contiguous access of
    /// `lanes` elements of `buffer` from element `base`.
    fn vector_access(
        &mut self,
        buffer: &Buffer,
        pointer: PointerValue<'ctx>,
        element: BasicTypeEnum<'ctx>,
        base: &Expr,
        lanes: u16,
    ) -> CodegenResult<(PointerValue<'ctx>, BasicTypeEnum<'ctx>, u32)> {
        let address = self.element_pointer(pointer, element, base)?;
        let vector_type = vector_of(element, u32::from(lanes))?;
        let vector_pointer =
            self.builder
                .build_pointer_cast(address, pointer_to(vector_type), "")?;
        let alignment = self.access_alignment(
            buffer,
            base,
            memory_bytes(buffer.dtype()) * u32::from(lanes),
        );
        Ok((vector_pointer, vector_type, alignment))
    }

    /// A value loaded from memory in its register form (bool bytes to `i1`).
    fn register_form(
        &self,
        value: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if !dtype.is_bool() {
            return Ok(value);
        }
        let zero = self.const_int(DataType::int(8).with_lanes(dtype.lanes), 0, span)?;
        Ok(raw::int_compare(
            &self.builder,
            raw::IntPredicate::LLVMIntNE,
            value,
            zero,
        ))
    }

    /// A register value in its memory form (`i1` to a byte).
    fn memory_form(
        &self,
        value: BasicValueEnum<'ctx>,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        if !dtype.is_bool() {
            return Ok(value);
        }
        let byte = self.llvm_type(DataType::int(8).with_lanes(dtype.lanes), span)?;
        Ok(raw::cast(&self.builder, Opcode::LLVMZExt, value, byte))
    }

    /// `buffer[indices]`, a scalar or a vector of `dtype`.
    pub fn emit_load(
        &mut self,
        load: &BufferLoad,
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let buffer = &load.buffer;
        let (pointer, element) = self.typed_data(buffer, span)?;
        let element_dtype = buffer.dtype();
        match self.flat_index(buffer, &load.indices, span)? {
            FlatIndex::Scalar(index) => {
                let address = self.element_pointer(pointer, element, &index)?;
                let alignment = self.access_alignment(buffer, &index, memory_bytes(element_dtype));
                let value = raw::load(&self.builder, element, address, alignment);
                self.register_form(value, element_dtype, span)
            }
            FlatIndex::Contiguous { base, lanes } => {
                let (vector_pointer, vector_type, alignment) =
                    self.vector_access(buffer, pointer, element, &base, lanes)?;
                let value = raw::load(&self.builder, vector_type, vector_pointer, alignment);
                self.register_form(value, element_dtype.with_lanes(lanes), span)
            }
            FlatIndex::Broadcast { index, lanes } => {
                let address = self.element_pointer(pointer, element, &index)?;
                let alignment = self.access_alignment(buffer, &index, memory_bytes(element_dtype));
                let value = raw::load(&self.builder, element, address, alignment);
                let value = self.register_form(value, element_dtype, span)?;
                self.splat(value, lanes)
            }
            FlatIndex::Vector(indices) => {
                let indices_value = self.emit_expr(&indices)?.into_vector_value();
                let natural = memory_bytes(element_dtype).max(1);
                let natural = 1u32 << natural.trailing_zeros().min(6);
                let vector_type = self.llvm_type(dtype, span)?.into_vector_type();
                let mut vector = vector_type.get_undef();
                for lane in 0..u32::from(indices.dtype().lanes) {
                    let position = self.context.i32_type().const_int(u64::from(lane), false);
                    let index = self
                        .builder
                        .build_extract_element(indices_value, position, "")?
                        .into_int_value();
                    let address = raw::element_address(&self.builder, element, pointer, index);
                    let value = raw::load(&self.builder, element, address, natural);
                    let value = self.register_form(value, element_dtype, span)?;
                    vector = self
                        .builder
                        .build_insert_element(vector, value, position, "")?;
                }
                Ok(vector.as_basic_value_enum())
            }
        }
    }

    /// `buffer[indices] = value`.
    pub fn emit_store(
        &mut self,
        buffer: &Buffer,
        value: &Expr,
        indices: &[Expr],
        span: Span,
    ) -> CodegenResult<()> {
        let (pointer, element) = self.typed_data(buffer, span)?;
        let element_dtype = buffer.dtype();
        let flat = self.flat_index(buffer, indices, span)?;
        let stored_lanes = match &flat {
            FlatIndex::Scalar(_) => element_dtype.lanes,
            FlatIndex::Contiguous { lanes, .. } | FlatIndex::Broadcast { lanes, .. } => *lanes,
            FlatIndex::Vector(indices) => indices.dtype().lanes,
        };
        let target_dtype = element_dtype
            .element_of()
            .with_lanes(stored_lanes.max(element_dtype.lanes));
        let computed = self.emit_expr(value)?;
        let computed = self.cast(computed, value.dtype(), target_dtype, span)?;
        match flat {
            FlatIndex::Scalar(index) => {
                let address = self.element_pointer(pointer, element, &index)?;
                let alignment = self.access_alignment(buffer, &index, memory_bytes(element_dtype));
                let stored = self.memory_form(computed, element_dtype, span)?;
                self.builder
                    .build_store(address, stored)?
                    .set_alignment(alignment)
                    .map_err(|e| CodegenError::internal(e.to_string()))?;
            }
            FlatIndex::Contiguous { base, lanes } => {
                let (vector_pointer, _, alignment) =
                    self.vector_access(buffer, pointer, element, &base, lanes)?;
                let stored = self.memory_form(computed, target_dtype, span)?;
                self.builder
                    .build_store(vector_pointer, stored)?
                    .set_alignment(alignment)
                    .map_err(|e| CodegenError::internal(e.to_string()))?;
            }
            FlatIndex::Broadcast { index, lanes } => {
                // Every lane writes the same element; the last lane wins.
                let address = self.element_pointer(pointer, element, &index)?;
                let stored = self.memory_form(computed, target_dtype, span)?;
                let last = self
                    .context
                    .i32_type()
                    .const_int(u64::from(lanes) - 1, false);
                let lane =
                    self.builder
                        .build_extract_element(stored.into_vector_value(), last, "")?;
                self.builder.build_store(address, lane)?;
            }
            FlatIndex::Vector(indices) => {
                let indices_value = self.emit_expr(&indices)?.into_vector_value();
                let stored = self
                    .memory_form(computed, target_dtype, span)?
                    .into_vector_value();
                for lane in 0..u32::from(indices.dtype().lanes) {
                    let position = self.context.i32_type().const_int(u64::from(lane), false);
                    let index = self
                        .builder
                        .build_extract_element(indices_value, position, "")?
                        .into_int_value();
                    let address = raw::element_address(&self.builder, element, pointer, index);
                    let value = self.builder.build_extract_element(stored, position, "")?;
                    self.builder.build_store(address, value)?;
                }
            }
        }
        Ok(())
    }

    /// The address of `buffer[indices]` as an `i8*` (for `T.address_of`).
    pub fn emit_address_of(
        &mut self,
        buffer: &Buffer,
        indices: &[Expr],
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let (pointer, element) = self.typed_data(buffer, span)?;
        let index = match self.flat_index(buffer, indices, span)? {
            FlatIndex::Scalar(index) | FlatIndex::Contiguous { base: index, .. } => index,
            _ => {
                return Err(CodegenError::unsupported(
                    "the address of a gathered vector",
                    span,
                ))
            }
        };
        let address = self.element_pointer(pointer, element, &index)?;
        let byte_pointer = self.context.i8_type().ptr_type(AddressSpace::default());
        Ok(self
            .builder
            .build_pointer_cast(address, byte_pointer, "")?
            .as_basic_value_enum())
    }

    /// Storage for `count` elements of `dtype`, bound to `data`: on the stack
    /// when small and constant, else from the runtime's workspace (the caller frees
    /// it with [`Codegen::free_heap`] when the scope ends). Returns whether
    /// it is on the heap.
    pub fn allocate(
        &mut self,
        data: &Var,
        dtype: DataType,
        count: &Expr,
        span: Span,
    ) -> CodegenResult<Option<PointerValue<'ctx>>> {
        let element = memory_type(self.context, dtype, span)?;
        let element_bytes = u64::from(memory_bytes(dtype));
        let constant = count.as_int().filter(|n| *n >= 0).map(|n| n as u64);
        let (pointer, heap) = match constant {
            Some(elements) if elements.saturating_mul(element_bytes) <= MAX_STACK_ALLOCATION => {
                let entry = self.current()?.entry;
                let entry_builder = self.context.create_builder();
                match entry.get_terminator() {
                    Some(terminator) => entry_builder.position_before(&terminator),
                    None => entry_builder.position_at_end(entry),
                }
                let length = elements.max(1) as u32;
                let array_type = match element {
                    BasicTypeEnum::IntType(t) => t.array_type(length),
                    BasicTypeEnum::FloatType(t) => t.array_type(length),
                    BasicTypeEnum::VectorType(t) => t.array_type(length),
                    BasicTypeEnum::PointerType(t) => t.array_type(length),
                    other => {
                        return Err(CodegenError::internal(format!("cannot allocate {other:?}")))
                    }
                };
                let allocation = entry_builder.build_alloca(array_type, data.name())?;
                allocation
                    .as_instruction_value()
                    .map(|i| i.set_alignment(ALLOCATION_ALIGNMENT))
                    .transpose()
                    .map_err(|e| CodegenError::internal(e.to_string()))?;
                let pointer =
                    self.builder
                        .build_pointer_cast(allocation, pointer_to(element), "")?;
                (pointer, false)
            }
            _ => {
                let count_value = self.emit_expr(count)?.into_int_value();
                let i64_type = self.context.i64_type();
                let count_value =
                    self.builder
                        .build_int_s_extend_or_bit_cast(count_value, i64_type, "")?;
                let bytes = self.builder.build_int_mul(
                    count_value,
                    i64_type.const_int(element_bytes, false),
                    "",
                )?;
                // Whole alignment units, as aligned_alloc wants them.
                let round = i64_type.const_int(u64::from(ALLOCATION_ALIGNMENT) - 1, false);
                let bytes = self.builder.build_int_add(bytes, round, "")?;
                let bytes = self.builder.build_and(bytes, round.const_not(), "")?;
                let raw_pointer = self.call_runtime_allocate(bytes)?;
                let pointer =
                    self.builder
                        .build_pointer_cast(raw_pointer, pointer_to(element), "")?;
                self.current_mut()?.heap_allocations.push(raw_pointer);
                (pointer, true)
            }
        };
        self.bind(data, pointer.as_basic_value_enum())?;
        self.current_mut()?
            .data_alignment
            .insert(data.clone(), ALLOCATION_ALIGNMENT);
        Ok(heap.then_some(pointer))
    }

    fn call_runtime_allocate(&self, bytes: IntValue<'ctx>) -> CodegenResult<PointerValue<'ctx>> {
        let i64_type = self.context.i64_type();
        let byte_pointer = self.context.i8_type().ptr_type(AddressSpace::default());
        let function = self
            .module
            .get_function(WORKSPACE_ALLOCATE_SYMBOL)
            .unwrap_or_else(|| {
                self.module.add_function(
                    WORKSPACE_ALLOCATE_SYMBOL,
                    byte_pointer.fn_type(&[i64_type.into()], false),
                    None,
                )
            });
        let call = self.builder.build_call(function, &[bytes.into()], "")?;
        call.try_as_basic_value()
            .basic()
            .map(|v| v.into_pointer_value())
            .ok_or_else(|| CodegenError::internal("the workspace allocation returned nothing"))
    }

    /// Frees the most recent heap allocation (the scope that made it ended).
    pub fn free_heap(&mut self) -> CodegenResult<()> {
        let Some(pointer) = self.current_mut()?.heap_allocations.pop() else {
            return Ok(());
        };
        self.call_free(pointer)
    }

    /// Gives a heap allocation back to the runtime's workspace pool.
    pub fn call_free(&self, pointer: PointerValue<'ctx>) -> CodegenResult<()> {
        let byte_pointer = self.context.i8_type().ptr_type(AddressSpace::default());
        let function = self
            .module
            .get_function(WORKSPACE_FREE_SYMBOL)
            .unwrap_or_else(|| {
                self.module.add_function(
                    WORKSPACE_FREE_SYMBOL,
                    self.context
                        .void_type()
                        .fn_type(&[byte_pointer.into()], false),
                    None,
                )
            });
        self.builder.build_call(function, &[pointer.into()], "")?;
        Ok(())
    }

    /// The element count of an allocated buffer: the product of its shape.
    pub fn buffer_element_count(buffer: &Buffer) -> Expr {
        let shape = buffer.shape();
        let index_type = shape
            .first()
            .map(|e| e.dtype())
            .unwrap_or(DataType::int32());
        shape
            .iter()
            .map(|extent| as_index(extent, index_type))
            .reduce(|a, b| binary(BinaryOp::Mul, a, b))
            .unwrap_or_else(|| Expr::int(1, index_type))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Expr {
        Expr::var(&Var::new(name, DataType::int32(), Span::NONE))
    }

    #[test]
    fn affine_int32_index_is_widened_term_by_term() {
        // i * 56 + j - 57: every variable is extended, every operation is 64-bit.
        let index = binary(
            BinaryOp::Sub,
            binary(
                BinaryOp::Add,
                binary(BinaryOp::Mul, var("i"), Expr::int(56, DataType::int32())),
                var("j"),
            ),
            Expr::int(57, DataType::int32()),
        );
        let wide = widen_index(&index);
        assert_eq!(wide.dtype(), DataType::int64());
        let ExprKind::Binary(BinaryOp::Sub, sum, constant) = wide.kind() else {
            panic!("expected a 64-bit subtraction, got {wide:?}");
        };
        assert_eq!(constant.dtype(), DataType::int64());
        let ExprKind::Binary(BinaryOp::Add, product, j) = sum.kind() else {
            panic!("expected a 64-bit sum, got {sum:?}");
        };
        assert!(matches!(j.kind(), ExprKind::Cast(inner) if inner.dtype() == DataType::int32()));
        assert_eq!(product.dtype(), DataType::int64());
    }

    #[test]
    fn division_and_narrow_types_are_extended_whole() {
        let quotient = binary(
            BinaryOp::FloorDiv,
            var("f"),
            Expr::int(8, DataType::int32()),
        );
        let wide = widen_index(&quotient);
        assert!(matches!(wide.kind(), ExprKind::Cast(inner) if inner.same_as(&quotient)));
        let narrow = Expr::var(&Var::new("s", DataType::int(16), Span::NONE));
        let sum = binary(BinaryOp::Add, narrow.clone(), narrow);
        assert!(matches!(widen_index(&sum).kind(), ExprKind::Cast(inner) if inner.same_as(&sum)));
    }
}
