//! `tirc fmt`: a `.tir` file printed canonically. The IR is re-printed; the
//! file-level header comments and the schedule sections are kept as written
//! (TVM import lines are rewritten for the target dialect).

use crate::diagnostics::Diagnostic;
use crate::frontend::{parse_program, Program, ProgramForm};
use crate::printer::{self, Dialect, PrintOptions};
use crate::source::SourceMap;

/// True for the comment lines TVM prints as its import header.
fn is_import_comment(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("from tvm.script import")
        || line.starts_with("from tvm.tirx.layout import")
        || line.starts_with("from typing import TypeVar")
        || line.starts_with("from tvm import")
        || line.starts_with("import tvm")
}

/// The header comment lines of the formatted file: the file's own comments,
/// with its block of TVM import lines replaced by the target dialect's.
fn header(program: &Program, dialect: Dialect) -> Vec<String> {
    let has_type_vars = program
        .module
        .functions
        .iter()
        .any(|f| !printer::type_vars_of(f).is_empty());
    let standard =
        printer::header_lines(dialect, program.form == ProgramForm::Module, has_type_vars);
    let mut lines = Vec::new();
    let mut imports_written = false;
    for comment in &program.header_comments {
        if is_import_comment(comment) {
            if !imports_written {
                lines.extend(standard.iter().cloned());
                imports_written = true;
            }
        } else {
            lines.push(format!("#{comment}"));
        }
    }
    if program.header_comments.is_empty() {
        lines.extend(standard);
    }
    lines
}

/// Prints a lowered program in `dialect` (the dialect it was written in when `None`).
pub fn print_program(program: &Program, dialect: Option<Dialect>) -> String {
    let dialect = dialect.unwrap_or(program.dialect);
    let options = PrintOptions {
        dialect,
        header: false,
        convert_attr_keys: dialect != program.dialect,
    };
    let mut out = String::new();
    let header = header(program, dialect);
    if !header.is_empty() {
        out.push_str(&header.join("\n"));
        out.push_str("\n\n");
    }
    match program.form {
        ProgramForm::Module => out.push_str(&printer::print_module(&program.module, &options)),
        ProgramForm::Function => {
            for (i, func) in program.module.functions.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&printer::print_function(func, &options));
            }
        }
    }
    for schedule in &program.schedules {
        out.push('\n');
        out.push_str(&schedule.text);
        out.push('\n');
    }
    out
}

/// Formats source text: `Ok` with the canonical text, or the diagnostics
/// that prevented it (with the source map that renders them).
pub fn format_source(
    name: &str,
    text: &str,
    dialect: Option<Dialect>,
) -> Result<String, (Vec<Diagnostic>, SourceMap)> {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, name, text);
    match program {
        Some(program) if !diagnostics.iter().any(Diagnostic::is_error) => {
            Ok(print_program(&program, dialect))
        }
        _ => Err((diagnostics, sources)),
    }
}
