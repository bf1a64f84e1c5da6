//! `tirc fmt`: print files in canonical form, check or rewrite them.

use super::{
    emit_diagnostics, read_input, DiagnosticFormat, DialectArg, EXIT_DIAGNOSTICS, EXIT_OK,
    EXIT_USAGE,
};
use crate::format::format_source;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `tirc fmt`.
#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Files to format (`-` for standard input).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The dialect to write.
    #[arg(long, value_enum, default_value = "classic")]
    dialect: DialectArg,
    /// Exit 1 and list the files that are not already formatted.
    #[arg(long, conflicts_with = "write")]
    check: bool,
    /// Rewrite the files in place.
    #[arg(long)]
    write: bool,
}

/// Runs `tirc fmt`.
pub fn run(args: FmtArgs) -> u8 {
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
        let formatted = match format_source(&name, &text, Some(args.dialect.into())) {
            Ok(formatted) => formatted,
            Err((diagnostics, sources)) => {
                emit_diagnostics(&diagnostics, &sources, DiagnosticFormat::Text);
                code = code.max(EXIT_DIAGNOSTICS);
                continue;
            }
        };
        if args.check {
            if formatted != text {
                println!("{name}");
                code = code.max(EXIT_DIAGNOSTICS);
            }
        } else if args.write && path.as_os_str() != "-" {
            if formatted != text {
                if let Err(e) = std::fs::write(path, &formatted) {
                    eprintln!("error: cannot write {name}: {e}");
                    code = code.max(EXIT_USAGE);
                }
            }
        } else {
            print!("{formatted}");
        }
    }
    code
}
