//! What the CPU search knows of the machine it tunes for: the vector
//! register file (how many accumulators a micro-kernel can keep) and the
//! cache sizes (how much of a tile each level holds). Read from the host,
//! or, for an `llvm` target naming another CPU (`-mcpu=`, `-mattr=`), the
//! values of that CPU kind.

use crate::codegen::target::{LlvmTarget, AVX512_CPUS};

/// A CPU's vector registers and data caches.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuMachine {
    /// The width of one vector register in bits (256 for AVX2's `ymm`).
    pub vector_bits: u32,
    /// The number of vector registers (16 `ymm` on AVX2, 32 `zmm` on AVX-512).
    pub vector_registers: u32,
    /// The first-level data cache, the per-core second level and the last
    /// level, in bytes.
    pub cache_bytes: [f64; 3],
}

/// The CPU kinds whose register files differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VectorKind {
    Sse,
    Avx2,
    Avx512,
    Neon,
}

impl VectorKind {
    fn registers(self) -> (u32, u32) {
        match self {
            VectorKind::Sse => (128, 16),
            VectorKind::Avx2 => (256, 16),
            VectorKind::Avx512 => (512, 32),
            VectorKind::Neon => (128, 32),
        }
    }

    /// Typical caches of the kind, for a target that is not this host.
    fn typical_caches(self) -> [f64; 3] {
        const KIB: f64 = 1024.0;
        match self {
            VectorKind::Avx512 => [48.0 * KIB, 1024.0 * KIB, 32.0 * KIB * KIB],
            VectorKind::Neon => [64.0 * KIB, 1024.0 * KIB, 32.0 * KIB * KIB],
            VectorKind::Sse | VectorKind::Avx2 => [32.0 * KIB, 512.0 * KIB, 32.0 * KIB * KIB],
        }
    }
}

/// `-mcpu` names with AVX-512 that LLVM 14 does not know but TVM targets
/// name (beside LLVM 14's, in `codegen::target`).
const NEWER_AVX512_CPUS: &[&str] = &[
    "graniterapids",
    "emeraldrapids",
    "znver4",
    "znver5",
    "knl",
    "knm",
];

/// `-mcpu` names with AVX2 and no AVX-512.
const AVX2_CPUS: &[&str] = &[
    "haswell",
    "broadwell",
    "skylake",
    "alderlake",
    "raptorlake",
    "meteorlake",
    "arrowlake",
    "lunarlake",
    "gracemont",
    "znver1",
    "znver2",
    "znver3",
    "bdver4",
    "x86-64-v3",
];

impl CpuMachine {
    /// The machine tirc runs on: its vector kind from the CPU's features,
    /// its caches from `/sys/devices/system/cpu/cpu0/cache` (the kind's
    /// typical sizes where that is unreadable).
    pub fn host() -> CpuMachine {
        let present = |name: &str| {
            crate::driver::toolchain::probe_cpu()
                .features
                .iter()
                .any(|(feature, on)| feature == name && *on)
        };
        let kind = match std::env::consts::ARCH {
            "aarch64" => VectorKind::Neon,
            "x86_64" if present("AVX-512F") => VectorKind::Avx512,
            "x86_64" if present("AVX2") => VectorKind::Avx2,
            _ => VectorKind::Sse,
        };
        let mut caches = kind.typical_caches();
        for (slot, size) in host_cache_sizes().into_iter().enumerate() {
            if let Some(bytes) = size {
                caches[slot] = bytes;
            }
        }
        CpuMachine::of_kind(kind, caches)
    }

    /// The machine an `llvm` target compiles for: the host when it names no
    /// other CPU, else the kind its `-mcpu` (or `-mattr=+avx512f`) says.
    pub fn for_target(target: &LlvmTarget) -> CpuMachine {
        let named = target.cpu.as_deref().filter(|cpu| *cpu != "native");
        let attributes = target.features.as_deref().unwrap_or_default();
        let kind = if attributes.contains("+avx512f") {
            Some(VectorKind::Avx512)
        } else if let Some(cpu) = named {
            if AVX512_CPUS.contains(&cpu) || NEWER_AVX512_CPUS.contains(&cpu) {
                Some(VectorKind::Avx512)
            } else if AVX2_CPUS.contains(&cpu) {
                Some(VectorKind::Avx2)
            } else if target
                .triple
                .as_deref()
                .is_some_and(|t| t.starts_with("aarch64"))
                || cpu.starts_with("cortex")
                || cpu.starts_with("neoverse")
                || cpu.starts_with("apple")
            {
                Some(VectorKind::Neon)
            } else {
                None
            }
        } else if attributes.contains("+avx2") {
            Some(VectorKind::Avx2)
        } else {
            None
        };
        match kind {
            Some(kind) => CpuMachine::of_kind(kind, kind.typical_caches()),
            None => CpuMachine::host(),
        }
    }

    fn of_kind(kind: VectorKind, cache_bytes: [f64; 3]) -> CpuMachine {
        let (vector_bits, vector_registers) = kind.registers();
        CpuMachine {
            vector_bits,
            vector_registers,
            cache_bytes,
        }
    }

    /// An AVX2 core with the given caches (16 `ymm` registers).
    pub fn avx2(cache_bytes: [f64; 3]) -> CpuMachine {
        CpuMachine::of_kind(VectorKind::Avx2, cache_bytes)
    }

    /// An AVX-512 core with the given caches (32 `zmm` registers).
    pub fn avx512(cache_bytes: [f64; 3]) -> CpuMachine {
        CpuMachine::of_kind(VectorKind::Avx512, cache_bytes)
    }

    /// The vector registers `lanes` values of `bits` bits each fill.
    pub fn vectors_for(&self, lanes: f64, bits: u32) -> f64 {
        (lanes * f64::from(bits.max(1)) / f64::from(self.vector_bits)).ceil()
    }
}

/// The host's first-level data, second-level and last-level cache sizes,
/// each where `/sys` gives it.
fn host_cache_sizes() -> [Option<f64>; 3] {
    let mut sizes = [None; 3];
    let Ok(entries) = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache") else {
        return sizes;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let read = |name: &str| {
            std::fs::read_to_string(path.join(name))
                .map(|text| text.trim().to_string())
                .unwrap_or_default()
        };
        if read("type") == "Instruction" {
            continue;
        }
        let (Ok(level), Some(bytes)) = (read("level").parse::<usize>(), parse_size(&read("size")))
        else {
            continue;
        };
        // The last level is the largest one the core sees (an L4 counts too).
        let slot = level.clamp(1, 3) - 1;
        if sizes[slot].is_none_or(|known| bytes > known) {
            sizes[slot] = Some(bytes);
        }
    }
    sizes
}

/// `32K`, `512K`, `32768K`, `1M` (as `/sys` writes cache sizes) in bytes.
fn parse_size(text: &str) -> Option<f64> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: f64 = digits.parse().ok()?;
    let scale = match unit.trim() {
        "" => 1.0,
        "K" | "KB" | "KiB" => 1024.0,
        "M" | "MB" | "MiB" => 1024.0 * 1024.0,
        _ => return None,
    };
    Some(number * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_sys_writes_them() {
        assert_eq!(parse_size("32K"), Some(32768.0));
        assert_eq!(parse_size("32768K"), Some(32.0 * 1024.0 * 1024.0));
        assert_eq!(parse_size("1M"), Some(1024.0 * 1024.0));
        assert_eq!(parse_size("many"), None);
    }

    #[test]
    fn a_named_cpu_gives_its_register_file() {
        let target = |cpu: &str| LlvmTarget {
            cpu: Some(cpu.to_string()),
            ..LlvmTarget::default()
        };
        let zen3 = CpuMachine::for_target(&target("znver3"));
        assert_eq!((zen3.vector_bits, zen3.vector_registers), (256, 16));
        let zen5 = CpuMachine::for_target(&target("znver5"));
        assert_eq!((zen5.vector_bits, zen5.vector_registers), (512, 32));
        let neon = CpuMachine::for_target(&target("neoverse-v1"));
        assert_eq!((neon.vector_bits, neon.vector_registers), (128, 32));
        let attributes = LlvmTarget {
            features: Some("+avx2,+fma".to_string()),
            ..LlvmTarget::default()
        };
        assert_eq!(CpuMachine::for_target(&attributes).vector_bits, 256);
        // Sixteen float32 lanes are two ymm registers, one zmm register.
        assert_eq!(zen3.vectors_for(16.0, 32), 2.0);
        assert_eq!(zen5.vectors_for(16.0, 32), 1.0);
        assert_eq!(zen3.vectors_for(4.0, 32), 1.0);
    }
}
