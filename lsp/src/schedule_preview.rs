//! Schedule preview: the `tirc.schedulePreview` command returns the module
//! after step N of a schedule section, or the diff that step makes, so an
//! editor can show it beside the source; a code lens on each schedule `def`
//! offers it.
//!
//! Applying steps is the schedule engine's work (`tirc::schedule`). Until it
//! is part of the compiler crate, step 0 (the module before any step) is
//! available and later steps answer with an error saying so.

use crate::analysis::Analysis;
use serde_json::{json, Value};
use tirc::format::print_program;
use tower_lsp::lsp_types::{CodeLens, Command, Url};

/// The command name.
pub const COMMAND: &str = "tirc.schedulePreview";

/// What the client asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewRequest {
    /// The document.
    pub uri: Url,
    /// The schedule section, by name (the first when absent).
    pub schedule: Option<String>,
    /// The number of steps applied (all when absent).
    pub step: Option<usize>,
    /// The diff of that step instead of the module after it.
    pub diff: bool,
}

impl PreviewRequest {
    /// Reads the command's single JSON argument.
    pub fn from_arguments(arguments: &[Value]) -> Result<PreviewRequest, String> {
        let argument = arguments
            .first()
            .ok_or("tirc.schedulePreview takes one argument: {uri, schedule?, step?, diff?}")?;
        let uri = argument
            .get("uri")
            .and_then(Value::as_str)
            .and_then(|u| Url::parse(u).ok())
            .ok_or("tirc.schedulePreview needs a `uri`")?;
        Ok(PreviewRequest {
            uri,
            schedule: argument
                .get("schedule")
                .and_then(Value::as_str)
                .map(str::to_string),
            step: argument
                .get("step")
                .and_then(Value::as_u64)
                .map(|s| s as usize),
            diff: argument
                .get("diff")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// One code lens per schedule section.
pub fn code_lenses(analysis: &Analysis, uri: &Url) -> Vec<CodeLens> {
    analysis
        .schedule_scripts()
        .iter()
        .map(|script| {
            let steps = script
                .steps
                .iter()
                .filter(|s| s.primitive.is_some())
                .count();
            let span = tirc::source::Span::from_syntax(analysis.file(), script.name_span);
            CodeLens {
                range: analysis.range(span),
                command: Some(Command {
                    title: format!("Preview schedule ({steps} steps)"),
                    command: COMMAND.to_string(),
                    arguments: Some(vec![json!({
                        "uri": uri.as_str(),
                        "schedule": script.name,
                        "step": steps,
                    })]),
                }),
                data: None,
            }
        })
        .collect()
}

/// The preview: `{schedule, step, steps, text}` or an error message.
pub fn preview(analysis: &Analysis, request: &PreviewRequest) -> Result<Value, String> {
    let scripts = analysis.schedule_scripts();
    let script = match &request.schedule {
        Some(name) => scripts
            .iter()
            .find(|s| s.name == *name)
            .ok_or_else(|| format!("no schedule section named `{name}`"))?,
        None => scripts.first().ok_or("the file has no schedule section")?,
    };
    let steps = script
        .steps
        .iter()
        .filter(|s| s.primitive.is_some())
        .count();
    let step = request.step.unwrap_or(steps);
    if step > steps {
        return Err(format!(
            "schedule `{}` has {steps} steps; step {step} does not exist",
            script.name
        ));
    }
    if analysis.checked.has_errors() {
        return Err("the file has errors; fix them to preview its schedule".to_string());
    }
    let program = analysis
        .checked
        .program
        .as_ref()
        .ok_or("the file has errors; fix them to preview its schedule")?;
    if step > 0 {
        return Err(format!(
            "previewing step {step} of `{}` needs the schedule engine, which this build of tirc does not have yet; step 0 (the module before the schedule) is available",
            script.name
        ));
    }
    let text = if request.diff {
        String::new()
    } else {
        print_program(program, None)
    };
    Ok(json!({
        "schedule": script.name,
        "step": step,
        "steps": steps,
        "text": text,
    }))
}
