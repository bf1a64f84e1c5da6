//! Schedule tests over `tests/schedule/` and `tests/schedule_refused/`.
//!
//! `tests/schedule/NAME.tir` holds a program and its schedule section;
//! `NAME.expected.tir` is the module after the schedule as tirc prints it
//! (blessed with `TIRC_BLESS=1`). Where `NAME.tvm.tir` exists it is the module
//! Apache TVM 0.27 printed for the same schedule (reference data, never
//! blessed): tirc's module must be structurally equal to it always, and equal
//! byte for byte unless the schedule section says
//! `# test: tvm text differs: <why>`; a case whose schedule section says
//! `# test: results change: <why>` (a narrower `unsafe_set_dtype`) is not
//! compared with the program's results; a case whose schedule section says
//! `# test: FIXME tvm differs: <why>` is a known difference, reported on
//! every run and compared only with its blessed expectation. A case whose schedule section says
//! `# test: steps` also has `NAME.steps.txt`, the `--steps` output.
//!
//! Every step of every case is checked: the verifier accepts the module (a
//! case may allow a verifier code with `# test: verifier refuses CODE: why`),
//! the module prints and reads back unchanged, the reference interpreter gets
//! the same results from it as from the program before any step (on seeded
//! random inputs; cases too large for it are compiled by LLVM instead, every
//! changed step or, for the largest, the final module; what neither can run
//! is listed as skipped), and the printed
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
use tirc::schedule::check_each::{
    self, compare_steps, module_block_executions, run_interpreted, NotRun, Outputs,
};
use tirc::schedule::{
    apply_schedule, print_scheduled, report, step_check, AppliedStep, ScheduleRun,
};
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

/// Block executions a case may take for the interpreter to run it after
/// every step (the interpreter is exact, not fast, and tests run
/// unoptimized). `TIRC_INTERP_WORK_LIMIT` raises it: with
/// `TIRC_INTERP_WORK_LIMIT=2200000 cargo test --release -p tirc --test golden schedule`
/// every case with constant shapes is run.
fn interpreter_work_limit() -> u64 {
    std::env::var("TIRC_INTERP_WORK_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40_000)
}

/// Runs every function of `module` in the interpreter, within the test's work limit.
fn run_on_random_inputs(module: &IRModule) -> Result<Outputs, NotRun> {
    run_interpreted(module, interpreter_work_limit())
}

/// Block executions above which the JIT compares only the final module
/// with the program (each run of a naive 1024^3 matmul takes seconds).
#[cfg(feature = "llvm")]
const JIT_EVERY_STEP_LIMIT: u64 = 1 << 22;

/// Compares, compiled by LLVM, the program before any step with every
/// changed step (or, for large cases, with the final module). Returns why
/// results were not compared, when they were not.
#[cfg(feature = "llvm")]
fn check_steps_compiled(run: &ScheduleRun) -> Result<Option<String>, String> {
    let work = module_block_executions(&run.initial).unwrap_or(u64::MAX);
    let changed: Vec<&AppliedStep> = run.steps.iter().filter(|s| s.changed).collect();
    let checked = if work <= JIT_EVERY_STEP_LIMIT {
        changed
    } else {
        changed.last().copied().into_iter().collect()
    };
    compare(
        run,
        &checked,
        &check_each::run_compiled,
        ", compiled by LLVM",
    )
}

/// [`compare_steps`] with a failing step described for the test report.
fn compare(
    run: &ScheduleRun,
    steps: &[&AppliedStep],
    execute: &dyn Fn(&IRModule) -> Result<Outputs, NotRun>,
    how: &str,
) -> Result<Option<String>, String> {
    compare_steps(&run.initial, steps, execute).map_err(|mismatch| {
        let text = run
            .steps
            .iter()
            .find(|s| s.number == mismatch.step)
            .map(|s| s.text.as_str())
            .unwrap_or("?");
        format!(
            "after step {} ({text}){how}: {}",
            mismatch.step, mismatch.problem
        )
    })
}

/// Checks every step of a run: the verifier accepts it (but for the codes
/// the case's `# test: verifier refuses CODE: why` directives allow), it
/// prints and reads back unchanged, and, run by the interpreter on seeded
/// random inputs, it computes what the program before any step computed.
/// Returns why results were not compared, when they were not.
fn check_steps(run: &ScheduleRun, program: &Program) -> Result<Option<String>, String> {
    let directives = directives(program);
    let tolerated: Vec<&str> = directives
        .iter()
        .filter_map(|d| d.strip_prefix("verifier refuses "))
        .filter_map(|d| d.split(':').next())
        .map(str::trim)
        .collect();
    for step in &run.steps {
        step_check::check_module(&step.module, program.dialect, &tolerated)
            .map_err(|problem| format!("after step {} ({}): {problem}", step.number, step.text))?;
    }
    if let Some(why) = directives
        .iter()
        .find_map(|d| d.strip_prefix("results change: "))
    {
        return Ok(Some(format!(
            "the schedule changes results on purpose: {why}"
        )));
    }
    if !tolerated.is_empty() {
        return Ok(Some(format!(
            "the verifier refuses it ({}), so the interpreter would too",
            tolerated.join(", ")
        )));
    }
    // A step that changes the program must not change what it computes.
    let changed: Vec<&AppliedStep> = run.steps.iter().filter(|s| s.changed).collect();
    compare(run, &changed, &run_on_random_inputs, "")
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
    let mut results_compared = 0;
    let mut results_compared_compiled = 0;
    let mut results_skipped = Vec::new();
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
            Ok(None) => results_compared += 1,
            #[cfg(feature = "llvm")]
            Ok(Some(reason)) if reason.contains("block executions") => {
                match check_steps_compiled(&run) {
                    Ok(None) => results_compared_compiled += 1,
                    Ok(Some(why)) => results_skipped.push(format!("{name} ({reason}; {why})")),
                    Err(problem) => failures.add(path, problem),
                }
            }
            Ok(Some(reason)) => results_skipped.push(format!("{name} ({reason})")),
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
    eprintln!(
        "schedule: results before and after every step compared by the interpreter in {results_compared} cases"
    );
    eprintln!(
        "schedule: results compared compiled by LLVM (too large for the interpreter) in {results_compared_compiled} cases"
    );
    for skipped in &results_skipped {
        eprintln!("schedule: skipped: results not compared: {skipped}");
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
