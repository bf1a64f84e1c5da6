//! `merge`: loop nests of the same shape become one nest that runs their
//! bodies in turn (after TVM's `Merge` in `loop_transformation.cc`).
//!
//! TVM checks only the shapes, so it also merges nests whose order matters:
//! a nest reading, at iteration `x`, what another writes at a later
//! iteration would then read it before it is written. tirc merges nests
//! that share a buffer only where, in some dimensions, every access to it
//! is the same point and different iterations touch different points,
//! which keeps each read after the writes it saw before.

use super::error::{codes, ScheduleError, ScheduleResult};
use super::loop_transformation::{check_starts_at_zero, has_annotation_error, loop_of, new_loop};
use super::primitive::Primitive;
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::arith::iter_map::{detect_iter_map, IterMapLevel};
use crate::ir::identity::{VarMap, VarSet};
use crate::ir::mutate::{substitute, substitute_stmt};
use crate::ir::visit::expr_uses_var;
use crate::ir::{Buffer, Expr, For, NodeId, Range, Stmt, StmtKind, Var};

/// `sch.merge(*loops)`: the nests made of each loop and the loops above it,
/// up to where the loops' paths meet, are perfect nests of equal extents;
/// they become one nest (loops named after the first nest's, `i_m`) whose
/// body is each nest's body in turn, placed where the last nest was.
/// Returns the innermost new loop.
pub fn merge(state: &mut ScheduleState, loops: &[NodeId]) -> ScheduleResult<NodeId> {
    let refuse = |message: String, help: &str| ScheduleError::new(codes::BAD_MERGE, message, help);
    if loops.len() < 2 {
        return Err(refuse(
            format!("merge needs two loops or more, found {}", loops.len()),
            "pass one loop of each nest to merge, at the same depth",
        ));
    }
    for (k, &id) in loops.iter().enumerate() {
        loop_of(state, id).map_err(|e| e.at_argument(k))?;
    }
    let paths: Vec<Vec<NodeId>> = loops
        .iter()
        .map(|&id| std::iter::once(id).chain(state.ancestors(id)).collect())
        .collect();
    let Some(meeting) = paths[0]
        .iter()
        .copied()
        .find(|n| paths.iter().all(|p| p.contains(n)))
    else {
        return Err(refuse(
            "the loops are in different functions".to_string(),
            "merge loops of one function",
        ));
    };
    // Each nest: the loops from the one given up to the meeting point, innermost first.
    let mut nests: Vec<Vec<&For>> = Vec::with_capacity(loops.len());
    for (k, path) in paths.iter().enumerate() {
        let until = path
            .iter()
            .position(|n| *n == meeting)
            .unwrap_or(path.len());
        let mut nest = Vec::with_capacity(until);
        for &id in &path[..until] {
            let sref = state.sref(id).expect("a live ancestor");
            if sref.kind == SRefKind::Block {
                return Err(refuse(
                    format!(
                        "loop `{}` is inside {}, which the other loops are not",
                        loop_of(state, loops[k])?.1.loop_var.name(),
                        sref.describe()
                    ),
                    "merge loops of one block scope",
                )
                .blame(sref.location(), "this block")
                .at_argument(k));
            }
            let (sref, for_loop) = loop_of(state, id)?;
            if !for_loop.annotations.is_empty() || for_loop.thread.is_some() {
                return Err(has_annotation_error(sref, for_loop, k));
            }
            check_starts_at_zero(&state.analyzer_at(id), sref, for_loop, k)?;
            if let Some(inner) = nest.last().map(|f: &&For| f.id) {
                if for_loop.body.as_for().map(|f| f.id) != Some(inner) {
                    return Err(ScheduleError::new(
                        codes::NOT_ADJACENT,
                        format!(
                            "loop `{}` holds more than the loop below it, so its nest is not perfect",
                            for_loop.loop_var.name()
                        ),
                        "merge nests in which each loop's only statement is the next loop",
                    )
                    .blame(sref.location(), format!("loop `{}`", for_loop.loop_var.name()))
                    .at_argument(k));
                }
            }
            nest.push(for_loop);
        }
        if nest.is_empty() {
            return Err(refuse(
                format!(
                    "loop `{}` holds the other loops",
                    loop_of(state, loops[k])?.1.loop_var.name()
                ),
                "pass loops of separate nests, such as the `i` loops of two blocks",
            )
            .at_argument(k));
        }
        nests.push(nest);
    }
    let analyzer = state.analyzer_at(meeting);
    let first = &nests[0];
    for (k, nest) in nests.iter().enumerate().skip(1) {
        if nest.len() != first.len() {
            return Err(refuse(
                format!(
                    "the nests are {} and {} loops deep",
                    first.len(),
                    nest.len()
                ),
                "pass loops at the same depth below where the nests meet",
            )
            .at_argument(k));
        }
        for (a, b) in first.iter().zip(nest) {
            let equal = crate::ir::operators::binary(
                crate::ir::BinaryOp::Eq,
                a.extent.clone(),
                b.extent.clone(),
            )
            .is_ok_and(|e| analyzer.can_prove(&e));
            if !equal {
                return Err(refuse(
                    format!(
                        "loop `{}` runs {} times and loop `{}` {} times",
                        a.loop_var.name(),
                        a.extent,
                        b.loop_var.name(),
                        b.extent
                    ),
                    "merge nests whose loops have equal extents; split them first",
                )
                .at_argument(k));
            }
        }
    }
    let meeting_body = body_of(state, meeting);
    let siblings: Vec<Option<NodeId>> = match meeting_body.kind() {
        StmtKind::Seq(items) => items.iter().map(statement_id).collect(),
        _ => vec![statement_id(&meeting_body)],
    };
    let outermost: Vec<NodeId> = nests
        .iter()
        .map(|n| n.last().expect("non-empty").id)
        .collect();
    let positions: Vec<usize> = outermost
        .iter()
        .filter_map(|id| siblings.iter().position(|s| *s == Some(*id)))
        .collect();
    let (low, high) = (
        positions.iter().copied().min().unwrap_or(0),
        positions.iter().copied().max().unwrap_or(0),
    );
    if positions.len() != outermost.len()
        || (low..=high).any(|p| !siblings[p].is_some_and(|s| outermost.contains(&s)))
    {
        return Err(refuse(
            "other statements lie between the nests, and merging would run them in another order"
                .to_string(),
            "merge nests that follow one another",
        ));
    }
    // Every nest in terms of the first nest's loop variables.
    let canonical: Vec<Var> = first.iter().map(|f| f.loop_var.clone()).collect();
    let to_first: Vec<VarMap<Expr>> = nests
        .iter()
        .map(|nest| {
            nest.iter()
                .zip(&canonical)
                .map(|(f, v)| (f.loop_var.clone(), v.to_expr()))
                .collect()
        })
        .collect();
    check_independent(state, &nests, &to_first, &canonical)?;
    // The new nest, named after the first, around every body in turn.
    let merged_vars: Vec<Var> = canonical
        .iter()
        .map(|v| v.with_name(format!("{}_m", v.name())))
        .collect();
    let to_merged: Vec<VarMap<Expr>> = nests
        .iter()
        .map(|nest| {
            nest.iter()
                .zip(&merged_vars)
                .map(|(f, v)| (f.loop_var.clone(), v.to_expr()))
                .collect()
        })
        .collect();
    let bodies: Vec<Stmt> = nests
        .iter()
        .zip(&to_merged)
        .map(|(nest, map)| substitute_stmt(&nest[0].body, map))
        .collect();
    let mut new_nest = new_loop(
        &merged_vars[0],
        first[0].extent.clone(),
        Stmt::seq(bodies),
        crate::source::Span::NONE,
    );
    let innermost = statement_id(&new_nest).expect("a loop");
    for (var, f) in merged_vars.iter().zip(first.iter()).skip(1) {
        new_nest = new_loop(var, f.extent.clone(), new_nest, crate::source::Span::NONE);
    }
    let last = *outermost.last().expect("two loops or more");
    let items: Vec<Stmt> = match meeting_body.kind() {
        StmtKind::Seq(items) => items.clone(),
        _ => vec![meeting_body.clone()],
    };
    let new_items: Vec<Stmt> = items
        .into_iter()
        .filter_map(|s| {
            let id = statement_id(&s);
            if id == Some(last) {
                Some(new_nest.clone())
            } else if id.is_some_and(|id| outermost.contains(&id)) {
                None
            } else {
                Some(s)
            }
        })
        .collect();
    let new_stmt = with_body(state, meeting, Stmt::seq(new_items));
    state.replace(meeting, new_stmt);
    Ok(innermost)
}

/// The loop or block id of a statement.
fn statement_id(stmt: &Stmt) -> Option<NodeId> {
    match stmt.kind() {
        StmtKind::For(f) => Some(f.id),
        StmtKind::BlockRealize(r) => Some(r.block.id),
        _ => None,
    }
}

/// The body of a loop or block.
fn body_of(state: &ScheduleState, id: NodeId) -> Stmt {
    let sref = state.sref(id).expect("a live loop or block");
    match sref.stmt.kind() {
        StmtKind::For(f) => f.body.clone(),
        StmtKind::BlockRealize(r) => r.block.body.clone(),
        _ => unreachable!("srefs are loops and blocks"),
    }
}

/// The loop or block with another body.
fn with_body(state: &ScheduleState, id: NodeId, body: Stmt) -> Stmt {
    let sref = state.sref(id).expect("a live loop or block");
    match sref.stmt.kind() {
        StmtKind::For(f) => sref
            .stmt
            .with_kind(StmtKind::For(For { body, ..f.clone() })),
        StmtKind::BlockRealize(r) => {
            let mut realize = r.clone();
            realize.block.body = body;
            sref.stmt.with_kind(StmtKind::BlockRealize(realize))
        }
        _ => unreachable!("srefs are loops and blocks"),
    }
}

/// One access of a nest's block: the buffer, whether it writes, and per
/// dimension the index it touches (in the first nest's loop variables),
/// where that is one point moved by those variables alone.
struct Access {
    buffer: Buffer,
    writes: bool,
    points: Vec<Option<Expr>>,
}

/// Refuses nests that share a buffer one of them writes, unless some
/// dimensions of every access to it are the same points, a bijective map of
/// the merged loops: different iterations then touch different elements.
fn check_independent(
    state: &ScheduleState,
    nests: &[Vec<&For>],
    to_first: &[VarMap<Expr>],
    canonical: &[Var],
) -> ScheduleResult<()> {
    let analyzer = state.analyzer_at(nests[0][0].id);
    let accesses: Vec<Vec<Access>> = nests
        .iter()
        .zip(to_first)
        .map(|(nest, map)| nest_accesses(state, nest[0].id, map, canonical, &analyzer))
        .collect();
    let ranges: Vec<(Var, Range)> = nests[0]
        .iter()
        .map(|f| (f.loop_var.clone(), f.range()))
        .collect();
    let all: Vec<&Access> = accesses.iter().flatten().collect();
    for (k, earlier) in accesses.iter().enumerate() {
        for later in &accesses[k + 1..] {
            for a in earlier {
                let shared = later
                    .iter()
                    .any(|b| b.buffer == a.buffer && (a.writes || b.writes));
                if !shared {
                    continue;
                }
                let of_buffer: Vec<&&Access> =
                    all.iter().filter(|x| x.buffer == a.buffer).collect();
                // The dimensions every access touches at one common point.
                let common: Vec<Expr> = (0..a.points.len())
                    .filter_map(|d| {
                        let first = a.points[d].as_ref()?;
                        of_buffer
                            .iter()
                            .all(|x| {
                                x.points
                                    .get(d)
                                    .and_then(Option::as_ref)
                                    .is_some_and(|p| analyzer.can_prove_equal(p, first))
                            })
                            .then(|| first.clone())
                    })
                    .collect();
                let separated = !common.is_empty()
                    && detect_iter_map(
                        &common,
                        &ranges,
                        &Expr::bool(true),
                        IterMapLevel::Bijective,
                        &analyzer,
                        false,
                    )
                    .is_success();
                if !separated {
                    return Err(ScheduleError::new(
                        codes::BAD_MERGE,
                        format!(
                            "two of the nests access `{}` and one writes it: merged, an iteration could read it before the iteration that writes it ran",
                            a.buffer.name()
                        ),
                        "merge nests that share no buffer they write, or that access it at the same point of the merged loops, one point per iteration",
                    )
                    .note("TVM merges these and may compute something else; tirc refuses".to_string()));
                }
            }
        }
    }
    Ok(())
}

/// The accesses of the blocks directly below a nest's innermost loop.
fn nest_accesses(
    state: &ScheduleState,
    innermost: NodeId,
    to_first: &VarMap<Expr>,
    canonical: &[Var],
    analyzer: &crate::arith::Analyzer,
) -> Vec<Access> {
    let mut result = Vec::new();
    let inner = inner_vars(state, innermost);
    for block in state.child_blocks(innermost) {
        let Some(realize) = state.sref(block).and_then(|s| s.as_realize()) else {
            continue;
        };
        let bindings: VarMap<Expr> = realize
            .block
            .iter_vars
            .iter()
            .zip(&realize.iter_values)
            .map(|(iv, value)| (iv.var.clone(), substitute(value, to_first)))
            .collect();
        let regions = realize
            .block
            .reads
            .iter()
            .map(|r| (r, false))
            .chain(realize.block.writes.iter().map(|r| (r, true)));
        for (region, writes) in regions {
            let points: Vec<Option<Expr>> = region
                .region
                .iter()
                .map(|range| {
                    let unit = crate::ir::operators::is_one(&analyzer.simplify(&range.extent));
                    let index = analyzer.simplify(&substitute(&range.min, &bindings));
                    // Only the merged loops may move the point.
                    let only_merged = !expr_uses_var(&index, &mut |v| {
                        !canonical.contains(v) && inner.contains(v)
                    });
                    (unit && only_merged).then_some(index)
                })
                .collect();
            result.push(Access {
                buffer: region.buffer.clone(),
                writes,
                points,
            });
        }
    }
    result
}

/// The loop variables and block iterators below `id` (not its own variable).
fn inner_vars(state: &ScheduleState, id: NodeId) -> VarSet {
    let mut found = VarSet::default();
    let mut pending = vec![id];
    while let Some(next) = pending.pop() {
        let Some(sref) = state.sref(next) else {
            continue;
        };
        match sref.stmt.kind() {
            StmtKind::For(f) if next != id => {
                found.insert(f.loop_var.clone());
            }
            StmtKind::BlockRealize(r) => {
                found.extend(r.block.iter_vars.iter().map(|iv| iv.var.clone()));
            }
            _ => {}
        }
        pending.extend(sref.children.iter().copied());
    }
    found
}

/// The primitive's descriptor.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "merge",
    aliases: &[],
    params: &[],
    varargs: Some("loops"),
    keyword_only: &[],
    doc: "Merges loop nests of the same shape: each loop given, with the loops above it up to where their paths meet, is a perfect nest starting at 0, the nests' extents are equal, and they follow one another. The new nest (loops `i_m`, ...) runs each nest's body in turn at every iteration, where the last nest was, and the innermost new loop is returned. Nests that share a buffer one of them writes are merged only where, in some dimensions, every access to it is the same point, a different one at each iteration (TVM does not check, and may compute something else).",
    apply: apply_merge,
}];

fn apply_merge(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (rvs, loops) = run.loop_varargs(bound)?;
    let merged = merge(run.state, &loops).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Loop, merged);
    run.record(
        "merge",
        rvs.iter().map(|r| (None, TraceArg::Rv(*r))).collect(),
        Outputs::Single(rv),
    );
    Ok(Value::Loop(rv))
}
