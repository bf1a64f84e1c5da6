//! Checks run after every schedule step in tests and under `--verify-each`:
//! the verifier accepts the module, the module prints, the printed text
//! parses back, and the parse is structurally equal to the step's IR. A step
//! that fails this is a bug in the schedule engine or the printer, not a
//! message for the user.

use crate::check::CheckOptions;
use crate::diagnostics::Diagnostic;
use crate::frontend::parse_program;
use crate::ir::structural::module_equal;
use crate::ir::IRModule;
use crate::printer::{print_module, Dialect, PrintOptions};
use crate::source::SourceMap;
use crate::verify::verify_module;

/// Verifies the module, prints it in `dialect`, parses it back and compares
/// the two; `Err` says what went wrong (with the printed text). Verifier
/// errors whose code is in `tolerated` are not failures (a split with
/// `disable_predication=True` binds iterators outside their domains on
/// purpose, which the verifier reports as E0230).
pub fn check_module(module: &IRModule, dialect: Dialect, tolerated: &[&str]) -> Result<(), String> {
    let printed = print_module(module, &PrintOptions::new(dialect));
    let errors: Vec<Diagnostic> = verify_module(module, &CheckOptions::default())
        .into_iter()
        .filter(|d| d.is_error() && !tolerated.contains(&d.code.as_str()))
        .collect();
    if !errors.is_empty() {
        let messages: Vec<String> = errors
            .iter()
            .map(|d| format!("{}[{}]: {}", d.severity.as_str(), d.code, d.message))
            .collect();
        return Err(format!(
            "the verifier refuses the module:\n{}\n{printed}",
            messages.join("\n")
        ));
    }
    let mut sources = SourceMap::new();
    let (reparsed, diagnostics) = parse_program(&mut sources, "<step>", &printed);
    if diagnostics.iter().any(|d| d.is_error()) {
        return Err(format!(
            "the printed module does not parse:\n{}\n{printed}",
            crate::diagnostics::render_text(&diagnostics, &sources, false)
        ));
    }
    let Some(reparsed) = reparsed else {
        return Err(format!("the printed module does not parse:\n{printed}"));
    };
    module_equal(module, &reparsed.module).map_err(|difference| {
        format!("the printed module reads back differently: {difference}\n{printed}")
    })
}
