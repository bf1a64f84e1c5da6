# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3, b4, b5, b6 = sch.get_child_blocks(b0)
  l7, l8, l9, l10, l11, l12, l13 = sch.get_loops(block=b2)
  l14, l15 = sch.split(loop=l7, factors=[None, 1], preserve_unit_iters=True, disable_predication=False)
  l16, l17 = sch.split(loop=l8, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l18, l19 = sch.split(loop=l9, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  l20, l21 = sch.split(loop=l10, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l14, l16, l18, l20, l11, l12, l13, l15, l17, l19, l21)
  l22 = sch.fuse(l14, l16, preserve_unit_iters=True)
  sch.parallel(loop=l22)
  sch.vectorize(loop=l21)
  sch.unroll(loop=l19)
