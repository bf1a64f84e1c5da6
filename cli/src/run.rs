//! `tirc run`: apply the schedule, lower, JIT-compile and run a function on
//! `.npy` or seeded random inputs; optionally check every output against a
//! reference, time repeated runs and save the outputs. The driver does the
//! work (`tirc::driver::run`); this file reads flags and prints the report.

use clap::Args;
use std::path::PathBuf;

/// Arguments of `tirc run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The `.tir` file (`-` for standard input).
    file: PathBuf,
    /// The function to run (default: `main`, or the module's only function).
    #[arg(long)]
    entry: Option<String>,
    /// The schedule section to apply (default: the file's only one, or `schedule`).
    #[arg(long, conflicts_with_all = ["no_schedule", "tuned"])]
    schedule: Option<String>,
    /// Apply the fastest schedule `tirc tune` recorded for this function
    /// on this machine's CPU, or its GPU with `--target cuda`.
    #[arg(long, conflicts_with = "no_schedule")]
    tuned: bool,
    /// The records file of `--tuned` (default `~/.cache/tirc/records.jsonl`).
    #[arg(long, requires = "tuned")]
    database: Option<PathBuf>,
    /// Run the program as written, without its schedule.
    #[arg(long)]
    no_schedule: bool,
    /// A directory with `<name>.npy` for every parameter (the buffer's name,
    /// as printed, or the handle's); outputs the function writes may be left out.
    #[arg(long, value_name = "DIR")]
    args: Option<PathBuf>,
    /// Write every buffer parameter as `<param>.npy` here after the run.
    #[arg(long, value_name = "DIR")]
    save_outputs: Option<PathBuf>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Sizes of symbolic shapes (and values of scalar parameters) for random
    /// inputs: `--shape m=128,n=64`.
    #[arg(long, value_name = "NAME=VALUE,...", value_parser = parse_shape_values)]
    shape: Option<ShapeValues>,
    /// Compare every output with a reference's (exit 1 on a mismatch).
    #[arg(long)]
    check: bool,
    /// The reference of `--check`: the interpreter, the program without its
    /// schedule compiled by LLVM, or `auto` (the interpreter unless it would
    /// take over a minute, or cannot run the program, and there is a
    /// schedule to check).
    #[arg(long, value_enum, default_value_t = CheckWith::Auto)]
    check_with: CheckWith,
    /// Check against the outputs an earlier run saved in DIR with
    /// `--save-outputs` on the same inputs (implies `--check`).
    #[arg(long, value_name = "DIR", conflicts_with = "check_with")]
    expected: Option<PathBuf>,
    /// Time N runs after a warm-up and report min, median and GFLOP/s.
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// Threads for parallel loops (default: `TIRC_NUM_THREADS`, else every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// The target in TVM's syntax (`llvm -mcpu=znver3`, `cuda -arch=sm_90`)
    /// or as TVM 0.27's JSON dict (`{"kind": "cuda", "arch": "sm_90"}`);
    /// default: this machine's CPU.
    #[arg(long, default_value = "llvm")]
    target: String,
    /// With `--target cuda`: run the kernels on the CPU under tirc's
    /// emulation of CUDA (blocks in turn, threads as fibers meeting at
    /// barriers, shared-memory races and barrier divergence reported)
    /// instead of on a GPU.
    #[arg(long)]
    emulate: bool,
    /// Print one JSON object on standard output for every outcome, errors included.
    #[arg(long)]
    json: bool,
    /// Also print what LLVM said while optimising (a loop marked vectorized
    /// that it could not vectorize), as notes at the loops concerned.
    #[arg(short, long)]
    verbose: bool,
    /// Run without run-time checks. By default the run whose outputs are
    /// reported stops with an error at an out-of-bounds index or an integer
    /// division by zero; `--bench` always times code without the checks.
    #[arg(long)]
    no_runtime_checks: bool,
}

/// `--check-with`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckWith {
    /// The interpreter when it is quick enough and can run the program,
    /// else the unscheduled program.
    Auto,
    /// The reference interpreter on the program as written (exact, slow:
    /// about two million operations a second).
    Interp,
    /// The program without its schedule, lowered and JIT-compiled: checks
    /// the schedule and the passes it enables (vectorize, parallel, unroll).
    Unscheduled,
}

/// The values of `--shape`, in the order given.
#[derive(Clone, Debug)]
#[cfg_attr(not(any(feature = "llvm", feature = "cuda")), allow(dead_code))]
pub struct ShapeValues(Vec<(String, i64)>);

/// Reads `m=128,n=64`.
fn parse_shape_values(text: &str) -> Result<ShapeValues, String> {
    text.split(',')
        .filter(|part| !part.trim().is_empty())
        .map(|part| {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}` is not NAME=VALUE"))?;
            let value = value
                .trim()
                .parse::<i64>()
                .map_err(|_| format!("`{value}` in `{part}` is not an integer"))?;
            Ok((name.trim().to_string(), value))
        })
        .collect::<Result<_, String>>()
        .map(ShapeValues)
}

fn format_number(value: f64) -> String {
    if value == 0.0 {
        "0".to_string()
    } else if value.abs() >= 1e-3 && value.abs() < 1e4 {
        format!("{value:.4}")
    } else {
        format!("{value:.3e}")
    }
}

/// The name the best tuning record's schedule gets in the file `--tuned` runs.
#[cfg(any(feature = "llvm", feature = "cuda"))]
const TUNED_RECORD: &str = "tirc_tuned_record";

/// `source` with the best tuning record of its entry function for `target`
/// on this machine added as a schedule section named [`TUNED_RECORD`].
#[cfg(any(feature = "llvm", feature = "cuda"))]
fn with_tuned_record(
    source: tirc::driver::SourceFile,
    args: &RunArgs,
    target: &tirc::driver::Target,
) -> Result<tirc::driver::SourceFile, tirc::driver::DriverError> {
    use tirc::driver::{ApplicationErrorKind, DriverError};
    use tirc::tune::records;
    let usage = |message: String| DriverError::application(ApplicationErrorKind::Usage, message);
    let checked = tirc::driver::check(&source, &Default::default())?;
    let (name, workload) = records::workload_of(&checked.program.module, args.entry.as_deref())
        .ok_or_else(|| usage("the module has no such function".to_string()))?;
    let path = args
        .database
        .clone()
        .or_else(records::default_path)
        .ok_or_else(|| usage("no records file: pass --database FILE".to_string()))?;
    let (all, warnings) = records::read_records(&path).map_err(usage)?;
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    let target = records::record_target(target, &args.target);
    let best = records::best(&all, &workload, &target).ok_or_else(|| {
        usage(format!(
            "{} has no tuning record of `{name}` for {target} here; run `tirc tune` on the file first",
            path.display()
        ))
    })?;
    let section = tirc::tune::search::trace_as_section(&best.trace, TUNED_RECORD);
    let text = format!("{}\n{section}", source.text);
    Ok(tirc::driver::SourceFile::new(source.name, text))
}

/// Runs `tirc run`.
#[cfg(any(feature = "llvm", feature = "cuda"))]
pub fn run(args: RunArgs) -> u8 {
    use super::output::{report, DiagnosticFormat};
    use super::{EXIT_DIAGNOSTICS, EXIT_OK};
    use std::time::Instant;
    use tirc::driver::run::{run, CheckReference, RunRequest};
    use tirc::driver::{
        lower_file_for, ApplicationErrorKind, DriverError, ScheduleChoice, SourceFile, Target,
    };

    let format = if args.json {
        DiagnosticFormat::Json
    } else {
        DiagnosticFormat::Text
    };
    let start = Instant::now();
    let prepared = Target::parse(&args.target)
        .map_err(|message| DriverError::application(ApplicationErrorKind::Usage, message))
        .and_then(|target| {
            let mut source = SourceFile::read(&args.file)?;
            let mut choice = ScheduleChoice::from_flags(args.schedule.clone(), args.no_schedule);
            if args.tuned {
                source = with_tuned_record(source, &args, &target)?;
                choice = ScheduleChoice::Named(TUNED_RECORD.to_string());
            }
            if args.emulate && !matches!(target, Target::Cuda(_)) {
                return Err(DriverError::application(
                    ApplicationErrorKind::Usage,
                    "`--emulate` runs CUDA kernels on the CPU; it needs `--target cuda`",
                ));
            }
            let lowered = lower_file_for(&source, &choice, &target)?;
            Ok((target, lowered))
        });
    let (target, lowered) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => return report(error, format),
    };
    let front_end_ms = start.elapsed().as_secs_f64() * 1e3;
    let request = RunRequest {
        entry: args.entry.clone(),
        target,
        args_dir: args.args.clone(),
        save_outputs: args.save_outputs.clone(),
        seed: args.seed,
        shape_values: args.shape.clone().map(|s| s.0).unwrap_or_default(),
        check: if args.expected.is_some() {
            Some(CheckReference::Saved)
        } else {
            args.check.then_some(match args.check_with {
                CheckWith::Auto => CheckReference::Auto,
                CheckWith::Interp => CheckReference::Interp,
                CheckWith::Unscheduled => CheckReference::Unscheduled,
            })
        },
        expected_dir: args.expected.clone(),
        bench: args.bench,
        threads: args.threads,
        runtime_checks: !args.no_runtime_checks,
        emulate: args.emulate,
    };
    let backend = match (&request.target, args.emulate) {
        (Target::Cuda(_), true) => "CUDA C (emulated)",
        (Target::Cuda(_), false) => "NVRTC",
        (Target::Llvm(_), _) => "LLVM",
    };
    let report_of_run = match run(&lowered, &request) {
        Ok(report) => report,
        Err(error) => return report(error, format),
    };
    let code = if report_of_run.ok {
        EXIT_OK
    } else {
        EXIT_DIAGNOSTICS
    };
    if args.json {
        let mut value = serde_json::to_value(&report_of_run).unwrap_or_default();
        value["file"] = serde_json::json!(args.file.display().to_string());
        value["front_end_ms"] = serde_json::json!(front_end_ms);
        let verbose_notes = if args.verbose {
            report_of_run.llvm_notes.as_slice()
        } else {
            &[]
        };
        value["notes"] = report_of_run
            .notes
            .iter()
            .chain(verbose_notes)
            .map(|note| tirc::diagnostics::to_json(note, lowered.sources()))
            .collect();
        println!("{value}");
        return code;
    }
    let report = report_of_run;
    let sources = lowered.sources();
    super::output::emit_diagnostics(&report.notes, sources, DiagnosticFormat::Text);
    if args.verbose {
        super::output::emit_diagnostics(&report.llvm_notes, sources, DiagnosticFormat::Text);
    }
    if let Some(note) = &report.reference_note {
        eprintln!("{note}");
    }
    let schedule_text = match &report.schedule {
        Some(name) => format!("schedule `{name}`, {} steps", report.schedule_steps),
        None => "no schedule".to_string(),
    };
    println!(
        "{}: `{}` ({schedule_text}); front end {front_end_ms:.1} ms, {backend} {:.1} ms",
        args.file.display(),
        report.entry,
        report.compile_ms
    );
    let reference = match (report.reference, &args.expected) {
        (Some(CheckReference::Unscheduled), _) => "the unscheduled program".to_string(),
        (Some(CheckReference::Saved), Some(dir)) => format!("{}", dir.display()),
        _ => "the interpreter".to_string(),
    };
    for check in &report.checks {
        let verdict = match &check.mismatch {
            None => "ok".to_string(),
            Some(message) => format!("MISMATCH: {message}"),
        };
        println!(
            "  check {} against {reference}: max abs err {}, max rel err {} (tolerance {} + {} * |expected|): {verdict}",
            check.name,
            format_number(check.max_abs_err),
            format_number(check.max_rel_err),
            format_number(check.tolerance_absolute),
            check.tolerance_relative
        );
    }
    if let (Some(median_ms), Some(min_ms), Some(gflops)) =
        (report.median_ms, report.min_ms, report.gflops)
    {
        println!(
            "  bench: {} runs, median {median_ms:.3} ms, min {min_ms:.3} ms, {gflops:.1} GFLOP/s ({:.3} GFLOP per run, {} threads)",
            report.runs,
            report.flops / 1e9,
            report.threads
        );
    }
    if let Some(dir) = &report.outputs_saved {
        println!("  outputs saved in {}", dir.display());
    }
    code
}

/// Without a backend, `tirc run` explains how to get one.
#[cfg(not(any(feature = "llvm", feature = "cuda")))]
pub fn run(_args: RunArgs) -> u8 {
    let _ = format_number;
    super::output::report_application(
        tirc::driver::ApplicationErrorKind::Toolchain,
        "this tirc was built without the LLVM backend; rebuild with `--features llvm14`",
    )
}
