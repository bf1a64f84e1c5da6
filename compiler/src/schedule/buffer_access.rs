//! A block's declared accesses, written by hand: `annotate_buffer_access`
//! (a region in place of the one inferred, marked so that compaction keeps
//! it) and `unsafe_hide_buffer_access` (regions dropped from `T.reads` or
//! `T.writes`), after TVM's `annotate_buffer_access.cc` and
//! `hide_buffer_access.cc`. Neither checks the new regions against the
//! body: that is the user's promise, as in TVM.

use super::access::{nth_access_buffer, AccessKind};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::layout_transformation::index_expr;
use super::primitive::{required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Lambda, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::arith::Analyzer;
use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::{operators, AttrValue, Block, BlockRealize, BufferRegion, Expr, NodeId, Range};
use crate::ir::{StmtKind, Var};
use crate::printer::expr_to_string;
use crate::source::Span;
use tirc_grammar::ast;

/// The block annotation listing the read regions written by hand.
pub const EXPLICIT_READ_REGION: &str = "explicit_read_region";
/// The block annotation listing the write regions written by hand.
pub const EXPLICIT_WRITE_REGION: &str = "explicit_write_region";

/// `"read"` or `"write"`, as both primitives take it.
fn access_kind(buf_type: &str) -> ScheduleResult<AccessKind> {
    match buf_type {
        "read" => Ok(AccessKind::Read),
        "write" => Ok(AccessKind::Write),
        other => Err(ScheduleError::new(
            codes::BAD_BUFFER_ACCESS,
            format!("the buffer type must be \"read\" or \"write\", found \"{other}\""),
            "pass \"read\" for `T.reads`, \"write\" for `T.writes`",
        )),
    }
}

/// The block with its reads or writes replaced.
fn with_regions(
    realize: &BlockRealize,
    kind: AccessKind,
    regions: Vec<BufferRegion>,
    annotations: crate::ir::Annotations,
) -> BlockRealize {
    let block = &realize.block;
    let (reads, writes) = match kind {
        AccessKind::Read => (regions, block.writes.clone()),
        AccessKind::Write => (block.reads.clone(), regions),
    };
    BlockRealize {
        block: Block {
            reads,
            writes,
            annotations,
            ..block.clone()
        },
        ..realize.clone()
    }
}

/// `sch.unsafe_hide_buffer_access(block, buf_type, buf_index_array)`: the
/// block's `buf_type` regions at these positions are dropped, so that
/// dependence analysis no longer sees them.
pub fn unsafe_hide_buffer_access(
    state: &mut ScheduleState,
    block: NodeId,
    buf_type: &str,
    indices: &[i64],
) -> ScheduleResult<()> {
    let kind = access_kind(buf_type).map_err(|e| e.at_argument(1))?;
    let sref = state.sref(block).expect("a live block handle");
    let realize = sref.as_realize().expect("a block handle names a block");
    let regions = kind.regions(&realize.block);
    if let Some(bad) = indices
        .iter()
        .find(|&&i| usize::try_from(i).map_or(true, |i| i >= regions.len()))
    {
        return Err(ScheduleError::new(
            codes::BAD_BUFFER_ACCESS,
            format!(
                "{} {} {} region{}, so there is no region {bad}",
                sref.describe(),
                if kind == AccessKind::Read {
                    "reads"
                } else {
                    "writes"
                },
                regions.len(),
                if regions.len() == 1 { "" } else { "s" }
            ),
            if regions.is_empty() {
                "there is nothing to hide: pass `[]`".to_string()
            } else {
                format!("pass positions from 0 to {}", regions.len() - 1)
            },
        )
        .blame(sref.location(), "the block")
        .at_argument(2));
    }
    let kept: Vec<BufferRegion> = regions
        .iter()
        .enumerate()
        .filter(|(i, _)| !indices.contains(&(*i as i64)))
        .map(|(_, r)| r.clone())
        .collect();
    let new_realize = with_regions(realize, kind, kept, realize.block.annotations.clone());
    let new_stmt = sref.stmt.with_kind(StmtKind::BlockRealize(new_realize));
    state.replace(block, new_stmt);
    Ok(())
}

/// `sch.annotate_buffer_access(block, buffer_index, buf_type,
/// gen_new_ranges)`: the region of the block's `buffer_index`-th read or
/// write becomes what `gen_new_ranges` (a lambda of the block's iterators
/// giving, per dimension, an index or a `(begin, end)` pair) says, and the
/// block is annotated `explicit_read_region` / `explicit_write_region`.
/// Returns the map as the trace prints it.
pub fn annotate_buffer_access(
    state: &mut ScheduleState,
    block: NodeId,
    buffer_index: i64,
    buf_type: &str,
    gen_new_ranges: &Lambda,
) -> ScheduleResult<String> {
    let kind = access_kind(buf_type).map_err(|e| e.at_argument(2))?;
    let buffer =
        nth_access_buffer(state, block, buffer_index, kind).map_err(|e| e.at_argument(1))?;
    let sref = state.sref(block).expect("a live block handle");
    let realize = sref.as_realize().expect("a block handle names a block");
    let iter_vars: Vec<Var> = realize
        .block
        .iter_vars
        .iter()
        .map(|iv| iv.var.clone())
        .collect();
    let refuse = |message: String, help: &str| {
        ScheduleError::new(codes::BAD_BUFFER_ACCESS, message, help)
            .blame(sref.location(), "the block")
            .at_argument(3)
    };
    if gen_new_ranges.params.len() != iter_vars.len() {
        return Err(refuse(
            format!(
                "the lambda takes {} parameter{} but {} has {} iterator{}",
                gen_new_ranges.params.len(),
                if gen_new_ranges.params.len() == 1 {
                    ""
                } else {
                    "s"
                },
                sref.describe(),
                iter_vars.len(),
                if iter_vars.len() == 1 { "" } else { "s" }
            ),
            "write one lambda parameter per block iterator, in order",
        ));
    }
    let items: Vec<&ast::Expr> = match &gen_new_ranges.body.kind {
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => items.iter().collect(),
        _ => vec![&gen_new_ranges.body],
    };
    // TVM compares the ranges with the block's iterators, not the buffer's
    // rank: a region of another rank than the buffer's would be malformed.
    if items.len() != iter_vars.len() || items.len() != buffer.rank() {
        return Err(refuse(
            format!(
                "the lambda gives {} range{}, but `{}` has {} dimension{} and TVM wants one range per block iterator ({})",
                items.len(),
                if items.len() == 1 { "" } else { "s" },
                buffer.name(),
                buffer.rank(),
                if buffer.rank() == 1 { "" } else { "s" },
                iter_vars.len()
            ),
            "give one index or `(begin, end)` pair per buffer dimension; TVM takes this only for blocks with as many iterators as the buffer has dimensions",
        ));
    }
    // The lambda's parameters stand for the block's iterators.
    let dtype = iter_vars
        .first()
        .map(|v| v.dtype())
        .unwrap_or(crate::ir::DataType::int32());
    let params: Vec<Var> = gen_new_ranges
        .params
        .iter()
        .map(|name| Var::new(name.as_str(), dtype, Span::NONE))
        .collect();
    let to_iterators: VarMap<Expr> = params
        .iter()
        .cloned()
        .zip(iter_vars.iter().map(Var::to_expr))
        .collect();
    let convert = |expr: &ast::Expr| {
        index_expr(expr, &params, dtype)
            .map(|e| substitute(&e, &to_iterators))
            .map_err(|message| {
                refuse(
                    message,
                    "write the region with the lambda's parameters, integers and `+ - * // %`",
                )
            })
    };
    let mut bounds: Vec<(Expr, Expr)> = Vec::with_capacity(items.len());
    for item in items {
        bounds.push(match &item.kind {
            ast::ExprKind::Tuple(pair) | ast::ExprKind::List(pair) => match pair.as_slice() {
                [begin, end] => (convert(begin)?, convert(end)?),
                _ => {
                    return Err(refuse(
                        format!(
                            "a range is a `(begin, end)` pair, found {} values",
                            pair.len()
                        ),
                        "write `(begin, end)` for a range, or one index for a single point",
                    ))
                }
            },
            _ => {
                let index = convert(item)?;
                let next = operators::add(index.clone(), Expr::int(1, index.dtype()))
                    .map_err(|e| refuse(e.0, "write the region with integer indices"))?;
                (index, next)
            }
        });
    }
    let analyzer = Analyzer::new();
    let mut region = Vec::with_capacity(bounds.len());
    for (begin, end) in &bounds {
        let extent = operators::sub(end.clone(), begin.clone())
            .map_err(|e| refuse(e.0, "write the region with integer indices"))?;
        region.push(Range::new(
            analyzer.simplify(begin),
            analyzer.simplify(&extent),
        ));
    }
    let key = match kind {
        AccessKind::Read => EXPLICIT_READ_REGION,
        AccessKind::Write => EXPLICIT_WRITE_REGION,
    };
    let mut annotations = realize.block.annotations.clone();
    match annotations.iter_mut().find(|(k, _)| k == key) {
        Some((_, AttrValue::List(listed))) => {
            if !listed.iter().any(|v| v.as_int() == Some(buffer_index)) {
                listed.push(AttrValue::Int(buffer_index));
            }
        }
        Some((_, other)) => *other = AttrValue::List(vec![AttrValue::Int(buffer_index)]),
        None => annotations.push((
            key.to_string(),
            AttrValue::List(vec![AttrValue::Int(buffer_index)]),
        )),
    }
    let mut regions = kind.regions(&realize.block).clone();
    regions[buffer_index as usize] = BufferRegion { buffer, region };
    let new_realize = with_regions(realize, kind, regions, annotations);
    let new_stmt = sref.stmt.with_kind(StmtKind::BlockRealize(new_realize));
    // The trace prints the map with the block's iterator names, a pair per
    // dimension (TVM's `IndexMap2GenNewRangesLambda`).
    let pairs: Vec<String> = bounds
        .iter()
        .map(|(begin, end)| format!("({}, {})", expr_to_string(begin), expr_to_string(end)))
        .collect();
    let names: Vec<&str> = iter_vars.iter().map(Var::name).collect();
    let text = format!("lambda {}: [{}]", names.join(", "), pairs.join(", "));
    state.replace(block, new_stmt);
    Ok(text)
}

/// The descriptors of the access-annotating primitives.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "annotate_buffer_access",
        aliases: &[],
        params: &[
            required("block"),
            typed("buffer_index", "int"),
            typed("buf_type", "str"),
            typed("gen_new_ranges", "lambda"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Replaces the region of the block's `buffer_index`-th read (`buf_type=\"read\"`) or write (`\"write\"`) by one written by hand: `gen_new_ranges` takes the block's iterators and gives, per dimension, an index or a `(begin, end)` pair (`lambda vi, vj: ((vi - 1, vi + 1), vj)`). The block is annotated `explicit_read_region` / `explicit_write_region`, and compaction sizes the buffer from that region. The region is not checked against the body.",
        apply: apply_annotate_buffer_access,
    },
    Primitive {
        name: "unsafe_hide_buffer_access",
        aliases: &[],
        params: &[
            required("block"),
            typed("buf_type", "str"),
            typed("buf_index_array", "list"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Drops the block's read (`buf_type=\"read\"`) or write (`\"write\"`) regions at the positions listed, so that dependence analysis no longer sees them. Unsafe: a later primitive may then move the block past an access it still makes.",
        apply: apply_unsafe_hide_buffer_access,
    },
];

fn apply_annotate_buffer_access(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let buffer_index = run.int_arg(bound, 1, "buffer_index", None)?;
    let buf_type = run.expect_str(bound, 2, "buf_type")?;
    let lambda = match bound.get(3).map(|a| &a.value) {
        Some(Value::Lambda(lambda)) => lambda.clone(),
        other => {
            return Err(run.wrong_kind(
                bound,
                3,
                "gen_new_ranges",
                "a `lambda`",
                other.unwrap_or(&Value::None),
            ))
        }
    };
    let text = annotate_buffer_access(run.state, block, buffer_index, &buf_type, &lambda)
        .map_err(|e| run.refused(bound, e))?;
    run.record(
        "annotate_buffer_access",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer_index"), TraceArg::Int(buffer_index)),
            (Some("buf_type"), TraceArg::Str(buf_type)),
            (Some("gen_new_ranges"), TraceArg::Source(text)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

fn apply_unsafe_hide_buffer_access(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let buf_type = run.expect_str(bound, 1, "buf_type")?;
    let indices = run.int_list_arg(bound, 2, "buf_index_array")?;
    unsafe_hide_buffer_access(run.state, block, &buf_type, &indices)
        .map_err(|e| run.refused(bound, e))?;
    run.record(
        "unsafe_hide_buffer_access",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buf_type"), TraceArg::Str(buf_type)),
            (
                Some("buf_index_array"),
                TraceArg::List(indices.iter().map(|&i| TraceArg::Int(i)).collect()),
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
    fn hidden_regions_leave_the_block_and_the_others_stay() {
        let mut s = state(MATMUL);
        let (c, _) = block_and_loops(&s, "C");
        unsafe_hide_buffer_access(&mut s, c, "read", &[1]).unwrap();
        let text = printed(&s);
        assert!(text.contains("T.reads(A[vi, vk])"), "{text}");
        let error = unsafe_hide_buffer_access(&mut s, c, "write", &[1]).unwrap_err();
        assert_eq!(error.code, codes::BAD_BUFFER_ACCESS);
        let error = unsafe_hide_buffer_access(&mut s, c, "reads", &[0]).unwrap_err();
        assert_eq!(error.code, codes::BAD_BUFFER_ACCESS);
    }
}
