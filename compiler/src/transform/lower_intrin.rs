//! `lower-intrin`: operators and builtins are rewritten into what the back
//! end implements directly (TVM's `LowerIntrin` for CPU targets).
//!
//! - Integer `floordiv`/`floormod` by a constant power of two become an
//!   arithmetic shift and a mask, exact for every sign in two's complement.
//! - Other integer `floordiv`/`floormod` whose dividend is provably
//!   non-negative and divisor provably positive become the truncating
//!   `T.Div`/`T.truncmod`, which map to one machine division. The rest keep
//!   their floor semantics for the back end.
//! - `T.sigmoid(x)` becomes `1 / (1 + T.exp(-x))`, `T.rsqrt(x)` becomes
//!   `1 / T.sqrt(x)`, `T.exp10(x)` becomes `T.pow(10, x)`, and integer
//!   `T.fabs(x)` becomes `T.Select(x >= 0, x, -x)`: none of them has an LLVM
//!   intrinsic or a libm function the back end could call.

use super::LowerOptions;
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::mutate::{mutate_expr_children, Mutator};
use crate::ir::{
    operators, AttrNode, BinaryOp, Expr, ExprKind, Op, PrimFunc, Range, Stmt, StmtKind,
};

/// Lowers operators and builtins of `func` for the back end.
pub fn lower_intrin(func: &PrimFunc, _options: &LowerOptions) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut lowerer = IntrinLowerer {
        analyzer: Analyzer::new(),
    };
    let body = lowerer.mutate_stmt(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct IntrinLowerer {
    /// Knows the range of every enclosing loop.
    analyzer: Analyzer,
}

/// The exponent `k` when `value` is `2^k` with `k >= 1`.
fn power_of_two(value: i64) -> Option<u32> {
    (value > 1 && value & (value - 1) == 0).then(|| value.trailing_zeros())
}

/// The constant of a scalar literal or of a broadcast literal.
fn constant_of(expr: &Expr) -> Option<i64> {
    match expr.kind() {
        ExprKind::Broadcast { value, .. } => value.as_int(),
        _ => expr.as_int(),
    }
}

/// A literal of `dtype` (broadcast for vectors).
fn literal_like(dtype: crate::ir::DataType, value: i64) -> Expr {
    let scalar = operators::make_const_int(dtype.element_of(), value);
    super::support::broadcast(scalar, dtype.lanes)
}

fn float_literal_like(dtype: crate::ir::DataType, value: f64) -> Expr {
    let scalar = operators::make_const_float(dtype.element_of(), value);
    super::support::broadcast(scalar, dtype.lanes)
}

impl IntrinLowerer {
    fn lower_division(&self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr) -> Option<Expr> {
        let dtype = expr.dtype();
        if !dtype.is_integer() || a.dtype() != b.dtype() {
            return None;
        }
        let divisor = constant_of(b);
        if let Some(shift) = divisor.and_then(power_of_two) {
            let op_name = if op == BinaryOp::FloorDiv {
                "shift_right"
            } else {
                "bitwise_and"
            };
            let operand = if op == BinaryOp::FloorDiv {
                literal_like(dtype, i64::from(shift))
            } else {
                literal_like(dtype, (1i64 << shift) - 1)
            };
            return Some(Expr::new(
                ExprKind::Call {
                    op: Op::named(op_name),
                    args: vec![a.clone(), operand],
                },
                dtype,
                expr.span(),
            ));
        }
        if a.dtype().is_scalar() {
            let dividend_non_negative =
                dtype.is_uint() || self.analyzer.can_prove_greater_equal(a, 0);
            let divisor_positive = self.analyzer.can_prove_greater_equal(b, 1);
            if dividend_non_negative && divisor_positive {
                let truncating = if op == BinaryOp::FloorDiv {
                    BinaryOp::Div
                } else {
                    BinaryOp::Mod
                };
                return Some(Expr::new(
                    ExprKind::Binary(truncating, a.clone(), b.clone()),
                    dtype,
                    expr.span(),
                ));
            }
        }
        None
    }

    fn lower_call(&self, expr: &Expr, op: Op, args: &[Expr]) -> Option<Expr> {
        let dtype = expr.dtype();
        match (op.name(), args) {
            ("sigmoid", [x]) if dtype.is_float() => {
                let one = float_literal_like(dtype, 1.0);
                let negated = operators::neg(x.clone()).ok()?;
                let exp = Expr::call(Op::named("exp"), vec![negated], dtype);
                let denominator = operators::add(one.clone(), exp).ok()?;
                Some(Expr::binary(BinaryOp::Div, one, denominator))
            }
            ("rsqrt", [x]) if dtype.is_float() => {
                let one = float_literal_like(dtype, 1.0);
                let root = Expr::call(Op::named("sqrt"), vec![x.clone()], dtype);
                Some(Expr::binary(BinaryOp::Div, one, root))
            }
            ("exp10", [x]) if dtype.is_float() => {
                let ten = float_literal_like(dtype, 10.0);
                Some(Expr::call(Op::named("pow"), vec![ten, x.clone()], dtype))
            }
            ("fabs", [x]) if dtype.is_integer() => {
                let zero = literal_like(dtype, 0);
                let non_negative = operators::binary(BinaryOp::Ge, x.clone(), zero.clone()).ok()?;
                let negated = operators::sub(zero, x.clone()).ok()?;
                Some(Expr::new(
                    ExprKind::Select(non_negative, x.clone(), negated),
                    dtype,
                    expr.span(),
                ))
            }
            _ => None,
        }
    }
}

impl Mutator for IntrinLowerer {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rebuilt = mutate_expr_children(self, expr);
        let lowered = match rebuilt.kind() {
            ExprKind::Binary(op @ (BinaryOp::FloorDiv | BinaryOp::FloorMod), a, b) => {
                self.lower_division(&rebuilt, *op, a, b)
            }
            ExprKind::Call { op, args } => self.lower_call(&rebuilt, *op, args),
            _ => None,
        };
        lowered.unwrap_or(rebuilt)
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(for_loop) if for_loop.extent.dtype().is_integer() => {
                self.analyzer.bind(&for_loop.loop_var, &for_loop.range());
            }
            StmtKind::AttrStmt(attr) => {
                if let AttrNode::Thread { var, .. } = &attr.node {
                    if attr.value.dtype().is_integer() {
                        self.analyzer
                            .bind(var, &Range::from_extent(attr.value.clone()));
                    }
                }
            }
            _ => {}
        }
        crate::ir::mutate::mutate_stmt_children(self, stmt)
    }
}
