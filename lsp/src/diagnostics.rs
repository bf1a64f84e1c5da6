//! Diagnostics: the compiler's diagnostics (exactly what `tirc check`
//! reports, then a refused schedule step at its line) converted to the protocol's, with their secondary labels as
//! related information and the "did you mean" help kept for quick fixes.

use crate::analysis::Analysis;
use tirc::diagnostics::Severity;
use tower_lsp::lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Url,
};

/// The protocol diagnostics of an analysis.
pub fn diagnostics(analysis: &Analysis, uri: &Url) -> Vec<Diagnostic> {
    analysis
        .all_diagnostics()
        .iter()
        .map(|diagnostic| {
            let severity = match diagnostic.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Note => DiagnosticSeverity::INFORMATION,
            };
            let mut message = diagnostic.message.clone();
            if !diagnostic.label.is_empty() {
                message.push_str(&format!(" ({})", diagnostic.label));
            }
            for note in &diagnostic.notes {
                message.push_str(&format!("\nnote: {note}"));
            }
            if let Some(help) = &diagnostic.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            let related: Vec<DiagnosticRelatedInformation> = diagnostic
                .secondary
                .iter()
                .filter(|label| label.span.file == diagnostic.span.file && label.span.is_known())
                .map(|label| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), analysis.range(label.span)),
                    message: label.message.clone(),
                })
                .collect();
            Diagnostic {
                range: analysis.range(diagnostic.span),
                severity: Some(severity),
                code: (!diagnostic.code.is_empty())
                    .then(|| NumberOrString::String(diagnostic.code.clone())),
                code_description: None,
                source: Some("tirc".to_string()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: diagnostic
                    .help
                    .as_ref()
                    .map(|help| serde_json::json!({ "help": help })),
            }
        })
        .collect()
}
