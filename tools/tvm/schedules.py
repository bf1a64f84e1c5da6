"""Realistic schedule recipes for the te workloads (used by gen_roundtrip_corpus.py).

Every recipe takes an `s_tir.Schedule` and either transforms it or raises; the
caller drops the variant when any primitive is rejected.  Recipes are generic:
they find the "main" block (the one with reduction iterators, else the last
block) and classify its loops by the iterator types of its block, which works
for te.create_prim_func output (trivial bindings, spatial loops outermost).
"""

from __future__ import annotations

import tvm
from tvm import s_tir, tirx

SPATIAL, REDUCE = 0, 2


def child_blocks(sch):
    return list(sch.get_child_blocks(sch.get_sblock("root")))


def iter_kinds(sch, block):
    return ["S" if iv.iter_type == SPATIAL else "R" if iv.iter_type == REDUCE else "O"
            for iv in sch.get(block).iter_vars]


def main_block(sch):
    blocks = child_blocks(sch)
    reds = [b for b in blocks if "R" in iter_kinds(sch, b)]
    if not reds:
        return blocks[-1]
    # the reduction block with the most loops (conv: the conv, not a pooling)
    best = reds[0]
    for b in reds[1:]:
        if len(sch.get_loops(b)) >= len(sch.get_loops(best)):
            best = b
    return best


def extent(sch, loop) -> int:
    e = sch.get(loop).extent
    if not isinstance(e, tvm.tirx.IntImm):
        raise ValueError("symbolic extent")
    return int(e.value)


def loops_by_kind(sch, block):
    loops = sch.get_loops(block)
    kinds = iter_kinds(sch, block)
    if len(loops) != len(kinds):
        raise ValueError("non-trivial binding")
    s = [l for l, k in zip(loops, kinds) if k == "S"]
    r = [l for l, k in zip(loops, kinds) if k == "R"]
    return s, r


def divisor(n: int, prefs) -> int:
    for f in prefs:
        if f <= n and n % f == 0:
            return f
    return 1


# ---------------------------------------------------------------- CPU recipes


def cpu_tile(sch, nondividing=False):
    """Two-level tiling of spatial loops, reduction in the middle, parallel outer,
    vectorize the innermost spatial loop, unroll the one above it."""
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    outer, inner = [], []
    for l in s:
        e = extent(sch, l)
        if nondividing:
            f = 7 if e > 7 else e
        else:
            f = divisor(e, (8, 4, 2))
        o, i = sch.split(l, factors=[None, f])
        outer.append(o)
        inner.append(i)
    sch.reorder(*outer, *r, *inner)
    fused = sch.fuse(*outer[:2]) if len(outer) >= 2 else outer[0]
    sch.parallel(fused)
    sch.vectorize(inner[-1])
    if len(inner) >= 2:
        sch.unroll(inner[-2])


def cpu_parallel_vectorize_all(sch):
    """Elementwise style: for each block fuse its spatial loops, split by 16,
    parallel the outer part and vectorize the inner part (spatial-only blocks)."""
    done = 0
    for b in child_blocks(sch):
        s, r = loops_by_kind(sch, b)
        if r:
            if len(s) >= 1:
                f = sch.fuse(*s) if len(s) > 1 else s[0]
                sch.parallel(f)
                done += 1
            continue
        f = sch.fuse(*s) if len(s) > 1 else s[0]
        o, i = sch.split(f, factors=[None, 16])
        sch.parallel(o)
        sch.vectorize(i)
        done += 1
    if not done:
        raise ValueError("nothing")


def inline_all(sch):
    """compute_inline every producer that can be inlined, then reverse_compute_inline
    epilogues into the main block."""
    ok = 0
    mb = sch.get(main_block(sch)).name_hint
    for b in child_blocks(sch):
        if sch.get(b).name_hint == mb:
            continue
        try:
            sch.compute_inline(b)
            ok += 1
        except Exception:  # noqa: BLE001
            try:
                sch.reverse_compute_inline(b)
                ok += 1
            except Exception:  # noqa: BLE001
                pass
    if not ok:
        raise ValueError("nothing inlined")


def compute_at_producers(sch):
    """Tile the main block and compute its producers (padding, transposes) under
    the outermost tile loop; reverse_compute_at the consumers."""
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    o, i = sch.split(s[-1], factors=[None, divisor(extent(sch, s[-1]), (4, 2))])
    prods = sch.get_producers(b)
    cons = sch.get_consumers(b)
    if not prods and not cons:
        raise ValueError("no producers")
    for p in prods:
        sch.compute_at(p, o, preserve_unit_loops=True)
    for c in cons:
        sch.reverse_compute_at(c, o)


def cache_write_cpu(sch):
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    if len(s) < 2:
        raise ValueError("needs two spatial loops")
    o0, i0 = sch.split(s[0], factors=[None, divisor(extent(sch, s[0]), (16, 8, 4, 2))])
    o1, i1 = sch.split(s[1], factors=[None, divisor(extent(sch, s[1]), (16, 8, 4, 2))])
    sch.reorder(o0, o1, i0)
    outer = [o0, o1]
    cw = sch.cache_write(b, 0, "global")
    sch.reverse_compute_at(cw, outer[-1])
    cr = sch.cache_read(b, 0, "global")
    sch.compute_at(cr, outer[-1])
    sch.parallel(outer[0])


def rfactor(sch):
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    if not r:
        raise ValueError("no reduction")
    rl = sch.fuse(*r) if len(r) > 1 else r[0]
    ro, ri = sch.split(rl, factors=[None, 4])
    rf = sch.rfactor(ri, 0)
    sch.parallel(sch.get_loops(rf)[0])


def decompose(sch):
    ok = 0
    for b in child_blocks(sch):
        s, r = loops_by_kind(sch, b)
        if r:
            sch.decompose_reduction(b, r[0])
            ok += 1
    if not ok:
        raise ValueError("no reduction")


def unroll_annotate(sch):
    root = sch.get_sblock("root")
    sch.annotate(root, "pragma_auto_unroll_max_step", 64)
    sch.annotate(root, "pragma_unroll_explicit", 1)
    b = main_block(sch)
    loops = sch.get_loops(b)
    o, i = sch.split(loops[-1], factors=[None, 2])
    sch.unroll(i)
    sch.annotate(loops[0], "pragma_loop_marker", "outer")
    sch.annotate(b, "meta_schedule.tiling_structure", "SSRSRS")
    sch.annotate(o, "corpus_list_ann", [0, 0, 1])
    sch.annotate(loops[0], "ratio", 0.5)


def blockize(sch):
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    o0, i0 = sch.split(s[-1], factors=[None, divisor(extent(sch, s[-1]), (4, 2))])
    if r:
        sch.reorder(o0, *r, i0)
    sch.blockize(i0)


def reorder_reverse(sch):
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    if len(s) < 2:
        raise ValueError("needs two spatial loops")
    sch.reorder(*reversed(s))
    sch.add_unit_loop(b)


def storage_align_cache(sch):
    b = main_block(sch)
    cr = sch.cache_read(b, 0, "shared")
    sch.storage_align(cr, 0, axis=-2, factor=32, offset=1)
    cw = sch.cache_write(b, 0, "local")
    sch.set_scope(cr, 0, "shared.dyn")


def transform_layout(sch):
    b = main_block(sch)
    buf_ndim = len(sch.get(b).writes[0].region)
    if buf_ndim != 2:
        raise ValueError("2-D output only")
    sch.transform_layout(b, ("write", 0), lambda i, j: (j // 4, i, j % 4))


# ---------------------------------------------------------------- GPU recipes


def gpu_simple(sch, threads=64):
    """Bind each block: fuse the spatial loops, split by `threads`, bind."""
    for b in child_blocks(sch):
        s, r = loops_by_kind(sch, b)
        f = sch.fuse(*s) if len(s) > 1 else s[0]
        bx, tx = sch.split(f, factors=[None, threads])
        sch.bind(bx, "blockIdx.x")
        sch.bind(tx, "threadIdx.x")


def gpu_cross_thread_reduction(sch):
    """Reduction blocks: bind the (fused) reduction loop to threadIdx.x so that
    LowerCrossThreadReduction produces T.tvm_thread_allreduce."""
    ok = 0
    for b in child_blocks(sch):
        s, r = loops_by_kind(sch, b)
        f = sch.fuse(*s) if len(s) > 1 else s[0]
        if r:
            rr = sch.fuse(*r) if len(r) > 1 else r[0]
            _, rt = sch.split(rr, factors=[None, 32])
            sch.bind(f, "blockIdx.x")
            sch.bind(rt, "threadIdx.x")
            ok += 1
        else:
            bx, tx = sch.split(f, factors=[None, 32])
            sch.bind(bx, "blockIdx.x")
            sch.bind(tx, "threadIdx.x")
    if not ok:
        raise ValueError("no reduction")


def gpu_shared(sch, vthread=False):
    """The classic GPU tiling: blockIdx / (vthread) / threadIdx tiles, shared
    memory for every input (cooperative fetch), a local accumulator."""
    b = main_block(sch)
    s, r = loops_by_kind(sch, b)
    if not r:
        raise ValueError("no reduction")
    n_reads = len(sch.get(b).reads)
    S0, SV, S1, S2, R0, R1 = [], [], [], [], [], []
    nthreads = 1
    for idx, l in enumerate(s):
        e = extent(sch, l)
        t = divisor(e, (8, 4, 2)) if idx >= len(s) - 2 else 1
        v = divisor(e // t, (2,)) if idx == len(s) - 1 else 1
        if vthread and idx == len(s) - 2:
            vt = divisor(e // t, (2,))
            a, bv, c, d = sch.split(l, factors=[None, vt, t, v])
            SV.append(bv)
        else:
            a, c, d = sch.split(l, factors=[None, t, v])
        S0.append(a)
        S1.append(c)
        S2.append(d)
        nthreads *= t
    for l in r:
        e = extent(sch, l)
        a, c = sch.split(l, factors=[None, divisor(e, (8, 4, 2))])
        R0.append(a)
        R1.append(c)
    sch.reorder(*S0, *SV, *S1, *R0, *R1, *S2)
    bx = sch.fuse(*S0) if len(S0) > 1 else S0[0]
    sch.bind(bx, "blockIdx.x")
    for v in SV:
        sch.bind(v, "vthread.x")
    tx = sch.fuse(*S1) if len(S1) > 1 else S1[0]
    sch.bind(tx, "threadIdx.x")
    cw = sch.cache_write(b, 0, "local")
    sch.reverse_compute_at(cw, tx)
    for i in range(n_reads):
        cr = sch.cache_read(b, i, "shared")
        sch.compute_at(cr, R0[-1])
        cl = sch.get_loops(cr)
        n_outer = len(sch.get_loops(b)) - len(R1) - len(S2)
        inner = cl[n_outer:]
        f = sch.fuse(*inner) if len(inner) > 1 else inner[0]
        _, ft = sch.split(f, factors=[None, nthreads])
        sch.bind(ft, "threadIdx.x")
    sch.decompose_reduction(b, R0[0])


# ---------------------------------------------------------------- registry

RECIPES = {
    "tile": cpu_tile,
    "tile_nondiv": lambda sch: cpu_tile(sch, nondividing=True),
    "parvec": cpu_parallel_vectorize_all,
    "inline": inline_all,
    "computeat": compute_at_producers,
    "cachewrite": cache_write_cpu,
    "rfactor": rfactor,
    "decompose": decompose,
    "unroll_annot": unroll_annotate,
    "blockize": blockize,
    "reorder": reorder_reverse,
    "align": storage_align_cache,
    "layout": transform_layout,
    "gpu_bind": gpu_simple,
    "gpu_allreduce": gpu_cross_thread_reduction,
    "gpu_shared": gpu_shared,
    "gpu_shared_vthread": lambda sch: gpu_shared(sch, vthread=True),
}
