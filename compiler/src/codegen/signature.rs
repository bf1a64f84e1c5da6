//! The C ABI of a generated function: which arguments it takes, in which
//! order and of which C type.
//!
//! Every generated function is a plain C function returning `int32_t`:
//!
//! 1. one pointer per buffer parameter, to the first element of its data, in
//!    parameter order (`float*` for a float32 buffer, `uint16_t*` for
//!    float16 and bfloat16, `int8_t*` for bool);
//! 2. then each scalar parameter, in parameter order, as its C type;
//! 3. then one `int64_t` per symbolic variable of the buffer parameters'
//!    shapes, strides and element offsets, in order of first appearance.
//!
//! It returns 0, or the 1-based number of the `assert` that failed.
//! Buffer pointers must be aligned to the buffer's `data_alignment` (64 bytes
//! unless declared otherwise), as TVM requires of its arguments.

use crate::diagnostics::Diagnostic;
use crate::ir::visit::walk_exprs;
use crate::ir::{Buffer, DataType, Expr, ExprKind, PrimFunc, TypeCode, Var};

/// Diagnostic code for a function whose signature cannot be expressed in C.
pub const UNSUPPORTED_SIGNATURE: &str = "E0601";

/// One argument of a generated function, in C ABI order.
#[derive(Clone, Debug)]
pub enum KernelArgument {
    /// A pointer to the data of a buffer parameter.
    Buffer {
        /// The parameter.
        param: Var,
        /// The buffer bound to it.
        buffer: Buffer,
    },
    /// A scalar parameter (or a raw `handle` parameter without a buffer).
    Scalar {
        /// The parameter.
        param: Var,
    },
    /// A symbolic shape, stride or offset variable, passed as `int64_t`.
    ShapeVar {
        /// The variable.
        var: Var,
    },
}

impl KernelArgument {
    /// The argument's name in the C declaration.
    pub fn name(&self) -> &str {
        match self {
            KernelArgument::Buffer { param, .. } | KernelArgument::Scalar { param } => param.name(),
            KernelArgument::ShapeVar { var } => var.name(),
        }
    }
}

/// The C ABI of one generated function.
#[derive(Clone, Debug)]
pub struct KernelSignature {
    /// The function's name in its module.
    pub function: String,
    /// The exported symbol.
    pub symbol: String,
    /// The arguments in C order.
    pub arguments: Vec<KernelArgument>,
}

impl KernelSignature {
    /// The signature of `func` exported as `symbol`.
    pub fn of(func: &PrimFunc, symbol: &str) -> Result<KernelSignature, Box<Diagnostic>> {
        let mut arguments = Vec::new();
        let mut scalars = Vec::new();
        for param in &func.params {
            match func.buffer_of(param) {
                Some(buffer) => {
                    c_element_type(buffer.dtype()).ok_or_else(|| {
                        Box::new(Diagnostic::error(
                            UNSUPPORTED_SIGNATURE,
                            format!(
                                "buffer parameter `{}` holds {}, which the LLVM backend does not support",
                                param.name(),
                                buffer.dtype()
                            ),
                            buffer.span(),
                        ))
                    })?;
                    arguments.push(KernelArgument::Buffer {
                        param: param.clone(),
                        buffer: buffer.clone(),
                    });
                }
                None => {
                    c_scalar_type(param.dtype()).ok_or_else(|| {
                        Box::new(Diagnostic::error(
                            UNSUPPORTED_SIGNATURE,
                            format!(
                                "scalar parameter `{}` is {}, which has no C type here",
                                param.name(),
                                param.dtype()
                            ),
                            param.span(),
                        ))
                    })?;
                    scalars.push(KernelArgument::Scalar {
                        param: param.clone(),
                    });
                }
            }
        }
        let shape_vars = symbolic_shape_vars(func);
        arguments.extend(scalars);
        arguments.extend(
            shape_vars
                .into_iter()
                .map(|var| KernelArgument::ShapeVar { var }),
        );
        Ok(KernelSignature {
            function: func.name.clone(),
            symbol: symbol.to_string(),
            arguments,
        })
    }

    /// The buffer arguments with their position among all arguments.
    pub fn buffers(&self) -> impl Iterator<Item = (&Var, &Buffer)> {
        self.arguments.iter().filter_map(|argument| match argument {
            KernelArgument::Buffer { param, buffer } => Some((param, buffer)),
            _ => None,
        })
    }

    /// The symbolic shape variables, in argument order.
    pub fn shape_vars(&self) -> impl Iterator<Item = &Var> {
        self.arguments.iter().filter_map(|argument| match argument {
            KernelArgument::ShapeVar { var } => Some(var),
            _ => None,
        })
    }
}

/// The variables that occur in the shapes, strides and element offsets of a
/// function's buffer parameters and are not parameters themselves, in order
/// of first appearance.
pub fn symbolic_shape_vars(func: &PrimFunc) -> Vec<Var> {
    let mut found: Vec<Var> = Vec::new();
    for (_, buffer) in &func.buffer_map {
        let node = buffer.node();
        let expressions = node
            .shape
            .iter()
            .chain(&node.strides)
            .chain(std::iter::once(&node.elem_offset));
        for expression in expressions {
            collect_vars(expression, &mut |var| {
                if !func.params.contains(var) && !found.contains(var) {
                    found.push(var.clone());
                }
            });
        }
    }
    found
}

fn collect_vars(expression: &Expr, found: &mut dyn FnMut(&Var)) {
    walk_exprs(expression, &mut |node| {
        if let ExprKind::Var(var) = node.kind() {
            found(var);
        }
    });
}

/// The C type of one element of a buffer of `dtype`, when the backend
/// supports it. Vector element types are refused: a buffer of `float32x4`
/// is passed as its scalar type.
pub fn c_element_type(dtype: DataType) -> Option<&'static str> {
    let scalar = dtype.element_of();
    match (scalar.code, scalar.bits) {
        (TypeCode::Bool, _) => Some("int8_t"),
        (TypeCode::Float, 16) | (TypeCode::BFloat, 16) => Some("uint16_t"),
        _ => c_scalar_type(scalar),
    }
}

/// The C type of a scalar parameter of `dtype`.
pub fn c_scalar_type(dtype: DataType) -> Option<&'static str> {
    if dtype.is_vector() {
        return None;
    }
    Some(match (dtype.code, dtype.bits) {
        (TypeCode::Int, 8) => "int8_t",
        (TypeCode::Int, 16) => "int16_t",
        (TypeCode::Int, 32) => "int32_t",
        (TypeCode::Int, 64) => "int64_t",
        (TypeCode::UInt, 8) => "uint8_t",
        (TypeCode::UInt, 16) => "uint16_t",
        (TypeCode::UInt, 32) => "uint32_t",
        (TypeCode::UInt, 64) => "uint64_t",
        (TypeCode::Float, 32) => "float",
        (TypeCode::Float, 64) => "double",
        (TypeCode::Float, 16) | (TypeCode::BFloat, 16) => "uint16_t",
        (TypeCode::Bool, _) => "bool",
        (TypeCode::Handle, _) => "void*",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse_program;
    use crate::source::SourceMap;

    fn function(text: &str) -> PrimFunc {
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "t.tir", text);
        assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
        program.unwrap().module.functions.remove(0)
    }

    #[test]
    fn buffers_then_scalars_then_shape_vars() {
        let func = function(
            "@T.prim_func\ndef f(a: T.handle, alpha: T.float32, B: T.Buffer((16,), \"int8\")):\n    n = T.int64()\n    A = T.match_buffer(a, (n, 4), \"float16\")\n    A[0, 0] = T.float16(alpha)\n",
        );
        let signature = KernelSignature::of(&func, "f").unwrap();
        let names: Vec<&str> = signature.arguments.iter().map(|a| a.name()).collect();
        // Arguments take the parameters' names (`a`, not the buffer `A`).
        assert_eq!(names, vec!["a", "B", "alpha", "n"]);
        assert_eq!(signature.shape_vars().count(), 1);
        assert_eq!(c_element_type(DataType::float(16)), Some("uint16_t"));
        assert_eq!(c_element_type(DataType::bool()), Some("int8_t"));
    }
}
