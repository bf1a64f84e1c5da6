//! The design space `tirc tune` searches: a schedule section with sampling
//! instructions, built by rules applied to each block of the program as
//! written, as MetaSchedule's post-order space generator builds one. For a
//! GPU, auto-inline also inlines padding stages, the unroll depths reach
//! 1,024, and the other rules are in [`super::space_gpu`]; for a CPU:
//!
//! - auto-inline: a spatial block that `compute_inline` accepts is inlined
//!   into its consumers, unless it computes a condition (a padding stage)
//!   or an exponential;
//! - rfactor-vectorize (tirc's own) of a reduction that reads nothing again
//!   across a spatial iterator, with its reduction innermost (a row sum, a
//!   softmax's maximum): the innermost reduction loop split and its inner
//!   part factored out by `rfactor`, vectorized, the rows in parallel;
//! - multi-level tiling (`SSRSRS`) of every other block with a reduction:
//!   each spatial loop split in four and each reduction loop in two, with
//!   `sample_perfect_tile`, reordered `S S R S R S`, the result written
//!   through a `global` cache stage placed under the second spatial level;
//! - packing: each input the tiled block reads again across a spatial
//!   iterator is copied by a `cache_read` stage at a sampled compute
//!   location (`inline`, no copy, is one of the choices);
//! - random compute location: a spatial stage that was not inlined goes
//!   where a sampled compute location puts it;
//! - parallelize, vectorize, unroll: the outer spatial loops fused and run
//!   in parallel, the innermost spatial loop vectorized, and a sampled
//!   `pragma_auto_unroll_max_step` on the outer loop.
//!
//! The space prints as a readable `def` (`tirc tune --print-space`); every
//! seed, or every set of decisions, gives one schedule of it.

use super::machine::CpuMachine;
use crate::ir::{IRModule, IterKind, NodeId};
use crate::schedule::scope::LoopIterUse;
use crate::schedule::state::ScheduleState;
use std::fmt::Write as _;

/// The largest innermost tile `sample_perfect_tile` draws (MetaSchedule's
/// CPU default).
pub const MAX_INNERMOST_FACTOR: i64 = 64;

/// The shallowest reduction depth drawn beside 1 (see [`MicroKernel`]):
/// shallower ones reload the accumulators every few steps.
const MIN_REDUCTION_DEPTH: i64 = 8;

/// The unroll depths the space draws from (MetaSchedule's CPU defaults).
pub const UNROLL_CANDIDATES: [i64; 4] = [0, 16, 64, 512];

/// The kind of machine a design space is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceTarget {
    /// A CPU through the LLVM backend.
    Cpu,
    /// A CUDA GPU.
    Cuda,
}

/// How a loop iterates a block: by its spatial or its reduction iterators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LoopRole {
    Spatial,
    Reduction,
    /// Both, neither, or an iterator that is neither kind: left as it is.
    Other,
}

/// One loop of a block, as the script names it.
#[derive(Clone)]
pub(super) struct NamedLoop {
    pub(super) name: String,
    pub(super) role: LoopRole,
    /// Its extent is a constant: only such loops are tiled (a symbolic
    /// extent stays one loop, in the outermost level of its kind).
    pub(super) constant: bool,
}

/// A Python identifier made from a block or loop name.
pub(super) fn identifier(text: &str) -> String {
    let mut name: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

fn python_string(text: &str) -> String {
    crate::schedule::trace::python_string(text)
}

/// What each loop above `block` does for it.
fn loop_roles(state: &ScheduleState, block: NodeId) -> Vec<(NodeId, LoopRole)> {
    state
        .enclosing_loops(block)
        .into_iter()
        .map(|loop_id| {
            let role = match crate::schedule::scope::loop_iter_use(state, loop_id, &[block]) {
                LoopIterUse {
                    spatial: true,
                    reduction: false,
                    other: false,
                } => LoopRole::Spatial,
                LoopIterUse {
                    spatial: false,
                    reduction: true,
                    other: false,
                } => LoopRole::Reduction,
                _ => LoopRole::Other,
            };
            (loop_id, role)
        })
        .collect()
}

/// True when the block's body picks between values (`if_then_else`, a
/// padding stage) or computes an exponential: MetaSchedule's CPU
/// auto-inline leaves such a block standing (`disallow_if_then_else`,
/// `disallow_op=["tir.exp"]`), since inlined the condition lands in the
/// innermost loop of its consumer and the exponential is computed again by
/// every consumer (softmax's, twice: 1.66 ms instead of 0.88 on a 1024x1024
/// softmax here).
fn kept_from_inlining(state: &ScheduleState, block: NodeId) -> bool {
    let Some(node) = state.sref(block).and_then(|s| s.as_block()) else {
        return false;
    };
    let mut found = false;
    crate::ir::visit::walk_exprs_in_stmt(&node.body, &mut |expr| {
        if let crate::ir::ExprKind::Call { op, .. } = expr.kind() {
            found |= matches!(op.name(), "if_then_else" | "exp");
        }
    });
    found
}

/// The design space of the entry function of `module` for a CPU `machine`,
/// as the text of a schedule `def` named `name`.
pub fn cpu_design_space(
    module: &IRModule,
    entry: Option<&str>,
    name: &str,
    machine: &CpuMachine,
) -> Result<String, String> {
    design_space(module, entry, name, SpaceTarget::Cpu, machine)
}

/// The design space of the entry function of `module` for `target`, as the
/// text of a schedule `def` named `name`; on a CPU, the micro-kernel tiles
/// are drawn for `machine`'s vector registers.
pub fn design_space(
    module: &IRModule,
    entry: Option<&str>,
    name: &str,
    target: SpaceTarget,
    machine: &CpuMachine,
) -> Result<String, String> {
    let mut state = ScheduleState::new(module.clone());
    let function = crate::schedule::get_block_loop::resolve_function(&state, entry)
        .map_err(|e| e.message.clone())?;
    let function_name = state.module().functions[function].name.clone();
    let root = state.root_block(function).ok_or_else(|| {
        format!("`{function_name}` has no blocks: the design space needs block-level TensorIR")
    })?;
    let mut text = format!("def {name}(sch: T.Schedule):\n");
    let mut used: std::collections::HashSet<String> = Default::default();
    let mut fresh = |base: String| {
        let mut candidate = base.clone();
        let mut counter = 1;
        while !used.insert(candidate.clone()) {
            candidate = format!("{base}_{counter}");
            counter += 1;
        }
        candidate
    };
    let block_name = |state: &ScheduleState, block: NodeId| {
        state
            .sref(block)
            .and_then(|s| s.as_block())
            .map(|b| b.name.clone())
            .unwrap_or_default()
    };

    // Auto-inline: spatial leaf blocks that compute_inline accepts (on a
    // GPU, padding stages too: MetaSchedule's CUDA auto-inline allows them).
    let mut rules_applied = 0;
    for block in state.child_blocks(root) {
        let is_spatial = state
            .sref(block)
            .and_then(|s| s.as_block())
            .is_some_and(|b| {
                b.iter_vars
                    .iter()
                    .all(|iter| iter.kind == IterKind::Spatial)
            });
        if !is_spatial
            || !state.descendant_blocks(block).is_empty()
            || (target == SpaceTarget::Cpu && kept_from_inlining(&state, block))
        {
            continue;
        }
        let mut trial = state.clone();
        if crate::schedule::compute_inline::compute_inline(&mut trial, block).is_ok() {
            let _ = writeln!(
                text,
                "    sch.compute_inline(sch.get_block({}))",
                python_string(&block_name(&state, block))
            );
            state = trial;
            rules_applied += 1;
        }
    }

    let Some(root) = state.root_block(function) else {
        return Err("the function lost its root block".to_string());
    };
    for block in state.child_blocks(root) {
        let name_in_program = block_name(&state, block);
        let roles = loop_roles(&state, block);
        // Parallel and vectorized loops, and thread bindings, need a
        // complete or a reduction block under them (one that reads what it
        // writes in place is neither).
        let settled = |roles: &[(NodeId, LoopRole)]| {
            let outermost = roles[0].0;
            crate::schedule::scope::complete_block_violation(&state, block, outermost) == 0
                || crate::schedule::scope::reduction_block_violation(&state, block, outermost) == 0
        };
        let skipped = if !state.descendant_blocks(block).is_empty() {
            Some("it has blocks nested in it")
        } else if roles.is_empty() {
            Some("it has no loops")
        } else if roles.iter().any(|(_, role)| *role == LoopRole::Other) {
            Some("a loop above it drives both spatial and reduction iterators, or neither")
        } else if !settled(&roles) {
            Some("it is neither a complete nor a reduction block (it updates a buffer in place)")
        } else {
            None
        };
        if let Some(why) = skipped {
            // On a CPU the block runs as it is; on a GPU it would have no kernel.
            if target == SpaceTarget::Cuda {
                return Err(format!(
                    "no rule of the GPU design space binds block `{name_in_program}` to threads: {why}"
                ));
            }
            continue;
        }
        let block_var = fresh(format!("b_{}", identifier(&name_in_program)));
        let _ = writeln!(
            text,
            "    {block_var} = sch.get_block({})",
            python_string(&name_in_program)
        );
        let loops: Vec<NamedLoop> = roles
            .iter()
            .map(|(loop_id, role)| {
                let loop_name = state
                    .sref(*loop_id)
                    .and_then(|s| s.as_for())
                    .map(|f| f.loop_var.name().to_string())
                    .unwrap_or_default();
                let constant = state
                    .sref(*loop_id)
                    .and_then(|s| s.as_for())
                    .is_some_and(|f| f.extent.as_int().is_some());
                NamedLoop {
                    name: fresh(format!(
                        "{}_{}",
                        identifier(&name_in_program),
                        identifier(&loop_name)
                    )),
                    role: *role,
                    constant,
                }
            })
            .collect();
        let names: Vec<&str> = loops.iter().map(|l| l.name.as_str()).collect();
        let targets = match names.as_slice() {
            [one] => format!("{one},"),
            many => many.join(", "),
        };
        let _ = writeln!(text, "    {targets} = sch.get_loops({block_var})");
        let reduction = loops.iter().any(|l| l.role == LoopRole::Reduction);
        let outer = if target == SpaceTarget::Cuda {
            super::space_gpu::schedule_block(
                &mut text, &mut fresh, &state, block, &block_var, &loops,
            )?
        } else if let Some(rank) = rfactor_fits(&state, block, &roles) {
            rfactor_vectorize(&mut text, &mut fresh, &block_var, &loops, rank)
        } else if reduction {
            // A buffer with several writers (an in-place epilogue) gets no cache stage.
            let cache_write = crate::schedule::cache_read_write::cache_write(
                &mut state.clone(),
                block,
                0,
                "global",
                &[],
            )
            .is_ok();
            let kernel = MicroKernel::for_block(&state, block, &loops, machine);
            let outer = multi_level_tiling(
                &mut text,
                &mut fresh,
                &block_var,
                &loops,
                cache_write,
                &kernel,
            );
            if cache_write {
                pack_reused_inputs(&mut text, &mut fresh, &state, block, &block_var);
            }
            outer
        } else {
            spatial_parallel_vectorize(&mut text, &mut fresh, &loops)
        };
        let unroll = fresh(format!("{block_var}_unroll"));
        let unroll_depths = match target {
            SpaceTarget::Cpu => &UNROLL_CANDIDATES[..],
            SpaceTarget::Cuda => &super::space_gpu::UNROLL_CANDIDATES[..],
        };
        sample_uniform(&mut text, &unroll, unroll_depths);
        let _ = writeln!(
            text,
            "    sch.annotate({outer}, \"pragma_auto_unroll_max_step\", {unroll})"
        );
        let _ = writeln!(
            text,
            "    sch.annotate({outer}, \"pragma_unroll_explicit\", 1)"
        );
        rules_applied += 1;
    }
    // Random compute location: a spatial stage left standing (a padding
    // stage) goes where a sampled location puts it, the root included.
    // After the tiling of its consumers, as MetaSchedule applies it. Not on
    // a GPU, where a stage at the root is a kernel of its own.
    let cpu = target == SpaceTarget::Cpu;
    if let Some(root) = state.root_block(function).filter(|_| cpu) {
        for block in state.child_blocks(root) {
            let spatial = state
                .sref(block)
                .and_then(|s| s.as_block())
                .is_some_and(|b| b.iter_vars.iter().all(|i| i.kind == IterKind::Spatial));
            let consumed = crate::schedule::get_block_loop::get_consumers(&state, block)
                .is_ok_and(|consumers| !consumers.is_empty());
            if !spatial || !consumed || !state.descendant_blocks(block).is_empty() {
                continue;
            }
            let name_in_program = block_name(&state, block);
            let block_var = fresh(format!("b_{}", identifier(&name_in_program)));
            let location = fresh(format!("{block_var}_at"));
            let _ = writeln!(
                text,
                "    {block_var} = sch.get_block({})\n    {location} = sch.sample_compute_location({block_var})\n    sch.compute_at({block_var}, {location})",
                python_string(&name_in_program)
            );
        }
    }
    if rules_applied == 0 {
        return Err(format!(
            "no rule applies to `{function_name}`: its blocks have nested blocks or loops that are neither spatial nor reduction loops"
        ));
    }
    Ok(text)
}

/// The innermost tile a CPU micro-kernel may have, as a BLAS library
/// shapes it: the columns (the last spatial loop, vectorized) a whole
/// number of vector registers wide, the rows few enough that one row of
/// accumulators per row, the row of inputs and a broadcast fit the
/// register file. Candidates divide the loops' extents; a tile of both
/// that still does not fit is set aside by the search (it spills). Each
/// constant reduction also gets its depth under the kernel.
struct MicroKernel {
    /// (loop position, candidate innermost factors) for the rows, the
    /// columns and the reductions' depths.
    choices: Vec<(usize, Vec<i64>)>,
}

impl MicroKernel {
    fn for_block(
        state: &ScheduleState,
        block: NodeId,
        loops: &[NamedLoop],
        machine: &CpuMachine,
    ) -> MicroKernel {
        let extents: Vec<Option<i64>> = state
            .enclosing_loops(block)
            .iter()
            .map(|l| {
                state
                    .sref(*l)
                    .and_then(|s| s.as_for())
                    .and_then(|f| f.extent.as_int())
            })
            .collect();
        let bits = state
            .sref(block)
            .and_then(|s| s.as_block())
            .and_then(|b| b.writes.first())
            .map_or(32, |w| i64::from(w.buffer.dtype().bits));
        let lanes = (i64::from(machine.vector_bits) / bits.max(1)).max(1);
        let registers = i64::from(machine.vector_registers);
        let spatial: Vec<usize> = (0..loops.len())
            .filter(|k| loops[*k].role == LoopRole::Spatial && loops[*k].constant)
            .collect();
        let divisors = |extent: i64, keep: &dyn Fn(i64) -> bool| -> Vec<i64> {
            (1..=extent.min(MAX_INNERMOST_FACTOR))
                .filter(|d| extent % d == 0 && keep(*d))
                .collect()
        };
        let mut choices = Vec::new();
        let Some((&columns, rest)) = spatial.split_last() else {
            return MicroKernel { choices };
        };
        // One row of `v` vectors: v accumulators, v inputs and a broadcast.
        let widths = divisors(extents[columns].unwrap_or(1), &|d| {
            d % lanes == 0 && 2 * (d / lanes) < registers
        });
        if widths.is_empty() {
            return MicroKernel { choices };
        }
        if let Some(&rows) = rest.last() {
            // Rows of one vector each, with one input vector and a broadcast.
            let heights = divisors(extents[rows].unwrap_or(1), &|d| d + 2 <= registers);
            choices.push((rows, heights));
        }
        choices.push((columns, widths));
        // The depth of each reduction: how many steps the accumulators stay
        // in registers between the cache's loads and stores. A BLAS runs the
        // whole panel (kc in the hundreds) while one vector column of B over
        // it stays within half the L2; sample_perfect_tile rarely draws such
        // depths (1024 = 1 x 1024 is one draw in 2^10), so they are drawn
        // uniformly here, 1 (the whole reduction at the outer level) included.
        let bytes = (bits.max(8) / 8) as f64;
        for (position, named) in loops.iter().enumerate() {
            if named.role != LoopRole::Reduction || !named.constant {
                continue;
            }
            let extent = extents[position].unwrap_or(1);
            let depths: Vec<i64> = (1..=extent)
                .filter(|d| extent % d == 0 && (*d == 1 || *d >= MIN_REDUCTION_DEPTH.min(extent)))
                .filter(|d| (*d * lanes) as f64 * bytes <= machine.cache_bytes[1] / 2.0)
                .collect();
            if depths.len() > 1 {
                choices.push((position, depths));
            }
        }
        MicroKernel { choices }
    }

    fn candidates_for(&self, position: usize) -> Option<&[i64]> {
        self.choices
            .iter()
            .find(|(at, _)| *at == position)
            .map(|(_, candidates)| candidates.as_slice())
    }
}

/// `SSRSRS` tiling of a reduction block; the name of its outer (parallel)
/// loop. The innermost factors of the micro-kernel's rows and columns are
/// drawn from `kernel`'s candidates, the outer levels with
/// `sample_perfect_tile`.
fn multi_level_tiling(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    block_var: &str,
    loops: &[NamedLoop],
    cache_write: bool,
    kernel: &MicroKernel,
) -> String {
    // levels[k]: the loops of tiling level k, in the loops' order.
    let structure = [
        LoopRole::Spatial,
        LoopRole::Spatial,
        LoopRole::Reduction,
        LoopRole::Spatial,
        LoopRole::Reduction,
        LoopRole::Spatial,
    ];
    let mut levels: Vec<Vec<String>> = vec![Vec::new(); structure.len()];
    for (position, named) in loops.iter().enumerate() {
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
        let tiles = fresh(format!("{}_tiles", named.name));
        let mut tiled = named.name.clone();
        let mut outer_parts = &parts[..];
        if let Some(candidates) = kernel.candidates_for(position) {
            let kind = match named.role {
                LoopRole::Reduction => "depth",
                _ => "kernel",
            };
            let choice = fresh(format!("{}_{kind}", named.name));
            sample_uniform(text, &choice, candidates);
            let (innermost, rest) = parts
                .split_last()
                .expect("a tiled loop has two levels or more");
            // With one level left outside the kernel, the split makes it.
            let outer = match rest {
                [only] => only.clone(),
                _ => fresh(format!("{}_outer", named.name)),
            };
            let _ = writeln!(
                text,
                "    {outer}, {innermost} = sch.split({}, factors=[None, {choice}])",
                named.name
            );
            tiled = outer;
            outer_parts = if rest.len() == 1 { &[] } else { rest };
        }
        if !outer_parts.is_empty() {
            let _ = writeln!(
                text,
                "    {tiles} = sch.sample_perfect_tile({tiled}, n={}, max_innermost_factor={MAX_INNERMOST_FACTOR})",
                outer_parts.len()
            );
            let _ = writeln!(
                text,
                "    {} = sch.split({tiled}, factors={tiles})",
                outer_parts.join(", ")
            );
        }
        for (level, part) in my_levels.iter().zip(parts) {
            levels[*level].push(part);
        }
    }
    let order: Vec<&str> = levels.iter().flatten().map(String::as_str).collect();
    let _ = writeln!(text, "    sch.reorder({})", order.join(", "));
    if cache_write && !(levels[0].is_empty() && levels[1].is_empty()) {
        let cache = fresh(format!("{block_var}_global"));
        let _ = writeln!(
            text,
            "    {cache} = sch.cache_write({block_var}, 0, \"global\")"
        );
        // Under the second spatial level, or the first when no loop has one.
        let second_spatial = levels[1]
            .last()
            .or(levels[0].last())
            .cloned()
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "    sch.reverse_compute_at({cache}, {second_spatial}, preserve_unit_loops=True)"
        );
    }
    let outer = fresh(format!("{block_var}_outer"));
    // A block without spatial loops (a reduction to a scalar) runs serially.
    let outermost = if levels[0].is_empty() {
        &levels[2]
    } else {
        &levels[0]
    };
    let _ = writeln!(text, "    {outer} = sch.fuse({})", outermost.join(", "));
    if !levels[0].is_empty() {
        let _ = writeln!(text, "    sch.parallel({outer})");
    }
    if let Some(innermost) = levels[5].last() {
        let _ = writeln!(text, "    sch.vectorize({innermost})");
    }
    outer
}

/// Packing: every input the reduction block reads again across one of its
/// spatial iterators (matmul's `B`, read whole for every row of `C`) is
/// copied by a `global` cache stage placed at a sampled compute location, so
/// the tile loops walk a contiguous copy instead of rows a page apart. The
/// location's candidates include `inline`, which keeps reading the input:
/// the search decides whether a copy pays.
fn pack_reused_inputs(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    state: &ScheduleState,
    block: NodeId,
    block_var: &str,
) {
    for (index, buffer) in reused_inputs(state, block) {
        let pack = fresh(format!("{block_var}_{}_packed", identifier(buffer.name())));
        let _ = writeln!(
            text,
            "    {pack} = sch.cache_read({block_var}, {index}, \"global\")"
        );
        let location = fresh(format!("{pack}_at"));
        let _ = writeln!(text, "    {location} = sch.sample_compute_location({pack})");
        let _ = writeln!(text, "    sch.compute_at({pack}, {location})");
    }
}

/// When the rfactor-vectorize rule fits `block`, the rank of its output
/// (where the factor axis goes): a reduction that reads no input again
/// across a spatial iterator (nothing for tiles to reuse), whose loops are
/// spatial then reduction with the innermost of constant extent, and whose
/// reduction `rfactor` accepts.
fn rfactor_fits(state: &ScheduleState, block: NodeId, roles: &[(NodeId, LoopRole)]) -> Option<i64> {
    let first_reduction = roles.iter().position(|(_, r)| *r == LoopRole::Reduction)?;
    let (innermost, _) = *roles.last()?;
    let constant = state
        .sref(innermost)
        .and_then(|s| s.as_for())
        .is_some_and(|f| f.extent.as_int().is_some());
    if !constant
        || roles[first_reduction..]
            .iter()
            .any(|(_, r)| *r != LoopRole::Reduction)
        || !reused_inputs(state, block).is_empty()
    {
        return None;
    }
    let node = state.sref(block).and_then(|s| s.as_block())?;
    let rank = node.writes.first()?.buffer.shape().len() as i64;
    crate::schedule::rfactor::rfactor(&mut state.clone(), innermost, rank)
        .ok()
        .map(|_| rank)
}

/// rfactor-vectorize (tirc's rule, for a row reduction such as softmax's
/// maximum and sum): the innermost reduction loop split with
/// `sample_perfect_tile` and its inner part factored out by `rfactor` (the
/// factor axis last, so the partial results of a row are contiguous). In
/// the new `_rf` block that part is a spatial loop, innermost, vectorized:
/// each lane reduces its own column of the row, which is read
/// contiguously. The spatial loops of both blocks run in parallel. Returns
/// the `_rf` block's parallel loop, or its outermost loop when it has no
/// spatial loop.
fn rfactor_vectorize(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    block_var: &str,
    loops: &[NamedLoop],
    rank: i64,
) -> String {
    let innermost = &loops[loops.len() - 1].name;
    let tiles = fresh(format!("{innermost}_tiles"));
    let (outer_part, lanes) = (
        fresh(format!("{innermost}_0")),
        fresh(format!("{innermost}_1")),
    );
    let rf = fresh(format!("{block_var}_rf"));
    let rf_loops = fresh(format!("{rf}_loops"));
    // rfactor gives the `_rf` block loops of its own; the handles split
    // here stay with the original block, which now reduces the lanes.
    let _ = writeln!(
        text,
        "    {tiles} = sch.sample_perfect_tile({innermost}, n=2, max_innermost_factor={MAX_INNERMOST_FACTOR})\n    {outer_part}, {lanes} = sch.split({innermost}, factors={tiles})\n    {rf} = sch.rfactor({lanes}, {rank})\n    {rf_loops} = sch.get_loops({rf})\n    sch.vectorize({rf_loops}[-1])"
    );
    let spatial: Vec<&str> = loops
        .iter()
        .filter(|l| l.role == LoopRole::Spatial)
        .map(|l| l.name.as_str())
        .collect();
    if spatial.is_empty() {
        return format!("{rf_loops}[0]");
    }
    let rf_outer = fresh(format!("{rf}_outer"));
    let outer = fresh(format!("{block_var}_outer"));
    let rf_spatial: Vec<String> = (0..spatial.len())
        .map(|k| format!("{rf_loops}[{k}]"))
        .collect();
    let _ = writeln!(
        text,
        "    {rf_outer} = sch.fuse({})\n    sch.parallel({rf_outer})\n    {outer} = sch.fuse({})\n    sch.parallel({outer})",
        rf_spatial.join(", "),
        spatial.join(", ")
    );
    rf_outer
}

/// The buffers `block` reads and does not write, with their read index.
pub(super) fn read_inputs(state: &ScheduleState, block: NodeId) -> Vec<(usize, crate::ir::Buffer)> {
    let Some(node) = state.sref(block).and_then(|s| s.as_block()) else {
        return Vec::new();
    };
    node.reads
        .iter()
        .enumerate()
        .filter(|(_, read)| !node.writes.iter().any(|w| w.buffer == read.buffer))
        .map(|(index, read)| (index, read.buffer.clone()))
        .collect()
}

/// The inputs `block` reads again across one of its spatial iterators (an
/// iterator that no index of the read uses), with their read index: the
/// data a tile can reuse.
pub(super) fn reused_inputs(
    state: &ScheduleState,
    block: NodeId,
) -> Vec<(usize, crate::ir::Buffer)> {
    let Some(node) = state.sref(block).and_then(|s| s.as_block()) else {
        return Vec::new();
    };
    read_inputs(state, block)
        .into_iter()
        .filter(|(index, _)| {
            let read = &node.reads[*index];
            let uses = |var: &crate::ir::Var| {
                read.region.iter().any(|range| {
                    crate::ir::visit::expr_uses_var(&range.min, &mut |v| v == var)
                        || crate::ir::visit::expr_uses_var(&range.extent, &mut |v| v == var)
                })
            };
            node.iter_vars
                .iter()
                .any(|iter| iter.kind == IterKind::Spatial && !uses(&iter.var))
        })
        .collect()
}

/// `sample_categorical` over `candidates` with equal probabilities.
pub(super) fn sample_uniform(text: &mut String, variable: &str, candidates: &[i64]) {
    let values: Vec<String> = candidates.iter().map(i64::to_string).collect();
    let probability = format!("{:.4}", 1.0 / candidates.len() as f64)
        .trim_end_matches('0')
        .to_string();
    let probs = vec![probability; candidates.len()];
    let _ = writeln!(
        text,
        "    {variable} = sch.sample_categorical([{}], [{}])",
        values.join(", "),
        probs.join(", ")
    );
}

/// A spatial block: the last loop split in two, its inner part vectorized,
/// everything outside it fused and run in parallel; the parallel loop's name.
fn spatial_parallel_vectorize(
    text: &mut String,
    fresh: &mut impl FnMut(String) -> String,
    loops: &[NamedLoop],
) -> String {
    let (last, outer_loops) = loops.split_last().expect("a block with loops");
    if !last.constant {
        // A symbolic innermost extent: no vector tile, the loops run in parallel.
        let names: Vec<&str> = loops.iter().map(|l| l.name.as_str()).collect();
        let outer = fresh(format!("{}_outer", last.name));
        let _ = writeln!(text, "    {outer} = sch.fuse({})", names.join(", "));
        let _ = writeln!(text, "    sch.parallel({outer})");
        return outer;
    }
    let tiles = fresh(format!("{}_tiles", last.name));
    let (last_outer, last_inner) = (
        fresh(format!("{}_0", last.name)),
        fresh(format!("{}_1", last.name)),
    );
    let _ = writeln!(
        text,
        "    {tiles} = sch.sample_perfect_tile({}, n=2, max_innermost_factor={MAX_INNERMOST_FACTOR})",
        last.name
    );
    let _ = writeln!(
        text,
        "    {last_outer}, {last_inner} = sch.split({}, factors={tiles})",
        last.name
    );
    let mut fused: Vec<&str> = outer_loops.iter().map(|l| l.name.as_str()).collect();
    fused.push(&last_outer);
    let outer = fresh(format!("{}_outer", last.name));
    let _ = writeln!(text, "    {outer} = sch.fuse({})", fused.join(", "));
    let _ = writeln!(text, "    sch.parallel({outer})");
    let _ = writeln!(text, "    sch.vectorize({last_inner})");
    outer
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::frontend::parse_program;
    use crate::schedule::check_each::{run_interpreted, same_results};
    use crate::schedule::{apply_schedule_with, ApplyOptions};
    use crate::source::SourceMap;

    /// An int32 matmul (sums are exact whatever the order of the reduction)
    /// fed by an elementwise producer that the space inlines.
    const MATMUL: &str = r#"@T.prim_func
def main(A: T.Buffer((24, 32), "int32"), B: T.Buffer((32, 40), "int32"), C: T.Buffer((24, 40), "int32")):
    A2 = T.alloc_buffer((24, 32), "int32")
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
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = C[vi, vj] + 1
"#;

    /// The machine the spaces of these tests are for: an AVX2 core.
    pub(in crate::tune) const AVX2: CpuMachine = CpuMachine {
        vector_bits: 256,
        vector_registers: 16,
        cache_bytes: [32768.0, 524288.0, 33554432.0],
    };

    fn space_of(source: &str) -> (String, String) {
        space_for(source, SpaceTarget::Cpu)
    }

    /// The program `source` with its design space for `target` beside it,
    /// and the space alone.
    pub(in crate::tune) fn space_for(source: &str, target: SpaceTarget) -> (String, String) {
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "space.tir", source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let space = design_space(&program.unwrap().module, None, "space", target, &AVX2).unwrap();
        (format!("{source}\n{space}"), space)
    }

    #[test]
    fn the_space_tiles_reductions_inlines_producers_and_vectorizes() {
        let (_, space) = space_of(MATMUL);
        assert!(
            space.contains("sch.compute_inline(sch.get_block(\"A2\"))"),
            "{space}"
        );
        assert!(
            space.contains(
                "sch.reorder(C_i_0, C_j_0, C_i_1, C_j_1, C_k_0, C_i_2, C_j_2, C_k_1, C_i_3, C_j_3)"
            ),
            "{space}"
        );
        // The micro-kernel on an AVX2 core (int32: 8 lanes a register): 40
        // columns in whole registers (8 or 40: 5 vectors, 5 inputs and a
        // broadcast fit 16), rows that fit with one vector each; the outer
        // levels of each tiled by `sample_perfect_tile`.
        assert!(
            space.contains("    C_i_kernel = sch.sample_categorical([1, 2, 3, 4, 6, 8, 12], ")
                && space.contains("    C_i_outer, C_i_3 = sch.split(C_i, factors=[None, C_i_kernel])\n    C_i_tiles = sch.sample_perfect_tile(C_i_outer, n=3, max_innermost_factor=64)\n    C_i_0, C_i_1, C_i_2 = sch.split(C_i_outer, factors=C_i_tiles)"),
            "{space}"
        );
        assert!(
            space.contains("    C_j_kernel = sch.sample_categorical([8, 40], [0.5, 0.5])"),
            "{space}"
        );
        // The reduction's depth under the micro-kernel: 1 or 8 steps and
        // more, up to all 32, drawn uniformly; the rest is the outer level.
        assert!(
            space.contains("    C_k_depth = sch.sample_categorical([1, 8, 16, 32], [0.25, 0.25, 0.25, 0.25])\n    C_k_0, C_k_1 = sch.split(C_k, factors=[None, C_k_depth])\n    sch.reorder("),
            "{space}"
        );
        // C has a second writer (D, in place): no cache stage.
        assert!(!space.contains("cache_write"), "{space}");
        assert!(space.contains("sch.parallel(b_C_outer)"), "{space}");
        assert!(space.contains("sch.vectorize(C_j_3)"), "{space}");
        // D updates C in place: neither a complete nor a reduction block, so
        // no rule applies to it.
        assert!(!space.contains("b_D"), "{space}");
    }

    /// Deeper reductions are drawn only while one vector column of the
    /// second input over the depth fits half the machine's L2.
    #[test]
    fn the_reduction_depth_is_bounded_by_the_l2() {
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "space.tir", MATMUL);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        // 8 int32 lanes of 4 bytes: 16 steps are 512 bytes, half of 1 KiB.
        let small_l2 = CpuMachine {
            cache_bytes: [512.0, 1024.0, 4096.0],
            ..AVX2
        };
        let space = design_space(
            &program.unwrap().module,
            None,
            "space",
            SpaceTarget::Cpu,
            &small_l2,
        )
        .unwrap();
        assert!(
            space.contains("    C_k_depth = sch.sample_categorical([1, 8, 16], "),
            "{space}"
        );
    }

    #[test]
    fn a_single_writer_gets_a_global_write_cache_under_the_second_spatial_level() {
        let source = MATMUL
            .split("    for i, j in T.grid(24, 40):")
            .next()
            .unwrap();
        let (_, space) = space_of(source);
        assert!(
            space.contains("b_C_global = sch.cache_write(b_C, 0, \"global\")"),
            "{space}"
        );
        assert!(
            space.contains("sch.reverse_compute_at(b_C_global, C_j_1, preserve_unit_loops=True)"),
            "{space}"
        );
    }

    #[test]
    fn inputs_read_again_across_a_spatial_iterator_are_packed_at_a_sampled_location() {
        let source = MATMUL
            .split("    for i, j in T.grid(24, 40):")
            .next()
            .unwrap();
        let (_, space) = space_of(source);
        // C reads A (through the inlined A2) again for every column and B
        // for every row: both get a copy at a sampled place.
        for (index, name) in [(0, "A"), (1, "B")] {
            let pack = format!("b_C_{name}_packed");
            assert!(
                space.contains(&format!(
                    "{pack} = sch.cache_read(b_C, {index}, \"global\")\n    {pack}_at = sch.sample_compute_location({pack})\n    sch.compute_at({pack}, {pack}_at)"
                )),
                "{space}"
            );
        }
        // A row sum reads each element once: nothing to pack (it is factored).
        let row_sum = r#"@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), S: T.Buffer((64,), "float32")):
    for i, j in T.grid(64, 32):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vj]
"#;
        let (_, space) = space_of(row_sum);
        assert!(space.contains("sch.rfactor(S_j_1, 1)"), "{space}");
        assert!(!space.contains("cache_read"), "{space}");
    }

    #[test]
    fn a_padding_stage_stays_and_goes_to_a_sampled_location() {
        let source = r#"@T.prim_func
def main(X: T.Buffer((16,), "float32"), W: T.Buffer((3,), "float32"), Y: T.Buffer((16,), "float32")):
    P = T.alloc_buffer((18,))
    for i in range(18):
        with T.block("P"):
            vi = T.axis.spatial(18, i)
            P[vi] = T.if_then_else(1 <= vi and vi < 17, X[vi - 1], T.float32(0))
    for i, r in T.grid(16, 3):
        with T.block("Y"):
            vi, vr = T.axis.remap("SR", [i, r])
            with T.init():
                Y[vi] = T.float32(0)
            Y[vi] = Y[vi] + P[vi + vr] * W[vr]
"#;
        let (text, space) = space_of(source);
        assert!(!space.contains("compute_inline"), "{space}");
        assert!(
            space.ends_with("    b_P_1 = sch.get_block(\"P\")\n    b_P_1_at = sch.sample_compute_location(b_P_1)\n    sch.compute_at(b_P_1, b_P_1_at)\n"),
            "{space}"
        );
        let mut sources = SourceMap::new();
        let (program, _) = parse_program(&mut sources, "space.tir", &text);
        let program = program.unwrap();
        let expected = run_interpreted(&program.module, u64::MAX).unwrap();
        for seed in 1..=8 {
            let options = ApplyOptions {
                seed: Some(seed),
                ..ApplyOptions::default()
            };
            let run = apply_schedule_with(&program, Some("space"), &options);
            assert!(
                run.diagnostics.is_empty(),
                "seed {seed}: {:?}",
                run.diagnostics
            );
            let found = run_interpreted(run.module(), u64::MAX).unwrap();
            same_results(&expected, &found).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }

    /// Applies the `space` section of `text` with seeds 1 to `seeds`,
    /// checking that each schedule applies and computes what the program as
    /// written computes (in the interpreter), and that the seeds draw more
    /// than half as many distinct schedules: the space is searched, not fixed.
    pub(in crate::tune) fn sampled_schedules_compute_the_program(text: &str, seeds: u64) {
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "space.tir", text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let program = program.unwrap();
        let expected = run_interpreted(&program.module, u64::MAX).unwrap();
        let mut traces = std::collections::HashSet::new();
        for seed in 1..=seeds {
            let options = ApplyOptions {
                seed: Some(seed),
                ..ApplyOptions::default()
            };
            let run = apply_schedule_with(&program, Some("space"), &options);
            assert!(
                run.diagnostics.is_empty(),
                "seed {seed}: {:?}",
                run.diagnostics
            );
            let found = run_interpreted(run.module(), u64::MAX).unwrap();
            same_results(&expected, &found).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            traces.insert(run.trace.to_python());
        }
        assert!(
            traces.len() as u64 > seeds / 2,
            "{} distinct schedules of {seeds}",
            traces.len()
        );
    }

    #[test]
    fn every_sampled_schedule_applies_and_computes_the_program() {
        let (text, _) = space_of(MATMUL);
        sampled_schedules_compute_the_program(&text, 12);
    }

    /// Row reductions (a maximum and a sum) and an elementwise consumer.
    const ROWS: &str = r#"@T.prim_func
def main(A: T.Buffer((8, 48), "int32"), B: T.Buffer((8, 48), "int32")):
    M = T.alloc_buffer((8,), "int32")
    S = T.alloc_buffer((8,), "int32")
    for i, k in T.grid(8, 48):
        with T.block("M"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = -2147483648
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, k in T.grid(8, 48):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + (A[vi, vk] - M[vi])
    for i, j in T.grid(8, 48):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * S[vi]
"#;

    #[test]
    fn row_reductions_are_factored_into_vectorized_lanes() {
        let (text, space) = space_of(ROWS);
        for block in ["M", "S"] {
            assert!(
                space.contains(&format!(
                    "{block}_k_0, {block}_k_1 = sch.split({block}_k, factors={block}_k_tiles)\n    b_{block}_rf = sch.rfactor({block}_k_1, 1)\n    b_{block}_rf_loops = sch.get_loops(b_{block}_rf)\n    sch.vectorize(b_{block}_rf_loops[-1])\n    b_{block}_rf_outer = sch.fuse(b_{block}_rf_loops[0])\n    sch.parallel(b_{block}_rf_outer)\n    b_{block}_outer = sch.fuse({block}_i)\n    sch.parallel(b_{block}_outer)"
                )),
                "{space}"
            );
        }
        // No SSRSRS tiling of a reduction without reuse.
        assert!(!space.contains("cache_write"), "{space}");
        sampled_schedules_compute_the_program(&text, 8);
    }

    #[test]
    fn symbolic_loops_stay_whole_and_scalar_reductions_run_serially() {
        let symbolic = r#"@T.prim_func
def main(a: T.handle, B: T.Buffer((64, 64), "float32"), c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 64))
    C = T.match_buffer(c, (n, 64))
    for i, j, k in T.grid(n, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
        let scalar = r#"@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), S: T.Buffer((1,), "float32")):
    for i, j in T.grid(64, 32):
        with T.block("S"):
            vi, vj = T.axis.remap("RR", [i, j])
            with T.init():
                S[0] = T.float32(0)
            S[0] = S[0] + A[vi, vj]
"#;
        let (text, space) = space_of(symbolic);
        assert!(!space.contains("sample_perfect_tile(C_i,"), "{space}");
        assert!(space.contains("sch.fuse(C_i, C_j_0)"), "{space}");
        let (scalar_text, scalar_space) = space_of(scalar);
        assert!(!scalar_space.contains("sch.parallel"), "{scalar_space}");
        for text in [text, scalar_text] {
            let mut sources = SourceMap::new();
            let (program, _) = parse_program(&mut sources, "space.tir", &text);
            let program = program.unwrap();
            for seed in 1..=4 {
                let options = ApplyOptions {
                    seed: Some(seed),
                    ..ApplyOptions::default()
                };
                let run = apply_schedule_with(&program, Some("space"), &options);
                assert!(
                    run.diagnostics.is_empty(),
                    "seed {seed}: {:?}",
                    run.diagnostics
                );
            }
        }
    }

    #[test]
    fn a_program_without_blocks_has_no_space() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.float32(0)
"#;
        let mut sources = SourceMap::new();
        let (program, _) = parse_program(&mut sources, "space.tir", source);
        let error = cpu_design_space(&program.unwrap().module, None, "space", &AVX2).unwrap_err();
        assert!(
            error.contains("no rule applies") || error.contains("no blocks"),
            "{error}"
        );
    }
}
