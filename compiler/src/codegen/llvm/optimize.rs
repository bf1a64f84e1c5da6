//! The optimisation pipeline: LLVM's `default<O3>` (or the target's level)
//! through the new pass manager, with the target machine's cost model so the
//! loop and SLP vectorizers know the vector width.

use super::context::{CodegenError, CodegenResult};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;

/// Optimises `module` in place at `opt_level` (0 to 3).
pub fn optimize_module(
    module: &Module<'_>,
    machine: &TargetMachine,
    opt_level: u8,
) -> CodegenResult<()> {
    let options = PassBuilderOptions::create();
    let vectorize = opt_level >= 2;
    options.set_loop_vectorization(vectorize);
    options.set_loop_slp_vectorization(vectorize);
    options.set_loop_interleaving(vectorize);
    options.set_loop_unrolling(opt_level >= 1);
    let pipeline = format!("default<O{}>", opt_level.min(3));
    module
        .run_passes(&pipeline, machine, options)
        .map_err(|error| {
            CodegenError::internal(format!(
                "the optimisation pipeline failed: {}",
                error.to_string_lossy()
            ))
        })
}
