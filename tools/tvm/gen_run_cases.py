"""Generate tirc's numeric golden kernels (tests/run/) with Apache TVM 0.27.

For every case: a te workload, optionally scheduled with TVM's s_tir
primitives, is

* lowered by TVM's own pipeline up to CommonSubexprElim (the "opt" stage of
  tests/roundtrip/tvm/lowered_cpu_*_opt.tir) and printed to
  tests/run/<case>.tir, the lowered TIR tirc's LLVM backend consumes;
* compiled with `tvm.compile(..., target="llvm")` and run on the inputs tirc
  makes itself (`Tensor::random(dtype, shape, seed + position)`, SplitMix64,
  reproduced below), its outputs saved as tests/run/<case>.tvm/<param>.npy.

Cases with symbolic shapes also get their inputs in tests/run/<case>.inputs/.
The Rust test (compiler/tests/golden/run.rs) JIT-runs every file, compares it
with tirc's interpreter, and with TVM's outputs where present. Run:

    tools/tvm/python tools/tvm/gen_run_cases.py
"""

from __future__ import annotations

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import REPO, lower_to, write_text  # noqa: E402

import numpy as np  # noqa: E402
import tvm  # noqa: E402
from tvm import s_tir, te, tirx, topi  # noqa: E402
from tvm.s_tir.meta_schedule.testing import te_workload as W  # noqa: E402

OUT = os.path.join(REPO, "tests", "run")
SEED = 0
MASK = (1 << 64) - 1


# ----------------------------------------------------------------- tirc's random inputs

def splitmix_stream(seed: int, count: int) -> np.ndarray:
    """The first `count` outputs of tirc's SeededRandom(seed), as uint64."""
    gamma = 0x9E3779B97F4A7C15
    with np.errstate(over="ignore"):
        steps = np.arange(1, count + 1, dtype=np.uint64)
        z = np.uint64(seed & MASK) + steps * np.uint64(gamma)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def tirc_random(dtype: str, shape, seed: int) -> np.ndarray:
    """What `Tensor::random(dtype, shape, seed)` makes."""
    count = int(np.prod(shape)) if len(shape) else 1
    bits = splitmix_stream(seed, count)
    if dtype == "bool":
        values = (bits & np.uint64(1)).astype(bool)
    elif dtype.startswith("int"):
        values = (bits % np.uint64(16)).astype(np.int64) - 8
        values = values.astype(dtype)
    elif dtype.startswith("uint"):
        values = (bits % np.uint64(16)).astype(dtype)
    else:
        unit = (bits >> np.uint64(11)).astype(np.float64) / float(1 << 52) - 1.0
        values = unit.astype(dtype)
    return values.reshape(shape)


# ----------------------------------------------------------------- workloads

def func_of(tensors):
    return te.create_prim_func(list(tensors))


def ewise_add(n=1024, dtype="float32"):
    A = te.placeholder((n,), dtype, name="A")
    B = te.placeholder((n,), dtype, name="B")
    return func_of([A, B, te.compute((n,), lambda i: A[i] + B[i], name="C")])


def ewise_chain(m=64, n=128):
    A = te.placeholder((m, n), "float32", name="A")
    B = te.placeholder((m, n), "float32", name="B")
    T1 = te.compute((m, n), lambda i, j: A[i, j] * B[i, j], name="T_mul")
    T2 = te.compute((m, n), lambda i, j: T1[i, j] + tirx.const(0.5, "float32"), name="T_add")
    T3 = te.compute((m, n), lambda i, j: te.max(T2[i, j], tirx.const(0, "float32")), name="T_relu")
    return func_of([A, B, T3])


def ewise_int8(n=512):
    A = te.placeholder((n,), "int8", name="A")
    B = te.placeholder((n,), "int8", name="B")
    C = te.compute((n,), lambda i: (A[i] * B[i] + A[i]).astype("int32") * 3, name="C")
    return func_of([A, B, C])


def ewise_int64_index(n=300):
    A = te.placeholder((tirx.const(n, "int64"),), "float32", name="A")
    B = te.compute((tirx.const(n, "int64"),), lambda i: A[i] * A[i] - A[i], name="B")
    return func_of([A, B])


def broadcast_add(m=32, n=64):
    A = te.placeholder((m, n), "float32", name="A")
    b = te.placeholder((n,), "float32", name="b")
    return func_of([A, b, te.compute((m, n), lambda i, j: A[i, j] + b[j], name="C")])


def bias_nchw(n=1, c=16, h=14, w=14):
    X = te.placeholder((n, c, h, w), "float32", name="X")
    bias = te.placeholder((c,), "float32", name="bias")
    Y = te.compute((n, c, h, w), lambda a, b, y, x: X[a, b, y, x] + bias[b], name="Y")
    return func_of([X, bias, Y])


def reduce_rows(m=64, n=200, op="sum"):
    A = te.placeholder((m, n), "float32", name="A")
    k = te.reduce_axis((0, n), name="k")
    if op == "sum":
        B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="B")
    else:
        B = te.compute((m,), lambda i: te.max(A[i, k], axis=k), name="B")
    return func_of([A, B])


def reduce_cols_max(m=100, n=48):
    A = te.placeholder((m, n), "float32", name="A")
    k = te.reduce_axis((0, m), name="k")
    return func_of([A, te.compute((n,), lambda j: te.max(A[k, j], axis=k), name="B")])


def transpose2d(m=48, n=80):
    A = te.placeholder((m, n), "float32", name="A")
    return func_of([A, te.compute((n, m), lambda i, j: A[j, i], name="B")])


def transpose4d():
    A = te.placeholder((2, 3, 8, 16), "float32", name="A")
    return func_of([A, topi.transpose(A, (0, 2, 3, 1))])


def math_chain(n=256):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]) + te.sqrt(te.abs(A[i])) + te.tanh(A[i]) + te.sigmoid(A[i]) + te.log(te.abs(A[i]) + tirx.const(1, "float32")), name="B")
    return func_of([A, B])


def pad_if_then_else(n=30):
    A = te.placeholder((n, n), "float32", name="A")
    B = te.compute((n + 4, n + 4), lambda i, j: tirx.if_then_else(
        tirx.all(i >= 2, i < n + 2, j >= 2, j < n + 2), A[i - 2, j - 2], tirx.const(0, "float32")), name="B")
    return func_of([A, B])


def select_where(n=128):
    A = te.placeholder((n,), "float32", name="A")
    B = te.placeholder((n,), "float32", name="B")
    C = te.compute((n,), lambda i: tirx.Select(A[i] > B[i], A[i] - B[i], B[i] * tirx.const(2, "float32")), name="C")
    return func_of([A, B, C])


def casts(n=200):
    A = te.placeholder((n,), "float32", name="A")
    I = te.placeholder((n,), "int32", name="I")
    C = te.compute((n,), lambda i: (A[i] * tirx.const(100, "float32")).astype("int32").astype("float32")
                   + A[i].astype("float16").astype("float32") + I[i].astype("float32"), name="C")
    return func_of([A, I, C])


def floordiv_reshape():
    A = te.placeholder((6, 20), "float32", name="A")
    B = te.compute((4, 30), lambda i, j: A[(i * 30 + j) // 20, (i * 30 + j) % 20] * tirx.const(2, "float32"), name="B")
    return func_of([A, B])


def ewise_f16(n=512):
    A = te.placeholder((n,), "float16", name="A")
    B = te.placeholder((n,), "float16", name="B")
    C = te.compute((n,), lambda i: A[i] * B[i] + A[i], name="C")
    return func_of([A, B, C])


def matmul_f16_acc32(n=64):
    A = te.placeholder((n, n), "float16", name="A")
    B = te.placeholder((n, n), "float16", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k].astype("float32") * B[k, j].astype("float32"), axis=k), name="C")
    return func_of([A, B, C])


def matmul_int8(n=64):
    A = te.placeholder((n, n), "int8", name="A")
    B = te.placeholder((n, n), "int8", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k].astype("int32") * B[k, j].astype("int32"), axis=k), name="C")
    return func_of([A, B, C])


def matmul_symbolic(dtype="int32"):
    n = te.var("n", dtype)
    k128 = tirx.const(128, dtype)
    A = te.placeholder((n, k128), "float32", name="A")
    B = te.placeholder((k128, k128), "float32", name="B")
    k = te.reduce_axis((tirx.const(0, dtype), k128), name="k")
    C = te.compute((n, k128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return func_of([A, B, C])


def avg_pool2d():
    X = te.placeholder((1, 8, 16, 16), "float32", name="X")
    return func_of([X, topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "avg", layout="NCHW")])


def argmax_rows():
    A = te.placeholder((32, 50), "float32", name="A")
    return func_of([A, topi.argmax(A, axis=1)])


def layer_norm(m=32, n=64):
    X = te.placeholder((m, n), "float32", name="X")
    gamma = te.placeholder((n,), "float32", name="gamma")
    beta = te.placeholder((n,), "float32", name="beta")
    return func_of([X, gamma, beta, topi.nn.layer_norm(X, gamma, beta, axis=[1], epsilon=1e-5)])


def softmax(m=64, n=128):
    A = te.placeholder((m, n), "float32", name="A")
    return func_of([A, topi.nn.softmax(A, axis=1)])


def cumsum_rows():
    A = te.placeholder((16, 40), "float32", name="A")
    return func_of([A, topi.cumsum(A, axis=1)])


# ----------------------------------------------------------------- schedules

def sched_tile_matmul(sch, tile_i=8, tile_j=16, vectorize=True, parallel=True, unroll=False):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    io, ii = sch.split(i, factors=[None, tile_i])
    jo, ji = sch.split(j, factors=[None, tile_j])
    sch.reorder(io, jo, k, ii, ji)
    if vectorize:
        sch.vectorize(ji)
    if unroll:
        sch.unroll(ii)
    if parallel:
        sch.parallel(io)


def sched_matmul_cache_write(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, k, ii, ji)
    cw = sch.cache_write(b, 0, "local")
    sch.reverse_compute_at(cw, jo)
    sch.decompose_reduction(b, k)
    sch.vectorize(ji)
    sch.parallel(io)


def sched_matmul_rfactor(sch):
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    ko, ki = sch.split(k, factors=[None, 4])
    sch.rfactor(ki, 0)


def sched_batch_matmul(sch):
    b = sch.get_sblock("C")
    loops = sch.get_loops(b)
    bt, i, j, k = loops
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(bt, i, jo, k, ji)
    sch.vectorize(ji)
    fused = sch.fuse(bt, i)
    sch.parallel(fused)


def sched_conv_nchw(sch):
    b = sch.get_sblock("conv2d_nchw")
    n, f, y, x, rc, ry, rx = sch.get_loops(b)
    xo, xi = sch.split(x, factors=[None, 8])
    sch.reorder(n, f, y, xo, rc, ry, rx, xi)
    sch.vectorize(xi)
    sch.parallel(sch.fuse(n, f))
    pad = sch.get_sblock("pad_temp")
    sch.compute_inline(pad)


def sched_conv_nhwc(sch):
    b = sch.get_sblock("conv2d_nhwc")
    n, h, w, co, rh, rw, rc = sch.get_loops(b)
    coo, coi = sch.split(co, factors=[None, 16])
    sch.reorder(n, h, w, coo, rh, rw, rc, coi)
    sch.vectorize(coi)
    sch.parallel(h)
    pad = sch.get_sblock("PadInput")
    sch.compute_at(pad, w)


def sched_softmax(sch):
    for name in ("T_softmax_maxelem", "T_softmax_expsum"):
        b = sch.get_sblock(name)
        sch.parallel(sch.get_loops(b)[0])
    for name in ("T_softmax_exp", "T_softmax_norm"):
        b = sch.get_sblock(name)
        i, j = sch.get_loops(b)
        jo, ji = sch.split(j, factors=[None, 16])
        sch.vectorize(ji)
        sch.parallel(i)


def sched_layer_norm(sch):
    for block in sch.get_child_blocks(sch.get_sblock("root")):
        loops = sch.get_loops(block)
        sch.parallel(loops[0])


def sched_ewise_parallel_vector(sch):
    block = sch.get_child_blocks(sch.get_sblock("root"))[-1]
    loops = sch.get_loops(block)
    fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
    o, i = sch.split(fused, factors=[None, 16])
    sch.vectorize(i)
    sch.parallel(o)


def sched_inline_chain(sch):
    for name in ("T_mul", "T_add"):
        sch.compute_inline(sch.get_sblock(name))
    sched_ewise_parallel_vector(sch)


def sched_reduce_rows(sch):
    b = sch.get_sblock("B")
    i, k = sch.get_loops(b)
    sch.parallel(i)
    sch.unroll(sch.split(k, factors=[None, 8])[1])


def sched_transpose_tile(sch):
    b = sch.get_sblock("B")
    i, j = sch.get_loops(b)
    io, ii = sch.split(i, factors=[None, 8])
    jo, ji = sch.split(j, factors=[None, 8])
    sch.reorder(io, jo, ii, ji)
    sch.parallel(io)


def sched_depthwise(sch):
    b = sch.get_sblock("depth_conv2d_nhwc")
    loops = sch.get_loops(b)
    sch.vectorize(sch.split(loops[3], factors=[None, 8])[1])
    sch.parallel(loops[1])


def sched_pool(sch):
    b = sch.get_sblock("pool_max")
    loops = sch.get_loops(b)
    sch.parallel(loops[1])


CASES = [
    # (name, function builder, schedule or None)
    ("ewise_add_f32", lambda: ewise_add(1000), None),
    ("ewise_add_f32_vec_par", lambda: ewise_add(1024), sched_ewise_parallel_vector),
    ("ewise_chain_relu", ewise_chain, None),
    ("ewise_chain_relu_inlined", ewise_chain, sched_inline_chain),
    ("ewise_f16", ewise_f16, None),
    ("ewise_f16_vec", ewise_f16, sched_ewise_parallel_vector),
    ("ewise_int8_to_int32", ewise_int8, None),
    ("ewise_int64_index", ewise_int64_index, None),
    ("ewise_math", math_chain, None),
    ("ewise_math_vec", math_chain, sched_ewise_parallel_vector),
    ("ewise_select", select_where, None),
    ("ewise_casts", casts, None),
    ("broadcast_row", broadcast_add, None),
    ("broadcast_bias_nchw", bias_nchw, sched_ewise_parallel_vector),
    ("pad_if_then_else", pad_if_then_else, None),
    ("reshape_floordiv", floordiv_reshape, None),
    ("reduce_sum_rows", reduce_rows, None),
    ("reduce_sum_rows_par_unroll", reduce_rows, sched_reduce_rows),
    ("reduce_max_rows", lambda: reduce_rows(op="max"), None),
    ("reduce_max_cols", reduce_cols_max, None),
    ("argmax_rows", argmax_rows, None),
    ("cumsum_rows", cumsum_rows, None),
    ("transpose_2d", transpose2d, None),
    ("transpose_2d_tiled", transpose2d, sched_transpose_tile),
    ("transpose_4d", transpose4d, None),
    ("matmul_128", lambda: func_of(W.matmul(128, 128, 128)), None),
    ("matmul_128_tiled", lambda: func_of(W.matmul(128, 128, 128)), sched_tile_matmul),
    ("matmul_128_tiled_unrolled", lambda: func_of(W.matmul(128, 128, 128)), lambda s: sched_tile_matmul(s, 4, 32, True, True, True)),
    ("matmul_128_cache_write", lambda: func_of(W.matmul(128, 128, 128)), sched_matmul_cache_write),
    ("matmul_64_rfactor", lambda: func_of(W.matmul(64, 64, 64)), sched_matmul_rfactor),
    ("matmul_100x77x33", lambda: func_of(W.matmul(100, 77, 33)), None),
    ("matmul_100x77x33_tiled", lambda: func_of(W.matmul(100, 77, 33)), lambda s: sched_tile_matmul(s, 8, 16, False, True)),
    ("matmul_relu", lambda: func_of(W.matmul_relu(64, 64, 64)), None),
    ("matmul_f16_acc_f32", matmul_f16_acc32, None),
    ("matmul_int8_acc_int32", matmul_int8, None),
    ("matmul_symbolic_n_i32", lambda: matmul_symbolic("int32"), None),
    ("matmul_symbolic_n_i64", lambda: matmul_symbolic("int64"), None),
    ("batch_matmul", lambda: func_of(W.batch_matmul_nkkm(4, 64, 32, 64)), None),
    ("batch_matmul_scheduled", lambda: func_of(W.batch_matmul_nkkm(4, 64, 32, 64)), sched_batch_matmul),
    ("conv2d_nchw", lambda: func_of(W.conv2d_nchw(1, 14, 14, 16, 32, 3, 3, 1, 1)), None),
    ("conv2d_nchw_scheduled", lambda: func_of(W.conv2d_nchw(1, 14, 14, 16, 32, 3, 3, 1, 1)), sched_conv_nchw),
    ("conv2d_nhwc", lambda: func_of(W.conv2d_nhwc(1, 14, 14, 16, 32, 3, 1, 1)), None),
    ("conv2d_nhwc_scheduled", lambda: func_of(W.conv2d_nhwc(1, 14, 14, 16, 32, 3, 1, 1)), sched_conv_nhwc),
    ("conv1d_nlc", lambda: func_of(W.conv1d_nlc(1, 32, 16, 32, 3, 1, 1)), None),
    ("depthwise_conv2d_nhwc", lambda: func_of(W.depthwise_conv2d_nhwc(1, 14, 14, 32, 3, 1, 1)), None),
    ("depthwise_conv2d_nhwc_scheduled", lambda: func_of(W.depthwise_conv2d_nhwc(1, 14, 14, 32, 3, 1, 1)), sched_depthwise),
    ("max_pool2d", lambda: func_of(W.max_pool2d_nchw(1, 28, 28, 16, 1)), None),
    ("max_pool2d_parallel", lambda: func_of(W.max_pool2d_nchw(1, 28, 28, 16, 1)), sched_pool),
    ("avg_pool2d", avg_pool2d, None),
    ("softmax", softmax, None),
    ("softmax_par_vec", softmax, sched_softmax),
    ("layer_norm", layer_norm, None),
    ("layer_norm_parallel", layer_norm, sched_layer_norm),
]

SYMBOLIC_BINDINGS = {"n": 48}


def concrete_shape(buffer):
    shape = []
    for extent in buffer.shape:
        if isinstance(extent, tirx.IntImm):
            shape.append(int(extent.value))
        else:
            shape.append(SYMBOLIC_BINDINGS[str(extent)])
    return tuple(shape)


def main() -> int:
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    made, skipped = 0, []
    for name, build, schedule in CASES:
        func = build()
        try:
            if schedule is not None:
                sch = s_tir.Schedule(func)
                schedule(sch)
                mod = sch.mod
            else:
                mod = tvm.IRModule({"main": func})
            lowered = lower_to(mod, "cpu", "CommonSubexprElim")
            text = lowered.script()
            lib = tvm.compile(mod, target="llvm")
        except Exception as error:  # noqa: BLE001  (a refused schedule drops the case)
            skipped.append(f"{name}: {str(error).strip().splitlines()[-1][:200]}")
            continue
        prim = mod["main"]
        symbolic = any(not isinstance(e, tirx.IntImm) for p in prim.params for e in p.shape)
        arrays = []
        for position, param in enumerate(prim.params):
            buffer = param
            arrays.append(tirc_random(str(buffer.dtype), concrete_shape(buffer), SEED + position))
        if symbolic:
            inputs_dir = os.path.join(OUT, name + ".inputs")
            os.makedirs(inputs_dir)
            for param, array in zip(prim.params, arrays):
                np.save(os.path.join(inputs_dir, param.name + ".npy"), array)
        dev = tvm.cpu()
        tensors = [tvm.runtime.tensor(a, dev) for a in arrays]
        lib["main"](*tensors)
        expected_dir = os.path.join(OUT, name + ".tvm")
        os.makedirs(expected_dir)
        # te puts outputs last; save every parameter TVM's function wrote.
        for param, before, after in zip(prim.params, arrays, tensors):
            result = after.numpy()
            if not np.array_equal(result, before, equal_nan=True) or param == prim.params[-1]:
                np.save(os.path.join(expected_dir, param.name + ".npy"), result)
        write_text(os.path.join(OUT, name + ".tir"), text + "\n")
        made += 1
    print(f"{made} cases written to {os.path.relpath(OUT, REPO)}")
    for line in skipped:
        print("skipped", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
