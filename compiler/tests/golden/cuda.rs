//! The CUDA backend over `tests/codegen/cuda/`, every example with GPU
//! thread bindings and every `stdlib/ops` operator's `schedule_cuda*`. For
//! each program (after its schedule):
//!
//! - the module lowered for CUDA (host function and kernels) prints and
//!   reads back unchanged, and verifies;
//! - the CUDA C matches the snapshot `<case>.cu` (cases only);
//! - the kernels run under `--emulate` (race detector on) and every output
//!   matches the interpreter's (or, for large examples, the unscheduled
//!   program's);
//! - NVRTC compiles them to PTX and `ptxas` assembles it for sm_80 and
//!   sm_90, so register or shared-memory overflows fail here. Without NVRTC
//!   or ptxas this part prints `skipped` unless `TIRC_REQUIRE_CUDA_TOOLS=1`
//!   (CI sets it);
//! - on a machine with a GPU the kernels also run there; elsewhere
//!   `skipped: no CUDA device`.
//!
//! `TIRC_BLESS=1` rewrites the snapshots. `tests/codegen/cuda/dlight/` holds
//! TVM 0.27's DLight default schedules (`tools/tvm/gen_dlight_cases.py`),
//! each beside TVM's own CUDA C (`NAME.tvm.cu`, for
//! `tools/tvm/differential_barriers.py`).

use crate::support::{collect, display_path, tests_root, Failures};
use tirc::codegen::cuda::nvrtc;
use tirc::codegen::target::CudaTarget;
use tirc::driver::run::{run, CheckReference, RunRequest};
use tirc::driver::{lower_file_for, toolchain, ScheduleChoice, SourceFile, Target};
use tirc::printer::Dialect;

fn require_tools() -> bool {
    std::env::var_os("TIRC_REQUIRE_CUDA_TOOLS").is_some_and(|v| v != "0")
}

/// The examples whose schedules bind GPU threads, with each schedule name,
/// and the `schedule_cuda*` schedules of every `stdlib/ops` operator.
fn gpu_examples() -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
    for path in collect(&tests_root().join("../stdlib/ops"), ".tir") {
        let text = std::fs::read_to_string(&path).expect("readable operator");
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("def schedule_cuda") else {
                continue;
            };
            let suffix = rest.split('(').next().unwrap_or_default();
            found.push((path.clone(), format!("schedule_cuda{suffix}")));
        }
    }
    for path in collect(&tests_root().join("../examples"), ".tir") {
        let text = std::fs::read_to_string(&path).expect("readable example");
        if !text.contains("blockIdx") && !text.contains("threadIdx") {
            continue;
        }
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("def ") else {
                continue;
            };
            let name = rest
                .split('(')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            if line.contains("sch") && !name.is_empty() {
                found.push((path.clone(), name));
            }
        }
    }
    found
}

/// The cases of `tests/codegen/cuda/` (TVM's DLight schedules in `dlight/`
/// among them), every GPU example and every operator's CUDA schedules, in
/// turn. (Two emulations at once once gave a wrong result and later crashed
/// CI: they shared the header's state, now hidden in each library; see
/// `emulations_running_at_once_in_one_process_keep_their_own_state`.)
#[test]
fn cuda() {
    let cases: Vec<(std::path::PathBuf, Option<String>)> =
        collect(&tests_root().join("codegen/cuda"), ".tir")
            .into_iter()
            .map(|path| (path, None))
            .chain(
                gpu_examples()
                    .into_iter()
                    .map(|(path, schedule)| (path, Some(schedule))),
            )
            .collect();
    let dlight = cases
        .iter()
        .filter(|(path, _)| path.starts_with(tests_root().join("codegen/cuda/dlight")))
        .count();
    assert!(dlight >= 30, "the DLight cases are missing: {dlight} found");
    check_cuda_cases("cuda", &cases);
}

/// Lowers, snapshots, emulates, compiles and (on a GPU) runs each case.
fn check_cuda_cases(name: &str, cases: &[(std::path::PathBuf, Option<String>)]) {
    let mut failures = Failures::default();
    let target = Target::Cuda(CudaTarget::default());
    let nvrtc_found = toolchain::probe_nvrtc().found;
    let ptxas_found = toolchain::probe_ptxas().found;
    let gpu_found = toolchain::probe_cuda_device().found;
    if require_tools() && !(nvrtc_found && ptxas_found) {
        panic!(
            "TIRC_REQUIRE_CUDA_TOOLS is set but NVRTC or ptxas is missing: {:?}",
            toolchain::probe().parts
        );
    }
    for (path, schedule) in cases {
        let label = match schedule {
            Some(name) => format!("{} ({name})", display_path(path)),
            None => display_path(path),
        };
        let text = std::fs::read_to_string(path).expect("readable test file");
        let source = SourceFile::new(display_path(path), text);
        let choice = match schedule {
            Some(name) => ScheduleChoice::Named(name.clone()),
            None => ScheduleChoice::Default,
        };
        let lowered = match lower_file_for(&source, &choice, &target) {
            Ok(lowered) => lowered,
            Err(error) => {
                failures.add(path, format!("{label}: {}", error.render_plain()));
                continue;
            }
        };
        if let Err(problem) =
            tirc::schedule::step_check::check_module(&lowered.module, Dialect::Classic, &[])
        {
            failures.add(path, format!("{label}: the CUDA-lowered module: {problem}"));
        }
        let module = match tirc::driver::cuda::cuda_source(&lowered, false) {
            Ok(module) => module,
            Err(error) => {
                failures.add(path, format!("{label}: {}", error.render_plain()));
                continue;
            }
        };
        if schedule.is_none() {
            failures.expect_file(&path.with_extension("cu"), &module.source);
        }
        let mut request = RunRequest {
            entry: None,
            target: target.clone(),
            args_dir: None,
            save_outputs: None,
            seed: 7,
            shape_values: vec![("n".to_string(), 1000)],
            check: Some(CheckReference::Auto),
            expected_dir: None,
            bench: None,
            threads: None,
            runtime_checks: false,
            emulate: true,
        };
        match run(&lowered, &request) {
            Ok(report) if report.ok && !report.checks.is_empty() => {}
            Ok(report) => failures.add(
                path,
                format!(
                    "{label}: the emulated run does not match: {:?}",
                    report.checks
                ),
            ),
            Err(error) => failures.add(
                path,
                format!("{label}: emulated run: {}", error.render_plain()),
            ),
        }
        if nvrtc_found {
            for arch in ["sm_80", "sm_90"] {
                let ptx = match nvrtc::compile_ptx(&module.source, arch) {
                    Ok(ptx) => ptx,
                    Err(error) => {
                        failures.add(path, format!("{label}: NVRTC ({arch}): {}", error.message));
                        continue;
                    }
                };
                if ptxas_found {
                    if let Err(error) = nvrtc::assemble(&ptx, arch) {
                        failures.add(path, format!("{label}: ptxas ({arch}): {}", error.message));
                    }
                }
            }
        } else {
            eprintln!("{label}: NVRTC and ptxas skipped: NVRTC not found");
        }
        if gpu_found {
            request.emulate = false;
            match run(&lowered, &request) {
                Ok(report) if report.ok => {}
                Ok(report) => failures.add(
                    path,
                    format!("{label}: the GPU run does not match: {:?}", report.checks),
                ),
                Err(error) => {
                    failures.add(path, format!("{label}: GPU run: {}", error.render_plain()))
                }
            }
        } else {
            eprintln!("{label}: GPU run skipped: no CUDA device");
        }
    }
    failures.finish(name, cases.len());
}

/// Removes the barriers `thread-sync` inserted: the `only`-th met, or all.
struct RemoveBarriers {
    only: Option<usize>,
    seen: usize,
}

impl tirc::ir::mutate::Mutator for RemoveBarriers {
    fn mutate_stmt(&mut self, stmt: &tirc::ir::Stmt) -> tirc::ir::Stmt {
        if tirc::transform::thread_sync::is_barrier(stmt) {
            self.seen += 1;
            if self.only.is_none_or(|only| only + 1 == self.seen) {
                return tirc::ir::Stmt::no_op();
            }
            return stmt.clone();
        }
        tirc::ir::mutate::mutate_stmt_children(self, stmt)
    }
}

fn without_barriers(only: Option<usize>) -> impl Fn(&mut tirc::ir::IRModule) {
    move |module| {
        for func in &mut module.functions {
            let mut remover = RemoveBarriers { only, seen: 0 };
            func.body = tirc::ir::mutate::Mutator::mutate_stmt(&mut remover, &func.body);
        }
    }
}

fn emulated_error(name: &str, text: &str, edit: impl Fn(&mut tirc::ir::IRModule)) -> String {
    let source = SourceFile::new(name, text);
    let target = Target::Cuda(CudaTarget::default());
    let mut lowered =
        lower_file_for(&source, &ScheduleChoice::Default, &target).expect("the case lowers");
    edit(&mut lowered.module);
    let request = RunRequest {
        entry: None,
        target,
        args_dir: None,
        save_outputs: None,
        seed: 7,
        shape_values: Vec::new(),
        check: None,
        expected_dir: None,
        bench: None,
        threads: None,
        runtime_checks: false,
        emulate: true,
    };
    match run(&lowered, &request) {
        Ok(_) => String::new(),
        Err(error) => error.render_plain(),
    }
}

#[test]
fn the_race_detector_sees_a_missing_barrier() {
    let path = tests_root().join("codegen/cuda/shared_tiles.tir");
    let text = std::fs::read_to_string(&path).expect("readable test file");
    assert_eq!(emulated_error("shared_tiles.tir", &text, |_| {}), "");
    // The barrier after the fetch: the first thread reaches the multiply
    // before the thread that fetches its element ran.
    let error = emulated_error("shared_tiles.tir", &text, without_barriers(Some(1)));
    assert!(
        error.contains("__syncthreads() missing before the read"),
        "{error}"
    );
    // The barrier at the start of the step: a thread runs ahead into the
    // next step's fetch and overwrites what another thread has yet to read.
    let error = emulated_error("shared_tiles.tir", &text, without_barriers(Some(0)));
    assert!(error.contains("data race on shared memory"), "{error}");
    let error = emulated_error("shared_tiles.tir", &text, without_barriers(None));
    // Without barriers the first thread runs ahead: it reads an element
    // before the thread that writes it ran, which the detector reports.
    assert!(
        error.contains("data race on shared memory") || error.contains("__syncthreads() missing"),
        "{error}"
    );
    assert!(
        error.contains("_shared["),
        "the race names the buffer and element: {error}"
    );
    assert!(
        error.contains("thread ("),
        "the race names the threads: {error}"
    );
}

/// The tutorials' copy that every thread repeats runs and checks out, with
/// one W0620 warning naming the shared buffer; the kernel written once per
/// thread but storing each thread's own value into one element is a race.
#[test]
fn a_copy_every_thread_repeats_is_a_warning_not_a_race() {
    let path = tests_root().join("codegen/cuda/repeated_copy.tir");
    let text = std::fs::read_to_string(&path).expect("readable test file");
    let source = SourceFile::new("repeated_copy.tir", text);
    let target = Target::Cuda(CudaTarget::default());
    let lowered =
        lower_file_for(&source, &ScheduleChoice::Default, &target).expect("the case lowers");
    let request = RunRequest {
        entry: None,
        target,
        args_dir: None,
        save_outputs: None,
        seed: 7,
        shape_values: Vec::new(),
        check: Some(CheckReference::Interp),
        expected_dir: None,
        bench: None,
        threads: None,
        runtime_checks: false,
        emulate: true,
    };
    let report = run(&lowered, &request).unwrap_or_else(|error| panic!("{}", error.render_plain()));
    assert!(report.ok, "{:?}", report.checks);
    let warnings: Vec<&tirc::diagnostics::Diagnostic> =
        report.notes.iter().filter(|d| d.code == "W0620").collect();
    assert_eq!(warnings.len(), 1, "{:?}", report.notes);
    assert!(
        warnings[0].message.contains("`A_shared`"),
        "{}",
        warnings[0].message
    );

    let racing = r#"# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((1,), "float32")):
        for bx in T.thread_binding(1, thread="blockIdx.x"):
            for tx in T.thread_binding(64, thread="threadIdx.x"):
                B[0] = A[tx]
"#;
    let error = emulated_error("racing.tir", racing, |_| {});
    assert!(error.contains("data race on global memory"), "{error}");
    assert!(error.contains("writes B[0]"), "{error}");
}

#[test]
fn a_barrier_some_threads_skip_is_reported_as_divergence() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                if tx < 16:
                    T.tvm_storage_sync("shared")
                A[bx * 32 + tx] = T.float32(1.0)
"#;
    let error = emulated_error("divergent.tir", text, |_| {});
    assert!(error.contains("barrier divergence"), "{error}");
    assert!(error.contains("returned without reaching it"), "{error}");
}

/// Every case's scheduled module, before lowering (tensorized blocks
/// included: wmma tiles, `ldmatrix`/`mma.sync` lane by lane), computes in
/// the interpreter what the program computes. The emulation runs the
/// lowered kernels; this runs the builtins' interpreter models.
#[test]
fn scheduled_cases_run_in_the_interpreter() {
    use tirc::schedule::check_each::{run_interpreted, same_results, NotRun};
    let mut failures = Failures::default();
    let mut compared = 0;
    let mut skipped = Vec::new();
    for path in collect(&tests_root().join("codegen/cuda"), ".tir") {
        let text = std::fs::read_to_string(&path).expect("readable test file");
        let mut sources = tirc::source::SourceMap::new();
        let (program, diagnostics) =
            tirc::frontend::parse_program(&mut sources, &display_path(&path), &text);
        let Some(program) = program.filter(|_| !diagnostics.iter().any(|d| d.is_error())) else {
            failures.add(&path, "does not parse");
            continue;
        };
        let run = tirc::schedule::apply_schedule(&program, None);
        if run.schedule.is_none() {
            continue;
        }
        if !run.succeeded() {
            failures.add(&path, "its schedule is refused");
            continue;
        }
        let parameter_shapes = |module: &tirc::ir::IRModule| -> Vec<Vec<String>> {
            module
                .functions
                .iter()
                .flat_map(|f| {
                    f.buffer_map
                        .iter()
                        .map(|(_, b)| b.shape().iter().map(|e| e.to_string()).collect())
                })
                .collect()
        };
        if parameter_shapes(&run.initial) != parameter_shapes(run.module()) {
            skipped.push(format!(
                "{}: the schedule changes a parameter's layout",
                display_path(&path)
            ));
            continue;
        }
        let outputs = run_interpreted(&run.initial, 1 << 20)
            .and_then(|expected| Ok((expected, run_interpreted(run.module(), 1 << 20)?)));
        match outputs {
            Ok((expected, found)) => match same_results(&expected, &found) {
                Ok(()) => compared += 1,
                Err(problem) => failures.add(&path, format!("the scheduled module: {problem}")),
            },
            Err(NotRun::Skipped(why)) => skipped.push(format!("{}: {why}", display_path(&path))),
            Err(NotRun::Failed(why)) => failures.add(&path, why),
        }
    }
    eprintln!("{compared} scheduled CUDA cases agree with their programs in the interpreter; skipped: {skipped:#?}");
    failures.finish("scheduled CUDA cases in the interpreter", compared);
}
