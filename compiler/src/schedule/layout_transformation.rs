//! Layout transformations, after TVM's `layout_transformation.cc`:
//! `transform_layout` gives a buffer a new shape through an index map
//! (`lambda i, j: (i // 16, j // 16, i % 16, j % 16)`) and rewrites every
//! access to it; `transform_block_layout` gives a block new iterators
//! through an index map of its old ones, and new loops over them.
//!
//! Like TVM, a map that would pad the buffer (`i // 10, i % 10` over 64
//! rows) is refused unless `pad_value` is given (`layout_padding.rs` then
//! writes the padding) or the map is declared injective.

use super::access::{allocation_site, nth_access_buffer, scope_root_of, AccessKind};
use super::binding::and_conjunct;
use super::error::{codes, ScheduleError, ScheduleResult};
use super::layout_padding::{fill_padding, padded_inverse, widen_short_splits, PaddingPlan};
use super::primitive::{optional, required, Primitive};
use super::script::{Bound, Eval, Interpreter, Lambda, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::analysis::access_regions::infer_block_regions;
use crate::arith::int_set::{eval_set, IntSet};
use crate::arith::iter_map::{
    detect_iter_map, inverse_affine_iter_map, iter_map_simplify, IterMapLevel, IterMapResult,
};
use crate::arith::polynomial::PolynomialExpander;
use crate::arith::{build, Analyzer};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, substitute, Mutator,
};
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    operators, BinaryOp, Block, BlockRealize, Buffer, BufferRegion, DataType, Expr, ExprKind,
    IterKind, IterVar, NodeId, Range, Stmt, StmtKind, Var,
};
use crate::printer::expr_to_string;
use crate::source::Span;
use tirc_grammar::ast;

/// A map from a buffer's indices to new ones: `lambda i, j: (j, i)`.
#[derive(Clone, Debug)]
pub struct IndexMap {
    /// The variables standing for the old indices.
    pub initial: Vec<Var>,
    /// The new indices, in terms of `initial`.
    pub outputs: Vec<Expr>,
}

impl IndexMap {
    /// The new indices of an access at `indices`, simplified.
    pub fn map_indices(&self, indices: &[Expr], analyzer: &Analyzer) -> Vec<Expr> {
        let binding: VarMap<Expr> = self
            .initial
            .iter()
            .cloned()
            .zip(indices.iter().cloned())
            .collect();
        self.outputs
            .iter()
            .map(|output| analyzer.simplify(&substitute(output, &binding)))
            .collect()
    }

    /// Each parameter with the range of the buffer dimension it indexes.
    fn input_ranges(&self, buffer: &Buffer) -> Vec<(Var, Range)> {
        self.initial
            .iter()
            .zip(buffer.shape())
            .map(|(var, extent)| {
                (
                    var.clone(),
                    Range::new(Expr::zero(extent.dtype()), extent.clone()),
                )
            })
            .collect()
    }

    /// The affine form of the map when the old indices range over
    /// `inputs`, checked to be a bijection onto the new indices.
    fn detect_bijective(&self, inputs: &[(Var, Range)], analyzer: &Analyzer) -> IterMapResult {
        detect_iter_map(
            &self.outputs,
            inputs,
            &Expr::bool(true),
            IterMapLevel::Bijective,
            analyzer,
            false,
        )
    }

    /// The map as TVM's traces print it: `lambda i, j: (j, i,)`.
    pub fn to_python(&self) -> String {
        let params: Vec<&str> = self.initial.iter().map(Var::name).collect();
        let outputs: String = self
            .outputs
            .iter()
            .map(|o| format!("{}, ", expr_to_string(o)))
            .collect();
        format!(
            "lambda {}: ({},)",
            params.join(", "),
            outputs.trim_end_matches(", ")
        )
    }
}

/// Reads a script `lambda` as an index map over `rank` indices of type
/// `dtype`: parameters, integers, `+ - * // %` and tuples of them.
pub fn index_map_from_lambda(
    lambda: &Lambda,
    rank: usize,
    dtype: DataType,
) -> ScheduleResult<IndexMap> {
    if lambda.params.len() != rank {
        return Err(ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            format!(
                "the index map takes {} index{} but the buffer has {rank} dimension{}",
                lambda.params.len(),
                if lambda.params.len() == 1 { "" } else { "es" },
                if rank == 1 { "" } else { "s" }
            ),
            "write one lambda parameter per buffer dimension, such as `lambda i, j: (j, i)`",
        )
        .at_argument(2));
    }
    let initial: Vec<Var> = lambda
        .params
        .iter()
        .map(|name| Var::new(name.as_str(), dtype, Span::NONE))
        .collect();
    let items: Vec<&ast::Expr> = match &lambda.body.kind {
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => items.iter().collect(),
        _ => vec![&lambda.body],
    };
    let outputs = items
        .into_iter()
        .map(|item| index_expr(item, &initial, dtype))
        .collect::<Result<Vec<Expr>, String>>()
        .map_err(|message| {
            ScheduleError::new(
                codes::BAD_LAYOUT_TRANSFORM,
                message,
                "write the new indices with the lambda's parameters, integers and `+ - * // %`",
            )
            .at_argument(2)
        })?;
    if outputs.is_empty() {
        return Err(ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            "the index map gives no indices",
            "return at least one index, such as `lambda i: (i // 4, i % 4)`",
        )
        .at_argument(2));
    }
    Ok(IndexMap { initial, outputs })
}

/// An index expression of a script `lambda` over `params`: parameters,
/// integers (`T.int64(8)` too) and `+ - * // %`.
pub(crate) fn index_expr(
    expr: &ast::Expr,
    params: &[Var],
    dtype: DataType,
) -> Result<Expr, String> {
    let operator_error = |e: crate::ir::operators::OperatorError| e.0;
    match &expr.kind {
        ast::ExprKind::Name(name) => params
            .iter()
            .find(|p| p.name() == name)
            .map(Var::to_expr)
            .ok_or_else(|| format!("`{name}` is not a parameter of the index map")),
        ast::ExprKind::Int(value) => i64::try_from(value.get())
            .map(|v| Expr::int(v, dtype))
            .map_err(|_| "an integer in the index map is too large".to_string()),
        ast::ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => operators::sub(Expr::zero(dtype), index_expr(operand, params, dtype)?)
            .map_err(operator_error),
        ast::ExprKind::BinOp { op, lhs, rhs } => {
            let (a, b) = (
                index_expr(lhs, params, dtype)?,
                index_expr(rhs, params, dtype)?,
            );
            let op = match op {
                ast::BinOp::Add => BinaryOp::Add,
                ast::BinOp::Sub => BinaryOp::Sub,
                ast::BinOp::Mul => BinaryOp::Mul,
                ast::BinOp::FloorDiv => BinaryOp::FloorDiv,
                ast::BinOp::Mod => BinaryOp::FloorMod,
                _ => return Err("an index map may use `+ - * // %` only".to_string()),
            };
            operators::binary(op, a, b).map_err(operator_error)
        }
        // A typed integer, `T.int64(8)`, as index maps print in traces.
        ast::ExprKind::Call {
            func,
            args,
            keywords,
        } if keywords.is_empty() && args.len() == 1 => {
            let name = func.dotted_name().unwrap_or_default();
            let typed = name
                .strip_prefix("T.")
                .and_then(|t| t.parse::<DataType>().ok())
                .filter(|t| t.is_integer());
            match (typed, &args[0].kind) {
                (Some(typed), ast::ExprKind::Int(_)) => {
                    let value = index_expr(&args[0], params, typed)?;
                    Ok(if typed == dtype {
                        value
                    } else {
                        operators::cast(dtype, value)
                    })
                }
                _ => Err(format!(
                    "`{name}(...)` in an index map: it may use its parameters, integers (`T.int64(8)`) and `+ - * // %` only"
                )),
            }
        }
        _ => Err("an index map may use its parameters, integers and `+ - * // %` only".to_string()),
    }
}

/// The number a constant pad-value map returns (`(T.float32(0.0),)`, `0`).
fn constant_of(body: &ast::Expr) -> Option<TraceArg> {
    match &body.kind {
        ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) if items.len() == 1 => {
            constant_of(&items[0])
        }
        ast::ExprKind::Int(value) => i64::try_from(value.get()).ok().map(TraceArg::Int),
        ast::ExprKind::Float(value) => Some(TraceArg::Float(*value)),
        ast::ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => match constant_of(operand)? {
            TraceArg::Int(v) => v.checked_neg().map(TraceArg::Int),
            TraceArg::Float(v) => Some(TraceArg::Float(-v)),
            _ => None,
        },
        // `T.float32(0.0)`: the dtype comes from the buffer.
        ast::ExprKind::Call {
            func,
            args,
            keywords,
        } if keywords.is_empty()
            && args.len() == 1
            && func
                .dotted_name()
                .and_then(|n| n.strip_prefix("T.").map(str::to_string))
                .is_some_and(|t| t.parse::<DataType>().is_ok()) =>
        {
            constant_of(&args[0])
        }
        _ => None,
    }
}

/// Which buffer of a block a layout transformation is about: `("read", 0)`,
/// `("write", 1)` or a buffer's name.
pub enum BufferChoice {
    /// The `index`-th buffer the block reads or writes.
    Access(AccessKind, i64),
    /// The buffer the block reads or writes by that name.
    Named(String),
}

/// Resolves a buffer choice to the buffer and its `(kind, index)`, as TVM's
/// Python resolves a name.
pub(crate) fn chosen_buffer(
    state: &ScheduleState,
    block: NodeId,
    choice: &BufferChoice,
) -> ScheduleResult<(Buffer, AccessKind, i64)> {
    match choice {
        BufferChoice::Access(kind, index) => {
            let buffer =
                nth_access_buffer(state, block, *index, *kind).map_err(|e| e.at_argument(1))?;
            Ok((buffer, *kind, *index))
        }
        BufferChoice::Named(name) => {
            let realize = state
                .sref(block)
                .and_then(|s| s.as_realize())
                .ok_or_else(|| {
                    ScheduleError::new(
                        codes::BAD_LAYOUT_TRANSFORM,
                        "the block is gone",
                        "get the block again",
                    )
                })?;
            let block_ref = &realize.block;
            let found = [
                (AccessKind::Read, &block_ref.reads),
                (AccessKind::Write, &block_ref.writes),
            ]
            .into_iter()
            .flat_map(|(kind, regions)| {
                regions
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.buffer.name() == name)
                    .map(move |(i, r)| (r.buffer.clone(), kind, i as i64))
            })
            .next();
            found.ok_or_else(|| {
                let names: Vec<String> = block_ref
                    .reads
                    .iter()
                    .chain(&block_ref.writes)
                    .map(|r| format!("`{}`", r.buffer.name()))
                    .collect();
                ScheduleError::new(
                    codes::BAD_LAYOUT_TRANSFORM,
                    format!(
                        "block `{}` neither reads nor writes a buffer named `{name}`",
                        block_ref.name
                    ),
                    if names.is_empty() {
                        "the block accesses no buffer".to_string()
                    } else {
                        format!("name one of {}", names.join(", "))
                    },
                )
                .at_argument(1)
            })
        }
    }
}

/// `sch.transform_layout(block, buffer, index_map, pad_value=None,
/// assume_injective_transform=False)`: gives the buffer the shape the map
/// produces and rewrites every load, store and region of it in the scope
/// that defines it (the allocating block, or the block's scope for a
/// function parameter, whose signature changes too).
pub fn transform_layout(
    state: &mut ScheduleState,
    block: NodeId,
    buffer: &Buffer,
    index_map: &Lambda,
    pad_value: Option<&Expr>,
    assume_injective_transform: bool,
) -> ScheduleResult<()> {
    let dtype = buffer
        .shape()
        .first()
        .map(Expr::dtype)
        .unwrap_or_else(DataType::int32);
    let map = index_map_from_lambda(index_map, buffer.rank(), dtype)?;
    let site = allocation_site(state, block, buffer);
    let function_index = state.sref(block).map(|s| s.function);
    let is_parameter = function_index
        .and_then(|f| state.module().functions.get(f))
        .is_some_and(|f| f.buffer_map.iter().any(|(_, b)| b == buffer));
    if site.is_none() && !is_parameter {
        return Err(ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            format!(
                "`{}` is a `match_buffer` view, not a buffer of its own",
                buffer.name()
            ),
            "transform the buffer it views (a function parameter or a block's allocation)",
        )
        .blame(
            buffer.span(),
            format!("`{}` is declared here", buffer.name()),
        )
        .at_argument(1));
    }
    if !buffer.node().strides.is_empty() {
        return Err(ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            format!(
                "`{}` has explicit strides, which a new shape would contradict",
                buffer.name()
            ),
            "transform a compact buffer",
        )
        .blame(
            buffer.span(),
            format!("`{}` is declared here", buffer.name()),
        )
        .at_argument(1));
    }
    let mut new_shape = mapped_shape(buffer, &map)?;
    widen_short_splits(&map, buffer.shape(), &mut new_shape);
    // A signature defines a symbolic size by a bare variable in a shape; an
    // expression such as `n * 2 - 1` would leave `n` undefined.
    if is_parameter {
        if let Some(dim) = new_shape
            .iter()
            .find(|d| d.as_int().is_none() && d.as_var().is_none())
        {
            return Err(ScheduleError::new(
                codes::BAD_LAYOUT_TRANSFORM,
                format!(
                    "parameter `{}` would get the dimension `{}`, and a parameter's symbolic dimensions must stay single variables, which define them",
                    buffer.name(),
                    expr_to_string(dim)
                ),
                "transform a copy of the parameter (`sch.cache_read`), or use a map whose symbolic dimensions stay whole",
            )
            .blame(buffer.span(), format!("`{}` is declared here", buffer.name()))
            .at_argument(2));
        }
    }
    let mut padding = None;
    if !assume_injective_transform {
        if let Err(refusal) = check_no_padding(buffer, &map, &new_shape) {
            let Some(pad) = pad_value else {
                return Err(refusal);
            };
            let padded = padded_inverse(&map, buffer.shape(), &new_shape).map_err(|reason| {
                ScheduleError::new(
                    codes::BAD_LAYOUT_TRANSFORM,
                    format!(
                        "the index map leaves padding in `{}`, and tirc cannot fill it: {reason}",
                        buffer.name()
                    ),
                    "split dimensions of constant extent (`lambda i: (i // 16, i % 16)`), or pick factors that divide the shape",
                )
                .blame(buffer.span(), format!("`{}` is declared here", buffer.name()))
                .at_argument(2)
            })?;
            padding = Some((padded, pad));
        }
    }
    // A parameter is rewritten from the function's root: blocks around the
    // block's own scope (a blockized nest) declare regions of it too (TVM
    // rewrites only the block's scope and leaves those stale).
    let scope = match (site, function_index.and_then(|f| state.root_block(f))) {
        (Some(site), _) => site,
        (None, Some(root)) => root,
        (None, None) => scope_root_of(state, block)?,
    };
    let new_buffer = buffer.with(|node| node.shape = new_shape);
    let scope_stmt = state.sref(scope).map(|s| s.stmt.clone()).ok_or_else(|| {
        ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            "the scope is gone",
            "get the block again",
        )
    })?;
    let (scope_stmt, plan) = match &padding {
        Some((padded, pad)) => {
            let (stmt, plan) = fill_padding(&scope_stmt, buffer, &new_buffer, padded, pad);
            (stmt, Some(plan))
        }
        None => (scope_stmt, None),
    };
    let mut rewriter = LayoutRewriter {
        from: buffer.clone(),
        to: new_buffer.clone(),
        map: &map,
        context: IndexContext::default(),
    };
    let new_stmt = rewriter.mutate_stmt(&scope_stmt);
    if let Some(stale) = stale_match_buffer(&new_stmt, &new_buffer) {
        return Err(ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            format!(
                "block `{stale}` views `{}` with `match_buffer`; its region would not follow the new layout",
                buffer.name()
            ),
            "transform the layout before tensorizing or blockizing the blocks that view the buffer",
        )
        .at_argument(1));
    }
    // TVM's scope: the allocating block, or the block's scope root for a parameter.
    let tvm_scope = match site {
        Some(site) => Some(site),
        None => scope_root_of(state, block).ok(),
    };
    state.replace(scope, new_stmt);
    // TVM adds the assumption block to a copy of the scope block, which its
    // schedule state then treats as new: all its flags false, so the scope
    // is no longer a stage pipeline (`compute_inline`, `reindex`, ... refuse).
    if let (Some(PaddingPlan::Prologue), Some(tvm_scope)) = (plan, tvm_scope) {
        state.clear_block_flags(
            tvm_scope,
            format!(
                "transform_layout with `pad_value` added the assumption block `buffer_{}_assumptions` to it",
                buffer.name()
            ),
        );
    }
    if is_parameter {
        if let Some(function) = function_index {
            state.replace_parameter_buffer(function, buffer, new_buffer);
        }
    }
    Ok(())
}

/// The extent of each new index over the old buffer's shape; each must start at 0.
fn mapped_shape(buffer: &Buffer, map: &IndexMap) -> ScheduleResult<Vec<Expr>> {
    let subject = format!("the shape of `{}`", buffer.name());
    mapped_extents(map, &map.input_ranges(buffer), &subject)
}

/// The extent of each new index when the old ones range over `inputs`
/// (`subject` names them in messages); each must start at 0.
fn mapped_extents(
    map: &IndexMap,
    inputs: &[(Var, Range)],
    subject: &str,
) -> ScheduleResult<Vec<Expr>> {
    let domains: VarMap<IntSet> = inputs
        .iter()
        .map(|(var, range)| (var.clone(), IntSet::from_range(range)))
        .collect();
    let analyzer = Analyzer::new();
    let unbounded = |position: usize, output: &Expr| {
        ScheduleError::new(
            codes::BAD_LAYOUT_TRANSFORM,
            format!(
                "new index {position} (`{}`) has no bound over {subject}",
                expr_to_string(output)
            ),
            "use indices whose range follows from the old ones' extents",
        )
        .at_argument(2)
    };
    let mut shape = Vec::with_capacity(map.outputs.len());
    for (position, output) in map.outputs.iter().enumerate() {
        let set = eval_set(output, &domains);
        let (Some(min), Some(max)) = (set.min(), set.max()) else {
            return Err(unbounded(position, output));
        };
        let starts_at_zero = analyzer.simplify(min).as_int() == Some(0);
        if !starts_at_zero {
            return Err(ScheduleError::new(
                codes::BAD_LAYOUT_TRANSFORM,
                format!(
                    "new index {position} (`{}`) starts at `{}`, not 0",
                    expr_to_string(output),
                    expr_to_string(&analyzer.simplify(min))
                ),
                "make every new index start at 0 (shift it by its smallest value)",
            )
            .at_argument(2));
        }
        let extent = match padded_quotient_extent(output, inputs, &analyzer) {
            Some(extent) => extent,
            None => operators::add(max.clone(), Expr::one(max.dtype()))
                .map(|e| analyzer.simplify(&e))
                .map_err(|_| unbounded(position, output))?,
        };
        shape.push(extent);
    }
    Ok(shape)
}

/// The extent of `v // c` for an input `v` over a symbolic `[0, n)` that
/// `c` may not divide, as TVM's padded iterator map gives it: `n` padded
/// up by `(-n) % c`, then divided (`(n - n % -3) // 3`, the same value as
/// interval evaluation's `(n - 1) // 3 + 1`). `None` for any other index.
fn padded_quotient_extent(
    output: &Expr,
    inputs: &[(Var, Range)],
    analyzer: &Analyzer,
) -> Option<Expr> {
    let ExprKind::Binary(BinaryOp::FloorDiv, dividend, divisor) = output.kind() else {
        return None;
    };
    let var = dividend.as_var()?;
    let c = divisor.as_int().filter(|c| *c > 0)?;
    let (_, range) = inputs.iter().find(|(input, _)| input == var)?;
    if !range.min.is_int(0) || range.extent.as_int().is_some() {
        return None;
    }
    let n = range.extent.clone();
    let divisor = Expr::int(c, n.dtype());
    let divides = build::floormod(n.clone(), divisor.clone());
    if analyzer.can_prove_equal(&divides, &Expr::zero(n.dtype())) {
        return None;
    }
    let negated = build::sub(Expr::zero(n.dtype()), n.clone());
    let right_pad = analyzer.simplify(&build::floormod(negated, divisor.clone()));
    let padded = analyzer.simplify(&build::add(n, right_pad));
    Some(analyzer.simplify(&build::floordiv(padded, divisor)))
}

/// True when the extents `old` and `new` hold as many points: a bijective
/// map between them leaves no padding.
fn same_size(old: &[Expr], new: &[Expr], analyzer: &Analyzer) -> bool {
    let product = |extents: &[Expr]| {
        extents
            .iter()
            .try_fold(Expr::one(DataType::int64()), |acc, e| {
                operators::mul(acc, operators::cast(DataType::int64(), e.clone())).ok()
            })
    };
    match (product(old), product(new)) {
        (Some(old), Some(new)) => {
            // `m * n` against `n * m`: expanded as polynomials when the rules cannot tell.
            PolynomialExpander::default().constant_difference(&old, &new) == Some(0)
                || operators::binary(BinaryOp::Eq, old, new)
                    .is_ok_and(|equal| analyzer.can_prove(&equal))
        }
        _ => false,
    }
}

/// Refuses a map that is not a bijection onto the new shape: it would leave
/// padding (or fold two elements onto one), which TVM refuses without
/// `pad_value`.
fn check_no_padding(buffer: &Buffer, map: &IndexMap, new_shape: &[Expr]) -> ScheduleResult<()> {
    let analyzer = Analyzer::new();
    let bijective = map
        .detect_bijective(&map.input_ranges(buffer), &analyzer)
        .is_success();
    let same_size = same_size(buffer.shape(), new_shape, &analyzer);
    if bijective && same_size {
        return Ok(());
    }
    let shape_text = |shape: &[Expr]| {
        let items: Vec<String> = shape.iter().map(expr_to_string).collect();
        format!("({})", items.join(", "))
    };
    let message = format!(
        "the index map takes `{}` of shape {} to shape {}, which it does not fill one to one: the transformation would introduce padding",
        buffer.name(),
        shape_text(buffer.shape()),
        shape_text(new_shape)
    );
    Err(ScheduleError::new(
        codes::BAD_LAYOUT_TRANSFORM,
        message,
        "pick factors that divide the shape, give `pad_value=...` to fill the padding, or pass `assume_injective_transform=True` if the map is one to one",
    )
    .blame(
        buffer.span(),
        format!("`{}` is declared here", buffer.name()),
    )
    .at_argument(2))
}

/// The name of a block whose `match_buffer` views the transformed buffer.
fn stale_match_buffer(stmt: &Stmt, buffer: &Buffer) -> Option<String> {
    let mut found = None;
    crate::ir::visit::walk_stmts(stmt, &mut |stmt: &Stmt| {
        if let StmtKind::BlockRealize(realize) = stmt.kind() {
            let block = &realize.block;
            if found.is_none()
                && block
                    .match_buffers
                    .iter()
                    .any(|m| m.source.buffer == *buffer)
            {
                found = Some(block.name.clone());
            }
        }
    });
    found
}

/// TVM's `IterMapSimplifyWithContext(indices, non_trivial_only=true)`: the
/// indices simplified as one iterator map over `iters` under `predicate`,
/// where they form one; a variable index that would become a constant keeps
/// its name.
fn simplify_indices_in_context(
    indices: Vec<Expr>,
    iters: &[(Var, Range)],
    predicate: &Expr,
    analyzer: &Analyzer,
) -> Vec<Expr> {
    let simplified = iter_map_simplify(
        &indices,
        iters,
        predicate,
        IterMapLevel::Surjective,
        analyzer,
        true,
    );
    match simplified {
        Some(simplified) => simplified
            .into_iter()
            .zip(indices)
            .map(|(new, old)| {
                if new.as_int().is_some() && old.as_var().is_some() {
                    old
                } else {
                    new
                }
            })
            .collect(),
        None => indices,
    }
}

/// Rewrites accesses to one buffer through an index map, simplifying the new
/// indices with the loops and block iterators around them (TVM's
/// `IterMapSimplifyWithContext`), and re-infers the regions of the blocks
/// that access it.
struct LayoutRewriter<'m> {
    from: Buffer,
    to: Buffer,
    map: &'m IndexMap,
    context: IndexContext,
}

impl LayoutRewriter<'_> {
    fn new_indices(&self, indices: &[Expr]) -> Vec<Expr> {
        let mapped = self.map.map_indices(indices, &Analyzer::new());
        self.context.simplify_indices(mapped)
    }
}

/// What TVM's `IRMutatorWithAnalyzer` knows where an access is: the loops and
/// block iterators around it with their ranges, and the branch conditions
/// over them that hold there (`iter_predicates_`), with which indices are
/// simplified as an iterator map (`IterMapSimplifyWithContext`).
#[derive(Default)]
struct IndexContext {
    iters: Vec<(Var, Range)>,
    predicates: Vec<Expr>,
    analyzer: Analyzer,
}

impl IndexContext {
    fn simplify_indices(&self, indices: Vec<Expr>) -> Vec<Expr> {
        let predicate = self
            .predicates
            .iter()
            .cloned()
            .reduce(and_conjunct)
            .unwrap_or_else(|| Expr::bool(true));
        simplify_indices_in_context(indices, &self.iters, &predicate, &self.analyzer)
    }

    fn enter(&mut self, var: &Var, range: &Range) {
        self.iters.push((var.clone(), range.clone()));
        self.analyzer.bind(var, range);
    }
}

/// A mutator that keeps an `IndexContext` through the branches it visits.
trait KeepsIndexContext: Mutator + Sized {
    fn context(&mut self) -> &mut IndexContext;

    /// Runs `f` with `condition` known to the analyzer and, where `record`
    /// and it uses the iterators around, recorded as a predicate for
    /// simplifying indices.
    fn assuming<R>(&mut self, condition: &Expr, record: bool, f: impl FnOnce(&mut Self) -> R) -> R {
        let context = self.context();
        let iters = &context.iters;
        let records =
            record && expr_uses_var(condition, &mut |v| iters.iter().any(|(var, _)| var == v));
        if records {
            context.predicates.push(condition.clone());
        }
        let mut outer = std::mem::take(&mut context.analyzer);
        let result = outer.with_constraint(condition, |constrained| {
            std::mem::swap(constrained, &mut self.context().analyzer);
            let result = f(self);
            std::mem::swap(constrained, &mut self.context().analyzer);
            result
        });
        let context = self.context();
        context.analyzer = outer;
        if records {
            context.predicates.pop();
        }
        result
    }

    /// A `T.if_then_else` with each branch rewritten under its condition, as
    /// TVM's `IRMutatorWithAnalyzer` visits them: an access guarded by
    /// `8 <= i` with `i < 9` maps to index `0`, not `i - 8`. `None` for any
    /// other expression.
    fn mutate_if_then_else(&mut self, expr: &Expr) -> Option<Expr> {
        let ExprKind::Call { op, args } = expr.kind() else {
            return None;
        };
        let [condition, then_value, else_value] = args.as_slice() else {
            return None;
        };
        if op.name() != "if_then_else" {
            return None;
        }
        let condition = self.mutate_expr(condition);
        let then_value = self.assuming(&condition, true, |m| m.mutate_expr(then_value));
        let else_value = match crate::ir::operators::logical_not(condition.clone()) {
            Ok(negated) => self.assuming(&negated, true, |m| m.mutate_expr(else_value)),
            Err(_) => self.mutate_expr(else_value),
        };
        Some(Expr::new(
            ExprKind::Call {
                op: *op,
                args: vec![condition, then_value, else_value],
            },
            expr.dtype(),
            expr.span(),
        ))
    }

    /// An `if` statement with each branch rewritten under its condition;
    /// TVM records no predicate for the else branch here. `None` for any
    /// other statement.
    fn mutate_if_statement(&mut self, stmt: &Stmt) -> Option<Stmt> {
        let StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } = stmt.kind()
        else {
            return None;
        };
        let condition = self.mutate_expr(condition);
        let then_case = self.assuming(&condition, true, |m| m.mutate_stmt(then_case));
        let else_case =
            else_case.as_ref().map(|else_case| {
                match crate::ir::operators::logical_not(condition.clone()) {
                    Ok(negated) => self.assuming(&negated, false, |m| m.mutate_stmt(else_case)),
                    Err(_) => self.mutate_stmt(else_case),
                }
            });
        Some(stmt.with_kind(StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        }))
    }
}

impl KeepsIndexContext for LayoutRewriter<'_> {
    fn context(&mut self) -> &mut IndexContext {
        &mut self.context
    }
}

impl Mutator for LayoutRewriter<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let Some(rewritten) = self.mutate_if_then_else(expr) {
            return rewritten;
        }
        let rewritten = mutate_expr_children(self, expr);
        match rewritten.kind() {
            ExprKind::Load(load) if load.buffer == self.from => {
                Expr::load(&self.to, self.new_indices(&load.indices))
            }
            _ => rewritten,
        }
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let Some(rewritten) = self.mutate_if_statement(stmt) {
            return rewritten;
        }
        let depth = self.context.iters.len();
        if let StmtKind::For(for_loop) = stmt.kind() {
            self.context.enter(&for_loop.loop_var, &for_loop.range());
        }
        let rewritten = mutate_stmt_children(self, stmt);
        self.context.iters.truncate(depth);
        match rewritten.kind() {
            StmtKind::BufferStore(store) if store.buffer == self.from => {
                rewritten.with_kind(StmtKind::BufferStore(crate::ir::BufferStore {
                    buffer: self.to.clone(),
                    value: store.value.clone(),
                    indices: self.new_indices(&store.indices),
                }))
            }
            _ => rewritten,
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        let depth = self.context.iters.len();
        for iter_var in &block.iter_vars {
            self.context.enter(&iter_var.var, &iter_var.dom);
        }
        let mut new_block = mutate_block_children(self, block);
        self.context.iters.truncate(depth);
        let touches = |regions: &[BufferRegion]| regions.iter().any(|r| r.buffer == self.from);
        let has_inner_block = {
            let mut found = false;
            crate::ir::visit::walk_stmts(&block.body, &mut |s| {
                found |= matches!(s.kind(), StmtKind::BlockRealize(_));
            });
            found
        };
        if has_inner_block {
            // An outer block (of `blockize`) maps its declared regions, as
            // TVM's `MapRanges`: re-inferring them from the nest inside would
            // relax split bindings past what the inner blocks declare.
            for region in new_block
                .reads
                .iter_mut()
                .chain(new_block.writes.iter_mut())
            {
                if region.buffer == self.from {
                    *region = self.map_region(region);
                }
            }
        } else if touches(&new_block.reads) || touches(&new_block.writes) {
            // A reduction's update reads what it writes: detect without the init.
            let mut probe = new_block.clone();
            probe.init = None;
            let (reads, writes) = infer_block_regions(&probe);
            let region_of =
                |detected: &[BufferRegion]| detected.iter().find(|r| r.buffer == self.to).cloned();
            let (new_read, new_write) = (
                region_of(&reads),
                region_of(&writes).or_else(|| region_of(&reads)),
            );
            for (regions, detected) in [
                (&mut new_block.reads, new_read),
                (&mut new_block.writes, new_write),
            ] {
                for region in regions.iter_mut().filter(|r| r.buffer == self.from) {
                    *region = detected.clone().unwrap_or_else(|| whole_region(&self.to));
                }
            }
        }
        for allocated in &mut new_block.alloc_buffers {
            if *allocated == self.from {
                *allocated = self.to.clone();
            }
        }
        new_block
    }
}

impl LayoutRewriter<'_> {
    /// The region of the new buffer that `region` of the old one maps to:
    /// each new index evaluated over the old ranges, inside the new shape.
    fn map_region(&self, region: &BufferRegion) -> BufferRegion {
        let domains: VarMap<IntSet> = self
            .map
            .initial
            .iter()
            .zip(&region.region)
            .map(|(var, range)| (var.clone(), IntSet::from_range(range)))
            .collect();
        let shape = self.to.shape();
        BufferRegion {
            buffer: self.to.clone(),
            region: self
                .map
                .outputs
                .iter()
                .zip(shape)
                .map(|(output, extent)| {
                    eval_set(output, &domains).cover_range(&Range::from_extent(extent.clone()))
                })
                .collect(),
        }
    }
}

/// The whole of a buffer as a region.
fn whole_region(buffer: &Buffer) -> BufferRegion {
    BufferRegion {
        buffer: buffer.clone(),
        region: buffer
            .shape()
            .iter()
            .map(|extent| Range::new(Expr::zero(extent.dtype()), extent.clone()))
            .collect(),
    }
}

/// Reads a `buffer` argument: `("read", N)`, `("write", N)` or a name.
pub(crate) fn buffer_choice_arg(
    run: &Interpreter<'_>,
    bound: &Bound<'_>,
    index: usize,
) -> Eval<BufferChoice> {
    const EXPECTED: &str = "`(\"read\", INDEX)`, `(\"write\", INDEX)` or a buffer name";
    match bound.get(index).map(|a| &a.value) {
        Some(Value::Str(name)) => Ok(BufferChoice::Named(name.clone())),
        Some(Value::List(items)) => match items.as_slice() {
            [Value::Str(kind), Value::Int(position)] if kind == "read" || kind == "write" => {
                let kind = if kind == "read" {
                    AccessKind::Read
                } else {
                    AccessKind::Write
                };
                Ok(BufferChoice::Access(kind, *position))
            }
            _ => Err(run.wrong_kind(
                bound,
                index,
                "buffer",
                EXPECTED,
                &Value::List(items.clone()),
            )),
        },
        Some(other) => Err(run.wrong_kind(bound, index, "buffer", EXPECTED, other)),
        None => Err(run.wrong_kind(bound, index, "buffer", EXPECTED, &Value::None)),
    }
}

/// A buffer argument as TVM's traces print it: `("write", 0)`.
pub(crate) fn buffer_trace_arg(kind: AccessKind, index: i64) -> TraceArg {
    let kind = match kind {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
    };
    TraceArg::Tuple(vec![TraceArg::Str(kind.to_string()), TraceArg::Int(index)])
}

/// `sch.transform_block_layout(block, index_map)` (TVM's
/// `TransformBlockLayout`): the block's iterators become the map's outputs
/// `v0, v1, ...` over the extents the map gives them, its body and regions
/// read the old iterators back through the map's inverse, and new loops
/// `ax0, ax1, ...` bound one to one replace the loops above it. As TVM
/// requires: the loops start at 0 and hold nothing but the next loop (the
/// innermost, the block), the block is bound to them in order, and the map
/// is bijective and affine over the iterators' domains, each new iterator
/// mixing iterators of one kind only.
pub fn transform_block_layout(
    state: &mut ScheduleState,
    block: NodeId,
    index_map: &Lambda,
) -> ScheduleResult<()> {
    let refuse = |message: String, help: &str| {
        ScheduleError::new(codes::BAD_LAYOUT_TRANSFORM, message, help)
    };
    let gone = || refuse("the block is gone".to_string(), "get the block again");
    let block_sref = state.sref(block).ok_or_else(gone)?;
    let realize = block_sref.as_realize().ok_or_else(gone)?.clone();
    let block_location = block_sref.location();
    let loops = state.enclosing_loops(block);
    let mut loop_vars = Vec::with_capacity(loops.len());
    for (position, id) in loops.iter().enumerate() {
        let loop_sref = state.sref(*id).ok_or_else(gone)?;
        let for_loop = loop_sref.as_for().ok_or_else(gone)?;
        let name = for_loop.loop_var.name();
        if !for_loop.min.is_int(0) {
            return Err(refuse(
                format!(
                    "loop `{name}` starts at `{}`, not 0",
                    expr_to_string(&for_loop.min)
                ),
                "transform the layout of a block whose loops start at 0",
            )
            .blame(loop_sref.location(), format!("loop `{name}`")));
        }
        let holds_only_the_next = match for_loop.body.kind() {
            StmtKind::For(inner) => loops.get(position + 1) == Some(&inner.id),
            StmtKind::BlockRealize(inner) => position + 1 == loops.len() && inner.block.id == block,
            _ => false,
        };
        if !holds_only_the_next {
            return Err(refuse(
                format!("loop `{name}` holds more than the loops over the block"),
                "transform the layout of a block that is alone under its loops (before compute_at or fusing stages)",
            )
            .blame(loop_sref.location(), "this holds other statements"));
        }
        loop_vars.push(for_loop.loop_var.clone());
    }
    let trivial = realize.iter_values.len() == loop_vars.len()
        && realize
            .iter_values
            .iter()
            .zip(&loop_vars)
            .all(|(value, var)| value.as_var() == Some(var));
    if !trivial || !realize.predicate.is_int(1) {
        return Err(refuse(
            format!(
                "block `{}` is not bound to its loops one to one, in order, without a predicate",
                realize.block.name
            ),
            "transform the block's layout before splitting, fusing or reordering its loops",
        )
        .blame(block_location, "the block"));
    }
    let iter_vars = &realize.block.iter_vars;
    if let Some(iv) = iter_vars.iter().find(|iv| !iv.dom.min.is_int(0)) {
        return Err(refuse(
            format!(
                "iterator `{}` of the block starts at `{}`, not 0",
                iv.var.name(),
                expr_to_string(&iv.dom.min)
            ),
            "transform the layout of a block whose iterators start at 0",
        )
        .blame(block_location, "the block"));
    }
    if index_map.params.len() != iter_vars.len() {
        return Err(refuse(
            format!(
                "the index map takes {} indices but block `{}` has {} iterators",
                index_map.params.len(),
                realize.block.name,
                iter_vars.len()
            ),
            "write one lambda parameter per block iterator, such as `lambda i, j: (j, i)`",
        )
        .at_argument(1));
    }
    let dtype = iter_vars
        .first()
        .map(|iv| iv.var.dtype())
        .unwrap_or_else(DataType::int32);
    let map =
        index_map_from_lambda(index_map, iter_vars.len(), dtype).map_err(|e| e.at_argument(1))?;
    let inputs: Vec<(Var, Range)> = map
        .initial
        .iter()
        .cloned()
        .zip(iter_vars.iter().map(|iv| iv.dom.clone()))
        .collect();
    let extents = mapped_extents(&map, &inputs, "the block's iterator domains")
        .map_err(|e| e.at_argument(1))?;
    let analyzer = Analyzer::new();
    let detected = map.detect_bijective(&inputs, &analyzer);
    let new_vars: Vec<Var> = map
        .outputs
        .iter()
        .enumerate()
        .map(|(i, output)| Var::new(format!("v{i}"), output.dtype(), Span::NONE))
        .collect();
    let new_values: Vec<Expr> = new_vars.iter().map(Var::to_expr).collect();
    let old_extents: Vec<Expr> = iter_vars.iter().map(|iv| iv.dom.extent.clone()).collect();
    let fills = same_size(&old_extents, &extents, &analyzer);
    let inverse = match detected.is_success() && fills {
        true => inverse_affine_iter_map(&detected.indices, &new_values),
        false => None,
    };
    let Some(inverse) = inverse else {
        return Err(refuse(
            format!("the index map `{}` is not a bijective affine map of the block's iterators", map.to_python()),
            "use a map that reorders, splits (`i // 4, i % 4`) or fuses (`i * 16 + j`) the iterators and keeps every point",
        )
        .at_argument(1));
    };
    // Each new iterator takes the kind of the old ones it mixes.
    let old_values: Vec<Expr> = iter_vars.iter().map(|iv| iv.var.to_expr()).collect();
    let transformed = map.map_indices(&old_values, &analyzer);
    let mut new_iters = Vec::with_capacity(new_vars.len());
    for ((var, value), extent) in new_vars.iter().zip(&transformed).zip(&extents) {
        let mut kinds = Vec::new();
        crate::ir::visit::walk_exprs(value, &mut |e| {
            if let ExprKind::Var(used) = e.kind() {
                if let Some(iv) = iter_vars.iter().find(|iv| iv.var == *used) {
                    kinds.push(iv.kind);
                }
            }
        });
        let kind = match kinds.first() {
            _ if extent.is_int(1) => IterKind::Spatial,
            Some(first) if kinds.iter().all(|k| k == first) => *first,
            _ => {
                return Err(refuse(
                    format!(
                        "new iterator `{}` (`{}`) mixes iterators of different kinds (spatial and reduction), so it has no kind of its own",
                        var.name(),
                        expr_to_string(value)
                    ),
                    "keep spatial and reduction iterators in separate new indices",
                )
                .at_argument(1));
            }
        };
        new_iters.push(IterVar {
            var: var.clone(),
            dom: Range::new(
                Expr::zero(var.dtype()),
                operators::cast(var.dtype(), extent.clone()),
            ),
            kind,
        });
    }
    // The inverse is simplified knowing nothing of the new iterators (TVM's
    // `IndexMap::Inverse` binds no range to them): a condition keeps
    // `v0 % 16`, while indices and regions are simplified over the ranges of
    // the iterators wider than one (TVM's `BlockBufferAccessSimplifier`,
    // whose simplifier leaves a unit iterator a variable).
    let mut subst: VarMap<Expr> = VarMap::default();
    for (iv, param) in iter_vars.iter().zip(&map.initial) {
        if let Some((_, value)) = inverse.iter().find(|(var, _)| var == param) {
            let value = match value.as_var() {
                Some(_) => value.clone(),
                None => analyzer.simplify(value),
            };
            subst.insert(iv.var.clone(), value);
        }
    }
    let mut simplifier = Analyzer::new();
    for iv in new_iters.iter().filter(|iv| !iv.dom.extent.is_int(1)) {
        simplifier.bind(&iv.var, &iv.dom);
    }
    let mut rewriter = AccessSimplifier {
        subst,
        context: IndexContext {
            iters: new_iters
                .iter()
                .map(|iv| (iv.var.clone(), iv.dom.clone()))
                .collect(),
            predicates: Vec::new(),
            analyzer: simplifier,
        },
    };
    let mut new_block = rewriter.mutate_block(&realize.block);
    new_block.iter_vars = new_iters;
    let loop_vars: Vec<Var> = new_vars
        .iter()
        .enumerate()
        .map(|(i, var)| Var::new(format!("ax{i}"), var.dtype(), Span::NONE))
        .collect();
    let mut nest = Stmt::block_realize(BlockRealize {
        iter_values: loop_vars.iter().map(Var::to_expr).collect(),
        predicate: Expr::bool(true),
        block: new_block,
    });
    for (var, extent) in loop_vars.iter().zip(&extents).rev() {
        nest = super::loop_transformation::new_loop(var, extent.clone(), nest, Span::NONE);
    }
    let replaced = loops.first().copied().unwrap_or(block);
    state.replace(replaced, nest);
    Ok(())
}

/// Substitutes the old iterators and simplifies every index and region
/// (TVM's `BlockBufferAccessSimplifier`).
struct AccessSimplifier {
    subst: VarMap<Expr>,
    /// Every new iterator with its range, unit ones included (TVM's
    /// `iter_vars_`): `v1 * 10 + v0` with `v1` in `[0, 1)` is `v0`.
    context: IndexContext,
}

impl KeepsIndexContext for AccessSimplifier {
    fn context(&mut self) -> &mut IndexContext {
        &mut self.context
    }
}

/// Every load's indices in an expression, simplified in the new iterators'
/// context and the branch conditions around the load.
struct LoadsInContext<'a>(&'a mut IndexContext);

impl KeepsIndexContext for LoadsInContext<'_> {
    fn context(&mut self) -> &mut IndexContext {
        self.0
    }
}

impl Mutator for LoadsInContext<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let Some(rewritten) = self.mutate_if_then_else(expr) {
            return rewritten;
        }
        let rebuilt = mutate_expr_children(self, expr);
        match rebuilt.kind() {
            ExprKind::Load(load) => Expr::new(
                ExprKind::Load(crate::ir::BufferLoad {
                    buffer: load.buffer.clone(),
                    indices: self.0.simplify_indices(load.indices.clone()),
                }),
                rebuilt.dtype(),
                rebuilt.span(),
            ),
            _ => rebuilt,
        }
    }
}

impl Mutator for AccessSimplifier {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        // As for stores, TVM simplifies load indices as an iterator map only.
        let substituted = substitute(expr, &self.subst);
        LoadsInContext(&mut self.context).mutate_expr(&substituted)
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let Some(rewritten) = self.mutate_if_statement(stmt) {
            return rewritten;
        }
        let rebuilt = mutate_stmt_children(self, stmt);
        match rebuilt.kind() {
            StmtKind::BufferStore(store) => {
                // TVM simplifies indices as an iterator map only: where the
                // map keeps `(v0 * 4 + v1) // 8`, so does tirc.
                let indices = self.context.simplify_indices(store.indices.clone());
                rebuilt.with_kind(StmtKind::BufferStore(crate::ir::BufferStore {
                    indices,
                    ..store.clone()
                }))
            }
            _ => rebuilt,
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        let mut block = mutate_block_children(self, block);
        for region in block.reads.iter_mut().chain(block.writes.iter_mut()) {
            let mins = region
                .region
                .iter()
                .map(|range| range.min.clone())
                .collect();
            let mins = self.context.simplify_indices(mins);
            for (range, min) in region.region.iter_mut().zip(mins) {
                *range = Range::new(min, self.context.analyzer.simplify(&range.extent));
            }
        }
        block
    }
}

/// The layout-transformation primitives' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "transform_layout",
    aliases: &[],
    params: &[
        required("block"),
        required("buffer"),
        required("index_map"),
        optional("pad_value", "None"),
        optional("assume_injective_transform", "False"),
    ],
    varargs: None,
    keyword_only: &[],
    doc: "Gives a buffer the block reads or writes (`(\"read\", 0)`, `(\"write\", 0)` or its name) the layout an index map computes (`lambda i, j: (i // 16, j // 16, i % 16, j % 16)`): its new shape, and every load, store and region of it rewritten. A function parameter's signature changes too. A map that would leave padding (`i // 10, i % 10` over 64 rows) needs `pad_value`, written into the padding by the buffer's row-major writer, by a block after its writers, or (for an input) stated as a `T.assume` the caller must meet.",
    apply: apply_transform_layout,
}, Primitive {
    name: "transform_block_layout",
    aliases: &[],
    params: &[required("block"), required("index_map")],
    varargs: None,
    keyword_only: &[],
    doc: "Gives a block new iterators through an index map of its old ones (`lambda i, j: (j, i)`, `lambda i, j: (i * 64 + j,)`): iterators `v0, v1, ...` over the extents the map gives, new loops `ax0, ax1, ...` above it, and its body reading the old iterators back through the map's inverse. The block must be alone under loops starting at 0 and bound to them in order, and the map bijective and affine, each new iterator mixing iterators of one kind.",
    apply: apply_transform_block_layout,
}];

fn apply_transform_block_layout(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let lambda = index_map_arg(run, bound, 1)?;
    let map_text = {
        let iters = run
            .state
            .sref(block)
            .and_then(|s| s.as_realize())
            .map(|r| r.block.iter_vars.clone())
            .unwrap_or_default();
        let dtype = iters
            .first()
            .map(|iv| iv.var.dtype())
            .unwrap_or_else(DataType::int32);
        index_map_from_lambda(&lambda, lambda.params.len(), dtype)
            .map(|map| map.to_python())
            .map_err(|e| run.refused(bound, e.at_argument(1)))?
    };
    transform_block_layout(run.state, block, &lambda).map_err(|e| run.refused(bound, e))?;
    run.record(
        "transform_block_layout",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("index_map"), TraceArg::Source(map_text)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

/// The `index_map` argument at `position`: a `lambda`.
fn index_map_arg(
    run: &Interpreter<'_>,
    bound: &Bound<'_>,
    position: usize,
) -> Eval<std::sync::Arc<Lambda>> {
    match bound.get(position).map(|a| &a.value) {
        Some(Value::Lambda(lambda)) => Ok(lambda.clone()),
        Some(other) => Err(run.wrong_kind(bound, position, "index_map", "a `lambda`", other)),
        None => Err(run.wrong_kind(bound, position, "index_map", "a `lambda`", &Value::None)),
    }
}

fn apply_transform_layout(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let choice = buffer_choice_arg(run, bound, 1)?;
    let lambda = index_map_arg(run, bound, 2)?;
    let pad_value = match bound.get(3).map(|a| &a.value) {
        None | Some(Value::None) => None,
        Some(Value::Int(v)) => Some(TraceArg::Int(*v)),
        Some(Value::Float(v)) => Some(TraceArg::Float(*v)),
        // TVM's traces print the pad value as a map of the new indices:
        // `lambda indices_0, indices_1: (T.float32(0.0),)`.
        Some(Value::Lambda(lambda)) if constant_of(&lambda.body).is_some() => {
            constant_of(&lambda.body)
        }
        Some(other) => {
            return Err(run.wrong_kind(
                bound,
                3,
                "pad_value",
                "a number, a `lambda` returning one, or `None`",
                other,
            ))
        }
    };
    // The pad value's type must be the buffer's, as TVM requires: an integer
    // does not fill a float buffer.
    let pad_expr = |dtype: DataType| match &pad_value {
        Some(TraceArg::Int(v)) if !dtype.is_float() => Some(Expr::int(*v, dtype)),
        Some(TraceArg::Float(v)) if dtype.is_float() => Some(Expr::float(*v, dtype)),
        _ => None,
    };
    let assume_injective = run.bool_arg(bound, 4, "assume_injective_transform", false)?;
    let (buffer, kind, index) =
        chosen_buffer(run.state, block, &choice).map_err(|e| run.refused(bound, e))?;
    let map_text = {
        let dtype = buffer
            .shape()
            .first()
            .map(Expr::dtype)
            .unwrap_or_else(DataType::int32);
        index_map_from_lambda(&lambda, buffer.rank(), dtype)
            .map(|map| map.to_python())
            .map_err(|e| run.refused(bound, e))?
    };
    let pad = pad_expr(buffer.dtype());
    if pad_value.is_some() && pad.is_none() {
        let found = bound.get(3).map(|a| a.value.clone()).unwrap_or(Value::None);
        let expected = if buffer.dtype().is_float() {
            format!(
                "a float (`0.0`) for the `{}` buffer `{}` (TVM refuses an `int32` pad value for it)",
                buffer.dtype(),
                buffer.name()
            )
        } else {
            format!(
                "an integer for the `{}` buffer `{}`",
                buffer.dtype(),
                buffer.name()
            )
        };
        return Err(run.wrong_kind(bound, 3, "pad_value", &expected, &found));
    }
    transform_layout(
        run.state,
        block,
        &buffer,
        &lambda,
        pad.as_ref(),
        assume_injective,
    )
    .map_err(|e| run.refused(bound, e))?;
    run.record(
        "transform_layout",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer"), buffer_trace_arg(kind, index)),
            (Some("index_map"), TraceArg::Source(map_text)),
            // Typed as the buffer is, so that TVM replays it (it refuses `0` for floats).
            (
                Some("pad_value"),
                match (&pad, pad_value) {
                    (Some(pad), Some(TraceArg::Int(v))) if pad.dtype().is_float() => {
                        TraceArg::Float(v as f64)
                    }
                    (_, value) => value.unwrap_or(TraceArg::None),
                },
            ),
            (
                Some("assume_injective_transform"),
                TraceArg::Bool(assume_injective),
            ),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}

#[cfg(test)]
mod tests {
    use crate::frontend::parse_program;
    use crate::printer::{print_module, Dialect, PrintOptions};
    use crate::schedule::{apply_schedule_with, ApplyOptions};
    use crate::source::SourceMap;

    /// An index map with typed integers (`T.int64(8)`), as a trace prints
    /// it for int64 indices, applies as the plain one does, so the trace
    /// replays (a schedule_script fuzz find).
    #[test]
    fn typed_integers_in_an_index_map_replay_the_trace() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((T.int64(256), T.int64(64)), "float32"), B: T.Buffer((T.int64(256), T.int64(64)), "float32")):
    for i, j in T.grid(T.int64(256), T.int64(64)):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3.0)

def plain(sch: T.Schedule):
    sch.transform_layout(sch.get_block("B"), buffer=("write", 0), index_map=lambda i, j: (i, j // 8, j % 8))

def typed(sch: T.Schedule):
    b = sch.get_block("B")
    sch.transform_layout(block=b, buffer=("write", 0), index_map=lambda i, j: (i, j // T.int64(8), j % T.int64(8),), pad_value=None, assume_injective_transform=False)

def not_an_integer(sch: T.Schedule):
    sch.transform_layout(sch.get_block("B"), buffer=("write", 0), index_map=lambda i, j: (i, j // T.float32(8), j % 8))
"#;
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, "t.tir", source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let program = program.unwrap();
        let printed = |name: &str| {
            let run = apply_schedule_with(&program, Some(name), &ApplyOptions::default());
            assert!(run.diagnostics.is_empty(), "{name}: {:?}", run.diagnostics);
            let trace = run.trace.to_python();
            (
                print_module(run.module(), &PrintOptions::new(Dialect::Tirx)),
                trace,
            )
        };
        let (plain, trace) = printed("plain");
        assert!(trace.contains("T.int64(8)"), "{trace}");
        assert_eq!(printed("typed").0, plain);
        let refused =
            apply_schedule_with(&program, Some("not_an_integer"), &ApplyOptions::default());
        assert!(
            refused
                .diagnostics
                .iter()
                .any(|d| d.message.contains("T.float32(...)")),
            "{:?}",
            refused.diagnostics
        );
    }
}
