//! Round-trip tests over `tests/roundtrip/`: every canonical file prints back
//! byte for byte in its own dialect, `parse(print(parse(t)))` equals
//! `parse(t)`, and classic → tirx → classic is the identity.
//!
//! A file whose header carries `# roundtrip: structural` is checked only
//! structurally (it is valid input but not in canonical form).

use crate::support::{collect, tests_root, Failures};
use tirc::format::print_program;
use tirc::frontend::{parse_program, Program};
use tirc::ir::structural::module_equal;
use tirc::printer::Dialect;
use tirc::source::SourceMap;

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

#[test]
fn roundtrip() {
    let files = collect(&tests_root().join("roundtrip"), ".tir");
    let mut failures = Failures::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let name = crate::support::display_path(path);
        let program = match parse(&name, &text) {
            Ok(p) => p,
            Err(errors) => {
                failures.add(path, format!("does not parse:\n{errors}"));
                continue;
            }
        };
        let structural_only = program
            .header_comments
            .iter()
            .any(|c| c.trim() == "roundtrip: structural");
        let printed = print_program(&program, None);
        if !structural_only && printed != text {
            failures.add(
                path,
                format!(
                    "not printed back byte for byte:\n{}",
                    crate::support::diff(&text, &printed)
                ),
            );
        }
        match parse(&name, &printed) {
            Ok(reparsed) => {
                if let Err(difference) = module_equal(&program.module, &reparsed.module) {
                    failures.add(
                        path,
                        format!("parse(print(parse(t))) differs from parse(t): {difference}"),
                    );
                }
            }
            Err(errors) => failures.add(
                path,
                format!("the printed text does not parse:\n{errors}\n{printed}"),
            ),
        }
        // classic → tirx → classic is the identity, in text and in IR.
        let classic = print_program(&program, Some(Dialect::Classic));
        let classic_program = match parse(&name, &classic) {
            Ok(p) => p,
            Err(errors) => {
                failures.add(
                    path,
                    format!("the classic form does not parse:\n{errors}\n{classic}"),
                );
                continue;
            }
        };
        let via_tirx = print_program(&classic_program, Some(Dialect::Tirx));
        // TVM 0.26 dropped `buffer_type` and `axis_separators`: the tirx form
        // leaves them out, so it parses but is not the same module.
        let tirx_drops_fields =
            classic.contains("buffer_type=") || classic.contains("axis_separators=");
        if via_tirx.contains("buffer_type=") || via_tirx.contains("axis_separators=") {
            failures.add(
                path,
                "the tirx form holds `buffer_type=` or `axis_separators=`, which TVM 0.26+ cannot read",
            );
        }
        match parse(&name, &via_tirx) {
            Ok(_) if tirx_drops_fields => {}
            Ok(back) => {
                let classic_again = print_program(&back, Some(Dialect::Classic));
                if classic_again != classic {
                    failures.add(
                        path,
                        format!(
                            "classic → tirx → classic changed the text:\n{}",
                            crate::support::diff(&classic, &classic_again)
                        ),
                    );
                }
                // The comparison (`tirc diff`) is blind to the dialect: a
                // file and its tirx form are one module.
                if let Err(difference) = module_equal(&classic_program.module, &back.module) {
                    failures.add(
                        path,
                        format!("classic → tirx → classic changed the IR: {difference}"),
                    );
                }
            }
            Err(errors) => failures.add(
                path,
                format!("the tirx form does not parse:\n{errors}\n{via_tirx}"),
            ),
        }
    }
    failures.finish("roundtrip", files.len());
}

/// The comments of `text` in order, TVM's import lines left out (the
/// formatter writes them for the dialect).
fn comments_of(text: &str) -> Vec<String> {
    tirc_grammar::parse_file(text)
        .file
        .comments
        .into_iter()
        .map(|comment| comment.text.trim().to_string())
        .filter(|text| {
            !(text.starts_with("from tvm")
                || text.starts_with("import tvm")
                || text.starts_with("from typing"))
        })
        .collect()
}

/// Every comment of every test file that formats comes out of `tirc fmt`
/// once, in order (issue 24.14); and formatting is idempotent with them.
#[test]
fn formatting_keeps_every_comment_in_order() {
    let files = collect(&tests_root(), ".tir");
    let mut failures = Failures::default();
    let mut formatted_files = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let name = crate::support::display_path(path);
        let Ok(formatted) = tirc::format::format_source(&name, &text, None) else {
            continue;
        };
        formatted_files += 1;
        let (before, after) = (comments_of(&text), comments_of(&formatted));
        if before != after {
            failures.add(
                path,
                format!(
                    "comments changed by formatting:\n{}",
                    crate::support::diff(&before.join("\n"), &after.join("\n"))
                ),
            );
            continue;
        }
        // Where the formatted file formats again (some printed forms do not
        // read back: see tests/tvm/noparse), the second pass changes nothing.
        if let Ok(again) = tirc::format::format_source(&name, &formatted, None) {
            if again != formatted {
                failures.add(
                    path,
                    format!(
                        "formatting twice differs:\n{}",
                        crate::support::diff(&formatted, &again)
                    ),
                );
            }
        }
    }
    assert!(
        formatted_files > 500,
        "only {formatted_files} files formatted"
    );
    failures.finish("formatting_keeps_every_comment_in_order", files.len());
}
