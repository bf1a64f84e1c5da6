//! The build stage: a lowered program written to files for a target
//! (`tirc build`). Each backend answers for the outputs it can write; a
//! target whose backend this build lacks is refused with what to do.

use super::{ApplicationErrorKind, DriverError, LoweredProgram, Target};
use crate::codegen::c_header::{c_identifier, write_header};
use crate::codegen::llvm::compile_notes;
use crate::codegen::llvm::{generate_unoptimized_module, CodegenOptions, TargetSpec};
use crate::diagnostics::Diagnostic;
use std::path::{Path, PathBuf};

/// What a build writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// LLVM IR text.
    LlvmIr,
    /// Assembly.
    Assembly,
    /// An object file.
    Object,
    /// A shared library, plus a C header beside it.
    SharedLibrary,
}

/// What to build and where.
#[derive(Clone, Debug)]
pub struct BuildRequest {
    /// The target, parsed once.
    pub target: Target,
    /// What to write.
    pub emit: Emit,
    /// The output file.
    pub output: PathBuf,
    /// Prefix of every exported symbol; `None` for the file's stem and `_`.
    pub symbol_prefix: Option<String>,
    /// Check buffer accesses and integer divisions at run time.
    pub runtime_checks: bool,
}

/// The symbol prefix of a program read from `source_name`: its stem as a C
/// identifier and `_` (`matmul.tir` gives `matmul_`; standard input `kernels_`).
pub fn default_symbol_prefix(source_name: &str) -> String {
    let stem = Path::new(source_name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|stem| source_name != "<stdin>" && !stem.is_empty())
        .unwrap_or_else(|| "kernels".to_string());
    format!("{}_", c_identifier(&stem))
}

/// Refuses an output whose directory does not exist before any work is done.
fn check_output_directory(output: &Path) -> Result<(), DriverError> {
    let directory = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => return Ok(()),
    };
    if directory.is_dir() {
        return Ok(());
    }
    Err(DriverError::application(
        ApplicationErrorKind::Io,
        format!(
            "cannot write {}: the directory {} does not exist",
            output.display(),
            directory.display()
        ),
    )
    .with_help("create it first, or choose another path with -o"))
}

/// What a build wrote, and what LLVM said on the way.
#[derive(Debug)]
pub struct BuildOutput {
    /// The files written.
    pub files: Vec<PathBuf>,
    /// Notes for every build: loops bound to GPU threads run as CPU loops.
    pub notes: Vec<Diagnostic>,
    /// LLVM's messages as notes at the program's loops (`--verbose`).
    pub llvm_notes: Vec<Diagnostic>,
}

/// Builds `lowered` as `request` says.
pub fn build(
    lowered: &LoweredProgram,
    source_name: &str,
    request: &BuildRequest,
) -> Result<BuildOutput, DriverError> {
    check_output_directory(&request.output)?;
    let target = match &request.target {
        Target::Llvm(target) => TargetSpec::resolve(target)
            .map_err(|message| DriverError::application(ApplicationErrorKind::Usage, message))?,
        Target::Cuda(_) => {
            return Err(DriverError::application(
                ApplicationErrorKind::Toolchain,
                "this build stage writes CPU code; CUDA is built by `driver::cuda::build_cuda`",
            )
            .with_help("`tirc build --target cuda --emit cu|ptx|cubin`"))
        }
    };
    let options = CodegenOptions {
        target,
        symbol_prefix: request
            .symbol_prefix
            .clone()
            .unwrap_or_else(|| default_symbol_prefix(source_name)),
        packed_wrappers: false,
        runtime_checks: request.runtime_checks,
        remarks: Default::default(),
    };
    let diagnostics = |diagnostics| DriverError::Diagnostics {
        diagnostics,
        sources: lowered.sources().clone(),
    };
    let context = inkwell::context::Context::create();
    let mut generated =
        generate_unoptimized_module(&context, &lowered.module, &options).map_err(diagnostics)?;
    // A shared library optimises its parts on threads of their own.
    if request.emit != Emit::SharedLibrary {
        generated
            .optimize()
            .map_err(|error| diagnostics(vec![*error.0]))?;
    }
    let output = &request.output;
    let io_error = |path: &Path, e: std::io::Error| {
        DriverError::application(
            ApplicationErrorKind::Io,
            format!("cannot write {}: {e}", path.display()),
        )
    };
    let failed = |message: String| DriverError::application(ApplicationErrorKind::Failed, message);
    let mut files = vec![output.clone()];
    match request.emit {
        Emit::LlvmIr => {
            std::fs::write(output, generated.to_llvm_ir()).map_err(|e| io_error(output, e))?
        }
        Emit::Assembly => {
            let text = generated.to_assembly().map_err(|e| failed(e.0.message))?;
            std::fs::write(output, text).map_err(|e| io_error(output, e))?
        }
        Emit::Object => {
            let bytes = generated.to_object().map_err(|e| failed(e.0.message))?;
            std::fs::write(output, bytes).map_err(|e| io_error(output, e))?
        }
        Emit::SharedLibrary => {
            generated.write_shared_library(output).map_err(failed)?;
            let header_path = output.with_extension("h");
            let signatures: Vec<_> = generated
                .kernels
                .iter()
                .map(|k| k.signature.clone())
                .collect();
            let header_stem = header_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "kernels".to_string());
            let header = write_header(&header_stem, source_name, &signatures);
            std::fs::write(&header_path, header).map_err(|e| io_error(&header_path, e))?;
            files.push(header_path);
        }
    }
    let notes = compile_notes(&generated.kernels, &generated.remarks, lowered.sources());
    Ok(BuildOutput {
        files,
        notes: notes.notes,
        llvm_notes: notes.llvm_notes,
    })
}

#[cfg(test)]
mod tests {
    use super::default_symbol_prefix;

    /// Standard input exports `kernels_main`, not `__main`, whose leading
    /// underscores C reserves (issue 25.11).
    #[test]
    fn symbol_prefixes_are_c_identifiers_not_reserved() {
        assert_eq!(default_symbol_prefix("<stdin>"), "kernels_");
        assert_eq!(default_symbol_prefix("examples/matmul.tir"), "matmul_");
        assert_eq!(default_symbol_prefix("conv2d-nchw.tir"), "conv2d_nchw_");
        assert!(!default_symbol_prefix("<stdin>").starts_with('_'));
    }
}
