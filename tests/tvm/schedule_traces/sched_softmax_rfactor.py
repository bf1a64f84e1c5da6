# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3, b4 = sch.get_child_blocks(b0)
  l5, l6 = sch.get_loops(block=b3)
  l7, l8 = sch.get_loops(block=b1)
  l9, l10 = sch.get_loops(block=b3)
  l11, l12 = sch.split(loop=l10, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b13 = sch.rfactor(loop=l12, factor_axis=0)
  l14, l15, l16 = sch.get_loops(block=b13)
  sch.parallel(loop=l14)
