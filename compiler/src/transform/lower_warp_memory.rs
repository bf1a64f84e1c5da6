//! `lower-warp-memory`: a buffer in `warp` scope is memory the 32 lanes of
//! a warp hold together, each lane its own slice in registers (TVM's
//! `LowerWarpMemory`). Its allocation becomes a `local` one of the size of
//! a slice, and every access is rewritten to the accessing lane's slice:
//!
//! - the buffer is laid out as groups of `width * m` elements, where `m`
//!   elements belong to each lane (`m` is the coefficient of `threadIdx.x`
//!   in the index of the stores, `ldmatrix` or `mma_fill` that write it)
//!   and `width` is the `threadIdx.x` extent;
//! - index `i` is element `i / (width * m) * m + i % m` of lane
//!   `i % (width * m) / m`;
//! - a load from another lane's slice becomes a warp shuffle from that
//!   lane; the tensor-core builtins ([`MmaBuiltin`]: `ldmatrix`, `mma`,
//!   `mma_fill`, `mma_store`) take the lane's slice at the rewritten
//!   offset, since each lane passes its own registers to the instruction.

use super::codes;
use super::LowerOptions;
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::builtin::MmaBuiltin;
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, Mutator};
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{
    operators, Buffer, BufferLoad, BufferStore, Expr, ExprKind, ForKind, Op, PrimFunc, Range, Stmt,
    StmtKind, Var,
};
use crate::source::Span;

/// The lanes of a CUDA warp.
const WARP_SIZE: i64 = 32;

/// Rewrites every `warp` allocation of `func` into per-lane `local` memory.
pub fn lower_warp_memory(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut lowerer = WarpLowerer { errors: Vec::new() };
    let body = lowerer.mutate_stmt(&func.body);
    if !lowerer.errors.is_empty() {
        return Err(lowerer.errors);
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct WarpLowerer {
    errors: Vec<Diagnostic>,
}

impl Mutator for WarpLowerer {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let stmt = mutate_stmt_children(self, stmt);
        let StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } = stmt.kind()
        else {
            return stmt;
        };
        if buffer.scope() != "warp" {
            return stmt;
        }
        match lower_allocation(buffer, body) {
            Ok((local, body)) => stmt.with_kind(StmtKind::AllocBuffer {
                buffer: local,
                annotations: annotations.clone(),
                body,
            }),
            Err(errors) => {
                self.errors.extend(errors);
                stmt
            }
        }
    }
}

fn warp_error(buffer: &Buffer, message: String, span: Span) -> Diagnostic {
    let span = if span == Span::NONE {
        buffer.span()
    } else {
        span
    };
    Diagnostic::error(
        codes::WARP_MEMORY,
        format!("warp memory `{}`: {message}", buffer.name()),
        span,
    )
    .with_help(WARP_HELP)
}

/// What makes warp memory lowerable, said with every refusal.
const WARP_HELP: &str =
    "each lane must write its own elements at `m * threadIdx.x + ...` (m > 0), \
     with threadIdx.x at most 32 threads; `tirc explain E0510` shows the form";

/// The local buffer that replaces `buffer` and the body rewritten to it.
fn lower_allocation(buffer: &Buffer, body: &Stmt) -> Result<(Buffer, Stmt), Vec<Diagnostic>> {
    let size = buffer
        .constant_shape()
        .map(|shape| shape.iter().product::<i64>() * i64::from(buffer.dtype().lanes))
        .filter(|size| *size > 0)
        .ok_or_else(|| {
            vec![warp_error(
                buffer,
                "its shape is not constant, and each lane needs a fixed number of registers".into(),
                buffer.span(),
            )]
        })?;
    let mut finder = LayoutFinder {
        data: buffer.data().clone(),
        lanes: Vec::new(),
        width: None,
        per_lane: None,
        errors: Vec::new(),
    };
    finder.visit_stmt(body);
    if !finder.errors.is_empty() {
        return Err(finder.errors);
    }
    let (Some(width), Some(per_lane)) = (finder.width, finder.per_lane) else {
        return Err(vec![warp_error(
            buffer,
            "nothing in its scope writes it from a `threadIdx.x` loop (a store, `ldmatrix` or \
             `mma_fill`), so which lane holds which element is unknown"
                .into(),
            buffer.span(),
        )]);
    };
    let group = width * per_lane;
    let groups = (size + group - 1) / group;
    let local = buffer.with(|node| {
        node.scope = "local".to_string();
        node.shape = vec![Expr::i32(groups * per_lane)];
        node.strides = Vec::new();
        node.elem_offset = Expr::i32(0);
        node.data = Var::pointer(&node.name, node.dtype, "local", node.span);
    });
    let mut rewriter = AccessRewriter {
        warp: buffer.clone(),
        local: local.clone(),
        width,
        per_lane,
        groups,
        lanes: Vec::new(),
        errors: Vec::new(),
    };
    let body = rewriter.mutate_stmt(body);
    if !rewriter.errors.is_empty() {
        return Err(rewriter.errors);
    }
    Ok((local, body))
}

/// The innermost `threadIdx.x` loop around a statement: its variable and extent.
fn lane_loop(stmt: &Stmt) -> Option<(Var, Option<i64>)> {
    match stmt.kind() {
        StmtKind::For(for_loop)
            if for_loop.kind == ForKind::ThreadBinding
                && for_loop.thread.as_deref() == Some("threadIdx.x") =>
        {
            Some((for_loop.loop_var.clone(), for_loop.extent.as_int()))
        }
        _ => None,
    }
}

/// An analyzer that knows the lane variable's range.
fn lane_analyzer(lane: &Var, width: i64) -> Analyzer {
    let mut analyzer = Analyzer::new();
    analyzer.bind(lane, &Range::new(Expr::i32(0), Expr::i32(width)));
    analyzer
}

/// Finds `width` (the `threadIdx.x` extent) and `m` (the elements of each
/// lane) from the accesses that write the buffer.
struct LayoutFinder {
    data: Var,
    lanes: Vec<(Var, Option<i64>)>,
    width: Option<i64>,
    per_lane: Option<i64>,
    errors: Vec<Diagnostic>,
}

impl LayoutFinder {
    fn error(&mut self, message: String, span: Span) {
        self.errors
            .push(Diagnostic::error(codes::WARP_MEMORY, message, span).with_help(WARP_HELP));
    }

    /// Records a write at `index` (`None`: `m` is given by `per_lane`).
    fn record_write(&mut self, index: Option<&Expr>, per_lane: Option<i64>, span: Span) {
        let name = self.data.name().to_string();
        let Some((lane, extent)) = self.lanes.last().cloned() else {
            self.error(
                format!("warp memory `{name}` is written outside every `threadIdx.x` loop"),
                span,
            );
            return;
        };
        let Some(width) = extent.filter(|w| *w > 0 && WARP_SIZE % w == 0) else {
            self.error(
                format!(
                    "warp memory `{name}` is written under `threadIdx.x` loop `{}`, whose extent is not a constant dividing 32",
                    lane.name()
                ),
                span,
            );
            return;
        };
        if self.width.is_some_and(|known| known != width) {
            self.error(
                format!("warp memory `{name}` is written under `threadIdx.x` loops of different extents"),
                span,
            );
            return;
        }
        self.width = Some(width);
        let coefficient = match (index, per_lane) {
            (_, Some(per_lane)) => Some(per_lane),
            (Some(index), None) => lane_coefficient(index, &lane, width),
            (None, None) => None,
        };
        match coefficient {
            Some(m) if m > 0 && self.per_lane.is_none_or(|known| known == m) => {
                self.per_lane = Some(m);
            }
            Some(m) if m > 0 => self.error(
                format!(
                    "warp memory `{name}` is written with {} and with {m} elements per lane",
                    self.per_lane.unwrap_or_default()
                ),
                span,
            ),
            _ => self.error(
                format!(
                    "warp memory `{name}` is written at `{}`, which is not `m * {} + ...` with a constant m > 0",
                    index.map(ToString::to_string).unwrap_or_default(),
                    lane.name()
                ),
                span,
            ),
        }
    }
}

/// True when `expr` mentions `var`.
fn uses_var(expr: &Expr, var: &Var) -> bool {
    crate::ir::visit::expr_uses_var(expr, &mut |v| v == var)
}

/// The constant `m` of an index `m * lane + (terms free of lane)`.
fn lane_coefficient(index: &Expr, lane: &Var, width: i64) -> Option<i64> {
    let analyzer = lane_analyzer(lane, width);
    let mut next = crate::ir::identity::VarMap::default();
    next.insert(
        lane.clone(),
        operators::add(lane.to_expr(), Expr::int(1, lane.dtype())).ok()?,
    );
    let shifted = crate::ir::mutate::substitute(index, &next);
    let difference = operators::sub(shifted, index.clone()).ok()?;
    let coefficient = analyzer.simplify(&difference).as_int()?;
    // `m * lane + rest` only: the difference alone does not rule out `lane * lane`.
    let rest = operators::sub(
        index.clone(),
        operators::mul(lane.to_expr(), Expr::int(coefficient, lane.dtype())).ok()?,
    )
    .ok()?;
    let rest = analyzer.simplify(&rest);
    (!uses_var(&rest, lane)).then_some(coefficient)
}

impl Visitor for LayoutFinder {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if let Some(lane) = lane_loop(stmt) {
            self.lanes.push(lane);
            walk_stmt(self, stmt);
            self.lanes.pop();
            return;
        }
        if let StmtKind::BufferStore(store) = stmt.kind() {
            if store.buffer.data() == &self.data {
                match store.indices.as_slice() {
                    [index] if index.dtype().lanes == 1 => {
                        self.record_write(Some(index), None, stmt.span())
                    }
                    _ => self.error(
                        format!(
                            "warp memory `{}` is stored with a vector or multi-dimensional index; flatten it and store one element per lane",
                            self.data.name()
                        ),
                        stmt.span(),
                    ),
                }
            }
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Call { op, args } = expr.kind() {
            let names_data = |i: usize| args.get(i).and_then(Expr::as_var) == Some(&self.data);
            match MmaBuiltin::of(op.name()) {
                Some(MmaBuiltin::Ldmatrix) if names_data(3) => {
                    self.record_write(args.get(4), None, expr.span())
                }
                Some(MmaBuiltin::Fill) if names_data(1) => {
                    let per_lane = args.first().and_then(Expr::as_int);
                    self.record_write(None, per_lane, expr.span())
                }
                _ => {}
            }
        }
        walk_expr(self, expr);
    }
}

/// Rewrites the accesses to one warp buffer into its local slice.
struct AccessRewriter {
    warp: Buffer,
    local: Buffer,
    width: i64,
    per_lane: i64,
    groups: i64,
    lanes: Vec<(Var, Option<i64>)>,
    errors: Vec<Diagnostic>,
}

impl AccessRewriter {
    /// The element of the lane's slice and the lane that holds `index`.
    fn split_index(&mut self, index: &Expr, span: Span) -> Option<(Expr, Expr, Var)> {
        let Some((lane, _)) = self.lanes.last().cloned() else {
            self.errors.push(warp_error(
                &self.warp,
                "it is accessed outside every `threadIdx.x` loop".into(),
                span,
            ));
            return None;
        };
        let analyzer = lane_analyzer(&lane, self.width);
        let ty = index.dtype();
        let constant = |v: i64| Expr::int(v, ty);
        let m = constant(self.per_lane);
        let parts = (|| {
            let within = operators::floormod(index.clone(), m.clone())?;
            if self.groups == 1 {
                return Ok((within, operators::floordiv(index.clone(), m.clone())?));
            }
            let group_size = constant(self.per_lane * self.width);
            let group = operators::floordiv(index.clone(), group_size.clone())?;
            let element = operators::add(operators::mul(group, m.clone())?, within)?;
            let holder = operators::floordiv(operators::floormod(index.clone(), group_size)?, m)?;
            Ok::<_, crate::ir::operators::OperatorError>((element, holder))
        })();
        match parts {
            Ok((element, holder)) => Some((
                analyzer.simplify(&element),
                analyzer.simplify(&holder),
                lane,
            )),
            Err(error) => {
                self.errors.push(warp_error(
                    &self.warp,
                    format!("its index `{index}` cannot be split by lane: {}", error.0),
                    span,
                ));
                None
            }
        }
    }

    fn single_index<'a>(&mut self, indices: &'a [Expr], span: Span) -> Option<&'a Expr> {
        match indices {
            [index] if index.dtype().lanes == 1 => Some(index),
            _ => {
                self.errors.push(warp_error(
                    &self.warp,
                    "a vector or multi-dimensional access; warp memory is lowered after flattening, one element at a time".into(),
                    span,
                ));
                None
            }
        }
    }
}

impl Mutator for AccessRewriter {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let Some(lane) = lane_loop(stmt) {
            self.lanes.push(lane);
            let rewritten = mutate_stmt_children(self, stmt);
            self.lanes.pop();
            return rewritten;
        }
        let rewritten = mutate_stmt_children(self, stmt);
        let StmtKind::BufferStore(store) = rewritten.kind() else {
            return rewritten;
        };
        if store.buffer.data() != self.warp.data() {
            return rewritten;
        }
        let Some(index) = self.single_index(&store.indices, stmt.span()).cloned() else {
            return rewritten;
        };
        let Some((element, holder, lane)) = self.split_index(&index, stmt.span()) else {
            return rewritten;
        };
        let analyzer = lane_analyzer(&lane, self.width);
        if !analyzer.can_prove_equal(&holder, &lane.to_expr()) {
            self.errors.push(warp_error(
                &self.warp,
                format!(
                    "the store at `{index}` writes lane `{holder}`'s element, but only lane `{}` itself can write its registers",
                    lane.name()
                ),
                stmt.span(),
            ));
            return rewritten;
        }
        rewritten.with_kind(StmtKind::BufferStore(BufferStore {
            buffer: self.local.clone(),
            value: store.value.clone(),
            indices: vec![element],
        }))
    }

    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        match expr.kind() {
            ExprKind::Var(var) if var == self.warp.data() => {
                self.errors.push(warp_error(
                    &self.warp,
                    "its address is taken, but warp memory has no address: only loads, stores and the tensor-core builtins can use it".into(),
                    expr.span(),
                ));
                expr.clone()
            }
            ExprKind::Load(load) if load.buffer.data() == self.warp.data() => {
                let Some(index) = self.single_index(&load.indices, expr.span()).cloned() else {
                    return expr.clone();
                };
                let index = self.mutate_expr(&index);
                let Some((element, holder, lane)) = self.split_index(&index, expr.span()) else {
                    return expr.clone();
                };
                let local_load = Expr::new(
                    ExprKind::Load(BufferLoad {
                        buffer: self.local.clone(),
                        indices: vec![element.clone()],
                    }),
                    expr.dtype(),
                    expr.span(),
                );
                let analyzer = lane_analyzer(&lane, self.width);
                if analyzer.can_prove_equal(&holder, &lane.to_expr()) {
                    return local_load;
                }
                if uses_var(&element, &lane) {
                    self.errors.push(warp_error(
                        &self.warp,
                        format!(
                            "the load at `{index}` reads element `{element}` of another lane, which depends on the lane: a shuffle moves one register of every lane"
                        ),
                        expr.span(),
                    ));
                    return expr.clone();
                }
                let mask = Expr::call(
                    Op::named("tvm_warp_activemask"),
                    Vec::new(),
                    crate::ir::DataType::uint(32),
                );
                Expr::call(
                    Op::named("tvm_warp_shuffle"),
                    vec![
                        mask,
                        local_load,
                        holder,
                        Expr::i32(self.width),
                        Expr::i32(WARP_SIZE),
                    ],
                    expr.dtype(),
                )
                .with_span(expr.span())
            }
            ExprKind::Call { op, args } => {
                let Some(builtin) = MmaBuiltin::of(op.name()) else {
                    return mutate_expr_children(self, expr);
                };
                let registers = builtin.register_operands();
                // Every operand rewritten but the warp data in a register
                // position, which becomes the lane's registers with its offset.
                let mut args: Vec<Expr> = args
                    .iter()
                    .enumerate()
                    .map(|(i, arg)| {
                        let lane_registers = registers.contains(&i)
                            && arg.as_var() == Some(self.warp.data())
                            && i + 1 < args.len();
                        if lane_registers {
                            arg.clone()
                        } else {
                            self.mutate_expr(arg)
                        }
                    })
                    .collect();
                for &position in registers {
                    let names_warp =
                        args.get(position).and_then(Expr::as_var) == Some(self.warp.data());
                    if !names_warp || position + 1 >= args.len() {
                        continue;
                    }
                    if let Some((element, _, _)) =
                        self.split_index(&args[position + 1], expr.span())
                    {
                        args[position] = self.local.data().to_expr();
                        args[position + 1] = element;
                    }
                }
                Expr::new(ExprKind::Call { op: *op, args }, expr.dtype(), expr.span())
            }
            _ => mutate_expr_children(self, expr),
        }
    }
}
