//! `vectorize`: a vectorized loop with a constant extent becomes one
//! iteration on vectors (TVM's `VectorizeLoop`). The loop variable becomes
//! `T.Ramp(min, 1, lanes)`, loop-invariant values are broadcast where they
//! meet vectors, loads and stores with a vector index become vector loads
//! and stores, and `Ramp`/`Broadcast` arithmetic is folded so that
//! contiguous accesses keep a `Ramp` index.
//!
//! A loop stays `For(Vectorized)` (for the back end to run serially) when its
//! body has something that vector lanes cannot express with the same
//! results: an `if` or `T.if_then_else` whose condition depends on the loop,
//! an allocation, a call that is not an elementwise builtin, a value already
//! of a vector type, a store to one location from every lane, or a buffer
//! that is both written and accessed at different indices (lanes would no
//! longer see each other's writes in order).

use super::support::{broadcast, index_add, index_mul, ramp, uses_any};
use super::LowerOptions;
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::builtin::ArgRule;
use crate::ir::identity::{VarMap, VarSet};
use crate::ir::mutate::{mutate_stmt_children, Mutator};
use crate::ir::operators;
use crate::ir::structural::expr_deep_equal;
use crate::ir::{
    AttrStmt, BinaryOp, BufferStore, Expr, ExprKind, For, ForKind, PrimFunc, Stmt, StmtKind, Var,
};

/// Replaces the vectorizable loops of `func` by vector code.
pub fn vectorize_loop(
    func: &PrimFunc,
    options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    if options.disable_vectorize {
        return Ok(func.clone());
    }
    let mut vectorizer = LoopVectorizer {
        max_lanes: options.max_vector_lanes,
        analyzer: Analyzer::new(),
    };
    let body = vectorizer.mutate_stmt(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct LoopVectorizer {
    max_lanes: i64,
    analyzer: Analyzer,
}

impl Mutator for LoopVectorizer {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let StmtKind::For(for_loop) = stmt.kind() else {
            return mutate_stmt_children(self, stmt);
        };
        if for_loop.extent.dtype().is_integer() {
            self.analyzer.bind(&for_loop.loop_var, &for_loop.range());
        }
        let rebuilt = mutate_stmt_children(self, stmt);
        let StmtKind::For(for_loop) = rebuilt.kind() else {
            return rebuilt;
        };
        if for_loop.kind != ForKind::Vectorized {
            return rebuilt;
        }
        let Some(extent) = for_loop.extent.as_int() else {
            return rebuilt;
        };
        if extent < 1 || extent > self.max_lanes || extent > i64::from(u16::MAX) {
            return rebuilt;
        }
        let lanes = extent as u16;
        match vectorize_body(for_loop, lanes, &self.analyzer) {
            Some(body) => body,
            None => rebuilt,
        }
    }
}

/// The body of `for_loop` on `lanes`-wide vectors, or `None` when it cannot be.
fn vectorize_body(for_loop: &For, lanes: u16, analyzer: &Analyzer) -> Option<Stmt> {
    if !for_loop.min.dtype().is_integer() || !lanes_are_independent(for_loop) {
        return None;
    }
    let lane_values = if lanes == 1 {
        for_loop.min.clone()
    } else {
        ramp(for_loop.min.clone(), Expr::one(for_loop.min.dtype()), lanes)
    };
    let mut vectorizer = Vectorizer {
        lanes,
        vars: VarMap::from_iter([(for_loop.loop_var.clone(), lane_values)]),
        analyzer,
    };
    vectorizer.stmt(&for_loop.body)
}

/// The data variable of an accessed buffer and the indices used.
type Access = (Var, Vec<Expr>);

/// The stores and the loads of a statement.
fn accesses(stmt: &Stmt) -> (Vec<Access>, Vec<Access>) {
    let mut stores = Vec::new();
    let mut loads = Vec::new();
    crate::ir::visit::walk_stmts(stmt, &mut |s| {
        if let StmtKind::BufferStore(store) = s.kind() {
            stores.push((store.buffer.data().clone(), store.indices.clone()));
        }
    });
    crate::ir::visit::walk_exprs_in_stmt(stmt, &mut |e| {
        if let ExprKind::Load(load) = e.kind() {
            loads.push((load.buffer.data().clone(), load.indices.clone()));
        }
    });
    (stores, loads)
}

fn same_indices(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| expr_deep_equal(x, y))
}

/// True when every buffer the body writes is accessed at one index list
/// only: lane `k` then never reads or overwrites what lane `j != k` wrote,
/// and running the lanes together gives the serial loop's results.
fn lanes_are_independent(for_loop: &For) -> bool {
    let (stores, loads) = accesses(&for_loop.body);
    let mut written: VarMap<&Vec<Expr>> = Default::default();
    for (data, indices) in &stores {
        match written.get(data) {
            Some(first) if !same_indices(first, indices) => return false,
            Some(_) => {}
            None => {
                written.insert(data.clone(), indices);
            }
        }
    }
    loads.iter().all(|(data, indices)| match written.get(data) {
        Some(first) => same_indices(first, indices),
        None => true,
    })
}

/// True for builtins that apply to each lane on its own.
fn is_elementwise(op: crate::ir::Op) -> bool {
    let info = op.info();
    (info.pure
        && matches!(
            info.args,
            ArgRule::Float | ArgRule::Numeric | ArgRule::Integer | ArgRule::BoolArg
        ))
        || op.name() == "ldexp"
}

struct Vectorizer<'a> {
    lanes: u16,
    /// Variables whose value differs per lane → their vector value.
    vars: VarMap<Expr>,
    analyzer: &'a Analyzer,
}

impl Vectorizer<'_> {
    fn varies(&self, expr: &Expr) -> bool {
        let keys: VarSet = self.vars.keys().cloned().collect();
        uses_any(expr, &keys)
    }

    fn widen(&self, expr: Expr) -> Expr {
        if expr.dtype().is_scalar() {
            broadcast(expr, self.lanes)
        } else {
            expr
        }
    }

    fn expr(&mut self, expr: &Expr) -> Option<Expr> {
        if expr.dtype().is_vector() {
            // Vectors inside a vectorized loop would need wider vectors.
            return None;
        }
        if !self.varies(expr) {
            return Some(expr.clone());
        }
        match expr.kind() {
            ExprKind::Var(var) => self.vars.get(var).cloned(),
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => Some(expr.clone()),
            ExprKind::Cast(value) => {
                let value = self.expr(value)?;
                let lanes = value.dtype().lanes;
                Some(operators::cast(expr.dtype().with_lanes(lanes), value))
            }
            ExprKind::Not(value) => {
                let value = self.expr(value)?;
                operators::logical_not(value).ok()
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.binary(*op, a, b)
            }
            ExprKind::Select(condition, a, b) => {
                let condition = self.expr(condition)?;
                let condition = self.widen(condition);
                let (a, b) = operators::match_types(self.expr(a)?, self.expr(b)?).ok()?;
                let (a, b) = (self.widen(a), self.widen(b));
                let dtype = a.dtype();
                Some(Expr::new(
                    ExprKind::Select(condition, a, b),
                    dtype,
                    expr.span(),
                ))
            }
            ExprKind::Load(load) => {
                let indices = self.indices(&load.indices)?;
                if let Some(uniform) = uniform_index(&indices) {
                    // Every lane reads one element: load it once, broadcast.
                    return Some(broadcast(Expr::load(&load.buffer, uniform), self.lanes));
                }
                Some(Expr::load(&load.buffer, indices))
            }
            ExprKind::Let { var, value, body } => {
                let value = self.expr(value)?;
                let bound = if value.dtype().is_vector() {
                    let vector_var = var.with_dtype(value.dtype());
                    self.vars.insert(var.clone(), vector_var.to_expr());
                    vector_var
                } else {
                    var.clone()
                };
                let body = self.expr(body)?;
                let dtype = body.dtype();
                Some(Expr::new(
                    ExprKind::Let {
                        var: bound,
                        value,
                        body,
                    },
                    dtype,
                    expr.span(),
                ))
            }
            ExprKind::Call { op, args } => {
                if op.name() == "if_then_else" {
                    // Only the chosen side may be evaluated: the condition
                    // must be the same for every lane.
                    let [condition, a, b] = &args[..] else {
                        return None;
                    };
                    if self.varies(condition) {
                        return None;
                    }
                    let (a, b) = operators::match_types(self.expr(a)?, self.expr(b)?).ok()?;
                    let (a, b) = (self.widen(a), self.widen(b));
                    let dtype = a.dtype();
                    return Some(Expr::call(*op, vec![condition.clone(), a, b], dtype));
                }
                if !is_elementwise(*op) {
                    return None;
                }
                let args: Vec<Expr> = args
                    .iter()
                    .map(|arg| self.expr(arg).map(|a| self.widen(a)))
                    .collect::<Option<_>>()?;
                Some(Expr::new(
                    ExprKind::Call { op: *op, args },
                    expr.dtype().with_lanes(self.lanes),
                    expr.span(),
                ))
            }
            ExprKind::CallFunction { .. }
            | ExprKind::Ramp { .. }
            | ExprKind::Broadcast { .. }
            | ExprKind::Shuffle { .. } => None,
        }
    }

    /// The vector indices of an access: at most one may vary per lane.
    fn indices(&mut self, indices: &[Expr]) -> Option<Vec<Expr>> {
        let result: Vec<Expr> = indices
            .iter()
            .map(|index| self.expr(index))
            .collect::<Option<_>>()?;
        if result.iter().filter(|i| i.dtype().is_vector()).count() > 1 {
            return None;
        }
        Some(result)
    }

    fn binary(&self, op: BinaryOp, a: Expr, b: Expr) -> Option<Expr> {
        let integer = a.dtype().is_integer() && b.dtype().is_integer();
        if integer {
            match op {
                BinaryOp::Add => return index_add(&a, &b).ok(),
                BinaryOp::Sub if b.dtype().is_scalar() => {
                    let negated = operators::neg(b).ok()?;
                    return index_add(&a, &negated).ok();
                }
                BinaryOp::Mul => {
                    if b.dtype().is_scalar() {
                        return index_mul(&a, &b).ok();
                    }
                    if a.dtype().is_scalar() {
                        return index_mul(&b, &a).ok();
                    }
                }
                BinaryOp::FloorDiv | BinaryOp::FloorMod => {
                    if let Some(folded) = self.fold_ramp_division(op, &a, &b) {
                        return Some(folded);
                    }
                }
                _ => {}
            }
        }
        operators::binary(op, a, b).ok()
    }

    /// `Ramp(base, s, n) // c` and `% c` when the ramp stays inside one
    /// multiple of `c`: a broadcast quotient and a ramp remainder.
    fn fold_ramp_division(&self, op: BinaryOp, a: &Expr, b: &Expr) -> Option<Expr> {
        let ExprKind::Ramp {
            base,
            stride,
            lanes,
        } = a.kind()
        else {
            return None;
        };
        let divisor = match b.kind() {
            ExprKind::Broadcast { value, .. } => value.clone(),
            _ if b.dtype().is_scalar() => b.clone(),
            _ => return None,
        };
        let (Some(c), Some(s)) = (divisor.as_int(), stride.as_int()) else {
            return None;
        };
        if c <= 0 || s < 0 {
            return None;
        }
        let span = s.checked_mul(i64::from(*lanes) - 1)?;
        let divisor = operators::cast(base.dtype(), divisor);
        let remainder = operators::floormod(base.clone(), divisor.clone()).ok()?;
        let last = operators::add(remainder.clone(), Expr::int(span, base.dtype())).ok()?;
        let fits = operators::binary(BinaryOp::Lt, last, divisor.clone()).ok()?;
        if !self.analyzer.can_prove(&fits) {
            return None;
        }
        match op {
            BinaryOp::FloorDiv => Some(broadcast(
                operators::floordiv(base.clone(), divisor).ok()?,
                *lanes,
            )),
            _ => Some(ramp(remainder, stride.clone(), *lanes)),
        }
    }

    fn stmt(&mut self, stmt: &Stmt) -> Option<Stmt> {
        match stmt.kind() {
            StmtKind::BufferStore(store) => {
                let value = self.expr(&store.value)?;
                let indices = self.indices(&store.indices)?;
                if indices.iter().all(|i| i.dtype().is_scalar()) {
                    // One location for every lane: only a lane-invariant
                    // value gives the serial loop's result.
                    if value.dtype().is_vector() {
                        return None;
                    }
                    return Some(stmt.clone());
                }
                if uniform_index(&indices).is_some() {
                    return None;
                }
                let lanes = self.lanes;
                let value = if value.dtype().is_scalar() {
                    broadcast(value, lanes)
                } else {
                    value
                };
                Some(stmt.with_kind(StmtKind::BufferStore(BufferStore {
                    buffer: store.buffer.clone(),
                    value,
                    indices,
                })))
            }
            StmtKind::Seq(stmts) => {
                let stmts: Vec<Stmt> = stmts.iter().map(|s| self.stmt(s)).collect::<Option<_>>()?;
                Some(stmt.with_kind(StmtKind::Seq(stmts)))
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if self.varies(condition) {
                    return None;
                }
                let then_case = self.stmt(then_case)?;
                let else_case = match else_case {
                    Some(s) => Some(self.stmt(s)?),
                    None => None,
                };
                Some(stmt.with_kind(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case,
                    else_case,
                }))
            }
            StmtKind::For(inner) => {
                if self.varies(&inner.min) || self.varies(&inner.extent) {
                    return None;
                }
                if inner.kind == ForKind::Vectorized || inner.kind == ForKind::ThreadBinding {
                    return None;
                }
                let body = self.stmt(&inner.body)?;
                Some(stmt.with_kind(StmtKind::For(For {
                    body,
                    ..inner.clone()
                })))
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.expr(value)?;
                let bound = if value.dtype().is_vector() {
                    let vector_var = var.with_dtype(value.dtype());
                    self.vars.insert(var.clone(), vector_var.to_expr());
                    vector_var
                } else {
                    var.clone()
                };
                let body = self.stmt(body)?;
                Some(stmt.with_kind(StmtKind::LetStmt {
                    var: bound,
                    value,
                    body,
                }))
            }
            StmtKind::Evaluate(value) => {
                if self.varies(value) {
                    return None;
                }
                Some(stmt.clone())
            }
            StmtKind::AttrStmt(attr) => {
                if self.varies(&attr.value) {
                    return None;
                }
                let body = self.stmt(&attr.body)?;
                Some(stmt.with_kind(StmtKind::AttrStmt(AttrStmt {
                    body,
                    ..attr.clone()
                })))
            }
            _ => None,
        }
    }
}

/// The scalar indices of an access whose vector index is a `Broadcast`.
fn uniform_index(indices: &[Expr]) -> Option<Vec<Expr>> {
    let mut uniform = Vec::with_capacity(indices.len());
    let mut found = false;
    for index in indices {
        match index.kind() {
            ExprKind::Broadcast { value, .. } => {
                found = true;
                uniform.push(value.clone());
            }
            _ if index.dtype().is_scalar() => uniform.push(index.clone()),
            _ => return None,
        }
    }
    found.then_some(uniform)
}
