//! Running tirc's CUDA kernels without a GPU: the CUDA C the writer emits
//! (with `__shared__` arrays declared as checked arrays, the only
//! difference) is compiled by the host's C++ compiler against
//! `tirc_cuda_emulation.h`, tirc's model of CUDA (blocks in turn, the
//! threads of a block as fibers that meet at `__syncthreads()`, a race
//! detector on shared memory, barrier divergence reported), and loaded.
//! Each kernel gets an `extern "C"` launcher that takes CUDA's
//! `kernelParams` form: an array of pointers to the argument values.

use super::host::{KernelRunner, LaunchArg, LaunchDims};
use super::{CudaModule, KernelInfo, KernelParam};
use std::fmt::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// tirc's model of CUDA on the CPU, prepended to the emulated kernels.
pub const EMULATION_HEADER: &str = include_str!("tirc_cuda_emulation.h");

/// The C++ translation unit that emulates `module` (written with
/// `WriterOptions { emulation: true }`): the header, the kernels as
/// `kernels.cu` (so `__LINE__` and compiler errors point into the CUDA
/// text), and one launcher per kernel.
pub fn emulation_source(module: &CudaModule) -> String {
    let mut text = String::from(EMULATION_HEADER);
    text.push_str("\n#line 1 \"kernels.cu\"\n");
    text.push_str(&module.source);
    text.push_str("\n#line 1 \"tirc_launchers.cpp\"\n");
    for kernel in &module.kernels {
        let args: Vec<String> = kernel
            .params
            .iter()
            .enumerate()
            .map(|(i, param)| match param {
                KernelParam::Buffer { dtype, .. } => format!(
                    "*({}**)args[{i}]",
                    super::writer::c_type(*dtype).unwrap_or("char")
                ),
                KernelParam::Scalar { dtype, .. } => format!(
                    "*({}*)args[{i}]",
                    super::writer::c_type(*dtype).unwrap_or("int")
                ),
            })
            .collect();
        let _ = writeln!(
            text,
            "extern \"C\" __attribute__((visibility(\"default\"))) int tirc_launch_{name}(void** args, const unsigned* dims, char* message, unsigned long length) {{\n  return tirc_emu::launch(dims, message, length, {local}, [&]() {{ {name}({}); }});\n}}",
            args.join(", "),
            name = kernel.name,
            local = kernel.local_bytes,
        );
    }
    text
}

type Launcher = unsafe extern "C" fn(*const *const u8, *const u32, *mut u8, u64) -> i32;

/// Emulated kernels, compiled and loaded.
pub struct EmulatedModule {
    library: libloading::Library,
    directory: PathBuf,
    kernels: Vec<KernelInfo>,
}

static NEXT_BUILD: AtomicU32 = AtomicU32::new(0);

/// The C++ compiler: `$CXX`, else `c++`, `g++` or `clang++` on `PATH`.
fn cxx_compiler() -> Option<String> {
    if let Ok(cxx) = std::env::var("CXX") {
        if !cxx.is_empty() {
            return Some(cxx);
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["c++", "g++", "clang++"]
        .into_iter()
        .find(|name| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
        .map(str::to_string)
}

impl EmulatedModule {
    /// Compiles `module` (written for emulation) with the host's C++
    /// compiler and loads it.
    pub fn compile(module: &CudaModule) -> Result<EmulatedModule, String> {
        let compiler = cxx_compiler().ok_or(
            "`--emulate` compiles the kernels as C++: install a C++ compiler (g++ or clang++), or name one with CXX",
        )?;
        let directory = std::env::temp_dir().join(format!(
            "tirc-emulate-{}-{}",
            std::process::id(),
            NEXT_BUILD.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&directory)
            .map_err(|e| format!("cannot create {}: {e}", directory.display()))?;
        let source = directory.join("emulation.cpp");
        std::fs::write(&source, emulation_source(module))
            .map_err(|e| format!("cannot write {}: {e}", source.display()))?;
        std::fs::write(directory.join("kernels.cu"), &module.source)
            .map_err(|e| format!("cannot write the kernels: {e}"))?;
        let library_path = directory.join("emulation.so");
        let output = std::process::Command::new(&compiler)
            // _longjmp between fiber stacks is what the header does on purpose:
            // glibc's fortified longjmp would call it a stack smash.
            .args([
                "-std=c++17",
                "-O2",
                "-U_FORTIFY_SOURCE",
                "-fPIC",
                // The header's inline globals would otherwise be unique
                // symbols, shared by every emulation loaded in the process.
                "-fvisibility=hidden",
                "-shared",
                "-w",
                "-o",
            ])
            .arg(&library_path)
            .arg(&source)
            .current_dir(&directory)
            .output()
            .map_err(|e| format!("cannot run {compiler}: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "{compiler} did not compile the emulated kernels (kept in {}):\n{}",
                directory.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        // SAFETY: the library was just built from tirc's own source; its
        // initialisers only set up the header's globals.
        let library = unsafe { libloading::Library::new(&library_path) }
            .map_err(|e| format!("cannot load the emulated kernels: {e}"))?;
        Ok(EmulatedModule {
            library,
            directory,
            kernels: module.kernels.clone(),
        })
    }

    /// The compiled kernels.
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// Runs `kernel` on `args` with `dims`: the warnings of the run (a
    /// store every thread repeats), one a line, or the error that stopped it.
    pub fn launch(
        &self,
        kernel: &KernelInfo,
        args: &[LaunchArg],
        dims: LaunchDims,
    ) -> Result<Vec<String>, String> {
        let symbol = format!("tirc_launch_{}\0", kernel.name);
        // SAFETY: every launcher has the `Launcher` signature (see
        // `emulation_source`).
        let launcher = unsafe { self.library.get::<Launcher>(symbol.as_bytes()) }
            .map_err(|e| format!("the emulated module has no `{}`: {e}", kernel.name))?;
        let slots: Vec<u64> = args.iter().map(|arg| argument_slot(*arg)).collect();
        let pointers: Vec<*const u8> = slots.iter().map(|s| s as *const u64 as *const u8).collect();
        let extents = [
            dims.grid[0],
            dims.grid[1],
            dims.grid[2],
            dims.block[0],
            dims.block[1],
            dims.block[2],
        ];
        let mut message = vec![0u8; 4096];
        // SAFETY: `pointers` point at one 8-byte slot per parameter, each
        // holding the value in the parameter's C type (little-endian); the
        // buffers' addresses stay valid for the call.
        let status = unsafe {
            launcher(
                pointers.as_ptr(),
                extents.as_ptr(),
                message.as_mut_ptr(),
                message.len() as u64,
            )
        };
        let end = message
            .iter()
            .position(|b| *b == 0)
            .unwrap_or(message.len());
        let text = String::from_utf8_lossy(&message[..end]);
        match status {
            0 => Ok(Vec::new()),
            2 => Ok(text
                .lines()
                .map(|line| format!("kernel `{}`: {line}", kernel.name))
                .collect()),
            _ => Err(format!("kernel `{}`: {text}", kernel.name)),
        }
    }
}

impl Drop for EmulatedModule {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.directory);
    }
}

/// The 8-byte slot holding `arg` as its C type.
fn argument_slot(arg: LaunchArg) -> u64 {
    use crate::ir::TypeCode;
    match arg {
        LaunchArg::Pointer(address) => address,
        LaunchArg::Int(value, _) => value as u64,
        LaunchArg::Float(value, dtype) => match (dtype.code, dtype.bits) {
            (TypeCode::Float, 64) => value.to_bits(),
            (TypeCode::Float, 16) => u64::from(half::f16::from_f64(value).to_bits()),
            (TypeCode::BFloat, 16) => u64::from(half::bf16::from_f64(value).to_bits()),
            _ => u64::from((value as f32).to_bits()),
        },
    }
}

/// Runs kernels on the CPU; host allocations are zeroed heap blocks.
pub struct EmulationRunner<'m> {
    module: &'m EmulatedModule,
    allocations: Vec<crate::driver::arguments::AlignedBytes>,
    warnings: Vec<String>,
}

impl<'m> EmulationRunner<'m> {
    /// A runner for `module`'s kernels.
    pub fn new(module: &'m EmulatedModule) -> EmulationRunner<'m> {
        EmulationRunner {
            module,
            allocations: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The warnings of the kernels run so far, each once.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl KernelRunner for EmulationRunner<'_> {
    fn allocate(&mut self, bytes: usize) -> Result<u64, String> {
        let storage = crate::driver::arguments::AlignedBytes::copy_of(&vec![0u8; bytes])?;
        let address = storage.address();
        self.allocations.push(storage);
        Ok(address)
    }

    fn launch(
        &mut self,
        kernel: &KernelInfo,
        args: &[LaunchArg],
        dims: LaunchDims,
    ) -> Result<(), String> {
        for warning in self.module.launch(kernel, args, dims)? {
            if !self.warnings.contains(&warning) {
                self.warnings.push(warning);
            }
        }
        Ok(())
    }
}
