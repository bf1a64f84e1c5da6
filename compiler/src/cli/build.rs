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
}

/// Arguments of `tirc build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The `.tir` file.
    file: PathBuf,
    /// The target in TVM's syntax (`llvm`, `llvm -mcpu=znver3 -mattr=+avx2`).
    #[arg(long, default_value = "llvm")]
    target: String,
    /// What to write.
    #[arg(long, value_enum, default_value = "so")]
    emit: EmitArg,
    /// The output file.
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
}

/// Runs `tirc build`.
#[cfg(feature = "llvm")]
pub fn run(args: BuildArgs) -> u8 {
    use super::run::{prepare_for_target, ScheduleChoice};
    use super::{emit_diagnostics, DiagnosticFormat, EXIT_DIAGNOSTICS, EXIT_OK};
    use crate::codegen::c_header::{c_identifier, write_header};
    use crate::codegen::llvm::{generate_unoptimized_module, CodegenOptions};
    use inkwell::context::Context;

    let choice = ScheduleChoice {
        none: args.no_schedule,
        name: args.schedule.clone(),
    };
    let (prepared, target) = match prepare_for_target(&args.file, &choice, &args.target) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernels".to_string());
    let prefix = args
        .prefix
        .clone()
        .unwrap_or_else(|| format!("{}_", c_identifier(&stem)));
    let options = CodegenOptions {
        target,
        symbol_prefix: prefix,
        packed_wrappers: false,
        runtime_checks: args.runtime_checks,
    };
    let context = Context::create();
    let mut generated = match generate_unoptimized_module(&context, &prepared.lowered, &options) {
        Ok(generated) => generated,
        Err(diagnostics) => {
            emit_diagnostics(&diagnostics, &prepared.sources, DiagnosticFormat::Text);
            return EXIT_DIAGNOSTICS;
        }
    };
    // A shared library optimises its parts on threads of their own.
    if !matches!(args.emit, EmitArg::So) {
        if let Err(error) = generated.optimize() {
            emit_diagnostics(&[*error.0], &prepared.sources, DiagnosticFormat::Text);
            return EXIT_DIAGNOSTICS;
        }
    }
    let write = |bytes: &[u8]| {
        std::fs::write(&args.output, bytes)
            .map_err(|e| format!("cannot write {}: {e}", args.output.display()))
    };
    let outcome = match args.emit {
        EmitArg::Ll => write(generated.to_llvm_ir().as_bytes()),
        EmitArg::Asm => generated
            .to_assembly()
            .map_err(|e| e.0.message)
            .and_then(|text| write(text.as_bytes())),
        EmitArg::Obj => generated
            .to_object()
            .map_err(|e| e.0.message)
            .and_then(|bytes| write(&bytes)),
        EmitArg::So => generated.write_shared_library(&args.output).and_then(|()| {
            let header_path = args.output.with_extension("h");
            let signatures: Vec<_> = generated
                .kernels
                .iter()
                .map(|k| k.signature.clone())
                .collect();
            let header_stem = header_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| stem.clone());
            let header = write_header(&header_stem, &args.file.display().to_string(), &signatures);
            std::fs::write(&header_path, header)
                .map_err(|e| format!("cannot write {}: {e}", header_path.display()))
        }),
    };
    match outcome {
        Ok(()) => EXIT_OK,
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_DIAGNOSTICS
        }
    }
}

/// Without the LLVM backend, `tirc build` explains how to get it.
#[cfg(not(feature = "llvm"))]
pub fn run(_args: BuildArgs) -> u8 {
    use super::EXIT_USAGE;
    eprintln!(
        "error: this tirc was built without the LLVM backend; rebuild with `--features llvm14`"
    );
    EXIT_USAGE
}
