//! Layout transformations, after TVM's `layout_transformation.cc`:
//! `transform_layout` gives a buffer a new shape through an index map
//! (`lambda i, j: (i // 16, j // 16, i % 16, j % 16)`) and rewrites every
//! access to it.
//!
//! Like TVM, a map that would pad the buffer (`i // 10, i % 10` over 64
//! rows) is refused unless `pad_value` is given or the map is declared
//! injective; tirc does not yet write the padding that `pad_value` asks for
//! (TVM's prologue, replacement and epilogue plans) and says so.

use super::access::{allocation_site, nth_access_buffer, scope_root_of, AccessKind};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, Primitive};
use super::script::{Bound, Eval, Interpreter, Lambda, Value};
use super::state::ScheduleState;
use super::trace::{Outputs, TraceArg};
use crate::analysis::access_regions::infer_block_regions;
use crate::arith::int_set::{eval_set, IntSet};
use crate::arith::iter_map::{detect_iter_map, iter_map_simplify, IterMapLevel};
use crate::arith::polynomial::PolynomialExpander;
use crate::arith::Analyzer;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, substitute, Mutator,
};
use crate::ir::{
    operators, BinaryOp, Block, Buffer, BufferRegion, DataType, Expr, ExprKind, NodeId, Range,
    Stmt, StmtKind, Var,
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

fn index_expr(expr: &ast::Expr, params: &[Var], dtype: DataType) -> Result<Expr, String> {
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
    pad_value_given: bool,
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
    let new_shape = mapped_shape(buffer, &map)?;
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
    if !assume_injective_transform {
        check_no_padding(buffer, &map, &new_shape, pad_value_given)?;
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
    let mut rewriter = LayoutRewriter {
        from: buffer.clone(),
        to: new_buffer.clone(),
        map: &map,
        iters: Vec::new(),
        analyzer: Analyzer::new(),
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
    state.replace(scope, new_stmt);
    if is_parameter {
        if let Some(function) = function_index {
            state.replace_parameter_buffer(function, buffer, new_buffer);
        }
    }
    Ok(())
}

/// The extent of each new index over the old buffer's shape; each must start at 0.
fn mapped_shape(buffer: &Buffer, map: &IndexMap) -> ScheduleResult<Vec<Expr>> {
    let domains: VarMap<IntSet> = map
        .input_ranges(buffer)
        .into_iter()
        .map(|(var, range)| (var, IntSet::from_range(&range)))
        .collect();
    let analyzer = Analyzer::new();
    let mut shape = Vec::with_capacity(map.outputs.len());
    for (position, output) in map.outputs.iter().enumerate() {
        let set = eval_set(output, &domains);
        let (Some(min), Some(max)) = (set.min(), set.max()) else {
            return Err(unbounded_output(buffer, position, output));
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
        let extent = operators::add(max.clone(), Expr::one(max.dtype()))
            .map(|e| analyzer.simplify(&e))
            .map_err(|_| unbounded_output(buffer, position, output))?;
        shape.push(extent);
    }
    Ok(shape)
}

fn unbounded_output(buffer: &Buffer, position: usize, output: &Expr) -> ScheduleError {
    ScheduleError::new(
        codes::BAD_LAYOUT_TRANSFORM,
        format!(
            "new index {position} (`{}`) has no bound over the shape of `{}`",
            expr_to_string(output),
            buffer.name()
        ),
        "use indices whose range follows from the buffer's shape",
    )
    .at_argument(2)
}

/// Refuses a map that is not a bijection onto the new shape: it would leave
/// padding (or fold two elements onto one), which TVM refuses without
/// `pad_value` and tirc cannot yet fill.
fn check_no_padding(
    buffer: &Buffer,
    map: &IndexMap,
    new_shape: &[Expr],
    pad_value_given: bool,
) -> ScheduleResult<()> {
    let analyzer = Analyzer::new();
    let inputs = map.input_ranges(buffer);
    let bijective = detect_iter_map(
        &map.outputs,
        &inputs,
        &Expr::bool(true),
        IterMapLevel::Bijective,
        &analyzer,
        false,
    )
    .is_success();
    let product = |extents: &[Expr]| {
        extents
            .iter()
            .try_fold(Expr::one(DataType::int64()), |acc, e| {
                operators::mul(acc, operators::cast(DataType::int64(), e.clone())).ok()
            })
    };
    let same_size = match (product(buffer.shape()), product(new_shape)) {
        (Some(old), Some(new)) => {
            // `m * n` against `n * m`: expanded as polynomials when the rules cannot tell.
            PolynomialExpander::default().constant_difference(&old, &new) == Some(0)
                || operators::binary(BinaryOp::Eq, old, new)
                    .is_ok_and(|equal| analyzer.can_prove(&equal))
        }
        _ => false,
    };
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
    let help = if pad_value_given {
        "tirc does not yet write the padding `pad_value` asks for; pick factors that divide the shape, or pass `assume_injective_transform=True` to leave the padding unwritten"
    } else {
        "pick factors that divide the shape, give `pad_value=...` (TVM fills the padding; tirc does not yet), or pass `assume_injective_transform=True` if the map is one to one"
    };
    Err(
        ScheduleError::new(codes::BAD_LAYOUT_TRANSFORM, message, help)
            .blame(
                buffer.span(),
                format!("`{}` is declared here", buffer.name()),
            )
            .at_argument(2),
    )
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

/// Rewrites accesses to one buffer through an index map, simplifying the new
/// indices with the loops and block iterators around them (TVM's
/// `IterMapSimplifyWithContext`), and re-infers the regions of the blocks
/// that access it.
struct LayoutRewriter<'m> {
    from: Buffer,
    to: Buffer,
    map: &'m IndexMap,
    iters: Vec<(Var, Range)>,
    analyzer: Analyzer,
}

impl LayoutRewriter<'_> {
    fn new_indices(&self, indices: &[Expr]) -> Vec<Expr> {
        let mapped = self.map.map_indices(indices, &Analyzer::new());
        let simplified = iter_map_simplify(
            &mapped,
            &self.iters,
            &Expr::bool(true),
            IterMapLevel::Surjective,
            &self.analyzer,
            true,
        );
        match simplified {
            // A variable index that simplifies to a constant keeps its name (TVM's non-trivial-only rule).
            Some(simplified) => simplified
                .into_iter()
                .zip(mapped)
                .map(|(new, old)| {
                    if new.as_int().is_some() && old.as_var().is_some() {
                        old
                    } else {
                        new
                    }
                })
                .collect(),
            None => mapped,
        }
    }

    fn enter(&mut self, var: &Var, range: &Range) {
        self.iters.push((var.clone(), range.clone()));
        self.analyzer.bind(var, range);
    }
}

impl Mutator for LayoutRewriter<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rewritten = mutate_expr_children(self, expr);
        match rewritten.kind() {
            ExprKind::Load(load) if load.buffer == self.from => {
                Expr::load(&self.to, self.new_indices(&load.indices))
            }
            _ => rewritten,
        }
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let depth = self.iters.len();
        if let StmtKind::For(for_loop) = stmt.kind() {
            self.enter(&for_loop.loop_var, &for_loop.range());
        }
        let rewritten = mutate_stmt_children(self, stmt);
        self.iters.truncate(depth);
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
        let depth = self.iters.len();
        for iter_var in &block.iter_vars {
            self.enter(&iter_var.var, &iter_var.dom);
        }
        let mut new_block = mutate_block_children(self, block);
        self.iters.truncate(depth);
        let touches = |regions: &[BufferRegion]| regions.iter().any(|r| r.buffer == self.from);
        if touches(&new_block.reads) || touches(&new_block.writes) {
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
    doc: "Gives a buffer the block reads or writes (`(\"read\", 0)`, `(\"write\", 0)` or its name) the layout an index map computes (`lambda i, j: (i // 16, j // 16, i % 16, j % 16)`): its new shape, and every load, store and region of it rewritten. A function parameter's signature changes too. A map that would leave padding is refused (tirc does not yet write `pad_value`).",
    apply: apply_transform_layout,
}];

fn apply_transform_layout(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let choice = buffer_choice_arg(run, bound, 1)?;
    let lambda = match bound.get(2).map(|a| &a.value) {
        Some(Value::Lambda(lambda)) => lambda.clone(),
        Some(other) => return Err(run.wrong_kind(bound, 2, "index_map", "a `lambda`", other)),
        None => return Err(run.wrong_kind(bound, 2, "index_map", "a `lambda`", &Value::None)),
    };
    let pad_value = match bound.get(3).map(|a| &a.value) {
        None | Some(Value::None) => None,
        Some(Value::Int(v)) => Some(TraceArg::Int(*v)),
        Some(Value::Float(v)) => Some(TraceArg::Float(*v)),
        Some(other) => {
            return Err(run.wrong_kind(bound, 3, "pad_value", "a number or `None`", other))
        }
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
    transform_layout(
        run.state,
        block,
        &buffer,
        &lambda,
        pad_value.is_some(),
        assume_injective,
    )
    .map_err(|e| run.refused(bound, e))?;
    run.record(
        "transform_layout",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("buffer"), buffer_trace_arg(kind, index)),
            (Some("index_map"), TraceArg::Source(map_text)),
            (Some("pad_value"), pad_value.unwrap_or(TraceArg::None)),
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
