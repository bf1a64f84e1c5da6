# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6, l7, l8, l9 = sch.get_loops(block=b2)
  l10, l11 = sch.split(loop=l3, factors=[None, 1], preserve_unit_iters=True, disable_predication=False)
  l12, l13 = sch.split(loop=l4, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l14, l15 = sch.split(loop=l5, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l6, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l10, l12, l14, l16, l7, l8, l9, l11, l13, l15, l17)
  l18 = sch.fuse(l10, l12, preserve_unit_iters=True)
  sch.parallel(loop=l18)
  sch.vectorize(loop=l17)
  sch.unroll(loop=l15)
