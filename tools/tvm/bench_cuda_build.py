#!/usr/bin/env python3
"""What Apache TVM 0.27 does when it builds CUDA for a .tir file (no GPU needed).

For FILE (a tirc example: a block-level module and its schedule section(s), or a
schedule-benchmark file with `# from tvm import s_tir` / `def apply_trace`) this

1. prints the module in TVM's dialect with `tirc fmt --dialect tirx`, parses it
   with TVM and runs the chosen schedule section on an `s_tir.Schedule`
   (`get_block` spelled `get_sblock`), as bench_examples.py does;
2. times `tvm.compile(scheduled, target={"kind": "cuda", "arch": ARCH})`,
   fastest of -n runs after one warm-up (the first, cold run is reported too).
   Without a CUDA runtime (no libcuda / libcudart.so.13 here) TVM 0.27 builds
   a "fallback" CUDA module that only holds the CUDA C++ source: tvm.compile
   runs the s_tir pipeline, CUDA codegen and the host LLVM codegen, but NOT
   NVRTC (that happens when the module is loaded on a GPU machine, through
   the Python callback `tvm_callback_cuda_compile`);
3. writes TVM's CUDA source (`<out>/<stem>.<schedule>.cu`) and the scheduled
   module (`.sched.tir`);
4. compiles that source with NVRTC (libnvrtc.so.12 through ctypes, the options
   of TVM's own NVRTC path: -default-device --use_fast_math ...) to PTX for
   each --ptxas-arch, then runs `ptxas -v -arch=sm_XX` on it and reports per
   kernel registers, shared memory, spills, stack, barriers;
5. also compiles straight to a cubin with NVRTC and TVM's ptxas options
   (`-v --register-usage-level=10 --warn-on-local-memory-usage`), which is
   what `tvm_callback_cuda_compile` would produce on a GPU machine; and, if
   the `cuda-bindings` package is installed, times TVM's own
   `tvm.support.nvcc.compile_cuda(..., "cubin")`.

It prints a table and a JSON summary (last line; also `<out>/<stem>.<schedule>.json`).

Needs, in the TVM venv (no GPU needed):
    pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-runtime-cu12 \
                nvidia-cuda-cccl-cu12            # cccl: TVM's source includes <cuda/std/cstdint>
    pip install cuda-bindings==12.9.*            # optional: TVM's own NVRTC path (step 5)

Run from the repository root:
    tools/tvm/python tools/tvm/bench_cuda_build.py examples/matmul_gpu.tir --schedule schedule_shared
    tools/tvm/python tools/tvm/bench_cuda_build.py examples/matmul_gpu.tir -n 5 --out /tmp/tvm_cuda_out
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")

from tvm_common import REPO, cuda_source_of  # noqa: E402

import tvm  # noqa: E402
from tvm import s_tir  # noqa: E402

TRACE_MARKER = "# from tvm import s_tir"


# --------------------------------------------------------------------------
# Finding the CUDA pieces (pip wheels under site-packages/nvidia/, or a toolkit)

def _nvidia_dir(sub: str) -> str | None:
    """site-packages/nvidia/<sub> of the running Python, if installed."""
    for base in sys.path:
        path = os.path.join(base, "nvidia", sub)
        if os.path.isdir(path):
            return path
    return None


def find_nvrtc(explicit: str | None) -> str:
    candidates = [explicit, os.environ.get("TIRC_NVRTC")]
    d = _nvidia_dir("cuda_nvrtc")
    if d:
        candidates.append(os.path.join(d, "lib", "libnvrtc.so.12"))
    for c in candidates:
        if c and os.path.isfile(c):
            return c
    found = ctypes.util.find_library("nvrtc")
    if found:
        return found
    raise SystemExit("libnvrtc.so.12 not found: pip install nvidia-cuda-nvrtc-cu12 (or pass --nvrtc)")


def find_ptxas(explicit: str | None) -> str:
    d = _nvidia_dir("cuda_nvcc")
    for c in [explicit, os.path.join(d, "bin", "ptxas") if d else None, shutil.which("ptxas")]:
        if c and os.path.isfile(c):
            return c
    raise SystemExit("ptxas not found: pip install nvidia-cuda-nvcc-cu12 (or pass --ptxas)")


def include_dirs() -> list[str]:
    """-I dirs for NVRTC: cuda_runtime.h / cuda_fp16.h, crt/, and cccl (cuda/std/...)."""
    dirs = []
    for sub, probe, hint in [
        ("cuda_runtime/include", "cuda_fp16.h", "nvidia-cuda-runtime-cu12"),
        ("cuda_cccl/include", "cuda/std/cstdint", "nvidia-cuda-cccl-cu12"),
    ]:
        d = _nvidia_dir(sub.split("/")[0])
        path = os.path.join(d, *sub.split("/")[1:]) if d else None
        if not path or not os.path.exists(os.path.join(path, probe)):
            cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
            alt = [os.path.join(cuda, "include"), os.path.join(cuda, "targets", "x86_64-linux", "include", "cccl")]
            path = next((a for a in alt if os.path.exists(os.path.join(a, probe))), None)
            if path is None:
                raise SystemExit(f"{probe} not found: pip install {hint}")
        dirs.append(path)
    d = _nvidia_dir("cuda_nvcc")
    if d and os.path.isdir(os.path.join(d, "include")):
        dirs.append(os.path.join(d, "include"))
    return dirs


def make_cuda_path_shim(root: str) -> str:
    """A directory laid out as TVM's find_cuda_path()/_compile_cuda_nvrtc expect
    (include/cuda_runtime.h, targets/x86_64-linux/include/cccl) built from the
    pip wheels, for TVM's own NVRTC path."""
    shim = os.path.join(root, "cuda_path_shim")
    tgt = os.path.join(shim, "targets", "x86_64-linux", "include")
    os.makedirs(tgt, exist_ok=True)
    links = {
        os.path.join(shim, "include"): os.path.join(_nvidia_dir("cuda_runtime"), "include"),
        os.path.join(tgt, "cccl"): os.path.join(_nvidia_dir("cuda_cccl"), "include"),
        os.path.join(tgt, "crt"): os.path.join(_nvidia_dir("cuda_nvcc"), "include", "crt"),
        os.path.join(shim, "bin"): os.path.join(_nvidia_dir("cuda_nvcc"), "bin"),
    }
    for link, dest in links.items():
        if not os.path.lexists(link):
            os.symlink(dest, link)
    return shim


# --------------------------------------------------------------------------
# NVRTC through ctypes (no cuda-bindings needed)

# What TVM 0.27's _compile_cuda_nvrtc prepends to the generated source.
NVRTC_PREAMBLE = """#include <cuda/std/cstdint>
using cuda::std::uint8_t;
using cuda::std::uint16_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;
using cuda::std::int8_t;
using cuda::std::int16_t;
using cuda::std::int32_t;
using cuda::std::int64_t;
#ifndef __asm__
#define __asm__ asm
#endif
#ifndef __volatile__
#define __volatile__ volatile
#endif
#include <cuda/std/limits>
#ifndef INFINITY
#define INFINITY (::cuda::std::numeric_limits<float>::infinity())
#endif

"""

# The options TVM 0.27's _compile_cuda_nvrtc passes (besides -I and the arch).
TVM_NVRTC_OPTIONS = [
    "-default-device", "--device-int128",
    "-D__NV_SILENCE_DEPRECATION_BEGIN=", "-D__NV_SILENCE_DEPRECATION_END=",
    "-D__NV_SILENCE_HOST_DEPRECATION_BEGIN=", "-D__NV_SILENCE_HOST_DEPRECATION_END=",
    "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_BFLOAT16_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-U__CUDA_NO_BFLOAT162_OPERATORS__", "-U__CUDA_NO_BFLOAT162_CONVERSIONS__",
    "--use_fast_math",
]
TVM_PTXAS_OPTIONS = ["-v", "--register-usage-level=10", "--warn-on-local-memory-usage"]


class Nvrtc:
    def __init__(self, path: str, includes: list[str]):
        self.lib = ctypes.CDLL(path)
        self.path = path
        self.includes = includes
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.version = f"{major.value}.{minor.value}"
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def compile(self, source: str, arch: str, output: str, extra=()) -> tuple[bytes, str]:
        """source -> PTX (output="ptx", arch compute_XX) or cubin ("cubin", sm_XX); returns (bytes, log)."""
        code = NVRTC_PREAMBLE + "\n".join(
            line for line in source.splitlines() if line.strip() != "#include <cuda.h>")
        prog = ctypes.c_void_p()
        self._check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(), b"tvm_kernels.cu", 0, None, None))
        num = arch.split("_", 1)[1]
        opts = [f"--gpu-architecture={'compute' if output == 'ptx' else 'sm'}_{num}"]
        opts += TVM_NVRTC_OPTIONS + [f"-I{d}" for d in self.includes] + list(extra)
        array = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        try:
            result = self.lib.nvrtcCompileProgram(prog, len(opts), array)
            size = ctypes.c_size_t()
            self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log_buf = ctypes.create_string_buffer(size.value)
            self.lib.nvrtcGetProgramLog(prog, log_buf)
            log = log_buf.value.decode(errors="replace")
            if result != 0:
                raise RuntimeError(f"NVRTC failed ({self.lib.nvrtcGetErrorString(result).decode()}):\n{log}")
            get_size, get = ((self.lib.nvrtcGetPTXSize, self.lib.nvrtcGetPTX) if output == "ptx"
                             else (self.lib.nvrtcGetCUBINSize, self.lib.nvrtcGetCUBIN))
            self._check(get_size(prog, ctypes.byref(size)))
            buf = ctypes.create_string_buffer(size.value)
            self._check(get(prog, buf))
            data = buf.raw[: size.value]
            return (data.rstrip(b"\0") if output == "ptx" else data), log
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))

    def _check(self, result: int) -> None:
        if result != 0:
            raise RuntimeError(f"NVRTC: {self.lib.nvrtcGetErrorString(result).decode()}")


# --------------------------------------------------------------------------
# ptxas -v output

def parse_ptxas_log(log: str) -> dict:
    """Per kernel: registers, smem, spills, stack, barriers, cmem[0], lmem (from ptxas -v)."""
    kernels: dict[str, dict] = {}
    current = None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line) or re.search(r"Function properties for (\S+)", line)
        if m:
            current = m.group(1)
            kernels.setdefault(current, {})
            continue
        if current is None:
            continue
        k = kernels[current]
        for key, pattern in [
            ("stack_frame_bytes", r"(\d+) bytes stack frame"),
            ("spill_store_bytes", r"(\d+) bytes spill stores"),
            ("spill_load_bytes", r"(\d+) bytes spill loads"),
            ("registers", r"Used (\d+) registers"),
            ("barriers", r"used (\d+) barriers"),
            ("smem_bytes", r"(\d+) bytes smem"),
            ("lmem_bytes", r"(\d+) bytes lmem"),
            ("cmem0_bytes", r"(\d+) bytes cmem\[0\]"),
        ]:
            m = re.search(pattern, line)
            if m:
                k[key] = int(m.group(1))
    for k in kernels.values():
        k.setdefault("smem_bytes", 0)
        k.setdefault("barriers", 0)
    return kernels


def kernels_in_source(source: str) -> list[dict]:
    out = []
    for m in re.finditer(r'extern "C" __global__ void (?:__launch_bounds__\((\d+)\) )?(\w+)\(([^)]*)\)\s*\{', source):
        out.append({"name": m.group(2), "launch_bounds": int(m.group(1)) if m.group(1) else None,
                    "params": m.group(3)})
    return out


# --------------------------------------------------------------------------
# The module and its schedule

def tvm_module_and_schedule(tirc: str, path: str, schedule: str | None, no_schedule: bool):
    """(scheduled IRModule, schedule name) as bench_examples.py / bench_tvm_schedule.py build it."""
    raw = open(path, encoding="utf-8").read()
    if TRACE_MARKER in raw:  # schedule benchmark format: module text + TVM trace
        split = raw.index(TRACE_MARKER)
        mod = tvm.script.from_source(raw[:split])
        if no_schedule:
            return mod, "none"
        namespace = {"s_tir": s_tir}
        exec(compile(raw[split:], path, "exec"), namespace)  # noqa: S102
        sch = s_tir.Schedule(mod)
        namespace["apply_trace"](sch)
        return sch.mod, "apply_trace"
    text = subprocess.run([tirc, "fmt", "--dialect", "tirx", path], check=True, capture_output=True, text=True).stdout
    match = re.search(r"^def \w+\(", text, re.M)
    module_text = text[: match.start()] if match else text
    mod = tvm.script.from_source(module_text)
    if no_schedule or not match:
        return mod, "none"
    schedule_text = text[match.start():].replace("get_block(", "get_sblock(").replace("T.Schedule", "s_tir.Schedule")
    names = re.findall(r"^def (\w+)\(", schedule_text, re.M)
    namespace = {"s_tir": s_tir}
    exec(compile(schedule_text, path + " (schedule)", "exec"), namespace)  # noqa: S102
    if schedule is None:  # tirc's rule: the file's only section, or `schedule`
        schedule = names[0] if len(names) == 1 else "schedule"
    if schedule not in names:
        raise SystemExit(f"{path}: no schedule section {schedule!r} (has {', '.join(names)})")
    sch = s_tir.Schedule(mod)
    namespace[schedule](sch)
    return sch.mod, schedule


def best_of(runs: int, f, warmup: bool = True):
    """(fastest, first, last result)."""
    first = None
    result = None
    best = float("inf")
    for i in range(runs + (1 if warmup else 0)):
        start = time.perf_counter()
        result = f()
        elapsed = time.perf_counter() - start
        if first is None:
            first = elapsed
        if i > 0 or not warmup:
            best = min(best, elapsed)
    return best, first, result


# --------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--schedule", help="schedule section (default: the file's only one, or `schedule`)")
    parser.add_argument("--no-schedule", action="store_true", help="build the module as written")
    parser.add_argument("-n", "--runs", type=int, default=5, help="tvm.compile runs (after one warm-up); the fastest counts")
    parser.add_argument("--tool-runs", type=int, default=3, help="NVRTC/ptxas runs; the fastest counts")
    parser.add_argument("--arch", default="sm_80", help="TVM target arch")
    parser.add_argument("--ptxas-arch", nargs="+", default=["sm_80", "sm_90"])
    parser.add_argument("--out", default="/tmp/tvm_cuda_out")
    parser.add_argument("--tirc", default=None, help="tirc binary (default target/release/tirc, else target/debug/tirc)")
    parser.add_argument("--nvrtc", default=None, help="libnvrtc.so.12 (default: the pip wheel, $TIRC_NVRTC)")
    parser.add_argument("--ptxas", default=None, help="ptxas (default: the pip wheel, PATH)")
    parser.add_argument("--no-tvm-nvrtc", action="store_true", help="skip timing tvm.support.nvcc.compile_cuda")
    args = parser.parse_args()

    tirc = args.tirc or next((p for p in (os.path.join(REPO, "target", b, "tirc") for b in ("release", "debug"))
                              if os.path.isfile(p)), "tirc")
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.file))[0]

    scheduled, schedule_name = tvm_module_and_schedule(tirc, args.file, args.schedule, args.no_schedule)
    base = os.path.join(args.out, f"{stem}.{schedule_name}")
    with open(base + ".sched.tir", "w") as f:
        f.write(scheduled.script() + "\n")

    target = {"kind": "cuda", "arch": args.arch}
    compile_best, compile_first, executable = best_of(args.runs, lambda: tvm.compile(scheduled, target=target))
    source = cuda_source_of(executable)
    with open(base + ".cu", "w") as f:
        f.write(source)

    nvrtc = Nvrtc(find_nvrtc(args.nvrtc), include_dirs())
    ptxas = find_ptxas(args.ptxas)
    ptxas_version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]

    per_arch = {}
    for arch in args.ptxas_arch:
        num = arch.split("_", 1)[1]
        ptx_s, _, (ptx, _) = best_of(args.tool_runs, lambda: nvrtc.compile(source, arch, "ptx"), warmup=False)
        ptx_path = f"{base}.compute_{num}.ptx"
        with open(ptx_path, "wb") as f:
            f.write(ptx)
        cubin_path = f"{base}.sm_{num}.cubin"
        cmd = [ptxas, "-v", f"-arch=sm_{num}", ptx_path, "-o", cubin_path]
        ptxas_s, _, proc = best_of(args.tool_runs, lambda: subprocess.run(cmd, capture_output=True, text=True),
                                   warmup=False)
        if proc.returncode != 0:
            raise RuntimeError(f"ptxas failed:\n{proc.stderr}")
        with open(f"{base}.sm_{num}.ptxas.log", "w") as f:
            f.write(proc.stdout + proc.stderr)
        # Straight to a cubin with TVM's ptxas options: what TVM's load-time NVRTC build gives.
        cubin_s, _, (_, cubin_log) = best_of(
            args.tool_runs,
            lambda: nvrtc.compile(source, arch, "cubin", [f"--ptxas-options={o}" for o in TVM_PTXAS_OPTIONS]),
            warmup=False)
        per_arch[arch] = {
            "nvrtc_ptx_s": ptx_s,
            "ptxas_s": ptxas_s,
            "ptxas_cmd": " ".join(cmd),
            "kernels": parse_ptxas_log(proc.stdout + proc.stderr),
            "nvrtc_cubin_tvm_flags_s": cubin_s,
            "kernels_nvrtc_cubin_tvm_flags": parse_ptxas_log(cubin_log),
            "ptx": ptx_path,
        }

    tvm_nvrtc = None
    if not args.no_tvm_nvrtc:
        try:
            import cuda.bindings.nvrtc  # noqa: F401
            from tvm.support import nvcc
            os.environ.setdefault("CUDA_PATH", make_cuda_path_shim(args.out))
            s, _, _ = best_of(args.tool_runs, lambda: nvcc.compile_cuda(source, target_format="cubin",
                                                                        arch=args.arch, compiler="nvrtc"), warmup=False)
            tvm_nvrtc = {"arch": args.arch, "compile_cuda_cubin_s": s}
        except ImportError:
            tvm_nvrtc = {"skipped": "cuda-bindings not installed (pip install cuda-bindings==12.9.*)"}
        except Exception as e:  # noqa: BLE001  (report, do not fail the measurement)
            tvm_nvrtc = {"error": str(e).splitlines()[0]}

    summary = {
        "file": args.file,
        "schedule": schedule_name,
        "tvm_version": tvm.__version__,
        "target": target,
        "tvm_compile_s": compile_best,
        "tvm_compile_first_s": compile_first,
        "tvm_compile_runs": args.runs,
        "tvm_compile_includes_nvrtc": False,
        "cuda_source": base + ".cu",
        "cuda_source_lines": source.count("\n") + 1,
        "source_kernels": kernels_in_source(source),
        "nvrtc": nvrtc.path,
        "nvrtc_version": nvrtc.version,
        "ptxas": ptxas,
        "ptxas_version": ptxas_version,
        "per_arch": per_arch,
        "tvm_nvrtc": tvm_nvrtc,
    }
    with open(base + ".json", "w") as f:
        json.dump(summary, f, indent=1)

    print(f"{args.file} [{schedule_name}]  TVM {tvm.__version__}  target {json.dumps(target)}")
    print(f"  tvm.compile: {compile_best * 1e3:.1f} ms (best of {args.runs}; first {compile_first * 1e3:.1f} ms)"
          f"  -> {base}.cu ({summary['cuda_source_lines']} lines; no NVRTC inside tvm.compile)")
    if tvm_nvrtc and "compile_cuda_cubin_s" in tvm_nvrtc:
        print(f"  TVM's own NVRTC (tvm.support.nvcc.compile_cuda -> cubin {args.arch}): "
              f"{tvm_nvrtc['compile_cuda_cubin_s'] * 1e3:.1f} ms")
    print(f"  {'arch':6} {'kernel':24} {'regs':>5} {'smem B':>7} {'spill st/ld B':>13} {'stack B':>7} {'bar':>4}"
          f" {'regs(TVM flags)':>15} {'NVRTC->PTX ms':>13} {'ptxas ms':>9}")
    for arch, r in per_arch.items():
        for name, k in r["kernels"].items():
            alt = r["kernels_nvrtc_cubin_tvm_flags"].get(name, {})
            print(f"  {arch:6} {name:24} {k.get('registers', '?'):>5} {k['smem_bytes']:>7} "
                  f"{str(k.get('spill_store_bytes', '?')) + '/' + str(k.get('spill_load_bytes', '?')):>13} "
                  f"{k.get('stack_frame_bytes', '?'):>7} {k['barriers']:>4} {alt.get('registers', '?'):>15} "
                  f"{r['nvrtc_ptx_s'] * 1e3:13.1f} {r['ptxas_s'] * 1e3:9.1f}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
