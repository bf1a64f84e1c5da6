#!/usr/bin/env bash
# `tirc tune --target cuda` on a real GPU (CI has none): tunes
# examples/matmul_gpu.tir (1024^3) and examples/softmax_gpu.tir, measuring
# every candidate on the GPU against the program as written run on the CPU,
# replays the best record with `tirc run --tuned`, and times the tuned
# matmul beside the hand schedules and torch.matmul (gpu_matmul.py).
#
#   tools/cuda/gpu_tune.sh path/to/tirc OUT_DIR [MATMUL_SECONDS SOFTMAX_SECONDS]
#
# tirc needs LLVM here (the reference runs on the CPU) and CUDA: the default
# build. On a machine without LLVM 14, carry libLLVM-14 and its libraries
# and put them on LD_LIBRARY_PATH.
set -u
tirc=$(realpath "$1")
out=$(realpath -m "$2")
matmul_seconds=${3:-200}
softmax_seconds=${4:-90}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cd "$repo"
. "$repo/tools/cuda/cuda_env.sh"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
"$tirc" doctor

tune() {
    local name=$1 seconds=$2
    cp "examples/$name.tir" "$out/$name.tir"
    local started=$SECONDS
    timeout $((seconds + 120)) "$tirc" --color never tune "$out/$name.tir" --target cuda \
        --trials 1000 --seconds "$seconds" --database "$out/records.jsonl" --write \
        > "$out/$name.tune.log" 2>&1
    echo "== tune $name: exit $? after $((SECONDS - started)) s"
    grep -v '^trial ' "$out/$name.tune.log" | tail -40
    grep -c '^trial ' "$out/$name.tune.log"
    # The best record replays from the database.
    timeout 120 "$tirc" --color never run "$out/$name.tir" --target cuda --tuned \
        --database "$out/records.jsonl" --bench 20 --check-with unscheduled --check 2>&1 | tail -8
}
tune matmul_gpu "$matmul_seconds"
tune softmax_gpu "$softmax_seconds"
timeout 120 "$tirc" --color never run examples/softmax_gpu.tir --target cuda --bench 20 2>&1 | tail -3

GPU_MATMUL_SIZES=1024 timeout 200 python3 tools/cuda/gpu_matmul.py "$tirc" "$out" "$out/matmul_gpu.tir" \
    tuned schedule_register_tiles_64 schedule_register_tiles
python3 - <<'PY'
import torch
x = torch.randn(256, 1024, device="cuda")
for _ in range(3): torch.softmax(x, 1)
times = []
for _ in range(20):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); torch.softmax(x, 1); e.record(); torch.cuda.synchronize()
    times.append(s.elapsed_time(e))
print(f"torch.softmax 256x1024: {sorted(times)[10]:.4f} ms")
PY
