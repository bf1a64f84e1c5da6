//! `tirc tune`: searching a design space of schedules for a fast one on the
//! machine at hand, and keeping what it finds: the design space
//! ([`space`]), the draw and measurement of candidates ([`search`]), and the
//! records of every measured candidate ([`records`]). The evolutionary
//! search with a learned cost model is still to come (issue 29).

pub mod records;
pub mod search;
pub mod space;
