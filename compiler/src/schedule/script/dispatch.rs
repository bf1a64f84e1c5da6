//! Applying a primitive: the descriptor's function turns bound arguments
//! into the primitive's inputs, calls it and records the call in the trace;
//! here are the pieces every descriptor shares.

use super::signatures::{Bound, Value};
use super::{Eval, Interpreter, Stop};
use crate::diagnostics::Diagnostic;
use crate::ir::NodeId;
use crate::schedule::error::{codes, ScheduleError};
use crate::schedule::get_block_loop;
use crate::schedule::primitive::Primitive;
use crate::schedule::state::SRefKind;
use crate::schedule::trace::{Outputs, Rv, TraceArg};

impl Interpreter<'_> {
    /// Applies a primitive to bound arguments, recording it in the trace.
    pub(super) fn apply(&mut self, primitive: &Primitive, bound: &Bound) -> Eval<Value> {
        (primitive.apply)(self, bound)
    }

    /// A refused step as a diagnostic: on the argument at fault, or the call.
    pub(crate) fn refused(&self, bound: &Bound, error: ScheduleError) -> Stop {
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
    }

    /// A missing argument the signature cannot require (it has no default in TVM either).
    pub(crate) fn missing_argument(&self, bound: &Bound, param: &str) -> Stop {
        Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!("missing `{param}`"),
            bound.call_span,
        )
        .with_help(format!("pass `{param}`"))
        .into()
    }

    /// New random variables for loops or blocks, and the list value of them.
    pub(crate) fn new_rvs(&mut self, kind: SRefKind, nodes: &[NodeId]) -> (Vec<Rv>, Value) {
        let rvs: Vec<Rv> = nodes.iter().map(|n| self.new_rv(kind, *n)).collect();
        let wrap = match kind {
            SRefKind::Loop => Value::Loop,
            SRefKind::Block => Value::Block,
        };
        let value = Value::List(rvs.iter().copied().map(wrap).collect());
        (rvs, value)
    }

    /// `get_block` with the call recorded as TVM records it (`get_sblock`
    /// with the function name spelled out).
    pub(crate) fn get_block(
        &mut self,
        name: &str,
        func_name: Option<&str>,
    ) -> Result<(Rv, NodeId), ScheduleError> {
        let explicit = func_name.is_some();
        let func_name = func_name.or(self.working_on.as_deref());
        let function = get_block_loop::resolve_function(self.state, func_name)
            .map_err(|e| e.at_argument(if explicit { 1 } else { 0 }))?;
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
