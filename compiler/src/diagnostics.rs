//! The one diagnostic type of the compiler, and its renderings: terminal text
//! through codespan-reporting, and JSON for editors and scripts.

use crate::source::{SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;
use std::fmt::Write as _;
use std::ops::Range;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Extra information attached to the run.
    Note,
    /// Suspicious but accepted.
    Warning,
    /// The input is refused.
    Error,
}

impl Severity {
    /// The lowercase name used in text and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A secondary location with a label, such as "defined here".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The location.
    pub span: Span,
    /// What the location has to do with the diagnostic.
    pub message: String,
}

/// A problem found in the input, with where it is and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// A stable code such as `E0104`; empty for diagnostics without a code.
    pub code: String,
    /// One line saying what is wrong.
    pub message: String,
    /// Where it is wrong.
    pub span: Span,
    /// The label under the primary caret; may be empty.
    pub label: String,
    /// Other places that explain the problem.
    pub secondary: Vec<Label>,
    /// Extra facts, one line each.
    pub notes: Vec<String>,
    /// How to fix it, when there is an obvious way.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A new error at `span`.
    pub fn error(code: &str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message, span)
    }

    /// A new warning at `span`.
    pub fn warning(code: &str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message, span)
    }

    /// A new diagnostic of any severity.
    pub fn new(
        severity: Severity,
        code: &str,
        message: impl Into<String>,
        span: Span,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            code: code.to_string(),
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// Sets the label under the primary caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary location.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        if span.is_known() {
            self.secondary.push(Label {
                span,
                message: message.into(),
            });
        }
        self
    }

    /// Adds a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The diagnostic with every span cut to its first line: passes blame
    /// whole loops and blocks, and their header line is what a reader needs.
    pub fn at_first_lines(mut self, sources: &SourceMap) -> Diagnostic {
        let first_line = |span: Span| match sources.get(span.file) {
            Some(file) => span.first_line(&file.text),
            None => span,
        };
        self.span = first_line(self.span);
        for label in &mut self.secondary {
            label.span = first_line(label.span);
        }
        self
    }
}

/// Orders diagnostics by file and position, then removes exact duplicates.
pub fn sort_diagnostics(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.span.end));
    diagnostics.dedup();
}

/// Adapts a [`SourceMap`] to codespan-reporting's file database.
struct SourceFiles<'a>(&'a SourceMap);

impl<'a> Files<'a> for SourceFiles<'a> {
    type FileId = u32;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: u32) -> Result<&'a str, FilesError> {
        Ok(&self
            .0
            .get(crate::source::FileId(id))
            .ok_or(FilesError::FileMissing)?
            .name)
    }

    fn source(&'a self, id: u32) -> Result<&'a str, FilesError> {
        Ok(&self
            .0
            .get(crate::source::FileId(id))
            .ok_or(FilesError::FileMissing)?
            .text)
    }

    fn line_index(&'a self, id: u32, byte_index: usize) -> Result<usize, FilesError> {
        let file = self
            .0
            .get(crate::source::FileId(id))
            .ok_or(FilesError::FileMissing)?;
        Ok(file.line_column(byte_index.min(file.text.len())).0)
    }

    fn line_range(&'a self, id: u32, line_index: usize) -> Result<Range<usize>, FilesError> {
        let file = self
            .0
            .get(crate::source::FileId(id))
            .ok_or(FilesError::FileMissing)?;
        let starts = file.line_starts();
        let start = *starts.get(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            max: starts.len() - 1,
        })?;
        let end = starts
            .get(line_index + 1)
            .copied()
            .unwrap_or(file.text.len());
        Ok(start..end)
    }
}

fn to_codespan(diagnostic: &Diagnostic, sources: &SourceMap) -> cs::Diagnostic<u32> {
    let severity = match diagnostic.severity {
        Severity::Note => cs::Severity::Note,
        Severity::Warning => cs::Severity::Warning,
        Severity::Error => cs::Severity::Error,
    };
    let mut labels = Vec::new();
    let clamp = |span: Span| -> Option<(u32, Range<usize>)> {
        let file = sources.get(span.file)?;
        let end = (span.end as usize).min(file.text.len());
        let start = (span.start as usize).min(end);
        Some((span.file.0, start..end))
    };
    if let Some((file, range)) = clamp(diagnostic.span) {
        labels.push(cs::Label::primary(file, range).with_message(diagnostic.label.clone()));
    }
    for label in &diagnostic.secondary {
        if let Some((file, range)) = clamp(label.span) {
            labels.push(cs::Label::secondary(file, range).with_message(label.message.clone()));
        }
    }
    let mut notes = diagnostic.notes.clone();
    if let Some(help) = &diagnostic.help {
        notes.push(format!("help: {help}"));
    }
    let mut rendered = cs::Diagnostic::new(severity)
        .with_message(diagnostic.message.clone())
        .with_labels(labels)
        .with_notes(notes);
    if !diagnostic.code.is_empty() {
        rendered = rendered.with_code(diagnostic.code.clone());
    }
    rendered
}

/// Renders diagnostics as terminal text (`file:line:col`, the source line and
/// carets), with colour when `color` is true.
pub fn render_text(diagnostics: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let config = term::Config::default();
    let files = SourceFiles(sources);
    let mut out = String::new();
    for diagnostic in diagnostics {
        let rendered = to_codespan(diagnostic, sources);
        let result = if color {
            let mut bytes = Vec::new();
            let mut writer = term::termcolor::Ansi::new(&mut bytes);
            let result = term::emit_to_write_style(&mut writer, &config, &files, &rendered);
            out.push_str(&String::from_utf8_lossy(&bytes));
            result
        } else {
            term::emit_to_string(&mut out, &config, &files, &rendered)
        };
        if result.is_err() {
            let _ = writeln!(
                out,
                "{}: {}",
                diagnostic.severity.as_str(),
                diagnostic.message
            );
        }
    }
    out
}

/// A location as JSON: `file`, byte `start`/`end`, 1-based
/// `line`/`column` and `end_line`/`end_column`; `null` for no location.
fn json_location(span: Span, sources: &SourceMap) -> serde_json::Value {
    let Some(file) = sources.get(span.file) else {
        return serde_json::Value::Null;
    };
    let (line, column) = file.line_column((span.start as usize).min(file.text.len()));
    let (end_line, end_column) = file.line_column((span.end as usize).min(file.text.len()));
    serde_json::json!({
        "file": file.name,
        "start": span.start,
        "end": span.end,
        "line": line + 1,
        "column": column + 1,
        "end_line": end_line + 1,
        "end_column": end_column + 1,
    })
}

/// One diagnostic as a JSON value with stable field names: `severity`,
/// `code`, `message`, `span` (`file`, `start`, `end`, 1-based
/// `line`/`column`), `label`, `secondary`, `notes`, `help`.
pub fn to_json(diagnostic: &Diagnostic, sources: &SourceMap) -> serde_json::Value {
    let secondary: Vec<serde_json::Value> = diagnostic
        .secondary
        .iter()
        .map(|label| {
            serde_json::json!({
                "span": json_location(label.span, sources),
                "message": label.message,
            })
        })
        .collect();
    serde_json::json!({
        "severity": diagnostic.severity.as_str(),
        "code": diagnostic.code,
        "message": diagnostic.message,
        "span": json_location(diagnostic.span, sources),
        "label": diagnostic.label,
        "secondary": secondary,
        "notes": diagnostic.notes,
        "help": diagnostic.help,
    })
}

/// Renders one diagnostic as a single-line JSON object ([`to_json`]).
pub fn render_json(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    to_json(diagnostic, sources).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering_shows_location_and_caret() {
        let mut sources = SourceMap::new();
        let file = sources.add("a.tir", "x = 1\ny = z\n");
        let diagnostic = Diagnostic::error("E0201", "undefined name `z`", Span::new(file, 10, 11))
            .with_label("not defined");
        let text = render_text(&[diagnostic], &sources, false);
        assert!(text.contains("error[E0201]: undefined name `z`"), "{text}");
        assert!(text.contains("a.tir:2:5"), "{text}");
        assert!(text.contains("^ not defined"), "{text}");
    }

    #[test]
    fn json_rendering_has_stable_fields() {
        let mut sources = SourceMap::new();
        let file = sources.add("a.tir", "ab\n\"q\"\n");
        let diagnostic = Diagnostic::warning("W0001", "quote \"q\"", Span::new(file, 3, 6))
            .with_help("remove it");
        let json = render_json(&diagnostic, &sources);
        assert_eq!(
            json,
            "{\"severity\":\"warning\",\"code\":\"W0001\",\"message\":\"quote \\\"q\\\"\",\"span\":{\"file\":\"a.tir\",\"start\":3,\"end\":6,\"line\":2,\"column\":1,\"end_line\":2,\"end_column\":4},\"label\":\"\",\"secondary\":[],\"notes\":[],\"help\":\"remove it\"}"
        );
    }
}
