//! Calls of LLVM intrinsics by name (`T.call_llvm_pure_intrin("int32x16",
//! "llvm.x86.avx512.vpdpbusd.512", ...)`), what tensor intrinsics'
//! implementations are written with. LLVM aborts the process when it meets
//! an intrinsic the target CPU lacks, so each target-specific intrinsic is
//! checked against the target's features first and refused with the
//! feature named (E0606).

use super::context::{Codegen, CodegenError, CodegenResult};
use super::raw::{self, Opcode};
use super::target::TargetSpec;
use crate::diagnostics::Diagnostic;
use crate::ir::{DataType, Expr};
use crate::source::Span;
use inkwell::intrinsics::Intrinsic;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};

/// A missing CPU feature.
pub const MISSING_FEATURE: &str = "E0606";

/// The CPU features an intrinsic needs, by name prefix (any one group of
/// features suffices). Intrinsics of an architecture not listed here are
/// passed to LLVM as they are.
const REQUIRED_FEATURES: &[(&str, &[&[&str]])] = &[
    ("llvm.x86.avx512.vpdpbusd.512", &[&["avx512vnni"]]),
    ("llvm.x86.avx512.vpdpbusds.512", &[&["avx512vnni"]]),
    ("llvm.x86.avx512.vpdpwssd.512", &[&["avx512vnni"]]),
    ("llvm.x86.avx512.vpdpwssds.512", &[&["avx512vnni"]]),
    (
        "llvm.x86.avx512.vpdpbusd.",
        &[&["avxvnni"], &["avx512vnni", "avx512vl"]],
    ),
    (
        "llvm.x86.avx512.vpdpbusds.",
        &[&["avxvnni"], &["avx512vnni", "avx512vl"]],
    ),
    (
        "llvm.x86.avx512.vpdpwssd.",
        &[&["avxvnni"], &["avx512vnni", "avx512vl"]],
    ),
    (
        "llvm.x86.avx512.vpdpwssds.",
        &[&["avxvnni"], &["avx512vnni", "avx512vl"]],
    ),
    ("llvm.x86.avx512bf16.", &[&["avx512bf16"]]),
    ("llvm.x86.avx512.pmaddubs.w.512", &[&["avx512bw"]]),
    ("llvm.x86.avx512.pmaddw.d.512", &[&["avx512bw"]]),
    ("llvm.x86.avx512.", &[&["avx512f"]]),
    ("llvm.x86.avx2.", &[&["avx2"]]),
    ("llvm.x86.fma.", &[&["fma"]]),
    ("llvm.x86.tdpbssd", &[&["amx-int8"]]),
    ("llvm.x86.tdpbsud", &[&["amx-int8"]]),
    ("llvm.x86.tdpbusd", &[&["amx-int8"]]),
    ("llvm.x86.tdpbuud", &[&["amx-int8"]]),
    ("llvm.x86.tdpbf16ps", &[&["amx-bf16"]]),
    ("llvm.x86.tile", &[&["amx-tile"]]),
    ("llvm.x86.ldtilecfg", &[&["amx-tile"]]),
    ("llvm.x86.sttilecfg", &[&["amx-tile"]]),
    ("llvm.aarch64.neon.sdot", &[&["dotprod"]]),
    ("llvm.aarch64.neon.udot", &[&["dotprod"]]),
    ("llvm.aarch64.neon.", &[&["neon"]]),
];

/// LLVM 14's x86 CPUs with AVX-512 VNNI.
const AVX512_VNNI_CPUS: &[&str] = &[
    "cascadelake",
    "cooperlake",
    "icelake-client",
    "icelake-server",
    "rocketlake",
    "tigerlake",
    "sapphirerapids",
];

/// LLVM 14's x86 CPUs with AVX2 and FMA (every AVX-512 CPU too).
const AVX2_CPUS: &[&str] = &[
    "haswell",
    "broadwell",
    "skylake",
    "alderlake",
    "znver1",
    "znver2",
    "znver3",
    "x86-64-v3",
    "core-avx2",
];

/// LLVM 14's AArch64 CPUs with the dot-product extension.
const DOTPROD_CPUS: &[&str] = &[
    "cortex-a55",
    "cortex-a65",
    "cortex-a65ae",
    "cortex-a75",
    "cortex-a76",
    "cortex-a76ae",
    "cortex-a77",
    "cortex-a78",
    "cortex-a78c",
    "cortex-a510",
    "cortex-a710",
    "cortex-x1",
    "cortex-x1c",
    "cortex-x2",
    "neoverse-e1",
    "neoverse-n1",
    "neoverse-n2",
    "neoverse-v1",
    "apple-a12",
    "apple-a13",
    "apple-a14",
    "apple-m1",
    "a64fx",
];

/// Architectures whose intrinsics LLVM names `llvm.<arch>.*`.
const INTRINSIC_ARCHITECTURES: &[&str] = &[
    "x86", "aarch64", "arm", "nvvm", "amdgcn", "r600", "riscv", "ppc", "wasm", "hexagon", "mips",
    "s390", "ve", "bpf",
];

/// The architecture an intrinsic belongs to (`x86`, `aarch64`), when it is
/// target-specific.
fn intrinsic_architecture(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("llvm.")?;
    let architecture = rest.split('.').next()?;
    INTRINSIC_ARCHITECTURES
        .contains(&architecture)
        .then_some(architecture)
}

/// True when the target has `feature`: in its feature list, or, for a CPU
/// named without one, as far as tirc knows that CPU. What tirc does not know
/// is refused: LLVM aborts the process on an instruction the CPU lacks.
fn has_feature(target: &TargetSpec, feature: &str) -> bool {
    if target.features.is_empty() {
        let cpu = target.cpu.as_str();
        let avx512 = crate::codegen::target::AVX512_CPUS.contains(&cpu);
        return match feature {
            "avx512f" | "avx512bw" | "avx512vl" => avx512,
            "avx512vnni" => AVX512_VNNI_CPUS.contains(&cpu),
            "avx512bf16" => matches!(cpu, "cooperlake" | "sapphirerapids"),
            "avxvnni" => matches!(cpu, "alderlake" | "sapphirerapids"),
            "amx-tile" | "amx-int8" | "amx-bf16" => cpu == "sapphirerapids",
            "avx2" | "fma" => avx512 || AVX2_CPUS.contains(&cpu),
            "neon" => target.triple.starts_with("aarch64") || target.triple.starts_with("arm64"),
            "dotprod" => DOTPROD_CPUS.contains(&cpu),
            _ => false,
        };
    }
    target
        .features
        .split(',')
        .any(|flag| flag.strip_prefix('+') == Some(feature))
}

/// Why the target cannot run the intrinsic `name`, when it cannot.
pub fn missing_features(target: &TargetSpec, name: &str) -> Option<String> {
    let architecture = intrinsic_architecture(name)?;
    let target_architecture = target.triple.split('-').next().unwrap_or_default();
    let same_architecture = match architecture {
        "x86" => target_architecture == "x86_64" || target_architecture.starts_with('i'),
        "aarch64" => target_architecture == "aarch64" || target_architecture == "arm64",
        "arm" => target_architecture.starts_with("arm") && target_architecture != "arm64",
        other => target_architecture.starts_with(other),
    };
    if !same_architecture {
        return Some(format!(
            "`{name}` is an {architecture} intrinsic and the target is {target_architecture}"
        ));
    }
    let (_, groups) = REQUIRED_FEATURES
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))?;
    if groups
        .iter()
        .any(|group| group.iter().all(|f| has_feature(target, f)))
    {
        return None;
    }
    let needed: Vec<String> = groups.iter().map(|group| group.join(" + ")).collect();
    Some(format!(
        "`{name}` needs {} and the target CPU `{}` does not have it",
        needed.join(" or "),
        target.cpu
    ))
}

impl<'ctx> Codegen<'ctx> {
    /// `T.call_llvm_pure_intrin(dtype, "llvm.name", args...)` (also TVM's
    /// older form with the argument count after the name).
    pub(super) fn emit_llvm_intrinsic_call(
        &mut self,
        args: &[Expr],
        dtype: DataType,
        span: Span,
    ) -> CodegenResult<BasicValueEnum<'ctx>> {
        let Some((name, operands)) = crate::ir::builtin::llvm_intrinsic_call(args) else {
            return Err(CodegenError::unsupported(
                "`T.call_llvm_pure_intrin` names its intrinsic by a string here (`\"llvm.x86.avx512.vpdpbusd.512\"`), not by a number",
                span,
            ));
        };
        if let Some(reason) = missing_features(&self.target, name) {
            return Err(CodegenError(Box::new(
                Diagnostic::error(MISSING_FEATURE, reason, span).with_help(
                    "compile for a CPU that has it (`--target \"llvm -mcpu=...\"` or `-mattr=+feature`), or tensorize with an intrinsic the CPU has (`tirc doctor` lists its features)",
                ),
            )));
        }
        let intrinsic = Intrinsic::find(name).ok_or_else(|| {
            CodegenError::unsupported(format!("LLVM 14 has no intrinsic `{name}`"), span)
        })?;
        let values = operands
            .iter()
            .map(|a| self.emit_expr(a))
            .collect::<CodegenResult<Vec<_>>>()?;
        let result_type = self.llvm_type(dtype, span)?;
        let declaration = if intrinsic.is_overloaded() {
            self.declare_overloaded(name, result_type, &values)
        } else {
            intrinsic.get_declaration(&self.module, &[])
        }
        .ok_or_else(|| {
            CodegenError::unsupported(
                format!("cannot declare `{name}` for these operand types"),
                span,
            )
        })?;
        let parameters = declaration.get_type().get_param_types();
        if parameters.len() != values.len() {
            return Err(CodegenError::unsupported(
                format!(
                    "`{name}` takes {} operands and is given {}",
                    parameters.len(),
                    values.len()
                ),
                span,
            ));
        }
        // LLVM versions differ in how they type some operands (`<64 x i8>`
        // or `<16 x i32>` for vpdpbusd): a value of the same width is cast.
        let mut call_args: Vec<BasicMetadataValueEnum> = Vec::with_capacity(values.len());
        for (value, parameter) in values.iter().zip(&parameters) {
            let parameter: BasicTypeEnum = (*parameter).try_into().map_err(|_| {
                CodegenError::unsupported(
                    format!("`{name}` takes an operand tirc cannot pass"),
                    span,
                )
            })?;
            let value = if value.get_type() == parameter {
                *value
            } else if let (BasicValueEnum::PointerValue(pointer), BasicTypeEnum::PointerType(to)) =
                (value, parameter)
            {
                // `T.address_of(A[i])` of any element type, where the
                // intrinsic takes a byte pointer (`llvm.x86.tileloadd64`).
                self.builder.build_pointer_cast(*pointer, to, "")?.into()
            } else if self.bit_width(value.get_type()) == self.bit_width(parameter) {
                raw::cast(&self.builder, Opcode::LLVMBitCast, *value, parameter)
            } else {
                return Err(CodegenError::unsupported(
                    format!(
                        "an operand of `{name}` is {} where the intrinsic takes {}",
                        value.get_type().print_to_string().to_string_lossy(),
                        parameter.print_to_string().to_string_lossy()
                    ),
                    span,
                ));
            };
            call_args.push(value.into());
        }
        let call = self.builder.build_call(declaration, &call_args, "")?;
        let Some(result) = call.try_as_basic_value().basic() else {
            // An intrinsic for its effect (`llvm.x86.tdpbusd` on tile
            // registers): TVM writes it with a dtype and evaluates it for
            // nothing; the value is a zero.
            return Ok(result_type.const_zero());
        };
        if result.get_type() == result_type {
            Ok(result)
        } else if self.bit_width(result.get_type()) == self.bit_width(result_type) {
            Ok(raw::cast(
                &self.builder,
                Opcode::LLVMBitCast,
                result,
                result_type,
            ))
        } else {
            Err(CodegenError::unsupported(
                format!("`{name}` does not return a {dtype}"),
                span,
            ))
        }
    }

    /// An overloaded intrinsic declared for these operands. LLVM names one
    /// by some of its types (`llvm.aarch64.neon.sdot.v4i32.v16i8`: the result
    /// and the multiplied operands), and asking it for a declaration with the
    /// wrong number of types crashes it. So each candidate name is declared
    /// with the operands' types in a scratch module that LLVM's verifier
    /// checks first; the name as written is the first candidate.
    fn declare_overloaded(
        &self,
        name: &str,
        result_type: BasicTypeEnum<'ctx>,
        values: &[BasicValueEnum<'ctx>],
    ) -> Option<inkwell::values::FunctionValue<'ctx>> {
        let parameters: Vec<inkwell::types::BasicMetadataTypeEnum> =
            values.iter().map(|v| v.get_type().into()).collect();
        let function_type = result_type.fn_type(&parameters, false);
        let mut all: Vec<BasicTypeEnum> = vec![result_type];
        all.extend(values.iter().map(|v| v.get_type()));
        let mut distinct: Vec<BasicTypeEnum> = Vec::new();
        for t in &all {
            if !distinct.contains(t) {
                distinct.push(*t);
            }
        }
        let mangled = |types: &[BasicTypeEnum]| -> Option<String> {
            let parts: Option<Vec<String>> = types.iter().map(|t| mangle(*t)).collect();
            Some(format!("{name}.{}", parts?.join(".")))
        };
        let mut candidates = vec![name.to_string()];
        candidates.extend((1..=distinct.len()).filter_map(|n| mangled(&distinct[..n])));
        candidates.extend((1..=all.len()).filter_map(|n| mangled(&all[..n])));
        // The verifier checks an intrinsic's name against its types at a call.
        let accepted = candidates.into_iter().find(|candidate| {
            let scratch = self.context.create_module("tirc_intrinsic_probe");
            let intrinsic = scratch.add_function(candidate, function_type, None);
            let probe = scratch.add_function("probe", function_type, None);
            let builder = self.context.create_builder();
            builder.position_at_end(self.context.append_basic_block(probe, "entry"));
            let arguments: Vec<BasicMetadataValueEnum> =
                probe.get_param_iter().map(|p| p.into()).collect();
            let called = builder
                .build_call(intrinsic, &arguments, "")
                .ok()
                .and_then(|call| call.try_as_basic_value().basic());
            match called {
                Some(value) if builder.build_return(Some(&value)).is_ok() => {
                    scratch.verify().is_ok()
                }
                _ => false,
            }
        })?;
        Some(
            self.module
                .get_function(&accepted)
                .unwrap_or_else(|| self.module.add_function(&accepted, function_type, None)),
        )
    }

    /// The bits of a scalar or vector type; 0 for others.
    fn bit_width(&self, value_type: BasicTypeEnum<'ctx>) -> u32 {
        match value_type {
            BasicTypeEnum::IntType(t) => t.get_bit_width(),
            BasicTypeEnum::FloatType(t) => {
                let context = t.get_context();
                if t == context.f16_type() {
                    16
                } else if t == context.f32_type() {
                    32
                } else if t == context.f64_type() {
                    64
                } else {
                    0
                }
            }
            BasicTypeEnum::VectorType(t) => {
                t.get_size() * self.bit_width(t.get_element_type().as_basic_type_enum())
            }
            _ => 0,
        }
    }
}

/// A type as LLVM spells it in an overloaded intrinsic's name (`v16i8`).
fn mangle(value_type: BasicTypeEnum<'_>) -> Option<String> {
    match value_type {
        BasicTypeEnum::IntType(t) => Some(format!("i{}", t.get_bit_width())),
        BasicTypeEnum::FloatType(t) => {
            let context = t.get_context();
            if t == context.f16_type() {
                Some("f16".to_string())
            } else if t == context.f32_type() {
                Some("f32".to_string())
            } else if t == context.f64_type() {
                Some("f64".to_string())
            } else {
                None
            }
        }
        BasicTypeEnum::VectorType(t) => Some(format!(
            "v{}{}",
            t.get_size(),
            mangle(t.get_element_type().as_basic_type_enum())?
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(cpu: &str, features: &str) -> TargetSpec {
        TargetSpec {
            triple: "x86_64-unknown-linux-gnu".to_string(),
            cpu: cpu.to_string(),
            features: features.to_string(),
            opt_level: 3,
            text: "llvm".to_string(),
        }
    }

    #[test]
    fn target_intrinsics_need_their_features() {
        let zen3 = target("znver3", "+avx2,+fma,-avx512f,-avx512vnni");
        let reason = missing_features(&zen3, "llvm.x86.avx512.vpdpbusd.512").expect("refused");
        assert!(reason.contains("avx512vnni"), "{reason}");
        let zen5 = target("znver4", "+avx2,+avx512f,+avx512bw,+avx512vnni,+avx512vl");
        assert_eq!(
            missing_features(&zen5, "llvm.x86.avx512.vpdpbusd.512"),
            None
        );
        assert_eq!(
            missing_features(&zen5, "llvm.x86.avx512.vpdpbusd.256"),
            None
        );
        assert_eq!(
            missing_features(&zen5, "llvm.x86.avx512.pmaddubs.w.512"),
            None
        );
        assert!(missing_features(&zen5, "llvm.x86.tdpbusd.internal").is_some());
        let alder = target("alderlake", "+avxvnni,+avx2");
        assert_eq!(
            missing_features(&alder, "llvm.x86.avx512.vpdpbusd.256"),
            None
        );
        assert!(missing_features(&alder, "llvm.x86.avx512.vpdpbusd.512").is_some());
        // Named CPUs without a feature list.
        assert_eq!(
            missing_features(&target("cascadelake", ""), "llvm.x86.avx512.vpdpbusd.512"),
            None
        );
        // Named CPUs tirc does not know to have the extension are refused.
        assert!(
            missing_features(&target("haswell", ""), "llvm.x86.avx512.pmaddubs.w.512").is_some()
        );
        assert!(missing_features(
            &target("skylake-avx512", ""),
            "llvm.x86.avx512bf16.dpbf16ps.512"
        )
        .is_some());
        assert_eq!(
            missing_features(
                &target("cooperlake", ""),
                "llvm.x86.avx512bf16.dpbf16ps.512"
            ),
            None
        );
        let generic_arm = TargetSpec {
            triple: "aarch64-linux-gnu".to_string(),
            ..target("generic", "")
        };
        assert!(missing_features(&generic_arm, "llvm.aarch64.neon.sdot").is_some());
        let neoverse = TargetSpec {
            cpu: "neoverse-n1".to_string(),
            ..generic_arm
        };
        assert_eq!(missing_features(&neoverse, "llvm.aarch64.neon.sdot"), None);
        assert!(missing_features(&zen5, "llvm.ppc.altivec.vmsumubm").is_some());
        // Another architecture's intrinsic, and generic intrinsics.
        assert!(
            missing_features(&zen5, "llvm.aarch64.neon.sdot.v4i32.v16i8")
                .unwrap()
                .contains("aarch64")
        );
        assert_eq!(missing_features(&zen3, "llvm.fma.f32"), None);
    }
}
