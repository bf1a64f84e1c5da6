# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4 = sch.get_loops(block=b1)
  l5, l6 = sch.split(loop=l2, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  l7, l8 = sch.split(loop=l3, factors=[None, 8], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l5, l7, l4, l6, l8)
  l9 = sch.fuse(l5, l7, preserve_unit_iters=True)
  sch.parallel(loop=l9)
  sch.vectorize(loop=l8)
  sch.unroll(loop=l6)
