#!/usr/bin/env python3
"""Generate schedule golden cases from TVM 0.27.

tests/tvm/schedule/NAME.tir            input module (mod.script()), a blank line,
                                       then the trace exactly as print(sch.trace)
                                       gives it (incl. its "# from tvm import s_tir")
tests/tvm/schedule/NAME.expected.tir   sch.mod.script() after applying the trace
tests/tvm/schedule_refused/NAME.tir    same layout; the trace's last call is the
                                       one TVM refuses
tests/tvm/schedule_refused/NAME.expected.txt
                                       the error: its class, the headline and the
                                       "Error message:" line(s) (the IR rendering
                                       TVM puts in between is left out)

Only these primitives are used: get_sblock, get_loops, get_child_blocks,
get_producers, get_consumers, split, fuse, reorder, parallel, vectorize,
unroll, bind, annotate, unannotate, add_unit_loop.

TVM never records a refused call in its trace, so the last line of a refused
case is built as the s_tir.Instruction TVM would have recorded and printed by
TVM's own Trace printer.  The same instruction builder is checked against the
real trace of every accepted case (so its encoding is TVM's).

Run:  tools/tvm/python tools/tvm/gen_schedule_cases.py
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvm_common import REPO, clean_dir, structural_equal, write_text  # noqa: E402

import tvm  # noqa: E402
from tvm import s_tir, te, tirx  # noqa: E402
from tvm.s_tir.meta_schedule.testing import te_workload as W  # noqa: E402
from tvm.s_tir.schedule import Instruction, InstructionKind, LoopRV, SBlockRV, Trace  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

OK_DIR = os.path.join(REPO, "tests", "tvm", "schedule")
BAD_DIR = os.path.join(REPO, "tests", "tvm", "schedule_refused")


# ============================================================ recording wrapper

class Refused(Exception):
    def __init__(self, inst, err):
        super().__init__(str(err))
        self.inst = inst
        self.err = err


def _i(v):
    return None if v is None else tirx.IntImm("int32", v)


class Rec:
    """Forwards to an s_tir.Schedule and builds, for every call, the Instruction
    TVM records for it (so that a refused call can be printed like TVM would)."""

    def __init__(self, sch):
        self.sch = sch
        self.insts = []

    def _call(self, kind, inputs, attrs, out_kinds, fn):
        try:
            res = fn()
        except Exception as e:  # noqa: BLE001
            outs = [LoopRV() if k == "l" else SBlockRV() for k in out_kinds]
            raise Refused(Instruction(InstructionKind.get(kind), inputs, attrs, outs), e) from e
        if res is None:
            outs = []
        elif isinstance(res, (list, tuple)):
            outs = list(res)
        else:
            outs = [res]
        self.insts.append(Instruction(InstructionKind.get(kind), inputs, attrs, outs))
        return res

    # ---- getters
    def get_sblock(self, name, func_name="main"):
        return self._call("GetSBlock", [], [name, func_name], "b", lambda: self.sch.get_sblock(name, func_name))

    def get_loops(self, block):
        return self._call("GetLoops", [block], [], "", lambda: self.sch.get_loops(block))

    def get_child_blocks(self, rv):
        return self._call("GetChildBlocks", [rv], [], "", lambda: self.sch.get_child_blocks(rv))

    def get_producers(self, block):
        return self._call("GetProducers", [block], [], "", lambda: self.sch.get_producers(block))

    def get_consumers(self, block):
        return self._call("GetConsumers", [block], [], "", lambda: self.sch.get_consumers(block))

    # ---- loop transformations
    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        return self._call("Split", [loop] + [_i(f) for f in factors], [preserve_unit_iters, disable_predication],
                          "l" * len(factors),
                          lambda: self.sch.split(loop, factors, preserve_unit_iters=preserve_unit_iters,
                                                 disable_predication=disable_predication))

    def fuse(self, *loops, preserve_unit_iters=True):
        return self._call("Fuse", list(loops), [int(preserve_unit_iters)], "l",
                          lambda: self.sch.fuse(*loops, preserve_unit_iters=preserve_unit_iters))

    def reorder(self, *loops):
        return self._call("Reorder", list(loops), [], "", lambda: self.sch.reorder(*loops))

    def add_unit_loop(self, rv):
        return self._call("AddUnitLoop", [rv], [], "l", lambda: self.sch.add_unit_loop(rv))

    # ---- loop annotations
    def parallel(self, loop):
        return self._call("Parallel", [loop], [], "", lambda: self.sch.parallel(loop))

    def vectorize(self, loop):
        return self._call("Vectorize", [loop], [], "", lambda: self.sch.vectorize(loop))

    def unroll(self, loop):
        return self._call("Unroll", [loop], [], "", lambda: self.sch.unroll(loop))

    def bind(self, loop, thread):
        return self._call("Bind", [loop], [thread], "", lambda: self.sch.bind(loop, thread))

    def annotate(self, rv, key, val):
        return self._call("Annotate", [rv, val], [key], "", lambda: self.sch.annotate(rv, key, val))

    def unannotate(self, rv, key):
        return self._call("Unannotate", [rv], [key], "", lambda: self.sch.unannotate(rv, key))


def trace_text(insts) -> str:
    return str(Trace(insts, {}))


# ============================================================ input modules

def te_mod(tensors):
    return te.create_prim_func(list(tensors))


def matmul(n=128, m=128, k=128):
    return te_mod(W.matmul(n, m, k))


def matmul_relu():
    return te_mod(W.matmul_relu(64, 64, 64))


def batch_matmul():
    return te_mod(W.batch_matmul_nkkm(2, 32, 32, 32))


def conv2d_nchw():
    return te_mod(W.conv2d_nchw(1, 14, 14, 16, 16, 3, 3, 1, 1))


def conv2d_nhwc():
    return te_mod(W.conv2d_nhwc(1, 14, 14, 16, 16, 3, 1, 1))


def softmax():
    return te_mod(W.softmax_mn(64, 64))


def norm():
    return te_mod(W.norm_bmn(1, 64, 64))


def ewise2():
    a = te.placeholder((128, 64), name="A")
    b = te.compute((128, 64), lambda i, j: a[i, j] * 2.0, name="B")
    c = te.compute((128, 64), lambda i, j: b[i, j] + 1.0, name="C")
    return te_mod([a, c])


def ewise3():
    a = te.placeholder((100, 77), name="A")
    b = te.compute((100, 77), lambda i, j: a[i, j] * 2.0, name="B")
    c = te.compute((100, 77), lambda i, j: te.exp(b[i, j]), name="C")
    d = te.compute((100, 77), lambda i, j: te.max(c[i, j], b[i, j]), name="D")
    return te_mod([a, d])


def rowsum():
    a = te.placeholder((64, 256), name="A")
    k = te.reduce_axis((0, 256), name="k")
    return te_mod([a, te.compute((64,), lambda i: te.sum(a[i, k], axis=k), name="S")])


def ewise_sym():
    n = te.var("n")
    a = te.placeholder((n, 32), name="A")
    return te_mod([a, te.compute((n, 32), lambda i, j: a[i, j] + 1.0, name="B")])


def ewise_4d():
    a = te.placeholder((2, 8, 16, 32), name="A")
    return te_mod([a, te.compute((2, 8, 16, 32), lambda n, c, h, w: a[n, c, h, w] * 0.5, name="B")])


@T.prim_func(s_tir=True)
def loop_with_min(A: T.Buffer((16, 16), "float32")):
    for i in range(16):
        for j in T.serial(2, 14):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def scan_1d(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("scan"):
            vi = T.axis.scan(64, i)
            T.reads(B[vi - 1], A[vi])
            T.writes(B[vi])
            B[vi] = T.if_then_else(vi > 0, B[vi - 1], T.float32(0)) + A[vi]


@T.prim_func(s_tir=True)
def opaque_blocks(A: T.Buffer((32,), "float32")):
    for i in range(32):
        with T.sblock("opaque"):
            T.reads(A[i])
            T.writes(A[i])
            A[i] = A[i] * T.float32(2)


def loop_with_min_f():
    return loop_with_min


def scan_f():
    return scan_1d


def opaque_f():
    return opaque_blocks


# ============================================================ accepted cases
# each: (name, input factory, steps(s))

CASES = []
REFUSED = []


def case(name, inp):
    def deco(fn):
        CASES.append((name, inp, fn))
        return fn
    return deco


def refused(name, inp):
    def deco(fn):
        REFUSED.append((name, inp, fn))
        return fn
    return deco


# ---- split
@case("split_dividing", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(i, [None, 32])


@case("split_nondividing_where", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(j, [None, 7])


@case("split_nondividing_disable_predication", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(j, [None, 7], disable_predication=True)


@case("split_three_factors", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(i, [2, None, 8])


@case("split_four_factors_nondividing", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(k, [None, 3, 2, 5])


@case("split_none_last", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(i, [4, None])


@case("split_exact_no_none", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(j, [4, 4, 8])


@case("split_unit_factor_preserve", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(i, [1, None])
    s.split(j, [None, 1])


@case("split_unit_factor_no_preserve", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(i, [1, None], preserve_unit_iters=False)
    s.split(j, [None, 1], preserve_unit_iters=False)


@case("split_reduction_loop", rowsum)
def _(s):
    b = s.get_sblock("S")
    i, k = s.get_loops(b)
    s.split(k, [None, 16])


@case("split_symbolic_extent", ewise_sym)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    s.split(i, [None, 16])


@case("split_twice_same_nest", ewise2)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    i0, i1 = s.split(i, [None, 16])
    s.split(i1, [None, 4])


@refused("split_loop_with_min", loop_with_min_f)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    s.split(j, [None, 4])


@case("split_conv_channels", conv2d_nchw)
def _(s):
    b = s.get_sblock("conv2d_nchw")
    n, f, y, x, rc, ry, rx = s.get_loops(b)
    s.split(f, [None, 4])
    s.split(rc, [None, 4])


# ---- fuse
@case("fuse_two", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.fuse(i, j)


@case("fuse_three_with_reduction", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.fuse(i, j, k)


@case("fuse_no_preserve_unit", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [1, None])
    s.fuse(i0, i1, preserve_unit_iters=False)


@case("fuse_4d_all", ewise_4d)
def _(s):
    b = s.get_sblock("B")
    n, c, h, w = s.get_loops(b)
    s.fuse(n, c, h, w)


@case("fuse_three_spatial", ewise_4d)
def _(s):
    b = s.get_sblock("B")
    n, c, h, w = s.get_loops(b)
    s.fuse(c, h, w)


@case("fuse_split_inner_pieces", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [None, 8])
    s.fuse(i0, i1)


@case("fuse_nondividing_ewise", ewise3)
def _(s):
    b = s.get_sblock("C")
    i, j = s.get_loops(b)
    f = s.fuse(i, j)
    s.split(f, [None, 64])


@case("fuse_symbolic", ewise_sym)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    s.fuse(i, j)


# ---- reorder
@case("reorder_swap", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.reorder(j, i)


@case("reorder_reduction_out", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.reorder(k, i, j)


@case("reorder_across_split", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [None, 32])
    j0, j1 = s.split(j, [None, 32])
    s.reorder(i0, j0, i1, j1)


@case("reorder_partial_subset", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [None, 16])
    k0, k1 = s.split(k, [None, 4])
    s.reorder(k0, i1)


@case("reorder_nondividing", ewise3)
def _(s):
    b = s.get_sblock("D")
    i, j = s.get_loops(b)
    i0, i1 = s.split(i, [None, 8])
    j0, j1 = s.split(j, [None, 8])
    s.reorder(j0, i0, j1, i1)


@case("reorder_conv_loops", conv2d_nhwc)
def _(s):
    b = s.get_sblock("conv2d_nhwc")
    n, h, w, co, rh, rw, rc = s.get_loops(b)
    s.reorder(rh, rw, rc, n, h, w, co)


# ---- parallel / vectorize / unroll
@case("parallel_outer", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.parallel(i)


@case("parallel_fused", ewise2)
def _(s):
    b = s.get_sblock("C")
    i, j = s.get_loops(b)
    f = s.fuse(i, j)
    s.parallel(f)


@case("vectorize_inner", ewise2)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    j0, j1 = s.split(j, [None, 8])
    s.vectorize(j1)


@case("vectorize_after_reorder", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    j0, j1 = s.split(j, [None, 8])
    s.reorder(k, j1)
    s.vectorize(j1)


@case("unroll_reduction", rowsum)
def _(s):
    b = s.get_sblock("S")
    i, k = s.get_loops(b)
    k0, k1 = s.split(k, [None, 4])
    s.unroll(k1)


@case("unroll_outer", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.unroll(i)


@case("parallel_vectorize_unroll", ewise_4d)
def _(s):
    b = s.get_sblock("B")
    n, c, h, w = s.get_loops(b)
    f = s.fuse(n, c)
    s.parallel(f)
    s.unroll(h)
    s.vectorize(w)


@case("vectorize_nondividing", ewise3)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    j0, j1 = s.split(j, [None, 4])
    s.vectorize(j1)


@case("parallel_symbolic", ewise_sym)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    s.parallel(i)
    s.vectorize(j)


# ---- bind
@case("bind_block_thread", ewise2)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    s.bind(i, "blockIdx.x")
    s.bind(j, "threadIdx.x")


@case("bind_fused_split", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    f = s.fuse(i, j)
    bx, tx = s.split(f, [None, 128])
    s.bind(bx, "blockIdx.x")
    s.bind(tx, "threadIdx.x")


@case("bind_2d_grid", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [None, 16])
    j0, j1 = s.split(j, [None, 16])
    s.reorder(i0, j0, i1, j1)
    s.bind(i0, "blockIdx.y")
    s.bind(j0, "blockIdx.x")
    s.bind(i1, "threadIdx.y")
    s.bind(j1, "threadIdx.x")


@case("bind_vthread", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, iv, i1 = s.split(i, [None, 2, 32])
    s.bind(i0, "blockIdx.x")
    s.bind(iv, "vthread.x")
    s.bind(i1, "threadIdx.x")


@case("bind_reduction_to_thread", rowsum)
def _(s):
    b = s.get_sblock("S")
    i, k = s.get_loops(b)
    k0, k1 = s.split(k, [None, 32])
    s.bind(i, "blockIdx.x")
    s.bind(k1, "threadIdx.x")


@case("bind_nondividing_threads", ewise3)
def _(s):
    for name in ("B", "C", "D"):
        b = s.get_sblock(name)
        i, j = s.get_loops(b)
        f = s.fuse(i, j)
        bx, tx = s.split(f, [None, 256])
        s.bind(bx, "blockIdx.x")
        s.bind(tx, "threadIdx.x")


@case("bind_vthread_yz", ewise_4d)
def _(s):
    b = s.get_sblock("B")
    n, c, h, w = s.get_loops(b)
    s.bind(n, "vthread.z")
    s.bind(c, "blockIdx.y")
    s.bind(h, "vthread.y")
    s.bind(w, "threadIdx.x")


# ---- annotate / unannotate
@case("annotate_block_values", matmul)
def _(s):
    b = s.get_sblock("C")
    s.annotate(b, "k_int", 16)
    s.annotate(b, "k_str", "hello")
    s.annotate(b, "k_float", 0.25)
    s.annotate(b, "k_list", [1, 2, 3])
    s.annotate(b, "k_dict", {"a": 1, "b": 2})


@case("annotate_dict_str_value_trace_quirk", matmul)
def _(s):
    # TVM prints the str inside the dict unquoted in the trace: {"b": c}
    b = s.get_sblock("C")
    s.annotate(b, "k_dict", {"a": 1, "b": "c"})


@case("annotate_bool_prints_as_int", matmul)
def _(s):
    b = s.get_sblock("C")
    s.annotate(b, "k_true", True)
    s.annotate(b, "k_false", False)


@case("annotate_loops", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.annotate(i, "pragma_auto_unroll_max_step", 64)
    s.annotate(j, "pragma_unroll_explicit", 1)
    s.annotate(k, "software_pipeline_stage", [0, 0, 1])


@case("annotate_overwrite", matmul)
def _(s):
    b = s.get_sblock("C")
    s.annotate(b, "k", 1)
    s.annotate(b, "k", 2)


@case("unannotate_block", matmul)
def _(s):
    b = s.get_sblock("C")
    s.annotate(b, "a", 1)
    s.annotate(b, "b", 2)
    s.unannotate(b, "a")


@case("unannotate_loop", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.annotate(i, "x", "y")
    s.annotate(j, "x", "z")
    s.unannotate(i, "x")


@case("unannotate_te_attr", softmax)
def _(s):
    b = s.get_sblock("T_softmax_norm")
    s.unannotate(b, "axis")


@case("annotate_root_block", ewise2)
def _(s):
    r = s.get_sblock("root")
    s.annotate(r, "pragma_auto_unroll_max_step", 16)
    s.annotate(r, "pragma_unroll_explicit", 0)


@case("annotate_parallel_loop", ewise2)
def _(s):
    b = s.get_sblock("B")
    i, j = s.get_loops(b)
    s.parallel(i)
    s.annotate(i, "note", "parallel and annotated")


# ---- add_unit_loop
@case("add_unit_loop_block", matmul)
def _(s):
    b = s.get_sblock("C")
    s.add_unit_loop(b)


@case("add_unit_loop_loop", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.add_unit_loop(j)


@case("add_unit_loop_opaque", opaque_f)
def _(s):
    b = s.get_sblock("opaque")
    u = s.add_unit_loop(b)
    s.annotate(u, "unit", 1)


@case("add_unit_loop_then_bind", ewise2)
def _(s):
    b = s.get_sblock("B")
    u = s.add_unit_loop(b)
    s.bind(u, "threadIdx.y")


# ---- getters driving schedules
@case("child_blocks_root_parallel", ewise3)
def _(s):
    r = s.get_sblock("root")
    for b in s.get_child_blocks(r):
        i, j = s.get_loops(b)
        s.parallel(i)


@case("child_blocks_of_loop", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    (c,) = s.get_child_blocks(i)
    s.annotate(c, "found", "via loop")


@case("producers_consumers_chain", ewise3)
def _(s):
    c = s.get_sblock("C")
    (p,) = s.get_producers(c)
    cons = s.get_consumers(c)
    for blk in [p] + list(cons):
        i, j = s.get_loops(blk)
        s.vectorize(j)


@case("producers_of_conv", conv2d_nchw)
def _(s):
    b = s.get_sblock("conv2d_nchw")
    (pad,) = s.get_producers(b)
    loops = s.get_loops(pad)
    f = s.fuse(*loops)
    s.parallel(f)


@case("consumers_of_matmul_relu", matmul_relu)
def _(s):
    b = s.get_sblock("C")
    (relu,) = s.get_consumers(b)
    i, j = s.get_loops(relu)
    s.bind(i, "blockIdx.x")
    s.bind(j, "threadIdx.x")


# ---- longer chains (10+ steps)
@case("chain_cpu_matmul_tile", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [None, 32])
    j0, j1 = s.split(j, [None, 32])
    k0, k1 = s.split(k, [None, 4])
    i1o, i1i = s.split(i1, [None, 4])
    j1o, j1i = s.split(j1, [None, 8])
    s.reorder(i0, j0, k0, i1o, j1o, k1, i1i, j1i)
    f = s.fuse(i0, j0)
    s.parallel(f)
    s.unroll(i1i)
    s.vectorize(j1i)
    s.annotate(b, "meta_schedule.tiling_structure", "SSRSRS")
    s.annotate(k0, "pragma_auto_unroll_max_step", 16)


@case("chain_gpu_matmul", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    i0, i1, i2 = s.split(i, [None, 8, 4])
    j0, jv, j1, j2 = s.split(j, [None, 2, 8, 2])
    k0, k1 = s.split(k, [None, 8])
    s.reorder(i0, j0, jv, i1, j1, k0, k1, i2, j2)
    bx = s.fuse(i0, j0)
    s.bind(bx, "blockIdx.x")
    s.bind(jv, "vthread.x")
    tx = s.fuse(i1, j1)
    s.bind(tx, "threadIdx.x")
    s.unroll(k1)
    s.vectorize(j2)
    s.annotate(b, "pragma_auto_unroll_max_step", 512)
    s.annotate(b, "pragma_unroll_explicit", 1)


@case("chain_conv2d_nchw_cpu", conv2d_nchw)
def _(s):
    b = s.get_sblock("conv2d_nchw")
    n, f, y, x, rc, ry, rx = s.get_loops(b)
    f0, f1 = s.split(f, [None, 4])
    x0, x1 = s.split(x, [None, 7])
    rc0, rc1 = s.split(rc, [None, 4])
    s.reorder(n, f0, y, x0, rc0, ry, rx, rc1, f1, x1)
    o = s.fuse(n, f0, y)
    s.parallel(o)
    s.unroll(rc1)
    s.vectorize(x1)
    (pad,) = s.get_producers(b)
    pl = s.get_loops(pad)
    pf = s.fuse(*pl)
    p0, p1 = s.split(pf, [None, 16])
    s.parallel(p0)
    s.vectorize(p1)


@case("chain_conv2d_nhwc_gpu", conv2d_nhwc)
def _(s):
    b = s.get_sblock("conv2d_nhwc")
    n, h, w, co, rh, rw, rc = s.get_loops(b)
    nhw = s.fuse(n, h, w)
    bx, tx = s.split(nhw, [None, 49])
    co0, co1 = s.split(co, [None, 4])
    s.reorder(bx, co0, tx, co1)
    s.bind(bx, "blockIdx.x")
    s.bind(co0, "blockIdx.y")
    s.bind(tx, "threadIdx.x")
    s.unroll(rh)
    s.unroll(rw)
    s.annotate(rc, "pragma_unroll_explicit", 0)
    (pad,) = s.get_producers(b)
    pl = s.get_loops(pad)
    pf = s.fuse(*pl)
    pb, pt = s.split(pf, [None, 128])
    s.bind(pb, "blockIdx.x")
    s.bind(pt, "threadIdx.x")


@case("chain_softmax_gpu", softmax)
def _(s):
    r = s.get_sblock("root")
    blocks = s.get_child_blocks(r)
    for blk in blocks:
        loops = s.get_loops(blk)
        s.bind(loops[0], "blockIdx.x")
        l0, l1 = s.split(loops[1], [None, 32])
        s.bind(l1, "threadIdx.x")
        s.annotate(l0, "pragma_unroll_explicit", 1)


@case("chain_softmax_cpu", softmax)
def _(s):
    r = s.get_sblock("root")
    blocks = s.get_child_blocks(r)
    for blk in blocks:
        loops = s.get_loops(blk)
        s.parallel(loops[0])
        l0, l1 = s.split(loops[1], [None, 8])
        s.unroll(l1)
    s.unannotate(blocks[3], "axis")


@case("chain_ewise3_mixed", ewise3)
def _(s):
    b = s.get_sblock("B")
    c = s.get_sblock("C")
    d = s.get_sblock("D")
    bi, bj = s.get_loops(b)
    f = s.fuse(bi, bj)
    s.parallel(f)
    ci, cj = s.get_loops(c)
    cj0, cj1 = s.split(cj, [None, 8])
    s.reorder(cj0, ci, cj1)
    s.vectorize(cj1)
    di, dj = s.get_loops(d)
    di0, di1 = s.split(di, [None, 10], preserve_unit_iters=False)
    s.unroll(di1)
    s.add_unit_loop(d)
    s.annotate(d, "tag", "last")


@case("chain_batch_matmul_gpu", batch_matmul)
def _(s):
    b = s.get_sblock("Z")
    bb, i, j, k = s.get_loops(b)
    i0, i1 = s.split(i, [None, 8])
    j0, j1 = s.split(j, [None, 8])
    k0, k1 = s.split(k, [None, 4])
    s.reorder(bb, i0, j0, i1, j1, k0, k1)
    bx = s.fuse(bb, i0, j0)
    tx = s.fuse(i1, j1)
    s.bind(bx, "blockIdx.x")
    s.bind(tx, "threadIdx.x")
    s.unroll(k1)


@case("chain_norm_reduce", norm)
def _(s):
    c = s.get_sblock("C")
    bb, i, j = s.get_loops(c)
    f = s.fuse(i, j)
    f0, f1 = s.split(f, [None, 64])
    s.parallel(bb)
    s.unroll(f1)
    (d,) = s.get_consumers(c)
    (dl,) = s.get_loops(d)
    s.parallel(dl)
    s.annotate(c, "note", "reduce")
    s.annotate(dl, "n", 1)


@case("chain_rowsum_cross_thread", rowsum)
def _(s):
    b = s.get_sblock("S")
    i, k = s.get_loops(b)
    k0, k1, k2 = s.split(k, [None, 32, 2])
    s.reorder(i, k1, k0, k2)
    s.bind(i, "blockIdx.x")
    s.bind(k1, "threadIdx.x")
    s.unroll(k2)
    s.annotate(k0, "pragma_x", 1)


@case("chain_split_fuse_roundtrip", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    f = s.fuse(i, j)
    a, c = s.split(f, [None, 128])
    a0, a1 = s.split(a, [None, 4])
    g = s.fuse(a1, c)
    s.parallel(a0)
    s.unroll(g)


@case("chain_matmul_relu_two_blocks", matmul_relu)
def _(s):
    mm = s.get_sblock("C")
    relu = s.get_sblock("compute")
    i, j, k = s.get_loops(mm)
    i0, i1 = s.split(i, [None, 16])
    s.reorder(i0, j, k, i1)
    s.parallel(i0)
    s.unroll(i1)
    ri, rj = s.get_loops(relu)
    f = s.fuse(ri, rj)
    f0, f1 = s.split(f, [None, 16])
    s.parallel(f0)
    s.vectorize(f1)


@case("get_only_no_change", matmul_relu)
def _(s):
    r = s.get_sblock("root")
    bs = s.get_child_blocks(r)
    s.get_loops(bs[0])
    s.get_producers(bs[1])
    s.get_consumers(bs[0])


# ============================================================ refused cases

@refused("fuse_non_adjacent", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.fuse(i, k)


@refused("fuse_wrong_order", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.fuse(j, i)


@refused("fuse_two_blocks_loops", ewise2)
def _(s):
    bi, _ = s.get_loops(s.get_sblock("B"))
    ci, _ = s.get_loops(s.get_sblock("C"))
    s.fuse(bi, ci)


@refused("fuse_loop_with_min", loop_with_min_f)
def _(s):
    i, j = s.get_loops(s.get_sblock("B"))
    s.fuse(i, j)


@refused("reorder_duplicate", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.reorder(i, i)


@refused("reorder_different_blocks", ewise2)
def _(s):
    bi, bj = s.get_loops(s.get_sblock("B"))
    ci, cj = s.get_loops(s.get_sblock("C"))
    s.reorder(cj, bi)


@refused("reorder_after_split_dead_loop", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.split(i, [None, 4])
    s.reorder(j, i)


@refused("parallel_reduction_loop", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    s.parallel(k)


@refused("parallel_fused_with_reduction", matmul)
def _(s):
    b = s.get_sblock("C")
    i, j, k = s.get_loops(b)
    f = s.fuse(j, k)
    s.parallel(f)


@refused("parallel_scan", scan_f)
def _(s):
    (i,) = s.get_loops(s.get_sblock("scan"))
    s.parallel(i)


@refused("vectorize_reduction_loop", rowsum)
def _(s):
    i, k = s.get_loops(s.get_sblock("S"))
    s.vectorize(k)


@refused("vectorize_split_reduction_inner", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    k0, k1 = s.split(k, [None, 4])
    s.vectorize(k1)


@refused("bind_reduction_to_block", rowsum)
def _(s):
    i, k = s.get_loops(s.get_sblock("S"))
    s.bind(k, "blockIdx.x")


@refused("bind_unknown_thread_tag", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.bind(i, "fooIdx.q")


@case("accepted_bind_misspelled_thread_tag", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.bind(i, "threadIdx.w")


@refused("bind_scan_loop", scan_f)
def _(s):
    (i,) = s.get_loops(s.get_sblock("scan"))
    s.bind(i, "threadIdx.x")


@refused("split_factors_not_covering", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.split(i, [2, 8])


@refused("split_two_none", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.split(i, [None, None])


@refused("split_zero_factor", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.split(i, [0, None])


@refused("split_negative_factor", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.split(i, [None, -4])


@case("accepted_split_factors_exceed_extent", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.split(i, [64, 4])


@refused("split_loop_after_split", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.split(i, [None, 4])
    s.split(i, [None, 2])


@refused("parallel_loop_after_fuse", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.fuse(i, j)
    s.parallel(i)


@refused("vectorize_loop_after_split", ewise2)
def _(s):
    i, j = s.get_loops(s.get_sblock("B"))
    s.split(j, [None, 4])
    s.vectorize(j)


@refused("get_sblock_unknown_name", matmul)
def _(s):
    s.get_sblock("D")


@refused("get_sblock_unknown_func", matmul)
def _(s):
    s.get_sblock("C", func_name="nope")


@refused("unannotate_missing_key", matmul)
def _(s):
    b = s.get_sblock("C")
    s.unannotate(b, "never_set")


@refused("fuse_single_loop_after_split_dead", ewise2)
def _(s):
    i, j = s.get_loops(s.get_sblock("B"))
    i0, i1 = s.split(i, [None, 8])
    s.fuse(i, j)


@refused("bind_loop_after_fuse_dead", ewise2)
def _(s):
    i, j = s.get_loops(s.get_sblock("B"))
    s.fuse(i, j)
    s.bind(j, "threadIdx.x")


@refused("reorder_three_with_duplicate", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.reorder(k, j, k)


@refused("parallel_opaque_block_loop", opaque_f)
def _(s):
    (i,) = s.get_loops(s.get_sblock("opaque"))
    s.parallel(i)


@refused("add_unit_loop_dead_loop", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.fuse(i, j)
    s.add_unit_loop(i)


@refused("fuse_dead_loops_again", ewise2)
def _(s):
    r = s.get_sblock("root")
    bs = s.get_child_blocks(r)
    i, j = s.get_loops(bs[0])
    s.fuse(i, j)
    s.fuse(i, j)


# ============================================================ driver

# Accepted by TVM although one might expect a refusal; recorded as normal
# cases (and listed in NOTES.md).


@case("accepted_bind_same_tag_twice", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.bind(i, "threadIdx.x")
    s.bind(j, "threadIdx.x")


@case("accepted_parallel_then_vectorize_same_nest", ewise2)
def _(s):
    i, j = s.get_loops(s.get_sblock("B"))
    s.parallel(i)
    s.parallel(j)


@case("accepted_unroll_bound_loop", ewise2)
def _(s):
    i, j = s.get_loops(s.get_sblock("B"))
    s.bind(i, "blockIdx.x")
    s.unroll(i)


@case("accepted_vectorize_outer_with_reduction_inside", matmul)
def _(s):
    i, j, k = s.get_loops(s.get_sblock("C"))
    s.vectorize(j)


def error_summary(err: BaseException) -> str:
    """Error class, headline and the "Error message:" part, without the IR."""
    text = str(err)
    lines = text.splitlines()
    out = [type(err).__name__]
    if lines:
        out.append(lines[0])
    for idx, line in enumerate(lines):
        if line.startswith("Error message:"):
            out.extend(lines[idx:])
            break
    # drop repeated headline if the message is one line
    res = []
    for line in out:
        if not res or res[-1] != line:
            res.append(line)
    return "\n".join(res).rstrip() + "\n"


def run_case(inp, steps):
    func = inp()
    mod = tvm.IRModule({"main": func})
    in_text = mod.script()
    sch = s_tir.Schedule(inp())
    rec = Rec(sch)
    return mod, in_text, sch, rec, steps


def main() -> int:
    os.makedirs(OK_DIR, exist_ok=True)
    os.makedirs(BAD_DIR, exist_ok=True)
    clean_dir(OK_DIR, (".tir",))
    clean_dir(BAD_DIR, (".tir", ".txt"))
    problems = []
    n_ok = n_bad = 0
    for name, inp, steps in CASES:
        mod, in_text, sch, rec, _ = run_case(inp, steps)
        try:
            steps(rec)
        except Refused as r:
            problems.append(f"{name}: refused: {error_summary(r.err).splitlines()[-1]}")
            continue
        real = str(sch.trace)
        mine = trace_text(rec.insts)
        if real != mine:
            problems.append(f"{name}: instruction builder disagrees with TVM's trace")
        # replay the printed trace on a fresh copy: it must give the same module
        ns = {"s_tir": s_tir}
        try:
            exec(real, ns)  # noqa: S102
            sch2 = s_tir.Schedule(inp())
            ns["apply_trace"](sch2)
            if not structural_equal(sch2.mod, sch.mod):
                problems.append(f"{name}: replaying the printed trace gives a different module (kept)")
        except Exception as e:  # noqa: BLE001
            problems.append(f"{name}: the printed trace does not run in Python (kept): {type(e).__name__}: {e}")
        write_text(os.path.join(OK_DIR, name + ".tir"), in_text + "\n\n" + real + "\n")
        write_text(os.path.join(OK_DIR, name + ".expected.tir"), sch.mod.script())
        n_ok += 1
    for name, inp, steps in REFUSED:
        mod, in_text, sch, rec, _ = run_case(inp, steps)
        try:
            steps(rec)
        except Refused as r:
            insts = list(rec.insts) + [r.inst]
            real_prefix = str(sch.trace)
            if real_prefix != trace_text(rec.insts):
                problems.append(f"{name}: instruction builder disagrees with TVM's trace")
            write_text(os.path.join(BAD_DIR, name + ".tir"), in_text + "\n\n" + trace_text(insts) + "\n")
            write_text(os.path.join(BAD_DIR, name + ".expected.txt"), error_summary(r.err))
            n_bad += 1
            continue
        problems.append(f"{name}: expected a refusal but TVM accepted it")
    print(f"{n_ok} accepted cases in {os.path.relpath(OK_DIR, REPO)}")
    print(f"{n_bad} refused cases in {os.path.relpath(BAD_DIR, REPO)}")
    for p in problems:
        print("  " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
