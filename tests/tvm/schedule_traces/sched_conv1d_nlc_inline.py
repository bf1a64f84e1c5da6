# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  b3 = sch.get_sblock(name="root", func_name="main")
  b4, b5 = sch.get_child_blocks(b3)
  sch.compute_inline(block=b4)
