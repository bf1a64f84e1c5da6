//! The `tirc` command line as a user runs it: exit codes, `fmt --check`,
//! `fmt --write`, standard input, `diff` and `check`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn tirc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tirc"))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    tirc()
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("tirc runs")
}

/// `tirc build INPUT [--schedule S] --target TARGET --emit asm -o OUTPUT`:
/// the run, and the assembly when it wrote one.
fn build_assembly(
    input: &str,
    schedule: Option<&str>,
    target: &str,
    output: &Path,
) -> (Output, String) {
    let mut args = vec!["build", input];
    if let Some(schedule) = schedule {
        args.extend(["--schedule", schedule]);
    }
    let output_path = output.to_str().expect("utf-8 path");
    args.extend(["--target", target, "--emit", "asm", "-o", output_path]);
    let result = run(&args);
    let assembly = std::fs::read_to_string(output).unwrap_or_default();
    (result, assembly)
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tirc-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scratch file");
    path
}

const UNFORMATTED: &str = "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = A[i] + 1.0\n";

#[test]
fn examples_are_formatted() {
    let examples: Vec<String> = std::fs::read_dir(workspace().join("examples"))
        .expect("examples folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tir"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(examples.len() >= 5);
    let mut args = vec!["fmt", "--check"];
    args.extend(examples.iter().map(String::as_str));
    let output = run(&args);
    assert!(
        output.status.success(),
        "tirc fmt --check examples/*.tir lists: {}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn fmt_check_lists_unformatted_files_and_exits_one() {
    let path = scratch("unformatted.tir", UNFORMATTED);
    let output = run(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("unformatted.tir"));
}

#[test]
fn fmt_write_rewrites_in_place_and_is_then_clean() {
    let path = scratch("rewrite.tir", UNFORMATTED);
    let output = run(&["fmt", "--write", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let rewritten = std::fs::read_to_string(&path).unwrap();
    assert!(
        rewritten.contains("A[i] = A[i] + T.float32(1.0)"),
        "{rewritten}"
    );
    assert!(
        rewritten.starts_with("# from tvm.script import tir as T\n"),
        "{rewritten}"
    );
    let again = run(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0));
}

#[test]
fn fmt_reads_standard_input() {
    let mut child = tirc()
        .args(["fmt", "--dialect", "tirx", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("tirc runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(UNFORMATTED.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("# from tvm.script import tirx as T"),
        "{text}"
    );
}

#[test]
fn check_reports_errors_with_location_and_exits_one() {
    let path = scratch(
        "broken.tir",
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"float33\")):\n    T.evaluate(0)\n",
    );
    let output = run(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error[E0104]: unknown data type \"float33\""),
        "{stderr}"
    );
    assert!(stderr.contains("broken.tir:2:"), "{stderr}");
    assert!(stderr.contains("did you mean \"float32\"?"), "{stderr}");
}

#[test]
fn check_json_prints_one_object_per_diagnostic() {
    let path = scratch(
        "json.tir",
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"float33\")):\n    T.evaluate(undefined_name)\n",
    );
    let output = run(&["check", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    // Machine-readable output goes to standard output, nothing to standard error.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let objects: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is one JSON object"))
        .collect();
    assert_eq!(objects.len(), 2, "{stdout}");
    assert!(objects.iter().all(|o| o["severity"] == "error"), "{stdout}");
    assert_eq!(objects[0]["span"]["line"], 2, "{stdout}");
}

#[test]
fn check_json_reports_io_errors_as_json() {
    let output = run(&["check", "--format", "json", "does/not/exist.tir"]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let object: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    assert_eq!(object["ok"], false);
    assert_eq!(object["error"]["kind"], "io");
    assert!(
        object["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does/not/exist.tir")),
        "{stdout}"
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let output = run(&["check", "does/not/exist.tir"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let output = run(&["fmt", "--frobnicate", "x.tir"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn diff_of_renamed_programs_is_equal_and_of_changed_programs_points_at_both() {
    let a = scratch("a.tir", UNFORMATTED);
    let renamed = UNFORMATTED.replace(
        "for i in range(4):\n        A[i] = A[i]",
        "for k in range(4):\n        A[k] = A[k]",
    );
    let b = scratch("b.tir", &renamed);
    let equal = run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(
        equal.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&equal.stderr)
    );

    let changed = scratch("c.tir", &UNFORMATTED.replace("1.0", "2.0"));
    let different = run(&["diff", a.to_str().unwrap(), changed.to_str().unwrap()]);
    assert_eq!(different.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&different.stderr);
    assert!(
        stderr.contains("a.tir:4:") && stderr.contains("c.tir:4:"),
        "{stderr}"
    );
}

#[test]
fn bench_schedule_reports_only_what_it_measured() {
    let output = run(&[
        "bench",
        "schedule",
        "--iterations",
        "2",
        "--only",
        "apply",
        "compiler/benches/schedule/matmul_1024.tir",
    ]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("20 steps"), "{stdout}");
    assert!(stdout.contains("us per step"), "{stdout}");
    assert!(!stdout.contains("end to end"), "{stdout}");
}

#[test]
fn bench_schedule_refuses_a_file_without_a_schedule() {
    let path = scratch("no_schedule.tir", UNFORMATTED);
    let output = run(&[
        "bench",
        "schedule",
        "--iterations",
        "1",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("schedule"));
}

/// Tensorized kernels compile to their instructions on every machine, for
/// targets this one may not be: AArch64 `sdot`/`udot`, AVX-512 VNNI
/// `vpdpbusd`. The CPU feature is checked first (E0606), never left to LLVM.
#[test]
fn tensorized_kernels_compile_to_their_instructions_for_any_target() {
    let dir = std::env::temp_dir().join(format!("tirc-tensorize-asm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let cases = [
        (
            "tensorize_sdot_dense.tir",
            "llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+dotprod",
            "sdot\t",
        ),
        (
            "tensorize_udot_dense.tir",
            "llvm -mtriple=aarch64-linux-gnu -mattr=+neon,+dotprod",
            "udot\t",
        ),
        (
            "tensorize_vnni_dense.tir",
            "llvm -mtriple=x86_64-linux-gnu -mcpu=icelake-server",
            "vpdpbusd\t",
        ),
        (
            "tensorize_bf16_dense.tir",
            "llvm -mtriple=x86_64-linux-gnu -mcpu=cooperlake",
            "vdpbf16ps\t",
        ),
        (
            "tensorize_avx512_dense.tir",
            "llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512",
            "vpmaddubsw\t",
        ),
    ];
    for (case, target, instruction) in cases {
        let input = workspace().join("tests/schedule").join(case);
        let (result, assembly) = build_assembly(
            input.to_str().expect("utf-8 path"),
            None,
            target,
            &dir.join(format!("{case}.s")),
        );
        assert!(
            result.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert!(
            assembly.contains(instruction),
            "{case}: no `{instruction}` in the assembly"
        );
    }
    // The stdlib's 256-bit forms, for x86 CPUs without AVX-512.
    let int8 = workspace().join("stdlib/ops/matmul_int8.tir");
    for (schedule, target, instruction) in [
        (
            "schedule_avx_vnni",
            "llvm -mtriple=x86_64-linux-gnu -mcpu=alderlake",
            "{vex}\tvpdpbusd\t%ymm",
        ),
        (
            "schedule_avx2",
            "llvm -mtriple=x86_64-linux-gnu -mcpu=haswell",
            "vpmaddubsw\t%ymm",
        ),
    ] {
        let (result, assembly) = build_assembly(
            int8.to_str().expect("utf-8 path"),
            Some(schedule),
            target,
            &dir.join(format!("{schedule}.s")),
        );
        assert!(
            result.status.success(),
            "{schedule}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert!(
            assembly.contains(instruction),
            "{schedule}: no `{instruction}` in the assembly"
        );
    }
    // An AMX tile product: its tile configuration comes along into the
    // program, and the tile instructions come out for Sapphire Rapids.
    let amx = dir.join("amx_dense.tir");
    std::fs::write(&amx, AMX_DENSE).expect("written");
    let amx = amx.to_str().expect("utf-8 path");
    let scheduled = run(&["schedule", amx]);
    assert!(
        String::from_utf8_lossy(&scheduled.stdout)
            .contains("config = T.alloc_buffer((64,), \"uint8\", scope=\"local\")"),
        "{}",
        String::from_utf8_lossy(&scheduled.stderr)
    );
    for (target, ok) in [
        ("llvm -mtriple=x86_64-linux-gnu -mcpu=sapphirerapids", true),
        ("llvm -mtriple=x86_64-linux-gnu -mcpu=icelake-server", false),
    ] {
        let output = dir.join(format!("amx_dense_{ok}.s"));
        let (result, assembly) = build_assembly(amx, None, target, &output);
        let stderr = String::from_utf8_lossy(&result.stderr);
        if ok {
            assert!(result.status.success(), "{stderr}");
            for instruction in [
                "ldtilecfg\t",
                "tileloadd\t",
                "tdpbusd\t",
                "tilestored\t",
                "tilerelease",
            ] {
                assert!(assembly.contains(instruction), "no `{instruction}` for AMX");
            }
        } else {
            assert!(
                stderr.contains("E0606") && stderr.contains("amx-tile"),
                "{stderr}"
            );
        }
    }
    // Without the extension: refused with the feature named, not an LLVM abort.
    let input = workspace().join("tests/schedule/tensorize_sdot_dense.tir");
    let result = run(&[
        "build",
        input.to_str().expect("utf-8 path"),
        "--target",
        "llvm -mtriple=aarch64-linux-gnu -mattr=+neon",
        "--emit",
        "asm",
        "-o",
        dir.join("refused.s").to_str().expect("utf-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("E0606") && stderr.contains("dotprod"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A packed u8 x i8 matmul tensorized with the stdlib's AMX tile product.
const AMX_DENSE: &str = r#"# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 2, 16, 64), "uint8"), B: T.Buffer((4, 2, 16, 64), "int8"), C: T.Buffer((4, 4, 16, 16), "int32")):
        T.func_attr({"tir.noalias": True})
        for io, jo, ii, ji, k in T.grid(4, 4, 16, 16, 128):
            with T.block("C"):
                vio, vjo, vii, vji, vk = T.axis.remap("SSSSR", [io, jo, ii, ji, k])
                with T.init():
                    C[vio, vjo, vii, vji] = 0
                C[vio, vjo, vii, vji] = C[vio, vjo, vii, vji] + T.Cast("int32", A[vio, vk // 64, vii, vk % 64]) * T.Cast("int32", B[vjo, vk // 64, vk % 64 // 4, vji * 4 + vk % 4])

def schedule(sch: T.Schedule):
    block = sch.get_block("C")
    io, jo, ii, ji, k = sch.get_loops(block)
    k_0, k_1 = sch.split(k, factors=[None, 64])
    sch.reorder(io, jo, k_0, ii, ji, k_1)
    sch.decompose_reduction(block, k_0)
    sch.tensorize(ii, "dot_16x16x64_u8i8i32_amx")
"#;
