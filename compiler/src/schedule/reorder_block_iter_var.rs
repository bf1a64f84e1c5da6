//! `reorder_block_iter_var`: a block's iterators, and their bindings, in
//! another order (after TVM's `reorder_block_iter_var.cc`). Nothing else
//! changes: the body refers to the iterators by variable, not position, but
//! the order decides how later primitives (`blockize`, `tensorize`,
//! `transform_block_layout`) see the block.

use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::ir::{Block, BlockRealize, NodeId, StmtKind};

/// `sch.reorder_block_iter_var(block, new_order)`: iterator `new_order[k]`
/// of the block becomes its `k`-th iterator.
pub fn reorder_block_iter_var(
    state: &mut ScheduleState,
    block: NodeId,
    new_order: &[i64],
) -> ScheduleResult<()> {
    let sref = state.sref(block).expect("a live block handle");
    let realize = sref.as_realize().expect("a block handle names a block");
    let count = realize.block.iter_vars.len();
    let mut seen = vec![false; count];
    let is_permutation = new_order.len() == count
        && new_order.iter().all(|&i| {
            usize::try_from(i)
                .ok()
                .filter(|&i| i < count)
                .is_some_and(|i| !std::mem::replace(&mut seen[i], true))
        });
    if !is_permutation {
        let names: Vec<String> = realize
            .block
            .iter_vars
            .iter()
            .enumerate()
            .map(|(i, iv)| format!("{i}: `{}`", iv.var.name()))
            .collect();
        return Err(ScheduleError::new(
            codes::BAD_ITER_ORDER,
            format!(
                "{new_order:?} is not a permutation of [0, {count}): {} has {count} iterator{}",
                sref.describe(),
                if count == 1 { "" } else { "s" }
            ),
            if names.is_empty() {
                "the block has no iterators: pass `[]`".to_string()
            } else {
                format!(
                    "list each iterator's position once, in the new order ({})",
                    names.join(", ")
                )
            },
        )
        .blame(sref.location(), "the block")
        .at_argument(1));
    }
    let order: Vec<usize> = new_order.iter().map(|&i| i as usize).collect();
    let new_stmt = sref.stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values: order
            .iter()
            .map(|&i| realize.iter_values[i].clone())
            .collect(),
        predicate: realize.predicate.clone(),
        block: Block {
            iter_vars: order
                .iter()
                .map(|&i| realize.block.iter_vars[i].clone())
                .collect(),
            ..realize.block.clone()
        },
    }));
    state.replace(block, new_stmt);
    Ok(())
}

/// The primitive's descriptor.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "reorder_block_iter_var",
    aliases: &[],
    params: &[required("block"), typed("new_order", "list")],
    varargs: None,
    keyword_only: &[],
    doc: "Puts a block's iterators (and their bindings) in a new order: `new_order[k]` is the position of the iterator that becomes the `k`-th. The block computes the same; primitives that read iterators by position (`blockize`, `tensorize`) see the new order.",
    apply: apply_reorder_block_iter_var,
}];

fn apply_reorder_block_iter_var(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let new_order = run.int_list_arg(bound, 1, "new_order")?;
    reorder_block_iter_var(run.state, block, &new_order).map_err(|e| run.refused(bound, e))?;
    run.record(
        "reorder_block_iter_var",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (
                Some("new_order"),
                TraceArg::List(new_order.iter().map(|&i| TraceArg::Int(i)).collect()),
            ),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state, MATMUL};

    #[test]
    fn iterators_and_bindings_move_together() {
        let mut s = state(MATMUL);
        let (c, _) = block_and_loops(&s, "C");
        reorder_block_iter_var(&mut s, c, &[2, 0, 1]).unwrap();
        let realize = s.sref(c).unwrap().as_realize().unwrap().clone();
        let names: Vec<&str> = realize
            .block
            .iter_vars
            .iter()
            .map(|iv| iv.var.name())
            .collect();
        assert_eq!(names, ["vk", "vi", "vj"]);
        let bound: Vec<String> = realize
            .iter_values
            .iter()
            .map(crate::printer::expr_to_string)
            .collect();
        assert_eq!(bound, ["k", "i", "j"]);
    }

    #[test]
    fn an_order_that_is_not_a_permutation_is_refused_and_changes_nothing() {
        let mut s = state(MATMUL);
        let (c, _) = block_and_loops(&s, "C");
        let before = printed(&s);
        for order in [
            &[0, 1][..],
            &[0, 1, 1],
            &[0, 1, 3],
            &[0, 1, -1],
            &[0, 1, 2, 0],
        ] {
            let error = reorder_block_iter_var(&mut s, c, order).unwrap_err();
            assert_eq!(error.code, codes::BAD_ITER_ORDER, "{order:?}");
        }
        assert_eq!(before, printed(&s));
    }
}
