//! Buffer annotations of a block: `storage_align` (padding a buffer's
//! strides, TVM's `buffer_dim_align` block annotation) and `set_scope`
//! (moving an allocated buffer to another storage scope), after TVM's
//! `block_annotate.cc`.

use super::access::{
    check_storage_scope, nth_access_buffer, require_allocated, AccessKind, ReplaceBuffer,
};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::ir::mutate::Mutator;
use crate::ir::{AttrValue, Block, BlockRealize, NodeId, StmtKind};

/// The block annotation `storage_align` writes.
pub const BUFFER_DIM_ALIGN: &str = "buffer_dim_align";

/// `sch.storage_align(block, buffer_index, axis, factor, offset)`: the
/// stride of dimension `axis` of the block's `buffer_index`-th written buffer
/// becomes `factor * k + offset` when the buffer is flattened.
pub fn storage_align(
    state: &mut ScheduleState,
    block: NodeId,
    buffer_index: i64,
    axis: i64,
    factor: i64,
    offset: i64,
) -> ScheduleResult<()> {
    let buffer = nth_access_buffer(state, block, buffer_index, AccessKind::Write)
        .map_err(|e| e.at_argument(1))?;
    if factor <= 0 {
        return Err(ScheduleError::new(
            codes::BAD_ALIGNMENT,
            format!("`factor` must be positive, found {factor}"),
            "pass the alignment in elements, e.g. `factor=32`",
        )
        .at_argument(3));
    }
    let rank = buffer.rank() as i64;
    if axis < -rank || axis >= rank {
        return Err(ScheduleError::new(
            codes::BAD_ALIGNMENT,
            format!(
                "`{}` has {rank} dimension{}, so `axis` must be in [{}, {rank}), found {axis}",
                buffer.name(),
                if rank == 1 { "" } else { "s" },
                -rank
            ),
            "pass the dimension whose stride is padded (usually the second to last, -2)",
        )
        .blame(
            buffer.span(),
            format!("`{}` is declared here", buffer.name()),
        )
        .at_argument(2));
    }
    let axis = if axis < 0 { axis + rank } else { axis };
    require_allocated(state, block, &buffer).map_err(|e| e.at_argument(1))?;
    let sref = state.sref(block).expect("checked by nth_access_buffer");
    let realize = sref.as_realize().expect("a block");
    let entry = |values: [i64; 4]| AttrValue::List(values.map(AttrValue::Int).to_vec());
    let new_entry = entry([buffer_index, axis, factor, offset]);
    let mut annotations = realize.block.annotations.clone();
    match annotations.iter_mut().find(|(k, _)| k == BUFFER_DIM_ALIGN) {
        Some((_, AttrValue::List(entries))) => {
            let same_dimension = |e: &AttrValue| match e {
                AttrValue::List(fields) => {
                    fields.first().and_then(AttrValue::as_int) == Some(buffer_index)
                        && fields.get(1).and_then(AttrValue::as_int) == Some(axis)
                }
                _ => false,
            };
            match entries.iter_mut().find(|e| same_dimension(e)) {
                Some(existing) => *existing = new_entry,
                None => entries.push(new_entry),
            }
        }
        Some(_) => {
            return Err(ScheduleError::new(
                codes::BAD_ALIGNMENT,
                format!(
                    "{} has a `{BUFFER_DIM_ALIGN}` annotation that is not a list of [buffer_index, axis, factor, offset]",
                    sref.describe()
                ),
                format!("remove the annotation with `sch.unannotate(block, \"{BUFFER_DIM_ALIGN}\")`"),
            )
            .blame(sref.location(), "the block"))
        }
        None => annotations.push((BUFFER_DIM_ALIGN.to_string(), AttrValue::List(vec![new_entry]))),
    }
    let new_stmt = sref.stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
        block: Block {
            annotations,
            ..realize.block.clone()
        },
        ..realize.clone()
    }));
    state.replace(block, new_stmt);
    Ok(())
}

/// `sch.set_scope(block, buffer_index, storage_scope)`: the block's
/// `buffer_index`-th written buffer, which a block must allocate, moves to
/// `storage_scope` (renamed `NAME_scope`, as TVM does).
pub fn set_scope(
    state: &mut ScheduleState,
    block: NodeId,
    buffer_index: i64,
    storage_scope: &str,
) -> ScheduleResult<()> {
    let buffer = nth_access_buffer(state, block, buffer_index, AccessKind::Write)
        .map_err(|e| e.at_argument(1))?;
    check_storage_scope(storage_scope).map_err(|e| e.at_argument(2))?;
    // As TVM: a buffer already in the scope is left alone, even a parameter.
    if buffer.scope() == storage_scope {
        return Ok(());
    }
    let site = require_allocated(state, block, &buffer).map_err(|e| e.at_argument(1))?;
    let new_buffer = super::cache_read_write::buffer_in_scope(&buffer, storage_scope);
    let site_stmt = state.sref(site).expect("a live block").stmt.clone();
    let new_stmt = ReplaceBuffer {
        from: buffer,
        to: new_buffer,
    }
    .mutate_stmt(&site_stmt);
    state.replace(site, new_stmt);
    Ok(())
}

/// The buffer-annotation primitives' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "storage_align",
        aliases: &[],
        params: &[
            required("block"),
            typed("buffer_index", "int"),
            typed("axis", "int"),
            typed("factor", "int"),
            typed("offset", "int"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Pads dimension `axis` of the block's `buffer_index`-th written buffer so that its stride is `factor * k + offset` when it is flattened (against shared-memory bank conflicts). The buffer must be allocated by a block.",
        apply: apply_storage_align,
    },
    Primitive {
        name: "set_scope",
        aliases: &[],
        params: &[
            required("block"),
            typed("buffer_index", "int"),
            typed("storage_scope", "str"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Moves the block's `buffer_index`-th written buffer, which a block must allocate, to `storage_scope` (renamed `NAME_scope`, as TVM does).",
        apply: apply_set_scope,
    },
];

fn apply_storage_align(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let buffer_index = run.int_arg(bound, 1, "buffer_index", None)?;
    let axis = run.int_arg(bound, 2, "axis", None)?;
    let factor = run.int_arg(bound, 3, "factor", None)?;
    let offset = run.int_arg(bound, 4, "offset", None)?;
    storage_align(run.state, block, buffer_index, axis, factor, offset)
        .map_err(|e| run.refused(bound, e))?;
    run.record(
        "storage_align",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer_index"), TraceArg::Int(buffer_index)),
            (Some("axis"), TraceArg::Int(axis)),
            (Some("factor"), TraceArg::Int(factor)),
            (Some("offset"), TraceArg::Int(offset)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

fn apply_set_scope(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let buffer_index = run.int_arg(bound, 1, "buffer_index", None)?;
    let scope = run.expect_str(bound, 2, "storage_scope")?;
    set_scope(run.state, block, buffer_index, &scope).map_err(|e| run.refused(bound, e))?;
    run.record(
        "set_scope",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer_index"), TraceArg::Int(buffer_index)),
            (Some("storage_scope"), TraceArg::Str(scope)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}
