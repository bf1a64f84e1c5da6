//! The run stage (`tirc run`): a lowered function JIT-compiled for the host,
//! called once on `.npy` or seeded random inputs, optionally checked against
//! a reference and timed. The result is a [`RunReport`]; printing it (text
//! or JSON) is the caller's business.

#[cfg(feature = "llvm")]
use super::execute::{
    compare_outputs, output_positions, run_compiled, shape_values, CompiledRunError, KernelFailure,
    PreparedRun, KERNEL_FAILED,
};
use super::execute::{interpreter_outputs, prepare_inputs, InputSource, OutputCheck};
#[cfg(feature = "llvm")]
use super::flop_count::count_flops;
use super::npy::write_npy;
use super::{ApplicationErrorKind, DriverError, Entry, LoweredProgram, Target};
#[cfg(feature = "llvm")]
use crate::codegen::llvm::{CodegenOptions, JitModule, TargetSpec};
#[cfg(feature = "llvm")]
use crate::diagnostics::Diagnostic;
use crate::interp::Arg;
#[cfg(feature = "llvm")]
use crate::ir::IRModule;
#[cfg(feature = "llvm")]
use crate::runtime::thread_pool;
use serde::Serialize;
use std::path::PathBuf;
#[cfg(feature = "llvm")]
use std::time::Instant;

/// What `--check` compares the outputs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckReference {
    /// The interpreter when it is quick enough, else the unscheduled program.
    Auto,
    /// The reference interpreter on the program as written.
    Interp,
    /// The program without its schedule, lowered and JIT-compiled.
    Unscheduled,
    /// Outputs saved by an earlier run on the same inputs (`--expected DIR`):
    /// `tirc tune` computes the reference once for all its candidates.
    Saved,
}

/// Seconds of interpreter time `CheckReference::Auto` accepts.
const AUTO_INTERPRETER_SECONDS: f64 = 60.0;

/// Operations the interpreter executes per second, for its time estimate.
const INTERPRETER_OPERATIONS_PER_SECOND: f64 = 2e6;

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// The function (default: `main`, or the module's only function).
    pub entry: Option<String>,
    /// The target, parsed once; it must run on this machine.
    pub target: Target,
    /// A directory with `<param>.npy` for every input.
    pub args_dir: Option<PathBuf>,
    /// Where to write every buffer parameter after the run.
    pub save_outputs: Option<PathBuf>,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Values of symbolic sizes and scalar parameters, by name.
    pub shape_values: Vec<(String, i64)>,
    /// Compare every output with this reference.
    pub check: Option<CheckReference>,
    /// The directory of `<param>.npy` files that [`CheckReference::Saved`] reads.
    pub expected_dir: Option<PathBuf>,
    /// Time this many runs after a warm-up.
    pub bench: Option<usize>,
    /// Threads for parallel loops.
    pub threads: Option<usize>,
    /// Check accesses and divisions at run time in the reported run.
    pub runtime_checks: bool,
    /// For CUDA: run the kernels on the CPU under tirc's emulation of CUDA
    /// (with its race detector) instead of on a GPU.
    pub emulate: bool,
}

/// One output compared with the reference.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The parameter's name.
    pub name: String,
    /// Largest absolute difference.
    pub max_abs_err: f64,
    /// Largest difference relative to the reference's value.
    pub max_rel_err: f64,
    /// The absolute part of the tolerance.
    pub tolerance_absolute: f64,
    /// The relative part of the tolerance.
    pub tolerance_relative: f64,
    /// True when within tolerance.
    pub ok: bool,
    /// What differs, when something does.
    pub mismatch: Option<String>,
}

/// What a run found.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The function run.
    pub entry: String,
    /// The schedule section applied.
    pub schedule: Option<String>,
    /// Its number of steps.
    pub schedule_steps: usize,
    /// Threads of the pool parallel loops ran on.
    pub threads: usize,
    /// Milliseconds of JIT compilation.
    pub compile_ms: f64,
    /// Floating-point (or integer) operations of one run.
    pub flops: f64,
    /// What `--check` compared with, when it ran.
    pub reference: Option<CheckReference>,
    /// Why that reference was chosen, when `auto` chose it.
    pub reference_note: Option<String>,
    /// One entry per output.
    pub checks: Vec<CheckReport>,
    /// Timed runs.
    pub runs: usize,
    /// Median time of a run, in milliseconds.
    pub median_ms: Option<f64>,
    /// Fastest run, in milliseconds.
    pub min_ms: Option<f64>,
    /// GFLOP/s at the median time.
    pub gflops: Option<f64>,
    /// The largest absolute error over every output.
    pub max_abs_err: Option<f64>,
    /// Where outputs were saved.
    pub outputs_saved: Option<PathBuf>,
    /// True when every check passed.
    pub ok: bool,
    /// Notes for every run: loops bound to GPU threads run as CPU loops.
    #[serde(skip)]
    pub notes: Vec<crate::diagnostics::Diagnostic>,
    /// What LLVM said while compiling, as notes at the program's loops
    /// (`tirc run --verbose` shows them).
    #[serde(skip)]
    pub llvm_notes: Vec<crate::diagnostics::Diagnostic>,
}

#[cfg(feature = "llvm")]
fn usage(message: impl Into<String>) -> DriverError {
    DriverError::application(ApplicationErrorKind::Usage, message)
}

#[cfg(feature = "llvm")]
fn failed(message: impl Into<String>) -> DriverError {
    DriverError::application(ApplicationErrorKind::Failed, message)
}

/// Runs the chosen function of `lowered` as `request` says.
pub fn run(lowered: &LoweredProgram, request: &RunRequest) -> Result<RunReport, DriverError> {
    match &request.target {
        #[cfg(feature = "llvm")]
        Target::Llvm(target) => run_llvm(lowered, request, target),
        #[cfg(feature = "cuda")]
        Target::Cuda(target) => super::cuda::run_cuda(lowered, request, target),
        #[allow(unreachable_patterns)]
        target => Err(super::missing_backend(target)),
    }
}

#[cfg(feature = "llvm")]
fn run_llvm(
    lowered: &LoweredProgram,
    request: &RunRequest,
    target: &crate::codegen::target::LlvmTarget,
) -> Result<RunReport, DriverError> {
    let target = TargetSpec::resolve(target).map_err(usage)?;
    if !target.runs_on_host() {
        return Err(usage(format!(
            "code for `{}` does not run on this machine",
            target.triple
        ))
        .with_help("use `tirc build` to compile for another machine"));
    }
    let entry = lowered.entry(request.entry.as_deref())?;
    if let Some(threads) = request.threads {
        thread_pool::set_num_threads(threads);
    }
    let threads = thread_pool::global_pool().threads();
    let kernel_failed = |failure: &KernelFailure| DriverError::Diagnostics {
        diagnostics: vec![Diagnostic::error(
            KERNEL_FAILED,
            failure.to_string(),
            failure.span(),
        )],
        sources: lowered.sources().clone(),
    };

    let compile_start = Instant::now();
    let single = IRModule {
        name: lowered.module.name.clone(),
        functions: vec![entry.lowered.clone()],
        attrs: lowered.module.attrs.clone(),
    };
    let options = CodegenOptions {
        target,
        symbol_prefix: String::new(),
        packed_wrappers: true,
        runtime_checks: request.runtime_checks,
        remarks: Default::default(),
    };
    let compile = |options: &CodegenOptions| {
        JitModule::compile(&single, options).map_err(|diagnostics| DriverError::Diagnostics {
            diagnostics,
            sources: lowered.sources().clone(),
        })
    };
    let jit = compile(&options)?;
    let compile_ms = compile_start.elapsed().as_secs_f64() * 1e3;
    let function = jit
        .function(&entry.lowered.name)
        .ok_or_else(|| failed(format!("the compiled module lost `{}`", entry.lowered.name)))?;
    let compiler_notes =
        crate::codegen::llvm::compile_notes([function.kernel], &options.remarks, lowered.sources());

    let source = InputSource {
        args_dir: request.args_dir.as_deref(),
        seed: request.seed,
        shape_values: &request.shape_values,
    };
    let inputs =
        prepare_inputs(entry.lowered, &output_positions(entry.original), &source).map_err(usage)?;
    let kernel = PreparedRun::new(function, entry.lowered, &inputs)
        .map_err(|failure| usage(failure.to_string()))?;
    let outputs = output_positions(entry.lowered);

    let flops = count_flops(entry.original, &shape_values(entry.original, &inputs));
    let (reference, reference_note) = match request.check {
        None => (None, None),
        Some(chosen) => {
            let (reference, note) = choose_reference(lowered, entry, chosen, flops);
            (Some(reference), note)
        }
    };
    // The interpreter runs first: it reports an out-of-bounds access or a
    // division by zero that would crash the compiled code.
    let expected =
        reference_outputs(reference, entry.original, &inputs, request).map_err(failed)?;
    kernel.run().map_err(|f| kernel_failed(&f))?;
    let results = kernel.results(&inputs).map_err(|f| kernel_failed(&f))?;
    let checks = match reference {
        None => Vec::new(),
        Some(CheckReference::Unscheduled) => {
            check_against_unscheduled(lowered, entry, &options, &inputs, &results, &outputs)?
        }
        Some(_) => compare_outputs(
            entry.original,
            expected.as_deref().unwrap_or_default(),
            &results,
            &outputs,
        )
        .map_err(failed)?,
    };
    if let Some(dir) = &request.save_outputs {
        save_outputs(dir, entry, &results)?;
    }
    let timing = match request.bench {
        // The code timed is the code `tirc build` writes: without run-time checks.
        Some(runs) if options.runtime_checks => {
            let unchecked = CodegenOptions {
                runtime_checks: false,
                ..options.clone()
            };
            let jit = compile(&unchecked)?;
            let function = jit.function(&entry.lowered.name).ok_or_else(|| {
                failed(format!("the compiled module lost `{}`", entry.lowered.name))
            })?;
            let kernel = PreparedRun::new(function, entry.lowered, &inputs)
                .map_err(|f| kernel_failed(&f))?;
            Some(kernel.benchmark(runs).map_err(|f| kernel_failed(&f))?)
        }
        Some(runs) => Some(kernel.benchmark(runs).map_err(|f| kernel_failed(&f))?),
        None => None,
    };
    Ok(RunReport::assemble(
        lowered,
        entry,
        request,
        Measurements {
            threads,
            compile_ms,
            flops,
            reference,
            reference_note,
            checks,
            timing,
        },
        compiler_notes.notes,
        compiler_notes.llvm_notes,
    ))
}

/// What a backend measured in one `tirc run`.
pub(crate) struct Measurements {
    /// Threads parallel loops ran on.
    pub threads: usize,
    /// Milliseconds of compilation.
    pub compile_ms: f64,
    /// Operations of one run.
    pub flops: f64,
    /// The reference of `--check`.
    pub reference: Option<CheckReference>,
    /// Why that reference.
    pub reference_note: Option<String>,
    /// Each output compared.
    pub checks: Vec<OutputCheck>,
    /// The timed runs.
    pub timing: Option<super::execute::Timing>,
}

impl RunReport {
    /// The report of a run of `entry` that measured `measured`.
    pub(crate) fn assemble(
        lowered: &LoweredProgram,
        entry: Entry<'_>,
        request: &RunRequest,
        measured: Measurements,
        notes: Vec<crate::diagnostics::Diagnostic>,
        llvm_notes: Vec<crate::diagnostics::Diagnostic>,
    ) -> RunReport {
        let checks: Vec<CheckReport> = measured.checks.into_iter().map(CheckReport::from).collect();
        let applied = lowered.scheduled.applied();
        let timing = measured.timing;
        let flops = measured.flops;
        RunReport {
            entry: entry.lowered.name.clone(),
            schedule: applied.as_ref().map(|(name, _)| name.clone()),
            schedule_steps: applied.map_or(0, |(_, steps)| steps),
            threads: measured.threads,
            compile_ms: measured.compile_ms,
            flops,
            reference: measured.reference,
            reference_note: measured.reference_note,
            max_abs_err: (!checks.is_empty())
                .then(|| checks.iter().map(|c| c.max_abs_err).fold(0.0, f64::max)),
            ok: checks.iter().all(|c| c.ok),
            checks,
            runs: timing.map_or(0, |t| t.runs),
            median_ms: timing.map(|t| t.median_ms),
            min_ms: timing.map(|t| t.min_ms),
            gflops: timing.map(|t| flops / (t.median_ms * 1e-3) / 1e9),
            outputs_saved: request.save_outputs.clone(),
            notes,
            llvm_notes,
        }
    }
}

impl From<OutputCheck> for CheckReport {
    fn from(check: OutputCheck) -> CheckReport {
        CheckReport {
            name: check.name,
            max_abs_err: check.max_abs_err,
            max_rel_err: check.max_rel_err,
            tolerance_absolute: check.tolerance.absolute,
            tolerance_relative: check.tolerance.relative,
            ok: check.mismatch.is_none(),
            mismatch: check.mismatch,
        }
    }
}

/// The reference `--check` uses and, when the choice needs saying, why.
pub(crate) fn choose_reference(
    lowered: &LoweredProgram,
    entry: Entry<'_>,
    chosen: CheckReference,
    flops: f64,
) -> (CheckReference, Option<String>) {
    let interpreter_seconds = flops / INTERPRETER_OPERATIONS_PER_SECOND;
    let scheduled = lowered.scheduled.run.is_some();
    if let Some(parameter) = entry.relaid_parameter {
        if matches!(
            chosen,
            CheckReference::Auto | CheckReference::Interp | CheckReference::Unscheduled
        ) {
            return (
                CheckReference::Interp,
                Some(format!(
                    "checking against the scheduled `{}` in the interpreter: the schedule changes \
                     the layout of parameter `{parameter}`, so the program as written takes other inputs",
                    entry.original.name
                )),
            );
        }
    }
    match chosen {
        CheckReference::Auto if scheduled && interpreter_seconds > AUTO_INTERPRETER_SECONDS => (
            CheckReference::Unscheduled,
            Some(format!(
                "checking against `{}` without its schedule, compiled by LLVM (the interpreter \
                 would take about {interpreter_seconds:.0} s; --check-with interp forces it)",
                entry.original.name
            )),
        ),
        CheckReference::Auto if !crate::interp::can_interpret(entry.original) => (
            CheckReference::Unscheduled,
            Some(format!(
                "checking against `{}` without its schedule, compiled by LLVM: the interpreter \
                 cannot run it (it calls external functions)",
                entry.original.name
            )),
        ),
        CheckReference::Auto | CheckReference::Interp => (
            CheckReference::Interp,
            (interpreter_seconds > 10.0).then(|| {
                format!(
                    "checking against the interpreter: {:.2} G operations, expect about {interpreter_seconds:.0} s",
                    flops / 1e9
                )
            }),
        ),
        CheckReference::Unscheduled => (CheckReference::Unscheduled, None),
        CheckReference::Saved => (CheckReference::Saved, None),
    }
}

/// The outputs `--check` compares with when they come from here rather than
/// from a second compiled run: the interpreter's, or those saved in
/// `--expected DIR` (every parameter's `.npy`, read as `--args` reads inputs).
pub(crate) fn reference_outputs(
    reference: Option<CheckReference>,
    original: &crate::ir::PrimFunc,
    inputs: &[Arg],
    request: &RunRequest,
) -> Result<Option<Vec<Arg>>, String> {
    match reference {
        Some(CheckReference::Interp) | Some(CheckReference::Auto) => {
            interpreter_outputs(original, inputs).map(Some)
        }
        Some(CheckReference::Saved) => {
            let dir = request
                .expected_dir
                .as_deref()
                .ok_or("a check against saved outputs needs their directory")?;
            let source = InputSource {
                args_dir: Some(dir),
                seed: request.seed,
                shape_values: &request.shape_values,
            };
            prepare_inputs(original, &[], &source)
                .map(Some)
                .map_err(|error| format!("the saved outputs in {}: {error}", dir.display()))
        }
        Some(CheckReference::Unscheduled) | None => Ok(None),
    }
}

/// Runs the function as written (no schedule), lowered and JIT-compiled, on
/// the same inputs and compares its outputs with `results`.
#[cfg(feature = "llvm")]
pub(crate) fn check_against_unscheduled(
    lowered: &LoweredProgram,
    entry: Entry<'_>,
    options: &CodegenOptions,
    inputs: &[Arg],
    results: &[Arg],
    outputs: &[usize],
) -> Result<Vec<OutputCheck>, DriverError> {
    let program = lowered.program();
    let module = IRModule {
        name: program.module.name.clone(),
        functions: vec![entry.original.clone()],
        attrs: program.module.attrs.clone(),
    };
    let expected = run_compiled(&module, &entry.original.name, inputs, options).map_err(
        |error| match error {
            CompiledRunError::Lowering(diagnostics) | CompiledRunError::Refused(diagnostics) => {
                DriverError::Diagnostics {
                    diagnostics,
                    sources: lowered.sources().clone(),
                }
            }
            CompiledRunError::Failed(message) => {
                failed(format!("the unscheduled program failed: {message}"))
            }
        },
    )?;
    compare_outputs(entry.original, &expected, results, outputs).map_err(failed)
}

/// Writes every buffer parameter as `DIR/<buffer name>.npy`.
pub(crate) fn save_outputs(
    dir: &std::path::Path,
    entry: Entry<'_>,
    results: &[Arg],
) -> Result<(), DriverError> {
    std::fs::create_dir_all(dir).map_err(|error| {
        DriverError::application(
            ApplicationErrorKind::Io,
            format!("cannot create {}: {error}", dir.display()),
        )
    })?;
    for (param, result) in entry.lowered.params.iter().zip(results) {
        if let Some(tensor) = result.tensor() {
            let name = super::execute::file_names(entry.lowered, param).swap_remove(0);
            write_npy(&dir.join(format!("{name}.npy")), tensor)
                .map_err(|message| DriverError::application(ApplicationErrorKind::Io, message))?;
        }
    }
    Ok(())
}
