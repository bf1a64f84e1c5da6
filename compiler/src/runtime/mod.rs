//! What generated code calls at run time: the thread pool parallel loops
//! run on ([`thread_pool`]), float16 helpers for the JIT
//! ([`float16_helpers`]) and the workspace pool large allocations in kernels
//! come from ([`workspace`]). Nothing here knows the compiler: code
//! generation depends on this module, never the other way round. What `tirc
//! run` does around a kernel (inputs, `.npy`, checks, timing) is the
//! driver's (`crate::driver`).
//!
//! `parallel_launch.c` is the same launch entry point in C, linked into the
//! shared libraries `tirc build --emit so` writes. Both copies must exist:
//! a shared library is loaded by C programs that do not link tirc's Rust
//! code, and the JIT must not need a C compiler at run time to get a pool.

pub mod float16_helpers;
pub mod thread_pool;
pub mod workspace;
