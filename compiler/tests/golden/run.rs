//! Numeric run tests over `tests/run/`: every `.tir` file is scheduled (when
//! it has a schedule section), lowered, JIT-compiled and run on seeded
//! random inputs (or the arrays in `<case>.inputs/`), and every output is
//! compared with the interpreter's on the same inputs, and with Apache TVM
//! 0.27's outputs in `<case>.tvm/<param>.npy` where those exist
//! (`tools/tvm/gen_run_cases.py` wrote them). Tolerances are the
//! interpreter's per dtype.

use crate::support::{collect, display_path, tests_root, Failures};
use std::path::{Path, PathBuf};
use tirc::codegen::llvm::{CodegenOptions, JitModule};
use tirc::driver::execute::{
    check_against_interpreter, output_positions, prepare_inputs, InputSource, PreparedRun,
};
use tirc::driver::npy::read_npy;
use tirc::driver::{lower_file, ScheduleChoice, SourceFile};
use tirc::interp::{Arg, Tolerance};

/// What one case checked, for the summary.
struct CaseOutcome {
    compared_with_tvm: usize,
}

fn run_case(path: &Path) -> Result<CaseOutcome, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let source = SourceFile::new(display_path(path), text);
    let program = lower_file(&source, &ScheduleChoice::Default).map_err(|e| e.render_plain())?;
    let entry = program.entry(Some("main")).map_err(|e| e.render_plain())?;
    let (original, func, lowered) = (entry.original, entry.lowered, &program.module);
    let render = |d: Vec<tirc::diagnostics::Diagnostic>| {
        tirc::diagnostics::render_text(&d, program.sources(), false)
    };
    // With run-time checks: every case also shows that they accept correct programs.
    let options = CodegenOptions {
        runtime_checks: true,
        ..CodegenOptions::host()
    };
    let jit = JitModule::compile(lowered, &options).map_err(render)?;
    let function = jit.function("main").ok_or("the JIT lost `main`")?;

    let stem = path.with_extension("");
    let inputs_dir = PathBuf::from(format!("{}.inputs", stem.display()));
    let source = InputSource {
        args_dir: inputs_dir.is_dir().then_some(inputs_dir.as_path()),
        ..InputSource::default()
    };
    let inputs = prepare_inputs(
        func,
        &tirc::driver::execute::output_positions(func),
        &source,
    )?;
    let kernel = PreparedRun::new(function, func, &inputs).map_err(|e| e.to_string())?;
    kernel.run().map_err(|e| e.to_string())?;
    let results = kernel.results(&inputs).map_err(|e| e.to_string())?;
    let outputs = output_positions(func);
    if outputs.is_empty() {
        return Err("the function writes no parameter".to_string());
    }

    let mut problems = Vec::new();
    for check in check_against_interpreter(original, &inputs, &results, &outputs)? {
        if let Some(mismatch) = check.mismatch {
            problems.push(format!(
                "`{}` differs from the interpreter: {mismatch}",
                check.name
            ));
        }
    }
    let tvm_dir = PathBuf::from(format!("{}.tvm", stem.display()));
    let mut compared_with_tvm = 0;
    if tvm_dir.is_dir() {
        for &position in &outputs {
            let param = &func.params[position];
            let expected_path = tvm_dir.join(format!("{}.npy", param.name()));
            let Some(Arg::Tensor(actual)) = results.get(position) else {
                continue;
            };
            if !expected_path.exists() {
                continue;
            }
            let expected = read_npy(&expected_path, actual.dtype())?;
            compared_with_tvm += 1;
            if let Err(error) = actual.check_close(&expected, Tolerance::for_dtype(actual.dtype()))
            {
                problems.push(format!(
                    "`{}` differs from TVM 0.27's output: {error}",
                    param.name()
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(CaseOutcome { compared_with_tvm })
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn run() {
    let files = collect(&tests_root().join("run"), ".tir");
    // Two workers: the interpreter dominates and the machines have two cores.
    let (first_half, second_half) = files.split_at(files.len() / 2);
    let outcomes: Vec<(PathBuf, Result<CaseOutcome, String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = [first_half, second_half]
            .into_iter()
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|path| (path.clone(), run_case(path)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    let mut failures = Failures::default();
    let mut with_tvm = 0;
    for (path, outcome) in &outcomes {
        match outcome {
            Ok(outcome) => with_tvm += usize::from(outcome.compared_with_tvm > 0),
            Err(message) => failures.add(path, message.clone()),
        }
    }
    eprintln!(
        "run: {with_tvm} of {} kernels also matched TVM 0.27's outputs",
        files.len()
    );
    failures.finish("run", files.len());
}
