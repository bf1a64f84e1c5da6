//! A real editor: Neovim, headless, with the README's configuration
//! (`editors/nvim/tirc.lua`) and `tirc` on PATH. A diagnostic arrives for a
//! file with an error, formatting applies, and quitting Neovim ends the
//! server. Neovim is found through `TIRC_NVIM`, else on PATH (`.ci/run`
//! installs one); without it the test says `skipped` loudly and passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn find_nvim() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TIRC_NVIM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("nvim"))
        .find(|candidate| candidate.is_file())
}

/// The processes whose environment holds `marker` (the servers this test started).
fn processes_marked(marker: &str) -> Vec<u32> {
    let needle = format!("TIRC_TEST_MARK={marker}");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|variable| variable == needle.as_bytes())
            })
        })
        .collect()
}

#[test]
fn neovim_gets_diagnostics_formats_and_ends_the_server_on_quit() {
    let Some(nvim) = find_nvim() else {
        eprintln!("skipped: no Neovim (set TIRC_NVIM or put nvim on PATH)");
        return;
    };
    let scratch = std::env::temp_dir().join(format!("tirc-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let broken = scratch.join("broken.tir");
    std::fs::write(
        &broken,
        "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = undefined_name\n",
    )
    .unwrap();
    let unformatted = scratch.join("unformatted.tir");
    let unformatted_text = "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = A[i]+T.float32(1)\n";
    std::fs::write(&unformatted, unformatted_text).unwrap();
    let report_path = scratch.join("report.json");

    let tirc = PathBuf::from(env!("CARGO_BIN_EXE_tirc"));
    let path = std::env::join_paths(std::iter::once(tirc.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let marker = format!("{}-{}", std::process::id(), line!());
    let editors = workspace().join("editors/nvim");
    let mut child = Command::new(&nvim)
        .args(["--headless", "--clean", "-n", "-i", "NONE"])
        .arg("-c")
        .arg(format!("luafile {}", editors.join("tirc.lua").display()))
        .arg("-c")
        .arg(format!(
            "luafile {}",
            editors.join("test/lsp_session.lua").display()
        ))
        .env("PATH", path)
        .env("TIRC_TEST_MARK", &marker)
        .env("TIRC_NVIM_BROKEN", &broken)
        .env("TIRC_NVIM_UNFORMATTED", &unformatted)
        .env("TIRC_NVIM_REPORT", &report_path)
        .env("XDG_STATE_HOME", &scratch)
        .env("XDG_DATA_HOME", &scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nvim starts");
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("Neovim did not quit within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "nvim exited with {status}");

    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&report_path).expect("the session wrote its report"),
    )
    .expect("the report is JSON");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert!(
        diagnostics.iter().any(|d| d["line"] == 4
            && d["message"]
                .as_str()
                .is_some_and(|m| m.contains("undefined_name"))),
        "{report}"
    );
    let expected = Command::new(&tirc)
        .args(["fmt", unformatted.to_str().unwrap()])
        .output()
        .unwrap();
    let expected = String::from_utf8_lossy(&expected.stdout);
    assert_ne!(expected, unformatted_text);
    assert_eq!(report["formatted"].as_str(), Some(&*expected), "{report}");

    // Quitting Neovim ends the server it started.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_marked(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        processes_marked(&marker),
        Vec::<u32>::new(),
        "a server outlived Neovim"
    );
}
