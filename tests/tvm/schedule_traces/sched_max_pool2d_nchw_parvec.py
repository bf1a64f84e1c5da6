# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6 = sch.get_loops(block=b1)
  l7 = sch.fuse(l3, l4, l5, l6, preserve_unit_iters=True)
  l8, l9 = sch.split(loop=l7, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l8)
  sch.vectorize(loop=l9)
  l10, l11, l12, l13, l14, l15 = sch.get_loops(block=b2)
  l16 = sch.fuse(l10, l11, l12, l13, preserve_unit_iters=True)
  sch.parallel(loop=l16)
