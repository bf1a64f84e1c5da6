//! Compilation targets as TVM writes them, in either of its spellings: the
//! command-line form (`llvm -mcpu=znver3 -mattr=+avx2`, `cuda -arch=sm_90`)
//! and the JSON dict TVM 0.27 takes (`{"kind": "cuda", "arch": "sm_80"}`),
//! parsed once by the driver and read by every backend. A target prints in
//! the spelling it was written in.
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
    /// Written as a JSON dict (printed back as one).
    pub json: bool,
}

/// The options of a `cuda` target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CudaTarget {
    /// `-arch`: the compute capability (`sm_90`); `None` for the device's own.
    pub arch: Option<String>,
    /// Written as a JSON dict (printed back as one).
    pub json: bool,
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

/// LLVM 14's x86 CPUs with AVX-512 (F, BW, VL), for a target named by
/// `-mcpu` alone: tirc has no feature list to read then.
pub const AVX512_CPUS: &[&str] = &[
    "skylake-avx512",
    "skx",
    "cascadelake",
    "cooperlake",
    "cannonlake",
    "icelake-client",
    "icelake-server",
    "rocketlake",
    "tigerlake",
    "sapphirerapids",
    "x86-64-v4",
];

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

    /// Parses a TVM target string, in the command-line form or as a JSON
    /// dict. `llvm` alone is the host; `cuda` alone is the GPU present
    /// (else `sm_80`).
    pub fn parse(text: &str) -> Result<Target, String> {
        if text.trim_start().starts_with('{') {
            let (kind, options) = json_options(text)?;
            let options = options
                .iter()
                .map(|(key, value)| (format!("\"{key}\""), key.as_str(), value.as_str()));
            let mut target = Target::from_options(&kind, options)?;
            match &mut target {
                Target::Llvm(llvm) => llvm.json = true,
                Target::Cuda(cuda) => cuda.json = true,
            }
            return Ok(target);
        }
        let mut words = text.split_whitespace();
        let kind = words
            .next()
            .ok_or("the target string is empty; use `llvm` (or `cuda`)")?;
        let options = words.map(|word| {
            let option = word.trim_start_matches('-');
            let (key, value) = option.split_once('=').unwrap_or((option, ""));
            (word.to_string(), key, value)
        });
        Target::from_options(kind, options)
    }

    /// The target of `kind` with `options` (each as written, its key and
    /// its value).
    fn from_options<'a>(
        kind: &str,
        options: impl Iterator<Item = (String, &'a str, &'a str)>,
    ) -> Result<Target, String> {
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

    /// The command-line spelling, whichever way the target was written
    /// (what tuning records are keyed by).
    pub fn command_line(&self) -> String {
        let mut plain = self.clone();
        match &mut plain {
            Target::Llvm(llvm) => llvm.json = false,
            Target::Cuda(cuda) => cuda.json = false,
        }
        plain.to_string()
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

/// The kind and the options of a JSON target, each option's value as the
/// command-line form writes it (a list of strings joined by commas).
fn json_options(text: &str) -> Result<(String, Vec<(String, String)>), String> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|error| format!("the target `{}` is not valid JSON: {error}", text.trim()))?;
    let serde_json::Value::Object(fields) = value else {
        return Err(format!(
            "the target `{}` is not a JSON object; write it as TVM does, such as {{\"kind\": \"cuda\", \"arch\": \"sm_80\"}}",
            text.trim()
        ));
    };
    let mut kind = None;
    let mut options = Vec::new();
    for (key, value) in fields {
        let text_value = match &value {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            serde_json::Value::Array(items) => items
                .iter()
                .map(|item| item.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .map(|items| items.join(",")),
            // A nested target (`host`) is read by TVM only.
            _ => Some(String::new()),
        };
        let Some(text_value) = text_value else {
            return Err(format!(
                "the target option \"{key}\" must be a string, a number or a list of strings, not {value}"
            ));
        };
        if key == "kind" {
            kind = Some(text_value);
        } else {
            options.push((key, text_value));
        }
    }
    let kind = kind.ok_or_else(|| {
        format!(
            "the target `{}` has no \"kind\"; add \"kind\": \"llvm\" or \"kind\": \"cuda\"",
            text.trim()
        )
    })?;
    Ok((kind, options))
}

/// Writes `fields` as a JSON dict, TVM's spelling of a target, with a
/// space after each comma as Python's `json.dumps` writes it.
fn write_json(f: &mut fmt::Formatter<'_>, fields: &[(&str, serde_json::Value)]) -> fmt::Result {
    let render = |value: &serde_json::Value| match value {
        serde_json::Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|item| item.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    };
    f.write_str("{")?;
    for (position, (key, value)) in fields.iter().enumerate() {
        if position > 0 {
            f.write_str(", ")?;
        }
        write!(f, "\"{key}\": {}", render(value))?;
    }
    f.write_str("}")
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use serde_json::Value;
        match self {
            Target::Llvm(target) if target.json => {
                let mut fields = vec![("kind", Value::from("llvm"))];
                if let Some(triple) = &target.triple {
                    fields.push(("mtriple", Value::from(triple.as_str())));
                }
                if let Some(cpu) = &target.cpu {
                    fields.push(("mcpu", Value::from(cpu.as_str())));
                }
                if let Some(features) = &target.features {
                    let list: Vec<Value> = features.split(',').map(Value::from).collect();
                    fields.push(("mattr", Value::Array(list)));
                }
                if target.opt_level != 3 {
                    fields.push(("opt-level", Value::from(target.opt_level)));
                }
                write_json(f, &fields)
            }
            Target::Cuda(target) if target.json => {
                let mut fields = vec![("kind", Value::from("cuda"))];
                if let Some(arch) = &target.arch {
                    fields.push(("arch", Value::from(arch.as_str())));
                }
                write_json(f, &fields)
            }
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
                arch: Some("sm_90".to_string()),
                json: false,
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

    #[test]
    fn json_targets_as_tvm_writes_them() {
        let Target::Llvm(llvm) =
            Target::parse(r#"{"kind": "llvm", "mcpu": "znver3", "mattr": ["+avx2", "+fma"]}"#)
                .unwrap()
        else {
            panic!("an llvm target")
        };
        assert_eq!(llvm.cpu.as_deref(), Some("znver3"));
        assert_eq!(llvm.features.as_deref(), Some("+avx2,+fma"));
        let cuda =
            Target::parse(r#"{"kind": "cuda", "arch": "sm_80", "max_num_threads": 1024}"#).unwrap();
        assert_eq!(cuda.to_string(), r#"{"kind": "cuda", "arch": "sm_80"}"#);
        assert_eq!(cuda.command_line(), "cuda -arch=sm_80");
        assert_eq!(
            Target::parse(&Target::Llvm(llvm).to_string())
                .unwrap()
                .to_string(),
            r#"{"kind": "llvm", "mcpu": "znver3", "mattr": ["+avx2", "+fma"]}"#
        );
        assert!(Target::parse(r#"{"kind": "cuda", "arch": "90"}"#)
            .unwrap_err()
            .contains("not a CUDA architecture"));
        assert!(Target::parse(r#"{"arch": "sm_80"}"#)
            .unwrap_err()
            .contains("no \"kind\""));
        assert!(Target::parse(r#"{"kind": "cuda", "arch": "sm_80""#)
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(Target::parse(r#"{"kind": "cuda", "frobnicate": 1}"#)
            .unwrap_err()
            .contains("unknown target option"));
    }
}
