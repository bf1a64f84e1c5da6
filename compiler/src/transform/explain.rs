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
    Explanation {
        code: "E0505",
        title: "a buffer accessed on the host of a CUDA program",
        text: r#"For `--target cuda`, every outermost loop nest bound to `blockIdx`/`threadIdx`
becomes a GPU kernel; what is outside those nests runs on the host CPU, which
cannot read or write GPU memory. A store or load left outside means a loop
nest was not bound. Bind its loops (`sch.bind(i, "blockIdx.x")`,
`sch.bind(j, "threadIdx.x")`), as TVM requires ("Did you forget to bind?")."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in range(64):
        A[i] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i_0 in T.thread_binding(2, thread="blockIdx.x"):
        for i_1 in T.thread_binding(32, thread="threadIdx.x"):
            A[i_0 * 32 + i_1] = T.float32(0.0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0506",
        title: "one thread tag bound with two extents in a kernel",
        text: r#"A kernel is launched with one extent per thread tag: every loop bound to
`threadIdx.x` in it runs over the same threads. Two loops bound to one tag
with different extents cannot both be right. Split the loops so their
extents match (a cooperative fetch usually splits its fused loop by the
block's thread count)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(0.0)
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            B[bx * 32 + tx] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(0.0)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[bx * 32 + tx] = T.float32(0.0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0507",
        title: "more than 1,024 threads in a block",
        text: r#"CUDA launches at most 1,024 threads per block: the product of the extents of
the loops bound to `threadIdx.x`, `threadIdx.y` and `threadIdx.z`. Split the
bound loops further and bind the outer parts to `blockIdx`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((2048,), "float32")):
    for tx in T.thread_binding(2048, thread="threadIdx.x"):
        A[tx] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((2048,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(1024, thread="threadIdx.x"):
            A[bx * 1024 + tx] = T.float32(0.0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0508",
        title: "more shared memory than a block has",
        text: r#"The `shared` buffers a kernel allocates (after lowering shrank them to what
is used) add up to more than a block of the target GPU has. Up to 48 KiB
they are static `__shared__` arrays; beyond that tirc takes them from one
dynamic allocation, which the architecture limits: 163 KiB on sm_80, 99 KiB
on sm_86/sm_89, 227 KiB on sm_90 (sm_80's without `-arch`). Use smaller
tiles, or name the GPU: `--target "cuda -arch=sm_90"`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((65536,), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("copy"):
                A_shared = T.alloc_buffer((65536,), scope="shared")
                for i in range(512):
                    A_shared[i * 128 + tx] = A[i * 128 + tx]
                for i in range(512):
                    A[i * 128 + tx] = A_shared[i * 128 + tx]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((65536,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("copy"):
                A_shared = T.alloc_buffer((16384,), scope="shared")
                for i in range(128):
                    A_shared[i * 128 + tx] = A[bx * 16384 + i * 128 + tx]
                for i in range(128):
                    A[bx * 16384 + i * 128 + tx] = A_shared[i * 128 + tx]
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0509",
        title: "more local memory per thread than CUDA allows",
        text: r#"The `local` buffers of a kernel give each thread more than 512 KiB, the
most CUDA lets a thread address. A `local` buffer under a `vthread` loop
has a copy per virtual thread, so a register tile of 64x64 floats under 64
virtual threads needs 1 MiB. Give each thread (and each virtual thread) a
smaller tile."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((32, 262144), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("copy"):
                A_local = T.alloc_buffer((262144,), scope="local")
                for i in range(262144):
                    A_local[i] = A[tx, i]
                for i in range(262144):
                    A[tx, i] = A_local[i] + T.float32(1.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((32, 262144), "float32")):
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for i_0 in range(256):
                with T.block("copy"):
                    A_local = T.alloc_buffer((1024,), scope="local")
                    for i_1 in range(1024):
                        A_local[i_1] = A[tx, i_0 * 1024 + i_1]
                    for i_1 in range(1024):
                        A[tx, i_0 * 1024 + i_1] = A_local[i_1] + T.float32(1.0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0510",
        title: "warp memory whose lane layout cannot be read from its accesses",
        text: r#"A buffer in `warp` scope is held by the 32 lanes of a warp together,
each lane its own elements in registers. `lower-warp-memory` (TVM's
LowerWarpMemory) finds which lane holds which element from the accesses
that write it: a store at `m * threadIdx.x + ...` (m > 0, the same m
everywhere), an `ldmatrix` into it, or an `mma_fill` of m registers, each
inside a `threadIdx.x` loop of at most 32 threads. A lane reading another
lane's element then gets it by a warp shuffle. A buffer written at an index
that is not of that form (`31 - tx`, `tx * tx`), outside any `threadIdx.x`
loop, or whose address is taken, has no such layout. Write each lane's own
elements, and read others' elements from it instead."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        with T.block("warp"):
            W = T.alloc_buffer((32,), scope="warp")
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("put"):
                    W[31 - tx] = A[bx * 32 + tx]
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("get"):
                    B[bx * 32 + tx] = W[tx]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        with T.block("warp"):
            W = T.alloc_buffer((32,), scope="warp")
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("put"):
                    W[tx] = A[bx * 32 + tx]
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("get"):
                    B[bx * 32 + tx] = W[31 - tx]
"#,
        from_passes_only: true,
    },
];
