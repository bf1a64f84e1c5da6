//! What this machine offers tirc's optional parts: the LLVM backend compiled
//! in, NVRTC and `ptxas` for CUDA, a CUDA device, and the host CPU with the
//! features that decide which kernels and intrinsics can run. `tirc doctor`
//! and `tirc --version` print it; nothing here is hard-coded to one CPU.
//!
//! Libraries are probed with `dlopen` before anything calls into them (a
//! missing CUDA library must become a message, never a panic).

use serde::Serialize;
use std::path::{Path, PathBuf};

/// One optional part: found (with where or which), or missing (with how to get it).
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    /// The part's name (`LLVM`, `NVRTC`, `ptxas`, `CUDA device`).
    pub name: String,
    /// True when the part is usable.
    pub found: bool,
    /// Where or which one, when found; why not, when missing.
    pub detail: String,
    /// How to get it, when missing.
    pub help: Option<String>,
}

/// The host CPU.
#[derive(Clone, Debug, Serialize)]
pub struct CpuInfo {
    /// The model name (`AMD EPYC 9R45`), or the architecture when unknown.
    pub model: String,
    /// The logical CPUs tirc can use.
    pub threads: usize,
    /// The features kernels and intrinsics depend on, each present or not.
    pub features: Vec<(String, bool)>,
}

/// Everything `tirc doctor` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Toolchain {
    /// The optional parts.
    pub parts: Vec<Probe>,
    /// The host CPU.
    pub cpu: CpuInfo,
}

/// The CPU features worth knowing for tirc's kernels, with the names
/// `/proc/cpuinfo` gives them.
const CPU_FEATURES: &[(&str, &str)] = &[
    ("AVX2", "avx2"),
    ("FMA", "fma"),
    ("AVX-512F", "avx512f"),
    ("AVX-512 VNNI", "avx512_vnni"),
    ("AVX-VNNI", "avx_vnni"),
    ("AVX-512 BF16", "avx512_bf16"),
    ("AVX-512 FP16", "avx512_fp16"),
    ("AMX-TILE", "amx_tile"),
    ("AMX-INT8", "amx_int8"),
    ("AMX-BF16", "amx_bf16"),
    ("NEON", "asimd"),
    ("SDOT/UDOT", "asimddp"),
];

/// The NVRTC library names tried, newest first.
const NVRTC_LIBRARIES: &[&str] = &[
    "libnvrtc.so.12",
    "libnvrtc.so.13",
    "libnvrtc.so.11.2",
    "libnvrtc.so",
];

/// Probes every optional part and the CPU.
pub fn probe() -> Toolchain {
    Toolchain {
        parts: vec![
            probe_llvm(),
            probe_nvrtc(),
            probe_ptxas(),
            probe_cuda_device(),
        ],
        cpu: probe_cpu(),
    }
}

/// The LLVM backend, as compiled in.
pub fn probe_llvm() -> Probe {
    let found = cfg!(feature = "llvm");
    Probe {
        name: "LLVM".to_string(),
        found,
        detail: if cfg!(feature = "llvm14") {
            "LLVM 14, linked dynamically: `tirc run` and `tirc build` work".to_string()
        } else if found {
            "LLVM backend compiled in".to_string()
        } else {
            "this tirc was built without the LLVM backend".to_string()
        },
        help: (!found).then(|| {
            "install llvm-14-dev and rebuild with `cargo install --path cli` (feature llvm14, the default)"
                .to_string()
        }),
    }
}

/// Directories where pip's NVIDIA wheels put libraries and tools: every
/// `site-packages/nvidia/*/{lib,bin}` of the active and the user's Pythons.
pub(crate) fn nvidia_wheel_directories(leaf: &str) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(PathBuf::from(venv).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join(".local/lib"));
    }
    roots.push(PathBuf::from("/usr/local/lib"));
    roots.push(PathBuf::from("/usr/lib"));
    let mut found = Vec::new();
    for root in roots {
        let Ok(pythons) = std::fs::read_dir(&root) else {
            continue;
        };
        for python in pythons.flatten() {
            for packages in ["site-packages", "dist-packages"] {
                let nvidia = python.path().join(packages).join("nvidia");
                let Ok(parts) = std::fs::read_dir(&nvidia) else {
                    continue;
                };
                for part in parts.flatten() {
                    let directory = part.path().join(leaf);
                    if directory.is_dir() {
                        found.push(directory);
                    }
                }
            }
        }
    }
    found
}

/// Tries to load a shared library; the path or name that loaded.
fn load_library(names: &[&str], directories: &[PathBuf]) -> Result<String, String> {
    let mut last_error = String::new();
    let candidates = directories
        .iter()
        .flat_map(|directory| names.iter().map(move |name| directory.join(name)))
        .chain(names.iter().map(PathBuf::from));
    for candidate in candidates {
        if candidate.is_absolute() && !candidate.exists() {
            continue;
        }
        // SAFETY: loading runs the library's initialisers; NVIDIA's runtime
        // libraries are made to be loaded this way (cudarc does the same).
        match unsafe { libloading::Library::new(&candidate) } {
            Ok(_) => return Ok(candidate.display().to_string()),
            Err(error) => last_error = error.to_string(),
        }
    }
    Err(last_error)
}

/// NVRTC, which compiles CUDA C to PTX without a GPU. `TIRC_NVRTC` names
/// the library explicitly.
pub fn probe_nvrtc() -> Probe {
    let explicit: Vec<String> = std::env::var("TIRC_NVRTC").into_iter().collect();
    let names: Vec<&str> = explicit
        .iter()
        .map(String::as_str)
        .chain(NVRTC_LIBRARIES.iter().copied())
        .collect();
    let mut directories = nvidia_wheel_directories("lib");
    directories.push(PathBuf::from("/usr/local/cuda/lib64"));
    let outcome = load_library(&names, &directories);
    Probe {
        name: "NVRTC".to_string(),
        found: outcome.is_ok(),
        help: outcome.is_err().then(|| {
            "`pip install nvidia-cuda-nvrtc-cu12` (no GPU needed), or install the CUDA toolkit; \
             TIRC_NVRTC=/path/to/libnvrtc.so.12 names it explicitly"
                .to_string()
        }),
        detail: outcome.unwrap_or_else(|error| format!("not found ({error})")),
    }
}

/// Finds an executable on `PATH` or in pip's NVIDIA wheels.
pub(crate) fn find_executable(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(nvidia_wheel_directories("bin"))
        .chain(std::iter::once(PathBuf::from("/usr/local/cuda/bin")))
        .map(|directory| directory.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `ptxas`, which assembles PTX for a GPU architecture.
pub fn probe_ptxas() -> Probe {
    let found = find_executable("ptxas");
    Probe {
        name: "ptxas".to_string(),
        found: found.is_some(),
        help: found.is_none().then(|| {
            "`pip install nvidia-cuda-nvcc-cu12` (no GPU needed), or put the CUDA toolkit's bin/ on PATH"
                .to_string()
        }),
        detail: found.map_or("not found on PATH".to_string(), |p| p.display().to_string()),
    }
}

/// A CUDA device, through the driver library.
pub fn probe_cuda_device() -> Probe {
    let missing = |detail: String| {
        Probe {
        name: "CUDA device".to_string(),
        found: false,
        detail,
        help: Some(
            "a machine with an NVIDIA GPU and its driver; without one, CUDA kernels can still be compiled"
                .to_string(),
        ),
    }
    };
    // SAFETY: libcuda is loaded and two of its C entry points are called with
    // the types the CUDA driver API documents.
    unsafe {
        let Ok(library) = libloading::Library::new("libcuda.so.1") else {
            return missing("no CUDA driver (libcuda.so.1) on this machine".to_string());
        };
        type CuInit = unsafe extern "C" fn(u32) -> i32;
        type CuDeviceGetCount = unsafe extern "C" fn(*mut i32) -> i32;
        let (Ok(init), Ok(count)) = (
            library.get::<CuInit>(b"cuInit\0"),
            library.get::<CuDeviceGetCount>(b"cuDeviceGetCount\0"),
        ) else {
            return missing("libcuda.so.1 lacks cuInit".to_string());
        };
        let status = init(0);
        if status != 0 {
            return missing(format!(
                "the CUDA driver did not start (cuInit returned {status})"
            ));
        }
        let mut devices = 0;
        if count(&mut devices) != 0 || devices == 0 {
            return missing("the CUDA driver sees no device".to_string());
        }
        Probe {
            name: "CUDA device".to_string(),
            found: true,
            detail: format!("{devices} device(s)"),
            help: None,
        }
    }
}

/// The schedule sections written for a machine of `target`'s kind, most
/// specific first: `schedule_cuda` for a GPU; for a CPU, by its vector
/// registers (read from the host, or from `-mcpu=`/`-mattr=`):
/// `schedule_x86_avx512` then `schedule_avx2` with AVX-512,
/// `schedule_avx2` with AVX2, `schedule_neon` on an Arm core.
pub fn schedule_sections_for(target: &crate::codegen::Target) -> Vec<String> {
    let names: &[&str] = match target {
        crate::codegen::Target::Cuda(_) => &["schedule_cuda"],
        crate::codegen::Target::Llvm(llvm) => {
            let machine = crate::tune::machine::CpuMachine::for_target(llvm);
            match (machine.vector_bits, machine.vector_registers) {
                (512, _) => &["schedule_x86_avx512", "schedule_avx2"],
                (256, _) => &["schedule_avx2"],
                (128, 32) => &["schedule_neon"],
                _ => &[],
            }
        }
    };
    names.iter().map(|name| name.to_string()).collect()
}

/// [`schedule_sections_for`] this host's CPU (probed once).
pub fn host_schedule_sections() -> Vec<String> {
    static SECTIONS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SECTIONS
        .get_or_init(|| schedule_sections_for(&crate::codegen::Target::Llvm(Default::default())))
        .clone()
}

/// The host CPU's model and the features in [`CPU_FEATURES`].
pub fn probe_cpu() -> CpuInfo {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        cpuinfo.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            (name.trim() == key).then(|| value.trim().to_string())
        })
    };
    let model = field("model name")
        .or_else(|| field("CPU part").map(|part| format!("ARM CPU part {part}")))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let flags: Vec<String> = field("flags")
        .or_else(|| field("Features"))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let architecture_features: &[&str] = match std::env::consts::ARCH {
        "x86_64" => &["avx2", "fma", "avx512", "avx_vnni", "amx"],
        "aarch64" => &["asimd"],
        _ => &[],
    };
    let features = CPU_FEATURES
        .iter()
        .filter(|(_, flag)| {
            architecture_features
                .iter()
                .any(|prefix| flag.starts_with(prefix))
        })
        .map(|(name, flag)| (name.to_string(), flags.iter().any(|f| f == flag)))
        .collect();
    CpuInfo {
        model,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        features,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::target::{CudaTarget, LlvmTarget};

    #[test]
    fn each_kind_of_machine_has_its_schedule_sections() {
        let cpu = |name: &str| {
            schedule_sections_for(&crate::codegen::Target::Llvm(LlvmTarget {
                cpu: Some(name.to_string()),
                ..LlvmTarget::default()
            }))
        };
        assert_eq!(cpu("znver3"), ["schedule_avx2"]);
        assert_eq!(
            cpu("sapphirerapids"),
            ["schedule_x86_avx512", "schedule_avx2"]
        );
        assert_eq!(cpu("neoverse-n1"), ["schedule_neon"]);
        let gpu = crate::codegen::Target::Cuda(CudaTarget::default());
        assert_eq!(schedule_sections_for(&gpu), ["schedule_cuda"]);
    }
}
