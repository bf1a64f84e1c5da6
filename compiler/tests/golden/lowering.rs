//! Lowering tests.
//!
//! - `tests/lowering/`: each `NAME.tir` (a program, with a schedule section
//!   when it has one) is lowered; `NAME.lowered.tir` beside it holds the
//!   lowered program and `NAME.passes.txt` the module after every pass that
//!   changed it, each under a `# after PASS` line. Bless with `TIRC_BLESS=1`.
//! - The corpus (`tests/roundtrip/`, `tests/schedule/`, `tests/lowering/`,
//!   `examples/`): every function goes through every pass; after each pass
//!   the module must print and parse back structurally equal, and the
//!   reference interpreter must compute the same results as on the input,
//!   on seeded random arguments. Functions the interpreter cannot run are
//!   skipped, counted by reason.

use crate::support::{collect, tests_root, Failures};
use std::collections::{BTreeMap, HashMap};
use tirc::frontend::{parse_program, Program};
use tirc::interp::{run_function_with_options, Arg, InterpOptions, Tensor, Tolerance};
use tirc::ir::structural::module_equal;
use tirc::ir::{ExprKind, IRModule, PrimFunc};
use tirc::printer::{print_module, Dialect, PrintOptions};
use tirc::source::SourceMap;
use tirc::transform::{run_pass, LowerOptions, PIPELINE};

fn parse(name: &str, text: &str) -> Result<Program, String> {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, name, text);
    if diagnostics.iter().any(|d| d.is_error()) {
        return Err(tirc::diagnostics::render_text(
            &diagnostics,
            &sources,
            false,
        ));
    }
    program.ok_or_else(|| "no program".to_string())
}

/// The module a file describes: after its schedule section when it has one
/// that applies, else as written.
fn scheduled_module(program: &Program) -> Result<IRModule, String> {
    if program.schedules.is_empty() {
        return Ok(program.module.clone());
    }
    let run = tirc::schedule::apply_schedule(program, None);
    if !run.succeeded() {
        return Err(format!(
            "the schedule does not apply: {:?}",
            run.diagnostics
        ));
    }
    Ok(run.module().clone())
}

/// Prints `module` in `dialect` and parses it back; `Err` says what differs.
fn check_round_trip(module: &IRModule, dialect: Dialect) -> Result<(), String> {
    let printed = print_module(module, &PrintOptions::new(dialect));
    let reparsed = parse("<lowered>", &printed)
        .map_err(|errors| format!("the printed module does not parse:\n{errors}\n{printed}"))?;
    module_equal(module, &reparsed.module)
        .map_err(|difference| format!("it reads back differently: {difference}\n{printed}"))
}

/// Random arguments for `func`: every symbolic extent is 4; `None` with the
/// reason when the interpreter cannot be given arguments.
fn arguments_for(func: &PrimFunc) -> Result<Vec<Arg>, &'static str> {
    let mut symbolic: HashMap<usize, usize> = HashMap::new();
    let mut args = Vec::new();
    for (position, param) in func.params.iter().enumerate() {
        let Some(buffer) = func.buffer_of(param) else {
            let dtype = param.dtype();
            args.push(if dtype.is_float() {
                Arg::Float(0.5)
            } else if dtype.is_handle() {
                return Err("a handle parameter");
            } else {
                Arg::Int(if dtype.is_bool() { 1 } else { 4 })
            });
            continue;
        };
        let mut shape = Vec::new();
        for extent in buffer.shape() {
            shape.push(match extent.kind() {
                ExprKind::Int(value) => usize::try_from(*value).map_err(|_| "a negative extent")?,
                ExprKind::Var(var) => *symbolic.entry(var.id()).or_insert(4),
                _ => return Err("a parameter shape that is an expression"),
            });
        }
        if shape.iter().product::<usize>() > 1 << 20 {
            return Err("parameters over a million elements");
        }
        let tensor = Tensor::random(buffer.dtype(), &shape, 17 + position as u64)
            .map_err(|_| "a parameter type the interpreter cannot hold")?;
        args.push(Arg::Tensor(tensor));
    }
    Ok(args)
}

/// About how many statements the interpreter executes to run `stmt` (every
/// loop iteration runs its body; an `if` is counted as taken); `None` when a
/// loop extent is not a constant.
fn estimated_steps(stmt: &tirc::ir::Stmt) -> Option<u128> {
    use tirc::ir::StmtKind;
    let nested = |s: &tirc::ir::Stmt| estimated_steps(s);
    Some(
        1 + match stmt.kind() {
            StmtKind::For(f) => {
                let extent = u128::try_from(f.extent.as_int()?).ok()?;
                extent * nested(&f.body)?
            }
            StmtKind::BlockRealize(r) => {
                let init = match &r.block.init {
                    Some(init) => nested(init)?,
                    None => 0,
                };
                init + nested(&r.block.body)?
            }
            StmtKind::Seq(items) => items.iter().map(nested).sum::<Option<u128>>()?,
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                let else_steps = match else_case {
                    Some(e) => nested(e)?,
                    None => 0,
                };
                nested(then_case)?.max(else_steps)
            }
            StmtKind::LetStmt { body, .. }
            | StmtKind::Allocate(tirc::ir::Allocate { body, .. })
            | StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Assert { body, .. } => nested(body)?,
            StmtKind::AttrStmt(attr) => {
                let repeat = match &attr.node {
                    tirc::ir::AttrNode::Thread { .. } => {
                        u128::try_from(attr.value.as_int()?).ok()?
                    }
                    _ => 1,
                };
                repeat * nested(&attr.body)?
            }
            StmtKind::While { .. } => return None,
            StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => 0,
        },
    )
}

/// Runs `func` on copies of `args`; the tensors after the run.
fn run(func: &PrimFunc, args: &[Arg], budget: u64) -> Result<Vec<Arg>, String> {
    let mut args = args.to_vec();
    let options = InterpOptions {
        step_budget: budget,
        ..InterpOptions::default()
    };
    run_function_with_options(func, &mut args, &options).map_err(|e| e.message)?;
    Ok(args)
}

/// `Err` naming the first argument whose values differ.
fn compare(func: &PrimFunc, expected: &[Arg], actual: &[Arg]) -> Result<(), String> {
    for ((param, want), got) in func.params.iter().zip(expected).zip(actual) {
        if let (Arg::Tensor(want), Arg::Tensor(got)) = (want, got) {
            got.check_close(want, Tolerance::for_dtype(want.dtype()))
                .map_err(|e| format!("`{}`: {}", param.name(), e.message))?;
        }
    }
    Ok(())
}

/// Statements the input may take in the interpreter; functions estimated to
/// need more are skipped without running (the interpreter runs about a
/// million statements a second in test builds, and each function runs once
/// per pass that changes it).
const INPUT_STEP_BUDGET: u64 = 1_000_000;

/// What happened to one function of the corpus.
enum Outcome {
    Checked,
    Skipped(String),
}

/// The outcome of each function and the module after each pass that changed it.
type Lowered = (Vec<(String, Outcome)>, Vec<(&'static str, IRModule)>);

/// Lowers `module` pass by pass, checking the round trip and (for `entry`
/// functions the interpreter runs) the results after each pass. Returns the
/// outcome of each function and the snapshots after passes that changed it.
fn lower_and_check(
    module: &IRModule,
    dialect: Dialect,
    run_interpreter: bool,
) -> Result<Lowered, String> {
    let options = LowerOptions::default();
    // The interpreter's results on the input, per function.
    let mut references: Vec<Option<(Vec<Arg>, Vec<Arg>)>> = Vec::new();
    let mut outcomes = Vec::new();
    for func in &module.functions {
        if !run_interpreter {
            references.push(None);
            continue;
        }
        if estimated_steps(&func.body).is_some_and(|steps| steps > u128::from(INPUT_STEP_BUDGET)) {
            outcomes.push((
                func.name.clone(),
                Outcome::Skipped(format!(
                    "the input runs more than {INPUT_STEP_BUDGET} statements in the interpreter"
                )),
            ));
            references.push(None);
            continue;
        }
        let reference = arguments_for(func)
            .map_err(|reason| format!("cannot build arguments: {reason}"))
            .and_then(|args| {
                run(func, &args, INPUT_STEP_BUDGET)
                    .map(|results| (args, results))
                    .map_err(|message| {
                        let kind: String = if message.contains("statements and was stopped") {
                            format!("more than {INPUT_STEP_BUDGET} statements")
                        } else {
                            message.chars().take(60).collect()
                        };
                        format!("the interpreter refuses the input: {kind}")
                    })
            });
        match reference {
            Ok(reference) => references.push(Some(reference)),
            Err(reason) => {
                outcomes.push((func.name.clone(), Outcome::Skipped(reason)));
                references.push(None);
            }
        }
    }
    let mut snapshots = Vec::new();
    let mut current = module.clone();
    for pass in PIPELINE {
        let next = run_pass(pass, &current, &options).map_err(|diagnostics| {
            format!(
                "pass `{}` failed: {}",
                pass.name,
                diagnostics
                    .iter()
                    .map(|d| format!("{} ({})", d.message, d.notes.join("; ")))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })?;
        check_round_trip(&next, dialect)
            .map_err(|problem| format!("after pass `{}`, {problem}", pass.name))?;
        for ((func, before), reference) in next
            .functions
            .iter()
            .zip(&current.functions)
            .zip(&references)
        {
            let Some((args, expected)) = reference else {
                continue;
            };
            if tirc::ir::structural::func_equal(func, before).is_ok() {
                // Unchanged by this pass: the previous run stands.
                continue;
            }
            let actual = run(func, args, INPUT_STEP_BUDGET * 4).map_err(|message| {
                format!(
                    "after pass `{}`, function `{}` fails in the interpreter: {message}",
                    pass.name, func.name
                )
            })?;
            compare(func, expected, &actual).map_err(|difference| {
                format!(
                    "after pass `{}`, function `{}` computes different results: {difference}",
                    pass.name, func.name
                )
            })?;
        }
        if module_equal(&current, &next).is_err() {
            snapshots.push((pass.name, next.clone()));
        }
        current = next;
    }
    for (func, reference) in module.functions.iter().zip(&references) {
        if reference.is_some() {
            outcomes.push((func.name.clone(), Outcome::Checked));
        }
    }
    Ok((outcomes, snapshots))
}

#[test]
fn lowering_golden_cases() {
    let files: Vec<_> = collect(&tests_root().join("lowering"), ".tir")
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".lowered.tir"))
        .collect();
    let mut failures = Failures::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable test file");
        let name = crate::support::display_path(path);
        let program = match parse(&name, &text).and_then(|p| scheduled_module(&p).map(|m| (p, m))) {
            Ok(parsed) => parsed,
            Err(problem) => {
                failures.add(path, problem);
                continue;
            }
        };
        let (program, module) = program;
        let result =
            lower_and_check(&module, program.dialect, true).and_then(|(outcomes, snapshots)| {
                // The other dialect must read back too.
                for (pass, snapshot) in &snapshots {
                    let other = match program.dialect {
                        Dialect::Classic => Dialect::Tirx,
                        Dialect::Tirx => Dialect::Classic,
                    };
                    check_round_trip(snapshot, other).map_err(|problem| {
                        format!("after pass `{pass}` in the other dialect, {problem}")
                    })?;
                }
                for (func, outcome) in &outcomes {
                    if let Outcome::Skipped(reason) = outcome {
                        return Err(format!("function `{func}` was not checked: {reason}"));
                    }
                }
                Ok(snapshots)
            });
        match result {
            Ok(snapshots) => {
                let mut passes = String::new();
                for (pass, snapshot) in &snapshots {
                    passes.push_str(&format!("# after {pass}\n"));
                    passes.push_str(&print_module(snapshot, &PrintOptions::new(program.dialect)));
                    passes.push('\n');
                }
                let lowered = snapshots
                    .last()
                    .map(|(_, module)| module.clone())
                    .unwrap_or_else(|| module.clone());
                let stem = path.with_extension("");
                failures.expect_file(&stem.with_extension("passes.txt"), &passes);
                failures.expect_file(
                    &stem.with_extension("lowered.tir"),
                    &tirc::schedule::print_scheduled(&program, &lowered, None),
                );
            }
            Err(problem) => failures.add(path, problem),
        }
    }
    failures.finish("lowering", files.len());
}

/// The files of the corpus: every `.tir` input of the golden tests and the examples.
fn corpus_files() -> Vec<std::path::PathBuf> {
    let root = tests_root();
    let mut files = collect(&root.join("roundtrip"), ".tir");
    files.extend(collect(&root.join("schedule"), ".tir"));
    // The lowered outputs are there too: lowering them again must keep them.
    files.extend(collect(&root.join("lowering"), ".tir"));
    files.extend(collect(&root.join("..").join("examples"), ".tir"));
    files
}

/// The outcome of one corpus file: checked functions, skip reasons, a failure.
/// What checking one corpus file found: functions checked, skip reasons,
/// a failure, and whether it was the same program as a file checked before.
struct FileCheck {
    checked: usize,
    skipped: Vec<String>,
    failure: Option<String>,
    duplicate: bool,
}

fn check_corpus_file(
    path: &std::path::Path,
    programs_seen: &std::sync::Mutex<std::collections::HashSet<String>>,
) -> FileCheck {
    let mut result = FileCheck {
        checked: 0,
        skipped: Vec::new(),
        failure: None,
        duplicate: false,
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return result;
    };
    let name = crate::support::display_path(path);
    let Ok(program) = parse(&name, &text) else {
        // Files that do not parse are the parse tests' business.
        result.skipped.push("the file does not parse".to_string());
        return result;
    };
    let module = scheduled_module(&program).unwrap_or_else(|_| program.module.clone());
    // A schedule test's input (scheduled), tirc's expected output and TVM's
    // output are one program: the interpreter runs it once.
    let printed = print_module(&module, &PrintOptions::new(program.dialect));
    let first_time = programs_seen
        .lock()
        .map(|mut seen| seen.insert(printed))
        .unwrap_or(true);
    if !first_time {
        result.duplicate = true;
        return result;
    }
    match lower_and_check(&module, program.dialect, true) {
        Ok((outcomes, _)) => {
            for (_, outcome) in outcomes {
                match outcome {
                    Outcome::Checked => result.checked += 1,
                    Outcome::Skipped(reason) => result.skipped.push(reason),
                }
            }
        }
        Err(problem) => result.failure = Some(problem),
    }
    result
}

#[test]
fn every_pass_keeps_results_and_round_trips_over_the_corpus() {
    let files = corpus_files();
    // The interpreter dominates; spread the files over the machine's cores.
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let programs_seen = std::sync::Mutex::new(std::collections::HashSet::new());
    let results: Vec<(usize, FileCheck)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = files.get(index) else {
                            return done;
                        };
                        done.push((index, check_corpus_file(path, &programs_seen)));
                    }
                })
            })
            .collect();
        let mut all: Vec<_> = workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a corpus worker panicked"))
            .collect();
        all.sort_by_key(|(index, ..)| *index);
        all
    });
    let mut failures = Failures::default();
    let mut checked = 0usize;
    let mut duplicates = 0usize;
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for (index, file) in results {
        checked += file.checked;
        duplicates += usize::from(file.duplicate);
        for reason in file.skipped {
            *skipped.entry(reason).or_default() += 1;
        }
        if let Some(problem) = file.failure {
            failures.add(&files[index], problem);
        }
    }
    let skipped_total: usize = skipped.values().sum();
    eprintln!(
        "lowering corpus: {checked} functions checked after every pass, {duplicates} files \
         the same program as another file, {skipped_total} functions skipped:"
    );
    for (reason, count) in &skipped {
        eprintln!("  {count:4}  {reason}");
    }
    failures.finish("lowering corpus", files.len());
    assert!(
        checked > skipped_total,
        "the interpreter checked only {checked} functions ({skipped_total} skipped)"
    );
}

/// Every pass, run on its own on any corpus module (block-level or already
/// lowered, whatever the stage it expects), returns a module or diagnostics:
/// none panics.
#[test]
fn every_pass_accepts_or_refuses_any_stage_without_panicking() {
    let options = LowerOptions::default();
    let mut results = (0usize, 0usize);
    for path in corpus_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(program) = parse("<corpus>", &text) else {
            continue;
        };
        for pass in PIPELINE {
            match run_pass(pass, &program.module, &options) {
                Ok(_) => results.0 += 1,
                Err(diagnostics) => {
                    assert!(!diagnostics.is_empty(), "{}: empty error", pass.name);
                    results.1 += 1;
                }
            }
        }
    }
    eprintln!(
        "passes run out of order: {} accepted, {} refused with diagnostics",
        results.0, results.1
    );
    assert!(results.0 > 0);
}
