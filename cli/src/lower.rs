//! `tirc lower`: apply a file's schedule section, run the lowering pipeline
//! and print the lowered module, or the module after chosen passes.

use super::output::{report, report_application, DiagnosticFormat};
use super::{DialectArg, EXIT_DIAGNOSTICS, EXIT_OK};
use clap::Args;
use std::path::PathBuf;
use tirc::check::CheckOptions;
use tirc::driver::{check, ApplicationErrorKind, ScheduleChoice, SourceFile};
use tirc::ir::IRModule;
use tirc::printer::Dialect;
use tirc::schedule::{print_scheduled, step_check, ApplyOptions};
use tirc::transform::{canonical_pass_name, pass_names, Pass};

/// Arguments of `tirc lower`.
#[derive(Args, Debug)]
pub struct LowerArgs {
    /// The `.tir` file (`-` for standard input).
    file: PathBuf,
    /// The dialect to print.
    #[arg(long, value_enum, default_value = "classic")]
    dialect: DialectArg,
    /// The schedule `def` to apply first (default: the only one, or `schedule`).
    #[arg(long = "schedule", value_name = "NAME", conflicts_with = "no_schedule")]
    schedule: Option<String>,
    /// Lower the program as written, ignoring its schedule sections.
    #[arg(long)]
    no_schedule: bool,
    /// Print the module after this pass (every time it runs) instead of the
    /// lowered module; tirc's name (`flatten-buffer`) or TVM's (`FlattenBuffer`).
    #[arg(long, value_name = "PASS", conflicts_with = "print_after_all")]
    print_after: Vec<String>,
    /// Print the module after every pass.
    #[arg(long)]
    print_after_all: bool,
    /// Check after every pass that the module prints and reads back
    /// unchanged (always on in debug builds).
    #[arg(long)]
    verify_each: bool,
    /// The target whose pipeline runs: `llvm`, or `cuda`, which adds
    /// `split-host-device` (the host function and its kernels) and
    /// `thread-sync` (barriers).
    #[arg(long, default_value = "llvm")]
    target: String,
}

/// Runs `tirc lower`.
pub fn run(args: LowerArgs) -> u8 {
    let mut print_after = Vec::new();
    for name in &args.print_after {
        let Some(pass) = canonical_pass_name(name) else {
            return report_application(
                ApplicationErrorKind::Usage,
                format!(
                    "there is no pass `{name}`; the passes are: {}",
                    pass_names().join(", ")
                ),
            );
        };
        print_after.push(pass);
    }
    let target = match tirc::driver::Target::parse(&args.target) {
        Ok(target) => target,
        Err(message) => return report_application(ApplicationErrorKind::Usage, message),
    };
    let scheduled = SourceFile::read(&args.file)
        .and_then(|source| check(&source, &CheckOptions::default()))
        .and_then(|checked| {
            checked.schedule(
                &ScheduleChoice::from_flags(args.schedule.clone(), args.no_schedule),
                &ApplyOptions::default(),
            )
        });
    let scheduled = match scheduled {
        Ok(scheduled) => scheduled,
        Err(error) => return report(error, DiagnosticFormat::Text),
    };
    let dialect: Dialect = args.dialect.into();
    let program = scheduled.checked.program.clone();
    let mut out = String::new();
    let verify = args.verify_each || cfg!(debug_assertions);
    let mut internal_errors = Vec::new();
    let mut observe = |pass: &Pass, module: &IRModule| {
        if verify {
            if let Err(problem) = step_check::check_module(module, dialect, &[]) {
                internal_errors.push(format!(
                    "internal error: after pass `{}`, {problem}",
                    pass.name
                ));
            }
        }
        if args.print_after_all || print_after.contains(&pass.name) {
            out.push_str(&format!("# after {}\n", pass.name));
            out.push_str(&print_scheduled(&program, module, Some(dialect)));
            out.push('\n');
        }
    };
    let lowered = scheduled.lower_observed(&target, &mut observe);
    let print_passes = args.print_after_all || !args.print_after.is_empty();
    print!("{out}");
    if !internal_errors.is_empty() {
        for error in &internal_errors {
            eprintln!("{error}");
        }
        return EXIT_DIAGNOSTICS;
    }
    match lowered {
        Ok(lowered) => {
            if !print_passes {
                print!("{}", lowered.print(dialect));
            }
            EXIT_OK
        }
        Err(error) => report(error, DiagnosticFormat::Text),
    }
}
