# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3 = sch.get_child_blocks(b0)
  l4, l5, l6, l7, l8 = sch.get_loops(block=b3)
  l9, l10 = sch.split(loop=l4, factors=[None, 1], preserve_unit_iters=True, disable_predication=False)
  l11, l12 = sch.split(loop=l5, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  l13, l14 = sch.split(loop=l6, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l15, l16 = sch.split(loop=l7, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l9, l11, l13, l15, l8, l10, l12, l14, l16)
  l17 = sch.fuse(l9, l11, preserve_unit_iters=True)
  sch.parallel(loop=l17)
  sch.vectorize(loop=l16)
  sch.unroll(loop=l14)
