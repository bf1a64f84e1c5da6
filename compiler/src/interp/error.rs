//! The interpreter's error: a message and the span of the IR node at fault.

use crate::diagnostics::Diagnostic;
use crate::source::Span;
use std::fmt;

/// Why a program could not be run to the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpError {
    /// What went wrong, naming the buffer, variable or value involved.
    pub message: String,
    /// The expression or statement at fault; `Span::NONE` for built IR.
    pub span: Span,
}

impl InterpError {
    /// An error with no location yet; the caller's node fills it in.
    pub fn new(message: impl Into<String>) -> InterpError {
        InterpError {
            message: message.into(),
            span: Span::NONE,
        }
    }

    /// An error at `span`.
    pub fn at(message: impl Into<String>, span: Span) -> InterpError {
        InterpError {
            message: message.into(),
            span,
        }
    }

    /// The same error, located at `span` unless it already has a location:
    /// the innermost node that knows where it came from wins.
    pub fn or_at(mut self, span: Span) -> InterpError {
        if !self.span.is_known() {
            self.span = span;
        }
        self
    }

    /// The error as a compiler diagnostic, for rendering with the source.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error("", self.message.clone(), self.span)
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InterpError {}

/// The result of every fallible interpreter step.
pub type InterpResult<T> = Result<T, InterpError>;
