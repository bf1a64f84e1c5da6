//! `tirc ... --target cuda` as a user runs it on a machine without a GPU:
//! the CUDA C written, the run refused with a message naming `--emulate`,
//! and the emulated run checked against the interpreter.
#![cfg(feature = "cuda")]

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirc"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("tirc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// True when `tirc doctor` finds the named part (`CUDA device`, `NVRTC`).
fn has_part(name: &str) -> bool {
    let doctor = run(&["doctor", "--json"]);
    let report: serde_json::Value =
        serde_json::from_slice(&doctor.stdout).expect("doctor prints JSON");
    report["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|part| part["name"] == name && part["found"] == true)
}

fn has_gpu() -> bool {
    has_part("CUDA device")
}

/// NVRTC and ptxas are here, or CI requires them (`TIRC_REQUIRE_CUDA_TOOLS`).
fn compiles_cubins() -> bool {
    let required = std::env::var_os("TIRC_REQUIRE_CUDA_TOOLS").is_some_and(|v| v != "0");
    required || (has_part("NVRTC") && has_part("ptxas"))
}

#[test]
fn cuda_c_keeps_the_programs_names() {
    let out = std::env::temp_dir().join(format!("tirc-cli-cuda-{}.cu", std::process::id()));
    let output = run(&[
        "build",
        "examples/vector_add_gpu.tir",
        "--target",
        "cuda",
        "--emit",
        "cu",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let cuda = std::fs::read_to_string(&out).expect("the CUDA C was written");
    let _ = std::fs::remove_file(&out);
    assert!(cuda.contains("extern \"C\" __global__ void __launch_bounds__(2) main_kernel(float* __restrict__ A, float* __restrict__ B)"), "{cuda}");
    assert!(cuda.contains("int i_0 = ((int)blockIdx.x);"), "{cuda}");
    assert!(cuda.contains("for (int i_1 = 0; i_1 < 2; ++i_1)"), "{cuda}");
}

#[test]
fn dash_writes_the_cuda_c_to_standard_output_and_refuses_a_binary() {
    let base = [
        "build",
        "examples/vector_add_gpu.tir",
        "--target",
        "cuda",
        "-o",
        "-",
    ];
    let output = run(&[&base[..], &["--emit", "cu"]].concat());
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("__global__ void"),
        "{}",
        text(&output.stdout)
    );
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("../-").exists());
    let output = run(&[&base[..], &["--emit", "cubin"]].concat());
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("`--emit cubin` is binary"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn without_a_gpu_the_run_names_emulate_and_emulate_checks() {
    if !has_gpu() {
        let output = run(&["run", "examples/vector_add_gpu.tir", "--target", "cuda"]);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
        assert!(
            text(&output.stderr).contains("--emulate"),
            "{}",
            text(&output.stderr)
        );
    }
    let output = run(&[
        "run",
        "examples/vector_add_gpu.tir",
        "--target",
        "cuda",
        "--emulate",
        "--check",
        "--json",
    ]);
    assert!(
        output.status.success(),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(text(&output.stdout).trim()).expect("one JSON object");
    assert_eq!(report["ok"], true);
    assert_eq!(report["checks"][0]["name"], "B");
}

#[test]
fn emulate_needs_the_cuda_target() {
    let output = run(&["run", "examples/vector_add_gpu.tir", "--emulate"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("needs `--target cuda`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn lower_for_cuda_shows_the_host_and_its_kernels() {
    let output = run(&[
        "lower",
        "examples/matmul_gpu.tir",
        "--schedule",
        "schedule_shared",
        "--target",
        "cuda",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = text(&output.stdout);
    assert!(
        printed.contains("T.call_packed(\"main_kernel\""),
        "{printed}"
    );
    assert!(printed.contains("def main_kernel("), "{printed}");
    assert_eq!(
        printed.matches("T.tvm_storage_sync(\"shared\")").count(),
        2,
        "{printed}"
    );
}

#[test]
fn a_program_not_bound_to_threads_is_refused_at_a_place_in_the_file() {
    let output = run(&[
        "run",
        "examples/matmul.tir",
        "--schedule",
        "schedule_avx2",
        "--target",
        "cuda",
        "--emulate",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("E0505"), "{stderr}");
    assert!(
        stderr.contains("examples/matmul.tir:"),
        "the diagnostic has a place: {stderr}"
    );
}

/// The output of a reduction with `T.init()` is written before it is read,
/// so `--args` may leave it out on the CUDA target as on the CPU (the CUDA
/// host function stores nothing itself; the outputs come from the program).
#[test]
fn args_may_leave_out_the_output_of_a_cuda_run() {
    let dir = std::env::temp_dir().join(format!("tirc-cli-cuda-args-{}", std::process::id()));
    let dir_text = dir.to_str().unwrap();
    let mode = if has_gpu() { None } else { Some("--emulate") };
    let mut first = vec![
        "run",
        "tests/codegen/cuda/shared_tiles.tir",
        "--target",
        "cuda",
        "--save-outputs",
        dir_text,
    ];
    first.extend(mode);
    let output = run(&first);
    assert!(output.status.success(), "{}", text(&output.stderr));
    std::fs::remove_file(dir.join("C.npy")).expect("the output was saved");
    let mut second = vec![
        "run",
        "tests/codegen/cuda/shared_tiles.tir",
        "--target",
        "cuda",
        "--args",
        dir_text,
        "--check",
    ];
    second.extend(mode);
    let output = run(&second);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("C"),
        "{}",
        text(&output.stdout)
    );
}

/// `tirc tune --target cuda` on a machine without a GPU refuses to tune
/// (emulation measures the CPU) and says what works here: `--print-space`.
#[test]
fn tune_for_cuda_needs_a_gpu_and_prints_its_space_anywhere() {
    if has_gpu() {
        return;
    }
    let output = run(&["tune", "examples/matmul_gpu.tir", "--target", "cuda"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let message = text(&output.stderr);
    assert!(message.contains("--print-space"), "{message}");
    assert!(message.contains("correctness, not speed"), "{message}");
}

/// Schedules drawn from the GPU design space of a small matmul, conv2d and
/// softmax run under the CUDA emulation (whose shared-memory race checks
/// see the cooperative fetches) and match the interpreter.
#[test]
fn gpu_design_space_candidates_run_correctly_under_emulation() {
    let dir = std::env::temp_dir().join(format!("tirc-cli-cuda-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let shrink = |path: &str, sizes: &[(&str, &str)]| {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path))
                .expect("the workload");
        let mut program = text[..text.find("\ndef ").unwrap_or(text.len())].to_string();
        for (from, to) in sizes {
            program = program.replace(from, to);
        }
        program
    };
    let workloads = [
        (
            "matmul",
            shrink("examples/matmul_gpu.tir", &[("1024", "48")]),
        ),
        (
            "conv2d",
            shrink(
                "stdlib/ops/conv2d_nchw.tir",
                &[("58", "10"), ("57", "9"), ("56", "8"), ("64", "8")],
            ),
        ),
        (
            "softmax",
            shrink("stdlib/ops/softmax.tir", &[("1024", "40")]),
        ),
    ];
    // What the emulation runs must also get through NVRTC and ptxas.
    let cubins = compiles_cubins();
    for (name, program) in workloads {
        let file = dir.join(format!("{name}.tir"));
        std::fs::write(&file, &program).expect("written");
        let file = file.to_str().unwrap();
        let space = run(&["tune", file, "--target", "cuda", "--print-space"]);
        assert!(space.status.success(), "{}", text(&space.stderr));
        std::fs::write(file, format!("{program}\n{}", text(&space.stdout))).expect("written");
        for seed in ["1", "2", "3", "4"] {
            let output = run(&[
                "run",
                file,
                "--target",
                "cuda",
                "--emulate",
                "--check",
                "--schedule",
                "space",
                "--seed",
                seed,
                "--json",
            ]);
            let report: serde_json::Value =
                serde_json::from_slice(&output.stdout).unwrap_or_default();
            assert_eq!(
                report["ok"],
                true,
                "{name}, seed {seed}: {}{}",
                text(&output.stdout),
                text(&output.stderr)
            );
            if cubins {
                compile_drawn_schedule(file, seed, name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The schedule `--seed seed` draws from the space of `file`, written out
/// as its trace and compiled by NVRTC and ptxas for sm_80.
fn compile_drawn_schedule(file: &str, seed: &str, name: &str) {
    let traced = run(&[
        "schedule",
        file,
        "--schedule",
        "space",
        "--seed",
        seed,
        "--trace",
    ]);
    assert!(traced.status.success(), "{}", text(&traced.stderr));
    let trace = text(&traced.stdout);
    let section: String = trace
        .lines()
        .skip_while(|line| !line.starts_with("def apply_trace"))
        .skip(1)
        .map(|line| format!("  {line}\n"))
        .collect();
    let program = std::fs::read_to_string(file).expect("the workload");
    let drawn = format!("{file}.drawn_{seed}.tir");
    std::fs::write(
        &drawn,
        format!("{program}\ndef drawn(sch: T.Schedule):\n{section}"),
    )
    .expect("written");
    let cubin = format!("{drawn}.cubin");
    let built = run(&[
        "build",
        &drawn,
        "--schedule",
        "drawn",
        "--target",
        "cuda -arch=sm_80",
        "--emit",
        "cubin",
        "-o",
        &cubin,
    ]);
    assert!(
        built.status.success(),
        "{name}, seed {seed}: NVRTC or ptxas refused the drawn schedule: {}",
        text(&built.stderr)
    );
    assert!(
        std::fs::metadata(&cubin).is_ok_and(|m| m.len() > 0),
        "{name}: no cubin"
    );
}
