//! `rfactor`, after TVM's `reduction.cc`: a reduction loop becomes a
//! spatial dimension of a buffer of partial results (`C_rf`, the new axis at
//! `factor_axis`) computed by a block `C_rf`; the original block, now a
//! write-back, reduces the partial results over that loop.

use super::access::stage_pipeline_scope;
use super::binding::{and_conjunct, conjuncts};
use super::compute_inline::replace_node;
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::reducer::match_reduction_update;
use super::reduction::require_reduction_block;
use super::scope::BlockFlags;
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{substitute, substitute_stmt};
use crate::ir::visit::walk_exprs;
use crate::ir::{
    Block, BlockRealize, Buffer, BufferRegion, Expr, ExprKind, For, ForKind, IterKind, IterVar,
    NodeId, Range, Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::HashSet;

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop is no longer in the program",
        "get it again",
    )
}

/// The variables of an expression in order of first appearance.
fn vars_of(expr: &Expr) -> Vec<Var> {
    let mut vars: Vec<Var> = Vec::new();
    walk_exprs(expr, &mut |e| {
        if let ExprKind::Var(v) = e.kind() {
            if !vars.contains(v) {
                vars.push(v.clone());
            }
        }
    });
    vars
}

/// `sch.rfactor(loop, factor_axis)`: returns the new `C_rf` block.
pub fn rfactor(
    state: &mut ScheduleState,
    loop_id: NodeId,
    factor_axis: i64,
) -> ScheduleResult<NodeId> {
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    let rf_loop = loop_sref.as_for().ok_or_else(removed)?.clone();
    let children = state.child_blocks(loop_id);
    let [block] = children[..] else {
        return Err(ScheduleError::new(
            codes::BAD_RFACTOR,
            format!(
                "{} holds {} blocks; rfactor needs a loop over exactly one reduction block",
                loop_sref.describe(),
                children.len()
            ),
            "rfactor a loop of the reduction block alone (split or move the other blocks out first)",
        )
        .blame(loop_sref.location(), "the loop")
        .at_argument(0));
    };
    let block_sref = state.sref(block).ok_or_else(removed)?;
    let realize = block_sref.as_realize().ok_or_else(removed)?.clone();
    let scope = stage_pipeline_scope(state, block)?;
    require_reduction_block(state, block, scope, 0)?;
    let refuse = |message: String, help: &str| {
        ScheduleError::new(codes::BAD_RFACTOR, message, help)
            .blame(loop_sref.location(), "the loop")
            .at_argument(0)
    };
    if rf_loop.kind != ForKind::Serial {
        return Err(refuse(
            format!("{} is not a serial loop", loop_sref.describe()),
            "rfactor a loop before parallelizing, vectorizing, unrolling or binding it",
        ));
    }
    // The loop variables each kind of iterator is bound to.
    let mut spatial_vars: HashSet<Var> = HashSet::new();
    let mut reduce_vars: HashSet<Var> = HashSet::new();
    for (iv, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        let set = if iv.kind == IterKind::Spatial {
            &mut spatial_vars
        } else {
            &mut reduce_vars
        };
        set.extend(vars_of(binding));
    }
    let loop_ids = state.enclosing_loops(block);
    let loops: Vec<For> = loop_ids
        .iter()
        .filter_map(|l| state.sref(*l).and_then(|s| s.as_for()).cloned())
        .collect();
    // The rfactor block keeps the predicate. TVM gives the write-back none,
    // so a `T.where` on spatial loops (a split's tail) let it write past the
    // buffer; tirc keeps those conjuncts there, which must not use the
    // reduction loops the write-back drops.
    let rf_loop_var = rf_loop.loop_var.clone();
    let dropped_vars: HashSet<Var> = reduce_vars
        .iter()
        .filter(|v| **v != rf_loop_var)
        .cloned()
        .collect();
    let mut write_back_predicate = Expr::bool(true);
    for conjunct in conjuncts(&realize.predicate) {
        let uses = |vars: &HashSet<Var>| {
            crate::ir::visit::expr_uses_var(&conjunct, &mut |v| vars.contains(v))
        };
        if !uses(&spatial_vars) {
            continue;
        }
        if uses(&dropped_vars) {
            return Err(refuse(
                format!(
                    "the `T.where` of {} bounds spatial and reduction loops together (`{conjunct}`), so its write-back could not be guarded",
                    block_sref.describe()
                ),
                "rfactor before splitting or fusing loops so that a guard spans both kinds",
            ));
        }
        write_back_predicate = and_conjunct(write_back_predicate, conjunct);
    }
    // TVM's `CheckLoopProperty`.
    if let Some(&outermost) = loop_ids.first() {
        if state.child_blocks(outermost).first() != Some(&block) {
            let mut error = refuse(
                format!(
                    "{} is not the first block under the outermost loop around it",
                    block_sref.describe()
                ),
                "move the other blocks out of the reduction's loops first",
            );
            if let Some(outer) = state.sref(outermost) {
                error = error.blame(
                    outer.location(),
                    format!("{} runs another block first", outer.describe()),
                );
            }
            return Err(error);
        }
    }
    let mut met_reduction = false;
    for (id, l) in loop_ids.iter().zip(&loops) {
        let spatial = spatial_vars.contains(&l.loop_var);
        let reduce = reduce_vars.contains(&l.loop_var);
        let name = l.loop_var.name();
        if spatial && reduce {
            return Err(refuse(
                format!(
                    "loop `{name}` is bound to both spatial and reduction iterators of {}",
                    block_sref.describe()
                ),
                "split the fused loop back into its spatial and reduction parts",
            ));
        } else if spatial {
            if *id == loop_id {
                return Err(refuse(
                    format!(
                        "{} is bound to a spatial iterator of {}; rfactor factors a reduction loop",
                        loop_sref.describe(),
                        block_sref.describe()
                    ),
                    "pass a loop that a reduction iterator (`T.axis.reduce`) is bound to",
                ));
            }
        } else if reduce {
            if !met_reduction && state.child_blocks(*id).len() != 1 {
                return Err(refuse(
                    format!("the reduction loop `{name}` holds more than one block"),
                    "rfactor a reduction whose loops hold only it",
                ));
            }
            met_reduction = true;
        } else if met_reduction && !l.extent.is_int(1) {
            return Err(refuse(
                format!("loop `{name}` is under a reduction loop but bound to no iterator"),
                "remove loops the block does not use from under its reduction loops",
            ));
        }
    }
    // TVM also factors a loop bound to no iterator. With extent 1 that is the
    // whole reduction once; a longer one repeats the reduction, and summing
    // the repeats would count it that many times, so tirc refuses it.
    if !reduce_vars.contains(&rf_loop.loop_var) && !rf_loop.extent.is_int(1) {
        return Err(refuse(
            format!(
                "{} is bound to no iterator of {}: each of its {} iterations repeats the whole reduction, so summing the partial results would count it that many times",
                loop_sref.describe(),
                block_sref.describe(),
                rf_loop.extent
            ),
            "pass a loop that a reduction iterator (`T.axis.reduce`) is bound to",
        ));
    }
    let Some(reduction) = match_reduction_update(&realize.block) else {
        return Err(ScheduleError::new(
            codes::BAD_RFACTOR,
            format!(
                "the reduction of {} is not `C[...] = C[...] op value` with op one of +, *, min, max and `T.init()` its identity, nor an argmax or argmin of an index and a value",
                block_sref.describe()
            ),
            "write the update as `C[i] = C[i] + ...` (or `*`, `T.min`, `T.max`) with the matching initial value, or an argmax as `topi.argmax` writes it (`T.init()` storing -1 and the lowest value)",
        )
        .blame(block_sref.location(), "the block")
        .at_argument(0));
    };
    let update = &reduction.stores[0];
    let ndim = update.buffer.rank() as i64;
    if factor_axis < -(ndim + 1) || factor_axis > ndim {
        return Err(ScheduleError::new(
            codes::BAD_RFACTOR,
            format!(
                "`{}` has {ndim} dimension{}, so `factor_axis` must be in [{}, {ndim}], found {factor_axis}",
                update.buffer.name(),
                if ndim == 1 { "" } else { "s" },
                -(ndim + 1)
            ),
            "pass where the new dimension of the partial results goes (0: first)",
        )
        .at_argument(1));
    }
    let axis = if factor_axis < 0 {
        (factor_axis + ndim + 1) as usize
    } else {
        factor_axis as usize
    };
    // The buffers of partial results, one per reduced buffer. TVM names
    // them `C.rf` (printed `C_rf`); caches of one are `C.rf_local`.
    let rf_buffers: Vec<Buffer> = reduction
        .stores
        .iter()
        .map(|store| {
            let mut rf_shape = store.buffer.shape().to_vec();
            rf_shape.insert(axis, rf_loop.extent.clone());
            let rf_name = format!("{}.rf", store.buffer.name());
            store.buffer.with(|node| {
                node.shape = rf_shape;
                node.strides = Vec::new();
                node.name = rf_name.clone();
                node.data = Var::pointer(&rf_name, node.dtype, &node.scope, node.span);
            })
        })
        .collect();
    // The rfactor block: the rfactor loop becomes a spatial iterator.
    let iter_from_loop = |l: &For, kind: IterKind| IterVar {
        var: Var::new(
            format!("v{}", l.loop_var.name()),
            l.loop_var.dtype(),
            l.loop_var.span(),
        ),
        dom: Range::new(l.min.clone(), l.extent.clone()),
        kind,
    };
    let additional = iter_from_loop(&rf_loop, IterKind::Spatial);
    let mut loop_to_iter: VarMap<Expr> = VarMap::default();
    loop_to_iter.insert(rf_loop.loop_var.clone(), additional.var.to_expr());
    let mut rf_iters = vec![additional.clone()];
    let mut rf_values = vec![rf_loop.loop_var.to_expr()];
    let mut var_map: VarMap<Expr> = VarMap::default();
    for (iv, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        let touches = vars_of(binding).contains(&rf_loop.loop_var);
        if iv.kind == IterKind::Spatial || !touches {
            rf_iters.push(iv.clone());
            rf_values.push(binding.clone());
            continue;
        }
        for var in vars_of(binding) {
            let Some(l) = loops.iter().find(|l| l.loop_var == var) else {
                continue;
            };
            if !loop_to_iter.contains_key(&var) {
                let new_iter = iter_from_loop(l, IterKind::Reduce);
                loop_to_iter.insert(var.clone(), new_iter.var.to_expr());
                rf_values.push(var.to_expr());
                rf_iters.push(new_iter);
            }
        }
        var_map.insert(iv.var.clone(), substitute(binding, &loop_to_iter));
    }
    let mut rf_indices = update.indices.clone();
    rf_indices.insert(axis, additional.var.to_expr());
    // Without a reduction iterator left, each partial result is computed once.
    let has_reduce_iter = rf_iters.iter().any(|iv| iv.kind == IterKind::Reduce);
    let rf_indices_all = vec![rf_indices.clone(); rf_buffers.len()];
    let rf_stored = if has_reduce_iter {
        let rf_loads: Vec<Expr> = rf_buffers
            .iter()
            .map(|b| Expr::load(b, rf_indices.clone()))
            .collect();
        reduction.reducer.combine(&rf_loads, &reduction.rhs)
    } else {
        reduction.rhs.clone()
    };
    let rf_body = substitute_stmt(
        &update_body(&rf_buffers, &rf_indices_all, rf_stored, has_reduce_iter),
        &var_map,
    );
    let rf_init = has_reduce_iter.then(|| {
        substitute_stmt(
            &init_body(&rf_buffers, &rf_indices_all, reduction.reducer.identity()),
            &var_map,
        )
    });
    let substitute_region = |r: &Range| {
        Range::new(
            substitute(&r.min, &var_map),
            substitute(&r.extent, &var_map),
        )
    };
    let rf_reads = realize
        .block
        .reads
        .iter()
        .map(|r| BufferRegion {
            buffer: r.buffer.clone(),
            region: r.region.iter().map(substitute_region).collect(),
        })
        .collect();
    let rf_writes = realize
        .block
        .writes
        .iter()
        .map(|w| {
            let mut region = w.region.clone();
            region.insert(
                axis,
                Range::new(additional.var.to_expr(), Expr::one(additional.var.dtype())),
            );
            BufferRegion {
                buffer: reduction
                    .stores
                    .iter()
                    .position(|s| s.buffer == w.buffer)
                    .map_or_else(|| w.buffer.clone(), |i| rf_buffers[i].clone()),
                region: region.iter().map(substitute_region).collect(),
            }
        })
        .collect();
    let rf_id = NodeId::fresh();
    let rf_realize = BlockRealize {
        iter_values: rf_values,
        predicate: realize.predicate.clone(),
        block: Block {
            id: rf_id,
            name: format!("{}_rf", realize.block.name),
            iter_vars: rf_iters,
            reads: rf_reads,
            writes: rf_writes,
            init: rf_init,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: realize.block.annotations.clone(),
            body: rf_body,
        },
    };
    // The write-back block: the rfactor loop is its only reduction.
    let wb_additional = iter_from_loop(&rf_loop, IterKind::Reduce);
    let mut wb_map: VarMap<Expr> = VarMap::default();
    wb_map.insert(additional.var.clone(), wb_additional.var.to_expr());
    let mut wb_iters = vec![wb_additional];
    let mut wb_values = vec![rf_loop.loop_var.to_expr()];
    for (iv, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        if iv.kind == IterKind::Spatial {
            let var = iv.var.with_name(iv.var.name());
            wb_map.insert(iv.var.clone(), var.to_expr());
            wb_iters.push(IterVar {
                var,
                dom: iv.dom.clone(),
                kind: IterKind::Spatial,
            });
            wb_values.push(binding.clone());
        }
    }
    let wb_lhs: Vec<Expr> = reduction
        .lhs
        .iter()
        .map(|l| substitute(l, &wb_map))
        .collect();
    let wb_rhs: Vec<Expr> = rf_buffers
        .iter()
        .map(|b| substitute(&Expr::load(b, rf_indices.clone()), &wb_map))
        .collect();
    let wb_buffers: Vec<Buffer> = reduction.stores.iter().map(|s| s.buffer.clone()).collect();
    let wb_indices: Vec<Vec<Expr>> = reduction
        .stores
        .iter()
        .map(|s| s.indices.iter().map(|i| substitute(i, &wb_map)).collect())
        .collect();
    let point_region = |e: &Expr| -> Option<BufferRegion> {
        let ExprKind::Load(load) = e.kind() else {
            return None;
        };
        Some(BufferRegion {
            buffer: load.buffer.clone(),
            region: load
                .indices
                .iter()
                .map(|i| Range::new(i.clone(), Expr::one(i.dtype())))
                .collect(),
        })
    };
    let wb_block = Block {
        iter_vars: wb_iters,
        reads: wb_rhs.iter().filter_map(point_region).collect(),
        writes: wb_lhs.iter().filter_map(point_region).collect(),
        init: Some(init_body(
            &wb_buffers,
            &wb_indices,
            reduction.reducer.identity(),
        )),
        body: update_body(
            &wb_buffers,
            &wb_indices,
            reduction.reducer.combine(&wb_lhs, &wb_rhs),
            true,
        ),
        ..realize.block.clone()
    };
    let wb_realize = BlockRealize {
        iter_values: wb_values,
        predicate: write_back_predicate,
        block: wb_block,
    };
    // The rfactor block's loops: copies of all the block's loops.
    let mut copy_map: VarMap<Expr> = VarMap::default();
    let copies: Vec<Var> = loops
        .iter()
        .map(|l| {
            let var = l.loop_var.with_name(l.loop_var.name());
            copy_map.insert(l.loop_var.clone(), var.to_expr());
            var
        })
        .collect();
    let mut rf_nest = Stmt::block_realize(BlockRealize {
        iter_values: rf_realize
            .iter_values
            .iter()
            .map(|v| substitute(v, &copy_map))
            .collect(),
        predicate: substitute(&rf_realize.predicate, &copy_map),
        block: rf_realize.block.clone(),
    });
    for (l, var) in loops.iter().zip(&copies).rev() {
        rf_nest = Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: var.clone(),
            body: rf_nest,
            ..l.clone()
        });
    }
    // The write-back nest: the block's loops in place, without the other
    // reduction loops (TVM's `BlockReplacer`); blocks beside the reduction
    // under its spatial loops stay where they are.
    let dropped: HashSet<NodeId> = loop_ids
        .iter()
        .zip(&loops)
        .filter(|(id, l)| **id != loop_id && reduce_vars.contains(&l.loop_var))
        .map(|(id, _)| *id)
        .collect();
    let outermost = *loop_ids.first().ok_or_else(removed)?;
    let outermost_stmt = state.sref(outermost).ok_or_else(removed)?.stmt.clone();
    let wb_nest = write_back_nest(&outermost_stmt, &dropped, block, &wb_realize);
    let scope_stmt = state.sref(scope).ok_or_else(removed)?.stmt.clone();
    let mut new_scope = replace_node(&scope_stmt, outermost, &Stmt::seq(vec![rf_nest, wb_nest]));
    if let StmtKind::BlockRealize(scope_realize) = new_scope.kind() {
        let mut scope_block = scope_realize.block.clone();
        scope_block.alloc_buffers.extend(rf_buffers);
        new_scope = new_scope.with_kind(StmtKind::BlockRealize(BlockRealize {
            block: scope_block,
            ..scope_realize.clone()
        }));
    }
    state.replace(scope, new_scope);
    let all_true = BlockFlags {
        affine_binding: true,
        region_cover: true,
        stage_pipeline: true,
    };
    state.set_block_flags(rf_id, all_true);
    state.set_block_flags(block, all_true);
    Ok(rf_id)
}

/// The stores of `values` into `buffers`: one store, or for a tuple
/// reduction that combines (`lets`) `T.let`s `v_<buffer>` of every value
/// first, so that each store reads the others' old values (TVM's
/// `CreateBlockBody`).
fn update_body(buffers: &[Buffer], indices: &[Vec<Expr>], values: Vec<Expr>, lets: bool) -> Stmt {
    if buffers.len() == 1 || !lets {
        let stores = buffers
            .iter()
            .zip(indices)
            .zip(values)
            .map(|((b, i), v)| Stmt::store(b, v, i.clone()))
            .collect();
        return Stmt::seq(stores);
    }
    let vars: Vec<Var> = buffers
        .iter()
        .zip(&values)
        .map(|(b, v)| Var::new(format!("v_{}", b.name()), v.dtype(), Span::NONE))
        .collect();
    let stores = buffers
        .iter()
        .zip(indices)
        .zip(&vars)
        .map(|((b, i), var)| Stmt::store(b, var.to_expr(), i.clone()))
        .collect();
    vars.into_iter()
        .zip(values)
        .rev()
        .fold(Stmt::seq(stores), |body, (var, value)| {
            Stmt::new(StmtKind::LetStmt { var, value, body }, Span::NONE)
        })
}

/// The `T.init()` of a reduction over `buffers`: each stores its identity.
fn init_body(buffers: &[Buffer], indices: &[Vec<Expr>], identity: &[Expr]) -> Stmt {
    let stores = buffers
        .iter()
        .zip(indices)
        .zip(identity)
        .map(|((b, i), v)| Stmt::store(b, v.clone(), i.clone()))
        .collect();
    Stmt::seq(stores)
}

/// The loop nest `stmt` with the loops in `dropped` replaced by their
/// bodies and the block `block` by the write-back block.
fn write_back_nest(
    stmt: &Stmt,
    dropped: &HashSet<NodeId>,
    block: NodeId,
    write_back: &BlockRealize,
) -> Stmt {
    let walk = |s: &Stmt| write_back_nest(s, dropped, block, write_back);
    match stmt.kind() {
        StmtKind::For(f) if dropped.contains(&f.id) => walk(&f.body),
        StmtKind::For(f) => stmt.with_kind(StmtKind::For(For {
            body: walk(&f.body),
            ..f.clone()
        })),
        StmtKind::Seq(stmts) => stmt.with_kind(StmtKind::Seq(stmts.iter().map(walk).collect())),
        StmtKind::BlockRealize(r) if r.block.id == block => {
            stmt.with_kind(StmtKind::BlockRealize(write_back.clone()))
        }
        _ => stmt.clone(),
    }
}

/// The descriptor of `rfactor`.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "rfactor",
    aliases: &[],
    params: &[required("loop"), typed("factor_axis", "int")],
    varargs: None,
    keyword_only: &[],
    doc: "Factors a reduction along one of its loops: a block `C_rf` computes partial results into a buffer `C_rf` with a new dimension at `factor_axis`, and the original block reduces them. Sums, products, min, max and the tuple reductions argmax and argmin (one `.rf` buffer per reduced buffer) are recognized. Returns the `C_rf` block.",
    apply: apply_rfactor,
}];

fn apply_rfactor(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "loop")?;
    let factor_axis = run.int_arg(bound, 1, "factor_axis", None)?;
    let rf_block = rfactor(run.state, loop_id, factor_axis).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Block, rf_block);
    run.record(
        "rfactor",
        vec![
            (Some("loop"), TraceArg::Rv(loop_rv)),
            (Some("factor_axis"), TraceArg::Int(factor_axis)),
        ],
        Outputs::Single(rv),
    );
    Ok(Value::Block(rv))
}
