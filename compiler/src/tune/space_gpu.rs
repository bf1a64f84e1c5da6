//! The rules of the design space for a CUDA GPU, as MetaSchedule's CUDA
//! space generator applies them to each block that auto-inline left:
//!
//! - multi-level tiling `SSSRRSRS` of a reduction block that reads an input
//!   again across a spatial iterator (a matmul, a convolution): each
//!   spatial loop of constant extent split in five and each such reduction
//!   loop in three with
//!   `sample_perfect_tile`; the first three spatial levels fused and bound
//!   to `blockIdx.x`, `vthread.x` and `threadIdx.x`; the result accumulated
//!   in a `local` cache written back under the thread loop; every input
//!   staged in `shared` memory under the outer reduction level and fetched
//!   cooperatively (the copy's loops fused and split over the block's
//!   threads, with a sampled vector width: MetaSchedule's
//!   `RewriteCooperativeFetch`, written as steps of the space);
//! - cross-thread reduction of any other reduction block (a row sum, a
//!   softmax's maximum): the spatial loops fused and bound to `blockIdx.x`,
//!   the reduction loops fused and split over a sampled number of threads
//!   (a reduction the lowering cannot combine across threads, such as an
//!   argmax, is bound by its spatial loops and reduces serially);
//! - auto-bind of a spatial block: its loops fused and split over a sampled
//!   number of threads per block.

use super::space::{sample_uniform, LoopRole, NamedLoop};
use crate::ir::NodeId;
use crate::schedule::state::ScheduleState;
use std::fmt::Write as _;

/// The largest innermost tile of the GPU tiling (MetaSchedule's default).
pub const MAX_INNERMOST_FACTOR: i64 = 64;

/// The unroll depths the GPU space draws from (MetaSchedule's CUDA defaults).
pub const UNROLL_CANDIDATES: [i64; 5] = [0, 16, 64, 512, 1024];

/// Threads per block that auto-bind draws from (MetaSchedule's defaults).
const THREADS_PER_BLOCK: [i64; 6] = [32, 64, 128, 256, 512, 1024];

/// Threads across which cross-thread reduction splits a reduction.
const REDUCTION_THREADS: [i64; 8] = [4, 8, 16, 32, 64, 128, 256, 512];

/// Vector widths of a cooperative fetch, in elements.
const FETCH_VECTOR_WIDTHS: [i64; 3] = [1, 2, 4];

/// The rule for one block on a GPU; the name of its `blockIdx.x` loop,
/// which carries the unroll annotation, or why no rule binds the block to
/// threads (on a GPU a block left unbound has no kernel to run in).
pub(super) fn schedule_block(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    state: &ScheduleState,
    block: NodeId,
    block_var: &str,
    loops: &[NamedLoop],
) -> Result<String, String> {
    let reduction = loops.iter().any(|l| l.role == LoopRole::Reduction);
    if !reduction {
        return Ok(auto_bind(text, fresh, block_var, loops));
    }
    let reused = super::space::reused_inputs(state, block);
    let local_cache =
        crate::schedule::cache_read_write::cache_write(&mut state.clone(), block, 0, "local", &[])
            .is_ok();
    // Thread tiles need a spatial loop of constant extent to split.
    let tileable = loops
        .iter()
        .any(|l| l.role == LoopRole::Spatial && l.constant);
    if !reused.is_empty() && local_cache && tileable {
        return Ok(multi_level_tiling(
            text, fresh, state, block, block_var, loops,
        ));
    }
    // The cross-thread lowering combines `+ * min max` with their identity.
    let combinable = state
        .sref(block)
        .and_then(|s| s.as_block())
        .is_some_and(|b| crate::schedule::reducer::match_reducer(b).is_some());
    if combinable {
        return Ok(cross_thread_reduction(text, fresh, block_var, loops));
    }
    // Otherwise each thread reduces serially for its own outputs.
    let spatial: Vec<&NamedLoop> = loops
        .iter()
        .filter(|l| l.role == LoopRole::Spatial)
        .collect();
    if spatial.is_empty() {
        return Err(format!(
            "`{block_var}` reduces to a single value with a reduction that cannot be combined across threads (not `+ * min max` with its identity as init), so no rule binds it to GPU threads"
        ));
    }
    spatial_first(text, loops);
    let spatial: Vec<NamedLoop> = spatial.into_iter().cloned().collect();
    Ok(auto_bind(text, fresh, block_var, &spatial))
}

/// A `reorder` putting the spatial loops above the reduction loops, when
/// they are not.
fn spatial_first(text: &mut String, loops: &[NamedLoop]) {
    let first_reduction = loops.iter().position(|l| l.role == LoopRole::Reduction);
    let in_order = first_reduction
        .is_none_or(|first| loops[first..].iter().all(|l| l.role == LoopRole::Reduction));
    if in_order {
        return;
    }
    let order: Vec<&str> = loops
        .iter()
        .filter(|l| l.role == LoopRole::Spatial)
        .chain(loops.iter().filter(|l| l.role == LoopRole::Reduction))
        .map(|l| l.name.as_str())
        .collect();
    let _ = writeln!(text, "    sch.reorder({})", order.join(", "));
}

/// `SSSRRSRS` tiling with a local write cache and shared read caches.
fn multi_level_tiling(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    state: &ScheduleState,
    block: NodeId,
    block_var: &str,
    loops: &[NamedLoop],
) -> String {
    use LoopRole::{Reduction, Spatial};
    let structure = [
        Spatial, Spatial, Spatial, Reduction, Reduction, Spatial, Reduction, Spatial,
    ];
    let mut levels: Vec<Vec<String>> = vec![Vec::new(); structure.len()];
    // The sampled factor of each spatial loop's thread level: the cooperative
    // fetch splits over the same threads.
    let mut thread_factors: Vec<String> = Vec::new();
    for named in loops {
        let my_levels: Vec<usize> = (0..structure.len())
            .filter(|k| structure[*k] == named.role)
            .collect();
        if !named.constant {
            levels[my_levels[0]].push(named.name.clone());
            continue;
        }
        let parts: Vec<String> = (0..my_levels.len())
            .map(|k| fresh(format!("{}_{k}", named.name)))
            .collect();
        let factors: Vec<String> = (0..my_levels.len())
            .map(|k| fresh(format!("{}_t{k}", named.name)))
            .collect();
        let _ = writeln!(
            text,
            "    {} = sch.sample_perfect_tile({}, n={}, max_innermost_factor={MAX_INNERMOST_FACTOR})",
            factors.join(", "),
            named.name,
            parts.len()
        );
        let _ = writeln!(
            text,
            "    {} = sch.split({}, factors=[{}])",
            parts.join(", "),
            named.name,
            factors.join(", ")
        );
        if named.role == Spatial {
            thread_factors.push(factors[2].clone());
        }
        for (level, part) in my_levels.iter().zip(parts) {
            levels[*level].push(part);
        }
    }
    let order: Vec<&str> = levels.iter().flatten().map(String::as_str).collect();
    let _ = writeln!(text, "    sch.reorder({})", order.join(", "));
    let mut bound = Vec::new();
    for (level, tag) in ["blockIdx.x", "vthread.x", "threadIdx.x"]
        .into_iter()
        .enumerate()
    {
        if levels[level].is_empty() {
            continue;
        }
        let fused = fuse(
            text,
            fresh,
            format!("{block_var}_{}", tag.replace('.', "_")),
            &levels[level],
        );
        let _ = writeln!(text, "    sch.bind({fused}, \"{tag}\")");
        bound.push((tag, fused));
    }
    let thread_loop = bound
        .iter()
        .find(|(tag, _)| *tag == "threadIdx.x")
        .map(|(_, name)| name.clone());
    let Some(thread_loop) = thread_loop else {
        // Unreachable (a constant spatial loop fills every level); the
        // blocks still run one thread each.
        return bound[0].1.clone();
    };
    let local = fresh(format!("{block_var}_local"));
    let _ = writeln!(
        text,
        "    {local} = sch.cache_write({block_var}, 0, \"local\")\n    sch.reverse_compute_at({local}, {thread_loop}, preserve_unit_loops=True)"
    );
    if let Some(reduction_outer) = levels[3].last() {
        for (index, buffer) in super::space::read_inputs(state, block) {
            let rank = buffer.shape().len();
            if rank == 0 {
                continue;
            }
            let shared = fresh(format!(
                "{block_var}_{}_shared",
                super::space::identifier(buffer.name())
            ));
            let _ = writeln!(
                text,
                "    {shared} = sch.cache_read({block_var}, {index}, \"shared\", [{block_var}])\n    sch.compute_at({shared}, {reduction_outer}, preserve_unit_loops=True)"
            );
            cooperative_fetch(text, fresh, &shared, rank, &thread_factors);
        }
    }
    bound[0].1.clone()
}

/// The copy into shared memory spread over the block's threads: the copy's
/// `rank` loops fused, then split into the thread tile's factors (fused
/// again, bound to `threadIdx.x`) and a sampled vector width.
fn cooperative_fetch(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    shared: &str,
    rank: usize,
    thread_factors: &[String],
) {
    let loops = fresh(format!("{shared}_loops"));
    let copy: Vec<String> = (1..=rank).rev().map(|k| format!("{loops}[-{k}]")).collect();
    let fused = fresh(format!("{shared}_fused"));
    let width = fresh(format!("{shared}_vector"));
    let _ = writeln!(
        text,
        "    {loops} = sch.get_loops({shared})\n    {fused} = sch.fuse({})",
        copy.join(", ")
    );
    sample_uniform(text, &width, &FETCH_VECTOR_WIDTHS);
    let outer = fresh(format!("{shared}_outer"));
    let threads: Vec<String> = (0..thread_factors.len())
        .map(|k| fresh(format!("{shared}_thread{k}")))
        .collect();
    let lanes = fresh(format!("{shared}_lanes"));
    let _ = writeln!(
        text,
        "    {outer}, {}, {lanes} = sch.split({fused}, factors=[None, {}, {width}])",
        threads.join(", "),
        thread_factors.join(", ")
    );
    let thread = fuse(text, fresh, format!("{shared}_threadIdx_x"), &threads);
    let _ = writeln!(
        text,
        "    sch.bind({thread}, \"threadIdx.x\")\n    sch.vectorize({lanes})"
    );
}

/// A reduction spread over the threads of a block: spatial loops to
/// `blockIdx.x`, reduction loops fused and split over sampled threads.
fn cross_thread_reduction(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    prefix: &str,
    loops: &[NamedLoop],
) -> String {
    let of_role = |role: LoopRole| -> Vec<String> {
        loops
            .iter()
            .filter(|l| l.role == role)
            .map(|l| l.name.clone())
            .collect()
    };
    let (spatial, reduction) = (of_role(LoopRole::Spatial), of_role(LoopRole::Reduction));
    // The lowering needs the reduction loops right above the block.
    spatial_first(text, loops);
    let (block_loop, reduce) = if spatial.is_empty() {
        // A reduction to one value: a unit loop above it, bound to
        // `blockIdx.x`, makes its kernel (the accumulators need a GPU-bound
        // loop around them).
        let reduce = fuse(text, fresh, format!("{prefix}_reduce"), &reduction);
        let unit = fresh(format!("{prefix}_blockIdx_x"));
        let _ = writeln!(
            text,
            "    {unit} = sch.add_unit_loop({reduce})\n    sch.bind({unit}, \"blockIdx.x\")"
        );
        (unit, reduce)
    } else {
        let fused = fuse(text, fresh, format!("{prefix}_blockIdx_x"), &spatial);
        let _ = writeln!(text, "    sch.bind({fused}, \"blockIdx.x\")");
        (
            fused,
            fuse(text, fresh, format!("{prefix}_reduce"), &reduction),
        )
    };
    let threads = fresh(format!("{prefix}_threads"));
    let (serial, thread) = (fresh(format!("{reduce}_0")), fresh(format!("{reduce}_1")));
    sample_uniform(text, &threads, &REDUCTION_THREADS);
    let _ = writeln!(
        text,
        "    {serial}, {thread} = sch.split({reduce}, factors=[None, {threads}])\n    sch.bind({thread}, \"threadIdx.x\")"
    );
    block_loop
}

/// The loops `names` fused into one named after `base` (a single loop is
/// kept as it is); the name of the result.
fn fuse(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    base: String,
    names: &[String],
) -> String {
    if let [one] = names {
        return one.clone();
    }
    let fused = fresh(base);
    let _ = writeln!(text, "    {fused} = sch.fuse({})", names.join(", "));
    fused
}

/// A spatial block: every loop fused, split over a sampled number of
/// threads per block.
fn auto_bind(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    prefix: &str,
    loops: &[NamedLoop],
) -> String {
    let names: Vec<String> = loops.iter().map(|l| l.name.clone()).collect();
    let fused = fuse(text, fresh, format!("{prefix}_fused"), &names);
    let threads = fresh(format!("{prefix}_threads"));
    let (block_loop, thread) = (
        fresh(format!("{prefix}_blockIdx_x")),
        fresh(format!("{prefix}_threadIdx_x")),
    );
    sample_uniform(text, &threads, &THREADS_PER_BLOCK);
    let _ = writeln!(
        text,
        "    {block_loop}, {thread} = sch.split({fused}, factors=[None, {threads}])\n    sch.bind({block_loop}, \"blockIdx.x\")\n    sch.bind({thread}, \"threadIdx.x\")"
    );
    block_loop
}

#[cfg(test)]
mod tests {
    use super::super::search::{Sampler, SPACE_NAME};
    use super::super::space::tests::{sampled_schedules_compute_the_program, space_for};
    use super::super::space::SpaceTarget;

    /// An int32 matmul fed by an elementwise producer, a row sum of its
    /// result (no input read twice: a cross-thread reduction) and an
    /// elementwise consumer of the sum (bound as it is).
    const PROGRAM: &str = r#"@T.prim_func
def main(A: T.Buffer((24, 32), "int32"), B: T.Buffer((32, 40), "int32"), D: T.Buffer((24,), "int32")):
    A2 = T.alloc_buffer((24, 32), "int32")
    C = T.alloc_buffer((24, 40), "int32")
    S = T.alloc_buffer((24,), "int32")
    for i, k in T.grid(24, 32):
        with T.block("A2"):
            vi, vk = T.axis.remap("SS", [i, k])
            A2[vi, vk] = A[vi, vk] * 3
    for i, j, k in T.grid(24, 40, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A2[vi, vk] * B[vk, vj]
    for i, j in T.grid(24, 40):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + C[vi, j]
    for i in range(24):
        with T.block("D"):
            vi = T.axis.spatial(24, i)
            D[vi] = S[vi] * 2
"#;

    fn gpu_space_of(source: &str) -> (String, String) {
        space_for(source, SpaceTarget::Cuda)
    }

    #[test]
    fn reuse_is_tiled_over_blocks_virtual_threads_and_threads_with_shared_stages() {
        let (_, space) = gpu_space_of(PROGRAM);
        assert!(
            space.contains("sch.compute_inline(sch.get_block(\"A2\"))"),
            "{space}"
        );
        // SSSRRSRS: spatial loops in five, the reduction in three.
        assert!(
            space.contains("sch.reorder(C_i_0, C_j_0, C_i_1, C_j_1, C_i_2, C_j_2, C_k_0, C_k_1, C_i_3, C_j_3, C_k_2, C_i_4, C_j_4)"),
            "{space}"
        );
        for (level, tag) in [
            ("blockIdx_x", "blockIdx.x"),
            ("vthread_x", "vthread.x"),
            ("threadIdx_x", "threadIdx.x"),
        ] {
            assert!(
                space.contains(&format!("sch.bind(b_C_{level}, \"{tag}\")")),
                "{space}"
            );
        }
        assert!(
            space.contains("b_C_local = sch.cache_write(b_C, 0, \"local\")\n    sch.reverse_compute_at(b_C_local, b_C_threadIdx_x, preserve_unit_loops=True)"),
            "{space}"
        );
        // Both inputs staged under the outer reduction level, fetched by
        // the same threads as the tile's (its thread-level factors).
        for (index, name) in [(0, "A"), (1, "B")] {
            let shared = format!("b_C_{name}_shared");
            assert!(
                space.contains(&format!("{shared} = sch.cache_read(b_C, {index}, \"shared\", [b_C])\n    sch.compute_at({shared}, C_k_0, preserve_unit_loops=True)")),
                "{space}"
            );
            assert!(
                space.contains(&format!(
                    "sch.split({shared}_fused, factors=[None, C_i_t2, C_j_t2, {shared}_vector])"
                )),
                "{space}"
            );
            assert!(
                space.contains(&format!("sch.bind({shared}_threadIdx_x, \"threadIdx.x\")")),
                "{space}"
            );
        }
    }

    #[test]
    fn other_reductions_go_across_threads_and_spatial_blocks_are_bound() {
        let (_, space) = gpu_space_of(PROGRAM);
        assert!(space.contains("sch.bind(S_i, \"blockIdx.x\")"), "{space}");
        assert!(
            space.contains("S_j_0, S_j_1 = sch.split(S_j, factors=[None, b_S_threads])\n    sch.bind(S_j_1, \"threadIdx.x\")"),
            "{space}"
        );
        assert!(
            space.contains(
                "b_D_blockIdx_x, b_D_threadIdx_x = sch.split(D_i, factors=[None, b_D_threads])"
            ),
            "{space}"
        );
        assert!(
            space.contains(
                "sch.annotate(b_D_blockIdx_x, \"pragma_auto_unroll_max_step\", b_D_unroll)"
            ),
            "{space}"
        );
        // No CPU rule leaks in.
        for cpu in ["parallel", "\"global\"", "sample_compute_location"] {
            assert!(!space.contains(cpu), "{cpu} in {space}");
        }
    }

    #[test]
    fn every_sampled_gpu_schedule_computes_the_program() {
        let (text, _) = gpu_space_of(PROGRAM);
        sampled_schedules_compute_the_program(&text, 10);
    }

    /// Two matmuls sharing an input, a column sum written with its
    /// reduction loop outside, and a sum to a scalar.
    const SHARED_AND_UNORDERED: &str = r#"@T.prim_func
def main(X: T.Buffer((16, 24), "int32"), W1: T.Buffer((24, 8), "int32"), W2: T.Buffer((24, 8), "int32"), Y1: T.Buffer((16, 8), "int32"), Y2: T.Buffer((16, 8), "int32"), Col: T.Buffer((24,), "int32"), Total: T.Buffer((1,), "int32")):
    for i, j, k in T.grid(16, 8, 24):
        with T.block("Y1"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y1[vi, vj] = 0
            Y1[vi, vj] = Y1[vi, vj] + X[vi, vk] * W1[vk, vj]
    for i, j, k in T.grid(16, 8, 24):
        with T.block("Y2"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y2[vi, vj] = 0
            Y2[vi, vj] = Y2[vi, vj] + X[vi, vk] * W2[vk, vj]
    for k, j in T.grid(16, 24):
        with T.block("Col"):
            vk, vj = T.axis.remap("RS", [k, j])
            with T.init():
                Col[vj] = 0
            Col[vj] = Col[vj] + X[vk, vj]
    for i, k in T.grid(16, 24):
        with T.block("Total"):
            vi, vk = T.axis.remap("RR", [i, k])
            with T.init():
                Total[0] = 0
            Total[0] = Total[0] + X[vi, vk]
"#;

    #[test]
    fn shared_inputs_unordered_loops_and_scalar_sums_get_schedules_that_compute() {
        let (text, space) = gpu_space_of(SHARED_AND_UNORDERED);
        // The stage of X is Y1's alone: Y2 reads X too.
        assert!(
            space.contains("b_Y1_X_shared = sch.cache_read(b_Y1, 0, \"shared\", [b_Y1])"),
            "{space}"
        );
        assert!(space.contains("sch.reorder(Col_j, Col_k)"), "{space}");
        // A scalar sum: a unit loop makes its kernel.
        assert!(
            space.contains("b_Total_blockIdx_x = sch.add_unit_loop(b_Total_reduce)\n    sch.bind(b_Total_blockIdx_x, \"blockIdx.x\")"),
            "{space}"
        );
        sampled_schedules_compute_the_program(&text, 6);
        let sampler = Sampler::new(
            SHARED_AND_UNORDERED,
            &space.replacen("def space", &format!("def {SPACE_NAME}"), 1),
            None,
        )
        .unwrap()
        .for_target(&crate::codegen::Target::Cuda(Default::default()));
        // Narrow blocks with large register tiles are refused by design;
        // every other draw compiles.
        let mut compiled = 0;
        for seed in 1..=12 {
            match sampler.sample(seed) {
                Ok(_) => compiled += 1,
                Err(e) => assert!(
                    e.contains("fewer than a warp"),
                    "seed {seed} does not compile for CUDA: {e}"
                ),
            }
        }
        assert!(compiled >= 6, "{compiled} of 12 draws compile for CUDA");
    }

    #[test]
    fn a_block_no_rule_binds_is_refused_on_a_gpu() {
        let in_place = r#"@T.prim_func
def main(A: T.Buffer((16, 16), "int32")):
    for i, j in T.grid(16, 16):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = A[vi, vj] + 1
"#;
        let mut sources = crate::source::SourceMap::new();
        let (program, _) = crate::frontend::parse_program(&mut sources, "in_place.tir", in_place);
        let module = program.unwrap().module;
        let machine = super::super::space::tests::AVX2;
        let error =
            super::super::space::design_space(&module, None, "space", SpaceTarget::Cuda, &machine)
                .expect_err("an in-place update has no GPU rule");
        assert!(
            error.contains("block `A`") && error.contains("in place"),
            "{error}"
        );
    }

    #[test]
    fn the_gpu_sampler_rejects_what_does_not_compile_for_cuda() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
"#;
        let space = format!(
            "def {SPACE_NAME}(sch: T.Schedule):\n    i, j = sch.get_loops(sch.get_block(\"B\"))\n    sch.bind(i, \"blockIdx.x\")\n    sch.bind(j, \"threadIdx.x\")\n"
        );
        let cuda = crate::codegen::Target::Cuda(Default::default());
        let fits = Sampler::new(source, &space, None).unwrap();
        assert!(fits.for_target(&cuda).sample(1).is_ok());
        // 64x64 threads in a block, over CUDA's 1,024.
        let oversized = space.replace(
            "sch.bind(i, \"blockIdx.x\")",
            "sch.bind(i, \"threadIdx.y\")",
        );
        let cpu = Sampler::new(source, &oversized, None).unwrap();
        assert!(cpu.sample(1).is_ok(), "a CPU runs thread loops as loops");
        let gpu = Sampler::new(source, &oversized, None)
            .unwrap()
            .for_target(&cuda);
        let error = gpu.sample(1).expect_err("4,096 threads in a block");
        assert!(error.contains("4096"), "{error}");
    }

    // The sampler's GPU rules read the CUDA C the backend writes.
    #[cfg(feature = "cuda")]
    #[test]
    fn the_gpu_sampler_draws_no_shared_tiles_for_blocks_under_a_warp() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((64, 2048), "float32"), B: T.Buffer((64, 2048), "float32")):
    for i, j in T.grid(64, 2048):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
"#;
        // Each thread keeps 2048 / threads values in registers.
        let space = |threads: i64| {
            format!(
                r#"def {SPACE_NAME}(sch: T.Schedule):
    b = sch.get_block("B")
    i, j = sch.get_loops(b)
    j_0, j_1 = sch.split(j, [{threads}, None])
    s = sch.cache_read(b, 0, "shared")
    sch.compute_at(s, i)
    c = sch.cache_write(b, 0, "local")
    sch.reverse_compute_at(c, j_0)
    sch.bind(i, "blockIdx.x")
    sch.bind(j_0, "threadIdx.x")
    a = sch.get_loops(s)[-1]
    a_0, a_1 = sch.split(a, [None, {threads}])
    sch.bind(a_1, "threadIdx.x")
"#
            )
        };
        let cuda = crate::codegen::Target::Cuda(Default::default());
        let warp = Sampler::new(source, &space(64), None).unwrap();
        let drawn = warp.for_target(&cuda).sample(1);
        assert!(drawn.is_ok(), "{:?}", drawn.err());
        let half_warp = Sampler::new(source, &space(16), None).unwrap();
        let error = half_warp
            .for_target(&cuda)
            .sample(1)
            .expect_err("16 threads staging a shared tile");
        assert!(error.contains("fewer than a warp"), "{error}");
        // One thread with 2048 values in registers: past a thread's registers.
        let error = Sampler::new(source, &space(1), None)
            .unwrap()
            .for_target(&cuda)
            .sample(1)
            .expect_err("8 KiB of registers a thread");
        assert!(error.contains("more than its registers hold"), "{error}");
    }
}
