//! Reductions, after TVM's `reduction.cc`: `decompose_reduction` splits a
//! reduction block into its initialization (`C_init`, under copies of the
//! loops it needs, `i_init`) and its update (`C_update`); `rfactor` (in
//! [`super::rfactor`]) factors a reduction loop into a buffer of partial results.

use super::binding::and_conjunct;
use super::compute_inline::replace_node;
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, Primitive};
use super::region::substitute_region;
use super::scope::reduction_block_violation;
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::Outputs;
use super::trace::TraceArg;
use crate::arith::{eval_set, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{substitute, substitute_stmt};
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    BinaryOp, Block, BlockRealize, BufferRegion, Expr, ExprKind, For, IterKind, IterVar, NodeId,
    Stmt, StmtKind,
};

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop or block is no longer in the program",
        "get it again",
    )
}

/// Why a block is not a reduction block, in words (TVM's condition numbers).
pub(crate) fn reduction_violation_text(violation: u8) -> &'static str {
    match violation {
        1 => "it has no `T.init()`",
        2 => "its bindings are not an affine map of its loops",
        3 => "an iterator is neither spatial nor a reduction",
        4 => "another block of its scope writes what it writes",
        _ => "a reduction iterator indexes what it writes",
    }
}

/// Refuses a block that is not a reduction block of its scope.
pub(crate) fn require_reduction_block(
    state: &ScheduleState,
    block: NodeId,
    scope: NodeId,
    argument: usize,
) -> ScheduleResult<()> {
    let violation = reduction_block_violation(state, block, scope);
    if violation == 0 {
        return Ok(());
    }
    let sref = state.sref(block).ok_or_else(removed)?;
    Err(ScheduleError::new(
        codes::NOT_REDUCTION_BLOCK,
        format!(
            "{} is not a reduction block: {}",
            sref.describe(),
            reduction_violation_text(violation)
        ),
        "pass a block with `T.init()` whose reduction iterators only index what it reads",
    )
    .blame(sref.location(), "the block")
    .at_argument(argument))
}

/// `sch.decompose_reduction(block, loop)`: the reduction block's `T.init()`
/// becomes a block of its own (`C_init`) just before `loop`, under copies
/// of the loops between `loop` and the block that its bindings use; the
/// block itself becomes `C_update`. Returns the init block.
pub fn decompose_reduction(
    state: &mut ScheduleState,
    block: NodeId,
    loop_id: NodeId,
) -> ScheduleResult<NodeId> {
    let sref = state.sref(block).ok_or_else(removed)?;
    let realize = sref.as_realize().ok_or_else(removed)?.clone();
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    let target_loop = loop_sref.as_for().ok_or_else(removed)?.clone();
    let scope = super::access::scope_root_of(state, block)?;
    let loops = state.enclosing_loops(block);
    let position = position_among_loops(state, block, loop_id, "the initialization")?;
    require_reduction_block(state, block, scope, 0)?;
    // The loop must be above every loop a reduction iterator is bound to.
    for (iv, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        if iv.kind != IterKind::Reduce {
            continue;
        }
        for higher in &loops[..position] {
            let Some(f) = state.sref(*higher).and_then(|s| s.as_for()) else {
                continue;
            };
            if expr_uses_var(binding, &mut |v| *v == f.loop_var) {
                return Err(ScheduleError::new(
                    codes::BAD_COMPUTE_LOCATION,
                    format!(
                        "{} is inside loop `{}`, which the reduction iterator `{}` is bound to; the initialization must run before every reduction step",
                        loop_sref.describe(),
                        f.loop_var.name(),
                        iv.var.name()
                    ),
                    format!("pass loop `{}` or a loop above it", f.loop_var.name()),
                )
                .blame(loop_sref.location(), "too deep")
                .at_argument(1));
            }
        }
    }
    let init = realize.block.init.clone().ok_or_else(removed)?;
    // The init block: the spatial iterators (fresh variables), the same bindings.
    let mut var_map: VarMap<Expr> = VarMap::default();
    let mut init_iters = Vec::new();
    let mut init_values = Vec::new();
    for (iv, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        if iv.kind != IterKind::Spatial {
            continue;
        }
        let var = iv.var.with_name(iv.var.name());
        var_map.insert(iv.var.clone(), var.to_expr());
        init_iters.push(IterVar {
            var,
            dom: iv.dom.clone(),
            kind: iv.kind,
        });
        init_values.push(binding.clone());
    }
    let init_writes = realize
        .block
        .writes
        .iter()
        .map(|w| substitute_region(w, &var_map))
        .collect();
    // The loops from the block up to `loop` that the init bindings use.
    let mut discarded: VarMap<IntSet> = VarMap::default();
    // A discarded unit loop takes its one value in the init's predicate: a
    // unit factor of a split (`n_1 + n_2 < 1`) still bounds the init's loops.
    // TVM drops the whole conjunct, and its init then writes outside the buffer.
    let mut unit_values: VarMap<Expr> = VarMap::default();
    let mut chosen: Vec<For> = Vec::new();
    for &l in loops[position..].iter().rev() {
        let Some(f) = state.sref(l).and_then(|s| s.as_for()) else {
            continue;
        };
        let used = init_values
            .iter()
            .any(|v| expr_uses_var(v, &mut |x| *x == f.loop_var));
        if used {
            chosen.push(f.clone());
        } else if f.extent.as_int() == Some(1) {
            unit_values.insert(f.loop_var.clone(), f.min.clone());
        } else {
            discarded.insert(f.loop_var.clone(), IntSet::from_range(&f.range()));
        }
    }
    let predicate_with_units = if unit_values.is_empty() {
        realize.predicate.clone()
    } else {
        crate::arith::Analyzer::default().simplify(&substitute(&realize.predicate, &unit_values))
    };
    // The loops the init keeps, above `loop` or copied below it: what a
    // projected conjunct is proved over.
    let mut analyzer = crate::arith::Analyzer::new();
    for l in &loops {
        if let Some(f) = state.sref(*l).and_then(|s| s.as_for()) {
            if !discarded.contains_key(&f.loop_var) {
                analyzer.bind(&f.loop_var, &f.range());
            }
        }
    }
    let predicate = remake_predicate(&predicate_with_units, &discarded, &analyzer).ok_or_else(|| {
        ScheduleError::new(
            codes::NOT_REDUCTION_BLOCK,
            format!(
                "the `T.where` of {} is not a conjunction of `a < b` bounds, which decompose_reduction can split between the init and the update",
                sref.describe()
            ),
            "decompose reductions whose predicate comes from splitting loops",
        )
        .blame(sref.location(), "the block")
        .at_argument(0)
    })?;
    let init_id = NodeId::fresh();
    let mut body = Stmt::block_realize(BlockRealize {
        iter_values: init_values,
        predicate,
        block: Block {
            id: init_id,
            name: format!("{}_init", realize.block.name),
            iter_vars: init_iters,
            reads: Vec::new(),
            writes: init_writes,
            init: None,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: realize.block.annotations.clone(),
            body: substitute_stmt(&init, &var_map),
        },
    });
    let mut loop_var_map: VarMap<Expr> = VarMap::default();
    for old in &chosen {
        let new_var = old
            .loop_var
            .with_name(format!("{}_init", old.loop_var.name()));
        loop_var_map.insert(old.loop_var.clone(), new_var.to_expr());
        body = Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: new_var,
            body,
            ..old.clone()
        });
    }
    let init_nest = substitute_stmt(&body, &loop_var_map);
    // The update block: no init, what it writes read first.
    let block_data = &realize.block;
    let mut reads: Vec<BufferRegion> = block_data
        .writes
        .iter()
        .filter(|w| !block_data.reads.iter().any(|r| r.buffer == w.buffer))
        .cloned()
        .collect();
    reads.extend(block_data.reads.iter().cloned());
    let update = sref.stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
        block: Block {
            name: format!("{}_update", block_data.name),
            init: None,
            reads,
            ..block_data.clone()
        },
        ..realize.clone()
    }));
    let scope_stmt = state.sref(scope).ok_or_else(removed)?.stmt.clone();
    let with_update = replace_node(&scope_stmt, block, &update);
    let updated_loop =
        find_node(&with_update, loop_id).unwrap_or_else(|| Stmt::for_loop(target_loop.clone()));
    let new_scope = replace_node(
        &with_update,
        loop_id,
        &Stmt::seq(vec![init_nest, updated_loop]),
    );
    state.replace(scope, new_scope);
    state.update_scope_flags(scope);
    Ok(init_id)
}

/// Where `loop_id` is among the loops of `block` (outermost first); refuses
/// a loop that is not around the block, saying that `what` cannot go before it.
pub(crate) fn position_among_loops(
    state: &ScheduleState,
    block: NodeId,
    loop_id: NodeId,
    what: &str,
) -> ScheduleResult<usize> {
    let sref = state.sref(block).ok_or_else(removed)?;
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    state
        .enclosing_loops(block)
        .iter()
        .position(|l| *l == loop_id)
        .ok_or_else(|| {
            ScheduleError::new(
                codes::BAD_COMPUTE_LOCATION,
                format!(
                    "{} is not a loop of {}, so {what} cannot go before it",
                    loop_sref.describe(),
                    sref.describe()
                ),
                "pass one of the block's own loops, from `sch.get_loops(block)`",
            )
            .blame(loop_sref.location(), "not around the block")
            .blame(sref.location(), "the block")
            .at_argument(1)
        })
}

/// The loop or block `id` inside `stmt`.
pub(crate) fn find_node(stmt: &Stmt, id: NodeId) -> Option<Stmt> {
    let mut found = None;
    crate::ir::visit::walk_stmts(stmt, &mut |s| {
        let matches = match s.kind() {
            StmtKind::For(f) => f.id == id,
            StmtKind::BlockRealize(r) => r.block.id == id,
            _ => false,
        };
        if matches && found.is_none() {
            found = Some(s.clone());
        }
    });
    found
}

/// TVM's `RemakePredicate`: the `a < b` conjuncts of a predicate whose `a`
/// uses none of the discarded loops; `None` for a predicate of another form.
/// One over discarded loops becomes `min(a) < b`, `a` at its least over
/// them (where the update's first step runs), unless `analyzer` proves that
/// over the kept loops; TVM drops it, and where it bounds loops the init
/// keeps (a unit factor of a split), its init runs out of its domain or
/// again after updates.
fn remake_predicate(
    predicate: &Expr,
    discarded: &VarMap<IntSet>,
    analyzer: &crate::arith::Analyzer,
) -> Option<Expr> {
    if predicate.as_int() == Some(1) {
        return Some(Expr::bool(true));
    }
    let mut conjuncts = Vec::new();
    let mut rest = predicate.clone();
    loop {
        match rest.kind() {
            ExprKind::Binary(BinaryOp::And, left, right)
                if matches!(right.kind(), ExprKind::Binary(BinaryOp::Lt, _, _)) =>
            {
                conjuncts.push(right.clone());
                let next = left.clone();
                rest = next;
            }
            ExprKind::Binary(BinaryOp::Lt, _, _) => {
                conjuncts.push(rest.clone());
                break;
            }
            _ => return None,
        }
    }
    // TVM 0.27 keeps the conjuncts in their order.
    let mut result = Expr::bool(true);
    for conjunct in conjuncts.into_iter().rev() {
        let ExprKind::Binary(BinaryOp::Lt, lhs, rhs) = conjunct.kind() else {
            continue;
        };
        let kept_conjunct = if !expr_uses_var(lhs, &mut |v| discarded.contains_key(v)) {
            conjunct.clone()
        } else {
            let Some(least) = eval_set(lhs, discarded).min().cloned() else {
                continue;
            };
            if expr_uses_var(&least, &mut |v| discarded.contains_key(v)) {
                continue;
            }
            let projected =
                crate::arith::build::binary(BinaryOp::Lt, analyzer.simplify(&least), rhs.clone());
            if analyzer.can_prove(&projected) {
                continue;
            }
            projected
        };
        result = and_conjunct(result, kept_conjunct);
    }
    Some(result)
}

/// The descriptor of `decompose_reduction`.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "decompose_reduction",
    aliases: &[],
    params: &[required("block"), required("loop")],
    varargs: None,
    keyword_only: &[],
    doc: "Splits a reduction block into its initialization, a block `C_init` placed before `loop` under copies of the loops it needs (`i_init`), and its update `C_update`. `loop` must be a loop of the block above every loop its reduction iterators use. Returns the init block.",
    apply: apply_decompose_reduction,
}];

fn apply_decompose_reduction(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_block_at_loop(run, bound, "decompose_reduction", decompose_reduction)
}

/// Applies a primitive of `(block, loop)` that returns a new block, and
/// records it with those two keywords.
pub(crate) fn apply_block_at_loop(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    primitive: fn(&mut ScheduleState, NodeId, NodeId) -> ScheduleResult<NodeId>,
) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let (loop_rv, loop_id) = run.loop_arg(bound, 1, "loop")?;
    let created = primitive(run.state, block, loop_id).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Block, created);
    run.record(
        name,
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("loop"), TraceArg::Rv(loop_rv)),
        ],
        Outputs::Single(rv),
    );
    Ok(Value::Block(rv))
}
