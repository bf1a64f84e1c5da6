//! The LLVM backend (inkwell, LLVM 14 by default): lowered TIR to LLVM IR,
//! optimised with the O3 pipeline for the target's CPU, then JIT-compiled
//! ([`jit`]) or written as IR, assembly, an object or a shared library
//! ([`emit`]).
//!
//! Inside: [`target`] parses TVM target strings; [`context`] holds the state;
//! `types`, `arith`, `expr`, [`memory`], `intrinsics`, `stmt` and
//! [`parallel`] generate code per IR construct; [`function`] gives every
//! kernel the C ABI of [`crate::codegen::signature`]; [`partition`] splits a
//! module so a shared library compiles on several threads; `raw` reaches
//! the LLVM C API where inkwell does not.
//!
//! Another LLVM version is a cargo feature away (`llvmNN` next to `llvm14`
//! in `compiler/Cargo.toml`): the code sticks to calls that LLVM 14 to 18
//! share, except `raw`'s typed-pointer casts.

mod arith;
pub mod context;
mod cpu_names;
pub mod emit;
mod expr;
pub mod function;
mod intrinsics;
pub mod jit;
pub mod memory;
pub mod optimize;
mod outline;
pub mod parallel;
pub mod partition;
mod raw;
pub mod remarks;
mod stmt;
pub mod target;
mod target_intrinsics;
mod types;

#[cfg(feature = "llvm14")]
pub(crate) use llvm_sys_140 as llvm_sys;

pub use context::{AssertInfo, CodegenError};
pub use emit::EmitKind;
pub use function::GeneratedKernel;
pub use jit::{JitFunction, JitModule};
pub use target::TargetSpec;

use crate::diagnostics::Diagnostic;
use crate::ir::{IRModule, PrimFunc};
use context::Codegen;
use inkwell::context::Context;
use inkwell::module::Module;
use remarks::RemarkCapture;
pub use remarks::{compile_notes, CompileNotes, LlvmRemark, RemarkSink};

/// How to generate a module.
#[derive(Clone, Debug)]
pub struct CodegenOptions {
    /// The target machine.
    pub target: TargetSpec,
    /// Put in front of every exported symbol (`matmul_` makes `matmul_main`).
    pub symbol_prefix: String,
    /// Also emit `__tirc_packed_<symbol>` wrappers (the JIT calls those).
    pub packed_wrappers: bool,
    /// Check buffer accesses and integer divisions at run time
    /// (`transform::instrument_runtime_checks`): a kernel with a bad index
    /// or a zero divisor returns an error instead of corrupting memory or
    /// trapping.
    pub runtime_checks: bool,
    /// Where LLVM's messages go instead of standard error.
    pub remarks: RemarkSink,
}

impl CodegenOptions {
    /// Options for the host with no symbol prefix.
    pub fn host() -> CodegenOptions {
        CodegenOptions {
            target: TargetSpec::host(),
            symbol_prefix: String::new(),
            packed_wrappers: false,
            runtime_checks: false,
            remarks: RemarkSink::default(),
        }
    }
}

/// A generated and verified LLVM module.
pub struct LlvmModule<'ctx> {
    /// The LLVM module.
    pub module: Module<'ctx>,
    /// What each kernel became, in module order.
    pub kernels: Vec<GeneratedKernel>,
    /// The target it is for.
    pub target: TargetSpec,
    /// True once the optimisation pipeline has run over `module`.
    pub optimized: bool,
    /// Where LLVM's messages about this module go, from every context.
    pub remarks: RemarkSink,
    /// Sends the module's context's messages to `remarks`.
    _capture: RemarkCapture<'ctx>,
}

impl LlvmModule<'_> {
    /// Runs the target's optimisation pipeline over the module, once.
    pub fn optimize(&mut self) -> Result<(), CodegenError> {
        if !self.optimized {
            let machine = self
                .target
                .target_machine()
                .map_err(CodegenError::internal)?;
            optimize::optimize_module(&self.module, &machine, self.target.opt_level)?;
        }
        self.optimized = true;
        Ok(())
    }
}

/// The exported symbol of a function: its `global_symbol` (else its name)
/// after `prefix`.
pub fn exported_symbol(func: &PrimFunc, prefix: &str) -> String {
    let base = func
        .attr("global_symbol")
        .and_then(|value| value.as_str())
        .unwrap_or(&func.name);
    crate::codegen::c_header::c_identifier(&format!("{prefix}{base}"))
}

/// Generates every function of `module` into one LLVM module, verifies it
/// and optimises it for the target. Every function that cannot be
/// generated gives a diagnostic.
pub fn generate_module<'ctx>(
    context: &'ctx Context,
    module: &IRModule,
    options: &CodegenOptions,
) -> Result<LlvmModule<'ctx>, Vec<Diagnostic>> {
    let mut generated = generate_unoptimized_module(context, module, options)?;
    generated.optimize().map_err(|error| vec![*error.0])?;
    Ok(generated)
}

/// Like [`generate_module`], leaving the optimisation to the caller: a
/// shared library optimises its parts on threads of their own.
pub fn generate_unoptimized_module<'ctx>(
    context: &'ctx Context,
    module: &IRModule,
    options: &CodegenOptions,
) -> Result<LlvmModule<'ctx>, Vec<Diagnostic>> {
    let capture = options.remarks.capture(context);
    let mut codegen = Codegen::new(context, "tirc", options.target.clone());
    codegen.check_alignment = options.runtime_checks;
    let mut kernels = Vec::new();
    let mut diagnostics = Vec::new();
    for func in &module.functions {
        let symbol = exported_symbol(func, &options.symbol_prefix);
        let checked;
        let func = if options.runtime_checks {
            checked = crate::transform::instrument_runtime_checks::instrument_runtime_checks(func);
            &checked
        } else {
            func
        };
        match codegen.emit_kernel(func, &symbol, options.packed_wrappers) {
            Ok(kernel) => kernels.push(kernel),
            Err(error) => diagnostics.push(*error.0),
        }
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let llvm_module = codegen.module;
    if let Err(message) = llvm_module.verify() {
        return Err(vec![
            *CodegenError::internal(format!(
                "LLVM rejected the generated module: {}",
                message.to_string_lossy()
            ))
            .0,
        ]);
    }
    let machine = options
        .target
        .target_machine()
        .map_err(|message| vec![*CodegenError::internal(message).0])?;
    llvm_module.set_data_layout(&machine.get_target_data().get_data_layout());
    Ok(LlvmModule {
        module: llvm_module,
        kernels,
        target: options.target.clone(),
        optimized: false,
        remarks: options.remarks.clone(),
        _capture: capture,
    })
}
