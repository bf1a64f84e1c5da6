#!/usr/bin/env python3
"""TVM's build of a tirc example's schedule, timed: the baseline of the int8
VNNI comparison in issue 28's closing note.

Reads FILE (a tirc example), has tirc print its module in TVM's dialect, runs
the file's schedule def (SCHEDULE, default `schedule`) with TVM's
s_tir.Schedule (`sch.get_block` forwarded to `get_sblock`), builds the result
with TVM for `llvm -mcpu=MCPU` and times it on random inputs: the median of
RUNS calls after a warm-up, as `tirc run --bench` reports a median.

TVM 0.27's tensorize crashes, so run this with TVM 0.26 (the venv of
tools/tvm/gen_tensorize_cases.py):

  target/tvm026-venv/bin/python tools/tvm/bench_tvm_vnni.py \\
      --tirc target/release/tirc --mcpu znver4 examples/matmul_int8_vnni.tir
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_tune import time_numpy  # noqa: E402  (the median of calls after a warm-up)
from schedule_oracle import Forward, ScriptNamespace, split_program  # noqa: E402

import tvm  # noqa: E402
from tvm import s_tir  # noqa: E402

import tvm.s_tir.tensor_intrin  # noqa: E402,F401  (registers dot_16x4_vnni)
from tvm.s_tir.tensor_intrin.x86 import dot_product_16x4_u8i8i32_desc  # noqa: E402
from tvm.script import tirx as T  # noqa: E402


# TVM 0.26's dot_16x4_vnni passes vpdpbusd int32x16 operands, which the LLVM
# it is built with rejects ("Call parameter type does not match function
# signature": that LLVM declares them <64 x i8>). The same implementation
# with the operands reinterpreted as int8x64, registered for this benchmark:
@T.prim_func(s_tir=True)
def dot_product_16x4_u8i8i32_vnni_i8_operands(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        A_u8x4 = A.vload([0], "uint8x4")
        A_i32 = T.reinterpret(A_u8x4, dtype="int32")
        B_i8x64 = B.vload([0, 0], dtype="int8x64")
        C_i32x16 = C.vload([0], dtype="int32x16")
        C[T.ramp(T.int32(0), 1, 16)] = T.call_llvm_pure_intrin(
            T.llvm_lookup_intrinsic_id("llvm.x86.avx512.vpdpbusd.512"),
            C_i32x16,
            T.reinterpret(T.broadcast(A_i32, 16), dtype="int8x64"),
            B_i8x64,
            dtype="int32x16",
        )


I8_OPERANDS = "dot_16x4_vnni_i8_operands"
s_tir.TensorIntrin.register(I8_OPERANDS, dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_vnni_i8_operands)


def random_array(shape, dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=dtype)
    return rng.standard_normal(shape).astype(dtype)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--tirc", default="target/release/tirc")
    parser.add_argument("--schedule", default="schedule")
    parser.add_argument("--mcpu", default="znver4", help="the LLVM CPU TVM builds for")
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()

    printed = subprocess.run([args.tirc, "fmt", "--dialect", "tirx", args.file],
                             capture_output=True, text=True, check=True).stdout
    module_text, defs = split_program(printed)
    target = tvm.target.Target({"kind": "llvm", "mcpu": args.mcpu, "num-cores": os.cpu_count()})

    def build(schedule_source: str):
        namespace = {"T": ScriptNamespace(), "s_tir": s_tir}
        exec(schedule_source, namespace)  # noqa: S102
        sch = s_tir.Schedule(tvm.script.from_source(module_text))
        namespace[args.schedule](Forward(sch))
        return sch, tvm.compile(sch.mod, target=target)

    intrinsic = "dot_16x4_vnni"
    try:
        sch, built = build(defs[args.schedule])
    except tvm.error.InternalError as error:
        if "does not match function signature" not in str(error):
            raise
        intrinsic = I8_OPERANDS
        print(f"TVM cannot build its own dot_16x4_vnni for {args.mcpu} (LLVM rejects the int32x16 "
              f"operands of vpdpbusd); timing {I8_OPERANDS}, the same with int8x64 operands")
        sch, built = build(defs[args.schedule].replace('"dot_16x4_vnni"', f'"{I8_OPERANDS}"'))

    func = sch.mod["main"]
    rng = np.random.default_rng(7)
    device = tvm.cpu(0)
    arrays = []
    for param in func.params:
        buffer = param  # 0.26: a parameter is its buffer
        shape = [int(extent) for extent in buffer.shape]
        arrays.append(tvm.runtime.tensor(random_array(shape, str(buffer.dtype), rng), device))
    function = built["main"]
    median = time_numpy(lambda: function(*arrays), args.runs)
    print(f"TVM {tvm.__version__} build of {args.file} ({args.schedule}, {intrinsic}) for llvm -mcpu={args.mcpu}, "
          f"{os.cpu_count()} threads: median {median:.3f} ms of {args.runs} calls")


if __name__ == "__main__":
    main()
