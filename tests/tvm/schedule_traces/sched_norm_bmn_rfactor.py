# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  l6 = sch.fuse(l4, l5, preserve_unit_iters=True)
  l7, l8 = sch.split(loop=l6, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b9 = sch.rfactor(loop=l8, factor_axis=0)
  l10, l11, l12 = sch.get_loops(block=b9)
  sch.parallel(loop=l10)
