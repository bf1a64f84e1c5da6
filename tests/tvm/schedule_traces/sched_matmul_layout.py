# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  sch.transform_layout(block=b1, buffer=("write", 0), index_map=lambda i, j: (j // 4, i, j % 4,), pad_value=None, assume_injective_transform=False)
