#!/usr/bin/env python3
"""Generate GPU correctness cases from Apache TVM 0.27's DLight default schedules.

For every case (an operator at one shape and dtype, built with te):

tests/codegen/cuda/dlight/NAME.tir     the input module (mod.script()), a blank
                                       line, then the trace of the DLight rule
                                       exactly as print(sch.trace) gives it (the
                                       layout of tests/tvm/schedule/)
tests/codegen/cuda/dlight/NAME.tvm.cu  TVM 0.27's CUDA C for the scheduled module:
                                       tvm.compile(sch.mod, target=cuda sm_80),
                                       the CUDA module's inspect_source()

The rules are tried in DLight's default order for CUDA (that of
tvm.relax.backend.cuda.pipeline: Matmul, GEMV, Reduction, GeneralReduction,
Fallback); the first one whose apply(func, target, False) returns a Schedule
schedules the case.  The printed trace is replayed on a fresh copy of the
function and must give the same module.  A summary (rule per case, operators
no rule takes, problems) goes to stdout.

tvm.compile with a CUDA target writes CUDA source without a GPU; it needs
nothing beyond the TVM venv (NVRTC is only used when the module is loaded).

Run:  tools/tvm/python tools/tvm/gen_dlight_cases.py
      (DLight prints "Target cuda missing 'max_shared_memory_per_block'" on
      stderr for every case; the sm_80 target is left as the other generators
      pin it, so DLight assumes 49152 bytes.)
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import REPO, clean_dir, cuda_source_of, structural_equal, write_text  # noqa: E402

import tvm  # noqa: E402
from tvm import s_tir, te, tirx, topi  # noqa: E402
from tvm.s_tir import dlight as dl  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

OUT = os.path.join(REPO, "tests", "codegen", "cuda", "dlight")
TARGET = {"kind": "cuda", "arch": "sm_80"}

# DLight's default GPU rules, in the order tvm.relax.backend.cuda.pipeline applies them.
RULES = [
    ("Matmul", dl.gpu.Matmul),
    ("GEMV", dl.gpu.GEMV),
    ("Reduction", dl.gpu.Reduction),
    ("GeneralReduction", dl.gpu.GeneralReduction),
    ("Fallback", dl.gpu.Fallback),
]


# ============================================================ operators (te)

def op_softmax(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    return [A, topi.nn.softmax(A, axis=1)]


def op_log_softmax(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    return [A, topi.nn.log_softmax(A, axis=1)]


def op_layer_norm(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    gamma = te.placeholder((n,), dtype, name="gamma")
    beta = te.placeholder((n,), dtype, name="beta")
    return [A, gamma, beta, topi.nn.layer_norm(A, gamma, beta, axis=[1], epsilon=1e-5)]


def op_rms_norm(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    weight = te.placeholder((n,), dtype, name="weight")
    return [A, weight, topi.nn.rms_norm(A, weight, axis=[1], epsilon=1e-5)]


def op_row_mean(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    k = te.reduce_axis((0, n), name="k")
    S = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="S")
    B = te.compute((m,), lambda i: S[i] / tirx.const(n, dtype), name="B")
    return [A, B]


def op_l2_norm(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    k = te.reduce_axis((0, n), name="k")
    S = te.compute((m,), lambda i: te.sum(A[i, k] * A[i, k], axis=k), name="S")
    B = te.compute((m,), lambda i: te.sqrt(S[i]), name="B")
    return [A, B]


def op_gemv_bias_relu(m, n, dtype):
    W = te.placeholder((m, n), dtype, name="W")
    x = te.placeholder((n,), dtype, name="x")
    bias = te.placeholder((m,), dtype, name="bias")
    k = te.reduce_axis((0, n), name="k")
    Y = te.compute((m,), lambda i: te.sum(W[i, k] * x[k], axis=k), name="Y")
    Z = te.compute((m,), lambda i: te.max(Y[i] + bias[i], tirx.const(0, dtype)), name="Z")
    return [W, x, bias, Z]


def op_center(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    k = te.reduce_axis((0, n), name="k")
    S = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="S")
    B = te.compute((m, n), lambda i, j: A[i, j] - S[i] / tirx.const(n, dtype), name="B")
    return [A, B]


def op_absmax_scale(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    k = te.reduce_axis((0, n), name="k")
    M = te.compute((m,), lambda i: te.max(te.abs(A[i, k]), axis=k), name="M")
    B = te.compute((m, n), lambda i, j: A[i, j] / M[i], name="B")
    return [A, B]


def op_argmax(m, n, dtype):
    A = te.placeholder((m, n), dtype, name="A")
    return [A, topi.argmax(A, axis=1)]


# (op name, builder, [(rows, cols)], dtypes)
OPS = [
    ("softmax", op_softmax, [(8, 256), (8, 300), (4, 1000)], ["float32", "float16"]),
    ("log_softmax", op_log_softmax, [(8, 512), (8, 300)], ["float32"]),
    ("layer_norm", op_layer_norm, [(8, 256), (8, 300), (4, 1000)], ["float32", "float16"]),
    ("rms_norm", op_rms_norm, [(8, 512), (8, 300), (4, 1000)], ["float32", "float16"]),
    ("row_mean", op_row_mean, [(8, 256), (8, 300)], ["float32"]),
    ("l2_norm", op_l2_norm, [(8, 512), (4, 1000)], ["float32"]),
    ("gemv_bias_relu", op_gemv_bias_relu, [(256, 512), (100, 300)], ["float32", "float16"]),
    ("center", op_center, [(8, 256), (8, 300)], ["float32"]),
    ("absmax_scale", op_absmax_scale, [(8, 512), (4, 1000)], ["float32"]),
    ("argmax", op_argmax, [(8, 256), (8, 300)], ["float32"]),
]

DTYPE_TAG = {"float32": "f32", "float16": "f16"}


def cases():
    for op, build, shapes, dtypes in OPS:
        for dtype in dtypes:
            # float16 at the first and the last shape only (one power of two, one not)
            use = shapes if dtype == "float32" else [shapes[0], shapes[-1]]
            for m, n in use:
                yield f"{op}_{DTYPE_TAG[dtype]}_{m}x{n}", op, (lambda b=build, m=m, n=n, d=dtype: te.create_prim_func(b(m, n, d)))


# ============================================================ TVM

def apply_default(func, target):
    """(rule name, Schedule) of the first DLight rule that applies, or (None, None);
    also the rules that raised instead of declining."""
    errors = []
    for name, rule in RULES:
        try:
            with target:
                sch = rule().apply(func, target, False)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{name} raised {type(e).__name__}: {str(e).strip().splitlines()[-1][:160]}")
            continue
        if sch is None:
            continue
        if isinstance(sch, list):
            assert len(sch) == 1
            sch = sch[0]
        return name, sch, errors
    return None, None, errors


def main() -> int:
    target = tvm.target.Target(TARGET)
    os.makedirs(OUT, exist_ok=True)
    clean_dir(OUT, (".tir", ".tvm.cu"))
    summary, problems, refused = [], [], []
    for name, op, make in cases():
        func = make()
        mod = tvm.IRModule({"main": func})
        in_text = mod.script()
        rule, sch, errors = apply_default(make(), target)
        for e in errors:
            problems.append(f"{name}: {e}")
        if sch is None:
            refused.append(f"{name}: no DLight GPU rule applies")
            continue
        trace = str(sch.trace)
        # TVM's trace printer writes e.g. `T.int64(0)` in index maps without importing T
        ns = {"s_tir": s_tir, "T": T}
        try:
            exec(trace, ns)  # noqa: S102
            sch2 = s_tir.Schedule(tvm.IRModule({"main": make()}))
            ns["apply_trace"](sch2)
            if not structural_equal(sch2.mod, sch.mod):
                problems.append(f"{name}: replaying the printed trace gives a different module (kept)")
        except Exception as e:  # noqa: BLE001
            problems.append(f"{name}: the printed trace does not replay (kept): {type(e).__name__}: {e}")
        try:
            source = cuda_source_of(tvm.compile(sch.mod, target=target))
        except Exception as e:  # noqa: BLE001
            refused.append(f"{name}: {rule} scheduled it but tvm.compile failed: "
                           f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:200]}")
            continue
        write_text(os.path.join(OUT, name + ".tir"), in_text + "\n\n" + trace + "\n")
        write_text(os.path.join(OUT, name + ".tvm.cu"), source)
        kernels = source.count("__global__") // 2 or source.count("__global__")
        summary.append((name, rule, kernels))

    width = max(len(n) for n, _, _ in summary) if summary else 10
    print(f"{len(summary)} cases written to {os.path.relpath(OUT, REPO)}/")
    for name, rule, kernels in summary:
        print(f"  {name:<{width}}  {rule:<16}  {kernels} kernel(s)")
    by_rule = {}
    for _, rule, _ in summary:
        by_rule[rule] = by_rule.get(rule, 0) + 1
    print("by rule: " + ", ".join(f"{r} {c}" for r, c in by_rule.items()))
    if refused:
        print(f"{len(refused)} refused:")
        for r in refused:
            print("  " + r)
    if problems:
        print(f"{len(problems)} problems:")
        for p in problems:
            print("  " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
