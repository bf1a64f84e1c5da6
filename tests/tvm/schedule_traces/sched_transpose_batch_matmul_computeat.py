# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3 = sch.get_child_blocks(b0)
  l4, l5, l6, l7, l8 = sch.get_loops(block=b3)
  l9, l10 = sch.split(loop=l7, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b11, b12 = sch.get_producers(block=b3)
  sch.get_consumers(block=b3)
  sch.compute_at(block=b11, loop=l9, preserve_unit_loops=True, index=-1)
  sch.compute_at(block=b12, loop=l9, preserve_unit_loops=True, index=-1)
