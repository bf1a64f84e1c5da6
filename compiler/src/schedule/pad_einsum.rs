//! `pad_einsum`, after TVM's `PadEinsum`: the iterators of an einsum block
//! (every read and write a point at iterators or constants) are padded up to
//! multiples of the given factors, so that a tensor intrinsic or a tile
//! divides them. Each operand the padding reaches is copied into a zero-padded
//! `NAME_pad` buffer before the block, and each output is computed into a
//! padded buffer and copied back after it.
//!
//! tirc refuses what TVM applies and miscomputes: padding a reduction whose
//! padded terms are not the reducer's identity (zero-padded inputs make a sum
//! of products exact, not a max), another block in the padded loop nest (it
//! would run over the padding or miss the copies), a block that reads its own
//! output outside an `init`/update reduction, and an iterator bound to a split
//! or fused loop (its padding would never be computed).

use super::access::stage_pipeline_scope;
use super::cache_read_write::{for_each_child, insert_stage, set_stage_flags, stage_under_loops};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, Primitive};
use super::reducer::match_reducer;
use super::reindex::{seq_position, stmt_id};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::arith::{build, Analyzer};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_block_children, mutate_stmt_children, Mutator};
use crate::ir::operators;
use crate::ir::visit::walk_exprs_in_stmt;
use crate::ir::{
    BinaryOp, Block, Buffer, BufferRegion, Expr, ExprKind, For, IterKind, IterVar, NodeId, Range,
    Stmt, StmtKind, Var,
};
use crate::source::Span;

/// `sch.pad_einsum(block, padding)`: pads the block's iterators to multiples
/// of `padding` (one positive factor per iterator).
pub fn pad_einsum(state: &mut ScheduleState, block: NodeId, padding: &[i64]) -> ScheduleResult<()> {
    let scope = stage_pipeline_scope(state, block)?;
    let sref = state.sref(block).ok_or_else(gone)?;
    let realize = sref.as_realize().ok_or_else(gone)?.clone();
    let target = realize.block.clone();
    let location = sref.location();
    let refuse = |message: String, help: &str| {
        ScheduleError::new(codes::BAD_PAD_EINSUM, message, help).blame(location, "this block")
    };
    if padding.len() != target.iter_vars.len() || padding.iter().any(|&p| p <= 0) {
        return Err(refuse(
            format!(
                "the padding {padding:?} is not one positive factor for each of block `{}`'s {} iterators",
                target.name,
                target.iter_vars.len()
            ),
            "give a list of positive integers as long as the block's `T.axis` list (1 leaves an iterator as it is)",
        )
        .at_argument(1));
    }
    check_einsum(&target).map_err(|problem| {
        refuse(
            format!("block `{}` is not an einsum: {problem}", target.name),
            "pad_einsum takes a block whose reads and writes are each one buffer at a point of block iterators or constants (`C[i, j]`, `A[i, k]`)",
        )
    })?;

    // Step 1: the padded extent of each iterator, and of the loop it is bound to.
    let analyzer = Analyzer::new();
    let mut padded_iters: VarMap<Expr> = VarMap::default();
    let mut padded_loops: VarMap<Expr> = VarMap::default();
    for ((iter_var, &factor), value) in target
        .iter_vars
        .iter()
        .zip(padding)
        .zip(&realize.iter_values)
    {
        let extent = &iter_var.dom.extent;
        let factor = Expr::int(factor, extent.dtype());
        let rounded = build::mul(
            build::floordiv(
                build::sub(
                    build::add(extent.clone(), factor.clone()),
                    Expr::one(extent.dtype()),
                ),
                factor.clone(),
            ),
            factor,
        );
        let rounded = analyzer.simplify(&rounded);
        if analyzer.can_prove_equal(&rounded, extent) {
            continue;
        }
        // TVM pads the iterator's domain and, where it is bound to a loop,
        // the loop; a padded iterator bound to an expression would never
        // reach its padding, and the verifier cannot bound the expression by
        // the new domain.
        let Some(loop_var) = value.as_var() else {
            return Err(refuse(
                format!(
                    "iterator `{}` of block `{}` is bound to `{}`, not to a loop that padding could lengthen",
                    iter_var.var.name(),
                    target.name,
                    crate::printer::expr_to_string(value)
                ),
                "pad the block before splitting or fusing its loops, or give this iterator the factor 1",
            ));
        };
        padded_iters.insert(iter_var.var.clone(), rounded.clone());
        padded_loops.insert(loop_var.clone(), rounded);
    }
    if padded_iters.is_empty() {
        return Ok(());
    }
    check_reduction_padding(&target, &padded_iters).map_err(|problem| {
        refuse(
            problem,
            "pad only the spatial iterators (factor 1 for the reduction), or pad a sum whose terms vanish when an operand is zero (`C[i, j] += A[i, k] * B[k, j]`)",
        )
    })?;

    // Step 2: the statement of the scope that holds the block, and what else is in it.
    let top = child_of_scope(state, block, scope)?;
    let padded_buffers: Vec<Buffer> = target
        .reads
        .iter()
        .chain(&target.writes)
        .filter(|r| region_uses(r, &padded_iters))
        .map(|r| r.buffer.clone())
        .collect();
    check_alone(state, top, &target, &padded_loops, &padded_buffers)?;

    // Step 3: the padded buffers and their copies.
    let mut replacements = Vec::new();
    let mut read_stages = Vec::new();
    let mut write_stages = Vec::new();
    let mut stage_ids = Vec::new();
    for (region, is_read) in target
        .reads
        .iter()
        .map(|r| (r, true))
        .chain(target.writes.iter().map(|r| (r, false)))
    {
        if !region_uses(region, &padded_iters) {
            continue;
        }
        let padded = padded_buffer(region, &padded_iters);
        let (stage, id) = make_copy_stage(&region.buffer, &padded, is_read, &analyzer);
        stage_ids.push(id);
        if is_read {
            read_stages.push(stage);
        } else {
            write_stages.push(stage);
        }
        replacements.push((region.buffer.clone(), padded));
    }

    // Step 4: the block computes into the padded buffers over the padded domain.
    let position = seq_position(state, top);
    let mut rewriter = PadRewriter {
        scope,
        target: block,
        top,
        inside: false,
        padded_iters,
        padded_loops,
        replacements,
        read_stages,
        write_stages,
        position,
    };
    let scope_stmt = state.sref(scope).ok_or_else(gone)?.stmt.clone();
    let new_scope = rewriter.mutate_stmt(&scope_stmt);
    state.replace(scope, new_scope);
    for id in stage_ids {
        set_stage_flags(state, id);
    }
    Ok(())
}

fn gone() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the block is no longer in the program",
        "get it again",
    )
}

/// TVM's `ExtractEinsum`: every buffer is read or written once, at a point
/// whose indices are variables or constants.
fn check_einsum(block: &Block) -> Result<(), String> {
    let mut seen: Vec<&Buffer> = Vec::new();
    for region in block.reads.iter().chain(&block.writes) {
        if seen.contains(&&region.buffer) {
            return Err(format!(
                "it accesses `{}` twice in its reads and writes",
                region.buffer.name()
            ));
        }
        seen.push(&region.buffer);
        let trivial = region.region.iter().all(|range| {
            operators::is_one(&range.extent)
                && (range.min.as_int().is_some() || range.min.as_var().is_some())
        });
        if !trivial {
            return Err(format!(
                "its access of `{}` is not a point at iterators or constants",
                region.buffer.name()
            ));
        }
    }
    // Reading an output is only an einsum as the update of an `init` reduction.
    let mut reads_output = None;
    walk_exprs_in_stmt(&block.body, &mut |expr| {
        if let ExprKind::Load(load) = expr.kind() {
            if block.writes.iter().any(|w| w.buffer == load.buffer) {
                reads_output = Some(load.buffer.name().to_string());
            }
        }
    });
    if let Some(output) = reads_output {
        if match_reducer(block).is_none() {
            return Err(format!(
                "it reads its output `{output}` without being an `init` and update reduction, so the padded copy would start from nothing"
            ));
        }
    }
    Ok(())
}

/// Padding a reduction iterator adds terms computed from zero-padded
/// operands: they must vanish, and the reducer's identity must be zero.
fn check_reduction_padding(block: &Block, padded_iters: &VarMap<Expr>) -> Result<(), String> {
    let Some(padded_reduction) = block
        .iter_vars
        .iter()
        .find(|iv| iv.kind != IterKind::Spatial && padded_iters.contains_key(&iv.var))
    else {
        return Ok(());
    };
    let name = padded_reduction.var.name();
    let Some((reducer, _, _, term)) = match_reducer(block) else {
        return Err(format!(
            "padding the reduction iterator `{name}` of block `{}` adds iterations, and the block is not an `init` and update reduction whose extra terms tirc can show to be neutral",
            block.name
        ));
    };
    let identity = reducer.identity(term.dtype());
    if !operators::is_zero(&identity) {
        return Err(format!(
            "padding the reduction iterator `{name}` adds terms computed from zero padding, and zero is not the identity of block `{}`'s `{}` reduction",
            block.name,
            format!("{reducer:?}").to_lowercase()
        ));
    }
    let zero_padded: Vec<&Buffer> = block
        .reads
        .iter()
        .filter(|r| region_uses(r, padded_iters))
        .map(|r| &r.buffer)
        .collect();
    if !vanishes(&term, &zero_padded) {
        return Err(format!(
            "padding the reduction iterator `{name}` adds the term `{}` with its zero-padded operands, which is not zero",
            crate::printer::expr_to_string(&term)
        ));
    }
    Ok(())
}

/// True when `expr` is zero wherever the loads of `zeroed` read zero.
fn vanishes(expr: &Expr, zeroed: &[&Buffer]) -> bool {
    match expr.kind() {
        ExprKind::Load(load) => zeroed.contains(&&load.buffer),
        ExprKind::Cast(value) => vanishes(value, zeroed),
        ExprKind::Binary(BinaryOp::Mul, a, b) => vanishes(a, zeroed) || vanishes(b, zeroed),
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, a, b) => {
            vanishes(a, zeroed) && vanishes(b, zeroed)
        }
        _ => operators::is_zero(expr),
    }
}

/// True when the region is indexed by a padded iterator.
fn region_uses(region: &BufferRegion, padded_iters: &VarMap<Expr>) -> bool {
    region
        .region
        .iter()
        .any(|r| r.min.as_var().is_some_and(|v| padded_iters.contains_key(v)))
}

/// The statement directly under the scope block that holds `block`.
fn child_of_scope(state: &ScheduleState, block: NodeId, scope: NodeId) -> ScheduleResult<NodeId> {
    let mut current = block;
    loop {
        let parent = state
            .sref(current)
            .and_then(|s| s.parent)
            .ok_or_else(gone)?;
        if parent == scope {
            return Ok(current);
        }
        current = parent;
    }
}

/// Refuses another block in the padded loop nest: one under a padded loop
/// would run over the padding, one touching a padded buffer would miss the
/// copies that sit beside the whole nest.
fn check_alone(
    state: &ScheduleState,
    top: NodeId,
    target: &Block,
    padded_loops: &VarMap<Expr>,
    padded_buffers: &[Buffer],
) -> ScheduleResult<()> {
    let top_stmt = state.sref(top).ok_or_else(gone)?.stmt.clone();
    let mut problem: Option<(Span, String)> = None;
    let mut padded_loop_depth = Vec::new();
    walk_loops_and_blocks(
        &top_stmt,
        &mut padded_loop_depth,
        padded_loops,
        &mut |stmt, under| {
            let StmtKind::BlockRealize(realize) = stmt.kind() else {
                return;
            };
            let other = &realize.block;
            let span = state.sref(other.id).map_or(stmt.span(), |s| s.location());
            if other.id == target.id || problem.is_some() {
                return;
            }
            let touches = other
                .reads
                .iter()
                .chain(&other.writes)
                .find(|r| padded_buffers.contains(&r.buffer));
            if let Some(region) = touches {
                problem = Some((
                span,
                format!(
                    "block `{}` in the same loop nest also accesses `{}`, and would not see the padded copy",
                    other.name,
                    region.buffer.name()
                ),
            ));
            } else if let Some(loop_var) = under {
                problem = Some((
                    span,
                    format!(
                        "block `{}` is also under loop `{}`, which padding would lengthen",
                        other.name,
                        loop_var.name()
                    ),
                ));
            }
        },
    );
    match problem {
        None => Ok(()),
        Some((span, message)) => Err(ScheduleError::new(
            codes::BAD_PAD_EINSUM,
            message,
            "pad the block before compute_at or reverse_compute_at brings other stages into its loops",
        )
        .blame(span, "this block")),
    }
}

/// Visits the statements under `stmt`, with the innermost padded loop each is under.
fn walk_loops_and_blocks(
    stmt: &Stmt,
    under: &mut Vec<Var>,
    padded_loops: &VarMap<Expr>,
    visit: &mut dyn FnMut(&Stmt, Option<&Var>),
) {
    visit(stmt, under.last());
    match stmt.kind() {
        StmtKind::For(for_loop) => {
            let padded = padded_loops.contains_key(&for_loop.loop_var);
            if padded {
                under.push(for_loop.loop_var.clone());
            }
            walk_loops_and_blocks(&for_loop.body, under, padded_loops, visit);
            if padded {
                under.pop();
            }
        }
        StmtKind::BlockRealize(realize) => {
            if let Some(init) = &realize.block.init {
                walk_loops_and_blocks(init, under, padded_loops, visit);
            }
            walk_loops_and_blocks(&realize.block.body, under, padded_loops, visit);
        }
        StmtKind::Seq(stmts) => {
            for child in stmts {
                walk_loops_and_blocks(child, under, padded_loops, visit);
            }
        }
        _ => for_each_child(stmt, &mut |child| {
            walk_loops_and_blocks(child, under, padded_loops, visit)
        }),
    }
}

/// TVM's `BufferPadding::FromBufferRegion`: `NAME_pad`, with each dimension
/// indexed by a padded iterator as long as its padded extent (1 for a constant
/// index, the buffer's own extent otherwise).
fn padded_buffer(region: &BufferRegion, padded_iters: &VarMap<Expr>) -> Buffer {
    let buffer = &region.buffer;
    let name = format!("{}_pad", buffer.name());
    let shape: Vec<Expr> = region
        .region
        .iter()
        .zip(buffer.shape())
        .map(
            |(range, extent)| match (range.min.as_int(), range.min.as_var()) {
                (Some(_), _) => Expr::one(range.min.dtype()),
                (_, Some(var)) => padded_iters
                    .get(var)
                    .cloned()
                    .unwrap_or_else(|| extent.clone()),
                _ => extent.clone(),
            },
        )
        .collect();
    buffer.with(|node| {
        node.data = Var::pointer(&name, node.dtype, &node.scope, node.span);
        node.name = name.clone();
        node.shape = shape;
        node.strides = Vec::new();
        node.elem_offset = Expr::zero(node.elem_offset.dtype());
    })
}

/// TVM's `BufferPadding::MakeCopyBlock`: loops `i0, ...` and iterators
/// `v0, ...` over the padded buffer, filling it with the operand and zero past
/// its end (a read), or over the output, copying the padded result back.
fn make_copy_stage(
    buffer: &Buffer,
    padded: &Buffer,
    is_read: bool,
    analyzer: &Analyzer,
) -> (Stmt, NodeId) {
    let extents = if is_read {
        padded.shape()
    } else {
        buffer.shape()
    };
    let mut loop_vars = Vec::new();
    let mut iter_vars = Vec::new();
    for (i, extent) in extents.iter().enumerate() {
        let dtype = extent.dtype();
        loop_vars.push(Var::new(format!("i{i}"), dtype, Span::NONE));
        iter_vars.push(IterVar {
            var: Var::new(format!("v{i}"), dtype, Span::NONE),
            dom: Range::new(Expr::int(0, dtype), extent.clone()),
            kind: IterKind::Spatial,
        });
    }
    let indices: Vec<Expr> = iter_vars.iter().map(|iv| iv.var.to_expr()).collect();
    let body = if is_read {
        let mut predicate = Expr::bool(true);
        for ((index, original), padded_extent) in
            indices.iter().zip(buffer.shape()).zip(padded.shape())
        {
            if !analyzer.can_prove_equal(original, padded_extent) {
                let in_bounds = build::binary(BinaryOp::Lt, index.clone(), original.clone());
                predicate = build::binary(BinaryOp::And, predicate, in_bounds);
            }
        }
        let value = Expr::load(buffer, indices.clone());
        let zero = Expr::zero(value.dtype());
        let guarded = operators::if_then_else(predicate.clone(), value.clone(), zero.clone())
            .unwrap_or_else(|_| {
                Expr::call(
                    crate::ir::builtin::Op::named("if_then_else"),
                    vec![predicate, value, zero],
                    buffer.dtype(),
                )
            });
        Stmt::store(padded, guarded, indices.clone())
    } else {
        Stmt::store(buffer, Expr::load(padded, indices.clone()), indices.clone())
    };
    let (source, dest) = if is_read {
        (buffer, padded)
    } else {
        (padded, buffer)
    };
    let block = Block::leaf(
        padded.name().to_string(),
        iter_vars.clone(),
        vec![BufferRegion::from_point(source, &indices)],
        vec![BufferRegion::from_point(dest, &indices)],
        body,
    );
    let extents = iter_vars.iter().map(|iv| iv.dom.extent.clone());
    stage_under_loops(
        block,
        loop_vars.iter().map(Var::to_expr).collect(),
        loop_vars.iter().zip(extents),
    )
}

/// TVM's `PadEinsumBufferReplacer` on the block's loop nest, and the copies
/// and allocations it adds to the scope.
struct PadRewriter {
    scope: NodeId,
    target: NodeId,
    top: NodeId,
    inside: bool,
    padded_iters: VarMap<Expr>,
    padded_loops: VarMap<Expr>,
    replacements: Vec<(Buffer, Buffer)>,
    read_stages: Vec<Stmt>,
    write_stages: Vec<Stmt>,
    position: usize,
}

impl Mutator for PadRewriter {
    fn mutate_block(&mut self, block: &Block) -> Block {
        let mut new_block = mutate_block_children(self, block);
        if block.id == self.scope {
            let mut body = new_block.body.clone();
            for stage in self.write_stages.iter().rev() {
                body = insert_stage(&body, self.position + 1, stage);
            }
            for stage in self.read_stages.iter().rev() {
                body = insert_stage(&body, self.position, stage);
            }
            new_block.body = body;
            new_block
                .alloc_buffers
                .extend(self.replacements.iter().map(|(_, padded)| padded.clone()));
        } else if block.id == self.target {
            for iter_var in &mut new_block.iter_vars {
                if let Some(extent) = self.padded_iters.get(&iter_var.var) {
                    iter_var.dom = Range::new(iter_var.dom.min.clone(), extent.clone());
                }
            }
        }
        new_block
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let entering = !self.inside && stmt_id(stmt) == Some(self.top);
        if entering {
            self.inside = true;
        }
        let rewritten = mutate_stmt_children(self, stmt);
        let inside = self.inside;
        if entering {
            self.inside = false;
        }
        match rewritten.kind() {
            StmtKind::For(for_loop) if inside => match self.padded_loops.get(&for_loop.loop_var) {
                Some(extent) => rewritten.with_kind(StmtKind::For(For {
                    extent: extent.clone(),
                    ..for_loop.clone()
                })),
                None => rewritten,
            },
            _ => rewritten,
        }
    }

    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        if !self.inside {
            return buffer.clone();
        }
        self.replacements
            .iter()
            .find(|(from, _)| from == buffer)
            .map_or_else(|| buffer.clone(), |(_, to)| to.clone())
    }
}

/// The pad_einsum primitive's descriptor.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "pad_einsum",
    aliases: &[],
    params: &[required("block"), required("padding")],
    varargs: None,
    keyword_only: &[],
    doc: "Pads an einsum block's iterators up to multiples of `padding` (one factor per iterator, 1 to leave it): each operand the padding reaches is copied into a zero-padded `NAME_pad` buffer first, each output is computed into a padded buffer and copied back after. A reduction iterator is padded only where the extra terms are zero (a sum of products), and a padded iterator must be bound to a loop (pad before splitting or fusing).",
    apply: apply_pad_einsum,
}];

fn apply_pad_einsum(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let padding = run.int_list_arg(bound, 1, "padding")?;
    pad_einsum(run.state, block, &padding).map_err(|e| run.refused(bound, e))?;
    run.record(
        "pad_einsum",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (
                Some("padding"),
                TraceArg::List(padding.iter().map(|&p| TraceArg::Int(p)).collect()),
            ),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}
