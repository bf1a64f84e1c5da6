"""Tune tirc's tuning workloads with Apache TVM 0.27 MetaSchedule, for the
comparison `tirc tune` reports (issue 29): the best schedule's GFLOP/s and
the tuner's wall-clock time for a number of trials.

For each file: the function is printed in TVM's dialect (`tirc fmt --dialect
tirx`, schedule sections cut off), tuned with `ms.tune_tir` (post-order-apply
space, evolutionary search, XGBoost cost model, local builder and runner:
MetaSchedule's defaults) for --trials trials, and the best schedule is
compiled and timed in this process (median of --runs calls after a
warm-up), on every core. Prints one JSON line per file.

`--numpy-only` times numpy's version of each workload instead (run it with
OpenBLAS free to pick its best kernel, see DEVELOPERS.md).

MetaSchedule of TVM 0.27 with apache-tvm-ffi 0.1.15 segfaults in
`ToJSONGraph` when its database records the first workload (as 0.27's
tensorize does), so this runs with TVM 0.26.0 and ffi 0.1.14.post1, the
environment of tools/tvm/requirements-tensorize.txt. Run from the repository
root after `cargo build --release -p tirc-cli`:

    python3 -m venv target/tvm026-venv
    target/tvm026-venv/bin/pip install -r tools/tvm/requirements-tensorize.txt
    target/tvm026-venv/bin/python tools/tvm/bench_tune.py --trials 64 \
        examples/matmul.tir stdlib/ops/conv2d_nchw.tir stdlib/ops/softmax.tir
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/tvm026-venv/bin/python \
        tools/tvm/bench_tune.py --numpy-only examples/matmul.tir ...
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import tvm
from tvm.s_tir import meta_schedule as ms

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools", "bench"))
from numpy_workloads import blas_kernels, numpy_workload, time_numpy  # noqa: E402


def tvm_module(tirc: str, path: str) -> tvm.IRModule:
    text = subprocess.run([tirc, "fmt", "--dialect", "tirx", path], check=True,
                          capture_output=True, text=True).stdout
    cut = text.find("\ndef ")
    return tvm.script.from_source(text if cut < 0 else text[:cut])


def param_buffers(prim) -> list:
    """(shape, dtype) of each parameter buffer, read from the printed
    signature (0.26's Python PrimFunc does not expose its buffer map)."""
    signature = prim.script().split("):", 1)[0]
    return [([int(d) for d in dims.split(",") if d.strip()], dtype)
            for dims, dtype in re.findall(r'T\.Buffer\(\(([^)]*)\), "(\w+)"\)', signature)]


def flops_of(tirc: str, path: str) -> float:
    out = subprocess.run([tirc, "run", path, "--no-schedule", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return float(json.loads(out)["flops"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tirc", default=os.path.join(REPO, "target", "release", "tirc"))
    parser.add_argument("--trials", type=int, default=64)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--numpy-only", action="store_true",
                        help="time numpy's version of each workload, no tuning")
    args = parser.parse_args()
    if args.numpy_only:
        blas = blas_kernels()
        for path in args.files:
            function = numpy_workload(os.path.basename(path))
            if function is None:
                continue
            median_ms = time_numpy(function, args.runs)
            flops = flops_of(args.tirc, path)
            print(json.dumps({"file": path, "numpy_ms": round(median_ms, 3),
                              "gflops": round(flops / (median_ms * 1e-3) / 1e9, 1), "blas": blas}), flush=True)
        return 0
    cores = os.cpu_count() or 1
    cpu = tvm.target.codegen.llvm_get_system_cpu()
    target = tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": cores})
    dev = tvm.cpu()
    for path in args.files:
        module = tvm_module(args.tirc, path)
        work_dir = tempfile.mkdtemp(prefix="tirc-ms-")
        started = time.perf_counter()
        database = ms.tune_tir(module, target, work_dir, max_trials_global=args.trials,
                               num_trials_per_iter=min(64, args.trials), seed=1)
        wall = time.perf_counter() - started
        schedule = ms.tir_integration.compile_tir(database, module, target)
        if schedule is None:
            print(json.dumps({"file": path, "error": "MetaSchedule found no valid schedule"}))
            continue
        lib = tvm.compile(schedule.mod, target=target)
        prim = schedule.mod["main"]
        rng = np.random.default_rng(0)
        arrays = [rng.uniform(-1, 1, shape).astype(dtype) for shape, dtype in param_buffers(prim)]
        tensors = [tvm.runtime.tensor(a, dev) for a in arrays]
        function = lib["main"]
        median_ms = time_numpy(lambda: function(*tensors), args.runs)
        flops = flops_of(args.tirc, path)
        print(json.dumps({
            "file": path,
            "cpu": cpu,
            "threads": cores,
            "trials": args.trials,
            "tuner_wall_s": round(wall, 1),
            "best_ms": round(median_ms, 3),
            "gflops": round(flops / (median_ms * 1e-3) / 1e9, 1),
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
