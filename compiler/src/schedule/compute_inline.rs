//! Inlining, after TVM's `compute_inline.cc`: `compute_inline` substitutes a
//! producer's value into every load of what it writes and removes it;
//! `reverse_compute_inline` folds a consumer into its only producer, which
//! then writes the consumer's output directly.

use super::access::{check_not_output, is_scope_output, stage_pipeline_scope};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, Primitive};
use super::region::bindings;
use super::scope::complete_block_violation;
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRef, SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::analysis::access_regions::infer_block_regions;
use crate::arith::int_set::eval_set;
use crate::arith::iter_map::{detect_iter_map, inverse_affine_iter_map, IterMapLevel};
use crate::arith::{build, Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_block_children, mutate_expr_children, substitute, Mutator};
use crate::ir::structural::expr_equal;
use crate::ir::visit::walk_exprs_in_stmt;
use crate::ir::{
    operators, BinaryOp, Block, BlockRealize, Buffer, BufferRegion, BufferStore, DataType, Expr,
    ExprKind, NodeId, Range, Stmt, StmtKind, Var,
};

/// `sch.compute_inline(block)`: every load of the block's output is replaced
/// by the value the block stores, and the block is removed.
pub fn compute_inline(state: &mut ScheduleState, block: NodeId) -> ScheduleResult<()> {
    let sref = state.sref(block).ok_or_else(removed)?;
    let producer = sref.as_block().ok_or_else(removed)?.clone();
    if producer.init.is_some() {
        return Err(has_init(sref));
    }
    let inlined = single_write(sref, &producer)?;
    let scope = stage_pipeline_scope(state, block)?;
    check_not_output(state, block, scope, &inlined, "compute_inline")?;
    check_complete(state, block, scope)?;
    let Some((index_vars, value)) = inline_pattern(&producer, &inlined) else {
        return Err(body_pattern(sref, false));
    };
    let scope_stmt = without_leaf(state, block, scope)?;
    let mut inliner = Inliner {
        scope,
        inlined: inlined.clone(),
        kind: InlineKind::Producer { index_vars, value },
        opaque_access: false,
        out_of_bounds: None,
    };
    let new_scope = inliner.mutate_stmt(&scope_stmt);
    if inliner.opaque_access || uses_data_var(&new_scope, &inlined) {
        return Err(opaque_access(&inlined));
    }
    if let Some((outer, buffer)) = inliner.out_of_bounds {
        return Err(region_outside(&outer, &buffer, &inlined));
    }
    state.replace(scope, new_scope);
    Ok(())
}

/// `sch.reverse_compute_inline(block)`: the block's only producer stores
/// straight into the block's output, and the block is removed.
pub fn reverse_compute_inline(state: &mut ScheduleState, block: NodeId) -> ScheduleResult<()> {
    let sref = state.sref(block).ok_or_else(removed)?;
    let realize = sref.as_realize().ok_or_else(removed)?.clone();
    let consumer = &realize.block;
    if consumer.init.is_some() {
        return Err(has_init(sref));
    }
    let scope = stage_pipeline_scope(state, block)?;
    let inlined = single_read(state, sref, consumer, scope)?;
    check_complete(state, block, scope)?;
    let producer_id = single_producer(state, block, scope, &inlined)?;
    // TVM's `CheckNotOutputBlock` on the producer: it would stop writing an
    // output of the scope, which the caller reads.
    let producer_writes = state
        .sref(producer_id)
        .and_then(|s| s.as_block())
        .map(|b| b.writes.clone())
        .unwrap_or_default();
    for write in &producer_writes {
        if is_scope_output(state, producer_id, scope, &write.buffer)? {
            let producer_sref = state.sref(producer_id).ok_or_else(removed)?;
            return Err(ScheduleError::new(
                codes::OUTPUT_BLOCK,
                format!(
                    "{} writes `{}`, an output of its scope; inlining {} into it would leave `{}` unwritten",
                    producer_sref.describe(),
                    write.buffer.name(),
                    sref.describe(),
                    write.buffer.name()
                ),
                "reverse-inline consumers of intermediate buffers only; to fuse this consumer, move it with `sch.reverse_compute_at` instead",
            )
            .blame(producer_sref.location(), "writes an output")
            .blame(write.buffer.span(), format!("`{}` is declared here", write.buffer.name()))
            .at_argument(0));
        }
    }
    // The producer will no longer write the buffer: no other block may read it.
    for other in state.descendant_blocks(scope) {
        let Some(other_sref) = state.sref(other) else {
            continue;
        };
        let reads = other_sref
            .as_block()
            .is_some_and(|b| b.reads.iter().any(|r| r.buffer == inlined));
        if other != block && reads {
            return Err(ScheduleError::new(
                codes::NOT_INLINABLE,
                format!(
                    "`{}` is also read by {}, which would be left reading a buffer nothing writes",
                    inlined.name(),
                    other_sref.describe()
                ),
                "reverse-inline a consumer that is the buffer's only reader (TVM drops the buffer here and leaves the other reader dangling)",
            )
            .blame(other_sref.location(), "also reads it")
            .blame(sref.location(), "the consumer")
            .at_argument(0));
        }
    }
    let producer_realize = state
        .sref(producer_id)
        .and_then(|s| s.as_realize())
        .cloned()
        .ok_or_else(removed)?;
    let Some(plan) = reverse_inline_pattern(&realize, &producer_realize, &inlined) else {
        return Err(body_pattern(sref, true));
    };
    let scope_stmt = without_leaf(state, block, scope)?;
    let mut inliner = Inliner {
        scope,
        inlined: inlined.clone(),
        kind: InlineKind::Consumer {
            producer: producer_id,
            plan,
        },
        opaque_access: false,
        out_of_bounds: None,
    };
    let new_scope = inliner.mutate_stmt(&scope_stmt);
    if inliner.opaque_access || uses_data_var(&new_scope, &inlined) {
        return Err(opaque_access(&inlined));
    }
    if let Some((outer, buffer)) = inliner.out_of_bounds {
        return Err(region_outside(&outer, &buffer, &inlined));
    }
    state.replace(scope, new_scope);
    Ok(())
}

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the block is no longer in the program",
        "get it again",
    )
}

fn has_init(sref: &SRef) -> ScheduleError {
    ScheduleError::new(
        codes::NOT_INLINABLE,
        format!("{} is a reduction (it has `T.init()`) and cannot be inlined", sref.describe()),
        "inline only blocks that compute each element once; a reduction can be moved with `sch.compute_at`/`sch.reverse_compute_at` instead",
    )
    .blame(sref.location(), "a reduction block")
    .at_argument(0)
}

/// The only buffer a block writes (TVM's `GetSingleWrite`).
fn single_write(sref: &SRef, block: &Block) -> ScheduleResult<Buffer> {
    match block.writes.as_slice() {
        [only] => Ok(only.buffer.clone()),
        writes => Err(ScheduleError::new(
            codes::NOT_INLINABLE,
            format!(
                "{} writes {} buffers; only a block writing exactly one can be inlined",
                sref.describe(),
                writes.len()
            ),
            "split the block into one block per output first",
        )
        .blame(sref.location(), "the block")
        .at_argument(0)),
    }
}

/// The only buffer a block reads that a block of the scope writes (TVM's `GetSingleRead`).
fn single_read(
    state: &ScheduleState,
    sref: &SRef,
    block: &Block,
    scope: NodeId,
) -> ScheduleResult<Buffer> {
    let info = state.block_info(scope);
    let mut found: Option<Buffer> = None;
    for read in &block.reads {
        if found.as_ref() == Some(&read.buffer) {
            continue;
        }
        let produced = info.is_some_and(|i| i.scope.buffer_writers.contains_key(&read.buffer));
        if produced {
            if let Some(first) = &found {
                return Err(ScheduleError::new(
                    codes::NOT_INLINABLE,
                    format!(
                        "{} reads two buffers produced in its scope, `{}` and `{}`; only a block reading one can be inlined into its producer",
                        sref.describe(),
                        first.name(),
                        read.buffer.name()
                    ),
                    "inline or move one of the producers first",
                )
                .blame(sref.location(), "the block")
                .at_argument(0));
            }
            found = Some(read.buffer.clone());
        }
    }
    found.ok_or_else(|| {
        ScheduleError::new(
            codes::NOT_INLINABLE,
            format!(
                "{} reads nothing another block of its scope produces, so there is no producer to inline it into",
                sref.describe()
            ),
            "reverse_compute_inline folds a consumer into its producer; pass the consumer",
        )
        .blame(sref.location(), "the block")
        .at_argument(0)
    })
}

fn check_complete(state: &ScheduleState, block: NodeId, scope: NodeId) -> ScheduleResult<()> {
    require_complete_block(
        state,
        block,
        scope,
        "inlining needs a block that computes each element of its output once, from other buffers",
    )
}

/// Refuses a block that is not a complete block of `scope` (TVM's
/// `CheckCompleteBlock`); `help` says what the primitive needs.
pub(crate) fn require_complete_block(
    state: &ScheduleState,
    block: NodeId,
    scope: NodeId,
    help: &str,
) -> ScheduleResult<()> {
    let violation = complete_block_violation(state, block, scope);
    if violation == 0 {
        return Ok(());
    }
    let sref = state.sref(block).ok_or_else(removed)?;
    let why = match violation {
        1 => "one of its iterators is not spatial",
        2 => "another block of the scope writes what it writes",
        _ => "it reads a buffer it writes",
    };
    Err(ScheduleError::new(
        codes::NOT_COMPLETE_BLOCK,
        format!("{} is not a complete block: {why}", sref.describe()),
        help,
    )
    .blame(sref.location(), "the block")
    .at_argument(0))
}

fn body_pattern(sref: &SRef, reverse: bool) -> ScheduleError {
    let (message, help) = if reverse {
        (
            format!(
                "{} cannot be inlined into its producer: its body must be one store whose loads of the produced buffer all use the block's iterators, each once, as indices",
                sref.describe()
            ),
            "write the consumer as `D[vi, vj] = f(C[vi, vj])` with no `T.where`, or move it with `sch.reverse_compute_at`",
        )
    } else {
        (
            format!(
                "{} cannot be inlined: its body must be one store indexed by the block's iterators, `B[vi, vj] = ...`",
                sref.describe()
            ),
            "inline blocks of the form `B[vi, vj] = f(A[...])`, or move this one with `sch.compute_at`",
        )
    };
    ScheduleError::new(codes::NOT_INLINABLE, message, help)
        .blame(sref.location(), "the block")
        .at_argument(0)
}

fn region_outside(outer: &str, buffer: &str, inlined: &Buffer) -> ScheduleError {
    ScheduleError::new(
        codes::NOT_INLINABLE,
        format!(
            "inlining `{}` would give block `{outer}` a region of `{buffer}` that reaches outside `{buffer}` (a guarded access), which the block cannot declare",
            inlined.name()
        ),
        "inline before blockizing or tensorizing the blocks around the consumer",
    )
    .blame(inlined.span(), format!("`{}` is declared here", inlined.name()))
    .at_argument(0)
}

/// The buffer of the first region provably outside its buffer's shape.
fn region_outside_buffer(regions: &[BufferRegion]) -> Option<String> {
    regions.iter().find_map(|region| {
        let outside = region
            .region
            .iter()
            .zip(region.buffer.shape())
            .any(|(range, extent)| {
                let (Some(min), Some(size)) = (range.min.as_int(), range.extent.as_int()) else {
                    return false;
                };
                min < 0 || extent.as_int().is_some_and(|extent| min + size > extent)
            });
        outside.then(|| region.buffer.name().to_string())
    })
}

fn opaque_access(buffer: &Buffer) -> ScheduleError {
    ScheduleError::new(
        codes::NOT_INLINABLE,
        format!(
            "`{}` is accessed opaquely (through its data pointer or a `match_buffer`), so its loads cannot all be replaced",
            buffer.name()
        ),
        "inline buffers that are only read by indexing them",
    )
    .blame(buffer.span(), format!("`{}` is declared here", buffer.name()))
    .at_argument(0)
}

/// True when the buffer's data variable is still used (an opaque access).
fn uses_data_var(stmt: &Stmt, buffer: &Buffer) -> bool {
    let data = buffer.data();
    let mut found = false;
    walk_exprs_in_stmt(stmt, &mut |e| {
        if let ExprKind::Var(v) = e.kind() {
            found |= v == data;
        }
    });
    found
}

/// The store-index variables and stored value of a producer whose body is
/// `B[v0, v1, ...] = value` with its own iterators as indices (a unit
/// iterator may be indexed by its only value); or, for indices shifted by
/// constants (`B[vi, vj + 1]`), placeholders `ph_0, ...` and the value in
/// terms of them (TVM's inverse of a bijective affine map, for shifts).
fn inline_pattern(block: &Block, buffer: &Buffer) -> Option<(Vec<Var>, Expr)> {
    let StmtKind::BufferStore(store) = block.body.kind() else {
        return None;
    };
    if store.buffer != *buffer {
        return None;
    }
    let analyzer = Analyzer::new();
    if store.indices.len() == block.iter_vars.len() {
        let trivial: Option<Vec<Var>> = store
            .indices
            .iter()
            .zip(&block.iter_vars)
            .map(|(index, iv)| {
                let is_var = index.as_var() == Some(&iv.var);
                let unit = analyzer.can_prove_equal(index, &Expr::zero(index.dtype()))
                    && iv.dom.min.is_int(0)
                    && iv.dom.extent.is_int(1);
                (is_var || unit).then(|| iv.var.clone())
            })
            .collect();
        if let Some(vars) = trivial {
            return Some((vars, store.value.clone()));
        }
    }
    affine_pattern(block, store)
}

/// Completes the inverse of a store's indices as TVM does: every unit
/// iterator with a constant minimum maps to that minimum, even where the
/// inverse gave it a value (`inputs[0, ...]`, not `inputs[v_n, ...]`).
/// `None` when another iterator has no value.
fn map_unit_iterators_to_min(block: &Block, inverse: &mut VarMap<Expr>) -> Option<()> {
    for iv in &block.iter_vars {
        if iv.dom.extent.is_int(1) && iv.dom.min.is_const() {
            inverse.insert(iv.var.clone(), iv.dom.min.clone());
        } else if !inverse.contains_key(&iv.var) {
            return None;
        }
    }
    Some(())
}

/// `B[v0 * 8 + v1, v2] = value` (after `transform_block_layout`): indices
/// that are a bijective affine map of the iterators onto a box of as many
/// elements, read back through its inverse (TVM's `SetIndexSubstitution`).
fn affine_pattern(block: &Block, store: &BufferStore) -> Option<(Vec<Var>, Expr)> {
    let inputs: Vec<(Var, Range)> = block
        .iter_vars
        .iter()
        .map(|iv| (iv.var.clone(), iv.dom.clone()))
        .collect();
    let analyzer = Analyzer::new();
    let detected = detect_iter_map(
        &store.indices,
        &inputs,
        &Expr::bool(true),
        IterMapLevel::Bijective,
        &analyzer,
        false,
    );
    if !detected.is_success() {
        return None;
    }
    // Indices with holes (`B[vi * 2]`) would leave elements no store wrote.
    let domains: VarMap<IntSet> = inputs
        .iter()
        .map(|(var, range)| (var.clone(), IntSet::from_range(range)))
        .collect();
    // As many index points as iterator points; symbolic sizes compared as
    // expressions (`B[vi + 1]` over `vi < n` spans `n` points).
    let mut index_points = Expr::one(DataType::int64());
    for index in &store.indices {
        let set = eval_set(index, &domains);
        let (Some(min), Some(max)) = (set.min(), set.max()) else {
            return None;
        };
        let extent = build::add(build::sub(max.clone(), min.clone()), Expr::one(max.dtype()));
        index_points = build::mul(index_points, operators::cast(DataType::int64(), extent));
    }
    let iter_points = inputs
        .iter()
        .fold(Expr::one(DataType::int64()), |acc, (_, range)| {
            build::mul(
                acc,
                operators::cast(DataType::int64(), range.extent.clone()),
            )
        });
    if !analyzer.can_prove_equal(&index_points, &iter_points) {
        return None;
    }
    let placeholders: Vec<Var> = store
        .indices
        .iter()
        .enumerate()
        .map(|(i, index)| Var::new(format!("ph_{i}"), index.dtype(), index.span()))
        .collect();
    let values: Vec<Expr> = placeholders.iter().map(Var::to_expr).collect();
    let inverse = inverse_affine_iter_map(&detected.indices, &values)?;
    let mut map: VarMap<Expr> = inverse.into_iter().collect();
    map_unit_iterators_to_min(block, &mut map)?;
    Some((placeholders, substitute(&store.value, &map)))
}

/// How a consumer is folded into its producer.
struct ReversePlan {
    /// The consumer's iterators in terms of the producer's store indices.
    consumer_to_producer: VarMap<Expr>,
    /// The consumer's store.
    consumer_store: BufferStore,
    /// The producer's new predicate, when the consumer covers less than it writes.
    predicate: Option<Expr>,
}

/// The plan of `reverse_compute_inline` when the consumer loads the
/// produced buffer only at its own iterators, each used once.
fn reverse_inline_pattern(
    consumer: &BlockRealize,
    producer: &BlockRealize,
    buffer: &Buffer,
) -> Option<ReversePlan> {
    if consumer.predicate.as_int() != Some(1) {
        return None;
    }
    let StmtKind::BufferStore(store) = consumer.block.body.kind() else {
        return None;
    };
    let StmtKind::BufferStore(producer_store) = producer.block.body.kind() else {
        return None;
    };
    let mut loads: Vec<Vec<Expr>> = Vec::new();
    crate::ir::visit::walk_exprs(&store.value, &mut |e| {
        if let ExprKind::Load(load) = e.kind() {
            if load.buffer == *buffer {
                loads.push(load.indices.clone());
            }
        }
    });
    let first = loads.first()?;
    if loads
        .iter()
        .any(|l| l.len() != first.len() || !l.iter().zip(first).all(|(a, b)| expr_equal(a, b)))
    {
        return None;
    }
    if first.len() != producer_store.indices.len() {
        return None;
    }
    let mut mapping = VarMap::default();
    for iv in &consumer.block.iter_vars {
        if iv.dom.extent.is_int(1) && iv.dom.min.is_const() {
            mapping.insert(iv.var.clone(), iv.dom.min.clone());
        }
    }
    let by_variables = |mapping: &mut VarMap<Expr>| -> Option<()> {
        for (index, producer_index) in first.iter().zip(&producer_store.indices) {
            let var = index.as_var()?;
            if !consumer.block.iter_vars.iter().any(|iv| iv.var == *var) {
                return None;
            }
            if mapping.contains_key(var) && !mapping[var].is_const() {
                return None;
            }
            mapping.insert(var.clone(), producer_index.clone());
        }
        Some(())
    };
    let mut by_name = mapping.clone();
    if by_variables(&mut by_name).is_some() {
        mapping = by_name;
    } else {
        // TVM's rule for any affine load (`C[v0 * 8 + v1, v2]`): each
        // consumer iterator read back from the producer's store indices
        // through the inverse of the load's index map.
        let domains: Vec<(Var, Range)> = consumer
            .block
            .iter_vars
            .iter()
            .map(|iv| (iv.var.clone(), iv.dom.clone()))
            .collect();
        let detected = detect_iter_map(
            first,
            &domains,
            &Expr::bool(true),
            IterMapLevel::NoCheck,
            &Analyzer::new(),
            false,
        );
        if detected.is_success() && !detected.indices.is_empty() {
            for (var, value) in inverse_affine_iter_map(&detected.indices, &producer_store.indices)?
            {
                mapping.insert(var, value);
            }
        } else {
            // TVM pads a split longer than its iterator (`v3 // 10, v3 % 10`
            // for `v3 < 8`) and inverts it as `v4 + v3 * 10` over the
            // producer's indices; tirc's maps have no padding, so that one
            // form is inverted here.
            padded_split_inverse(first, &producer_store.indices, &domains, &mut mapping)?;
        }
    }
    if consumer
        .block
        .iter_vars
        .iter()
        .any(|iv| !mapping.contains_key(&iv.var))
    {
        return None;
    }
    // The producer must write at least what the consumer reads; where it
    // writes more, it keeps only the consumer's part (TVM's in-bound predicate).
    let mut analyzer = Analyzer::new();
    let producer_domains: VarMap<IntSet> = producer
        .block
        .iter_vars
        .iter()
        .map(|iv| (iv.var.clone(), IntSet::from_range(&iv.dom)))
        .collect();
    for iv in &producer.block.iter_vars {
        analyzer.bind(&iv.var, &iv.dom);
    }
    let mut in_bound = Expr::bool(true);
    for iv in &consumer.block.iter_vars {
        let mapped = &mapping[&iv.var];
        let set = analyzer.eval_set(mapped, &producer_domains);
        let (Some(lo), Some(hi)) = (set.min(), set.max()) else {
            return None;
        };
        let dom_last = build::sub(
            build::add(iv.dom.min.clone(), iv.dom.extent.clone()),
            Expr::one(iv.dom.extent.dtype()),
        );
        let starts_after = build::binary(BinaryOp::Gt, lo.clone(), iv.dom.min.clone());
        let ends_before = build::binary(BinaryOp::Lt, hi.clone(), dom_last.clone());
        if analyzer.can_prove(&starts_after) || analyzer.can_prove(&ends_before) {
            return None;
        }
        let same_domain = producer.block.iter_vars.iter().any(|p| {
            mapped.as_var() == Some(&p.var)
                && expr_equal(&p.dom.min, &iv.dom.min)
                && expr_equal(&p.dom.extent, &iv.dom.extent)
        });
        if same_domain {
            continue;
        }
        let low_ok = build::binary(BinaryOp::Le, iv.dom.min.clone(), mapped.clone());
        let dom_end = build::add(iv.dom.min.clone(), iv.dom.extent.clone());
        let high_ok = build::binary(BinaryOp::Lt, mapped.clone(), dom_end);
        for condition in [low_ok, high_ok] {
            if !analyzer.can_prove_with_symbolic_bound(&condition) {
                in_bound = build::binary(BinaryOp::And, in_bound, condition);
            }
        }
    }
    let predicate = if in_bound.as_int() == Some(1) {
        None
    } else {
        let outer = substitute(&analyzer.simplify(&in_bound), &bindings(producer));
        Some(Analyzer::new().simplify(&outer))
    };
    Some(ReversePlan {
        consumer_to_producer: mapping,
        consumer_store: store.clone(),
        predicate,
    })
}

/// Inverts loads whose indices are consumer iterators and pairs `x // c`,
/// `x % c` of one iterator no longer than `c`: `x` is the producer's
/// `inner + outer * c`, unsimplified as TVM's padded inverse writes it.
fn padded_split_inverse(
    indices: &[Expr],
    producer_indices: &[Expr],
    domains: &[(Var, Range)],
    mapping: &mut VarMap<Expr>,
) -> Option<()> {
    let split_of = |index: &Expr, op: BinaryOp| match index.kind() {
        ExprKind::Binary(o, x, c) if *o == op => Some((x.as_var()?.clone(), c.as_int()?)),
        _ => None,
    };
    let consumer_iterator = |var: &Var| domains.iter().find(|(v, _)| v == var).map(|(_, r)| r);
    let mut found_split = false;
    for (position, index) in indices.iter().enumerate() {
        if let Some(var) = index.as_var() {
            consumer_iterator(var)?;
            mapping.insert(var.clone(), producer_indices.get(position)?.clone());
        } else if let Some((var, factor)) = split_of(index, BinaryOp::FloorDiv) {
            let range = consumer_iterator(&var)?;
            let short =
                range.min.as_int() == Some(0) && range.extent.as_int().is_some_and(|e| e <= factor);
            let inner = indices
                .iter()
                .position(|i| split_of(i, BinaryOp::FloorMod) == Some((var.clone(), factor)))?;
            if factor <= 0 || !short {
                return None;
            }
            let outer = producer_indices.get(position)?.clone();
            let scaled = build::node(BinaryOp::Mul, outer, Expr::int(factor, var.dtype()));
            let value = build::node(BinaryOp::Add, producer_indices.get(inner)?.clone(), scaled);
            mapping.insert(var, value);
            found_split = true;
        } else if split_of(index, BinaryOp::FloorMod).is_none() {
            return None;
        }
    }
    found_split.then_some(())
}

/// The scope's statement with the leaf block (and the loops that hold only
/// it) removed.
fn without_leaf(state: &ScheduleState, leaf: NodeId, scope: NodeId) -> ScheduleResult<Stmt> {
    let (holder, new_holder) = leaf_removal(state, leaf, scope)?;
    let scope_stmt = state.sref(scope).ok_or_else(removed)?.stmt.clone();
    Ok(replace_node(&scope_stmt, holder, &new_holder))
}

/// TVM's `LeafBlockRemovalPlan`: the loop or block whose statement sequence
/// holds the leaf (with the loops that hold only it), and that loop or block
/// without it.
pub(crate) fn leaf_removal(
    state: &ScheduleState,
    leaf: NodeId,
    scope: NodeId,
) -> ScheduleResult<(NodeId, Stmt)> {
    let mut subtree = leaf;
    let mut parent = state.sref(leaf).and_then(|s| s.parent);
    while let Some(id) = parent {
        let sref = state.sref(id).ok_or_else(removed)?;
        if sref.kind == SRefKind::Block {
            break;
        }
        let many =
            matches!(sref.as_for().map(|f| f.body.kind()), Some(StmtKind::Seq(s)) if s.len() > 1);
        if many {
            break;
        }
        subtree = id;
        parent = sref.parent;
    }
    let holder = parent.ok_or_else(removed)?;
    let holder_sref = state.sref(holder).ok_or_else(removed)?;
    let body = match holder_sref.stmt.kind() {
        StmtKind::For(f) => &f.body,
        StmtKind::BlockRealize(r) => &r.block.body,
        _ => return Err(removed()),
    };
    let StmtKind::Seq(stmts) = body.kind() else {
        let leaf_sref = state.sref(leaf).ok_or_else(removed)?;
        let scope_sref = state.sref(scope).ok_or_else(removed)?;
        return Err(ScheduleError::new(
            codes::ONLY_LEAF,
            format!(
                "{} is the only block of {}; removing it would leave the scope empty",
                leaf_sref.describe(),
                scope_sref.describe()
            ),
            "inline blocks that share their scope with the blocks that use them",
        )
        .blame(leaf_sref.location(), "the only block")
        .at_argument(0));
    };
    let kept: Vec<Stmt> = stmts
        .iter()
        .filter(|s| stmt_node_id(s) != Some(subtree))
        .cloned()
        .collect();
    let new_body = body.with_kind(StmtKind::Seq(kept));
    let new_holder = match holder_sref.stmt.kind() {
        StmtKind::For(f) => holder_sref.stmt.with_kind(StmtKind::For(crate::ir::For {
            body: Stmt::seq(vec![new_body]),
            ..f.clone()
        })),
        StmtKind::BlockRealize(r) => {
            holder_sref
                .stmt
                .with_kind(StmtKind::BlockRealize(BlockRealize {
                    block: Block {
                        body: Stmt::seq(vec![new_body]),
                        ..r.block.clone()
                    },
                    ..r.clone()
                }))
        }
        _ => return Err(removed()),
    };
    Ok((holder, new_holder))
}

/// The loop or block id of a statement that is one.
fn stmt_node_id(stmt: &Stmt) -> Option<NodeId> {
    match stmt.kind() {
        StmtKind::For(f) => Some(f.id),
        StmtKind::BlockRealize(r) => Some(r.block.id),
        _ => None,
    }
}

/// `stmt` with the loop or block `target` replaced by `replacement` (a
/// sequence replacing an element of a sequence is spliced into it).
pub(crate) fn replace_node(stmt: &Stmt, target: NodeId, replacement: &Stmt) -> Stmt {
    struct Replace<'a> {
        target: NodeId,
        replacement: &'a Stmt,
    }
    impl Mutator for Replace<'_> {
        fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
            if stmt_node_id(stmt) == Some(self.target) {
                return self.replacement.clone();
            }
            let new_stmt = crate::ir::mutate::mutate_stmt_children(self, stmt);
            // A statement replaced by a sequence is spliced into its parent's.
            match new_stmt.kind() {
                StmtKind::Seq(stmts)
                    if stmts.iter().any(|s| matches!(s.kind(), StmtKind::Seq(_))) =>
                {
                    let flat = Stmt::seq(stmts.clone());
                    new_stmt.with_kind(flat.kind().clone())
                }
                _ => new_stmt,
            }
        }
    }
    Replace {
        target,
        replacement,
    }
    .mutate_stmt(stmt)
}

enum InlineKind {
    /// `compute_inline`: loads of the buffer become the producer's value.
    Producer { index_vars: Vec<Var>, value: Expr },
    /// `reverse_compute_inline`: the producer's store becomes the consumer's.
    Consumer { producer: NodeId, plan: ReversePlan },
}

/// TVM's `ComputeInliner`/`ReverseComputeInliner` over the scope (the leaf
/// already removed): rewrites the accesses of the inlined buffer, recomputes
/// the regions of the blocks that accessed it and drops its allocation.
struct Inliner {
    scope: NodeId,
    inlined: Buffer,
    kind: InlineKind,
    opaque_access: bool,
    /// A block whose re-inferred region of a buffer reaches outside it
    /// (a guarded read of the producer, `X[vh - 1]` under `vh >= 1`, seen
    /// from a block around the consumer): (block, buffer).
    out_of_bounds: Option<(String, String)>,
}

impl Inliner {
    /// The consumer's store, written from the producer's `value`.
    fn consumer_store(&self, plan: &ReversePlan, value: &Expr) -> Stmt {
        struct Fold<'a> {
            inlined: &'a Buffer,
            value: &'a Expr,
            map: &'a VarMap<Expr>,
        }
        impl Mutator for Fold<'_> {
            fn mutate_expr(&mut self, expr: &Expr) -> Expr {
                match expr.kind() {
                    ExprKind::Load(load) if load.buffer == *self.inlined => self.value.clone(),
                    ExprKind::Var(v) => self.map.get(v).cloned().unwrap_or_else(|| expr.clone()),
                    _ => mutate_expr_children(self, expr),
                }
            }
        }
        let mut fold = Fold {
            inlined: &self.inlined,
            value,
            map: &plan.consumer_to_producer,
        };
        let store = &plan.consumer_store;
        let indices = store.indices.iter().map(|i| fold.mutate_expr(i)).collect();
        Stmt::store(&store.buffer, fold.mutate_expr(&store.value), indices)
    }
}

impl Mutator for Inliner {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Load(load) = expr.kind() {
            if load.buffer == self.inlined && matches!(self.kind, InlineKind::Producer { .. }) {
                let indices: Vec<Expr> = load.indices.iter().map(|i| self.mutate_expr(i)).collect();
                if let InlineKind::Producer { index_vars, value } = &self.kind {
                    let map: VarMap<Expr> = index_vars.iter().cloned().zip(indices).collect();
                    return substitute(value, &map);
                }
            }
        }
        mutate_expr_children(self, expr)
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let is_consumer = matches!(self.kind, InlineKind::Consumer { .. });
        match stmt.kind() {
            StmtKind::BufferStore(store) if is_consumer && store.buffer == self.inlined => {
                let value = self.mutate_expr(&store.value);
                let InlineKind::Consumer { plan, .. } = &self.kind else {
                    return stmt.clone();
                };
                let new_store = self.consumer_store(plan, &value);
                stmt.with_kind(new_store.kind().clone())
            }
            StmtKind::BlockRealize(realize) if matches!(&self.kind, InlineKind::Consumer { producer, .. } if *producer == realize.block.id) =>
            {
                let predicate = match &self.kind {
                    InlineKind::Consumer { plan, .. } => plan.predicate.clone(),
                    InlineKind::Producer { .. } => None,
                };
                let new_stmt = crate::ir::mutate::mutate_stmt_children(self, stmt);
                match (new_stmt.kind(), predicate) {
                    (StmtKind::BlockRealize(r), Some(predicate)) => {
                        new_stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
                            predicate,
                            ..r.clone()
                        }))
                    }
                    _ => new_stmt,
                }
            }
            _ => crate::ir::mutate::mutate_stmt_children(self, stmt),
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        if block
            .match_buffers
            .iter()
            .any(|m| m.source.buffer == self.inlined)
        {
            self.opaque_access = true;
        }
        let mut new_block = mutate_block_children(self, block);
        if block.id == self.scope {
            new_block.alloc_buffers.retain(|b| *b != self.inlined);
            return new_block;
        }
        let touches = block
            .reads
            .iter()
            .chain(&block.writes)
            .any(|r| r.buffer == self.inlined);
        if touches {
            let (reads, writes) = infer_block_regions(&new_block);
            new_block.reads = reads;
            new_block.writes = writes;
            let outside = region_outside_buffer(&new_block.reads)
                .or_else(|| region_outside_buffer(&new_block.writes));
            if let (Some(buffer), None) = (outside, &self.out_of_bounds) {
                self.out_of_bounds = Some((block.name.clone(), buffer));
            }
        }
        new_block
    }
}

/// The producer block of `buffer` in the scope, which must be the only one
/// and complete (TVM's `NonSingleProducerError::Check`).
fn single_producer(
    state: &ScheduleState,
    consumer: NodeId,
    scope: NodeId,
    buffer: &Buffer,
) -> ScheduleResult<NodeId> {
    let writes = |id: NodeId| {
        state
            .sref(id)
            .and_then(|s| s.as_block())
            .is_some_and(|b| b.writes.iter().any(|w| w.buffer == *buffer))
    };
    // TVM's `ProducerFinder`: the innermost writers. A block with writers
    // under it (a blockized copy) is counted through them, and the consumer
    // is inlined into the store of the block that holds it.
    let producers: Vec<NodeId> = state
        .descendant_blocks(scope)
        .into_iter()
        .filter(|&id| writes(id) && !state.descendant_blocks(id).into_iter().any(writes))
        .collect();
    let sref = state.sref(consumer).ok_or_else(removed)?;
    let complete = |id: NodeId| complete_block_violation(state, id, scope) == 0;
    match producers.as_slice() {
        [only] if complete(*only) => Ok(*only),
        _ => {
            let mut error = ScheduleError::new(
                codes::NOT_INLINABLE,
                format!(
                    "{} can only be inlined into a single complete producer of `{}`, which {}",
                    sref.describe(),
                    buffer.name(),
                    match producers.len() {
                        0 => "no block is".to_string(),
                        1 => "is a reduction or not complete".to_string(),
                        n => format!("{n} blocks write"),
                    }
                ),
                "inline into a producer that computes each element once (for a reduction, use `sch.reverse_compute_at` or `sch.decompose_reduction` first)",
            )
            .blame(sref.location(), "the consumer")
            .at_argument(0);
            for producer in &producers {
                if let Some(p) = state.sref(*producer) {
                    error = error.blame(
                        p.location(),
                        format!("{} writes `{}`", p.describe(), buffer.name()),
                    );
                }
            }
            Err(error)
        }
    }
}

/// The inlining primitives' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "compute_inline",
        aliases: &[],
        params: &[required("block")],
        varargs: None,
        keyword_only: &[],
        doc: "Inlines a block into its consumers: every load of what it writes becomes the value it stores, and the block and its buffer's allocation are removed. The block must be complete, write one intermediate buffer, and store `B[vi, vj] = f(...)` indexed by its iterators.",
        apply: apply_compute_inline,
    },
    Primitive {
        name: "reverse_compute_inline",
        aliases: &[],
        params: &[required("block")],
        varargs: None,
        keyword_only: &[],
        doc: "Inlines a consumer block into its only producer: the producer stores straight into the consumer's output, and the consumer and the intermediate buffer are removed. The consumer must read the produced buffer at its own iterators, `D[vi, vj] = f(C[vi, vj])`.",
        apply: apply_reverse_compute_inline,
    },
];

fn apply_inline(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    primitive: fn(&mut ScheduleState, NodeId) -> ScheduleResult<()>,
) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    primitive(run.state, block).map_err(|e| run.refused(bound, e))?;
    run.record(
        name,
        vec![(Some("block"), TraceArg::Rv(block_rv))],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

fn apply_compute_inline(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_inline(run, bound, "compute_inline", compute_inline)
}

fn apply_reverse_compute_inline(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_inline(run, bound, "reverse_compute_inline", reverse_compute_inline)
}
