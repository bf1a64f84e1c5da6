//! Signature help for `T.*` builtins and `sch.*` primitives: the signature
//! with the parameter the cursor is on.

use crate::analysis::Analysis;
use crate::call_context::{enclosing_call, floor_boundary};
use crate::catalog;
use tower_lsp::lsp_types::{
    Documentation, MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, Position,
    SignatureHelp, SignatureInformation,
};

/// The signature help at `position`.
pub fn signature_help(analysis: &Analysis, position: Position) -> Option<SignatureHelp> {
    let offset = floor_boundary(&analysis.text, analysis.offset(position));
    let call = enclosing_call(&analysis.text[..offset])?;
    let (object, name) = call.callee.rsplit_once('.')?;
    let schedule_param = analysis
        .schedule_scripts()
        .iter()
        .any(|s| s.schedule_param == object);
    let (entry, prefix) = if object == "T" || object.starts_with("T.") {
        let full = format!(
            "{}{name}",
            object
                .strip_prefix("T")
                .and_then(|o| o.strip_prefix('.'))
                .map(|o| format!("{o}."))
                .unwrap_or_default()
        );
        (catalog::builtin(&full)?, "T")
    } else if object == "sch" || schedule_param {
        (catalog::primitive(name)?, "sch")
    } else {
        return None;
    };
    let active = match &call.keyword {
        Some(keyword) => entry
            .parameters
            .iter()
            .position(|p| p.split(['=', ':']).next().map(str::trim) == Some(keyword.as_str()))
            .unwrap_or(call.argument),
        None => call.argument,
    };
    // A variadic parameter takes every argument from its position on.
    let variadic = entry.parameters.iter().position(|p| p.starts_with('*'));
    let active = match variadic {
        Some(v) if active > v => v,
        _ => active.min(entry.parameters.len().saturating_sub(1)),
    };
    let label = entry.signature(prefix);
    let parameters = entry
        .parameters
        .iter()
        .map(|p| ParameterInformation {
            label: ParameterLabel::Simple(p.clone()),
            documentation: None,
        })
        .collect();
    Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label,
            documentation: Some(Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: entry.doc.clone(),
            })),
            parameters: Some(parameters),
            active_parameter: Some(active as u32),
        }],
        active_signature: Some(0),
        active_parameter: Some(active as u32),
    })
}
