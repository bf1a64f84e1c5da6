//! Where verifier diagnostics point, and how they name IR in messages.
//!
//! Variable references carry no span of their own (the frontend shares one
//! node per variable), so a check blames the innermost enclosing expression
//! or statement that has one; [`SpanStack`] keeps that fallback while a walk
//! descends.

use crate::arith::Analyzer;
use crate::ir::{Buffer, BufferRegion, Expr, ExprKind, Range};
use crate::printer::expr_to_string;
use crate::source::Span;

/// The spans of the nodes a walk is inside, innermost last; unknown spans are
/// skipped so the top is always the nearest known location.
#[derive(Default)]
pub(super) struct SpanStack(Vec<Span>);

impl SpanStack {
    /// The nearest known location, or `Span::NONE` at the top of a function
    /// built without spans.
    pub(super) fn current(&self) -> Span {
        self.0.last().copied().unwrap_or(Span::NONE)
    }

    /// Enters a node; returns whether its span was pushed (pass it to `leave`).
    pub(super) fn enter(&mut self, span: Span) -> bool {
        if span.is_known() {
            self.0.push(span);
            true
        } else {
            false
        }
    }

    /// Leaves a node entered with `enter`.
    pub(super) fn leave(&mut self, pushed: bool) {
        if pushed {
            self.0.pop();
        }
    }

    /// `span` when it is known, else the nearest enclosing one.
    pub(super) fn or_current(&self, span: Span) -> Span {
        if span.is_known() {
            span
        } else {
            self.current()
        }
    }
}

/// An expression as TVMScript text, for messages.
pub(super) fn show(expr: &Expr) -> String {
    expr_to_string(expr)
}

/// One range as a subscript: `i` for a single point, `a:b` otherwise.
pub(super) fn show_range(range: &Range) -> String {
    if range.extent.as_int() == Some(1) {
        return show(&range.min);
    }
    let stop = range
        .end()
        .map(|stop| Analyzer::new().simplify(&stop))
        .unwrap_or_else(|_| range.extent.clone());
    format!("{}:{}", show(&range.min), show(&stop))
}

/// A region as TVMScript writes it: `A[vi, 0:64]`.
pub(super) fn show_region(region: &BufferRegion) -> String {
    let parts: Vec<String> = region.region.iter().map(show_range).collect();
    format!("{}[{}]", region.buffer.name(), parts.join(", "))
}

/// An access as TVMScript writes it: `A[vi, vk + 1]`.
pub(super) fn show_access(buffer: &Buffer, indices: &[Expr]) -> String {
    let parts: Vec<String> = indices.iter().map(show).collect();
    format!("{}[{}]", buffer.name(), parts.join(", "))
}

/// True when the expression is an implicit conversion the frontend inserted:
/// TVM's rules give such a cast the span of its operand (or of the store it
/// feeds), while `T.Cast(...)` written out spans the whole call.
pub(super) fn is_implicit_cast(expr: &Expr) -> bool {
    match expr.kind() {
        ExprKind::Cast(operand) => expr.span() == operand.span(),
        _ => false,
    }
}
