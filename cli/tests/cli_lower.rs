//! `tirc lower` as a user runs it: the lowered module and the per-pass
//! snapshots print as programs that read back, and the schedule applies
//! unless told not to.

use std::path::{Path, PathBuf};
use tirc::frontend::{parse_program, Program};
use tirc::ir::structural::module_equal;
use tirc::source::SourceMap;
use tirc::transform::{LowerOptions, PIPELINE};

fn tests_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests")
}

fn parse(name: &str, text: &str) -> Result<Program, String> {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, name, text);
    if diagnostics.iter().any(|d| d.is_error()) {
        return Err(tirc::diagnostics::render_text(
            &diagnostics,
            &sources,
            false,
        ));
    }
    program.ok_or_else(|| "no program".to_string())
}

/// Runs the `tirc` binary; its exit code and standard output.
fn tirc(args: &[&str]) -> (i32, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tirc"))
        .args(args)
        .output()
        .expect("the tirc binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn tirc_lower_prints_modules_that_read_back() {
    let case = tests_root().join("lowering").join("cache_local_shared.tir");
    let case = case.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(&case).expect("readable test file");
    let program = parse(&case, &text).expect("the case parses");
    let expected =
        tirc::transform::lower_module(&program.module, &LowerOptions::default()).expect("lowers");

    // The lowered module, in both dialects.
    for dialect in ["classic", "tirx"] {
        let (code, stdout) = tirc(&["lower", "--dialect", dialect, &case]);
        assert_eq!(code, 0, "{stdout}");
        let lowered = parse("<stdout>", &stdout).expect("the output parses");
        // The comparison is blind to the dialect's `tirx.*` attribute keys.
        module_equal(&expected, &lowered.module).expect("the output is the lowered module");
    }

    // One snapshot per pass, each a program of its own.
    let (code, stdout) = tirc(&["lower", "--print-after-all", &case]);
    assert_eq!(code, 0, "{stdout}");
    let snapshots: Vec<&str> = stdout.split("# after ").filter(|s| !s.is_empty()).collect();
    assert_eq!(snapshots.len(), PIPELINE.len());
    for (snapshot, pass) in snapshots.iter().zip(PIPELINE) {
        let (name, program) = snapshot.split_once('\n').unwrap_or((snapshot, ""));
        assert_eq!(name, pass.name);
        parse("<snapshot>", program).unwrap_or_else(|e| panic!("after {}: {e}", pass.name));
    }
    let (code, stdout) = tirc(&["lower", "--print-after", "flatten-buffer", &case]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("# after flatten-buffer\n"), "{stdout}");
    assert!(stdout.contains("A_1 = A.view(1024)"), "{stdout}");

    let (code, _) = tirc(&["lower", "--print-after", "no-such-pass", &case]);
    assert_eq!(code, 2);
}

#[test]
fn tirc_lower_applies_the_schedule_unless_told_not_to() {
    let case = tests_root().join("lowering").join("vectorize_unroll.tir");
    let case = case.to_string_lossy().into_owned();
    let (code, scheduled) = tirc(&["lower", &case]);
    assert_eq!(code, 0);
    assert!(scheduled.contains("T.Ramp("), "{scheduled}");
    let (code, unscheduled) = tirc(&["lower", "--no-schedule", &case]);
    assert_eq!(code, 0);
    assert!(!unscheduled.contains("T.Ramp("), "{unscheduled}");
    assert!(
        unscheduled.contains("for i, j in T.grid(8, 16):"),
        "{unscheduled}"
    );
    let (code, _) = tirc(&["lower", "--schedule", "missing", &case]);
    assert_eq!(code, 1);
}

#[test]
fn print_after_accepts_tvm_pass_names() {
    let case = tests_root().join("lowering").join("cache_local_shared.tir");
    let case = case.to_string_lossy().into_owned();
    let (code, tirc_name) = tirc(&["lower", "--print-after", "flatten-buffer", &case]);
    assert_eq!(code, 0);
    for tvm_name in ["FlattenBuffer", "tir.transform.FlattenBuffer"] {
        let (code, stdout) = tirc(&["lower", "--print-after", tvm_name, &case]);
        assert_eq!(code, 0, "{tvm_name}");
        assert_eq!(stdout, tirc_name, "{tvm_name}");
    }
    let (code, _) = tirc(&["lower", "--print-after", "StorageRewrite", &case]);
    assert_eq!(code, 0);
}
