#!/usr/bin/env bash
# Runs tirc's CUDA kernels on a real GPU (CI has none): every case of
# tests/codegen/cuda/, every GPU example's schedules and every stdlib
# operator's schedule_cuda* (tensor-core ones too), each checked against the reference interpreter;
# then examples/matmul_gpu.tir at 1024^3 and 4096^3 checked against a
# float64 product and timed against torch.matmul (tools/cuda/gpu_matmul.py).
#
#   tools/cuda/gpu_check.sh path/to/tirc OUT_DIR [--emulate]
#
# `--emulate` runs the same list under tirc's CPU emulation (to try the
# script on a machine without a GPU). Build a tirc without LLVM for GPU
# machines: `cargo build --release --no-default-features --features cuda -p tirc-cli`.
set -u
tirc=$(realpath "$1")
out=$(realpath -m "$2")
mode=${3:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cd "$repo"

. "$repo/tools/cuda/cuda_env.sh"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
"$tirc" doctor

# One line per run: file, schedule (or -).
list=$out/cases.txt
: > "$list"
for f in tests/codegen/cuda/*.tir tests/codegen/cuda/dlight/*.tir; do echo "$f -" >> "$list"; done
for f in examples/*.tir; do
    grep -q 'blockIdx\|threadIdx' "$f" || continue
    # At 1024^3 the interpreter needs minutes: on a GPU, gpu_matmul.py checks
    # this one against a float64 product instead.
    [ -z "$mode" ] && [ "$f" = examples/matmul_gpu.tir ] && continue
    grep -o '^def schedule[a-z0-9_]*' "$f" | sed 's/^def //' | while read -r s; do echo "$f $s" >> "$list"; done
done
for f in stdlib/ops/*.tir; do
    grep -o '^def schedule_cuda[a-z0-9_]*' "$f" | sed 's/^def //' | while read -r s; do echo "$f $s" >> "$list"; done
done

run_case() {
    local file=$1 schedule=$2 out=$3 tirc=$4 mode=$5
    local name
    name=$(echo "$file-$schedule" | tr '/.' '__')
    local args=(run "$file" --target cuda --check --seed 7 --json)
    [ "$schedule" != "-" ] && args+=(--schedule "$schedule")
    grep -q '\bn\b' "$file" && args+=(--shape n=1000)
    [ -n "$mode" ] && args+=("$mode")
    local started=$SECONDS
    if timeout 300 "$tirc" --color never "${args[@]}" > "$out/$name.json" 2> "$out/$name.err"; then
        echo "ok    $file $schedule ($((SECONDS - started)) s)"
    else
        echo "FAIL  $file $schedule ($((SECONDS - started)) s): $(head -c 600 "$out/$name.err" | tr '\n' ' ')"
    fi
}
export -f run_case
mkdir -p "$out/cases"
xargs -P "${GPU_CHECK_JOBS:-8}" -L 1 bash -c 'run_case "$0" "$1" "'"$out/cases"'" "'"$tirc"'" "'"$mode"'"' < "$list" | tee "$out/cases.log"
echo "cases: $(grep -c '^ok' "$out/cases.log") ok, $(grep -c '^FAIL' "$out/cases.log") failed of $(wc -l < "$list")"

if [ -z "$mode" ]; then
    python3 tools/cuda/gpu_matmul.py "$tirc" "$out"
fi
