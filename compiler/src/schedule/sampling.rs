//! Sampling instructions: `sample_perfect_tile`, `sample_categorical` and
//! `sample_compute_location`, as
//! TVM's `src/s_tir/schedule/primitive/sampling.cc` defines them. Each draws
//! a decision from the schedule's seeded random state, or takes the one
//! given with `decision=`, and records it in the trace, so a sampled
//! schedule replays exactly, in tirc and in TVM. They read the program and
//! never change it; what they return are integers (TVM's `ExprRV`s) that
//! later steps take as split factors or annotation values, and a place for
//! `compute_at` (a loop, or TVM's marks for "at the root" and "inline").

use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::SRefKind;
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::ir::NodeId;

/// TVM's random state: the minimal-standard linear congruential engine
/// (`std::minstd_rand`), seeded as `s_tir.Schedule(mod, seed=...)` is.
/// tirc draws from it with its own (simpler) distributions, so a seed gives
/// the same space in every tirc run, not the one TVM draws for that seed;
/// the decisions, which the trace records, are what replays across both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomState(u64);

const MODULUS: u64 = 2_147_483_647;
const MULTIPLIER: u64 = 48_271;

impl RandomState {
    /// A state from a seed; seeds are folded into `[1, 2^31 - 1)` as TVM's are.
    pub fn new(seed: u64) -> RandomState {
        let state = seed % MODULUS;
        RandomState(if state == 0 { 1 } else { state })
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0 * MULTIPLIER % MODULUS;
        self.0
    }

    /// An integer in `[low, high)`, `high > low`.
    pub fn sample_int(&mut self, low: i64, high: i64) -> i64 {
        let span = (high - low) as u64;
        low + (self.next() % span) as i64
    }

    /// A float in `[0, 1)`.
    pub fn sample_unit(&mut self) -> f64 {
        (self.next() - 1) as f64 / (MODULUS - 1) as f64
    }
}

/// The prime factors of `n` (`n >= 1`), smallest first, with repeats.
fn prime_factors(mut n: i64) -> Vec<i64> {
    let mut factors = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        factors.push(n);
    }
    factors
}

/// `n` factors whose product is `extent`: each prime factor of the extent
/// goes to a slot drawn uniformly (TVM's `SamplePerfectTile` without an
/// innermost bound).
fn sample_tile(random: &mut RandomState, extent: i64, n: usize) -> Vec<i64> {
    let mut tile = vec![1; n];
    for prime in prime_factors(extent) {
        tile[random.sample_int(0, n as i64) as usize] *= prime;
    }
    tile
}

/// `n` factors whose product is `extent`, the innermost at most
/// `max_innermost_factor` (-1: no bound): the innermost is drawn from the
/// extent's divisors in that bound, the others as [`sample_tile`] draws them.
pub fn sample_perfect_tile(
    random: &mut RandomState,
    extent: i64,
    n: usize,
    max_innermost_factor: i64,
) -> Vec<i64> {
    if n == 1 {
        return vec![extent];
    }
    if max_innermost_factor == -1 {
        return sample_tile(random, extent, n);
    }
    let divisors: Vec<i64> = (1..=extent.min(max_innermost_factor))
        .filter(|d| extent % d == 0)
        .collect();
    let innermost = divisors[random.sample_int(0, divisors.len() as i64) as usize];
    let mut tile = sample_tile(random, extent / innermost, n - 1);
    tile.push(innermost);
    tile
}

/// A decision given for a loop of `extent`, made to divide it as TVM does
/// on replay: from the innermost out, a factor that does not divide what
/// is left takes all of it (the inner tiles become `1, ..., 1, L`), and the
/// outermost takes the rest. A decision recorded for this loop comes back
/// unchanged.
pub fn fit_perfect_tile_decision(extent: i64, decision: &[i64]) -> Vec<i64> {
    let mut fitted = decision.to_vec();
    let mut left = extent;
    for factor in fitted.iter_mut().skip(1).rev() {
        if left % *factor != 0 {
            *factor = left;
        }
        left /= *factor;
    }
    if let Some(first) = fitted.first_mut() {
        *first = left;
    }
    fitted
}

/// The constant extent of a loop, for `sample_perfect_tile`.
fn constant_extent(state: &ScheduleState, loop_id: NodeId) -> ScheduleResult<i64> {
    let extent = state
        .sref(loop_id)
        .and_then(|s| s.as_for())
        .and_then(|f| f.extent.as_int());
    match extent {
        Some(extent) if extent >= 1 => Ok(extent),
        _ => Err(ScheduleError::new(
            codes::BAD_SAMPLE,
            "`sample_perfect_tile` needs a loop of constant, positive extent",
            "split a loop of symbolic extent with a factor you choose (`factors=[None, 32]`)",
        )
        .at_argument(0)),
    }
}

/// Where `sample_compute_location` may put a block: TVM's marks, or a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeLocation {
    /// Inlined into its consumers (decision -2).
    Inline,
    /// Left where it is, under its scope's root (decision -1).
    Root,
    /// Under this loop (decision: the loop's position among the first
    /// consumer's loops).
    Loop(NodeId),
}

/// The places `block` may be computed at, with their decisions, in TVM's
/// order (`CollectComputeLocation`): inline (when it can be), the root, then
/// the loops around its consumers down to their innermost common loop,
/// skipping unit loops, stopping at the first reduction loop after the
/// data-parallel ones, and keeping only loops `compute_at` accepts.
pub fn compute_locations(state: &ScheduleState, block: NodeId) -> Vec<(i64, ComputeLocation)> {
    let mut locations = Vec::new();
    let mut trial = state.clone();
    if super::compute_inline::compute_inline(&mut trial, block).is_ok() {
        locations.push((-2, ComputeLocation::Inline));
    }
    locations.push((-1, ComputeLocation::Root));
    let consumers = super::get_block_loop::get_consumers(state, block).unwrap_or_default();
    let Some(first) = consumers.first() else {
        return locations;
    };
    // The innermost loop or block around every consumer.
    let boundary = consumers[1..].iter().fold(
        state.sref(*first).and_then(|s| s.parent),
        |lca, consumer| {
            let lca = lca?;
            let mut around: Vec<NodeId> = vec![lca];
            around.extend(state.ancestors(lca));
            let consumer_ancestors = state.ancestors(*consumer);
            around
                .into_iter()
                .find(|node| consumer_ancestors.contains(node))
        },
    );
    let Some(boundary) =
        boundary.filter(|b| state.sref(*b).is_some_and(|s| s.kind == SRefKind::Loop))
    else {
        return locations;
    };
    let loops = state.enclosing_loops(*first);
    let Some(boundary_position) = loops.iter().position(|l| *l == boundary) else {
        return locations;
    };
    let candidates = &loops[..=boundary_position];
    let data_parallel: Vec<bool> = candidates
        .iter()
        .map(|l| super::scope::loop_iter_use(state, *l, &state.child_blocks(*l)).is_data_parallel())
        .collect();
    let last_data_parallel = data_parallel.iter().rposition(|d| *d);
    let mut visited_reduce = false;
    for (position, loop_id) in candidates.iter().enumerate() {
        let extent = state
            .sref(*loop_id)
            .and_then(|s| s.as_for())
            .and_then(|f| f.extent.as_int());
        if extent == Some(1) {
            continue;
        }
        if data_parallel[position] {
            if visited_reduce {
                break;
            }
        } else {
            visited_reduce = true;
            if last_data_parallel.is_none_or(|last| position > last) {
                break;
            }
        }
        let mut trial = state.clone();
        if super::compute_at::compute_at(&mut trial, block, *loop_id, true, -1).is_ok() {
            locations.push((position as i64, ComputeLocation::Loop(*loop_id)));
        }
    }
    locations
}

/// The location a decision names, fitted as TVM fits a replayed one: the
/// candidate with that decision, else the nearest one before it, else the root.
pub fn fit_compute_location_decision(
    locations: &[(i64, ComputeLocation)],
    decision: i64,
) -> (i64, ComputeLocation) {
    locations
        .iter()
        .rev()
        .find(|(candidate, _)| *candidate <= decision)
        .copied()
        .unwrap_or((-1, ComputeLocation::Root))
}

/// The sampling instructions' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "sample_perfect_tile",
        aliases: &[],
        params: &[
            required("loop"),
            typed("n", "int"),
            optional("max_innermost_factor", "16"),
            optional("decision", "None"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Draws `n` factors whose product is the loop's (constant) extent, the innermost at most `max_innermost_factor` (no bound when it is -1), and returns them as integers for `split(loop, factors=...)`. The draw comes from the schedule's seeded random state; `decision=[...]` gives the factors instead, fitted to the extent as TVM fits a replayed decision. The trace records the decision, so the schedule replays exactly.",
        apply: apply_sample_perfect_tile,
    },
    Primitive {
        name: "sample_categorical",
        aliases: &[],
        params: &[
            typed("candidates", "list"),
            typed("probs", "list"),
            optional("decision", "None"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Draws one of the integer `candidates` with the probabilities `probs` (non-negative, not all zero) and returns it, for an annotation value such as `meta_schedule.unroll_explicit`. `decision=k` picks the k-th candidate instead. The trace records the decision, so the schedule replays exactly.",
        apply: apply_sample_categorical,
    },
    Primitive {
        name: "sample_compute_location",
        aliases: &[],
        params: &[required("block"), optional("decision", "None")],
        varargs: None,
        keyword_only: &[],
        doc: "Draws a place to compute the block at, for `compute_at(block, loop)`: one of the loops around its consumers that `compute_at` accepts (TVM's candidates: no unit loops, no loop past the first reduction loop), or TVM's marks for leaving it at the root (decision -1; `compute_at` then does nothing) and for inlining it (decision -2, when it can be inlined; `compute_at` then inlines it). `decision=k` names the loop by its position among the first consumer's loops. The trace records the decision, so the schedule replays exactly.",
        apply: apply_sample_compute_location,
    },
];

fn bad_sample(
    message: impl Into<String>,
    help: impl Into<String>,
    argument: usize,
) -> ScheduleError {
    ScheduleError::new(codes::BAD_SAMPLE, message, help).at_argument(argument)
}

/// A list of integers (`decision=[1, 16, 8]`, `candidates=[0, 16]`).
fn integer_list(
    run: &Interpreter<'_>,
    bound: &Bound<'_>,
    index: usize,
    param: &str,
) -> Eval<Option<Vec<i64>>> {
    match bound.get(index).map(|a| &a.value) {
        None | Some(Value::None) => Ok(None),
        Some(Value::List(items)) => items
            .iter()
            .map(|item| {
                item.integer()
                    .ok_or_else(|| run.wrong_kind(bound, index, param, "a list of integers", item))
            })
            .collect::<Eval<Vec<i64>>>()
            .map(Some),
        Some(other) => Err(run.wrong_kind(bound, index, param, "a list of integers", other)),
    }
}

fn apply_sample_perfect_tile(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "loop")?;
    let n = run.int_arg(bound, 1, "n", None)?;
    let max_innermost_factor = run.int_arg(bound, 2, "max_innermost_factor", Some(16))?;
    let decision = integer_list(run, bound, 3, "decision")?;
    let extent = constant_extent(run.state, loop_id).map_err(|e| run.refused(bound, e))?;
    if !(1..=64).contains(&n) {
        let error = bad_sample(
            format!("`n` must be between 1 and 64, not {n}"),
            "ask for as many factors as the loop is to be split into",
            1,
        );
        return Err(run.refused(bound, error));
    }
    if max_innermost_factor != -1 && max_innermost_factor < 1 {
        let error = bad_sample(
            format!("`max_innermost_factor` must be positive or -1 (no bound), not {max_innermost_factor}"),
            "bound the innermost factor (`max_innermost_factor=16`), or pass -1",
            2,
        );
        return Err(run.refused(bound, error));
    }
    let tile = match decision {
        Some(decision) => {
            if decision.len() != n as usize {
                let error = bad_sample(
                    format!(
                        "the decision has {} factors, and `n` is {n}",
                        decision.len()
                    ),
                    format!("give {n} factors"),
                    3,
                );
                return Err(run.refused(bound, error));
            }
            if decision.iter().any(|f| *f < 1) {
                let error = bad_sample(
                    "the factors of a decision must be positive",
                    "give positive factors; the outermost is fitted to the extent",
                    3,
                );
                return Err(run.refused(bound, error));
            }
            fit_perfect_tile_decision(extent, &decision)
        }
        None => {
            let mut random = run.random_state();
            let tile = sample_perfect_tile(&mut random, extent, n as usize, max_innermost_factor);
            run.set_random_state(random);
            tile
        }
    };
    let rvs: Vec<_> = tile.iter().map(|_| run.new_expr_rv()).collect();
    let value = Value::List(
        rvs.iter()
            .zip(&tile)
            .map(|(rv, factor)| Value::Sampled(*rv, *factor))
            .collect(),
    );
    run.record(
        "sample_perfect_tile",
        vec![
            (Some("loop"), TraceArg::Rv(loop_rv)),
            (Some("n"), TraceArg::Int(n)),
            (
                Some("max_innermost_factor"),
                TraceArg::Int(max_innermost_factor),
            ),
            (
                Some("decision"),
                TraceArg::List(tile.iter().copied().map(TraceArg::Int).collect()),
            ),
        ],
        Outputs::List(rvs),
    );
    Ok(value)
}

fn apply_sample_categorical(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let Some(candidates) = integer_list(run, bound, 0, "candidates")? else {
        return Err(run.missing_argument(bound, "candidates"));
    };
    let probs: Vec<f64> = match bound.get(1).map(|a| &a.value) {
        Some(Value::List(items)) => items
            .iter()
            .map(|item| match item {
                Value::Float(p) => Ok(*p),
                other => other
                    .integer()
                    .map(|p| p as f64)
                    .ok_or_else(|| run.wrong_kind(bound, 1, "probs", "a list of numbers", other)),
            })
            .collect::<Eval<_>>()?,
        Some(other) => return Err(run.wrong_kind(bound, 1, "probs", "a list of numbers", other)),
        None => return Err(run.missing_argument(bound, "probs")),
    };
    let decision = match bound.get(2).map(|a| &a.value) {
        None | Some(Value::None) => None,
        Some(value) => match value.integer() {
            Some(k) => Some(k),
            None => return Err(run.wrong_kind(bound, 2, "decision", "an integer", value)),
        },
    };
    if candidates.is_empty() || candidates.len() != probs.len() {
        let error = bad_sample(
            format!(
                "{} candidates and {} probabilities: give one probability per candidate",
                candidates.len(),
                probs.len()
            ),
            "list the candidates and as many probabilities, in the same order",
            1,
        );
        return Err(run.refused(bound, error));
    }
    let total: f64 = probs.iter().sum();
    if probs.iter().any(|p| !p.is_finite() || *p < 0.0) || total <= 0.0 {
        let error = bad_sample(
            "the probabilities must be non-negative numbers, not all zero",
            "give weights such as `[0.25, 0.25, 0.5]`",
            1,
        );
        return Err(run.refused(bound, error));
    }
    let index = match decision {
        Some(k) if (0..candidates.len() as i64).contains(&k) => k as usize,
        Some(k) => {
            let error = bad_sample(
                format!(
                    "decision {k} is not the index of one of the {} candidates",
                    candidates.len()
                ),
                format!("give an index from 0 to {}", candidates.len() - 1),
                2,
            );
            return Err(run.refused(bound, error));
        }
        None => {
            let mut random = run.random_state();
            let mut draw = random.sample_unit() * total;
            run.set_random_state(random);
            let mut chosen = probs.len() - 1;
            for (i, p) in probs.iter().enumerate() {
                if draw < *p {
                    chosen = i;
                    break;
                }
                draw -= p;
            }
            chosen
        }
    };
    let rv = run.new_expr_rv();
    run.record(
        "sample_categorical",
        vec![
            (
                Some("candidates"),
                TraceArg::List(candidates.iter().copied().map(TraceArg::Int).collect()),
            ),
            (
                Some("probs"),
                TraceArg::List(probs.iter().copied().map(TraceArg::Float).collect()),
            ),
            (Some("decision"), TraceArg::Int(index as i64)),
        ],
        Outputs::Single(rv),
    );
    Ok(Value::Sampled(rv, candidates[index]))
}

fn apply_sample_compute_location(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let decision = match bound.get(1).map(|a| &a.value) {
        None | Some(Value::None) => None,
        Some(value) => match value.integer() {
            Some(k) => Some(k),
            None => return Err(run.wrong_kind(bound, 1, "decision", "an integer", value)),
        },
    };
    let locations = compute_locations(run.state, block);
    let (decision, location) = match decision {
        Some(decision) => fit_compute_location_decision(&locations, decision),
        None => {
            let mut random = run.random_state();
            let index = random.sample_int(0, locations.len() as i64) as usize;
            run.set_random_state(random);
            locations[index]
        }
    };
    let (rv, value) = match location {
        ComputeLocation::Loop(loop_id) => {
            let rv = run.new_rv(SRefKind::Loop, loop_id);
            (rv, Value::Loop(rv))
        }
        mark => {
            let rv = run.new_location_mark_rv();
            (rv, Value::LocationMark(rv, mark))
        }
    };
    run.record(
        "sample_compute_location",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("decision"), TraceArg::Int(decision)),
        ],
        Outputs::Single(rv),
    );
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_tiles_multiply_to_the_extent_and_bound_the_innermost() {
        let mut random = RandomState::new(7);
        for extent in [1, 7, 96, 128, 1000, 1024] {
            for n in 1..5 {
                for _ in 0..20 {
                    let tile = sample_perfect_tile(&mut random, extent, n, 16);
                    assert_eq!(tile.len(), n);
                    assert_eq!(tile.iter().product::<i64>(), extent, "{tile:?}");
                    if n > 1 {
                        assert!(tile[n - 1] <= 16, "{tile:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_seed_gives_the_same_draws_and_another_seed_others() {
        let draw = |seed| {
            let mut random = RandomState::new(seed);
            (0..8)
                .map(|_| sample_perfect_tile(&mut random, 1024, 3, 64))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
    }

    #[test]
    fn decisions_are_fitted_as_tvm_replays_them() {
        assert_eq!(fit_perfect_tile_decision(128, &[1, 16, 8]), vec![1, 16, 8]);
        // The outermost takes what the inner factors leave.
        assert_eq!(fit_perfect_tile_decision(128, &[5, 16, 8]), vec![1, 16, 8]);
        // A factor that does not divide what is left takes all of it.
        assert_eq!(fit_perfect_tile_decision(96, &[1, 16, 64]), vec![1, 1, 96]);
        assert_eq!(fit_perfect_tile_decision(96, &[1, 5, 32]), vec![1, 3, 32]);
        assert_eq!(fit_perfect_tile_decision(7, &[1, 4]), vec![1, 7]);
    }

    #[test]
    fn a_location_decision_falls_back_to_the_candidate_before_it() {
        let (i, k) = (NodeId(3), NodeId(5));
        let locations = [
            (-2, ComputeLocation::Inline),
            (-1, ComputeLocation::Root),
            (0, ComputeLocation::Loop(i)),
            (2, ComputeLocation::Loop(k)),
        ];
        let fit = |d| fit_compute_location_decision(&locations, d);
        assert_eq!(fit(2), (2, ComputeLocation::Loop(k)));
        assert_eq!(fit(1), (0, ComputeLocation::Loop(i)));
        assert_eq!(fit(7), (2, ComputeLocation::Loop(k)));
        assert_eq!(fit(-2), (-2, ComputeLocation::Inline));
        assert_eq!(fit(-5), (-1, ComputeLocation::Root));
        let no_inline = &locations[1..];
        assert_eq!(
            fit_compute_location_decision(no_inline, -2),
            (-1, ComputeLocation::Root)
        );
    }

    #[test]
    fn prime_factors_are_complete() {
        assert_eq!(prime_factors(1), Vec::<i64>::new());
        assert_eq!(prime_factors(96), vec![2, 2, 2, 2, 2, 3]);
        assert_eq!(prime_factors(97), vec![97]);
    }
}
