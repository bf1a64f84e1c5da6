//! Buffer annotations of a block: `storage_align` (padding a buffer's
//! strides, TVM's `buffer_dim_align` block annotation), `set_scope`
//! (moving an allocated buffer to another storage scope) and
//! `unsafe_set_dtype` (storing an allocated buffer in another type), after
//! TVM's `block_annotate.cc`.

use super::access::{
    check_storage_scope, nth_access_buffer, require_allocated, AccessKind, ReplaceBuffer,
};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::ir::identity::BufferMap;
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, Mutator,
};
use crate::ir::{
    AttrValue, Block, BlockRealize, Buffer, DataType, Expr, ExprKind, MatchBufferRegion, NodeId,
    Stmt, StmtKind, Var,
};

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

/// `sch.unsafe_set_dtype(block, buffer_index, dtype)`: the block's
/// `buffer_index`-th written buffer, which a block must allocate, holds
/// `dtype`: every store into it converts to `dtype` and every load converts
/// back to the old type, as TVM does. Unsafe: a narrower type loses what
/// it cannot hold.
pub fn unsafe_set_dtype(
    state: &mut ScheduleState,
    block: NodeId,
    buffer_index: i64,
    dtype: &str,
) -> ScheduleResult<()> {
    let buffer = nth_access_buffer(state, block, buffer_index, AccessKind::Write)
        .map_err(|e| e.at_argument(1))?;
    let target = dtype.parse::<DataType>().map_err(|_| {
        ScheduleError::new(
            codes::BAD_DTYPE,
            format!("`{dtype}` is not a data type"),
            "pass a type such as \"float16\", \"bfloat16\", \"int8\" or \"float32\"",
        )
        .at_argument(2)
    })?;
    if target == buffer.dtype() {
        return Ok(());
    }
    let site = require_allocated(state, block, &buffer).map_err(|e| e.at_argument(1))?;
    let mut mutator = ChangeDType {
        source: buffer.dtype(),
        target,
        replaced: BufferMap::default(),
    };
    mutator
        .replaced
        .insert(buffer.clone(), with_dtype(&buffer, target));
    let site_stmt = state.sref(site).expect("a live block").stmt.clone();
    let new_stmt = mutator.mutate_stmt(&site_stmt);
    state.replace(site, new_stmt);
    Ok(())
}

/// The buffer holding `dtype` instead (the same name, a new data pointer).
fn with_dtype(buffer: &Buffer, dtype: DataType) -> Buffer {
    buffer.with(|node| {
        node.data = Var::pointer(&node.name, dtype, &node.scope, node.span);
        node.dtype = dtype;
    })
}

/// Replaces a buffer (and the buffers matched on it) by ones of another
/// type, converting what is stored and loaded (TVM's `DTypeMutator`).
struct ChangeDType {
    source: DataType,
    target: DataType,
    replaced: BufferMap<Buffer>,
}

impl Mutator for ChangeDType {
    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        self.replaced
            .get(buffer)
            .cloned()
            .unwrap_or_else(|| buffer.clone())
    }

    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let new_expr = mutate_expr_children(self, expr);
        match new_expr.kind() {
            ExprKind::Load(load) if self.replaced.values().any(|b| *b == load.buffer) => {
                let lanes = new_expr.dtype().lanes;
                Expr::cast(self.source.with_lanes(lanes), new_expr)
            }
            _ => new_expr,
        }
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let new_stmt = mutate_stmt_children(self, stmt);
        match new_stmt.kind() {
            StmtKind::BufferStore(store) if self.replaced.values().any(|b| *b == store.buffer) => {
                let lanes = store.value.dtype().lanes;
                let mut store = store.clone();
                store.value = Expr::cast(self.target.with_lanes(lanes), store.value);
                new_stmt.with_kind(StmtKind::BufferStore(store))
            }
            _ => new_stmt,
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        // A buffer matched on a replaced one holds the new type too.
        for matched in &block.match_buffers {
            if self.replaced.contains_key(&matched.source.buffer) {
                let new_matched = with_dtype(&matched.buffer, self.target);
                self.replaced.insert(matched.buffer.clone(), new_matched);
            }
        }
        let mut new_block = mutate_block_children(self, block);
        new_block.match_buffers = new_block
            .match_buffers
            .iter()
            .map(|m| MatchBufferRegion {
                buffer: self.mutate_buffer(&m.buffer),
                source: m.source.clone(),
            })
            .collect();
        for allocated in &mut new_block.alloc_buffers {
            *allocated = self.mutate_buffer(allocated);
        }
        new_block
    }
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
    Primitive {
        name: "unsafe_set_dtype",
        aliases: &[],
        params: &[
            required("block"),
            typed("buffer_index", "int"),
            typed("dtype", "str"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Stores the block's `buffer_index`-th written buffer, which a block must allocate, in `dtype`: each store into it converts to `dtype` and each load converts back, as TVM does. Unsafe: a narrower type (`float16` for a `float32` sum) loses what it cannot hold.",
        apply: apply_unsafe_set_dtype,
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

fn apply_unsafe_set_dtype(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let buffer_index = run.int_arg(bound, 1, "buffer_index", None)?;
    let dtype = run.expect_str(bound, 2, "dtype")?;
    unsafe_set_dtype(run.state, block, buffer_index, &dtype).map_err(|e| run.refused(bound, e))?;
    run.record(
        "unsafe_set_dtype",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer_index"), TraceArg::Int(buffer_index)),
            (Some("dtype"), TraceArg::Str(dtype)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}
