//! `tirc schedule`: apply a file's schedule section and print the result, the
//! module after every step, the diff each step made, or the trace.

use super::{
    emit_diagnostics, read_input, DiagnosticFormat, DialectArg, EXIT_DIAGNOSTICS, EXIT_OK,
    EXIT_USAGE,
};
use crate::check::{check_source, CheckOptions};
use crate::diagnostics::Diagnostic;
use crate::printer::Dialect;
use crate::schedule::{
    apply_schedule_with, codes, print_scheduled, report, step_check, ApplyOptions, ScheduleRun,
};
use crate::source::{SourceMap, Span};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `tirc schedule`.
#[derive(Args, Debug)]
pub struct ScheduleArgs {
    /// The `.tir` file with a schedule section (`-` for standard input).
    file: PathBuf,
    /// The dialect to print.
    #[arg(long, value_enum, default_value = "classic")]
    dialect: DialectArg,
    /// The schedule `def` to apply (default: the only one, or `schedule`).
    #[arg(long = "schedule", value_name = "NAME")]
    schedule: Option<String>,
    /// Print the module after every step.
    #[arg(long, conflicts_with_all = ["diff", "trace"])]
    steps: bool,
    /// Print a unified diff for every step.
    #[arg(long, conflicts_with = "trace")]
    diff: bool,
    /// Stop after this many steps.
    #[arg(long, value_name = "N")]
    stop_after: Option<usize>,
    /// Print the applied trace in TVM's `apply_trace` form instead of the module.
    #[arg(long)]
    trace: bool,
    /// Check after every step that the module prints and reads back unchanged
    /// (always on in debug builds).
    #[arg(long)]
    verify_each: bool,
}

/// Runs `tirc schedule`.
pub fn run(args: ScheduleArgs) -> u8 {
    let (name, text) = match read_input(&args.file) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("{message}");
            return EXIT_USAGE;
        }
    };
    let mut sources = SourceMap::new();
    let checked = check_source(&mut sources, &name, &text, &CheckOptions::default());
    let program = match checked.program {
        Some(program) if !checked.diagnostics.iter().any(Diagnostic::is_error) => program,
        _ => {
            emit_diagnostics(&checked.diagnostics, &sources, DiagnosticFormat::Text);
            return EXIT_DIAGNOSTICS;
        }
    };
    let options = ApplyOptions {
        stop_after: args.stop_after,
    };
    let run = apply_schedule_with(&program, args.schedule.as_deref(), &options);
    if run.schedule.is_none() && run.diagnostics.is_empty() {
        let diagnostic = Diagnostic::error(
            codes::NO_SCHEDULE,
            "the file has no schedule section",
            Span::new(program.file, 0, 0),
        )
        .with_help("add a `def schedule(sch: T.Schedule):` section after the program");
        emit_diagnostics(&[diagnostic], &sources, DiagnosticFormat::Text);
        return EXIT_DIAGNOSTICS;
    }
    let dialect: Dialect = args.dialect.into();
    if args.verify_each || cfg!(debug_assertions) {
        for step in &run.steps {
            if let Err(problem) = step_check::check_module(&step.module, dialect) {
                eprintln!(
                    "internal error: after step {} ({}), {problem}",
                    step.number, step.text
                );
                return EXIT_DIAGNOSTICS;
            }
        }
    }
    if args.trace {
        println!("{}", run.trace.to_python());
    } else if args.steps {
        print!(
            "{}",
            report::steps_text(&program, &run, &sources, Some(dialect))
        );
    } else if args.diff {
        print!(
            "{}",
            report::diff_text(&program, &run, &sources, Some(dialect))
        );
    } else {
        print!("{}", print_scheduled(&program, run.module(), Some(dialect)));
    }
    finish(&run, &sources)
}

/// Reports the diagnostics of the run; the exit code.
fn finish(run: &ScheduleRun, sources: &SourceMap) -> u8 {
    emit_diagnostics(&run.diagnostics, sources, DiagnosticFormat::Text);
    if run.succeeded() {
        EXIT_OK
    } else {
        EXIT_DIAGNOSTICS
    }
}
