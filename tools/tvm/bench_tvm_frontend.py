#!/usr/bin/env python3
"""Speed baseline: TVM 0.27's parser + printer over a directory of .tir files.

    bench_tvm_frontend.py [DIR] [--repeat N]

Times `tvm.script.from_source(text)` followed by `.script()` for every *.tir in
DIR (default tests/roundtrip/tvm, top level only: the files TVM parses back) and
prints total bytes, seconds and KB/s (best of --repeat runs, KB = 1024 bytes).
tirc's front-end target in DESIGN.md is stated as a ratio to this number.
"""

import argparse
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import tvm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default=os.path.join(REPO, "tests", "roundtrip", "tvm"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    texts = []
    for name in sorted(os.listdir(args.dir)):
        if name.endswith(".tir"):
            with open(os.path.join(args.dir, name), encoding="utf-8") as f:
                texts.append(f.read())
    total = sum(len(t.encode()) for t in texts)
    best = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for t in texts:
            tvm.script.from_source(t).script()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    parse_only = time.perf_counter()
    for t in texts:
        tvm.script.from_source(t)
    parse_only = time.perf_counter() - parse_only
    print(f"{len(texts)} files, {total} bytes ({total / 1024:.0f} KB)")
    print(f"parse + print: {best:.2f} s  ->  {total / 1024 / best:.1f} KB/s (best of {args.repeat})")
    print(f"parse only:    {parse_only:.2f} s  ->  {total / 1024 / parse_only:.1f} KB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
