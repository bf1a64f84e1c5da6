//! The `tirc` command line: one file per subcommand, all returning an exit
//! code (0 ok, 1 diagnostics, 2 usage or I/O error).

mod bench;
mod build;
mod check;
mod diff;
mod explain;
mod fmt;
mod lower;
mod lsp;
mod run;
mod schedule;

use crate::diagnostics::{render_json, render_text, Diagnostic};
use crate::printer::Dialect;
use crate::source::SourceMap;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code when every input is fine.
pub const EXIT_OK: u8 = 0;
/// Exit code when an input has errors (or would be reformatted under `--check`).
pub const EXIT_DIAGNOSTICS: u8 = 1;
/// Exit code for usage and I/O errors.
pub const EXIT_USAGE: u8 = 2;

/// tirc: TensorIR written as text.
#[derive(Parser, Debug)]
#[command(name = "tirc", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The dialect flag shared by commands that print TVMScript.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DialectArg {
    /// `T.block`, `T.alloc_buffer` (TVM up to 0.20, every tutorial).
    Classic,
    /// `T.sblock`, `T.sblock_alloc_buffer` (TVM 0.25 and later).
    Tirx,
}

impl From<DialectArg> for Dialect {
    fn from(arg: DialectArg) -> Dialect {
        match arg {
            DialectArg::Classic => Dialect::Classic,
            DialectArg::Tirx => Dialect::Tirx,
        }
    }
}

/// How diagnostics are printed.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum DiagnosticFormat {
    /// `file:line:col` with the source line and carets.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print files in canonical form.
    Fmt(fmt::FmtArgs),
    /// Check files for syntax and semantic errors.
    Check(check::CheckArgs),
    /// Compare two files structurally (exit 0 when equal).
    Diff(diff::DiffArgs),
    /// Explain a diagnostic code, with a wrong and a right example.
    Explain(explain::ExplainArgs),
    /// Run the language server on standard input and output (for editors).
    Lsp(lsp::LspArgs),
    /// Apply a file's schedule section and print the result.
    Schedule(schedule::ScheduleArgs),
    /// Schedule, lower, JIT-compile and run a function; check it, time it.
    Run(run::RunArgs),
    /// Compile a file to LLVM IR, assembly, an object or a shared library.
    Build(build::BuildArgs),
    /// Lower a file (after its schedule) to low-level TIR and print it.
    Lower(lower::LowerArgs),
    /// Time tirc's stages on given files.
    Bench(bench::BenchArgs),
}

/// Reads a file, or standard input for `-`.
pub(crate) fn read_input(path: &PathBuf) -> Result<(String, String), String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("error: cannot read standard input: {e}"))?;
        Ok(("<stdin>".to_string(), text))
    } else {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("error: cannot read {}: {e}", path.display()))?;
        Ok((path.display().to_string(), text))
    }
}

/// Prints diagnostics to standard error in the requested format.
pub(crate) fn emit_diagnostics(
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    format: DiagnosticFormat,
) {
    match format {
        DiagnosticFormat::Text => {
            let color = std::io::stderr().is_terminal();
            eprint!("{}", render_text(diagnostics, sources, color));
        }
        DiagnosticFormat::Json => {
            for diagnostic in diagnostics {
                eprintln!("{}", render_json(diagnostic, sources));
            }
        }
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_OK
            });
        }
    };
    let code = match cli.command {
        Command::Fmt(args) => fmt::run(args),
        Command::Check(args) => check::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Schedule(args) => schedule::run(args),
        Command::Run(args) => run::run(args),
        Command::Build(args) => build::run(args),
        Command::Lower(args) => lower::run(args),
        Command::Bench(args) => bench::run(args),
    };
    ExitCode::from(code)
}
