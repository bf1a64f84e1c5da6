//! `tirc schedule`: apply a file's schedule section and print the result, the
//! module after every step, the diff each step made, or the trace.

use super::output::{report, DiagnosticFormat};
use super::{DialectArg, EXIT_DIAGNOSTICS, EXIT_OK};
use clap::Args;
use std::path::PathBuf;
use tirc::check::CheckOptions;
use tirc::driver::{check, ScheduleChoice, SourceFile};
use tirc::printer::Dialect;
use tirc::schedule::check_each::CheckedBy;
use tirc::schedule::{report as steps, step_check, ApplyOptions, ScheduleRun, Trace};

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
    /// Stop after this many steps (the module before step N+1).
    #[arg(long, value_name = "N")]
    stop_after: Option<usize>,
    /// The seed sampling instructions (`sample_perfect_tile`, ...) draw
    /// from when no `decision=` is given (default 1).
    #[arg(long)]
    seed: Option<u64>,
    /// Print the applied trace in TVM's `apply_trace` form instead of the module.
    #[arg(long)]
    trace: bool,
    /// Check after every step that the module prints and reads back unchanged
    /// (always on in debug builds).
    #[arg(long)]
    verify_each: bool,
    /// Run the program and the module after every step that changes it on
    /// the same seeded random inputs (the reference interpreter, or the LLVM
    /// build for large shapes) and stop at the first step whose results
    /// differ, naming it.
    #[arg(long)]
    check_each: bool,
}

/// Runs `tirc schedule`. A refused step prints no module, only the
/// diagnostic naming the step; a file without a schedule section prints
/// the module as it is, as TVM applies an empty schedule.
pub fn run(args: ScheduleArgs) -> u8 {
    let scheduled = SourceFile::read(&args.file)
        .and_then(|source| check(&source, &CheckOptions::default()))
        .and_then(|checked| {
            checked.schedule(
                &ScheduleChoice::from_flags(args.schedule.clone(), false),
                &ApplyOptions {
                    stop_after: args.stop_after,
                    seed: args.seed,
                    machine_sections: None,
                },
            )
        });
    let scheduled = match scheduled {
        Ok(scheduled) => scheduled,
        Err(error) => return report(error, DiagnosticFormat::Text),
    };
    let dialect: Dialect = args.dialect.into();
    let program = &scheduled.checked.program;
    let sources = &scheduled.checked.sources;
    if let (Some(limit), Some(run)) = (args.stop_after, &scheduled.run) {
        if limit > run.steps.len() {
            eprintln!(
                "note: --stop-after {limit}, but the schedule has {} steps; every step applied",
                run.steps.len()
            );
        }
    }
    let Some(run) = &scheduled.run else {
        if args.trace {
            println!("{}", Trace::default().to_python_in(dialect));
        } else {
            print!("{}", scheduled.print(dialect));
        }
        return EXIT_OK;
    };
    if args.verify_each || cfg!(debug_assertions) {
        let tolerated = run.tolerated_verifier_codes();
        for step in &run.steps {
            if let Err(problem) = step_check::check_module(&step.module, dialect, tolerated) {
                eprintln!(
                    "internal error: after step {} ({}), {problem}",
                    step.number, step.text
                );
                return EXIT_DIAGNOSTICS;
            }
        }
    }
    if args.check_each {
        if let Some(status) = check_each(run, &args.file) {
            return status;
        }
    }
    if args.trace {
        println!("{}", run.trace.to_python_in(dialect));
    } else if args.steps {
        print!(
            "{}",
            steps::steps_text(program, run, sources, Some(dialect))
        );
    } else if args.diff {
        print!("{}", steps::diff_text(program, run, sources, Some(dialect)));
    } else {
        print!("{}", scheduled.print(dialect));
    }
    EXIT_OK
}

/// `--check-each`: a note per outcome on standard error; the exit status
/// when a step changes the results (a diagnostic at that step's line).
fn check_each(run: &ScheduleRun, file: &std::path::Path) -> Option<u8> {
    let changed = run.steps.iter().filter(|s| s.changed).count();
    match tirc::schedule::check_each::check_each(run) {
        Ok((how, None)) => {
            eprintln!(
                "note: every step computes what the program computes ({changed} changing step{} run by {} on seeded random inputs)",
                if changed == 1 { "" } else { "s" },
                match how {
                    CheckedBy::Interpreter => "the interpreter",
                    CheckedBy::Compiled => "LLVM-compiled code",
                }
            );
            None
        }
        Ok((_, Some(why))) => {
            eprintln!("note: --check-each did not run the steps: {why}");
            None
        }
        Err(mismatch) => {
            let step = run.steps.iter().find(|s| s.number == mismatch.step);
            let text = step.map(|s| s.text.as_str()).unwrap_or("?");
            eprintln!(
                "error: step {} (`{text}`) of {} changes what the program computes: {}",
                mismatch.step,
                file.display(),
                mismatch.problem
            );
            Some(EXIT_DIAGNOSTICS)
        }
    }
}
