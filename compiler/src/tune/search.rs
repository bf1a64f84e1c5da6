//! The search of `tirc tune`: an evolutionary search over the decisions
//! of the design space, ranked by a [`CostModel`] refitted from every
//! measurement (MetaSchedule's `EvolutionarySearch`). A batch is the
//! model's favourites among many candidates, each drawn from the space or
//! made by mutating one decision of a fast candidate ([`mutate_trace`]),
//! plus a few fresh draws to keep exploring; candidates are replayed and
//! featurized on threads, and measured one at a time by a [`Runner`] in a
//! worker process, so that one that crashes or hangs is recorded and never
//! takes tirc down.

use super::cost_model::CostModel;
use super::features::{loop_nest_features, trace_decisions, REGISTER_PRESSURE};
use super::machine::CpuMachine;
use crate::frontend::{parse_program, Program};
use crate::schedule::sampling::{sample_perfect_tile, RandomState};
use crate::schedule::{apply_schedule_with, ApplyOptions};
use crate::source::SourceMap;
use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The name of the space's `def` in the files candidates are drawn from.
pub const SPACE_NAME: &str = "tirc_tune_space";
/// The name of a candidate's `def` in the file it is measured from.
pub const CANDIDATE_NAME: &str = "tirc_tune_candidate";

/// What a measurement gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measurement {
    /// The median time, when it ran and its results matched the reference.
    pub median_ms: Option<f64>,
    /// GFLOP/s at that time.
    pub gflops: Option<f64>,
    /// Why there is no time.
    pub error: Option<String>,
}

/// Where candidates are measured.
pub trait Runner {
    /// Runs the program scheduled by `trace` (a `def apply_trace`) and times it.
    fn measure(&mut self, trace: &str) -> Measurement;
}

/// Set when the user interrupts `tirc tune` (Ctrl-C): the running worker is
/// killed and the search stops, keeping what it measured.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// A candidate schedule: its trace, every decision in it, and what the cost
/// model sees of it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The trace (`def apply_trace`), as tirc prints it.
    pub trace: String,
    /// The loop-nest features of the scheduled program, then the decisions.
    pub features: Vec<f64>,
    /// On a CPU: its accumulator tile needs more vector registers than the
    /// machine has, so it spills (or stays in memory).
    pub spills: bool,
}

/// Draws and replays candidates: the program with the design space beside it.
pub struct Sampler {
    program: Program,
    source: String,
    entry: Option<String>,
    /// For a GPU: the target candidates must compile for.
    cuda: Option<crate::codegen::Target>,
    /// For a CPU: the machine whose registers and caches candidates are
    /// measured against.
    machine: CpuMachine,
}

/// Parses `text` (a program with schedule sections) or says why not.
fn parse_whole(text: &str, what: &str) -> Result<Program, String> {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, "space.tir", text);
    match program {
        Some(program) if diagnostics.iter().all(|d| !d.is_error()) => Ok(program),
        _ => Err(format!(
            "{what} does not read back: {}",
            diagnostics
                .first()
                .map(|d| d.message.as_str())
                .unwrap_or("no program")
        )),
    }
}

impl Sampler {
    /// A sampler of `space` (a `def` named [`SPACE_NAME`]) for the program
    /// `source` and its function `entry`.
    pub fn new(source: &str, space: &str, entry: Option<&str>) -> Result<Sampler, String> {
        Ok(Sampler {
            program: parse_whole(&format!("{source}\n{space}"), "the design space")?,
            source: source.to_string(),
            entry: entry.map(str::to_string),
            cuda: None,
            machine: CpuMachine::host(),
        })
    }

    /// The sampler for `target`: for a GPU, a candidate that does not
    /// compile to CUDA C (too many threads or too much shared memory for a
    /// block, a vector access the backend cannot write) is rejected as it
    /// is drawn, as MetaSchedule's `VerifyGPUCode` rejects it, not measured.
    /// For a CPU named by the target (`-mcpu=znver3`), candidates are
    /// measured against that CPU's register file and caches.
    pub fn for_target(self, target: &crate::codegen::Target) -> Sampler {
        match target {
            crate::codegen::Target::Cuda(_) => Sampler {
                cuda: Some(target.clone()),
                ..self
            },
            crate::codegen::Target::Llvm(llvm) => Sampler {
                machine: CpuMachine::for_target(llvm),
                ..self
            },
        }
    }

    /// The sampler with candidates measured against `machine` instead of
    /// the host.
    pub fn with_machine(self, machine: CpuMachine) -> Sampler {
        Sampler { machine, ..self }
    }

    /// The schedule `seed` draws, every decision in its trace.
    pub fn sample(&self, seed: u64) -> Result<Candidate, String> {
        self.apply(&self.program, SPACE_NAME, Some(seed))
    }

    /// `trace` applied again, its decisions fitted as TVM fits replayed ones
    /// (a compute location that no longer exists moves to the nearest one).
    pub fn replay(&self, trace: &str) -> Result<Candidate, String> {
        let section = trace_as_section(trace, CANDIDATE_NAME);
        let program = parse_whole(&format!("{}\n{section}", self.source), "the trace")?;
        self.apply(&program, CANDIDATE_NAME, None)
    }

    /// Replays every trace, on as many threads as there are cores; the
    /// candidates that apply, in the order given.
    pub fn replay_all(&self, traces: &[String]) -> Vec<Candidate> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = traces.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = traces
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .filter_map(|trace| self.replay(trace).ok())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| worker.join().unwrap_or_default())
                .collect()
        })
    }

    fn apply(&self, program: &Program, name: &str, seed: Option<u64>) -> Result<Candidate, String> {
        let options = ApplyOptions {
            seed,
            ..ApplyOptions::default()
        };
        let run = apply_schedule_with(program, Some(name), &options);
        if let Some(diagnostic) = run.diagnostics.first() {
            return Err(diagnostic.message.clone());
        }
        if let Some(target) = &self.cuda {
            compiles_for_cuda(run.module(), target)?;
        }
        let trace = run.trace.to_python();
        let mut features = loop_nest_features(run.module(), self.entry.as_deref(), &self.machine);
        let spills = self.cuda.is_none() && features[REGISTER_PRESSURE] > 1.0;
        features.extend(trace_decisions(&trace));
        Ok(Candidate {
            trace,
            features,
            spills,
        })
    }
}

/// Ok when `module` lowers for the CUDA `target` (threads and shared
/// memory within a block's limits) and its kernels can be written.
fn compiles_for_cuda(
    module: &crate::ir::IRModule,
    target: &crate::codegen::Target,
) -> Result<(), String> {
    let first = |diagnostics: Vec<crate::diagnostics::Diagnostic>| {
        diagnostics.first().map_or_else(
            || "does not compile for CUDA".to_string(),
            |d| d.message.clone(),
        )
    };
    let passes = crate::transform::pipeline_for(target);
    let options = crate::transform::options_for(target);
    let lowered =
        crate::transform::run_passes(&passes, module, &options, &mut |_, _| {}).map_err(first)?;
    // Without the CUDA backend, the lowering is all that can be checked.
    #[cfg(feature = "cuda")]
    {
        let written = crate::codegen::cuda::writer::write_cuda(&lowered, Default::default())
            .map_err(first)?;
        // A block of fewer threads than a warp that stages shared tiles
        // and keeps a large register tile per thread piles onto a few
        // threads the work many should share: on an H200 such matmul
        // candidates ran 100 to 2000 times slower than the best. The cost
        // model does not see threads yet, so they are not drawn; small
        // workloads, whose tiles are small, keep their narrow blocks.
        for kernel in &written.kernels {
            // A thread has 255 registers: a larger `local` tile (copies per
            // virtual thread included) lives in local memory. On the H200
            // every matmul candidate past 1 KiB a thread ran 30 to 2000
            // times slower than the best, or took NVRTC past the timeout.
            if kernel.local_bytes > MAX_REGISTER_TILE_BYTES {
                return Err(format!(
                    "`{}` keeps {} bytes of `local` values a thread, more than its registers hold ({MAX_REGISTER_TILE_BYTES})",
                    kernel.name, kernel.local_bytes
                ));
            }
            let narrow = kernel.threads_per_block.is_some_and(|t| t < WARP_SIZE);
            if narrow && kernel.shared_bytes > 0 && kernel.local_bytes > NARROW_BLOCK_MAX_TILE_BYTES
            {
                return Err(format!(
                    "`{}` stages shared tiles with {} threads a block, fewer than a warp, each with {} bytes of registers",
                    kernel.name,
                    kernel.threads_per_block.unwrap_or_default(),
                    kernel.local_bytes
                ));
            }
        }
    }
    #[cfg(not(feature = "cuda"))]
    let _ = lowered;
    Ok(())
}

/// Threads that run in lockstep on NVIDIA GPUs.
#[cfg(feature = "cuda")]
const WARP_SIZE: i64 = 32;
/// The `local` values (bytes per thread) a candidate may keep: 256 floats,
/// about the 255 registers a thread has.
#[cfg(feature = "cuda")]
const MAX_REGISTER_TILE_BYTES: i64 = 1024;
/// The register tile (bytes per thread) a block narrower than a warp may keep.
#[cfg(feature = "cuda")]
const NARROW_BLOCK_MAX_TILE_BYTES: i64 = 256;

/// The seed of the `index`-th draw, spread over the generator's range as
/// MetaSchedule forks a seed per candidate. Consecutive seeds of the
/// minimal-standard generator start nearly alike (the first draw is
/// `seed * 48271 / (2^31 - 1)`): a space's first categorical took its first
/// candidate in nearly every draw. splitmix64's finalizer mixes them.
fn draw_seed(index: u64) -> u64 {
    let mut z = index.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Candidates measured before the cost model ranks any: all drawn from the space.
pub const WARM_UP: usize = 16;

/// The evolutionary search: which candidates to measure next.
pub struct EvolutionarySearch {
    sampler: Sampler,
    random: RandomState,
    next_seed: u64,
    /// Traces measured or handed out already.
    seen: HashSet<String>,
}

/// Candidates the model ranks in each generation.
const POPULATION: usize = 96;
/// Generations of mutation of the model's favourites per batch.
const GENERATIONS: usize = 3;
/// The fastest measured candidates that parent mutations.
const PARENTS: usize = 8;

impl EvolutionarySearch {
    /// A search of `sampler`'s space whose draws start at `seed`; `seen`
    /// are traces already measured (earlier runs' records).
    pub fn new(sampler: Sampler, seed: u64, seen: HashSet<String>) -> EvolutionarySearch {
        EvolutionarySearch {
            sampler,
            random: RandomState::new(seed),
            next_seed: seed,
            seen,
        }
    }

    /// Up to `count` fresh draws from the space not seen before. A draw
    /// whose accumulator tile spills is set aside, as MetaSchedule's
    /// postprocessors reject a candidate before measuring it; only when
    /// every draw spills are those measured.
    fn draw(&mut self, count: usize) -> Vec<Candidate> {
        let mut drawn: Vec<Candidate> = Vec::new();
        let mut spilling: Vec<Candidate> = Vec::new();
        let mut tries = 0;
        while drawn.len() < count && tries < count * 20 + 20 {
            tries += 1;
            self.next_seed += 1;
            if let Ok(candidate) = self.sampler.sample(draw_seed(self.next_seed - 1)) {
                let known = |list: &[Candidate]| list.iter().any(|d| d.trace == candidate.trace);
                if self.seen.contains(&candidate.trace) || known(&drawn) || known(&spilling) {
                    continue;
                }
                if candidate.spills {
                    spilling.push(candidate);
                } else {
                    drawn.push(candidate);
                }
            }
        }
        if drawn.is_empty() {
            spilling.truncate(count);
            return spilling;
        }
        drawn
    }

    /// `count` mutations of random members of `parents`, replayed.
    fn mutate(&mut self, parents: &[&str], count: usize) -> Vec<Candidate> {
        if parents.is_empty() {
            return Vec::new();
        }
        let traces: Vec<String> = (0..count)
            .filter_map(|_| {
                let parent = parents[self.random.sample_int(0, parents.len() as i64) as usize];
                mutate_trace(parent, &mut self.random)
            })
            .collect();
        let children = self.sampler.replay_all(&traces);
        if children.iter().all(|c| c.spills) {
            return children;
        }
        children.into_iter().filter(|c| !c.spills).collect()
    }

    /// The next `count` candidates to measure, given every measurement so
    /// far (`history`: candidate and its median time, `None` if it failed).
    pub fn next_batch(
        &mut self,
        history: &[(Candidate, Option<f64>)],
        count: usize,
    ) -> Vec<Candidate> {
        let timed: Vec<(&Candidate, f64)> = history
            .iter()
            .filter_map(|(c, ms)| ms.filter(|ms| *ms > 0.0).map(|ms| (c, ms)))
            .collect();
        let batch = if timed.len() < WARM_UP {
            self.draw(count)
        } else {
            let samples: Vec<Vec<f64>> = timed.iter().map(|(c, _)| c.features.clone()).collect();
            let targets: Vec<f64> = timed.iter().map(|(_, ms)| -ms.ln()).collect();
            let model = CostModel::fit(&samples, &targets);
            let mut parents = timed.clone();
            parents.sort_by(|a, b| a.1.total_cmp(&b.1));
            let parents: Vec<&str> = parents
                .iter()
                .take(PARENTS)
                .map(|(c, _)| c.trace.as_str())
                .collect();
            let mut population = self.draw(POPULATION / 2);
            population.extend(self.mutate(&parents, POPULATION / 2));
            for _ in 1..GENERATIONS {
                rank(&mut population, &model);
                population.truncate(POPULATION / 2);
                let favourites: Vec<String> = population.iter().map(|c| c.trace.clone()).collect();
                let favourites: Vec<&str> = favourites.iter().map(String::as_str).collect();
                let children = self.mutate(&favourites, POPULATION / 2);
                population.extend(children);
            }
            rank(&mut population, &model);
            // Most of the batch is the model's choice; a quarter explores.
            let explore = (count / 4).max(1);
            let mut chosen: Vec<Candidate> = Vec::new();
            for candidate in population {
                if chosen.len() + explore >= count {
                    break;
                }
                if !self.seen.contains(&candidate.trace)
                    && !chosen.iter().any(|c| c.trace == candidate.trace)
                {
                    chosen.push(candidate);
                }
            }
            let fresh = self.draw(count - chosen.len());
            chosen.extend(fresh);
            chosen
        };
        for candidate in &batch {
            self.seen.insert(candidate.trace.clone());
        }
        batch
    }
}

/// `population` sorted by the model's prediction, best first, without repeats.
fn rank(population: &mut Vec<Candidate>, model: &CostModel) {
    let mut scored: Vec<(f64, Candidate)> = population
        .drain(..)
        .map(|c| (model.predict(&c.features), c))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut kept: HashSet<String> = HashSet::new();
    population.extend(
        scored
            .into_iter()
            .filter(|(_, c)| kept.insert(c.trace.clone()))
            .map(|(_, c)| c),
    );
}

/// Measures candidates with `tirc run` in a worker process each: the
/// program with the candidate's trace beside it, checked against the
/// reference, timed with `--bench`, killed after a timeout.
pub struct ProcessRunner {
    /// The `tirc` executable.
    pub tirc: PathBuf,
    /// The program as written (its own schedule sections stay).
    pub source: String,
    /// The function to run.
    pub entry: Option<String>,
    /// Timed runs per candidate.
    pub runs: usize,
    /// How long a candidate may take, compile and check included.
    pub timeout: Duration,
    /// Where candidate files are written.
    pub folder: PathBuf,
    /// More arguments for `tirc run` (`--shape n=1024` for symbolic sizes,
    /// `--target cuda`).
    pub extra_args: Vec<String>,
    /// The arguments of the reference run instead of `extra_args`, when
    /// given: the reference of a GPU candidate runs on the CPU.
    pub reference_args: Option<Vec<String>>,
    /// Outputs of the program as written, saved once by
    /// [`ProcessRunner::save_reference`]; without them every candidate
    /// computes its own reference (seconds for a 1024³ matmul).
    expected: Option<PathBuf>,
    measured: usize,
}

impl ProcessRunner {
    /// A runner writing candidate files under `folder`.
    pub fn new(
        tirc: PathBuf,
        source: String,
        entry: Option<String>,
        folder: PathBuf,
    ) -> ProcessRunner {
        ProcessRunner {
            tirc,
            source,
            entry,
            runs: 5,
            timeout: Duration::from_secs(60),
            folder,
            extra_args: Vec::new(),
            reference_args: None,
            expected: None,
            measured: 0,
        }
    }

    /// Runs the program as written (no schedule) once and keeps its outputs
    /// as the reference every candidate is checked against.
    pub fn save_reference(&mut self) -> Result<(), String> {
        let file = self.folder.join("reference.tir");
        let outputs = self.folder.join("reference");
        std::fs::write(&file, &self.source)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        let mut command = self.tirc_run(&file, self.reference_args.as_ref());
        command
            .arg("--no-schedule")
            .arg("--save-outputs")
            .arg(&outputs);
        let report = self.run_worker(command)?;
        let json: serde_json::Value = serde_json::from_str(&report)
            .map_err(|_| "the reference run's report is not JSON".to_string())?;
        if json["ok"] != serde_json::Value::Bool(true) {
            return Err(format!(
                "the program as written does not run: {}",
                json["error"]["message"]
                    .as_str()
                    .unwrap_or("no reason given")
            ));
        }
        self.expected = Some(outputs);
        Ok(())
    }

    /// `tirc run FILE --json` with the entry and the extra arguments.
    fn tirc_run(&self, file: &Path, args: Option<&Vec<String>>) -> Command {
        let mut command = Command::new(&self.tirc);
        command
            .args(["--color", "never", "run"])
            .arg(file)
            .arg("--json");
        if let Some(entry) = &self.entry {
            command.args(["--entry", entry]);
        }
        command.args(args.unwrap_or(&self.extra_args));
        command
    }

    /// Runs `command` (a `tirc run`) under the timeout; its standard output,
    /// or why none came.
    fn run_worker(&self, mut command: Command) -> Result<String, String> {
        // Its own process group: Ctrl-C reaches tirc tune, which stops the
        // worker itself and keeps what was measured.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.tirc.display()))?;
        let started = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if INTERRUPTED.load(Ordering::Relaxed) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err("interrupted".to_string());
                }
                Ok(None) if started.elapsed() > self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("timed out after {} s", self.timeout.as_secs()));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(format!("lost the worker: {e}")),
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        let mut stdout = String::new();
        if let Some(mut out) = child.stdout.take() {
            let _ = out.read_to_string(&mut stdout);
        }
        if stdout.trim().is_empty() {
            return Err(match status.code() {
                Some(code) => format!("the worker exited with {code} and no report"),
                None => "the worker crashed (killed by a signal)".to_string(),
            });
        }
        Ok(stdout)
    }
}

/// The measurement in `tirc run --json`'s report.
fn measurement_of(report: &str) -> Measurement {
    let failed = |error: String| Measurement {
        error: Some(error),
        ..Measurement::default()
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(report) else {
        return failed("the worker's report is not JSON".to_string());
    };
    if json["ok"] != serde_json::Value::Bool(true) {
        // A refusal (a diagnostic, or an error with a message) says why;
        // a report with neither ran and failed its checks.
        let diagnostic = &json["diagnostics"][0];
        let why = json["error"]["message"]
            .as_str()
            .map(str::to_string)
            .or_else(|| {
                let message = diagnostic["message"].as_str()?;
                Some(match diagnostic["code"].as_str() {
                    Some(code) => format!("error[{code}]: {message}"),
                    None => message.to_string(),
                })
            })
            .unwrap_or_else(|| "its results differ from the reference".to_string());
        return failed(why);
    }
    match json["median_ms"].as_f64() {
        Some(ms) => Measurement {
            median_ms: Some(ms),
            gflops: json["gflops"].as_f64(),
            error: None,
        },
        None => failed("the worker timed nothing".to_string()),
    }
}

impl Runner for ProcessRunner {
    fn measure(&mut self, trace: &str) -> Measurement {
        self.measured += 1;
        let candidate = trace.replacen("def apply_trace(", &format!("def {CANDIDATE_NAME}("), 1);
        let file = self.folder.join(format!("candidate_{}.tir", self.measured));
        if let Err(error) = std::fs::write(&file, format!("{}\n{candidate}\n", self.source)) {
            return Measurement {
                error: Some(format!("cannot write {}: {error}", file.display())),
                ..Measurement::default()
            };
        }
        let mut command = self.tirc_run(&file, None);
        command
            .args(["--schedule", CANDIDATE_NAME])
            .args(["--bench", &self.runs.to_string()])
            // Compiled once: with run-time checks, `--bench` compiles again
            // without them (a second LLVM compile, about 1 s for a conv2d
            // candidate). A candidate comes from a verified schedule, and a
            // crash stays in the worker and is recorded.
            .arg("--no-runtime-checks");
        match &self.expected {
            Some(dir) => command.arg("--expected").arg(dir),
            None => command.arg("--check"),
        };
        let measurement = match self.run_worker(command) {
            Ok(report) => measurement_of(&report),
            Err(error) => Measurement {
                error: Some(error),
                ..Measurement::default()
            },
        };
        let _ = std::fs::remove_file(&file);
        measurement
    }
}

/// The integers of `[a, b, ...]` in `text` after `key=`.
fn list_after(text: &str, key: &str) -> Option<Vec<i64>> {
    let start = text.find(key)? + key.len();
    let rest = text[start..].strip_prefix('[')?;
    let end = rest.find(']')?;
    rest[..end]
        .split(',')
        .map(|item| item.trim().parse().ok())
        .collect()
}

/// The integer after `key=` in `text`.
fn integer_after(text: &str, key: &str) -> Option<i64> {
    let start = text.find(key)? + key.len();
    let digits: String = text[start..]
        .chars()
        .take_while(|c| *c == '-' || c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The compute-location decisions a mutation draws from (`-2` inline, `-1`
/// the root, then loops by position).
const LOCATION_DECISIONS: i64 = 10;

/// `trace` with one sampling decision changed (MetaSchedule's mutators): a
/// perfect tile redrawn with the same product and innermost bound, an
/// other candidate of a categorical choice, or an other compute location. `None` when the trace has no
/// decision that can change.
pub fn mutate_trace(trace: &str, random: &mut RandomState) -> Option<String> {
    let lines: Vec<&str> = trace.lines().collect();
    let mutable: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| {
            (line.contains("sch.sample_perfect_tile(")
                || line.contains("sch.sample_categorical(")
                || line.contains("sch.sample_compute_location("))
                && line.contains("decision=")
        })
        .map(|(i, _)| i)
        .collect();
    for _ in 0..8 {
        let &index = mutable.get(random.sample_int(0, mutable.len().max(1) as i64) as usize)?;
        let line = lines[index];
        let decision_at = line.rfind("decision=")?;
        let (head, _) = line.split_at(decision_at);
        let replacement = if line.contains("sch.sample_perfect_tile(") {
            let old = list_after(line, "decision=")?;
            let product: i64 = old.iter().product();
            let max_innermost = integer_after(line, "max_innermost_factor=").unwrap_or(16);
            let new = sample_perfect_tile(random, product, old.len(), max_innermost);
            if new == old {
                continue;
            }
            let items: Vec<String> = new.iter().map(i64::to_string).collect();
            format!("{head}decision=[{}])", items.join(", "))
        } else if line.contains("sch.sample_compute_location(") {
            // The candidates depend on the program at that step: any
            // decision replays, fitted to the nearest location before it.
            let old = integer_after(line, "decision=")?;
            let new = random.sample_int(-2, LOCATION_DECISIONS);
            if new == old {
                continue;
            }
            format!("{head}decision={new})")
        } else {
            let count = list_after(line, "candidates=")?.len() as i64;
            let old = integer_after(line, "decision=")?;
            if count < 2 {
                continue;
            }
            let mut new = random.sample_int(0, count - 1);
            if new >= old {
                new += 1;
            }
            format!("{head}decision={new})")
        };
        let mut mutated: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        mutated[index] = replacement;
        return Some(mutated.join("\n"));
    }
    None
}

/// A trace as a schedule section named `name`, four spaces to a level.
pub fn trace_as_section(trace: &str, name: &str) -> String {
    let mut section = format!("def {name}(sch: T.Schedule):\n");
    for line in trace.lines().skip_while(|l| !l.starts_with("def ")).skip(1) {
        let body = line.strip_prefix("  ").unwrap_or(line);
        section.push_str("    ");
        section.push_str(body);
        section.push('\n');
    }
    section
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_become_measurements() {
        let ok = measurement_of(r#"{"ok":true,"median_ms":2.5,"gflops":40.0}"#);
        assert_eq!(ok.median_ms, Some(2.5));
        assert_eq!(ok.error, None);
        let refused = measurement_of(
            r#"{"ok":false,"diagnostics":[{"code":"E0508","message":"too much shared memory"}]}"#,
        );
        assert_eq!(
            refused.error.as_deref(),
            Some("error[E0508]: too much shared memory")
        );
        let wrong = measurement_of(r#"{"ok":false,"checks":[]}"#);
        assert_eq!(
            wrong.error.as_deref(),
            Some("its results differ from the reference")
        );
        let refused = measurement_of(r#"{"ok":false,"error":{"message":"E0317"}}"#);
        assert_eq!(refused.error.as_deref(), Some("E0317"));
        assert!(measurement_of("Segmentation fault").error.is_some());
    }

    #[test]
    fn a_mutation_changes_one_decision_and_keeps_the_tile_perfect() {
        let trace = "def apply_trace(sch: s_tir.Schedule) -> None:\n  v4, v5 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16, decision=[8, 16])\n  v6 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=3)";
        let mut random = RandomState::new(5);
        let mut changed_tiles = 0;
        let mut changed_choices = 0;
        for _ in 0..40 {
            let mutated = mutate_trace(trace, &mut random).expect("a decision to change");
            let differing: Vec<(&str, &str)> = trace
                .lines()
                .zip(mutated.lines())
                .filter(|(a, b)| a != b)
                .collect();
            assert_eq!(differing.len(), 1, "{mutated}");
            let line = differing[0].1;
            if line.contains("sample_perfect_tile") {
                let tile = list_after(line, "decision=").unwrap();
                assert_eq!(tile.iter().product::<i64>(), 128, "{line}");
                assert!(tile[1] <= 16, "{line}");
                changed_tiles += 1;
            } else {
                let decision = integer_after(line, "decision=").unwrap();
                assert!((0..3).contains(&decision), "{line}");
                changed_choices += 1;
            }
        }
        assert!(changed_tiles > 0 && changed_choices > 0);
        assert_eq!(
            mutate_trace("def apply_trace(sch):\n  pass", &mut random),
            None
        );
    }

    #[test]
    fn a_trace_becomes_a_readable_section() {
        let trace = "# from tvm import s_tir\ndef apply_trace(sch: s_tir.Schedule) -> None:\n  b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n  sch.parallel(loop=l1)";
        assert_eq!(
            trace_as_section(trace, "tuned"),
            "def tuned(sch: T.Schedule):\n    b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n    sch.parallel(loop=l1)\n"
        );
    }

    /// The search, fed a synthetic time that is best with 16 lanes and a
    /// 128-element accumulator tile, proposes faster candidates once its
    /// model has seen the warm-up draws than the draws themselves were.
    #[test]
    fn the_model_steers_the_search_towards_fast_candidates() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
        let mut sources = SourceMap::new();
        let (program, _) = parse_program(&mut sources, "t.tir", source);
        let space = crate::tune::space::cpu_design_space(
            &program.unwrap().module,
            None,
            SPACE_NAME,
            &CpuMachine::avx512(CACHES),
        )
        .unwrap();
        // Thirty-two registers: the fastest tile (8x16) fits.
        let sampler = Sampler::new(source, &space, None)
            .unwrap()
            .with_machine(CpuMachine::avx512(CACHES));
        let mut search = EvolutionarySearch::new(sampler, 1, HashSet::new());
        let time =
            |c: &Candidate| 1.0 + (c.features[3] - 4.0).abs() + (c.features[6] - 7.0).abs() / 2.0;
        let mut history: Vec<(Candidate, Option<f64>)> = Vec::new();
        let mut batches = Vec::new();
        for _ in 0..4 {
            let batch = search.next_batch(&history, 8);
            assert_eq!(batch.len(), 8);
            let times: Vec<f64> = batch.iter().map(time).collect();
            batches.push(times.iter().sum::<f64>() / times.len() as f64);
            for (candidate, ms) in batch.into_iter().zip(times) {
                assert!(
                    history.iter().all(|(c, _)| c.trace != candidate.trace),
                    "a candidate was proposed twice"
                );
                history.push((candidate, Some(ms)));
            }
        }
        let warm_up = (batches[0] + batches[1]) / 2.0;
        let guided = (batches[2] + batches[3]) / 2.0;
        assert!(guided < warm_up * 0.8, "{batches:?}");
    }

    const CACHES: [f64; 3] = [32768.0, 524288.0, 33554432.0];

    /// Consecutive draws start with different first decisions: the first
    /// uniform draw (what a categorical compares with its probabilities)
    /// falls in each quarter of [0, 1); straight from consecutive seeds it
    /// falls below 0.002 every time.
    #[test]
    fn consecutive_draws_spread_their_first_decisions() {
        let mut quarters = [0; 4];
        for index in 1..=64 {
            let first = RandomState::new(draw_seed(index)).sample_unit();
            quarters[(first * 4.0) as usize] += 1;
        }
        assert!(quarters.iter().all(|count| *count >= 8), "{quarters:?}");
        assert!((1..=64).all(|seed| RandomState::new(seed).sample_unit() < 0.002));
    }

    /// On an AVX2 core (16 registers) draws whose accumulator tile does not
    /// fit are drawn by the space but never proposed for measurement.
    #[test]
    fn draws_whose_accumulators_spill_are_not_proposed() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
        let mut sources = SourceMap::new();
        let (program, _) = parse_program(&mut sources, "t.tir", source);
        let space = crate::tune::space::cpu_design_space(
            &program.unwrap().module,
            None,
            SPACE_NAME,
            &CpuMachine::avx2(CACHES),
        )
        .unwrap();
        let sampler = || {
            Sampler::new(source, &space, None)
                .unwrap()
                .with_machine(CpuMachine::avx2(CACHES))
        };
        let spilling = (1..=40)
            .filter_map(|index| sampler().sample(draw_seed(index)).ok())
            .filter(|c| c.spills)
            .count();
        assert!(spilling > 0, "the space draws tiles that spill");
        let mut search = EvolutionarySearch::new(sampler(), 1, HashSet::new());
        let batch = search.next_batch(&[], 16);
        assert_eq!(batch.len(), 16);
        for candidate in &batch {
            assert!(!candidate.spills, "{}", candidate.trace);
            assert!(candidate.features[REGISTER_PRESSURE] <= 1.0);
        }
    }

    #[test]
    fn the_sampler_draws_traces_that_replay_their_decisions() {
        let source = r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
"#;
        let mut sources = SourceMap::new();
        let (program, _) = parse_program(&mut sources, "t.tir", source);
        let space = crate::tune::space::cpu_design_space(
            &program.unwrap().module,
            None,
            SPACE_NAME,
            &CpuMachine::avx2(CACHES),
        )
        .unwrap();
        let sampler = Sampler::new(source, &space, None).unwrap();
        let candidate = sampler.sample(3).unwrap();
        assert_eq!(sampler.sample(3).unwrap().trace, candidate.trace);
        assert!(candidate.trace.contains("decision="), "{}", candidate.trace);
        // The trace replays to itself, with the same features.
        let replayed = sampler.replay(&candidate.trace).unwrap();
        assert_eq!(replayed.trace, candidate.trace);
        assert_eq!(replayed.features, candidate.features);
        assert!(candidate.features.len() > super::super::features::LOOP_NEST_FEATURES);
    }
}
