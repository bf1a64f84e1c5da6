//! Helpers of the schedule unit tests: programs to schedule, a state built
//! from text, and the printed function after a step.

use super::get_block_loop::{get_block, get_loops};
use super::state::ScheduleState;
use crate::frontend::{parse_program, Program};
use crate::ir::NodeId;
use crate::printer::{print_function, PrintOptions};
use crate::source::SourceMap;

/// A 128×128×128 matmul.
pub const MATMUL: &str = r#"
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

/// A matmul into an intermediate buffer followed by a ReLU.
pub const MATMUL_RELU: &str = r#"
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    C = T.alloc_buffer((64, 64))
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(64, 64):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
"#;

/// A row sum (a reduction with a spatial and a reduction iterator).
pub const ROW_SUM: &str = r#"
@T.prim_func
def main(A: T.Buffer((64, 256), "float32"), B: T.Buffer((64,), "float32")):
    for i, k in T.grid(64, 256):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
"#;

/// The lowered program of `text`; panics on errors (test input is valid).
pub fn program(text: &str) -> Program {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, "test.tir", text);
    assert!(
        !diagnostics.iter().any(|d| d.is_error()),
        "{}",
        crate::diagnostics::render_text(&diagnostics, &sources, false)
    );
    program.expect("a program")
}

/// The schedule state of `text`.
pub fn state(text: &str) -> ScheduleState {
    ScheduleState::new(program(text).module)
}

/// The block named `name` and its loops.
pub fn block_and_loops(state: &ScheduleState, name: &str) -> (NodeId, Vec<NodeId>) {
    let block = get_block(state, name, None).expect("the block exists");
    (block, get_loops(state, block))
}

/// The body of the first function as printed (the lines after `def`).
pub fn printed(state: &ScheduleState) -> String {
    let text = print_function(&state.module().functions[0], &PrintOptions::default());
    text.lines()
        .skip_while(|line| !line.trim_start().starts_with("def "))
        .skip(1)
        .map(|line| line.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// True when no function body changed (the same nodes, not just equal ones).
pub fn unchanged(before: &ScheduleState, after: &ScheduleState) -> bool {
    before
        .module()
        .functions
        .iter()
        .zip(&after.module().functions)
        .all(|(a, b)| a.body.same_as(&b.body))
}
