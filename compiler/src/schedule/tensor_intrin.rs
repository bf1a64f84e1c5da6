//! The tensor intrinsics a schedule can name: the file's own
//! (`T.TensorIntrin.register` in the file) first, then those tirc ships in
//! `stdlib/intrinsics/`, parsed once on first use.

use crate::ir::TensorIntrin;
use crate::source::SourceMap;
use std::sync::OnceLock;

/// The intrinsic files shipped with tirc: (path in the repository, text).
pub const STDLIB_INTRINSIC_FILES: &[(&str, &str)] = &[
    (
        "stdlib/intrinsics/x86.tir",
        include_str!("../../../stdlib/intrinsics/x86.tir"),
    ),
    (
        "stdlib/intrinsics/arm.tir",
        include_str!("../../../stdlib/intrinsics/arm.tir"),
    ),
    (
        "stdlib/intrinsics/cuda.tir",
        include_str!("../../../stdlib/intrinsics/cuda.tir"),
    ),
    (
        "stdlib/intrinsics/cuda_mma.tir",
        include_str!("../../../stdlib/intrinsics/cuda_mma.tir"),
    ),
];

/// An intrinsic found by name, and the stdlib file it comes from (`None`
/// for the program's own, whose spans point into the program's file).
#[derive(Clone, Copy, Debug)]
pub struct FoundIntrin<'a> {
    /// The intrinsic.
    pub intrinsic: &'a TensorIntrin,
    /// The stdlib file that registers it, when it is not the program's.
    pub stdlib_file: Option<&'static str>,
}

/// Every stdlib intrinsic with its file. A file that does not parse
/// cleanly contributes nothing (a test keeps them clean).
pub fn stdlib_intrinsics() -> &'static [(TensorIntrin, &'static str)] {
    static INTRINSICS: OnceLock<Vec<(TensorIntrin, &'static str)>> = OnceLock::new();
    INTRINSICS.get_or_init(|| {
        let mut all = Vec::new();
        for (path, text) in STDLIB_INTRINSIC_FILES {
            let mut sources = SourceMap::new();
            let (program, diagnostics) = crate::frontend::parse_program(&mut sources, path, text);
            if diagnostics.iter().any(|d| d.is_error()) {
                continue;
            }
            if let Some(program) = program {
                all.extend(program.tensor_intrinsics.into_iter().map(|i| (i, *path)));
            }
        }
        all
    })
}

/// The intrinsic called `name`: the program's own first, then the stdlib's.
pub fn find_intrinsic<'a>(own: &'a [TensorIntrin], name: &str) -> Option<FoundIntrin<'a>> {
    if let Some(intrinsic) = own.iter().find(|i| i.name == name) {
        return Some(FoundIntrin {
            intrinsic,
            stdlib_file: None,
        });
    }
    stdlib_intrinsics()
        .iter()
        .find(|(i, _)| i.name == name)
        .map(|(intrinsic, file)| FoundIntrin {
            intrinsic,
            stdlib_file: Some(file),
        })
}

/// Every intrinsic name a program can use, its own first.
pub fn intrinsic_names(own: &[TensorIntrin]) -> Vec<String> {
    own.iter()
        .map(|i| i.name.clone())
        .chain(stdlib_intrinsics().iter().map(|(i, _)| i.name.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stdlib_intrinsic_file_checks_clean_and_registers_intrinsics() {
        for (path, text) in STDLIB_INTRINSIC_FILES {
            let mut sources = SourceMap::new();
            let checked = crate::check::check_source(&mut sources, path, text, &Default::default());
            assert!(
                checked.diagnostics.is_empty(),
                "{path}: {:?}",
                checked.diagnostics
            );
            let program = checked.program.expect("parsed");
            assert!(!program.tensor_intrinsics.is_empty(), "{path}");
        }
        assert!(find_intrinsic(&[], "dot_16x4_vnni").is_some());
        assert!(find_intrinsic(&[], "dot_16x4_avx512").is_some());
        assert!(find_intrinsic(&[], "dot_4x4_i8i8s32_sdot").is_some());
        assert!(find_intrinsic(&[], "dot_4x4_u8u8u32_udot").is_some());
        assert!(find_intrinsic(&[], "no_such_intrinsic").is_none());
    }

    #[test]
    fn registrations_bind_keywords_as_python_does() {
        let function = |name: &str| {
            format!(
                "@T.prim_func\ndef {name}(A: T.Buffer((4,), \"float32\")):\n    with T.block(\"root\"):\n        for i in range(4):\n            with T.block(\"update\"):\n                vi = T.axis.spatial(4, i)\n                A[vi] = A[vi] + T.float32(1)\n\n"
            )
        };
        let text = format!(
            "{}{}T.TensorIntrin.register(name=\"add\", impl=m, desc=d)\n",
            function("d"),
            function("m")
        );
        let mut sources = SourceMap::new();
        let (program, diagnostics) = crate::frontend::parse_program(&mut sources, "k.tir", &text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let program = program.expect("parsed");
        let [intrinsic] = &program.tensor_intrinsics[..] else {
            panic!("one intrinsic: {:?}", program.tensor_intrinsics);
        };
        assert_eq!(intrinsic.description.name, "d");
        assert_eq!(intrinsic.implementation.name, "m");
        assert!(program.module.functions.is_empty());
    }
}
