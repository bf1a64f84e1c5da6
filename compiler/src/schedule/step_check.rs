//! Checks run after every schedule step in tests and under `--verify-each`:
//! the module prints, the printed text parses back, and the parse is
//! structurally equal to the step's IR. A step that fails this is a bug in
//! the schedule engine or the printer, not a message for the user.
//!
//! When the verifier (`tirc::verify::verify_module`) is on `main`, its call
//! belongs in [`check_module`] beside the round trip.

use crate::frontend::parse_program;
use crate::ir::structural::module_equal;
use crate::ir::IRModule;
use crate::printer::{print_module, Dialect, PrintOptions};
use crate::source::SourceMap;

/// Prints the module in `dialect`, parses it back and compares the two;
/// `Err` says what went wrong (with the printed text).
pub fn check_module(module: &IRModule, dialect: Dialect) -> Result<(), String> {
    let printed = print_module(module, &PrintOptions::new(dialect));
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
