//! Code generation: lowered TIR to machine code.
//!
//! [`signature`] fixes the C ABI every generated function has (it does not
//! need LLVM, so the runtime and the header writer use it too); [`c_header`]
//! declares those functions for C callers; [`llvm`] (cargo feature `llvm`)
//! turns lowered functions into LLVM IR, optimises it and JIT-compiles it or
//! writes assembly, objects and shared libraries.

pub mod c_header;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod explain;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod signature;
pub mod target;

pub use signature::{KernelArgument, KernelSignature};
pub use target::Target;

use crate::diagnostics::Diagnostic;
use crate::ir::IRModule;

/// Lowers every function that still has blocks with the lowering pipeline
/// (`transform`), the step between the schedule and code generation that
/// `tirc run`, `tirc build` and the run tests share. Functions already in
/// lowered form are passed through as they are.
pub fn lower_for_codegen(module: &IRModule) -> Result<IRModule, Vec<Diagnostic>> {
    if !module.functions.iter().any(|func| func.has_blocks()) {
        return Ok(module.clone());
    }
    let options = crate::transform::LowerOptions::default();
    let mut lowered = module.clone();
    for func in &mut lowered.functions {
        if func.has_blocks() {
            *func = crate::transform::lower_function(func, &options)?;
        }
    }
    Ok(lowered)
}
