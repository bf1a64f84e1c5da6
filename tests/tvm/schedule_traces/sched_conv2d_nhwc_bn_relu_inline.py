# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3, b4, b5, b6 = sch.get_child_blocks(b0)
  b7 = sch.get_sblock(name="root", func_name="main")
  b8, b9, b10, b11, b12, b13 = sch.get_child_blocks(b7)
  sch.compute_inline(block=b8)
  sch.compute_inline(block=b10)
  sch.compute_inline(block=b11)
  sch.compute_inline(block=b12)
