# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4 = sch.get_loops(block=b1)
  b5 = sch.decompose_reduction(block=b1, loop=l4)
