//! Diagnostics tests over `tests/diagnostics/`, and the promise that valid
//! programs stay accepted.
//!
//! A test file states what `tirc check` must report, inline, at the end of
//! the line each diagnostic points at:
//!
//! ```text
//!     B[vi] = A[vi + 1]  # error[E0240]: `A[vi + 1]` lies outside
//! ```
//!
//! The text after the code is a prefix of the message. Several expectations
//! may share a line. Every diagnostic must be expected and every expectation
//! met. Header comments choose options (`# check: --strict-casts
//! --warn-loose-regions`) or state that the file is valid (`# expect:
//! clean`). A file without inline expectations keeps the rendered
//! diagnostics in a `.stderr` snapshot beside it instead, written by
//! `TIRC_BLESS=1` (inline expectations are written by hand).

use crate::support::{collect, display_path, tests_root, Failures};
use tirc::check::CheckOptions;
use tirc::diagnostics::{render_text, Diagnostic};
use tirc::driver::{analyze, SourceFile};
use tirc::source::SourceMap;

/// One `# error[E0240]: text` comment.
#[derive(Debug)]
struct Expectation {
    line: usize,
    severity: String,
    code: String,
    message_prefix: String,
}

/// Reads the inline expectations of a file.
fn expectations(text: &str) -> Vec<Expectation> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(position) = ["# error[", "# warning["]
            .iter()
            .filter_map(|marker| rest.find(marker))
            .min()
        {
            let comment = &rest[position + 2..];
            let Some(open) = comment.find('[') else { break };
            let Some(close) = comment.find("]:") else {
                break;
            };
            let severity = comment[..open].to_string();
            let code = comment[open + 1..close].to_string();
            let after = &comment[close + 2..];
            let end = ["# error[", "# warning["]
                .iter()
                .filter_map(|marker| after.find(marker))
                .min()
                .unwrap_or(after.len());
            found.push(Expectation {
                line: number + 1,
                severity,
                code,
                message_prefix: after[..end].trim().to_string(),
            });
            rest = &after[end..];
        }
    }
    found
}

fn options_of(text: &str) -> CheckOptions {
    let mut options = CheckOptions::default();
    for line in text
        .lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
    {
        if let Some(flags) = line.strip_prefix("# check:") {
            options.strict_casts |= flags.contains("--strict-casts");
            options.warn_loose_regions |= flags.contains("--warn-loose-regions");
        }
    }
    options
}

fn expects_clean(text: &str) -> bool {
    text.lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
        .any(|l| l.trim() == "# expect: clean")
}

/// The 1-based line a diagnostic points at.
fn line_of(diagnostic: &Diagnostic, sources: &SourceMap) -> usize {
    sources
        .get(diagnostic.span.file)
        .map(|file| file.line_column(diagnostic.span.start as usize).0 + 1)
        .unwrap_or(0)
}

#[test]
fn diagnostics() {
    let files = collect(&tests_root().join("diagnostics"), ".tir");
    let mut failures = Failures::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let analysis = analyze(
            &SourceFile::new(display_path(path), text.as_str()),
            &options_of(&text),
        );
        let diagnostics = analysis.diagnostics();
        let rendered = render_text(&diagnostics, &analysis.sources, false);
        let expected = expectations(&text);
        if expects_clean(&text) {
            if !diagnostics.is_empty() || !expected.is_empty() {
                failures.add(
                    path,
                    format!("expected no diagnostics (`# expect: clean`), found:\n{rendered}"),
                );
            }
            continue;
        }
        if expected.is_empty() {
            if diagnostics.is_empty() {
                failures.add(
                    path,
                    "a diagnostics test must produce at least one diagnostic",
                );
            }
            failures.expect_file(&path.with_extension("stderr"), &rendered);
            continue;
        }
        let mut unmatched: Vec<&Diagnostic> = diagnostics.iter().collect();
        let mut problems = Vec::new();
        for expectation in &expected {
            let position = unmatched.iter().position(|d| {
                line_of(d, &analysis.sources) == expectation.line
                    && d.severity.as_str() == expectation.severity
                    && d.code == expectation.code
                    && d.message.starts_with(&expectation.message_prefix)
            });
            match position {
                Some(index) => {
                    unmatched.remove(index);
                }
                None => problems.push(format!(
                    "line {}: expected {}[{}]: {}",
                    expectation.line,
                    expectation.severity,
                    expectation.code,
                    expectation.message_prefix
                )),
            }
        }
        for diagnostic in unmatched {
            problems.push(format!(
                "line {}: unexpected {}[{}]: {}",
                line_of(diagnostic, &analysis.sources),
                diagnostic.severity.as_str(),
                diagnostic.code,
                diagnostic.message
            ));
        }
        if !problems.is_empty() {
            failures.add(
                path,
                format!(
                    "{}\n\nwhat tirc check reported:\n{rendered}",
                    problems.join("\n")
                ),
            );
        }
    }
    failures.finish("diagnostics", files.len());
}

/// Every program of the round-trip corpus (524 modules printed by Apache TVM
/// 0.27, and the examples) is valid: the checks report nothing at all.
#[test]
fn valid_programs_verify_clean() {
    let mut files = collect(&tests_root().join("roundtrip"), ".tir");
    files.extend(collect(&tests_root().join("..").join("examples"), ".tir"));
    let mut failures = Failures::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let analysis = analyze(
            &SourceFile::new(display_path(path), text.as_str()),
            &CheckOptions::default(),
        );
        // TVM's lowering writes `T.init()` in blocks whose unit reduction
        // axis it simplified away; tirc warns there (E0231) and accepts.
        let diagnostics: Vec<_> = analysis
            .diagnostics()
            .into_iter()
            .filter(|d| d.is_error() || d.code != "E0231")
            .collect();
        if !diagnostics.is_empty() {
            failures.add(
                path,
                format!(
                    "a valid program got diagnostics:\n{}",
                    render_text(&diagnostics, &analysis.sources, false)
                ),
            );
        }
    }
    failures.finish("valid_programs_verify_clean", files.len());
}
