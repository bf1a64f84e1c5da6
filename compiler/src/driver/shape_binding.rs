//! Symbolic shapes bound from the arrays a kernel is called with, as the
//! interpreter binds them: a dimension that is a variable not yet bound takes
//! the array's extent; every other declared extent, stride and offset must
//! then equal what the array has, or the error says which one differs.

use crate::arith::{floor_div_i64, floor_mod_i64};
use crate::interp::Arg;
use crate::ir::identity::VarMap;
use crate::ir::{BinaryOp, Expr, ExprKind, PrimFunc};

/// The value of an integer expression over bound variables, when every
/// variable in it is bound and the operations are integer arithmetic.
pub fn evaluate_integer(expr: &Expr, values: &VarMap<i64>) -> Option<i64> {
    Some(match expr.kind() {
        ExprKind::Int(value) => *value,
        ExprKind::Var(var) => *values.get(var)?,
        ExprKind::Cast(value) => evaluate_integer(value, values)?,
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (evaluate_integer(a, values)?, evaluate_integer(b, values)?);
            match op {
                BinaryOp::Add => a.checked_add(b)?,
                BinaryOp::Sub => a.checked_sub(b)?,
                BinaryOp::Mul => a.checked_mul(b)?,
                BinaryOp::Div => a.checked_div(b)?,
                BinaryOp::Mod => a.checked_rem(b)?,
                BinaryOp::FloorDiv => floor_div_i64(a, b)?,
                BinaryOp::FloorMod => floor_mod_i64(a, b)?,
                BinaryOp::Min => a.min(b),
                BinaryOp::Max => a.max(b),
                BinaryOp::Eq => (a == b) as i64,
                BinaryOp::Ne => (a != b) as i64,
                BinaryOp::Lt => (a < b) as i64,
                BinaryOp::Le => (a <= b) as i64,
                BinaryOp::Gt => (a > b) as i64,
                BinaryOp::Ge => (a >= b) as i64,
                BinaryOp::And => (a != 0 && b != 0) as i64,
                BinaryOp::Or => (a != 0 || b != 0) as i64,
            }
        }
        ExprKind::Not(value) => (evaluate_integer(value, values)? == 0) as i64,
        ExprKind::Select(condition, a, b) => {
            if evaluate_integer(condition, values)? != 0 {
                evaluate_integer(a, values)?
            } else {
                evaluate_integer(b, values)?
            }
        }
        // What lowering makes of integer arithmetic (`lower-intrin` turns
        // floordiv by a power of two into a shift).
        ExprKind::Call { op, args } => {
            let arg = |i: usize| args.get(i).and_then(|a| evaluate_integer(a, values));
            match op.name() {
                "shift_right" => arg(0)?.checked_shr(u32::try_from(arg(1)?).ok()?)?,
                "shift_left" => arg(0)?.checked_shl(u32::try_from(arg(1)?).ok()?)?,
                "bitwise_and" => arg(0)? & arg(1)?,
                "bitwise_or" => arg(0)? | arg(1)?,
                "bitwise_xor" => arg(0)? ^ arg(1)?,
                "likely" => arg(0)?,
                "if_then_else" => {
                    if arg(0)? != 0 {
                        arg(1)?
                    } else {
                        arg(2)?
                    }
                }
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// The row-major strides of `shape`, in elements.
pub fn compact_strides(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for dimension in (0..shape.len().saturating_sub(1)).rev() {
        strides[dimension] = strides[dimension + 1] * shape[dimension + 1] as i64;
    }
    strides
}

/// The shape variables that the arrays present in `args` bind on their own
/// (a dimension that is a bare variable takes the array's extent; scalar
/// parameters their value): enough to shape outputs left out.
pub fn bind_from_present(func: &PrimFunc, args: &[Option<Arg>]) -> VarMap<i64> {
    let mut values: VarMap<i64> = Default::default();
    for (param, arg) in func.params.iter().zip(args) {
        match (func.buffer_of(param), arg) {
            (None, Some(Arg::Int(value))) => {
                values.insert(param.clone(), *value);
            }
            (Some(buffer), Some(Arg::Tensor(tensor))) => {
                for (extent, actual) in buffer.shape().iter().zip(tensor.shape()) {
                    if let ExprKind::Var(var) = extent.kind() {
                        values.entry(var.clone()).or_insert(*actual as i64);
                    }
                }
            }
            _ => {}
        }
    }
    values
}

/// Binds every symbolic variable of `func`'s buffer parameters from the
/// tensors in `args` (in parameter order) and checks every declared extent,
/// stride and offset.
pub fn bind_shape_vars(func: &PrimFunc, args: &[Arg]) -> Result<VarMap<i64>, String> {
    if args.len() != func.params.len() {
        return Err(format!(
            "`{}` takes {} arguments, {} were given",
            func.name,
            func.params.len(),
            args.len()
        ));
    }
    let mut values: VarMap<i64> = Default::default();
    let mut checks: Vec<(Expr, i64, String)> = Vec::new();
    for (param, arg) in func.params.iter().zip(args) {
        let Some(buffer) = func.buffer_of(param) else {
            if let Arg::Int(value) = arg {
                values.insert(param.clone(), *value);
            }
            continue;
        };
        let Arg::Tensor(tensor) = arg else {
            return Err(format!(
                "`{}` is a buffer, but a scalar was given",
                param.name()
            ));
        };
        if tensor.dtype() != buffer.dtype() {
            return Err(format!(
                "`{}` holds {}, but the array given for it holds {}",
                param.name(),
                buffer.dtype(),
                tensor.dtype()
            ));
        }
        if tensor.shape().len() != buffer.rank() {
            return Err(format!(
                "`{}` has shape [{}], but the array given for it has shape {:?}",
                param.name(),
                buffer
                    .shape()
                    .iter()
                    .map(Expr::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                tensor.shape()
            ));
        }
        let node = buffer.node();
        for (dimension, (declared, actual)) in node.shape.iter().zip(tensor.shape()).enumerate() {
            checks.push((
                declared.clone(),
                *actual as i64,
                format!(
                    "dimension {dimension} of `{}` (array shape {:?})",
                    param.name(),
                    tensor.shape()
                ),
            ));
        }
        if !node.strides.is_empty() {
            for (dimension, (declared, actual)) in node
                .strides
                .iter()
                .zip(compact_strides(tensor.shape()))
                .enumerate()
            {
                checks.push((
                    declared.clone(),
                    actual,
                    format!(
                        "stride {dimension} of `{}` (row-major arrays only)",
                        param.name()
                    ),
                ));
            }
        }
        checks.push((
            node.elem_offset.clone(),
            0,
            format!("the element offset of `{}`", param.name()),
        ));
    }
    for (declared, actual, _) in &checks {
        if let Some(var) = declared.as_var() {
            values.entry(var.clone()).or_insert(*actual);
        }
    }
    for (declared, actual, what) in &checks {
        match evaluate_integer(declared, &values) {
            Some(value) if value == *actual => {}
            Some(value) => {
                let text = declared.to_string();
                let declared_text = if text == value.to_string() {
                    text
                } else {
                    format!("{text} = {value}")
                };
                return Err(format!(
                    "{what} is {actual}, but the function declares {declared_text}"
                ));
            }
            None => {
                return Err(format!(
                    "{what}: `{declared}` cannot be computed from the arrays' shapes"
                ))
            }
        }
    }
    Ok(values)
}
