# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  l6, l7 = sch.split(loop=l3, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l8, l9 = sch.split(loop=l4, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l6, l8, l5, l7, l9)
  l10 = sch.fuse(l6, l8, preserve_unit_iters=True)
  sch.parallel(loop=l10)
  sch.vectorize(loop=l9)
  sch.unroll(loop=l7)
