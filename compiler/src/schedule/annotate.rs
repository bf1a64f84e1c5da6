//! Annotations: `annotate` and `unannotate` on loops and blocks. As in TVM,
//! annotating a key that is already there keeps the old value.

use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRef, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::ir::{Annotations, AttrValue, Block, BlockRealize, For, NodeId, Stmt, StmtKind};

fn annotations_of(sref: &SRef) -> &Annotations {
    match sref.stmt.kind() {
        StmtKind::For(f) => &f.annotations,
        StmtKind::BlockRealize(r) => &r.block.annotations,
        _ => unreachable_annotations(),
    }
}

/// Srefs are loops or blocks; this keeps `annotations_of` total without a panic.
fn unreachable_annotations() -> &'static Annotations {
    static EMPTY: Annotations = Vec::new();
    &EMPTY
}

fn with_annotations(sref: &SRef, annotations: Annotations) -> Stmt {
    match sref.stmt.kind() {
        StmtKind::For(f) => sref.stmt.with_kind(StmtKind::For(For {
            annotations,
            ..f.clone()
        })),
        StmtKind::BlockRealize(r) => sref.stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
            block: Block {
                annotations,
                ..r.block.clone()
            },
            ..r.clone()
        })),
        _ => sref.stmt.clone(),
    }
}

fn live(state: &ScheduleState, id: NodeId) -> ScheduleResult<&SRef> {
    state.sref(id).ok_or_else(|| {
        ScheduleError::new(
            codes::REMOVED_HANDLE,
            "the loop or block is no longer in the program",
            "get it again",
        )
    })
}

/// `sch.annotate(block_or_loop, ann_key, ann_val)`: adds the annotation
/// unless the key is already there.
pub fn annotate(
    state: &mut ScheduleState,
    target: NodeId,
    key: &str,
    value: AttrValue,
) -> ScheduleResult<()> {
    let sref = live(state, target)?;
    let current = annotations_of(sref);
    if current.iter().any(|(k, _)| k == key) {
        return Ok(());
    }
    let mut annotations = current.clone();
    annotations.push((key.to_string(), value));
    let new_stmt = with_annotations(sref, annotations);
    state.replace(target, new_stmt);
    Ok(())
}

/// `sch.unannotate(block_or_loop, ann_key)`: removes the annotation, which must be there.
pub fn unannotate(state: &mut ScheduleState, target: NodeId, key: &str) -> ScheduleResult<()> {
    let sref = live(state, target)?;
    let current = annotations_of(sref);
    if !current.iter().any(|(k, _)| k == key) {
        let keys: Vec<String> = current.iter().map(|(k, _)| format!("`{k}`")).collect();
        return Err(ScheduleError::new(
            codes::MISSING_ANNOTATION,
            format!("{} has no annotation `{key}`", sref.describe()),
            if keys.is_empty() {
                format!("{} has no annotations", sref.describe())
            } else {
                format!("its annotations are: {}", keys.join(", "))
            },
        )
        .blame(sref.location(), sref.describe())
        .at_argument(1));
    }
    let annotations: Annotations = current.iter().filter(|(k, _)| k != key).cloned().collect();
    let new_stmt = with_annotations(sref, annotations);
    state.replace(target, new_stmt);
    Ok(())
}

/// The annotation primitives' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "annotate",
        aliases: &[],
        params: &[required("block_or_loop"), typed("ann_key", "str"), required("ann_val")],
        varargs: None,
        keyword_only: &[],
        doc: "Adds an annotation to a block or loop (a key already there keeps its value, as in TVM).",
        apply: apply_annotate,
    },
    Primitive {
        name: "unannotate",
        aliases: &[],
        params: &[required("block_or_loop"), typed("ann_key", "str")],
        varargs: None,
        keyword_only: &[],
        doc: "Removes an annotation from a block or loop.",
        apply: apply_unannotate,
    },
];

fn apply_annotate(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (target_rv, target) = run.handle_arg(bound, 0, "block_or_loop", None)?;
    let key = run.expect_str(bound, 1, "ann_key")?;
    let Some(value_arg) = bound.get(2).cloned() else {
        return Err(run.missing_argument(bound, "ann_val"));
    };
    let (attr, trace_value) = run.annotation_value(&value_arg)?;
    annotate(run.state, target, &key, attr).map_err(|e| run.refused(bound, e))?;
    run.record(
        "annotate",
        vec![
            (Some("block_or_loop"), TraceArg::Rv(target_rv)),
            (Some("ann_key"), TraceArg::Str(key)),
            (Some("ann_val"), trace_value),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

fn apply_unannotate(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (target_rv, target) = run.handle_arg(bound, 0, "block_or_loop", None)?;
    let key = run.expect_str(bound, 1, "ann_key")?;
    unannotate(run.state, target, &key).map_err(|e| run.refused(bound, e))?;
    run.record(
        "unannotate",
        vec![
            (Some("block_or_loop"), TraceArg::Rv(target_rv)),
            (Some("ann_key"), TraceArg::Str(key)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state, unchanged, MATMUL};

    #[test]
    fn annotating_an_existing_key_keeps_the_first_value() {
        let mut s = state(MATMUL);
        let (block, loops) = block_and_loops(&s, "C");
        annotate(&mut s, block, "k", AttrValue::Int(1)).unwrap();
        let before = s.clone();
        annotate(&mut s, block, "k", AttrValue::Int(2)).unwrap();
        assert!(unchanged(&before, &s));
        annotate(
            &mut s,
            loops[0],
            "pragma_unroll_explicit",
            AttrValue::Int(1),
        )
        .unwrap();
        let text = printed(&s);
        assert!(text.contains("T.block_attr({\"k\": 1})"), "{text}");
        assert!(
            text.contains("for i in T.serial(128, annotations={\"pragma_unroll_explicit\": 1}):"),
            "{text}"
        );
    }

    #[test]
    fn unannotate_removes_a_key_that_is_there() {
        let mut s = state(MATMUL);
        let (block, _) = block_and_loops(&s, "C");
        let error = unannotate(&mut s, block, "k").unwrap_err();
        assert_eq!(error.code, codes::MISSING_ANNOTATION);
        annotate(&mut s, block, "k", AttrValue::Str("v".into())).unwrap();
        unannotate(&mut s, block, "k").unwrap();
        assert!(!printed(&s).contains("block_attr"));
        // The block keeps its handle through both steps.
        assert!(s.sref(block).is_some());
    }
}
