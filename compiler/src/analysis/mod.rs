//! Analyses of block-level IR shared by the frontend, the verifier and the
//! schedule: which regions a block reads and writes.

pub mod access_regions;

pub use access_regions::{infer_block_regions, simplify_index};
