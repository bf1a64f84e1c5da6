//! `tirc fmt`: a `.tir` file printed canonically. The IR is re-printed; the
//! file-level header comments and the schedule sections are kept as written
//! (TVM import lines are rewritten for the target dialect).

mod token_layout;

pub use token_layout::format_token_layout;

use crate::diagnostics::Diagnostic;
use crate::frontend::{parse_program, Program, ProgramForm};
use crate::ir::IRModule;
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

/// Writes the header comment lines of the formatted file: the file's own
/// comments, with its block of TVM import lines replaced by the target
/// dialect's. `module` is the module printed after them.
fn write_header(out: &mut String, program: &Program, module: &IRModule, dialect: Dialect) {
    let has_type_vars = module
        .functions
        .iter()
        .any(|f| !printer::type_vars_of(f).is_empty());
    let standard =
        printer::header_lines(dialect, program.form == ProgramForm::Module, has_type_vars);
    let write_standard = |out: &mut String| {
        for line in &standard {
            out.push_str(line);
            out.push('\n');
        }
    };
    let mut imports_written = false;
    for comment in &program.header_comments {
        if is_import_comment(comment) {
            if !imports_written {
                write_standard(out);
                imports_written = true;
            }
        } else {
            out.push('#');
            out.push_str(comment);
            out.push('\n');
        }
    }
    if program.header_comments.is_empty() {
        write_standard(out);
    }
    // A blank line between the header and the program.
    if !out.is_empty() {
        out.push('\n');
    }
}

/// Prints a lowered program in `dialect` (the dialect it was written in
/// when `None`) as `tirc fmt` does: the source's comments kept, and regions
/// and the root-block line printed only where the source wrote them.
pub fn print_program(program: &Program, dialect: Option<Dialect>) -> String {
    print_program_as(program, dialect, false)
}

/// [`print_program`]; with `explicit`, every inferred region and root-block
/// line is printed, as TVM prints the module (`tirc fmt --explicit`).
pub fn print_program_as(program: &Program, dialect: Option<Dialect>, explicit: bool) -> String {
    let mut out = print_module_of(program, &program.module, dialect, explicit);
    let intrinsics = print_tensor_intrinsics(program, dialect, explicit);
    if !intrinsics.is_empty() {
        // One blank line after the module, or after the header alone.
        out.truncate(out.trim_end_matches('\n').len());
        out.push_str("\n\n");
        out.push_str(&intrinsics);
    }
    for schedule in &program.schedules {
        out.push('\n');
        out.push_str(&format_token_layout(&schedule.text));
        out.push('\n');
    }
    out
}

/// Prints `program` with `module` in place of its own module (a schedule's
/// result), without the schedule sections: everything as TVM prints it,
/// and the source's comments at the statements that survive.
pub fn print_program_with_module(
    program: &Program,
    module: &IRModule,
    dialect: Option<Dialect>,
) -> String {
    print_module_of(program, module, dialect, true)
}

/// The file's tensor intrinsics: their functions, each once, in order, then
/// the registration lines; empty when it registers none.
fn print_tensor_intrinsics(program: &Program, dialect: Option<Dialect>, explicit: bool) -> String {
    if program.tensor_intrinsics.is_empty() {
        return String::new();
    }
    let mut functions: Vec<crate::ir::PrimFunc> = Vec::new();
    for intrinsic in &program.tensor_intrinsics {
        for func in [&intrinsic.description, &intrinsic.implementation] {
            if !functions.iter().any(|f| f.name == func.name) {
                functions.push(func.clone());
            }
        }
    }
    let options = print_options(program, dialect, explicit);
    let mut out = String::new();
    out.push_str(&printer::print_functions(&functions, &options));
    out.push('\n');
    for intrinsic in &program.tensor_intrinsics {
        out.push_str(&crate::frontend::tensor_intrin::registration_line(
            intrinsic,
        ));
        out.push('\n');
    }
    out
}

/// How the program's functions are printed: in `dialect` (its own when
/// `None`), with its comments.
fn print_options(program: &Program, dialect: Option<Dialect>, explicit: bool) -> PrintOptions {
    let dialect = dialect.unwrap_or(program.dialect);
    PrintOptions {
        dialect,
        header: false,
        convert_attr_keys: dialect != program.dialect,
        layout: Some(program.layout.clone()),
        explicit,
    }
}

fn print_module_of(
    program: &Program,
    module: &IRModule,
    dialect: Option<Dialect>,
    explicit: bool,
) -> String {
    let options = print_options(program, dialect, explicit);
    let mut out = String::new();
    write_header(&mut out, program, module, options.dialect);
    match program.form {
        ProgramForm::Module => out.push_str(&printer::print_module(module, &options)),
        ProgramForm::Function => {
            out.push_str(&printer::print_functions(&module.functions, &options))
        }
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
    format_source_as(name, text, dialect, false)
}

/// [`format_source`]; with `explicit`, inferred regions and the root-block
/// line are printed as TVM prints them (`tirc fmt --explicit`).
pub fn format_source_as(
    name: &str,
    text: &str,
    dialect: Option<Dialect>,
    explicit: bool,
) -> Result<String, (Vec<Diagnostic>, SourceMap)> {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, name, text);
    match program {
        Some(program) if !diagnostics.iter().any(Diagnostic::is_error) => {
            Ok(print_program_as(&program, dialect, explicit))
        }
        _ => Err((diagnostics, sources)),
    }
}

/// How [`format_source_leniently`] formatted a file.
#[derive(Debug)]
pub enum Formatted {
    /// Printed from its IR: the canonical form.
    Canonical(String),
    /// The program has errors but parses: only its layout (spacing,
    /// indentation, blank lines) was formatted, token by token, since an
    /// erroneous statement has no IR to print; the errors come with it.
    LayoutOnly(String, Vec<Diagnostic>, SourceMap),
}

/// [`format_source_as`], also formatting the layout of a file whose program
/// has errors other than syntax errors (an undefined name), as a user who
/// formats on save while typing wants; a syntax error is still refused.
pub fn format_source_leniently(
    name: &str,
    text: &str,
    dialect: Option<Dialect>,
    explicit: bool,
) -> Result<Formatted, (Vec<Diagnostic>, SourceMap)> {
    match format_source_as(name, text, dialect, explicit) {
        Ok(formatted) => Ok(Formatted::Canonical(formatted)),
        Err((diagnostics, sources)) => {
            let syntax = diagnostics
                .iter()
                .any(|d| d.is_error() && d.code == crate::frontend::codes::SYNTAX);
            if syntax {
                return Err((diagnostics, sources));
            }
            let mut formatted = format_token_layout(text);
            formatted.push('\n');
            Ok(Formatted::LayoutOnly(formatted, diagnostics, sources))
        }
    }
}
