# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  l6 = sch.fuse(l4, l5, preserve_unit_iters=True)
  l7, l8 = sch.split(loop=l6, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l3, thread_axis="blockIdx.x")
  sch.bind(loop=l8, thread_axis="threadIdx.x")
  l9, = sch.get_loops(block=b2)
  l10, l11 = sch.split(loop=l9, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l10, thread_axis="blockIdx.x")
  sch.bind(loop=l11, thread_axis="threadIdx.x")
