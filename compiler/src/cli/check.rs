//! `tirc check`: report every syntax and semantic error of the files.

use super::{
    emit_diagnostics, read_input, DiagnosticFormat, EXIT_DIAGNOSTICS, EXIT_OK, EXIT_USAGE,
};
use crate::frontend::parse_program;
use crate::source::SourceMap;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `tirc check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files to check (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value = "text")]
    format: DiagnosticFormat,
}

/// Runs `tirc check`.
pub fn run(args: CheckArgs) -> u8 {
    let mut code = EXIT_OK;
    for path in &args.files {
        let (name, text) = match read_input(path) {
            Ok(input) => input,
            Err(message) => {
                eprintln!("{message}");
                code = code.max(EXIT_USAGE);
                continue;
            }
        };
        let mut sources = SourceMap::new();
        let (_, diagnostics) = parse_program(&mut sources, &name, &text);
        emit_diagnostics(&diagnostics, &sources, args.format);
        if diagnostics.iter().any(|d| d.is_error()) {
            code = code.max(EXIT_DIAGNOSTICS);
        }
    }
    code
}
