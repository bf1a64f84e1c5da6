//! The printer: IR to TVMScript text.

use crate::ir::Expr;

/// An expression as TVMScript text.
pub fn expr_to_string(expr: &Expr) -> String {
    format!("{:?}", expr.kind())
}
