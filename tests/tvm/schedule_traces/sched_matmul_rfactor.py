# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4 = sch.get_loops(block=b1)
  l5, l6 = sch.split(loop=l4, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b7 = sch.rfactor(loop=l6, factor_axis=0)
  l8, l9, l10, l11 = sch.get_loops(block=b7)
  sch.parallel(loop=l8)
