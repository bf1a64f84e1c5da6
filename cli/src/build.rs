//! `tirc build`: compile every function of a file (after its schedule and
//! lowering) to LLVM IR, assembly, an object file, or a shared library with
//! a C header declaring each function.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// What `tirc build` writes.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum EmitArg {
    /// LLVM IR text.
    Ll,
    /// Assembly.
    Asm,
    /// An object file.
    Obj,
    /// A shared library, plus `<stem>.h` beside it.
    So,
}

/// Arguments of `tirc build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The `.tir` file (`-` for standard input).
    file: PathBuf,
    /// The target in TVM's syntax (`llvm`, `llvm -mcpu=znver3 -mattr=+avx2`).
    #[arg(long, default_value = "llvm")]
    target: String,
    /// What to write.
    #[arg(long, value_enum, default_value = "so")]
    emit: EmitArg,
    /// The output file.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// The schedule section to apply (default: the file's only one, or `schedule`).
    #[arg(long, conflicts_with = "no_schedule")]
    schedule: Option<String>,
    /// Build the program as written, without its schedule.
    #[arg(long)]
    no_schedule: bool,
    /// Prefix of every exported symbol (default: the file's stem and `_`,
    /// so `main` of `matmul.tir` is `matmul_main`).
    #[arg(long)]
    prefix: Option<String>,
    /// Check buffer accesses and integer divisions at run time: a kernel
    /// given a bad index or a zero divisor returns an error code instead of
    /// corrupting memory or trapping.
    #[arg(long)]
    runtime_checks: bool,
    /// Also print what LLVM said while optimising (a loop marked vectorized
    /// that it could not vectorize), as notes at the loops concerned.
    #[arg(short, long)]
    verbose: bool,
}

/// Runs `tirc build`.
#[cfg(feature = "llvm")]
pub fn run(args: BuildArgs) -> u8 {
    use super::output::{emit_diagnostics, report, DiagnosticFormat};
    use super::EXIT_OK;
    use tirc::driver::build::{build, BuildRequest, Emit};
    use tirc::driver::{
        lower_file, ApplicationErrorKind, DriverError, ScheduleChoice, SourceFile, Target,
    };

    let outcome = Target::parse(&args.target)
        .map_err(|message| DriverError::application(ApplicationErrorKind::Usage, message))
        .and_then(|target| {
            let source = SourceFile::read(&args.file)?;
            let lowered = lower_file(
                &source,
                &ScheduleChoice::from_flags(args.schedule.clone(), args.no_schedule),
            )?;
            let request = BuildRequest {
                target,
                emit: match args.emit {
                    EmitArg::Ll => Emit::LlvmIr,
                    EmitArg::Asm => Emit::Assembly,
                    EmitArg::Obj => Emit::Object,
                    EmitArg::So => Emit::SharedLibrary,
                },
                output: args.output.clone(),
                symbol_prefix: args.prefix.clone(),
                runtime_checks: args.runtime_checks,
            };
            let output = build(&lowered, &source.name, &request)?;
            emit_diagnostics(&output.notes, lowered.sources(), DiagnosticFormat::Text);
            if args.verbose {
                emit_diagnostics(
                    &output.llvm_notes,
                    lowered.sources(),
                    DiagnosticFormat::Text,
                );
            }
            Ok(output)
        });
    match outcome {
        Ok(_) => EXIT_OK,
        Err(error) => report(error, DiagnosticFormat::Text),
    }
}

/// Without the LLVM backend, `tirc build` explains how to get it.
#[cfg(not(feature = "llvm"))]
pub fn run(_args: BuildArgs) -> u8 {
    super::output::report_application(
        tirc::driver::ApplicationErrorKind::Toolchain,
        "this tirc was built without the LLVM backend; rebuild with `--features llvm14`",
    )
}
