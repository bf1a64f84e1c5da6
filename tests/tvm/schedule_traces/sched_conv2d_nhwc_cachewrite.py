# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6, l7, l8, l9 = sch.get_loops(block=b2)
  l10, l11 = sch.split(loop=l3, factors=[None, 1], preserve_unit_iters=True, disable_predication=False)
  l12, l13 = sch.split(loop=l4, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l10, l12, l11)
  b14 = sch.cache_write(block=b2, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b14, loop=l12, preserve_unit_loops=False, index=-1)
  b15 = sch.cache_read(block=b2, read_buffer_index=0, storage_scope="global")
  sch.compute_at(block=b15, loop=l12, preserve_unit_loops=False, index=-1)
  sch.parallel(loop=l10)
