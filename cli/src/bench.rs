//! `tirc bench`: timings of tirc's stages on given files, for the ratios the
//! design sets against TVM (measured by `tools/tvm/bench_tvm_*.py`). It
//! times the parser, the schedule engine and the printer one by one, as
//! TVM's baseline does, so it calls them directly instead of the driver's
//! stages (which also verify).

use super::output::{report, DiagnosticFormat};
use super::{EXIT_DIAGNOSTICS, EXIT_OK};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tirc::driver::SourceFile;
use tirc::frontend::parse_program;
use tirc::printer::Dialect;
use tirc::schedule::{apply_schedule, print_scheduled};
use tirc::source::SourceMap;

/// Arguments of `tirc bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchKind,
}

#[derive(Subcommand, Debug)]
enum BenchKind {
    /// Apply each file's schedule section: the steps alone, and end to end
    /// (parse, apply, print the module after every step).
    Schedule(ScheduleBenchArgs),
}

/// Arguments of `tirc bench schedule`.
#[derive(Args, Debug)]
struct ScheduleBenchArgs {
    /// `.tir` files with a schedule section.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Timed repetitions of each measurement (the fastest is reported).
    #[arg(long, default_value_t = 200)]
    iterations: u32,
    /// Run only one measurement (for profiling).
    #[arg(long, value_enum)]
    only: Option<Measurement>,
}

/// One measurement of `tirc bench schedule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Measurement {
    /// Parsing the file (program and schedule section) into IR.
    Parse,
    /// Applying the steps to a parsed program.
    Apply,
    /// Printing the module after every step.
    Print,
    /// Parsing, applying and printing.
    EndToEnd,
}

/// Runs `tirc bench`.
pub fn run(args: BenchArgs) -> u8 {
    match args.what {
        BenchKind::Schedule(args) => bench_schedule(args),
    }
}

/// The fastest of `iterations` runs of `f` (none when `iterations` is 0).
fn fastest(iterations: u32, mut f: impl FnMut()) -> Duration {
    if iterations == 0 {
        return Duration::ZERO;
    }
    // One untimed run warms caches and the allocator.
    f();
    (0..iterations)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Prints the module after every step, unchanged or not. `tirc schedule
/// --steps` reuses the text of a step that changed nothing (a getter), but
/// TVM's baseline prints after every call, so the benchmark does too.
fn print_every_step(program: &tirc::frontend::Program, run: &tirc::schedule::ScheduleRun) {
    for step in &run.steps {
        std::hint::black_box(print_scheduled(program, &step.module, Some(Dialect::Tirx)));
    }
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn bench_schedule(args: ScheduleBenchArgs) -> u8 {
    for path in &args.files {
        let SourceFile { name, text } = match SourceFile::read(path) {
            Ok(source) => source,
            Err(error) => return report(error, DiagnosticFormat::Text),
        };
        let mut sources = SourceMap::new();
        let (program, diagnostics) = parse_program(&mut sources, &name, &text);
        let Some(program) = program.filter(|_| !diagnostics.iter().any(|d| d.is_error())) else {
            eprintln!("{name}: does not parse; run `tirc check` on it");
            return EXIT_DIAGNOSTICS;
        };
        let run = apply_schedule(&program, None);
        if !run.succeeded() || run.schedule.is_none() {
            eprintln!("{name}: the schedule does not apply; run `tirc schedule` on it");
            return EXIT_DIAGNOSTICS;
        }
        let steps = run.steps.len().max(1) as f64;
        let wanted = |m: Measurement| args.only.is_none_or(|only| only == m);
        let iterations = |m: Measurement| if wanted(m) { args.iterations } else { 0 };
        let parse = fastest(iterations(Measurement::Parse), || {
            let mut sources = SourceMap::new();
            std::hint::black_box(parse_program(&mut sources, &name, &text));
        });
        let apply = fastest(iterations(Measurement::Apply), || {
            std::hint::black_box(apply_schedule(&program, None));
        });
        let print_each = fastest(iterations(Measurement::Print), || {
            print_every_step(&program, &run);
        });
        let end_to_end = fastest(iterations(Measurement::EndToEnd), || {
            let mut sources = SourceMap::new();
            let (program, _) = parse_program(&mut sources, &name, &text);
            if let Some(program) = program {
                let run = apply_schedule(&program, None);
                print_every_step(&program, &run);
            }
        });
        println!("{name}: {} steps", run.steps.len());
        // A measurement left out by `--only` is not reported.
        if wanted(Measurement::Parse) {
            println!(
                "  parse:      {:9.1} us for the program and its schedule section",
                micros(parse)
            );
        }
        if wanted(Measurement::Apply) {
            println!(
                "  apply:      {:9.1} us per trace, {:7.2} us per step",
                micros(apply),
                micros(apply) / steps
            );
        }
        if wanted(Measurement::Print) {
            println!(
                "  print:      {:9.1} us for the module after every step",
                micros(print_each)
            );
        }
        if wanted(Measurement::EndToEnd) {
            println!(
                "  end to end: {:9.1} us (parse, apply, print after every step)",
                micros(end_to_end)
            );
        }
    }
    EXIT_OK
}
