//! Schedule tests over `tests/schedule/` and `tests/schedule_refused/`.
//!
//! `tests/schedule/NAME.tir` holds a program and its schedule section;
//! `NAME.expected.tir` is the module after the schedule as tirc prints it
//! (blessed with `TIRC_BLESS=1`). Where `NAME.tvm.tir` exists it is the module
//! Apache TVM 0.27 printed for the same schedule (reference data, never
//! blessed): tirc's module must be structurally equal to it always, and equal
//! byte for byte unless the schedule section says
//! `# test: tvm text differs: <why>`; a case whose schedule section says
//! `# test: FIXME tvm differs: <why>` is a known difference, reported on
//! every run and compared only with its blessed expectation. A case whose schedule section says
//! `# test: steps` also has `NAME.steps.txt`, the `--steps` output.
//!
//! Every step of every case is checked: the module prints and reads back
//! unchanged (the verifier joins here when it is on `main`), and the printed
//! trace, run again on the program, gives the same module. A schedule written
//! as TVM's `apply_trace` must print back as exactly that trace.
//!
//! `tests/schedule_refused/NAME.tir` ends with a refused step marked
//! `# error: E03xx` on its line; `NAME.stderr` holds the rendered diagnostic.

use crate::support::{collect, display_path, tests_root, Failures};
use std::path::{Path, PathBuf};
use tirc::diagnostics::render_text;
use tirc::frontend::{parse_program, Program, ScheduleDef};
use tirc::ir::structural::module_equal;
use tirc::ir::IRModule;
use tirc::printer::Dialect;
use tirc::schedule::{apply_schedule, print_scheduled, report, step_check, ScheduleRun};
use tirc::source::{SourceMap, Span};

/// The `.tir` inputs of a folder (expectation and reference files excluded).
fn inputs(dir: &Path) -> Vec<PathBuf> {
    collect(dir, ".tir")
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            !name.ends_with(".expected.tir") && !name.ends_with(".tvm.tir")
        })
        .collect()
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".tir").to_string())
        .unwrap_or_default();
    path.with_file_name(format!("{name}{suffix}"))
}

fn parse(sources: &mut SourceMap, name: &str, text: &str) -> Result<Program, String> {
    let (program, diagnostics) = parse_program(sources, name, text);
    if diagnostics.iter().any(|d| d.is_error()) {
        return Err(render_text(&diagnostics, sources, false));
    }
    program.ok_or_else(|| "no program".to_string())
}

/// The `# test: ...` directives of the schedule sections.
fn directives(program: &Program) -> Vec<String> {
    program
        .schedules
        .iter()
        .flat_map(|s| s.text.lines())
        .filter_map(|line| line.trim().strip_prefix("# test:"))
        .map(|d| d.trim().to_string())
        .collect()
}

/// Whether running `before` and `after` on the same random inputs gives the
/// same outputs.
enum ResultsCheck {
    /// Skipped, with the reason.
    Skipped(&'static str),
}

/// HOOK for the reference interpreter: every step of every case will run the
/// module before and after it on random inputs and compare the outputs.
/// `tirc::interp` (branch `interp`) is not on `main` yet.
fn check_same_results(_before: &IRModule, _after: &IRModule) -> ResultsCheck {
    ResultsCheck::Skipped("tirc::interp is not on main yet")
}

/// Checks every step of a run: it prints and reads back unchanged, and it
/// computes what the module before it computed.
fn check_steps(run: &ScheduleRun, program: &Program) -> Result<Option<&'static str>, String> {
    let mut previous = &run.initial;
    let mut skipped = None;
    for step in &run.steps {
        step_check::check_module(&step.module, program.dialect)
            .map_err(|problem| format!("after step {} ({}): {problem}", step.number, step.text))?;
        match check_same_results(previous, &step.module) {
            ResultsCheck::Skipped(reason) => skipped = Some(reason),
        }
        previous = &step.module;
    }
    Ok(skipped)
}

/// Runs the printed trace on the program again; it must give the same module.
fn check_trace_replay(program: &Program, run: &ScheduleRun) -> Result<(), String> {
    let trace = run.trace.to_python();
    let parsed = tirc_grammar::parse_file(&trace);
    if !parsed.errors.is_empty() {
        return Err(format!(
            "the trace does not parse: {:?}\n{trace}",
            parsed.errors
        ));
    }
    let Some((stmt, def)) = parsed.file.body.iter().find_map(|stmt| match &stmt.kind {
        tirc_grammar::ast::StmtKind::FunctionDef(def) => Some((stmt, def)),
        _ => None,
    }) else {
        return Err(format!("the trace has no def:\n{trace}"));
    };
    // The trace is its own text; its spans only locate its calls in it.
    let schedule = ScheduleDef {
        name: def.name.name.clone(),
        def: def.clone(),
        span: Span::new(program.file, stmt.span.start, stmt.span.end),
        text: trace[stmt.span.range()].to_string(),
    };
    let replayed_program = Program {
        schedules: vec![schedule],
        ..program.clone()
    };
    let replay = apply_schedule(&replayed_program, None);
    if !replay.succeeded() {
        let messages: Vec<&str> = replay
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        return Err(format!(
            "the trace does not run again: {messages:?}\n{trace}"
        ));
    }
    module_equal(run.module(), replay.module())
        .map_err(|difference| format!("running the trace again gives another module: {difference}"))
}

/// A schedule written as TVM's trace prints back as exactly that trace.
fn check_trace_text(program: &Program, run: &ScheduleRun) -> Result<(), String> {
    let Some(def) = program.schedules.iter().find(|s| s.name == "apply_trace") else {
        return Ok(());
    };
    let written: Vec<&str> = def
        .text
        .lines()
        .skip_while(|line| line.starts_with('#') && line.trim() != "# from tvm import s_tir")
        .collect();
    let written = written.join("\n");
    let printed = run.trace.to_python();
    if written.trim_end() == printed {
        Ok(())
    } else {
        Err(format!(
            "the trace prints differently from the schedule written as a trace:\n{}",
            crate::support::diff(written.trim_end(), &printed)
        ))
    }
}

#[test]
fn schedule() {
    let files = inputs(&tests_root().join("schedule"));
    let mut failures = Failures::default();
    let mut tvm_cases = 0;
    let mut byte_for_byte = 0;
    let mut structural_only = Vec::new();
    let mut known_differences = Vec::new();
    let mut skipped_results = None;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let name = display_path(path);
        let mut sources = SourceMap::new();
        let program = match parse(&mut sources, &name, &text) {
            Ok(program) => program,
            Err(errors) => {
                failures.add(path, format!("does not parse:\n{errors}"));
                continue;
            }
        };
        let run = apply_schedule(&program, None);
        if run.schedule.is_none() {
            failures.add(path, "has no schedule section");
            continue;
        }
        if !run.succeeded() {
            failures.add(
                path,
                format!(
                    "the schedule is refused:\n{}",
                    render_text(&run.diagnostics, &sources, false)
                ),
            );
            continue;
        }
        match check_steps(&run, &program) {
            Ok(skipped) => skipped_results = skipped_results.or(skipped),
            Err(problem) => failures.add(path, problem),
        }
        if let Err(problem) = check_trace_replay(&program, &run) {
            failures.add(path, problem);
        }
        if let Err(problem) = check_trace_text(&program, &run) {
            failures.add(path, problem);
        }
        let output = print_scheduled(&program, run.module(), None);
        failures.expect_file(&sibling(path, ".expected.tir"), &output);
        let directives = directives(&program);
        if directives.iter().any(|d| d == "steps") {
            let steps = report::steps_text(&program, &run, &sources, None);
            failures.expect_file(&sibling(path, ".steps.txt"), &steps);
        }
        let tvm_path = sibling(path, ".tvm.tir");
        let Ok(tvm_text) = std::fs::read_to_string(&tvm_path) else {
            continue;
        };
        tvm_cases += 1;
        if let Some(fixme) = directives
            .iter()
            .find(|d| d.starts_with("FIXME tvm differs"))
        {
            known_differences.push(format!("{} ({fixme})", display_path(path)));
            continue;
        }
        // TVM prints the tirx dialect: compare tirc's module printed the same way.
        let tirx_output = print_scheduled(&program, run.module(), Some(Dialect::Tirx));
        let mut tvm_sources = SourceMap::new();
        let ours = parse(&mut tvm_sources, &name, &tirx_output);
        let theirs = parse(&mut tvm_sources, &display_path(&tvm_path), &tvm_text);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                if let Err(difference) = module_equal(&ours.module, &theirs.module) {
                    failures.add(
                        path,
                        format!("the module differs from TVM's structurally: {difference}"),
                    );
                    continue;
                }
            }
            (Err(errors), _) => {
                failures.add(path, format!("the tirx form does not parse:\n{errors}"));
                continue;
            }
            (_, Err(errors)) => {
                failures.add(&tvm_path, format!("TVM's module does not parse:\n{errors}"));
                continue;
            }
        }
        if tirx_output.trim_end() == tvm_text.trim_end() {
            byte_for_byte += 1;
        } else if directives.iter().any(|d| d.starts_with("tvm text differs")) {
            structural_only.push(display_path(path));
        } else {
            failures.add(
                path,
                format!(
                    "the module is structurally TVM's but printed differently:\n{}",
                    crate::support::diff(tvm_text.trim_end(), tirx_output.trim_end())
                ),
            );
        }
    }
    eprintln!(
        "schedule: {byte_for_byte} of {tvm_cases} cases match TVM 0.27 byte for byte, {} structurally only{}",
        structural_only.len(),
        if structural_only.is_empty() {
            String::new()
        } else {
            format!(" ({})", structural_only.join(", "))
        }
    );
    for known in &known_differences {
        eprintln!("schedule: FIXME: differs from TVM: {known}");
    }
    if let Some(reason) = skipped_results {
        eprintln!("schedule: skipped: results before and after each step not compared ({reason})");
    }
    failures.finish("schedule", files.len());
}

/// The `(line, code)` of each `# error: E03xx` marker, lines from 1.
fn expected_errors(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let (_, marker) = line.split_once("# error:")?;
            Some((i + 1, marker.trim().to_string()))
        })
        .collect()
}

#[test]
fn schedule_refused() {
    let files = inputs(&tests_root().join("schedule_refused"));
    let mut failures = Failures::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let name = display_path(path);
        let mut sources = SourceMap::new();
        let program = match parse(&mut sources, &name, &text) {
            Ok(program) => program,
            Err(errors) => {
                failures.add(path, format!("does not parse:\n{errors}"));
                continue;
            }
        };
        let run = apply_schedule(&program, None);
        if run.succeeded() {
            failures.add(path, "expected a refused step, but every step applied");
            continue;
        }
        if let Err(problem) = check_steps(&run, &program) {
            failures.add(path, problem);
        }
        let expected = expected_errors(&text);
        let found: Vec<(usize, String)> = run
            .diagnostics
            .iter()
            .map(|d| {
                let line = sources
                    .get(d.span.file)
                    .map(|f| f.line_column(d.span.start as usize).0 + 1)
                    .unwrap_or(0);
                (line, d.code.clone())
            })
            .collect();
        if expected.is_empty() {
            failures.add(path, "has no `# error: E03xx` marker on the refused line");
        } else if found != expected {
            failures.add(
                path,
                format!("expected errors (line, code) {expected:?}, found {found:?}"),
            );
        }
        failures.expect_file(
            &sibling(path, ".stderr"),
            &render_text(&run.diagnostics, &sources, false),
        );
    }
    failures.finish("schedule_refused", files.len());
}
