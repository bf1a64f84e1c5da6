//! What a user expects from a command-line tool, as regression tests: exit
//! codes and streams for refused steps and missing directories, schedule
//! sections checked by `tirc check`, `--version`, completions, `doctor`,
//! `--color`, and `fmt --write` keeping the file's permissions.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirc"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env_remove("NO_COLOR")
        .output()
        .expect("tirc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tirc-behaviour-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("the scratch file is written");
    path
}

const PROGRAM: &str = r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)
"#;

fn with_schedule(lines: &str) -> String {
    format!("{PROGRAM}\ndef schedule(sch: T.Schedule):\n{lines}")
}

#[test]
fn a_refused_step_prints_no_module() {
    let path = scratch(
        "refused.tir",
        &with_schedule("    b = sch.get_block(\"B\")\n    (i,) = sch.get_loops(b)\n    sch.split(i, factors=[3, 5])\n"),
    );
    let output = run(&["schedule", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "", "a refused step printed a module");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("refused.tir:11:"), "{stderr}");
}

#[test]
fn a_file_without_schedule_prints_its_module() {
    let path = scratch("unscheduled.tir", PROGRAM);
    let output = run(&["schedule", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("with T.block(\"B\"):"));
}

#[test]
fn stop_after_past_the_end_says_so() {
    let path = scratch(
        "short.tir",
        &with_schedule("    b = sch.get_block(\"B\")\n    (i,) = sch.get_loops(b)\n"),
    );
    let output = run(&["schedule", "--stop-after", "100", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        text(&output.stderr).contains("--stop-after 100, but the schedule has 2 steps"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn check_applies_the_schedule_section() {
    for (name, line, expected) in [
        ("block.tir", "    b = sch.get_block(\"nope\")\n", "nope"),
        ("primitive.tir", "    sch.frobnicate()\n", "frobnicate"),
    ] {
        let path = scratch(name, &with_schedule(line));
        let output = run(&["check", path.to_str().unwrap()]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}:9:")) && stderr.contains(expected),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn two_schedules_of_one_name_are_refused() {
    let path = scratch(
        "twice.tir",
        &format!(
            "{}\ndef schedule(sch: T.Schedule):\n    b = sch.get_block(\"B\")\n",
            with_schedule("    b = sch.get_block(\"B\")\n")
        ),
    );
    let output = run(&["check", path.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("defined twice"), "{stderr}");
    assert!(stderr.contains("first defined here"), "{stderr}");
}

#[test]
fn build_into_a_missing_directory_is_an_io_error() {
    let output = run(&[
        "build",
        "examples/vector_add.tir",
        "-o",
        "/no/such/dir/x.so",
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the directory /no/such/dir does not exist"),
        "{stderr}"
    );
}

#[test]
fn version_names_the_revision_and_the_backends() {
    let output = run(&["--version"]);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("tirc 0."), "{stdout}");
    assert!(stdout.contains("git"), "{stdout}");
    assert!(stdout.contains("LLVM backend:"), "{stdout}");
    assert!(stdout.contains("NVRTC"), "{stdout}");
}

#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_tirc()"),
        ("zsh", "#compdef tirc"),
        ("fish", "complete -c tirc"),
    ] {
        let output = run(&["completions", shell]);
        assert!(output.status.success(), "{shell}");
        let script = text(&output.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("doctor"), "{shell} lacks the subcommands");
    }
}

#[test]
fn doctor_reports_every_part_and_the_cpu() {
    let output = run(&["doctor", "--json"]);
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let names: Vec<&str> = report["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["LLVM", "NVRTC", "ptxas", "CUDA device"]);
    assert_eq!(report["parts"][0]["found"], true, "this build has LLVM");
    assert!(report["cpu"]["threads"].as_u64().is_some_and(|n| n >= 1));
    // Missing parts say how to get them.
    for part in report["parts"].as_array().unwrap() {
        if part["found"] == false {
            assert!(part["help"].is_string(), "{part}");
        }
    }
}

#[test]
fn color_follows_the_flag() {
    let path = scratch(
        "colour.tir",
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = nope\n",
    );
    let always = run(&["--color", "always", "check", path.to_str().unwrap()]);
    assert!(
        text(&always.stderr).contains('\u{1b}'),
        "no colour with --color always"
    );
    let never = run(&["check", "--color", "never", path.to_str().unwrap()]);
    assert!(
        !text(&never.stderr).contains('\u{1b}'),
        "colour with --color never"
    );
    let no_color = Command::new(env!("CARGO_BIN_EXE_tirc"))
        .args(["check", path.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!text(&no_color.stderr).contains('\u{1b}'));
}

#[test]
fn fmt_write_keeps_permissions_and_leaves_no_temporary_file() {
    let path = scratch(
        "permissions.tir",
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = A[0]+T.float32(1)\n",
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let output = run(&["fmt", "--write", path.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("A[0] + T.float32(1.0)"));
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn check_falls_back_to_the_unscheduled_program_for_external_calls() {
    let path = scratch(
        "extern.tir",
        "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n    for i in range(8):\n        B[i] = T.call_pure_extern(\"float32\", \"fabsf\", A[i])\n",
    );
    let output = run(&["run", path.to_str().unwrap(), "--check"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(stderr.contains("the interpreter cannot run it"), "{stderr}");
    assert!(
        stdout.contains("against the unscheduled program"),
        "{stdout}"
    );
}

#[test]
fn diff_is_blind_to_the_dialect() {
    for example in ["examples/matmul_128.tir", "examples/softmax.tir"] {
        let tirx = run(&["fmt", "--dialect", "tirx", example]);
        assert!(tirx.status.success());
        let converted = scratch(
            &format!(
                "tirx-{}",
                Path::new(example).file_name().unwrap().to_string_lossy()
            ),
            &text(&tirx.stdout),
        );
        assert!(text(&tirx.stdout).contains("tirx.noalias"), "{example}");
        let output = run(&["diff", example, converted.to_str().unwrap()]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{example}: {}",
            text(&output.stderr)
        );
    }
}

const SYMBOLIC: &str = r#"@T.prim_func
def main(var_A: T.handle, var_B: T.handle, var_C: T.handle):
    m = T.int32()
    n = T.int32()
    A = T.match_buffer(var_A, (m, n))
    B = T.match_buffer(var_B, (m, n))
    C = T.match_buffer(var_C, (m, n))
    for i, j in T.grid(m, n):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + B[vi, vj]
"#;

#[test]
fn symbolic_shapes_run_with_shape_values_and_buffer_named_files() {
    let path = scratch("symbolic.tir", SYMBOLIC);
    let path = path.to_str().unwrap();
    // Without sizes: say how to give them.
    let output = run(&["run", path]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--shape"),
        "{}",
        text(&output.stderr)
    );
    // With sizes: random inputs, checked, saved under the buffers' names.
    let saved = std::env::temp_dir().join(format!("tirc-behaviour-saved-{}", std::process::id()));
    let output = run(&[
        "run",
        path,
        "--shape",
        "m=16,n=8",
        "--check",
        "--save-outputs",
        saved.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for name in ["A.npy", "B.npy", "C.npy"] {
        assert!(saved.join(name).is_file(), "{name} not saved");
    }
    // The inputs alone: the output is made from their shapes.
    std::fs::remove_file(saved.join("C.npy")).unwrap();
    let output = run(&["run", path, "--args", saved.to_str().unwrap(), "--check"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    // A missing input: every expected file is named.
    std::fs::remove_file(saved.join("B.npy")).unwrap();
    let output = run(&["run", path, "--args", saved.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("has no B.npy"), "{stderr}");
    assert!(stderr.contains("A.npy or var_A.npy"), "{stderr}");
}

#[test]
fn the_spelling_of_a_block_lookup_changes_nothing() {
    let get_block = scratch(
        "get_block.tir",
        &with_schedule("    b = sch.get_block(\"B\")\n    (i,) = sch.get_loops(b)\n    sch.split(i, factors=[None, 8])\n"),
    );
    let get_sblock = scratch(
        "get_sblock.tir",
        &with_schedule("    b = sch.get_sblock(\"B\")\n    (i,) = sch.get_loops(b)\n    sch.split(i, factors=[None, 8])\n"),
    );
    for dialect in ["classic", "tirx"] {
        let a = run(&[
            "schedule",
            "--dialect",
            dialect,
            get_block.to_str().unwrap(),
        ]);
        let b = run(&[
            "schedule",
            "--dialect",
            dialect,
            get_sblock.to_str().unwrap(),
        ]);
        assert!(
            a.status.success() && b.status.success(),
            "{}",
            text(&b.stderr)
        );
        assert_eq!(text(&a.stdout), text(&b.stdout), "{dialect}");
    }
    // The trace follows the dialect asked for.
    let classic = run(&["schedule", "--trace", get_sblock.to_str().unwrap()]);
    let classic = text(&classic.stdout);
    assert!(
        classic.contains("sch: tir.Schedule") && classic.contains("sch.get_block("),
        "{classic}"
    );
    let tirx = run(&[
        "schedule",
        "--trace",
        "--dialect",
        "tirx",
        get_block.to_str().unwrap(),
    ]);
    let tirx = text(&tirx.stdout);
    assert!(
        tirx.contains("sch: s_tir.Schedule") && tirx.contains("sch.get_sblock("),
        "{tirx}"
    );
}

/// A loop marked vectorized that LLVM cannot vectorize (each iteration reads
/// what the one before wrote).
const DEPENDENT_VECTOR_LOOP: &str = r#"@T.prim_func
def main(A: T.Buffer((65,), "float32"), n: T.int32):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(n):
        A[i + 1] = A[i] * T.float32(2)
"#;

#[test]
fn llvm_remarks_stay_quiet_unless_verbose_and_then_point_at_the_loop() {
    let path = scratch("dependent_vector_loop.tir", DEPENDENT_VECTOR_LOOP);
    let object = path.with_extension("o");
    let file = path.to_str().unwrap();
    let quiet = run(&[
        "build",
        file,
        "--emit",
        "obj",
        "-o",
        object.to_str().unwrap(),
    ]);
    assert_eq!(quiet.status.code(), Some(0), "{}", text(&quiet.stderr));
    assert_eq!(text(&quiet.stderr), "", "LLVM's messages leaked");
    let verbose = run(&[
        "build",
        file,
        "--emit",
        "obj",
        "-o",
        object.to_str().unwrap(),
        "--verbose",
    ]);
    let stderr = text(&verbose.stderr);
    assert!(!stderr.contains("<unknown>"), "{stderr}");
    assert!(
        stderr.contains("LLVM could not vectorize this loop")
            && stderr.contains("dependent_vector_loop.tir:4:5"),
        "{stderr}"
    );
    let run_quiet = run(&["run", file, "--shape", "n=64"]);
    assert_eq!(
        run_quiet.status.code(),
        Some(0),
        "{}",
        text(&run_quiet.stderr)
    );
    assert!(
        !text(&run_quiet.stderr).contains("vectorize"),
        "{}",
        text(&run_quiet.stderr)
    );
}

#[test]
fn gpu_bound_loops_on_the_cpu_get_one_note_and_messages_stay_true() {
    let program = r#"@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi = T.axis.spatial(256, bx * 64 + tx)
                B[vi] = A[vi] * T.float32(2.0)
"#;
    let path = scratch("gpu_on_cpu.tir", program);
    let output = run(&["run", path.to_str().unwrap(), "--check"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr
            .matches("note: loops bound to GPU threads run here as CPU loops")
            .count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("gpu_on_cpu.tir:3:5"), "{stderr}");
    // The explanation points at the CUDA backend.
    let explain = run(&["explain", "E0602"]);
    assert!(
        text(&explain.stdout).contains("--target cuda"),
        "{}",
        text(&explain.stdout)
    );
}

#[test]
fn a_flat_sum_of_thousands_of_terms_checks_and_runs() {
    let terms: Vec<String> = (0..3000).map(|i| format!("A[{i}]")).collect();
    let program = format!(
        "@T.prim_func\ndef main(A: T.Buffer((3000,), \"float32\"), B: T.Buffer((1,), \"float32\")):\n    B[0] = {}\n",
        terms.join(" + ")
    );
    let path = scratch("flat_sum.tir", &program);
    let output = run(&["run", path.to_str().unwrap(), "--check"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains(": ok"),
        "{}",
        text(&output.stdout)
    );
}

#[test]
fn a_misspelt_dtype_constructor_gets_a_suggestion() {
    let program = "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\")):\n    for i in range(8):\n        A[i] = T.flaot32(0.0)\n";
    let path = scratch("flaot.tir", program);
    let output = run(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("did you mean `T.float32`?"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn random_text_shows_a_bounded_number_of_errors_and_counts_the_rest() {
    // Deterministic noise: 20,000 lines of scrambled tokens.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let alphabet: Vec<char> = "abcXYZ019+-*/()[]{}:=,. \"'#@$".chars().collect();
    let mut noise = String::new();
    for _ in 0..20_000 {
        for _ in 0..40 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            noise.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        noise.push('\n');
    }
    let path = scratch("noise.tir", &noise);
    let output = run(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.matches("error[").count(), 100, "errors shown");
    assert!(
        stderr.contains("more diagnostics not shown"),
        "{}",
        &stderr[stderr.len().saturating_sub(400)..]
    );
    let json = run(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert!(
        text(&json.stdout).lines().count() > 100,
        "JSON lists every diagnostic"
    );
}

#[test]
fn fmt_keeps_comments_and_what_the_user_left_out_and_formats_the_schedule() {
    let source = "# from tvm.script import tir as T\n\n@T.prim_func\ndef main(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")):\n    # scale every element\n    for i in range(128):  # the loop\n        with T.block(\"B\"):\n            vi = T.axis.spatial(128, i)\n            B[vi] = A[vi] * T.float32(2.0)  # store\n\ndef schedule(sch: T.Schedule):\n    b = sch.get_block( \"B\" )\n    (i,) = sch.get_loops(b)\n    sch.parallel( i )  # run it on every core\n";
    let path = scratch("fmt_user_choices.tir", source);
    let file = path.to_str().unwrap();
    let output = run(&["fmt", file]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let formatted = text(&output.stdout);
    for kept in [
        "    # scale every element\n",
        "for i in range(128):  # the loop\n",
        "* T.float32(2.0)  # store\n",
        "    sch.parallel(i)  # run it on every core\n",
        "    b = sch.get_block(\"B\")\n",
    ] {
        assert!(
            formatted.contains(kept),
            "{kept:?} missing from:\n{formatted}"
        );
    }
    assert!(
        !formatted.contains("T.reads") && !formatted.contains("T.writes"),
        "{formatted}"
    );
    assert!(!formatted.contains("with T.block(\"root\")"), "{formatted}");
    let check = run(&["fmt", "--check", file]);
    assert_eq!(
        check.status.code(),
        Some(1),
        "the schedule's spacing is not canonical"
    );
    let explicit = text(&run(&["fmt", "--explicit", file]).stdout);
    assert!(
        explicit.contains("T.reads(A[vi])") && explicit.contains("# with T.block(\"root\"):"),
        "{explicit}"
    );
    assert!(explicit.contains("# scale every element"), "{explicit}");
}

#[test]
fn fmt_formats_the_layout_of_a_file_with_a_semantic_error_and_refuses_a_syntax_error() {
    let source = "@T.prim_func\ndef main(A: T.Buffer((8,),\"float32\")):\n    for i in range( 8 ):  # keep me\n        A[i]=undefined_name*2\n";
    let path = scratch("fmt_semantic_error.tir", source);
    let output = run(&["fmt", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\")):\n    for i in range(8):  # keep me\n        A[i] = undefined_name * 2\n"
    );
    assert!(
        text(&output.stderr).contains("only its layout was formatted"),
        "{}",
        text(&output.stderr)
    );
    let syntax = scratch("fmt_syntax_error.tir", "@T.prim_func\ndef main(:\n");
    let refused = run(&["fmt", syntax.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(text(&refused.stdout), "");
}

/// `tirc tune --print-space` prints a schedule `def` that, pasted beside the
/// program, applies with any seed; the decisions show in the trace.
#[test]
fn tune_prints_a_space_that_schedules_with_any_seed() {
    let output = run(&["tune", "examples/matmul_128.tir", "--print-space"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let space = text(&output.stdout);
    assert!(space.starts_with("def space(sch: T.Schedule):"), "{space}");
    assert!(space.contains("sch.sample_perfect_tile("), "{space}");
    let program = std::fs::read_to_string("../examples/matmul_128.tir")
        .or_else(|_| std::fs::read_to_string("examples/matmul_128.tir"))
        .expect("the example");
    let file = scratch("space.tir", &format!("{program}\n{space}"));
    let mut traces = Vec::new();
    for seed in ["1", "2"] {
        let output = run(&[
            "schedule",
            file.to_str().unwrap(),
            "--schedule",
            "space",
            "--seed",
            seed,
            "--trace",
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let trace = text(&output.stdout);
        assert!(trace.contains("decision=["), "{trace}");
        traces.push(trace);
    }
    assert_ne!(traces[0], traces[1], "two seeds drew the same schedule");
}

/// `tirc tune` measures candidates in worker processes, records each one
/// (a damaged line of the records file is reported and skipped), and
/// `--write` keeps the fastest as `def tuned`, which runs and checks.
#[test]
fn tune_records_candidates_and_writes_the_fastest() {
    let program = std::fs::read_to_string("../examples/matmul_128.tir").expect("the example");
    let file = scratch("tuned.tir", &program);
    let database = file.with_file_name("records.jsonl");
    std::fs::write(&database, "{\"workload\": \"cut short\n").expect("a damaged records file");
    let output = run(&[
        "tune",
        file.to_str().unwrap(),
        "--trials",
        "3",
        "--runs",
        "1",
        "--database",
        database.to_str().unwrap(),
        "--write",
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("records.jsonl:1: not a tuning record"),
        "{stderr}"
    );
    assert!(stderr.contains("trial 3/3"), "{stderr}");
    let (best, unscheduled) = best_and_unscheduled(&text(&output.stdout));
    assert!(
        best <= unscheduled,
        "best {best} ms, unscheduled {unscheduled} ms"
    );
    let records = std::fs::read_to_string(&database).expect("the records");
    let lines: Vec<&str> = records.lines().skip(1).collect();
    // Three candidates, then each of them timed again (fewer than the four
    // the tuner times again), their records after the first ones.
    assert_eq!(lines.len(), 6, "{records}");
    assert_eq!(stderr.matches("timed again: ").count(), 3, "{stderr}");
    let trace_of = |line: &str| -> String {
        let record: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
        record["trace"].as_str().expect("a trace").to_string()
    };
    let mut first: Vec<String> = lines[..3].iter().map(|l| trace_of(l)).collect();
    let mut again: Vec<String> = lines[3..].iter().map(|l| trace_of(l)).collect();
    first.sort();
    again.sort();
    assert_eq!(first, again, "{records}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("\"trace\"") && l.contains("decision=")),
        "{records}"
    );
    let written = std::fs::read_to_string(&file).expect("the tuned file");
    assert!(
        written.contains("\ndef tuned(sch: T.Schedule):\n"),
        "{written}"
    );
    let output = run(&[
        "run",
        file.to_str().unwrap(),
        "--schedule",
        "tuned",
        "--check",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    // `--tuned` applies the best record of this function on this CPU.
    let database_text = database.to_str().unwrap();
    let output = run(&[
        "run",
        file.to_str().unwrap(),
        "--tuned",
        "--database",
        database_text,
        "--check",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("tirc_tuned_record"),
        "{}",
        text(&output.stdout)
    );
    let other = run(&[
        "run",
        "examples/vector_add.tir",
        "--tuned",
        "--database",
        database_text,
    ]);
    assert_eq!(other.status.code(), Some(2), "{}", text(&other.stderr));
    assert!(
        text(&other.stderr).contains("no tuning record"),
        "{}",
        text(&other.stderr)
    );
}

/// Ctrl-C during `tirc tune` stops the search, keeps every record measured
/// so far and reports the best of them.
#[test]
fn tune_stops_on_interrupt_and_keeps_what_it_found() {
    let program = std::fs::read_to_string("../examples/matmul_128.tir").expect("the example");
    let file = scratch("interrupted.tir", &program);
    let database = file.with_file_name("interrupted.jsonl");
    let _ = std::fs::remove_file(&database);
    let child = Command::new(env!("CARGO_BIN_EXE_tirc"))
        .args([
            "tune",
            file.to_str().unwrap(),
            "--trials",
            "500",
            "--runs",
            "1",
        ])
        .args(["--database", database.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tirc tune starts");
    // Interrupt once two candidates are recorded.
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&database).map_or(0, |t| t.lines().count()) < 2 {
        assert!(started.elapsed().as_secs() < 300, "no records after 300 s");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("tirc tune ends");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains(": interrupted"), "{stderr}");
    let kept = std::fs::read_to_string(&database).expect("the records");
    assert!(
        kept.lines().count() >= 2 && kept.lines().count() < 500,
        "{kept}"
    );
    assert!(
        text(&output.stdout).contains("best: "),
        "{}",
        text(&output.stdout)
    );
}

/// The best time and the unscheduled program's time in `tirc tune`'s report.
fn best_and_unscheduled(report: &str) -> (f64, f64) {
    let number_after = |key: &str| -> f64 {
        let line = report
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("no `{key}` in {report}"));
        let rest = &line[line.find(key).unwrap() + key.len()..];
        rest.trim_start()
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no time in `{line}`"))
    };
    (
        number_after("best:"),
        number_after("the program as written (no schedule):"),
    )
}

/// A few trials on a small convolution (a padding stage, which the space
/// inlines, and a seven-loop reduction) find a correct schedule no slower
/// than the program as written.
#[test]
fn tune_finds_a_correct_conv2d_schedule_no_slower_than_none() {
    let stdlib = std::fs::read_to_string("../stdlib/ops/conv2d_nchw.tir").expect("the operator");
    let mut program = stdlib[..stdlib.find("\ndef ").expect("a schedule")].to_string();
    for (from, to) in [
        ("(1, 64, 56, 56)", "(1, 8, 12, 12)"),
        ("(64, 64, 3, 3)", "(8, 8, 3, 3)"),
        ("(1, 64, 58, 58)", "(1, 8, 14, 14)"),
        ("< 57", "< 13"),
        (
            "T.grid(1, 64, 56, 56, 64, 3, 3)",
            "T.grid(1, 8, 12, 12, 8, 3, 3)",
        ),
    ] {
        assert!(program.contains(from), "{from}");
        program = program.replace(from, to);
    }
    let file = scratch("conv2d_small.tir", &program);
    let database = file.with_file_name("conv2d_records.jsonl");
    let _ = std::fs::remove_file(&database);
    let output = run(&[
        "tune",
        file.to_str().unwrap(),
        "--trials",
        "6",
        "--runs",
        "3",
        "--database",
        database.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let (best, unscheduled) = best_and_unscheduled(&stdout);
    assert!(
        best <= unscheduled,
        "best {best} ms, unscheduled {unscheduled} ms"
    );
    // The best record runs and matches the interpreter.
    let checked = run(&[
        "run",
        file.to_str().unwrap(),
        "--tuned",
        "--database",
        database.to_str().unwrap(),
        "--check-with",
        "interp",
        "--check",
    ]);
    assert!(checked.status.success(), "{}", text(&checked.stderr));
    assert!(
        text(&checked.stdout).contains(": ok"),
        "{}",
        text(&checked.stdout)
    );
}
