#!/usr/bin/env python3
"""Random tensorize schedules run by TVM 0.26 and by tirc, compared.

TVM 0.27.0.post1's tensorize segfaults, so this script runs in the TVM 0.26
venv of tools/tvm/gen_tensorize_cases.py (requirements-tensorize.txt), which
tensorizes correctly. Each trial builds a workload an intrinsic targets, with
random sizes (mostly multiples of the intrinsic's tile, sometimes not):

  * vnni: u8 x i8 -> i32 matmul, weights packed (N/16, K/4, 16, 4), with
    dot_16x4_vnni, dot_16x4_avx512 or a wrong intrinsic;
  * sdot: i8 x i8 -> i32 matmul, weights packed (N/4, K/4, 4, 4), with
    dot_4x4_i8i8s32_sdot, dot_4x4_u8u8u32_udot or a wrong one;
  * wmma: f16 x f16 -> f32 matmul on tensor cores (the five wmma
    intrinsics), with random tile counts per block and warp;

and a random schedule before the tensorize: split factors that fit the
intrinsic or not, reorders that put its loops innermost or not, an optional
decompose_reduction and parallel at random places, the loop or the blockized
block as the tensorize target, sometimes a loop one level off. TVM runs the
script step by step (in a child process, so that a crash ends one trial) and
stops at the first step it refuses; tirc applies the same file. They agree
when both apply every step and `tirc diff` finds the modules structurally
equal, or when both refuse the same step. Modules are compared in the
classic dialect, as gen_tensorize_cases.py writes them.

Run from the repository root, after building tirc:
  target/tvm026-venv/bin/python tools/tvm/differential_tensorize.py \\
      --tirc target/release/tirc --trials 500 --seed 1 --out /tmp/differential-tensorize
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from differential_schedules import tirc_outcome  # noqa: E402  (`tirc schedule --verify-each`)
from schedule_oracle import Forward  # noqa: E402  (forwards get_block to get_sblock)
from gen_tensorize_cases import (  # noqa: E402
    matmul_f16_f16_nt,
    matmul_f16_f32,
    mma_with,
    to_classic,  # 0.26's printing in the classic dialect
)

import tvm  # noqa: E402
from tvm import s_tir, te  # noqa: E402

import tvm.s_tir.tensor_intrin  # noqa: E402,F401  (registers the x86, ARM and CUDA intrinsics)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def packed_matmul(m: int, n: int, k: int, lanes: int, a_dtype: str, b_dtype: str) -> tvm.IRModule:
    """a_dtype x b_dtype -> int32 matmul with weights packed (n/lanes, k/4, lanes, 4)."""
    x = te.placeholder((m, k), name="X", dtype=a_dtype)
    w = te.placeholder((n // lanes, k // 4, lanes, 4), name="packed_W", dtype=b_dtype)
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(
        x[i, r].astype("int32") * w[j // lanes, r // 4, j % lanes, r % 4].astype("int32"), axis=r),
        name="compute")
    return tvm.IRModule({"main": te.create_prim_func([x, w, c])})


def f16_matmul(m: int, n: int, k: int) -> tvm.IRModule:
    a = te.placeholder((m, k), name="A", dtype="float16")
    b = te.placeholder((k, n), name="B", dtype="float16")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(
        a[i, r].astype("float32") * b[r, j].astype("float32"), axis=r), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c])})


def dense_trial(rng: random.Random) -> tuple[tvm.IRModule, list[str]]:
    """A VNNI or ARM dot-product matmul and a random schedule ending in
    tensorize: half the trials valid throughout, the others with one thing
    drawn wrong (a dtype, a split factor, the loop order, where parallel or
    decompose_reduction goes, the intrinsic, the tensorized loop)."""
    wrong = rng.choice([None] * 8 + ["dtype", "j", "k", "order", "parallel", "decompose", "intrin", "target"])
    arm = rng.random() < 0.35
    lanes = 4 if arm else 16
    if arm:
        good, bad = ["dot_4x4_i8i8s32_sdot"], ["dot_4x4_u8u8u32_udot", "dot_16x4_vnni"]
        a_dtype = b_dtype = "int8"
    else:
        good, bad = ["dot_16x4_vnni", "dot_16x4_avx512"], ["dot_4x4_i8i8s32_sdot", "dot_4x4_u8u8u32_udot"]
        a_dtype, b_dtype = "uint8", "int8"
    if wrong == "dtype":
        a_dtype = "int8" if a_dtype == "uint8" else "uint8"
    m = rng.choice([4, 8, 16, 12])
    n = lanes * rng.choice([1, 2, 3])
    k = 4 * rng.choice([2, 4, 8])
    module = packed_matmul(m, n, k, lanes, a_dtype, b_dtype)
    j_factor = rng.choice([lanes // 2, lanes * 2]) if wrong == "j" else lanes
    k_factor = rng.choice([2, 8]) if wrong == "k" else 4
    lines = [
        'b = sch.get_block("compute")',
        "i, j, k = sch.get_loops(b)",
        f"j_0, j_1 = sch.split(j, factors=[None, {j_factor}])",
        f"k_0, k_1 = sch.split(k, factors=[None, {k_factor}])",
        rng.choice(["sch.reorder(k_0, k_1, j_1)", "sch.reorder(j_1, k_0, k_1)"])
        if wrong == "order" else "sch.reorder(k_0, j_1, k_1)",
    ]
    if rng.random() < 0.3:
        lines.append(f"i_0, i_1 = sch.split(i, factors=[None, {rng.choice([2, 4])}])")
        outer = "i_0"
    else:
        outer = "i"
    places = ["after_decompose", "after_tensorize"] if wrong == "parallel" else [None, "before"]
    parallel = rng.choice(places)
    if parallel == "before":
        lines.append(f"sch.parallel({outer})")
    if wrong != "decompose":
        lines.append("init = sch.decompose_reduction(b, k_0)")
    if parallel == "after_decompose":
        lines.append(f"sch.parallel({outer})")
    intrin = rng.choice(bad if wrong == "intrin" else good)
    if wrong == "target":
        lines.append(f'sch.tensorize({rng.choice(["k_1", "k_0", "j_0"])}, "{intrin}")')
    elif rng.random() < 0.2:
        lines.append("blocked = sch.blockize(j_1)")
        lines.append(f'sch.tensorize(blocked, "{intrin}")')
    else:
        lines.append(f'sch.tensorize(j_1, "{intrin}")')
    if parallel == "after_tensorize":
        lines.append(f"sch.parallel({outer})")
    return module, lines


# The right intrinsic for each wmma step, then wrong ones.
WMMA = {
    "load_a": ["wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_shared"],
    "load_b": ["wmma_load_16x16x16_f16_b_shared", "wmma_load_16x16x16_f16_b_trans_shared"],
    "fill": ["wmma_fill_16x16x16_f32", "wmma_fill_16x16x16_f16"],
    "store": ["wmma_store_16x16x16_f32_global", "wmma_store_16x16x16_f32_shared"],
    "sync": ["wmma_sync_16x16x16_f16f16f32", "wmma_sync_16x16x16_f16f16f32_trans"],
}


def wmma_trial(rng: random.Random) -> tuple[tvm.IRModule, list[str]]:
    """A float16 matmul on tensor cores: warps of 16x16 wmma tiles."""
    warps_i, warps_j = rng.choice([1, 2]), rng.choice([1, 2])
    tiles_i, tiles_j = rng.choice([1, 2]), rng.choice([1, 2])
    blocks = rng.choice([1, 2])
    m = 16 * warps_i * tiles_i * blocks
    n = 16 * warps_j * tiles_j
    k = 16 * rng.choice([1, 2, 4])
    wrong = rng.choice([None] * 6 + ["tile"] + list(WMMA))
    tile = 8 if wrong == "tile" else 16
    module = f16_matmul(m, n, k)
    pick = {role: choices[1] if role == wrong else choices[0] for role, choices in WMMA.items()}
    lines = [
        'b = sch.get_block("C")',
        "i, j, k = sch.get_loops(b)",
        f"i0, i1, i2, i3 = sch.split(i, factors=[{blocks}, {warps_i}, {tiles_i}, 16])",
        f"j0, j1, j2 = sch.split(j, factors=[{warps_j}, {tiles_j}, 16])",
        f"k0, k1 = sch.split(k, factors=[None, {tile}])",
        "sch.reorder(i0, i1, j0, k0, i2, j1, i3, j2, k1)",
        "warp = sch.fuse(i1, j0)",
        'sch.bind(i0, "blockIdx.x")',
        'sch.bind(warp, "threadIdx.y")',
        'A_frag = sch.cache_read(b, 0, "wmma.matrix_a")',
        'B_frag = sch.cache_read(b, 1, "wmma.matrix_b")',
        "sch.compute_at(A_frag, k0)",
        "sch.compute_at(B_frag, k0)",
        *[line for frag in ("A_frag", "B_frag") for line in (
            f'sh = sch.cache_read({frag}, 0, "shared")',
            "sch.compute_at(sh, k0)",
            "loops = sch.get_loops(sh)",
            "fused = sch.fuse(loops[-2], loops[-1])",
            f"f0, f1, f2 = sch.split(fused, [None, {warps_i}, 32])",
            'sch.bind(f1, "threadIdx.y")',
            'sch.bind(f2, "threadIdx.x")',
        )],
        'C_frag = sch.cache_write(b, 0, "wmma.accumulator")',
        "sch.reverse_compute_at(C_frag, warp)",
        "init = sch.decompose_reduction(b, k0)",
        "a_rows, a_cols = sch.get_loops(A_frag)[-2:]",
        "a_tile, a_row = sch.split(a_rows, factors=[None, 16])",
        f'sch.tensorize(a_row, "{pick["load_a"]}")',
        "b_rows, b_cols = sch.get_loops(B_frag)[-2:]",
        "b_col_tile, b_col = sch.split(b_cols, factors=[None, 16])",
        "sch.reorder(b_col_tile, b_rows, b_col)",
        f'sch.tensorize(b_rows, "{pick["load_b"]}")',
        f'sch.tensorize(sch.get_loops(init)[-2], "{pick["fill"]}")',
        f'sch.tensorize(i3, "{pick["sync"]}")',
        "c_rows, c_cols = sch.get_loops(C_frag)[-2:]",
        "c_row_tile, c_row = sch.split(c_rows, factors=[None, 16])",
        "c_col_tile, c_col = sch.split(c_cols, factors=[None, 16])",
        "sch.reorder(c_row_tile, c_col_tile, c_row, c_col)",
        f'sch.tensorize(c_row, "{pick["store"]}")',
    ]
    return module, lines


# The right mma.sync intrinsics for the float32 and the float16 (B as n x k)
# matmul, then a wrong one for each step.
MMA = {
    "load_a": ("mma_ldmatrix_f16_a", "mma_ldmatrix_f16_a", "mma_ldmatrix_f16_b_trans"),
    "load_b": ("mma_ldmatrix_f16_b", "mma_ldmatrix_f16_b_trans", "mma_ldmatrix_f16_a_dyn"),
    "sync": ("mma_f16f16f32", "mma_f16f16f16_trans_b", "mma_f16f16f32_trans_b"),
    "fill": ("mma_fill_16x16_f32", "mma_fill_16x16_f16", "mma_fill_16x16_f16"),
    "store": ("mma_store_16x16_f32_global_", "mma_store_16x16_f16_global_", "mma_store_16x16_f32_shared_dyn_"),
}


def mma_trial(rng: random.Random) -> tuple[tvm.IRModule, list[str]]:
    """TVM's mma_schedule at 64^3 (gen_tensorize_cases.mma) on the float32 or
    the float16 matmul, every intrinsic right or one of them wrong."""
    nt = rng.random() < 0.4
    wrong = rng.choice([None] * 5 + list(MMA))
    pick = {role: choices[2] if role == wrong else choices[1 if nt else 0] for role, choices in MMA.items()}
    return (matmul_f16_f16_nt() if nt else matmul_f16_f32()), mma_with(**pick)


# A binding `T.axis.spatial(4, a + b + c)`: its extent and terms.
BINDING = re.compile(r"(T\.axis\.\w+\(\d+, )([^\n]*)\)$", re.M)


def sorted_binding_terms(text: str) -> str:
    """`text` with the terms of every block binding sorted, so that modules
    differing only in their order compare equal."""
    return BINDING.sub(lambda m: m.group(1) + " + ".join(sorted(m.group(2).split(" + "))) + ")", text)


def statements(lines: list[str]) -> list[tuple[int, int]]:
    """The (first, last) line of each statement: a line and the indented
    lines after it (a `for` loop's body)."""
    spans: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        if line.startswith(" ") and spans:
            spans[-1] = (spans[-1][0], index)
        else:
            spans.append((index, index))
    return spans


def run_in_tvm(module: tvm.IRModule, lines: list[str]) -> dict:
    """Runs the lines in TVM in a child process: {"refused": (step, message)
    or None, "module": text} or {"crashed": step}."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        with os.fdopen(write_end, "w") as pipe:
            sch = s_tir.Schedule(module)
            namespace = {"sch": Forward(sch)}
            refused = None
            for step, last in statements(lines):
                pipe.write(json.dumps({"step": step}) + "\n")
                pipe.flush()
                try:
                    exec("\n".join(lines[step:last + 1]), namespace)  # noqa: S102
                except Exception as error:  # noqa: BLE001
                    message = str(error).strip().splitlines()
                    refused = (step, next((ln for ln in message if ln.startswith("Error message:")),
                                          message[0] if message else type(error).__name__))
                    break
            pipe.write(json.dumps({"refused": refused, "module": sch.mod.script()}) + "\n")
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        messages = [json.loads(line) for line in pipe if line.endswith("\n")]
    os.waitpid(pid, 0)
    final = next((m for m in messages if "module" in m), None)
    if final is None:
        steps = [m["step"] for m in messages if "step" in m]
        return {"crashed": steps[-1] if steps else 0}
    return final


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tirc", default=os.path.join(REPO, "target", "release", "tirc"))
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="also print the steps both refuse")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "differential-tensorize"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp()
    counts = {"agree_ok": 0, "agree_refused": 0, "disagree": 0}
    for trial in range(args.trials):
        draw = rng.random()
        kind = "wmma" if draw < 0.25 else "mma" if draw < 0.4 else "dense"
        module, lines = {"wmma": wmma_trial, "mma": mma_trial, "dense": dense_trial}[kind](rng)
        # In the classic dialect: 0.26 prints a let as `x: T.int8x4 = v`,
        # which the tirx dialect of 0.27 and tirc reads as an allocation.
        module_text = to_classic(module.script())
        text = module_text + "\n\ndef schedule(sch: T.Schedule):\n" + "".join(f"    {line}\n" for line in lines)
        first_step_line = module_text.count("\n") + 4
        path = os.path.join(work, f"trial{trial}.tir")
        with open(path, "w") as f:
            f.write(text)
        tvm_result = run_in_tvm(module, lines)
        outcome, output = tirc_outcome(args.tirc, path)
        verdict = None
        if "crashed" in tvm_result:
            counts["tvm_crash"] = counts.get("tvm_crash", 0) + 1
            continue
        refused = tvm_result["refused"]
        if outcome == "crash":
            verdict = "tirc crashed or failed to run"
        elif refused is None:
            if outcome != "ok":
                verdict = "TVM applies every step; tirc refuses"
            else:
                expected = os.path.join(work, f"trial{trial}.tvm.tir")
                with open(expected, "w") as f:
                    f.write(to_classic(tvm_result["module"]))
                actual = os.path.join(work, f"trial{trial}.tirc.tir")
                with open(actual, "w") as f:
                    f.write(output)
                diff = subprocess.run([args.tirc, "diff", actual, expected], capture_output=True, text=True)
                if diff.returncode != 0:
                    verdict = "modules differ:\n" + diff.stdout + diff.stderr
                    for written in (actual, expected):
                        with open(written) as f:
                            normalized = sorted_binding_terms(f.read())
                        with open(written + ".sorted.tir", "w") as f:
                            f.write(normalized)
                    again = subprocess.run([args.tirc, "diff", actual + ".sorted.tir", expected + ".sorted.tir"],
                                           capture_output=True, text=True)
                    if again.returncode == 0:
                        # The known difference of tools/tvm/NOTES.md §14.
                        counts["binding_term_order"] = counts.get("binding_term_order", 0) + 1
                        continue
        else:
            step, message = refused
            if outcome == "ok":
                verdict = f"TVM refuses step {step + 1} ({lines[step]}: {message}); tirc applies every step"
            else:
                located = re.search(r"\S+\.tir:(\d+):\d+", output)
                last = dict(statements(lines))[step]
                if not located or not first_step_line + step <= int(located.group(1)) <= first_step_line + last:
                    verdict = f"TVM refuses step {step + 1} ({lines[step]}: {message}); tirc refuses elsewhere"
        if verdict is None:
            counts["agree_ok" if refused is None else "agree_refused"] += 1
            if args.verbose and refused is not None:
                print(f"trial {trial} ({kind}): both refuse {lines[refused[0]]}: {refused[1]}")
            continue
        counts["disagree"] += 1
        stem = os.path.join(args.out, f"s{args.seed}_{trial}_{kind}")
        with open(stem + ".tir", "w") as f:
            f.write(text)
        with open(stem + ".txt", "w") as f:
            tvm_said = "applies every step" if refused is None else f"refuses step {refused[0] + 1}: {refused[1]}"
            f.write(f"TVM {tvm_said}\n{verdict}\n--- tirc said ---\n{output if outcome != 'ok' else ''}")
        print(f"trial {trial} ({kind}): {verdict.splitlines()[0]}", flush=True)
    print(counts)


if __name__ == "__main__":
    sys.exit(main())
