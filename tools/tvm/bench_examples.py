"""Benchmark tirc's examples against Apache TVM 0.27 and numpy, in one session.

For each example (examples/<name>.tir: a block-level module and its schedule
section) this script

1. prints the module in TVM's dialect with `tirc fmt --dialect tirx` and
   parses it with TVM; runs the file's schedule section on a TVM
   `s_tir.Schedule` (the same primitives, `get_block` spelled `get_sblock`);
2. times `tvm.compile(scheduled, target={"kind": "llvm", "mcpu": <host>})`
   plus `export_library` (a shared library, as `tirc build --emit so`
   writes) against `tirc build --emit so`, alternating, fastest of
   --build-runs each;
3. times TVM's compiled function and the function in tirc's shared library
   (loaded with ctypes) in this process, on the same arrays, alternating
   blocks of calls (median of --runs calls each, after a warm-up), with
   TVM_NUM_THREADS and TIRC_NUM_THREADS set to every core: the comparison of
   generated code that the tirc/TVM column reports;
4. times `tirc run --bench` on the example itself
   (tirc's own schedule, lowering and LLVM code), and `tirc run --bench` on
   the module TVM lowered (up to CommonSubexprElim, as tests/run/ does), which
   separates tirc's lowering from its code generation;
5. times numpy on the same computation where it has one (matmul).

Run from the repository root after `cargo build --release -p tirc`:

    tools/tvm/python tools/tvm/bench_examples.py --runs 10
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import REPO, lower_to  # noqa: E402

# TVM's pool may count physical cores only; give it every core, as tirc uses.
os.environ.setdefault("TVM_NUM_THREADS", str(os.cpu_count()))
# TVM's idle workers spin before they sleep; on 2 cores that spinning took CPU
# from the tirc runs timed right after TVM's (conv2d 1.9 ms instead of 1.4).
os.environ.setdefault("TVM_THREAD_POOL_SPIN_COUNT", "0")

import numpy as np  # noqa: E402
import tvm  # noqa: E402
from tvm import s_tir  # noqa: E402

EXAMPLES = ["matmul", "conv2d_nchw", "softmax", "layernorm", "elementwise_chain"]


def tvm_module_and_schedule(tirc: str, path: str):
    text = subprocess.run([tirc, "fmt", "--dialect", "tirx", path], check=True, capture_output=True, text=True).stdout
    cut = text.index("\ndef ")
    module = tvm.script.from_source(text[:cut])
    schedule_text = text[cut:].replace("get_block(", "get_sblock(").replace("T.Schedule", "s_tir.Schedule")
    namespace = {"s_tir": s_tir}
    exec(schedule_text, namespace)  # noqa: S102  (the example's own schedule section)
    schedule = next(v for k, v in namespace.items() if callable(v) and k != "s_tir")
    sch = s_tir.Schedule(module)
    schedule(sch)
    return sch.mod


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def random_args(prim):
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, [int(e) for e in p.shape]).astype(str(p.dtype)) for p in prim.params]


def flops_of(tirc: str, lowered_path: str) -> float:
    out = subprocess.run([tirc, "run", lowered_path, "--json"], check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["flops"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tirc", default=os.path.join(REPO, "target", "release", "tirc"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--build-runs", type=int, default=7,
                        help="builds of each example by each compiler; the fastest counts")
    parser.add_argument("--examples", nargs="*", default=EXAMPLES)
    args = parser.parse_args()
    cpu = tvm.target.codegen.llvm_get_system_cpu()
    # TVM 0.27 takes targets as dicts; tirc's "llvm" is its own host detection.
    target = {"kind": "llvm", "mcpu": cpu}
    scratch = tempfile.mkdtemp(prefix="tirc-bench-")
    dev = tvm.cpu()
    rows = []
    for name in args.examples:
        path = os.path.join(REPO, "examples", name + ".tir")
        scheduled = tvm_module_and_schedule(args.tirc, path)
        lowered_path = os.path.join(scratch, name + ".lowered.tir")
        with open(lowered_path, "w") as f:
            f.write(lower_to(scheduled, "cpu", "CommonSubexprElim").script() + "\n")

        # tvm.compile generates machine code lazily; export_library makes the
        # shared library, which is what `tirc build --emit so` is timed doing.
        # The two builds alternate and each keeps its fastest run, so a noisy
        # moment on a shared machine does not decide the comparison.
        tvm_build_s = tirc_build_s = float("inf")
        for _ in range(args.build_runs):
            start = time.perf_counter()
            lib = tvm.compile(scheduled, target=target)
            lib.export_library(os.path.join(scratch, name + "_tvm.so"))
            tvm_build_s = min(tvm_build_s, time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([args.tirc, "build", path, "--emit", "so", "--target", "llvm", "-o",
                            os.path.join(scratch, name + ".so")], check=True)
            tirc_build_s = min(tirc_build_s, time.perf_counter() - start)
        prim = scheduled["main"]
        arrays = random_args(prim)
        tensors = [tvm.runtime.tensor(a, dev) for a in arrays]
        function = lib["main"]
        # tirc's library works on the memory of TVM's tensors (64-byte
        # aligned), so both read the same pages; the header names the entry
        # `<file stem>_main` and takes one pointer per buffer parameter.
        tirc_function = getattr(ctypes.CDLL(os.path.join(scratch, name + ".so")), name + "_main")
        pointers = [ctypes.c_void_p(np.from_dlpack(t).ctypes.data) for t in tensors]
        function(*tensors)
        if tirc_function(*pointers) != 0:
            raise RuntimeError(f"{name}: tirc's library reported a failed assertion")
        tvm_times, tirc_so_times = [], []
        block = 5
        while len(tvm_times) < args.runs:
            for call, times in ((lambda: function(*tensors), tvm_times),
                                (lambda: tirc_function(*pointers), tirc_so_times)):
                for _ in range(block):
                    start = time.perf_counter()
                    call()
                    times.append((time.perf_counter() - start) * 1e3)

        bench = [args.tirc, "run", "--bench", str(args.runs), "--json"]
        tirc = json.loads(subprocess.run(bench + [path], check=True, capture_output=True, text=True).stdout)
        on_tvm_lowered = json.loads(
            subprocess.run(bench + [lowered_path], check=True, capture_output=True, text=True).stdout)
        flops = float(tirc["flops"])

        numpy_ms = None
        if name == "matmul":
            a, b = arrays[0], arrays[1]
            a @ b
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                a @ b
                times.append((time.perf_counter() - start) * 1e3)
            numpy_ms = median(times)
        rows.append({
            "example": name,
            "gflop": flops / 1e9,
            "tirc_ms": tirc["median_ms"],
            "tirc_so_ms": median(tirc_so_times),
            "tirc_on_tvm_lowered_ms": on_tvm_lowered["median_ms"],
            "tvm_ms": median(tvm_times),
            "numpy_ms": numpy_ms,
            "tirc_gflops": flops / median(tirc_so_times) / 1e6,
            "tvm_gflops": flops / median(tvm_times) / 1e6,
            "numpy_gflops": flops / numpy_ms / 1e6 if numpy_ms else None,
            "tirc_build_s": tirc_build_s,
            "tvm_build_s": tvm_build_s,
        })
    print(f"host CPU {cpu}, {os.cpu_count()} cores, median of {args.runs} runs")
    print("tirc .so and TVM: in this process, alternating; tirc run: the JIT in its own process")
    print(f"{'example':20} {'GFLOP':>7} {'tirc .so ms':>11} {'TVM ms':>9} {'tirc run ms':>11} {'numpy ms':>9} "
          f"{'tirc GF/s':>10} {'TVM GF/s':>9} {'np GF/s':>8} {'tirc/TVM':>9} {'tirc/np':>8} {'tirc(TVM-lowered) ms':>21} "
          f"{'build tirc s':>12} {'build TVM s':>11}")
    for r in rows:
        numpy_ms = f"{r['numpy_ms']:9.3f}" if r["numpy_ms"] else f"{'-':>9}"
        numpy_gf = f"{r['numpy_gflops']:8.1f}" if r["numpy_gflops"] else f"{'-':>8}"
        print(f"{r['example']:20} {r['gflop']:7.3f} {r['tirc_so_ms']:11.3f} {r['tvm_ms']:9.3f} {r['tirc_ms']:11.3f} {numpy_ms} "
              f"{r['tirc_gflops']:10.1f} {r['tvm_gflops']:9.1f} {numpy_gf} {r['tvm_ms'] / r['tirc_so_ms']:9.2f} "
              f"{(r['numpy_ms'] / r['tirc_so_ms']) if r['numpy_ms'] else float('nan'):8.2f} {r['tirc_on_tvm_lowered_ms']:21.3f} "
              f"{r['tirc_build_s']:12.3f} {r['tvm_build_s']:11.3f}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
