# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3 = sch.get_child_blocks(b0)
  b4 = sch.get_sblock(name="root", func_name="main")
  b5, b6, b7 = sch.get_child_blocks(b4)
  sch.compute_inline(block=b5)
  sch.compute_inline(block=b6)
