//! How the command prints what the driver reports: diagnostics as text on
//! standard error (coloured per `--color` and `NO_COLOR`) or as JSON on
//! standard output, and errors without a place in the input through miette.
//! With a JSON flag, standard output carries JSON for every outcome.

use super::{EXIT_DIAGNOSTICS, EXIT_USAGE};
use std::io::IsTerminal;
use std::sync::OnceLock;
use tirc::diagnostics::{render_text, to_json, Diagnostic};
use tirc::driver::{ApplicationErrorKind, DriverError};
use tirc::source::SourceMap;

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when standard error is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

static COLOR: OnceLock<bool> = OnceLock::new();

/// Fixes whether diagnostics are coloured for the rest of the process.
pub fn set_color(choice: ColorChoice) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => !no_color && std::io::stderr().is_terminal(),
    };
    let _ = COLOR.set(color);
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .color(color)
                .unicode(color)
                .build(),
        )
    }));
}

fn color() -> bool {
    *COLOR.get().unwrap_or(&false)
}

/// How diagnostics are printed.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum DiagnosticFormat {
    /// `file:line:col` with the source line and carets, on standard error.
    Text,
    /// One JSON object per line, on standard output.
    Json,
}

/// The most diagnostics printed as text: past that (random bytes give tens
/// of thousands) the rest are counted, not shown. JSON carries them all.
pub const MAX_TEXT_DIAGNOSTICS: usize = 100;

/// Prints diagnostics in the requested format.
pub fn emit_diagnostics(diagnostics: &[Diagnostic], sources: &SourceMap, format: DiagnosticFormat) {
    match format {
        DiagnosticFormat::Text if diagnostics.len() > MAX_TEXT_DIAGNOSTICS => {
            let (shown, left_out) = diagnostics.split_at(MAX_TEXT_DIAGNOSTICS);
            eprint!("{}", render_text(shown, sources, color()));
            let errors = left_out.iter().filter(|d| d.is_error()).count();
            eprintln!(
                "note: {} more diagnostics not shown ({errors} of them errors); fix the first ones first; `tirc check --format json` lists every one",
                left_out.len()
            );
        }
        DiagnosticFormat::Text => eprint!("{}", render_text(diagnostics, sources, color())),
        DiagnosticFormat::Json => {
            for diagnostic in diagnostics {
                println!("{}", to_json(diagnostic, sources));
            }
        }
    }
}

/// The exit code of an application error of this kind.
fn exit_code(kind: ApplicationErrorKind) -> u8 {
    match kind {
        ApplicationErrorKind::Io
        | ApplicationErrorKind::Usage
        | ApplicationErrorKind::Toolchain => EXIT_USAGE,
        ApplicationErrorKind::Failed => EXIT_DIAGNOSTICS,
    }
}

/// The JSON form of an error: `{"ok": false, "error": {...}}` or
/// `{"ok": false, "diagnostics": [...]}`.
pub fn error_json(error: &DriverError) -> serde_json::Value {
    match error {
        DriverError::Diagnostics {
            diagnostics,
            sources,
        } => serde_json::json!({
            "ok": false,
            "diagnostics": diagnostics.iter().map(|d| to_json(d, sources)).collect::<Vec<_>>(),
        }),
        DriverError::Application {
            kind,
            message,
            help,
        } => serde_json::json!({
            "ok": false,
            "error": {
                "kind": format!("{kind:?}").to_lowercase(),
                "message": message,
                "help": help,
            },
        }),
    }
}

/// Prints an error as the format asks; the exit code.
pub fn report(error: DriverError, format: DiagnosticFormat) -> u8 {
    let code = match &error {
        DriverError::Diagnostics { .. } => EXIT_DIAGNOSTICS,
        DriverError::Application { kind, .. } => exit_code(*kind),
    };
    if format == DiagnosticFormat::Json {
        println!("{}", error_json(&error));
        return code;
    }
    match error {
        DriverError::Diagnostics {
            diagnostics,
            sources,
        } => emit_diagnostics(&diagnostics, &sources, format),
        DriverError::Application { message, help, .. } => {
            let report = match help {
                Some(help) => miette::miette!(help = help, "{message}"),
                None => miette::miette!("{message}"),
            };
            eprintln!("{report:?}");
        }
    }
    code
}

/// Reports a problem with no place in the input (text mode); the exit code.
pub fn report_application(kind: ApplicationErrorKind, message: impl Into<String>) -> u8 {
    report(
        DriverError::application(kind, message),
        DiagnosticFormat::Text,
    )
}
