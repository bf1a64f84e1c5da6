//! Schedule preview: the `tirc.schedulePreview` command returns the module
//! after step N of a schedule section, or the diff that step makes, so an
//! editor can show it beside the source; a code lens on each schedule `def`
//! offers it.
//!
//! The schedule engine (`tirc::schedule::apply_schedule`) applies the steps;
//! a refused step ends the run, and asking for a later step names it.

use crate::analysis::Analysis;
use serde_json::{json, Value};
use tirc::schedule::print_scheduled;
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

/// The number of steps of a schedule section the engine applied, or the
/// number of calls on `sch` while the file has errors.
fn step_count(analysis: &Analysis, script: &crate::schedule_script::ScheduleScript) -> usize {
    match analysis.schedule_run(&script.name) {
        Some(run) => run.steps.len(),
        None => script
            .steps
            .iter()
            .filter(|s| s.primitive.is_some())
            .count(),
    }
}

/// One code lens per schedule section.
pub fn code_lenses(analysis: &Analysis, uri: &Url) -> Vec<CodeLens> {
    analysis
        .schedule_scripts()
        .iter()
        .map(|script| {
            let steps = step_count(analysis, script);
            let refused = analysis
                .schedule_run(&script.name)
                .is_some_and(|run| !run.succeeded());
            let span = tirc::source::Span::from_syntax(analysis.file(), script.name_span);
            let title = if refused {
                format!("Preview schedule ({steps} steps applied, then refused)")
            } else {
                format!("Preview schedule ({steps} steps)")
            };
            CodeLens {
                range: analysis.range(span),
                command: Some(Command {
                    title,
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

/// The preview: `{schedule, step, steps, title, text}` or an error message.
/// `text` is the module after step `step` (0 is the module before the
/// schedule), or with `diff` the unified diff that step made.
pub fn preview(analysis: &Analysis, request: &PreviewRequest) -> Result<Value, String> {
    let scripts = analysis.schedule_scripts();
    let script = match &request.schedule {
        Some(name) => scripts
            .iter()
            .find(|s| s.name == *name)
            .ok_or_else(|| format!("no schedule section named `{name}`"))?,
        None => scripts.first().ok_or("the file has no schedule section")?,
    };
    let program = analysis
        .checked
        .program
        .as_ref()
        .filter(|_| !analysis.checked.has_errors())
        .ok_or("the file has errors; fix them to preview its schedule")?;
    let run = analysis
        .schedule_run(&script.name)
        .ok_or_else(|| format!("schedule `{}` did not run", script.name))?;
    let steps = run.steps.len();
    let step = request.step.unwrap_or(steps);
    if step > steps {
        let reason = run
            .diagnostics
            .first()
            .map(|d| format!(": step {} was refused: {}", steps + 1, d.message))
            .unwrap_or_default();
        return Err(format!(
            "schedule `{}` applied {steps} steps; step {step} does not exist{reason}",
            script.name
        ));
    }
    let module_after = |n: usize| {
        if n == 0 {
            &run.initial
        } else {
            &run.steps[n - 1].module
        }
    };
    let after = print_scheduled(program, module_after(step), None);
    let title = match step {
        0 => format!("{}: before the schedule", script.name),
        n => format!("{}: after step {n}: {}", script.name, run.steps[n - 1].text),
    };
    let text = if request.diff && step > 0 {
        let before = print_scheduled(program, module_after(step - 1), None);
        similar::TextDiff::from_lines(&before, &after)
            .unified_diff()
            .context_radius(3)
            .header(
                &format!("before step {step}"),
                &format!("after step {step}"),
            )
            .to_string()
    } else {
        after
    };
    Ok(json!({
        "schedule": script.name,
        "step": step,
        "steps": steps,
        "title": title,
        "text": text,
    }))
}
