# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6 = sch.get_loops(block=b1)
  l7, l8, l9, l10, l11, l12, l13 = sch.get_loops(block=b2)
  b14 = sch.decompose_reduction(block=b2, loop=l11)
