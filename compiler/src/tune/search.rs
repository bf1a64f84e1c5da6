//! The search of `tirc tune`: candidates drawn from the design space (each
//! seed gives a trace with its decisions) or made by mutating one decision
//! of a fast candidate's trace ([`mutate_trace`]), measured by a [`Runner`]
//! in worker processes so that a candidate that crashes or hangs is
//! recorded and never takes tirc down. A learned cost model that ranks
//! candidates before they are measured is still to come.

use crate::frontend::{parse_program, Program};
use crate::schedule::sampling::{sample_perfect_tile, RandomState};
use crate::schedule::{apply_schedule_with, ApplyOptions};
use crate::source::SourceMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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

/// Draws candidates: the program with the design space beside it.
pub struct Sampler {
    program: Program,
}

impl Sampler {
    /// A sampler of `space` (a `def` named [`SPACE_NAME`]) for the program `source`.
    pub fn new(source: &str, space: &str) -> Result<Sampler, String> {
        let mut sources = SourceMap::new();
        let text = format!("{source}\n{space}");
        let (program, diagnostics) = parse_program(&mut sources, "space.tir", &text);
        match program {
            Some(program) if diagnostics.iter().all(|d| !d.is_error()) => Ok(Sampler { program }),
            _ => Err(format!(
                "the design space does not read back: {}",
                diagnostics
                    .first()
                    .map(|d| d.message.as_str())
                    .unwrap_or("no program")
            )),
        }
    }

    /// The trace of the schedule `seed` draws, every decision in it.
    pub fn sample(&self, seed: u64) -> Result<String, String> {
        let options = ApplyOptions {
            seed: Some(seed),
            ..ApplyOptions::default()
        };
        let run = apply_schedule_with(&self.program, Some(SPACE_NAME), &options);
        if let Some(diagnostic) = run.diagnostics.first() {
            return Err(diagnostic.message.clone());
        }
        Ok(run.trace.to_python())
    }
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
    /// More arguments for `tirc run` (`--shape n=1024` for symbolic sizes).
    pub extra_args: Vec<String>,
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
        let mut command = self.tirc_run(&file);
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
    fn tirc_run(&self, file: &Path) -> Command {
        let mut command = Command::new(&self.tirc);
        command
            .args(["--color", "never", "run"])
            .arg(file)
            .arg("--json");
        if let Some(entry) = &self.entry {
            command.args(["--entry", entry]);
        }
        command.args(&self.extra_args);
        command
    }

    /// Runs `command` (a `tirc run`) under the timeout; its standard output,
    /// or why none came.
    fn run_worker(&self, mut command: Command) -> Result<String, String> {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.tirc.display()))?;
        let started = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
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
        let why = json["error"]["message"]
            .as_str()
            .map(str::to_string)
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
        let mut command = self.tirc_run(&file);
        command
            .args(["--schedule", CANDIDATE_NAME])
            .args(["--bench", &self.runs.to_string()]);
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

/// `trace` with one sampling decision changed (MetaSchedule's mutators): a
/// perfect tile redrawn with the same product and innermost bound, or an
/// other candidate of a categorical choice. `None` when the trace has no
/// decision that can change.
pub fn mutate_trace(trace: &str, random: &mut RandomState) -> Option<String> {
    let lines: Vec<&str> = trace.lines().collect();
    let mutable: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| {
            (line.contains("sch.sample_perfect_tile(") || line.contains("sch.sample_categorical("))
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
        let space =
            crate::tune::space::cpu_design_space(&program.unwrap().module, None, SPACE_NAME)
                .unwrap();
        let sampler = Sampler::new(source, &space).unwrap();
        let trace = sampler.sample(3).unwrap();
        assert_eq!(sampler.sample(3).unwrap(), trace);
        assert!(trace.contains("decision="), "{trace}");
    }
}
