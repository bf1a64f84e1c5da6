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
