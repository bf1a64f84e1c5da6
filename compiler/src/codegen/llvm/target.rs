//! Compilation targets written as TVM writes them (`llvm -mcpu=znver3
//! -mtriple=x86_64-linux-gnu -mattr=+avx2,+fma -opt-level=3`), and the LLVM
//! target machine for one. Without options the target is the host: its
//! triple, its CPU and every feature that CPU has.

use crate::codegen::target::{LlvmTarget, Target};
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as LlvmBackend, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;
use std::sync::Once;

/// A parsed target string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetSpec {
    /// The LLVM triple (`x86_64-unknown-linux-gnu`).
    pub triple: String,
    /// The CPU name (`znver3`, `skylake-avx512`, `generic`).
    pub cpu: String,
    /// Comma-separated feature flags (`+avx2,+fma`); empty for the CPU's own.
    pub features: String,
    /// LLVM optimisation level, 0 to 3.
    pub opt_level: u8,
    /// The target string as given (`llvm` for the host).
    pub text: String,
}

static INITIALIZE_TARGETS: Once = Once::new();

/// LLVM 14 lets partial and runtime unrolling grow a loop to the CPU model's
/// loop buffer (512 micro-ops on Zen 3): a 16-lane vector loop was copied 64
/// times, which made `tirc build` of the elementwise example take 90 ms
/// instead of 60. At 128 such a loop is copied 16 times (TVM's LLVM copies
/// it 8 times). Against 512 the examples build 3 to 25 ms faster; matmul and
/// layernorm run as fast, softmax about 9% slower, and conv2d was 3% slower
/// until its schedule unrolled the 3x3 window LLVM no longer unrolls.
const PARTIAL_UNROLLING_THRESHOLD: &str = "-partial-unrolling-threshold=128";

/// Registers the LLVM targets tirc can generate code for (once per process).
pub fn initialize_targets() {
    INITIALIZE_TARGETS.call_once(|| {
        let config = InitializationConfig::default();
        LlvmBackend::initialize_x86(&config);
        LlvmBackend::initialize_aarch64(&config);
        super::raw::set_llvm_options(&[PARTIAL_UNROLLING_THRESHOLD]);
    });
}

impl TargetSpec {
    /// The machine tirc runs on: its triple, CPU and features.
    pub fn host() -> TargetSpec {
        initialize_targets();
        TargetSpec {
            triple: TargetMachine::get_default_triple()
                .as_str()
                .to_string_lossy()
                .into_owned(),
            cpu: TargetMachine::get_host_cpu_name().to_string(),
            features: TargetMachine::get_host_cpu_features().to_string(),
            opt_level: 3,
            text: "llvm".to_string(),
        }
    }

    /// Parses a TVM target string for this backend (see
    /// [`crate::codegen::target::Target::parse`]) and resolves it.
    pub fn parse(text: &str) -> Result<TargetSpec, String> {
        match Target::parse(text)? {
            Target::Llvm(target) => TargetSpec::resolve(&target),
            other => Err(format!(
                "target `{other}` is not an LLVM target; use `llvm` (for example `llvm -mcpu=znver3`)"
            )),
        }
    }

    /// Resolves an `llvm` target against the host: no `-mtriple` and no
    /// `-mcpu` is the host CPU; `-mtriple` without `-mcpu` a generic CPU of
    /// that architecture; `-mcpu` without `-mattr` that CPU's own features.
    pub fn resolve(target: &LlvmTarget) -> Result<TargetSpec, String> {
        let host = TargetSpec::host();
        let (triple, cpu, features, opt_level) = (
            target.triple.clone(),
            target.cpu.clone(),
            target.features.clone(),
            target.opt_level,
        );
        let text = Target::Llvm(target.clone()).to_string();
        let names_given = cpu.is_some() || features.is_some();
        let same_machine = triple.as_deref().is_none_or(|t| t == host.triple);
        let spec = match (same_machine, cpu) {
            (true, None) => TargetSpec {
                features: features.unwrap_or(host.features),
                ..host
            },
            (_, Some(cpu)) => TargetSpec {
                triple: triple.unwrap_or(host.triple),
                cpu,
                features: features.unwrap_or_default(),
                ..host
            },
            (false, None) => TargetSpec {
                triple: triple.unwrap_or(host.triple),
                cpu: "generic".to_string(),
                features: features.unwrap_or_default(),
                ..host
            },
        };
        let spec = TargetSpec {
            opt_level,
            text,
            ..spec
        };
        if names_given {
            check_names(&spec)?;
        }
        spec.target_machine()?;
        Ok(spec)
    }

    /// True when code for this target runs on this machine.
    pub fn runs_on_host(&self) -> bool {
        let host = TargetMachine::get_default_triple();
        let host = host.as_str().to_string_lossy();
        architecture(&host) == architecture(&self.triple)
    }

    /// The LLVM optimisation level.
    pub fn optimization_level(&self) -> OptimizationLevel {
        match self.opt_level {
            0 => OptimizationLevel::None,
            1 => OptimizationLevel::Less,
            2 => OptimizationLevel::Default,
            _ => OptimizationLevel::Aggressive,
        }
    }

    /// The LLVM target machine, position-independent so objects can go into
    /// shared libraries.
    pub fn target_machine(&self) -> Result<TargetMachine, String> {
        initialize_targets();
        let triple = TargetTriple::create(&self.triple);
        let target = LlvmBackend::from_triple(&triple).map_err(|error| {
            format!(
                "LLVM cannot generate code for `{}`: {}",
                self.triple,
                error.to_string_lossy()
            )
        })?;
        target
            .create_target_machine(
                &triple,
                &self.cpu,
                &self.features,
                self.optimization_level(),
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| {
                format!(
                    "LLVM cannot make a target machine for `{}` with CPU `{}`",
                    self.triple, self.cpu
                )
            })
    }
}

/// Refuses a CPU or feature LLVM does not know for the triple's
/// architecture: LLVM would warn, then abort while generating code.
fn check_names(spec: &TargetSpec) -> Result<(), String> {
    use super::cpu_names::{AARCH64_CPUS, AARCH64_FEATURES, X86_CPUS, X86_FEATURES};
    let (cpus, features) = match architecture(&spec.triple) {
        "x86_64" => (X86_CPUS, X86_FEATURES),
        "aarch64" | "arm64" => (AARCH64_CPUS, AARCH64_FEATURES),
        _ => return Ok(()),
    };
    let unknown = |kind: &str, name: &str, known: &[&str]| {
        let hint = crate::frontend::suggest(name, known.iter().copied())
            .map_or(String::new(), |close| format!(" (did you mean `{close}`?)"));
        format!(
            "LLVM 14 knows no {kind} `{name}` for `{}`{hint}; `llc-14 -mtriple={} -mcpu=help` lists them",
            spec.triple, spec.triple
        )
    };
    if !cpus.contains(&spec.cpu.as_str()) {
        return Err(unknown("CPU", &spec.cpu, cpus));
    }
    for flag in spec.features.split(',').filter(|f| !f.is_empty()) {
        let name = flag.trim_start_matches(['+', '-']);
        if !features.contains(&name) {
            return Err(unknown("feature", name, features));
        }
    }
    Ok(())
}

fn architecture(triple: &str) -> &str {
    triple.split('-').next().unwrap_or(triple)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_llvm_is_the_host() {
        let spec = TargetSpec::parse("llvm").unwrap();
        assert_eq!(spec, TargetSpec::host());
        assert!(spec.runs_on_host());
    }

    #[test]
    fn options_in_tvm_syntax() {
        let spec =
            TargetSpec::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3 -opt-level=2").unwrap();
        assert_eq!(spec.cpu, "znver3");
        assert_eq!(spec.triple, "x86_64-linux-gnu");
        assert_eq!(spec.features, "");
        assert_eq!(spec.opt_level, 2);
        let arm = TargetSpec::parse("llvm -mtriple=aarch64-linux-gnu").unwrap();
        assert_eq!(arm.cpu, "generic");
        assert!(!arm.runs_on_host() || cfg!(target_arch = "aarch64"));
    }

    #[test]
    fn bad_targets_say_why() {
        assert!(TargetSpec::parse("cuda")
            .unwrap_err()
            .contains("not an LLVM target"));
        assert!(TargetSpec::parse("llvm -frobnicate=1")
            .unwrap_err()
            .contains("unknown target option"));
        assert!(TargetSpec::parse("llvm -opt-level=7").is_err());
        assert!(TargetSpec::parse("llvm -mtriple=nonsense-x-y").is_err());
    }

    #[test]
    fn unknown_cpus_and_features_are_refused_before_llvm_aborts() {
        let cpu = TargetSpec::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver33").unwrap_err();
        assert!(
            cpu.contains("no CPU `znver33`") && cpu.contains("did you mean `znver3`"),
            "{cpu}"
        );
        let feature =
            TargetSpec::parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3 -mattr=+avx2,+bogus")
                .unwrap_err();
        assert!(feature.contains("no feature `bogus`"), "{feature}");
        let arm =
            TargetSpec::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1 -mattr=+neon");
        assert!(arm.is_ok(), "{arm:?}");
    }
}
