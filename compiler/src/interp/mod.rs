//! The reference interpreter: runs a `PrimFunc` on tensors, slowly, simply
//! and exactly, as the oracle every other test compares with.
//!
//! It runs block-level TensorIR and lowered TIR alike. The choices where the
//! IR leaves room:
//! - Integers wrap at their width; integer division by zero, shifts by the
//!   width or more, and float-to-integer conversions out of range (NaN and
//!   infinities included) are errors, since C and LLVM leave them undefined.
//! - float16, bfloat16 and float8 round to nearest even in one step; float8
//!   does not saturate (e5m2 overflows to infinity, e4m3fn to NaN).
//! - A block's `T.init()` runs when every reduction iteration variable
//!   equals the minimum of its domain; a block whose iteration variable is
//!   bound outside its domain is an error.
//! - Fresh allocations are filled with 0xFF bytes (NaN in every float format)
//!   unless [`InterpOptions::uninitialized`] says otherwise.
//! - Parallel, vectorized, unrolled and thread-bound loops run sequentially;
//!   the threads of a GPU block run in lock step where they meet at a
//!   barrier (`T.tvm_storage_sync`).
//! - Every out-of-bounds access is an error naming the buffer and indices.
//! - A step budget ([`InterpOptions::step_budget`]) stops runaway loops.

mod bind;
mod buffer_access;
mod collective;
mod error;
mod eval;
mod exec;
mod float_format;
mod layout;
mod machine;
mod math;
mod memory;
mod mma;
mod operations;
mod target_intrinsics;
mod tensor;
mod value;
mod wmma;

#[cfg(test)]
mod tests;

pub use buffer_access::BufferGeometry;
pub use error::{InterpError, InterpResult};
pub use float_format::FloatFormat;
pub use machine::InterpOptions;
pub use memory::UninitializedMemory;
pub use tensor::{Comparison, SeededRandom, Tensor, Tolerance};
pub use value::{ElementType, Scalar, Value};

use crate::ir::{IRModule, PrimFunc};
use machine::Interpreter;

/// One argument of a function call.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A tensor for a buffer parameter; results are written back into it.
    Tensor(Tensor),
    /// An integer (or bool, as 0/1) for a scalar parameter; it must fit the
    /// parameter's type. A float parameter takes it rounded.
    Int(i64),
    /// A float for a float parameter, rounded to its format.
    Float(f64),
}

impl Arg {
    /// The tensor, for tensor arguments.
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            Arg::Tensor(tensor) => Some(tensor),
            _ => None,
        }
    }
}

/// Calls into code outside the program, which the interpreter cannot run.
pub(crate) const EXTERNAL_CALLS: &[&str] = &[
    "call_extern",
    "call_pure_extern",
    "call_llvm_intrin",
    "call_llvm_pure_intrin",
    "call_packed",
];

/// False when `func` calls code outside the program (`T.call_pure_extern`,
/// an LLVM intrinsic), which the interpreter refuses to run.
pub fn can_interpret(func: &PrimFunc) -> bool {
    let mut external = false;
    crate::ir::visit::walk_exprs_in_stmt(&func.body, &mut |expr| {
        if let crate::ir::ExprKind::Call { op, args } = expr.kind() {
            let modelled = matches!(args.first().map(crate::ir::Expr::kind),
                Some(crate::ir::ExprKind::Str(name)) if op.name().starts_with("call_llvm") && target_intrinsics::is_modelled(name));
            external |= EXTERNAL_CALLS.contains(&op.name()) && !modelled;
        }
    });
    !external
}

/// Runs `func` on `args` with the default options; tensor arguments hold the
/// results afterwards (also after an error, with what was written by then).
pub fn run_function(func: &PrimFunc, args: &mut [Arg]) -> Result<(), InterpError> {
    run_function_with_options(func, args, &InterpOptions::default())
}

/// Runs `func` on `args` with the given options.
pub fn run_function_with_options(
    func: &PrimFunc,
    args: &mut [Arg],
    options: &InterpOptions,
) -> Result<(), InterpError> {
    let mut interpreter = Interpreter::new(options);
    let mut lent = Vec::new();
    let result = interpreter
        .bind_arguments(func, args, &mut lent)
        .and_then(|()| interpreter.exec(&func.body));
    for (position, handle) in lent {
        if let (Some(bytes), Some(Arg::Tensor(tensor))) =
            (interpreter.memory.release(handle), args.get_mut(position))
        {
            tensor.restore_bytes(bytes);
        }
    }
    result.map_err(|error| error.or_at(func.span))
}

/// Runs the function named `name` of `module`.
pub fn run_module_function(
    module: &IRModule,
    name: &str,
    args: &mut [Arg],
) -> Result<(), InterpError> {
    let func = module
        .function(name)
        .ok_or_else(|| InterpError::new(format!("the module has no function `{name}`")))?;
    run_function(func, args)
}
