//! Writing a generated module out: LLVM IR text, assembly, an object file,
//! or a shared library linked by the system C compiler together with the
//! small C runtime that provides `tirc_parallel_launch` (threads of its own,
//! the same static chunking as the JIT's pool).

use super::context::CodegenError;
use super::partition::{compile_units, partition_module};
use super::LlvmModule;
use inkwell::module::Module;
use inkwell::targets::{FileType, TargetMachine};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
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
        machine_code(&self.module, &machine, file_type)
    }

    /// The module as assembly text.
    pub fn to_assembly(&self) -> Result<String, CodegenError> {
        Ok(String::from_utf8_lossy(&self.machine_code(FileType::Assembly)?).into_owned())
    }

    /// The module as an object file.
    pub fn to_object(&self) -> Result<Vec<u8>, CodegenError> {
        self.machine_code(FileType::Object)
    }

    /// The module as objects: one when it is optimised already; else one
    /// per unit of [`partition_module`], each optimised and compiled on a
    /// thread of its own (up to the machine's parallelism).
    pub fn to_objects(&mut self) -> Result<Vec<Vec<u8>>, CodegenError> {
        if !self.optimized {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            if let Some(partition) = partition_module(&self.module, threads) {
                return compile_units(&self.module, &partition, &self.target, &self.remarks);
            }
            self.optimize()?;
        }
        Ok(vec![self.to_object()?])
    }

    /// Links the module and the parallel runtime into the shared library
    /// `output` with the C compiler (`$CC`, else `cc`).
    pub fn write_shared_library(&mut self, output: &Path) -> Result<(), String> {
        let objects = self.to_objects().map_err(|e| e.0.message)?;
        let scratch = std::env::temp_dir().join(format!(
            "tirc-build-{}-{}",
            std::process::id(),
            unique_number()
        ));
        std::fs::create_dir_all(&scratch)
            .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let object_paths: Vec<PathBuf> = (0..objects.len())
            .map(|unit| scratch.join(format!("kernels{unit}.o")))
            .collect();
        let result = objects
            .iter()
            .zip(&object_paths)
            .try_for_each(|(object, path)| std::fs::write(path, object))
            .map_err(|e| format!("cannot write to {}: {e}", scratch.display()))
            .and_then(|()| runtime_object(&compiler, &scratch))
            .and_then(|runtime| {
                let mut link = Command::new(&compiler);
                link.args(["-shared", "-fPIC", "-o"])
                    .arg(output)
                    .args(&object_paths)
                    .arg(&runtime)
                    .args(["-lm", "-lpthread"]);
                run_compiler(&compiler, &mut link, &format!("link {}", output.display()))
            });
        let _ = std::fs::remove_dir_all(&scratch);
        result
    }
}

/// `module` compiled by `machine` to assembly or an object.
pub fn machine_code(
    module: &Module<'_>,
    machine: &TargetMachine,
    file_type: FileType,
) -> Result<Vec<u8>, CodegenError> {
    let buffer = machine
        .write_to_memory_buffer(module, file_type)
        .map_err(|e| {
            CodegenError::internal(format!(
                "LLVM could not write machine code: {}",
                e.to_string_lossy()
            ))
        })?;
    Ok(buffer.as_slice().to_vec())
}

/// Runs the C compiler; its error output when it fails.
fn run_compiler(compiler: &str, command: &mut Command, what: &str) -> Result<(), String> {
    let outcome = command
        .output()
        .map_err(|e| format!("cannot run the C compiler `{compiler}` to {what}: {e}"))?;
    if outcome.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the C compiler `{compiler}` failed to {what}:\n{}",
            String::from_utf8_lossy(&outcome.stderr)
        ))
    }
}

/// The parallel runtime compiled to an object by `compiler`. Compiling it
/// took most of a `tirc build --emit so` (about 75 of 110 ms for the matmul
/// example), so the object is kept in tirc's cache directory under a name
/// hashing the runtime source, the compiler and tirc's version; without a
/// usable cache directory it is compiled into `scratch` each time.
fn runtime_object(compiler: &str, scratch: &Path) -> Result<PathBuf, String> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (SHARED_LIBRARY_RUNTIME, compiler, env!("CARGO_PKG_VERSION")).hash(&mut hasher);
    let name = format!("parallel_launch-{:016x}.o", hasher.finish());
    let cache = cache_directory().filter(|dir| std::fs::create_dir_all(dir).is_ok());
    if let Some(cached) = cache.as_ref().map(|dir| dir.join(&name)) {
        if cached.is_file() {
            return Ok(cached);
        }
    }
    let source = scratch.join("parallel_launch.c");
    let compiled = scratch.join(&name);
    std::fs::write(&source, SHARED_LIBRARY_RUNTIME)
        .map_err(|e| format!("cannot write to {}: {e}", scratch.display()))?;
    let mut compile = Command::new(compiler);
    compile
        .args(["-c", "-fPIC", "-O2", "-fvisibility=hidden", "-o"])
        .arg(&compiled)
        .arg(&source);
    run_compiler(compiler, &mut compile, "compile the parallel runtime")?;
    // Copied then renamed, so a concurrent build never links a partial file.
    if let Some(dir) = cache {
        let partial = dir.join(format!("{name}.{}-{}", std::process::id(), unique_number()));
        let cached = dir.join(&name);
        if std::fs::copy(&compiled, &partial).is_ok() && std::fs::rename(&partial, &cached).is_ok()
        {
            return Ok(cached);
        }
        let _ = std::fs::remove_file(&partial);
    }
    Ok(compiled)
}

/// Where tirc keeps files worth reusing between runs: `$TIRC_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/tirc`, else `~/.cache/tirc`.
fn cache_directory() -> Option<PathBuf> {
    let from = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    from("TIRC_CACHE_DIR")
        .or_else(|| from("XDG_CACHE_HOME").map(|dir| dir.join("tirc")))
        .or_else(|| from("HOME").map(|dir| dir.join(".cache").join("tirc")))
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
