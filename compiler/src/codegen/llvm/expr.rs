//! Expressions: literals, variables, arithmetic, vectors, lets and selects.
//! Loads are in `memory`, calls in `intrinsics`.

use super::context::{Codegen, CodegenError, CodegenResult};
use crate::ir::{BinaryOp, Expr, ExprKind};
use inkwell::values::{BasicValue, BasicValueEnum};

/// True for types whose multiply-add LLVM may fuse (IEEE floats; bfloat16
/// computes through float32 conversions of its own).
fn is_contractible(dtype: crate::ir::DataType) -> bool {
    dtype.code == crate::ir::TypeCode::Float
}

/// The widest vector the LLVM backend emits: LLVM 14 aborts while
/// selecting instructions for vectors of more than 32768 lanes.
pub const MAX_VECTOR_LANES: u16 = 32768;

impl<'ctx> Codegen<'ctx> {
    /// The value of an expression.
    pub fn emit_expr(&mut self, expr: &Expr) -> CodegenResult<BasicValueEnum<'ctx>> {
        self.emit_expr_kind(expr)
            .map_err(|error| error.or_at(expr.span()))
    }

    fn emit_expr_kind(&mut self, expr: &Expr) -> CodegenResult<BasicValueEnum<'ctx>> {
        let dtype = expr.dtype();
        let span = expr.span();
        if dtype.lanes > MAX_VECTOR_LANES {
            return Err(CodegenError::unsupported(
                format!(
                    "the LLVM backend handles vectors of at most {MAX_VECTOR_LANES} lanes, not {}",
                    dtype.lanes
                ),
                span,
            ));
        }
        match expr.kind() {
            ExprKind::Int(value) => self.const_int(dtype, *value, span),
            ExprKind::Float(value) => self.const_float(dtype, *value, span),
            ExprKind::Str(text) => Err(CodegenError::unsupported(
                format!("the string \"{text}\" can only be the name in an extern call"),
                span,
            )),
            ExprKind::Var(var) => self.var_value(var, span),
            ExprKind::Cast(value) => {
                let converted = self.emit_expr(value)?;
                self.cast(converted, value.dtype(), dtype, span)
            }
            ExprKind::Binary(BinaryOp::Add, a, b) if is_contractible(dtype) => {
                match (a.kind(), b.kind()) {
                    (ExprKind::Binary(BinaryOp::Mul, x, y), _) if a.dtype() == dtype => self.emit_multiply_add(x, y, b, dtype),
                    (_, ExprKind::Binary(BinaryOp::Mul, x, y)) if b.dtype() == dtype => self.emit_multiply_add(x, y, a, dtype),
                    _ => self.emit_binary(BinaryOp::Add, a, b),
                }
            }
            ExprKind::Binary(op, a, b) => self.emit_binary(*op, a, b),
            ExprKind::Not(value) => {
                let value = self.emit_expr(value)?;
                let all_true = self.const_int(dtype, 1, span)?;
                Ok(super::raw::binary(
                    &self.builder,
                    super::raw::Opcode::LLVMXor,
                    value,
                    all_true,
                ))
            }
            ExprKind::Select(condition, a, b) => {
                let condition_value = self.emit_expr(condition)?;
                let a_value = self.emit_expr(a)?;
                let b_value = self.emit_expr(b)?;
                let a_value = self.cast(a_value, a.dtype(), dtype, span)?;
                let b_value = self.cast(b_value, b.dtype(), dtype, span)?;
                self.select(condition_value, a_value, b_value)
            }
            ExprKind::Load(load) => self.emit_load(load, dtype, span),
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let base_value = self.emit_expr(base)?;
                let stride_value = self.emit_expr(stride)?;
                let element = base.dtype();
                let lane_numbers: Vec<_> = (0..u64::from(*lanes))
                    .map(|lane| {
                        self.llvm_type(element, span)
                            .map(|t| t.into_int_type().const_int(lane, false))
                    })
                    .collect::<CodegenResult<_>>()?;
                let offsets = inkwell::types::VectorType::const_vector(&lane_numbers);
                let bases = self.splat(base_value, *lanes)?;
                let strides = self.splat(stride_value, *lanes)?;
                let vector = element.with_lanes(*lanes);
                let steps =
                    self.binary(BinaryOp::Mul, offsets.as_basic_value_enum(), strides, vector, span)?;
                self.binary(BinaryOp::Add, bases, steps, vector, span)
            }
            ExprKind::Broadcast { value, lanes } => {
                let scalar = self.emit_expr(value)?;
                self.splat(scalar, *lanes)
            }
            ExprKind::Let { var, value, body } => {
                let bound = self.emit_expr(value)?;
                let multiple = self.known_multiple(value);
                self.bind(var, bound)?;
                self.current_mut()?
                    .known_multiples
                    .insert(var.clone(), multiple);
                self.emit_expr(body)
            }
            ExprKind::Call { op, args } => self.emit_call(*op, args, dtype, span),
            ExprKind::CallFunction { name, .. } => Err(CodegenError::unsupported(
                format!("calls between functions of a module (`{name}`) are not supported by the LLVM backend"),
                span,
            )),
            ExprKind::Shuffle { vectors, indices } => self.emit_shuffle(vectors, indices, expr),
        }
    }

    /// `x * y + z` as `llvm.fmuladd`: LLVM fuses it into one FMA where the
    /// target has one, as TVM allows (its LLVM targets contract by default)
    /// and as C compilers do under `-ffp-contract=on`.
    fn emit_multiply_add(
        &mut self,
        x: &Expr,
        y: &Expr,
        z: &Expr,
        dtype: crate::ir::DataType,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let span = x.span().to(z.span());
        let lanes = dtype.lanes;
        let mut operands = Vec::with_capacity(3);
        for operand in [x, y, z] {
            let value = self.emit_expr(operand)?;
            operands.push(self.cast(
                value,
                operand.dtype(),
                dtype.element_of().with_lanes(lanes),
                span,
            )?);
        }
        self.call_float_intrinsic("llvm.fmuladd", &operands, dtype, span)
    }

    fn emit_binary(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let span = a.span().to(b.span());
        // Operands have one type; a scalar next to a vector is broadcast.
        let lanes = a.dtype().lanes.max(b.dtype().lanes);
        let operand_type = a.dtype().with_lanes(lanes);
        let a_value = self.emit_expr(a)?;
        let a_value = self.splat(a_value, lanes)?;
        let b_value = self.emit_expr(b)?;
        let b_value = self.cast(b_value, b.dtype(), b.dtype().with_lanes(lanes), span)?;
        let b_value = if b.dtype().element_of() != operand_type.element_of() {
            self.cast(b_value, b.dtype().with_lanes(lanes), operand_type, span)?
        } else {
            b_value
        };
        self.binary(op, a_value, b_value, operand_type, span)
    }

    /// Lanes picked from the concatenation of `vectors` by constant indices.
    fn emit_shuffle(
        &mut self,
        vectors: &[Expr],
        indices: &[Expr],
        expr: &Expr,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let span = expr.span();
        let mut lanes = Vec::new();
        for vector in vectors {
            let value = self.emit_expr(vector)?;
            match value {
                BasicValueEnum::VectorValue(v) => {
                    for lane in 0..v.get_type().get_size() {
                        let position = self.context.i32_type().const_int(u64::from(lane), false);
                        lanes.push(self.builder.build_extract_element(v, position, "")?);
                    }
                }
                scalar => lanes.push(scalar),
            }
        }
        let mut picked = Vec::new();
        for index in indices {
            let position = index.as_int().ok_or_else(|| {
                CodegenError::unsupported("shuffle indices must be constants", index.span())
            })?;
            let lane = usize::try_from(position)
                .ok()
                .and_then(|p| lanes.get(p).copied())
                .ok_or_else(|| {
                    CodegenError::unsupported(
                        format!(
                            "shuffle index {position} is outside the {} lanes",
                            lanes.len()
                        ),
                        index.span(),
                    )
                })?;
            picked.push(lane);
        }
        if picked.len() == 1 {
            return Ok(picked[0]);
        }
        let vector_type = self.llvm_type(expr.dtype(), span)?.into_vector_type();
        let mut vector = vector_type.get_undef();
        for (lane, value) in picked.into_iter().enumerate() {
            let position = self.context.i32_type().const_int(lane as u64, false);
            vector = self
                .builder
                .build_insert_element(vector, value, position, "")?;
        }
        Ok(vector.as_basic_value_enum())
    }
}
