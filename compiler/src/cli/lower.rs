//! `tirc lower`: apply a file's schedule section, run the lowering pipeline
//! and print the lowered module, or the module after chosen passes.

use super::{
    emit_diagnostics, read_input, DiagnosticFormat, DialectArg, EXIT_DIAGNOSTICS, EXIT_OK,
    EXIT_USAGE,
};
use crate::check::{check_source, CheckOptions};
use crate::frontend::Program;
use crate::ir::IRModule;
use crate::printer::Dialect;
use crate::schedule::{apply_schedule, print_scheduled};
use crate::transform::{is_pass_name, lower_module_observed, pass_names, LowerOptions};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `tirc lower`.
#[derive(Args, Debug)]
pub struct LowerArgs {
    /// The `.tir` file (`-` for standard input).
    file: PathBuf,
    /// The dialect to print.
    #[arg(long, value_enum, default_value = "classic")]
    dialect: DialectArg,
    /// The schedule `def` to apply first (default: the only one, or `schedule`).
    #[arg(long = "schedule", value_name = "NAME", conflicts_with = "no_schedule")]
    schedule: Option<String>,
    /// Lower the program as written, ignoring its schedule sections.
    #[arg(long)]
    no_schedule: bool,
    /// Print the module after this pass (every time it runs) instead of the
    /// lowered module.
    #[arg(long, value_name = "PASS", conflicts_with = "print_after_all")]
    print_after: Vec<String>,
    /// Print the module after every pass.
    #[arg(long)]
    print_after_all: bool,
}

/// Runs `tirc lower`.
pub fn run(args: LowerArgs) -> u8 {
    for name in &args.print_after {
        if !is_pass_name(name) {
            eprintln!(
                "error: there is no pass `{name}`; the passes are: {}",
                pass_names().join(", ")
            );
            return EXIT_USAGE;
        }
    }
    let (name, text) = match read_input(&args.file) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("{message}");
            return EXIT_USAGE;
        }
    };
    let mut sources = crate::source::SourceMap::new();
    let checked = check_source(&mut sources, &name, &text, &CheckOptions::default());
    let program = match checked.program {
        Some(program) if !checked.has_errors() => program,
        _ => {
            emit_diagnostics(&checked.diagnostics, &sources, DiagnosticFormat::Text);
            return EXIT_DIAGNOSTICS;
        }
    };
    let module = if args.no_schedule {
        program.module.clone()
    } else {
        let run = apply_schedule(&program, args.schedule.as_deref());
        if !run.succeeded() {
            emit_diagnostics(&run.diagnostics, &sources, DiagnosticFormat::Text);
            return EXIT_DIAGNOSTICS;
        }
        run.module().clone()
    };
    let dialect: Dialect = args.dialect.into();
    let mut out = String::new();
    let mut observe = |pass: &crate::transform::Pass, module: &IRModule| {
        if args.print_after_all || args.print_after.iter().any(|n| n == pass.name) {
            out.push_str(&format!("# after {}\n", pass.name));
            out.push_str(&print_lowered(&program, module, dialect));
            out.push('\n');
        }
    };
    let lowered = lower_module_observed(&module, &LowerOptions::default(), &mut observe);
    let printed_passes = !out.is_empty();
    print!("{out}");
    match lowered {
        Ok(lowered) => {
            if !printed_passes && args.print_after.is_empty() && !args.print_after_all {
                print!("{}", print_lowered(&program, &lowered, dialect));
            }
            EXIT_OK
        }
        Err(diagnostics) => {
            emit_diagnostics(&diagnostics, &sources, DiagnosticFormat::Text);
            EXIT_DIAGNOSTICS
        }
    }
}

/// The lowered module as a `.tir` file: the program's header comments, the
/// module, no schedule sections (they applied already).
pub fn print_lowered(program: &Program, module: &IRModule, dialect: Dialect) -> String {
    print_scheduled(program, module, Some(dialect))
}
