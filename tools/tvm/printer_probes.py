#!/usr/bin/env python3
"""Printer experiments behind tools/tvm/NOTES.md.

Each probe builds a small module (from TVMScript text, te, or the tirx Python
API when TVMScript cannot express it) and prints what TVM 0.27 prints for it,
whether TVM parses that back, and whether the result is structurally equal.

    tools/tvm/python tools/tvm/printer_probes.py > tools/tvm/printer_probes.out.txt
    tools/tvm/python tools/tvm/printer_probes.py literals   # only probes whose name contains "literals"
"""

from __future__ import annotations

import os
import sys
import textwrap
import traceback
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
from tvm import s_tir, te, tirx  # noqa: E402
from tvm.s_tir.meta_schedule.testing import te_workload as W  # noqa: E402

PROBES = []


def probe(name):
    def deco(fn):
        PROBES.append((name, fn))
        return fn
    return deco


def src(text: str):
    return tvm.script.from_source(textwrap.dedent(text))


def roundtrip_status(obj) -> str:
    text = obj.script()
    try:
        back = tvm.script.from_source(text)
    except Exception as e:  # noqa: BLE001
        lines = [l for l in str(e).splitlines() if l.strip()]
        msg = next((l for l in lines if l.startswith("error:")), lines[-1] if lines else "")
        return "TVM cannot parse it back: " + msg.strip()[:150]
    if isinstance(obj, tvm.IRModule) and not isinstance(back, tvm.IRModule):
        return "parses back to a different kind of object"
    if not tvm_ffi.structural_equal(obj, back, map_free_vars=True):
        return "parses back, NOT structurally equal"
    if back.script() != text:
        return "parses back, structurally equal, reprint differs"
    return "round-trips"


def mod_of(f, name="main"):
    return tvm.IRModule({name: f})


# ============================================================ headers / decorators

@probe("header_primfunc_vs_module")
def _():
    f = te.create_prim_func(W.matmul(4, 4, 4))
    print("## f.attrs =", f.attrs)
    print("## PrimFunc.script():")
    print(f.script())
    print("## IRModule({'main': f}).script():")
    return mod_of(f)


@probe("decorator_variants")
def _():
    return src('''
    @I.ir_module
    class Module:
        @T.prim_func
        def plain(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)
        @T.prim_func(s_tir=True)
        def s_tir_no_blocks(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)
        @T.prim_func(private=True)
        def priv(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)
        @T.prim_func(private=True, s_tir=True)
        def priv_s_tir(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)
        @T.prim_func
        def other_symbol(A: T.Buffer((4,), "float32")):
            T.func_attr({"global_symbol": "renamed"})
            A[0] = T.float32(1)
    ''')


@probe("function_order_in_module")
def _():
    def f(v):
        return tvm.script.from_source(textwrap.dedent(f'''
        @T.prim_func
        def g(A: T.Buffer((4,), "float32")):
            A[0] = T.float32({v})
        '''))
    return tvm.IRModule({"zeta": f(1), "main": f(2), "alpha": f(3), "Beta": f(4)})


@probe("s_tir_removed_layout_none_quirk")
def _():
    f = te.create_prim_func(W.matmul(4, 4, 4))
    g = f.without_attr("s_tir")
    print("## te function with the s_tir attribute removed:")
    return mod_of(g)


@probe("module_attrs_and_global_infos")
def _():
    return src('''
    @I.ir_module
    class Module:
        I.module_attrs({"system_lib_prefix": "x_", "flag": True})
        @T.prim_func(s_tir=True)
        def main(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)
    ''')


# ============================================================ buffers

@probe("buffer_param_fields")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(a: T.handle, b: T.handle, c: T.handle, d: T.handle, e: T.handle, f: T.handle, g: T.handle):
        A = T.match_buffer(a, (16, 16), "float32", strides=(32, 1))
        B = T.match_buffer(b, (16, 16), "float32", elem_offset=8)
        C = T.match_buffer(c, (16, 16), "float16", scope="shared")
        D = T.match_buffer(d, (16, 16), "int8", offset_factor=16)
        E = T.match_buffer(e, (16,), "float32", align=128)
        F = T.match_buffer(f, (16,), "float32", align=64, offset_factor=1, scope="global")
        G = T.match_buffer(g, (), "float32")
        A[0, 0] = B[0, 0] + T.Cast("float32", C[0, 0]) + T.Cast("float32", D[0, 0]) + E[0] + F[0] + G[()]
    ''')


@probe("buffer_param_symbolic_and_handle")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(a: T.handle, b: T.handle, c: T.handle, d: T.handle):
        n = T.int32()
        m = T.int32()
        s = T.int32()
        off = T.int32()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32", strides=(s, 1), elem_offset=off)
        C = T.match_buffer(c, (m,), "float32")
        D = T.match_buffer(d, (m, n), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + C[vj] + D[vj, vi]
    ''')


@probe("buffer_param_shared_data_var")
def _():
    # two buffers on the same data pointer cannot be inlined into the signature
    return src('''
    @T.prim_func
    def main(a: T.handle):
        A = T.match_buffer(a, (16,), "float32")
        A2 = T.decl_buffer((4, 4), "float32", data=A.data)
        A2[0, 0] = A[1]
    ''')


@probe("buffer_param_used_handle")
def _():
    return src('''
    @T.prim_func
    def main(a: T.handle):
        A = T.match_buffer(a, (16,), "float32")
        T.evaluate(T.call_extern("int32", "f", a))
        A[0] = T.float32(0)
    ''')


@probe("buffer_param_int64_and_dtypes")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((T.int64(8), T.int64(4)), "float16"), B: T.Buffer((8,), "bool"),
             C: T.Buffer((8,), "float32x4"), D: T.Buffer((8,), "bfloat16"), E: T.Buffer((8,), "uint8")):
        for i in range(8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = E[vi] > T.uint8(3)
    ''')


@probe("buffer_alloc_forms_in_blocks")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8,), "float32")):
        B = T.sblock_alloc_buffer((8,), "float32")
        C = T.sblock_alloc_buffer((8,), "float16", scope="shared")
        D = T.sblock_alloc_buffer((8,), "float32", scope="local", align=64)
        E = T.sblock_alloc_buffer((8, 8), "float32", strides=(16, 1))
        for i in range(8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi]
                C[vi] = T.Cast("float16", B[vi])
                D[vi] = B[vi]
                E[vi, 0] = D[vi]
    ''')


@probe("buffer_alloc_offset_factor_quirk")
def _():
    # offset_factor on an allocated buffer creates an elem_offset var nobody defines
    return src('''
    @T.prim_func(s_tir=True, check_well_formed=False)
    def main(A: T.Buffer((8,), "float32")):
        D = T.sblock_alloc_buffer((8,), "float32", offset_factor=4)
        for i in range(8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                D[vi] = A[vi]
    ''')


@probe("buffer_alloc_forms_lowlevel")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((64,), "float32")):
        B = T.alloc_buffer((64,), "float32", scope="local")
        C = T.alloc_buffer((8, 8), "float16", scope="shared")
        C2 = T.alloc_buffer((8,), "float32", scope="shared.dyn")
        D = T.decl_buffer((8, 8), "float32", data=A.data)
        E = T.decl_buffer((16,), "float32", data=A.data, elem_offset=16)
        F = T.alloc_buffer((4,), "int32")
        G = T.decl_buffer((4,), "int32")
        H = T.alloc_buffer((4,), "float32", scope="global")
        B[0] = A[0]
        C[0, 0] = T.Cast("float16", D[0, 0] + E[0])
        C2[0] = T.float32(0)
        F[0] = G[0]
        H[0] = T.float32(1)
    ''')


# ============================================================ func_attr

@probe("func_attr_values")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4,), "float32")):
        T.func_attr({"zzz": 1, "tirx.noalias": True, "tir.noalias": True, "aaa": False,
                     "neg": -1, "f": 0.5, "s": "hello \\"w\\"", "l": [1, 2, "x"],
                     "d": {"b": {"c": [True]}, "a": "x"}, "i64": T.int64(5), "big": 12345678901})
        A[0] = T.float32(0)
    ''')


@probe("func_attr_target")
def _():
    f = src('''
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(0)
    ''')
    t = tvm.target.Target({"kind": "cuda", "arch": "sm_80"}, host={"kind": "llvm"})
    return mod_of(f.with_attr("target", t))


# ============================================================ literals

@probe("literals")
def _():
    return src('''
    @T.prim_func
    def main(F: T.Buffer((32,), "float32"), H: T.Buffer((4,), "float16"), D: T.Buffer((4,), "float64"),
             I: T.Buffer((8,), "int64"), U: T.Buffer((4,), "uint8"), B: T.Buffer((4,), "bool"),
             BF: T.Buffer((4,), "bfloat16"), I8: T.Buffer((4,), "int8"), I32: T.Buffer((8,), "int32")):
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
        F[10] = T.float32(1e+16)
        F[11] = T.float32(1e+15)
        F[12] = T.float32(0.0001)
        F[13] = T.float32(1.5e-7)
        F[14] = T.float32(100)
        F[15] = T.float32(2.0) * F[0]
        H[0] = T.float16(65504)
        H[1] = T.float16(0.1)
        D[0] = T.float64(0.1)
        D[1] = T.float64(1e-300)
        I[0] = T.int64(-1)
        I[1] = T.int64(9223372036854775807)
        I[2] = T.int64(0)
        I[3] = I[0] + T.int64(1)
        U[0] = T.uint8(255)
        B[0] = T.bool(True)
        B[1] = False
        B[2] = T.bool(False) or B[0]
        BF[0] = T.bfloat16(1.5)
        I8[0] = T.int8(-128)
        I32[0] = -5
        I32[1] = 2147483647
        I32[2] = I32[0] * -3 + -4
        I32[3] = 0 - I32[0]
        I32[4] = -I32[0]
    ''')


@probe("float_formatting_float32_rounding")
def _():
    # te constants: float32 values print with 17 significant digits of the double
    x = te.placeholder((4,), name="x")
    y = te.compute((4,), lambda i: x[i] * 1e-5 + 0.1 + 1.0 / 3.0 + tirx.max_value("float32") + tirx.min_value("float32"), name="y")
    return mod_of(te.create_prim_func([x, y]))


@probe("strings")
def _():
    b = tirx.decl_buffer((4,), "int32", "A")
    vals = ["plain", "it's", 'say "hi"', "back\\slash", "new\nline", "tab\there", "unicode é", ""]
    body = tirx.SeqStmt([tirx.Evaluate(tirx.call_extern("int32", "f", tvm.ir.StringImm(v))) for v in vals])
    f = tirx.PrimFunc([], body)
    print("## strings:", vals)
    return mod_of(f)


# ============================================================ expressions

@probe("precedence_int")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((16,), "int32"), i: T.int32, j: T.int32, k: T.int32):
        A[0] = i - (j - k)
        A[1] = (i - j) - k
        A[2] = i // j // k
        A[3] = i // (j // k)
        A[4] = (i + j) * k
        A[5] = i + j * k
        A[6] = i * (j * k)
        A[7] = (i * j) % k
        A[8] = i % (j * k)
        A[9] = -(i + j)
        A[10] = i * -1
        A[11] = (i < j) + 1
        A[12] = T.Cast("int32", i < j) + T.Cast("int32", (i + j) * k < 3)
        A[13] = T.truncdiv(i, j) + T.truncmod(i, j) + T.floordiv(i, j) + T.floormod(i, j)
        A[14] = T.Div(i, j) + T.Mod(i, j)
        A[15] = T.min(i, j) + T.max(i - 1, j * 2)
    ''')


@probe("precedence_bool_and_bitwise")
def _():
    return src('''
    @T.prim_func
    def main(B: T.Buffer((8,), "bool"), A: T.Buffer((8,), "int32"), i: T.int32, j: T.int32):
        B[0] = i < j and j < 10 or i == 3
        B[1] = i < j and (j < 10 or i == 3)
        B[2] = not (i < j)
        B[3] = not B[0] and B[1]
        B[4] = (i < j) == (j < i)
        B[5] = i != j
        A[0] = i & j | i ^ j
        A[1] = (i | j) & (i ^ j)
        A[2] = i << 2 >> 1
        A[3] = ~i + (i >> 2)
        A[4] = T.bitwise_and(i, j) + T.shift_left(i, 1)
    ''')


@probe("float_ops_and_math")
def _():
    return src('''
    @T.prim_func
    def main(F: T.Buffer((8,), "float32"), x: T.float32, y: T.float32):
        F[0] = x / y / (x / y)
        F[1] = x - (y - x)
        F[2] = -x
        F[3] = T.fabs(x) + T.abs(y) + T.exp(x) + T.sqrt(y) + T.tanh(x) + T.log(y)
        F[4] = T.pow(x, y) + T.floor(x) + T.ceil(y) + T.round(x) + T.sigmoid(y) + T.erf(x)
        F[5] = T.if_then_else(x < y, x, y) + T.Select(x < y, x, y)
        F[6] = T.max(x, y) * T.min(x, T.float32(0))
        F[7] = T.Cast("float32", T.Cast("int32", x) // 2) + T.reinterpret("float32", T.reinterpret("int32", y))
    ''')


@probe("abs_of_int_is_select")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((2,), "float32"), i: T.int32, x: T.float32):
        A[0] = T.Cast("float32", T.abs(i))
        A[1] = T.abs(x)
    ''')


@probe("vector_exprs_and_lets")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
        for i in range(16):
            B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + T.Broadcast(T.float32(1), 4)
            B[i * 4:i * 4 + 4] = T.Shuffle([A[T.Ramp(i * 4, 1, 4)]], [3, 2, 1, 0])
            B[T.Ramp(i, 16, 4)] = T.Broadcast(A[i], 4)
        x = T.int32()
        B[0] = T.Let(T.Cast("float32", x * x), where={x: n + 1})
        y: T.int32 = n * 2
        z: T.let[T.int32] = n * 3
        B[1] = T.Cast("float32", y + z)
    ''')


@probe("calls")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), n: T.int32):
        T.evaluate(T.call_extern("int32", "f", n))
        T.evaluate(T.call_pure_extern("float32", "g", A[0]))
        T.call_packed("my.func", A.data, n)
        T.evaluate(T.call_intrin("int32", "tirx.popcount", n))
        T.evaluate(T.call_llvm_pure_intrin("float32", "llvm.sqrt.f32", T.uint32(1), A[1]))
        T.evaluate(0)
        T.evaluate(n + 1)
        T.tvm_storage_sync("shared")
        A[2] = T.call_extern("float32", "cosf", A[3])
        A[3] = T.likely(n > 0) and T.isnan(A[0])
    ''')


# ============================================================ blocks

@probe("root_block_rules")
def _():
    return src('''
    @I.ir_module
    class Module:
        @T.prim_func(s_tir=True)
        def implicit_root(A: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.sblock("a"):
                    vi = T.axis.spatial(4, i)
                    A[vi] = T.float32(0)
        @T.prim_func(s_tir=True)
        def root_with_alloc(A: T.Buffer((4,), "float32")):
            B = T.sblock_alloc_buffer((4,))
            for i in range(4):
                with T.sblock("a"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi]
                    A[vi] = B[vi]
        @T.prim_func(s_tir=True)
        def root_with_attr(A: T.Buffer((4,), "float32")):
            with T.sblock("root"):
                T.sblock_attr({"k": 1})
                for i in range(4):
                    with T.sblock("a"):
                        vi = T.axis.spatial(4, i)
                        A[vi] = T.float32(0)
        @T.prim_func(s_tir=True)
        def root_named_otherwise(A: T.Buffer((4,), "float32")):
            with T.sblock("top"):
                for i in range(4):
                    with T.sblock("a"):
                        vi = T.axis.spatial(4, i)
                        A[vi] = T.float32(0)
        @T.prim_func(s_tir=True)
        def root_only_opaque_child(A: T.Buffer((4,), "float32")):
            with T.sblock("root"):
                with T.sblock("opaque"):
                    A[0] = T.float32(0)
        @T.prim_func(s_tir=True)
        def no_root_block(A: T.Buffer((4,), "float32")):
            for i in range(4):
                A[i] = T.float32(0)
    ''')


@probe("axis_remap_rules")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("trivial_SS"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, j)
                A[vi, vj] = T.float32(0)
        for i, k in T.grid(16, 16):
            with T.sblock("trivial_SR"):
                vi = T.axis.spatial(16, i)
                vk = T.axis.reduce(16, k)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
        for i, j in T.grid(16, 16):
            with T.sblock("swapped_order"):
                vj = T.axis.spatial(16, j)
                vi = T.axis.spatial(16, i)
                A[vi, vj] = T.float32(1)
        for i, j in T.grid(16, 8):
            with T.sblock("extent_differs"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, j)
                A[vi, vj] = T.float32(2)
        for i, j in T.grid(4, 16):
            with T.sblock("mixed"):
                vi = T.axis.spatial(16, i * 4)
                vj = T.axis.spatial(16, j)
                vk = T.axis.spatial(16, j)
                A[vi, vj] = A[vi, vk]
        for i, j in T.grid(16, 16):
            with T.sblock("interleaved"):
                vi = T.axis.spatial(16, i)
                vx = T.axis.spatial(16, 3)
                vj = T.axis.spatial(16, j)
                A[vi, vj] = A[vx, vj]
        for i in range(16):
            with T.sblock("opaque_and_scan"):
                vi = T.axis.opaque(16, i)
                A[vi, 0] = T.float32(3)
        for i in range(16):
            with T.sblock("scan"):
                vi = T.axis.scan(16, i)
                A[vi, 1] = T.float32(3)
    ''')


@probe("block_field_order")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        for io, k in T.grid(4, 16):
            with T.sblock("outer"):
                vio, vk = T.axis.remap("SR", [io, k])
                T.where(io < 3)
                T.reads(A[vio * 4:vio * 4 + 4, vk])
                T.writes(B[vio * 4:vio * 4 + 4])
                T.sblock_attr({"z": 1, "a": "x"})
                Tmp = T.sblock_alloc_buffer((4,), "float32", scope="local")
                Asub = T.match_buffer(A[vio * 4:vio * 4 + 4, vk], (4, 1), "float32", offset_factor=1)
                Bsub = T.match_buffer(B[vio * 4:vio * 4 + 4], (4,))
                with T.init():
                    for ii in range(4):
                        Bsub[ii] = T.float32(0)
                for ii in range(4):
                    Tmp[ii] = Asub[ii, 0]
                    Bsub[ii] = Bsub[ii] + Tmp[ii]
    ''')


@probe("block_reads_writes_inferred_vs_explicit")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("inferred"):
                vi = T.axis.spatial(16, i)
                A[vi] = A[vi] + T.float32(1)
        for i in range(16):
            with T.sblock("explicit_empty"):
                vi = T.axis.spatial(16, i)
                T.reads()
                T.writes()
                T.evaluate(0)
        for i in range(16):
            with T.sblock("explicit_whole"):
                vi = T.axis.spatial(16, i)
                T.reads(A[0:16])
                T.writes(A[vi])
                A[vi] = A[15 - vi]
    ''')


# ============================================================ loops

@probe("loop_kinds")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 64), "float32"), n: T.int32):
        for i in T.serial(4):
            for j in T.serial(0, 4):
                for k in T.serial(2, 6):
                    for l in range(1, 5):
                        A[i, j * 16 + k * 4 + l] = T.float32(0)
        for i in T.parallel(4):
            for j in T.vectorized(4):
                for k in T.unroll(4):
                    for l in T.thread_binding(4, thread="threadIdx.x"):
                        A[i, j * 16 + k * 4 + l] = T.float32(1)
        for i in T.serial(4, annotations={"a": 1, "b": [1, 2]}):
            for j in T.parallel(4, annotations={"pragma_x": "y"}):
                for k in T.thread_binding(2, 6, thread="blockIdx.x", annotations={"q": 1}):
                    A[i, j * 16 + k] = T.float32(2)
        for i in range(n):
            for j in range(T.int64(4)):
                for k in range(T.int64(1), T.int64(3)):
                    A[i, T.Cast("int32", j * T.int64(2) + k)] = T.float32(3)
    ''')


@probe("grid_merging")
def _():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4, 4, 4), "float32")):
        for i, j, k, l in T.grid(4, 4, 4, 4):
            A[i, j, k, l] = T.float32(0)
        for i, j in T.grid(4, 4):
            for k in range(1, 4):
                for l in range(4):
                    A[i, j, k, l] = T.float32(1)
        for i in range(4):
            A[i, 0, 0, 0] = T.float32(2)
            for j, k in T.grid(4, 4):
                A[i, j, k, 0] = T.float32(3)
        for i in range(4):
            for j in T.serial(4, annotations={"a": 1}):
                for k in range(4):
                    A[i, j, k, 1] = T.float32(4)
        for i in range(4):
            for j in T.parallel(4):
                for k in T.parallel(4):
                    A[i, j, k, 2] = T.float32(5)
        for i in range(4):
            for j in range(i):
                A[i, j, 0, 3] = T.float32(6)
        for i in range(T.int64(4)):
            for j in range(4):
                A[T.Cast("int32", i), j, 0, 3] = T.float32(7)
    ''')


# ============================================================ symbolic vars

@probe("symbolic_int32_te")
def _():
    n = te.var("n")
    m = te.var("m")
    a = te.placeholder((n, m), name="A")
    b = te.placeholder((m, 4), name="B")
    c = te.compute((n, 4), lambda i, j: a[i, 0] + b[0, j], name="C")
    return mod_of(te.create_prim_func([a, b, c]))


@probe("symbolic_int64_te_typevar")
def _():
    n = te.var("n", "int64")
    a = te.placeholder((n, tirx.IntImm("int64", 4)), name="A")
    b = te.compute(a.shape, lambda i, j: a[i, j] * 2.0, name="B")
    return mod_of(te.create_prim_func([a, b]))


@probe("symbolic_int32_handle_params")
def _():
    return src('''
    @T.prim_func
    def main(a: T.handle, n: T.int32):
        m = T.int32()
        A = T.match_buffer(a, (n, m), "float32")
        for i, j in T.grid(n, m):
            A[i, j] = T.float32(0)
    ''')


@probe("ssa_var_renaming")
def _():
    i1 = tirx.Var("i", "int32")
    i2 = tirx.Var("i", "int32")
    i3 = tirx.Var("i", "int32")
    a = tirx.decl_buffer((8,), "float32", "A")
    a2 = tirx.decl_buffer((8,), "float32", "A")
    body = tirx.SeqStmt([
        tirx.For(i1, 0, 8, tirx.ForKind.SERIAL, tirx.BufferStore(a, tirx.const(0.0, "float32"), [i1])),
        tirx.For(i2, 0, 8, tirx.ForKind.SERIAL,
                 tirx.For(i3, 0, 8, tirx.ForKind.SERIAL, tirx.BufferStore(a2, tirx.const(1.0, "float32"), [i2 + i3 - i3]))),
    ])
    f = tirx.PrimFunc([a, a2], body)
    print("## two buffers named A, three loop vars named i (two nested)")
    return mod_of(f)


# ============================================================ low-level statements

@probe("lowlevel_statements")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), n: T.int32):
        x: T.int32 = n * 2
        assert n > 0, "n must be positive"
        assert n < 64, ("ValueError", ["n=", "too large"])
        with T.attr(A.data, "storage_alignment", 64):
            with T.attr(0, "pragma_import_c", "int foo();"):
                for i in range(x):
                    A[i] = T.float32(0)
        i = T.alloc_buffer((1,), "int32", scope="local")
        i[0] = 0
        while i[0] < n:
            i[0] = i[0] + 1
        if n == 0:
            A[1] = T.float32(2)
        elif n == 1:
            A[1] = T.float32(3)
        else:
            A[1] = T.float32(4)
        if n > 5:
            A[2] = T.float32(5)
    ''')


@probe("launch_thread_forms")
def _():
    return src('''
    @I.ir_module
    class Module:
        @T.prim_func
        def nested(A: T.Buffer((1024,), "float32")):
            bx = T.launch_thread("blockIdx.x", 8)
            tx = T.launch_thread("threadIdx.x", 128)
            A[bx * 128 + tx] = T.float32(0)
        @T.prim_func
        def sequential(A: T.Buffer((1024,), "float32")):
            with T.launch_thread("blockIdx.x", 8) as bx:
                A[bx] = T.float32(0)
            with T.launch_thread("blockIdx.x", 8) as bx2:
                A[bx2 + 8] = T.float32(1)
        @T.prim_func
        def env_thread(A: T.Buffer((128,), "float32")):
            tx = T.env_thread("threadIdx.x")
            with T.launch_thread(tx, 128):
                A[tx] = T.float32(1)
    ''')


@probe("return_and_scalar_func")
def _():
    return src('''
    @T.prim_func(private=True)
    def main(a: T.int32, b: T.float32) -> T.int32:
        if a > 0:
            return a
        return T.Cast("int32", b)
    ''')


@probe("scalar_buffers_print_as_names")
def _():
    # shape-(1,) buffers with the default layout (non-s_tir functions) print
    # loads/stores as the bare name; the index is dropped even when not 0
    return src('''
    @I.ir_module
    class Module:
        @T.prim_func
        def plain(A: T.Buffer((8,), "float32"), S: T.Buffer((1,), "float32"), i: T.int32):
            acc = T.alloc_buffer((1,), "float32", scope="local")
            acc[0] = T.float32(0)
            for k in range(8):
                acc[0] = acc[0] + A[k]
            S[0] = acc[0]
            S[i] = S[0] + T.float32(1)
            sh = T.alloc_buffer((1,), "int32", scope="shared")
            g = T.alloc_buffer((1,), "int32")
            sh[0] = g[0]
        @T.prim_func(s_tir=True)
        def s_tir_func(A: T.Buffer((8,), "float32"), S: T.Buffer((1,), "float32")):
            for k in range(8):
                with T.sblock("acc"):
                    vk = T.axis.reduce(8, k)
                    with T.init():
                        S[0] = T.float32(0)
                    S[0] = S[0] + A[vk]
    ''')


@probe("loop_step_and_unroll_sugar")
def _():
    return src('''
    @T.prim_func
    def main(A: T.Buffer((64,), "float32")):
        for i in range(0, 64, 2):
            A[i] = T.float32(0)
        for i in T.serial(8, annotations={"disable_unroll": True}):
            A[i] = T.float32(1)
        for i in T.serial(8, annotations={"pragma_unroll": True}):
            A[i] = T.float32(2)
        for i in T.parallel(0, 64, step=4):
            A[i] = T.float32(3)
    ''')


@probe("names_clashing_with_prefixes")
def _():
    a = tirx.decl_buffer((4,), "float32", "T")
    b = tirx.decl_buffer((4,), "float32", "I")
    c = tirx.decl_buffer((4,), "float32", "range")
    d = tirx.decl_buffer((4,), "float32", "a.b-c")
    i = tirx.Var("T", "int32")
    body = tirx.For(i, 0, 4, tirx.ForKind.SERIAL,
                    tirx.BufferStore(a, tirx.BufferLoad(b, [i]) + tirx.BufferLoad(c, [i]) + tirx.BufferLoad(d, [i]), [i]))
    return mod_of(tirx.PrimFunc([a, b, c, d], body))


@probe("long_line_no_wrap")
def _():
    terms = " + ".join(f"A[{i}]" for i in range(120))
    return src(f'''
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), B: T.Buffer((1,), "float32")):
        B[0] = {terms}
    ''')


# ============================================================ lowering outputs

@probe("lowered_stages_small")
def _():
    from tvm_common import LOWER_STAGES, lower_to
    a = te.placeholder((16,), name="A")
    b = te.compute((16,), lambda i: te.exp(a[i]) * 2.0, name="B")
    f = te.create_prim_func([a, b])
    sch = s_tir.Schedule(f)
    (i,) = sch.get_loops(sch.get_sblock("B"))
    i0, i1 = sch.split(i, [None, 4])
    sch.vectorize(i1)
    for st in ("opaque", "flat", "vec", "opt"):
        print(f"## stage {st}")
        print(lower_to(sch.mod, "cpu", LOWER_STAGES[st]).script())
    print("## stage packed (CPU, full s_tir pipeline)")
    return lower_to(sch.mod, "cpu", LOWER_STAGES["packed"])


@probe("lowered_gpu_kernel")
def _():
    from tvm_common import LOWER_STAGES, lower_to
    a = te.placeholder((1024,), name="A")
    b = te.compute((1024,), lambda i: a[i] + 1.0, name="B")
    sch = s_tir.Schedule(te.create_prim_func([a, b]))
    (i,) = sch.get_loops(sch.get_sblock("B"))
    bx, tx = sch.split(i, [None, 128])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    print("## stage opt")
    print(lower_to(sch.mod, "gpu", LOWER_STAGES["opt"]).script())
    print("## after SplitHostDevice (device function only)")
    m = lower_to(sch.mod, "gpu", "SplitHostDevice")
    return tvm.IRModule({"main_kernel": m["main_kernel"]})


# ============================================================ traces

def trace_of(build, prims):
    sch = s_tir.Schedule(build())
    prims(sch)
    return str(sch.trace)


def mm():
    return te.create_prim_func(W.matmul(64, 64, 64))


def mmrelu():
    return te.create_prim_func(W.matmul_relu(64, 64, 64))


def conv():
    return te.create_prim_func(W.conv2d_nhwc(1, 8, 8, 16, 16, 3, 1, 1))


def ewise():
    a = te.placeholder((16, 16), name="A")
    b = te.compute((16, 16), lambda i, j: a[i, j] * 2.0, name="B")
    c = te.compute((16, 16), lambda i, j: b[i, j] + 1.0, name="C")
    return te.create_prim_func([a, c])


def inplace():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                A[vi] = A[vi] + T.float32(1)
    ''')


def indexed():
    return src('''
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi * 3 + 1]
    ''')


def trace_probe(label, build, fn):
    try:
        print(f"## {label}")
        print(trace_of(build, fn))
    except Exception as e:  # noqa: BLE001
        print(f"## {label}: {type(e).__name__}: {str(e).splitlines()[-1][:200]}")


@probe("trace_all_primitives")
def _():
    def loops(sch, name="C"):
        return sch.get_loops(sch.get_sblock(name))

    trace_probe("getters", mmrelu, lambda s: (s.get_child_blocks(s.get_sblock("root")), s.get_producers(s.get_sblock("compute")),
                                              s.get_consumers(s.get_sblock("C")), s.get_output_blocks(s.get_sblock("root")),
                                              s.get_child_blocks(loops(s)[0])))
    trace_probe("split/fuse/reorder/add_unit_loop", mm, lambda s: (
        s.split(loops(s)[0], [None, 8]), s.split(loops(s)[-1], [2, 4, None], preserve_unit_iters=False, disable_predication=True),
        s.fuse(*loops(s)[1:3]), s.reorder(*reversed(loops(s)[:2])), s.add_unit_loop(s.get_sblock("C"))))
    trace_probe("loop_partition", mm, lambda s: s.loop_partition(loops(s)[0], [None, 8]))
    trace_probe("parallel/vectorize/unroll/bind", mm, lambda s: (
        s.parallel(loops(s)[0]), s.vectorize(loops(s)[1]), s.unroll(loops(s)[2])))
    trace_probe("bind", mm, lambda s: (s.bind(loops(s)[0], "blockIdx.x"), s.bind(loops(s)[1], "threadIdx.x")))
    trace_probe("cache_read/cache_write", mm, lambda s: (
        s.cache_read(s.get_sblock("C"), 0, "shared"), s.cache_write(s.get_sblock("C"), 0, "local"),
        s.cache_read(s.get_sblock("C"), 1, "shared", consumer_blocks=[s.get_sblock("C")])))
    trace_probe("reindex_cache_read/write", mm, lambda s: (
        s.reindex_cache_read(s.get_sblock("C"), 0, "shared", lambda i, j, k: (i, k)),
        s.reindex_cache_write(s.get_sblock("C"), 0, "local", lambda i, j, k: (j, i))))
    trace_probe("cache_inplace", inplace, lambda s: s.cache_inplace(s.get_sblock("B"), 0, "local"))
    trace_probe("cache_index", indexed, lambda s: s.cache_index(s.get_sblock("B"), "global"))
    trace_probe("reindex", mm, lambda s: s.reindex(s.get_sblock("C"), ("write", 0)))
    trace_probe("compute_at/reverse_compute_at", mmrelu, lambda s: (
        s.compute_at(s.get_sblock("C"), loops(s, "compute")[0]),))
    trace_probe("reverse_compute_at", mmrelu, lambda s: (
        s.reverse_compute_at(s.get_sblock("compute"), loops(s)[0], preserve_unit_loops=True),))
    trace_probe("compute_inline/reverse_compute_inline", conv, lambda s: (
        s.compute_inline(s.get_sblock("PadInput")),))
    trace_probe("reverse_compute_inline", ewise, lambda s: (
        s.reverse_compute_inline(s.get_sblock("C")),))
    trace_probe("decompose_reduction", mm, lambda s: s.decompose_reduction(s.get_sblock("C"), loops(s)[2]))
    trace_probe("rfactor", mm, lambda s: s.rfactor(s.split(loops(s)[2], [None, 4])[1], 0))
    trace_probe("storage_align/set_scope", mm, lambda s: (
        s.storage_align(s.cache_read(s.get_sblock("C"), 0, "shared"), 0, axis=-2, factor=32, offset=1),
        s.set_scope(s.get_sblock("A_shared"), 0, "shared.dyn")))
    trace_probe("unsafe_set_dtype", mmrelu, lambda s: s.unsafe_set_dtype(s.get_sblock("C"), 0, "float16"))
    trace_probe("blockize", mm, lambda s: s.blockize(s.split(loops(s)[2], [None, 4])[1]))
    trace_probe("annotate/unannotate", mm, lambda s: (
        s.annotate(s.get_sblock("C"), "i", 1), s.annotate(s.get_sblock("C"), "s", "x"),
        s.annotate(loops(s)[0], "f", 0.5), s.annotate(loops(s)[0], "b", True), s.annotate(loops(s)[0], "l", [1, "x", 2.5]),
        s.annotate(loops(s)[0], "d", {"k": "v", "n": 1}), s.annotate(loops(s)[0], "e", tirx.IntImm("int64", 3)),
        s.unannotate(s.get_sblock("C"), "i")))
    trace_probe("transform_layout", mm, lambda s: s.transform_layout(s.get_sblock("C"), ("write", 0), lambda i, j: (j // 4, i, j % 4)))
    trace_probe("transform_layout(pad_value)", mm, lambda s: s.transform_layout(s.get_sblock("C"), ("read", 0), lambda i, j: (i // 3, i % 3, j), pad_value=0.0))
    trace_probe("transform_block_layout", mm, lambda s: s.transform_block_layout(s.get_sblock("C"), lambda i, j, k: (j, i, k)))
    trace_probe("decompose_padding", conv, lambda s: s.decompose_padding(s.get_sblock("PadInput"), s.get_loops(s.get_sblock("PadInput"))[0]))
    trace_probe("pad_einsum", lambda: te.create_prim_func(W.matmul(60, 60, 60)), lambda s: s.pad_einsum(s.get_sblock("C"), [64, 64, 64]))
    trace_probe("sample_perfect_tile/sample_categorical/sample_compute_location", mm, lambda s: (
        s.split(loops(s)[0], s.sample_perfect_tile(loops(s)[0], n=2, max_innermost_factor=16, decision=[8, 8])),
        s.sample_categorical([1, 2, 4], [0.25, 0.25, 0.5], decision=2),
        s.sample_compute_location(s.get_sblock("C"), decision=-1)))
    trace_probe("sample_partitioned_tile", mm, lambda s: s.sample_partitioned_tile(loops(s)[0], n=3, partition_pos=1, innerpart_factor=2, decision=[2, 4, 8]))
    trace_probe("split with ExprRV factors", mm, lambda s: s.split(loops(s)[0], [None, s.sample_categorical([2, 4], [0.5, 0.5], decision=1)]))
    trace_probe("enter_postproc", mm, lambda s: (s.enter_postproc(), s.parallel(loops(s)[0])))
    trace_probe("merge", lambda: te.create_prim_func(W.softmax_mn(16, 16)), lambda s: s.merge(
        s.get_loops(s.get_sblock("T_softmax_exp"))[0], s.get_loops(s.get_sblock("T_softmax_norm"))[0]))
    trace_probe("reorder_block_iter_var", mm, lambda s: s.reorder_block_iter_var(s.get_sblock("C"), [2, 1, 0]))
    trace_probe("unsafe_hide_buffer_access", mm, lambda s: s.unsafe_hide_buffer_access(s.get_sblock("C"), "read", [0]))
    trace_probe("annotate_buffer_access", mm, lambda s: s.annotate_buffer_access(s.get_sblock("C"), 0, "read", lambda i, j, k: (i, i + 1, k, k + 1)))
    trace_probe("read_at/write_at", mm, lambda s: s.read_at(loops(s)[0], s.get_sblock("C"), 0, "shared"))
    trace_probe("fuse_reduction_epilogue", mmrelu, lambda s: s.fuse_reduction_epilogue(s.get_sblock("C"), s.get_sblock("compute")))
    trace_probe("get_sblock(func_name=)", mm, lambda s: s.get_sblock("C", func_name="main"))
    return None


def main(argv) -> int:
    wanted = argv[1:]
    for name, fn in PROBES:
        if wanted and not any(w in name for w in wanted):
            continue
        print("=" * 78)
        print(f"# PROBE {name}")
        try:
            obj = fn()
        except Exception:  # noqa: BLE001
            print("## probe raised:")
            lines = [l for l in traceback.format_exc().splitlines() if l.strip()]
            err = [l for l in lines if "error:" in l or "Error:" in l]
            print((err[-1] if err else lines[-1]).strip()[:300])
            continue
        if obj is None:
            continue
        print(obj.script())
        print(f"## -> {roundtrip_status(obj)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
