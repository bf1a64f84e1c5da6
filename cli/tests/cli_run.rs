//! `tirc run` as a user runs it: the JSON report, outputs saved as `.npy`
//! and read back with `--args`, the `--check` references, and clear errors
//! for arrays that do not fit.
#![cfg(feature = "llvm")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirc"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("tirc runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tirc-cli-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn json_report_has_the_documented_fields() {
    let output = run(&[
        "run",
        "examples/matmul_128.tir",
        "--check",
        "--bench",
        "3",
        "--json",
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    for field in ["median_ms", "min_ms", "gflops", "max_abs_err"] {
        assert!(report[field].is_number(), "{field} missing from {stdout}");
    }
    assert_eq!(report["ok"], true, "{stdout}");
    assert_eq!(report["runs"], 3, "{stdout}");
    // 2 * 128^3 multiply-adds.
    assert_eq!(report["flops"], 4194304.0, "{stdout}");
}

#[test]
fn json_mode_reports_errors_as_json() {
    // A file with an error: its diagnostics, as JSON on standard output.
    let dir = scratch("json-errors");
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.tir");
    std::fs::write(
        &broken,
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = undefined_name\n",
    )
    .unwrap();
    let output = run(&["run", broken.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_str(text(&output.stdout).trim()).expect("one JSON object");
    assert_eq!(report["ok"], false);
    assert_eq!(report["diagnostics"][0]["span"]["line"], 3, "{report}");
    // A usage error (no such function) is JSON too.
    let output = run(&[
        "run",
        "examples/vector_add.tir",
        "--entry",
        "nope",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let report: serde_json::Value =
        serde_json::from_str(text(&output.stdout).trim()).expect("one JSON object");
    assert_eq!(report["error"]["kind"], "usage", "{report}");
}

#[test]
fn saved_outputs_read_back_as_arguments_give_the_same_outputs() {
    let first = scratch("first");
    let second = scratch("second");
    let saved = run(&[
        "run",
        "examples/vector_add.tir",
        "--seed",
        "7",
        "--save-outputs",
        first.to_str().unwrap(),
    ]);
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    for name in ["A.npy", "B.npy", "C.npy"] {
        assert!(first.join(name).is_file(), "{name} not saved");
    }
    // C = A + B again, from the saved A and B (the saved C is overwritten).
    let again = run(&[
        "run",
        "examples/vector_add.tir",
        "--args",
        first.to_str().unwrap(),
        "--check",
        "--save-outputs",
        second.to_str().unwrap(),
    ]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    for name in ["A.npy", "B.npy", "C.npy"] {
        let a = std::fs::read(first.join(name)).unwrap();
        let b = std::fs::read(second.join(name)).unwrap();
        assert_eq!(a, b, "{name} differs between the runs");
    }
}

#[test]
fn arrays_of_the_wrong_shape_are_a_clear_error() {
    let dir = scratch("wrong-shape");
    let saved = run(&[
        "run",
        "examples/matmul_128.tir",
        "--save-outputs",
        dir.to_str().unwrap(),
    ]);
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    let output = run(&[
        "run",
        "examples/vector_add.tir",
        "--args",
        dir.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("`A` has shape [1024]")
            && stderr.contains("[128, 128]")
            && stderr.contains(dir.to_str().unwrap()),
        "{stderr}"
    );
}

#[test]
fn check_with_unscheduled_compares_against_the_program_as_written() {
    let output = run(&[
        "run",
        "examples/matmul_128.tir",
        "--check",
        "--check-with",
        "unscheduled",
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(
        stdout.contains("check C against the unscheduled program") && stdout.contains(": ok"),
        "{stdout}"
    );
    let interp = run(&[
        "run",
        "examples/matmul_128.tir",
        "--check",
        "--check-with",
        "interp",
    ]);
    assert!(text(&interp.stdout).contains("check C against the interpreter"));
}

#[test]
fn a_schedule_that_relays_a_parameter_is_checked_against_the_scheduled_program() {
    // The schedule transposes parameter `A` (square, so the shapes agree):
    // the program as written would read the same array differently.
    for check_with in ["auto", "unscheduled"] {
        let output = run(&[
            "run",
            "tests/schedule/transform_layout_chain.tir",
            "--check",
            "--check-with",
            check_with,
        ]);
        let stdout = text(&output.stdout);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{stdout}{stderr}");
        assert!(
            stderr.contains("changes the layout of parameter `A`"),
            "{stderr}"
        );
        assert!(
            stdout.contains("check C against the interpreter") && stdout.contains(": ok"),
            "{stdout}"
        );
    }
}

#[test]
fn externs_the_process_lacks_are_refused_and_those_it_has_are_called() {
    let dir = scratch("externs");
    std::fs::create_dir_all(&dir).unwrap();
    let program = |callee: &str| {
        format!(
            "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\")):\n    for i in range(8):\n        A[i] = T.call_extern(\"float32\", \"{callee}\", A[i])\n"
        )
    };
    let missing = dir.join("missing.tir");
    std::fs::write(&missing, program("tirc_no_such_function")).unwrap();
    let output = run(&["run", missing.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("E0602") && stderr.contains("tirc_no_such_function"),
        "{stderr}"
    );
    let present = dir.join("present.tir");
    std::fs::write(&present, program("fabsf")).unwrap();
    let output = run(&["run", present.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
}

/// GPU threads that synchronise cannot run as CPU loops: `tirc run` says
/// why, at the bound loop, and exits 1.
#[test]
fn thread_bindings_with_a_barrier_are_refused_on_the_cpu() {
    let dir = scratch("barrier");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("barrier.tir");
    std::fs::write(
        &file,
        r#"@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            B[bx * 8 + tx] = A[bx * 8 + tx]
            T.tvm_storage_sync("shared")
"#,
    )
    .expect("the program is written");
    let output = run(&["run", file.to_str().expect("a UTF-8 path")]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("loop `bx` is bound to `blockIdx.x`")
            && stderr.contains("wait for one another (`T.tvm_storage_sync`)")
            && stderr.contains("barrier.tir:3:5"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Programs whose compiled code would crash the process are refused or
/// reported instead (found by fuzzing `tirc run`).
#[test]
fn programs_that_would_crash_compiled_code_get_a_diagnostic() {
    let dir = scratch("crashes");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let cases = [
        (
            "wide_vector",
            "@T.prim_func\ndef main(A: T.Buffer((16,), \"float32\"), B: T.Buffer((70000,), \"float32\")):\n    B[T.Ramp(0, 1, 32769)] = T.Broadcast(A[0], 32769)\n",
            &["run"][..],
            1,
            "the LLVM backend handles vectors of at most 32768 lanes, not 32769",
        ),
        (
            "out_of_bounds",
            "@T.prim_func\ndef main(Y: T.Buffer((4,), \"float32\")):\n    for i in range(1048576):\n        Y[i] = T.float32(1)\n",
            &["run", "--check"][..],
            1,
            "out-of-bounds store to buffer `Y` at [4]",
        ),
        // Without `--check` nothing runs before the compiled code: its bound
        // checks stop it, at the store.
        (
            "out_of_bounds_unchecked_run",
            "@T.prim_func\ndef main(Y: T.Buffer((4,), \"float32\")):\n    for i in range(1048576):\n        Y[i] = T.float32(1)\n",
            &["run"][..],
            1,
            "out-of-bounds store to `Y`: the index reaches past its storage of 16 bytes",
        ),
        // The reference is the unscheduled program compiled (the interpreter
        // would take too long): the fuzzer found it crashing with SIGSEGV.
        (
            "out_of_bounds_unscheduled_reference",
            "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((1,), \"float32\")):\n    for i, j in T.grid(2147483647, 4):\n        with T.block(\"B\"):\n            vi, vj = T.axis.remap(\"SR\", [i, j])\n            with T.init():\n                B[0] = T.float32(0)\n            B[0] = B[0] + A[vi]\n\ndef schedule(sch):\n    i, j = sch.get_loops(sch.get_block(\"B\"))\n    sch.unroll(j)\n",
            &["run", "--check"][..],
            1,
            "out-of-bounds load from `A`",
        ),
        // A divisor that reaches zero would raise SIGFPE; the check stops it.
        (
            "division_by_zero",
            "@T.prim_func\ndef main(A: T.Buffer((4,), \"int32\"), B: T.Buffer((4,), \"int32\")):\n    for i in range(4):\n        B[i] = A[i] // (i - 2)\n",
            &["run"][..],
            1,
            "ZeroDivisionError: integer division by zero",
        ),
        (
            "huge_input",
            "@T.prim_func\ndef main(A: T.Buffer((2147483647,), \"int32\")):\n    A[0] = 1\n",
            &["run"][..],
            2,
            "would take the random inputs past 4 GiB",
        ),
    ];
    for (name, program, command, code, message) in cases {
        let file = dir.join(format!("{name}.tir"));
        std::fs::write(&file, program).expect("the program is written");
        let mut args = command.to_vec();
        args.push(file.to_str().expect("a UTF-8 path"));
        let output = run(&args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{name}: {stderr}");
        assert!(stderr.contains(message), "{name}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The refusal of a kernel that calls an instruction this CPU lacks (E0606,
/// a tensorized VNNI example on a CPU without VNNI): a skip, not a failure.
fn lacks_cpu_feature(output: &std::process::Output) -> Option<String> {
    let stderr = text(&output.stderr);
    let line = stderr.lines().find(|line| line.contains("error[E0606]"))?;
    Some(line.to_string())
}

/// Every example passes `tirc run --check` as a newcomer runs it, with the
/// reference `--check-with auto` picks (the interpreter, or the unscheduled
/// program where the interpreter would take minutes).
#[test]
fn every_example_runs_and_passes_its_check() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("the examples directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "tir"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    // One process per example, all at once: most of the time is the
    // interpreter, single-threaded, so two cores run two of them.
    let children: Vec<_> = files
        .iter()
        .map(|file| {
            let child = Command::new(env!("CARGO_BIN_EXE_tirc"))
                .args(["run", "--check", "--threads", "1"])
                .arg(file)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("tirc starts");
            (file, child)
        })
        .collect();
    for (file, child) in children {
        let output = child.wait_with_output().expect("tirc finishes");
        let stdout = text(&output.stdout);
        if let Some(reason) = lacks_cpu_feature(&output) {
            eprintln!("skipped: {}: {reason}", file.display());
            continue;
        }
        assert!(
            output.status.success() && stdout.contains(": ok"),
            "{}: {stdout}{}",
            file.display(),
            text(&output.stderr)
        );
    }
}

/// Every schedule of every `stdlib/ops` operator passes `tirc run --check`
/// (CUDA schedules run as CPU loops here), and the README lists each file.
#[test]
fn every_stdlib_operator_schedule_runs_and_passes_its_check() {
    let ops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../stdlib/ops");
    let readme = std::fs::read_to_string(ops.join("README.md")).expect("stdlib/ops/README.md");
    let mut runs: Vec<(PathBuf, String)> = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&ops)
        .expect("the stdlib/ops directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "tir"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for file in &files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert!(
            readme.contains(&format!("`{name}`")),
            "README.md does not list {name}"
        );
        let source = std::fs::read_to_string(file).expect("readable");
        let schedules: Vec<String> = source
            .lines()
            .filter_map(|line| line.strip_prefix("def "))
            .filter(|rest| rest.contains("(sch"))
            .filter_map(|rest| rest.split('(').next())
            .map(str::to_string)
            .collect();
        assert!(!schedules.is_empty(), "{name} has no schedule");
        runs.extend(schedules.into_iter().map(|s| (file.clone(), s)));
    }
    // Two at a time: the interpreter checks are single-threaded.
    for pair in runs.chunks(2) {
        let children: Vec<_> = pair
            .iter()
            .map(|(file, schedule)| {
                let child = Command::new(env!("CARGO_BIN_EXE_tirc"))
                    .args(["run", "--check", "--threads", "1", "--schedule", schedule])
                    .arg(file)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("tirc starts");
                (file, schedule, child)
            })
            .collect();
        for (file, schedule, child) in children {
            let output = child.wait_with_output().expect("tirc finishes");
            let stdout = text(&output.stdout);
            // A schedule for a CPU feature this machine lacks (VNNI) is
            // refused in words, not run.
            let stderr = text(&output.stderr);
            if !output.status.success() && stderr.contains("and the target CPU") {
                assert!(stderr.contains("does not have it"), "{stderr}");
                eprintln!("{} --schedule {schedule}: {stderr}", file.display());
                continue;
            }
            // A tensor-core schedule cannot run on the CPU: the refusal says
            // so, and it runs in the CUDA emulation instead.
            if !output.status.success() && stderr.contains("CUDA tensor-core") {
                assert!(stderr.contains("--target cuda"), "{stderr}");
                let emulated = Command::new(env!("CARGO_BIN_EXE_tirc"))
                    .args([
                        "run",
                        "--check",
                        "--target",
                        "cuda",
                        "--emulate",
                        "--schedule",
                        schedule,
                    ])
                    .arg(file)
                    .output()
                    .expect("tirc runs");
                assert!(
                    emulated.status.success() && text(&emulated.stdout).contains(": ok"),
                    "{} --schedule {schedule} --target cuda --emulate: {}{}",
                    file.display(),
                    text(&emulated.stdout),
                    text(&emulated.stderr)
                );
                continue;
            }
            assert!(
                output.status.success() && stdout.contains(": ok"),
                "{} --schedule {schedule}: {stdout}{}",
                file.display(),
                text(&output.stderr)
            );
        }
    }
}
