//! tirc: TensorIR written as text.
//!
//! The module tree follows the pipeline: `frontend` (syntax tree to IR),
//! `verify`, `schedule`, `transform` (lowering), `codegen`, with `printer`
//! and `interp` beside them.
#![deny(missing_docs)]

pub mod arith;
pub mod diagnostics;
pub mod ir;
pub mod printer;
pub mod source;
