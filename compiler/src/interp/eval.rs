//! Expression evaluation: literals, variables, casts, operators, loads,
//! vectors (`Ramp`, `Broadcast`, `Shuffle`), `Let`, and calls of builtins.
//!
//! Evaluation order matters only where it is observable: `and`/`or` on
//! scalars short-circuit, `T.Select` evaluates both values, and
//! `T.if_then_else` evaluates only the chosen one (with a vector condition,
//! both when its lanes disagree).

use super::error::{InterpError, InterpResult};
use super::layout::{decode_element, encode_element};
use super::machine::Interpreter;
use super::math::{evaluate_math_builtin, is_math_builtin};
use super::operations::{binary, logical_not, select};
use super::value::{scalar_truth, ElementType, Scalar, Value};
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Op};

impl Interpreter<'_> {
    /// The value of `expr`; an error carries the span of the innermost node
    /// at fault that has one.
    pub fn eval(&mut self, expr: &Expr) -> InterpResult<Value> {
        self.eval_kind(expr)
            .map_err(|error| error.or_at(expr.span()))
    }

    fn eval_kind(&mut self, expr: &Expr) -> InterpResult<Value> {
        match expr.kind() {
            ExprKind::Var(var) => self.lookup(var).cloned(),
            ExprKind::Int(value) => Value::int(expr.dtype(), *value),
            ExprKind::Float(value) => Value::float(expr.dtype(), *value),
            ExprKind::Str(text) => Err(InterpError::new(format!(
                "the string \"{text}\" is not a value the interpreter computes with"
            ))),
            ExprKind::Cast(value) => self.eval(value)?.cast(expr.dtype()),
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) => {
                self.eval_logical(*op, a, b)
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                binary(*op, &a, &b)
            }
            ExprKind::Not(value) => logical_not(&self.eval(value)?),
            ExprKind::Select(condition, a, b) => {
                let condition = self.eval(condition)?;
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                select(&condition, &a, &b)
            }
            ExprKind::Load(load) => self.load(&load.buffer, &load.indices),
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => self.eval_ramp(base, stride, *lanes),
            ExprKind::Broadcast { value, lanes } => {
                let value = self.eval(value)?;
                let scalar = value.scalar()?;
                Ok(Value::from_canonical_lanes(
                    value.dtype(),
                    vec![scalar; *lanes as usize],
                ))
            }
            ExprKind::Let { var, value, body } => {
                let value = self.eval(value)?;
                let saved = self.bind(var, value);
                let result = self.eval(body)?;
                self.restore(saved);
                Ok(result)
            }
            ExprKind::Call { op, args } => self.eval_call(*op, args, expr.dtype()),
            ExprKind::Shuffle { vectors, indices } => self.eval_shuffle(vectors, indices),
            ExprKind::CallFunction { name, .. } => Err(InterpError::new(format!(
                "the interpreter does not support calls between functions (`{name}` is called here)"
            ))),
        }
    }

    /// `a and b` / `a or b`: a scalar left side that decides the result
    /// leaves the right side unevaluated, as in C and Python.
    fn eval_logical(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> InterpResult<Value> {
        let left = self.eval(a)?;
        if left.lane_count() == 1 {
            let truth = scalar_truth(left.scalar()?, left.dtype())?;
            if truth == (op == BinaryOp::Or) {
                return Ok(Value::bool(truth));
            }
        }
        let right = self.eval(b)?;
        binary(op, &left, &right)
    }

    /// `T.Ramp(base, stride, lanes)`: `base + k * stride` for each lane `k`,
    /// in the type of `base` (wrapping like any integer arithmetic).
    fn eval_ramp(&mut self, base: &Expr, stride: &Expr, lanes: u16) -> InterpResult<Value> {
        let base = self.eval(base)?;
        let stride = self.eval(stride)?;
        let element = base.dtype().element_of();
        let mut values = Vec::with_capacity(lanes as usize);
        for lane in 0..lanes {
            let step = binary(BinaryOp::Mul, &stride, &Value::int(element, lane as i64)?)?;
            values.push(binary(BinaryOp::Add, &base, &step)?.scalar()?);
        }
        Ok(Value::from_canonical_lanes(element, values))
    }

    /// `T.Shuffle(vectors, indices)`: lanes picked from the concatenation.
    fn eval_shuffle(&mut self, vectors: &[Expr], indices: &[Expr]) -> InterpResult<Value> {
        let mut pool: Vec<Scalar> = Vec::new();
        let mut element: Option<DataType> = None;
        for vector in vectors {
            let value = self.eval(vector)?;
            let this_element = value.dtype().element_of();
            if element.is_some_and(|first| first != this_element) {
                return Err(InterpError::new(format!(
                    "`T.Shuffle` mixes vectors of {} and {this_element}",
                    element.unwrap_or(this_element)
                )));
            }
            element = Some(this_element);
            pool.extend_from_slice(value.lanes());
        }
        let element =
            element.ok_or_else(|| InterpError::new("`T.Shuffle` needs at least one vector"))?;
        let picked = indices
            .iter()
            .map(|index| {
                let position = self.eval_i64(index)?;
                usize::try_from(position)
                    .ok()
                    .and_then(|position| pool.get(position).copied())
                    .ok_or_else(|| {
                        InterpError::at(
                            format!("`T.Shuffle` picks lane {position} of {} lanes", pool.len()),
                            index.span(),
                        )
                    })
            })
            .collect::<InterpResult<Vec<Scalar>>>()?;
        Ok(Value::from_canonical_lanes(element, picked))
    }

    fn eval_call(&mut self, op: Op, args: &[Expr], dtype: DataType) -> InterpResult<Value> {
        let name = op.name();
        match name {
            "if_then_else" => return self.eval_if_then_else(args),
            "likely" => {
                let [condition] = args else {
                    return Err(InterpError::new("`T.likely` takes one argument"));
                };
                return self.eval(condition);
            }
            "reinterpret" => {
                let [value] = args else {
                    return Err(InterpError::new("`T.reinterpret` takes one argument"));
                };
                let value = self.eval(value)?;
                return reinterpret(&value, dtype);
            }
            // A hint about values, not a computation; its argument may name
            // `T.undef()`, so it is not evaluated.
            "assume" => return Value::int(DataType::int32(), 0),
            "type_annotation" => return Ok(Value::handle(0)),
            "tvm_fill_fragment"
            | "tvm_load_matrix_sync"
            | "tvm_mma_sync"
            | "tvm_store_matrix_sync" => {
                self.eval_wmma(name, args)?;
                return Value::int(DataType::int32(), 0);
            }
            name if crate::ir::builtin::MmaBuiltin::of(name).is_some() => {
                if let Some(builtin) = crate::ir::builtin::MmaBuiltin::of(name) {
                    self.eval_mma(builtin, args)?;
                }
                return Value::int(DataType::int32(), 0);
            }
            "tvm_storage_sync" => {
                if self.threads_per_block > 1 {
                    return Err(InterpError::new(format!(
                        "`T.tvm_storage_sync` with {} threads per block where the interpreter \
                         runs them one after another and cannot honour a barrier between them",
                        self.threads_per_block
                    )));
                }
                return Value::int(DataType::int32(), 0);
            }
            name if name.starts_with("tvm_warp_") => {
                return Err(InterpError::new(format!(
                    "`T.{name}` exchanges values between the lanes of a GPU warp, which the \
                     interpreter cannot run: run the program with `--target cuda` (and \
                     `--emulate` without a GPU)"
                )));
            }
            "call_llvm_pure_intrin" | "call_llvm_intrin" => {
                if let Some((callee, operands)) = crate::ir::builtin::llvm_intrinsic_call(args) {
                    if super::target_intrinsics::is_modelled(callee) {
                        let values = operands
                            .iter()
                            .map(|arg| self.eval(arg))
                            .collect::<InterpResult<Vec<Value>>>()?;
                        return super::target_intrinsics::evaluate(callee, &values, dtype);
                    }
                }
                let callee = match args.first().map(Expr::kind) {
                    Some(ExprKind::Str(callee)) => callee.clone(),
                    _ => String::from("?"),
                };
                return Err(InterpError::new(format!(
                    "`T.{name}(\"{callee}\", ...)` calls code outside the program: an LLVM intrinsic the interpreter does not model"
                )));
            }
            name if super::EXTERNAL_CALLS.contains(&name) => {
                let callee = match args.first().map(Expr::kind) {
                    Some(ExprKind::Str(callee)) => callee.clone(),
                    _ => String::from("?"),
                };
                return Err(InterpError::new(format!(
                    "`T.{name}(\"{callee}\", ...)` calls code outside the program, which the interpreter cannot run"
                )));
            }
            _ => {}
        }
        if !is_math_builtin(name) {
            // Checked before the arguments, which may be strings (the shape
            // names of `T.ptx.mma`) or pointers the interpreter has no value for.
            return Err(InterpError::new(format!(
                "the interpreter does not support `T.{name}`"
            )));
        }
        let values = args
            .iter()
            .map(|arg| self.eval(arg))
            .collect::<InterpResult<Vec<Value>>>()?;
        match evaluate_math_builtin(name, &values) {
            Some(result) => result,
            None => Err(InterpError::new(format!(
                "the interpreter does not support `T.{name}`"
            ))),
        }
    }

    /// `T.if_then_else(condition, a, b)`: only the chosen side is evaluated,
    /// so a guarded out-of-bounds load on the other side is never made.
    fn eval_if_then_else(&mut self, args: &[Expr]) -> InterpResult<Value> {
        let [condition, then_value, else_value] = args else {
            return Err(InterpError::new("`T.if_then_else` takes three arguments"));
        };
        let condition_value = self.eval(condition)?;
        let truths = condition_value
            .lanes()
            .iter()
            .map(|lane| scalar_truth(*lane, condition_value.dtype()))
            .collect::<InterpResult<Vec<bool>>>()?;
        if truths.iter().all(|truth| *truth) {
            return self.eval(then_value);
        }
        if truths.iter().all(|truth| !truth) {
            return self.eval(else_value);
        }
        // Lanes disagree: both sides are needed, lane by lane.
        let then_result = self.eval(then_value)?;
        let else_result = self.eval(else_value)?;
        select(&condition_value, &then_result, &else_result)
    }
}

/// The bits of `value` read as `dtype`; the total widths must agree.
pub(super) fn reinterpret(value: &Value, dtype: DataType) -> InterpResult<Value> {
    let from = ElementType::of(value.dtype())?;
    let to = ElementType::of(dtype)?;
    let from_bytes = from.byte_size() * value.lane_count();
    let to_lanes = dtype.lanes.max(1) as usize;
    if from_bytes != to.byte_size() * to_lanes {
        return Err(InterpError::new(format!(
            "`T.reinterpret` from {} to {dtype} changes the number of bits",
            value.dtype()
        )));
    }
    let mut bytes = vec![0u8; from_bytes];
    for (position, lane) in value.lanes().iter().enumerate() {
        encode_element(*lane, from, &mut bytes[position * from.byte_size()..])?;
    }
    let lanes = (0..to_lanes)
        .map(|position| decode_element(&bytes[position * to.byte_size()..], to))
        .collect::<InterpResult<Vec<Scalar>>>()?;
    Ok(Value::from_canonical_lanes(dtype.element_of(), lanes))
}
