# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  b1, = sch.get_child_blocks(b0)
  l2, l3, l4 = sch.get_loops(block=b1)
  l5 = sch.fuse(l2, l3, preserve_unit_iters=True)
  l6, l7 = sch.split(loop=l4, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l5, thread_axis="blockIdx.x")
  sch.bind(loop=l7, thread_axis="threadIdx.x")
