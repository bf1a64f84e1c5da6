//! `reindex`, after TVM's `ReIndex` (in its `cache_read_write.cc`): a
//! block's one access pattern of a buffer (`A[vi + vry, vk]`) is replaced by
//! a new buffer `A_reindex` indexed by the block iterators the pattern uses
//! (`A_reindex[vi, vry, vk]`), with a copy stage before the block (a read)
//! or after it (a write). Tensorization uses it to bring an operand into the
//! shape of an intrinsic's iteration space.

use super::access::{nth_access_buffer, stage_pipeline_scope, AccessKind};
use super::cache_read_write::{insert_stage, set_stage_flags, stage_under_loops};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::layout_transformation::{buffer_choice_arg, buffer_trace_arg, BufferChoice};
use super::primitive::{required, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::arith::{build, Analyzer};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, substitute, Mutator,
};
use crate::ir::visit::{expr_uses_var, walk_exprs_in_stmt, walk_stmts};
use crate::ir::{
    BinaryOp, Block, Buffer, BufferRegion, Expr, ExprKind, IterKind, IterVar, NodeId, Stmt,
    StmtKind, Var,
};
use crate::printer::expr_to_string;
use crate::source::Span;

/// `sch.reindex(block, buffer)`: returns the new copy stage.
pub fn reindex(
    state: &mut ScheduleState,
    block: NodeId,
    kind: AccessKind,
    index: i64,
) -> ScheduleResult<NodeId> {
    let buffer = nth_access_buffer(state, block, index, kind).map_err(|e| e.at_argument(1))?;
    let scope = stage_pipeline_scope(state, block)?;
    let sref = state.sref(block).ok_or_else(gone)?;
    let target = sref.as_block().ok_or_else(gone)?.clone();
    let location = sref.location();
    let indices = single_access(&target, &buffer).map_err(|problem| {
        ScheduleError::new(
            codes::BAD_REINDEX,
            format!("block `{}` {problem}", target.name),
            "reindex a leaf block that loads or stores the buffer at one index tuple",
        )
        .blame(location, "this block")
        .at_argument(1)
    })?;
    // The copy goes beside the outermost loop over the block, which must hold only it.
    let top = top_of_loop_chain(state, block, scope, &buffer, kind)
        .map_err(|e| e.blame(location, "this block"))?;
    let mut analyzer = Analyzer::new();
    for iter_var in &target.iter_vars {
        analyzer.bind(&iter_var.var, &iter_var.dom);
    }
    let indices: Vec<Expr> = indices
        .iter()
        .map(|index| {
            let simplified = analyzer.simplify(index);
            // TVM's SimplifyNonTrivialExpr: a variable stays a variable.
            if simplified.as_int().is_some() && index.as_var().is_some() {
                index.clone()
            } else {
                simplified
            }
        })
        .collect();
    check_copy_in_bounds(&analyzer, &target, &buffer, &indices)
        .map_err(|e| e.blame(location, "this block").at_argument(1))?;
    let covered: Vec<&IterVar> = target
        .iter_vars
        .iter()
        .filter(|iv| {
            indices
                .iter()
                .any(|i| expr_uses_var(i, &mut |v| *v == iv.var))
        })
        .collect();
    let name = format!("{}_reindex", buffer.name());
    let new_buffer = buffer.with(|node| {
        node.data = Var::pointer(&name, node.dtype, &node.scope, node.span);
        node.name = name.clone();
        node.shape = covered
            .iter()
            .map(|iv| crate::arith::build::add(iv.dom.min.clone(), iv.dom.extent.clone()))
            .map(|end| analyzer.simplify(&end))
            .collect();
        node.strides = Vec::new();
    });
    let (stage, stage_id) = make_reindex_stage(
        &buffer,
        &new_buffer,
        kind,
        &target.iter_vars,
        &covered,
        &indices,
    );
    let position = seq_position(state, top) + usize::from(kind == AccessKind::Write);
    let new_indices: Vec<Expr> = covered.iter().map(|iv| iv.var.to_expr()).collect();
    let mut rewriter = ReindexRewriter {
        scope,
        target: block,
        from: buffer,
        to: new_buffer,
        indices: new_indices,
        stage,
        position,
    };
    let scope_stmt = state.sref(scope).ok_or_else(gone)?.stmt.clone();
    let new_scope = rewriter.mutate_stmt(&scope_stmt);
    state.replace(scope, new_scope);
    set_stage_flags(state, stage_id);
    Ok(stage_id)
}

/// Refuses a copy that would leave the buffer: the copy runs over the whole
/// of the block's iterator domains, but the block may access the buffer only
/// where an `if_then_else` or its `T.where` holds (a padding stage reading
/// `A[vi - 1]`). TVM copies out of bounds there; refused only where provably
/// outside, so symbolic sizes it cannot decide stay accepted.
fn check_copy_in_bounds(
    analyzer: &Analyzer,
    target: &Block,
    buffer: &Buffer,
    indices: &[Expr],
) -> ScheduleResult<()> {
    for (dim, (index, extent)) in indices.iter().zip(buffer.shape()).enumerate() {
        let set = analyzer.int_set(index);
        let (Some(min), Some(max)) = (set.min(), set.max()) else {
            continue;
        };
        let (min, max) = (analyzer.simplify(min), analyzer.simplify(max));
        let below = analyzer.can_prove(&build::binary(
            BinaryOp::Lt,
            min.clone(),
            Expr::zero(min.dtype()),
        ));
        let above = analyzer.can_prove(&build::binary(BinaryOp::Ge, max.clone(), extent.clone()));
        if below || above {
            return Err(ScheduleError::new(
                codes::BAD_REINDEX,
                format!(
                    "the copy would access `{}` at `{}`, from {} to {}, outside dimension {dim}'s 0..{}: block `{}` reaches there only where a condition holds, and the copy runs over every iteration",
                    buffer.name(),
                    expr_to_string(index),
                    expr_to_string(&min),
                    expr_to_string(&max),
                    expr_to_string(extent),
                    target.name
                ),
                "stage the buffer with `cache_read`/`cache_write`, whose copy covers the buffer, or reindex a block that accesses it unguarded",
            ));
        }
    }
    Ok(())
}

fn gone() -> ScheduleError {
    ScheduleError::new(
        codes::BAD_REINDEX,
        "the block is gone",
        "get the block again",
    )
}

/// The one index tuple at which `block` loads and stores `buffer`, or what
/// is wrong with its accesses (TVM's `ReIndexCollector`).
fn single_access(block: &Block, buffer: &Buffer) -> Result<Vec<Expr>, String> {
    let mut nested = false;
    let mut opaque = false;
    let mut patterns: Vec<Vec<Expr>> = Vec::new();
    let mut note = |indices: &[Expr]| {
        let same = |p: &Vec<Expr>| {
            p.len() == indices.len()
                && p.iter()
                    .zip(indices)
                    .all(|(a, b)| crate::ir::structural::expr_deep_equal(a, b))
        };
        if !patterns.iter().any(same) {
            patterns.push(indices.to_vec());
        }
    };
    for part in block.init.iter().chain(std::iter::once(&block.body)) {
        walk_stmts(part, &mut |stmt| match stmt.kind() {
            StmtKind::BlockRealize(_) => nested = true,
            StmtKind::BufferStore(store) if store.buffer == *buffer => note(&store.indices),
            _ => {}
        });
        walk_exprs_in_stmt(part, &mut |expr| match expr.kind() {
            ExprKind::Load(load) if load.buffer == *buffer => note(&load.indices),
            ExprKind::Var(var) if var == buffer.data() => opaque = true,
            _ => {}
        });
    }
    if nested {
        return Err("is not a leaf block: it has blocks inside".to_string());
    }
    if opaque {
        return Err(format!(
            "uses `{}` opaquely (its data pointer)",
            buffer.name()
        ));
    }
    match patterns.len() {
        0 => Err(format!("does not load or store `{}`", buffer.name())),
        1 => Ok(patterns.remove(0)),
        n => Err(format!(
            "accesses `{}` at {n} different index tuples; reindex needs one",
            buffer.name()
        )),
    }
}

/// The child of the scope that holds the block: its outermost loop, each
/// loop above the block's own holding only the next (TVM assumes this and
/// stops at an internal check otherwise), or the block itself. The block's
/// own loop may hold other blocks, as in TVM, but the copy goes beside the
/// whole nest: none of them may write `buffer` (the copy in would not see
/// it), nor, for a written buffer, read it (it would read before the copy
/// out).
fn top_of_loop_chain(
    state: &ScheduleState,
    block: NodeId,
    scope: NodeId,
    buffer: &Buffer,
    kind: AccessKind,
) -> ScheduleResult<NodeId> {
    let mut current = block;
    loop {
        let parent = state
            .sref(current)
            .and_then(|s| s.parent)
            .ok_or_else(gone)?;
        if parent == scope {
            break;
        }
        let parent_sref = state.sref(parent).ok_or_else(gone)?;
        let innermost = current == block;
        let single_child = parent_sref
            .as_for()
            .is_some_and(|l| innermost || !matches!(l.body.kind(), StmtKind::Seq(_)));
        if !single_child {
            return Err(ScheduleError::new(
                codes::BAD_REINDEX,
                format!("{} holds more than the loops over the block", parent_sref.describe()),
                "reindex a block whose outer loops hold only the next loop (before compute_at or fusing stages)",
            )
            .blame(parent_sref.location(), "this holds other statements"));
        }
        current = parent;
    }
    let mut sharing = None;
    if let Some(top) = state.sref(current) {
        walk_stmts(&top.stmt, &mut |stmt| {
            if let StmtKind::BlockRealize(realize) = stmt.kind() {
                let other = &realize.block;
                let writes = other.writes.iter().any(|r| r.buffer == *buffer);
                let reads = other.reads.iter().any(|r| r.buffer == *buffer);
                let conflicts = match kind {
                    AccessKind::Read => writes,
                    AccessKind::Write => writes || reads,
                };
                if other.id != block && sharing.is_none() && conflicts {
                    sharing = Some((other.name.clone(), writes));
                }
            }
        });
    }
    if let Some((other, writes)) = sharing {
        let name = buffer.name();
        let problem = match (kind, writes) {
            (AccessKind::Read, _) => {
                format!("writes `{name}`, which the copy made before the loops would not see")
            }
            (AccessKind::Write, true) => {
                format!("also writes `{name}`, which the copy back after the loops would overwrite")
            }
            (AccessKind::Write, false) => {
                format!("reads `{name}` before the copy back after the loops writes it")
            }
        };
        return Err(ScheduleError::new(
            codes::BAD_REINDEX,
            format!("block `{other}` under the same loops {problem}"),
            "reindex before moving other stages of the buffer under the block's loops",
        ));
    }
    Ok(current)
}

/// Where `node` is in its parent's statement sequence (0 when it is alone).
pub(crate) fn seq_position(state: &ScheduleState, node: NodeId) -> usize {
    let Some(parent) = state.sref(node).and_then(|s| s.parent) else {
        return 0;
    };
    let Some(parent_sref) = state.sref(parent) else {
        return 0;
    };
    let body = match (parent_sref.as_block(), parent_sref.as_for()) {
        (Some(block), _) => &block.body,
        (_, Some(for_loop)) => &for_loop.body,
        _ => return 0,
    };
    match body.kind() {
        StmtKind::Seq(stmts) => stmts
            .iter()
            .position(|s| stmt_id(s) == Some(node))
            .unwrap_or(0),
        _ => 0,
    }
}

pub(crate) fn stmt_id(stmt: &Stmt) -> Option<NodeId> {
    match stmt.kind() {
        StmtKind::For(for_loop) => Some(for_loop.id),
        StmtKind::BlockRealize(realize) => Some(realize.block.id),
        _ => None,
    }
}

/// TVM's `MakeReIndexStage`: loops `ax0, ...` and iterators `v0, ...` over
/// the covered block iterators, copying between the buffer (at the original
/// indices) and the reindex buffer (at the iterators).
fn make_reindex_stage(
    buffer: &Buffer,
    reindexed: &Buffer,
    kind: AccessKind,
    iter_vars: &[IterVar],
    covered: &[&IterVar],
    indices: &[Expr],
) -> (Stmt, NodeId) {
    let mut renamed: VarMap<Expr> = VarMap::default();
    let mut new_iters = Vec::new();
    let mut loop_vars = Vec::new();
    for iter_var in iter_vars
        .iter()
        .filter(|iv| covered.iter().any(|c| c.var == iv.var))
    {
        let dtype = iter_var.var.dtype();
        let var = Var::new(format!("v{}", new_iters.len()), dtype, Span::NONE);
        renamed.insert(iter_var.var.clone(), var.to_expr());
        loop_vars.push(Var::new(
            format!("ax{}", loop_vars.len()),
            dtype,
            Span::NONE,
        ));
        new_iters.push(IterVar {
            var,
            dom: iter_var.dom.clone(),
            kind: IterKind::Spatial,
        });
    }
    let reindex_indices: Vec<Expr> = new_iters.iter().map(|iv| iv.var.to_expr()).collect();
    let target_indices: Vec<Expr> = indices.iter().map(|i| substitute(i, &renamed)).collect();
    let (source, source_indices, dest, dest_indices) = match kind {
        AccessKind::Write => (reindexed, reindex_indices, buffer, target_indices),
        AccessKind::Read => (buffer, target_indices, reindexed, reindex_indices),
    };
    let block = Block::leaf(
        format!("{}_reindex", dest.name()),
        new_iters.clone(),
        vec![BufferRegion::from_point(source, &source_indices)],
        vec![BufferRegion::from_point(dest, &dest_indices)],
        Stmt::store(
            dest,
            Expr::load(source, source_indices.clone()),
            dest_indices.clone(),
        ),
    );
    let extents = new_iters.iter().map(|iv| iv.dom.extent.clone());
    stage_under_loops(
        block,
        loop_vars.iter().map(Var::to_expr).collect(),
        loop_vars.iter().zip(extents),
    )
}

/// TVM's `ReIndexRewriter`: the block accesses the reindex buffer at its
/// iterators, and the scope allocates it and holds the copy stage.
struct ReindexRewriter {
    scope: NodeId,
    target: NodeId,
    from: Buffer,
    to: Buffer,
    indices: Vec<Expr>,
    stage: Stmt,
    position: usize,
}

impl Mutator for ReindexRewriter {
    fn mutate_block(&mut self, block: &Block) -> Block {
        if block.id == self.scope {
            let mut new_block = mutate_block_children(self, block);
            new_block.body = insert_stage(&new_block.body, self.position, &self.stage);
            new_block.alloc_buffers.push(self.to.clone());
            return new_block;
        }
        if block.id != self.target {
            return block.clone();
        }
        let mut new_block = mutate_block_children(self, block);
        let region = BufferRegion::from_point(&self.to, &self.indices);
        for regions in [&mut new_block.reads, &mut new_block.writes] {
            for r in regions.iter_mut().filter(|r| r.buffer == self.from) {
                *r = region.clone();
            }
        }
        for matched in new_block
            .match_buffers
            .iter_mut()
            .filter(|m| m.source.buffer == self.from)
        {
            matched.source = region.clone();
        }
        new_block
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let rewritten = mutate_stmt_children(self, stmt);
        match rewritten.kind() {
            StmtKind::BufferStore(store) if store.buffer == self.from => {
                rewritten.with_kind(StmtKind::BufferStore(crate::ir::BufferStore {
                    buffer: self.to.clone(),
                    value: store.value.clone(),
                    indices: self.indices.clone(),
                }))
            }
            _ => rewritten,
        }
    }

    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rewritten = mutate_expr_children(self, expr);
        match rewritten.kind() {
            ExprKind::Load(load) if load.buffer == self.from => {
                Expr::load(&self.to, self.indices.clone())
            }
            _ => rewritten,
        }
    }
}

/// The reindex primitive's descriptor.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "reindex",
    aliases: &[],
    params: &[required("block"), required("buffer")],
    varargs: None,
    keyword_only: &[],
    doc: "Replaces the block's one access pattern of a buffer (`(\"read\", N)`, `(\"write\", N)` or its name) by a new buffer `NAME_reindex` indexed by the block iterators the pattern uses, with a block copying into it before the block (a read) or out of it after (a write). Returns the copy block.",
    apply: apply_reindex,
}];

fn apply_reindex(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let choice = buffer_choice_arg(run, bound, 1)?;
    let (kind, index) = match choice {
        BufferChoice::Access(kind, index) => (kind, index),
        BufferChoice::Named(name) => {
            let (_, kind, index) = super::layout_transformation::chosen_buffer(
                run.state,
                block,
                &BufferChoice::Named(name),
            )
            .map_err(|e| run.refused(bound, e))?;
            (kind, index)
        }
    };
    let stage = reindex(run.state, block, kind, index).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Block, stage);
    run.record(
        "reindex",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer"), buffer_trace_arg(kind, index)),
        ],
        Outputs::Single(rv),
    );
    Ok(Value::Block(rv))
}
