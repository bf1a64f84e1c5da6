# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, b2 = sch.get_child_blocks(b0)
  l3, l4, l5, l6 = sch.get_loops(block=b1)
  l7 = sch.fuse(l3, l4, l5, l6, preserve_unit_iters=True)
  l8, l9 = sch.split(loop=l7, factors=[None, 64], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l8, thread_axis="blockIdx.x")
  sch.bind(loop=l9, thread_axis="threadIdx.x")
  l10, l11, l12, l13, l14, l15 = sch.get_loops(block=b2)
  l16 = sch.fuse(l10, l11, l12, l13, preserve_unit_iters=True)
  l17, l18 = sch.split(loop=l16, factors=[None, 64], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l17, thread_axis="blockIdx.x")
  sch.bind(loop=l18, thread_axis="threadIdx.x")
