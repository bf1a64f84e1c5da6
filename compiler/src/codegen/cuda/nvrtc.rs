//! CUDA C to PTX through NVRTC, and PTX to a cubin through `ptxas`. Neither
//! needs a GPU. NVRTC is probed first (pip's wheels, the toolkit, the
//! loader's path), then its few entry points are bound by hand, so that any
//! NVRTC from CUDA 11.2 to 13 serves and a missing one is a message, not a
//! panic.

use crate::driver::toolchain::{find_executable, nvidia_wheel_directories, probe_nvrtc};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
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

/// The C entry points of NVRTC that tirc calls. They are bound here rather
/// than through cudarc, whose table of NVRTC symbols is fixed at CUDA 12
/// (it panics on NVRTC 13, which dropped `nvrtcGetNVVM`) and whose load by
/// soname misses `libnvrtc.so.13`.
struct Nvrtc {
    /// Where the library was found.
    path: String,
    create_program: unsafe extern "C" fn(
        *mut *mut c_void,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile_program: unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int,
    get_program_log_size: unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int,
    get_program_log: unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int,
    get_ptx_size: unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int,
    get_ptx: unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int,
    destroy_program: unsafe extern "C" fn(*mut *mut c_void) -> c_int,
    get_error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    /// Keeps the library mapped while the entry points above are used.
    _library: libloading::Library,
    /// NVRTC's builtins, loaded from beside it: NVRTC 13 opens them by
    /// soname, which fails when its directory is not on the loader's path.
    _builtins: Option<libloading::Library>,
}

const NVRTC_SUCCESS: c_int = 0;
const NVRTC_ERROR_COMPILATION: c_int = 6;

/// Loads NVRTC once and binds its entry points.
fn load_nvrtc() -> Result<&'static Nvrtc, ToolError> {
    static LOADED: OnceLock<Result<Nvrtc, ToolError>> = OnceLock::new();
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
            bind_nvrtc(probe.detail)
        })
        .as_ref()
        .map_err(Clone::clone)
}

fn bind_nvrtc(path: String) -> Result<Nvrtc, ToolError> {
    let cannot = |error: libloading::Error| {
        ToolError::failed(format!("cannot load NVRTC from {path}: {error}"))
    };
    // SAFETY: each symbol is bound to the C signature NVRTC's header
    // (nvrtc.h, unchanged since CUDA 11) declares for it.
    unsafe {
        let library = libloading::Library::new(&path).map_err(cannot)?;
        let builtins =
            builtins_beside(&path).and_then(|builtins| libloading::Library::new(builtins).ok());
        Ok(Nvrtc {
            create_program: *library.get(b"nvrtcCreateProgram\0").map_err(cannot)?,
            compile_program: *library.get(b"nvrtcCompileProgram\0").map_err(cannot)?,
            get_program_log_size: *library.get(b"nvrtcGetProgramLogSize\0").map_err(cannot)?,
            get_program_log: *library.get(b"nvrtcGetProgramLog\0").map_err(cannot)?,
            get_ptx_size: *library.get(b"nvrtcGetPTXSize\0").map_err(cannot)?,
            get_ptx: *library.get(b"nvrtcGetPTX\0").map_err(cannot)?,
            destroy_program: *library.get(b"nvrtcDestroyProgram\0").map_err(cannot)?,
            get_error_string: *library.get(b"nvrtcGetErrorString\0").map_err(cannot)?,
            _library: library,
            _builtins: builtins,
            path,
        })
    }
}

/// `libnvrtc-builtins.so.X.Y` in the directory of the NVRTC at `path`.
fn builtins_beside(path: &str) -> Option<std::path::PathBuf> {
    let directory = std::path::Path::new(path).parent()?;
    std::fs::read_dir(directory)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .find(|candidate| {
            candidate
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("libnvrtc-builtins.so."))
        })
}

impl Nvrtc {
    fn error_text(&self, status: c_int) -> String {
        // SAFETY: nvrtcGetErrorString returns a static C string for any code.
        let text = unsafe { (self.get_error_string)(status) };
        if text.is_null() {
            return format!("NVRTC error {status}");
        }
        // SAFETY: non-null, NUL-terminated, static (above).
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }

    fn check(&self, what: &str, status: c_int) -> Result<(), ToolError> {
        if status == NVRTC_SUCCESS {
            return Ok(());
        }
        Err(ToolError::failed(format!(
            "NVRTC failed to {what}: {}",
            self.error_text(status)
        )))
    }

    /// Reads a NUL-terminated text NVRTC holds for `program` (log or PTX).
    fn read_text(
        &self,
        what: &str,
        program: *mut c_void,
        size: unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int,
        text: unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int,
    ) -> Result<String, ToolError> {
        let mut length = 0usize;
        // SAFETY: `program` is live; the buffer has the size NVRTC reported.
        self.check(what, unsafe { size(program, &mut length) })?;
        let mut buffer = vec![0u8; length.max(1)];
        self.check(what, unsafe {
            text(program, buffer.as_mut_ptr().cast::<c_char>())
        })?;
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        Ok(String::from_utf8_lossy(&buffer[..end]).into_owned())
    }

    /// Compiles `source` with `options`: the PTX, or the compiler's log.
    fn compile(&self, source: &str, options: &[String]) -> Result<String, ToolError> {
        let interior_nul = |_| ToolError::failed("the CUDA C holds a NUL byte");
        let source = CString::new(source).map_err(interior_nul)?;
        let name = CString::new("tirc_kernels.cu").map_err(interior_nul)?;
        let options: Vec<CString> = options
            .iter()
            .map(|option| CString::new(option.as_str()).map_err(interior_nul))
            .collect::<Result<_, _>>()?;
        let option_pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let mut program: *mut c_void = std::ptr::null_mut();
        // SAFETY: the strings outlive the calls; no headers are passed.
        let status = unsafe {
            (self.create_program)(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        self.check("create a program", status)?;
        // SAFETY: `program` was created above; the option array is live.
        let status = unsafe {
            (self.compile_program)(
                program,
                option_pointers.len() as c_int,
                option_pointers.as_ptr(),
            )
        };
        let result = match status {
            NVRTC_SUCCESS => {
                self.read_text("return the PTX", program, self.get_ptx_size, self.get_ptx)
            }
            NVRTC_ERROR_COMPILATION => {
                let log = self.read_text(
                    "return its log",
                    program,
                    self.get_program_log_size,
                    self.get_program_log,
                )?;
                Err(ToolError::failed(format!(
                    "NVRTC rejected the generated CUDA C (a tirc bug; please report it):\n{log}"
                )))
            }
            _ => {
                let log = self
                    .read_text(
                        "return its log",
                        program,
                        self.get_program_log_size,
                        self.get_program_log,
                    )
                    .unwrap_or_default();
                Err(ToolError::failed(format!(
                    "NVRTC failed to compile: {}\n{log}",
                    self.error_text(status)
                )))
            }
        };
        // SAFETY: destroyed once, after its last use.
        unsafe { (self.destroy_program)(&mut program) };
        result
    }
}

/// Header directories with `cuda_fp16.h`, which NVRTC needs for float16
/// and bfloat16 kernels, or with `crt/mma.h`, which tensor-core (`mma.h`)
/// kernels need: `TIRC_CUDA_INCLUDE`, pip's `nvidia-cuda-runtime-cu12` and
/// `nvidia-cuda-nvcc-cu12` (beside the NVRTC that loaded, or in the active
/// Python), or the CUDA toolkit's.
fn include_paths(nvrtc_path: &str) -> Vec<String> {
    use std::path::{Path, PathBuf};
    let mut candidates: Vec<PathBuf> = std::env::var_os("TIRC_CUDA_INCLUDE")
        .map(|dir| std::env::split_paths(&dir).collect())
        .unwrap_or_default();
    // .../nvidia/cuda_nvrtc/lib/libnvrtc.so.12 -> .../nvidia/cuda_runtime/include;
    // .../nvidia/cu13/lib/libnvrtc.so.13 (and a toolkit's lib64) -> ../include.
    let ancestors: Vec<&Path> = Path::new(nvrtc_path).ancestors().collect();
    if let Some(nvidia) = ancestors.get(3) {
        candidates.push(nvidia.join("cuda_runtime/include"));
        candidates.push(nvidia.join("cuda_nvcc/include"));
    }
    if let Some(root) = ancestors.get(2) {
        candidates.push(root.join("include"));
    }
    candidates.extend(nvidia_wheel_directories("include"));
    candidates.push(PathBuf::from("/usr/local/cuda/include"));
    let mut paths: Vec<String> = Vec::new();
    for dir in candidates {
        let text = dir.display().to_string();
        let useful = dir.join("cuda_fp16.h").is_file() || dir.join("crt/mma.h").is_file();
        if useful && !paths.contains(&text) {
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
    let nvrtc = load_nvrtc()?;
    let include_paths = include_paths(&nvrtc.path);
    let needs_headers =
        source.contains("#include <cuda_fp16.h>") || source.contains("#include <cuda_bf16.h>");
    if needs_headers && include_paths.is_empty() {
        return Err(ToolError {
            message: "this kernel uses float16 or bfloat16, and NVRTC needs CUDA's cuda_fp16.h, which was not found".to_string(),
            help: Some("`pip install nvidia-cuda-runtime-cu12` (no GPU needed), or name the directory with TIRC_CUDA_INCLUDE".to_string()),
        });
    }
    let has_crt_mma = include_paths
        .iter()
        .any(|dir| std::path::Path::new(dir).join("crt/mma.h").is_file());
    if source.contains("#include <mma.h>") && !has_crt_mma {
        return Err(ToolError {
            message: "this kernel uses tensor cores (wmma), and NVRTC needs CUDA's mma.h and crt/mma.h, which were not found".to_string(),
            help: Some("`pip install nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12` (no GPU needed), or name the directories with TIRC_CUDA_INCLUDE".to_string()),
        });
    }
    let mut options = vec![
        format!("--gpu-architecture=compute_{}", arch_number(arch)),
        "--std=c++17".to_string(),
    ];
    options.extend(
        include_paths
            .iter()
            .map(|dir| format!("--include-path={dir}")),
    );
    nvrtc.compile(source, &options)
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
    // One directory per call: threads of one process (the golden tests)
    // assemble at the same time.
    static NEXT_ASSEMBLY: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let directory = std::env::temp_dir().join(format!(
        "tirc-ptxas-{}-{}",
        std::process::id(),
        NEXT_ASSEMBLY.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// NVRTC is here, or the test may skip (CI requires it).
    fn nvrtc_here() -> bool {
        let found = probe_nvrtc().found;
        let required = std::env::var_os("TIRC_REQUIRE_CUDA_TOOLS").is_some_and(|v| v != "0");
        assert!(
            found || !required,
            "TIRC_REQUIRE_CUDA_TOOLS is set and NVRTC is missing"
        );
        if !found {
            eprintln!("skipped: NVRTC not found");
        }
        found
    }

    #[test]
    fn a_kernel_compiles_to_ptx_for_the_requested_architecture() {
        if !nvrtc_here() {
            return;
        }
        let source = "extern \"C\" __global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }";
        let ptx = compile_ptx(source, "sm_90").expect("NVRTC compiles a plain kernel");
        assert!(ptx.contains(".target sm_90"), "{ptx}");
        assert!(ptx.contains(".entry scale"), "{ptx}");
    }

    #[test]
    fn rejected_cuda_c_reports_nvrtc_log() {
        if !nvrtc_here() {
            return;
        }
        let error = compile_ptx("extern \"C\" __global__ void broken( {}", "sm_80")
            .expect_err("NVRTC rejects a syntax error");
        assert!(
            error.message.contains("NVRTC rejected"),
            "{}",
            error.message
        );
        assert!(error.message.contains("error"), "{}", error.message);
    }

    #[test]
    fn builtins_are_found_beside_nvrtc() {
        let directory = std::env::temp_dir().join(format!("tirc-nvrtc-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        std::fs::write(directory.join("libnvrtc.so.13"), b"").unwrap();
        std::fs::write(directory.join("libnvrtc-builtins.so.13.0"), b"").unwrap();
        let nvrtc = directory.join("libnvrtc.so.13");
        let found = builtins_beside(nvrtc.to_str().unwrap());
        std::fs::remove_dir_all(&directory).unwrap();
        assert_eq!(found, Some(directory.join("libnvrtc-builtins.so.13.0")));
    }
}
