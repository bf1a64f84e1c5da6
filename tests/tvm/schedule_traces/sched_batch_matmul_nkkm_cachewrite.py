# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4, l5 = sch.get_loops(block=b1)
  l6, l7 = sch.split(loop=l2, factors=[None, 1], preserve_unit_iters=True, disable_predication=False)
  l8, l9 = sch.split(loop=l3, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l6, l8, l7)
  b10 = sch.cache_write(block=b1, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b10, loop=l8, preserve_unit_loops=False, index=-1)
  b11 = sch.cache_read(block=b1, read_buffer_index=0, storage_scope="global")
  sch.compute_at(block=b11, loop=l8, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l6)
