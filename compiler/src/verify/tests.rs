//! Unit tests of rules that text cannot reach (the frontend builds IR that
//! satisfies them by construction) but a pass could break.

use super::codes;
use crate::check::{check_source, CheckOptions};
use crate::diagnostics::Diagnostic;
use crate::source::SourceMap;

fn check(text: &str) -> Vec<Diagnostic> {
    let mut sources = SourceMap::new();
    check_source(&mut sources, "test.tir", text, &CheckOptions::default()).diagnostics
}

#[test]
fn a_valid_matmul_has_no_diagnostics() {
    let text = r#"@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
    assert_eq!(check(text), Vec::new());
    let _ = codes::ALL;
}
