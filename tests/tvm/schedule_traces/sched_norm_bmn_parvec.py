# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  sch.parallel(loop=l3)
  l6, = sch.get_loops(block=b2)
  l7, l8 = sch.split(loop=l6, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  sch.parallel(loop=l7)
  sch.vectorize(loop=l8)
