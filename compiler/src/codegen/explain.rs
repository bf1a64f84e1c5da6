//! The long explanations of the code generator's and runtime's diagnostic
//! codes (`E06xx`), which `tirc explain` prints beside the others.

use crate::explain::Explanation;

/// The explanations of the code generation codes, in code order.
pub static CODEGEN_EXPLANATIONS: &[Explanation] = &[
    Explanation {
        code: "E0601",
        title: "a parameter with no C type",
        text: r#"Every generated function has a C signature: a pointer per buffer parameter,
then the scalar parameters, then one `int64_t` per symbolic shape variable.
A buffer of an element type the LLVM backend cannot store (the float8
types) or a vector-typed scalar parameter has no place in it. Convert the
data at the boundary and compute on a supported type inside."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "float8_e4m3fn"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = T.Cast("float32", A[vi])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "float16"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = T.Cast("float32", A[vi])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0602",
        title: "a construct the CPU backend cannot generate",
        text: r#"The LLVM backend compiles for the CPU. Loops bound to GPU threads
(`T.thread_binding`) run as CPU loops, thread blocks in parallel and the
threads of a block one after another, but only while no thread waits for
another: a barrier (`T.tvm_storage_sync`) or a cross-thread reduction needs
the threads to run together. Those, GPU intrinsics and tensor-core calls
have no CPU meaning, so it refuses them rather than running them in some
other order. Schedule the function for the CPU (`parallel`, `vectorize`),
or build it for the GPU with `--target cuda` (`tirc run --target cuda
--emulate` runs the CUDA kernels on a machine without one)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in T.thread_binding(256, thread="threadIdx.x"):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(2.0)
        T.tvm_storage_sync("shared")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in T.parallel(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(2.0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0603",
        title: "LLVM refused the generated module",
        text: r#"tirc builds LLVM IR and asks LLVM to verify it before optimising. When LLVM
refuses it, the IR tirc built is wrong: this is a bug in tirc, reported as a
diagnostic instead of a crash. Please file it with the program and the
message; `tirc lower` shows the lowered function the backend was given."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        A[i] = T.call_llvm_pure_intrin("float32", "llvm.not.an.intrinsic", A[i])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        A[i] = T.exp(A[i])
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0604",
        title: "a variable the backend never saw defined",
        text: r#"The backend met a variable or buffer with no definition on the path to its
use. The verifier refuses such programs in source (E0210, E0213), so this
code means a lowering pass left a use behind the definition it removed."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        A[i] = T.Cast("float32", j)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        A[i] = T.Cast("float32", i)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0605",
        title: "the kernel failed while running",
        text: r#"`tirc run` called the compiled function and it returned an error: an
`assert` of the program failed (the message is the program's), or the
arguments did not fit (a `.npy` file of the wrong dtype or shape given with
`--args`). The outputs are not checked or saved."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(16):
        assert A[i] >= 0, "A must be non-negative"
        A[i] = A[i] * 2
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(16):
        A[i] = T.max(A[i], 0) * 2
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0606",
        title: "a target intrinsic the CPU lacks",
        text: r#"The program calls an LLVM intrinsic of one instruction set extension
(`T.call_llvm_pure_intrin("int32x16", "llvm.x86.avx512.vpdpbusd.512", ...)`,
usually through a tensor intrinsic's implementation after `tensorize`), and
the target CPU does not have that extension (here AVX-512 VNNI), or the
intrinsic belongs to another architecture. LLVM would abort while
generating code, so tirc refuses first. Compile for a CPU that has it
(`--target "llvm -mcpu=sapphirerapids"` or `-mattr=+avx512vnni`), or
tensorize with an intrinsic this CPU has; `tirc doctor` lists the host's
features."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((64,), "int8")):
    A[T.Ramp(0, 1, 16)] = T.call_llvm_pure_intrin("int32x16", "llvm.aarch64.neon.sdot.v16i32.v64i8", A[T.Ramp(0, 1, 16)], B[T.Ramp(0, 1, 64)], B[T.Ramp(0, 1, 64)])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((64,), "int8")):
    for i, k in T.grid(16, 4):
        A[i] = A[i] + T.Cast("int32", B[i * 4 + k]) * T.Cast("int32", B[i * 4 + k])
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0610",
        title: "a construct the CUDA writer cannot emit",
        text: r#"`--target cuda` writes each kernel as CUDA C. Some lowered forms have no CUDA
C form in tirc yet: a parallel loop inside a kernel (bind it to threads
instead), an `assert` inside a kernel, vector values (vectorized loops are
kept as unrolled loops for CUDA), a `T.Let` expression, a call of another
function of the module, an allocation whose size is known only at run
time, or a type CUDA C lacks (the float8 types). The message names the
construct; rewrite it, or run it with `--target llvm`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for i in T.parallel(32):
            A[bx * 32 + i] = T.float32(0.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(0.0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "W0620",
        title: "every thread repeats a store (CUDA emulation)",
        text: r#"`tirc run --target cuda --emulate` watches every store of a block's threads.
When a thread stores into an element that another thread of the block wrote
(or read) since the last `__syncthreads()`, with the very value the element
already holds, the result is right but the work is repeated: typically a
`cache_read` into shared memory moved under `blockIdx` with `compute_at`
and its loops left unbound, so every thread copies the whole tile. The run
goes on and reports this once per buffer. Bind the loops of the copy to
`threadIdx` (fuse them, split by the thread count, `bind`) so the threads
share the copy, a cooperative fetch. A store of a *different* value is a
data race and stops the run."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    A_shared = T.alloc_buffer((64,), scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            for i in range(64):
                A_shared[i] = A[i]
            B[tx] = A_shared[tx] * T.float32(2.0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    A_shared = T.alloc_buffer((64,), scope="shared")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            A_shared[tx] = A[tx]
            B[tx] = A_shared[tx] * T.float32(2.0)
"#,
        from_passes_only: true,
    },
];
