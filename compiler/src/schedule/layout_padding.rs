//! The padding of `transform_layout(..., pad_value=...)`, after TVM's
//! `TransformLayoutPlanner`: where a map leaves elements of the new buffer
//! that no old element lands on (`lambda i: (i // 4, i % 4)` on 14 elements),
//! those elements are written with the pad value, in one of three ways:
//!
//! - a writer that stores every element in row-major order is rewritten to
//!   loop over the new shape and store `T.if_then_else(padding, pad, value)`;
//! - otherwise a block `buffer_NAME_padding` after the last writer fills the
//!   padding;
//! - a buffer nothing in the scope writes (an input) gets a block
//!   `buffer_NAME_assumptions` stating `T.assume` that its padding holds the
//!   pad value, which the caller must provide.
//!
//! tirc computes the padding of maps whose new indices keep old ones (`j`)
//! or split them (`i // f`, `i % f`) over constant extents, the layouts
//! tensor intrinsics ask for; other padded maps are refused.

use super::cache_read_write::guarded_stage_under_loops;
use super::layout_transformation::IndexMap;
use super::loop_transformation::new_loop;
use crate::arith::Analyzer;
use crate::ir::builtin::Op;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, Mutator};
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    BinaryOp, Block, BlockRealize, Buffer, BufferRegion, BufferStore, DataType, Expr, ExprKind,
    For, ForKind, IterKind, IterVar, NodeId, Range, Stmt, StmtKind, Var,
};
use crate::source::Span;

/// A map with padding, inverted: the new index variables, each old index in
/// terms of them, and the predicate that is true on padding.
pub(crate) struct PaddedInverse {
    /// One per new index: the old index's name where it is kept, `axisK` otherwise (TVM's names).
    pub new_vars: Vec<Var>,
    /// The extent of each new index.
    pub new_shape: Vec<Expr>,
    /// Each old index in terms of `new_vars`.
    pub inverse: Vec<Expr>,
    /// True where the new indices point at padding.
    pub predicate: Expr,
}

/// Inverts a map whose new indices keep or split the old ones over the
/// buffer's constant shape, or says why tirc cannot.
pub(crate) fn padded_inverse(
    map: &IndexMap,
    shape: &[Expr],
    new_shape: &[Expr],
) -> Result<PaddedInverse, String> {
    let new_vars: Vec<Var> = map
        .outputs
        .iter()
        .enumerate()
        .map(|(k, output)| {
            let name = match output.as_var() {
                Some(var) if map.initial.contains(var) => var.name().to_string(),
                _ => format!("axis{k}"),
            };
            Var::new(name, output.dtype(), Span::NONE)
        })
        .collect();
    let mut inverse = Vec::with_capacity(map.initial.len());
    let mut predicate: Option<Expr> = None;
    for (input, extent) in map.initial.iter().zip(shape) {
        let symbolic = extent;
        let extent = extent.as_int();
        let users: Vec<usize> = (0..map.outputs.len())
            .filter(|&k| expr_uses_var(&map.outputs[k], &mut |v| v == input))
            .collect();
        let split = |op: BinaryOp| {
            users.iter().find_map(|&k| match map.outputs[k].kind() {
                ExprKind::Binary(o, a, b) if *o == op && a.as_var() == Some(input) => {
                    b.as_int().filter(|&f| f > 0).map(|f| (k, f))
                }
                _ => None,
            })
        };
        match users.as_slice() {
            [k] if map.outputs[*k].as_var() == Some(input) => {
                inverse.push(new_vars[*k].to_expr());
            }
            [_, _] => {
                let (Some((outer, f)), Some((inner, g))) =
                    (split(BinaryOp::FloorDiv), split(BinaryOp::FloorMod))
                else {
                    return Err(unsupported(input));
                };
                if f != g {
                    return Err(unsupported(input));
                }
                let dtype = input.dtype();
                let factor = Expr::int(f, dtype);
                inverse.push(Expr::binary(
                    BinaryOp::Add,
                    Expr::binary(BinaryOp::Mul, new_vars[outer].to_expr(), factor.clone()),
                    new_vars[inner].to_expr(),
                ));
                let Some(extent) = extent else {
                    // A symbolic extent: TVM's padded iterator map pads `n`
                    // by `(-n) % f` and marks the last outer tile from
                    // `n % f` on, which its simplifier prints as below.
                    let n = symbolic.clone();
                    let not_divisible = Expr::binary(
                        BinaryOp::Lt,
                        Expr::binary(BinaryOp::FloorMod, n.clone(), Expr::int(-f, dtype)),
                        Expr::zero(dtype),
                    );
                    let last = Expr::binary(
                        BinaryOp::Eq,
                        new_vars[outer].to_expr(),
                        Expr::binary(BinaryOp::FloorDiv, n.clone(), factor.clone()),
                    );
                    let past_end = Expr::binary(
                        BinaryOp::Le,
                        Expr::binary(BinaryOp::FloorMod, n, factor),
                        new_vars[inner].to_expr(),
                    );
                    let here = Expr::binary(
                        BinaryOp::And,
                        Expr::binary(BinaryOp::And, not_divisible, last),
                        past_end,
                    );
                    predicate = Some(match predicate {
                        None => here,
                        Some(before) => Expr::binary(BinaryOp::Or, before, here),
                    });
                    continue;
                };
                if extent % f != 0 {
                    // TVM's form: the last outer tile, from the remainder on.
                    let last = Expr::binary(
                        BinaryOp::Eq,
                        new_vars[outer].to_expr(),
                        Expr::int(extent / f, dtype),
                    );
                    let past_end = Expr::binary(
                        BinaryOp::Le,
                        Expr::int(extent % f, dtype),
                        new_vars[inner].to_expr(),
                    );
                    let here = Expr::binary(BinaryOp::And, last, past_end);
                    predicate = Some(match predicate {
                        None => here,
                        Some(before) => Expr::binary(BinaryOp::Or, before, here),
                    });
                }
            }
            _ => return Err(unsupported(input)),
        }
    }
    // TVM simplifies the predicate over the new extents (`4 <= k` with
    // `k < 5` becomes `k == 4`).
    let mut analyzer = Analyzer::new();
    for (var, extent) in new_vars.iter().zip(new_shape) {
        analyzer.bind(var, &Range::new(Expr::zero(extent.dtype()), extent.clone()));
    }
    let predicate = predicate.map_or_else(|| Expr::bool(false), |p| analyzer.simplify(&p));
    Ok(PaddedInverse {
        new_vars,
        new_shape: new_shape.to_vec(),
        inverse,
        predicate,
    })
}

/// TVM's extents for a split of an index shorter than its factor: `i // 16,
/// i % 16` over 1 element is (1, 16), a tile of padding, not (1, 1).
pub(crate) fn widen_short_splits(map: &IndexMap, shape: &[Expr], new_shape: &mut [Expr]) {
    for (k, output) in map.outputs.iter().enumerate() {
        let ExprKind::Binary(BinaryOp::FloorMod, x, f) = output.kind() else {
            continue;
        };
        let (Some(x), Some(factor)) = (x.as_var(), f.as_int()) else {
            continue;
        };
        let extent = map
            .initial
            .iter()
            .position(|v| v == x)
            .and_then(|i| shape.get(i))
            .and_then(Expr::as_int);
        let has_outer = map.outputs.iter().any(|o| {
            matches!(o.kind(), ExprKind::Binary(BinaryOp::FloorDiv, y, g)
                if y.as_var() == Some(x) && g.as_int() == Some(factor))
        });
        if has_outer && extent.is_some_and(|e| e < factor) {
            new_shape[k] = Expr::int(factor, new_shape[k].dtype());
        }
    }
}

fn unsupported(input: &Var) -> String {
    format!(
        "tirc fills the padding of maps whose new indices keep an old index or split it as `{0} // f, {0} % f`, and this map uses `{0}` otherwise",
        input.name()
    )
}

/// How [`fill_padding`] wrote the pad value (TVM's plans).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PaddingPlan {
    /// Nothing writes the buffer: an assumption block opens the scope.
    Prologue,
    /// A writer was rewritten to store the pad value in the padding.
    Replacement,
    /// A padding block follows the last writer.
    Epilogue,
}

/// Writes `pad` into the padding of `to` (the transformed `from`) in the
/// scope statement, before its accesses are rewritten: returns the scope with
/// the writers rewritten, a padding block added, or an assumption block added.
pub(crate) fn fill_padding(
    scope: &Stmt,
    from: &Buffer,
    to: &Buffer,
    padded: &PaddedInverse,
    pad: &Expr,
) -> (Stmt, PaddingPlan) {
    let mut writes = Vec::new();
    collect_writes(
        scope,
        from,
        &mut Vec::new(),
        &mut VarMap::default(),
        None,
        &mut writes,
    );
    if writes.is_empty() {
        return (
            with_assumption(scope, to, padded, pad),
            PaddingPlan::Prologue,
        );
    }
    let mut replacements = Vec::new();
    for write in &writes {
        if let Some(replacement) = replace_writer(write, from, to, padded, pad) {
            replacements.push((write.loops[0].id, replacement));
        }
    }
    if !replacements.is_empty() {
        let mut rewriter = ReplaceLoops { replacements };
        return (rewriter.mutate_stmt(scope), PaddingPlan::Replacement);
    }
    let last = writes.last().map(|w| {
        w.loops
            .first()
            .map(|l| l.id)
            .or_else(|| w.realize.as_ref().map(|r| r.block.id))
    });
    let epilogue = padding_block(to, padded, pad);
    // A store directly in the scope block's body: the padding block ends it.
    let scope_block = scope.as_block_realize().map(|r| r.block.id);
    let with_epilogue = match last.flatten().filter(|&id| Some(id) != scope_block) {
        Some(after) => InsertAfter {
            after,
            stmt: epilogue,
        }
        .mutate_stmt(scope),
        None => with_scope_body(scope, |body| Stmt::seq(vec![body, epilogue])),
    };
    (with_epilogue, PaddingPlan::Epilogue)
}

/// The scope statement with its block's body rewritten.
fn with_scope_body(scope: &Stmt, rewrite: impl FnOnce(Stmt) -> Stmt) -> Stmt {
    match scope.kind() {
        StmtKind::BlockRealize(realize) => {
            let mut block = realize.block.clone();
            block.body = rewrite(block.body.clone());
            scope.with_kind(StmtKind::BlockRealize(BlockRealize {
                block,
                ..realize.clone()
            }))
        }
        _ => rewrite(scope.clone()),
    }
}

/// A store of the transformed buffer, with what surrounds it.
struct WriteInfo {
    store_indices: Vec<Expr>,
    realize: Option<BlockRealize>,
    /// The loops its indices depend on, outermost first.
    loops: Vec<For>,
    /// Whether those loops visit every element once in row-major order.
    row_major: bool,
}

/// TVM's planner walk: the stores of `buffer`, with the loops around them
/// and each block iterator's binding in terms of loop variables.
fn collect_writes(
    stmt: &Stmt,
    buffer: &Buffer,
    loops: &mut Vec<For>,
    bindings: &mut VarMap<Expr>,
    realize: Option<&BlockRealize>,
    writes: &mut Vec<WriteInfo>,
) {
    match stmt.kind() {
        StmtKind::For(for_loop) => {
            loops.push(for_loop.clone());
            collect_writes(&for_loop.body, buffer, loops, bindings, realize, writes);
            loops.pop();
        }
        StmtKind::BlockRealize(inner) => {
            for (iter_var, value) in inner.block.iter_vars.iter().zip(&inner.iter_values) {
                let bound = crate::ir::mutate::substitute(value, bindings);
                bindings.insert(iter_var.var.clone(), bound);
            }
            if let Some(init) = &inner.block.init {
                collect_writes(init, buffer, loops, bindings, Some(inner), writes);
            }
            collect_writes(
                &inner.block.body,
                buffer,
                loops,
                bindings,
                Some(inner),
                writes,
            );
        }
        StmtKind::BufferStore(store) if store.buffer == *buffer => {
            let indices: Vec<Expr> = store
                .indices
                .iter()
                .map(|i| crate::ir::mutate::substitute(i, bindings))
                .collect();
            let depths: Vec<usize> = (0..loops.len())
                .filter(|&d| {
                    indices
                        .iter()
                        .any(|i| expr_uses_var(i, &mut |v| *v == loops[d].loop_var))
                })
                .collect();
            let dependent: Vec<For> = match (depths.first(), depths.last()) {
                (Some(&first), Some(&last)) => loops[first..=last].to_vec(),
                _ => Vec::new(),
            };
            let row_major = !dependent.is_empty()
                && dependent.len() == buffer.rank()
                && dependent.len() == indices.len()
                && dependent.iter().zip(&indices).zip(buffer.shape()).all(
                    |((for_loop, index), dim)| {
                        index.as_var() == Some(&for_loop.loop_var)
                            && for_loop.min.as_int() == Some(0)
                            && expr_deep_equal(&for_loop.extent, dim)
                            && for_loop.kind == ForKind::Serial
                            && for_loop.thread.is_none()
                    },
                );
            writes.push(WriteInfo {
                store_indices: store.indices.clone(),
                realize: realize.cloned(),
                loops: dependent,
                row_major,
            });
        }
        StmtKind::Seq(children) => {
            for child in children {
                collect_writes(child, buffer, loops, bindings, realize, writes);
            }
        }
        _ => super::cache_read_write::for_each_child(stmt, &mut |child| {
            collect_writes(child, buffer, loops, bindings, realize, writes)
        }),
    }
}

/// TVM's `BufferStoreReplacer`: the writer's loop nest over the new shape,
/// storing the pad value on padding; `None` when the writer is not a
/// row-major traversal or stores elsewhere too.
fn replace_writer(
    write: &WriteInfo,
    from: &Buffer,
    to: &Buffer,
    padded: &PaddedInverse,
    pad: &Expr,
) -> Option<Stmt> {
    if !write.row_major {
        return None;
    }
    let innermost = write.loops.last()?;
    let mut remap: VarMap<Expr> = VarMap::default();
    let mut new_indices: Vec<Expr> = padded.new_vars.iter().map(Var::to_expr).collect();
    let mut predicate = padded.predicate.clone();
    let mut block_update = None;
    if let Some(realize) = &write.realize {
        if let Some(update) = block_iter_update(realize, &write.store_indices, padded) {
            let virtual_of: VarMap<Expr> = padded
                .new_vars
                .iter()
                .cloned()
                .zip(update.virtual_vars.iter().map(Var::to_expr))
                .collect();
            for (index, inverse) in write.store_indices.iter().zip(&padded.inverse) {
                let var = index.as_var()?.clone();
                remap.insert(var, crate::ir::mutate::substitute(inverse, &virtual_of));
            }
            predicate = crate::ir::mutate::substitute(&predicate, &virtual_of);
            new_indices = update.virtual_vars.iter().map(Var::to_expr).collect();
            block_update = Some((realize.block.id, update));
        }
    }
    if block_update.is_none() {
        // The new indices would be loop variables, which a block may not
        // use (TVM writes them there anyway): the epilogue fills the padding.
        if write.realize.is_some() {
            return None;
        }
        for (for_loop, inverse) in write.loops.iter().zip(&padded.inverse) {
            remap.insert(for_loop.loop_var.clone(), inverse.clone());
        }
    }
    let mut replacer = StoreReplacer {
        from,
        to,
        store_indices: &write.store_indices,
        new_indices,
        predicate,
        pad,
        remap,
        block_update,
        all_replaced: true,
    };
    let mut body = replacer.mutate_stmt(&innermost.body);
    if !replacer.all_replaced {
        return None;
    }
    for (var, extent) in padded.new_vars.iter().zip(&padded.new_shape).rev() {
        body = new_loop(var, extent.clone(), body, Span::NONE);
    }
    Some(body)
}

/// New block iterators over the new shape, where the store's indices are
/// consecutive spatial iterators of its block (TVM's `DefineBlockUpdates`).
struct BlockIterUpdate {
    virtual_vars: Vec<Var>,
    iter_vars: Vec<IterVar>,
    iter_values: Vec<Expr>,
}

fn block_iter_update(
    realize: &BlockRealize,
    indices: &[Expr],
    padded: &PaddedInverse,
) -> Option<BlockIterUpdate> {
    let iter_vars = &realize.block.iter_vars;
    let first = indices.first()?.as_var()?;
    let start = iter_vars.iter().position(|iv| iv.var == *first)?;
    if start + indices.len() > iter_vars.len() {
        return None;
    }
    let consecutive = indices
        .iter()
        .zip(&iter_vars[start..])
        .all(|(index, iv)| index.as_var() == Some(&iv.var) && iv.kind == IterKind::Spatial);
    if !consecutive {
        return None;
    }
    let (virtual_vars, _) = virtual_vars(padded);
    let mut new_iter_vars = iter_vars[..start].to_vec();
    let mut new_values = realize.iter_values[..start].to_vec();
    for ((virtual_var, loop_var), extent) in virtual_vars
        .iter()
        .zip(&padded.new_vars)
        .zip(&padded.new_shape)
    {
        new_iter_vars.push(IterVar {
            var: virtual_var.clone(),
            dom: Range::new(Expr::zero(extent.dtype()), extent.clone()),
            kind: IterKind::Spatial,
        });
        new_values.push(loop_var.to_expr());
    }
    new_iter_vars.extend(iter_vars[start + indices.len()..].iter().cloned());
    new_values.extend(realize.iter_values[start + indices.len()..].iter().cloned());
    Some(BlockIterUpdate {
        virtual_vars,
        iter_vars: new_iter_vars,
        iter_values: new_values,
    })
}

struct StoreReplacer<'a> {
    from: &'a Buffer,
    to: &'a Buffer,
    store_indices: &'a [Expr],
    new_indices: Vec<Expr>,
    predicate: Expr,
    pad: &'a Expr,
    remap: VarMap<Expr>,
    block_update: Option<(NodeId, BlockIterUpdate)>,
    all_replaced: bool,
}

impl Mutator for StoreReplacer<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Var(var) = expr.kind() {
            if let Some(replacement) = self.remap.get(var) {
                return replacement.clone();
            }
        }
        mutate_expr_children(self, expr)
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let StmtKind::BufferStore(store) = stmt.kind() {
            // Any other store under the loops (another block's, as after
            // `reverse_compute_at`) would run over the new shape too: TVM
            // then fills the padding in an epilogue instead.
            let same = store.buffer == *self.from
                && store.indices.len() == self.store_indices.len()
                && store
                    .indices
                    .iter()
                    .zip(self.store_indices)
                    .all(|(a, b)| expr_deep_equal(a, b));
            if !same {
                self.all_replaced = false;
                return mutate_stmt_children(self, stmt);
            }
            let value = self.mutate_expr(&store.value);
            let guarded = Expr::call(
                Op::named("if_then_else"),
                vec![self.predicate.clone(), self.pad.clone(), value],
                store.value.dtype(),
            );
            return stmt.with_kind(StmtKind::BufferStore(BufferStore {
                buffer: self.to.clone(),
                value: guarded,
                indices: self.new_indices.clone(),
            }));
        }
        let rewritten = mutate_stmt_children(self, stmt);
        match (rewritten.kind(), &self.block_update) {
            (StmtKind::BlockRealize(realize), Some((id, update))) if realize.block.id == *id => {
                let mut block = realize.block.clone();
                block.iter_vars = update.iter_vars.clone();
                rewritten.with_kind(StmtKind::BlockRealize(BlockRealize {
                    iter_values: update.iter_values.clone(),
                    predicate: realize.predicate.clone(),
                    block,
                }))
            }
            _ => rewritten,
        }
    }
}

/// Replaces loops (by id) with new statements.
struct ReplaceLoops {
    replacements: Vec<(NodeId, Stmt)>,
}

impl Mutator for ReplaceLoops {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let StmtKind::For(for_loop) = stmt.kind() {
            if let Some((_, replacement)) =
                self.replacements.iter().find(|(id, _)| *id == for_loop.id)
            {
                return replacement.clone();
            }
        }
        mutate_stmt_children(self, stmt)
    }
}

/// Puts `stmt` right after the loop or block `after`.
struct InsertAfter {
    after: NodeId,
    stmt: Stmt,
}

impl Mutator for InsertAfter {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let id = match stmt.kind() {
            StmtKind::For(for_loop) => Some(for_loop.id),
            StmtKind::BlockRealize(realize) => Some(realize.block.id),
            _ => None,
        };
        if id == Some(self.after) {
            return Stmt::seq(vec![stmt.clone(), self.stmt.clone()]);
        }
        let rewritten = mutate_stmt_children(self, stmt);
        match rewritten.kind() {
            // Keep sequences flat where an insertion made one inside another.
            StmtKind::Seq(children) => Stmt::seq(children.clone()),
            _ => rewritten,
        }
    }
}

/// Loops over the new shape and a block with iterators `virtual_vars` bound to them.
fn new_shape_stage(
    padded: &PaddedInverse,
    virtual_vars: &[Var],
    name: String,
    predicate: Expr,
    reads: Vec<BufferRegion>,
    writes: Vec<BufferRegion>,
    body: Stmt,
) -> Stmt {
    let iter_vars: Vec<IterVar> = virtual_vars
        .iter()
        .zip(&padded.new_shape)
        .map(|(var, extent)| IterVar {
            var: var.clone(),
            dom: Range::new(Expr::zero(extent.dtype()), extent.clone()),
            kind: IterKind::Spatial,
        })
        .collect();
    let block = Block::leaf(name, iter_vars, reads, writes, body);
    let loops = padded.new_vars.iter().zip(padded.new_shape.iter().cloned());
    let iter_values = padded.new_vars.iter().map(Var::to_expr).collect();
    guarded_stage_under_loops(block, iter_values, predicate, loops).0
}

/// The iterators `v_NAME` of a block over the new shape (TVM's names), and
/// the padding predicate in them.
fn virtual_vars(padded: &PaddedInverse) -> (Vec<Var>, Expr) {
    let virtual_vars: Vec<Var> = padded
        .new_vars
        .iter()
        .map(|v| Var::new(format!("v_{}", v.name()), v.dtype(), Span::NONE))
        .collect();
    let map: VarMap<Expr> = padded
        .new_vars
        .iter()
        .cloned()
        .zip(virtual_vars.iter().map(Var::to_expr))
        .collect();
    let predicate = crate::ir::mutate::substitute(&padded.predicate, &map);
    (virtual_vars, predicate)
}

/// TVM's epilogue: `buffer_NAME_padding` stores the pad value where the
/// predicate (on the loops) holds.
fn padding_block(to: &Buffer, padded: &PaddedInverse, pad: &Expr) -> Stmt {
    let (vars, _) = virtual_vars(padded);
    let indices: Vec<Expr> = vars.iter().map(Var::to_expr).collect();
    new_shape_stage(
        padded,
        &vars,
        format!("buffer_{}_padding", to.name()),
        padded.predicate.clone(),
        Vec::new(),
        vec![BufferRegion::from_point(to, &indices)],
        Stmt::store(to, pad.clone(), indices.clone()),
    )
}

/// TVM's prologue: `buffer_NAME_assumptions` at the start of the scope states
/// that the padding of an input holds the pad value.
fn with_assumption(scope: &Stmt, to: &Buffer, padded: &PaddedInverse, pad: &Expr) -> Stmt {
    let (vars, predicate) = virtual_vars(padded);
    let indices: Vec<Expr> = vars.iter().map(Var::to_expr).collect();
    let load = Expr::load(to, indices.clone());
    let holds = Expr::binary(
        BinaryOp::Or,
        Expr::new(ExprKind::Not(predicate), DataType::bool(), Span::NONE),
        Expr::binary(BinaryOp::Eq, load, pad.clone()),
    );
    let assume = Stmt::new(
        StmtKind::Evaluate(Expr::call(
            Op::named("assume"),
            vec![holds],
            DataType::void(),
        )),
        Span::NONE,
    );
    let stage = new_shape_stage(
        padded,
        &vars,
        format!("buffer_{}_assumptions", to.name()),
        Expr::bool(true),
        vec![BufferRegion::from_point(to, &indices)],
        Vec::new(),
        assume,
    );
    with_scope_body(scope, |body| Stmt::seq(vec![stage, body]))
}
