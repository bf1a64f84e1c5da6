# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  b6 = sch.decompose_reduction(block=b1, loop=l4)
  l7, = sch.get_loops(block=b2)
