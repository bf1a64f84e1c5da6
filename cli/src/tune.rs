//! `tirc tune`: the search for a fast schedule (issue 29). What exists so
//! far is its design space: `--print-space` prints it as a schedule `def`
//! to paste beside the program, and `tirc schedule --seed N` samples it.

use super::output::DiagnosticFormat;
use super::output::{report, report_application};
use super::EXIT_OK;
use clap::Args;
use std::path::PathBuf;
use tirc::check::CheckOptions;
use tirc::driver::{check, ApplicationErrorKind, SourceFile};

/// Arguments of `tirc tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The `.tir` file (`-` for standard input); its schedule sections are ignored.
    file: PathBuf,
    /// The function to tune (default: `main`, or the module's only function).
    #[arg(long)]
    entry: Option<String>,
    /// Print the design space (a schedule `def` with sampling instructions)
    /// instead of searching it.
    #[arg(long)]
    print_space: bool,
    /// The name of the printed `def`.
    #[arg(long, default_value = "space", value_name = "NAME")]
    space_name: String,
}

/// Runs `tirc tune`.
pub fn run(args: TuneArgs) -> u8 {
    if !args.print_space {
        return report_application(
            ApplicationErrorKind::Usage,
            "the search of `tirc tune` is not built yet (issue 29); `--print-space` prints the design space it will search, and `tirc schedule --seed N` applies one schedule of it",
        );
    }
    let checked = match SourceFile::read(&args.file)
        .and_then(|source| check(&source, &CheckOptions::default()))
    {
        Ok(checked) => checked,
        Err(error) => return report(error, DiagnosticFormat::Text),
    };
    match tirc::tune::space::cpu_design_space(
        &checked.program.module,
        args.entry.as_deref(),
        &args.space_name,
    ) {
        Ok(space) => {
            print!("{space}");
            EXIT_OK
        }
        Err(message) => report_application(ApplicationErrorKind::Usage, message),
    }
}
