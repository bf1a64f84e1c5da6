# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4 = sch.get_loops(block=b1)
  l5, l6 = sch.split(loop=l2, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  l7, l8 = sch.split(loop=l3, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l5, l7, l6)
  b9 = sch.cache_write(block=b1, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b9, loop=l7, preserve_unit_loops=False, index=-1)
  b10 = sch.cache_read(block=b1, read_buffer_index=0, storage_scope="global")
  sch.compute_at(block=b10, loop=l7, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l5)
