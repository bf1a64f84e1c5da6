"""The tuner across workloads on this CPU (issue 52): for each workload,
`tirc tune` for --trials candidates, then the best schedule timed with
`tirc run --bench`, beside the file's own schedule for this machine (the
section `tirc run` picks: `schedule_avx2`, `schedule_x86_avx512`), numpy's
version of the workload and, when a TVM venv is given, MetaSchedule with the
same trials (tools/tvm/bench_tune.py). Names the CPU, prints a Markdown
table and one JSON line per workload.

numpy runs in a process of its own with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset, so OpenBLAS picks its best kernel for this CPU (the
kernel is reported); nothing else's environment changes.

    cargo build --release -p tirc-cli
    python3 -m venv target/bench-venv && target/bench-venv/bin/pip install numpy threadpoolctl
    target/bench-venv/bin/python tools/bench/tune_cpu.py --trials 300
    # with MetaSchedule (the venv of tools/tvm/requirements-tensorize.txt):
    target/bench-venv/bin/python tools/bench/tune_cpu.py --trials 300 \
        --tvm-python target/tvm026-venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = ["examples/matmul.tir", "stdlib/ops/conv2d_nchw.tir", "stdlib/ops/softmax.tir"]


def cpu_description(tirc: str) -> str:
    """The model and vector features `tirc doctor` reports."""
    out = subprocess.run([tirc, "doctor", "--json"], capture_output=True, text=True).stdout
    try:
        cpu = json.loads(out)["cpu"]
    except (ValueError, KeyError):
        return "unknown CPU"
    features = [name for name, present in cpu["features"] if present]
    return f"{cpu['model']}, {cpu['threads']} threads, {' '.join(features)}"


def tirc_bench(tirc: str, path: str, runs: int, schedule: str | None) -> dict:
    """`tirc run --bench` of a schedule section (the machine's own when None)."""
    command = [tirc, "run", path, "--bench", str(runs), "--json"]
    if schedule:
        command += ["--schedule", schedule]
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return {"error": (done.stderr.strip().splitlines() or ["no report"])[-1]}
    return {"schedule": report.get("schedule"), "ms": report.get("median_ms"), "gflops": report.get("gflops")}


def numpy_time(path: str, runs: int) -> dict:
    """numpy's median time for the workload, in a process whose OpenBLAS may
    pick its own kernel."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from numpy_workloads import blas_kernels, numpy_workload, time_numpy;"
        "f = numpy_workload(sys.argv[2]);"
        "print(json.dumps(None if f is None else {'ms': time_numpy(f, int(sys.argv[3])), 'blas': blas_kernels()}))"
    )
    done = subprocess.run([sys.executable, "-c", script, os.path.join(REPO, "tools", "bench"),
                           os.path.basename(path), str(runs)], capture_output=True, text=True, env=env)
    try:
        return json.loads(done.stdout) or {}
    except ValueError:
        return {"error": done.stderr.strip()[-200:]}


def tune(tirc: str, path: str, trials: int, work: str) -> tuple[str, float]:
    """Tunes a copy of `path` with a fresh database; the copy (with `def
    tuned`) and the tuner's wall-clock seconds."""
    import time
    copy = os.path.join(work, os.path.basename(path))
    shutil.copy(os.path.join(REPO, path), copy)
    database = os.path.join(work, "records.jsonl")
    started = time.perf_counter()
    subprocess.run([tirc, "tune", copy, "--trials", str(trials), "--database", database, "--write"],
                   check=True, capture_output=True, text=True)
    return copy, time.perf_counter() - started


def metaschedule(tvm_python: str, tirc: str, path: str, trials: int) -> dict:
    done = subprocess.run([tvm_python, os.path.join(REPO, "tools", "tvm", "bench_tune.py"), "--tirc", tirc,
                           "--trials", str(trials), os.path.join(REPO, path)], capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    report = json.loads(lines[-1])
    return {"ms": report.get("best_ms"), "gflops": report.get("gflops"), "wall_s": report.get("tuner_wall_s")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="*", default=WORKLOADS)
    parser.add_argument("--tirc", default=os.path.join(REPO, "target", "release", "tirc"))
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--runs", type=int, default=30, help="timed runs of each schedule (the median counts)")
    parser.add_argument("--tvm-python", help="a Python with TVM (MetaSchedule is skipped without one)")
    args = parser.parse_args()

    print(f"CPU: {cpu_description(args.tirc)}; {args.trials} trials per workload\n")
    rows = []
    for path in args.workloads:
        numpy = numpy_time(path, args.runs)
        shipped = tirc_bench(args.tirc, os.path.join(REPO, path), args.runs, None)
        with tempfile.TemporaryDirectory(prefix="tirc-tune-") as work:
            copy, wall = tune(args.tirc, path, args.trials, work)
            tuned = tirc_bench(args.tirc, copy, args.runs, "tuned")
        row = {"workload": path, "trials": args.trials, "numpy": numpy, "shipped": shipped,
               "tuned": dict(tuned, wall_s=round(wall, 1))}
        if args.tvm_python:
            row["metaschedule"] = metaschedule(args.tvm_python, args.tirc, path, args.trials)
        print(json.dumps(row), flush=True)
        rows.append(row)

    def cell(entry: dict, numpy_ms: float | None) -> str:
        ms = entry.get("ms") if entry else None
        if ms is None:
            return (entry or {}).get("error", "-")
        ratio = f" ({numpy_ms / ms:.2f}x)" if numpy_ms else ""
        return f"{ms:.3f} ms{ratio}"

    print("\n| workload | numpy (kernel) | own schedule | tirc tune | MetaSchedule |")
    print("|---|---|---|---|---|")
    for row in rows:
        numpy_ms = row["numpy"].get("ms")
        kernel = ",".join(str(k[1]) for k in row["numpy"].get("blas", []))
        numpy_cell = f"{numpy_ms:.3f} ms ({kernel})" if numpy_ms else "-"
        own = f"{cell(row['shipped'], numpy_ms)} `{row['shipped'].get('schedule')}`"
        tuned = f"{cell(row['tuned'], numpy_ms)}, {row['tuned']['wall_s']} s"
        meta = cell(row.get("metaschedule", {}), numpy_ms) if args.tvm_python else "not run"
        print(f"| `{row['workload']}` | {numpy_cell} | {own} | {tuned} | {meta} |")
    print("\n(x: numpy's time over this one: above 1 is faster than numpy)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
