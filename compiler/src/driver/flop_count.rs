//! The floating-point operation count of a function, for GFLOP/s: every
//! float arithmetic operation and math call in stored values, times the trip
//! counts of the loops around it (`T.init()` bodies and index arithmetic
//! excluded, so a matmul of n*m*k counts 2*n*m*k). A function without float
//! arithmetic counts its integer operations instead.

use super::shape_binding::evaluate_integer;
use crate::ir::identity::VarMap;
use crate::ir::{Expr, ExprKind, PrimFunc, Stmt, StmtKind};

struct Counter<'v> {
    shape_values: &'v VarMap<i64>,
    float_ops: f64,
    integer_ops: f64,
}

fn operations_in(expr: &Expr, float: bool) -> f64 {
    let counted = |e: &Expr| e.dtype().is_float() == float;
    match expr.kind() {
        ExprKind::Binary(_, a, b) => {
            let own = if counted(a) {
                f64::from(a.dtype().lanes)
            } else {
                0.0
            };
            own + operations_in(a, float) + operations_in(b, float)
        }
        ExprKind::Call { args, .. } => {
            let own = if counted(expr) && expr.dtype().is_float() == float {
                f64::from(expr.dtype().lanes)
            } else {
                0.0
            };
            own + args.iter().map(|a| operations_in(a, float)).sum::<f64>()
        }
        ExprKind::Select(c, a, b) => {
            operations_in(c, float) + operations_in(a, float) + operations_in(b, float)
        }
        ExprKind::Cast(v) | ExprKind::Not(v) | ExprKind::Broadcast { value: v, .. } => {
            operations_in(v, float)
        }
        ExprKind::Let { value, body, .. } => {
            operations_in(value, float) + operations_in(body, float)
        }
        // Loads count nothing: their indices are addressing, not arithmetic.
        _ => 0.0,
    }
}

impl Counter<'_> {
    fn trip_count(&self, extent: &Expr) -> f64 {
        evaluate_integer(extent, self.shape_values).map_or(1.0, |n| n.max(0) as f64)
    }

    fn visit(&mut self, stmt: &Stmt, scale: f64) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                let trips = self.trip_count(&for_loop.extent);
                self.visit(&for_loop.body, scale * trips);
            }
            StmtKind::BlockRealize(realize) => self.visit(&realize.block.body, scale),
            StmtKind::BufferStore(store) => {
                self.float_ops += scale * operations_in(&store.value, true);
                self.integer_ops += scale * operations_in(&store.value, false);
            }
            StmtKind::Seq(stmts) => stmts.iter().for_each(|s| self.visit(s, scale)),
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                self.visit(then_case, scale);
                if let Some(else_case) = else_case {
                    self.visit(else_case, scale);
                }
            }
            StmtKind::LetStmt { body, .. }
            | StmtKind::Allocate(crate::ir::Allocate { body, .. })
            | StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Assert { body, .. }
            | StmtKind::While { body, .. } => self.visit(body, scale),
            StmtKind::AttrStmt(attr) => self.visit(&attr.body, scale),
            StmtKind::Evaluate(_) => {}
        }
    }
}

/// The operation count of one call of `func` with its symbolic shapes bound
/// to `shape_values`.
pub fn count_flops(func: &PrimFunc, shape_values: &VarMap<i64>) -> f64 {
    let mut counter = Counter {
        shape_values,
        float_ops: 0.0,
        integer_ops: 0.0,
    };
    counter.visit(&func.body, 1.0);
    if counter.float_ops > 0.0 {
        counter.float_ops
    } else {
        counter.integer_ops
    }
}
