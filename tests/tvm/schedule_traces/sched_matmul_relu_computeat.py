# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  l6, l7 = sch.split(loop=l4, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  sch.get_producers(block=b1)
  b8, = sch.get_consumers(block=b1)
  sch.reverse_compute_at(block=b8, loop=l6, preserve_unit_loops=False, index=-1)
