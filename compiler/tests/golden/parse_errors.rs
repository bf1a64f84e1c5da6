//! Diagnostics tests over `tests/parse_errors/`: each broken `.tir` file has
//! the expected rendered diagnostics (message, `file:line:col`, caret) in a
//! sibling `.stderr` file. Bless with `TIRC_BLESS=1`.

use crate::support::{collect, display_path, tests_root, Failures};
use tirc::diagnostics::render_text;
use tirc::frontend::parse_program;
use tirc::source::SourceMap;

#[test]
fn parse_errors() {
    let files = collect(&tests_root().join("parse_errors"), ".tir");
    let mut failures = Failures::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let mut sources = SourceMap::new();
        let (_, diagnostics) = parse_program(&mut sources, &display_path(path), &text);
        if !diagnostics.iter().any(|d| d.is_error()) {
            failures.add(path, "expected at least one error, found none");
            continue;
        }
        let rendered = render_text(&diagnostics, &sources, false);
        failures.expect_file(&path.with_extension("stderr"), &rendered);
    }
    failures.finish("parse_errors", files.len());
}
