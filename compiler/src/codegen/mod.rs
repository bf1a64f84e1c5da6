//! Code generation: lowered TIR to machine code.
//!
//! [`signature`] fixes the C ABI every generated function has (it does not
//! need LLVM, so the runtime and the header writer use it too); [`c_header`]
//! declares those functions for C callers; [`llvm`] (cargo feature `llvm`)
//! turns lowered functions into LLVM IR, optimises it and JIT-compiles it or
//! writes assembly, objects and shared libraries.

pub mod c_header;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod signature;

pub use signature::{KernelArgument, KernelSignature};

use crate::diagnostics::Diagnostic;
use crate::ir::IRModule;

/// Lowers every function that still has blocks, the step between the
/// schedule and code generation (`tirc run`, `tirc build` and the run tests
/// share it). The lowering pipeline (`transform`) is being built beside
/// this backend; until it is merged, block-level functions reach the
/// backend, which names the function and asks for lowered TIR.
pub fn lower_for_codegen(module: &IRModule) -> Result<IRModule, Vec<Diagnostic>> {
    Ok(module.clone())
}
