//! Integer arithmetic analysis: constant bounds and modular sets, after TVM's `arith`.

mod build;
pub mod const_int_bound;
pub mod modular_set;

pub use const_int_bound::{ConstIntBound, ConstIntBoundAnalyzer};
pub use modular_set::{ModularSet, ModularSetAnalyzer};
