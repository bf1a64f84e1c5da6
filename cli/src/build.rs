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
    /// CUDA C (`--target cuda`).
    Cu,
    /// PTX from NVRTC (`--target cuda`).
    Ptx,
    /// A cubin from `ptxas` (`--target cuda`); prints each kernel's
    /// registers and shared memory.
    Cubin,
}

/// Arguments of `tirc build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The `.tir` file (`-` for standard input).
    file: PathBuf,
    /// The target in TVM's syntax (`llvm`, `llvm -mcpu=znver3 -mattr=+avx2`,
    /// `cuda -arch=sm_90`) or as TVM 0.27's JSON dict
    /// (`{"kind": "cuda", "arch": "sm_90"}`).
    #[arg(long, default_value = "llvm")]
    target: String,
    /// What to write (default: `so` for llvm, `ptx` for cuda).
    #[arg(long, value_enum)]
    emit: Option<EmitArg>,
    /// The output file (`-` writes ll, asm, cu or ptx to standard output).
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
#[cfg(any(feature = "llvm", feature = "cuda"))]
pub fn run(args: BuildArgs) -> u8 {
    use super::output::{report, DiagnosticFormat};
    use super::EXIT_OK;
    use tirc::driver::{ApplicationErrorKind, DriverError, Target};

    // `-o -`: the text forms go to standard output, through a scratch file.
    let to_stdout = args.output.as_os_str() == "-";
    let scratch = std::env::temp_dir().join(format!("tirc-build-{}", std::process::id()));
    let mut args = args;
    let outcome = Target::parse(&args.target)
        .map_err(|message| DriverError::application(ApplicationErrorKind::Usage, message))
        .and_then(|target| {
            if to_stdout {
                let emit = args.emit.unwrap_or(match target {
                    Target::Cuda(_) => EmitArg::Ptx,
                    Target::Llvm(_) => EmitArg::So,
                });
                if !matches!(emit, EmitArg::Ll | EmitArg::Asm | EmitArg::Cu | EmitArg::Ptx) {
                    return Err(DriverError::application(
                        ApplicationErrorKind::Usage,
                        format!("`-o -` writes text to standard output: `--emit {emit:?}` is binary, name a file")
                            .to_lowercase(),
                    ));
                }
                std::fs::create_dir_all(&scratch).map_err(|e| {
                    DriverError::application(
                        ApplicationErrorKind::Io,
                        format!("cannot create {}: {e}", scratch.display()),
                    )
                })?;
                args.output = scratch.join(format!("out.{}", format!("{emit:?}").to_lowercase()));
            }
            match target {
                Target::Cuda(target) => build_cuda(&args, &target),
                Target::Llvm(_) => build_llvm(&args, target),
            }
        })
        .and_then(|()| {
            if !to_stdout {
                return Ok(());
            }
            let text = std::fs::read(&args.output).map_err(|e| {
                DriverError::application(
                    ApplicationErrorKind::Io,
                    format!("cannot read {}: {e}", args.output.display()),
                )
            })?;
            use std::io::Write;
            let _ = std::io::stdout().write_all(&text);
            Ok(())
        });
    if to_stdout {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    match outcome {
        Ok(()) => EXIT_OK,
        Err(error) => report(error, DiagnosticFormat::Text),
    }
}

#[cfg(feature = "cuda")]
fn build_cuda(
    args: &BuildArgs,
    target: &tirc::codegen::target::CudaTarget,
) -> Result<(), tirc::driver::DriverError> {
    use tirc::driver::cuda::{build_cuda, CudaEmit};
    use tirc::driver::{
        lower_file_for, ApplicationErrorKind, DriverError, ScheduleChoice, SourceFile, Target,
    };
    let emit = match args.emit.unwrap_or(EmitArg::Ptx) {
        EmitArg::Cu => CudaEmit::Cu,
        EmitArg::Ptx => CudaEmit::Ptx,
        EmitArg::Cubin => CudaEmit::Cubin,
        other => {
            return Err(DriverError::application(
                ApplicationErrorKind::Usage,
                format!("`--emit {other:?}` is for the llvm target; cuda writes cu, ptx or cubin")
                    .to_lowercase(),
            ))
        }
    };
    let start = std::time::Instant::now();
    let source = SourceFile::read(&args.file)?;
    let lowered = lower_file_for(
        &source,
        &ScheduleChoice::from_flags(args.schedule.clone(), args.no_schedule),
        &Target::Cuda(target.clone()),
    )?;
    let front_end_ms = start.elapsed().as_secs_f64() * 1e3;
    let output = build_cuda(&lowered, target, emit, &args.output)?;
    if args.verbose {
        let nvrtc = output
            .nvrtc_ms
            .map_or(String::new(), |ms| format!(", NVRTC {ms:.1} ms"));
        eprintln!(
            "parse, schedule and lower {front_end_ms:.1} ms, CUDA C {:.2} ms{nvrtc} ({})",
            output.write_ms, output.arch
        );
    }
    if args.verbose || emit == CudaEmit::Cubin {
        for kernel in &output.resources {
            eprintln!(
                "{} ({}): {} registers, {} bytes shared memory, {} bytes spilled",
                kernel.name,
                output.arch,
                kernel.registers,
                kernel.shared_bytes,
                kernel.spill_stores
            );
        }
    }
    Ok(())
}

#[cfg(all(feature = "llvm", not(feature = "cuda")))]
fn build_cuda(
    _args: &BuildArgs,
    target: &tirc::codegen::target::CudaTarget,
) -> Result<(), tirc::driver::DriverError> {
    Err(tirc::driver::missing_backend(&tirc::driver::Target::Cuda(
        target.clone(),
    )))
}

#[cfg(all(feature = "cuda", not(feature = "llvm")))]
fn build_llvm(
    _args: &BuildArgs,
    target: tirc::driver::Target,
) -> Result<(), tirc::driver::DriverError> {
    Err(tirc::driver::missing_backend(&target))
}

#[cfg(feature = "llvm")]
fn build_llvm(
    args: &BuildArgs,
    target: tirc::driver::Target,
) -> Result<(), tirc::driver::DriverError> {
    use super::output::{emit_diagnostics, DiagnosticFormat};
    use tirc::driver::build::{build, BuildRequest, Emit};
    use tirc::driver::{lower_file, ApplicationErrorKind, DriverError, ScheduleChoice, SourceFile};
    {
        {
            let source = SourceFile::read(&args.file)?;
            let lowered = lower_file(
                &source,
                &ScheduleChoice::from_flags(args.schedule.clone(), args.no_schedule),
            )?;
            let request = BuildRequest {
                target,
                emit: match args.emit.unwrap_or(EmitArg::So) {
                    EmitArg::Ll => Emit::LlvmIr,
                    EmitArg::Asm => Emit::Assembly,
                    EmitArg::Obj => Emit::Object,
                    EmitArg::So => Emit::SharedLibrary,
                    other => {
                        return Err(DriverError::application(
                            ApplicationErrorKind::Usage,
                            format!("`--emit {other:?}` is for the cuda target; llvm writes ll, asm, obj or so")
                                .to_lowercase(),
                        ))
                    }
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
            Ok(())
        }
    }
}

/// Without a backend, `tirc build` explains how to get one.
#[cfg(not(any(feature = "llvm", feature = "cuda")))]
pub fn run(_args: BuildArgs) -> u8 {
    super::output::report_application(
        tirc::driver::ApplicationErrorKind::Toolchain,
        "this tirc was built without the LLVM backend; rebuild with `--features llvm14`",
    )
}
