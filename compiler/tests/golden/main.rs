//! File-based golden tests: one module per kind of test under `tests/`.
//! `TIRC_BLESS=1 cargo test --test golden` rewrites expectation files.

#[cfg(feature = "llvm")]
mod codegen;
#[cfg(feature = "cuda")]
mod cuda;
mod diagnostics;
mod lowering;
mod parse_errors;
mod roundtrip;
#[cfg(feature = "llvm")]
mod run;
mod schedule;
mod support;
