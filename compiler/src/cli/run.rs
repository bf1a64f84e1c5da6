//! `tirc run`: apply the schedule, lower, JIT-compile and run a function on
//! `.npy` or seeded random inputs; optionally check every output against the
//! interpreter, time repeated runs and save the outputs.
// Without the LLVM backend only the stub `run` at the end is compiled in use.
#![cfg_attr(not(feature = "llvm"), allow(dead_code, unused_imports))]

use super::{
    emit_diagnostics, read_input, DiagnosticFormat, EXIT_DIAGNOSTICS, EXIT_OK, EXIT_USAGE,
};
use crate::check::{check_source, CheckOptions};
use crate::diagnostics::{json_string, Diagnostic};
use crate::frontend::Program;
use crate::ir::{IRModule, PrimFunc};
use crate::source::SourceMap;
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `tirc run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The `.tir` file.
    file: PathBuf,
    /// The function to run (default: `main`, or the module's only function).
    #[arg(long)]
    entry: Option<String>,
    /// The schedule section to apply (default: the file's only one, or `schedule`).
    #[arg(long, conflicts_with = "no_schedule")]
    schedule: Option<String>,
    /// Run the program as written, without its schedule.
    #[arg(long)]
    no_schedule: bool,
    /// A directory with `<param>.npy` for every parameter.
    #[arg(long, value_name = "DIR")]
    args: Option<PathBuf>,
    /// Write every buffer parameter as `<param>.npy` here after the run.
    #[arg(long, value_name = "DIR")]
    save_outputs: Option<PathBuf>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Compare every output with a reference's (exit 1 on a mismatch).
    #[arg(long)]
    check: bool,
    /// The reference of `--check`: the interpreter, the program without its
    /// schedule compiled by LLVM, or `auto` (the interpreter unless it would
    /// take over a minute and there is a schedule to check).
    #[arg(long, value_enum, default_value_t = CheckReference::Auto)]
    check_with: CheckReference,
    /// Time N runs after a warm-up and report min, median and GFLOP/s.
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// Threads for parallel loops (default: `TIRC_NUM_THREADS`, else every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// The target in TVM's syntax (`llvm -mcpu=znver3`); default: this machine.
    #[arg(long, default_value = "llvm")]
    target: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Run without run-time checks. By default the run whose outputs are
    /// reported stops with an error at an out-of-bounds index or an integer
    /// division by zero; `--bench` always times code without the checks.
    #[arg(long)]
    no_runtime_checks: bool,
}

/// What `tirc run --check` compares the outputs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckReference {
    /// The interpreter when it is quick enough, else the unscheduled program.
    Auto,
    /// The reference interpreter on the program as written (exact, slow:
    /// about two million operations a second).
    Interp,
    /// The program without its schedule, lowered and JIT-compiled: checks
    /// the schedule and the passes it enables (vectorize, parallel, unroll).
    Unscheduled,
}

/// What `--check` compares the compiled program's outputs with.
#[cfg(feature = "llvm")]
enum Expected {
    /// The interpreter's outputs on the same inputs, computed before the run.
    Interpreter(Vec<crate::interp::Arg>),
    /// The program without its schedule, compiled and run after this one.
    Unscheduled,
}

/// Seconds of interpreter time `--check-with auto` accepts.
const AUTO_INTERPRETER_SECONDS: f64 = 60.0;

/// Operations the interpreter executes per second, for its time estimate.
const INTERPRETER_OPERATIONS_PER_SECOND: f64 = 2e6;

/// Which schedule section to apply, if any.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScheduleChoice {
    /// Apply no schedule.
    pub none: bool,
    /// The section's name.
    pub name: Option<String>,
}

/// A program parsed, scheduled and lowered.
pub(crate) struct PreparedModule {
    /// The source files, for diagnostics.
    pub sources: SourceMap,
    /// The program as parsed.
    pub program: Program,
    /// The module after lowering.
    pub lowered: IRModule,
    /// The schedule section applied and its step count.
    pub schedule: Option<(String, usize)>,
    /// Milliseconds spent parsing, scheduling and lowering.
    pub front_end_ms: f64,
}

/// Parses `path`, applies its schedule and lowers it. On failure the
/// diagnostics are printed and the exit code returned.
pub(crate) fn prepare_module(
    path: &PathBuf,
    choice: &ScheduleChoice,
) -> Result<PreparedModule, u8> {
    let start = Instant::now();
    let (name, text) = read_input(path).map_err(|message| {
        eprintln!("{message}");
        EXIT_USAGE
    })?;
    let mut sources = SourceMap::new();
    let checked = check_source(&mut sources, &name, &text, &CheckOptions::default());
    if checked.has_errors() {
        emit_diagnostics(&checked.diagnostics, &sources, DiagnosticFormat::Text);
        return Err(EXIT_DIAGNOSTICS);
    }
    let Some(program) = checked.program else {
        eprintln!("error: {name} holds no program");
        return Err(EXIT_DIAGNOSTICS);
    };
    let (scheduled, schedule) =
        if choice.none || (program.schedules.is_empty() && choice.name.is_none()) {
            (program.module.clone(), None)
        } else {
            let run = crate::schedule::apply_schedule(&program, choice.name.as_deref());
            if !run.succeeded() {
                emit_diagnostics(&run.diagnostics, &sources, DiagnosticFormat::Text);
                return Err(EXIT_DIAGNOSTICS);
            }
            let applied = run.schedule.clone().map(|name| (name, run.steps.len()));
            (run.module().clone(), applied)
        };
    let lowered = crate::codegen::lower_for_codegen(&scheduled).map_err(|diagnostics| {
        emit_diagnostics(&diagnostics, &sources, DiagnosticFormat::Text);
        EXIT_DIAGNOSTICS
    })?;
    Ok(PreparedModule {
        sources,
        program,
        lowered,
        schedule,
        front_end_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// The function to run: the one named, else `main`, else the only one.
pub(crate) fn select_entry<'m>(
    module: &'m IRModule,
    entry: Option<&str>,
) -> Result<&'m PrimFunc, String> {
    let names = || {
        module
            .functions
            .iter()
            .map(|f| format!("`{}`", f.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match entry {
        Some(name) => module
            .function(name)
            .ok_or_else(|| format!("the module has no function `{name}`; it has {}", names())),
        None => module
            .function("main")
            .or_else(|| (module.functions.len() == 1).then(|| &module.functions[0]))
            .ok_or_else(|| {
                format!(
                    "the module has several functions ({}); pick one with --entry",
                    names()
                )
            }),
    }
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

fn json_number(value: f64) -> String {
    if value.is_finite() {
        format!("{value}")
    } else {
        "null".to_string()
    }
}

/// Runs `tirc run`.
#[cfg(feature = "llvm")]
pub fn run(args: RunArgs) -> u8 {
    use crate::codegen::llvm::{CodegenOptions, JitModule};
    use crate::runtime::execute::{
        compare_outputs, interpreter_outputs, output_positions, prepare_inputs, shape_values,
        PreparedRun,
    };
    use crate::runtime::{flop_count::count_flops, npy::write_npy, thread_pool};

    let choice = ScheduleChoice {
        none: args.no_schedule,
        name: args.schedule.clone(),
    };
    let (prepared, target) = match prepare_for_target(&args.file, &choice, &args.target) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let (original, lowered) = match (
        select_entry(&prepared.program.module, args.entry.as_deref()),
        select_entry(&prepared.lowered, args.entry.as_deref()),
    ) {
        (Ok(original), Ok(lowered)) => (original, lowered),
        (Err(message), _) | (_, Err(message)) => {
            eprintln!("error: {message}");
            return EXIT_USAGE;
        }
    };
    if let Some(threads) = args.threads {
        thread_pool::set_num_threads(threads);
    }
    let threads = thread_pool::global_pool().threads();

    let compile_start = Instant::now();
    let single = IRModule {
        name: prepared.lowered.name.clone(),
        functions: vec![lowered.clone()],
        attrs: prepared.lowered.attrs.clone(),
    };
    let options = CodegenOptions {
        target,
        symbol_prefix: String::new(),
        packed_wrappers: true,
        runtime_checks: !args.no_runtime_checks,
    };
    let compile = |options: &CodegenOptions| {
        JitModule::compile(&single, options).map_err(|diagnostics| {
            emit_diagnostics(&diagnostics, &prepared.sources, DiagnosticFormat::Text);
            EXIT_DIAGNOSTICS
        })
    };
    let jit = match compile(&options) {
        Ok(jit) => jit,
        Err(code) => return code,
    };
    let compile_ms = compile_start.elapsed().as_secs_f64() * 1e3;
    let Some(function) = jit.function(&lowered.name) else {
        eprintln!("error: the compiled module lost `{}`", lowered.name);
        return EXIT_DIAGNOSTICS;
    };

    let inputs = match prepare_inputs(lowered, args.args.as_deref(), args.seed) {
        Ok(inputs) => inputs,
        Err(message) => {
            eprintln!("error: {message}");
            return EXIT_USAGE;
        }
    };
    let kernel = match PreparedRun::new(function, lowered, &inputs) {
        Ok(kernel) => kernel,
        Err(failure) => {
            eprintln!("error: {failure}");
            return EXIT_USAGE;
        }
    };
    let failed = |failure: &crate::runtime::execute::KernelFailure| {
        let diagnostic = Diagnostic::error(
            crate::runtime::execute::KERNEL_FAILED,
            failure.to_string(),
            failure.span(),
        );
        emit_diagnostics(&[diagnostic], &prepared.sources, DiagnosticFormat::Text);
        EXIT_DIAGNOSTICS
    };
    let outputs = output_positions(lowered);

    let mut code = EXIT_OK;
    let flops = count_flops(original, &shape_values(original, &inputs));
    let interpreter_seconds = flops / INTERPRETER_OPERATIONS_PER_SECOND;
    let reference = match args.check_with {
        CheckReference::Auto
            if prepared.schedule.is_some() && interpreter_seconds > AUTO_INTERPRETER_SECONDS =>
        {
            CheckReference::Unscheduled
        }
        CheckReference::Auto => CheckReference::Interp,
        chosen => chosen,
    };
    if args.check && !args.json {
        match reference {
            CheckReference::Unscheduled => eprintln!(
                "checking against `{}` without its schedule, compiled by LLVM (the interpreter \
                 would take about {interpreter_seconds:.0} s; --check-with interp forces it)",
                original.name
            ),
            _ if interpreter_seconds > 10.0 => eprintln!(
                "checking against the interpreter: {:.2} G operations, expect about {interpreter_seconds:.0} s",
                flops / 1e9
            ),
            _ => {}
        }
    }
    // The interpreter runs first: it reports an out-of-bounds access or a
    // division by zero that would crash the compiled code.
    let expected = match (args.check, reference) {
        (false, _) => None,
        (true, CheckReference::Unscheduled) => Some(Expected::Unscheduled),
        (true, _) => match interpreter_outputs(original, &inputs) {
            Ok(outputs) => Some(Expected::Interpreter(outputs)),
            Err(message) => {
                eprintln!("error: {message}");
                return EXIT_DIAGNOSTICS;
            }
        },
    };
    if let Err(failure) = kernel.run() {
        return failed(&failure);
    }
    let results = match kernel.results(&inputs) {
        Ok(results) => results,
        Err(failure) => return failed(&failure),
    };
    let checks = if let Some(expected) = &expected {
        let checked = match expected {
            Expected::Unscheduled => check_against_unscheduled(
                original, &prepared, &options, &inputs, &results, &outputs,
            ),
            Expected::Interpreter(expected) => {
                compare_outputs(original, expected, &results, &outputs)
            }
        };
        match checked {
            Ok(checks) => {
                if checks.iter().any(|c| c.mismatch.is_some()) {
                    code = EXIT_DIAGNOSTICS;
                }
                Some(checks)
            }
            Err(message) => {
                eprintln!("error: {message}");
                return EXIT_DIAGNOSTICS;
            }
        }
    } else {
        None
    };
    if let Some(dir) = &args.save_outputs {
        if let Err(error) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot create {}: {error}", dir.display());
            return EXIT_USAGE;
        }
        for (param, result) in lowered.params.iter().zip(&results) {
            if let Some(tensor) = result.tensor() {
                if let Err(message) = write_npy(&dir.join(format!("{}.npy", param.name())), tensor)
                {
                    eprintln!("error: {message}");
                    return EXIT_USAGE;
                }
            }
        }
    }
    let timing = match args.bench {
        // The code timed is the code `tirc build` writes: without run-time checks.
        Some(runs) if options.runtime_checks => {
            let unchecked = CodegenOptions {
                runtime_checks: false,
                ..options.clone()
            };
            let jit = match compile(&unchecked) {
                Ok(jit) => jit,
                Err(code) => return code,
            };
            let Some(function) = jit.function(&lowered.name) else {
                eprintln!("error: the compiled module lost `{}`", lowered.name);
                return EXIT_DIAGNOSTICS;
            };
            match PreparedRun::new(function, lowered, &inputs).and_then(|k| k.benchmark(runs)) {
                Ok(timing) => Some(timing),
                Err(failure) => return failed(&failure),
            }
        }
        Some(runs) => match kernel.benchmark(runs) {
            Ok(timing) => Some(timing),
            Err(failure) => return failed(&failure),
        },
        None => None,
    };
    let gflops = timing.map(|t| flops / (t.median_ms * 1e-3) / 1e9);
    let max_abs_err = checks
        .as_ref()
        .map(|checks| checks.iter().map(|c| c.max_abs_err).fold(0.0, f64::max));

    if args.json {
        let check_items: Vec<String> = checks
            .iter()
            .flatten()
            .map(|c| {
                format!(
                    "{{\"name\": {}, \"max_abs_err\": {}, \"max_rel_err\": {}, \"ok\": {}}}",
                    json_string(&c.name),
                    json_number(c.max_abs_err),
                    json_number(c.max_rel_err),
                    c.mismatch.is_none()
                )
            })
            .collect();
        let optional = |value: Option<f64>| value.map_or("null".to_string(), json_number);
        println!(
            "{{\"file\": {}, \"entry\": {}, \"schedule\": {}, \"threads\": {threads}, \"compile_ms\": {}, \"front_end_ms\": {}, \"flops\": {}, \"runs\": {}, \"median_ms\": {}, \"min_ms\": {}, \"gflops\": {}, \"max_abs_err\": {}, \"checks\": [{}], \"ok\": {}}}",
            json_string(&args.file.display().to_string()),
            json_string(&lowered.name),
            prepared.schedule.as_ref().map_or("null".to_string(), |(name, _)| json_string(name)),
            json_number(compile_ms),
            json_number(prepared.front_end_ms),
            json_number(flops),
            timing.map_or(0, |t| t.runs),
            optional(timing.map(|t| t.median_ms)),
            optional(timing.map(|t| t.min_ms)),
            optional(gflops),
            optional(max_abs_err),
            check_items.join(", "),
            code == EXIT_OK
        );
        return code;
    }
    let schedule_text = match &prepared.schedule {
        Some((name, steps)) => format!("schedule `{name}`, {steps} steps"),
        None => "no schedule".to_string(),
    };
    println!(
        "{}: `{}` ({schedule_text}); front end {:.1} ms, LLVM {:.1} ms",
        args.file.display(),
        lowered.name,
        prepared.front_end_ms,
        compile_ms
    );
    for check in checks.iter().flatten() {
        let verdict = match &check.mismatch {
            None => "ok".to_string(),
            Some(message) => format!("MISMATCH: {message}"),
        };
        println!(
            "  check {} against {}: max abs err {}, max rel err {} (tolerance {} + {} * |expected|): {verdict}",
            check.name,
            match reference {
                CheckReference::Unscheduled => "the unscheduled program",
                _ => "the interpreter",
            },
            format_number(check.max_abs_err),
            format_number(check.max_rel_err),
            check.tolerance.absolute,
            check.tolerance.relative
        );
    }
    if let (Some(timing), Some(gflops)) = (timing, gflops) {
        println!(
            "  bench: {} runs, median {:.3} ms, min {:.3} ms, {:.1} GFLOP/s ({:.3} GFLOP per run, {threads} threads)",
            timing.runs,
            timing.median_ms,
            timing.min_ms,
            gflops,
            flops / 1e9
        );
    }
    if let Some(dir) = &args.save_outputs {
        println!("  outputs saved in {}", dir.display());
    }
    code
}

/// [`prepare_module`] and the target string read: where `tirc run` and
/// `tirc build` start. On failure the error is printed and the exit code returned.
#[cfg(feature = "llvm")]
pub(crate) fn prepare_for_target(
    path: &PathBuf,
    choice: &ScheduleChoice,
    target: &str,
) -> Result<(PreparedModule, crate::codegen::llvm::TargetSpec), u8> {
    let prepared = prepare_module(path, choice)?;
    let target = crate::codegen::llvm::TargetSpec::parse(target).map_err(|message| {
        eprintln!("error: {message}");
        EXIT_USAGE
    })?;
    Ok((prepared, target))
}

/// Runs `original` as written (no schedule), lowered and JIT-compiled, on
/// the same inputs and compares its outputs with `results`.
#[cfg(feature = "llvm")]
fn check_against_unscheduled(
    original: &PrimFunc,
    prepared: &PreparedModule,
    options: &crate::codegen::llvm::CodegenOptions,
    inputs: &[crate::interp::Arg],
    results: &[crate::interp::Arg],
    outputs: &[usize],
) -> Result<Vec<crate::runtime::execute::OutputCheck>, String> {
    use crate::runtime::execute::{compare_outputs, run_compiled, CompiledRunError};
    let module = IRModule {
        name: prepared.program.module.name.clone(),
        functions: vec![original.clone()],
        attrs: prepared.program.module.attrs.clone(),
    };
    let expected =
        run_compiled(&module, &original.name, inputs, options).map_err(|error| match error {
            CompiledRunError::Lowering(diagnostics) | CompiledRunError::Refused(diagnostics) => {
                crate::diagnostics::render_text(&diagnostics, &prepared.sources, false)
            }
            CompiledRunError::Failed(message) => {
                format!("the unscheduled program failed: {message}")
            }
        })?;
    compare_outputs(original, &expected, results, outputs)
}

/// Without the LLVM backend, `tirc run` explains how to get it.
#[cfg(not(feature = "llvm"))]
pub fn run(_args: RunArgs) -> u8 {
    eprintln!(
        "error: this tirc was built without the LLVM backend; rebuild with `--features llvm14`"
    );
    EXIT_USAGE
}
