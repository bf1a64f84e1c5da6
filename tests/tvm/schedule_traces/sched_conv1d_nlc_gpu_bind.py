# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5 = sch.get_loops(block=b1)
  l6 = sch.fuse(l3, l4, l5, preserve_unit_iters=True)
  l7, l8 = sch.split(loop=l6, factors=[None, 64], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l7, thread_axis="blockIdx.x")
  sch.bind(loop=l8, thread_axis="threadIdx.x")
  l9, l10, l11, l12, l13 = sch.get_loops(block=b2)
  l14 = sch.fuse(l9, l10, l11, preserve_unit_iters=True)
  l15, l16 = sch.split(loop=l14, factors=[None, 64], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l15, thread_axis="blockIdx.x")
  sch.bind(loop=l16, thread_axis="threadIdx.x")
