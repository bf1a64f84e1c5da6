//! `decompose_padding` and `can_decompose_padding`, after TVM's
//! `decompose_padding.cc`: a padding block `P[i] = T.if_then_else(in_bounds,
//! A[i - 3], 0)` becomes a block that writes the pad value everywhere
//! (`P_pad_const`, before a chosen loop) and the block itself, narrowed to
//! the in-bound region, which copies without a condition.

use super::binding::and_conjunct;
use super::compute_inline::{replace_node, require_complete_block};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use crate::arith::build;
use crate::arith::{detect_iter_map, Analyzer, IterMapLevel};
use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::{
    BinaryOp, Block, BlockRealize, BufferRegion, BufferStore, Expr, ExprKind, For, ForKind,
    IterKind, IterVar, NodeId, Range, Stmt, StmtKind, Var,
};

/// What the padding block computes, found by [`padding_pattern`].
struct Padding {
    /// The value stored inside the bounds, in the block's iterators.
    in_bound_value: Expr,
    /// The constant stored outside.
    pad_value: Expr,
    /// Where the block writes in-bound values, in its loop variables.
    in_bound_predicate: Expr,
    /// Per block iterator, `[min, min + extent)` of the values it takes inside the bounds.
    in_bound_region: Vec<Range>,
}

/// The rewrite [`decompose_padding`] applies: the new statements and where they go.
struct Decomposition {
    /// The scope block whose body changes.
    scope: NodeId,
    /// The scope's new statement.
    new_scope: Stmt,
    /// The block that writes the pad value.
    const_block: NodeId,
}

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop or block is no longer in the program",
        "get it again",
    )
}

/// `sch.decompose_padding(block, loop)`: `block` must store
/// `T.if_then_else(in_bounds, value, constant)`. A new block
/// `<name>_pad_const` writes the constant over the whole region, under
/// copies of the loops from `loop` down, placed just before `loop`; `block`
/// then writes `value` over the in-bound region only. Returns the new block.
pub fn decompose_padding(
    state: &mut ScheduleState,
    block: NodeId,
    loop_id: NodeId,
) -> ScheduleResult<NodeId> {
    let decomposition = plan(state, block, loop_id)?;
    state.replace(decomposition.scope, decomposition.new_scope);
    state.update_scope_flags(decomposition.scope);
    Ok(decomposition.const_block)
}

/// `sch.can_decompose_padding(block, loop)`: whether [`decompose_padding`]
/// would accept the pair. Changes nothing.
pub fn can_decompose_padding(state: &ScheduleState, block: NodeId, loop_id: NodeId) -> bool {
    plan(state, block, loop_id).is_ok()
}

fn plan(state: &ScheduleState, block: NodeId, loop_id: NodeId) -> ScheduleResult<Decomposition> {
    let sref = state.sref(block).ok_or_else(removed)?;
    let realize = sref.as_realize().ok_or_else(removed)?.clone();
    let scope = super::access::scope_root_of(state, block)?;
    require_complete_block(
        state,
        block,
        scope,
        "decompose_padding splits a block that computes each element of its output once, from other buffers",
    )?;
    let loop_ids = state.enclosing_loops(block);
    let position = super::reduction::position_among_loops(state, block, loop_id, "the pad values")?;
    let loops: Vec<For> = loop_ids
        .iter()
        .map(|id| state.sref(*id).and_then(|s| s.as_for()).cloned())
        .collect::<Option<_>>()
        .ok_or_else(removed)?;
    let mut analyzer = Analyzer::new();
    for f in &loops {
        analyzer.bind(&f.loop_var, &f.range());
    }
    let padding = padding_pattern(&realize, &loops, &analyzer).map_err(|why| {
        ScheduleError::new(
            codes::NOT_PADDING_BLOCK,
            format!("{} is not a padding block: {why}", sref.describe()),
            "decompose blocks of the form `P[i] = T.if_then_else(lo <= i and i < hi, A[i - lo], 0)`, whose condition bounds each iterator by constants or outer loops",
        )
        .blame(sref.location(), "the block")
        .at_argument(0)
    })?;
    // The in-bound nest replaces the highest loop whose nest holds nothing
    // but the block (TVM takes `loop` itself even when it holds other
    // statements, and drops them).
    let mut in_bound_top = None;
    for k in (position..loops.len()).rev() {
        let single_child = match loops[k].body.kind() {
            StmtKind::For(_) => true,
            StmtKind::BlockRealize(r) => r.block.id == block,
            _ => false,
        };
        if !single_child {
            break;
        }
        in_bound_top = Some(k);
    }
    let (const_nest, const_block) = const_nest(&realize, &padding, &loops[position..], &analyzer);
    let in_bound_nest = in_bound_nest(
        &realize,
        &padding,
        in_bound_top.map_or(&[][..], |k| &loops[k..]),
        analyzer,
    );
    let scope_stmt = state.sref(scope).ok_or_else(removed)?.stmt.clone();
    let in_bound_target = in_bound_top.map_or(block, |k| loop_ids[k]);
    let with_in_bound = replace_node(&scope_stmt, in_bound_target, &in_bound_nest);
    let target = super::reduction::find_node(&with_in_bound, loop_id).ok_or_else(removed)?;
    let new_scope = replace_node(
        &with_in_bound,
        loop_id,
        &Stmt::seq(vec![const_nest, target]),
    );
    Ok(Decomposition {
        scope,
        new_scope,
        const_block,
    })
}

/// TVM's padding pattern: the body stores `T.if_then_else(condition, value,
/// constant)`, `value` has no side effects, and the condition (with the
/// block's `T.where`) bounds each iterator to one unit-stride range.
fn padding_pattern(
    realize: &BlockRealize,
    loops: &[For],
    analyzer: &Analyzer,
) -> Result<Padding, String> {
    let block = &realize.block;
    let StmtKind::BufferStore(store) = block.body.kind() else {
        return Err("its body is not one store".to_string());
    };
    let ExprKind::Call { op, args } = store.value.kind() else {
        return Err("the stored value is not `T.if_then_else(in_bounds, value, pad)`".to_string());
    };
    if op.name() != "if_then_else" || args.len() != 3 {
        return Err("the stored value is not `T.if_then_else(in_bounds, value, pad)`".to_string());
    }
    let (condition, in_bound_value, pad_value) = (&args[0], &args[1], &args[2]);
    if !matches!(pad_value.kind(), ExprKind::Int(_) | ExprKind::Float(_)) {
        return Err(format!(
            "the pad value `{}` is not a constant",
            crate::printer::expr_to_string(pad_value)
        ));
    }
    if has_side_effect(in_bound_value) {
        return Err("the in-bound value calls an operator with side effects".to_string());
    }
    let bindings = super::region::bindings(realize);
    let mut predicate = Expr::bool(true);
    for conjunct in super::binding::conjuncts(&build::binary(
        BinaryOp::And,
        substitute(condition, &bindings),
        realize.predicate.clone(),
    )) {
        predicate = and_conjunct(predicate, strip_likely(conjunct));
    }
    let in_bound_predicate = analyzer.simplify(&predicate);
    if analyzer.can_prove(&in_bound_predicate) {
        return Err(format!(
            "its condition `{}` holds at every iteration, so there is no padding",
            crate::printer::expr_to_string(condition)
        ));
    }
    let domains: Vec<(Var, Range)> = loops
        .iter()
        .map(|f| (f.loop_var.clone(), f.range()))
        .collect();
    let map = detect_iter_map(
        &realize.iter_values,
        &domains,
        &in_bound_predicate,
        IterMapLevel::Surjective,
        analyzer,
        true,
    );
    if !map.is_success() {
        return Err(format!(
            "its condition does not bound each iterator independently ({})",
            map.errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let mut in_bound_region = Vec::new();
    for (sum, iter_var) in map.indices.iter().zip(&block.iter_vars) {
        match sum.args.as_slice() {
            [] => in_bound_region.push(Range::new(
                sum.base.clone(),
                build::int(1, sum.base.dtype()),
            )),
            [split]
                if analyzer.can_prove_equal(&split.scale, &build::int(1, split.scale.dtype())) =>
            {
                in_bound_region.push(Range::new(sum.base.clone(), split.extent.clone()))
            }
            _ => {
                return Err(format!(
                    "iterator `{}` is strided inside the bounds",
                    iter_var.var.name()
                ))
            }
        }
    }
    Ok(Padding {
        in_bound_value: in_bound_value.clone(),
        pad_value: pad_value.clone(),
        in_bound_predicate,
        in_bound_region,
    })
}

fn has_side_effect(expr: &Expr) -> bool {
    let mut found = false;
    crate::ir::visit::walk_exprs(expr, &mut |e| {
        if let ExprKind::Call { op, .. } = e.kind() {
            found |= !op.0.pure;
        }
        if matches!(e.kind(), ExprKind::CallFunction { .. }) {
            found = true;
        }
    });
    found
}

/// `T.likely(c)` is `c` to the pattern (TVM drops the hint there too).
fn strip_likely(conjunct: Expr) -> Expr {
    match conjunct.kind() {
        ExprKind::Call { op, args } if op.name() == "likely" && args.len() == 1 => args[0].clone(),
        _ => conjunct,
    }
}

/// The nest that writes the pad value: the block's iterators with the same
/// bindings, under copies of `loops` (from `loop` down), serial.
fn const_nest(
    realize: &BlockRealize,
    padding: &Padding,
    loops: &[For],
    analyzer: &Analyzer,
) -> (Stmt, NodeId) {
    let block = &realize.block;
    let mut map: VarMap<Expr> = VarMap::default();
    let iter_vars: Vec<IterVar> = block
        .iter_vars
        .iter()
        .map(|iv| {
            let var = iv.var.with_name(iv.var.name());
            map.insert(iv.var.clone(), var.to_expr());
            IterVar {
                var,
                dom: iv.dom.clone(),
                kind: IterKind::Spatial,
            }
        })
        .collect();
    let mut copies = Vec::new();
    for f in loops {
        let var = f.loop_var.with_name(f.loop_var.name());
        map.insert(f.loop_var.clone(), var.to_expr());
        copies.push((f, var));
    }
    // The copies are not bound in the analyzer, as in TVM: only the loops
    // the two nests share simplify.
    let rewrite = |e: &Expr| analyzer.simplify(&substitute(e, &map));
    let StmtKind::BufferStore(store) = block.body.kind() else {
        unreachable!("padding_pattern checked the body is a store")
    };
    let id = NodeId::fresh();
    let mut nest = Stmt::block_realize(BlockRealize {
        iter_values: realize.iter_values.iter().map(rewrite).collect(),
        predicate: rewrite(&realize.predicate),
        block: Block {
            id,
            name: format!("{}_pad_const", block.name),
            iter_vars,
            reads: Vec::new(),
            writes: block
                .writes
                .iter()
                .map(|w| rewrite_region(w, &rewrite))
                .collect(),
            init: None,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: Vec::new(),
            body: block.body.with_kind(StmtKind::BufferStore(BufferStore {
                buffer: store.buffer.clone(),
                value: padding.pad_value.clone(),
                indices: store.indices.iter().map(rewrite).collect(),
            })),
        },
    });
    for (f, var) in copies.into_iter().rev() {
        nest = Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: var,
            min: substitute(&f.min, &map),
            extent: substitute(&f.extent, &map),
            kind: ForKind::Serial,
            thread: None,
            annotations: Vec::new(),
            body: nest,
        });
    }
    (nest, id)
}

/// The block narrowed to the in-bound region, under `loops` (the loops of
/// its single-child nest, possibly none): an iterator bound to one of those
/// loops shrinks the loop; any other is rebased and the in-bound predicate
/// keeps it in bounds.
fn in_bound_nest(
    realize: &BlockRealize,
    padding: &Padding,
    loops: &[For],
    mut analyzer: Analyzer,
) -> Stmt {
    let block = &realize.block;
    let mut ranges: Vec<Range> = loops.iter().map(For::range).collect();
    let mut map: VarMap<Expr> = VarMap::default();
    let mut iter_vars = Vec::new();
    let mut rebased = Vec::new();
    for (k, (iv, region)) in block
        .iter_vars
        .iter()
        .zip(&padding.in_bound_region)
        .enumerate()
    {
        let var = iv.var.with_name(iv.var.name());
        let dtype = var.dtype();
        let range = Range::new(build::int(0, dtype), region.extent.clone());
        map.insert(
            iv.var.clone(),
            build::add(var.to_expr(), region.min.clone()),
        );
        iter_vars.push(IterVar {
            var,
            dom: range.clone(),
            kind: IterKind::Spatial,
        });
        let binding = &realize.iter_values[k];
        let own_loop = match binding.kind() {
            ExprKind::Var(v) => loops.iter().position(|f| f.loop_var == *v),
            _ => None,
        };
        match own_loop {
            Some(l) => {
                ranges[l] = range.clone();
                let loop_var = &loops[l].loop_var;
                map.insert(
                    loop_var.clone(),
                    build::add(loop_var.to_expr(), region.min.clone()),
                );
                analyzer.bind(loop_var, &range);
                rebased.push(None);
            }
            None => rebased.push(Some(region.min.clone())),
        }
    }
    // A binding that is not a narrowed loop is rebased; one that uses a
    // narrowed loop sees it shifted back (TVM leaves such a use unshifted).
    let loop_shift: VarMap<Expr> = map
        .iter()
        .filter(|(v, _)| loops.iter().any(|f| f.loop_var == **v))
        .map(|(v, e)| (v.clone(), e.clone()))
        .collect();
    let iter_values = realize
        .iter_values
        .iter()
        .zip(rebased)
        .map(|(binding, min)| match min {
            None => binding.clone(),
            Some(min) => analyzer.simplify(&build::sub(substitute(binding, &loop_shift), min)),
        })
        .collect();
    let rewrite = |e: &Expr| analyzer.simplify(&substitute(e, &map));
    let StmtKind::BufferStore(store) = block.body.kind() else {
        unreachable!("padding_pattern checked the body is a store")
    };
    let mut nest = Stmt::block_realize(BlockRealize {
        iter_values,
        predicate: rewrite(&padding.in_bound_predicate),
        block: Block {
            iter_vars,
            reads: block
                .reads
                .iter()
                .map(|r| rewrite_region(r, &rewrite))
                .collect(),
            writes: block
                .writes
                .iter()
                .map(|w| rewrite_region(w, &rewrite))
                .collect(),
            init: None,
            body: block.body.with_kind(StmtKind::BufferStore(BufferStore {
                buffer: store.buffer.clone(),
                value: rewrite(&padding.in_bound_value),
                indices: store.indices.iter().map(rewrite).collect(),
            })),
            ..block.clone()
        },
    });
    for (f, range) in loops.iter().zip(ranges).rev() {
        nest = Stmt::for_loop(For {
            min: range.min,
            extent: range.extent,
            body: nest,
            ..f.clone()
        });
    }
    nest
}

fn rewrite_region(region: &BufferRegion, rewrite: &dyn Fn(&Expr) -> Expr) -> BufferRegion {
    BufferRegion {
        buffer: region.buffer.clone(),
        region: region
            .region
            .iter()
            .map(|r| Range::new(rewrite(&r.min), rewrite(&r.extent)))
            .collect(),
    }
}

/// The descriptors of `decompose_padding` and `can_decompose_padding`.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "decompose_padding",
        aliases: &[],
        params: &[required("block"), required("loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Splits a padding block `P[i] = T.if_then_else(in_bounds, A[...], c)` into `P_pad_const`, which writes `c` everywhere under copies of the loops from `loop` down and runs just before `loop`, and the block itself narrowed to the in-bound region with no condition. Returns the new block.",
        apply: apply_decompose_padding,
    },
    Primitive {
        name: "can_decompose_padding",
        aliases: &[],
        params: &[required("block"), required("loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Whether `decompose_padding(block, loop)` would apply: `True` or `False`, changing nothing and recording nothing in the trace.",
        apply: apply_can_decompose_padding,
    },
];

fn apply_decompose_padding(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    super::reduction::apply_block_at_loop(run, bound, "decompose_padding", decompose_padding)
}

fn apply_can_decompose_padding(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (_, block) = run.block_arg(bound, 0, "block", true)?;
    let (_, loop_id) = run.loop_arg(bound, 1, "loop")?;
    Ok(Value::Bool(can_decompose_padding(
        run.state, block, loop_id,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state};

    const PAD_2D: &str = r#"
@T.prim_func
def main(x: T.Buffer((60, 60), "float32"), y: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.block("pad"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = T.if_then_else(2 <= vi and vi < 62 and 2 <= vj and vj < 62, x[vi - 2, vj - 2], T.float32(0))
"#;

    const NO_PADDING: &str = r#"
@T.prim_func
def main(x: T.Buffer((64,), "float32"), y: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("pad"):
            vi = T.axis.spatial(64, i)
            y[vi] = T.if_then_else(vi < 64, x[vi], T.float32(0))
"#;

    #[test]
    fn the_loops_bound_to_iterators_shrink_to_the_in_bound_region() {
        let mut s = state(PAD_2D);
        let (pad, loops) = block_and_loops(&s, "pad");
        assert!(can_decompose_padding(&s, pad, loops[0]));
        let constant = decompose_padding(&mut s, pad, loops[0]).unwrap();
        let text = printed(&s);
        assert!(text.contains("T.block(\"pad_pad_const\")"), "{text}");
        assert!(text.contains("for i, j in T.grid(60, 60)"), "{text}");
        assert!(text.contains("y[vi + 2, vj + 2] = x[vi, vj]"), "{text}");
        assert!(!text.contains("T.if_then_else"), "{text}");
        // The old handle names the narrowed block; the new one the constant block.
        assert_eq!(s.sref(pad).unwrap().as_block().unwrap().name, "pad");
        let (_, constant_loops) = block_and_loops(&s, "pad_pad_const");
        assert_eq!(constant_loops.len(), 2);
        assert_eq!(
            s.sref(constant).unwrap().as_block().unwrap().name,
            "pad_pad_const"
        );
    }

    #[test]
    fn an_inner_loop_keeps_the_outer_loop_shared() {
        let mut s = state(PAD_2D);
        let (pad, loops) = block_and_loops(&s, "pad");
        decompose_padding(&mut s, pad, loops[1]).unwrap();
        let text = printed(&s);
        // Row i is outside [2, 62) for some iterations: the in-bound block
        // keeps that bound as its predicate, only loop j shrinks.
        assert!(text.contains("T.where(2 <= i and i < 62)"), "{text}");
        assert!(text.contains("for j in range(60)"), "{text}");
    }

    #[test]
    fn a_condition_that_always_holds_is_refused_and_changes_nothing() {
        let mut s = state(NO_PADDING);
        let (pad, loops) = block_and_loops(&s, "pad");
        let before = printed(&s);
        assert!(!can_decompose_padding(&s, pad, loops[0]));
        let error = decompose_padding(&mut s, pad, loops[0]).unwrap_err();
        assert_eq!(error.code, codes::NOT_PADDING_BLOCK);
        assert!(
            error.message.contains("holds at every iteration"),
            "{}",
            error.message
        );
        assert_eq!(before, printed(&s));
    }
}
