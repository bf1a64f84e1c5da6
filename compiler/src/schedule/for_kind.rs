//! Loop kinds: `parallel`, `vectorize`, `bind` (to a GPU thread axis) and
//! `unroll`, with TVM's rules (`src/s_tir/schedule/primitive/for_kind.cc`):
//! a loop is parallelised only over data-parallel block iterators (or, for
//! `threadIdx.*`, reduction iterators too), above complete or reduction
//! blocks. tirc also refuses thread tags TVM would accept by mistake.

use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::scope::{complete_block_violation, reduction_block_violation, uses_var};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::ir::stmt::THREAD_TAGS;
use crate::ir::{For, ForKind, IterKind, NodeId, StmtKind};

/// How a loop is parallelised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parallelism<'a> {
    Parallel,
    Vectorize,
    Bind(&'a str),
}

impl Parallelism<'_> {
    /// The verb for messages ("cannot parallelize loop `i`").
    fn verb(self) -> &'static str {
        match self {
            Parallelism::Parallel => "parallelize",
            Parallelism::Vectorize => "vectorize",
            Parallelism::Bind(_) => "bind",
        }
    }
    /// True when reduction iterators may be bound too: cross-thread
    /// reduction over `threadIdx.x/y/z`.
    fn allows_reduction(self) -> bool {
        matches!(self, Parallelism::Bind(tag) if tag.starts_with("threadIdx."))
    }
}

const COMPLETE_CONDITIONS: &str = "a complete block: 1) every block iterator is spatial; 2) it is the only writer of its outputs under the loop; 3) it reads no buffer it writes";
const REDUCTION_CONDITIONS: &str = "a reduction block: 1) it has `T.init()`; 2) its bindings are affine; 3) its iterators are spatial or reduction; 4) it is the only writer of its outputs under the loop; 5) no reduction iterator indexes an output";

/// `sch.parallel(loop)`.
pub fn parallel(state: &mut ScheduleState, loop_id: NodeId) -> ScheduleResult<()> {
    parallelize(state, loop_id, Parallelism::Parallel)
}

/// `sch.vectorize(loop)`.
pub fn vectorize(state: &mut ScheduleState, loop_id: NodeId) -> ScheduleResult<()> {
    parallelize(state, loop_id, Parallelism::Vectorize)
}

/// `sch.bind(loop, thread_axis)`: only `blockIdx.*`, `threadIdx.*` and
/// `vthread*` axes are accepted.
pub fn bind(state: &mut ScheduleState, loop_id: NodeId, thread_axis: &str) -> ScheduleResult<()> {
    if !THREAD_TAGS.contains(&thread_axis) {
        let suggestion = crate::frontend::suggest(thread_axis, THREAD_TAGS.iter().copied());
        return Err(ScheduleError::new(
            codes::UNKNOWN_THREAD_TAG,
            format!("`{thread_axis}` is not a thread axis"),
            match suggestion {
                Some(s) => format!("did you mean `{s}`? (thread axes are blockIdx.x/y/z, threadIdx.x/y/z and vthread.x/y/z)"),
                None => "thread axes are blockIdx.x/y/z, threadIdx.x/y/z and vthread.x/y/z".to_string(),
            },
        )
        .note("TVM 0.27 accepts some misspelled axes (such as `threadIdx.w`) and fails later; tirc refuses them here")
        .at_argument(1));
    }
    parallelize(state, loop_id, Parallelism::Bind(thread_axis))
}

/// `sch.unroll(loop)`: always allowed; a thread binding is dropped.
pub fn unroll(state: &mut ScheduleState, loop_id: NodeId) -> ScheduleResult<()> {
    let sref = state.sref(loop_id).ok_or_else(removed)?;
    let for_loop = sref.as_for().ok_or_else(not_a_loop)?;
    let new_stmt = sref.stmt.with_kind(StmtKind::For(For {
        kind: ForKind::Unrolled,
        thread: None,
        ..for_loop.clone()
    }));
    state.replace(loop_id, new_stmt);
    Ok(())
}

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop is no longer in the program",
        "get the loop again",
    )
}

fn not_a_loop() -> ScheduleError {
    ScheduleError::new(codes::WRONG_KIND, "expected a loop", "pass a loop handle")
}

fn parallelize(
    state: &mut ScheduleState,
    loop_id: NodeId,
    how: Parallelism<'_>,
) -> ScheduleResult<()> {
    let sref = state.sref(loop_id).ok_or_else(removed)?;
    let for_loop = sref.as_for().ok_or_else(not_a_loop)?;
    let loop_name = for_loop.loop_var.name();
    // Step 1: the subtree has compact dataflow: every block directly under
    // the loop is a complete block or a reduction block of the subtree.
    for block_id in state.child_blocks(loop_id) {
        let complete = complete_block_violation(state, block_id, loop_id);
        let reduction = reduction_block_violation(state, block_id, loop_id);
        if complete != 0 && reduction != 0 {
            let block_sref = state.sref(block_id);
            let block_name = block_sref
                .and_then(|s| s.as_block())
                .map(|b| b.name.clone())
                .unwrap_or_default();
            let mut error = ScheduleError::new(
                codes::NOT_COMPACT_DATAFLOW,
                format!(
                    "cannot {}: block `{block_name}` under loop `{loop_name}` is neither a complete block nor a reduction block",
                    how.verb()
                ),
                "only loops above complete or reduction blocks can be parallelized, vectorized or bound",
            )
            .blame(sref.location(), format!("loop `{loop_name}`"))
            .note(format!("it violates condition {complete} of {COMPLETE_CONDITIONS}"))
            .note(format!("it violates condition {reduction} of {REDUCTION_CONDITIONS}"));
            if let Some(block_sref) = block_sref {
                error = error.blame(block_sref.location(), format!("block `{block_name}`"));
            }
            return Err(error.at_argument(0));
        }
    }
    // Step 2: every block iterator whose binding uses the loop variable is
    // data parallel (or a reduction, for cross-thread reduction).
    for block_id in state.descendant_blocks(loop_id) {
        let Some(block_sref) = state.sref(block_id) else {
            continue;
        };
        let Some(realize) = block_sref.as_realize() else {
            continue;
        };
        for (iter_var, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
            if !uses_var(binding, &for_loop.loop_var) {
                continue;
            }
            let allowed = iter_var.kind == IterKind::Spatial
                || (iter_var.kind == IterKind::Reduce && how.allows_reduction());
            if !allowed {
                let kind = iter_var.kind.axis_name();
                let help = match how {
                    Parallelism::Bind(_) if iter_var.kind == IterKind::Reduce => {
                        "a reduction iterator can only be bound to `threadIdx.x/y/z` (cross-thread reduction)".to_string()
                    }
                    _ => format!(
                        "{} only loops that drive spatial block iterators; reorder the {kind} loop inside first",
                        how.verb()
                    ),
                };
                return Err(ScheduleError::new(
                    codes::NOT_DATA_PARALLEL,
                    format!(
                        "cannot {} loop `{loop_name}`: it drives the {kind} iterator `{}` of block `{}`",
                        how.verb(),
                        iter_var.var.name(),
                        realize.block.name
                    ),
                    help,
                )
                .blame(sref.location(), format!("loop `{loop_name}`"))
                .blame(block_sref.location(), format!("block `{}`", realize.block.name))
                .at_argument(0));
            }
        }
    }
    // Step 3: the new loop.
    let (kind, thread) = match how {
        Parallelism::Parallel => (ForKind::Parallel, None),
        Parallelism::Vectorize => (ForKind::Vectorized, None),
        Parallelism::Bind(tag) => (ForKind::ThreadBinding, Some(tag.to_string())),
    };
    let new_stmt = sref.stmt.with_kind(StmtKind::For(For {
        kind,
        thread,
        ..for_loop.clone()
    }));
    state.replace(loop_id, new_stmt);
    Ok(())
}

/// The loop-kind primitives' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "parallel",
        aliases: &[],
        params: &[required("loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Runs the iterations of a loop on a CPU thread pool. The loop must bind only spatial block iterators, and it must not carry a dependence.",
        apply: apply_parallel,
    },
    Primitive {
        name: "vectorize",
        aliases: &[],
        params: &[required("loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Turns the iterations of a loop into vector lanes. The loop must not carry a dependence.",
        apply: apply_vectorize,
    },
    Primitive {
        name: "unroll",
        aliases: &[],
        params: &[required("loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Marks a loop to be unrolled by code generation.",
        apply: apply_unroll,
    },
    Primitive {
        name: "bind",
        aliases: &[],
        params: &[required("loop"), typed("thread_axis", "str")],
        varargs: None,
        keyword_only: &[],
        doc: "Binds a loop to a GPU thread axis such as `\"blockIdx.x\"` or `\"threadIdx.x\"`.",
        apply: apply_bind,
    },
];

fn apply_loop_kind(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    change: fn(&mut ScheduleState, NodeId) -> ScheduleResult<()>,
) -> Eval<Value> {
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "loop")?;
    change(run.state, loop_id).map_err(|e| run.refused(bound, e))?;
    run.record(
        name,
        vec![(Some("loop"), TraceArg::Rv(loop_rv))],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

fn apply_parallel(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_loop_kind(run, bound, "parallel", parallel)
}

fn apply_vectorize(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_loop_kind(run, bound, "vectorize", vectorize)
}

fn apply_unroll(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_loop_kind(run, bound, "unroll", unroll)
}

fn apply_bind(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "loop")?;
    let axis = run.expect_str(bound, 1, "thread_axis")?;
    bind(run.state, loop_id, &axis).map_err(|e| run.refused(bound, e))?;
    run.record(
        "bind",
        vec![
            (Some("loop"), TraceArg::Rv(loop_rv)),
            (Some("thread_axis"), TraceArg::Str(axis)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state, unchanged, MATMUL, ROW_SUM};

    #[test]
    fn parallel_and_vectorize_spatial_loops_only() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        parallel(&mut s, loops[0]).unwrap();
        let before = s.clone();
        let error = vectorize(&mut s, loops[2]).unwrap_err();
        assert_eq!(error.code, codes::NOT_DATA_PARALLEL);
        assert!(
            error.message.contains("reduce iterator `vk`"),
            "{}",
            error.message
        );
        assert!(unchanged(&before, &s));
        vectorize(&mut s, loops[1]).unwrap();
        let text = printed(&s);
        assert!(text.contains("for i in T.parallel(128):"), "{text}");
        assert!(text.contains("for j in T.vectorized(128):"), "{text}");
    }

    #[test]
    fn reduction_loops_bind_to_thread_idx_only() {
        let s0 = state(ROW_SUM);
        let (_, loops) = block_and_loops(&s0, "B");
        let mut s = s0.clone();
        let error = bind(&mut s, loops[1], "blockIdx.x").unwrap_err();
        assert_eq!(error.code, codes::NOT_DATA_PARALLEL);
        assert!(unchanged(&s0, &s));
        bind(&mut s, loops[1], "threadIdx.x").unwrap();
        bind(&mut s, loops[0], "blockIdx.x").unwrap();
        let text = printed(&s);
        assert!(
            text.contains("for k in T.thread_binding(256, thread=\"threadIdx.x\"):"),
            "{text}"
        );
    }

    #[test]
    fn unknown_thread_tags_are_refused() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        for tag in ["threadIdx.w", "threadidx.x", "blockIdx", "warp"] {
            let error = bind(&mut s, loops[0], tag).unwrap_err();
            assert_eq!(error.code, codes::UNKNOWN_THREAD_TAG, "{tag}");
        }
        for tag in [
            "vthread.x",
            "vthread.y",
            "vthread.z",
            "blockIdx.z",
            "threadIdx.z",
        ] {
            let mut fresh = state(MATMUL);
            let (_, loops) = block_and_loops(&fresh, "C");
            bind(&mut fresh, loops[0], tag).unwrap();
        }
    }

    #[test]
    fn unroll_drops_a_thread_binding() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        bind(&mut s, loops[0], "blockIdx.x").unwrap();
        unroll(&mut s, loops[0]).unwrap();
        let text = printed(&s);
        assert!(text.contains("for i in T.unroll(128):"), "{text}");
        assert!(!text.contains("thread_binding"), "{text}");
    }
}
