//! The tuning records: one JSON object per line, for every candidate
//! measured (the workload it schedules, the target it ran on, its trace with
//! every decision, and its time or why it has none). A file of records is
//! reusable across runs and machines of the same target; a damaged line is
//! reported and skipped.

use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// One measured candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`workload_key`] of the function the trace schedules.
    pub workload: String,
    /// The machine it ran on ([`cpu_target`]).
    pub target: String,
    /// The trace, as `tirc schedule --trace` prints it, decisions included.
    pub trace: String,
    /// The median time of the runs, when it ran and its results were right.
    pub median_ms: Option<f64>,
    /// GFLOP/s at that time.
    pub gflops: Option<f64>,
    /// Why it has no time: refused, crashed, timed out, wrong results.
    pub error: Option<String>,
}

/// The key of a workload: a 64-bit FNV-1a hash of the function as tirc
/// prints it, unscheduled (the same program gives the same key anywhere).
pub fn workload_key(printed_function: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in printed_function.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The entry function of a module (the one named, else `main`, else the
/// only one) and its [`workload_key`].
pub fn workload_of(module: &crate::ir::IRModule, entry: Option<&str>) -> Option<(String, String)> {
    let function = match entry {
        Some(name) => module.functions.iter().find(|f| f.name == name),
        None => module
            .functions
            .iter()
            .find(|f| f.name == "main")
            .or(module.functions.first()),
    }?;
    let printed = crate::printer::print_function(function, &Default::default());
    Some((function.name.clone(), workload_key(&printed)))
}

/// The target string of this machine's CPU: `llvm`, its model and the
/// features kernels depend on (records from a machine with other features
/// do not apply here).
pub fn cpu_target() -> String {
    let cpu = crate::driver::toolchain::probe_cpu();
    let features: Vec<&str> = cpu
        .features
        .iter()
        .filter(|(_, present)| *present)
        .map(|(name, _)| name.as_str())
        .collect();
    format!(
        "llvm -model=\"{}\" -features={}",
        cpu.model,
        features.join(",")
    )
}

/// The target string records of `target` (as the user wrote it, `text`)
/// are kept under on this machine: for a CPU, [`cpu_target`] with the
/// options given; for CUDA, `cuda -arch=sm_XY` with the architecture given,
/// else the GPU's, else `sm_80` (the CUDA backend's default).
pub fn record_target(target: &crate::codegen::Target, text: &str) -> String {
    match target {
        // Both of TVM's spellings of one target share its records.
        crate::codegen::Target::Llvm(_) if target.command_line() == "llvm" => cpu_target(),
        crate::codegen::Target::Llvm(_) if text.trim_start().starts_with('{') => {
            format!("{} [{}]", cpu_target(), target.command_line())
        }
        crate::codegen::Target::Llvm(_) => format!("{} [{}]", cpu_target(), text.trim()),
        crate::codegen::Target::Cuda(cuda) => {
            #[cfg(feature = "cuda")]
            let arch = cuda
                .arch
                .clone()
                .or_else(crate::codegen::cuda::device::device_arch);
            #[cfg(not(feature = "cuda"))]
            let arch = cuda.arch.clone();
            format!("cuda -arch={}", arch.unwrap_or_else(|| "sm_80".to_string()))
        }
    }
}

/// The default records file: `$XDG_CACHE_HOME/tirc/records.jsonl`, else
/// `~/.cache/tirc/records.jsonl`.
pub fn default_path() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(cache.join("tirc").join("records.jsonl"))
}

/// The records of a file (none when it does not exist yet), and a warning
/// for each line that does not read as a record, naming the line.
pub fn read_records(path: &Path) -> Result<(Vec<Record>, Vec<String>), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(record) => records.push(record),
            Err(error) => warnings.push(format!(
                "{}:{}: not a tuning record, skipped: {error}",
                path.display(),
                number + 1
            )),
        }
    }
    Ok((records, warnings))
}

/// Appends a record as one line, creating the file and its folder.
pub fn append_record(path: &Path, record: &Record) -> Result<(), String> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    }
    let line = serde_json::to_string(record).map_err(|e| e.to_string())?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    writeln!(file, "{line}").map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The fastest record of a workload on a target. A trace measured again
/// counts by its latest record: `tirc tune` re-times its fastest candidates
/// with more runs, and the first, shorter timing of the winner is the one
/// most likely flattered by noise.
pub fn best<'a>(records: &'a [Record], workload: &str, target: &str) -> Option<&'a Record> {
    let mut seen = std::collections::HashSet::new();
    records
        .iter()
        .rev()
        .filter(|r| r.workload == workload && r.target == target)
        .filter(|r| seen.insert(r.trace.as_str()))
        .filter(|r| r.error.is_none())
        .filter_map(|r| r.median_ms.map(|ms| (ms, r)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(trace: &str, median_ms: Option<f64>) -> Record {
        Record {
            workload: workload_key("def main(): pass"),
            target: "llvm -model=\"test\" -features=AVX2".to_string(),
            trace: trace.to_string(),
            median_ms,
            gflops: median_ms.map(|ms| 1.0 / ms),
            error: median_ms.is_none().then(|| "timed out".to_string()),
        }
    }

    #[test]
    fn records_round_trip_and_damaged_lines_are_skipped_with_their_line() {
        let path = std::env::temp_dir().join(format!("tirc-records-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let fast = record(
            "# from tvm import s_tir\ndef apply_trace(sch: s_tir.Schedule) -> None:\n  pass",
            Some(1.5),
        );
        let slow = record("b0 = sch.get_sblock(\"C\")", Some(3.0));
        let failed = record("b0 = sch.get_sblock(\"X\")", None);
        for r in [&slow, &fast, &failed] {
            append_record(&path, r).unwrap();
        }
        // A line cut short by a crash, between good ones.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.insert_str(0, "{\"workload\": \"12\", \"trace\n");
        std::fs::write(&path, text).unwrap();
        let (records, warnings) = read_records(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(records, vec![slow.clone(), fast.clone(), failed]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains(":1: not a tuning record"),
            "{warnings:?}"
        );
        assert_eq!(best(&records, &fast.workload, &fast.target), Some(&fast));
        assert_eq!(
            best(&records, &fast.workload, "llvm -model=\"other\""),
            None
        );
    }

    #[test]
    fn a_trace_timed_again_counts_by_its_latest_time() {
        let flattered = record("b0 = sch.get_sblock(\"C\")", Some(1.0));
        let steady = record("b0 = sch.get_sblock(\"D\")", Some(2.0));
        let retimed = record("b0 = sch.get_sblock(\"C\")", Some(3.0));
        let records = vec![flattered, steady.clone(), retimed];
        assert_eq!(
            best(&records, &steady.workload, &steady.target),
            Some(&records[1])
        );
        // A re-run that failed takes the trace out.
        let mut failed = record("b0 = sch.get_sblock(\"D\")", None);
        failed.error = Some("timed out".to_string());
        let records = vec![
            records[0].clone(),
            steady.clone(),
            records[2].clone(),
            failed,
        ];
        assert_eq!(
            best(&records, &steady.workload, &steady.target),
            Some(&records[2])
        );
    }

    #[test]
    fn a_missing_file_has_no_records() {
        let (records, warnings) =
            read_records(Path::new("/nonexistent/tirc/records.jsonl")).unwrap();
        assert!(records.is_empty() && warnings.is_empty());
    }

    #[test]
    fn the_workload_key_is_the_printed_function() {
        assert_eq!(workload_key("abc"), workload_key("abc"));
        assert_ne!(workload_key("abc"), workload_key("abd"));
        assert_eq!(workload_key("").len(), 16);
    }
}
