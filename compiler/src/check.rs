//! The checking pipeline shared by `tirc check`, every other command and the
//! language server: parse, lower to IR, verify. One function, so an editor
//! shows exactly what the command line reports.

use crate::diagnostics::{sort_diagnostics, Diagnostic};
use crate::frontend::{parse_program_with, Program};
use crate::source::{SourceMap, Span};

/// Options of the checks beyond the defaults.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Report the implicit casts TVM inserts as warnings.
    pub strict_casts: bool,
    /// Report declared regions larger than what the block touches.
    pub warn_loose_regions: bool,
    /// Build the program's symbol index (for editor features).
    pub record_symbols: bool,
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
    let (program, mut diagnostics) =
        parse_program_with(sources, name, text, options.record_symbols);
    if let Some(program) = &program {
        let mut verified = crate::verify::verify_module(&program.module, options);
        for intrinsic in &program.tensor_intrinsics {
            let functions = crate::ir::IRModule {
                functions: vec![
                    intrinsic.description.clone(),
                    intrinsic.implementation.clone(),
                ],
                ..crate::ir::IRModule::default()
            };
            verified.extend(crate::verify::verify_module(&functions, options));
        }
        verified.extend(crate::verify::verify_schedule_block_names(program));
        // A frontend error leaves placeholder values behind; what the verifier
        // says about the same place would only repeat it.
        let frontend_errors: Vec<Span> = diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.span)
            .collect();
        verified.retain(|d| !frontend_errors.iter().any(|e| overlaps(*e, d.span)));
        diagnostics.extend(
            verified
                .into_iter()
                .map(|diagnostic| diagnostic.at_first_lines(sources)),
        );
    }
    sort_diagnostics(&mut diagnostics);
    Checked {
        program,
        diagnostics,
    }
}

/// True when two spans of one file share at least one byte (or are the same point).
fn overlaps(a: Span, b: Span) -> bool {
    a.file == b.file && a.start <= b.end && b.start <= a.end && (a.start < b.end || a == b)
}
