#!/usr/bin/env python3
"""Generate the TVM 0.27 round-trip corpus: tests/roundtrip/tvm/*.tir.

Each file is exactly `mod.script()` of an IRModule as Apache TVM 0.27 prints it
(dialect tirx; no trailing newline is added).  Scheduled variants also get their
schedule as TVM prints it (`print(sch.trace)`) in tests/tvm/schedule_traces/NAME.py.

Files whose text TVM 0.27 cannot parse back to a structurally equal module are
written to tests/roundtrip/tvm/noparse/ instead (they are still what TVM prints,
so tirc must read them, but they are not round-trip material for TVM itself).

Run:  tools/tvm/python tools/tvm/gen_roundtrip_corpus.py
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import (  # noqa: E402
    LOWER_STAGES,
    REPO,
    clean_dir,
    lower_to,
    registered_intrinsics,
    structural_equal,
    write_text,
)

import tvm  # noqa: E402
from tvm import s_tir, te, tirx, topi  # noqa: E402
from tvm.s_tir.meta_schedule.testing import te_workload as W  # noqa: E402

import handwritten  # noqa: E402
import schedules  # noqa: E402

OUT = os.path.join(REPO, "tests", "roundtrip", "tvm")
NOPARSE = os.path.join(OUT, "noparse")
TRACES = os.path.join(REPO, "tests", "tvm", "schedule_traces")

CORPUS: dict[str, tuple[str, tvm.IRModule, str]] = {}  # name -> (category, module, text)
TRACE_TEXT: dict[str, str] = {}
TRACE_INPUT: dict[str, tirx.PrimFunc] = {}  # the function each trace starts from
SKIPPED: list[str] = []


def as_module(x) -> tvm.IRModule:
    if isinstance(x, tvm.IRModule):
        return x
    assert isinstance(x, tirx.PrimFunc), type(x)
    gs = x.attrs.get("global_symbol", None) if x.attrs is not None else None
    return tvm.IRModule({str(gs) if gs is not None else "main": x})


def add(category: str, name: str, x) -> None:
    if name in CORPUS:
        raise KeyError("duplicate corpus name " + name)
    mod = as_module(x)
    # print now: later steps (schedules, passes) must not be able to change it
    CORPUS[name] = (category, mod, mod.script())


def skip(name: str, err: BaseException) -> None:
    msg = str(err).strip().splitlines()
    SKIPPED.append(f"{name}: {type(err).__name__}: {msg[-1] if msg else ''}"[:200])


# ----------------------------------------------------------------- te workloads

DT_F16 = ("float16", "float32")
DT_F16F16 = ("float16", "float16")
DT_I8 = ("int8", "int32")

# (short name, workload fn, [shape args...], takes dtypes)
WORKLOADS = [
    ("matmul", W.matmul, [(128, 128, 128), (1024, 1024, 1024), (100, 77, 33)], True),
    ("matmul_relu", W.matmul_relu, [(64, 64, 64), (512, 256, 128)], True),
    ("batch_matmul_nkkm", W.batch_matmul_nkkm, [(1, 128, 128, 128), (4, 64, 32, 64)], True),
    ("conv1d_nlc", W.conv1d_nlc, [(1, 64, 32, 64, 3, 2, 1), (1, 32, 64, 64, 3, 1, 1, 1, 4)], True),
    ("conv2d_nhwc", W.conv2d_nhwc, [(1, 14, 14, 64, 64, 3, 1, 1), (1, 56, 56, 64, 64, 1, 1, 0),
                                     (1, 14, 14, 64, 64, 3, 1, 1, 1, 4), (1, 14, 14, 32, 32, 3, 1, 1, 2)], True),
    ("conv3d_ndhwc", W.conv3d_ndhwc, [(1, 8, 14, 14, 16, 16, 3, 1, 1), (1, 4, 7, 7, 32, 32, 1, 1, 0)], True),
    ("depthwise_conv2d_nhwc", W.depthwise_conv2d_nhwc, [(1, 28, 28, 32, 3, 1, 1), (1, 14, 14, 64, 3, 2, 1)], True),
    ("conv2d_transpose_nhwc", W.conv2d_transpose_nhwc, [(1, 4, 4, 64, 32, 4, 2, 1), (1, 8, 8, 32, 16, 4, 2, 1)], True),
    ("conv2d_capsule_nhwijc", W.conv2d_capsule_nhwijc, [(1, 8, 8, 16, 16, 3, 2, 1), (1, 4, 4, 8, 8, 3, 1, 1)], True),
    ("norm_bmn", W.norm_bmn, [(1, 256, 256), (4, 64, 128)], False),
    ("conv2d_nhwc_bn_relu", W.conv2d_nhwc_bn_relu, [(1, 14, 14, 32, 32, 3, 1, 1), (1, 28, 28, 16, 32, 1, 2, 0)], True),
    ("transpose_batch_matmul", W.transpose_batch_matmul, [(1, 128, 12, 64), (2, 64, 8, 32)], True),
    ("matmul_sym", None, [], False),  # placeholder, handled in misc
    ("conv2d_nchw", W.conv2d_nchw, [(1, 14, 14, 32, 32, 3, 3, 1, 1), (1, 28, 28, 16, 16, 3, 3, 2, 1, 2)], True),
    ("conv2d_nchw_bias_bn_relu", W.conv2d_nchw_bias_bn_relu, [(1, 14, 14, 32, 32, 3, 3, 1, 1), (1, 7, 7, 64, 64, 1, 1, 1, 0)], True),
    ("max_pool2d_nchw", W.max_pool2d_nchw, [(1, 28, 28, 16, 1), (2, 14, 14, 8, 0)], False),
    ("softmax", W.softmax_mn, [(256, 256), (1024, 77)], False),
]
WORKLOADS = [w for w in WORKLOADS if w[1] is not None]


def shape_tag(args) -> str:
    return "x".join(str(a) for a in args)


def te_func(fn, args, dtypes=None):
    if dtypes is None:
        tensors = fn(*args)
    else:
        tensors = fn(*args, in_dtype=dtypes[0], out_dtype=dtypes[1])
    return te.create_prim_func(list(tensors))


def gen_te_workloads():
    for short, fn, shapes, has_dt in WORKLOADS:
        for k, args in enumerate(shapes):
            name = f"te_{short}_{shape_tag(args)}"
            try:
                add("te", name, te_func(fn, args))
            except Exception as e:  # noqa: BLE001
                skip(name, e)
            if has_dt and k == 0:
                for tag, dt in (("f16f32", DT_F16), ("f16", DT_F16F16), ("i8i32", DT_I8)):
                    if tag == "f16" and short not in ("matmul", "batch_matmul_nkkm", "conv2d_nhwc"):
                        continue
                    nm = f"{name}_{tag}"
                    try:
                        add("te", nm, te_func(fn, args, dt))
                    except Exception as e:  # noqa: BLE001
                        skip(nm, e)
    # conv2d_winograd_nhwc raises "LEGACY-FLOW triggered, to be removed" in 0.27
    try:
        add("te", "te_conv2d_winograd_nhwc", W.create_te_workload("C2D_WIN_NHWC", 0))
    except Exception as e:  # noqa: BLE001
        skip("te_conv2d_winograd_nhwc", e)
    # conv2d_nhwc_without_layout_rewrite takes tensors
    inp = te.placeholder((1, 14, 14, 32), name="data")
    flt = te.placeholder((3, 3, 32, 16), name="kernel")
    add("te", "te_conv2d_nhwc_without_layout_rewrite_14x14x32x16",
        te.create_prim_func([inp, flt, W.conv2d_nhwc_without_layout_rewrite(inp, flt, 1, 1, 1)]))
    # a few topi operators the meta-schedule workloads miss
    x = te.placeholder((4, 64, 16, 16), name="x")
    add("te", "te_topi_avg_pool2d_nchw",
        te.create_prim_func([x, topi.nn.pool2d(x, [3, 3], [2, 2], [1, 1], [1, 1, 1, 1], "avg")]))
    y = te.placeholder((8, 256), name="y")
    g = te.placeholder((256,), name="gamma")
    bt = te.placeholder((256,), name="beta")
    add("te", "te_topi_layer_norm", te.create_prim_func([y, g, bt, topi.nn.layer_norm(y, g, bt, axis=[1], epsilon=1e-5)]))
    add("te", "te_topi_relu", te.create_prim_func([y, topi.nn.relu(y)]))
    add("te", "te_topi_log_softmax", te.create_prim_func([y, topi.nn.log_softmax(y)]))
    add("te", "te_topi_transpose", te.create_prim_func([x, topi.transpose(x, (0, 2, 3, 1))]))
    add("te", "te_topi_reshape", te.create_prim_func([x, topi.reshape(x, (4, 64, 256))]))
    add("te", "te_topi_concat", te.create_prim_func([y, g, topi.concatenate([y, topi.reshape(g, (1, 256))], 0)]))
    add("te", "te_topi_strided_slice", te.create_prim_func([x, topi.strided_slice(x, [0, 1, 2, 3], [4, 64, 16, 16], [1, 2, 3, 1])]))
    add("te", "te_topi_argmax", te.create_prim_func([y, topi.argmax(y, axis=1)]))
    add("te", "te_topi_cumsum", te.create_prim_func([y, topi.cumsum(y, axis=1)]))
    add("te", "te_topi_sum_keepdims", te.create_prim_func([x, topi.sum(x, axis=[2, 3], keepdims=True)]))
    add("te", "te_topi_broadcast_add", te.create_prim_func([y, g, topi.add(y, g)]))
    add("te", "te_topi_gelu_erf", te.create_prim_func([y, topi.multiply(y, topi.erf(y))]))
    yb = te.placeholder((8, 256), name="yb", dtype="bfloat16")
    add("te", "te_topi_cast_bf16_f32", te.create_prim_func([yb, topi.cast(yb, "float32")]))


# ----------------------------------------------------------------- misc te

def gen_te_misc():
    # symbolic shapes, int32 and int64
    n = te.var("n")
    add("te", "te_matmul_sym_n_i32", te_func(W.matmul, (n, 128, 128)))
    add("te", "te_matmul_sym_nmk_i32", te_func(W.matmul, (n, te.var("m"), te.var("k"))))
    n64 = te.var("n", "int64")
    add("te", "te_matmul_sym_n_i64", te_func(W.matmul, (n64, tirx.IntImm("int64", 128), tirx.IntImm("int64", 128))))
    add("te", "te_softmax_sym_n_i32", te_func(W.softmax_mn, (n, 64)))
    add("te", "te_softmax_sym_n_i64", te_func(W.softmax_mn, (n64, tirx.IntImm("int64", 64))))
    i64 = lambda v: tirx.IntImm("int64", v)  # noqa: E731
    add("te", "te_matmul_i64_128", te_func(W.matmul, (i64(128), i64(128), i64(128))))
    add("te", "te_conv2d_nchw_i64", te_func(W.conv2d_nchw, (i64(1), i64(14), i64(14), i64(16), i64(16), 3, 3, 1, 1)))
    a = te.placeholder((n, 64), name="A")
    add("te", "te_sym_add_one_i32", te.create_prim_func([a, te.compute((n, 64), lambda i, j: a[i, j] + 1.0, name="B")]))
    a = te.placeholder((n64, i64(64)), name="A")
    add("te", "te_sym_add_one_i64", te.create_prim_func([a, te.compute((n64, i64(64)), lambda i, j: a[i, j] + 1.0, name="B")]))
    # dtypes
    for dt in ("float16", "bfloat16", "int8", "uint8", "int16", "int64", "float64", "uint32"):
        a = te.placeholder((16, 32), name="A", dtype=dt)
        b = te.placeholder((16, 32), name="B", dtype=dt)
        add("te", f"te_ewise_add_{dt}", te.create_prim_func([a, b, te.compute((16, 32), lambda i, j: a[i, j] + b[i, j], name="C")]))
    a = te.placeholder((16, 32), name="A")
    add("te", "te_ewise_cmp_bool", te.create_prim_func([a, te.compute((16, 32), lambda i, j: a[i, j] > 0.5, name="C")]))
    bm = te.placeholder((16, 32), name="M", dtype="bool")
    add("te", "te_ewise_masked_select", te.create_prim_func([a, bm, te.compute((16, 32), lambda i, j: tirx.Select(bm[i, j], a[i, j], tirx.const(0, "float32")), name="C")]))
    av = te.placeholder((8, 4), name="A", dtype="float32x4")
    add("te", "te_ewise_vector_f32x4", te.create_prim_func([av, te.compute((8, 4), lambda i, j: av[i, j] * av[i, j] + av[i, j], name="B")]))
    au = te.placeholder((64,), name="A", dtype="uint8")
    add("te", "te_cast_u8_f32_scale", te.create_prim_func([au, te.compute((64,), lambda i: au[i].astype("float32") * 0.0078125 - 1.0, name="B")]))
    add("te", "te_bitwise_u8", te.create_prim_func([au, te.compute((64,), lambda i: (au[i] >> 4) | ((au[i] & tirx.const(15, "uint8")) << 4) ^ tirx.const(255, "uint8"), name="B")]))
    ai = te.placeholder((64,), name="A", dtype="int32")
    add("te", "te_int_div_mod", te.create_prim_func([ai, te.compute((64,), lambda i: tirx.truncdiv(ai[i], 3) + tirx.floordiv(ai[i], 5) + tirx.truncmod(ai[i], 7) + tirx.floormod(ai[i], 9) + ai[i] // 2 + ai[i] % 4, name="B")]))
    # math calls
    x = te.placeholder((32, 32), name="X")
    add("te", "te_math_unary", te.create_prim_func([x, te.compute((32, 32), lambda i, j: te.exp(x[i, j]) + te.sqrt(te.abs(x[i, j])) + te.tanh(x[i, j]) + te.log(x[i, j] + 2.0) + te.sigmoid(x[i, j]) + te.erf(x[i, j]), name="Y")]))
    add("te", "te_math_fabs_floor_ceil", te.create_prim_func([x, te.compute((32, 32), lambda i, j: tirx.abs(x[i, j]) + tirx.abs(i - j) + te.floor(x[i, j]) + te.ceil(x[i, j]) + te.round(x[i, j]) + te.trunc(x[i, j]) + te.power(x[i, j], 2.0), name="Y")]))
    add("te", "te_math_minmax_clip", te.create_prim_func([x, te.compute((32, 32), lambda i, j: te.max(te.min(x[i, j], tirx.const(6, "float32")), tirx.const(0, "float32")), name="Y")]))
    add("te", "te_math_if_then_else", te.create_prim_func([x, te.compute((32, 32), lambda i, j: tirx.if_then_else(tirx.all(i > 0, j < 31), x[i - 1, j + 1], tirx.const(-1.5, "float32")), name="Y")]))
    add("te", "te_math_literals", te.create_prim_func([x, te.compute((32, 32), lambda i, j: x[i, j] * 1e-05 + 3.4028234663852886e+38 * tirx.const(0.0, "float32") - 0.1 + tirx.max_value("float32") * 0 + tirx.min_value("float32") * 0, name="Y")]))
    add("te", "te_math_inf_nan", te.create_prim_func([x, te.compute((32, 32), lambda i, j: te.max(x[i, j], tirx.const(float("-inf"), "float32")) + tirx.const(float("nan"), "float32") * 0 + tirx.const(float("inf"), "float32"), name="Y")]))
    add("te", "te_math_cast_chain", te.create_prim_func([x, te.compute((32, 32), lambda i, j: ((x[i, j].astype("float16") + tirx.const(1, "float16")).astype("int32") * 3).astype("float32"), name="Y")]))
    # reductions with custom combiners
    y = te.placeholder((32, 64), name="Y")
    k = te.reduce_axis((0, 64), name="k")
    add("te", "te_reduce_max", te.create_prim_func([y, te.compute((32,), lambda i: te.max(y[i, k], axis=k), name="M")]))
    k = te.reduce_axis((0, 64), name="k")
    add("te", "te_reduce_min_where", te.create_prim_func([y, te.compute((32,), lambda i: te.min(y[i, k], axis=k, where=k % 2 == 0), name="M")]))
    k = te.reduce_axis((0, 64), name="k")
    prod = te.comm_reducer(lambda a, b: a * b, lambda t: tirx.const(1, t), name="prod")
    add("te", "te_reduce_prod_commreducer", te.create_prim_func([y, te.compute((32,), lambda i: prod(y[i, k], axis=k), name="P")]))
    k = te.reduce_axis((0, 64), name="k")
    argmax = te.comm_reducer(
        lambda x, y: (tirx.Select(x[1] >= y[1], x[0], y[0]), tirx.Select(x[1] >= y[1], x[1], y[1])),
        lambda t0, t1: (tirx.const(-1, t0), tirx.min_value(t1)), name="argmax")
    idx = te.placeholder((32, 64), name="I", dtype="int32")
    r = te.compute((32,), lambda i: argmax((idx[i, k], y[i, k]), axis=k), name="AM")
    add("te", "te_reduce_argmax_tuple", te.create_prim_func([idx, y, r[0], r[1]]))
    # multiple outputs / extern-free multi stage
    a = te.placeholder((64, 64), name="A")
    b1 = te.compute((64, 64), lambda i, j: a[i, j] * 2.0, name="B1")
    b2 = te.compute((64, 64), lambda i, j: b1[j, i] + 1.0, name="B2")
    b3 = te.compute((64, 64), lambda i, j: te.max(b2[i, j], b1[i, j]), name="B3")
    add("te", "te_chain_3_blocks", te.create_prim_func([a, b3]))


# ----------------------------------------------------------------- intrinsics

def gen_intrinsics():
    for name, desc, impl in registered_intrinsics():
        for part, f in (("desc", desc), ("impl", impl)):
            nm = f"intrin_{name.rstrip('_')}_{part}"
            try:
                add("intrin", nm, f)
            except Exception as e:  # noqa: BLE001
                skip(nm, e)


# ----------------------------------------------------------------- scheduled

# which recipes for which workload (first shape, float32)
SCHED_PLAN = {
    "matmul": ["tile", "tile_nondiv", "rfactor", "decompose", "unroll_annot", "blockize", "reorder",
               "align", "layout", "cachewrite", "gpu_bind", "gpu_allreduce", "gpu_shared", "gpu_shared_vthread"],
    "matmul_relu": ["tile", "inline", "computeat", "parvec", "gpu_shared"],
    "batch_matmul_nkkm": ["tile", "gpu_shared", "rfactor", "cachewrite", "gpu_shared_vthread"],
    "conv1d_nlc": ["tile", "inline", "computeat", "gpu_bind"],
    "conv2d_nhwc": ["tile", "tile_nondiv", "inline", "computeat", "gpu_shared", "decompose", "blockize", "cachewrite"],
    "conv3d_ndhwc": ["tile", "inline"],
    "depthwise_conv2d_nhwc": ["tile", "inline", "gpu_bind", "rfactor"],
    "conv2d_transpose_nhwc": ["inline", "tile"],
    "conv2d_capsule_nhwijc": ["tile", "inline"],
    "norm_bmn": ["rfactor", "parvec", "gpu_allreduce", "decompose", "computeat"],
    "conv2d_nhwc_bn_relu": ["inline", "computeat", "gpu_bind", "tile"],
    "transpose_batch_matmul": ["inline", "tile", "gpu_shared", "computeat"],
    "conv2d_nchw": ["tile", "inline", "gpu_shared", "unroll_annot"],
    "conv2d_nchw_bias_bn_relu": ["inline", "parvec", "gpu_bind", "computeat"],
    "max_pool2d_nchw": ["inline", "parvec", "gpu_bind", "tile_nondiv"],
    "softmax": ["parvec", "gpu_allreduce", "gpu_bind", "rfactor", "computeat", "decompose", "unroll_annot"],
}

def gen_scheduled():
    wl = {w[0]: w for w in WORKLOADS}
    for short, recipes in SCHED_PLAN.items():
        _, fn, shapes, _ = wl[short]
        for rec in recipes:
            name = f"sched_{short}_{rec}"
            # A fresh function every time: TVM 0.27's Schedule can modify the
            # PrimFunc it was given in place (seen with softmax), so reusing one
            # te function across recipes would leak earlier schedules.
            func = te_func(fn, shapes[0])
            sch = s_tir.Schedule(te_func(fn, shapes[0]))
            try:
                schedules.RECIPES[rec](sch)
            except Exception as e:  # noqa: BLE001  (a rejected primitive drops the variant)
                skip(name, e)
                continue
            add("sched", name, sch.mod)
            TRACE_TEXT[name] = str(sch.trace)
            TRACE_INPUT[name] = func
    gen_tensorize()


def gen_tensorize():
    """tensorize segfaults in TVM 0.27 (any intrinsic, loop or block form, see
    tools/tvm/NOTES.md), so we only record the inputs one would tensorize: a
    u8 x i8 -> i32 matmul with VNNI-packed weights, a hand-registered 4x4x4
    intrinsic, and the matmul blockized to the 4x4x4 tile it would match."""
    m, n, k = 64, 64, 64
    X = te.placeholder((m, k), name="X", dtype="uint8")
    PW = te.placeholder((n // 16, k // 4, 16, 4), name="packed_W", dtype="int8")
    ak = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(
        X[i, ak].astype("int32") * PW[j // 16, ak // 4, j % 16, ak % 4].astype("int32"), axis=ak), name="compute")
    func = te.create_prim_func([X, PW, C])
    add("te", "te_matmul_u8s8s32_packed_vnni", func)
    sch = s_tir.Schedule(te.create_prim_func([X, PW, C]))
    try:
        b = sch.get_sblock("compute")
        i, j, kk = sch.get_loops(b)
        jo, ji = sch.split(j, factors=[None, 16])
        ko, ki = sch.split(kk, factors=[None, 4])
        sch.reorder(i, jo, ko, ji, ki)
        sch.decompose_reduction(b, ko)
        sch.blockize(ji)
        add("sched", "sched_matmul_u8s8s32_vnni_blockize", sch.mod)
        TRACE_TEXT["sched_matmul_u8s8s32_vnni_blockize"] = str(sch.trace)
        TRACE_INPUT["sched_matmul_u8s8s32_vnni_blockize"] = func
    except Exception as e:  # noqa: BLE001
        skip("sched_matmul_u8s8s32_vnni_blockize", e)

    add("intrin", "intrin_corpus_mm4x4x4_f32_desc", handwritten.mm4_desc)
    add("intrin", "intrin_corpus_mm4x4x4_f32_impl", handwritten.mm4_impl)
    func = te_func(W.matmul, (64, 64, 64))
    sch = s_tir.Schedule(te_func(W.matmul, (64, 64, 64)))
    try:
        b = sch.get_sblock("C")
        i, j, kk = sch.get_loops(b)
        io, ii = sch.split(i, factors=[None, 4])
        jo, ji = sch.split(j, factors=[None, 4])
        ko, ki = sch.split(kk, factors=[None, 4])
        sch.reorder(io, jo, ko, ii, ji, ki)
        sch.decompose_reduction(b, ko)
        sch.blockize(ii)
        add("sched", "sched_matmul_blockize_4x4x4", sch.mod)
        TRACE_TEXT["sched_matmul_blockize_4x4x4"] = str(sch.trace)
        TRACE_INPUT["sched_matmul_blockize_4x4x4"] = func
    except Exception as e:  # noqa: BLE001
        skip("sched_matmul_blockize_4x4x4", e)


# ----------------------------------------------------------------- lowered

CPU_LOWER = [
    # (source name, stages)
    ("te_matmul_128x128x128", ["opaque", "flat", "vec", "opt"]),
    ("sched_matmul_tile", ["opaque", "flat", "vec", "opt"]),
    ("sched_matmul_tile_nondiv", ["flat", "vec", "opt"]),
    ("sched_matmul_rfactor", ["opaque", "opt"]),
    ("sched_matmul_cachewrite", ["opaque", "flat", "opt"]),
    ("sched_matmul_unroll_annot", ["opaque", "opt"]),
    ("sched_matmul_blockize_4x4x4", ["opaque", "flat", "opt"]),
    ("sched_matmul_u8s8s32_vnni_blockize", ["flat", "opt"]),
    ("te_conv2d_nhwc_1x14x14x64x64x3x1x1", ["opaque", "flat", "opt"]),
    ("sched_conv2d_nhwc_inline", ["opaque", "opt"]),
    ("sched_conv2d_nhwc_computeat", ["opaque", "flat", "opt"]),
    ("te_softmax_256x256", ["opaque", "flat", "opt"]),
    ("sched_softmax_parvec", ["vec", "opt"]),
    ("te_max_pool2d_nchw_1x28x28x16x1", ["opaque", "opt"]),
    ("te_norm_bmn_1x256x256", ["opt"]),
    ("te_conv2d_nchw_bias_bn_relu_1x14x14x32x32x3x3x1x1", ["opaque", "opt"]),
    ("te_topi_layer_norm", ["opaque", "opt"]),
    ("te_matmul_sym_n_i32", ["opaque", "flat", "opt"]),
    ("te_matmul_sym_n_i64", ["flat", "opt"]),
    ("te_ewise_add_bfloat16", ["flat", "opt"]),
    ("te_ewise_vector_f32x4", ["opt"]),
    ("te_math_if_then_else", ["opt"]),
    ("te_reduce_argmax_tuple", ["opaque", "opt"]),
    ("te_topi_cumsum", ["opt"]),
    ("te_ewise_add_float16", ["packed", "host"]),
]

GPU_LOWER = [
    ("sched_matmul_gpu_bind", ["opaque", "flat", "opt", "packed"]),
    ("sched_matmul_gpu_shared", ["opaque", "flat", "opt", "packed"]),
    ("sched_matmul_gpu_shared_vthread", ["opaque", "opt"]),
    ("sched_matmul_gpu_allreduce", ["opaque", "opt", "packed"]),
    ("sched_softmax_gpu_allreduce", ["opaque", "opt"]),
    ("sched_softmax_gpu_bind", ["opaque", "opt"]),
    ("sched_conv2d_nhwc_gpu_shared", ["opaque", "opt"]),
    ("sched_batch_matmul_nkkm_gpu_shared", ["opt"]),
    ("sched_norm_bmn_gpu_allreduce", ["opt"]),
    ("sched_conv2d_nhwc_bn_relu_gpu_bind", ["opt"]),
]


def gen_lowered():
    for plan, kind in ((CPU_LOWER, "cpu"), (GPU_LOWER, "gpu")):
        for src, stages in plan:
            if src not in CORPUS:
                for st in stages:
                    SKIPPED.append(f"lowered_{src}: source missing")
                continue
            base = CORPUS[src][1]
            stem = src[len("sched_"):] if src.startswith("sched_") else src[len("te_"):]
            stem = ("sched_" if src.startswith("sched_") else "") + stem
            for st in stages:
                name = f"lowered_{kind}_{stem}_{st}"
                try:
                    add("lowered", name, lower_to(base, kind, LOWER_STAGES[st]))
                except Exception as e:  # noqa: BLE001
                    skip(name, e)


# ----------------------------------------------------------------- hand written

def gen_handwritten():
    for name, x in handwritten.MODULES.items():
        add("hand", "hand_" + name, x)


# ----------------------------------------------------------------- main

def check_roundtrip(mod: tvm.IRModule, text: str) -> str | None:
    try:
        back = tvm.script.from_source(text)
    except Exception as e:  # noqa: BLE001
        return "parse error: " + str(e).strip().splitlines()[-1][:160]
    if not isinstance(back, tvm.IRModule):
        back = as_module(back)
    if not structural_equal(mod, back):
        return "not structurally equal after parse"
    if back.script() != text:
        return "reprint differs"
    return None


def replay_trace(name: str) -> str | None:
    """Check that the printed trace, run as Python, reproduces the scheduled module."""
    ns = {"s_tir": s_tir}
    exec(TRACE_TEXT[name], ns)  # noqa: S102  (our own TVM-printed trace)
    sch = s_tir.Schedule(TRACE_INPUT[name])
    ns["apply_trace"](sch)
    # TRACE_INPUT[name] may now be modified in place (see gen_scheduled)
    if not structural_equal(sch.mod, CORPUS[name][1]):
        return f"{name}: replaying the printed trace gives a different module"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-write", action="store_true", help="only report")
    args = ap.parse_args()
    t0 = time.time()
    for gen in (gen_te_workloads, gen_te_misc, gen_intrinsics, gen_scheduled, gen_lowered, gen_handwritten):
        try:
            gen()
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            return 1
    if not args.no_write:
        clean_dir(OUT, (".tir",))
        clean_dir(NOPARSE, (".tir",))
        clean_dir(TRACES, (".py",))
    counts: dict[str, int] = {}
    noparse = []
    total = 0
    for name, (cat, mod, text) in sorted(CORPUS.items()):
        problem = check_roundtrip(mod, text)
        if mod.script() != text:
            problem = "TVM modified this module in place after it was printed"
        where = OUT if problem is None else NOPARSE
        if problem is not None:
            noparse.append(f"{name}: {problem}")
        counts[cat] = counts.get(cat, 0) + 1
        total += len(text.encode())
        if not args.no_write:
            write_text(os.path.join(where, name + ".tir"), text)
            if name in TRACE_TEXT:
                write_text(os.path.join(TRACES, name + ".py"), TRACE_TEXT[name] + "\n")
    print(f"{len(CORPUS)} modules, {total / 1024:.0f} KB, {time.time() - t0:.0f} s")
    print("per category: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    bad_traces = [m for m in (replay_trace(n) for n in sorted(TRACE_TEXT)) if m]
    print(f"{len(TRACE_TEXT)} traces, {len(bad_traces)} do not replay")
    for line in bad_traces:
        print("  " + line)
    print(f"{len(noparse)} do not round-trip in TVM (written to noparse/):")
    for line in noparse:
        print("  " + line)
    print(f"{len(SKIPPED)} variants skipped (a primitive or pass was rejected):")
    for line in SKIPPED:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
