"""Shared helpers for the TVM 0.27 corpus generators (tools/tvm/*.py).

These scripts are our own tooling: they run Apache TVM 0.27 (dialect tirx) as an
oracle and write its output as test data.  tirc's test suite never runs them.
"""

from __future__ import annotations

import os
import sys
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# TVM prints a warning about the CUDA version on stderr when a cuda target is
# created on a machine without CUDA; it is harmless for our purposes.
warnings.filterwarnings("ignore")

import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
from tvm import s_tir, tirx  # noqa: E402


def structural_equal(a, b) -> bool:
    """`tvm.ir.structural_equal` no longer exists in 0.27; it lives in tvm_ffi."""
    return bool(tvm_ffi.structural_equal(a, b, map_free_vars=True))


def write_text(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def clean_dir(path: str, suffixes) -> None:
    """Remove generated files (by suffix) so a regeneration leaves no stale files."""
    if not os.path.isdir(path):
        return
    for name in os.listdir(path):
        if any(name.endswith(s) for s in suffixes):
            os.remove(os.path.join(path, name))


_INTRINSICS = None


def registered_intrinsics():
    """Every TensorIntrin that `tvm.s_tir.tensor_intrin` registers, in registration order.

    TVM 0.27 has no API that lists the registry (only TensorIntrin.get(name)), so we
    record the names by wrapping TensorIntrin.register while the modules import, then
    read each one back with TensorIntrin.get.  Returns [(name, desc, impl)].
    """
    global _INTRINSICS
    if _INTRINSICS is not None:
        return _INTRINSICS
    if "tvm.s_tir.tensor_intrin" in sys.modules:
        raise RuntimeError("tensor_intrin already imported; cannot record its names")
    names = []
    orig = s_tir.TensorIntrin.register

    def recording_register(name, desc, impl, override=False):
        names.append(name)
        return orig(name, desc, impl, override)

    s_tir.TensorIntrin.register = staticmethod(recording_register)
    try:
        import tvm.s_tir.tensor_intrin  # noqa: F401  (cuda, and arm/x86/rocm/hexagon/riscv with llvm)
        import tvm.s_tir.tensor_intrin.metal  # noqa: F401  (not imported by the package __init__)
    finally:
        s_tir.TensorIntrin.register = orig
    out = []
    for name in names:
        intrin = s_tir.TensorIntrin.get(name)
        out.append((name, intrin.desc, intrin.impl))
    _INTRINSICS = out
    return out


def s_tir_pipeline_passes():
    """The pass list of tvm.s_tir.pipeline.default_s_tir_pipeline() with the default
    PassContext config (vectorize on, storage rewrite on, CSE on, no async copy,
    no bound checkers), as (stage_name, pass) pairs.  Copied from TVM 0.27's
    python/tvm/s_tir/pipeline.py so that we can stop after any pass."""
    T, S = tirx.transform, s_tir.transform
    return [
        ("CanonicalizeLoop", S.CanonicalizeLoop()),
        ("LowerCrossThreadReduction", S.LowerCrossThreadReduction()),
        ("LowerInitBlock", S.LowerInitBlock()),
        ("PlanAndUpdateBufferAllocationLocation", S.PlanAndUpdateBufferAllocationLocation()),
        ("ConvertBlocksToOpaque", S.ConvertBlocksToOpaque()),
        ("LiftThreadBinding", S.LiftThreadBinding()),
        ("ManifestSharedMemoryLocalStage", S.ManifestSharedMemoryLocalStage()),
        ("CompactBufferAllocation", S.CompactBufferAllocation()),
        ("LowerAutoCopy", S.LowerAutoCopy()),
        ("UnifyThreadBinding", S.UnifyThreadBinding()),
        ("LowerMatchBuffer", S.LowerMatchBuffer()),
        ("StmtSimplify0", S.StmtSimplify()),
        ("InjectPermutedLayout", S.InjectPermutedLayout()),
        ("AnnotateIrregularLoop", S.AnnotateIrregularLoop()),
        ("InjectSoftwarePipeline", S.InjectSoftwarePipeline()),
        ("TransformMmaBufferLayout", S.TransformMmaBufferLayout()),
        ("LowerOpaqueBlock", S.LowerOpaqueBlock()),
        ("FlattenBuffer", T.FlattenBuffer()),
        ("BF16ComputeLegalize", T.BF16ComputeLegalize()),
        ("NarrowDataType", T.NarrowDataType(32)),
        ("LoopPartition", S.LoopPartition()),
        ("VectorizeLoop", T.VectorizeLoop(True)),
        ("InjectVirtualThread", S.InjectVirtualThread()),
        ("InjectDoubleBuffer", S.InjectDoubleBuffer()),
        ("StorageRewrite", T.StorageRewrite()),
        ("HoistIfThenElse", S.HoistIfThenElse()),
        ("UnrollLoop", T.UnrollLoop()),
        ("RenormalizeSplitPattern", S.RenormalizeSplitPattern()),
        ("StmtSimplify1", T.StmtSimplify()),
        ("RemoveNoOp", T.RemoveNoOp()),
        ("RewriteUnsafeSelect", S.RewriteUnsafeSelect()),
        ("CommonSubexprElim", T.CommonSubexprElim()),
        ("FP8ComputeLegalize", T.FP8ComputeLegalize()),
        ("VerifyVTCMLimit", S.VerifyVTCMLimit()),
        ("LowerVtcmAlloc", S.LowerVtcmAlloc()),
        ("VerifyMemory", T.VerifyMemory()),
        ("AnnotateEntryFunc", T.AnnotateEntryFunc()),
        ("ThreadSync_shared", S.ThreadSync("shared")),
        ("ThreadSync_shared_dyn", S.ThreadSync("shared.dyn")),
        ("ThreadSync_warp", S.ThreadSync("warp")),
        ("InferFragment", S.InferFragment()),
        ("LowerThreadAllreduce", S.LowerThreadAllreduce()),
        ("MergeSharedMemoryAllocations", S.MergeSharedMemoryAllocations()),
        ("SplitHostDevice", T.SplitHostDevice()),
        ("MakePackedAPI", T.MakePackedAPI()),
        ("FP8StorageLegalize", T.FP8StorageLegalize()),
        ("BF16StorageLegalize", T.BF16StorageLegalize()),
        # finalize_host_passes() (applied to the whole module here)
        ("LowerTVMBuiltin", T.LowerTVMBuiltin()),
        ("LowerIntrin", T.LowerIntrin()),
    ]


# Named stopping points used for the lowered corpus.
LOWER_STAGES = {
    # blocks gone, buffers still multi-dimensional, allocations as T.alloc_buffer
    "opaque": "LowerOpaqueBlock",
    # flattened buffers: A.view(...), T.decl_buffer / T.alloc_buffer of 1-D
    "flat": "FlattenBuffer",
    # vectorized (T.Ramp/T.Broadcast), partitioned loops, storage rewrite
    "vec": "StorageRewrite",
    # simplified, unrolled, CSE (let bindings)
    "opt": "CommonSubexprElim",
    # host/device split and the packed API (T.assert, lets, T.call_packed ...)
    "packed": "BF16StorageLegalize",
    # + LowerTVMBuiltin and LowerIntrin (tvm_struct_get, stack alloca, call_extern)
    "host": "LowerIntrin",
}


# Fixed triples so that the printed `T.target({...})` does not depend on the machine
# that regenerates the corpus (plain "llvm" prints the host's triple).
CPU_TARGET = {"kind": "llvm", "mtriple": "x86_64-unknown-linux-gnu"}
GPU_TARGET = {"kind": "cuda", "arch": "sm_80"}


def make_target(kind: str):
    """Bind the way tvm.tirx.build does: a CPU target is its own host, a GPU
    target gets the CPU target as host (MakePackedAPI needs the host)."""
    host = tvm.target.Target(CPU_TARGET)
    if kind == "cpu":
        return tvm.target.Target(CPU_TARGET).with_host(host)
    return tvm.target.Target(GPU_TARGET).with_host(host)


def lower_to(mod: tvm.IRModule, kind: str, stop_after: str) -> tvm.IRModule:
    tgt = make_target(kind)
    with tvm.transform.PassContext(opt_level=3):
        mod = tirx.transform.BindTarget(tgt)(mod)
        for name, p in s_tir_pipeline_passes():
            mod = p(mod)
            if name == stop_after:
                return mod
    raise ValueError(stop_after)


def cuda_source_of(executable) -> str:
    """The CUDA C++ source of the device module(s) tvm.compile made."""
    sources = []

    def visit(m):
        if m.kind == "cuda":
            sources.append(m.inspect_source(""))
        for i in m.imports:
            visit(i)

    visit(executable.mod)
    if not sources:
        raise RuntimeError("tvm.compile produced no CUDA module (no thread bindings?)")
    return "\n".join(sources)
