//! `tirc tune`: searching a design space of schedules for a fast one. So
//! far the design space ([`space`]); the search, its cost model, the
//! records database and the runner are still to come (issue 29).

pub mod space;
