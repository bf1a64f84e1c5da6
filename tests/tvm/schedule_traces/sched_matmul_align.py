# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  b2 = sch.cache_read(block=b1, read_buffer_index=0, storage_scope="shared")
  sch.storage_align(block=b2, buffer_index=0, axis=-2, factor=32, offset=1)
  b3 = sch.cache_write(block=b1, write_buffer_index=0, storage_scope="local")
  sch.set_scope(block=b2, buffer_index=0, storage_scope="shared.dyn")
