"""numpy's version of tirc's CPU tuning workloads, for the benchmarks that
compare against it (tools/bench/tune_cpu.py, tools/tvm/bench_tune.py).
Time them with OpenBLAS free to pick its best kernel: the image sets
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which such a benchmark unsets for
its own process alone (DEVELOPERS.md)."""

from __future__ import annotations

import time

import numpy as np


def numpy_workload(name: str):
    """numpy's version of a workload (the function to time), where it has one:
    matmul as one BLAS call, conv2d NCHW as im2col plus one BLAS call,
    softmax row by row in float32."""
    rng = np.random.default_rng(0)
    if name in ("matmul.tir", "matmul_fp32.tir"):
        size = 1024 if name == "matmul.tir" else 512
        a = rng.random((size, size), dtype=np.float32)
        b = rng.random((size, size), dtype=np.float32)
        return lambda: a @ b
    if name == "conv2d_nchw.tir":
        from numpy.lib.stride_tricks import sliding_window_view
        x = rng.random((1, 64, 58, 58), dtype=np.float32)
        w = rng.random((64, 64 * 9), dtype=np.float32)

        def conv():
            cols = np.ascontiguousarray(sliding_window_view(x[0], (3, 3), axis=(1, 2)).transpose(0, 3, 4, 1, 2))
            return w @ cols.reshape(64 * 9, 56 * 56)
        return conv
    if name == "softmax.tir":
        x = rng.random((1024, 1024), dtype=np.float32)

        def softmax():
            e = np.exp(x - x.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)
        return softmax
    return None


def time_numpy(function, runs: int) -> float:
    """The median milliseconds of `runs` calls after a warm-up."""
    function()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return float(np.median(times)) * 1e3


def blas_kernels() -> list:
    """(library, kernel, threads) of each BLAS numpy loaded (threadpoolctl)."""
    from threadpoolctl import threadpool_info
    return [(i.get("internal_api"), i.get("architecture"), i.get("num_threads")) for i in threadpool_info()]
