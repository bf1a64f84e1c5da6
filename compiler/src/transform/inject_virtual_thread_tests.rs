//! Where `inject-virtual-thread` puts the loops over virtual threads.

use super::inject_virtual_thread;
use crate::ir::PrimFunc;
use crate::printer::{print_function, Dialect, PrintOptions};

/// `body` (at the indentation of the thread loop's body) under one block,
/// two virtual threads and 32 threads, as `inject-virtual-thread` sees it.
fn injected(outside: &str, body: &str) -> String {
    let body: String = body
        .trim_matches('\n')
        .lines()
        .map(|line| format!("                    {line}\n"))
        .collect();
    let text = format!(
        r#"# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((256,), "float32"), C: T.Buffer((64,), "float32")):
        T.func_attr({{"tir.noalias": True}})
{outside}        for bx in T.thread_binding(1, thread="blockIdx.x"):
            for vt in T.thread_binding(2, thread="vthread.x"):
                for tx in T.thread_binding(32, thread="threadIdx.x"):
{body}"#
    );
    let module = crate::transform::cuda_tests::parse(&text);
    let func: &PrimFunc = &module.functions[0];
    let injected = inject_virtual_thread(func, &Default::default()).expect("injects");
    print_function(&injected, &PrintOptions::new(Dialect::Classic))
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("for bx"))
        .map(|line| {
            line.strip_prefix("    ")
                .unwrap_or(line)
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_shared_fetch_runs_once_and_the_accumulator_gets_a_copy_per_virtual_thread() {
    let printed = injected(
        "",
        r#"
acc = T.decl_buffer((1,), scope="local")
S = T.decl_buffer((64,), scope="shared")
for k in range(4):
    S[tx * 2] = A[k * 64 + tx * 2]
    S[tx * 2 + 1] = A[k * 64 + tx * 2 + 1]
    if k == 0:
        acc[0] = T.float32(0.0)
    acc[0] = acc[0] + S[vt * 32 + tx]
C[vt * 32 + tx] = acc[0]
"#,
    );
    let expected = r#"for bx in T.thread_binding(1, thread="blockIdx.x"):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        acc = T.decl_buffer((2,), scope="local")
        S = T.decl_buffer((64,), scope="shared")
        for k in range(4):
            S[tx * 2] = A[k * 64 + tx * 2]
            S[tx * 2 + 1] = A[k * 64 + tx * 2 + 1]
            if k == 0:
                for vt in T.unroll(2):
                    acc[vt] = T.float32(0.0)
            for vt in T.unroll(2):
                acc[vt] = acc[vt] + S[vt * 32 + tx]
        for vt in T.unroll(2):
            C[vt * 32 + tx] = acc[vt]"#;
    assert_eq!(printed, expected, "\n{printed}");
}

#[test]
fn a_buffer_from_outside_written_and_read_back_keeps_the_loop_whole() {
    let printed = injected(
        "        t = T.decl_buffer((1,), scope=\"local\")\n",
        r#"
t[0] = A[vt * 32 + tx]
C[vt * 32 + tx] = t[0]
"#,
    );
    let expected = r#"for bx in T.thread_binding(1, thread="blockIdx.x"):
    for vt in T.unroll(2):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            t[0] = A[vt * 32 + tx]
            C[vt * 32 + tx] = t[0]"#;
    assert_eq!(printed, expected, "\n{printed}");
}

#[test]
fn a_body_that_ignores_the_virtual_thread_runs_once() {
    let printed = injected("", "C[tx] = A[tx]\n");
    let expected = r#"for bx in T.thread_binding(1, thread="blockIdx.x"):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        C[tx] = A[tx]"#;
    assert_eq!(printed, expected, "\n{printed}");
}

#[test]
fn vector_accesses_move_to_their_copy() {
    let printed = injected(
        "",
        r#"
acc = T.decl_buffer((4,), scope="local")
acc[0:4] = A[T.Ramp(vt * 4, 1, 4)]
C[T.Ramp(vt * 32 + tx, 1, 4)] = acc[0:4]
"#,
    );
    assert!(
        printed.contains("acc = T.decl_buffer((8,), scope=\"local\")"),
        "{printed}"
    );
    assert!(
        printed.contains("acc[vt * 4:vt * 4 + 4] = A[T.Ramp(vt * 4, 1, 4)]"),
        "{printed}"
    );
    assert!(printed.contains("= acc[T.Ramp(vt * 4, 1, 4)]"), "{printed}");
}

#[test]
fn an_allocation_inside_a_wrapped_statement_is_one_per_virtual_thread_already() {
    let printed = injected(
        "",
        r#"
if vt * 40 + tx < 64:
    L = T.decl_buffer((4,), scope="local")
    for i in range(4):
        L[i] = A[vt * 4 + i]
    for i in range(4):
        C[vt * 32 + tx] = L[i]
"#,
    );
    assert!(
        printed.contains("L = T.decl_buffer((4,), scope=\"local\")"),
        "{printed}"
    );
    assert!(printed.contains("L[i] = A[vt * 4 + i]"), "{printed}");
    assert!(
        printed.contains("for vt in T.unroll(2):\n            if vt * 40 + tx < 64:"),
        "{printed}"
    );
}

#[test]
fn a_while_loop_that_depends_counts_per_virtual_thread() {
    let printed = injected(
        "",
        r#"
c = T.decl_buffer((1,), "int32", scope="local")
L = T.decl_buffer((1,), scope="local")
c[0] = 0
while c[0] < 1:
    L[0] = A[vt]
    c[0] = c[0] + 1
C[vt * 32 + tx] = L[0]
"#,
    );
    // The counter gets a copy per virtual thread and is reset for each.
    assert!(
        printed.contains("c = T.decl_buffer((2,), \"int32\", scope=\"local\")"),
        "{printed}"
    );
    assert!(
        printed.contains("for vt in T.unroll(2):\n            c[vt] = 0"),
        "{printed}"
    );
    assert!(printed.contains("while c[vt] < 1:"), "{printed}");
}

#[test]
fn a_shared_buffer_read_back_under_the_loop_keeps_it_whole() {
    let printed = injected(
        "",
        r#"
S = T.decl_buffer((64,), scope="shared")
S[vt * 32 + tx] = A[vt * 32 + tx]
C[vt * 32 + tx] = S[(vt * 32 + tx + 1) % 64]
"#,
    );
    assert!(
        printed.contains("for vt in T.unroll(2):\n        for tx"),
        "{printed}"
    );
    assert!(
        printed.contains("S = T.decl_buffer((64,), scope=\"shared\")"),
        "{printed}"
    );
}
