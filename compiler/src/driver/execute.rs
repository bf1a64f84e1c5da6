//! Running a JIT-compiled kernel the way `tirc run` and the golden tests do:
//! inputs from `.npy` files or seeded random data, one call, a comparison of
//! every output with the interpreter's, and timed repetitions.

#[cfg(feature = "llvm")]
use super::arguments::KernelCall;
use super::npy::read_npy;
use super::shape_binding::{bind_shape_vars, evaluate_integer};
#[cfg(feature = "llvm")]
use crate::codegen::llvm::{CodegenOptions, JitFunction, JitModule};
use crate::diagnostics::Diagnostic;
use crate::interp::{
    run_function_with_options, Arg, InterpOptions, SeededRandom, Tensor, Tolerance,
};
use crate::ir::identity::{VarMap, VarSet};
use crate::ir::visit::walk_stmts;
#[cfg(feature = "llvm")]
use crate::ir::IRModule;
use crate::ir::{PrimFunc, StmtKind, Var};
use crate::source::Span;
use std::path::Path;
#[cfg(feature = "llvm")]
use std::time::Instant;

/// The most random input data `prepare_inputs` makes for one run: past it,
/// filling the arrays alone would take minutes, and memory may run out.
pub const MAX_RANDOM_INPUT_BYTES: u64 = 4 << 30;

/// What the inputs of a run are made from.
#[derive(Clone, Debug, Default)]
pub struct InputSource<'a> {
    /// A directory with `<name>.npy` per parameter (the buffer's name or the
    /// handle's); without it, seeded random data.
    pub args_dir: Option<&'a Path>,
    /// The seed of random data (tensor `k` of the parameters uses `seed + k`).
    pub seed: u64,
    /// Values of symbolic shape variables and scalar parameters, by name
    /// (`tirc run --shape m=128,n=64`).
    pub shape_values: &'a [(String, i64)],
}

/// The names a parameter's `.npy` file may have: the buffer's (`A`, as the
/// program prints it) and the handle's (`var_A`).
pub fn file_names(func: &PrimFunc, param: &Var) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(buffer) = func.buffer_of(param) {
        names.push(buffer.name().to_string());
    }
    if !names.iter().any(|n| n == param.name()) {
        names.push(param.name().to_string());
    }
    names
}

/// The shape of `buffer` with symbolic extents taken from `shape_values`.
fn shape_of(
    buffer: &crate::ir::Buffer,
    shape_values: &[(String, i64)],
) -> Result<Vec<usize>, String> {
    let mut values: VarMap<i64> = Default::default();
    for extent in buffer.shape() {
        crate::ir::visit::walk_exprs(extent, &mut |e| {
            if let crate::ir::ExprKind::Var(var) = e.kind() {
                if let Some((_, value)) = shape_values.iter().find(|(n, _)| n == var.name()) {
                    values.insert(var.clone(), *value);
                }
            }
        });
    }
    buffer
        .shape()
        .iter()
        .map(|extent| {
            evaluate_integer(extent, &values)
                .map(|e| e.max(0) as usize)
                .ok_or_else(|| {
                    format!(
                        "`{}` has the symbolic shape ({}); give its sizes with --shape NAME=VALUE,... or its arrays with --args DIR",
                        buffer.name(),
                        buffer
                            .shape()
                            .iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
        })
        .collect()
}

/// The arguments of `func` in parameter order, from `source`: `.npy` files
/// where a directory is given (a 0-d array for a scalar; an output the
/// function writes may be left out and starts as zeros, shaped by the
/// inputs), else seeded random data, symbolic sizes from `shape_values`.
/// `outputs` are the positions of the parameters the program writes (from
/// the function before lowering: a CUDA host function writes nothing itself).
pub fn prepare_inputs(
    func: &PrimFunc,
    outputs: &[usize],
    source: &InputSource<'_>,
) -> Result<Vec<Arg>, String> {
    let mut args: Vec<Option<Arg>> = Vec::with_capacity(func.params.len());
    let mut missing: Vec<String> = Vec::new();
    let mut random_bytes: u64 = 0;
    for (position, param) in func.params.iter().enumerate() {
        let seed = source.seed.wrapping_add(position as u64);
        let given = source
            .shape_values
            .iter()
            .find(|(name, _)| name == param.name())
            .map(|(_, value)| *value);
        let file = source.args_dir.and_then(|dir| {
            file_names(func, param)
                .into_iter()
                .map(|name| dir.join(format!("{name}.npy")))
                .find(|path| path.is_file())
        });
        let arg = match (func.buffer_of(param), file) {
            (Some(buffer), Some(path)) => Some(Arg::Tensor(read_npy(&path, buffer.dtype())?)),
            (None, Some(path)) => {
                Some(scalar_from_tensor(&read_npy(&path, param.dtype())?, param)?)
            }
            (None, None) => match given {
                Some(value) if param.dtype().is_float() => Some(Arg::Float(value as f64)),
                Some(value) => Some(Arg::Int(value)),
                None if source.args_dir.is_some() => {
                    missing.push(format!("{}.npy", param.name()));
                    None
                }
                None => Some(random_scalar(param, seed)),
            },
            // An output left out is made once the inputs bound its shape.
            (Some(_), None) if source.args_dir.is_some() => {
                if !outputs.contains(&position) {
                    missing.push(format!("{}.npy", file_names(func, param)[0]));
                }
                None
            }
            (Some(buffer), None) => {
                let shape = shape_of(buffer, source.shape_values)?;
                let bytes = shape
                    .iter()
                    .try_fold(
                        buffer.dtype().bytes_of_all_lanes() as u64,
                        |size, &extent| size.checked_mul(extent as u64),
                    )
                    .unwrap_or(u64::MAX);
                random_bytes = random_bytes.saturating_add(bytes);
                if random_bytes > MAX_RANDOM_INPUT_BYTES {
                    return Err(format!(
                        "`{}` of shape {:?} {} would take the random inputs past {} GiB; give its arrays with --args DIR",
                        param.name(),
                        shape,
                        buffer.dtype(),
                        MAX_RANDOM_INPUT_BYTES >> 30
                    ));
                }
                let tensor = Tensor::random(buffer.dtype(), &shape, seed)
                    .map_err(|e| format!("cannot make random data for `{}`: {e}", param.name()))?;
                Some(Arg::Tensor(tensor))
            }
        };
        args.push(arg);
    }
    let Some(dir) = source.args_dir else {
        return Ok(args.into_iter().flatten().collect());
    };
    if !missing.is_empty() {
        let expected: Vec<String> = func
            .params
            .iter()
            .enumerate()
            .map(|(position, param)| {
                let names = file_names(func, param)
                    .iter()
                    .map(|n| format!("{n}.npy"))
                    .collect::<Vec<_>>()
                    .join(" or ");
                if outputs.contains(&position) {
                    format!("{names} (may be left out: an output)")
                } else {
                    names
                }
            })
            .collect();
        return Err(format!(
            "{} has no {}; the function reads one file per parameter: {}",
            dir.display(),
            missing.join(", "),
            expected.join(", ")
        ));
    }
    // Outputs left out start as zeros, shaped by what the inputs bound.
    let bound = super::shape_binding::bind_from_present(func, &args);
    let mut complete = Vec::with_capacity(args.len());
    for (param, arg) in func.params.iter().zip(args) {
        let arg = match (arg, func.buffer_of(param)) {
            (Some(arg), _) => arg,
            (None, Some(buffer)) => {
                let shape: Option<Vec<usize>> = buffer
                    .shape()
                    .iter()
                    .map(|e| evaluate_integer(e, &bound).map(|v| v.max(0) as usize))
                    .collect();
                let shape = match shape {
                    Some(shape) => shape,
                    None => shape_of(buffer, source.shape_values)?,
                };
                let tensor = Tensor::zeros(buffer.dtype(), &shape)
                    .map_err(|e| format!("cannot make `{}`: {e}", param.name()))?;
                Arg::Tensor(tensor)
            }
            (None, None) => unreachable!("a scalar without a file is reported missing"),
        };
        complete.push(arg);
    }
    // Shapes and dtypes are checked here, where the files can be named.
    bind_shape_vars(func, &complete)
        .map_err(|message| format!("{message} (arrays read from {})", dir.display()))?;
    Ok(complete)
}

/// A random scalar argument: a float in [-1, 1), or an integer from 1 to 8.
fn random_scalar(param: &Var, seed: u64) -> Arg {
    let mut random = SeededRandom::new(seed);
    if param.dtype().is_float() {
        Arg::Float(random.next_signed_unit())
    } else {
        Arg::Int(1 + (random.next_u64() % 8) as i64)
    }
}

fn scalar_from_tensor(tensor: &Tensor, param: &Var) -> Result<Arg, String> {
    if tensor.element_count() != 1 {
        return Err(format!(
            "`{}` is a scalar, but its array has shape {:?}",
            param.name(),
            tensor.shape()
        ));
    }
    let value = tensor.to_f64_vec().map_err(|e| e.message)?[0];
    Ok(if param.dtype().is_float() {
        Arg::Float(value)
    } else {
        Arg::Int(value as i64)
    })
}

/// The positions of the buffer parameters `func` stores into.
pub fn output_positions(func: &PrimFunc) -> Vec<usize> {
    let mut written: VarSet = Default::default();
    walk_stmts(&func.body, &mut |stmt| {
        if let StmtKind::BufferStore(store) = stmt.kind() {
            written.insert(store.buffer.data().clone());
        }
    });
    func.params
        .iter()
        .enumerate()
        .filter(|(_, param)| {
            func.buffer_of(param)
                .is_some_and(|b| written.contains(b.data()))
        })
        .map(|(position, _)| position)
        .collect()
}

/// Diagnostic code of a kernel that failed while running (an `assert` of
/// the program, or arguments that do not fit it).
pub const KERNEL_FAILED: &str = "E0605";

/// Why a kernel call did not give results.
#[derive(Clone, Debug)]
pub enum KernelFailure {
    /// The arguments do not fit the function.
    BadArguments(String),
    /// An `assert` of the program failed: the message (with its 1-based
    /// number) and where the assert, or the access a bound check guards, is.
    AssertFailed(String, Span),
}

impl KernelFailure {
    /// Where in the program the failure is, if known.
    pub fn span(&self) -> Span {
        match self {
            KernelFailure::BadArguments(_) => Span::NONE,
            KernelFailure::AssertFailed(_, span) => *span,
        }
    }
}

impl std::fmt::Display for KernelFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KernelFailure::BadArguments(message) | KernelFailure::AssertFailed(message, _) => {
                f.write_str(message)
            }
        }
    }
}

/// A prepared call of a JIT kernel, reusable for timing.
#[cfg(feature = "llvm")]
pub struct PreparedRun<'m> {
    function: JitFunction<'m>,
    call: KernelCall,
}

#[cfg(feature = "llvm")]
impl<'m> PreparedRun<'m> {
    /// Binds `args` (parameter order) to the kernel of `func`.
    pub fn new(
        function: JitFunction<'m>,
        func: &PrimFunc,
        args: &[Arg],
    ) -> Result<PreparedRun<'m>, KernelFailure> {
        let call = KernelCall::prepare(func, &function.kernel.signature, args)
            .map_err(KernelFailure::BadArguments)?;
        Ok(PreparedRun { function, call })
    }

    /// Runs the kernel once.
    pub fn run(&self) -> Result<(), KernelFailure> {
        // SAFETY: `KernelCall::prepare` checked every array against the
        // declared shapes and gave each buffer aligned storage of its size.
        let code = unsafe { self.function.call_packed(self.call.slots()) }
            .map_err(KernelFailure::BadArguments)?;
        if code == 0 {
            return Ok(());
        }
        let assert = usize::try_from(code)
            .ok()
            .and_then(|n| self.function.kernel.asserts.get(n.wrapping_sub(1)));
        let detail = assert
            .map(|info| format!("{}: {}", info.kind, info.message))
            .unwrap_or_else(|| format!("error code {code}"));
        Err(KernelFailure::AssertFailed(
            format!(
                "`{}` stopped at assert {code}: {detail}",
                self.function.kernel.signature.function
            ),
            assert.map_or(Span::NONE, |info| info.span),
        ))
    }

    /// The arguments after the runs so far.
    pub fn results(&self, args: &[Arg]) -> Result<Vec<Arg>, KernelFailure> {
        self.call.results(args).map_err(KernelFailure::BadArguments)
    }

    /// Runs the kernel `runs` times after one warm-up run and times each.
    pub fn benchmark(&self, runs: usize) -> Result<Timing, KernelFailure> {
        self.run()?;
        let mut times = Vec::with_capacity(runs.max(1));
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            self.run()?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        Ok(Timing {
            runs: times.len(),
            min_ms: times[0],
            median_ms: if times.len() % 2 == 1 {
                times[times.len() / 2]
            } else {
                (times[times.len() / 2 - 1] + times[times.len() / 2]) / 2.0
            },
        })
    }
}

/// Timed repetitions of a kernel.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// How many runs were timed.
    pub runs: usize,
    /// The fastest, in milliseconds.
    pub min_ms: f64,
    /// The median, in milliseconds.
    pub median_ms: f64,
}

/// One output compared with the interpreter's.
#[derive(Clone, Debug)]
pub struct OutputCheck {
    /// The parameter's name.
    pub name: String,
    /// Largest absolute difference.
    pub max_abs_err: f64,
    /// Largest difference relative to the interpreter's value.
    pub max_rel_err: f64,
    /// The tolerance used.
    pub tolerance: Tolerance,
    /// `None` when within tolerance, else what differs.
    pub mismatch: Option<String>,
}

/// Runs the interpreter on `reference` with `inputs` and compares each of
/// `outputs` (parameter positions) of `results` with what it computed.
pub fn check_against_interpreter(
    reference: &PrimFunc,
    inputs: &[Arg],
    results: &[Arg],
    outputs: &[usize],
) -> Result<Vec<OutputCheck>, String> {
    let expected = interpreter_outputs(reference, inputs)?;
    compare_outputs(reference, &expected, results, outputs)
}

/// The arguments after the interpreter ran `reference` on `inputs`.
pub fn interpreter_outputs(reference: &PrimFunc, inputs: &[Arg]) -> Result<Vec<Arg>, String> {
    let mut expected = inputs.to_vec();
    // A check is asked for explicitly: let the interpreter run as long as
    // the program needs (a 1024^3 matmul is a billion steps).
    let options = InterpOptions {
        step_budget: u64::MAX,
        ..InterpOptions::default()
    };
    run_function_with_options(reference, &mut expected, &options)
        .map_err(|e| format!("the interpreter failed: {e}"))?;
    Ok(expected)
}

/// Why [`run_compiled`] gave no results.
#[derive(Debug)]
pub enum CompiledRunError {
    /// A lowering pass refused the module.
    Lowering(Vec<Diagnostic>),
    /// Code generation refused the lowered module (GPU thread bindings, an
    /// extern the process lacks, ...).
    Refused(Vec<Diagnostic>),
    /// The function is missing, its arguments do not fit, or it failed.
    Failed(String),
}

/// Lowers `module` (where it still has blocks), JIT-compiles it and runs
/// its function `name` once on `inputs`: the arguments after the run. The
/// reference that `tirc run --check-with unscheduled` and the schedule
/// golden tests compare with.
#[cfg(feature = "llvm")]
pub fn run_compiled(
    module: &IRModule,
    name: &str,
    inputs: &[Arg],
    options: &CodegenOptions,
) -> Result<Vec<Arg>, CompiledRunError> {
    let lowered = crate::codegen::lower_for_codegen(module).map_err(CompiledRunError::Lowering)?;
    let jit = JitModule::compile(&lowered, options).map_err(CompiledRunError::Refused)?;
    let (Some(function), Some(func)) = (jit.function(name), lowered.function(name)) else {
        return Err(CompiledRunError::Failed(format!(
            "the compiled module has no `{name}`"
        )));
    };
    let failed = |e: KernelFailure| CompiledRunError::Failed(e.to_string());
    let kernel = PreparedRun::new(function, func, inputs).map_err(failed)?;
    kernel.run().map_err(failed)?;
    kernel.results(inputs).map_err(failed)
}

/// Compares each of `outputs` of `actual` with `expected`, with the
/// tolerance of its type.
pub fn compare_outputs(
    func: &PrimFunc,
    expected: &[Arg],
    actual: &[Arg],
    outputs: &[usize],
) -> Result<Vec<OutputCheck>, String> {
    let mut checks = Vec::new();
    for &position in outputs {
        let (Some(Arg::Tensor(want)), Some(Arg::Tensor(got))) =
            (expected.get(position), actual.get(position))
        else {
            continue;
        };
        let tolerance = Tolerance::for_output(want);
        let name = func
            .params
            .get(position)
            .map(|p| file_names(func, p).swap_remove(0))
            .unwrap_or_default();
        let comparison = got.compare(want, tolerance).map_err(|e| e.message)?;
        checks.push(OutputCheck {
            max_abs_err: comparison.max_abs_error,
            max_rel_err: comparison.max_rel_error,
            tolerance,
            mismatch: comparison
                .into_result(got, tolerance)
                .err()
                .map(|e| e.message),
            name,
        });
    }
    Ok(checks)
}

/// The shape variables' values for `args`, for FLOP counts.
pub fn shape_values(func: &PrimFunc, args: &[Arg]) -> crate::ir::VarMap<i64> {
    bind_shape_vars(func, args).unwrap_or_default()
}
