//! Writing a generated module out: LLVM IR text, assembly, an object file,
//! or a shared library linked by the system C compiler together with the
//! small C runtime that provides `tirc_parallel_launch` (threads of its own,
//! the same static chunking as the JIT's pool).

use super::context::CodegenError;
use super::LlvmModule;
use inkwell::targets::FileType;
use std::path::Path;
use std::process::Command;

/// The C runtime linked into shared libraries: `tirc_parallel_launch`.
pub const SHARED_LIBRARY_RUNTIME: &str = include_str!("../../runtime/parallel_launch.c");

/// What `tirc build --emit` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitKind {
    /// LLVM IR text (`.ll`).
    LlvmIr,
    /// Assembly (`.s`).
    Assembly,
    /// A relocatable object (`.o`).
    Object,
    /// A shared library (`.so`) plus a C header.
    SharedLibrary,
}

impl LlvmModule<'_> {
    /// The module as LLVM IR text.
    pub fn to_llvm_ir(&self) -> String {
        self.module.print_to_string().to_string()
    }

    fn machine_code(&self, file_type: FileType) -> Result<Vec<u8>, CodegenError> {
        let machine = self
            .target
            .target_machine()
            .map_err(CodegenError::internal)?;
        let buffer = machine
            .write_to_memory_buffer(&self.module, file_type)
            .map_err(|e| {
                CodegenError::internal(format!(
                    "LLVM could not write machine code: {}",
                    e.to_string_lossy()
                ))
            })?;
        Ok(buffer.as_slice().to_vec())
    }

    /// The module as assembly text.
    pub fn to_assembly(&self) -> Result<String, CodegenError> {
        Ok(String::from_utf8_lossy(&self.machine_code(FileType::Assembly)?).into_owned())
    }

    /// The module as an object file.
    pub fn to_object(&self) -> Result<Vec<u8>, CodegenError> {
        self.machine_code(FileType::Object)
    }

    /// Links the module and the parallel runtime into the shared library
    /// `output` with the C compiler (`$CC`, else `cc`).
    pub fn write_shared_library(&self, output: &Path) -> Result<(), String> {
        let object = self.to_object().map_err(|e| e.0.message)?;
        let scratch = std::env::temp_dir().join(format!(
            "tirc-build-{}-{}",
            std::process::id(),
            unique_number()
        ));
        std::fs::create_dir_all(&scratch)
            .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
        let object_path = scratch.join("kernels.o");
        let runtime_path = scratch.join("parallel_launch.c");
        let written = std::fs::write(&object_path, object)
            .and_then(|()| std::fs::write(&runtime_path, SHARED_LIBRARY_RUNTIME));
        let result = written
            .map_err(|e| format!("cannot write to {}: {e}", scratch.display()))
            .and_then(|()| {
                let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
                let outcome = Command::new(&compiler)
                    .args(["-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o"])
                    .arg(output)
                    .arg(&object_path)
                    .arg(&runtime_path)
                    .args(["-lm", "-lpthread"])
                    .output()
                    .map_err(|e| {
                        format!("cannot run the C compiler `{compiler}` to link the library: {e}")
                    })?;
                if outcome.status.success() {
                    Ok(())
                } else {
                    Err(format!(
                        "the C compiler `{compiler}` failed to link {}:\n{}",
                        output.display(),
                        String::from_utf8_lossy(&outcome.stderr)
                    ))
                }
            });
        let _ = std::fs::remove_dir_all(&scratch);
        result
    }
}

fn unique_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// The (optimised, unless the target says `-opt-level=0`) LLVM IR of every
/// function of `module`, in a context of its own.
pub fn module_to_llvm_ir(
    module: &crate::ir::IRModule,
    options: &super::CodegenOptions,
) -> Result<String, Vec<crate::diagnostics::Diagnostic>> {
    let context = inkwell::context::Context::create();
    let generated = super::generate_module(&context, module, options)?;
    Ok(generated.to_llvm_ir())
}
