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
best_cpu = None
for _ in range(repeats):
    start = time.perf_counter()
    start_cpu = time.process_time()
    module = from_source(text)
    printed = module.script()
    elapsed = time.perf_counter() - start
    elapsed_cpu = time.process_time() - start_cpu
    best = elapsed if best is None else min(best, elapsed)
    best_cpu = elapsed_cpu if best_cpu is None else min(best_cpu, elapsed_cpu)
size = len(text.encode())
# CPU time is the fair measure on a shared machine; wall time is reported too.
print(
    f"bytes={size} wall_seconds={best:.3f} cpu_seconds={best_cpu:.3f} "
    f"kb_per_s_wall={size / best / 1024:.1f} kb_per_s_cpu={size / best_cpu / 1024:.1f} "
    f"printed_bytes={len(printed.encode())}"
)
