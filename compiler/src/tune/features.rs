//! What the cost model sees of a candidate: the decisions of its trace and
//! features of the loop nest its schedule produces (after MetaSchedule's
//! per-store features, reduced to what a CPU kernel's speed turns on:
//! parallel extent, vector lanes, unrolling, the accumulator tile, and the
//! bytes that must come from beyond each level of the cache) and measured
//! against the machine: the registers the accumulator tile needs out of the
//! register file, how full its vectors are, and the traffic beyond each of
//! the machine's caches.

use super::machine::CpuMachine;
use crate::ir::{AttrValue, ForKind, IRModule, NodeId};
use crate::schedule::region::relax_region;
use crate::schedule::state::ScheduleState;

/// The cache levels whose traffic is a feature.
const CACHE_LEVELS: usize = 3;

/// The slot of [`loop_nest_features`] that holds the vector registers the
/// kernel's accumulator tile and its operands need, over those the machine
/// has: above 1, the tile spills (or stays in memory).
pub const REGISTER_PRESSURE: usize = 8 + CACHE_LEVELS;

/// The number of [`loop_nest_features`].
pub const LOOP_NEST_FEATURES: usize = REGISTER_PRESSURE + 2;

/// The decisions of a trace as numbers, in trace order: the base-2
/// logarithm of every tile factor, every categorical choice and compute
/// location. Traces drawn from one design space have the same instructions,
/// so position `k` means the same decision in each of them.
pub fn trace_decisions(trace: &str) -> Vec<f64> {
    let mut features = Vec::new();
    for line in trace.lines() {
        let Some(at) = line.rfind("decision=") else {
            continue;
        };
        let value = &line[at + "decision=".len()..];
        if let Some(list) = value.strip_prefix('[') {
            let items = list.split(']').next().unwrap_or_default();
            features.extend(
                items
                    .split(',')
                    .filter_map(|item| item.trim().parse::<f64>().ok())
                    .map(|factor| factor.max(1.0).log2()),
            );
        } else {
            let digits: String = value
                .chars()
                .take_while(|c| *c == '-' || c.is_ascii_digit())
                .collect();
            features.push(digits.parse::<f64>().unwrap_or(0.0));
        }
    }
    features
}

/// The constant extent of a loop (a symbolic one counts as 64).
fn extent_of(state: &ScheduleState, loop_id: NodeId) -> f64 {
    state
        .sref(loop_id)
        .and_then(|s| s.as_for())
        .and_then(|f| f.extent.as_int())
        .unwrap_or(64) as f64
}

/// Features of the loop nest of `entry` in a scheduled module, for the leaf
/// block that runs the most iterations (the kernel; the others are copies,
/// packs and epilogues, counted together), on `machine`. Logarithms base 2,
/// but for the register pressure and the vector fill (ratios).
pub fn loop_nest_features(
    module: &IRModule,
    entry: Option<&str>,
    machine: &CpuMachine,
) -> Vec<f64> {
    let mut features = vec![0.0; LOOP_NEST_FEATURES];
    let state = ScheduleState::new(module.clone());
    let Ok(function) = crate::schedule::get_block_loop::resolve_function(&state, entry) else {
        return features;
    };
    let Some(root) = state.root_block(function) else {
        return features;
    };
    let leaves: Vec<(NodeId, Vec<NodeId>, f64)> = state
        .descendant_blocks(root)
        .into_iter()
        .filter(|block| state.descendant_blocks(*block).is_empty())
        .map(|block| {
            let loops = state.enclosing_loops(block);
            let iterations = loops.iter().map(|l| extent_of(&state, *l)).product();
            (block, loops, iterations)
        })
        .collect();
    let Some(main) = leaves
        .iter()
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(block, loops, iterations)| (*block, loops.clone(), *iterations))
    else {
        return features;
    };
    let (block, loops, iterations) = main;
    let others: f64 = leaves
        .iter()
        .filter(|leaf| leaf.0 != block)
        .map(|leaf| leaf.2)
        .sum();
    let fors: Vec<&crate::ir::For> = loops
        .iter()
        .filter_map(|l| state.sref(*l).and_then(|s| s.as_for()))
        .collect();
    let product_of = |kind: ForKind| -> f64 {
        loops
            .iter()
            .zip(&fors)
            .filter(|(_, f)| f.kind == kind)
            .map(|(l, _)| extent_of(&state, *l))
            .product()
    };
    let lanes = match (loops.last(), fors.last()) {
        (Some(l), Some(f)) if f.kind == ForKind::Vectorized => extent_of(&state, *l),
        _ => 1.0,
    };
    let unroll_step = fors
        .iter()
        .flat_map(|f| f.annotations.iter())
        .filter(|(key, _)| key == "pragma_auto_unroll_max_step")
        .filter_map(|(_, value)| match value {
            AttrValue::Int(step) => Some(*step as f64),
            AttrValue::Expr(expr) => expr.as_int().map(|step| step as f64),
            _ => None,
        })
        .fold(0.0, f64::max);
    // The accumulator tile: the loops inside the innermost reduction loop.
    let reduction_loops = reduction_loop_flags(&state, block, &loops);
    let accumulators: f64 = match reduction_loops.iter().rposition(|r| *r) {
        Some(last) => loops[last + 1..]
            .iter()
            .map(|l| extent_of(&state, *l))
            .product(),
        None => 1.0,
    };
    features[0] = iterations.log2();
    features[1] = (1.0 + others).log2();
    features[2] = product_of(ForKind::Parallel).log2();
    features[3] = lanes.log2();
    features[4] = (1.0 + unroll_step).log2();
    features[5] = product_of(ForKind::Unrolled).log2();
    features[6] = accumulators.log2();
    features[7] = (accumulators / lanes).max(1.0).log2();
    let footprints = footprints_under_each_loop(&state, block, &loops, root);
    for (slot, cache) in machine.cache_bytes.iter().enumerate() {
        features[8 + slot] = traffic_beyond(&state, &loops, &footprints, *cache).log2();
    }
    // Registers, as a BLAS micro-kernel uses them: every accumulator, the
    // vectors of the row of inputs loaded for one step, and one broadcast.
    let bits = state
        .sref(block)
        .and_then(|s| s.as_block())
        .and_then(|b| b.writes.first())
        .map_or(32, |w| u32::from(w.buffer.dtype().bits));
    let vectors_a_row = machine.vectors_for(lanes, bits);
    let rows = (accumulators / lanes).max(1.0);
    let needed = rows * vectors_a_row + vectors_a_row + 1.0;
    features[REGISTER_PRESSURE] = needed / f64::from(machine.vector_registers);
    features[REGISTER_PRESSURE + 1] = if lanes > 1.0 {
        lanes * f64::from(bits) / (vectors_a_row * f64::from(machine.vector_bits))
    } else {
        0.0
    };
    features
}

/// For each loop above `block`, whether it iterates a reduction iterator.
fn reduction_loop_flags(state: &ScheduleState, block: NodeId, loops: &[NodeId]) -> Vec<bool> {
    loops
        .iter()
        .map(|l| crate::schedule::scope::loop_iter_use(state, *l, &[block]).reduction)
        .collect()
}

/// Bytes `block` touches under each of its loops (outermost first): every
/// region it reads or writes relaxed over that loop and the loops inside it.
fn footprints_under_each_loop(
    state: &ScheduleState,
    block: NodeId,
    loops: &[NodeId],
    root: NodeId,
) -> Vec<f64> {
    let Some(node) = state.sref(block).and_then(|s| s.as_block()) else {
        return vec![0.0; loops.len()];
    };
    (0..loops.len())
        .map(|depth| {
            let high = if depth == 0 { root } else { loops[depth - 1] };
            node.reads
                .iter()
                .chain(&node.writes)
                .map(|region| {
                    let relaxed = relax_region(state, block, region, high);
                    let elements: f64 = relaxed
                        .region
                        .iter()
                        .map(|range| range.extent.as_int().unwrap_or(64).max(1) as f64)
                        .product();
                    elements * region.buffer.dtype().bytes().max(1) as f64
                })
                .sum()
        })
        .collect()
}

/// Bytes that come from beyond a cache of `cache` bytes: the footprint of
/// the outermost loop whose footprint fits, times the iterations of the
/// loops outside it (reuse inside that loop is served by the cache).
fn traffic_beyond(state: &ScheduleState, loops: &[NodeId], footprints: &[f64], cache: f64) -> f64 {
    if loops.is_empty() {
        return 1.0;
    }
    let fits = footprints
        .iter()
        .position(|bytes| *bytes <= cache)
        .unwrap_or(loops.len() - 1);
    let outside: f64 = loops[..fits].iter().map(|l| extent_of(state, *l)).product();
    (outside * footprints[fits]).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse_program;
    use crate::schedule::{apply_schedule_with, ApplyOptions};
    use crate::source::SourceMap;

    #[test]
    fn decisions_become_numbers_in_trace_order() {
        let trace = "  v1, v2 = sch.sample_perfect_tile(loop=l0, n=2, max_innermost_factor=64, decision=[4, 16])\n  v3 = sch.sample_categorical(candidates=[0, 16], probs=[0.5, 0.5], decision=1)\n  v4 = sch.sample_compute_location(block=b2, decision=-1)\n  sch.parallel(loop=l5)";
        assert_eq!(trace_decisions(trace), vec![2.0, 4.0, 1.0, -1.0]);
    }

    const CACHES: [f64; 3] = [32768.0, 524288.0, 33554432.0];

    fn features_of(schedule: &str) -> Vec<f64> {
        let source = format!(
            r#"@T.prim_func
def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):
    for i, j, k in T.grid(256, 256, 256):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
def schedule(sch: T.Schedule):
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
{schedule}"#
        );
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "f.tir", &source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let run = apply_schedule_with(&program.unwrap(), None, &ApplyOptions::default());
        assert!(run.diagnostics.is_empty(), "{:?}", run.diagnostics);
        loop_nest_features(run.module(), None, &CpuMachine::avx2(CACHES))
    }

    #[test]
    fn the_loop_nest_shows_threads_lanes_accumulators_and_traffic() {
        let plain = features_of("    pass\n");
        assert_eq!(plain.len(), LOOP_NEST_FEATURES);
        assert_eq!(plain[0], 24.0, "256^3 iterations");
        assert_eq!((plain[2], plain[3], plain[6]), (0.0, 0.0, 0.0));
        let tiled = features_of(
            "    i0, i1 = sch.split(i, factors=[None, 8])\n    j0, j1 = sch.split(j, factors=[None, 16])\n    sch.reorder(i0, j0, k, i1, j1)\n    sch.parallel(i0)\n    sch.vectorize(j1)\n",
        );
        assert_eq!(tiled[0], 24.0);
        assert_eq!(tiled[2], 5.0, "32 rows of tiles in parallel");
        assert_eq!(tiled[3], 4.0, "16 lanes");
        assert_eq!(tiled[6], 7.0, "an 8x16 accumulator tile");
        assert_eq!(tiled[7], 3.0, "eight vectors of accumulators");
        // 8 rows of two ymm accumulators, the two vectors of B and a
        // broadcast: 19 registers of AVX2's 16.
        assert!(tiled[REGISTER_PRESSURE] > 1.0, "{tiled:?}");
        assert_eq!(tiled[REGISTER_PRESSURE + 1], 1.0, "full vectors");
        let fitting = features_of(
            "    i0, i1 = sch.split(i, factors=[None, 4])\n    j0, j1 = sch.split(j, factors=[None, 12])\n    sch.reorder(i0, j0, k, i1, j1)\n    sch.vectorize(j1)\n",
        );
        // 4 rows of 12 lanes (two ymm, the second half full): 8 + 2 + 1 registers.
        assert_eq!(fitting[REGISTER_PRESSURE], 11.0 / 16.0, "{fitting:?}");
        assert_eq!(fitting[REGISTER_PRESSURE + 1], 0.75);
        // The tiled nest reuses B's rows from the cache: less traffic
        // beyond the first level than the plain nest, which walks all of B
        // for every element of C.
        assert!(tiled[8] < plain[8], "{tiled:?} {plain:?}");
    }
}
