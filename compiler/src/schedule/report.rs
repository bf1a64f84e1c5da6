//! Text reports of a schedule run: the module after every step (`--steps`)
//! and the diff every step made (`--diff`), each step headed by
//! `# step 3: sch.split(i, factors=[None, 32])  (FILE:17)`.

use super::{print_scheduled, AppliedStep, ScheduleRun};
use crate::frontend::Program;
use crate::printer::Dialect;
use crate::source::{SourceMap, Span};
use std::fmt::Write as _;

/// `file:line` of a span.
pub fn location(sources: &SourceMap, span: Span) -> String {
    match sources.get(span.file) {
        Some(file) => {
            let (line, _) = file.line_column((span.start as usize).min(file.text.len()));
            format!("{}:{}", file.name, line + 1)
        }
        None => "?".to_string(),
    }
}

/// The header line of a step.
pub fn step_header(sources: &SourceMap, step: &AppliedStep) -> String {
    format!(
        "# step {}: {}  ({})",
        step.number,
        step.text,
        location(sources, step.span)
    )
}

/// The module after every step, each after its header line, separated by
/// blank lines.
pub fn steps_text(
    program: &Program,
    run: &ScheduleRun,
    sources: &SourceMap,
    dialect: Option<Dialect>,
) -> String {
    let mut out = String::new();
    for (i, step) in run.steps.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", step_header(sources, step));
        out.push_str(&print_scheduled(program, &step.module, dialect));
    }
    out
}

/// A unified diff per step (`no change` for steps that change nothing).
pub fn diff_text(
    program: &Program,
    run: &ScheduleRun,
    sources: &SourceMap,
    dialect: Option<Dialect>,
) -> String {
    let mut out = String::new();
    let mut previous = print_scheduled(program, &run.initial, dialect);
    for (i, step) in run.steps.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let current = print_scheduled(program, &step.module, dialect);
        if current == previous {
            let _ = writeln!(out, "{}  no change", step_header(sources, step));
            continue;
        }
        let _ = writeln!(out, "{}", step_header(sources, step));
        let diff = similar::TextDiff::from_lines(&previous, &current)
            .unified_diff()
            .context_radius(3)
            .header(
                &format!("before step {}", step.number),
                &format!("after step {}", step.number),
            )
            .to_string();
        out.push_str(&diff);
        previous = current;
    }
    out
}
