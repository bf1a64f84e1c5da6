#!/usr/bin/env python3
"""Reference data for the `tensorize` schedule primitive, from Apache TVM 0.26.

TVM 0.27.0.post1's tensorize segfaults (in ToJSONGraph, with apache-tvm-ffi
0.1.15), so this one script runs TVM 0.26.0 with apache-tvm-ffi 0.1.14.post1,
pinned in tools/tvm/requirements-tensorize.txt.  0.26 already prints the tirx
dialect (`T.sblock`, `@T.prim_func(s_tir=True)`) and has only `get_sblock`,
like 0.27.

For every case it writes into OUT_DIR:

  NAME.tir          the input module (mod.script()), a blank line, then
                    `def schedule(sch: T.Schedule):` -- the very text that was
                    executed against TVM (with `sch.get_block` forwarded to
                    `get_sblock`, as tools/tvm/schedule_oracle.py does)
  NAME.tvm.tir      sch.mod.script() after the schedule (accepted cases)
  NAME.tvm.txt      what TVM says when it refuses the schedule: the error
                    class, the headline and the "Error message:" section (the
                    IR rendering TVM puts in between is left out)
  NAME.intrin.tir   for cases using an intrinsic registered here: its desc and
                    impl, each PrimFunc's script(), one after the other

and OUT_DIR/intrinsics/NAME_{desc,impl}.tir for the x86 intrinsics
(dot_16x4_vnni, dot_16x4_avx512) and the ARM dot-product ones
(dot_4x4_i8i8s32_sdot, dot_4x4_u8u8u32_udot, dot_4x4_u8u8i32_hdot; tirc's
copies are stdlib/intrinsics/{x86,arm}.tir) as TVM 0.26 prints them (printed
like the 0.27 corpus files tests/roundtrip/tvm/intrin_*: an IRModule named
after the function), for reading.  Every NAME.tir's module part and every
NAME.tvm.tir is parsed back with tvm.script.from_source and compared with
structural_equal.

The .tir files are written in the classic dialect (`T.block`, `# from
tvm.script import tir as T`), a purely textual conversion of what 0.26
prints: 0.26 prints a LetStmt as `x: T.int32 = v`, which in the tirx dialect
of 0.27 (and tirc) declares a local scalar, while in the classic dialect it
is the let 0.26 means.

Shapes are small so that tirc's golden test runs every case in its
interpreter (at most 40,000 block executions), which models the x86 dot
products: the cases then pass on CPUs without VNNI too.  The ARM cases
(sdot_*, udot_*, hdot_*) are the same int8 dense schedule with 4x4 packed
weights and TVM's sdot/udot intrinsics.

The cases are copied into tests/schedule/tensorize_NAME.tir (+ .tvm.tir) and
tests/schedule_refused/tensorize_NAME.tir (+ .tvm.txt, with `# error: E0340`
or the refusing code at the end of the refused call's line) by hand.

Run:  target/tvm026-venv/bin/python tools/tvm/gen_tensorize_cases.py [OUT_DIR]
(OUT_DIR defaults to target/tensorize-cases; create the venv with
 python3 -m venv target/tvm026-venv &&
 target/tvm026-venv/bin/pip install -r tools/tvm/requirements-tensorize.txt)
"""

from __future__ import annotations

import os
import re
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import REPO, clean_dir, structural_equal, write_text  # noqa: E402
from schedule_oracle import Forward  # noqa: E402  (forwards get_block to get_sblock)

import tvm  # noqa: E402
from tvm import s_tir, te, tirx  # noqa: E402
from tvm.s_tir.meta_schedule.testing import te_workload as W  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

import tvm.s_tir.tensor_intrin  # noqa: E402,F401  (registers dot_16x4_vnni, dot_4x4_i8i8s32_sdot, ...)

# ----------------------------------------------------------------- our own intrinsic


@T.prim_func(s_tir=True)
def mma_4x4x4_f32_desc(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        for i, j, k in T.grid(4, 4, 4):
            with T.sblock("update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func(s_tir=True)
def mma_4x4x4_f32_impl(a: T.handle, b: T.handle, c: T.handle) -> None:
    # The same computation as plain loops (no blocks, no extern call), so that
    # the tensorized module can still be run.
    A = T.match_buffer(a, (4, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (4, 4), "float32", offset_factor=1)
    C = T.match_buffer(c, (4, 4), "float32", offset_factor=1)
    with T.sblock("root"):
        T.reads(C[0:4, 0:4], A[0:4, 0:4], B[0:4, 0:4])
        T.writes(C[0:4, 0:4])
        for i, j, k in T.grid(4, 4, 4):
            C[i, j] = C[i, j] + A[i, k] * B[k, j]


MMA_INTRIN = "test_mma_4x4x4_f32"
s_tir.TensorIntrin.register(MMA_INTRIN, mma_4x4x4_f32_desc, mma_4x4x4_f32_impl)

# ----------------------------------------------------------------- workloads


def matmul_packed(a_dtype: str = "uint8", m: int = 16, n: int = 32, k: int = 32, lanes: int = 16,
                  b_dtype: str = "int8", out_dtype: str = "int32") -> tvm.IRModule:
    """u8 x i8 -> i32 matmul with VNNI-packed weights (N//16, K//4, 16, 4), as in
    TVM's test_tensorize_vnni (and our corpus's te_matmul_u8s8s32_packed_vnni).
    With lanes=4 the weights are packed (N//4, K//4, 4, 4), as the ARM 4x4
    dot products (sdot/udot) want them (TVM's test_tensorize_arm_dot)."""
    X = te.placeholder((m, k), name="X", dtype=a_dtype)
    PW = te.placeholder((n // lanes, k // 4, lanes, 4), name="packed_W", dtype=b_dtype)
    ak = te.reduce_axis((0, k), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(
        X[i, ak].astype(out_dtype) * PW[j // lanes, ak // 4, j % lanes, ak % 4].astype(out_dtype), axis=ak),
        name="compute")
    return tvm.IRModule({"main": te.create_prim_func([X, PW, C])})


def conv2d_nchwc_int8() -> tvm.IRModule:
    """topi's conv2d_NCHWc_int8 layout: data (n, ic_chunk, h, w, ic_bn) u8, kernel
    (oc_chunk, ic_chunk, kh, kw, ic_bn//4, oc_bn=16, 4) i8, out (n, oc_chunk, oh, ow, 16) i32."""
    n, ic_chunk, h, w, ic_bn = 1, 1, 5, 5, 8
    oc_chunk, kh, kw, oc_bn = 2, 3, 3, 16
    oh, ow = h - kh + 1, w - kw + 1
    data = te.placeholder((n, ic_chunk, h, w, ic_bn), name="data", dtype="uint8")
    kernel = te.placeholder((oc_chunk, ic_chunk, kh, kw, ic_bn // 4, oc_bn, 4), name="kernel", dtype="int8")
    ic_outer = te.reduce_axis((0, ic_chunk), name="ic_outer")
    r_kh = te.reduce_axis((0, kh), name="kh")
    r_kw = te.reduce_axis((0, kw), name="kw")
    ic_f_inner = te.reduce_axis((0, ic_bn // 4), name="ic_f_inner")
    ic_s_inner = te.reduce_axis((0, 4), name="ic_s_inner")
    out = te.compute(
        (n, oc_chunk, oh, ow, oc_bn),
        lambda b, oc, y, x, ocb: te.sum(
            data[b, ic_outer, y + r_kh, x + r_kw, ic_f_inner * 4 + ic_s_inner].astype("int32")
            * kernel[oc, ic_outer, r_kh, r_kw, ic_f_inner, ocb, ic_s_inner].astype("int32"),
            axis=[ic_outer, r_kh, r_kw, ic_f_inner, ic_s_inner]),
        name="conv2d_NCHWc_int8")
    return tvm.IRModule({"main": te.create_prim_func([data, kernel, out])})


def matmul_packed_arm(in_dtype: str, out_dtype: str) -> tvm.IRModule:
    """16^3 in_dtype x in_dtype -> out_dtype matmul, weights packed (4, 4, 4, 4)
    for the ARM 4x4 dot products."""
    return matmul_packed(in_dtype, m=16, n=16, k=16, lanes=4, b_dtype=in_dtype, out_dtype=out_dtype)


def matmul_f32() -> tvm.IRModule:
    return tvm.IRModule({"main": te.create_prim_func(W.matmul(16, 16, 16))})


def matmul_f16_f32() -> tvm.IRModule:
    """64^3 float16 x float16 -> float32 matmul (te_workload.matmul)."""
    return tvm.IRModule({"main": te.create_prim_func(W.matmul(64, 64, 64, in_dtype="float16", out_dtype="float32"))})


# ----------------------------------------------------------------- schedules

# The dense schedule of TVM's test_tensorize_vnni: split j by 16 and k by 4,
# 16x4 loops innermost, init split off at k_0, tensorize the inner j loop.
# parallel(i) goes where `parallel` says: "before_decompose" (the only place
# TVM accepts it), "after_decompose" or "after_tensorize".
# lanes is the j split (16 for x86's 16x4, 4 for ARM's 4x4).
def dense(intrin: str, k_factor: int = 4, parallel: str | None = None, decompose: bool = True,
          lanes: int = 16) -> list:
    lines = [
        'b = sch.get_block("compute")',
        "i, j, k = sch.get_loops(b)",
        f"j_0, j_1 = sch.split(j, factors=[None, {lanes}])",
        f"k_0, k_1 = sch.split(k, factors=[None, {k_factor}])",
        "sch.reorder(k_0, j_1, k_1)",
    ]
    if parallel == "before_decompose":
        lines.append("sch.parallel(i)")
    if decompose:
        lines.append("init = sch.decompose_reduction(b, k_0)")
    if parallel == "after_decompose":
        lines.append("sch.parallel(i)")
    lines.append(f'sch.tensorize(j_1, "{intrin}")')
    if parallel == "after_tensorize":
        lines.append("sch.parallel(i)")
    return lines


# The tensor-core matmul of tests/codegen/cuda/wmma_matmul.tir: four warps
# (threadIdx.y) per block, each owning a 16x16 tile of C in a
# "wmma.accumulator" fragment; fragments of A and B loaded from "shared"
# tiles that the block's 128 threads fetch for every 16-wide step of k.
# `intrins` overrides the five intrinsics (load a, load b, fill, store, sync).
def wmma(intrins: tuple = ("wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_shared",
                           "wmma_fill_16x16x16_f32", "wmma_store_16x16x16_f32_global",
                           "wmma_sync_16x16x16_f16f16f32")) -> list:
    load_a, load_b, fill, store, sync = intrins
    return [
        'b = sch.get_block("C")',
        "i, j, k = sch.get_loops(b)",
        "i0, i1 = sch.split(i, [None, 16])",
        "j0, j1 = sch.split(j, [None, 16])",
        "k0, k1 = sch.split(k, [None, 16])",
        "i00, i01 = sch.split(i0, [2, 2])",
        "j00, j01 = sch.split(j0, [2, 2])",
        "sch.reorder(i00, j00, i01, j01, k0, i1, j1, k1)",
        "bx = sch.fuse(i00, j00)",
        "ty = sch.fuse(i01, j01)",
        'sch.bind(bx, "blockIdx.x")',
        'sch.bind(ty, "threadIdx.y")',
        'A_frag = sch.cache_read(b, 0, "wmma.matrix_a")',
        'B_frag = sch.cache_read(b, 1, "wmma.matrix_b")',
        "sch.compute_at(A_frag, k0)",
        "sch.compute_at(B_frag, k0)",
        "for frag in [A_frag, B_frag]:",
        '    sh = sch.cache_read(frag, 0, "shared")',
        "    sch.compute_at(sh, k0)",
        "    loops = sch.get_loops(sh)",
        "    fused = sch.fuse(loops[-2], loops[-1])",
        "    f0, f1, f2 = sch.split(fused, [None, 4, 32])",
        '    sch.bind(f1, "threadIdx.y")',
        '    sch.bind(f2, "threadIdx.x")',
        'C_frag = sch.cache_write(b, 0, "wmma.accumulator")',
        "sch.reverse_compute_at(C_frag, ty)",
        "init = sch.decompose_reduction(b, k0)",
        f'sch.tensorize(sch.get_loops(A_frag)[-2], "{load_a}")',
        f'sch.tensorize(sch.get_loops(B_frag)[-2], "{load_b}")',
        f'sch.tensorize(sch.get_loops(init)[-2], "{fill}")',
        f'sch.tensorize(sch.get_loops(C_frag)[-2], "{store}")',
        f'sch.tensorize(sch.get_loops(b)[-3], "{sync}")',
    ]


WMMA_DEFAULT = ("wmma_load_16x16x16_f16_a_shared", "wmma_load_16x16x16_f16_b_shared",
                "wmma_fill_16x16x16_f32", "wmma_store_16x16x16_f32_global",
                "wmma_sync_16x16x16_f16f16f32")


def wmma_with(**changes) -> list:
    names = ["load_a", "load_b", "fill", "store", "sync"]
    return wmma(tuple(changes.get(n, d) for n, d in zip(names, WMMA_DEFAULT)))


# TVM's mma_schedule (tvm.testing.tir) at 64^3, as in
# tests/codegen/cuda/mma_matmul.tir: A and B staged in "shared", 16x16 tiles
# in "warp" buffers laid out by shared_16x16_to_ldmatrix_32x8_layout, loaded
# with ldmatrix, multiplied with mma.sync m16n8k16. `intrins` overrides
# (load a, load b, mma, fill, store).
MMA_DEFAULT = ("mma_ldmatrix_f16_a", "mma_ldmatrix_f16_b", "mma_f16f16f32",
               "mma_fill_16x16_f32", "mma_store_16x16_f32_global_")


def mma(intrins: tuple = MMA_DEFAULT) -> list:
    load_a, load_b, sync, fill, store = intrins
    layout = ("lambda i, j: (i // 16, j // 16, i % 16 % 8 * 4 + j % 16 % 8 // 2, "
              "j % 16 // 8 * 4 + i % 16 // 8 * 2 + j % 16 % 2)")
    return [
        'block = sch.get_block("C")',
        "i, j, k = sch.get_loops(block)",
        "i, i_tc = sch.split(i, factors=[None, 16])",
        "j, j_tc = sch.split(j, factors=[None, 16])",
        "k, k_tc = sch.split(k, factors=[None, 16])",
        "sch.reorder(i, j, k, i_tc, j_tc, k_tc)",
        "block_outer = sch.blockize(i_tc)",
        "block_inner = block",
        "i0, i1, i2, i3, i4 = sch.split(i, factors=[1, 2, 2, 1, 1])",
        "j0, j1, j2, j3, j4 = sch.split(j, factors=[1, 1, 2, 1, 2])",
        "k0, k1, k2 = sch.split(k, factors=[2, 2, 1])",
        "sch.reorder(i0, j0, i1, j1, j2, i2, k0, k1, i3, j3, k2, i4, j4)",
        "block_idx = sch.fuse(i0, j0)",
        "block_idy = sch.fuse(i1, j1)",
        "thread_idy = sch.fuse(j2, i2)",
        'sch.bind(block_idx, "blockIdx.x")',
        'sch.bind(block_idy, "blockIdx.y")',
        'sch.bind(thread_idy, "threadIdx.y")',
        "for index in range(2):",
        '    block_read = sch.cache_read(block_outer, index, "shared")',
        "    sch.compute_at(block_read, k0)",
        "    fused = sch.fuse(*sch.get_loops(block_read)[-2:])",
        "    _, f_1, f_2, f_3 = sch.split(fused, factors=[None, 4, 32, 8])",
        '    sch.bind(f_2, "threadIdx.x")',
        '    sch.bind(f_1, "threadIdx.y")',
        "    sch.vectorize(f_3)",
        "    sch.storage_align(block_read, 0, axis=-2, factor=32, offset=8)",
        'A_warp = sch.cache_read(block_outer, 0, "warp")',
        'B_warp = sch.cache_read(block_outer, 1, "warp")',
        "sch.compute_at(A_warp, k1)",
        "sch.compute_at(B_warp, k1)",
        'C_warp = sch.cache_write(block_outer, 0, "warp")',
        "sch.reverse_compute_at(C_warp, thread_idy)",
        "ii, jj = sch.get_loops(C_warp)[-2:]",
        "io, ii = sch.split(ii, factors=[None, 16])",
        "jo, ji = sch.split(jj, factors=[None, 16])",
        "sch.reorder(io, jo, ii, ji)",
        "sch.decompose_reduction(block_outer, sch.get_loops(block_outer)[3])",
        'block_init_c = sch.get_block("C_init")',
        "for warp_block in [A_warp, B_warp]:",
        "    wi, wj = sch.get_loops(warp_block)[-2:]",
        "    wi0, wi1 = sch.split(wi, factors=[None, 16])",
        "    wj0, wj1 = sch.split(wj, factors=[None, 16])",
        "    sch.reorder(wi0, wj0, wi1, wj1)",
        f"layout = {layout}",
        'sch.transform_layout(A_warp, ("write", 0), layout)',
        'sch.transform_layout(B_warp, ("write", 0), layout)',
        'sch.transform_layout(C_warp, ("read", 0), layout)',
        f'sch.tensorize(sch.get_loops(A_warp)[-2], "{load_a}")',
        f'sch.tensorize(sch.get_loops(B_warp)[-2], "{load_b}")',
        f'sch.tensorize(sch.get_loops(block_inner)[-3], "{sync}")',
        f'sch.tensorize(sch.get_loops(block_init_c)[-2], "{fill}")',
        f'sch.tensorize(sch.get_loops(C_warp)[-2], "{store}")',
    ]


def mma_with(**changes) -> list:
    names = ["load_a", "load_b", "sync", "fill", "store"]
    return mma(tuple(changes.get(n, d) for n, d in zip(names, MMA_DEFAULT)))


def matmul_f16_f16_nt() -> tvm.IRModule:
    """64^3 float16 C = A B^T with B stored n x k, accumulated in float16."""
    a = te.placeholder((64, 64), "float16", name="A")
    b = te.placeholder((64, 64), "float16", name="B")
    k = te.reduce_axis((0, 64), name="k")
    c = te.compute((64, 64), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c])})


CASES = [
    # (name, one line of what it is, module builder, schedule body lines, intrinsic source or None)
    ("vnni_dense", "u8 x i8 -> i32 16x32x32 matmul, packed weights, tensorized with dot_16x4_vnni",
     matmul_packed, dense("dot_16x4_vnni"), None),
    ("vnni_dense_no_decompose", "as vnni_dense without decompose_reduction (the block keeps its init)",
     matmul_packed, dense("dot_16x4_vnni", decompose=False), None),
    ("avx512_dense", "as vnni_dense with dot_16x4_avx512 (same desc, pmaddubs/pmaddw impl)",
     matmul_packed, dense("dot_16x4_avx512"), None),
    ("vnni_dense_parallel", "as vnni_dense plus parallel(i), placed before decompose_reduction",
     matmul_packed, dense("dot_16x4_vnni", parallel="before_decompose"), None),
    ("vnni_conv2d_nchwc", "int8 conv2d in NCHWc layout (topi conv2d_NCHWc_int8), oc_block x ic_s_inner tensorized",
     conv2d_nchwc_int8, [
         'b = sch.get_block("conv2d_NCHWc_int8")',
         "n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_f_inner, ic_s_inner = sch.get_loops(b)",
         "sch.reorder(ic_outer, kh, kw, ic_f_inner, oc_block, ic_s_inner)",
         "init = sch.decompose_reduction(b, ic_outer)",
         'sch.tensorize(oc_block, "dot_16x4_vnni")',
     ], None),
    ("vnni_refused_16x8", "inner loops 16x8 (k split by 8) against the 16x4 desc",
     matmul_packed, dense("dot_16x4_vnni", k_factor=8), None),
    ("vnni_refused_int8_lhs", "A (X) is int8 instead of uint8",
     lambda: matmul_packed("int8"), dense("dot_16x4_vnni"), None),
    ("vnni_refused_k_outside_j", "inner loops in the order k_1 (4), j_1 (16): tensorize k_1",
     matmul_packed, [
         'b = sch.get_block("compute")',
         "i, j, k = sch.get_loops(b)",
         "j_0, j_1 = sch.split(j, factors=[None, 16])",
         "k_0, k_1 = sch.split(k, factors=[None, 4])",
         "sch.reorder(k_0, k_1, j_1)",
         "init = sch.decompose_reduction(b, k_0)",
         'sch.tensorize(k_1, "dot_16x4_vnni")',
     ], None),
    ("vnni_refused_init_block", "tensorize (block form) of the init block decompose_reduction made",
     matmul_packed, dense("dot_16x4_vnni")[:-1] + ['sch.tensorize(init, "dot_16x4_vnni")'], None),
    ("vnni_refused_init_loop", "tensorize (loop form) of the init block's inner j_1_init loop",
     matmul_packed, dense("dot_16x4_vnni")[:-1] + [
         "i_init, j_0_init, j_1_init = sch.get_loops(init)",
         'sch.tensorize(j_1_init, "dot_16x4_vnni")',
     ], None),
    ("vnni_refused_parallel_after_decompose", "parallel(i) after decompose_reduction (and before tensorize)",
     matmul_packed, dense("dot_16x4_vnni", parallel="after_decompose"), None),
    ("vnni_refused_parallel_after_tensorize", "parallel(i) after the tensorize",
     matmul_packed, dense("dot_16x4_vnni", parallel="after_tensorize"), None),
    ("mma_4x4x4_f32", "fp32 16^3 matmul, i/j/k split by 4, tensorized with our pure-TIR test_mma_4x4x4_f32",
     matmul_f32, [
         'b = sch.get_block("C")',
         "i, j, k = sch.get_loops(b)",
         "i_0, i_1 = sch.split(i, factors=[None, 4])",
         "j_0, j_1 = sch.split(j, factors=[None, 4])",
         "k_0, k_1 = sch.split(k, factors=[None, 4])",
         "sch.reorder(i_0, j_0, k_0, i_1, j_1, k_1)",
         "init = sch.decompose_reduction(b, k_0)",
         f'sch.tensorize(i_1, "{MMA_INTRIN}")',
     ], (mma_4x4x4_f32_desc, mma_4x4x4_f32_impl)),
    # ARM dot products (AArch64 +dotprod): 4x4 packed weights, j split by 4
    ("sdot_dense", "i8 x i8 -> i32 16x16x16 matmul, weights packed (4, 4, 4, 4), tensorized with dot_4x4_i8i8s32_sdot",
     lambda: matmul_packed_arm("int8", "int32"), dense("dot_4x4_i8i8s32_sdot", lanes=4), None),
    ("udot_dense", "u8 x u8 -> u32 16x16x16 matmul, weights packed (4, 4, 4, 4), tensorized with dot_4x4_u8u8u32_udot",
     lambda: matmul_packed_arm("uint8", "uint32"), dense("dot_4x4_u8u8u32_udot", lanes=4), None),
    ("hdot_dense", "u8 x u8 -> i32 16x16x16 matmul, weights packed (4, 4, 4, 4), tensorized with dot_4x4_u8u8i32_hdot",
     lambda: matmul_packed_arm("uint8", "int32"), dense("dot_4x4_u8u8i32_hdot", lanes=4), None),
    # CUDA tensor cores (wmma 16x16x16): loads, fill, mma and store
    ("wmma_matmul", "f16 x f16 -> f32 64^3 matmul on tensor cores: shared tiles, wmma fragments, all five wmma intrinsics",
     matmul_f16_f32, wmma(), None),
    ("wmma_refused_f16_accumulator", "the float32 accumulator's product against wmma_sync_16x16x16_f16f16f16",
     matmul_f16_f32, wmma_with(sync="wmma_sync_16x16x16_f16f16f16"), None),
    ("wmma_refused_store_shared", "the store to global C against wmma_store_16x16x16_f32_shared",
     matmul_f16_f32, wmma_with(store="wmma_store_16x16x16_f32_shared"), None),
    ("wmma_refused_load_b_as_a", "the matrix_b fragment's load against wmma_load_16x16x16_f16_a_shared",
     matmul_f16_f32, wmma_with(load_b="wmma_load_16x16x16_f16_a_shared"), None),
    # CUDA tensor cores (mma.sync m16n8k16 with ldmatrix, warp buffers)
    ("mma_ldmatrix_matmul", "f16 x f16 -> f32 64^3 matmul with mma.sync and ldmatrix: TVM's mma_schedule",
     matmul_f16_f32, mma(), None),
    ("mma_ldmatrix_matmul_nt", "f16 64^3 C = A B^T with B as n x k, float16 accumulators: the trans_b intrinsics",
     matmul_f16_f16_nt, mma_with(load_b="mma_ldmatrix_f16_b_trans", sync="mma_f16f16f16_trans_b",
                                 fill="mma_fill_16x16_f16", store="mma_store_16x16_f16_global_"), None),
    ("mma_refused_b_layout", "B stored n x k against mma_f16f16f16, whose B is k x n",
     matmul_f16_f16_nt, mma_with(load_b="mma_ldmatrix_f16_b_trans", sync="mma_f16f16f16",
                                 fill="mma_fill_16x16_f16", store="mma_store_16x16_f16_global_"), None),
    ("mma_refused_fill_f16", "the float32 accumulators' init against mma_fill_16x16_f16",
     matmul_f16_f32, mma_with(fill="mma_fill_16x16_f16"), None),
    ("sdot_refused_u8_inputs", "u8 x u8 -> i32 matmul (hdot_dense's) against the i8 x i8 -> i32 sdot desc",
     lambda: matmul_packed_arm("uint8", "int32"), dense("dot_4x4_i8i8s32_sdot", lanes=4), None),
]


# ----------------------------------------------------------------- running


def error_report(error: BaseException) -> str:
    """Class, headline and the "Error message:" section of a TVM error."""
    lines = str(error).rstrip().splitlines()
    keep = [lines[0]] if lines else []
    for n, line in enumerate(lines):
        if line.startswith("Error message:"):
            keep += lines[n:]
            break
    else:
        keep += lines[1:15]
    return type(error).__name__ + "\n" + "\n".join(keep)


def run_schedule(mod: tvm.IRModule, source: str):
    """('ok', scheduled module) or ('error', report)."""
    sch = s_tir.Schedule(mod)
    namespace = {"T": types.SimpleNamespace(Schedule=object), "s_tir": s_tir}
    exec(compile(source, "<schedule>", "exec"), namespace)  # noqa: S102
    try:
        namespace["schedule"](Forward(sch))
    except Exception as error:  # noqa: BLE001
        return "error", error_report(error)
    return "ok", sch.mod


CLASSIC_SPELLINGS = [
    ("# from tvm.script import tirx as T", "# from tvm.script import tir as T"),
    ("# from tvm.tirx.layout import Axis\n", ""),
    ("@T.prim_func(s_tir=True)", "@T.prim_func"),
    ("T.sblock_alloc_buffer(", "T.alloc_buffer("),
    ("T.sblock(", "T.block("),
    ("T.sblock_attr(", "T.block_attr("),
    ('"tirx.noalias"', '"tir.noalias"'),
    # 0.27 renamed these ptx builtins; tirc reads both spellings.
    ("T.ptx.ldmatrix_legacy(", "T.ptx_legacy.ldmatrix("),
    ("T.ptx.mma.legacy(", "T.ptx_legacy.mma("),
]


def to_classic(text: str) -> str:
    """What TVM 0.26 printed, in the classic dialect (see the docstring)."""
    for tirx_spelling, classic in CLASSIC_SPELLINGS:
        text = text.replace(tirx_spelling, classic)
    return text


def parses_back(text: str, expected: tvm.IRModule) -> bool:
    try:
        parsed = tvm.script.from_source(text)
    except Exception:  # noqa: BLE001  (0.26 cannot read its own T.cuda.mma_fill_legacy back)
        return False
    if isinstance(parsed, tirx.PrimFunc):
        parsed = tvm.IRModule({"main": parsed})
    return structural_equal(parsed, expected)


def named_module(func: tirx.PrimFunc, name: str) -> tvm.IRModule:
    return tvm.IRModule({name: func})


def main() -> None:
    out = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "target", "tensorize-cases")
    os.makedirs(out, exist_ok=True)
    clean_dir(out, (".tir", ".txt"))
    problems = []
    for name, what, build, body, intrin in CASES:
        mod = build()
        module_text = mod.script()
        source = "def schedule(sch: T.Schedule):\n" + "".join(f"    {line}\n" for line in body)
        intrinsic_text = ""
        if intrin is not None:
            # The file registers its own intrinsic, as tirc reads it.
            registered = re.search(r'tensorize\([^,]+, "([^"]+)"', "".join(body)).group(1)
            desc, impl = intrin
            functions = [
                "\n".join(ln for ln in to_classic(f.script()).splitlines() if not ln.startswith("# from"))
                .strip()
                for f in (desc, impl)
            ]
            intrinsic_text = "\n\n".join(functions) + (
                f'\n\nT.TensorIntrin.register("{registered}", {desc.attrs["global_symbol"]}, '
                f'{impl.attrs["global_symbol"]})\n\n'
            )
        write_text(os.path.join(out, name + ".tir"), to_classic(module_text) + "\n\n" + intrinsic_text + source)
        outcome, result = run_schedule(build(), source)
        if outcome == "ok":
            text = result.script()
            write_text(os.path.join(out, name + ".tvm.tir"), to_classic(text))
            status = "ok"
            if not parses_back(text, result):
                problems.append(f"{name}.tvm.tir does not parse back to the scheduled module")
        else:
            # Addresses TVM prints (`ir.Range(0x55...)`) change from run to run.
            write_text(os.path.join(out, name + ".tvm.txt"), re.sub(r"0x[0-9a-f]+", "0x…", result) + "\n")
            status = "refused: " + result.splitlines()[0] + ": " + next(
                (ln for ln in result.splitlines() if ln.startswith("Error message:")), "")
        if intrin is not None:
            desc, impl = intrin
            write_text(os.path.join(out, name + ".intrin.tir"), desc.script() + "\n\n" + impl.script())
        if not parses_back(module_text, mod):
            problems.append(f"{name}: TVM's printing of the input does not parse back")
        # the module part of NAME.tir, as written
        with open(os.path.join(out, name + ".tir"), encoding="utf-8") as f:
            written = f.read()
        if not written.startswith(to_classic(module_text)):
            problems.append(f"{name}.tir: module part is not what TVM printed")
        print(f"{name}: {status}  ({what})")

    # the x86 and ARM intrinsics, for comparison with the 0.27 corpus
    corpus = os.path.join(REPO, "tests", "roundtrip", "tvm")
    for intrin_name in ("dot_16x4_vnni", "dot_16x4_avx512",
                        "dot_4x4_i8i8s32_sdot", "dot_4x4_u8u8u32_udot", "dot_4x4_u8u8i32_hdot"):
        intrin = s_tir.TensorIntrin.get(intrin_name)
        for part, func in (("desc", intrin.desc), ("impl", intrin.impl)):
            symbol = func.attrs.get("global_symbol", None) if func.attrs is not None else None
            text = named_module(func, str(symbol) if symbol is not None else "main").script()
            write_text(os.path.join(out, "intrinsics", f"{intrin_name}_{part}.tir"), text)
            ref = os.path.join(corpus, f"intrin_{intrin_name}_{part}.tir")
            if os.path.exists(ref):
                with open(ref, encoding="utf-8") as f:
                    old = f.read().rstrip("\n").splitlines()
                changed = [(a, b) for a, b in zip(old, text.splitlines()) if a != b]
                if len(old) != len(text.splitlines()):
                    changed.append((f"{len(old)} lines", f"{len(text.splitlines())} lines"))
                print(f"intrinsics/{intrin_name}_{part}.tir vs 0.27's tests/roundtrip/tvm/"
                      f"intrin_{intrin_name}_{part}.tir: {len(changed)} lines differ")
                for a, b in changed:
                    print(f"  0.27: {a.strip()}\n  0.26: {b.strip()}")

    for problem in problems:
        print("PROBLEM:", problem)
    print(f"{len(CASES)} cases written to {out}; {len(problems)} problems")


if __name__ == "__main__":
    main()
