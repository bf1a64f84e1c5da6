//! JIT compilation: a generated module compiled in memory by MCJIT, with the
//! runtime's thread pool and float16 helpers mapped in, and a handle per
//! kernel that calls it through its packed wrapper.
//!
//! MCJIT's own target machine is generic; the functions carry the target's
//! `target-cpu` and `target-features` attributes, so the code still uses
//! every feature of the CPU.

use super::function::{packed_symbol, GeneratedKernel};
use super::memory::{WORKSPACE_ALLOCATE_SYMBOL, WORKSPACE_FREE_SYMBOL};
use super::parallel::PARALLEL_LAUNCH_SYMBOL;
use super::{generate_module, CodegenError, CodegenOptions};
use crate::diagnostics::Diagnostic;
use crate::ir::IRModule;
use crate::runtime::{float16_helpers, thread_pool, workspace};
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::OptimizationLevel;

/// The packed entry point: one 64-bit slot per argument, returns 0 or the
/// number of the failed assert.
pub type PackedFunction = unsafe extern "C" fn(*const u64) -> i32;

/// A JIT-compiled module. Its kernels stay callable while it lives.
pub struct JitModule {
    // Declared (so dropped) before the context the engine's module lives in.
    engine: ExecutionEngine<'static>,
    kernels: Vec<(GeneratedKernel, PackedFunction)>,
    /// The IR after optimisation, for `--emit`-like inspection.
    llvm_ir: String,
    _context: Box<Context>,
}

/// One compiled kernel of a [`JitModule`].
#[derive(Clone, Copy)]
pub struct JitFunction<'m> {
    /// What the kernel is: its ABI and asserts.
    pub kernel: &'m GeneratedKernel,
    entry: PackedFunction,
}

impl JitModule {
    /// Generates, optimises and JIT-compiles every function of `module`.
    pub fn compile(
        module: &IRModule,
        options: &CodegenOptions,
    ) -> Result<JitModule, Vec<Diagnostic>> {
        if !options.target.runs_on_host() {
            return Err(vec![*CodegenError::unsupported(
                format!("code for `{}` cannot run on this machine; use `tirc build` for other targets", options.target.triple),
                crate::source::Span::NONE,
            )
            .0]);
        }
        let context = Box::new(Context::create());
        // SAFETY: the context is boxed (its address never changes) and is
        // dropped after the engine, which is declared first in `JitModule`.
        let context_ref: &'static Context = unsafe { &*(context.as_ref() as *const Context) };
        let options = CodegenOptions {
            packed_wrappers: true,
            ..options.clone()
        };
        let generated = generate_module(context_ref, module, &options)?;
        let llvm_ir = generated.to_llvm_ir();
        let internal = |message: String| vec![*CodegenError::internal(message).0];
        // The float16 conversion routines LLVM may call are declared (under
        // any type: only the name matters to the mapping) before the engine
        // takes the module.
        let helpers: Vec<_> = float16_helpers::symbols()
            .into_iter()
            .map(|(symbol, address)| {
                let function = generated.module.get_function(symbol).unwrap_or_else(|| {
                    generated.module.add_function(
                        symbol,
                        context_ref.void_type().fn_type(&[], false),
                        None,
                    )
                });
                (function, address)
            })
            .collect();
        if llvm_ir.contains("@llvm.x86.ldtilecfg") {
            request_amx_tile_state().map_err(internal)?;
        }
        let engine = generated
            .module
            .create_jit_execution_engine(OptimizationLevel::Aggressive)
            .map_err(|e| {
                internal(format!(
                    "LLVM could not start its JIT: {}",
                    e.to_string_lossy()
                ))
            })?;
        if let Some(launch) = generated.module.get_function(PARALLEL_LAUNCH_SYMBOL) {
            engine.add_global_mapping(
                &launch,
                thread_pool::tirc_parallel_launch as *const () as usize,
            );
        }
        if let Some(allocate) = generated.module.get_function(WORKSPACE_ALLOCATE_SYMBOL) {
            engine.add_global_mapping(
                &allocate,
                workspace::tirc_workspace_allocate as *const () as usize,
            );
        }
        if let Some(free) = generated.module.get_function(WORKSPACE_FREE_SYMBOL) {
            engine.add_global_mapping(&free, workspace::tirc_workspace_free as *const () as usize);
        }
        let mut mapped: Vec<String> = Vec::new();
        for (function, address) in helpers {
            engine.add_global_mapping(&function, address);
            mapped.push(function.get_name().to_string_lossy().into_owned());
        }
        // An external function the process does not have would be called
        // through a null pointer: refuse it here instead.
        for function in generated.module.get_functions() {
            let name = function.get_name().to_string_lossy().into_owned();
            let builtin = name.starts_with("llvm.")
                || mapped.contains(&name)
                || [
                    PARALLEL_LAUNCH_SYMBOL,
                    WORKSPACE_ALLOCATE_SYMBOL,
                    WORKSPACE_FREE_SYMBOL,
                ]
                .contains(&name.as_str());
            if function.count_basic_blocks() == 0 && !builtin && !process_has_symbol(&name) {
                return Err(vec![*CodegenError::unsupported(
                    format!(
                        "the program calls `{name}`, which this process does not define, so the JIT cannot run it (`tirc build --emit obj` leaves it to your linker)"
                    ),
                    crate::source::Span::NONE,
                )
                .0]);
            }
        }
        let mut kernels = Vec::new();
        for kernel in generated.kernels {
            let address = engine
                .get_function_address(&packed_symbol(&kernel.signature.symbol))
                .map_err(|e| {
                    internal(format!("the JIT lost `{}`: {e}", kernel.signature.symbol))
                })?;
            // SAFETY: the wrapper was generated with exactly this signature.
            let entry: PackedFunction =
                unsafe { std::mem::transmute::<usize, PackedFunction>(address) };
            kernels.push((kernel, entry));
        }
        Ok(JitModule {
            engine,
            kernels,
            llvm_ir,
            _context: context,
        })
    }

    /// The kernel generated from the function named `name`.
    pub fn function(&self, name: &str) -> Option<JitFunction<'_>> {
        self.kernels
            .iter()
            .find(|(kernel, _)| kernel.signature.function == name)
            .map(|(kernel, entry)| JitFunction {
                kernel,
                entry: *entry,
            })
    }

    /// The optimised LLVM IR that was compiled.
    pub fn llvm_ir(&self) -> &str {
        &self.llvm_ir
    }

    /// The execution engine (kept alive with the module).
    pub fn engine(&self) -> &ExecutionEngine<'static> {
        &self.engine
    }
}

impl JitFunction<'_> {
    /// Calls the kernel with one 64-bit slot per argument of its signature.
    ///
    /// # Safety
    /// Every pointer slot must point to live, suitably aligned storage large
    /// enough for every access the kernel makes with the given shapes.
    pub unsafe fn call_packed(&self, slots: &[u64]) -> Result<i32, String> {
        let expected = self.kernel.signature.arguments.len();
        if slots.len() != expected {
            return Err(format!(
                "`{}` takes {expected} arguments, {} were given",
                self.kernel.signature.function,
                slots.len()
            ));
        }
        // SAFETY: the caller guarantees the arguments; the entry point is
        // the packed wrapper of this kernel.
        Ok(unsafe { (self.entry)(slots.as_ptr()) })
    }
}

/// True when `name` is a symbol of this process or a library it loaded
/// (libc and libm for the math functions a kernel calls).
fn process_has_symbol(name: &str) -> bool {
    use super::llvm_sys::support::{LLVMLoadLibraryPermanently, LLVMSearchForAddressOfSymbol};
    static LOAD_PROCESS: std::sync::Once = std::sync::Once::new();
    // SAFETY: a null file name makes LLVM search the process's own symbols.
    LOAD_PROCESS.call_once(|| unsafe {
        LLVMLoadLibraryPermanently(std::ptr::null());
    });
    let Ok(name) = std::ffi::CString::new(name) else {
        return false;
    };
    // SAFETY: `name` is a valid C string for the duration of the call.
    !unsafe { LLVMSearchForAddressOfSymbol(name.as_ptr()) }.is_null()
}

/// Linux gives the AMX tile registers only to a process that asks for them
/// (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`); without that the
/// first tile instruction kills the process with SIGILL. Asking again is
/// harmless.
fn request_amx_tile_state() -> Result<(), String> {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
        const XFEATURE_XTILEDATA: libc::c_long = 18;
        // SAFETY: arch_prctl with these arguments only changes which
        // register state the kernel saves for this process.
        let status = unsafe {
            libc::syscall(
                libc::SYS_arch_prctl,
                ARCH_REQ_XCOMP_PERM,
                XFEATURE_XTILEDATA,
            )
        };
        if status != 0 {
            return Err(format!(
                "Linux refused this process the AMX tile registers (arch_prctl: {})",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}
