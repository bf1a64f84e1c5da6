# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  l6 = sch.fuse(l3, l4, preserve_unit_iters=True)
  sch.parallel(loop=l6)
  l7, l8 = sch.get_loops(block=b2)
  l9 = sch.fuse(l7, l8, preserve_unit_iters=True)
  l10, l11 = sch.split(loop=l9, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l10)
  sch.vectorize(loop=l11)
