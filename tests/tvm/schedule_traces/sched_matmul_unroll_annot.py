# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="root", func_name="main")
  sch.annotate(block_or_loop=b0, ann_key="pragma_auto_unroll_max_step", ann_val=64)
  sch.annotate(block_or_loop=b0, ann_key="pragma_unroll_explicit", ann_val=1)
  b1 = sch.get_sblock(name="root", func_name="main")
  b2, = sch.get_child_blocks(b1)
  l3, l4, l5 = sch.get_loops(block=b2)
  l6, l7 = sch.split(loop=l5, factors=[None, 2], preserve_unit_iters=True, disable_predication=False)
  sch.unroll(loop=l7)
  sch.annotate(block_or_loop=l3, ann_key="pragma_loop_marker", ann_val="outer")
  sch.annotate(block_or_loop=b2, ann_key="meta_schedule.tiling_structure", ann_val="SSRSRS")
  sch.annotate(block_or_loop=l6, ann_key="corpus_list_ann", ann_val=[0, 0, 1])
  sch.annotate(block_or_loop=l3, ann_key="ratio", ann_val=0.5)
