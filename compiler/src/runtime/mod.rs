//! What generated code needs at run time, and what `tirc run` needs around
//! it: the thread pool parallel loops run on ([`thread_pool`]), float16
//! helpers for the JIT ([`float16_helpers`]), `.npy` files ([`npy`]),
//! 64-byte-aligned argument buffers and symbolic shapes bound from them
//! ([`arguments`], [`shape_binding`]), and the FLOP count of a program for
//! GFLOP/s ([`flop_count`]), and the workspace pool large allocations in
//! kernels come from ([`workspace`]).
//!
//! `parallel_launch.c` is the same launch entry point in C, linked into the
//! shared libraries `tirc build --emit so` writes.

pub mod arguments;
#[cfg(feature = "llvm")]
pub mod execute;
pub mod float16_helpers;
pub mod flop_count;
pub mod npy;
pub mod shape_binding;
pub mod thread_pool;
pub mod workspace;
