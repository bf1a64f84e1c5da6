"""examples/matmul_gpu.tir on a GPU: both schedules at 1024^3 and 4096^3,
each output checked against a float64 product of the same inputs, timed
by `tirc run --bench` (CUDA events around the launches) and compared with
torch.matmul (cuBLAS) timed the same way in the same run, in float32 with
TF32 off (the same arithmetic as tirc's kernels) and with TF32 on.

    python3 tools/cuda/gpu_matmul.py path/to/tirc OUT_DIR [FILE SCHEDULE...]

FILE (default examples/matmul_gpu.tir) is a square matmul `C = A @ B`
whose size is A's first dimension (1024 in the default); its other sizes are
made by replacing that number. GPU_MATMUL_SIZES (default 1024,4096) names the
sizes. A and B are float32 or float16 as FILE declares A; for float16 the
torch rows are cuBLAS's float16 product (tensor cores, float16 output) and,
where torch has `out_dtype`, its float16 product into float32.
"""

import json
import os
import re
import subprocess
import sys

import numpy as np
import torch


def torch_ms(product, runs=20):
    for _ in range(3):
        product()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        product()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main():
    tirc, out = sys.argv[1], sys.argv[2]
    file = sys.argv[3] if len(sys.argv) > 3 else "examples/matmul_gpu.tir"
    schedules = sys.argv[4:] or [
        "schedule",
        "schedule_shared",
        "schedule_register_tiles",
        "schedule_register_tiles_64",
    ]
    source = open(file).read()
    declared = re.search(r'A: T\.Buffer\(\((\d+), \d+\), "(float16|float32)"\)', source)
    base, dtype = declared.group(1), np.dtype(declared.group(2))
    rows = []
    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    sizes = [int(s) for s in os.environ.get("GPU_MATMUL_SIZES", "1024,4096").split(",")]
    for size in sizes:
        flop = 2.0 * size**3
        path = os.path.join(out, f"matmul_gpu_{size}.tir")
        with open(path, "w") as f:
            f.write(source.replace(base, str(size)))
        rng = np.random.default_rng(size)
        a = rng.standard_normal((size, size), dtype=np.float32).astype(dtype)
        b = rng.standard_normal((size, size), dtype=np.float32).astype(dtype)
        args = os.path.join(out, f"args_{size}")
        os.makedirs(args, exist_ok=True)
        np.save(os.path.join(args, "A.npy"), a)
        np.save(os.path.join(args, "B.npy"), b)
        a_gpu, b_gpu = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        expected = (a_gpu.double() @ b_gpu.double()).cpu().numpy()
        scale = np.abs(expected).max()
        for schedule in schedules:
            saved = os.path.join(out, f"saved_{size}_{schedule}")
            command = [tirc, "--color", "never", "run", path, "--schedule", schedule,
                       "--target", "cuda", "--args", args, "--save-outputs", saved,
                       "--bench", "20", "--json"]
            result = subprocess.run(command, capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                print(f"FAIL  {size} {schedule}: {result.stdout[-2000:]} {result.stderr[-2000:]}")
                rows.append((size, schedule, None, None))
                continue
            report = json.loads(result.stdout)
            c = np.load(os.path.join(saved, "C.npy"))
            error = float(np.abs(c - expected).max() / scale)
            verdict = "ok" if error < 1e-5 else "WRONG"
            ms = report["median_ms"]
            print(f"{verdict:5} {size}^3 {schedule}: {ms:.3f} ms, {flop / ms / 1e6:.0f} GFLOP/s, "
                  f"max error / max |C| = {error:.2e}, compile {report['compile_ms']:.0f} ms")
            rows.append((size, schedule, ms, error))
        if dtype == np.float32:
            def cublas(tf32):
                def product():
                    torch.backends.cuda.matmul.allow_tf32 = tf32
                    return torch.matmul(a_gpu, b_gpu)
                return product
            references = [("torch.matmul fp32", cublas(False)), ("torch.matmul tf32", cublas(True))]
        else:
            references = [("torch.matmul fp16 (fp16 out)", lambda: torch.matmul(a_gpu, b_gpu))]
            try:
                torch.mm(a_gpu, b_gpu, out_dtype=torch.float32)
                references.append(("torch.mm fp16 -> fp32",
                                   lambda: torch.mm(a_gpu, b_gpu, out_dtype=torch.float32)))
            except (TypeError, RuntimeError):
                pass
        for label, product in references:
            ms = torch_ms(product)
            print(f"      {size}^3 {label}: {ms:.3f} ms, {flop / ms / 1e6:.0f} GFLOP/s")
            rows.append((size, label, ms, None))
    with open(os.path.join(out, "matmul.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("\n| size | kernel | median ms | GFLOP/s |\n| --- | --- | --- | --- |")
    for size, kernel, ms, _ in rows:
        gflops = "failed" if ms is None else f"{2.0 * size**3 / ms / 1e6:.0f}"
        print(f"| {size}^3 | {kernel} | {'-' if ms is None else f'{ms:.3f}'} | {gflops} |")


if __name__ == "__main__":
    main()
