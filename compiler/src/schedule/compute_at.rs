//! Moving a block under a loop, after TVM's `compute_at.cc`: `compute_at`
//! moves a producer under a loop of its consumers and regenerates its loops
//! (`ax0, ax1, ...`) to cover exactly the region the consumers read there;
//! `reverse_compute_at` moves a consumer under a loop of its producers,
//! covering what they write. Where the region is not a whole tile of the
//! block's domain, the block gets a `T.where`.

use super::access::{check_not_output, scope_root_of, stage_pipeline_scope};
use super::binding::{and_conjunct, conjuncts, disjuncts};
use super::compute_inline::{leaf_removal, replace_node};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, Param, Primitive};
use super::region::{bindings, loop_domains};
use super::sampling::ComputeLocation;
use super::scope::{complete_block_violation, current_affine_binding, reduction_block_violation};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::arith::int_set::{eval_range, eval_set, intersect, union};
use crate::arith::iter_map::{detect_iter_map, inverse_affine_iter_map, IterMapLevel};
use crate::arith::{build, Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::{
    BinaryOp, BlockRealize, Buffer, BufferRegion, DataType, Expr, ExprKind, For, NodeId, Range,
    Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::HashMap;

/// `sch.compute_at(block, loop, preserve_unit_loops=False, index=-1)`.
pub fn compute_at(
    state: &mut ScheduleState,
    block: NodeId,
    loop_id: NodeId,
    preserve_unit_loops: bool,
    index: i64,
) -> ScheduleResult<()> {
    move_under_loop(state, block, loop_id, preserve_unit_loops, index, true)
}

/// `sch.reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1)`.
pub fn reverse_compute_at(
    state: &mut ScheduleState,
    block: NodeId,
    loop_id: NodeId,
    preserve_unit_loops: bool,
    index: i64,
) -> ScheduleResult<()> {
    move_under_loop(state, block, loop_id, preserve_unit_loops, index, false)
}

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop or block is no longer in the program",
        "get it again",
    )
}

/// TVM's `ComputeAtOrReverseComputeAtImpl`.
fn move_under_loop(
    state: &mut ScheduleState,
    block: NodeId,
    loop_id: NodeId,
    preserve_unit_loops: bool,
    index: i64,
    is_compute_at: bool,
) -> ScheduleResult<()> {
    let primitive = if is_compute_at {
        "compute_at"
    } else {
        "reverse_compute_at"
    };
    let block_sref = state.sref(block).ok_or_else(removed)?;
    let realize = block_sref.as_realize().ok_or_else(removed)?.clone();
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    let target_loop = loop_sref.as_for().ok_or_else(removed)?.clone();
    scope_root_of(state, block)?;
    let scope = stage_pipeline_scope(state, block)?;
    let info = state.block_info(scope).ok_or_else(removed)?;
    let producers = info.scope.producers_of(block);
    let consumers = info.scope.consumers_of(block);
    if complete_block_violation(state, block, scope) != 0
        && reduction_block_violation(state, block, scope) != 0
    {
        return Err(ScheduleError::new(
            codes::NOT_COMPLETE_BLOCK,
            format!(
                "{} is neither a complete block nor a reduction block of its scope",
                block_sref.describe()
            ),
            "only blocks that write their outputs alone (spatial iterators, or a reduction with `T.init()`) can be moved",
        )
        .blame(block_sref.location(), "the block")
        .at_argument(0));
    }
    // The loop must sit in the block's scope (only loops between it and the
    // scope root) and must not hold the block already.
    let mut analyzer = Analyzer::new();
    state.mark_shape_vars_non_negative(scope, &mut analyzer);
    let mut current = Some(loop_id);
    while let Some(id) = current {
        let sref = state.sref(id).ok_or_else(removed)?;
        match sref.as_for() {
            Some(f) => analyzer.bind(&f.loop_var, &f.range()),
            None if id == scope => break,
            None => return Err(not_in_scope(state, block, loop_id, primitive)),
        }
        current = sref.parent;
    }
    if state.ancestors(block).contains(&loop_id) {
        return Err(ScheduleError::new(
            codes::BAD_COMPUTE_LOCATION,
            format!(
                "{} is already under {}; {primitive} moves a block under a loop outside it",
                block_sref.describe(),
                loop_sref.describe()
            ),
            "pass a loop of the block's consumers (compute_at) or producers (reverse_compute_at)",
        )
        .blame(loop_sref.location(), "an enclosing loop of the block")
        .at_argument(1));
    }
    if is_compute_at {
        for write in &realize.block.writes {
            check_not_output(state, block, scope, &write.buffer, primitive)?;
        }
    }
    let (holder, new_holder) = leaf_removal(state, block, scope)?;
    let subtrees: Vec<Stmt> = match target_loop.body.kind() {
        StmtKind::Seq(stmts) => stmts.clone(),
        _ => vec![target_loop.body.clone()],
    };
    let position = insertion_point(
        state,
        &subtrees,
        &producers,
        &consumers,
        index,
        is_compute_at,
        loop_id,
    )?;
    // What the block provides and what the blocks on the other side need
    // under the loop, per buffer.
    let provided_regions: &[BufferRegion] = if is_compute_at {
        &realize.block.writes
    } else {
        &realize.block.reads
    };
    let mut provided: HashMap<Buffer, Vec<Vec<IntSet>>> = HashMap::new();
    let mut required: HashMap<Buffer, Vec<Vec<IntSet>>> = HashMap::new();
    for region in provided_regions {
        provided
            .entry(region.buffer.clone())
            .or_default()
            .push(region.region.iter().map(IntSet::from_range).collect());
        required.entry(region.buffer.clone()).or_default();
    }
    let others = if is_compute_at {
        &consumers
    } else {
        &producers
    };
    for &other in others {
        let Some(other_sref) = state.sref(other) else {
            continue;
        };
        let Some(other_realize) = other_sref.as_realize() else {
            continue;
        };
        let regions = if is_compute_at {
            &other_realize.block.reads
        } else {
            &other_realize.block.writes
        };
        let binding = bindings(other_realize);
        for region in regions {
            let Some(list) = required.get_mut(&region.buffer) else {
                continue;
            };
            // Only consumers' reads relax over the threads sharing a buffer.
            let scope = if is_compute_at {
                region.buffer.scope()
            } else {
                "global"
            };
            let domains = loop_domains(state, other_sref.parent, loop_id, scope);
            list.push(
                region
                    .region
                    .iter()
                    .map(|r| {
                        let r = Range::new(
                            substitute(&r.min, &binding),
                            substitute(&r.extent, &binding),
                        );
                        eval_range(&r, &domains)
                    })
                    .collect(),
            );
        }
    }
    let iter_doms = block_var_domains(&realize, provided_regions, &provided, &required, &analyzer)
        .map_err(|why| {
            ScheduleError::new(
                codes::BAD_COMPUTE_LOCATION,
                format!(
                    "the loops of {} cannot be regenerated under {}: {why}",
                    block_sref.describe(),
                    loop_sref.describe()
                ),
                "move blocks whose outputs (compute_at) or inputs (reverse_compute_at) are indexed by their iterators, `B[vi, vj]`",
            )
            .blame(block_sref.location(), "the block")
            .blame(loop_sref.location(), "the loop")
        })?;
    let new_subtree = make_new_loops(&realize, &iter_doms, &mut analyzer, preserve_unit_loops);
    let mut new_body = subtrees;
    new_body.insert(position, new_subtree);
    let new_loop = Stmt::new(
        StmtKind::For(For {
            body: Stmt::seq(new_body),
            ..target_loop
        }),
        loop_sref.stmt.span(),
    );
    let scope_stmt = state.sref(scope).ok_or_else(removed)?.stmt.clone();
    let without_block = replace_node(&scope_stmt, holder, &new_holder);
    let new_scope = replace_node(&without_block, loop_id, &new_loop);
    state.replace(scope, new_scope);
    // As TVM: the moved block's binding is checked again, its other flags kept.
    if let Some(mut flags) = state.block_flags(block) {
        flags.affine_binding = current_affine_binding(state, block);
        state.set_block_flags(block, flags);
    }
    Ok(())
}

fn not_in_scope(
    state: &ScheduleState,
    block: NodeId,
    loop_id: NodeId,
    primitive: &str,
) -> ScheduleError {
    let mut error = ScheduleError::new(
        codes::BAD_COMPUTE_LOCATION,
        format!("the loop is not in the scope of the block, so {primitive} cannot move the block under it"),
        "pass a loop between the block's scope root and its consumers or producers, not one inside another block",
    )
    .at_argument(1);
    if let Some(b) = state.sref(block) {
        error = error.blame(b.location(), b.describe());
    }
    if let Some(l) = state.sref(loop_id) {
        error = error.blame(
            l.location(),
            format!("{} is in another block", l.describe()),
        );
    }
    error
}

/// TVM's `FindInsertionPoint`: where among the loop's statements the block
/// goes, between its last producer and its first consumer.
fn insertion_point(
    state: &ScheduleState,
    subtrees: &[Stmt],
    producers: &[NodeId],
    consumers: &[NodeId],
    index: i64,
    is_compute_at: bool,
    loop_id: NodeId,
) -> ScheduleResult<usize> {
    let n = subtrees.len();
    let mut last_producer: i64 = -1;
    let mut first_consumer = n;
    let mut producers_seen = 0;
    let mut consumers_seen = 0;
    for (i, subtree) in subtrees.iter().enumerate() {
        let blocks = top_blocks(subtree);
        let p = blocks.iter().filter(|b| producers.contains(b)).count();
        let c = blocks.iter().filter(|b| consumers.contains(b)).count();
        producers_seen += p;
        consumers_seen += c;
        if p > 0 {
            last_producer = i as i64;
        }
        if c > 0 && first_consumer == n {
            first_consumer = i;
        }
    }
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    if last_producer >= first_consumer as i64 {
        return Err(ScheduleError::new(
            codes::BAD_COMPUTE_LOCATION,
            format!(
                "under {} a producer of the block (statement {last_producer}) comes after a consumer (statement {first_consumer}), so no position lies between them",
                loop_sref.describe()
            ),
            "move the block under a loop where its producers all come before its consumers",
        )
        .blame(loop_sref.location(), "the loop")
        .at_argument(1));
    }
    let (needed, seen, side) = if is_compute_at {
        (consumers, consumers_seen, "consumers")
    } else {
        (producers, producers_seen, "producers")
    };
    if seen < needed.len() {
        let mut error = ScheduleError::new(
            codes::BAD_COMPUTE_LOCATION,
            format!(
                "{} of the block's {} {side} {} not under {}",
                needed.len() - seen,
                needed.len(),
                if needed.len() - seen == 1 { "is" } else { "are" },
                loop_sref.describe()
            ),
            format!(
                "pass a loop that encloses every one of the block's {side} (compute_at goes under the consumers' loops, reverse_compute_at under the producers')"
            ),
        )
        .blame(loop_sref.location(), "the loop")
        .at_argument(1);
        for block in needed {
            if !state.ancestors(*block).contains(&loop_id) {
                if let Some(s) = state.sref(*block) {
                    error = error.blame(
                        s.location(),
                        format!("{} is outside the loop", s.describe()),
                    );
                }
            }
        }
        return Err(error);
    }
    let low = (last_producer + 1) as usize;
    match index {
        -1 => Ok(first_consumer),
        -2 => Ok(low),
        i if i >= 0 && (i as usize) >= low && (i as usize) <= first_consumer => Ok(i as usize),
        _ => Err(ScheduleError::new(
            codes::BAD_COMPUTE_LOCATION,
            format!(
                "`index` {index} is not a valid position: under {} the block can go at {low} to {first_consumer}",
                loop_sref.describe()
            ),
            format!("pass -1 (before the first consumer), -2 (after the last producer) or a position in [{low}, {first_consumer}]"),
        )
        .at_argument(3)),
    }
}

/// The blocks of a statement not nested in another block.
fn top_blocks(stmt: &Stmt) -> Vec<NodeId> {
    let mut found = Vec::new();
    fn walk(stmt: &Stmt, found: &mut Vec<NodeId>) {
        match stmt.kind() {
            StmtKind::BlockRealize(r) => found.push(r.block.id),
            StmtKind::For(f) => walk(&f.body, found),
            StmtKind::Seq(stmts) => stmts.iter().for_each(|s| walk(s, found)),
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                walk(then_case, found);
                if let Some(e) = else_case {
                    walk(e, found);
                }
            }
            StmtKind::LetStmt { body, .. }
            | StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Assert { body, .. }
            | StmtKind::While { body, .. } => walk(body, found),
            StmtKind::Allocate(a) => walk(&a.body, found),
            StmtKind::AttrStmt(a) => walk(&a.body, found),
            StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => {}
        }
    }
    walk(stmt, &mut found);
    found
}

/// The domain an iterator must cover and the bound it must stay in (TVM's
/// `BlockVarDomainInfo`).
#[derive(Clone, Debug)]
struct VarDomain {
    dom: IntSet,
    bound: IntSet,
}

impl VarDomain {
    fn nothing() -> VarDomain {
        VarDomain {
            dom: IntSet::Nothing,
            bound: IntSet::Nothing,
        }
    }
    fn union(&mut self, other: &VarDomain) {
        self.dom = union_of(&self.dom, &other.dom);
        self.bound = union_of(&self.bound, &other.bound);
    }
    fn simplify(&mut self, analyzer: &Analyzer) {
        // Constant bounds (the common case) intersect without the simplifier.
        if let (Some([d0, d1]), Some([b0, b1])) = (constant(&self.dom), constant(&self.bound)) {
            let dtype = self.dom.min().map(Expr::dtype).unwrap_or(DataType::int32());
            self.dom = IntSet::interval(Expr::int(d0.max(b0), dtype), Expr::int(d1.min(b1), dtype));
            self.bound = IntSet::Nothing;
            return;
        }
        let simplified = |set: &IntSet| match (set.min(), set.max()) {
            (Some(lo), Some(hi)) => IntSet::interval(analyzer.simplify(lo), analyzer.simplify(hi)),
            _ => set.clone(),
        };
        if self.dom.is_nothing() {
            if self.bound.has_lower_bound() && self.bound.has_upper_bound() {
                self.dom = simplified(&self.bound);
                self.bound = IntSet::Nothing;
            }
            return;
        }
        self.dom = simplified(&self.dom);
        self.bound = simplified(&self.bound);
        // The usual case: the domain provably inside a constant bound.
        if let (Some([b0, b1]), Some(d0), Some(d1)) =
            (constant(&self.bound), self.dom.min(), self.dom.max())
        {
            let inside = |value: &Expr, op: BinaryOp, limit: i64| {
                analyzer.can_prove(&build::binary(
                    op,
                    value.clone(),
                    Expr::int(limit, value.dtype()),
                ))
            };
            if inside(d0, BinaryOp::Ge, b0) && inside(d1, BinaryOp::Le, b1) {
                self.bound = IntSet::Nothing;
                return;
            }
        }
        let both = simplified(&intersect(&[self.dom.clone(), self.bound.clone()]));
        let same = |a: &IntSet, b: &IntSet| match (a.min(), a.max(), b.min(), b.max()) {
            (Some(a0), Some(a1), Some(b0), Some(b1)) => {
                analyzer.can_prove_equal(a0, b0) && analyzer.can_prove_equal(a1, b1)
            }
            _ => false,
        };
        if same(&self.dom, &both) {
            self.bound = IntSet::Nothing;
        } else if same(&self.bound, &both) {
            self.dom = self.bound.clone();
            self.bound = IntSet::Nothing;
        } else if both.min().is_some_and(Expr::is_const) && both.max().is_some_and(Expr::is_const) {
            self.dom = both;
            self.bound = IntSet::Nothing;
        }
    }
}

/// The bounds of a set when both are integer constants.
fn constant(set: &IntSet) -> Option<[i64; 2]> {
    Some([set.min()?.as_int()?, set.max()?.as_int()?])
}

/// The union of two sets; numerically when both are constant intervals.
fn union_of(a: &IntSet, b: &IntSet) -> IntSet {
    match (constant(a), constant(b), a.min()) {
        (Some([a0, a1]), Some([b0, b1]), Some(min)) => {
            let dtype = min.dtype();
            IntSet::interval(Expr::int(a0.min(b0), dtype), Expr::int(a1.max(b1), dtype))
        }
        _ => union(&[a.clone(), b.clone()]),
    }
}

/// TVM's `CalculateBlockVarDomain`, dimension by dimension: the range each
/// iterator must take so that what the block provides covers what is required.
fn block_var_domains(
    realize: &BlockRealize,
    provided_regions: &[BufferRegion],
    provided: &HashMap<Buffer, Vec<Vec<IntSet>>>,
    required: &HashMap<Buffer, Vec<Vec<IntSet>>>,
    analyzer: &Analyzer,
) -> Result<Vec<VarDomain>, String> {
    let iter_vars = &realize.block.iter_vars;
    let mut doms: VarMap<VarDomain> = iter_vars
        .iter()
        .map(|iv| (iv.var.clone(), VarDomain::nothing()))
        .collect();
    let mut seen: Vec<&Buffer> = Vec::new();
    for region in provided_regions {
        let buffer = &region.buffer;
        if seen.contains(&buffer) {
            continue;
        }
        seen.push(buffer);
        let Some(required_list) = required.get(buffer).filter(|l| !l.is_empty()) else {
            continue;
        };
        let provided_list = &provided[buffer];
        let rank = buffer.rank();
        let union_at = |list: &[Vec<IntSet>], dim: usize| {
            list.iter()
                .map(|r| r[dim].clone())
                .reduce(|a, b| union_of(&a, &b))
                .unwrap_or(IntSet::Nothing)
        };
        let provided_union: Vec<IntSet> = (0..rank).map(|d| union_at(provided_list, d)).collect();
        let required_union: Vec<IntSet> = (0..rank).map(|d| union_at(required_list, d)).collect();
        if let Some(solved) = solve_var_domains_affine(
            buffer,
            iter_vars,
            &provided_union,
            &required_union,
            analyzer,
        ) {
            for (var, info) in solved {
                if let Some(existing) = doms.get_mut(&var) {
                    existing.union(&info);
                }
            }
            continue;
        }
        for dim in 0..rank {
            let provided_set = provided_union[dim].clone();
            let required_set = required_union[dim].clone();
            let extent = buffer.shape()[dim].clone();
            let dim_max = build::max(
                build::sub(extent.clone(), Expr::one(extent.dtype())),
                Expr::zero(extent.dtype()),
            );
            if provided_set.can_prove_single_point(analyzer)
                && provided_set.min().is_some_and(Expr::is_const)
            {
                continue;
            }
            let (var, info) = solve_var_domain(&provided_set, &required_set, &dim_max, analyzer)
                .ok_or_else(|| {
                    format!(
                        "dimension {dim} of `{}` is not indexed by an iterator (or iterator times a constant)",
                        buffer.name()
                    )
                })?;
            if let Some(existing) = doms.get_mut(&var) {
                existing.union(&info);
            }
        }
    }
    let mut result = Vec::with_capacity(iter_vars.len());
    for iv in iter_vars {
        let mut info = doms[&iv.var].clone();
        let full = IntSet::from_range(&iv.dom);
        info.bound = match (constant(&info.bound), constant(&full)) {
            _ if info.bound.is_nothing() => full,
            (Some([a0, a1]), Some([b0, b1])) if a0.max(b0) <= a1.min(b1) => {
                let dtype = iv.dom.extent.dtype();
                IntSet::interval(Expr::int(a0.max(b0), dtype), Expr::int(a1.min(b1), dtype))
            }
            _ => intersect(&[info.bound.clone(), full]),
        };
        info.simplify(analyzer);
        if info.dom.is_nothing() {
            return Err(format!("iterator `{}` gets no domain", iv.var.name()));
        }
        result.push(info);
    }
    Ok(result)
}

/// TVM's `UpdateBlockVarDomainAffine`: where the block provides one point
/// of the buffer and its indices are a bijective affine map of its
/// iterators (`B[vk_0 * 4 + vk_1]`), each iterator's range is read back
/// from the corners of the required region through the inverse map. `None`
/// sends the buffer to the dimension-by-dimension rule.
fn solve_var_domains_affine(
    buffer: &Buffer,
    iter_vars: &[crate::ir::IterVar],
    provided: &[IntSet],
    required: &[IntSet],
    analyzer: &Analyzer,
) -> Option<Vec<(Var, VarDomain)>> {
    let mut indices = Vec::with_capacity(provided.len());
    for set in provided {
        if !set.can_prove_single_point(analyzer) {
            return None;
        }
        indices.push(set.min()?.clone());
    }
    let domains: Vec<(Var, Range)> = iter_vars
        .iter()
        .map(|iv| (iv.var.clone(), iv.dom.clone()))
        .collect();
    let detected = detect_iter_map(
        &indices,
        &domains,
        &Expr::bool(true),
        IterMapLevel::Bijective,
        analyzer,
        false,
    );
    if !detected.is_success() || detected.indices.is_empty() {
        return None;
    }
    // TVM reads the inverse at the region's two corners, which misses
    // digits where the region is not aligned (`y % 4` over `y` in [2, 5] is
    // not [1, 2]); the inverse is evaluated over the whole region instead,
    // which gives the same ranges on aligned regions.
    let outputs: Vec<Var> = indices
        .iter()
        .enumerate()
        .map(|(i, index)| Var::new(format!("y{i}"), index.dtype(), Span::NONE))
        .collect();
    let output_exprs: Vec<Expr> = outputs.iter().map(Var::to_expr).collect();
    let inverse = inverse_affine_iter_map(&detected.indices, &output_exprs)?;
    let inverse_range = |region: &[IntSet]| -> Option<Vec<(Var, IntSet)>> {
        let region_of: VarMap<IntSet> = outputs
            .iter()
            .cloned()
            .zip(region.iter().cloned())
            .collect();
        inverse
            .iter()
            .map(|(var, value)| {
                let set = eval_set(value, &region_of);
                let set =
                    IntSet::interval(analyzer.simplify(set.min()?), analyzer.simplify(set.max()?));
                Some((var.clone(), set))
            })
            .collect()
    };
    let whole: Vec<IntSet> = buffer
        .shape()
        .iter()
        .map(|extent| {
            let zero = Expr::zero(extent.dtype());
            let last = build::sub(extent.clone(), Expr::one(extent.dtype()));
            IntSet::interval(zero.clone(), build::max(last, zero))
        })
        .collect();
    let doms = inverse_range(required)?;
    let bounds = inverse_range(&whole)?;
    doms.into_iter()
        .map(|(var, dom)| {
            let bound = bounds.iter().find(|(v, _)| *v == var)?.1.clone();
            Some((var, VarDomain { dom, bound }))
        })
        .collect()
}

/// TVM's `SolveBlockVarDomain` for one dimension: which iterator indexes
/// it, and the range of that iterator that provides `required`.
fn solve_var_domain(
    provided: &IntSet,
    required: &IntSet,
    dim_max: &Expr,
    analyzer: &Analyzer,
) -> Option<(Var, VarDomain)> {
    let provided_min = analyzer.simplify(provided.min()?);
    let provided_max = analyzer.simplify(provided.max()?);
    let required_min = analyzer.simplify(required.min()?);
    let required_max = analyzer.simplify(required.max()?);
    let zero = Expr::zero(dim_max.dtype());
    if let ExprKind::Binary(BinaryOp::Mul, a, b) = provided_min.kind() {
        let (var, factor) = match (a.as_var(), b.as_var()) {
            (Some(v), _) => (v.clone(), b.clone()),
            (None, Some(v)) => (v.clone(), a.clone()),
            _ => return None,
        };
        return Some((
            var,
            VarDomain {
                dom: IntSet::interval(
                    build::floordiv(required_min, factor.clone()),
                    build::floordiv(required_max, factor.clone()),
                ),
                bound: IntSet::interval(zero, build::floordiv(dim_max.clone(), factor)),
            },
        ));
    }
    if !analyzer.can_prove_equal(&provided_min, &provided_max) {
        return None;
    }
    if let Some(var) = provided_min.as_var() {
        return Some((
            var.clone(),
            VarDomain {
                dom: IntSet::interval(required_min, required_max),
                bound: IntSet::interval(zero, dim_max.clone()),
            },
        ));
    }
    match provided_min.kind() {
        ExprKind::Binary(BinaryOp::FloorDiv, inner, factor)
            if analyzer.can_prove_greater_equal(factor, 1) =>
        {
            let scaled_max = |e: &Expr| {
                analyzer.simplify(&build::add(
                    build::mul(e.clone(), factor.clone()),
                    build::sub(factor.clone(), Expr::one(factor.dtype())),
                ))
            };
            let new_required = IntSet::interval(
                build::mul(required_min.clone(), factor.clone()),
                scaled_max(&required_max),
            );
            match inner.as_var() {
                Some(var) => Some((
                    var.clone(),
                    VarDomain {
                        dom: new_required,
                        bound: IntSet::interval(zero, scaled_max(dim_max)),
                    },
                )),
                None => solve_var_domain(
                    &IntSet::single_point(inner.clone()),
                    &new_required,
                    dim_max,
                    analyzer,
                ),
            }
        }
        ExprKind::Binary(BinaryOp::FloorMod, inner, _) => inner
            .as_var()
            .map(|var| (var.clone(), VarDomain::nothing())),
        _ => None,
    }
}

/// TVM's `MakeNewLoop`: loops `ax0, ...` over the domains (unit ones left
/// out unless `preserve_unit_loops`), the block bound to them, and a
/// `T.where` for the bounds the domains overshoot.
fn make_new_loops(
    realize: &BlockRealize,
    iter_doms: &[VarDomain],
    analyzer: &mut Analyzer,
    preserve_unit_loops: bool,
) -> Stmt {
    let mut loop_vars: Vec<(Var, Expr)> = Vec::new();
    let mut iter_values = Vec::with_capacity(iter_doms.len());
    let mut predicate = Expr::bool(true);
    for (info, iv) in iter_doms.iter().zip(&realize.block.iter_vars) {
        let range = info.dom.cover_range(&iv.dom);
        let value = if preserve_unit_loops || !range.extent.is_int(1) {
            let bits = range.min.dtype().bits.max(range.extent.dtype().bits);
            let dtype = DataType::int(bits);
            let var = Var::new(format!("ax{}", loop_vars.len()), dtype, Span::NONE);
            let extent = analyzer.simplify(&range.extent);
            analyzer.bind(&var, &Range::new(Expr::zero(dtype), range.extent.clone()));
            loop_vars.push((var.clone(), extent));
            build::add(range.min.clone(), var.to_expr())
        } else {
            range.min.clone()
        };
        if let (Some(lo), true) = (info.bound.min(), info.bound.has_lower_bound()) {
            let condition = build::binary(BinaryOp::Ge, value.clone(), lo.clone());
            if !analyzer.can_prove_with_symbolic_bound(&condition) {
                predicate = build::binary(BinaryOp::And, predicate, condition);
            }
        }
        if let (Some(hi), true) = (info.bound.max(), info.bound.has_upper_bound()) {
            let limit = build::add(hi.clone(), Expr::one(hi.dtype()));
            let condition = build::binary(BinaryOp::Lt, value.clone(), limit);
            if !analyzer.can_prove_with_symbolic_bound(&condition) {
                predicate = build::binary(BinaryOp::And, predicate, condition);
            }
        }
        iter_values.push(value);
    }
    // Simplifying `i < min(max(n - 1, 0), m - 1) + 1` splits it into parts
    // the loop bounds decide alone (`i < n or i < 1` under `i < n`): drop them.
    let proven = |condition: &Expr| {
        disjuncts(condition)
            .iter()
            .any(|d| analyzer.can_prove_with_symbolic_bound(d))
    };
    let predicate = conjuncts(&analyzer.simplify(&predicate))
        .into_iter()
        .filter(|conjunct| !proven(conjunct))
        .fold(Expr::bool(true), and_conjunct);
    let mut body = Stmt::block_realize(BlockRealize {
        iter_values,
        predicate,
        block: realize.block.clone(),
    });
    for (var, extent) in loop_vars.into_iter().rev() {
        body = super::loop_transformation::new_loop(&var, extent, body, Span::NONE);
    }
    body
}

/// The parameters `compute_at` and `reverse_compute_at` share.
const MOVE_PARAMS: &[Param] = &[
    required("block"),
    required("loop"),
    optional("preserve_unit_loops", "False"),
    optional("index", "-1"),
];

/// The descriptors of `compute_at` and `reverse_compute_at`.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "compute_at",
        aliases: &[],
        params: MOVE_PARAMS,
        varargs: None,
        keyword_only: &[],
        doc: "Moves a producer block under a loop of its consumers; its loops (`ax0, ax1, ...`) are regenerated to cover exactly the region the consumers read at each iteration, with a `T.where` where that region overshoots the block's domain. `index` places it among the loop's statements (-1: before the first consumer, -2: after the last producer).",
        apply: apply_compute_at,
    },
    Primitive {
        name: "reverse_compute_at",
        aliases: &[],
        params: MOVE_PARAMS,
        varargs: None,
        keyword_only: &[],
        doc: "Moves a consumer block under a loop of its producers; its loops are regenerated to cover exactly the region the producers write at each iteration.",
        apply: apply_reverse_compute_at,
    },
];

fn apply_compute_at(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_move(run, bound, "compute_at", compute_at)
}

fn apply_reverse_compute_at(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_move(run, bound, "reverse_compute_at", reverse_compute_at)
}

fn apply_move(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    primitive: fn(&mut ScheduleState, NodeId, NodeId, bool, i64) -> ScheduleResult<()>,
) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let mark = match bound.get(1).map(|a| &a.value) {
        Some(Value::LocationMark(rv, mark)) => Some((*rv, *mark)),
        _ => None,
    };
    let (loop_rv, loop_id) = match mark {
        Some((rv, _)) => (rv, None),
        None => {
            let (rv, id) = run.loop_arg(bound, 1, "loop")?;
            (rv, Some(id))
        }
    };
    let preserve = run.bool_arg(bound, 2, "preserve_unit_loops", false)?;
    let index = run.int_arg(bound, 3, "index", Some(-1))?;
    // `sample_compute_location`'s marks, as TVM's ComputeAt takes them: the
    // root leaves the block where it is, inline inlines it.
    let applied = match (mark, loop_id) {
        (Some((_, ComputeLocation::Inline)), _) if name == "compute_at" => {
            super::compute_inline::compute_inline(run.state, block)
        }
        (Some((_, ComputeLocation::Inline)), _) => {
            super::compute_inline::reverse_compute_inline(run.state, block)
        }
        (Some(_), _) | (None, None) => Ok(()),
        (None, Some(loop_id)) => primitive(run.state, block, loop_id, preserve, index),
    };
    applied.map_err(|e| run.refused(bound, e))?;
    run.record(
        name,
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("loop"), TraceArg::Rv(loop_rv)),
            (Some("preserve_unit_loops"), TraceArg::Bool(preserve)),
            (Some("index"), TraceArg::Int(index)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}
