//! CUDA C to PTX through NVRTC (cudarc, loaded dynamically), and PTX to a
//! cubin through `ptxas`. Neither needs a GPU. cudarc panics when it cannot
//! load NVRTC, so the library is probed first; once found it is loaded by
//! its full path and kept loaded, which is how cudarc's own load by name
//! (`libnvrtc.so.12`) finds a copy that is not on the loader's path (pip's
//! `nvidia-cuda-nvrtc-cu12`).

use crate::driver::toolchain::{find_executable, nvidia_wheel_directories, probe_nvrtc};
use std::sync::OnceLock;

/// Why NVRTC or ptxas gave no result.
#[derive(Clone, Debug)]
pub struct ToolError {
    /// What went wrong.
    pub message: String,
    /// What to install, when something is missing.
    pub help: Option<String>,
}

impl ToolError {
    fn failed(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            help: None,
        }
    }
}

/// The default architecture when no GPU says otherwise.
pub const DEFAULT_ARCH: &str = "sm_80";

/// Loads NVRTC once; the path it was found at.
fn load_nvrtc() -> Result<&'static str, ToolError> {
    static LOADED: OnceLock<Result<String, ToolError>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let probe = probe_nvrtc();
            if !probe.found {
                return Err(ToolError {
                    message: format!(
                        "NVRTC, which compiles CUDA C to PTX, is missing: {}",
                        probe.detail
                    ),
                    help: probe.help,
                });
            }
            // SAFETY: NVRTC's initialisers are made to run on dlopen; the
            // handle is leaked so the library stays loaded for cudarc.
            match unsafe { libloading::Library::new(&probe.detail) } {
                Ok(library) => {
                    std::mem::forget(library);
                    Ok(probe.detail)
                }
                Err(error) => Err(ToolError::failed(format!(
                    "cannot load NVRTC from {}: {error}",
                    probe.detail
                ))),
            }
        })
        .as_ref()
        .map(String::as_str)
        .map_err(Clone::clone)
}

/// Header directories with `cuda_fp16.h`, which NVRTC needs for float16
/// and bfloat16 kernels: `TIRC_CUDA_INCLUDE`, pip's
/// `nvidia-cuda-runtime-cu12` (beside the NVRTC that loaded, or in the
/// active Python), or the CUDA toolkit's.
fn include_paths(nvrtc_path: &str) -> Vec<String> {
    use std::path::{Path, PathBuf};
    let mut candidates: Vec<PathBuf> = std::env::var_os("TIRC_CUDA_INCLUDE")
        .map(|dir| std::env::split_paths(&dir).collect())
        .unwrap_or_default();
    // .../nvidia/cuda_nvrtc/lib/libnvrtc.so.12 -> .../nvidia/cuda_runtime/include
    if let Some(nvidia) = Path::new(nvrtc_path).ancestors().nth(3) {
        candidates.push(nvidia.join("cuda_runtime/include"));
    }
    candidates.extend(nvidia_wheel_directories("include"));
    candidates.push(PathBuf::from("/usr/local/cuda/include"));
    let mut paths: Vec<String> = Vec::new();
    for dir in candidates {
        let text = dir.display().to_string();
        if dir.join("cuda_fp16.h").is_file() && !paths.contains(&text) {
            paths.push(text);
        }
    }
    paths
}

/// The compute capability number of `sm_80` / `compute_80`.
fn arch_number(arch: &str) -> &str {
    arch.trim_start_matches("sm_")
        .trim_start_matches("compute_")
}

/// Compiles CUDA C to PTX for `arch` (`sm_90`).
pub fn compile_ptx(source: &str, arch: &str) -> Result<String, ToolError> {
    let nvrtc_path = load_nvrtc()?;
    let include_paths = include_paths(nvrtc_path);
    let needs_headers =
        source.contains("#include <cuda_fp16.h>") || source.contains("#include <cuda_bf16.h>");
    if needs_headers && include_paths.is_empty() {
        return Err(ToolError {
            message: "this kernel uses float16 or bfloat16, and NVRTC needs CUDA's cuda_fp16.h, which was not found".to_string(),
            help: Some("`pip install nvidia-cuda-runtime-cu12` (no GPU needed), or name the directory with TIRC_CUDA_INCLUDE".to_string()),
        });
    }
    let virtual_arch: &'static str =
        Box::leak(format!("compute_{}", arch_number(arch)).into_boxed_str());
    let options = cudarc::nvrtc::CompileOptions {
        arch: Some(virtual_arch),
        include_paths,
        options: vec!["--std=c++17".to_string()],
        ..Default::default()
    };
    match cudarc::nvrtc::compile_ptx_with_opts(source, options) {
        Ok(ptx) => Ok(ptx.to_src()),
        Err(cudarc::nvrtc::CompileError::CompileError { log, .. }) => Err(ToolError {
            message: format!(
                "NVRTC rejected the generated CUDA C (a tirc bug; please report it):\n{}",
                log.to_string_lossy()
            ),
            help: None,
        }),
        Err(error) => Err(ToolError::failed(format!("NVRTC failed: {error:?}"))),
    }
}

/// What `ptxas -v` reported for one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KernelResources {
    /// The kernel's name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Bytes spilled to local memory (stores).
    pub spill_stores: u32,
}

/// Assembles PTX into a cubin for `arch` with `ptxas`: the cubin and the
/// resources of each kernel.
pub fn assemble(ptx: &str, arch: &str) -> Result<(Vec<u8>, Vec<KernelResources>), ToolError> {
    let ptxas = find_executable("ptxas").ok_or_else(|| ToolError {
        message: "ptxas, which assembles PTX for a GPU, is missing".to_string(),
        help: Some("`pip install nvidia-cuda-nvcc-cu12` (no GPU needed), or put the CUDA toolkit's bin/ on PATH".to_string()),
    })?;
    let directory = std::env::temp_dir().join(format!("tirc-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&directory)
        .map_err(|e| ToolError::failed(format!("cannot create {}: {e}", directory.display())))?;
    let input = directory.join("kernels.ptx");
    let output = directory.join("kernels.cubin");
    std::fs::write(&input, ptx).map_err(|e| ToolError::failed(format!("cannot write PTX: {e}")))?;
    let arch = format!("sm_{}", arch_number(arch));
    let result = std::process::Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .output()
        .map_err(|e| ToolError::failed(format!("cannot run {}: {e}", ptxas.display())))?;
    let log = String::from_utf8_lossy(&result.stderr).into_owned();
    if !result.status.success() {
        let _ = std::fs::remove_dir_all(&directory);
        return Err(ToolError::failed(format!(
            "ptxas rejected the PTX for {arch}:\n{log}"
        )));
    }
    let cubin = std::fs::read(&output)
        .map_err(|e| ToolError::failed(format!("cannot read the cubin: {e}")))?;
    let _ = std::fs::remove_dir_all(&directory);
    Ok((cubin, parse_ptxas_report(&log)))
}

/// Reads `ptxas -v`'s lines: `Compiling entry function 'k' for 'sm_80'`,
/// `Used 31 registers, 8448 bytes smem, ...`, `0 bytes spill stores`.
pub fn parse_ptxas_report(log: &str) -> Vec<KernelResources> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            kernels.push(KernelResources {
                name,
                ..KernelResources::default()
            });
            continue;
        }
        let Some(kernel) = kernels.last_mut() else {
            continue;
        };
        let number_before = |text: &str, unit: &str| -> Option<u32> {
            let before = text.split(unit).next()?;
            before.split_whitespace().last()?.parse().ok()
        };
        if line.contains("Used") {
            if let Some(n) = number_before(line, " registers") {
                kernel.registers = n;
            }
            if let Some(n) = number_before(line, " bytes smem") {
                kernel.shared_bytes = n;
            }
        }
        if line.contains("spill stores") {
            if let Some(n) = number_before(line, " bytes spill stores") {
                kernel.spill_stores = n;
            }
        }
    }
    kernels
}
