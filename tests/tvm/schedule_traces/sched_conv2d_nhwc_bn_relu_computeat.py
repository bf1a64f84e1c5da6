# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2, b3, b4, b5, b6 = sch.get_child_blocks(b0)
  l7, l8, l9, l10, l11, l12, l13 = sch.get_loops(block=b2)
  l14, l15 = sch.split(loop=l10, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b16, = sch.get_producers(block=b2)
  b17, = sch.get_consumers(block=b2)
  sch.compute_at(block=b16, loop=l14, preserve_unit_loops=True, index=-1)
  sch.reverse_compute_at(block=b17, loop=l14, preserve_unit_loops=False, index=-1)
