#!/usr/bin/env python3
"""TVM 0.27's speed on the schedule benchmark, the baseline of `tirc bench schedule`.

Each input (compiler/benches/schedule/*.tir) is a tirx module followed by a
schedule in TVM's trace format (`def apply_trace(sch: s_tir.Schedule)`).  For
each file this measures, as tirc's benchmark does:

  apply       s_tir.Schedule(mod) and the trace's calls (the module already parsed)
  end to end  tvm.script.from_source(module text), the trace's calls, and
              sch.mod.script() after every call

and reports the fastest of N runs.

Run:  tools/tvm/python tools/tvm/bench_tvm_schedule.py [-n N] FILE...
"""

from __future__ import annotations

import argparse
import time

import tvm
from tvm import s_tir

MARKER = "# from tvm import s_tir"


class PrintAfterEachStep:
    """The schedule, printing the module after every primitive it forwards."""

    def __init__(self, sch):
        self._sch = sch

    def __getattr__(self, name):
        method = getattr(self._sch, name)

        def call(*args, **kwargs):
            result = method(*args, **kwargs)
            self._sch.mod.script()
            return result

        return call


def load(path: str):
    text = open(path).read()
    split = text.index(MARKER)
    namespace = {"s_tir": s_tir}
    exec(compile(text[split:], path, "exec"), namespace)  # noqa: S102
    steps = sum(1 for line in text[split:].splitlines() if line.startswith("  ") and "sch." in line)
    return text[:split], namespace["apply_trace"], steps


def fastest(iterations: int, f) -> float:
    f()
    best = float("inf")
    for _ in range(iterations):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--iterations", type=int, default=20)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        module_text, apply_trace, steps = load(path)
        mod = tvm.script.from_source(module_text)

        def apply_only():
            apply_trace(s_tir.Schedule(mod))

        def end_to_end():
            parsed = tvm.script.from_source(module_text)
            apply_trace(PrintAfterEachStep(s_tir.Schedule(parsed)))

        apply = fastest(args.iterations, apply_only)
        e2e = fastest(max(1, args.iterations // 4), end_to_end)
        print(f"{path}: {steps} steps")
        print(f"  apply:      {apply * 1e6:9.1f} us per trace, {apply * 1e6 / steps:7.2f} us per step")
        print(f"  end to end: {e2e * 1e6:9.1f} us (parse, apply, print after every step)")


if __name__ == "__main__":
    main()
