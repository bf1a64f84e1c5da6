# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="compute", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l2, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  l6, l7 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l1, l4, l6, l5, l7)
  b8 = sch.decompose_reduction(block=b0, loop=l6)
  b9 = sch.blockize(target=l5, preserve_unit_iters=True)
