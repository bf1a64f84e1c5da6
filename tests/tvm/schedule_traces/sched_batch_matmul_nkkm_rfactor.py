# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4, l5 = sch.get_loops(block=b1)
  l6, l7 = sch.split(loop=l5, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b8 = sch.rfactor(loop=l7, factor_axis=0)
  l9, l10, l11, l12, l13 = sch.get_loops(block=b8)
  sch.parallel(loop=l9)
