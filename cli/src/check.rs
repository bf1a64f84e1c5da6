//! `tirc check`: report every syntax and semantic error of the files,
//! schedule sections included (the language server reports the same).

use super::output::{emit_diagnostics, report, DiagnosticFormat};
use super::{EXIT_DIAGNOSTICS, EXIT_OK};
use clap::Args;
use std::path::PathBuf;
use tirc::check::CheckOptions;
use tirc::driver::{analyze, SourceFile};

/// Arguments of `tirc check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files to check (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// How to print diagnostics (`json`: one object per line on standard output).
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
        let source = match SourceFile::read(path) {
            Ok(source) => source,
            Err(error) => {
                code = code.max(report(error, args.format));
                continue;
            }
        };
        let analysis = analyze(&source, &options);
        emit_diagnostics(&analysis.diagnostics(), &analysis.sources, args.format);
        if analysis.has_errors() {
            code = code.max(EXIT_DIAGNOSTICS);
        }
    }
    code
}
