//! The long explanations of the schedule engine's diagnostic codes
//! (`E03xx`), which `tirc explain` prints beside the others. Each wrong
//! example is refused with its code; each right one applies cleanly.

use crate::explain::Explanation;

/// The explanations of the schedule codes, in code order.
pub static SCHEDULE_EXPLANATIONS: &[Explanation] = &[
    Explanation {
        code: "E0301",
        title: "unknown schedule primitive",
        text: r#"A call on `sch` names a method that is not one of tirc's schedule
primitives. Close misspellings get a suggestion; TVM primitives tirc does not
implement yet (`rolling_buffer`, `loop_partition`, ...) are named as such."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.splt(i, factors=[None, 4])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i, factors=[None, 4])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0302",
        title: "undefined name in a schedule",
        text: r#"A schedule uses a name it never assigned. Handles come from the calls that
return them: `b0 = sch.get_block("C")`, `i, j = sch.get_loops(b0)`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.parallel(l9)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.parallel(i)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0303",
        title: "wrong kind of argument",
        text: r#"An argument has the wrong kind: a block handle where a loop is expected, a
string where a list of factors is expected, a value that is not `True` or
`False` for a flag."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(b0, factors=[None, 4])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i, factors=[None, 4])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0304",
        title: "bad arguments",
        text: r#"A primitive got too many arguments, misses a required one, gets one twice,
or gets a keyword it does not have. The help line shows how to call it."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i, factors=[None, 4])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0305",
        title: "handle to a removed loop or block",
        text: r#"A handle names a loop or block that an earlier step replaced: a split or a
fuse removes the loops it takes and returns new ones. The message names the
step that removed it; use the handles that step returned."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    i0, i1 = sch.split(i, factors=[None, 4])
    sch.parallel(i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    i0, i1 = sch.split(i, factors=[None, 4])
    sch.parallel(i0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0306",
        title: "no block, or several, with that name",
        text: r#"`sch.get_block(name)` must find exactly one block with that name in the
function. Close names get a suggestion; blocks sharing a name need distinct
names before a schedule can ask for one of them."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("D")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0307",
        title: "no function with that name",
        text: r#"`func_name=` names a function that is not in the module, or the module has
several functions, none named `main`, and the call does not say which."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C", func_name="mian")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C", func_name="main")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0308",
        title: "bad split factors",
        text: r#"Split factors are positive integers, at most one of them `None` (inferred
from the extent); without a `None`, their product must be at least the extent
of the loop."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i, factors=[None, None])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i, factors=[None, 4])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0309",
        title: "loop does not start at zero",
        text: r#"`split` and `fuse` only transform loops that start at 0, as in TVM."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in range(2, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("B")
    i, j = sch.get_loops(b0)
    sch.split(j, factors=[None, 2])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in range(2, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("B")
    i, j = sch.get_loops(b0)
    sch.split(i, factors=[None, 2])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0310",
        title: "loop with annotations or a thread binding",
        text: r#"`split` and `fuse` refuse loops that carry annotations or a thread binding,
which the new loops could not keep. Split and fuse first, then annotate or
bind."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.bind(i, "blockIdx.x")
    sch.split(i, factors=[None, 4])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    i0, i1 = sch.split(i, factors=[None, 4])
    sch.bind(i0, "blockIdx.x")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0311",
        title: "loops that are not a perfect nest",
        text: r#"`fuse` takes loops outermost first, each directly inside the one before and
the only statement in its body."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    f = sch.fuse(i, k)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    f = sch.fuse(i, j)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0312",
        title: "loop range depends on another loop",
        text: r#"A loop whose range depends on another loop cannot be fused with it, nor
moved outside it by `reorder`: the new loop nest would use a variable before
defining it."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in range(i + 1):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, j)
                B[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("B")
    i, j = sch.get_loops(b0)
    f = sch.fuse(i, j)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in range(i + 1):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, j)
                B[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("B")
    i, j = sch.get_loops(b0)
    sch.unroll(j)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0313",
        title: "loop given twice",
        text: r#"`reorder` takes each loop once."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.reorder(k, k)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.reorder(k, i)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0314",
        title: "loops not on one chain",
        text: r#"`reorder` moves loops of one nest: they must lie on one path above one
block, each loop between them the only statement of the one outside it."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj]

def schedule(sch: T.Schedule):
    i, j = sch.get_loops(sch.get_block("B"))
    k, l = sch.get_loops(sch.get_block("C"))
    sch.reorder(l, i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj]

def schedule(sch: T.Schedule):
    i, j = sch.get_loops(sch.get_block("B"))
    sch.reorder(j, i)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0315",
        title: "block under the loops cannot be reordered",
        text: r#"`reorder` needs the blocks under the loops to have only spatial and
reduction iterators, bound by affine expressions of the loops."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi = T.axis.opaque(16, i)
            vj = T.axis.spatial(16, j)
            B[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    i, j = sch.get_loops(sch.get_block("B"))
    sch.reorder(j, i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi = T.axis.opaque(16, i)
            vj = T.axis.spatial(16, j)
            B[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    i, j = sch.get_loops(sch.get_block("B"))
    sch.unroll(j)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0316",
        title: "loop drives a reduction",
        text: r#"`parallel`, `vectorize` and `bind` apply to loops whose block iterators are
data parallel. A reduction iterator may only be bound to `threadIdx.x/y/z`
(cross-thread reduction)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.parallel(k)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.parallel(i)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0317",
        title: "block neither complete nor a reduction",
        text: r#"A loop is parallelized, vectorized or bound only above blocks that are
complete (spatial iterators, sole writer of their outputs, reading nothing
they write) or reductions (with `T.init()`, affine bindings, sole writer). A
scan is neither."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("scan"):
            vi = T.axis.scan(16, i)
            B[vi] = T.if_then_else(vi > 0, B[vi - 1], T.float32(0.0)) + A[vi]

def schedule(sch: T.Schedule):
    (i,) = sch.get_loops(sch.get_block("scan"))
    sch.parallel(i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("scan"):
            vi = T.axis.scan(16, i)
            B[vi] = T.if_then_else(vi > 0, B[vi - 1], T.float32(0.0)) + A[vi]

def schedule(sch: T.Schedule):
    (i,) = sch.get_loops(sch.get_block("scan"))
    sch.unroll(i)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0318",
        title: "unknown thread axis",
        text: r#"`bind` takes a GPU thread axis: `blockIdx.x/y/z`, `threadIdx.x/y/z` or
`vthread.x/y/z`. TVM 0.27 accepts some misspellings (`threadIdx.w`) and fails
much later; tirc refuses them at the schedule line."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.bind(i, "threadIdx.w")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.bind(i, "threadIdx.x")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0319",
        title: "annotation not there",
        text: r#"`unannotate` removes an annotation the loop or block has."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    sch.unannotate(b0, "schedule_rule")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    sch.annotate(b0, "schedule_rule", "None")
    sch.unannotate(b0, "schedule_rule")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0320",
        title: "operation on the root block",
        text: r#"The root block has no scope around it: no loop can be added above it and
it has no producers or consumers."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    root = sch.get_block("root")
    sch.add_unit_loop(root)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    sch.add_unit_loop(b0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0321",
        title: "statement not allowed in a schedule",
        text: r#"A schedule section holds calls on `sch`, assignments of their results
(tuples included), literals, lists, `None`, and `for` loops over a list, a
tuple or `range(...)`, which run unrolled. Conditions and nested functions
are not read: a schedule is the same every time it is applied."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    loops = sch.get_loops(sch.get_block("C"))
    if len(loops) == 3:
        sch.unroll(loops[2])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    i, j, k = sch.get_loops(sch.get_block("C"))
    sch.unroll(i)
    sch.unroll(j)
    sch.unroll(k)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0322",
        title: "which schedule section",
        text: r#"A file with several schedule sections runs the one named `schedule`, or
the one `--schedule NAME` picks; a name that is not there is refused."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def first(sch: T.Schedule):
    sch.get_block("C")

def second(sch: T.Schedule):
    sch.get_block("C")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def first(sch: T.Schedule):
    sch.get_block("C")

def schedule(sch: T.Schedule):
    sch.get_block("C")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0323",
        title: "tuple assignment count",
        text: r#"A tuple assignment needs one name per value returned: `i, j, k =
sch.get_loops(b0)` for three loops, `b1, = ...` for a list of one."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j = sch.get_loops(b0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0324",
        title: "loop extent overflow",
        text: r#"Fusing loops multiplies their extents, and the fused loop's variable has the
type of the widest of them. When the product does not fit that type (more
than 2147483647 iterations for `int32`), the step is refused instead of
wrapping the extent around."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((65536, 65536), "int8")):
    for i, j in T.grid(65536, 65536):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.int8(0)

def schedule(sch: T.Schedule):
    b0 = sch.get_block("A")
    i, j = sch.get_loops(b0)
    sch.fuse(i, j)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((65536, 65536), "int8")):
    for i, j in T.grid(65536, 65536):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.int8(0)

def schedule(sch: T.Schedule):
    b0 = sch.get_block("A")
    i, j = sch.get_loops(b0)
    j_0, j_1 = sch.split(j, factors=[None, 1024])
    sch.fuse(j_0, j_1)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0325",
        title: "buffer index out of range",
        text: r#"`cache_read`, `cache_write`, `storage_align` and `set_scope` name a buffer by
its position in the block's `T.reads` (or `T.writes`), counting from 0. The
index must name one of them; the message lists what the block reads or writes."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_read(c, 1, "shared")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_read(c, 0, "shared")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0326",
        title: "unknown storage scope",
        text: r#"A cache or a buffer moves to a storage scope: `global`, `shared`,
`shared.dyn`, `local`, `warp` or a `wmma.*`/`m16n8k8.*` fragment. TVM also
takes the empty scope and `texture*` scopes, which nothing in tirc lowers."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_read(c, 0, "sharde")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_read(c, 0, "shared")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0327",
        title: "buffer not allocated by a block",
        text: r#"`set_scope` and `storage_align` change how a buffer is allocated, so the
buffer must be one a block allocates (`T.alloc_buffer`), not a function
parameter or a `match_buffer`. To stage a parameter in faster memory, cache it."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.set_scope(c, 0, "shared")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.set_scope(b, 0, "shared")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0328",
        title: "storage alignment out of range",
        text: r#"`storage_align(block, buffer_index, axis, factor, offset)` pads the stride
of dimension `axis` to `factor * k + offset`: `axis` must be a dimension of
the buffer (`-ndim <= axis < ndim`) and `factor` positive."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.storage_align(b, 0, 2, 16, 1)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.storage_align(b, 0, 0, 16, 1)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0329",
        title: "consumer reads what is not produced",
        text: r#"Caching a buffer that a block reads needs every reader to read only what
the producers wrote before it (TVM's region cover). Here `C` reads rows of
`B` that no block writes."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            vj = T.axis.spatial(16, j)
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_read(c, 0, "shared")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_read(c, 0, "shared")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0330",
        title: "several writers of one buffer",
        text: r#"`cache_write` (and `cache_read` of an intermediate buffer) needs the buffer
written by one block of the scope: with several writers, there is no single
place for the copy."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(8, 16):
        with T.block("top"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj]
    for i, j in T.grid(8, 16):
        with T.block("bottom"):
            vi = T.axis.spatial(16, i + 8)
            vj = T.axis.spatial(16, j)
            C[vi, vj] = A[vi, vj]

def schedule(sch: T.Schedule):
    t = sch.get_block("top")
    sch.cache_write(t, 0, "local")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.cache_write(c, 0, "local")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0331",
        title: "block cannot be inlined",
        text: r#"`compute_inline` replaces every load of a block's output by the value it
stores, so the block must compute each element once with one store indexed
by its iterators (`B[vi, vj] = ...`); a reduction is not inlined.
`reverse_compute_inline` folds a consumer into its only complete producer."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))

def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    sch.compute_inline(c)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))

def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    d = sch.get_block("D")
    i, j = sch.get_loops(d)
    sch.compute_at(c, j)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0332",
        title: "scope is not a stage pipeline",
        text: r#"Inlining and moving blocks needs the blocks of the scope to form a stage
pipeline: each buffer written before it is read, and nothing overwritten
after it is read. Here block `clear` overwrites `A` after `B` read it.
A scope also stops being one, as in TVM, once `transform_layout` with
`pad_value` adds an assumption block for a buffer nothing writes."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
    for i, j in T.grid(16, 16):
        with T.block("clear"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.float32(0)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(b)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(b)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0333",
        title: "block writes an output",
        text: r#"`compute_inline` and `compute_at` move the computation of a buffer into its
consumers; a block writing a function output (or a buffer its scope does not
allocate) has none inside the scope. Inline or move its producers instead."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(c)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(b)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0334",
        title: "block is not complete",
        text: r#"Inlining and moving a block needs a complete block: spatial iterators only,
the only writer of its outputs, and not reading what it writes."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = B[vi, vj] + A[vi, vj]
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(b)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(b)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0335",
        title: "only block of the scope",
        text: r#"Inlining removes a block; the last block of a scope cannot be removed, or
the scope would be empty."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.compute_inline(b)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    sch.compute_inline(b)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0336",
        title: "block cannot go under this loop",
        text: r#"`compute_at` moves a producer under a loop that encloses all of its
consumers (and not itself); `reverse_compute_at` moves a consumer under a
loop of all its producers; `decompose_reduction` puts the initialization
before a loop of the block above its reduction loops. The loop given is not
such a loop."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    i, j = sch.get_loops(b)
    sch.compute_at(b, j)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    i, j = sch.get_loops(c)
    sch.compute_at(b, j)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0337",
        title: "not a reduction block",
        text: r#"`decompose_reduction` and `rfactor` work on a reduction block: one with
`T.init()`, reduction iterators that index only what it reads, and no other
writer of its output."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    c = sch.get_block("C")
    i, j = sch.get_loops(b)
    sch.decompose_reduction(b, i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))

def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    sch.decompose_reduction(c, k)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0338",
        title: "loop cannot be factored",
        text: r#"`rfactor(loop, factor_axis)` turns a reduction loop into a dimension of
partial results: the loop must be serial, bound only to reduction iterators
of the one block under it, the reduction `C = C op value` with op one of
`+`, `*`, `min`, `max` (or an argmax or argmin of an index and a value, as
`topi.argmax` writes it), and `factor_axis` within the output's rank."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 64):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    i, k = sch.get_loops(b)
    sch.rfactor(i, 0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 64):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    i, k = sch.get_loops(b)
    k0, k1 = sch.split(k, factors=[None, 16])
    sch.rfactor(k1, 0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0339",
        title: "loops cannot become a block",
        text: r#"`blockize(loop)` turns the loops from `loop` down to the one block under it
into a new outer block: the loop must hold a single block, and each binding
of the block must divide into a part of the loops outside and a part of the
loops inside (as `split` makes them)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))

def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    d = sch.get_block("D")
    i, j = sch.get_loops(d)
    sch.compute_at(c, i)
    sch.blockize(i)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    C = T.alloc_buffer((16, 16))
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(16, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))

def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    sch.blockize(j)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0340",
        title: "the computation does not match the tensor intrinsic",
        text: r#"`tensorize(loop, "name")` blockizes the loops under `loop` and compares them
with the intrinsic's description, as TVM does: the block's write and read
regions in order (same dtypes and scopes, the last dimensions spanning the
description's extents), then loop by loop and block by block (extents,
kinds, iterator domains), and every index, which must equal the
description's once the tile's start is taken off. The message names the
first difference. Split and reorder the loops so that the ones under the
tensorized loop have the description's extents and order; decompose a
reduction first (the description has no `T.init()`). Intrinsics are
registered in the file (`T.TensorIntrin.register(name, desc, impl)`) or
shipped in `stdlib/intrinsics/`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)

@T.prim_func
def add_4_desc(A: T.Buffer((4,), "float32", offset_factor=1), B: T.Buffer((4,), "float32", offset_factor=1)):
    with T.block("root"):
        T.reads(A[0:4])
        T.writes(B[0:4])
        for i in range(4):
            with T.block("update"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] + T.float32(1)

@T.prim_func
def add_4_impl(A: T.Buffer((4,), "float32", offset_factor=1), B: T.Buffer((4,), "float32", offset_factor=1)):
    with T.block("root"):
        T.reads(A[0:4])
        T.writes(B[0:4])
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1), 4)

T.TensorIntrin.register("add_4", add_4_desc, add_4_impl)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    (i,) = sch.get_loops(b)
    i_0, i_1 = sch.split(i, factors=[None, 8])
    sch.tensorize(i_1, "add_4")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)

@T.prim_func
def add_4_desc(A: T.Buffer((4,), "float32", offset_factor=1), B: T.Buffer((4,), "float32", offset_factor=1)):
    with T.block("root"):
        T.reads(A[0:4])
        T.writes(B[0:4])
        for i in range(4):
            with T.block("update"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] + T.float32(1)

@T.prim_func
def add_4_impl(A: T.Buffer((4,), "float32", offset_factor=1), B: T.Buffer((4,), "float32", offset_factor=1)):
    with T.block("root"):
        T.reads(A[0:4])
        T.writes(B[0:4])
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1), 4)

T.TensorIntrin.register("add_4", add_4_desc, add_4_impl)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    (i,) = sch.get_loops(b)
    i_0, i_1 = sch.split(i, factors=[None, 4])
    sch.tensorize(i_1, "add_4")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0341",
        title: "the layout transformation cannot be applied",
        text: r#"`transform_layout(block, buffer, index_map)` gives a buffer the shape an
index map computes and rewrites every access to it. The map takes one
parameter per dimension of the buffer and returns the new indices, built from
the parameters, integers and `+ - * // %`; each new index starts at 0. The map
must fill the new shape one to one: `lambda i: (i // 10, i % 10)` over 64
elements gives shape (7, 10), whose last 6 elements would be padding, which
TVM refuses without `pad_value`. With `pad_value=0.0`, the writer of the
buffer stores it on the padding (a writer visiting every element in order
loops over the new shape instead; otherwise a block `buffer_NAME_padding`
after it fills the padding), and an input nothing writes gets a
`buffer_NAME_assumptions` block stating it; tirc computes the padding of
maps that keep or split indices (`i // f, i % f`). The buffer is named as `("read", N)`, `("write", N)`
or by its name among the block's reads and writes, and must be a function
parameter or a block's allocation, not a `match_buffer` view.

`transform_block_layout(block, index_map)` maps a block's iterators instead
(one parameter per iterator): the block must be alone under loops that start
at 0 and be bound to them in order (before `split`, `fuse` or `reorder`), the
map must be bijective and affine over the iterators' domains, and each new
iterator may mix iterators of one kind only (spatial or reduction)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.transform_layout(b, ("write", 0), lambda i: (i // 10, i % 10))
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.transform_layout(b, ("write", 0), lambda i: (i // 16, i % 16))
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0342",
        title: "the block's accesses cannot be reindexed",
        text: r#"`reindex(block, buffer)` replaces the block's access pattern of a buffer
by a new buffer indexed by the block iterators the pattern uses, with a copy
stage before the block (for a read) or after it (for a write), as TVM's
`reindex` does. The block must be a leaf (no blocks inside), it must load and
store the buffer at one index tuple only, and the copy goes beside the
outermost loop over it: the loops above the block's own must hold only the
next loop, and no other block under them may access the buffer (it would
not see the copy). Reindex before `compute_at` and before fusing stages
under shared loops."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((65,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + A[vi + 1]
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.reindex(b, ("read", 0))
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((65,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + A[vi + 1]
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.reindex(b, ("write", 0))
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0343",
        title: "the cache stage would copy past the buffer",
        text: r#"`cache_read` and `cache_write` put their copy stage at the lowest loop or
block that holds the producer and its consumers, copying what the producer
writes under it. When that loop comes from a split by a factor that does not
divide the extent, it runs further than the block's `T.where` allows, and the
stage, which has no such guard, would copy elements past the end of the
buffer for the extra iterations (TVM applies the step and copies out of
bounds). Cache before the non-dividing split, or split by a factor that
divides the extent."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    C = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi] * T.float32(2)
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            D[vi] = C[vi] + T.float32(1)
def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    d = sch.get_block("D")
    (i,) = sch.get_loops(c)
    sch.reverse_compute_at(d, i)
    i_0, i_1 = sch.split(i, factors=[1, 100])
    sch.cache_write(c, 0, "shared")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    C = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi] * T.float32(2)
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            D[vi] = C[vi] + T.float32(1)
def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    d = sch.get_block("D")
    (i,) = sch.get_loops(c)
    sch.reverse_compute_at(d, i)
    i_0, i_1 = sch.split(i, factors=[1, 64])
    sch.cache_write(c, 0, "shared")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0344",
        title: "a sampling instruction cannot use its arguments or decision",
        text: r#"`sample_perfect_tile(loop, n, max_innermost_factor, decision)` draws `n`
factors whose product is the loop's extent: the loop's extent must be a
constant, `n` between 1 and 64, and a decision given with `decision=` must
have `n` positive factors (tirc then fits it to the extent from the
innermost factor out, as TVM does when it replays a trace).
`sample_categorical(candidates, probs, decision)` needs one non-negative
probability per integer candidate, not all zero, and a decision that is the
index of a candidate. The trace records each decision, so the schedule
replays exactly."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi] * T.float32(2)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    (i,) = sch.get_loops(b)
    factors = sch.sample_perfect_tile(i, n=2, decision=[4, 8, 4])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi] * T.float32(2)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    (i,) = sch.get_loops(b)
    factors = sch.sample_perfect_tile(i, n=2, decision=[16, 8])
    sch.split(i, factors=factors)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0345",
        title: "the block cannot be padded as an einsum",
        text: r#"`pad_einsum(block, padding)` rounds each iterator of an einsum block up to
a multiple of its factor (one positive factor per iterator), copies each
operand the padding reaches into a zero-padded `NAME_pad` buffer, computes
into padded outputs and copies them back, as TVM's `pad_einsum` does. The
block must be an einsum: every buffer read or written once, at a point whose
indices are iterators or constants. Padding a reduction iterator adds terms
computed from zeros, so tirc pads it only for a sum whose terms vanish when
an operand is zero (`C[i, j] += A[i, k] * B[k, j]`), not a max or a sum of
`exp` (TVM pads those and changes the result). No other block may share the
padded loops or the padded buffers' loop nest: pad before `compute_at`. A
padded iterator must be bound to a loop, which the padding lengthens: pad
before `split` or `fuse` (TVM pads the iterator's domain and no loop)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 10), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 10):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(-3.4028234663852886e+38)
            B[vi] = T.max(B[vi], A[vi, vk])
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.pad_einsum(b, [1, 8])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 10), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 10):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(-3.4028234663852886e+38)
            B[vi] = T.max(B[vi], A[vi, vk])
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.pad_einsum(b, [32, 1])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0346",
        title: "the new order of the block's iterators is not a permutation",
        text: r#"`reorder_block_iter_var(block, new_order)` puts the block's iterators, and
their bindings, in a new order: the `k`-th iterator becomes the one at
position `new_order[k]`. `new_order` must name every position from 0 to the
number of iterators minus one exactly once."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
def schedule(sch: T.Schedule):
    b = sch.get_block("C")
    sch.reorder_block_iter_var(b, [0, 2, 2])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
def schedule(sch: T.Schedule):
    b = sch.get_block("C")
    sch.reorder_block_iter_var(b, [0, 2, 1])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0347",
        title: "the declared access to change does not exist or cannot be written so",
        text: r#"`unsafe_hide_buffer_access(block, buf_type, buf_index_array)` drops regions
from the block's `T.reads` (`buf_type="read"`) or `T.writes` (`"write"`);
each index must be the position of one of them.
`annotate_buffer_access(block, buffer_index, buf_type, gen_new_ranges)`
replaces one region by what a `lambda` of the block's iterators gives: one
index or `(begin, end)` pair per dimension of the buffer. TVM asks for as many
ranges as the block has iterators, so tirc takes it only where that is also
the buffer's rank (a region of another rank would be malformed)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)
def schedule(sch: T.Schedule):
    b = sch.get_block("C")
    sch.unsafe_hide_buffer_access(b, "read", [1])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)
def schedule(sch: T.Schedule):
    b = sch.get_block("C")
    sch.annotate_buffer_access(b, 0, "read", lambda vi, vj: ((vi - 1, vi + 2), vj))
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0348",
        title: "`unsafe_set_dtype` names a type tirc does not know",
        text: r#"`unsafe_set_dtype(block, buffer_index, dtype)` stores a buffer a block
allocates in `dtype`, converting what is stored into it and what is loaded
from it. `dtype` must be one of TVMScript's types: `float16`, `bfloat16`,
`float32`, `float64`, `int8` ... `int64`, `uint8` ... `uint64` or `bool`
(TVM also takes widths no backend has, such as `float17`)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.unsafe_set_dtype(b, 0, "half")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    B = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(64, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.unsafe_set_dtype(b, 0, "float16")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0349",
        title: "the loop nests cannot be merged",
        text: r#"`merge(*loops)` takes one loop of each nest to merge. Each loop, with the
loops above it up to where the loops' paths meet, must be a perfect nest
(each loop's only statement is the next) starting at 0 without annotations;
the nests must be equally deep, with equal extents level by level, in one
block scope, and follow one another. The merged nest runs each nest's body
in turn at every iteration. TVM checks no more, so it also merges nests
where one reads, at iteration `x`, what another writes at a later
iteration, and the result then differs; tirc merges nests that share a
buffer one of them writes only where, in some dimensions, every access to
it is the same point, a different one at each iteration (the rows of an
elementwise chain)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] * T.float32(2.0)
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = B[63 - vi] + T.float32(1.0)
def schedule(sch: T.Schedule):
    (i0,) = sch.get_loops(sch.get_block("B"))
    (i1,) = sch.get_loops(sch.get_block("C"))
    sch.merge(i0, i1)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] * T.float32(2.0)
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = B[vi] + T.float32(1.0)
def schedule(sch: T.Schedule):
    (i0,) = sch.get_loops(sch.get_block("B"))
    (i1,) = sch.get_loops(sch.get_block("C"))
    sch.merge(i0, i1)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0350",
        title: "the block is not a padding block",
        text: r#"`decompose_padding(block, loop)` splits a block that stores
`T.if_then_else(condition, value, constant)` into one that writes the
constant everywhere and one that writes `value` where `condition` holds. It
needs the body to be that one store, the pad value a literal, `value` free
of side effects, and the condition (with the block's `T.where`) a
conjunction of bounds that confine each iterator to one range of
consecutive values; a condition that always holds has nothing to pad.
`can_decompose_padding(block, loop)` says whether a pair is accepted."#,
        wrong: r#"@T.prim_func
def main(x: T.Buffer((128,), "float32"), y: T.Buffer((140,), "float32")):
    for i in range(140):
        with T.block("pad"):
            vi = T.axis.spatial(140, i)
            y[vi] = T.if_then_else(vi % 2 == 0, x[vi // 2], T.float32(0))
def schedule(sch: T.Schedule):
    b = sch.get_block("pad")
    sch.decompose_padding(b, sch.get_loops(b)[0])
"#,
        right: r#"@T.prim_func
def main(x: T.Buffer((128,), "float32"), y: T.Buffer((140,), "float32")):
    for i in range(140):
        with T.block("pad"):
            vi = T.axis.spatial(140, i)
            y[vi] = T.if_then_else(6 <= vi and vi < 134, x[vi - 6], T.float32(0))
def schedule(sch: T.Schedule):
    b = sch.get_block("pad")
    sch.decompose_padding(b, sch.get_loops(b)[0])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0351",
        title: "read_at or write_at cannot copy for this loop",
        text: r#"`read_at(loop, block, i, scope)` copies what the statements of `loop`'s
body read of the block's `i`-th read buffer into a buffer of `scope`, before
the first statement that reads it; those statements then read the copy, so
none of them may write the buffer. `write_at` makes the statements up to
the last one that writes the buffer write the copy, copied back after that
statement; no statement after it may read the buffer, and a block that
reads it before anything in the body wrote it (other than a reduction,
whose `T.init()` writes first) would read a copy that does not hold those
values. TVM stops on an internal check for the first cases and computes
wrong values in the last."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for io in range(8):
        for ii in range(8):
            with T.block("B"):
                vi = T.axis.spatial(64, io * 8 + ii)
                B[vi] = A[vi] * T.float32(2.0)
        for ii in range(8):
            with T.block("C"):
                vi = T.axis.spatial(64, io * 8 + ii)
                C[vi] = B[vi] + T.float32(1.0)
def schedule(sch: T.Schedule):
    b = sch.get_block("B")
    sch.write_at(sch.get_loops(b)[0], b, 0, "local")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for io in range(8):
        for ii in range(8):
            with T.block("B"):
                vi = T.axis.spatial(64, io * 8 + ii)
                B[vi] = A[vi] * T.float32(2.0)
        for ii in range(8):
            with T.block("C"):
                vi = T.axis.spatial(64, io * 8 + ii)
                C[vi] = B[vi] + T.float32(1.0)
def schedule(sch: T.Schedule):
    c = sch.get_block("C")
    sch.read_at(sch.get_loops(c)[0], c, 0, "local")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0352",
        title: "the block does not update the buffer in place",
        text: r#"`cache_inplace(block, read_buffer_index, storage_scope)` caches a buffer
that the block both reads and writes (`A[i] = A[i] * 2`, or an external
call that updates a buffer): a stage copies the buffer into the cache just
before the block and another copies it back just after. A buffer the block
only reads has nothing to copy back; cache it with `cache_read`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1.0)
def schedule(sch: T.Schedule):
    sch.cache_inplace(sch.get_block("B"), 0, "local")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            A[vi] = A[vi] + T.float32(1.0)
def schedule(sch: T.Schedule):
    sch.cache_inplace(sch.get_block("B"), 0, "local")
"#,
        from_passes_only: false,
    },
];
