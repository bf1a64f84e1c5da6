//! The schedule engine: applies the schedule section of a `.tir` file to its
//! program, step by step, with TVM's primitives and legality rules.
//!
//! [`apply_schedule`] is the entry point: it runs one schedule `def` of a
//! [`Program`] and returns every step applied (the call's text and span, the
//! module after it), the diagnostic of a refused step, and the trace in TVM's
//! `apply_trace` form.
//!
//! Inside: [`state`] holds the program and where every loop and block sits;
//! [`scope`] the block scopes, dependences and cached flags; one file per
//! primitive family ([`get_block_loop`], [`loop_transformation`],
//! [`for_kind`], [`annotate`]); [`script`] interprets the schedule `def`;
//! [`trace`] prints what was applied; [`step_check`] re-verifies each step.

pub mod annotate;
mod binding;
pub mod error;
pub mod for_kind;
pub mod get_block_loop;
pub mod loop_transformation;
pub mod report;
pub mod scope;
pub mod script;
pub mod state;
pub mod step_check;
pub mod trace;

pub use error::{codes, ScheduleError};
pub use state::ScheduleState;
pub use trace::Trace;

use crate::diagnostics::Diagnostic;
use crate::frontend::{Program, ScheduleDef};
use crate::ir::IRModule;
use crate::source::Span;

/// One applied step: a call of a primitive and the module after it.
#[derive(Clone, Debug)]
pub struct AppliedStep {
    /// The step's number, from 1.
    pub number: usize,
    /// The call as written in the schedule (`sch.split(i, factors=[None, 32])`).
    pub text: String,
    /// Where the call is.
    pub span: Span,
    /// The module after the step.
    pub module: IRModule,
    /// False for steps that do not change the program (getters, an annotate of
    /// a key already there).
    pub changed: bool,
}

/// The result of running a schedule section.
#[derive(Clone, Debug)]
pub struct ScheduleRun {
    /// The name of the schedule `def` that ran, when one did.
    pub schedule: Option<String>,
    /// The module before the first step.
    pub initial: IRModule,
    /// The steps applied, in order.
    pub steps: Vec<AppliedStep>,
    /// Why the run stopped early: a refused step (primary span on the
    /// schedule line, secondary spans on the program), a bad script, or a
    /// missing schedule section.
    pub diagnostics: Vec<Diagnostic>,
    /// The steps applied, as TVM's trace.
    pub trace: Trace,
}

impl ScheduleRun {
    /// The module after the last step applied (the initial module when none was).
    pub fn module(&self) -> &IRModule {
        self.steps
            .last()
            .map(|s| &s.module)
            .unwrap_or(&self.initial)
    }

    /// True when every step applied and nothing went wrong.
    pub fn succeeded(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Options of a schedule run beyond the defaults.
#[derive(Clone, Debug, Default)]
pub struct ApplyOptions {
    /// Stop after this many steps.
    pub stop_after: Option<usize>,
}

/// Runs a schedule section of a program: the one named `schedule`, or, when
/// `None`, the file's only schedule section or the one named `schedule`.
///
/// A program without schedule sections gives an empty run without
/// diagnostics when no name is asked for.
pub fn apply_schedule(program: &Program, schedule: Option<&str>) -> ScheduleRun {
    apply_schedule_with(program, schedule, &ApplyOptions::default())
}

/// [`apply_schedule`] with options.
pub fn apply_schedule_with(
    program: &Program,
    schedule: Option<&str>,
    options: &ApplyOptions,
) -> ScheduleRun {
    let mut run = ScheduleRun {
        schedule: None,
        initial: program.module.clone(),
        steps: Vec::new(),
        diagnostics: Vec::new(),
        trace: Trace::default(),
    };
    let def = match select_schedule(program, schedule) {
        Ok(Some(def)) => def,
        Ok(None) => return run,
        Err(diagnostic) => {
            run.diagnostics.push(*diagnostic);
            return run;
        }
    };
    run.schedule = Some(def.name.clone());
    let mut state = ScheduleState::new(program.module.clone());
    let outcome = script::run(&mut state, def, program.file, options.stop_after);
    run.steps = outcome.steps;
    run.diagnostics = outcome.diagnostics;
    run.trace = outcome.trace;
    run
}

/// The schedule `def` to run: the one named, the only one, or the one named
/// `schedule`.
fn select_schedule<'p>(
    program: &'p Program,
    name: Option<&str>,
) -> Result<Option<&'p ScheduleDef>, Box<Diagnostic>> {
    let file_start = Span::new(program.file, 0, 0);
    let names: Vec<String> = program
        .schedules
        .iter()
        .map(|s| format!("`{}`", s.name))
        .collect();
    match name {
        Some(name) => match program.schedules.iter().find(|s| s.name == name) {
            Some(def) => Ok(Some(def)),
            None => Err(Box::new(
                Diagnostic::error(
                    codes::NO_SCHEDULE,
                    format!("the file has no schedule section named `{name}`"),
                    file_start,
                )
                .with_help(if names.is_empty() {
                    "add a `def schedule(sch: T.Schedule):` section".to_string()
                } else {
                    format!("its schedule sections are: {}", names.join(", "))
                }),
            )),
        },
        None => match program.schedules.as_slice() {
            [] => Ok(None),
            [only] => Ok(Some(only)),
            several => match several.iter().find(|s| s.name == "schedule") {
                Some(def) => Ok(Some(def)),
                None => Err(Box::new(
                    Diagnostic::error(
                        codes::NO_SCHEDULE,
                        format!(
                            "the file has {} schedule sections and none is named `schedule`",
                            several.len()
                        ),
                        several[0].span,
                    )
                    .with_help(format!(
                        "pick one with `--schedule NAME`: {}",
                        names.join(", ")
                    )),
                )),
            },
        },
    }
}

/// Prints a module of a scheduled program as `tirc fmt` prints the program
/// (header comments, then the module or function), without the schedule
/// sections, in `dialect` (the program's own when `None`).
pub fn print_scheduled(
    program: &Program,
    module: &IRModule,
    dialect: Option<crate::printer::Dialect>,
) -> String {
    let scheduled = Program {
        module: module.clone(),
        form: program.form,
        dialect: program.dialect,
        header_comments: program.header_comments.clone(),
        schedules: Vec::new(),
        file: program.file,
    };
    crate::format::print_program(&scheduled, dialect)
}
