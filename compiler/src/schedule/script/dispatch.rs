//! Applying a primitive: turning bound arguments into the primitive's
//! inputs, calling it, and recording the call in the trace as TVM would.

use super::signatures::{Bound, Value};
use super::{Eval, Interpreter, Stop};
use crate::diagnostics::Diagnostic;
use crate::ir::{DataType, Expr, NodeId};
use crate::schedule::error::{codes, ScheduleError};
use crate::schedule::state::SRefKind;
use crate::schedule::trace::{Outputs, Rv, TraceArg};
use crate::schedule::{
    annotate, block_annotate, cache_read_write, compute_at, compute_inline, for_kind,
    get_block_loop, loop_transformation, reduction, rfactor,
};

impl Interpreter<'_> {
    /// Applies a primitive to bound arguments, recording it in the trace.
    pub(super) fn apply(&mut self, method: &str, bound: &Bound) -> Eval<Value> {
        let refused = |error: ScheduleError| -> Stop {
            let span = error
                .argument
                .map(|i| bound.slot_span(i))
                .unwrap_or(bound.call_span);
            let label = if error.argument.is_some() {
                "refused"
            } else {
                "this step is refused"
            };
            error.to_diagnostic(span, label).into()
        };
        match method {
            "get_block" | "get_sblock" => {
                let name = self.expect_str(bound, 0, "name")?;
                let func_name = match bound.get(1).map(|a| &a.value) {
                    None | Some(Value::None) => None,
                    Some(Value::Str(s)) => Some(s.clone()),
                    Some(other) => {
                        return Err(self.wrong_kind(bound, 1, "func_name", "a string", other))
                    }
                };
                let (rv, _) = self
                    .get_block(&name, func_name.as_deref())
                    .map_err(refused)?;
                Ok(Value::Block(rv))
            }
            "get_loops" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let loops = get_block_loop::get_loops(self.state, block);
                let rvs: Vec<Rv> = loops
                    .iter()
                    .map(|l| self.new_rv(SRefKind::Loop, *l))
                    .collect();
                self.record(
                    "get_loops",
                    vec![(Some("block"), TraceArg::Rv(block_rv))],
                    Outputs::List(rvs.clone()),
                );
                Ok(Value::List(rvs.into_iter().map(Value::Loop).collect()))
            }
            "get_child_blocks" => {
                let (parent_rv, parent) = self.handle_arg(bound, 0, "block_or_loop", None)?;
                let blocks = get_block_loop::get_child_blocks(self.state, parent);
                let rvs: Vec<Rv> = blocks
                    .iter()
                    .map(|b| self.new_rv(SRefKind::Block, *b))
                    .collect();
                self.record(
                    "get_child_blocks",
                    vec![(None, TraceArg::Rv(parent_rv))],
                    Outputs::List(rvs.clone()),
                );
                Ok(Value::List(rvs.into_iter().map(Value::Block).collect()))
            }
            "get_producers" | "get_consumers" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let blocks = if method == "get_producers" {
                    get_block_loop::get_producers(self.state, block)
                } else {
                    get_block_loop::get_consumers(self.state, block)
                }
                .map_err(|e| refused(e.at_argument(0)))?;
                let rvs: Vec<Rv> = blocks
                    .iter()
                    .map(|b| self.new_rv(SRefKind::Block, *b))
                    .collect();
                self.record(
                    if method == "get_producers" {
                        "get_producers"
                    } else {
                        "get_consumers"
                    },
                    vec![(Some("block"), TraceArg::Rv(block_rv))],
                    Outputs::List(rvs.clone()),
                );
                Ok(Value::List(rvs.into_iter().map(Value::Block).collect()))
            }
            "split" => {
                let (loop_rv, loop_id) = self.loop_arg(bound, 0, "loop")?;
                let factors_arg = bound.get(1).cloned();
                let Some(Value::List(items)) = factors_arg.as_ref().map(|a| &a.value) else {
                    let found = factors_arg.map(|a| a.value).unwrap_or(Value::None);
                    return Err(self.wrong_kind(
                        bound,
                        1,
                        "factors",
                        "a list of integers and one `None`",
                        &found,
                    ));
                };
                let mut factors = Vec::with_capacity(items.len());
                let mut trace_factors = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::None => {
                            factors.push(None);
                            trace_factors.push(TraceArg::None);
                        }
                        Value::Int(v) => {
                            let dtype = if i32::try_from(*v).is_ok() {
                                DataType::int32()
                            } else {
                                DataType::int64()
                            };
                            factors.push(Some(Expr::int(*v, dtype)));
                            trace_factors.push(TraceArg::Int(*v));
                        }
                        other => {
                            return Err(self.wrong_kind(
                                bound,
                                1,
                                "factors",
                                "a list of integers and one `None`",
                                other,
                            ))
                        }
                    }
                }
                let preserve = self.bool_arg(bound, 2, "preserve_unit_iters", true)?;
                let disable = self.bool_arg(bound, 3, "disable_predication", false)?;
                let loops =
                    loop_transformation::split(self.state, loop_id, &factors, preserve, disable)
                        .map_err(refused)?;
                let rvs: Vec<Rv> = loops
                    .iter()
                    .map(|l| self.new_rv(SRefKind::Loop, *l))
                    .collect();
                self.record(
                    "split",
                    vec![
                        (Some("loop"), TraceArg::Rv(loop_rv)),
                        (Some("factors"), TraceArg::List(trace_factors)),
                        (Some("preserve_unit_iters"), TraceArg::Bool(preserve)),
                        (Some("disable_predication"), TraceArg::Bool(disable)),
                    ],
                    Outputs::List(rvs.clone()),
                );
                Ok(Value::List(rvs.into_iter().map(Value::Loop).collect()))
            }
            "fuse" => {
                let mut rvs = Vec::with_capacity(bound.varargs.len());
                let mut loops = Vec::with_capacity(bound.varargs.len());
                for index in 0..bound.varargs.len() {
                    let (rv, id) = self.loop_vararg(bound, index)?;
                    rvs.push(rv);
                    loops.push(id);
                }
                let preserve = match bound.keyword_only.get("preserve_unit_iters") {
                    None => true,
                    Some(arg) => self.as_bool(arg, "preserve_unit_iters")?,
                };
                let fused =
                    loop_transformation::fuse(self.state, &loops, preserve).map_err(refused)?;
                let rv = self.new_rv(SRefKind::Loop, fused);
                let mut args: Vec<(Option<&'static str>, TraceArg)> =
                    rvs.iter().map(|r| (None, TraceArg::Rv(*r))).collect();
                args.push((Some("preserve_unit_iters"), TraceArg::Bool(preserve)));
                self.record("fuse", args, Outputs::Single(rv));
                Ok(Value::Loop(rv))
            }
            "reorder" => {
                let mut rvs = Vec::with_capacity(bound.varargs.len());
                let mut loops = Vec::with_capacity(bound.varargs.len());
                for index in 0..bound.varargs.len() {
                    let (rv, id) = self.loop_vararg(bound, index)?;
                    rvs.push(rv);
                    loops.push(id);
                }
                loop_transformation::reorder(self.state, &loops).map_err(refused)?;
                self.record(
                    "reorder",
                    rvs.iter().map(|r| (None, TraceArg::Rv(*r))).collect(),
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "add_unit_loop" => {
                let (target_rv, target) = self.handle_arg(bound, 0, "block_or_loop", None)?;
                let new_loop =
                    loop_transformation::add_unit_loop(self.state, target).map_err(refused)?;
                let rv = self.new_rv(SRefKind::Loop, new_loop);
                self.record(
                    "add_unit_loop",
                    vec![(Some("block_or_loop"), TraceArg::Rv(target_rv))],
                    Outputs::Single(rv),
                );
                Ok(Value::Loop(rv))
            }
            "parallel" | "vectorize" | "unroll" => {
                let (loop_rv, loop_id) = self.loop_arg(bound, 0, "loop")?;
                let (result, recorded) = match method {
                    "parallel" => (for_kind::parallel(self.state, loop_id), "parallel"),
                    "vectorize" => (for_kind::vectorize(self.state, loop_id), "vectorize"),
                    _ => (for_kind::unroll(self.state, loop_id), "unroll"),
                };
                result.map_err(refused)?;
                self.record(
                    recorded,
                    vec![(Some("loop"), TraceArg::Rv(loop_rv))],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "bind" => {
                let (loop_rv, loop_id) = self.loop_arg(bound, 0, "loop")?;
                let axis = self.expect_str(bound, 1, "thread_axis")?;
                for_kind::bind(self.state, loop_id, &axis).map_err(refused)?;
                self.record(
                    "bind",
                    vec![
                        (Some("loop"), TraceArg::Rv(loop_rv)),
                        (Some("thread_axis"), TraceArg::Str(axis)),
                    ],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "annotate" => {
                let (target_rv, target) = self.handle_arg(bound, 0, "block_or_loop", None)?;
                let key = self.expect_str(bound, 1, "ann_key")?;
                let value_arg = bound.get(2).cloned().ok_or_else(|| {
                    Stop::from(Diagnostic::error(
                        codes::BAD_ARGUMENTS,
                        "missing `ann_val`",
                        bound.call_span,
                    ))
                })?;
                let (attr, trace_value) = self.annotation_value(&value_arg)?;
                annotate::annotate(self.state, target, &key, attr).map_err(refused)?;
                self.record(
                    "annotate",
                    vec![
                        (Some("block_or_loop"), TraceArg::Rv(target_rv)),
                        (Some("ann_key"), TraceArg::Str(key)),
                        (Some("ann_val"), trace_value),
                    ],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "unannotate" => {
                let (target_rv, target) = self.handle_arg(bound, 0, "block_or_loop", None)?;
                let key = self.expect_str(bound, 1, "ann_key")?;
                annotate::unannotate(self.state, target, &key).map_err(refused)?;
                self.record(
                    "unannotate",
                    vec![
                        (Some("block_or_loop"), TraceArg::Rv(target_rv)),
                        (Some("ann_key"), TraceArg::Str(key)),
                    ],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "compute_at" | "reverse_compute_at" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let (loop_rv, loop_id) = self.loop_arg(bound, 1, "loop")?;
                let preserve = self.bool_arg(bound, 2, "preserve_unit_loops", false)?;
                let index = self.int_arg(bound, 3, "index", Some(-1))?;
                let (result, recorded) = if method == "compute_at" {
                    (
                        compute_at::compute_at(self.state, block, loop_id, preserve, index),
                        "compute_at",
                    )
                } else {
                    (
                        compute_at::reverse_compute_at(self.state, block, loop_id, preserve, index),
                        "reverse_compute_at",
                    )
                };
                result.map_err(refused)?;
                self.record(
                    recorded,
                    vec![
                        (Some("block"), TraceArg::Rv(block_rv)),
                        (Some("loop"), TraceArg::Rv(loop_rv)),
                        (Some("preserve_unit_loops"), TraceArg::Bool(preserve)),
                        (Some("index"), TraceArg::Int(index)),
                    ],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "decompose_reduction" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let (loop_rv, loop_id) = self.loop_arg(bound, 1, "loop")?;
                let init =
                    reduction::decompose_reduction(self.state, block, loop_id).map_err(refused)?;
                let rv = self.new_rv(SRefKind::Block, init);
                self.record(
                    "decompose_reduction",
                    vec![
                        (Some("block"), TraceArg::Rv(block_rv)),
                        (Some("loop"), TraceArg::Rv(loop_rv)),
                    ],
                    Outputs::Single(rv),
                );
                Ok(Value::Block(rv))
            }
            "rfactor" => {
                let (loop_rv, loop_id) = self.loop_arg(bound, 0, "loop")?;
                let factor_axis = self.int_arg(bound, 1, "factor_axis", None)?;
                let rf_block =
                    rfactor::rfactor(self.state, loop_id, factor_axis).map_err(refused)?;
                let rv = self.new_rv(SRefKind::Block, rf_block);
                self.record(
                    "rfactor",
                    vec![
                        (Some("loop"), TraceArg::Rv(loop_rv)),
                        (Some("factor_axis"), TraceArg::Int(factor_axis)),
                    ],
                    Outputs::Single(rv),
                );
                Ok(Value::Block(rv))
            }
            "compute_inline" | "reverse_compute_inline" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let (result, recorded) = if method == "compute_inline" {
                    (
                        compute_inline::compute_inline(self.state, block),
                        "compute_inline",
                    )
                } else {
                    (
                        compute_inline::reverse_compute_inline(self.state, block),
                        "reverse_compute_inline",
                    )
                };
                result.map_err(refused)?;
                self.record(
                    recorded,
                    vec![(Some("block"), TraceArg::Rv(block_rv))],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "cache_read" | "cache_write" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let index_param = if method == "cache_read" {
                    "read_buffer_index"
                } else {
                    "write_buffer_index"
                };
                let index = self.int_arg(bound, 1, index_param, None)?;
                let scope = self.expect_str(bound, 2, "storage_scope")?;
                let (consumers, consumers_trace) =
                    self.block_list_arg(bound, 3, "consumer_blocks")?;
                let (result, recorded) = if method == "cache_read" {
                    (
                        cache_read_write::cache_read(self.state, block, index, &scope, &consumers),
                        "cache_read",
                    )
                } else {
                    (
                        cache_read_write::cache_write(self.state, block, index, &scope, &consumers),
                        "cache_write",
                    )
                };
                let stage = result.map_err(refused)?;
                let rv = self.new_rv(SRefKind::Block, stage);
                let mut args = vec![
                    (Some("block"), TraceArg::Rv(block_rv)),
                    (Some(index_param), TraceArg::Int(index)),
                    (Some("storage_scope"), TraceArg::Str(scope)),
                ];
                if let Some(TraceArg::List(items)) = consumers_trace {
                    if !items.is_empty() {
                        args.push((Some("consumer_blocks"), TraceArg::List(items)));
                    }
                }
                self.record(recorded, args, Outputs::Single(rv));
                Ok(Value::Block(rv))
            }
            "storage_align" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let buffer_index = self.int_arg(bound, 1, "buffer_index", None)?;
                let axis = self.int_arg(bound, 2, "axis", None)?;
                let factor = self.int_arg(bound, 3, "factor", None)?;
                let offset = self.int_arg(bound, 4, "offset", None)?;
                block_annotate::storage_align(
                    self.state,
                    block,
                    buffer_index,
                    axis,
                    factor,
                    offset,
                )
                .map_err(refused)?;
                self.record(
                    "storage_align",
                    vec![
                        (Some("block"), TraceArg::Rv(block_rv)),
                        (Some("buffer_index"), TraceArg::Int(buffer_index)),
                        (Some("axis"), TraceArg::Int(axis)),
                        (Some("factor"), TraceArg::Int(factor)),
                        (Some("offset"), TraceArg::Int(offset)),
                    ],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            "set_scope" => {
                let (block_rv, block) = self.block_arg(bound, 0, "block", true)?;
                let buffer_index = self.int_arg(bound, 1, "buffer_index", None)?;
                let scope = self.expect_str(bound, 2, "storage_scope")?;
                block_annotate::set_scope(self.state, block, buffer_index, &scope)
                    .map_err(refused)?;
                self.record(
                    "set_scope",
                    vec![
                        (Some("block"), TraceArg::Rv(block_rv)),
                        (Some("buffer_index"), TraceArg::Int(buffer_index)),
                        (Some("storage_scope"), TraceArg::Str(scope)),
                    ],
                    Outputs::Nothing,
                );
                Ok(Value::None)
            }
            _ => Err(Diagnostic::error(
                codes::UNKNOWN_PRIMITIVE,
                format!("`sch.{method}` is not a schedule primitive"),
                bound.call_span,
            )
            .with_help("see the list of primitives in the documentation")
            .into()),
        }
    }

    /// `get_block` with the call recorded as TVM records it (`get_sblock`
    /// with the function name spelled out).
    pub(super) fn get_block(
        &mut self,
        name: &str,
        func_name: Option<&str>,
    ) -> Result<(Rv, NodeId), ScheduleError> {
        let function = get_block_loop::resolve_function(self.state, func_name)
            .map_err(|e| e.at_argument(if func_name.is_some() { 1 } else { 0 }))?;
        let function_name = self.state.module().functions[function].name.clone();
        let block = get_block_loop::get_block(self.state, name, Some(&function_name))?;
        let rv = self.new_rv(SRefKind::Block, block);
        self.record(
            "get_sblock",
            vec![
                (Some("name"), TraceArg::Str(name.to_string())),
                (Some("func_name"), TraceArg::Str(function_name)),
            ],
            Outputs::Single(rv),
        );
        Ok((rv, block))
    }
}
