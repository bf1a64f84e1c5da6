# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6, l7, l8, l9 = sch.get_loops(block=b2)
  l10, l11 = sch.split(loop=l6, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l10, l7, l8, l9, l11)
  b12 = sch.blockize(target=l11, preserve_unit_iters=True)
