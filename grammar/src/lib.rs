//! Lexer, layout and parser for the Python subset TVMScript is written in.
//!
//! `text ─lexer─▶ tokens ─layout─▶ NEWLINE/INDENT/DEDENT ─parser─▶ ast::File`.
//! This crate knows nothing of TensorIR; it never panics on any input, and it
//! always returns the tree it could build together with every syntax error.
#![deny(missing_docs)]

pub mod ast;
pub mod layout;
pub mod lexer;
mod parser;

pub use ast::Span;

/// A syntax error: what was found, what was expected, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    /// Where the error is; for an unexpected end of input, an empty span at the end.
    pub span: Span,
    /// A one-line message such as `expected ':', found newline`.
    pub message: String,
}

/// The result of parsing a file: the tree (with `Error` nodes where parsing failed)
/// and the errors, in source order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Parsed {
    /// The syntax tree, as much of it as could be built.
    pub file: ast::File,
    /// Every syntax error found, in source order.
    pub errors: Vec<SyntaxError>,
}

/// Parses a whole `.tir` file.
pub fn parse_file(source: &str) -> Parsed {
    parser::parse(source)
}
