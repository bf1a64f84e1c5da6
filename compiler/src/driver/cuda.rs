//! The CUDA target's build and run stages: the lowered program's kernels
//! written as CUDA C, compiled by NVRTC (and `ptxas` for a cubin), and run
//! on the GPU through the driver, or on the CPU under tirc's emulation
//! (`--emulate`), checked against the interpreter like any run.

use super::execute::Timing;
use super::execute::{
    compare_outputs, output_positions, prepare_inputs, shape_values, InputSource,
};
use super::flop_count::count_flops;
use super::run::{
    choose_reference, reference_outputs, save_outputs, CheckReference, Measurements, RunReport,
    RunRequest,
};
use super::shape_binding::bind_shape_vars;
use super::{ApplicationErrorKind, DriverError, LoweredProgram};
use crate::codegen::cuda::emulation::{EmulatedModule, EmulationRunner};
use crate::codegen::cuda::host::{run_host, KernelRunner, LaunchArg};
use crate::codegen::cuda::nvrtc::{self, KernelResources, ToolError};
use crate::codegen::cuda::writer::{write_cuda, WriterOptions};
use crate::codegen::cuda::{codes, CudaModule};
use crate::codegen::target::CudaTarget;
use crate::diagnostics::Diagnostic;
use crate::driver::arguments::AlignedBytes;
use crate::interp::{Arg, Tensor};
use crate::ir::identity::VarMap;
use crate::ir::PrimFunc;
use crate::source::Span;
use std::path::PathBuf;
use std::time::Instant;

fn failed(message: impl Into<String>) -> DriverError {
    DriverError::application(ApplicationErrorKind::Failed, message)
}

fn tool_error(error: ToolError) -> DriverError {
    let kind = if error.help.is_some() {
        ApplicationErrorKind::Toolchain
    } else {
        ApplicationErrorKind::Failed
    };
    let mut driver_error = DriverError::application(kind, error.message);
    if let Some(help) = error.help {
        driver_error = driver_error.with_help(help);
    }
    driver_error
}

/// The kernels of `lowered` (lowered for CUDA) as CUDA C.
pub fn cuda_source(lowered: &LoweredProgram, emulation: bool) -> Result<CudaModule, DriverError> {
    write_cuda(&lowered.module, WriterOptions { emulation }).map_err(|diagnostics| {
        DriverError::Diagnostics {
            diagnostics,
            sources: lowered.sources().clone(),
        }
    })
}

/// The architecture to compile for: the target's, else the GPU's, else `sm_80`.
pub fn resolve_arch(target: &CudaTarget) -> String {
    target.resolved_arch()
}

/// What `tirc build --target cuda` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CudaEmit {
    /// CUDA C.
    Cu,
    /// PTX from NVRTC.
    Ptx,
    /// A cubin from `ptxas`.
    Cubin,
}

/// What a CUDA build wrote and measured.
#[derive(Clone, Debug)]
pub struct CudaBuildOutput {
    /// The architecture compiled for.
    pub arch: String,
    /// Milliseconds spent writing CUDA C (after lowering).
    pub write_ms: f64,
    /// Milliseconds in NVRTC, when it ran.
    pub nvrtc_ms: Option<f64>,
    /// Each kernel's registers and shared memory, when `ptxas` ran.
    pub resources: Vec<KernelResources>,
}

/// Builds the CUDA kernels of `lowered` into `output`.
pub fn build_cuda(
    lowered: &LoweredProgram,
    target: &CudaTarget,
    emit: CudaEmit,
    output: &PathBuf,
) -> Result<CudaBuildOutput, DriverError> {
    let start = Instant::now();
    let module = cuda_source(lowered, false)?;
    let write_ms = start.elapsed().as_secs_f64() * 1e3;
    let arch = resolve_arch(target);
    let write = |bytes: &[u8]| {
        std::fs::write(output, bytes).map_err(|e| {
            DriverError::application(
                ApplicationErrorKind::Io,
                format!("cannot write {}: {e}", output.display()),
            )
        })
    };
    if emit == CudaEmit::Cu {
        write(module.source.as_bytes())?;
        return Ok(CudaBuildOutput {
            arch,
            write_ms,
            nvrtc_ms: None,
            resources: Vec::new(),
        });
    }
    let start = Instant::now();
    let ptx = nvrtc::compile_ptx(&module.source, &arch).map_err(tool_error)?;
    let nvrtc_ms = Some(start.elapsed().as_secs_f64() * 1e3);
    if emit == CudaEmit::Ptx {
        write(ptx.as_bytes())?;
        return Ok(CudaBuildOutput {
            arch,
            write_ms,
            nvrtc_ms,
            resources: Vec::new(),
        });
    }
    let (cubin, resources) = nvrtc::assemble(&ptx, &arch).map_err(tool_error)?;
    write(&cubin)?;
    Ok(CudaBuildOutput {
        arch,
        write_ms,
        nvrtc_ms,
        resources,
    })
}

/// Where the kernels of a run execute.
enum Executor {
    Emulated(EmulatedModule),
    /// PTX for the GPU, loaded afresh for each run.
    Gpu(String),
}

/// Runs the entry function of `lowered` (lowered for CUDA) as `request` says.
pub fn run_cuda(
    lowered: &LoweredProgram,
    request: &RunRequest,
    target: &CudaTarget,
) -> Result<RunReport, DriverError> {
    if !request.emulate && !crate::driver::toolchain::probe_cuda_device().found {
        return Err(DriverError::application(
            ApplicationErrorKind::Toolchain,
            "there is no CUDA GPU on this machine to run the kernels on",
        )
        .with_help("add `--emulate` to run the very same kernels on the CPU under tirc's emulation of CUDA (with a race detector)"));
    }
    let entry = lowered.entry(request.entry.as_deref())?;
    let compile_start = Instant::now();
    let module = cuda_source(lowered, request.emulate)?;
    let executor = if request.emulate {
        Executor::Emulated(EmulatedModule::compile(&module).map_err(failed)?)
    } else {
        let arch = resolve_arch(target);
        let ptx = nvrtc::compile_ptx(&module.source, &arch).map_err(tool_error)?;
        // Loaded once here so that a driver error shows before any run.
        crate::codegen::cuda::device::Gpu::open(&ptx, &module.kernels).map_err(failed)?;
        Executor::Gpu(ptx)
    };
    let compile_ms = compile_start.elapsed().as_secs_f64() * 1e3;

    let source = InputSource {
        args_dir: request.args_dir.as_deref(),
        seed: request.seed,
        shape_values: &request.shape_values,
    };
    // The host function stores nothing itself: its kernels do.
    let outputs = output_positions(entry.original);
    let inputs = prepare_inputs(entry.lowered, &outputs, &source).map_err(failed)?;
    let flops = count_flops(entry.original, &shape_values(entry.original, &inputs));
    let (reference, reference_note) = match request.check {
        None => (None, None),
        // The unscheduled reference needs LLVM; the interpreter is always here.
        Some(chosen) => {
            let (reference, note) = choose_reference(lowered, entry, chosen, flops);
            if cfg!(feature = "llvm") || reference != CheckReference::Unscheduled {
                (Some(reference), note)
            } else {
                (Some(CheckReference::Interp), None)
            }
        }
    };
    let expected =
        reference_outputs(reference, entry.original, &inputs, request).map_err(failed)?;

    let mut timing = Vec::new();
    let mut notes = Vec::new();
    let runs = 1 + request.bench.unwrap_or(0);
    let mut results = inputs.clone();
    for run in 0..runs {
        let started = Instant::now();
        let (run_results, gpu_ms, warnings) = run_once(&executor, entry.lowered, &module, &inputs)?;
        let elapsed = gpu_ms.unwrap_or(started.elapsed().as_secs_f64() * 1e3);
        if run == 0 {
            results = run_results;
            notes.extend(warnings.into_iter().map(|warning| {
                Diagnostic::warning(codes::EMULATION_REPEATED_STORE, warning, Span::NONE)
            }));
        } else {
            timing.push(elapsed);
        }
    }

    let checks = match reference {
        None => Vec::new(),
        #[cfg(feature = "llvm")]
        Some(CheckReference::Unscheduled) => {
            let options = crate::codegen::llvm::CodegenOptions {
                target: crate::codegen::llvm::TargetSpec::host(),
                symbol_prefix: String::new(),
                packed_wrappers: true,
                runtime_checks: false,
                remarks: Default::default(),
            };
            super::run::check_against_unscheduled(
                lowered, entry, &options, &inputs, &results, &outputs,
            )?
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
    timing.sort_by(f64::total_cmp);
    let timing = (!timing.is_empty()).then(|| Timing {
        runs: timing.len(),
        min_ms: timing[0],
        median_ms: timing[timing.len() / 2],
    });
    Ok(RunReport::assemble(
        lowered,
        entry,
        request,
        Measurements {
            threads: 1,
            compile_ms,
            flops,
            reference,
            reference_note,
            checks,
            timing,
        },
        notes,
        Vec::new(),
    ))
}

/// What one run of the kernels gives: the arguments after it, the GPU time
/// in milliseconds when on a GPU, and the emulation's warnings.
type RunOutcome = (Vec<Arg>, Option<f64>, Vec<String>);

/// One run of the host function on copies of `inputs`.
fn run_once(
    executor: &Executor,
    host: &PrimFunc,
    module: &CudaModule,
    inputs: &[Arg],
) -> Result<RunOutcome, DriverError> {
    let shape_values = bind_shape_vars(host, inputs).map_err(failed)?;
    let mut values: VarMap<LaunchArg> = shape_values
        .iter()
        .map(|(var, value)| (var.clone(), LaunchArg::Int(*value, var.dtype())))
        .collect();
    match executor {
        Executor::Emulated(emulated) => {
            let mut storage: Vec<(usize, AlignedBytes)> = Vec::new();
            for (position, param) in host.params.iter().enumerate() {
                bind_param(host, param, &inputs[position], &mut values, |bytes| {
                    let copy = AlignedBytes::copy_of(bytes)?;
                    let address = copy.address();
                    storage.push((position, copy));
                    Ok(address)
                })?;
            }
            let mut runner = EmulationRunner::new(emulated);
            run_host(
                host,
                &module.kernels,
                values,
                &mut runner as &mut dyn KernelRunner,
            )
            .map_err(failed)?;
            let warnings = runner.warnings().to_vec();
            let results = read_back(
                inputs,
                storage.iter().map(|(p, s)| (*p, s.as_slice().to_vec())),
            )?;
            Ok((results, None, warnings))
        }
        Executor::Gpu(ptx) => {
            let (results, gpu_ms) = run_on_gpu(ptx, host, module, inputs, values)?;
            Ok((results, gpu_ms, Vec::new()))
        }
    }
}

fn run_on_gpu(
    ptx: &str,
    host: &PrimFunc,
    module: &CudaModule,
    inputs: &[Arg],
    mut values: VarMap<LaunchArg>,
) -> Result<(Vec<Arg>, Option<f64>), DriverError> {
    // The device buffers belong to one run: loading the module per run keeps
    // them from piling up over `--bench` repetitions (only the launches are timed).
    let mut gpu = crate::codegen::cuda::device::Gpu::open(ptx, &module.kernels).map_err(failed)?;
    let mut uploaded: Vec<(usize, usize)> = Vec::new();
    for (position, param) in host.params.iter().enumerate() {
        let index = gpu.allocation_count();
        bind_param(host, param, &inputs[position], &mut values, |bytes| {
            gpu.upload(bytes)
        })?;
        if gpu.allocation_count() > index {
            uploaded.push((position, index));
        }
    }
    let start = gpu.record().map_err(failed)?;
    run_host(
        host,
        &module.kernels,
        values,
        &mut gpu as &mut dyn KernelRunner,
    )
    .map_err(failed)?;
    let end = gpu.record().map_err(failed)?;
    gpu.synchronize().map_err(failed)?;
    let elapsed = start
        .elapsed_ms(&end)
        .map_err(|e| failed(format!("cannot time the kernels: {e:?}")))?;
    let mut outputs = Vec::new();
    for (position, index) in uploaded {
        outputs.push((position, gpu.download(index).map_err(failed)?));
    }
    Ok((
        read_back(inputs, outputs.into_iter())?,
        Some(f64::from(elapsed)),
    ))
}

/// Binds a parameter's value: a buffer's storage through `store`, a scalar directly.
fn bind_param(
    host: &PrimFunc,
    param: &crate::ir::Var,
    arg: &Arg,
    values: &mut VarMap<LaunchArg>,
    mut store: impl FnMut(&[u8]) -> Result<u64, String>,
) -> Result<(), DriverError> {
    match (host.buffer_of(param), arg) {
        (Some(buffer), Arg::Tensor(tensor)) => {
            let address = store(tensor.bytes()).map_err(failed)?;
            values.insert(buffer.data().clone(), LaunchArg::Pointer(address));
        }
        (None, Arg::Int(value)) => {
            values.insert(param.clone(), LaunchArg::Int(*value, param.dtype()));
        }
        (None, Arg::Float(value)) => {
            values.insert(param.clone(), LaunchArg::Float(*value, param.dtype()));
        }
        _ => {
            return Err(failed(format!(
                "the argument of `{}` does not fit its parameter",
                param.name()
            )))
        }
    }
    Ok(())
}

/// `inputs` with each buffer at `position` replaced by `bytes`.
fn read_back(
    inputs: &[Arg],
    buffers: impl Iterator<Item = (usize, Vec<u8>)>,
) -> Result<Vec<Arg>, DriverError> {
    let mut results = inputs.to_vec();
    for (position, bytes) in buffers {
        if let Some(Arg::Tensor(tensor)) = inputs.get(position) {
            let tensor = Tensor::from_bytes(tensor.dtype(), tensor.shape(), bytes)
                .map_err(|e| failed(e.message))?;
            results[position] = Arg::Tensor(tensor);
        }
    }
    Ok(results)
}
