//! `tirc check`: report every syntax and semantic error of the files.

use super::{
    emit_diagnostics, read_input, DiagnosticFormat, EXIT_DIAGNOSTICS, EXIT_OK, EXIT_USAGE,
};
use crate::check::{check_source, CheckOptions};
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
    /// Report the implicit conversions TVM's rules insert (an int32 added to a
    /// float32, a store into a buffer of another type) as warnings.
    #[arg(long)]
    strict_casts: bool,
    /// Report declared block regions larger than what the block touches.
    #[arg(long)]
    warn_loose_regions: bool,
}

/// Runs `tirc check`.
pub fn run(args: CheckArgs) -> u8 {
    let options = CheckOptions {
        strict_casts: args.strict_casts,
        warn_loose_regions: args.warn_loose_regions,
        ..CheckOptions::default()
    };
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
        let checked = check_source(&mut sources, &name, &text, &options);
        emit_diagnostics(&checked.diagnostics, &sources, args.format);
        if checked.has_errors() {
            code = code.max(EXIT_DIAGNOSTICS);
        }
    }
    code
}
