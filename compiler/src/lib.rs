//! tirc: TensorIR written as text.
//!
//! The module tree follows the pipeline: `frontend` (syntax tree to IR),
//! `verify`, `schedule`, `transform` (lowering), `codegen`, with `printer`
//! and `interp` beside them.
#![deny(missing_docs)]

pub mod analysis;
pub mod arith;
pub mod check;
pub mod codegen;
pub mod diagnostics;
pub mod driver;
pub mod explain;
pub mod format;
pub mod frontend;
pub mod interp;
pub mod ir;
pub mod printer;
pub mod runtime;
pub mod schedule;
pub mod source;
pub mod transform;
pub mod tune;
pub mod verify;
