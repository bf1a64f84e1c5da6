# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6, l7, l8, l9 = sch.get_loops(block=b2)
  l10, l11 = sch.split(loop=l6, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b12, = sch.get_producers(block=b2)
  sch.get_consumers(block=b2)
  sch.compute_at(block=b12, loop=l10, preserve_unit_loops=True, index=-1)
