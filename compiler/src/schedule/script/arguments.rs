//! Reading arguments: strings, flags, loop and block handles (live ones,
//! or a diagnostic naming the step that removed them) and annotation values.

use super::signatures::{Arg, Bound, Value};
use super::{Eval, Interpreter, Stop};
use crate::diagnostics::Diagnostic;
use crate::ir::{AttrValue, NodeId};
use crate::schedule::error::codes;
use crate::schedule::state::{Missing, SRefKind};
use crate::schedule::trace::{Rv, TraceArg};

impl Interpreter<'_> {
    pub(crate) fn wrong_kind(
        &self,
        bound: &Bound,
        index: usize,
        param: &str,
        expected: &str,
        found: &Value,
    ) -> Stop {
        Diagnostic::error(
            codes::WRONG_KIND,
            format!("`{param}` must be {expected}, found {}", found.describe()),
            bound.slot_span(index),
        )
        .with_label(format!("expected {expected}"))
        .with_help(format!("pass {expected} as `{param}`"))
        .into()
    }

    pub(crate) fn expect_str(&self, bound: &Bound, index: usize, param: &str) -> Eval<String> {
        match bound.get(index).map(|a| &a.value) {
            Some(Value::Str(s)) => Ok(s.clone()),
            Some(other) => Err(self.wrong_kind(bound, index, param, "a string", other)),
            None => Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("missing argument `{param}`"),
                bound.call_span,
            )
            .with_help(format!("pass `{param}`"))
            .into()),
        }
    }

    pub(crate) fn bool_arg(
        &self,
        bound: &Bound,
        index: usize,
        param: &str,
        default: bool,
    ) -> Eval<bool> {
        match bound.get(index) {
            None => Ok(default),
            Some(arg) => self.as_bool(arg, param),
        }
    }

    pub(crate) fn as_bool(&self, arg: &Arg, param: &str) -> Eval<bool> {
        match &arg.value {
            Value::Bool(b) => Ok(*b),
            Value::Int(i) | Value::Sampled(_, i) => Ok(*i != 0),
            other => Err(Diagnostic::error(
                codes::WRONG_KIND,
                format!(
                    "`{param}` must be `True` or `False`, found {}",
                    other.describe()
                ),
                arg.span,
            )
            .with_help(format!("write `{param}=True` or `{param}=False`"))
            .into()),
        }
    }

    /// An integer argument; `default` when it is not given (`None`: required).
    pub(crate) fn int_arg(
        &self,
        bound: &Bound,
        index: usize,
        param: &str,
        default: Option<i64>,
    ) -> Eval<i64> {
        match (bound.get(index).map(|a| &a.value), default) {
            (Some(Value::Int(i) | Value::Sampled(_, i)), _) => Ok(*i),
            (Some(Value::Bool(b)), _) => Ok(*b as i64),
            (Some(other), _) => Err(self.wrong_kind(bound, index, param, "an integer", other)),
            (None, Some(default)) => Ok(default),
            (None, None) => Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("missing argument `{param}`"),
                bound.call_span,
            )
            .with_help(format!("pass `{param}`"))
            .into()),
        }
    }

    /// A required list (or tuple) of integers, sampled ones as their values.
    pub(crate) fn int_list_arg(&self, bound: &Bound, index: usize, param: &str) -> Eval<Vec<i64>> {
        let expected = "a list of integers";
        let items = match bound.get(index).map(|a| &a.value) {
            Some(Value::List(items)) => items,
            Some(other) => return Err(self.wrong_kind(bound, index, param, expected, other)),
            None => return Err(self.wrong_kind(bound, index, param, expected, &Value::None)),
        };
        items
            .iter()
            .map(|item| match item {
                Value::Int(v) | Value::Sampled(_, v) => Ok(*v),
                other => Err(self.wrong_kind(bound, index, param, expected, other)),
            })
            .collect()
    }

    /// An optional list of block handles (`consumer_blocks=[b1, b2]`), with
    /// its trace form; an empty list when not given or `None`.
    pub(crate) fn block_list_arg(
        &self,
        bound: &Bound,
        index: usize,
        param: &str,
    ) -> Eval<(Vec<NodeId>, Option<TraceArg>)> {
        let Some(arg) = bound.get(index) else {
            return Ok((Vec::new(), None));
        };
        let items = match &arg.value {
            Value::None => return Ok((Vec::new(), None)),
            Value::List(items) => items.clone(),
            Value::Block(_) => vec![arg.value.clone()],
            other => {
                return Err(self.wrong_kind(bound, index, param, "a list of block handles", other))
            }
        };
        let mut blocks = Vec::with_capacity(items.len());
        let mut traces = Vec::with_capacity(items.len());
        for item in items {
            let item_arg = Arg {
                value: item,
                span: arg.span,
                name: None,
            };
            let (rv, id) = self.handle(&item_arg, param, Some(SRefKind::Block))?;
            blocks.push(id);
            traces.push(TraceArg::Rv(rv));
        }
        Ok((blocks, Some(TraceArg::List(traces))))
    }

    /// A live loop or block handle of an argument; `kind` restricts the kind.
    pub(crate) fn handle(
        &self,
        arg: &Arg,
        param: &str,
        kind: Option<SRefKind>,
    ) -> Eval<(Rv, NodeId)> {
        let (rv, found_kind) = match &arg.value {
            Value::Loop(rv) => (*rv, SRefKind::Loop),
            Value::Block(rv) => (*rv, SRefKind::Block),
            other => {
                let expected = match kind {
                    Some(SRefKind::Loop) => "a loop handle",
                    Some(SRefKind::Block) => "a block handle",
                    None => "a loop or block handle",
                };
                return Err(Diagnostic::error(
                    codes::WRONG_KIND,
                    format!("`{param}` must be {expected}, found {}", other.describe()),
                    arg.span,
                )
                .with_label(format!("expected {expected}"))
                .with_help(match kind {
                    Some(SRefKind::Block) => {
                        "get a block with `sch.get_block(\"NAME\")`".to_string()
                    }
                    _ => "get loops with `sch.get_loops(block)`".to_string(),
                })
                .into());
            }
        };
        if let Some(expected) = kind {
            if expected != found_kind {
                return Err(Diagnostic::error(
                    codes::WRONG_KIND,
                    format!(
                        "`{param}` must be a {} handle, but {} is a {} handle",
                        expected.noun(),
                        arg.describe_handle(),
                        found_kind.noun()
                    ),
                    arg.span,
                )
                .with_label(format!("a {} handle", found_kind.noun()))
                .with_help(match expected {
                    SRefKind::Loop => "get the block's loops with `sch.get_loops(block)`",
                    SRefKind::Block => "get a block with `sch.get_block(\"NAME\")`",
                })
                .into());
            }
        }
        let node = self.rv_nodes.get(rv).copied().unwrap_or(NodeId(0));
        match self.state.lookup(node) {
            Ok(_) => Ok((rv, node)),
            Err(Missing::Removed(removed)) => {
                let step = self.steps.get(removed.step.wrapping_sub(1));
                let mut diagnostic = Diagnostic::error(
                    codes::REMOVED_HANDLE,
                    format!(
                        "{} refers to {}, which step {} removed",
                        arg.describe_handle(),
                        removed.description,
                        removed.step
                    ),
                    arg.span,
                )
                .with_label("no longer in the program");
                if let Some(step) = step {
                    diagnostic = diagnostic
                        .with_secondary(step.span, format!("step {} replaced it", removed.step));
                }
                diagnostic = diagnostic
                    .with_secondary(removed.span, format!("{} was here", removed.description));
                let help = match step {
                    Some(_) => format!(
                        "use the {} that step {} returned",
                        if found_kind == SRefKind::Loop {
                            "loops"
                        } else {
                            "blocks"
                        },
                        removed.step
                    ),
                    None => "get the loop or block again".to_string(),
                };
                Err(diagnostic.with_help(help).into())
            }
            Err(Missing::Unknown) => Err(Diagnostic::error(
                codes::REMOVED_HANDLE,
                format!(
                    "{} does not refer to anything in the program",
                    arg.describe_handle()
                ),
                arg.span,
            )
            .with_help("get the loop or block again")
            .into()),
        }
    }

    pub(crate) fn handle_arg(
        &self,
        bound: &Bound,
        index: usize,
        param: &str,
        kind: Option<SRefKind>,
    ) -> Eval<(Rv, NodeId)> {
        match bound.get(index) {
            Some(arg) => self.handle(arg, param, kind),
            None => Err(Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("missing argument `{param}`"),
                bound.call_span,
            )
            .with_help(format!("pass `{param}`"))
            .into()),
        }
    }

    pub(crate) fn loop_arg(&self, bound: &Bound, index: usize, param: &str) -> Eval<(Rv, NodeId)> {
        self.handle_arg(bound, index, param, Some(SRefKind::Loop))
    }

    /// The loops of a `*loops` parameter, with their random variables.
    pub(crate) fn loop_varargs(&self, bound: &Bound) -> Eval<(Vec<Rv>, Vec<NodeId>)> {
        let mut rvs = Vec::with_capacity(bound.varargs.len());
        let mut loops = Vec::with_capacity(bound.varargs.len());
        for index in 0..bound.varargs.len() {
            let (rv, id) = self.loop_vararg(bound, index)?;
            rvs.push(rv);
            loops.push(id);
        }
        Ok((rvs, loops))
    }

    fn loop_vararg(&self, bound: &Bound, index: usize) -> Eval<(Rv, NodeId)> {
        match bound.varargs.get(index) {
            Some(arg) => self.handle(arg, "loops", Some(SRefKind::Loop)),
            None => {
                Err(Diagnostic::error(codes::BAD_ARGUMENTS, "missing loop", bound.call_span).into())
            }
        }
    }

    /// A block argument; with `allow_name`, a block name works too (TVM's
    /// Python API then calls `get_sblock` first, which the trace records).
    pub(crate) fn block_arg(
        &mut self,
        bound: &Bound,
        index: usize,
        param: &str,
        allow_name: bool,
    ) -> Eval<(Rv, NodeId)> {
        if allow_name {
            if let Some(Arg {
                value: Value::Str(name),
                span,
                ..
            }) = bound.get(index)
            {
                let name = name.clone();
                let span = *span;
                return self
                    .get_block(&name, None)
                    .map_err(|e| e.to_diagnostic(span, "refused").into());
            }
        }
        self.handle_arg(bound, index, param, Some(SRefKind::Block))
    }

    /// An annotation value and its trace form.
    pub(crate) fn annotation_value(&self, arg: &Arg) -> Eval<(AttrValue, TraceArg)> {
        fn convert(value: &Value) -> Option<(AttrValue, TraceArg)> {
            Some(match value {
                Value::Int(i) => (AttrValue::Int(*i), TraceArg::Int(*i)),
                Value::Sampled(rv, i) => (AttrValue::Int(*i), TraceArg::Rv(*rv)),
                Value::Float(f) => (AttrValue::Float(*f), TraceArg::Float(*f)),
                Value::Str(s) => (AttrValue::Str(s.clone()), TraceArg::Str(s.clone())),
                Value::Bool(b) => (AttrValue::Bool(*b), TraceArg::Bool(*b)),
                Value::None => (AttrValue::None, TraceArg::None),
                Value::List(items) => {
                    let converted: Option<Vec<(AttrValue, TraceArg)>> =
                        items.iter().map(convert).collect();
                    let (attrs, traces) = converted?.into_iter().unzip();
                    (AttrValue::List(attrs), TraceArg::List(traces))
                }
                Value::Dict(items) => {
                    let mut attrs = Vec::with_capacity(items.len());
                    let mut traces = Vec::with_capacity(items.len());
                    for (key, value) in items {
                        let (attr, trace) = convert(value)?;
                        attrs.push((key.clone(), attr));
                        traces.push((key.clone(), trace));
                    }
                    (AttrValue::Dict(attrs), TraceArg::Dict(traces))
                }
                Value::Schedule
                | Value::Block(_)
                | Value::Loop(_)
                | Value::Lambda(_)
                | Value::LocationMark(..) => return None,
            })
        }
        convert(&arg.value).ok_or_else(|| {
            Diagnostic::error(
                codes::WRONG_KIND,
                "an annotation value must be a number, string, bool, None, list or dict",
                arg.span,
            )
            .with_help("annotate with a literal value")
            .into()
        })
    }
}
