//! Compilation targets as TVM writes them (`llvm -mcpu=znver3 -mattr=+avx2`,
//! `cuda -arch=sm_90`), parsed once by the driver and read by every backend.
//! Parsing needs no backend: a string naming a backend this build lacks is
//! still read, and refused only when something is built for it.

use std::fmt;

/// A compilation target: which backend, and the options it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// CPU code through LLVM (`codegen/llvm/`).
    Llvm(LlvmTarget),
    /// NVIDIA GPU code as CUDA C (`codegen/cuda/`).
    Cuda(CudaTarget),
}

/// The options of an `llvm` target; what is left out means the host's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LlvmTarget {
    /// `-mtriple`: the LLVM triple (`x86_64-linux-gnu`).
    pub triple: Option<String>,
    /// `-mcpu`: the CPU name (`znver3`, `skylake-avx512`).
    pub cpu: Option<String>,
    /// `-mattr`: comma-separated feature flags (`+avx2,+fma`).
    pub features: Option<String>,
    /// `-opt-level`: LLVM's optimisation level, 0 to 3.
    pub opt_level: u8,
}

/// The options of a `cuda` target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CudaTarget {
    /// `-arch`: the compute capability (`sm_90`); `None` for the device's own.
    pub arch: Option<String>,
}

impl CudaTarget {
    /// The architecture kernels are lowered and compiled for: `-arch`, else
    /// the GPU present, else `sm_80`. Lowering (shared-memory limits) and
    /// NVRTC both read this, so they never disagree.
    pub fn resolved_arch(&self) -> String {
        if let Some(arch) = &self.arch {
            return arch.clone();
        }
        #[cfg(feature = "cuda")]
        {
            // Opening the device takes a CUDA context: once per process.
            static DEVICE_ARCH: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
            if let Some(arch) = DEVICE_ARCH.get_or_init(crate::codegen::cuda::device::device_arch) {
                return arch.clone();
            }
        }
        DEFAULT_CUDA_ARCH.to_string()
    }
}

/// The architecture a `cuda` target without `-arch` means where no GPU is.
pub const DEFAULT_CUDA_ARCH: &str = "sm_80";

/// Options TVM's `llvm` target accepts that do not change code here.
const IGNORED_LLVM_OPTIONS: &[&str] = &[
    "keys",
    "tag",
    "num-cores",
    "mabi",
    "model",
    "device",
    "libs",
    "fast-math",
    "jit",
];

/// Options TVM's `cuda` target accepts that do not change code here.
const IGNORED_CUDA_OPTIONS: &[&str] = &[
    "keys",
    "tag",
    "max_num_threads",
    "thread_warp_size",
    "max_shared_memory_per_block",
    "max_threads_per_block",
    "registers_per_block",
    "libs",
    "model",
    "host",
];

impl Target {
    /// The host CPU through LLVM, with every feature it has.
    pub fn host() -> Target {
        Target::Llvm(LlvmTarget {
            opt_level: 3,
            ..LlvmTarget::default()
        })
    }

    /// Parses a TVM target string. `llvm` alone is the host; `cuda` alone is
    /// the GPU present (else `sm_80`).
    pub fn parse(text: &str) -> Result<Target, String> {
        let mut words = text.split_whitespace();
        let kind = words
            .next()
            .ok_or("the target string is empty; use `llvm` (or `cuda`)")?;
        let options = words.map(|word| {
            let option = word.trim_start_matches('-');
            let (key, value) = option.split_once('=').unwrap_or((option, ""));
            (word, key, value)
        });
        match kind {
            "llvm" | "c" => {
                let mut target = LlvmTarget {
                    opt_level: 3,
                    ..LlvmTarget::default()
                };
                for (word, key, value) in options {
                    match key {
                        "mtriple" => target.triple = Some(value.to_string()),
                        "mcpu" => target.cpu = Some(value.to_string()),
                        "mattr" => target.features = Some(value.to_string()),
                        "opt-level" => {
                            target.opt_level = value
                                .parse::<u8>()
                                .ok()
                                .filter(|level| *level <= 3)
                                .ok_or_else(|| {
                                    format!("`-opt-level={value}` is not a level from 0 to 3")
                                })?
                        }
                        _ if IGNORED_LLVM_OPTIONS.contains(&key) => {}
                        _ => {
                            return Err(format!(
                                "unknown target option `{word}`; tirc reads -mtriple, -mcpu, -mattr and -opt-level"
                            ))
                        }
                    }
                }
                Ok(Target::Llvm(target))
            }
            "cuda" | "nvidia" => {
                let mut target = CudaTarget::default();
                for (word, key, value) in options {
                    match key {
                        "arch" => {
                            if !is_cuda_arch(value) {
                                return Err(format!(
                                    "`-arch={value}` is not a CUDA architecture; write `sm_` and the compute capability, such as `sm_80` or `sm_90`"
                                ));
                            }
                            target.arch = Some(value.to_string())
                        }
                        _ if IGNORED_CUDA_OPTIONS.contains(&key) => {}
                        _ => {
                            return Err(format!(
                                "unknown target option `{word}`; tirc reads -arch for `cuda`"
                            ))
                        }
                    }
                }
                Ok(Target::Cuda(target))
            }
            other => Err(format!(
                "target kind `{other}` is not supported; use `llvm` (for example `llvm -mcpu=znver3`) or `cuda` (for example `cuda -arch=sm_90`)"
            )),
        }
    }

    /// The backend's name as in target strings (`llvm`, `cuda`).
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Llvm(_) => "llvm",
            Target::Cuda(_) => "cuda",
        }
    }
}

/// True for `sm_XY` and `sm_XYa` spellings.
fn is_cuda_arch(value: &str) -> bool {
    value.strip_prefix("sm_").is_some_and(|digits| {
        let digits = digits.trim_end_matches('a');
        digits.len() >= 2 && digits.chars().all(|c| c.is_ascii_digit())
    })
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Llvm(target) => {
                f.write_str("llvm")?;
                if let Some(triple) = &target.triple {
                    write!(f, " -mtriple={triple}")?;
                }
                if let Some(cpu) = &target.cpu {
                    write!(f, " -mcpu={cpu}")?;
                }
                if let Some(features) = &target.features {
                    write!(f, " -mattr={features}")?;
                }
                if target.opt_level != 3 {
                    write!(f, " -opt-level={}", target.opt_level)?;
                }
                Ok(())
            }
            Target::Cuda(target) => {
                f.write_str("cuda")?;
                if let Some(arch) = &target.arch {
                    write!(f, " -arch={arch}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_options_in_tvm_syntax() {
        let Target::Llvm(target) =
            Target::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3 -opt-level=2 -num-cores=4")
                .unwrap()
        else {
            panic!("an llvm target")
        };
        assert_eq!(target.cpu.as_deref(), Some("znver3"));
        assert_eq!(target.triple.as_deref(), Some("x86_64-linux-gnu"));
        assert_eq!(target.features, None);
        assert_eq!(target.opt_level, 2);
        assert_eq!(Target::parse("llvm").unwrap(), Target::host());
    }

    #[test]
    fn cuda_targets_name_their_architecture() {
        assert_eq!(
            Target::parse("cuda -arch=sm_90").unwrap(),
            Target::Cuda(CudaTarget {
                arch: Some("sm_90".to_string())
            })
        );
        assert_eq!(
            Target::parse("cuda").unwrap(),
            Target::Cuda(CudaTarget::default())
        );
        assert!(Target::parse("cuda -arch=90")
            .unwrap_err()
            .contains("not a CUDA architecture"));
    }

    #[test]
    fn bad_targets_say_why() {
        assert!(Target::parse("rocm").unwrap_err().contains("not supported"));
        assert!(Target::parse("llvm -frobnicate=1")
            .unwrap_err()
            .contains("unknown target option"));
        assert!(Target::parse("llvm -opt-level=7").is_err());
        assert!(Target::parse("   ").unwrap_err().contains("empty"));
    }

    #[test]
    fn targets_print_back_as_they_read() {
        for text in [
            "llvm",
            "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1 -mattr=+neon -opt-level=1",
            "cuda",
            "cuda -arch=sm_80",
        ] {
            assert_eq!(Target::parse(text).unwrap().to_string(), text);
        }
    }
}
