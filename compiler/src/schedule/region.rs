//! Region analysis: the part of a buffer a block reads or writes under a
//! given loop, relaxed over the loops between the block and that loop
//! (int-set evaluation), after TVM's `RelaxBufferRegion` and
//! `AnalyzeRegionUpperBound`.

use super::state::{SRefKind, ScheduleState};
use crate::arith::{build, Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::{BinaryOp, BlockRealize, BufferRegion, Expr, ForKind, NodeId, Range};

/// The domains of the loops from `low` (inclusive) up to `high` (exclusive),
/// stopping at the first block: the loops a region is relaxed over. For a
/// buffer of `storage_scope` shared or warp memory, also the thread-bound
/// loops above whose threads share it (TVM's `LoopDomainOfSRefTreePath`).
pub fn loop_domains(
    state: &ScheduleState,
    low: Option<NodeId>,
    high: NodeId,
    storage_scope: &str,
) -> VarMap<IntSet> {
    let mut domains = VarMap::default();
    let mut current = low;
    while let Some(id) = current {
        if id == high {
            break;
        }
        let Some(sref) = state.sref(id) else {
            break;
        };
        let Some(for_loop) = sref.as_for() else {
            break;
        };
        domains.insert(
            for_loop.loop_var.clone(),
            IntSet::from_min_extent(for_loop.min.clone(), for_loop.extent.clone()),
        );
        current = sref.parent;
    }
    let rank = storage_rank(storage_scope);
    if rank == 0 {
        return domains;
    }
    while let Some(sref) = current.and_then(|id| state.sref(id)) {
        if let Some(for_loop) = sref.as_for() {
            let shared_by_threads = for_loop.kind == ForKind::ThreadBinding
                && for_loop
                    .thread
                    .as_deref()
                    .is_some_and(|tag| can_relax_under_thread(rank, tag));
            if shared_by_threads {
                domains.insert(
                    for_loop.loop_var.clone(),
                    IntSet::from_range(&for_loop.range()),
                );
            }
        }
        current = sref.parent;
    }
    domains
}

/// TVM's `StorageRank`: global 0, shared 1, warp 2, local 3.
fn storage_rank(scope: &str) -> u8 {
    let base = scope.split('.').next().unwrap_or(scope);
    match base {
        "shared" => 1,
        "warp" => 2,
        "local" => 3,
        _ if scope.starts_with("wmma") || scope.starts_with("m16n8k8") => 3,
        _ => 0,
    }
}

/// TVM's `CanRelaxStorageUnderThread`: whether the threads of `tag` share a
/// buffer of storage rank `rank`.
fn can_relax_under_thread(rank: u8, tag: &str) -> bool {
    let (thread_rank, dim) = if tag.starts_with("blockIdx") {
        (0, tag.chars().last())
    } else if tag.starts_with("threadIdx") {
        (1, tag.chars().last())
    } else if tag.starts_with("vthread") || tag == "cthread" {
        (1, None)
    } else {
        return false;
    };
    if rank == 2 {
        return thread_rank == 1 && dim == Some('x');
    }
    rank <= thread_rank
}

/// The block's bindings: each iteration variable to the value it is bound to.
pub fn bindings(realize: &BlockRealize) -> VarMap<Expr> {
    realize
        .block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .map(|(iv, value)| (iv.var.clone(), value.clone()))
        .collect()
}

/// A region of `block` (in terms of its iteration variables) in terms of the
/// loops above it, relaxed over the loops from the block up to `high`
/// (exclusive): each dimension the covering range, or the whole dimension
/// where it cannot be bounded.
pub fn relax_region(
    state: &ScheduleState,
    block: NodeId,
    region: &BufferRegion,
    high: NodeId,
) -> BufferRegion {
    let Some(sref) = state.sref(block) else {
        return region.clone();
    };
    let Some(realize) = sref.as_realize() else {
        return region.clone();
    };
    let binding = bindings(realize);
    let domains = loop_domains(state, sref.parent, high, region.buffer.scope());
    // The bound of the iterator map first, as TVM's `EstimateRegionUpperBound`:
    // under a `T.where` (a split's tail) `min(n, ...)` rows where interval
    // evaluation gives `(n + 31) // 32 * 32`, and `[0, n)` rows for
    // `f // m` over a fused `f < n * m` that interval evaluation cannot bound.
    let analyzer = Analyzer::new();
    let substituted = substitute_region(region, &binding);
    if let Some(sets) = region_strict_bound(&analyzer, &substituted, &domains, &realize.predicate) {
        let shape = region.buffer.shape();
        return BufferRegion {
            buffer: region.buffer.clone(),
            region: sets
                .iter()
                .zip(shape)
                .map(|(set, extent)| set.cover_range(&Range::from_extent(extent.clone())))
                .collect(),
        };
    }
    relax_ranges(region, &binding, &domains)
}

/// `region` with each variable of `map` replaced by its expression.
pub fn substitute_region(region: &BufferRegion, map: &VarMap<Expr>) -> BufferRegion {
    BufferRegion {
        buffer: region.buffer.clone(),
        region: region
            .region
            .iter()
            .map(|r| Range::new(substitute(&r.min, map), substitute(&r.extent, map)))
            .collect(),
    }
}

/// `region` with `binding` substituted, each range relaxed over `domains`.
pub fn relax_ranges(
    region: &BufferRegion,
    binding: &VarMap<Expr>,
    domains: &VarMap<IntSet>,
) -> BufferRegion {
    let analyzer = Analyzer::new();
    let shape = region.buffer.shape();
    let ranges = region
        .region
        .iter()
        .enumerate()
        .map(|(dim, range)| {
            let range = Range::new(
                substitute(&range.min, binding),
                substitute(&range.extent, binding),
            );
            let Some(extent) = shape.get(dim) else {
                return range;
            };
            let set = range_set(&analyzer, &range, domains);
            clamp_to_extent(&analyzer, set, extent).cover_range(&Range::from_extent(extent.clone()))
        })
        .collect();
    BufferRegion {
        buffer: region.buffer.clone(),
        region: ranges,
    }
}

/// A region never reaches past its buffer (a predicate, from a non-dividing
/// split, keeps the block inside it): bounds provably outside `[0, extent)`
/// are clamped to it; others are kept as they are.
pub fn clamp_to_extent(analyzer: &Analyzer, set: IntSet, extent: &Expr) -> IntSet {
    let (Some(lo), Some(hi)) = (set.min(), set.max()) else {
        return set;
    };
    let zero = Expr::zero(extent.dtype());
    let last = build::sub(extent.clone(), Expr::one(extent.dtype()));
    let below = build::binary(BinaryOp::Lt, lo.clone(), zero.clone());
    let above = build::binary(BinaryOp::Gt, hi.clone(), last.clone());
    let lo = if analyzer.can_prove(&below) {
        zero
    } else {
        lo.clone()
    };
    let hi = if analyzer.can_prove(&above) {
        last
    } else {
        hi.clone()
    };
    IntSet::interval(lo, hi)
}

/// The values a range `[min, min + extent)` covers when its variables range
/// over `domains`.
pub fn range_set(analyzer: &Analyzer, range: &Range, domains: &VarMap<IntSet>) -> IntSet {
    let min_set = analyzer.eval_set(&range.min, domains);
    if range.extent.as_int() == Some(1) {
        return min_set;
    }
    let last = range.last().unwrap_or_else(|_| range.min.clone());
    let max_set = analyzer.eval_set(&last, domains);
    match (min_set.min(), max_set.max()) {
        (Some(lo), Some(hi)) => IntSet::interval(lo.clone(), hi.clone()),
        _ => IntSet::everything(),
    }
}

/// The blocks under `ancestor` (a loop or block), nested ones included.
pub fn is_under(state: &ScheduleState, node: NodeId, ancestor: NodeId) -> bool {
    state.ancestors(node).contains(&ancestor)
}

/// The closest common ancestor of several loops or blocks that is a loop or block.
pub fn lowest_common_ancestor(state: &ScheduleState, nodes: &[NodeId]) -> Option<NodeId> {
    let first = *nodes.first()?;
    let mut candidates: Vec<NodeId> = std::iter::once(first)
        .chain(state.ancestors(first))
        .collect();
    for &node in &nodes[1..] {
        let chain: Vec<NodeId> = std::iter::once(node).chain(state.ancestors(node)).collect();
        candidates.retain(|c| chain.contains(c));
    }
    candidates.into_iter().next()
}

/// True when `id` is a block.
pub fn is_block(state: &ScheduleState, id: NodeId) -> bool {
    state.sref(id).map(|s| s.kind) == Some(SRefKind::Block)
}

/// TVM's `EstimateRegionStrictBound`: a region of unit extents whose
/// indices are a surjective iterator map of the loops in `domains` under
/// `predicate`, each index one (fused) digit; the values it certainly
/// takes, per dimension. `None` where that is not the case.
pub(crate) fn region_strict_bound(
    analyzer: &Analyzer,
    region: &BufferRegion,
    domains: &VarMap<IntSet>,
    predicate: &Expr,
) -> Option<Vec<IntSet>> {
    let mut indices = Vec::with_capacity(region.region.len());
    for range in &region.region {
        if !range.extent.is_int(1) {
            return None;
        }
        indices.push(range.min.clone());
    }
    let mut iters = Vec::with_capacity(domains.len());
    for (var, set) in domains.iter() {
        let (min, max) = (set.min()?.clone(), set.max()?.clone());
        let extent = analyzer.simplify(&binary(
            BinaryOp::Add,
            binary(BinaryOp::Sub, max, min.clone())?,
            Expr::one(min.dtype()),
        )?);
        iters.push((var.clone(), crate::ir::Range::new(min, extent)));
    }
    // A fixed order, as the map of domains has none.
    iters.sort_by(|a, b| a.0.name().cmp(b.0.name()));
    let detected = crate::arith::iter_map::detect_iter_map(
        &indices,
        &iters,
        predicate,
        crate::arith::iter_map::IterMapLevel::Surjective,
        analyzer,
        false,
    );
    if !detected.is_success() || detected.indices.len() != indices.len() {
        return None;
    }
    detected
        .indices
        .iter()
        .map(|sum| match sum.args.as_slice() {
            [] => Some(IntSet::single_point(sum.base.clone())),
            [split] => {
                if !analyzer.can_prove(&binary(
                    BinaryOp::Ge,
                    split.scale.clone(),
                    Expr::zero(split.scale.dtype()),
                )?) {
                    return None;
                }
                let last = binary(
                    BinaryOp::Mul,
                    binary(
                        BinaryOp::Sub,
                        split.extent.clone(),
                        Expr::one(split.extent.dtype()),
                    )?,
                    split.scale.clone(),
                )?;
                let max = analyzer.simplify(&binary(BinaryOp::Add, sum.base.clone(), last)?);
                Some(IntSet::interval(sum.base.clone(), max))
            }
            _ => None,
        })
        .collect()
}

/// `a op b` through the type-checking operator builder; `None` where the
/// operand types do not combine.
pub(crate) fn binary(op: BinaryOp, a: Expr, b: Expr) -> Option<Expr> {
    crate::ir::operators::binary(op, a, b).ok()
}
