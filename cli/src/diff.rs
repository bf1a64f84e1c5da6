//! `tirc diff`: structural comparison of two files, up to renaming.

use super::output::{emit_diagnostics, report, DiagnosticFormat};
use super::{EXIT_DIAGNOSTICS, EXIT_OK};
use clap::Args;
use std::path::PathBuf;
use tirc::diagnostics::Diagnostic;
use tirc::driver::SourceFile;
use tirc::frontend::parse_program;
use tirc::ir::structural::module_equal;
use tirc::source::SourceMap;

/// Arguments of `tirc diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first file.
    a: PathBuf,
    /// The second file.
    b: PathBuf,
}

/// Runs `tirc diff`.
pub fn run(args: DiffArgs) -> u8 {
    // Both files share one source map so a difference can point into each.
    let mut sources = SourceMap::new();
    let mut programs = Vec::new();
    for path in [&args.a, &args.b] {
        let source = match SourceFile::read(path) {
            Ok(source) => source,
            Err(error) => return report(error, DiagnosticFormat::Text),
        };
        let (program, diagnostics) = parse_program(&mut sources, &source.name, &source.text);
        if diagnostics.iter().any(|d| d.is_error()) {
            emit_diagnostics(&diagnostics, &sources, DiagnosticFormat::Text);
            return EXIT_DIAGNOSTICS;
        }
        match program {
            Some(program) => programs.push(program),
            None => return EXIT_DIAGNOSTICS,
        }
    }
    match module_equal(&programs[0].module, &programs[1].module) {
        Ok(()) => {
            println!("structurally equal");
            EXIT_OK
        }
        Err(difference) => {
            let diagnostic = Diagnostic::error(
                "",
                format!(
                    "the programs differ at {}: {} vs {}",
                    difference.path, difference.lhs, difference.rhs
                ),
                difference.lhs_span,
            )
            .with_label(format!("here the first has {}", difference.lhs))
            .with_secondary(
                difference.rhs_span,
                format!("here the second has {}", difference.rhs),
            );
            emit_diagnostics(&[diagnostic], &sources, DiagnosticFormat::Text);
            EXIT_DIAGNOSTICS
        }
    }
}
