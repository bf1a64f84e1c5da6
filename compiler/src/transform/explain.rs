//! The long explanations of the lowering passes' diagnostic codes (`E05xx`),
//! which `tirc explain` prints beside the others. `E0501` is reachable from
//! a program that verifies clean; the others guard the order of the passes
//! and the IR they build, so their examples show what a pass refuses.

use crate::explain::Explanation;

/// The explanations of the lowering codes, in code order.
pub static LOWERING_EXPLANATIONS: &[Explanation] = &[
    Explanation {
        code: "E0501",
        title: "a construct lowering does not handle",
        text: r#"A lowering pass met something it has no rule for and refused it instead of
producing wrong code. The message names the construct: for example a buffer
with both explicit `strides` and `axis_separators`, which has no single flat
layout per axis group. Rewrite the buffer (drop the strides, or the
separators) or file an issue with the program."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((4, 4, 8), "float32", strides=(64, 8, 1), axis_separators=[2])):
    for i, j, k in T.grid(4, 4, 8):
        with T.block("A"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            A[vi, vj, vk] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((4, 4, 8), "float32", axis_separators=[2])):
    for i, j, k in T.grid(4, 4, 8):
        with T.block("A"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            A[vi, vj, vk] = T.float32(0.0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0502",
        title: "a pass run before the passes it needs",
        text: r#"Each lowering pass expects the form its predecessors leave: blocks are made
opaque only after `T.init()` became a guarded store, buffers are flattened
only after blocks are gone. `tirc lower` runs the passes in order, so this
code means a pass was run alone (`--print-after` does not reorder them) or a
pass left something behind; the message names the pass to run first."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + A[vi, vk]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            if vk == 0:
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + A[vi, vk]
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0503",
        title: "a matched buffer that contradicts its region",
        text: r#"`lower-match-buffer` replaces a `T.match_buffer` view by accesses to the
buffer it views, binding the view's shape, strides and offset to the region.
When a field is a constant that the region contradicts (or the ranks differ),
the view cannot be replaced. The verifier reports the same contradiction in
source programs (E0223); this code is for IR a pass or a tool built."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi * 4:vi * 4 + 4, 0:16])
            A_sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 8))
            for j in range(8):
                A_sub[0, j] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi * 4:vi * 4 + 4, 0:16])
            A_sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16), offset_factor=1)
            for j in range(16):
                A_sub[0, j] = T.float32(0.0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0504",
        title: "operand types no operator accepts",
        text: r#"While rebuilding an expression (an init condition, a flat index, a matched
buffer's offset) a pass combined operands whose types no operator accepts,
such as an `int32` index with an `int64` stride it could not cast. The
frontend inserts TVM's implicit casts in source programs, so this code means
IR built elsewhere mixes index widths; give the indices of one buffer one
integer type."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((T.int64(16),), "float32")):
    for i in range(16):
        A[T.Cast("int64", i)] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((T.int64(16),), "float32")):
    for i in range(T.int64(16)):
        A[i] = T.float32(0.0)
"#,
        from_passes_only: true,
    },
];
