//! The CUDA backend over `tests/codegen/cuda/` and every example with GPU
//! thread bindings. For each program (after its schedule):
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
//! `TIRC_BLESS=1` rewrites the snapshots.

use crate::support::{collect, display_path, tests_root, Failures};
use tirc::codegen::cuda::nvrtc;
use tirc::codegen::target::CudaTarget;
use tirc::driver::run::{run, CheckReference, RunRequest};
use tirc::driver::{lower_file_for, toolchain, ScheduleChoice, SourceFile, Target};
use tirc::printer::Dialect;

fn require_tools() -> bool {
    std::env::var_os("TIRC_REQUIRE_CUDA_TOOLS").is_some_and(|v| v != "0")
}

/// The examples whose schedules bind GPU threads, with each schedule name.
fn gpu_examples() -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
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
    for (path, schedule) in &cases {
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
    failures.finish("cuda", cases.len());
}
