//! Loop transformations: `split`, `fuse`, `reorder` and `add_unit_loop`,
//! with TVM's rules (`src/s_tir/schedule/primitive/loop_transformation.cc`).
//!
//! Each primitive checks everything first, builds the new loop nest, and
//! changes the program with one `replace` at the end.

use super::binding::{append_predicate, simplify_block_bindings, substitute_loop_vars};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, typed, Primitive};
use super::scope::uses_var;
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{NodeSet, SRef, SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::arith::Analyzer;
use crate::ir::identity::VarMap;
use crate::ir::operators;
use crate::ir::{
    BinaryOp, DataType, Expr, For, ForKind, IterKind, NodeId, Range, Stmt, StmtKind, Var,
};

/// The loop of a live loop sref (callers check the kind first).
pub(super) fn loop_of(state: &ScheduleState, id: NodeId) -> ScheduleResult<(&SRef, &For)> {
    let sref = state.sref(id).ok_or_else(|| {
        ScheduleError::new(
            codes::REMOVED_HANDLE,
            "the loop is no longer in the program",
            "get the loop again",
        )
    })?;
    let for_loop = sref.as_for().ok_or_else(|| {
        ScheduleError::new(
            codes::WRONG_KIND,
            format!("expected a loop, found {}", sref.describe()),
            "pass a loop handle",
        )
    })?;
    Ok((sref, for_loop))
}

/// `(var, range)` of each loop, for binding simplification.
fn loop_ranges(state: &ScheduleState, loops: &[NodeId]) -> Vec<(Var, Range)> {
    loops
        .iter()
        .filter_map(|id| state.sref(*id).and_then(|s| s.as_for()))
        .map(|f| (f.loop_var.clone(), f.range()))
        .collect()
}

fn operator_error(error: operators::OperatorError) -> ScheduleError {
    ScheduleError::new(
        codes::BAD_FACTORS,
        format!("cannot build the new loop bounds: {}", error.0),
        "use integer factors of the loop's type",
    )
}

pub(super) fn has_annotation_error(sref: &SRef, for_loop: &For, argument: usize) -> ScheduleError {
    let what = if for_loop.thread.is_some() {
        "a thread binding"
    } else {
        "annotations"
    };
    ScheduleError::new(
        codes::LOOP_HAS_ANNOTATION,
        format!(
            "loop `{}` has {what}, which this primitive cannot carry over",
            for_loop.loop_var.name()
        ),
        "split and fuse loops before annotating or binding them",
    )
    .blame(
        sref.location(),
        format!("loop `{}`", for_loop.loop_var.name()),
    )
    .at_argument(argument)
}

pub(super) fn check_starts_at_zero(
    analyzer: &Analyzer,
    sref: &SRef,
    for_loop: &For,
    argument: usize,
) -> ScheduleResult<()> {
    let zero = Expr::zero(for_loop.min.dtype());
    let is_zero = operators::binary(BinaryOp::Eq, for_loop.min.clone(), zero)
        .map(|e| analyzer.can_prove(&e))
        .unwrap_or(false);
    if is_zero {
        return Ok(());
    }
    Err(ScheduleError::new(
        codes::LOOP_NOT_FROM_ZERO,
        format!(
            "loop `{}` starts at {}, not at 0",
            for_loop.loop_var.name(),
            for_loop.min
        ),
        "this primitive only transforms loops that start at 0",
    )
    .blame(
        sref.location(),
        format!("loop `{}`", for_loop.loop_var.name()),
    )
    .at_argument(argument))
}

/// A new serial loop `for var in range(0, extent)` around `body`.
pub(crate) fn new_loop(var: &Var, extent: Expr, body: Stmt, span: crate::source::Span) -> Stmt {
    let dtype = var.dtype();
    Stmt::new(
        StmtKind::For(For {
            id: NodeId::fresh(),
            loop_var: var.clone(),
            min: Expr::int(0, dtype),
            extent: operators::cast(dtype, extent),
            kind: ForKind::Serial,
            thread: None,
            annotations: Vec::new(),
            body,
        }),
        span,
    )
}

/// `sch.split(loop, factors, preserve_unit_iters=True, disable_predication=False)`:
/// replaces a loop by a nest of loops whose extents are the factors (one
/// `None` is inferred). Returns the new loops, outermost first.
pub fn split(
    state: &mut ScheduleState,
    loop_id: NodeId,
    factors: &[Option<Expr>],
    preserve_unit_iters: bool,
    disable_predication: bool,
) -> ScheduleResult<Vec<NodeId>> {
    let (new_stmt, new_loops) = plan_split(
        state,
        loop_id,
        factors,
        preserve_unit_iters,
        disable_predication,
    )?;
    // An exact split gives every binding the same values as before: only a
    // split past the extent can push one out of its type (the check below
    // verifies the function twice, most of a split's cost).
    if disable_predication || split_is_exact(state, loop_id, factors) {
        state.replace(loop_id, new_stmt);
        return Ok(new_loops);
    }
    // Factors far larger than the extent can make a binding overflow its
    // type (the predicate guards the access, not the arithmetic before it):
    // the split is refused when the verifier finds a binding it put outside
    // its domain.
    let bindings_outside = |function: Option<&crate::ir::PrimFunc>| {
        function.map_or(0, |function| {
            crate::verify::verify_blocks(function)
                .iter()
                .filter(|d| d.code == crate::verify::codes::BINDING_OUT_OF_DOMAIN)
                .count()
        })
    };
    let before = bindings_outside(state.function_of(loop_id));
    let mut trial = state.clone();
    trial.replace(loop_id, new_stmt);
    let after = bindings_outside(new_loops.first().and_then(|l| trial.function_of(*l)));
    if after > before {
        let (sref, for_loop) = loop_of(state, loop_id)?;
        return Err(ScheduleError::new(
            codes::BAD_FACTORS,
            format!(
                "the split factors of loop `{}` are so much larger than its extent that a block's binding would overflow {}",
                for_loop.loop_var.name(),
                for_loop.loop_var.dtype()
            ),
            "use factors whose product is close to the loop's extent (write `None` for one of them)",
        )
        .blame(sref.location(), format!("loop `{}`", for_loop.loop_var.name()))
        .at_argument(1));
    }
    *state = trial;
    Ok(new_loops)
}

/// True when the loop's extent is a constant the constant factors multiply
/// to exactly (a `None` factor is inferred from a product that divides it).
fn split_is_exact(state: &ScheduleState, loop_id: NodeId, factors: &[Option<Expr>]) -> bool {
    let Some(extent) = loop_of(state, loop_id)
        .ok()
        .and_then(|(_, for_loop)| for_loop.extent.as_int())
    else {
        return false;
    };
    let mut product = 1i64;
    for factor in factors.iter().flatten() {
        match factor.as_int().and_then(|f| product.checked_mul(f)) {
            Some(p) if p > 0 => product = p,
            _ => return false,
        }
    }
    match factors.iter().filter(|f| f.is_none()).count() {
        0 => product == extent,
        1 => extent % product == 0,
        _ => false,
    }
}

fn plan_split(
    state: &ScheduleState,
    loop_id: NodeId,
    factors: &[Option<Expr>],
    preserve_unit_iters: bool,
    disable_predication: bool,
) -> ScheduleResult<(Stmt, Vec<NodeId>)> {
    let (sref, for_loop) = loop_of(state, loop_id)?;
    let name = for_loop.loop_var.name().to_string();
    let loop_label = format!("loop `{name}`");
    let analyzer = Analyzer::new();
    if factors.is_empty() {
        return Err(ScheduleError::new(
            codes::BAD_FACTORS,
            "split needs at least one factor",
            "give the factors as a list, such as `factors=[None, 32]`",
        )
        .at_argument(1));
    }
    // Check the factors and infer the missing one, as TVM's concrete schedule does.
    let extent_type = for_loop.extent.dtype();
    let mut resolved: Vec<Option<Expr>> = Vec::with_capacity(factors.len());
    let mut infer_index = None;
    let mut total = Expr::int(1, DataType::int32());
    for (i, factor) in factors.iter().enumerate() {
        match factor {
            None => {
                if infer_index.is_some() {
                    return Err(ScheduleError::new(
                        codes::BAD_FACTORS,
                        "only one split factor can be `None`",
                        "give every factor but one; the `None` one is inferred from the extent",
                    )
                    .at_argument(1));
                }
                infer_index = Some(i);
                resolved.push(None);
            }
            Some(factor) => {
                if let Some(value) = factor.as_int() {
                    if value <= 0 {
                        return Err(ScheduleError::new(
                            codes::BAD_FACTORS,
                            format!("split factor {i} is {value}; factors must be positive"),
                            "use positive factors, and `None` for the one to infer",
                        )
                        .blame(sref.location(), loop_label.clone())
                        .at_argument(1));
                    }
                }
                let factor = if factor.dtype().bits > extent_type.bits {
                    operators::cast(extent_type, factor.clone())
                } else {
                    factor.clone()
                };
                total = operators::mul(total, factor.clone()).map_err(operator_error)?;
                resolved.push(Some(factor));
            }
        }
    }
    // TVM refuses a literal out of the loop type's range; folding it here would wrap.
    let constant_total: Option<i128> = resolved.iter().flatten().try_fold(1i128, |product, f| {
        Some(product.saturating_mul(i128::from(f.as_int()?)))
    });
    let largest = (1i128 << (extent_type.bits.clamp(8, 64) - 1)) - 1;
    // A symbolic extent may be up to the type's range: keep half of it for the extent.
    let extent_value = for_loop
        .extent
        .as_int()
        .map(i128::from)
        .unwrap_or((largest + 1) / 2);
    if let Some(product) = constant_total {
        if product.saturating_add(extent_value - 1).max(product) > largest {
            return Err(ScheduleError::new(
                codes::BAD_FACTORS,
                format!("the split factors multiply to {product}, which {extent_type} cannot hold with the extent"),
                "use factors whose product is at most the loop's extent, or a little more for a predicated tile",
            )
            .blame(sref.location(), loop_label.clone())
            .at_argument(1));
        }
    }
    if let Some(index) = infer_index {
        let numerator = operators::sub(
            operators::add(for_loop.extent.clone(), total.clone()).map_err(operator_error)?,
            Expr::int(1, total.dtype()),
        )
        .map_err(operator_error)?;
        let inferred = operators::floordiv(numerator, total).map_err(operator_error)?;
        resolved[index] = Some(analyzer.simplify(&inferred));
    } else {
        let covers = operators::binary(BinaryOp::Ge, total.clone(), for_loop.extent.clone())
            .map(|e| analyzer.can_prove(&e))
            .unwrap_or(false);
        if !covers {
            return Err(ScheduleError::new(
                codes::BAD_FACTORS,
                format!(
                    "the factors multiply to {}, less than the extent {} of loop `{name}`",
                    analyzer.simplify(&total),
                    for_loop.extent
                ),
                "make the product of the factors at least the extent, or write `None` for one factor",
            )
            .blame(sref.location(), loop_label)
            .at_argument(1));
        }
    }
    let factors: Vec<Expr> = resolved.into_iter().flatten().collect();
    if !for_loop.annotations.is_empty() || for_loop.thread.is_some() {
        return Err(has_annotation_error(sref, for_loop, 0));
    }
    check_starts_at_zero(&analyzer, sref, for_loop, 0)?;

    // The new loop variables and the expression that replaces the old one.
    let bits = factors
        .iter()
        .map(|f| f.dtype().bits)
        .fold(for_loop.loop_var.dtype().bits, u16::max);
    let dtype = DataType::int(bits);
    let mut analyzer = Analyzer::new();
    let mut substitute_value = Expr::int(0, dtype);
    let mut new_vars = Vec::with_capacity(factors.len());
    for (i, factor) in factors.iter().enumerate() {
        let var = for_loop
            .loop_var
            .with_name(bounded_loop_name(format!("{name}_{i}")))
            .with_dtype(dtype);
        substitute_value = operators::add(
            operators::mul(substitute_value, factor.clone()).map_err(operator_error)?,
            var.to_expr(),
        )
        .map_err(operator_error)?;
        analyzer.bind(
            &var,
            &Range::new(Expr::int(0, dtype), operators::cast(dtype, factor.clone())),
        );
        new_vars.push(var);
    }
    let map = VarMap::from_iter([(for_loop.loop_var.clone(), substitute_value.clone())]);
    let mut body = substitute_loop_vars(&for_loop.body, &map);
    let predicate = operators::binary(BinaryOp::Lt, substitute_value, for_loop.extent.clone())
        .map_err(operator_error)?;
    if !disable_predication
        && !predicate_always_holds(&analyzer, &predicate, &factors, &for_loop.extent)
    {
        body = append_predicate(&body, &predicate);
    }
    for (var, factor) in new_vars.iter().zip(&factors).rev() {
        body = new_loop(var, factor.clone(), body, sref.span());
    }
    let outer = loop_ranges(state, &state.enclosing_loops(loop_id));
    let new_stmt = simplify_block_bindings(&body, &outer, preserve_unit_iters);
    let new_ids = loop_nest_ids(&new_stmt, factors.len());
    Ok((new_stmt, new_ids))
}

/// Refuses a fuse of constant extents whose product does not fit the fused
/// variable's type (TVM wraps the extent around, or fails on the literal,
/// depending on the order of the fuses).
/// The longest loop name split and fuse generate. TVM's names grow with
/// every step (`i_0_i_1_fused_0_...`): 20 split/fuse pairs print 25 MB and
/// 1,000 exhaust memory. Past this length a generated name restarts from its
/// first part with the step's suffix (`i_0`, `i_fused`), as a fresh loop's
/// would; the printer keeps names unique.
const MAX_GENERATED_LOOP_NAME: usize = 96;

/// `name`, or a short name in its place when `name` is too long.
fn bounded_loop_name(name: String) -> String {
    if name.len() <= MAX_GENERATED_LOOP_NAME {
        return name;
    }
    let first = name.split('_').next().unwrap_or("i");
    let last = name.rsplit('_').next().unwrap_or("fused");
    format!("{first}_{last}")
}

fn check_fused_extent_fits(
    state: &ScheduleState,
    loops: &[NodeId],
    fors: &[&For],
    dtype: DataType,
) -> ScheduleResult<()> {
    let extents: Option<Vec<i64>> = fors.iter().map(|f| f.extent.as_int()).collect();
    let Some(extents) = extents else {
        return Ok(());
    };
    let product = extents
        .iter()
        .try_fold(1i128, |product, &e| product.checked_mul(i128::from(e)));
    let limit = (1i128 << (dtype.bits.clamp(1, 64) - 1)) - 1;
    if product.is_some_and(|p| p <= limit) {
        return Ok(());
    }
    let shown = extents
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(" * ");
    let mut error = ScheduleError::new(
        codes::EXTENT_OVERFLOW,
        format!("cannot fuse: the fused extent {shown} does not fit `{dtype}`, the type of the loop variables"),
        "fuse fewer loops, or give the loops `int64` variables",
    );
    if let Some(sref) = state.sref(loops[0]) {
        error = error.blame(
            sref.location(),
            format!("loop `{}`", fors[0].loop_var.name()),
        );
    }
    Err(error)
}

/// Whether the split's guard `substitute_value < extent` always holds. With
/// constant factors and extent the new loops reach `product - 1` at most, so
/// the guard holds exactly when the product does not exceed the extent: the
/// answer TVM's analyzer gives, without running it. Otherwise the analyzer
/// decides, with symbolic bounds as TVM's split asks it to.
fn predicate_always_holds(
    analyzer: &Analyzer,
    predicate: &Expr,
    factors: &[Expr],
    extent: &Expr,
) -> bool {
    let constants: Option<Vec<i64>> = factors.iter().map(Expr::as_int).collect();
    if let (Some(constants), Some(extent)) = (constants, extent.as_int()) {
        let product = constants
            .iter()
            .try_fold(1i64, |product, f| product.checked_mul(*f));
        if let Some(product) = product {
            return product <= extent;
        }
    }
    analyzer.can_prove_with_symbolic_bound(predicate)
}

/// The ids of the first `count` loops of a perfect nest, outermost first.
fn loop_nest_ids(stmt: &Stmt, count: usize) -> Vec<NodeId> {
    let mut ids = Vec::with_capacity(count);
    let mut current = stmt.clone();
    while ids.len() < count {
        let Some(for_loop) = current.as_for() else {
            break;
        };
        ids.push(for_loop.id);
        let body = for_loop.body.clone();
        current = body;
    }
    ids
}

/// `sch.fuse(*loops, preserve_unit_iters=True)`: replaces a chain of nested
/// loops, each the only child of the one before, by one loop.
pub fn fuse(
    state: &mut ScheduleState,
    loops: &[NodeId],
    preserve_unit_iters: bool,
) -> ScheduleResult<NodeId> {
    let (new_stmt, fused) = plan_fuse(state, loops, preserve_unit_iters)?;
    state.replace(loops[0], new_stmt);
    Ok(fused)
}

fn plan_fuse(
    state: &ScheduleState,
    loops: &[NodeId],
    preserve_unit_iters: bool,
) -> ScheduleResult<(Stmt, NodeId)> {
    if loops.is_empty() {
        return Err(ScheduleError::new(
            codes::BAD_ARGUMENTS,
            "fuse needs at least one loop",
            "pass the loops to fuse, outermost first",
        ));
    }
    let analyzer = Analyzer::new();
    let mut fors: Vec<&For> = Vec::with_capacity(loops.len());
    let mut outer_vars: Vec<&Var> = Vec::new();
    for (k, &id) in loops.iter().enumerate() {
        let (sref, for_loop) = loop_of(state, id)?;
        if !for_loop.annotations.is_empty() || for_loop.thread.is_some() {
            return Err(has_annotation_error(sref, for_loop, k));
        }
        if k > 0 {
            let outer_id = loops[k - 1];
            let (outer_sref, outer) = loop_of(state, outer_id)?;
            let outer_name = outer.loop_var.name();
            let inner_name = for_loop.loop_var.name();
            if sref.parent != Some(outer_id) {
                return Err(ScheduleError::new(
                    codes::NOT_ADJACENT,
                    format!("cannot fuse: loop `{outer_name}` is not the parent of loop `{inner_name}`"),
                    "fuse takes adjacent loops, outermost first, each directly inside the one before",
                )
                .blame(outer_sref.location(), format!("outer loop `{outer_name}`"))
                .blame(sref.location(), format!("loop `{inner_name}`"))
                .at_argument(k));
            }
            let only_child = outer.body.as_for().is_some_and(|f| f.id == id);
            if !only_child {
                return Err(ScheduleError::new(
                    codes::NOT_ADJACENT,
                    format!("cannot fuse: loop `{inner_name}` is not the only statement in loop `{outer_name}`"),
                    "fuse only loops that form a perfect nest",
                )
                .blame(outer_sref.location(), format!("outer loop `{outer_name}`"))
                .blame(sref.location(), format!("loop `{inner_name}`"))
                .at_argument(k));
            }
        }
        check_starts_at_zero(&analyzer, sref, for_loop, k)?;
        if let Some(var) = outer_vars.iter().find(|v| uses_var(&for_loop.extent, v)) {
            return Err(ScheduleError::new(
                codes::DEPENDENT_LOOP,
                format!(
                    "the extent of loop `{}` depends on loop `{}`",
                    for_loop.loop_var.name(),
                    var.name()
                ),
                "only loops with independent extents can be fused",
            )
            .blame(
                sref.location(),
                format!("loop `{}`", for_loop.loop_var.name()),
            )
            .at_argument(k));
        }
        outer_vars.push(&for_loop.loop_var);
        fors.push(for_loop);
    }
    let count = fors.len();
    let mut suffix = String::new();
    let mut bits = fors[0].loop_var.dtype().bits;
    for inner in &fors[1..] {
        suffix.push('_');
        suffix.push_str(inner.loop_var.name());
        bits = bits.max(inner.loop_var.dtype().bits);
    }
    suffix.push_str("_fused");
    let dtype = DataType::int(bits);
    check_fused_extent_fits(state, loops, &fors, dtype)?;
    let fused_var = fors[0]
        .loop_var
        .with_name(bounded_loop_name(format!(
            "{}{suffix}",
            fors[0].loop_var.name()
        )))
        .with_dtype(dtype);
    let fused = fused_var.to_expr();
    let mut values: Vec<Expr> = vec![Expr::i32(0); count];
    let mut lower = Expr::i32(1);
    for i in (1..count).rev() {
        let next_lower = analyzer.simplify(
            &operators::mul(fors[i].extent.clone(), lower.clone()).map_err(operator_error)?,
        );
        if !operators::is_one(&fors[i].extent) {
            values[i] = operators::floordiv(
                operators::floormod(fused.clone(), next_lower.clone()).map_err(operator_error)?,
                lower.clone(),
            )
            .map_err(operator_error)?;
        }
        lower = next_lower;
    }
    if !operators::is_one(&fors[0].extent) {
        values[0] = operators::floordiv(fused.clone(), lower).map_err(operator_error)?;
    }
    let map: VarMap<Expr> = fors
        .iter()
        .zip(values)
        .map(|(f, value)| (f.loop_var.clone(), value))
        .collect();
    let body = substitute_loop_vars(&fors[count - 1].body, &map);
    let mut fused_extent = Expr::i32(1);
    for for_loop in &fors {
        fused_extent =
            operators::mul(fused_extent, for_loop.extent.clone()).map_err(operator_error)?;
    }
    let fused_extent = analyzer.simplify(&fused_extent);
    let span = state.sref(loops[0]).map(|s| s.span()).unwrap_or_default();
    let new_stmt = new_loop(&fused_var, fused_extent, body, span);
    let outer = loop_ranges(state, &state.enclosing_loops(loops[0]));
    let new_stmt = simplify_block_bindings(&new_stmt, &outer, preserve_unit_iters);
    let id = new_stmt.as_for().map(|f| f.id).unwrap_or(NodeId(0));
    Ok((new_stmt, id))
}

/// `sch.reorder(*ordered_loops)`: puts the given loops, which lie on one
/// chain of only children, in the given order; loops of the chain that are
/// not given stay where they are.
pub fn reorder(state: &mut ScheduleState, ordered: &[NodeId]) -> ScheduleResult<()> {
    if let Some((top, new_nest)) = plan_reorder(state, ordered)? {
        state.replace(top, new_nest);
    }
    Ok(())
}

/// The top loop of the reordered range and its new nest (`None` when there
/// is nothing to do).
fn plan_reorder(
    state: &ScheduleState,
    ordered: &[NodeId],
) -> ScheduleResult<Option<(NodeId, Stmt)>> {
    if ordered.len() <= 1 {
        return Ok(None);
    }
    // Step 1: every loop once.
    let mut set = NodeSet::default();
    for (k, &id) in ordered.iter().enumerate() {
        let (sref, for_loop) = loop_of(state, id)?;
        if !set.insert(id) {
            return Err(ScheduleError::new(
                codes::DUPLICATE_LOOP,
                format!("loop `{}` appears more than once", for_loop.loop_var.name()),
                "name each loop once in the new order",
            )
            .blame(
                sref.location(),
                format!("loop `{}`", for_loop.loop_var.name()),
            )
            .at_argument(k));
        }
    }
    // Step 2: the top and bottom of the range, walking up from each loop.
    let mut top: Option<NodeId> = None;
    let mut bottom = ordered[0];
    let mut visited = NodeSet::default();
    let mut scope_block_visited = false;
    for (k, &start) in ordered.iter().enumerate() {
        if visited.contains(&start) {
            continue;
        }
        let mut current = Some(start);
        while let Some(v) = current {
            let Some(sref) = state.sref(v) else {
                break;
            };
            if sref.kind == SRefKind::Block {
                if scope_block_visited {
                    return Err(ScheduleError::new(
                        codes::NOT_A_CHAIN,
                        "the loops are not under the same block",
                        "reorder loops of one loop nest, above one block",
                    )
                    .at_argument(k));
                }
                scope_block_visited = true;
                break;
            }
            if visited.contains(&v) {
                if v != bottom {
                    return Err(not_single_branch(state, v).at_argument(k));
                }
                bottom = start;
                break;
            }
            visited.insert(v);
            if k == 0 && set.contains(&v) {
                top = Some(v);
            }
            current = sref.parent;
        }
    }
    let top = top.unwrap_or(ordered[0]);
    // Step 3: the chain from bottom to top; each loop the only child of the next.
    let mut chain = Vec::new();
    let mut current = bottom;
    while current != top {
        let Some(sref) = state.sref(current) else {
            break;
        };
        let Some(parent) = sref.parent else {
            break;
        };
        let Some(parent_sref) = state.sref(parent) else {
            break;
        };
        let only_child = parent_sref
            .as_for()
            .and_then(|f| f.body.as_for())
            .is_some_and(|inner| inner.id == current);
        if !only_child {
            return Err(not_single_branch(state, parent));
        }
        chain.push(current);
        current = parent;
    }
    chain.push(top);
    // Step 4: the blocks under the bottom loop have spatial or reduction
    // iterators and bindings affine under the range.
    let high_exclusive = state.sref(top).and_then(|s| s.parent);
    for block_id in state.child_blocks(bottom) {
        let Some(block_sref) = state.sref(block_id) else {
            continue;
        };
        let Some(realize) = block_sref.as_realize() else {
            continue;
        };
        if realize.block.iter_vars.is_empty() {
            continue;
        }
        if realize
            .block
            .iter_vars
            .iter()
            .any(|iv| !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
        {
            return Err(ScheduleError::new(
                codes::BAD_BLOCK_UNDER_LOOPS,
                format!(
                    "block `{}` under the loops has iterators that are neither spatial nor reduction",
                    realize.block.name
                ),
                "reorder only moves loops over spatial and reduction block iterators",
            )
            .blame(block_sref.location(), format!("block `{}`", realize.block.name)));
        }
        if state.affine_binding(block_id) {
            continue;
        }
        let partially_affine = match (block_sref.parent, high_exclusive) {
            (Some(parent), Some(high)) => {
                let mut loops: Vec<&For> = Vec::new();
                let mut walk = Some(parent);
                while let Some(id) = walk {
                    if id == high {
                        break;
                    }
                    let Some(s) = state.sref(id) else { break };
                    let Some(f) = s.as_for() else { break };
                    loops.push(f);
                    walk = s.parent;
                }
                crate::arith::is_affine_binding(realize, loops)
            }
            _ => false,
        };
        if !partially_affine {
            let under = high_exclusive
                .and_then(|h| state.sref(h))
                .and_then(|s| s.as_for())
                .map(|f| format!(" under loop `{}`", f.loop_var.name()))
                .unwrap_or_default();
            return Err(ScheduleError::new(
                codes::BAD_BLOCK_UNDER_LOOPS,
                format!(
                    "block `{}` needs an affine binding{under} to have its loops reordered",
                    realize.block.name
                ),
                "reorder loops above blocks whose bindings are sums of loop variables times constants",
            )
            .blame(block_sref.location(), format!("block `{}`", realize.block.name)));
        }
    }
    // Step 5: rebuild the chain in the new order, checking that no loop's
    // range depends on a loop that ends up inside it.
    let mut inner_vars: Vec<&Var> = Vec::new();
    let mut new_nest: Option<Stmt> = None;
    let mut index = ordered.len();
    for &position in &chain {
        let source_id = if set.contains(&position) {
            index -= 1;
            ordered[index]
        } else {
            position
        };
        let (source_sref, source) = loop_of(state, source_id)?;
        let body = match &new_nest {
            Some(inner) => inner.clone(),
            None => loop_of(state, position)?.1.body.clone(),
        };
        if let Some(var) = inner_vars
            .iter()
            .find(|v| uses_var(&source.min, v) || uses_var(&source.extent, v))
        {
            return Err(ScheduleError::new(
                codes::DEPENDENT_LOOP,
                format!(
                    "the range of loop `{}` depends on loop `{}`, which the new order puts inside it",
                    source.loop_var.name(),
                    var.name()
                ),
                "keep loops whose ranges depend on other loops inside those loops",
            )
            .blame(source_sref.location(), format!("loop `{}`", source.loop_var.name())));
        }
        inner_vars.push(&source.loop_var);
        new_nest = Some(source_sref.stmt.with_kind(StmtKind::For(For {
            body,
            ..source.clone()
        })));
    }
    Ok(new_nest.map(|nest| (top, nest)))
}

fn not_single_branch(state: &ScheduleState, at: NodeId) -> ScheduleError {
    let mut error = ScheduleError::new(
        codes::NOT_A_CHAIN,
        "the loops are not on one chain: a loop between them has more than one statement in its body",
        "reorder only loops of a perfect nest (each loop the only statement of the one outside it)",
    );
    if let Some(sref) = state.sref(at) {
        error = error.blame(
            sref.location(),
            format!("{} has a branching body", sref.describe()),
        );
    }
    error
}

/// `sch.add_unit_loop(block_or_loop)`: wraps the loop or block in a new loop
/// `u` of extent 1. Returns the new loop.
pub fn add_unit_loop(state: &mut ScheduleState, target: NodeId) -> ScheduleResult<NodeId> {
    let (new_stmt, new_loop_id) = plan_add_unit_loop(state, target)?;
    state.replace(target, new_stmt);
    Ok(new_loop_id)
}

fn plan_add_unit_loop(state: &ScheduleState, target: NodeId) -> ScheduleResult<(Stmt, NodeId)> {
    let sref = state.sref(target).ok_or_else(|| {
        ScheduleError::new(
            codes::REMOVED_HANDLE,
            "the loop or block is no longer in the program",
            "get it again",
        )
    })?;
    if sref.kind == SRefKind::Block && sref.parent.is_none() {
        return Err(ScheduleError::new(
            codes::ROOT_BLOCK,
            "cannot add a loop above the root block",
            "add unit loops above blocks inside the function",
        )
        .blame(sref.location(), "the root block")
        .at_argument(0));
    }
    let var = Var::new("u", DataType::int32(), crate::source::Span::NONE);
    let new_stmt = new_loop(&var, Expr::i32(1), sref.stmt.clone(), sref.span());
    let id = new_stmt.as_for().map(|f| f.id).unwrap_or(NodeId(0));
    Ok((new_stmt, id))
}

/// The loop transformations' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "split",
        aliases: &[],
        params: &[
            required("loop"),
            typed("factors", "list"),
            optional("preserve_unit_iters", "True"),
            optional("disable_predication", "False"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Splits a loop into nested loops whose extents are `factors` (at most one `None`, inferred). The new loops are named `i_0, i_1, ...`. A factor that does not divide the extent adds a `T.where` predicate, unless `disable_predication=True`.",
        apply: apply_split,
    },
    Primitive {
        name: "fuse",
        aliases: &[],
        params: &[],
        varargs: Some("loops"),
        keyword_only: &[optional("preserve_unit_iters", "True")],
        doc: "Fuses perfectly nested consecutive loops into one loop named `i_j_fused`.",
        apply: apply_fuse,
    },
    Primitive {
        name: "reorder",
        aliases: &[],
        params: &[],
        varargs: Some("ordered_loops"),
        keyword_only: &[],
        doc: "Reorders loops of one nest to the given order; the loops must be in one chain, and a block's iteration bindings must stay affine.",
        apply: apply_reorder,
    },
    Primitive {
        name: "add_unit_loop",
        aliases: &[],
        params: &[required("block_or_loop")],
        varargs: None,
        keyword_only: &[],
        doc: "Adds a loop of extent 1 above a block or loop and returns it.",
        apply: apply_add_unit_loop,
    },
];

fn apply_split(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (loop_rv, loop_id) = run.loop_arg(bound, 0, "loop")?;
    let expected = "a list of integers and one `None`";
    let factors_arg = bound.get(1).cloned();
    let Some(Value::List(items)) = factors_arg.as_ref().map(|a| &a.value) else {
        let found = factors_arg.map(|a| a.value).unwrap_or(Value::None);
        return Err(run.wrong_kind(bound, 1, "factors", expected, &found));
    };
    let mut factors = Vec::with_capacity(items.len());
    let mut trace_factors = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::None => {
                factors.push(None);
                trace_factors.push(TraceArg::None);
            }
            Value::Int(v) | Value::Sampled(_, v) => {
                let dtype = if i32::try_from(*v).is_ok() {
                    DataType::int32()
                } else {
                    DataType::int64()
                };
                factors.push(Some(Expr::int(*v, dtype)));
                trace_factors.push(match item {
                    Value::Sampled(rv, _) => TraceArg::Rv(*rv),
                    _ => TraceArg::Int(*v),
                });
            }
            other => return Err(run.wrong_kind(bound, 1, "factors", expected, other)),
        }
    }
    // A factor must fit the loop variable's type (TVM would wrap it around).
    let loop_dtype = run
        .state
        .sref(loop_id)
        .and_then(|s| s.as_for())
        .map(|f| f.loop_var.dtype());
    if let Some(dtype) = loop_dtype.filter(|d| d.bits <= 32) {
        if let Some(too_big) = factors
            .iter()
            .flatten()
            .find(|f| f.as_int().is_some_and(|v| i32::try_from(v).is_err()))
        {
            let refusal = ScheduleError::new(
                codes::BAD_FACTORS,
                format!(
                    "the factor {} does not fit the loop variable's type `{dtype}`",
                    crate::printer::expr_to_string(too_big)
                ),
                "use factors at most 2147483647 for an int32 loop",
            )
            .at_argument(1);
            return Err(run.refused(bound, refusal));
        }
    }
    let preserve = run.bool_arg(bound, 2, "preserve_unit_iters", true)?;
    let disable = run.bool_arg(bound, 3, "disable_predication", false)?;
    let loops = split(run.state, loop_id, &factors, preserve, disable)
        .map_err(|e| run.refused(bound, e))?;
    let (rvs, value) = run.new_rvs(SRefKind::Loop, &loops);
    run.record(
        "split",
        vec![
            (Some("loop"), TraceArg::Rv(loop_rv)),
            (Some("factors"), TraceArg::List(trace_factors)),
            (Some("preserve_unit_iters"), TraceArg::Bool(preserve)),
            (Some("disable_predication"), TraceArg::Bool(disable)),
        ],
        Outputs::List(rvs),
    );
    Ok(value)
}

fn apply_fuse(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (rvs, loops) = run.loop_varargs(bound)?;
    let preserve = match bound.keyword_only.get("preserve_unit_iters") {
        None => true,
        Some(arg) => run.as_bool(arg, "preserve_unit_iters")?,
    };
    let fused = fuse(run.state, &loops, preserve).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Loop, fused);
    let mut args: Vec<(Option<&'static str>, TraceArg)> =
        rvs.iter().map(|r| (None, TraceArg::Rv(*r))).collect();
    args.push((Some("preserve_unit_iters"), TraceArg::Bool(preserve)));
    run.record("fuse", args, Outputs::Single(rv));
    Ok(Value::Loop(rv))
}

fn apply_reorder(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (rvs, loops) = run.loop_varargs(bound)?;
    reorder(run.state, &loops).map_err(|e| run.refused(bound, e))?;
    run.record(
        "reorder",
        rvs.iter().map(|r| (None, TraceArg::Rv(*r))).collect(),
        Outputs::Nothing,
    );
    Ok(Value::None)
}

fn apply_add_unit_loop(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (target_rv, target) = run.handle_arg(bound, 0, "block_or_loop", None)?;
    let new_loop = add_unit_loop(run.state, target).map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Loop, new_loop);
    run.record(
        "add_unit_loop",
        vec![(Some("block_or_loop"), TraceArg::Rv(target_rv))],
        Outputs::Single(rv),
    );
    Ok(Value::Loop(rv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state, unchanged, MATMUL};

    fn int(v: i64) -> Option<Expr> {
        Some(Expr::i32(v))
    }

    #[test]
    fn split_infers_the_missing_factor_and_keeps_the_block() {
        let mut s = state(MATMUL);
        let (block, loops) = block_and_loops(&s, "C");
        let new_loops = split(&mut s, loops[0], &[None, int(32)], true, false).unwrap();
        assert_eq!(new_loops.len(), 2);
        let text = printed(&s);
        assert!(
            text.contains("for i_0, i_1, j, k in T.grid(4, 32, 128, 128):"),
            "{text}"
        );
        assert!(
            text.contains("vi = T.axis.spatial(128, i_0 * 32 + i_1)"),
            "{text}"
        );
        assert!(!text.contains("T.where"), "{text}");
        // The block and the other loops keep their handles; the split loop is gone.
        assert!(s.sref(block).is_some() && s.sref(loops[1]).is_some());
        assert!(s.sref(loops[0]).is_none());
    }

    #[test]
    fn non_dividing_split_adds_a_predicate_unless_disabled() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        split(&mut s, loops[1], &[None, int(7)], true, false).unwrap();
        assert!(printed(&s).contains("T.where(j_0 * 7 + j_1 < 128)"));
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        split(&mut s, loops[1], &[None, int(7)], true, true).unwrap();
        let text = printed(&s);
        assert!(!text.contains("T.where"), "{text}");
        assert!(text.contains("T.grid(128, 19, 7, 128)"), "{text}");
    }

    #[test]
    fn bad_factors_are_refused_and_change_nothing() {
        let s0 = state(MATMUL);
        let (_, loops) = block_and_loops(&s0, "C");
        for (factors, code) in [
            (vec![None, None], codes::BAD_FACTORS),
            (vec![int(0), None], codes::BAD_FACTORS),
            (vec![int(-4), None], codes::BAD_FACTORS),
            (vec![int(2), int(8)], codes::BAD_FACTORS),
            (vec![], codes::BAD_FACTORS),
            // Inferring ceil(extent / 2^31 - 1) would wrap int32 (found by fuzzing).
            (vec![int(2147483647), None], codes::BAD_FACTORS),
            (vec![int(65536), int(65536), None], codes::BAD_FACTORS),
        ] {
            let mut s = s0.clone();
            let error = split(&mut s, loops[0], &factors, true, false).unwrap_err();
            assert_eq!(error.code, code, "{factors:?}: {}", error.message);
            assert!(unchanged(&s0, &s));
        }
    }

    #[test]
    fn generated_names_stay_bounded_over_many_split_fuse_pairs() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        let mut outer = loops[0];
        for _ in 0..1_000 {
            let parts = split(&mut s, outer, &[None, int(2)], true, false).unwrap();
            outer = fuse(&mut s, &parts, true).unwrap();
        }
        let text = printed(&s);
        assert!(text.len() < 4_000, "{} bytes printed", text.len());
        let longest = text
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .map(str::len)
            .max();
        assert!(longest <= Some(MAX_GENERATED_LOOP_NAME), "{text}");
    }

    #[test]
    fn fuse_names_the_loop_after_all_fused_loops() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        let fused = fuse(&mut s, &loops, true).unwrap();
        let text = printed(&s);
        assert!(
            text.contains("for i_j_k_fused in range(2097152):"),
            "{text}"
        );
        assert!(
            text.contains("vi = T.axis.spatial(128, i_j_k_fused // 16384)"),
            "{text}"
        );
        assert!(
            text.contains("vj = T.axis.spatial(128, i_j_k_fused % 16384 // 128)"),
            "{text}"
        );
        assert!(
            text.contains("vk = T.axis.reduce(128, i_j_k_fused % 128)"),
            "{text}"
        );
        assert!(s.sref(fused).is_some());
    }

    #[test]
    fn fuse_refuses_loops_that_are_not_a_chain() {
        let s0 = state(MATMUL);
        let (_, loops) = block_and_loops(&s0, "C");
        let mut s = s0.clone();
        let error = fuse(&mut s, &[loops[0], loops[2]], true).unwrap_err();
        assert_eq!(error.code, codes::NOT_ADJACENT);
        assert_eq!(error.argument, Some(1));
        let error = fuse(&mut s, &[loops[1], loops[0]], true).unwrap_err();
        assert_eq!(error.code, codes::NOT_ADJACENT);
        assert!(unchanged(&s0, &s));
        assert_eq!(
            fuse(&mut s, &[], true).unwrap_err().code,
            codes::BAD_ARGUMENTS
        );
    }

    #[test]
    fn reorder_keeps_loop_handles_and_refuses_duplicates() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        reorder(&mut s, &[loops[2], loops[0]]).unwrap();
        let text = printed(&s);
        assert!(
            text.contains("for k, j, i in T.grid(128, 128, 128):"),
            "{text}"
        );
        for id in &loops {
            assert!(s.sref(*id).is_some());
        }
        let before = s.clone();
        let error = reorder(&mut s, &[loops[1], loops[1]]).unwrap_err();
        assert_eq!(error.code, codes::DUPLICATE_LOOP);
        assert!(unchanged(&before, &s));
    }

    #[test]
    fn reorder_across_a_split() {
        let mut s = state(MATMUL);
        let (_, loops) = block_and_loops(&s, "C");
        let i = split(&mut s, loops[0], &[None, int(16)], true, false).unwrap();
        let j = split(&mut s, loops[1], &[None, int(8)], true, false).unwrap();
        reorder(&mut s, &[i[0], j[0], loops[2], i[1], j[1]]).unwrap();
        let text = printed(&s);
        assert!(
            text.contains("for i_0, j_0, k, i_1, j_1 in T.grid(8, 16, 128, 16, 8):"),
            "{text}"
        );
    }

    #[test]
    fn add_unit_loop_wraps_loops_and_blocks_but_not_the_root() {
        let mut s = state(MATMUL);
        let (block, loops) = block_and_loops(&s, "C");
        add_unit_loop(&mut s, loops[0]).unwrap();
        add_unit_loop(&mut s, block).unwrap();
        let text = printed(&s);
        assert!(
            text.contains("for u, i, j, k, u_1 in T.grid(1, 128, 128, 128, 1):"),
            "{text}"
        );
        let root = s.root_block(0).unwrap();
        let error = add_unit_loop(&mut s, root).unwrap_err();
        assert_eq!(error.code, codes::ROOT_BLOCK);
    }
}
