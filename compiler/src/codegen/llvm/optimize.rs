//! The optimisation pipeline: LLVM's `default<O3>` (or the target's level)
//! through the new pass manager, with the target machine's cost model so the
//! loop and SLP vectorizers know the vector width.

use super::context::{CodegenError, CodegenResult};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;

/// Optimises `module` in place at `opt_level` (1 to 3); level 0 leaves it
/// as generated.
pub fn optimize_module(
    module: &Module<'_>,
    machine: &TargetMachine,
    opt_level: u8,
) -> CodegenResult<()> {
    if opt_level == 0 {
        return Ok(());
    }
    let options = PassBuilderOptions::create();
    let vectorize = opt_level >= 2;
    options.set_loop_vectorization(vectorize);
    options.set_loop_slp_vectorization(vectorize);
    options.set_loop_interleaving(vectorize);
    options.set_loop_unrolling(true);
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

#[cfg(test)]
mod tests {
    use crate::codegen::llvm::emit::module_to_llvm_ir;
    use crate::codegen::llvm::{CodegenOptions, TargetSpec};
    use crate::source::SourceMap;

    /// A 16-lane vector loop of 128 iterations on Zen 3, whose loop buffer
    /// let LLVM 14 copy the body 64 times: the threshold keeps it to 16.
    #[test]
    fn partial_unrolling_is_capped() {
        let text = r#"
@T.prim_func
def main(A: T.Buffer((2048,), "float32"), B: T.Buffer((2048,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(128):
        B[i * 16:i * 16 + 16] = A[T.Ramp(i * 16, 1, 16)] + T.Broadcast(T.float32(0.5), 16)
"#;
        let mut sources = SourceMap::default();
        let (program, diagnostics) = crate::frontend::parse_program(&mut sources, "test.tir", text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let module = program.expect("the program parses").module;
        let options = CodegenOptions {
            target: TargetSpec::parse("llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=znver3")
                .expect("a valid target"),
            symbol_prefix: String::new(),
            packed_wrappers: false,
            runtime_checks: false,
            remarks: Default::default(),
        };
        let ir = module_to_llvm_ir(&module, &options).expect("the module compiles");
        let copies = ir.matches("load <16 x float>").count();
        assert!((1..=16).contains(&copies), "{copies} copies:\n{ir}");
    }
}
