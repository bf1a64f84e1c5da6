//! LLVM IR snapshots over `tests/codegen/`: each lowered `.tir` file is
//! generated for a fixed target (x86-64, generic CPU) without optimisation,
//! so the snapshot `<case>.ll` shows exactly what tirc emits (vector
//! accesses, outlined parallel bodies, loop metadata) on any machine.
//! `TIRC_BLESS=1` rewrites the snapshots.

use crate::support::{collect, display_path, tests_root, Failures};
use tirc::check::CheckOptions;
use tirc::codegen::llvm::emit::module_to_llvm_ir;
use tirc::codegen::llvm::{CodegenOptions, TargetSpec};
use tirc::driver::{check, SourceFile};

/// The target every snapshot is generated for.
const SNAPSHOT_TARGET: &str = "llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=x86-64 -opt-level=0";

#[test]
fn codegen() {
    // `codegen/cuda/` holds the CUDA writer's cases (`cuda.rs`).
    let files: Vec<_> = collect(&tests_root().join("codegen"), ".tir")
        .into_iter()
        .filter(|path| !path.components().any(|c| c.as_os_str() == "cuda"))
        .collect();
    let mut failures = Failures::default();
    let target = TargetSpec::parse(SNAPSHOT_TARGET).expect("the snapshot target is valid");
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let checked = match check(
            &SourceFile::new(display_path(path), text),
            &CheckOptions::default(),
        ) {
            Ok(checked) => checked,
            Err(error) => {
                failures.add(path, error.render_plain());
                continue;
            }
        };
        let options = CodegenOptions {
            target: target.clone(),
            symbol_prefix: String::new(),
            packed_wrappers: false,
            runtime_checks: false,
            remarks: Default::default(),
        };
        match module_to_llvm_ir(&checked.program.module, &options) {
            Ok(ir) => failures.expect_file(&path.with_extension("ll"), &ir),
            Err(diagnostics) => failures.add(
                path,
                tirc::diagnostics::render_text(&diagnostics, &checked.sources, false),
            ),
        }
    }
    failures.finish("codegen", files.len());
}
