//! `blockize`, after TVM's `blockize_tensorize.cc`: the loops from a given
//! loop down to a block become the body of a new outer block `C_o`, whose
//! iterators are the parts of the block's iterators the loops above bind
//! (`vi_o`), while the block keeps the parts the inner loops bind (`vi_i`).
//! A reduction's initialization moves to the outer block (`C_init`).
//!
//! Each binding must split into an outer part and an inner part: bound by
//! the outer loops only, by the inner loops only, or `outer * c + inner`
//! with the inner part spanning `[0, c)` (what `split` produces). TVM also
//! divides fused bindings (`f // 4`); tirc refuses those.

use super::binding::{and_conjunct, conjuncts};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, Primitive};
use super::region::clamp_to_extent;
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::arith::{build, eval_set, Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_expr_children, substitute, substitute_stmt, Mutator};
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    BinaryOp, Block, BlockRealize, BufferRegion, Expr, ExprKind, For, IterKind, IterVar, NodeId,
    Range, Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::HashSet;

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the loop is no longer in the program",
        "get it again",
    )
}

/// One binding divided into the part the outer loops bind and the part the
/// inner loops bind: `binding = outer * inner_extent + inner`.
struct Division {
    outer: Expr,
    outer_extent: Expr,
    inner: Expr,
    inner_extent: Expr,
}

/// `sch.blockize(target, preserve_unit_iters=True)` for a loop. Returns the
/// new outer block.
pub fn blockize(
    state: &mut ScheduleState,
    loop_id: NodeId,
    preserve_unit_iters: bool,
) -> ScheduleResult<NodeId> {
    let loop_sref = state.sref(loop_id).ok_or_else(removed)?;
    if loop_sref.kind != SRefKind::Loop {
        return Err(removed());
    }
    let children = state.child_blocks(loop_id);
    let [block] = children[..] else {
        return Err(ScheduleError::new(
            codes::BAD_BLOCKIZE,
            format!(
                "{} holds {} blocks; blockize turns the loops above one block into a block",
                loop_sref.describe(),
                children.len()
            ),
            "blockize a loop whose subtree holds a single block",
        )
        .blame(loop_sref.location(), "the loop")
        .at_argument(0));
    };
    let block_sref = state.sref(block).ok_or_else(removed)?;
    let realize = block_sref.as_realize().ok_or_else(removed)?.clone();
    // A block as the root block's whole body reads back as the root block
    // itself, so that program cannot be printed faithfully.
    let scope = state.scope_root(loop_id).ok_or_else(removed)?;
    let scope_sref = state.sref(scope).ok_or_else(removed)?;
    if scope_sref.parent.is_none() && scope_sref.children == [loop_id] {
        return Err(ScheduleError::new(
            codes::BAD_BLOCKIZE,
            format!(
                "{} is the function's only loop nest: the new block would be the whole body, which reads back as the root block",
                loop_sref.describe()
            ),
            "blockize an inner loop, or give the function a second statement",
        )
        .blame(loop_sref.location(), "the loop")
        .at_argument(0));
    }
    // The loops from the block up to `loop` (inner, innermost first) and above it (outer).
    let mut inner_loops: Vec<For> = Vec::new();
    let mut outer_vars: HashSet<Var> = HashSet::new();
    let mut domains: VarMap<IntSet> = VarMap::default();
    let mut unit_loops: VarMap<Expr> = VarMap::default();
    let mut inner = true;
    let mut current = block_sref.parent;
    while let Some(id) = current {
        let sref = state.sref(id).ok_or_else(removed)?;
        let Some(f) = sref.as_for() else { break };
        if inner {
            inner_loops.push(f.clone());
        } else {
            outer_vars.insert(f.loop_var.clone());
        }
        domains.insert(f.loop_var.clone(), IntSet::from_range(&f.range()));
        if !preserve_unit_iters && f.extent.is_int(1) {
            unit_loops.insert(f.loop_var.clone(), f.min.clone());
        }
        if id == loop_id {
            inner = false;
        }
        current = sref.parent;
    }
    let inner_vars: HashSet<Var> = inner_loops.iter().map(|f| f.loop_var.clone()).collect();
    let not_divisible = |iv: &IterVar| {
        ScheduleError::new(
            codes::BAD_BLOCKIZE,
            format!(
                "the binding of `{}` in {} does not divide into a part of the loops above {} and a part of the loops inside it",
                iv.var.name(),
                block_sref.describe(),
                loop_sref.describe()
            ),
            "blockize at a loop whose inner loops come from `split` (`outer * c + inner`) or bind whole iterators",
        )
        .blame(block_sref.location(), "the block")
        .blame(loop_sref.location(), "the loop")
        .at_argument(0)
    };
    // The `T.where` divides as its conjuncts do: one over the outer loops
    // alone guards the outer block, one over the inner loops the inner block
    // (TVM's subspace division of the predicate).
    // A conjunct over neither (only the iterators of enclosing blocks) that
    // their domains prove is dropped, as TVM's division drops every such one.
    let enclosing = state.analyzer_at(loop_id);
    let mut outer_predicate = Expr::bool(true);
    let mut inner_predicate = Expr::bool(true);
    for conjunct in conjuncts(&realize.predicate) {
        let uses = |vars: &HashSet<Var>| expr_uses_var(&conjunct, &mut |v| vars.contains(v));
        let target = match (uses(&outer_vars), uses(&inner_vars)) {
            (false, false) if enclosing.can_prove_with_symbolic_bound(&conjunct) => continue,
            (_, false) => &mut outer_predicate,
            (false, true) => &mut inner_predicate,
            (true, true) => {
                return Err(ScheduleError::new(
                    codes::BAD_BLOCKIZE,
                    format!(
                        "the `T.where` of {} bounds loops both above and inside {}, so it guards neither the outer nor the inner block alone",
                        block_sref.describe(),
                        loop_sref.describe()
                    ),
                    "blockize loops whose extents divide the block's domain",
                )
                .blame(block_sref.location(), "the block")
                .at_argument(0));
            }
        };
        *target = and_conjunct(target.clone(), conjunct);
    }
    let analyzer = Analyzer::new();
    let mut divisions = Vec::with_capacity(realize.iter_values.len());
    for (iv, binding) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        // The binding as written first (where no unit loop was replaced),
        // whose terms keep their order in the outer binding as in TVM's
        // subspace division; simplified where that does not divide.
        let substituted = substitute(binding, &unit_loops);
        let as_written = crate::ir::structural::expr_deep_equal(&substituted, binding)
            .then(|| divide(&analyzer, binding, iv, &inner_vars, &outer_vars, &domains))
            .flatten();
        let division = as_written
            .or_else(|| {
                let simplified = analyzer.simplify(&substituted);
                divide(
                    &analyzer,
                    &simplified,
                    iv,
                    &inner_vars,
                    &outer_vars,
                    &domains,
                )
            })
            .ok_or_else(|| not_divisible(iv))?;
        divisions.push(division);
    }
    // The outer and inner iterators, and each old iterator in their terms.
    let mut outer_iters = Vec::new();
    let mut outer_values = Vec::new();
    let mut inner_iters = Vec::new();
    let mut inner_values = Vec::new();
    let mut subst: VarMap<Expr> = VarMap::default();
    for (iv, division) in realize.block.iter_vars.iter().zip(&divisions) {
        let outer_var = Var::new(
            format!("{}_o", iv.var.name()),
            iv.var.dtype(),
            iv.var.span(),
        );
        outer_iters.push(IterVar {
            var: outer_var.clone(),
            dom: Range::from_extent(division.outer_extent.clone()),
            kind: iv.kind,
        });
        outer_values.push(division.outer.clone());
        let value = if division.inner_extent.is_int(1) {
            if division.outer_extent.is_int(1) && !preserve_unit_iters {
                Expr::zero(iv.var.dtype())
            } else {
                outer_var.to_expr()
            }
        } else {
            let inner_var = Var::new(
                format!("{}_i", iv.var.name()),
                iv.var.dtype(),
                iv.var.span(),
            );
            inner_iters.push(IterVar {
                var: inner_var.clone(),
                dom: Range::from_extent(division.inner_extent.clone()),
                kind: iv.kind,
            });
            inner_values.push(division.inner.clone());
            if division.outer_extent.is_int(1) {
                inner_var.to_expr()
            } else {
                build::add(
                    build::mul(outer_var.to_expr(), division.inner_extent.clone()),
                    inner_var.to_expr(),
                )
            }
        };
        subst.insert(iv.var.clone(), value);
    }
    // Simplified knowing the inner iterators' domains, as TVM does
    // (`v_co_i // 64 * 64 + v_rc_i` is `v_rc_i` for `v_co_i` in `[0, 64)`).
    let mut inner_analyzer = Analyzer::new();
    for iv in &inner_iters {
        inner_analyzer.bind(&iv.var, &iv.dom);
    }
    let substituted = substitute_block(&realize.block, &subst, &inner_analyzer);
    let has_outer_reduction =
        substituted.init.is_some() && outer_iters.iter().any(|iv| iv.kind == IterKind::Reduce);
    // The inner block: no init; a reduction split across the blocks reads what it writes.
    let mut inner_block = Block {
        iter_vars: inner_iters.clone(),
        init: None,
        ..substituted.clone()
    };
    if has_outer_reduction {
        let mut reads = substituted.writes.clone();
        reads.extend(substituted.reads.iter().cloned());
        inner_block.reads = reads;
    }
    let inner_realize = BlockRealize {
        iter_values: inner_values,
        predicate: inner_predicate,
        block: inner_block,
    };
    let inner_domains: VarMap<IntSet> = inner_iters
        .iter()
        .map(|iv| (iv.var.clone(), IntSet::from_range(&iv.dom)))
        .collect();
    let outer_init = match &substituted.init {
        Some(init) => Some(
            outer_init_nest(init, &inner_realize, &inner_loops, &substituted.name).map_err(
                |conjunct| {
                    ScheduleError::new(
                        codes::BAD_BLOCKIZE,
                        format!(
                            "the `T.where` conjunct `{conjunct}` of {} bounds the spatial loops the new `{}_init` block runs over together with reduction loops it does not",
                            block_sref.describe(),
                            substituted.name
                        ),
                        "blockize before splitting a reduction loop by a factor that does not divide it",
                    )
                    .blame(block_sref.location(), "the block")
                    .at_argument(0)
                },
            )?,
        ),
        None => None,
    };
    let mut body = Stmt::block_realize(inner_realize);
    for f in &inner_loops {
        let original = state.sref(f.id).ok_or_else(removed)?.stmt.clone();
        body = original.with_kind(StmtKind::For(For { body, ..f.clone() }));
    }
    let outside = |buffer: String| {
        ScheduleError::new(
            codes::BAD_BLOCKIZE,
            format!(
                "the region of `{buffer}` that {} touches under {} reaches outside `{buffer}` (a guarded access), so the new block cannot declare it",
                block_sref.describe(),
                loop_sref.describe()
            ),
            "blockize loops whose accesses stay inside their buffers, or inline the guarded block first",
        )
        .blame(block_sref.location(), "the block")
        .at_argument(0)
    };
    let reads = relax_regions(&substituted.reads, &inner_domains).map_err(outside)?;
    let writes = relax_regions(&substituted.writes, &inner_domains).map_err(outside)?;
    let outer_id = NodeId::fresh();
    let outer = Stmt::block_realize(BlockRealize {
        iter_values: outer_values,
        predicate: outer_predicate,
        block: Block {
            id: outer_id,
            name: format!("{}_o", substituted.name),
            iter_vars: outer_iters,
            reads,
            writes,
            init: outer_init,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: Vec::new(),
            body,
        },
    });
    let scope_affine = state.affine_binding(scope);
    state.replace(loop_id, outer);
    // As TVM: the scope's flags are recomputed, its own binding flag kept.
    state.update_scope_flags(scope);
    if let Some(mut flags) = state.block_flags(scope) {
        flags.affine_binding = scope_affine;
        state.set_block_flags(scope, flags);
    }
    Ok(outer_id)
}

/// Divides a binding into outer and inner parts.
fn divide(
    analyzer: &Analyzer,
    binding: &Expr,
    iv: &IterVar,
    inner_vars: &HashSet<Var>,
    outer_vars: &HashSet<Var>,
    domains: &VarMap<IntSet>,
) -> Option<Division> {
    let uses = |e: &Expr, vars: &HashSet<Var>| expr_uses_var(e, &mut |v| vars.contains(v));
    let one = Expr::one(iv.dom.extent.dtype());
    let zero = Expr::zero(iv.dom.extent.dtype());
    let (uses_outer, uses_inner) = (uses(binding, outer_vars), uses(binding, inner_vars));
    if !uses_inner {
        let (outer, outer_extent) = if uses_outer {
            (binding.clone(), iv.dom.extent.clone())
        } else {
            (zero, one.clone())
        };
        return Some(Division {
            outer,
            outer_extent,
            inner: Expr::zero(iv.dom.extent.dtype()),
            inner_extent: one,
        });
    }
    if !uses_outer {
        return Some(Division {
            outer: zero,
            outer_extent: one,
            inner: binding.clone(),
            inner_extent: iv.dom.extent.clone(),
        });
    }
    // A digit of a fused loop (`(f_0 * 16 + f_1) // 256`, `... % 256 // 16`).
    let is_digit = matches!(
        binding.kind(),
        ExprKind::Binary(BinaryOp::FloorDiv | BinaryOp::FloorMod, _, _)
    );
    if let Some((outer, inner, inner_extent)) = is_digit
        .then(|| divide_digits(binding, inner_vars, outer_vars, domains))
        .flatten()
    {
        let dtype = iv.dom.extent.dtype();
        let inner_extent = Expr::int(inner_extent, dtype);
        let outer_extent = analyzer.simplify(&build::floordiv(
            iv.dom.extent.clone(),
            inner_extent.clone(),
        ));
        return Some(Division {
            outer: analyzer.simplify(&outer),
            outer_extent,
            inner,
            inner_extent,
        });
    }
    // `outer * c + inner`, the inner part spanning exactly `[0, c)`.
    let (scaled, inner) = &split_sum_by_loops(binding, inner_vars, outer_vars)?;
    let set = eval_set(inner, domains);
    let (Some(lo), Some(hi)) = (set.min(), set.max()) else {
        return None;
    };
    if !analyzer.can_prove_equal(lo, &Expr::zero(lo.dtype())) {
        return None;
    }
    let inner_extent = analyzer.simplify(&build::add(hi.clone(), Expr::one(hi.dtype())));
    // `outer * c + inner`; `outer + inner` is a split by 1; a sum of
    // multiples of c (`bx // 2 * 32 + ty // 2 * 16 + ax0`, c = 16, after
    // two fused splits) is `(bx // 2 * 2 + ty // 2) * 16 + ax0`.
    let outer = match scaled.kind() {
        ExprKind::Binary(BinaryOp::Mul, x, c) | ExprKind::Binary(BinaryOp::Mul, c, x)
            if c.is_const() && analyzer.can_prove_equal(c, &inner_extent) =>
        {
            x.clone()
        }
        _ if analyzer.can_prove_equal(&inner_extent, &Expr::one(inner_extent.dtype())) => {
            scaled.clone()
        }
        _ => match inner_extent.as_int().and_then(|c| divide_terms(scaled, c)) {
            Some(outer) => outer,
            None => {
                let remainder = build::floormod(scaled.clone(), inner_extent.clone());
                if !analyzer.can_prove_equal(&remainder, &Expr::zero(scaled.dtype())) {
                    return None;
                }
                analyzer.simplify(&build::floordiv(scaled.clone(), inner_extent.clone()))
            }
        },
    };
    // The outer part's own range, as TVM's subspace division takes it from
    // the loops: a split over the extent (`disable_predication=True`, 32 by
    // [33, 4]) gives 33, not 32 // 4. Symbolic extents keep the quotient.
    let outer_set = eval_set(&outer, domains);
    let bounds = (
        iv.dom.extent.as_int(),
        outer_set.min().and_then(Expr::as_int),
        outer_set.max().and_then(Expr::as_int),
    );
    let outer_extent = match bounds {
        (Some(_), Some(0), Some(hi)) if hi < i64::MAX => Expr::int(hi + 1, iv.dom.extent.dtype()),
        _ => analyzer.simplify(&build::floordiv(
            iv.dom.extent.clone(),
            inner_extent.clone(),
        )),
    };
    Some(Division {
        outer,
        outer_extent,
        inner: inner.clone(),
        inner_extent,
    })
}

/// A sum as its terms over the outer loops and its terms over the inner
/// loops, each in their order, as TVM's subspace division keeps them
/// (`i_0 * 32 + i_1 * 16 + i_2` at `i_1` is `i_0 * 32` and `i_1 * 16 + i_2`).
/// `None` when a term uses both, or one side has no term.
fn split_sum_by_loops(
    sum: &Expr,
    inner_vars: &HashSet<Var>,
    outer_vars: &HashSet<Var>,
) -> Option<(Expr, Expr)> {
    let uses = |e: &Expr, vars: &HashSet<Var>| expr_uses_var(e, &mut |v| vars.contains(v));
    let mut terms = Vec::new();
    sum_terms(sum, &mut terms);
    let (inner_terms, outer_terms): (Vec<&Expr>, Vec<&Expr>) =
        terms.into_iter().partition(|t| uses(t, inner_vars));
    if inner_terms.iter().any(|t| uses(t, outer_vars)) {
        return None;
    }
    let rebuild = |terms: Vec<&Expr>| {
        terms
            .into_iter()
            .cloned()
            .reduce(|sum, term| Expr::binary(BinaryOp::Add, sum, term))
    };
    Some((rebuild(outer_terms)?, rebuild(inner_terms)?))
}

/// The terms of a sum (`a + b + c`), in order.
fn sum_terms<'a>(expr: &'a Expr, terms: &mut Vec<&'a Expr>) {
    match expr.kind() {
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            sum_terms(a, terms);
            sum_terms(b, terms);
        }
        _ => terms.push(expr),
    }
}

/// `expr` as `outer * n + inner` with `outer` over the outer loops only and
/// `inner` over the inner loops only, spanning `[0, n)`, where `expr` is a
/// floor division or modulus of such a sum by a multiple or a divisor of `n`
/// (the part of TVM's subspace division that digits of a fused loop need).
fn divide_digits(
    expr: &Expr,
    inner_vars: &HashSet<Var>,
    outer_vars: &HashSet<Var>,
    domains: &VarMap<IntSet>,
) -> Option<(Expr, Expr, i64)> {
    let uses = |e: &Expr, vars: &HashSet<Var>| expr_uses_var(e, &mut |v| vars.contains(v));
    let dtype = expr.dtype();
    if !uses(expr, inner_vars) {
        return Some((expr.clone(), Expr::zero(dtype), 1));
    }
    let recurse = |e: &Expr| divide_digits(e, inner_vars, outer_vars, domains);
    match expr.kind() {
        ExprKind::Binary(op @ (BinaryOp::FloorDiv | BinaryOp::FloorMod), a, d) => {
            let d = d.as_int()?;
            let (outer, inner, n) = recurse(a)?;
            if d > 0 && d < n && n % d == 0 {
                // A digit below the inner part's span is a split of the inner
                // loops alone (TVM's `Inner` division); its quotient needs the
                // outer part to be 0, which unit outer loops are.
                let outer_is_zero = {
                    let set = eval_set(&outer, domains);
                    set.min().and_then(Expr::as_int) == Some(0)
                        && set.max().and_then(Expr::as_int) == Some(0)
                };
                let divisor = Expr::int(d, dtype);
                return match op {
                    BinaryOp::FloorMod => {
                        Some((Expr::zero(dtype), build::floormod(inner, divisor), d))
                    }
                    _ if outer_is_zero => {
                        Some((Expr::zero(dtype), build::floordiv(inner, divisor), n / d))
                    }
                    _ => None,
                };
            }
            if d <= 0 || d % n != 0 {
                return None;
            }
            let scale = Expr::int(d / n, dtype);
            Some(match op {
                // `(o * n + i) // (k * n)` is `o // k`, as `i < n`.
                BinaryOp::FloorDiv => (build::floordiv(outer, scale), Expr::zero(dtype), 1),
                // `(o * n + i) % (k * n)` is `(o % k) * n + i`.
                _ => (build::floormod(outer, scale), inner, n),
            })
        }
        ExprKind::Binary(BinaryOp::Add, _, _) => {
            // `o * n + i`, the inner part over `[0, n)`.
            let (scaled, inner) = &split_sum_by_loops(expr, inner_vars, outer_vars)?;
            let set = eval_set(inner, domains);
            let (lo, hi) = (set.min()?.as_int()?, set.max()?.as_int()?);
            if lo != 0 {
                return None;
            }
            let n = hi + 1;
            let outer = divide_terms(scaled, n)?;
            Some((outer, inner.clone(), n))
        }
        _ => None,
    }
}

/// `sum / c` term by term when every term of the sum is `x * k` with `k` a
/// multiple of `c`, keeping the terms' order as TVM's subspace division does
/// (`f % 2 * 32 + j_1 * 32` by 32 is `f % 2 + j_1`).
fn divide_terms(sum: &Expr, c: i64) -> Option<Expr> {
    match sum.kind() {
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            Some(build::add(divide_terms(a, c)?, divide_terms(b, c)?))
        }
        ExprKind::Binary(BinaryOp::Mul, x, k) => {
            let k = k.as_int()?;
            if c == 0 || k % c != 0 {
                return None;
            }
            Some(if k == c {
                x.clone()
            } else {
                build::mul(x.clone(), Expr::int(k / c, sum.dtype()))
            })
        }
        _ => None,
    }
}

/// A block with its iterators replaced by `subst` (simplified, as TVM does).
fn substitute_block(block: &Block, subst: &VarMap<Expr>, analyzer: &Analyzer) -> Block {
    let region = |r: &BufferRegion| BufferRegion {
        buffer: r.buffer.clone(),
        region: r
            .region
            .iter()
            .map(|range| {
                Range::new(
                    analyzer.simplify(&substitute(&range.min, subst)),
                    analyzer.simplify(&substitute(&range.extent, subst)),
                )
            })
            .collect(),
    };
    let mut rewrite = |s: &Stmt| SubstituteSimplified { subst, analyzer }.mutate_stmt(s);
    Block {
        reads: block.reads.iter().map(region).collect(),
        writes: block.writes.iter().map(region).collect(),
        init: block.init.as_ref().map(&mut rewrite),
        body: rewrite(&block.body),
        ..block.clone()
    }
}

/// TVM's blockize `Substitute`: the iterators replaced, and every
/// expression the replacement changed simplified (so a changed
/// `a >= b` reads back as TVM's `b <= a`).
struct SubstituteSimplified<'a> {
    subst: &'a VarMap<Expr>,
    analyzer: &'a Analyzer,
}

impl Mutator for SubstituteSimplified<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let result = match expr.kind() {
            ExprKind::Var(var) => match self.subst.get(var) {
                Some(value) => value.clone(),
                None => return expr.clone(),
            },
            _ => mutate_expr_children(self, expr),
        };
        match result.same_as(expr) {
            true => result,
            false => self.analyzer.simplify(&result),
        }
    }
}

/// TVM's `EvalSetRegions`: regions relaxed over the inner iterators; the
/// buffer named when one provably reaches outside it (a guarded access, as
/// in padding), which the outer block could not declare.
fn relax_regions(
    regions: &[BufferRegion],
    domains: &VarMap<IntSet>,
) -> Result<Vec<BufferRegion>, String> {
    let analyzer = Analyzer::new();
    regions
        .iter()
        .map(|r| {
            let ranges = r
                .region
                .iter()
                .zip(r.buffer.shape())
                .map(|(range, extent)| {
                    let set = crate::arith::int_set::eval_range(range, domains);
                    let clamped = clamp_to_extent(&analyzer, set.clone(), extent);
                    let same = |a: Option<&Expr>, b: Option<&Expr>| match (a, b) {
                        (Some(a), Some(b)) => a.same_as(b),
                        (a, b) => a.is_none() && b.is_none(),
                    };
                    if !same(clamped.min(), set.min()) || !same(clamped.max(), set.max()) {
                        return Err(r.buffer.name().to_string());
                    }
                    Ok(set.cover_range(&Range::from_extent(extent.clone())))
                })
                .collect::<Result<Vec<Range>, String>>()?;
            Ok(BufferRegion {
                buffer: r.buffer.clone(),
                region: ranges,
            })
        })
        .collect()
}

/// TVM's `GenerateOuterInit`: the init as a block `C_init` over the inner
/// spatial iterators it uses, under copies of the inner loops they are bound
/// to. Its `T.where` keeps the inner conjuncts over those loops; one over
/// the other (reduction) loops alone is dropped, as the init runs once per
/// point (TVM keeps it, over loops no longer there). A conjunct over both is
/// the error.
fn outer_init_nest(
    init: &Stmt,
    inner: &BlockRealize,
    inner_loops: &[For],
    name: &str,
) -> Result<Stmt, Expr> {
    let mut subst: VarMap<Expr> = VarMap::default();
    let mut iters = Vec::new();
    let mut values = Vec::new();
    for (iv, value) in inner.block.iter_vars.iter().zip(&inner.iter_values) {
        let used = {
            let mut found = false;
            crate::ir::visit::walk_exprs_in_stmt(init, &mut |e| {
                if let ExprKind::Var(v) = e.kind() {
                    found |= *v == iv.var;
                }
            });
            found
        };
        if iv.kind == IterKind::Spatial && used {
            let var = Var::new(
                format!("{}_init", iv.var.name()),
                iv.var.dtype(),
                iv.var.span(),
            );
            subst.insert(iv.var.clone(), var.to_expr());
            iters.push(IterVar {
                var,
                dom: iv.dom.clone(),
                kind: iv.kind,
            });
            values.push(value.clone());
        }
    }
    let kept: Vec<&For> = inner_loops
        .iter()
        .filter(|f| {
            values
                .iter()
                .any(|v| expr_uses_var(v, &mut |x| *x == f.loop_var))
        })
        .collect();
    let (kept_vars, dropped_vars): (HashSet<Var>, HashSet<Var>) = {
        let is_kept = |f: &&For| kept.iter().any(|k| k.loop_var == f.loop_var);
        (
            inner_loops
                .iter()
                .filter(is_kept)
                .map(|f| f.loop_var.clone())
                .collect(),
            inner_loops
                .iter()
                .filter(|f| !is_kept(f))
                .map(|f| f.loop_var.clone())
                .collect(),
        )
    };
    let mut predicate = Expr::bool(true);
    for conjunct in conjuncts(&inner.predicate) {
        let uses = |vars: &HashSet<Var>| expr_uses_var(&conjunct, &mut |v| vars.contains(v));
        let (uses_kept, uses_dropped) = (uses(&kept_vars), uses(&dropped_vars));
        match (uses_kept, uses_dropped) {
            (_, false) => predicate = and_conjunct(predicate, conjunct),
            (false, true) => {}
            (true, true) => return Err(conjunct),
        }
    }
    let mut stmt = Stmt::block_realize(BlockRealize {
        iter_values: values.clone(),
        predicate,
        block: Block {
            id: NodeId::fresh(),
            name: format!("{name}_init"),
            iter_vars: iters,
            reads: Vec::new(),
            writes: inner.block.writes.clone(),
            init: None,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: Vec::new(),
            body: init.clone(),
        },
    });
    for f in inner_loops {
        if kept.iter().any(|k| k.loop_var == f.loop_var) {
            let var = f.loop_var.with_name(f.loop_var.name());
            subst.insert(f.loop_var.clone(), var.to_expr());
            stmt = Stmt::new(
                StmtKind::For(For {
                    id: NodeId::fresh(),
                    loop_var: var,
                    body: stmt,
                    ..f.clone()
                }),
                Span::NONE,
            );
        }
    }
    Ok(substitute_stmt(&stmt, &subst))
}

/// The descriptor of `blockize`.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "blockize",
    aliases: &[],
    params: &[required("target"), optional("preserve_unit_iters", "True")],
    varargs: None,
    keyword_only: &[],
    doc: "Turns the loops from `target` down to the single block under it into a new outer block `C_o`: its iterators are the parts of the block's iterators bound by the loops above (`vi_o`), the block keeps the parts bound by the loops inside (`vi_i`), and a reduction's initialization moves to the outer block (`C_init`). Returns the outer block. tirc blockizes a loop; TVM also takes a list of blocks.",
    apply: apply_blockize,
}];

fn apply_blockize(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    if let Some(Value::List(_)) = bound.get(0).map(|a| &a.value) {
        let refusal = ScheduleError::new(
            codes::BAD_BLOCKIZE,
            "tirc blockizes the loops above one block; blockizing a list of blocks (TVM's other form) is not implemented",
            "pass the loop whose subtree becomes the new block",
        )
        .at_argument(0);
        return Err(run.refused(bound, refusal));
    }
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "target")?;
    let preserve = run.bool_arg(bound, 1, "preserve_unit_iters", true)?;
    let outer = blockize(run.state, loop_id, preserve).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Block, outer);
    run.record(
        "blockize",
        vec![
            (Some("target"), TraceArg::Rv(loop_rv)),
            (Some("preserve_unit_iters"), TraceArg::Bool(preserve)),
        ],
        Outputs::Single(rv),
    );
    Ok(Value::Block(rv))
}
