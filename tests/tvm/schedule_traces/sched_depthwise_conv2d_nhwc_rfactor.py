# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6, l7, l8 = sch.get_loops(block=b2)
  l9 = sch.fuse(l7, l8, preserve_unit_iters=True)
  l10, l11 = sch.split(loop=l9, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b12 = sch.rfactor(loop=l11, factor_axis=0)
  l13, l14, l15, l16, l17, l18 = sch.get_loops(block=b12)
  sch.parallel(loop=l13)
