"""Times Apache TVM 0.27 parsing and printing a TVMScript file, the baseline of
tirc's front-end benchmark (compiler/benches/frontend.rs writes the file).

usage: bench_frontend.py FILE [REPEATS]
"""
import sys
import time

import tvm  # noqa: F401  (loads the runtime before timing)
from tvm.script import from_source

path = sys.argv[1]
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
text = open(path).read()
best = None
for _ in range(repeats):
    start = time.perf_counter()
    module = from_source(text)
    printed = module.script()
    elapsed = time.perf_counter() - start
    best = elapsed if best is None else min(best, elapsed)
size = len(text.encode())
print(f"bytes={size} seconds={best:.3f} kb_per_s={size / best / 1024:.1f} printed_bytes={len(printed.encode())}")
