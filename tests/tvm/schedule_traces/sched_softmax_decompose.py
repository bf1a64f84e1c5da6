# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3, b4 = sch.get_child_blocks(b0)
  l5, l6 = sch.get_loops(block=b1)
  b7 = sch.decompose_reduction(block=b1, loop=l6)
  l8, l9 = sch.get_loops(block=b2)
  l10, l11 = sch.get_loops(block=b3)
  b12 = sch.decompose_reduction(block=b3, loop=l11)
  l13, l14 = sch.get_loops(block=b4)
