"""Hand-written TVMScript modules covering constructs the te workloads miss.

Each entry of MODULES is parsed by TVM 0.27 here (in Python) and the corpus
file is what TVM prints back for it (tests/roundtrip/tvm/hand_NAME.tir).
Some of these exist to pin down printer quirks; see tools/tvm/NOTES.md.
"""
# ruff: noqa: F821, E741
# pylint: skip-file

import tvm
from tvm.script import ir as I
from tvm.script import tirx as T

MODULES = {}


# Note: TVM's parser rejects any extra decorator stacked on @T.prim_func
# ("'Name' object has no attribute 'attr'"), so functions are registered by
# name at the end of this file instead.


# ---------------------------------------------------------------- intrinsic used by the corpus

@T.prim_func(s_tir=True)
def mm4_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        for i, j, k in T.grid(4, 4, 4):
            with T.sblock("update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func(s_tir=True)
def mm4_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    s0 = T.int32()
    s1 = T.int32()
    s2 = T.int32()
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1, strides=[s0, 1])
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1, strides=[s1, 1])
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1, strides=[s2, 1])
    with T.sblock("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        T.evaluate(T.call_extern("int32", "mm4x4x4_f32",
                                 C.access_ptr("rw"), A.access_ptr("r"), B.access_ptr("r"), s0, s1, s2))


# ---------------------------------------------------------------- buffers and parameters

@T.prim_func(s_tir=True)
def buffer_param_fields(a: T.handle, b: T.handle, c: T.handle, d: T.handle, e: T.handle):
    A = T.match_buffer(a, (16, 16), "float32", strides=(32, 1))
    B = T.match_buffer(b, (16, 16), "float32", elem_offset=8)
    C = T.match_buffer(c, (16, 16), "float16", scope="shared", align=128)
    D = T.match_buffer(d, (16, 16), "int8", offset_factor=16)
    E = T.match_buffer(e, (16,), "float32", align=64, offset_factor=4, scope="global")
    for i, j in T.grid(16, 16):
        with T.sblock("copy"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = B[vi, vj] + T.Cast("float32", C[vi, vj]) + T.Cast("float32", D[vi, vj]) + E[vj]


@T.prim_func(s_tir=True)
def buffer_param_symbolic(a: T.handle, b: T.handle, c: T.handle):
    n = T.int32()
    m = T.int32()
    s = T.int32()
    off = T.int32()
    A = T.match_buffer(a, (n, m), "float32")
    B = T.match_buffer(b, (n, m), "float32", strides=(s, 1), elem_offset=off)
    C = T.match_buffer(c, (m,), "float32")
    for i, j in T.grid(n, m):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + C[vj]


@T.prim_func(s_tir=True)
def scalar_params(A: T.Buffer((64,), "float32"), n: T.int32, alpha: T.float32, big: T.int64, flag: T.bool, p: T.handle):
    for i in range(64):
        with T.sblock("scale"):
            vi = T.axis.spatial(64, i)
            T.where(i < n)
            A[vi] = T.if_then_else(flag, A[vi] * alpha, A[vi] + T.Cast("float32", big))


@T.prim_func(s_tir=True)
def int64_everything(A: T.Buffer((T.int64(32), T.int64(16)), "float32"), B: T.Buffer((T.int64(32),), "float32")):
    for i, k in T.grid(T.int64(32), T.int64(16)):
        with T.sblock("rowsum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk] * T.float32(0.5)
    for i in range(T.int64(4)):
        for j in range(T.int64(2), T.int64(6)):
            with T.sblock("offset"):
                vi = T.axis.spatial(T.int64(32), i * T.int64(8) + j)
                B[vi] = B[vi] + T.float32(1)


# ---------------------------------------------------------------- blocks

@T.prim_func(s_tir=True)
def explicit_root_block(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    with T.sblock("root"):
        T.reads()
        T.writes()
        T.sblock_attr({"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1})
        C = T.sblock_alloc_buffer((8, 8), "float32")
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = C[vj, vi]


@T.prim_func(s_tir=True)
def root_alloc_only(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    C = T.sblock_alloc_buffer((8,), "float32", scope="local")
    D = T.sblock_alloc_buffer((8,), "int32", scope="shared")
    for i in range(8):
        with T.sblock("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi]
            D[vi] = vi
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = C[vi] + T.Cast("float32", D[vi])


@T.prim_func(s_tir=True)
def block_inner_fields(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for io, jo in T.grid(4, 4):
        with T.sblock("outer"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            T.writes(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            T.sblock_attr({"meta_schedule.tiling_structure": "SS", "tile": [4, 4], "weight": 0.25})
            Tmp = T.sblock_alloc_buffer((4, 4), "float32", scope="local")
            Asub = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), "float32", offset_factor=1)
            Bsub = T.match_buffer(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), "float32", offset_factor=1)
            for ii, ji in T.grid(4, 4):
                with T.sblock("tmp"):
                    vi, vj = T.axis.remap("SS", [ii, ji])
                    Tmp[vi, vj] = Asub[vi, vj] + T.float32(1)
            for ii, ji in T.grid(4, 4):
                with T.sblock("out"):
                    vi, vj = T.axis.remap("SS", [ii, ji])
                    Bsub[vi, vj] = Tmp[vi, vj]


@T.prim_func(s_tir=True)
def opaque_block_no_iters(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        with T.sblock("opaque"):
            T.reads(A[i * 4:i * 4 + 4])
            T.writes(B[i * 4:i * 4 + 4])
            for j in range(4):
                B[i * 4 + j] = A[i * 4 + 3 - j]
    with T.sblock("empty_rw"):
        T.reads()
        T.writes()
        T.evaluate(0)


@T.prim_func(s_tir=True)
def axis_kinds(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.sblock("mixed"):
            vk = T.axis.reduce(16, k)
            vi = T.axis.spatial(16, i)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i, k in T.grid(16, 16):
        with T.sblock("remap_rs"):
            vk, vi = T.axis.remap("RS", [k, i])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
    for i in range(16):
        with T.sblock("scan"):
            vi = T.axis.scan(16, i)
            T.reads(C[vi - 1:vi])
            T.writes(C[vi])
            C[vi] = C[vi] + T.if_then_else(vi > 0, C[vi - 1], T.float32(0))
    for i, j in T.grid(8, 2):
        with T.sblock("opaque_axis"):
            vi = T.axis.opaque(16, i * 2 + j)
            B[vi] = B[vi] * T.float32(2)
    for i, j in T.grid(4, 4):
        with T.sblock("swapped"):
            vj, vi = T.axis.remap("SS", [j, i])
            A[vi, vj] = A[vj, vi]


@T.prim_func(s_tir=True)
def where_and_nonaffine(A: T.Buffer((30,), "float32"), B: T.Buffer((30,), "float32")):
    for io, ii in T.grid(4, 8):
        with T.sblock("B"):
            vi = T.axis.spatial(30, io * 8 + ii)
            T.where(io * 8 + ii < 30)
            B[vi] = A[vi] + T.float32(1)
    for i in range(30):
        with T.sblock("C"):
            vi = T.axis.spatial(30, i)
            T.where(i % 3 == 0 and i > 2)
            B[vi] = B[vi] * A[29 - vi]


@T.prim_func(s_tir=True)
def reduction_multi_init(A: T.Buffer((8, 8), "float32"), S: T.Buffer((8,), "float32"), M: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.sblock("stats"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(S[vi], M[vi])
            with T.init():
                S[vi] = T.float32(0)
                M[vi] = T.float32("-inf")
            S[vi] = S[vi] + A[vi, vk]
            M[vi] = T.max(M[vi], A[vi, vk])


@T.prim_func(s_tir=True)
def block_name_strings(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("a.b-c d"):
            vi = T.axis.spatial(4, i)
            T.sblock_attr({"note": "it's \"quoted\"\n", "path": "C:\\tmp"})
            A[vi] = A[vi] + T.float32(1)


# ---------------------------------------------------------------- loops

@T.prim_func(s_tir=True)
def loop_kinds(A: T.Buffer((64, 64), "float32")):
    for i in T.parallel(4):
        for j in T.serial(2, 10):
            for k in T.unroll(4):
                for l in T.vectorized(4):
                    with T.sblock("a"):
                        vi = T.axis.spatial(64, i * 16 + k * 4 + l)
                        vj = T.axis.spatial(64, j)
                        A[vi, vj] = T.float32(0)
    for i in T.serial(8, annotations={"pragma_x": 1, "software_pipeline_stage": [0, 1]}):
        for j in T.unroll(8, annotations={"pragma_unroll_explicit": False}):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + T.float32(1)
    for i in range(8):
        for j in range(0, 8):
            for k in range(1, 9):
                with T.sblock("c"):
                    vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                    A[vi * 8 + vj, vk] = T.float32(2)


@T.prim_func(s_tir=True)
def thread_bindings(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for bx in T.thread_binding(8, thread="blockIdx.x"):
        for vt in T.thread_binding(2, thread="vthread.x"):
            for tx in T.thread_binding(64, thread="threadIdx.x"):
                with T.sblock("B"):
                    vi = T.axis.spatial(1024, bx * 128 + vt * 64 + tx)
                    B[vi] = A[vi] * T.float32(2)
    for by in T.thread_binding(4, thread="blockIdx.y", annotations={"pragma_x": 1}):
        for ty in T.thread_binding(1, 257, thread="threadIdx.y"):
            with T.sblock("C"):
                vi = T.axis.spatial(1024, by * 256 + ty - 1)
                B[vi] = B[vi] + T.float32(1)


@T.prim_func(s_tir=True)
def grid_merging(A: T.Buffer((4, 4, 4, 4), "float32")):
    for i, j, k, l in T.grid(4, 4, 4, 4):
        with T.sblock("all4"):
            vi, vj, vk, vl = T.axis.remap("SSSS", [i, j, k, l])
            A[vi, vj, vk, vl] = T.float32(0)
    for i, j in T.grid(4, 4):
        for k in range(1, 4):
            for l in range(4):
                with T.sblock("min_breaks"):
                    vi, vj, vk, vl = T.axis.remap("SSSS", [i, j, k, l])
                    A[vi, vj, vk, vl] = T.float32(1)
    for i in range(4):
        A[i, 0, 0, 0] = T.float32(2)
        for j, k in T.grid(4, 4):
            A[i, j, k, 0] = T.float32(3)
    for i in range(4):
        for j in T.serial(4, annotations={"a": 1}):
            for k in range(4):
                A[i, j, k, 1] = T.float32(4)


@T.prim_func(s_tir=True)
def ssa_name_clash(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("a"):
            vi = T.axis.spatial(8, i)
            A[vi] = T.float32(0)
    for i in range(8):
        with T.sblock("b"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(2):
        for i_1 in range(4):
            with T.sblock("c"):
                vi = T.axis.spatial(8, i * 4 + i_1)
                B[vi] = B[vi] + T.float32(1)


# ---------------------------------------------------------------- expressions

@T.prim_func(s_tir=True)
def operators_precedence(A: T.Buffer((16,), "int32"), F: T.Buffer((16,), "float32"), M: T.Buffer((16,), "bool")):
    for i in range(16):
        with T.sblock("ops"):
            vi = T.axis.spatial(16, i)
            A[vi] = (vi + 1) * (vi - 2) - (vi - (3 - vi)) + vi // 2 // 3 + (vi // (2 // 1 + vi)) % 5 - -vi
            F[vi] = F[vi] / (F[vi] + T.float32(1)) - F[vi] * (F[vi] - F[vi] / T.float32(3)) + -F[vi]
            A[vi] = T.truncdiv(A[vi], 3) + T.truncmod(A[vi], 3) + T.floordiv(A[vi], 3) + T.floormod(A[vi], 3)
            A[vi] = (A[vi] & 15 | A[vi] >> 2 ^ A[vi] << 1) + ~A[vi]
            M[vi] = not (vi < 3 or vi >= 12) and (vi != 5) or vi == 7 and M[vi]
            A[vi] = T.min(T.max(A[vi], 0), 100) + T.abs(A[vi] - 50)
            F[vi] = T.Select(M[vi], F[vi], T.float32(0)) + T.Cast("float32", T.Cast("int8", A[vi]))
            F[vi] = T.reinterpret("float32", A[vi]) + T.fabs(F[vi]) + T.exp(F[vi]) + T.sqrt(F[vi]) + T.tanh(F[vi])


@T.prim_func(s_tir=True)
def literals(F: T.Buffer((16,), "float32"), H: T.Buffer((16,), "float16"), D: T.Buffer((16,), "float64"),
             I: T.Buffer((16,), "int64"), U: T.Buffer((16,), "uint8"), B: T.Buffer((16,), "bool"), BF: T.Buffer((16,), "bfloat16")):
    with T.sblock("lit"):
        F[0] = T.float32(1e-05)
        F[1] = T.float32(3.4028234663852886e+38)
        F[2] = T.float32("inf")
        F[3] = T.float32("-inf")
        F[4] = T.float32("nan")
        F[5] = T.float32(-0.0)
        F[6] = T.float32(-2.5)
        F[7] = T.float32(0.1)
        F[8] = T.float32(123456789.0)
        F[9] = T.float32(1e+20)
        H[0] = T.float16(65504)
        H[1] = T.float16(-1.5)
        D[0] = T.float64(0.1)
        D[1] = T.float64(1e-300)
        I[0] = T.int64(-1)
        I[1] = T.int64(9223372036854775807)
        I[2] = T.int64(-9223372036854775808)
        U[0] = T.uint8(255)
        B[0] = T.bool(True)
        B[1] = False
        BF[0] = T.bfloat16(1.5)
        F[10] = T.float32(T.int32(-7))
        I[3] = T.Cast("int64", -2147483648)
        I[4] = I[0] * -3 + -4


@T.prim_func(s_tir=True)
def math_calls(X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32"), H: T.Buffer((8,), "float16")):
    for i in range(8):
        with T.sblock("m"):
            vi = T.axis.spatial(8, i)
            Y[vi] = T.exp(X[vi]) + T.exp2(X[vi]) + T.log(X[vi]) + T.log2(X[vi]) + T.log1p(X[vi]) + T.sigmoid(X[vi])
            Y[vi] = T.sin(X[vi]) * T.cos(X[vi]) + T.atan2(X[vi], Y[vi]) + T.pow(X[vi], T.float32(3)) + T.erf(X[vi])
            Y[vi] = T.floor(X[vi]) + T.ceil(X[vi]) + T.round(X[vi]) + T.trunc(X[vi]) + T.nearbyint(X[vi]) + T.rsqrt(X[vi])
            Y[vi] = T.if_then_else(T.isnan(X[vi]), T.float32(0), X[vi]) + T.if_then_else(T.isinf(X[vi]), T.float32(1), T.float32(2))
            H[vi] = T.Cast("float16", T.fma(X[vi], Y[vi], T.float32(1))) + T.float16(0.5)


@T.prim_func
def vector_exprs(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), V: T.Buffer((16,), "float32x4")):
    for i in range(16):
        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1), 4)
        V[i] = T.Shuffle([A[T.Ramp(i * 4, 1, 4)]], [3, 2, 1, 0])
        B[i * 4:i * 4 + 4] = T.Select(T.Broadcast(i < 8, 4), A[T.Ramp(i * 4, 1, 4)], T.Broadcast(T.float32(0), 4))
    for i in T.vectorized(4):
        B[T.Ramp(i * 16, 1, 4)] = A[T.Ramp(i, 16, 4)]


@T.prim_func
def call_forms(A: T.Buffer((16,), "float32"), n: T.int32):
    T.evaluate(T.call_extern("int32", "printf", "n=%d\n", n))
    T.evaluate(T.call_pure_extern("float32", "my_pure", A[0]))
    T.call_packed("my.packed_func", A.data, n)
    T.evaluate(T.call_intrin("int32", "tirx.popcount", n))
    T.evaluate(T.call_llvm_pure_intrin("float32", "llvm.sqrt.f32", T.uint32(1), A[1]))
    T.evaluate(0)
    T.evaluate(n + 1)
    T.tvm_storage_sync("shared")
    A[2] = T.float32(T.call_extern("float32", "cosf", A[3]))


# ---------------------------------------------------------------- low-level statements

@T.prim_func
def lowlevel_alloc_decl(A: T.Buffer((64,), "float32"), n: T.int32):
    B = T.alloc_buffer((64,), "float32", scope="local")
    C = T.alloc_buffer((8, 8), "float16", scope="shared")
    D = T.decl_buffer((8, 8), "float32", data=A.data)
    E = T.decl_buffer((16,), "float32", data=A.data, elem_offset=16)
    F = T.alloc_buffer((4,), "int32")
    for i in range(64):
        B[i] = A[i]
    for i, j in T.grid(8, 8):
        C[i, j] = T.Cast("float16", D[i, j] + E[j])
    F[0] = n


@T.prim_func
def lowlevel_let_attr_assert(A: T.Buffer((64,), "float32"), n: T.int32):
    x: T.int32 = n * 2
    y: T.float32 = T.Cast("float32", x) + T.float32(0.5)
    assert n > 0, "n must be positive"
    assert n < 64, ("ValueError", ["n=", "too large"])
    with T.attr(A.data, "storage_alignment", 64):
        with T.attr(0, "pragma_import_c", "int foo();"):
            for i in range(x):
                z: T.int32 = i + 1
                A[i] = y * T.Cast("float32", z)


@T.prim_func
def lowlevel_control_flow(A: T.Buffer((64,), "float32"), n: T.int32):
    i = T.alloc_buffer((1,), "int32", scope="local")
    i[0] = 0
    while i[0] < n:
        if T.likely(i[0] < 64):
            A[i[0]] = T.float32(0)
        else:
            T.evaluate(T.call_extern("int32", "abort"))
        i[0] = i[0] + 1
    if n > 3:
        A[0] = T.float32(1)
    if n == 0:
        A[1] = T.float32(2)
    elif n == 1:
        A[1] = T.float32(3)
    else:
        A[1] = T.float32(4)


@T.prim_func
def lowlevel_launch_thread(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"target": T.target({"kind": "cuda", "arch": "sm_80"}), "tirx.noalias": True})
    bx = T.launch_thread("blockIdx.x", 8)
    tx = T.launch_thread("threadIdx.x", 128)
    S = T.alloc_buffer((128,), "float32", scope="shared")
    S[tx] = A[bx * 128 + tx]
    T.tvm_storage_sync("shared")
    B[bx * 128 + tx] = S[127 - tx]


@T.prim_func
def lowlevel_env_thread(A: T.Buffer((128,), "float32")):
    tx = T.env_thread("threadIdx.x")
    with T.launch_thread(tx, 128):
        A[tx] = T.float32(1)
    with T.launch_thread(tx, 128):
        A[tx] = A[tx] + T.float32(1)


@T.prim_func
def lowlevel_views(A: T.Buffer((8, 8), "float32"), B: T.Buffer((64,), "float32")):
    A_flat = T.decl_buffer((64,), "float32", data=A.data)
    B_2d = T.decl_buffer((8, 8), "float32", data=B.data)
    for i in range(64):
        B[i] = A_flat[i]
    for i, j in T.grid(8, 8):
        B_2d[i, j] = B_2d[j, i]


@T.prim_func(private=True)
def return_value(a: T.int32, b: T.int32) -> T.int32:
    return T.max(a, b) + T.min(a, b) * 2


# ---------------------------------------------------------------- functions and modules

@T.prim_func(s_tir=True)
def func_attr_values(A: T.Buffer((4,), "float32")):
    T.func_attr({"tirx.noalias": True, "tir.noalias": True, "global_symbol": "renamed_symbol",
                 "int_attr": 42, "neg": -1, "float_attr": 0.5, "str_attr": "hello \"world\"",
                 "list_attr": [1, 2, 3], "nested": {"a": {"b": [True, False]}, "c": "d"},
                 "bool_false": False})
    for i in range(4):
        with T.sblock("a"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)


@T.prim_func(s_tir=True)
def no_blocks_s_tir(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1)


@T.prim_func
def no_blocks_plain(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] + T.float32(1)


@T.prim_func(private=True, s_tir=True)
def private_funcs(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("a"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)


@I.ir_module
class MultiFunc:
    @T.prim_func(private=True)
    def helper(a: T.int32) -> T.int32:
        return a * 2

    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        T.func_attr({"global_symbol": "main"})
        for i in range(4):
            A[i] = MultiFunc.helper(i)

    @T.prim_func(s_tir=True)
    def blocked(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                A[vi] = T.float32(1)




@I.ir_module
class ModuleAttrs:
    I.module_attrs({"system_lib_prefix": "corpus_", "flag": True})

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                A[vi] = T.float32(1)




@T.prim_func(s_tir=True)
def strides_quirk_unnamed_vars(a: T.handle):
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1, strides=[T.int32(), T.int32()])
    for i, j in T.grid(4, 4):
        with T.sblock("z"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.float32(0)


@T.prim_func(s_tir=True)
def dtype_zoo(A: T.Buffer((4,), "int4"), B: T.Buffer((4,), "uint1"), C: T.Buffer((4,), "float8_e4m3fn"),
              D: T.Buffer((4,), "float8_e5m2"), E: T.Buffer((4,), "int16x8"), F: T.Buffer((4,), "bool"),
              G: T.Buffer((4,), "uint64"), H: T.Buffer((4,), "float64")):
    for i in range(4):
        with T.sblock("z"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.Cast("int4", G[vi])
            C[vi] = T.Cast("float8_e4m3fn", H[vi])
            F[vi] = G[vi] > T.uint64(3)


@T.prim_func
def expr_let_and_vectors(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    for i in range(16):
        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1), 4)
        B[T.Ramp(i, 16, 4)] = T.Broadcast(A[i], 4)
    x = T.int32()
    B[0] = T.Let(T.Cast("float32", x * x), where={x: n + 1})
    y: T.let[T.int32] = n * 3
    B[1] = T.Cast("float32", y) + T.if_then_else(T.likely(n > 2), A[2], A[3])


@T.prim_func
def call_forms_printable(A: T.Buffer((16,), "float32"), n: T.int32):
    T.evaluate(T.call_extern("int32", "printf", "n=%d", n))
    T.evaluate(T.call_pure_extern("float32", "my_pure", A[0]))
    T.call_packed("my.packed_func", A.data, n)
    T.evaluate(T.call_intrin("int32", "tirx.popcount", n))
    A[2] = T.call_extern("float32", "cosf", A[3])
    A[4] = T.Cast("float32", T.Div(n, 3) + T.truncmod(n, 3) + T.Add(n, 0) + T.Mul(n, 1))


@T.prim_func(s_tir=True)
def block_match_buffer_strided(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for io, jo in T.grid(4, 4):
        with T.sblock("tile"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            T.writes(C[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            Asub = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), strides=[T.int32(), T.int32()], offset_factor=1)
            Csub = T.match_buffer(C[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), offset_factor=4, scope="global")
            T.evaluate(T.call_extern("int32", "tile_copy", Csub.data, Csub.elem_offset, Asub.data, Asub.elem_offset, Asub.strides[0]))


# A block with an init and no reduction iterator: TVM's lowering writes one
# when a reduction axis of extent 1 is simplified away (issue 51).
@T.prim_func(s_tir=True)
def init_without_reduction(A: T.Buffer((4, 8, 1), "float32"), B: T.Buffer((4, 1, 16), "float32"), C: T.Buffer((4, 8, 16), "float32")):
    for b, i, j in T.grid(4, 8, 16):
        with T.sblock("C"):
            vb, vi, vj = T.axis.remap("SSS", [b, i, j])
            T.reads(A[vb, vi, 0], B[vb, 0, vj])
            T.writes(C[vb, vi, vj])
            with T.init():
                C[vb, vi, vj] = T.float32(0.0)
            C[vb, vi, vj] = C[vb, vi, vj] + A[vb, vi, 0] * B[vb, 0, vj]



for _name in [
    "buffer_param_fields",
    "buffer_param_symbolic",
    "scalar_params",
    "int64_everything",
    "explicit_root_block",
    "root_alloc_only",
    "block_inner_fields",
    "opaque_block_no_iters",
    "axis_kinds",
    "where_and_nonaffine",
    "reduction_multi_init",
    "block_name_strings",
    "loop_kinds",
    "thread_bindings",
    "grid_merging",
    "ssa_name_clash",
    "operators_precedence",
    "literals",
    "math_calls",
    "vector_exprs",
    "call_forms",
    "lowlevel_alloc_decl",
    "lowlevel_let_attr_assert",
    "lowlevel_control_flow",
    "lowlevel_launch_thread",
    "lowlevel_env_thread",
    "lowlevel_views",
    "return_value",
    "func_attr_values",
    "no_blocks_s_tir",
    "no_blocks_plain",
    "private_funcs",
    "strides_quirk_unnamed_vars",
    "dtype_zoo",
    "expr_let_and_vectors",
    "call_forms_printable",
    "block_match_buffer_strided",
    "init_without_reduction",
]:
    MODULES[_name] = globals()[_name]
MODULES["module_multi_func"] = MultiFunc
MODULES["module_attrs"] = ModuleAttrs
