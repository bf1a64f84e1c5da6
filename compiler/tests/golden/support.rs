//! Shared machinery of the golden tests: finding files, comparing against
//! expectations with a readable diff, and blessing (`TIRC_BLESS=1` rewrites
//! the expectation files instead of failing).

use std::path::{Path, PathBuf};

/// The workspace's `tests/` folder.
pub fn tests_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
}

/// True when expectations should be rewritten.
pub fn blessing() -> bool {
    std::env::var_os("TIRC_BLESS").is_some_and(|v| v != "0")
}

/// Every file under `dir` (recursively) whose name ends with `suffix`, sorted.
pub fn collect(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A path shown relative to the workspace root, as diagnostics print it.
pub fn display_path(path: &Path) -> String {
    let root = tests_root().join("..");
    let root = root.canonicalize().unwrap_or(root);
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    path.strip_prefix(&root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// A unified diff of two texts.
pub fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

/// Failures collected over a whole test kind.
#[derive(Default)]
pub struct Failures(Vec<String>);

impl Failures {
    /// Records a failure for a file.
    pub fn add(&mut self, path: &Path, message: impl Into<String>) {
        self.0
            .push(format!("{}: {}", display_path(path), message.into()));
    }

    /// Compares `actual` with the expectation file, or rewrites it when blessing.
    pub fn expect_file(&mut self, expected_path: &Path, actual: &str) {
        if blessing() {
            if std::fs::read_to_string(expected_path).ok().as_deref() != Some(actual) {
                std::fs::write(expected_path, actual).expect("cannot write an expectation file");
            }
            return;
        }
        match std::fs::read_to_string(expected_path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => self.add(expected_path, format!("output differs:\n{}", diff(&expected, actual))),
            Err(_) => self.add(
                expected_path,
                format!("missing expectation file; run with TIRC_BLESS=1 to create it. Actual output:\n{actual}"),
            ),
        }
    }

    /// Panics with every failure when there is any.
    pub fn finish(self, kind: &str, checked: usize) {
        assert!(checked > 0, "{kind}: no test files found");
        if !self.0.is_empty() {
            panic!(
                "{kind}: {} of {checked} files failed\n\n{}\n\n(bless expectations with TIRC_BLESS=1 after checking the output)",
                self.0.len(),
                self.0.join("\n\n")
            );
        }
        eprintln!("{kind}: {checked} files passed");
    }
}
