//! The schedule-script interpreter: runs the body of a schedule `def`
//! (straight-line calls on `sch`, assignments of their results, tuples,
//! literals, lists and `None`) against the schedule state, one step per call,
//! recording the trace.
//!
//! Every call of a method of `sch` is a step. A step that fails stops the run
//! with one diagnostic whose primary span is on the schedule line; the
//! program stays as the last step that succeeded left it.

mod arguments;
mod dispatch;
mod signatures;

pub use signatures::{Lambda, Value};

use super::error::codes;
use super::state::{SRefKind, ScheduleState};
use super::trace::{Instruction, Outputs, Rv, Trace, TraceArg};
use super::{AppliedStep, HandleBinding, HandleDenotation};
use crate::diagnostics::Diagnostic;
use crate::frontend::ScheduleDef;
use crate::ir::NodeId;
use crate::schedule::primitive::{self, Primitive, TVM_ONLY_METHODS};
use crate::source::{FileId, Span};
pub(crate) use signatures::{Arg, Bound};
use std::collections::HashMap;
use tirc_grammar::ast;

/// The most iterations one `for` loop of a schedule section runs.
const MAX_LOOP_ITERATIONS: usize = 10_000;

/// Why the run stopped early.
pub(crate) enum Stop {
    /// A step failed; the diagnostic says why.
    Failed(Box<Diagnostic>),
    /// The requested number of steps was applied.
    Limit,
}

impl From<Diagnostic> for Stop {
    fn from(diagnostic: Diagnostic) -> Stop {
        Stop::Failed(Box::new(diagnostic))
    }
}

/// The outcome of running a schedule def.
pub(crate) struct Outcome {
    pub steps: Vec<AppliedStep>,
    pub diagnostics: Vec<Diagnostic>,
    pub trace: Trace,
    pub handles: Vec<HandleBinding>,
}

/// Runs a schedule def on the state.
pub(crate) fn run(
    state: &mut ScheduleState,
    def: &ScheduleDef,
    file: FileId,
    stop_after: Option<usize>,
) -> Outcome {
    let text_start = def.span.end.saturating_sub(def.text.len() as u32);
    let state_seed = state.seed();
    let mut interpreter = Interpreter {
        state,
        file,
        def_text: &def.text,
        text_start,
        env: HashMap::new(),
        rv_nodes: Vec::new(),
        trace: Trace::default(),
        steps: Vec::new(),
        stop_after,
        handles: Vec::new(),
        random: super::sampling::RandomState::new(state_seed),
        working_on: None,
    };
    if let Some(first) = def.def.params.first() {
        interpreter
            .env
            .insert(first.name.name.clone(), Value::Schedule);
    }
    let mut diagnostics = Vec::new();
    for stmt in &def.def.body {
        match interpreter.statement(stmt) {
            Ok(()) => {}
            Err(Stop::Limit) => break,
            Err(Stop::Failed(diagnostic)) => {
                diagnostics.push(*diagnostic);
                break;
            }
        }
    }
    Outcome {
        steps: interpreter.steps,
        diagnostics,
        trace: interpreter.trace,
        handles: interpreter.handles,
    }
}

/// The interpreter of one schedule def: the state it changes, the names it
/// has bound, the trace and the steps so far.
pub(crate) struct Interpreter<'a> {
    pub(crate) state: &'a mut ScheduleState,
    file: FileId,
    def_text: &'a str,
    /// The byte offset of `def_text` in the file.
    text_start: u32,
    env: HashMap<String, Value>,
    /// The loop or block of each random variable.
    rv_nodes: Vec<NodeId>,
    trace: Trace,
    steps: Vec<AppliedStep>,
    stop_after: Option<usize>,
    /// What each assigned name denoted.
    handles: Vec<HandleBinding>,
    /// What sampling instructions draw from.
    random: super::sampling::RandomState,
    /// The function `work_on` chose, which `get_block` searches by default.
    pub(crate) working_on: Option<String>,
}

/// The result of evaluating script: a value, or why the run stops.
pub(crate) type Eval<T> = Result<T, Stop>;

impl Interpreter<'_> {
    fn span(&self, span: ast::Span) -> Span {
        Span::from_syntax(self.file, span)
    }

    /// The source text of a syntax node of the def.
    fn source_text(&self, span: ast::Span) -> Option<&str> {
        let start = span.start.checked_sub(self.text_start)? as usize;
        let end = span.end.checked_sub(self.text_start)? as usize;
        self.def_text.get(start..end)
    }

    fn error(&self, code: &str, message: impl Into<String>, span: ast::Span) -> Stop {
        Diagnostic::error(code, message, self.span(span)).into()
    }

    fn statement(&mut self, stmt: &ast::Stmt) -> Eval<()> {
        match &stmt.kind {
            ast::StmtKind::Expr(expr) => {
                // A docstring is not a step.
                if !matches!(expr.kind, ast::ExprKind::Str(_)) {
                    self.eval(expr)?;
                }
                Ok(())
            }
            ast::StmtKind::Assign { target, value } => {
                let value = self.eval(value)?;
                self.assign(target, value)
            }
            ast::StmtKind::Pass | ast::StmtKind::Import { .. } => Ok(()),
            ast::StmtKind::For { target, iter, body } => self.for_statement(target, iter, body),
            _ => Err(Diagnostic::error(
                codes::UNSUPPORTED_STATEMENT,
                "a schedule section holds calls on `sch`, assignments of their results and `for` loops over lists",
                self.span(stmt.span),
            )
            .with_help("write conditions and functions out as straight-line code")
            .into()),
        }
    }

    /// `for NAME in LIST_OR_TUPLE_OR_RANGE:` unrolled: the body runs once
    /// per item (TVM's tutorials loop over the shared caches to fetch each
    /// cooperatively). A refused step inside names the iteration.
    fn for_statement(
        &mut self,
        target: &ast::Expr,
        iter: &ast::Expr,
        body: &[ast::Stmt],
    ) -> Eval<()> {
        let items = self.loop_items(iter)?;
        let item_texts: Vec<String> = match &iter.kind {
            ast::ExprKind::List(exprs) | ast::ExprKind::Tuple(exprs)
                if exprs.len() == items.len() =>
            {
                exprs
                    .iter()
                    .map(|e| self.source_text(e.span).unwrap_or("?").to_string())
                    .collect()
            }
            _ => items
                .iter()
                .map(|item| match item {
                    Value::Int(value) | Value::Sampled(_, value) => value.to_string(),
                    other => other.describe().to_string(),
                })
                .collect(),
        };
        let target_text = self
            .source_text(target.span)
            .unwrap_or("the loop variable")
            .to_string();
        for (iteration, (item, item_text)) in items.into_iter().zip(item_texts).enumerate() {
            self.assign(target, item)?;
            for stmt in body {
                self.statement(stmt).map_err(|stop| match stop {
                    Stop::Failed(diagnostic) => {
                        Stop::Failed(Box::new(diagnostic.with_note(format!(
                            "in iteration {} of the loop, with `{target_text}` = {item_text}",
                            iteration + 1
                        ))))
                    }
                    other => other,
                })?;
            }
        }
        Ok(())
    }

    /// The values a schedule `for` loop runs over: a list or tuple, or
    /// `range(...)` of integers (at most [`MAX_LOOP_ITERATIONS`]).
    fn loop_items(&mut self, iter: &ast::Expr) -> Eval<Vec<Value>> {
        let too_many = |interpreter: &Self, count: i64| {
            interpreter.error(
                codes::BAD_ARGUMENTS,
                format!("a schedule loop runs at most {MAX_LOOP_ITERATIONS} times; this one would run {count}"),
                iter.span,
            )
        };
        if let ast::ExprKind::Call {
            func,
            args,
            keywords,
        } = &iter.kind
        {
            if matches!(&func.kind, ast::ExprKind::Name(name) if name == "range" && !self.env.contains_key("range"))
            {
                let mut bounds = Vec::new();
                for arg in args {
                    match self.eval(arg)?.plain() {
                        Value::Int(value) => bounds.push(value),
                        other => {
                            return Err(self.error(
                                codes::WRONG_KIND,
                                format!("`range` takes integers, not {}", other.describe()),
                                arg.span,
                            ))
                        }
                    }
                }
                let (start, stop, step) = match (bounds.as_slice(), keywords.is_empty()) {
                    ([stop], true) => (0, *stop, 1),
                    ([start, stop], true) => (*start, *stop, 1),
                    ([start, stop, step], true) if *step != 0 => (*start, *stop, *step),
                    _ => {
                        return Err(self.error(
                            codes::BAD_ARGUMENTS,
                            "`range` takes one to three integers, the step not zero",
                            iter.span,
                        ))
                    }
                };
                let count = if step > 0 {
                    (stop - start).max(0).saturating_add(step - 1) / step
                } else {
                    (start - stop).max(0).saturating_add(-step - 1) / -step
                };
                if count > MAX_LOOP_ITERATIONS as i64 {
                    return Err(too_many(self, count));
                }
                return Ok((0..count).map(|k| Value::Int(start + k * step)).collect());
            }
        }
        match self.eval(iter)? {
            Value::List(items) if items.len() <= MAX_LOOP_ITERATIONS => Ok(items),
            Value::List(items) => Err(too_many(self, items.len() as i64)),
            other => Err(self.error(
                codes::WRONG_KIND,
                format!(
                    "a schedule loop runs over a list, a tuple or `range(...)`, not {}",
                    other.describe()
                ),
                iter.span,
            )),
        }
    }

    fn assign(&mut self, target: &ast::Expr, value: Value) -> Eval<()> {
        match &target.kind {
            ast::ExprKind::Name(name) => {
                if let Some(denotes) = self.denotation(&value) {
                    self.handles.push(HandleBinding {
                        span: self.span(target.span),
                        denotes,
                    });
                }
                self.env.insert(name.clone(), value);
                Ok(())
            }
            ast::ExprKind::Tuple(targets) | ast::ExprKind::List(targets) => {
                let Value::List(items) = value else {
                    return Err(Diagnostic::error(
                        codes::UNPACK_MISMATCH,
                        format!(
                            "cannot unpack {} into {} names",
                            value.describe(),
                            targets.len()
                        ),
                        self.span(target.span),
                    )
                    .with_help("assign it to one name")
                    .into());
                };
                if items.len() != targets.len() {
                    return Err(Diagnostic::error(
                        codes::UNPACK_MISMATCH,
                        format!(
                            "the call returns {} value{} but {} name{} receive them",
                            items.len(),
                            plural(items.len()),
                            targets.len(),
                            plural(targets.len())
                        ),
                        self.span(target.span),
                    )
                    .with_help(format!(
                        "write {} name{} on the left (`b1, = ...` for one)",
                        items.len(),
                        plural(items.len())
                    ))
                    .into());
                }
                for (inner, item) in targets.iter().zip(items) {
                    self.assign(inner, item)?;
                }
                Ok(())
            }
            _ => Err(self.error(
                codes::UNSUPPORTED_STATEMENT,
                "only names and tuples of names can be assigned in a schedule",
                target.span,
            )),
        }
    }

    fn eval(&mut self, expr: &ast::Expr) -> Eval<Value> {
        match &expr.kind {
            ast::ExprKind::Name(name) => self.env.get(name).cloned().ok_or_else(|| {
                let suggestion =
                    crate::frontend::suggest(name, self.env.keys().map(String::as_str));
                let mut diagnostic = Diagnostic::error(
                    codes::UNDEFINED_NAME,
                    format!("`{name}` is not defined in the schedule"),
                    self.span(expr.span),
                )
                .with_label("not defined");
                diagnostic = diagnostic.with_help(match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "assign it from a call first, such as `b0 = sch.get_block(\"C\")`"
                        .to_string(),
                });
                diagnostic.into()
            }),
            ast::ExprKind::Int(value) => i64::try_from(value.get())
                .map(Value::Int)
                .map_err(|_| self.error(codes::BAD_ARGUMENTS, "integer too large", expr.span)),
            ast::ExprKind::Float(value) => Ok(Value::Float(*value)),
            ast::ExprKind::Str(value) => Ok(Value::Str(value.clone())),
            ast::ExprKind::Bool(value) => Ok(Value::Bool(*value)),
            ast::ExprKind::None => Ok(Value::None),
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    if let ast::ExprKind::Starred(inner) = &item.kind {
                        match self.eval(inner)? {
                            Value::List(inner_items) => values.extend(inner_items),
                            other => {
                                return Err(self.error(
                                    codes::WRONG_KIND,
                                    format!("cannot unpack {} with `*`", other.describe()),
                                    item.span,
                                ))
                            }
                        }
                    } else {
                        values.push(self.eval(item)?);
                    }
                }
                Ok(Value::List(values))
            }
            ast::ExprKind::Dict(items) => {
                let mut entries = Vec::with_capacity(items.len());
                for (key, value) in items {
                    let Value::Str(key_text) = self.eval(key)? else {
                        return Err(self.error(
                            codes::WRONG_KIND,
                            "dict keys must be strings",
                            key.span,
                        ));
                    };
                    entries.push((key_text, self.eval(value)?));
                }
                Ok(Value::Dict(entries))
            }
            ast::ExprKind::UnaryOp { op, operand } => {
                let value = self.eval(operand)?.plain();
                match (op, value) {
                    (ast::UnaryOp::Neg, Value::Int(v)) => Ok(Value::Int(v.wrapping_neg())),
                    (ast::UnaryOp::Neg, Value::Float(v)) => Ok(Value::Float(-v)),
                    (ast::UnaryOp::Pos, v @ (Value::Int(_) | Value::Float(_))) => Ok(v),
                    (_, other) => Err(self.error(
                        codes::WRONG_KIND,
                        format!("this operator does not apply to {}", other.describe()),
                        expr.span,
                    )),
                }
            }
            ast::ExprKind::BinOp { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs)?.plain(), self.eval(rhs)?.plain());
                let (Value::Int(a), Value::Int(b)) = (&a, &b) else {
                    return Err(self.error(
                        codes::WRONG_KIND,
                        "only integer arithmetic is allowed in a schedule",
                        expr.span,
                    ));
                };
                let (a, b) = (*a, *b);
                let result = match op {
                    ast::BinOp::Add => a.checked_add(b),
                    ast::BinOp::Sub => a.checked_sub(b),
                    ast::BinOp::Mul => a.checked_mul(b),
                    ast::BinOp::FloorDiv => crate::arith::floor_div_i64(a, b),
                    ast::BinOp::Mod => crate::arith::floor_mod_i64(a, b),
                    _ => None,
                };
                result.map(Value::Int).ok_or_else(|| {
                    let division = matches!(op, ast::BinOp::FloorDiv | ast::BinOp::Mod);
                    let message = if division && b == 0 {
                        "integer division by zero"
                    } else {
                        "this integer operation is not supported or overflows"
                    };
                    self.error(codes::BAD_ARGUMENTS, message, expr.span)
                })
            }
            ast::ExprKind::Subscript { value, indices } => {
                let container = self.eval(value)?;
                if matches!(container, Value::Schedule) {
                    return Err(te_stage_lookup(self.span(expr.span)).into());
                }
                let [index] = indices.as_slice() else {
                    return Err(self.error(
                        codes::WRONG_KIND,
                        "index a list with one integer",
                        expr.span,
                    ));
                };
                if let ast::ExprKind::Slice { lower, upper, step } = &index.kind {
                    return self.slice(container, [lower, upper, step], expr.span);
                }
                let index_value = self.eval(index)?.plain();
                match (container, index_value) {
                    (Value::List(items), Value::Int(i)) => {
                        let len = items.len() as i64;
                        let position = if i < 0 { i + len } else { i };
                        if position < 0 || position >= len {
                            return Err(self.error(
                                codes::BAD_ARGUMENTS,
                                format!("index {i} is out of range for a list of {len}"),
                                index.span,
                            ));
                        }
                        Ok(items[position as usize].clone())
                    }
                    (other, _) => Err(self.error(
                        codes::WRONG_KIND,
                        format!("cannot index {}", other.describe()),
                        expr.span,
                    )),
                }
            }
            ast::ExprKind::Lambda { params, body } => {
                Ok(Value::Lambda(std::sync::Arc::new(signatures::Lambda {
                    params: params.iter().map(|p| p.name.clone()).collect(),
                    body: (**body).clone(),
                    span: self.span(expr.span),
                })))
            }
            // `T.index_map(lambda ...)`, as TVM's traces may spell an index map.
            ast::ExprKind::Call { func, args, .. }
                if is_index_map_call(func) && args.len() == 1 =>
            {
                self.eval(&args[0])
            }
            ast::ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(expr, func, args, keywords),
            _ => Err(self.error(
                codes::UNSUPPORTED_STATEMENT,
                "this expression is not allowed in a schedule",
                expr.span,
            )),
        }
    }

    fn call(
        &mut self,
        expr: &ast::Expr,
        func: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> Eval<Value> {
        let ast::ExprKind::Attribute { value, attr } = &func.kind else {
            return Err(self.error(
                codes::UNSUPPORTED_STATEMENT,
                "only methods of `sch` can be called in a schedule",
                func.span,
            ));
        };
        let receiver = self.eval(value)?;
        if receiver != Value::Schedule {
            return Err(self.error(
                codes::WRONG_KIND,
                format!(
                    "`{}` is called on {}, not on the schedule",
                    attr.name,
                    receiver.describe()
                ),
                value.span,
            ));
        }
        let method = attr.name.as_str();
        let Some(primitive) = primitive::find(method) else {
            return Err(self.unknown_primitive(method, attr.span));
        };
        // Arguments are evaluated (and nested calls applied) before the step.
        let mut positional = Vec::with_capacity(args.len());
        for arg in args {
            if let ast::ExprKind::Starred(inner) = &arg.kind {
                match self.eval(inner)? {
                    Value::List(items) => positional.extend(items.into_iter().map(|value| Arg {
                        value,
                        span: self.span(arg.span),
                        name: None,
                    })),
                    other => {
                        return Err(self.error(
                            codes::WRONG_KIND,
                            format!("cannot unpack {} with `*`", other.describe()),
                            arg.span,
                        ))
                    }
                }
                continue;
            }
            let value = self.eval(arg)?;
            positional.push(Arg {
                value,
                span: self.span(arg.span),
                name: name_of(arg),
            });
        }
        let mut named = Vec::with_capacity(keywords.len());
        for keyword in keywords {
            let value = self.eval(&keyword.value)?;
            named.push((
                &keyword.name,
                Arg {
                    value,
                    span: self.span(keyword.value.span),
                    name: name_of(&keyword.value),
                },
            ));
        }
        if self
            .stop_after
            .is_some_and(|limit| self.steps.len() >= limit)
        {
            return Err(Stop::Limit);
        }
        let call_span = self.span(expr.span);
        let bound = self.bind(method, primitive, positional, named, call_span)?;
        let number = self.steps.len() + 1;
        self.state.begin_step(number);
        let before = self
            .state
            .module()
            .functions
            .iter()
            .map(|f| f.body.clone())
            .collect::<Vec<_>>();
        let parameters_before: Vec<_> = self
            .state
            .module()
            .functions
            .iter()
            .flat_map(|f| f.buffer_map.iter().map(|(_, b)| b.clone()))
            .collect();
        let result = self.apply(primitive, &bound)?;
        let relaid_parameter = self
            .state
            .module()
            .functions
            .iter()
            .flat_map(|f| f.buffer_map.iter().map(|(_, b)| b))
            .zip(&parameters_before)
            .find(|(after, before)| after != before)
            .map(|(_, before)| before.name().to_string());
        let changed = self
            .state
            .module()
            .functions
            .iter()
            .zip(&before)
            .any(|(f, old)| !f.body.same_as(old));
        let text = self
            .source_text(expr.span)
            .map(str::to_string)
            .unwrap_or_else(|| format!("sch.{method}(...)"));
        self.steps.push(AppliedStep {
            number,
            text,
            span: call_span,
            module: self.state.module().clone(),
            changed,
            relaid_parameter,
        });
        Ok(result)
    }

    fn unknown_primitive(&self, method: &str, span: ast::Span) -> Stop {
        let known: Vec<&str> = primitive::all().flat_map(Primitive::names).collect();
        let tvm_only = TVM_ONLY_METHODS.contains(&method);
        let diagnostic = if tvm_only {
            Diagnostic::error(
                codes::UNKNOWN_PRIMITIVE,
                format!(
                    "`sch.{method}` is a TVM schedule primitive that tirc does not implement yet"
                ),
                self.span(span),
            )
            .with_label("not implemented")
        } else {
            Diagnostic::error(
                codes::UNKNOWN_PRIMITIVE,
                format!("`sch.{method}` is not a schedule primitive"),
                self.span(span),
            )
            .with_label("unknown primitive")
        };
        let help = match (
            retired_spelling(method),
            crate::frontend::suggest(method, known.iter().copied()),
        ) {
            (Some(hint), _) => hint.to_string(),
            (None, Some(s)) if !tvm_only => format!("did you mean `sch.{s}`?"),
            _ => format!("tirc's primitives are: {}", known.join(", ")),
        };
        diagnostic.with_help(help).into()
    }

    /// Binds call arguments to a primitive's parameters as Python would.
    fn bind<'a>(
        &self,
        method: &str,
        signature: &Primitive,
        positional: Vec<Arg<'a>>,
        named: Vec<(&ast::Ident, Arg<'a>)>,
        call_span: Span,
    ) -> Eval<Bound<'a>> {
        let mut bound = Bound {
            slots: vec![None; signature.params.len()],
            varargs: Vec::new(),
            keyword_only: HashMap::new(),
            call_span,
        };
        let bad = |message: String, span: Span, help: String| -> Stop {
            Diagnostic::error(codes::BAD_ARGUMENTS, message, span)
                .with_help(help)
                .into()
        };
        let usage = || signature.usage(method);
        if signature.varargs.is_some() {
            bound.varargs = positional;
        } else {
            if positional.len() > signature.params.len() {
                return Err(bad(
                    format!(
                        "`sch.{method}` takes {} argument{} but {} were given",
                        signature.params.len(),
                        plural(signature.params.len()),
                        positional.len()
                    ),
                    positional[signature.params.len()].span,
                    format!("call it as `{}`", usage()),
                ));
            }
            for (slot, arg) in bound.slots.iter_mut().zip(positional) {
                *slot = Some(arg);
            }
        }
        for (keyword, arg) in named {
            let name = keyword.name.as_str();
            let span = self.span(keyword.span);
            if let Some(index) = signature
                .params
                .iter()
                .position(|p| p.name == name || p.trace_keyword == Some(name))
            {
                if bound.slots[index].is_some() {
                    return Err(bad(
                        format!("argument `{name}` of `sch.{method}` is given twice"),
                        span,
                        format!("call it as `{}`", usage()),
                    ));
                }
                bound.slots[index] = Some(arg);
            } else if let Some(keyword_only) =
                signature.keyword_only.iter().find(|p| p.name == name)
            {
                if bound.keyword_only.insert(keyword_only.name, arg).is_some() {
                    return Err(bad(
                        format!("argument `{name}` of `sch.{method}` is given twice"),
                        span,
                        format!("call it as `{}`", usage()),
                    ));
                }
            } else {
                let candidates = signature
                    .params
                    .iter()
                    .chain(signature.keyword_only)
                    .map(|p| p.name);
                let help = match crate::frontend::suggest(name, candidates) {
                    Some(s) => format!("did you mean `{s}=`?"),
                    None => format!("call it as `{}`", usage()),
                };
                return Err(bad(
                    format!("`sch.{method}` has no argument named `{name}`"),
                    span,
                    help,
                ));
            }
        }
        if let Some(missing) = (0..signature.required_count()).find(|i| bound.slots[*i].is_none()) {
            return Err(bad(
                format!(
                    "`sch.{method}` is missing its argument `{}`",
                    signature.params[missing].name
                ),
                call_span,
                format!("call it as `{}`", usage()),
            ));
        }
        Ok(bound)
    }

    /// What a loop or block handle denotes now.
    fn denotation(&self, value: &Value) -> Option<HandleDenotation> {
        let (Value::Block(rv) | Value::Loop(rv)) = value else {
            return None;
        };
        let node = *self.rv_nodes.get(*rv)?;
        let sref = self.state.sref(node)?;
        match sref.stmt.kind() {
            crate::ir::StmtKind::BlockRealize(realize) => Some(HandleDenotation::Block {
                name: realize.block.name.clone(),
            }),
            crate::ir::StmtKind::For(for_loop) => Some(HandleDenotation::Loop {
                name: for_loop.loop_var.name().to_string(),
                extent: crate::printer::expr_to_string(&for_loop.extent),
                block: self
                    .state
                    .descendant_blocks(node)
                    .first()
                    .and_then(|b| self.state.sref(*b))
                    .and_then(|s| s.as_block())
                    .map(|b| b.name.clone()),
            }),
            _ => None,
        }
    }

    /// `items[lower:upper:step]` of a list, as Python slices it.
    fn slice(
        &mut self,
        container: Value,
        bounds: [&Option<Box<ast::Expr>>; 3],
        span: ast::Span,
    ) -> Eval<Value> {
        let Value::List(items) = container else {
            return Err(self.error(
                codes::WRONG_KIND,
                format!("cannot slice {}", container.describe()),
                span,
            ));
        };
        let mut parts = [None; 3];
        for (part, bound) in parts.iter_mut().zip(bounds) {
            if let Some(bound) = bound {
                match self.eval(bound)?.plain() {
                    Value::Int(value) => *part = Some(value),
                    Value::None => {}
                    other => {
                        return Err(self.error(
                            codes::WRONG_KIND,
                            format!(
                                "a slice bound must be an integer, found {}",
                                other.describe()
                            ),
                            bound.span,
                        ))
                    }
                }
            }
        }
        let len = items.len() as i64;
        let step = parts[2].unwrap_or(1);
        if step == 0 {
            return Err(self.error(codes::BAD_ARGUMENTS, "a slice step cannot be zero", span));
        }
        // Python's rules: negative bounds count from the end, then clamp.
        let clamp = |bound: Option<i64>, default: i64| match bound {
            None => default,
            Some(b) if b < 0 => (b + len).max(if step > 0 { 0 } else { -1 }),
            Some(b) => b.min(if step > 0 { len } else { len - 1 }),
        };
        let (start, stop) = if step > 0 {
            (clamp(parts[0], 0), clamp(parts[1], len))
        } else {
            (clamp(parts[0], len - 1), clamp(parts[1], -1))
        };
        let mut picked = Vec::new();
        let mut position = start;
        while (step > 0 && position < stop) || (step < 0 && position > stop) {
            if let Some(item) = usize::try_from(position).ok().and_then(|p| items.get(p)) {
                picked.push(item.clone());
            }
            match position.checked_add(step) {
                Some(next) => position = next,
                None => break,
            }
        }
        Ok(Value::List(picked))
    }

    /// A new random variable for a loop or block.
    /// A new random variable for an integer a sampling instruction drew.
    pub(crate) fn new_expr_rv(&mut self) -> Rv {
        let rv = self.trace.new_rv(super::trace::RvKind::Expr);
        // No loop or block: the slot keeps `rv_nodes` indexed by random variable.
        self.rv_nodes.push(NodeId(0));
        rv
    }

    /// A new random variable for a compute-location mark (named as a loop).
    pub(crate) fn new_location_mark_rv(&mut self) -> Rv {
        let rv = self.trace.new_rv(super::trace::RvKind::Loop);
        self.rv_nodes.push(NodeId(0));
        rv
    }

    /// The random state sampling draws from.
    pub(crate) fn random_state(&self) -> super::sampling::RandomState {
        self.random
    }

    /// The random state after a draw.
    pub(crate) fn set_random_state(&mut self, random: super::sampling::RandomState) {
        self.random = random;
    }

    pub(crate) fn new_rv(&mut self, kind: SRefKind, node: NodeId) -> Rv {
        let rv = self.trace.new_rv(kind);
        self.rv_nodes.push(node);
        rv
    }

    pub(crate) fn record(
        &mut self,
        method: &'static str,
        args: Vec<(Option<&'static str>, TraceArg)>,
        outputs: Outputs,
    ) {
        self.trace.instructions.push(Instruction {
            method,
            args,
            outputs,
        });
    }
}

/// The name of an argument written as a plain variable.
fn name_of(expr: &ast::Expr) -> Option<&str> {
    match &expr.kind {
        ast::ExprKind::Name(name) => Some(name),
        _ => None,
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// What to write instead of a schedule method TVM no longer has: one of
/// the tensor-expression era (`te.create_schedule`), which tutorials still
/// show, or one TensorIR dropped.
fn retired_spelling(method: &str) -> Option<&'static str> {
    Some(match method {
        "get_axes" | "axis" | "op" | "leaf_iter_vars" => {
            "this is the TE schedule's spelling: TensorIR gets a block's loops with `sch.get_loops(block)`, the block from `sch.get_block(\"name\")`"
        }
        "tile" => {
            "TensorIR has no `tile`: split each loop (`i0, i1 = sch.split(i, factors=[None, 8])`), then `sch.reorder(i0, j0, i1, j1)`"
        }
        "pragma" => "TensorIR writes a pragma as an annotation: `sch.annotate(loop, ann_key=\"pragma_...\", ann_val=...)`",
        "create_group" | "compute_root" => {
            "TE stages have no TensorIR counterpart here: a TensorIR block is computed where its loops are; move it with `sch.compute_at`"
        }
        // Gone from TVM since 0.26, with buffers' axis separators.
        "set_axis_separator" => {
            "TVM 0.26 removed `set_axis_separator` (buffers no longer have axis separators); drop the call, or reshape the buffer with `sch.transform_layout`"
        }
        _ => return None,
    })
}

/// `s[B]`: TE's stage lookup, which TensorIR replaces by block handles.
fn te_stage_lookup(span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::WRONG_KIND,
        "`s[B]` looks up a stage in TVM's TE schedule; a TensorIR schedule has no stages",
        span,
    )
    .with_label("TE schedule syntax")
    .with_help("get the block and pass it to the primitive: `b = sch.get_block(\"B\")`, then `sch.compute_at(b, loop)` with `loop` from `sch.get_loops(...)`")
}

/// The parameter names of each primitive the engine applies, by every name
/// it may be called: positional ones, `*varargs`, keyword-only ones.
pub fn primitive_parameters() -> Vec<(&'static str, Vec<String>)> {
    primitive::all()
        .flat_map(|p| p.names().map(move |name| (name, p.parameter_names())))
        .collect()
}

/// True for `T.index_map`, which wraps a `lambda` in TVM's traces.
fn is_index_map_call(func: &ast::Expr) -> bool {
    matches!(&func.kind, ast::ExprKind::Attribute { value, attr }
        if attr.name == "index_map" && matches!(&value.kind, ast::ExprKind::Name(module) if module == "T"))
}
