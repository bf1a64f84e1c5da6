//! `tirc tune`: draws schedules from the design space of a file's function,
//! measures each in a worker process (checked against the reference, timed
//! with `--bench`), records every one, and reports the fastest against the
//! file's own schedule; `--write` keeps it in the file as `def tuned`.
//! `--print-space` prints the space instead.

use super::output::{report, report_application, DiagnosticFormat};
use super::EXIT_OK;
use clap::Args;
use std::collections::HashSet;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tirc::check::CheckOptions;
use tirc::driver::{check, ApplicationErrorKind, SourceFile};
use tirc::tune::records::{self, Record};
use tirc::tune::search::{
    trace_as_section, Candidate, EvolutionarySearch, Measurement, ProcessRunner, Runner, Sampler,
    INTERRUPTED, SPACE_NAME,
};
use tirc::tune::space::{design_space, SpaceTarget};

/// Arguments of `tirc tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The `.tir` file.
    file: PathBuf,
    /// The function to tune (default: `main`, or the module's only function).
    #[arg(long)]
    entry: Option<String>,
    /// Print the design space (a schedule `def` with sampling instructions)
    /// instead of searching it.
    #[arg(long)]
    print_space: bool,
    /// The name of the printed space's `def`.
    #[arg(long, default_value = "space", value_name = "NAME")]
    space_name: String,
    /// Candidates to measure.
    #[arg(long, default_value_t = 64)]
    trials: usize,
    /// Stop after this many seconds (the candidate being measured finishes).
    #[arg(long, value_name = "S")]
    seconds: Option<f64>,
    /// The target to tune for: `llvm` (this CPU, the default, with TVM's
    /// options such as `-mcpu=`) or `cuda` (the GPU of this machine;
    /// without one, only `--print-space`).
    #[arg(long, default_value = "llvm")]
    target: String,
    /// Timed runs per candidate (the median counts).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Seconds a candidate may take (compile, check and runs) before it is
    /// killed and recorded as timed out.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// The first seed drawn (candidates use this seed and the next ones).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The records file (JSON lines; default `~/.cache/tirc/records.jsonl`).
    #[arg(long)]
    database: Option<PathBuf>,
    /// Sizes of symbolic shapes for the measured runs (`--shape n=1024,m=512`),
    /// passed to `tirc run` as they are.
    #[arg(long, value_name = "NAME=VALUE,...")]
    shape: Option<String>,
    /// Write the fastest schedule into the file as `def tuned(sch)`,
    /// replacing an earlier one.
    #[arg(long)]
    write: bool,
}

/// Runs `tirc tune`.
pub fn run(args: TuneArgs) -> u8 {
    let source = match SourceFile::read(&args.file) {
        Ok(source) => source,
        Err(error) => return report(error, DiagnosticFormat::Text),
    };
    let checked = match check(&source, &CheckOptions::default()) {
        Ok(checked) => checked,
        Err(error) => return report(error, DiagnosticFormat::Text),
    };
    let module = &checked.program.module;
    let space_name = if args.print_space {
        args.space_name.as_str()
    } else {
        SPACE_NAME
    };
    let codegen_target = match tirc::codegen::Target::parse(&args.target) {
        Ok(target) => target,
        Err(message) => return report_application(ApplicationErrorKind::Usage, message),
    };
    let cuda = matches!(codegen_target, tirc::codegen::Target::Cuda(_));
    let space_target = if cuda {
        SpaceTarget::Cuda
    } else {
        SpaceTarget::Cpu
    };
    let machine = match &codegen_target {
        tirc::codegen::Target::Llvm(llvm) => tirc::tune::machine::CpuMachine::for_target(llvm),
        tirc::codegen::Target::Cuda(_) => tirc::tune::machine::CpuMachine::host(),
    };
    let space = match design_space(
        module,
        args.entry.as_deref(),
        space_name,
        space_target,
        &machine,
    ) {
        Ok(space) => space,
        Err(message) => return report_application(ApplicationErrorKind::Usage, message),
    };
    if args.print_space {
        print!("{space}");
        return EXIT_OK;
    }
    if cuda {
        if let Err(message) = gpu_present() {
            return report_application(ApplicationErrorKind::Toolchain, message);
        }
    }
    if !cfg!(feature = "llvm") {
        let why = if cuda {
            "tuning for a GPU checks every candidate against outputs the program as written computes on the CPU, which needs the LLVM backend; this tirc was built without it (build with both features)"
        } else {
            "tuning measures candidates on this CPU, which needs the LLVM backend; this tirc was built without it"
        };
        return report_application(ApplicationErrorKind::Toolchain, why);
    }
    let Some(database) = args.database.clone().or_else(records::default_path) else {
        return report_application(
            ApplicationErrorKind::Usage,
            "no records file: pass --database FILE",
        );
    };
    let (known, warnings) = match records::read_records(&database) {
        Ok(read) => read,
        Err(message) => return report_application(ApplicationErrorKind::Usage, message),
    };
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    let Some((entry_name, workload)) = records::workload_of(module, args.entry.as_deref()) else {
        return report_application(
            ApplicationErrorKind::Usage,
            "the module has no such function",
        );
    };
    // Records are kept per CPU (its features) or GPU, and per target options.
    let target = records::record_target(&codegen_target, &args.target);
    // Candidates are checked against the limits of the GPU the records name.
    let codegen_target = match cuda {
        true => tirc::codegen::Target::parse(&target).unwrap_or(codegen_target),
        false => codegen_target,
    };
    let sampler = match Sampler::new(&source.text, &space, args.entry.as_deref()) {
        Ok(sampler) => sampler.for_target(&codegen_target),
        Err(message) => return report_application(ApplicationErrorKind::Usage, message),
    };
    let folder = std::env::temp_dir().join(format!("tirc-tune-{}", std::process::id()));
    if let Err(error) = std::fs::create_dir_all(&folder) {
        return report_application(
            ApplicationErrorKind::Usage,
            format!("cannot create {}: {error}", folder.display()),
        );
    }
    let tirc = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("tirc"));
    let mut runner = ProcessRunner::new(
        tirc,
        source.text.clone(),
        args.entry.clone(),
        folder.clone(),
    );
    runner.runs = args.runs.max(1);
    runner.timeout = Duration::from_secs(args.timeout.max(1));
    // GPU candidates run for the architecture the records and the sampler
    // name (`cuda -arch=sm_90`), not whatever `cuda` alone resolves to.
    let worker_target = if cuda { &target } else { &args.target };
    runner.extra_args = worker_args(args.shape.as_deref(), worker_target);
    // The reference runs on the CPU: a program without thread bindings
    // does not run on a GPU.
    if cuda {
        runner.reference_args = Some(worker_args(args.shape.as_deref(), "llvm"));
    }

    if let Err(message) = runner.save_reference() {
        let _ = std::fs::remove_dir_all(&folder);
        return report_application(ApplicationErrorKind::Usage, message);
    }
    // The program as written and the file's own schedule, timed the same
    // way, as the baselines.
    // One timed run of the program as written: it can take seconds.
    let runs = runner.runs;
    runner.runs = 1;
    let unscheduled = if cuda {
        Measurement {
            error: Some("not run: without thread bindings it has no GPU kernel".to_string()),
            ..Measurement::default()
        }
    } else {
        runner.measure("def apply_trace(sch: T.Schedule):\n  pass")
    };
    runner.runs = runs;
    let baseline = measure_own_schedule(&mut runner, &source.text, &codegen_target);

    let started = Instant::now();
    let seen: HashSet<String> = known
        .iter()
        .filter(|r| r.workload == workload && r.target == target)
        .map(|r| r.trace.clone())
        .collect();
    let mut search = EvolutionarySearch::new(sampler, args.seed, seen);
    let mut history: Vec<(Candidate, Option<f64>)> = Vec::new();
    let mut progress = Progress::new(args.trials);
    let deadline = args.seconds.map(Duration::from_secs_f64);
    let out_of_time = || deadline.is_some_and(|limit| started.elapsed() >= limit);
    install_interrupt_handler();
    let mut stopped_by = None;
    'search: while history.len() < args.trials {
        let wanted = BATCH.min(args.trials - history.len());
        let batch = search.next_batch(&history, wanted);
        if batch.is_empty() {
            stopped_by = Some("the space has no candidate left that was not measured");
            break;
        }
        for candidate in batch {
            if INTERRUPTED.load(Ordering::Relaxed) {
                stopped_by = Some("interrupted");
                break 'search;
            }
            if !history.is_empty() && out_of_time() {
                stopped_by = Some("--seconds reached");
                break 'search;
            }
            let measurement = runner.measure(&candidate.trace);
            if INTERRUPTED.load(Ordering::Relaxed) {
                stopped_by = Some("interrupted");
                break 'search;
            }
            let record = Record {
                workload: workload.clone(),
                target: target.clone(),
                trace: candidate.trace.clone(),
                median_ms: measurement.median_ms,
                gflops: measurement.gflops,
                error: measurement.error.clone(),
            };
            if let Err(message) = records::append_record(&database, &record) {
                eprintln!("warning: {message}");
            }
            let time = measurement
                .median_ms
                .filter(|_| measurement.error.is_none());
            history.push((candidate, time));
            progress.trial(&measurement, started.elapsed());
        }
    }
    progress.finish();
    if let Some(why) = stopped_by {
        eprintln!("stopped after {} candidates: {why}", history.len());
    }
    if !INTERRUPTED.load(Ordering::Relaxed) {
        for record in retime_fastest(&mut runner, &history, &workload, &target) {
            if let Err(message) = records::append_record(&database, &record) {
                eprintln!("warning: {message}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&folder);

    // The best of this run and of earlier runs on this workload and target.
    let (all, _) = records::read_records(&database).unwrap_or_default();
    let best_record = records::best(&all, &workload, &target).cloned();
    let Some(best) = best_record else {
        return report_application(
            ApplicationErrorKind::Usage,
            format!(
                "none of {} candidates ran correctly; the records are in {}",
                history.len(),
                database.display()
            ),
        );
    };
    println!("tuned `{entry_name}` on {target}");
    println!(
        "  {} candidates measured in {:.0} s; records: {}",
        history.len(),
        started.elapsed().as_secs_f64(),
        database.display()
    );
    let best_ms = best.median_ms.unwrap_or(f64::NAN);
    println!(
        "  best: {best_ms:.3} ms{}",
        best.gflops
            .map(|g| format!(", {g:.1} GFLOP/s"))
            .unwrap_or_default()
    );
    let own = baseline
        .as_ref()
        .map(|(name, _)| format!("the file's own schedule `{name}`"));
    for (what, measurement) in [
        ("the program as written (no schedule)", Some(&unscheduled)),
        (
            own.as_deref().unwrap_or_default(),
            baseline.as_ref().map(|(_, m)| m),
        ),
    ] {
        match measurement.map(|m| (m.median_ms, &m.error)) {
            Some((Some(ms), _)) => println!("  {what}: {ms:.3} ms ({:.2}x)", ms / best_ms),
            Some((None, Some(error))) => println!("  {what}: {error}"),
            _ => {}
        }
    }
    if baseline.is_none() {
        println!("  the file has no schedule of its own");
    }
    println!("{}", best.trace);
    if args.write {
        let machine = if cuda {
            target.clone()
        } else {
            tirc::driver::toolchain::probe_cpu().model
        };
        let section = format!(
            "# tirc tune on {machine}: {best_ms:.3} ms\n{}",
            trace_as_section(&best.trace, "tuned")
        );
        let updated = with_tuned_section(&source.text, &section);
        if let Err(error) = std::fs::write(&args.file, updated) {
            return report_application(
                ApplicationErrorKind::Usage,
                format!("cannot write {}: {error}", args.file.display()),
            );
        }
        eprintln!("wrote `def tuned` into {}", args.file.display());
    }
    EXIT_OK
}

/// Ok when this machine has a GPU for `tirc tune --target cuda` to measure
/// on, else why there is none to tune on.
fn gpu_present() -> Result<(), String> {
    let no_gpu = |why: String| {
        format!(
            "tirc tune --target cuda measures candidates on a GPU, and {why}; the CUDA emulation \
             (`tirc run --target cuda --emulate`) gives correctness, not speed, so tirc does not \
             tune on it. `--print-space` prints the GPU design space here; tune on a machine \
             with a GPU"
        )
    };
    #[cfg(feature = "cuda")]
    {
        let probe = tirc::driver::toolchain::probe_cuda_device();
        if probe.found {
            Ok(())
        } else {
            Err(no_gpu(format!("this machine has none ({})", probe.detail)))
        }
    }
    #[cfg(not(feature = "cuda"))]
    Err(no_gpu(
        "this tirc was built without the CUDA backend".to_string(),
    ))
}

/// `--shape` and `--target` for the workers, when given.
fn worker_args(shape: Option<&str>, target: &str) -> Vec<String> {
    let mut extra = Vec::new();
    if let Some(shape) = shape {
        extra.extend(["--shape".to_string(), shape.to_string()]);
    }
    if target.trim() != "llvm" {
        extra.extend(["--target".to_string(), target.to_string()]);
    }
    extra
}

fn describe(measurement: &Measurement) -> String {
    match (
        measurement.median_ms,
        measurement.gflops,
        &measurement.error,
    ) {
        (Some(ms), Some(gflops), _) => format!("{ms:.3} ms ({gflops:.1} GFLOP/s)"),
        (Some(ms), None, _) => format!("{ms:.3} ms"),
        (_, _, Some(error)) => format!("failed: {}", error.lines().next().unwrap_or_default()),
        _ => "failed".to_string(),
    }
}

/// Candidates measured between two refits of the cost model.
const BATCH: usize = 8;

/// The fastest candidates of a run timed again before one is chosen, and
/// the processes each is timed in. One short timing of each of hundreds of
/// candidates flatters the fastest (on a 2-core Zen 3, a 1024³ matmul
/// candidate timed at 20.8 ms ran at 25-34 ms in later processes), and some
/// schedules are fast in one process and slow in the next.
const RETIMED: usize = 4;
const RETIME_PROCESSES: usize = 3;

/// Records of the fastest candidates of `history` timed again, each the
/// median of [`RETIME_PROCESSES`] timings in processes of their own (an
/// error in any of them is the record's error). The [`RETIMED`] fastest
/// are, then the fastest by its latest time while that one was timed only
/// once, up to twice as many in all, so the one chosen has been timed again.
/// Appended after the first timings, they replace them in [`records::best`].
fn retime_fastest(
    runner: &mut ProcessRunner,
    history: &[(Candidate, Option<f64>)],
    workload: &str,
    target: &str,
) -> Vec<Record> {
    let mut latest: Vec<(&Candidate, Option<f64>, bool)> = history
        .iter()
        .filter(|(_, time)| time.is_some())
        .map(|(candidate, time)| (candidate, *time, false))
        .collect();
    let mut retimed = Vec::new();
    while retimed.len() < 2 * RETIMED {
        latest.sort_by(|a, b| {
            let time = |t: Option<f64>| t.unwrap_or(f64::INFINITY);
            time(a.1).total_cmp(&time(b.1))
        });
        let next = if retimed.len() < RETIMED {
            latest
                .iter()
                .position(|(_, time, again)| !again && time.is_some())
        } else {
            latest
                .first()
                .filter(|(_, time, again)| !again && time.is_some())
                .map(|_| 0)
        };
        let Some(index) = next else { break };
        let (candidate, first_ms, _) = latest[index];
        let mut measurements: Vec<Measurement> = (0..RETIME_PROCESSES)
            .map(|_| runner.measure(&candidate.trace))
            .collect();
        let error = measurements.iter().find_map(|m| m.error.clone());
        measurements.sort_by(|a, b| {
            let time = |m: &Measurement| m.median_ms.unwrap_or(f64::INFINITY);
            time(a).total_cmp(&time(b))
        });
        let middle = measurements.swap_remove(RETIME_PROCESSES / 2);
        let ms = middle.median_ms.filter(|_| error.is_none());
        let first_ms = first_ms.unwrap_or(f64::NAN);
        match (&error, ms) {
            (None, Some(ms)) => eprintln!("timed again: {first_ms:.3} ms -> {ms:.3} ms"),
            _ => eprintln!(
                "timed again: {first_ms:.3} ms -> {}",
                error.as_deref().unwrap_or("no time")
            ),
        }
        latest[index] = (candidate, ms, true);
        retimed.push(Record {
            workload: workload.to_string(),
            target: target.to_string(),
            trace: candidate.trace.clone(),
            median_ms: ms,
            gflops: middle.gflops.filter(|_| error.is_none()),
            error,
        });
    }
    retimed
}

/// The progress of the search on standard error: a bar redrawn in place on
/// a terminal, a line per trial elsewhere (logs, CI).
struct Progress {
    trials: usize,
    done: usize,
    best: Option<Measurement>,
    terminal: bool,
}

impl Progress {
    fn new(trials: usize) -> Progress {
        Progress {
            trials,
            done: 0,
            best: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn trial(&mut self, measurement: &Measurement, elapsed: Duration) {
        self.done += 1;
        if measurement.error.is_none()
            && measurement.median_ms.is_some_and(|ms| {
                self.best
                    .as_ref()
                    .and_then(|b| b.median_ms)
                    .is_none_or(|best| ms < best)
            })
        {
            self.best = Some(measurement.clone());
        }
        let best = self
            .best
            .as_ref()
            .map(describe)
            .unwrap_or_else(|| "none yet".to_string());
        let seconds = elapsed.as_secs_f64();
        if self.terminal {
            let width = 24;
            let filled = width * self.done / self.trials.max(1);
            eprint!(
                "\r\x1b[2K[{}{}] {}/{} · best {best} · {seconds:.0} s",
                "#".repeat(filled),
                ".".repeat(width - filled),
                self.done,
                self.trials
            );
        } else {
            eprintln!(
                "trial {}/{}: {}; best {best}; {seconds:.0} s",
                self.done,
                self.trials,
                describe(measurement)
            );
        }
    }

    fn finish(&self) {
        if self.terminal && self.done > 0 {
            eprintln!();
        }
    }
}

/// Ctrl-C sets [`INTERRUPTED`] (the search stops and keeps what it found);
/// a second Ctrl-C ends tirc at once.
fn install_interrupt_handler() {
    extern "C" fn on_interrupt(_: libc::c_int) {
        INTERRUPTED.store(true, Ordering::Relaxed);
        // SAFETY: `signal` is async-signal-safe; restoring the default
        // action lets a second Ctrl-C end the process.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }
    // SAFETY: the handler only stores to an atomic and calls `signal`.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

/// Times the file's own (default) schedule on `runner`, if it has one.
fn measure_own_schedule(
    runner: &mut ProcessRunner,
    text: &str,
    target: &tirc::codegen::Target,
) -> Option<(String, Measurement)> {
    let cuda = matches!(target, tirc::codegen::Target::Cuda(_));
    let checked = check(
        &SourceFile::new("own.tir".to_string(), text.to_string()),
        &CheckOptions::default(),
    )
    .ok()?;
    // The section `tirc run` would apply for this target; on a GPU only a
    // schedule that binds threads runs.
    let options = tirc::schedule::ApplyOptions {
        machine_sections: Some(tirc::driver::toolchain::schedule_sections_for(target)),
        ..Default::default()
    };
    let binds = |s: &&tirc::frontend::ScheduleDef| !cuda || s.text.contains("bind(");
    let binding: Vec<_> = checked.program.schedules.iter().filter(binds).collect();
    let own = tirc::schedule::select_schedule(&checked.program, None, &options)
        .ok()
        .flatten()
        .filter(binds)
        .or_else(|| (binding.len() == 1).then(|| binding[0]))?;
    let trace_like = format!(
        "def apply_trace(sch: T.Schedule):\n{}",
        own.text
            .lines()
            .skip_while(|l| !l.starts_with("def "))
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    );
    Some((own.name.clone(), runner.measure(&trace_like)))
}

/// `text` with its `def tuned` section (and the comment lines just above
/// it) replaced by `section`, or with `section` added at the end.
fn with_tuned_section(text: &str, section: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    let mut index = 0;
    while index < lines.len() {
        if lines[index].starts_with("def tuned(") {
            while kept.last().is_some_and(|l| l.starts_with("# tirc tune")) {
                kept.pop();
            }
            index += 1;
            while index < lines.len()
                && (lines[index].is_empty()
                    || lines[index].starts_with(' ')
                    || lines[index].starts_with('\t'))
            {
                index += 1;
            }
            continue;
        }
        kept.push(lines[index]);
        index += 1;
    }
    while kept.last().is_some_and(|l| l.trim().is_empty()) {
        kept.pop();
    }
    format!("{}\n\n{section}", kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::with_tuned_section;

    #[test]
    fn the_tuned_section_is_replaced_not_repeated() {
        let text =
            "@T.prim_func\ndef main():\n    pass\n\ndef schedule(sch: T.Schedule):\n    pass\n";
        let once = with_tuned_section(
            text,
            "# tirc tune on X: 1 ms\ndef tuned(sch: T.Schedule):\n    a = 1\n",
        );
        let twice = with_tuned_section(
            &once,
            "# tirc tune on X: 0.5 ms\ndef tuned(sch: T.Schedule):\n    b = 2\n",
        );
        assert!(
            twice.contains("def schedule(sch: T.Schedule):\n    pass"),
            "{twice}"
        );
        assert_eq!(twice.matches("def tuned(").count(), 1, "{twice}");
        assert!(
            twice.contains("b = 2") && !twice.contains("a = 1"),
            "{twice}"
        );
        assert!(!twice.contains("1 ms"), "{twice}");
    }
}
