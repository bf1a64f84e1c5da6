//! `read_at` and `write_at`, after TVM's `read_write_at.cc`: a copy of the
//! part of a buffer the statements of one loop body read (write), made into
//! a buffer of another storage scope by one block with its own loops inside,
//! and those statements redirected to the copy. The copy block is marked
//! `auto_copy`, as TVM marks it, for a later pass to lower it.

use super::access::{check_storage_scope, nth_access_buffer, AccessKind, ReplaceBuffer};
use super::cache_read_write::{buffer_in_scope, check_stage_in_bounds, for_each_child};
use super::compute_inline::replace_node;
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{required, typed, Primitive};
use super::region::{bindings, clamp_to_extent, loop_domains, range_set, substitute_region};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::arith::{build, Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{substitute, Mutator};
use crate::ir::{
    AttrValue, Block, BlockRealize, Buffer, BufferRegion, BufferStore, DataType, Expr, ExprKind,
    For, ForKind, IterKind, IterVar, NodeId, Range, Stmt, StmtKind, Var,
};
use crate::source::Span;

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop or block is no longer in the program",
        "get it again",
    )
}

/// `sch.read_at(loop, block, read_buffer_index, storage_scope)`: the part of
/// the block's read buffer that the statements of `loop`'s body read, from
/// the first statement that reads it on, is copied into `<buffer>_<scope>`
/// by a block placed before that statement, and those statements read the
/// copy. Returns the copy block.
pub fn read_at(
    state: &mut ScheduleState,
    loop_id: NodeId,
    block: NodeId,
    buffer_index: i64,
    storage_scope: &str,
) -> ScheduleResult<NodeId> {
    read_write_at(
        state,
        loop_id,
        block,
        buffer_index,
        storage_scope,
        AccessKind::Read,
    )
}

/// `sch.write_at(loop, block, write_buffer_index, storage_scope)`: the
/// statements of `loop`'s body up to the last one that writes the block's
/// write buffer write `<buffer>_<scope>` instead, and a block placed after
/// that statement copies what they wrote back. Returns the copy block.
pub fn write_at(
    state: &mut ScheduleState,
    loop_id: NodeId,
    block: NodeId,
    buffer_index: i64,
    storage_scope: &str,
) -> ScheduleResult<NodeId> {
    read_write_at(
        state,
        loop_id,
        block,
        buffer_index,
        storage_scope,
        AccessKind::Write,
    )
}

/// The blocks a statement holds, outermost only, in program order.
fn outer_blocks(stmt: &Stmt, found: &mut Vec<BlockRealize>) {
    match stmt.kind() {
        StmtKind::BlockRealize(realize) => found.push(realize.clone()),
        StmtKind::For(f) => outer_blocks(&f.body, found),
        StmtKind::Seq(items) => items.iter().for_each(|item| outer_blocks(item, found)),
        _ => for_each_child(stmt, &mut |child| outer_blocks(child, found)),
    }
}

fn read_write_at(
    state: &mut ScheduleState,
    loop_id: NodeId,
    block: NodeId,
    buffer_index: i64,
    storage_scope: &str,
    kind: AccessKind,
) -> ScheduleResult<NodeId> {
    let source =
        nth_access_buffer(state, block, buffer_index, kind).map_err(|e| e.at_argument(2))?;
    check_storage_scope(storage_scope).map_err(|e| e.at_argument(3))?;
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    let target_loop = loop_sref.as_for().ok_or_else(removed)?.clone();
    let scope = super::access::stage_pipeline_scope(state, loop_id)?;
    let copy = buffer_in_scope(&source, storage_scope);
    let statements: Vec<Stmt> = match target_loop.body.kind() {
        StmtKind::Seq(items) => items.clone(),
        _ => vec![target_loop.body.clone()],
    };
    // Per statement: whether it reads or writes the buffer, and the regions
    // of the accesses that are copied, relaxed to the loop.
    let mut reads_at = Vec::new();
    let mut writes_at = Vec::new();
    let mut relaxed: Vec<Vec<IntSet>> = Vec::new();
    let analyzer = Analyzer::new();
    let mut blocks_in_order = Vec::new();
    for (position, statement) in statements.iter().enumerate() {
        let mut blocks = Vec::new();
        outer_blocks(statement, &mut blocks);
        for realize in &blocks {
            let reads = realize.block.reads.iter().any(|r| r.buffer == source);
            let writes = realize.block.writes.iter().any(|w| w.buffer == source);
            if reads {
                reads_at.push(position);
            }
            if writes {
                writes_at.push(position);
            }
            let regions = kind.regions(&realize.block);
            let parent = state.sref(realize.block.id).and_then(|s| s.parent);
            let domains = loop_domains(state, parent, loop_id, storage_scope);
            let binding = bindings(realize);
            for region in regions.iter().filter(|r| r.buffer == source) {
                let substituted = substitute_region(region, &binding);
                relaxed.push(
                    substituted
                        .region
                        .iter()
                        .map(|range| range_set(&analyzer, range, &domains))
                        .collect(),
                );
            }
            blocks_in_order.push((position, realize.clone()));
        }
    }
    let refuse = |message: String, help: &str| {
        ScheduleError::new(codes::BAD_READ_WRITE_AT, message, help)
            .blame(loop_sref.location(), "the loop")
            .at_argument(0)
    };
    let verb = kind.noun();
    let (insert_at, redirected) = match kind {
        AccessKind::Read => {
            let Some(&first_read) = reads_at.first() else {
                return Err(refuse(
                    format!(
                        "nothing in the body of {} reads `{}`",
                        loop_sref.describe(),
                        source.name()
                    ),
                    "pass a loop around the blocks that read the buffer",
                ));
            };
            if writes_at.iter().any(|&w| w >= first_read) {
                return Err(refuse(
                    format!(
                        "the body of {} writes `{}` at or after its first read of it, so a copy made before that read would miss what is written",
                        loop_sref.describe(),
                        source.name()
                    ),
                    "pass a loop whose body only reads the buffer after its last write",
                ));
            }
            (first_read, first_read..statements.len())
        }
        AccessKind::Write => {
            let Some(&last_write) = writes_at.last() else {
                return Err(refuse(
                    format!(
                        "nothing in the body of {} writes `{}`",
                        loop_sref.describe(),
                        source.name()
                    ),
                    "pass a loop around the blocks that write the buffer",
                ));
            };
            if reads_at.iter().any(|&r| r > last_write) {
                return Err(refuse(
                    format!(
                        "the body of {} reads `{}` after its last write of it, where the copy back has not run",
                        loop_sref.describe(),
                        source.name()
                    ),
                    "pass a loop whose body reads the buffer only up to its last write",
                ));
            }
            // The copy starts empty: a block that reads the buffer before any
            // block of the loop body wrote it would read nothing (TVM reads
            // the copy anyway).
            let mut written = false;
            for (_, realize) in blocks_in_order.iter().filter(|(p, _)| *p <= last_write) {
                let reads = realize.block.reads.iter().any(|r| r.buffer == source);
                if reads && !written && realize.block.init.is_none() {
                    return Err(refuse(
                        format!(
                            "block `{}` reads `{}` before anything in the body of {} writes it, and the copy would not hold those values",
                            realize.block.name,
                            source.name(),
                            loop_sref.describe()
                        ),
                        "pass a loop whose body writes the buffer before reading it (a reduction with `T.init()`)",
                    ));
                }
                written |= realize.block.writes.iter().any(|w| w.buffer == source);
            }
            (last_write + 1, 0..last_write + 1)
        }
    };
    // The copied region: the union over the accesses, per dimension, kept
    // inside the buffer where it provably reaches past it (a padding block
    // reads `A[i - 1]` only where its condition holds; TVM copies `A[-1]`).
    let rank = source.shape().len();
    let mut domain = Vec::with_capacity(rank);
    let loop_analyzer = state.analyzer_at(loop_id);
    for (dim, extent) in source.shape().iter().enumerate() {
        let sets: Vec<IntSet> = relaxed.iter().filter_map(|r| r.get(dim).cloned()).collect();
        let union = clamp_to_extent(&loop_analyzer, crate::arith::int_set::union(&sets), extent);
        let (Some(lo), Some(hi)) = (union.min(), union.max()) else {
            return Err(refuse(
                format!(
                    "the region of `{}` the body {verb} cannot be bounded in dimension {dim}",
                    source.name()
                ),
                "pass a loop whose blocks' accesses are affine in the loops below it",
            ));
        };
        let min = analyzer.simplify(lo);
        let extent = analyzer.simplify(&build::sub(
            build::add(hi.clone(), build::int(1, hi.dtype())),
            min.clone(),
        ));
        domain.push(Range::new(min, extent));
    }
    check_stage_in_bounds(
        state,
        loop_id,
        &BufferRegion {
            buffer: source.clone(),
            region: domain.clone(),
        },
    )?;
    let (from, to) = match kind {
        AccessKind::Read => (&source, &copy),
        AccessKind::Write => (&copy, &source),
    };
    let copy_block = copy_block(state, loop_id, from, to, domain, copy.name());
    let copy_id = match copy_block.kind() {
        StmtKind::BlockRealize(r) => r.block.id,
        _ => unreachable!("copy_block makes a block realize"),
    };
    let mut replacer = ReplaceBuffer {
        from: source.clone(),
        to: copy.clone(),
    };
    let mut new_statements: Vec<Stmt> = statements
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if redirected.contains(&i) {
                replacer.mutate_stmt(s)
            } else {
                s.clone()
            }
        })
        .collect();
    new_statements.insert(insert_at, copy_block);
    let new_loop = Stmt::for_loop(For {
        body: Stmt::seq(new_statements),
        ..target_loop
    });
    let scope_sref = state.sref(scope).ok_or_else(removed)?;
    let scope_stmt = scope_sref.stmt.clone();
    let with_loop = replace_node(&scope_stmt, loop_id, &new_loop);
    let StmtKind::BlockRealize(realize) = with_loop.kind() else {
        return Err(removed());
    };
    let mut scope_block = realize.block.clone();
    scope_block.alloc_buffers.push(copy);
    let new_scope = with_loop.with_kind(StmtKind::BlockRealize(BlockRealize {
        block: scope_block,
        ..realize.clone()
    }));
    state.replace(scope, new_scope);
    state.update_scope_flags(scope);
    Ok(copy_id)
}

/// TVM's copy block: one iterator per loop (from `loop` up) the region uses,
/// bound to it, and serial loops `ax0, ax1, ...` over the region inside.
fn copy_block(
    state: &ScheduleState,
    loop_id: NodeId,
    from: &Buffer,
    to: &Buffer,
    domain: Vec<Range>,
    name: &str,
) -> Stmt {
    // The loops from `loop` up to the enclosing block.
    let mut loop_ranges: VarMap<Range> = VarMap::default();
    let mut current = Some(loop_id);
    while let Some(f) = current
        .and_then(|id| state.sref(id))
        .and_then(|s| s.as_for())
    {
        loop_ranges.insert(f.loop_var.clone(), f.range());
        current = current.and_then(|id| state.sref(id)).and_then(|s| s.parent);
    }
    let mut map: VarMap<Expr> = VarMap::default();
    let mut iter_vars = Vec::new();
    let mut iter_values = Vec::new();
    let mut domain = domain;
    for range in &mut domain {
        for expr in [&range.min, &range.extent] {
            crate::ir::visit::walk_exprs(expr, &mut |e| {
                let ExprKind::Var(v) = e.kind() else {
                    return;
                };
                if map.contains_key(v) {
                    return;
                }
                let Some(loop_range) = loop_ranges.get(v) else {
                    return;
                };
                let var = Var::new(format!("v{}", iter_vars.len()), v.dtype(), Span::NONE);
                map.insert(v.clone(), var.to_expr());
                iter_values.push(v.to_expr());
                iter_vars.push(IterVar {
                    var,
                    dom: loop_range.clone(),
                    kind: IterKind::Spatial,
                });
            });
        }
        *range = Range::new(
            substitute(&range.min, &map),
            substitute(&range.extent, &map),
        );
    }
    // TVM's loop variables are int32 whatever the region's type: an int64
    // extent becomes int32 (a constant) or is cast, and indices cast back.
    let loop_vars: Vec<Var> = (0..domain.len())
        .map(|i| Var::new(format!("ax{i}"), DataType::int32(), Span::NONE))
        .collect();
    let indices: Vec<Expr> = domain
        .iter()
        .zip(&loop_vars)
        .map(|(range, var)| build::add(range.min.clone(), var.to_expr()))
        .collect();
    let mut body = Stmt::new(
        StmtKind::BufferStore(BufferStore {
            buffer: to.clone(),
            value: Expr::load(from, indices.clone()),
            indices,
        }),
        Span::NONE,
    );
    for (range, var) in domain.iter().zip(&loop_vars).rev() {
        body = Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: var.clone(),
            min: build::int(0, var.dtype()),
            extent: match range.extent.as_int() {
                Some(value) => build::int(value, var.dtype()),
                None => crate::ir::operators::cast(var.dtype(), range.extent.clone()),
            },
            kind: ForKind::Serial,
            thread: None,
            annotations: Vec::new(),
            body,
        });
    }
    Stmt::block_realize(BlockRealize {
        iter_values,
        predicate: Expr::bool(true),
        block: Block {
            id: NodeId::fresh(),
            name: name.to_string(),
            iter_vars,
            reads: vec![BufferRegion {
                buffer: from.clone(),
                region: domain.clone(),
            }],
            writes: vec![BufferRegion {
                buffer: to.clone(),
                region: domain,
            }],
            init: None,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: vec![("auto_copy".to_string(), AttrValue::Bool(true))],
            body,
        },
    })
}

/// The descriptors of `read_at` and `write_at`.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "read_at",
        aliases: &[],
        params: &[
            required("loop"),
            required("block"),
            typed("read_buffer_index", "int"),
            typed("storage_scope", "str"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Copies the part of the block's `read_buffer_index`-th read buffer that `loop`'s body reads into a buffer of `storage_scope` (`A_shared`), by a block marked `auto_copy` placed before the first statement that reads it; those statements read the copy. Returns the copy block.",
        apply: apply_read_at,
    },
    Primitive {
        name: "write_at",
        aliases: &[],
        params: &[
            required("loop"),
            required("block"),
            typed("write_buffer_index", "int"),
            typed("storage_scope", "str"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Makes the statements of `loop`'s body up to the last that writes the block's `write_buffer_index`-th write buffer write a buffer of `storage_scope` instead, copied back by a block marked `auto_copy` placed after them. Returns the copy block.",
        apply: apply_write_at,
    },
];

fn apply_read_at(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply(run, bound, "read_at", "read_buffer_index", read_at)
}

fn apply_write_at(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply(run, bound, "write_at", "write_buffer_index", write_at)
}

fn apply(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    index_param: &'static str,
    primitive: fn(&mut ScheduleState, NodeId, NodeId, i64, &str) -> ScheduleResult<NodeId>,
) -> Eval<Value> {
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "loop")?;
    let (block_rv, block) = run.block_arg(bound, 1, "block", true)?;
    let index = run.int_arg(bound, 2, index_param, None)?;
    let scope = run.expect_str(bound, 3, "storage_scope")?;
    let stage =
        primitive(run.state, loop_id, block, index, &scope).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Block, stage);
    run.record(
        name,
        vec![
            (Some("loop"), TraceArg::Rv(loop_rv)),
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some(index_param), TraceArg::Int(index)),
            (Some("storage_scope"), TraceArg::Str(scope)),
        ],
        Outputs::Single(rv),
    );
    Ok(Value::Block(rv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state};

    const CHAIN: &str = r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for io in range(8):
        for ii in range(8):
            with T.block("B"):
                vi = T.axis.spatial(64, io * 8 + ii)
                B[vi] = A[vi] * T.float32(2.0)
        for ii in range(8):
            with T.block("C"):
                vi = T.axis.spatial(64, io * 8 + ii)
                C[vi] = B[vi] + T.float32(1.0)
"#;

    #[test]
    fn read_at_copies_the_rows_one_iteration_reads() {
        let mut s = state(CHAIN);
        let (c, loops) = block_and_loops(&s, "C");
        let copy = read_at(&mut s, loops[0], c, 0, "local").unwrap();
        let text = printed(&s);
        assert!(
            text.contains("B_local = T.alloc_buffer((64,), scope=\"local\")"),
            "{text}"
        );
        assert!(text.contains("T.reads(B[v0 * 8:v0 * 8 + 8])"), "{text}");
        assert!(
            text.contains("C[vi] = B_local[vi] + T.float32(1.0)"),
            "{text}"
        );
        // The producer still writes the original buffer.
        assert!(text.contains("B[vi] = A[vi] * T.float32(2.0)"), "{text}");
        assert_eq!(s.sref(copy).unwrap().as_block().unwrap().name, "B_local");
    }

    #[test]
    fn write_at_before_a_later_read_is_refused_and_changes_nothing() {
        let mut s = state(CHAIN);
        let (b, loops) = block_and_loops(&s, "B");
        let before = printed(&s);
        let error = write_at(&mut s, loops[0], b, 0, "local").unwrap_err();
        assert_eq!(error.code, codes::BAD_READ_WRITE_AT);
        assert!(
            error.message.contains("after its last write"),
            "{}",
            error.message
        );
        assert_eq!(before, printed(&s));
    }
}
