#!/usr/bin/env python3
"""Draw GPU schedules from tirc's own tuner design spaces and get TVM 0.27's CUDA C for them.

For every operator (stdlib/ops/*.tir and the GPU examples) whose CUDA design
space tirc prints (`tirc tune FILE --target cuda --print-space`):

1. FILE + the printed `def space` are written to a scratch file; the operator's
   module alone, in TVM's dialect, is `tirc schedule SCRATCH --schedule space
   --stop-after 0 --dialect tirx`;
2. for seeds 1..K, `tirc schedule SCRATCH --schedule space --seed S --trace
   --dialect tirx` gives the applied trace with its decisions in TVM's
   `apply_trace` form (seeds tirc refuses are recorded and skipped; a trace
   identical to an earlier seed's of the same operator is skipped as a
   duplicate);
3. TVM parses the module (tvm.script.from_source), replays the trace on
   s_tir.Schedule(mod) and compiles the result for {"kind": "cuda", "arch":
   "sm_80"}; cases TVM refuses (replay or compile) are recorded with the first
   line of the error and skipped.

Output, per accepted case, in OUTDIR (default /tmp/tuner_draws):

    CASE.tir      the module (tirx dialect) + blank line + the trace (the layout
                  of tests/codegen/cuda/dlight/, so differential_barriers.py and
                  `tirc run --target cuda --emulate --check` take it)
    CASE.tvm.cu   TVM 0.27's CUDA C (the CUDA module's inspect_source())

and summary.txt (also printed): candidates per operator, refusals by reason.

Run, from the repository root:

    tools/tvm/python tools/tvm/gen_tuner_draws.py [--tirc target/release/tirc]
        [--seeds K] [--out /tmp/tuner_draws] [--ops NAME ...]
    python3 tools/tvm/differential_barriers.py target/release/tirc --only /tmp/tuner_draws/*.tir
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import REPO, clean_dir, cuda_source_of, write_text  # noqa: E402

import tvm  # noqa: E402
from tvm import s_tir  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

TARGET = {"kind": "cuda", "arch": "sm_80"}
GPU_EXAMPLES = ["matmul_gpu", "matmul_fp16_gpu", "softmax_gpu", "vector_add_gpu"]


def operators():
    """(name, path): every stdlib operator, then the examples that carry a GPU schedule."""
    out = [(os.path.basename(p)[:-4], p) for p in sorted(glob.glob(os.path.join(REPO, "stdlib", "ops", "*.tir")))]
    out += [(n, os.path.join(REPO, "examples", n + ".tir")) for n in GPU_EXAMPLES]
    return out


def run(cmd, timeout=120):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def first_line(text: str) -> str:
    """The first informative line of an error message."""
    for line in text.strip().splitlines():
        line = line.strip().lstrip("x│|×").strip()
        if line and not line.startswith(("Traceback", "File ", "^", "stack backtrace")):
            return line[:220]
    return "(no message)"


def tvm_error_line(e: Exception) -> str:
    """TVM errors carry a C++ traceback; keep the line that says what went wrong."""
    lines = [l.strip() for l in str(e).strip().splitlines() if l.strip()]
    for l in lines:
        if re.match(r"(ScheduleError|.*Error:|Check failed|InternalError|ValueError|TypeError)", l):
            return f"{type(e).__name__}: {l[:220]}"
    for l in reversed(lines):
        if not l.startswith(("File ", "[bt]", "0x")):
            return f"{type(e).__name__}: {l[:220]}"
    return type(e).__name__


def module_only(text: str) -> str:
    """Drop the operator's description comments above TVM's import lines."""
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.startswith("# from tvm.script import") or l.startswith("@I.ir_module"):
            return "\n".join(lines[i:]).rstrip("\n")
    return text.rstrip("\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tirc", default=os.path.join(REPO, "target", "release", "tirc"))
    ap.add_argument("--seeds", type=int, default=13, help="seeds 1..K per operator")
    ap.add_argument("--out", default="/tmp/tuner_draws")
    ap.add_argument("--ops", nargs="*", help="only these operators (names)")
    args = ap.parse_args()

    target = tvm.target.Target(TARGET)
    os.makedirs(args.out, exist_ok=True)
    clean_dir(args.out, (".tir", ".tvm.cu", ".txt"))
    scratch = tempfile.mkdtemp(prefix="tuner-draws-")

    report = []
    per_op = []  # (op, drawn, tirc refused, duplicates, tvm refused, written)
    tirc_refused, tvm_refused, no_space = [], [], []
    for op, path in operators():
        if args.ops and op not in args.ops:
            continue
        rc, space, err = run([args.tirc, "tune", path, "--target", "cuda", "--print-space", "--color", "never"])
        if rc != 0 or "def space(" not in space:
            no_space.append(f"{op}: {first_line(err or space)}")
            continue
        with open(path, encoding="utf-8") as f:
            src = f.read()
        combined = os.path.join(scratch, op + ".tir")
        write_text(combined, src.rstrip("\n") + "\n\n" + space.rstrip("\n") + "\n")
        rc, mod_text, err = run([args.tirc, "schedule", combined, "--schedule", "space", "--stop-after", "0",
                                 "--dialect", "tirx", "--color", "never"])
        if rc != 0:
            no_space.append(f"{op}: the module does not print: {first_line(err)}")
            continue
        mod_text = module_only(mod_text)
        try:
            base_mod = tvm.script.from_source(mod_text)
        except Exception as e:  # noqa: BLE001
            no_space.append(f"{op}: TVM does not parse tirc's module: {tvm_error_line(e)}")
            continue
        seen = set()
        n_drawn = n_tirc = n_dup = n_tvm = n_ok = 0
        for seed in range(1, args.seeds + 1):
            case = f"{op}_s{seed:02d}"
            rc, trace, err = run([args.tirc, "schedule", combined, "--schedule", "space", "--seed", str(seed),
                                  "--trace", "--dialect", "tirx", "--color", "never"])
            if rc != 0 or "def apply_trace" not in trace:
                n_tirc += 1
                tirc_refused.append((case, first_line(err or trace)))
                continue
            trace = trace.rstrip("\n")
            if trace in seen:
                n_dup += 1
                continue
            seen.add(trace)
            n_drawn += 1
            ns = {"s_tir": s_tir, "T": T}
            try:
                exec(trace, ns)  # noqa: S102
                sch = s_tir.Schedule(tvm.script.from_source(mod_text))
                ns["apply_trace"](sch)
            except Exception as e:  # noqa: BLE001
                n_tvm += 1
                tvm_refused.append((case, "replay: " + tvm_error_line(e)))
                continue
            try:
                source = cuda_source_of(tvm.compile(sch.mod, target=target))
            except Exception as e:  # noqa: BLE001
                n_tvm += 1
                tvm_refused.append((case, "compile: " + tvm_error_line(e)))
                continue
            write_text(os.path.join(args.out, case + ".tir"), mod_text + "\n\n" + trace + "\n")
            write_text(os.path.join(args.out, case + ".tvm.cu"), source)
            n_ok += 1
        per_op.append((op, n_drawn, n_tirc, n_dup, n_tvm, n_ok))
        print(f"{op}: drawn {n_drawn}, tirc refused {n_tirc}, duplicate {n_dup}, TVM refused {n_tvm}, written {n_ok}",
              file=sys.stderr, flush=True)
        del base_mod

    w = max((len(o[0]) for o in per_op), default=10)
    report.append(f"seeds 1..{args.seeds} per operator, output in {args.out}")
    report.append(f"{'operator':<{w}}  drawn  tirc-refused  duplicate  TVM-refused  written")
    for op, d, tr, du, tv, ok in per_op:
        report.append(f"{op:<{w}}  {d:5}  {tr:12}  {du:9}  {tv:11}  {ok:7}")
    tot = [sum(x[i] for x in per_op) for i in range(1, 6)]
    report.append(f"{'total':<{w}}  {tot[0]:5}  {tot[1]:12}  {tot[2]:9}  {tot[3]:11}  {tot[4]:7}")
    for title, items in (("tirc refused", tirc_refused), ("TVM refused", tvm_refused)):
        if not items:
            continue
        report.append(f"{title} ({len(items)}), by reason:")
        reasons = {}
        for case, why in items:
            reasons.setdefault(why, []).append(case)
        for why, cases in reasons.items():
            report.append(f"  [{len(cases)}] {why}")
            report.append(f"      {' '.join(cases)}")
    if no_space:
        report.append("operators skipped:")
        report += ["  " + s for s in no_space]
    text = "\n".join(report) + "\n"
    write_text(os.path.join(args.out, "summary.txt"), text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
