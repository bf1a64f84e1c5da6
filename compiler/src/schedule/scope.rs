//! Block scopes: the blocks under each block, the producer/consumer
//! dependences between them, and the cached flags primitives consult
//! (affine binding, region cover, stage pipeline), after TVM's `SBlockScope`
//! and `SBlockInfo`.

use super::region::{binary, loop_domains, range_set, region_strict_bound};
use super::state::{NodeMap, NodeSet, SRefKind, ScheduleState};
use crate::arith::{is_affine_binding, Analyzer, IntSet};
use crate::ir::identity::{BufferMap, VarMap};
use crate::ir::mutate::substitute;
use crate::ir::operators;
use crate::ir::{BinaryOp, Block, BlockRealize, Buffer, Expr, ExprKind, IterKind, NodeId, Var};
use crate::ir::{BufferRegion, For, Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

/// The kind of a dependence between two blocks of one scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepKind {
    /// Read after write: the destination reads what the source wrote.
    ReadAfterWrite,
    /// Write after write: both write the same buffer.
    WriteAfterWrite,
    /// Write after read: the destination overwrites what the source read.
    WriteAfterRead,
}

/// A dependence from an earlier block (`src`) to a later one (`dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// The earlier block.
    pub src: NodeId,
    /// The later block.
    pub dst: NodeId,
    /// Why the later block depends on the earlier one.
    pub kind: DepKind,
}

/// The blocks directly under a block and how they depend on each other.
#[derive(Clone, Debug, Default)]
pub struct BlockScope {
    /// The child blocks, in program order.
    pub children: Vec<NodeId>,
    /// Every dependence, in the order TVM adds them.
    pub dependencies: Vec<Dependency>,
    /// For each buffer, the child blocks writing it, in program order.
    pub buffer_writers: BufferMap<Vec<NodeId>>,
}

impl BlockScope {
    /// The dependences of the scope whose source is `block`.
    pub fn deps_from(&self, block: NodeId) -> impl Iterator<Item = &Dependency> {
        self.dependencies.iter().filter(move |d| d.src == block)
    }
    /// The dependences of the scope whose destination is `block`.
    pub fn deps_to(&self, block: NodeId) -> impl Iterator<Item = &Dependency> {
        self.dependencies.iter().filter(move |d| d.dst == block)
    }
    /// The blocks `block` reads from or overwrites (RAW and WAW sources), each once.
    pub fn producers_of(&self, block: NodeId) -> Vec<NodeId> {
        let mut result = Vec::new();
        for dep in self.deps_to(block) {
            if dep.kind != DepKind::WriteAfterRead && !result.contains(&dep.src) {
                result.push(dep.src);
            }
        }
        result
    }
    /// The blocks that read or overwrite what `block` wrote, each once.
    pub fn consumers_of(&self, block: NodeId) -> Vec<NodeId> {
        let mut result = Vec::new();
        for dep in self.deps_from(block) {
            if dep.kind != DepKind::WriteAfterRead && !result.contains(&dep.dst) {
                result.push(dep.dst);
            }
        }
        result
    }
}

/// What is cached about a block.
#[derive(Clone, Debug, Default)]
pub struct BlockInfo {
    /// The scope the block roots: its child blocks and their dependences.
    pub scope: BlockScope,
}

/// The flags of a block that primitives consult (TVM's `SBlockInfo` flags).
/// As in TVM, they are computed from the program as it was before the first
/// step that changed the block's function and then kept: a split with
/// `disable_predication` or a fuse under a predicate does not clear a block's
/// affine-binding flag, so the schedules TVM accepts after it run in tirc too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockFlags {
    /// The block's bindings are an affine, surjective map of the loops
    /// between it and its scope root (for a root block: it has no iterators).
    pub affine_binding: bool,
    /// What the block reads from its producers in the scope is entirely
    /// produced before it runs.
    pub region_cover: bool,
    /// The scope the block roots is a stage pipeline: every child covers its
    /// reads and no child overwrites what an earlier child read.
    pub stage_pipeline: bool,
}

/// The blocks of a function, in program order.
pub(crate) fn blocks_of(state: &ScheduleState, function: usize) -> Vec<NodeId> {
    state
        .nodes_of_function(function)
        .iter()
        .copied()
        .filter(|id| state.sref(*id).map(|s| s.kind) == Some(SRefKind::Block))
        .collect()
}

/// The scope of every block of one function.
pub(crate) fn compute_block_infos(state: &ScheduleState, function: usize) -> NodeMap<BlockInfo> {
    let mut infos = NodeMap::default();
    for block_id in blocks_of(state, function) {
        let children = state.child_blocks(block_id);
        let scope = build_scope(state, children);
        infos.insert(block_id, BlockInfo { scope });
    }
    infos
}

/// The flags of `blocks` as the program is now: the affine-binding flag of
/// each block, then the stage-pipeline flag of each scope with the
/// region-cover flags of its children, which are decided together.
pub(crate) fn compute_block_flags(state: &ScheduleState, blocks: &[NodeId]) -> NodeMap<BlockFlags> {
    let mut flags: NodeMap<BlockFlags> = blocks
        .iter()
        .map(|&id| {
            (
                id,
                BlockFlags {
                    affine_binding: current_affine_binding(state, id),
                    region_cover: true,
                    stage_pipeline: true,
                },
            )
        })
        .collect();
    for &block_id in blocks {
        let Some(info) = state.block_info(block_id) else {
            continue;
        };
        let scope = &info.scope;
        let mut stage_pipeline = !scope
            .dependencies
            .iter()
            .any(|d| d.kind == DepKind::WriteAfterRead);
        for &consumer in &scope.children {
            let producers: Vec<NodeId> = scope
                .deps_to(consumer)
                .filter(|d| d.kind == DepKind::ReadAfterWrite)
                .map(|d| d.src)
                .collect();
            let cover =
                producers.is_empty() || region_cover(state, &flags, block_id, consumer, &producers);
            if let Some(child) = flags.get_mut(&consumer) {
                child.region_cover = cover;
            }
            stage_pipeline &= cover;
        }
        if let Some(own) = flags.get_mut(&block_id) {
            own.stage_pipeline = stage_pipeline;
        }
    }
    flags
}

/// Whether a block's bindings are, in the program as it is now, an affine
/// surjective map of the loops between it and its scope root.
pub(crate) fn current_affine_binding(state: &ScheduleState, block: NodeId) -> bool {
    let Some(sref) = state.sref(block) else {
        return false;
    };
    let Some(realize) = sref.as_realize() else {
        return false;
    };
    if sref.parent.is_none() {
        // As in TVM: a root block is affine when it has no iterators.
        return realize.block.iter_vars.is_empty();
    }
    let loops: Vec<&For> = state
        .enclosing_loops(block)
        .into_iter()
        .filter_map(|l| state.sref(l).and_then(|s| s.as_for()))
        .collect();
    is_affine_binding(realize, loops)
}

/// The dependences among `children`, as TVM's `SBlockScope` constructor adds them.
fn build_scope(state: &ScheduleState, children: Vec<NodeId>) -> BlockScope {
    let mut scope = BlockScope::default();
    let mut buffer_readers: BufferMap<Vec<NodeId>> = Default::default();
    let add = |deps: &mut Vec<Dependency>, src: NodeId, dst: NodeId, kind: DepKind| {
        if src != dst {
            deps.push(Dependency { src, dst, kind });
        }
    };
    for &child in &children {
        let Some(block) = state.sref(child).and_then(|s| s.as_block()) else {
            continue;
        };
        for region in &block.reads {
            buffer_readers
                .entry(region.buffer.clone())
                .or_default()
                .push(child);
        }
        for region in &block.writes {
            scope
                .buffer_writers
                .entry(region.buffer.clone())
                .or_default()
                .push(child);
        }
        for region in &block.reads {
            if let Some(writers) = scope.buffer_writers.get(&region.buffer) {
                for &writer in writers {
                    add(
                        &mut scope.dependencies,
                        writer,
                        child,
                        DepKind::ReadAfterWrite,
                    );
                }
            }
        }
        for region in &block.writes {
            if let Some(writers) = scope.buffer_writers.get(&region.buffer) {
                for &writer in writers {
                    add(
                        &mut scope.dependencies,
                        writer,
                        child,
                        DepKind::WriteAfterWrite,
                    );
                }
            }
        }
        for region in &block.writes {
            if let Some(readers) = buffer_readers.get(&region.buffer) {
                for &reader in readers {
                    add(
                        &mut scope.dependencies,
                        reader,
                        child,
                        DepKind::WriteAfterRead,
                    );
                }
            }
        }
    }
    scope.children = children;
    scope
}

/// The block's regions with its iteration variables replaced by their bindings.
fn unbound_regions(realize: &BlockRealize, regions: &[BufferRegion]) -> Vec<BufferRegion> {
    let binding: VarMap<Expr> = realize
        .block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .map(|(iv, value)| (iv.var.clone(), value.clone()))
        .collect();
    regions
        .iter()
        .map(|region| BufferRegion {
            buffer: region.buffer.clone(),
            region: region
                .region
                .iter()
                .map(|r| {
                    crate::ir::Range::new(
                        substitute(&r.min, &binding),
                        substitute(&r.extent, &binding),
                    )
                })
                .collect(),
        })
        .collect()
}

/// Whether what `consumer` reads of its producers' buffers is written by
/// them before it runs.
///
/// As TVM does, the producers are grouped by where they meet the consumer;
/// each region is relaxed over the loops below that meeting point, and the
/// loops above it keep their ranges. To stay on the safe side tirc
/// trusts a produced region only when its producer has no predicate and an
/// affine binding, and compares each consumed region with one producer's
/// region at a time (no unions).
fn region_cover(
    state: &ScheduleState,
    flags: &NodeMap<BlockFlags>,
    scope_root: NodeId,
    consumer: NodeId,
    producers: &[NodeId],
) -> bool {
    let Some(consumer_realize) = state.sref(consumer).and_then(|s| s.as_realize()) else {
        return false;
    };
    let mut chain = vec![consumer];
    chain.extend(
        state
            .ancestors(consumer)
            .into_iter()
            .take_while(|a| *a != scope_root),
    );
    chain.push(scope_root);
    let chain_set: NodeSet = chain.iter().copied().collect();
    let mut at_lca: NodeMap<Vec<NodeId>> = NodeMap::default();
    for &producer in producers {
        let mut current = Some(producer);
        while let Some(id) = current {
            if chain_set.contains(&id) {
                at_lca.entry(id).or_default().push(producer);
                break;
            }
            current = state.sref(id).and_then(|s| s.parent);
        }
    }
    let consumer_reads = unbound_regions(consumer_realize, &consumer_realize.block.reads);
    for &lca in &chain {
        let Some(lca_producers) = at_lca.get(&lca) else {
            continue;
        };
        // The loops from the meeting point up to the scope keep their ranges
        // (TVM's analyzer has them bound): a unit loop `nn` there is 0.
        let mut analyzer = Analyzer::new();
        let mut current = Some(lca);
        while let Some(id) = current.filter(|id| *id != scope_root) {
            let Some(sref) = state.sref(id) else {
                break;
            };
            if let Some(for_loop) = sref.as_for() {
                analyzer.bind(&for_loop.loop_var, &for_loop.range());
            }
            current = sref.parent;
        }
        let consumer_parent = state.sref(consumer).and_then(|s| s.parent);
        for read in &consumer_reads {
            let consumed_domains = consumer_parent
                .map(|p| loop_domains(state, Some(p), lca, read.buffer.scope()))
                .unwrap_or_default();
            let consumed_sets = consumed_region_upper_bound(
                &analyzer,
                read,
                &consumed_domains,
                &consumer_realize.predicate,
            );
            let mut produced_any = false;
            let mut covered = false;
            for &producer in lca_producers {
                let Some(producer_sref) = state.sref(producer) else {
                    continue;
                };
                let Some(producer_realize) = producer_sref.as_realize() else {
                    continue;
                };
                let writes = unbound_regions(producer_realize, &producer_realize.block.writes);
                for write in writes.iter().filter(|w| w.buffer == read.buffer) {
                    produced_any = true;
                    let produced_domains = producer_sref
                        .parent
                        .map(|p| loop_domains(state, Some(p), lca, write.buffer.scope()))
                        .unwrap_or_default();
                    // A `T.where` over loops outside the relaxed ones (a
                    // split's tail, after compute_at) leaves the region a
                    // point of those loops, which TVM's lower-bound
                    // estimate keeps; one over relaxed loops narrows it.
                    let predicate = &producer_realize.predicate;
                    let predicate_relaxed = predicate.as_int() != Some(1)
                        && crate::ir::visit::expr_uses_var(predicate, &mut |v| {
                            produced_domains.contains_key(v)
                        });
                    if !flags.get(&producer).is_some_and(|f| f.affine_binding) {
                        continue;
                    }
                    // TVM's estimate has no lower bound for a region of
                    // symbolic extent (`B[0:n]` of a blockized copy).
                    if write.region.iter().any(|r| r.extent.as_int().is_none()) {
                        continue;
                    }
                    let produced_sets = if predicate_relaxed {
                        // TVM's `EstimateRegionLowerBound`: the region as an
                        // iterator map under the predicate (a split's tail
                        // guarded by `i_0 * 33 + i_1 < 64` still covers 0..64).
                        match region_strict_bound(&analyzer, write, &produced_domains, predicate) {
                            Some(sets) => sets,
                            None => continue,
                        }
                    } else {
                        write
                            .region
                            .iter()
                            .map(|r| range_set(&analyzer, r, &produced_domains))
                            .collect()
                    };
                    if covers(&analyzer, write, &produced_sets, &consumed_sets) {
                        covered = true;
                    }
                }
            }
            if produced_any && !covered {
                return false;
            }
        }
    }
    true
}

/// TVM's `AnalyzeRegionUpperBound` for a consumer: what `read` may touch
/// over `domains`. A `T.where` over those loops narrows it where the indices
/// are an iterator map under it (the rows a split's tail guards, read by a
/// block that the same guard keeps). Conjuncts over loops the indices do
/// not use (a reduction's tail) are dropped if the map fails with them:
/// fewer conditions only widen the bound. Otherwise each range is relaxed.
fn consumed_region_upper_bound(
    analyzer: &Analyzer,
    read: &BufferRegion,
    domains: &VarMap<IntSet>,
    predicate: &Expr,
) -> Vec<IntSet> {
    let relaxed = |e: &Expr| crate::ir::visit::expr_uses_var(e, &mut |v| domains.contains_key(v));
    let relaxed_ranges = || {
        read.region
            .iter()
            .map(|r| range_set(analyzer, r, domains))
            .collect()
    };
    if predicate.as_int() == Some(1) || !relaxed(predicate) {
        return relaxed_ranges();
    }
    if let Some(sets) = region_strict_bound(analyzer, read, domains, predicate) {
        return sets;
    }
    let in_indices = |v: &crate::ir::Var| {
        read.region
            .iter()
            .any(|r| crate::ir::visit::expr_uses_var(&r.min, &mut |u| u == v))
    };
    let all = super::binding::conjuncts(predicate);
    let count = all.len();
    let kept: Vec<Expr> = all
        .into_iter()
        .filter(|c| {
            !crate::ir::visit::expr_uses_var(c, &mut |v| domains.contains_key(v) && !in_indices(v))
        })
        .collect();
    if kept.len() == count {
        return relaxed_ranges();
    }
    kept.into_iter()
        .reduce(|a, b| crate::arith::build::binary(BinaryOp::And, a, b))
        .filter(|narrowed| relaxed(narrowed))
        .and_then(|narrowed| region_strict_bound(analyzer, read, domains, &narrowed))
        .unwrap_or_else(relaxed_ranges)
}

/// True when the sets `produced` writes cover the sets a consumer reads
/// (per dimension), within the buffer's bounds.
fn covers(
    analyzer: &Analyzer,
    produced: &BufferRegion,
    produced_sets: &[IntSet],
    consumed_sets: &[IntSet],
) -> bool {
    let shape = produced.buffer.shape();
    for (dim, (p_set, c_set)) in produced_sets.iter().zip(consumed_sets).enumerate() {
        let Some(extent) = shape.get(dim) else {
            return false;
        };
        let (Some(p_min), Some(p_max)) = (p_set.min(), p_set.max()) else {
            return false;
        };
        let zero = Expr::zero(extent.dtype());
        let last = match operators::sub(extent.clone(), Expr::one(extent.dtype())) {
            Ok(e) => e,
            Err(_) => return false,
        };
        let c_min = c_set.min().cloned().unwrap_or_else(|| zero.clone());
        let c_max = c_set.max().cloned().unwrap_or_else(|| last.clone());
        let clamp_low = |e: Expr| binary(BinaryOp::Max, e, zero.clone());
        let clamp_high = |e: Expr| binary(BinaryOp::Min, e, last.clone());
        let (Some(pl), Some(cl), Some(ch), Some(ph)) = (
            clamp_low(p_min.clone()),
            clamp_low(c_min),
            clamp_high(c_max),
            clamp_high(p_max.clone()),
        ) else {
            return false;
        };
        let low_ok = binary(BinaryOp::Le, pl, cl).is_some_and(|e| analyzer.can_prove(&e));
        let high_ok = binary(BinaryOp::Le, ch, ph).is_some_and(|e| analyzer.can_prove(&e));
        if !(low_ok && high_ok) {
            return false;
        }
    }
    true
}

/// Why a block is not a complete block of a scope, by TVM's condition number
/// (0 when it is one).
///
/// 1: a block iterator is not spatial; 2: another block of the scope writes
/// what it writes; 3: it reads a buffer it writes.
pub(crate) fn complete_block_violation(
    state: &ScheduleState,
    block_id: NodeId,
    scope_root: NodeId,
) -> u8 {
    let Some(block) = state.sref(block_id).and_then(|s| s.as_block()) else {
        return 1;
    };
    if block
        .iter_vars
        .iter()
        .any(|iv| iv.kind != IterKind::Spatial)
    {
        return 1;
    }
    if !is_dominant_block(state, scope_root, block) {
        return 2;
    }
    let written: HashSet<&Buffer> = block.writes.iter().map(|w| &w.buffer).collect();
    if block.reads.iter().any(|r| written.contains(&r.buffer)) {
        return 3;
    }
    0
}

/// Why a block is not a reduction block of a scope, by TVM's condition number
/// (0 when it is one).
///
/// 1: no `T.init()`; 2: bindings not affine; 3: an iterator neither spatial
/// nor reduction; 4: another block writes what it writes; 5: a reduction
/// iterator indexes an output.
pub(crate) fn reduction_block_violation(
    state: &ScheduleState,
    block_id: NodeId,
    scope_root: NodeId,
) -> u8 {
    let Some(block) = state.sref(block_id).and_then(|s| s.as_block()) else {
        return 1;
    };
    if block.init.is_none() {
        return 1;
    }
    if !state.affine_binding(block_id) {
        return 2;
    }
    if block
        .iter_vars
        .iter()
        .any(|iv| !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
    {
        return 3;
    }
    if !is_dominant_block(state, scope_root, block) {
        return 4;
    }
    if reduction_iter_indexes_output(block) {
        return 5;
    }
    0
}

/// TVM's `IsDominantBlock`: the block is the only writer of each buffer it
/// writes among the writers TVM collects for the scope root. For a loop
/// (a subtree), TVM merges the writers recorded by the scopes of the blocks
/// directly under it, and tirc does the same.
fn is_dominant_block(state: &ScheduleState, scope_root: NodeId, block: &Block) -> bool {
    let mut writers: HashMap<&Buffer, usize> = HashMap::new();
    let root_is_block = state.sref(scope_root).map(|s| s.kind) == Some(SRefKind::Block);
    let scopes: Vec<NodeId> = if root_is_block {
        vec![scope_root]
    } else {
        state.child_blocks(scope_root)
    };
    for scope in &scopes {
        if let Some(info) = state.block_info(*scope) {
            for (buffer, list) in &info.scope.buffer_writers {
                // TVM inserts into a map: the first scope's entry wins.
                writers.entry(buffer).or_insert(list.len());
            }
        }
    }
    block
        .writes
        .iter()
        .all(|w| writers.get(&w.buffer).is_none_or(|count| *count == 1))
}

/// TVM's `ReductionIterNotIndexOutputBuffer`, negated: a store in the block
/// indexes a buffer with a reduction iterator.
fn reduction_iter_indexes_output(block: &Block) -> bool {
    let reduction_vars: HashSet<&Var> = block
        .iter_vars
        .iter()
        .filter(|iv| iv.kind == IterKind::Reduce)
        .map(|iv| &iv.var)
        .collect();
    if reduction_vars.is_empty() {
        return false;
    }
    let mut found = false;
    crate::ir::visit::walk_stmts(&block.body, &mut |stmt: &Stmt| {
        if let StmtKind::BufferStore(store) = stmt.kind() {
            for index in &store.indices {
                if crate::ir::visit::expr_uses_var(index, &mut |v| reduction_vars.contains(v)) {
                    found = true;
                }
            }
        }
    });
    found
}

/// True when an expression reads the variable.
pub(crate) fn uses_var(expr: &Expr, var: &Var) -> bool {
    if let ExprKind::Var(v) = expr.kind() {
        return v == var;
    }
    crate::ir::visit::expr_uses_var(expr, &mut |v| v == var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, state, MATMUL, MATMUL_RELU};

    #[test]
    fn dependences_and_flags_of_a_two_stage_pipeline() {
        let s = state(MATMUL_RELU);
        let (c, _) = block_and_loops(&s, "C");
        let (d, _) = block_and_loops(&s, "D");
        let root = s.root_block(0).unwrap();
        let info = s.block_info(root).unwrap();
        assert_eq!(info.scope.children, vec![c, d]);
        assert_eq!(
            info.scope.dependencies,
            vec![Dependency {
                src: c,
                dst: d,
                kind: DepKind::ReadAfterWrite
            }]
        );
        assert!(s.block_flags(root).unwrap().stage_pipeline);
        assert!(s.affine_binding(root));
        assert!(s.affine_binding(c));
        assert!(s.block_flags(d).unwrap().region_cover);
    }

    #[test]
    fn overwriting_what_was_read_breaks_the_stage_pipeline() {
        let s = state(
            r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("read"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
    for i in range(16):
        with T.block("write"):
            vi = T.axis.spatial(16, i)
            A[vi] = T.float32(0.0)
"#,
        );
        let root = s.root_block(0).unwrap();
        let info = s.block_info(root).unwrap();
        assert!(info
            .scope
            .dependencies
            .iter()
            .any(|d| d.kind == DepKind::WriteAfterRead));
        assert!(!s.block_flags(root).unwrap().stage_pipeline);
    }

    /// DLight's GEMV: a row tail guarded the same way in producer and
    /// consumer, the consumer also guarding its reduction's tail.
    fn guarded_rows(producer_rows: i64) -> String {
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
    B = T.alloc_buffer((100,))
    for i0 in range(7):
        for i1 in range(16):
            for u in range(1):
                with T.block("B"):
                    vi = T.axis.spatial(100, i0 * 16 + i1 + u)
                    T.where(i0 * 16 + i1 + u < {producer_rows})
                    B[vi] = A[vi]
            for k, u in T.grid(4, 1):
                with T.block("C"):
                    vi = T.axis.spatial(100, i0 * 16 + i1 + u)
                    vk = T.axis.reduce(3, k)
                    T.where(i0 * 16 + i1 + u < 100 and k < 3)
                    with T.init():
                        C[vi] = T.float32(0)
                    C[vi] = C[vi] + B[vi]
"#
        )
    }

    #[test]
    fn a_consumer_under_the_producers_tail_guard_is_covered() {
        let s = state(&guarded_rows(100));
        let (c, _) = block_and_loops(&s, "C");
        assert!(s.block_flags(c).unwrap().region_cover);
        let s = state(&guarded_rows(99));
        let (c, _) = block_and_loops(&s, "C");
        assert!(!s.block_flags(c).unwrap().region_cover);
    }

    #[test]
    fn a_consumer_reading_more_than_produced_is_not_covered() {
        let s = state(
            r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi]
"#,
        );
        let (c, _) = block_and_loops(&s, "C");
        assert!(!s.block_flags(c).unwrap().region_cover);
        assert!(
            !s.block_flags(s.root_block(0).unwrap())
                .unwrap()
                .stage_pipeline
        );
    }

    #[test]
    fn complete_and_reduction_blocks() {
        let s = state(MATMUL);
        let (c, loops) = block_and_loops(&s, "C");
        // A reduction block: not complete (reduction iterator), but a reduction.
        assert_eq!(complete_block_violation(&s, c, loops[0]), 1);
        assert_eq!(reduction_block_violation(&s, c, loops[0]), 0);
    }

    /// Splits `j` of MATMUL by `[None, 33]` and its outer loop by `[64, 1]`,
    /// without unit loops: a predicate under which `C`'s bindings are no
    /// longer detected as affine.
    fn hide_affine_form(s: &mut ScheduleState, c: NodeId, j: NodeId) {
        let factor = |n| Some(Expr::int(n, crate::ir::DataType::int32()));
        let split = crate::schedule::loop_transformation::split;
        let outer = split(s, j, &[None, factor(33)], false, false).expect("a non-dividing split");
        split(s, outer[0], &[factor(64), factor(1)], false, false).expect("a second split");
        let realize = s.sref(c).and_then(|r| r.as_realize()).unwrap();
        let enclosing: Vec<&For> = s
            .enclosing_loops(c)
            .into_iter()
            .filter_map(|l| s.sref(l).and_then(|r| r.as_for()))
            .collect();
        assert!(!is_affine_binding(realize, enclosing));
    }

    /// TVM computes a block's flags when the schedule is created and keeps
    /// them through loop transformations; tirc follows, so that what TVM
    /// accepts after a split that hides the affine form is accepted too.
    #[test]
    fn flags_describe_the_program_before_its_first_change() {
        let mut s = state(MATMUL);
        let (c, loops) = block_and_loops(&s, "C");
        assert!(s.affine_binding(c));
        hide_affine_form(&mut s, c, loops[1]);
        assert!(s.affine_binding(c));
        assert!(s.block_flags(c).unwrap().region_cover);
    }

    #[test]
    fn flags_first_asked_for_after_a_change_describe_the_program_before_it() {
        let mut s = state(MATMUL);
        let (c, loops) = block_and_loops(&s, "C");
        hide_affine_form(&mut s, c, loops[1]);
        assert!(s.affine_binding(c));
    }
}

/// Which kinds of block iterator a loop drives: the iterators, of the given
/// blocks, whose bindings use the loop's variable (TVM's `GetLoopIterType`
/// reads the same bindings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopIterUse {
    /// A spatial iterator's binding uses the loop.
    pub spatial: bool,
    /// A reduction iterator's binding uses the loop.
    pub reduction: bool,
    /// An iterator of another kind (opaque, ...) uses the loop.
    pub other: bool,
}

impl LoopIterUse {
    /// TVM's data-parallel loop: no reduction or opaque iterator uses it.
    pub fn is_data_parallel(self) -> bool {
        !self.reduction && !self.other
    }
}

/// How `loop_id` is used by the bindings of `blocks`.
pub fn loop_iter_use(state: &ScheduleState, loop_id: NodeId, blocks: &[NodeId]) -> LoopIterUse {
    let mut found = LoopIterUse::default();
    let Some(loop_var) = state
        .sref(loop_id)
        .and_then(|s| s.as_for())
        .map(|f| f.loop_var.clone())
    else {
        found.other = true;
        return found;
    };
    for block in blocks {
        let Some(realize) = state.sref(*block).and_then(|s| s.as_realize()) else {
            continue;
        };
        for (iter, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
            if !crate::ir::visit::expr_uses_var(binding, &mut |v| *v == loop_var) {
                continue;
            }
            match iter.kind {
                IterKind::Spatial => found.spatial = true,
                IterKind::Reduce => found.reduction = true,
                _ => found.other = true,
            }
        }
    }
    found
}
