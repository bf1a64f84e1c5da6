//! `tirc tune`: searching a design space of schedules for a fast one on the
//! machine at hand, and keeping what it finds: the design space
//! ([`space`], with the GPU rules in [`space_gpu`]), what the cost model sees of a candidate ([`features`], measured
//! against the [`machine`]), the
//! model ([`cost_model`]), the evolutionary search and the measurement of
//! candidates ([`search`]), and the records of every measured candidate
//! ([`records`]).

pub mod cost_model;
pub mod features;
pub mod machine;
pub mod records;
pub mod search;
pub mod space;
pub mod space_gpu;
