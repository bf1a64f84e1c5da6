//! The schedule-script interpreter: runs the body of a schedule `def`
//! (straight-line calls on `sch`, assignments of their results, tuples,
//! literals, lists and `None`) against the schedule state, one step per call,
//! recording the trace.
//!
//! Every call of a method of `sch` is a step. A step that fails stops the run
//! with one diagnostic whose primary span is on the schedule line; the
//! program stays as the last step that succeeded left it.

use super::annotate;
use super::error::{codes, ScheduleError};
use super::for_kind;
use super::get_block_loop;
use super::loop_transformation;
use super::state::{Missing, SRefKind, ScheduleState};
use super::trace::{Instruction, Outputs, Rv, Trace, TraceArg};
use super::AppliedStep;
use crate::diagnostics::Diagnostic;
use crate::frontend::ScheduleDef;
use crate::ir::{AttrValue, DataType, Expr, NodeId};
use crate::source::{FileId, Span};
use std::collections::HashMap;
use tirc_grammar::ast;

/// A value of the schedule script.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// The schedule itself (`sch`).
    Schedule,
    /// A block handle.
    Block(Rv),
    /// A loop handle.
    Loop(Rv),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A bool.
    Bool(bool),
    /// `None`.
    None,
    /// A list or tuple.
    List(Vec<Value>),
    /// A dict with string keys.
    Dict(Vec<(String, Value)>),
}

impl Value {
    /// What kind of value this is, for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Schedule => "the schedule",
            Value::Block(_) => "a block handle",
            Value::Loop(_) => "a loop handle",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bool(_) => "a bool",
            Value::None => "None",
            Value::List(_) => "a list",
            Value::Dict(_) => "a dict",
        }
    }
}

/// An evaluated argument with where it was written.
#[derive(Clone, Debug)]
struct Arg {
    value: Value,
    span: Span,
    /// The variable name, when the argument was written as one (for messages).
    name: Option<String>,
}

impl Arg {
    fn describe_handle(&self) -> String {
        match &self.name {
            Some(name) => format!("`{name}`"),
            None => "the handle".to_string(),
        }
    }
}

/// The parameters of a primitive, as TVM's Python API declares them.
struct Signature {
    /// Positional-or-keyword parameters, in order.
    params: &'static [&'static str],
    /// How many of them are required.
    required: usize,
    /// The name of a `*args` parameter (fuse, reorder).
    varargs: Option<&'static str>,
    /// Keyword-only parameters after `*args`.
    keyword_only: &'static [&'static str],
}

const PRIMITIVES: &[(&str, Signature)] = &[
    ("get_block", sig(&["name", "func_name"], 1)),
    ("get_sblock", sig(&["name", "func_name"], 1)),
    ("get_loops", sig(&["block"], 1)),
    ("get_child_blocks", sig(&["block_or_loop"], 1)),
    ("get_producers", sig(&["block"], 1)),
    ("get_consumers", sig(&["block"], 1)),
    (
        "split",
        sig(
            &[
                "loop",
                "factors",
                "preserve_unit_iters",
                "disable_predication",
            ],
            2,
        ),
    ),
    (
        "fuse",
        Signature {
            params: &[],
            required: 0,
            varargs: Some("loops"),
            keyword_only: &["preserve_unit_iters"],
        },
    ),
    (
        "reorder",
        Signature {
            params: &[],
            required: 0,
            varargs: Some("ordered_loops"),
            keyword_only: &[],
        },
    ),
    ("add_unit_loop", sig(&["block_or_loop"], 1)),
    ("parallel", sig(&["loop"], 1)),
    ("vectorize", sig(&["loop"], 1)),
    ("unroll", sig(&["loop"], 1)),
    ("bind", sig(&["loop", "thread_axis"], 2)),
    ("annotate", sig(&["block_or_loop", "ann_key", "ann_val"], 3)),
    ("unannotate", sig(&["block_or_loop", "ann_key"], 2)),
];

const fn sig(params: &'static [&'static str], required: usize) -> Signature {
    Signature {
        params,
        required,
        varargs: None,
        keyword_only: &[],
    }
}

/// TVM schedule methods tirc does not implement (yet), for a precise refusal.
const TVM_ONLY_METHODS: &[&str] = &[
    "compute_at",
    "reverse_compute_at",
    "compute_inline",
    "reverse_compute_inline",
    "cache_read",
    "cache_write",
    "cache_inplace",
    "cache_index",
    "reindex",
    "reindex_cache_read",
    "reindex_cache_write",
    "read_at",
    "write_at",
    "rfactor",
    "decompose_reduction",
    "blockize",
    "tensorize",
    "storage_align",
    "set_scope",
    "unsafe_set_dtype",
    "transform_layout",
    "transform_block_layout",
    "set_axis_separator",
    "decompose_padding",
    "pad_einsum",
    "rolling_buffer",
    "loop_partition",
    "merge",
    "reorder_block_iter_var",
    "annotate_buffer_access",
    "unsafe_hide_buffer_access",
    "fuse_reduction_epilogue",
    "sample_perfect_tile",
    "sample_partitioned_tile",
    "sample_categorical",
    "sample_compute_location",
    "get_output_blocks",
    "enter_postproc",
    "work_on",
    "get",
    "get_sref",
    "remove_rv",
    "copy",
    "seed",
    "fork_seed",
    "show",
];

/// Arguments bound to a signature: one slot per parameter, the `*args`, and
/// the keyword-only ones.
struct Bound {
    slots: Vec<Option<Arg>>,
    varargs: Vec<Arg>,
    keyword_only: HashMap<&'static str, Arg>,
    call_span: Span,
}

impl Bound {
    fn get(&self, index: usize) -> Option<&Arg> {
        self.slots.get(index).and_then(|a| a.as_ref())
    }
    /// The span of a primitive's argument slot: parameter `index`, or the
    /// `index`-th of the `*args`.
    fn slot_span(&self, index: usize) -> Span {
        if !self.varargs.is_empty() {
            return self
                .varargs
                .get(index)
                .map(|a| a.span)
                .unwrap_or(self.call_span);
        }
        self.get(index).map(|a| a.span).unwrap_or(self.call_span)
    }
}

/// Why the run stopped early.
enum Stop {
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
}

/// Runs a schedule def on the state.
pub(crate) fn run(
    state: &mut ScheduleState,
    def: &ScheduleDef,
    file: FileId,
    stop_after: Option<usize>,
) -> Outcome {
    let text_start = def.span.end.saturating_sub(def.text.len() as u32);
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
    }
}

struct Interpreter<'a> {
    state: &'a mut ScheduleState,
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
}

type Eval<T> = Result<T, Stop>;

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
            _ => Err(Diagnostic::error(
                codes::UNSUPPORTED_STATEMENT,
                "a schedule section holds only calls on `sch` and assignments of their results",
                self.span(stmt.span),
            )
            .with_help(
                "write the schedule as straight-line code: no loops, conditions or functions",
            )
            .into()),
        }
    }

    fn assign(&mut self, target: &ast::Expr, value: Value) -> Eval<()> {
        match &target.kind {
            ast::ExprKind::Name(name) => {
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
            ast::ExprKind::Int(value) => i64::try_from(*value)
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
                let value = self.eval(operand)?;
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
                let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
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
                    ast::BinOp::FloorDiv if b != 0 => {
                        Some(a.div_euclid(b) - i64::from(a.rem_euclid(b) != 0 && b < 0))
                    }
                    ast::BinOp::Mod if b != 0 => Some(((a % b) + b) % b),
                    _ => None,
                };
                result.map(Value::Int).ok_or_else(|| {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "this integer operation is not supported or overflows",
                        expr.span,
                    )
                })
            }
            ast::ExprKind::Subscript { value, indices } => {
                let container = self.eval(value)?;
                let [index] = indices.as_slice() else {
                    return Err(self.error(
                        codes::WRONG_KIND,
                        "index a list with one integer",
                        expr.span,
                    ));
                };
                let index_value = self.eval(index)?;
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
        let Some((_, signature)) = PRIMITIVES.iter().find(|(name, _)| *name == method) else {
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
                keyword.name.clone(),
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
        let bound = self.bind(method, signature, positional, named, call_span)?;
        let number = self.steps.len() + 1;
        self.state.begin_step(number);
        let before = self
            .state
            .module()
            .functions
            .iter()
            .map(|f| f.body.clone())
            .collect::<Vec<_>>();
        let result = self.apply(method, &bound)?;
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
        });
        Ok(result)
    }

    fn unknown_primitive(&self, method: &str, span: ast::Span) -> Stop {
        let known: Vec<&str> = PRIMITIVES.iter().map(|(name, _)| *name).collect();
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
        let help = match crate::frontend::suggest(method, known.iter().copied()) {
            Some(s) if !tvm_only => format!("did you mean `sch.{s}`?"),
            _ => format!("tirc's primitives are: {}", known.join(", ")),
        };
        diagnostic.with_help(help).into()
    }

    /// Binds call arguments to a primitive's parameters as Python would.
    fn bind(
        &self,
        method: &str,
        signature: &Signature,
        positional: Vec<Arg>,
        named: Vec<(ast::Ident, Arg)>,
        call_span: Span,
    ) -> Eval<Bound> {
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
        let usage = || usage_of(method, signature);
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
            if let Some(index) = signature.params.iter().position(|p| *p == name) {
                if bound.slots[index].is_some() {
                    return Err(bad(
                        format!("argument `{name}` of `sch.{method}` is given twice"),
                        span,
                        format!("call it as `{}`", usage()),
                    ));
                }
                bound.slots[index] = Some(arg);
            } else if let Some(keyword_only) = signature.keyword_only.iter().find(|p| **p == name) {
                if bound.keyword_only.insert(keyword_only, arg).is_some() {
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
                    .copied();
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
        if let Some(missing) = (0..signature.required).find(|i| bound.slots[*i].is_none()) {
            return Err(bad(
                format!(
                    "`sch.{method}` is missing its argument `{}`",
                    signature.params[missing]
                ),
                call_span,
                format!("call it as `{}`", usage()),
            ));
        }
        Ok(bound)
    }

    /// A new random variable for a loop or block.
    fn new_rv(&mut self, kind: SRefKind, node: NodeId) -> Rv {
        let rv = self.trace.new_rv(kind);
        self.rv_nodes.push(node);
        rv
    }

    fn record(
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

    /// Applies a primitive to bound arguments, recording it in the trace.
    fn apply(&mut self, method: &str, bound: &Bound) -> Eval<Value> {
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
    fn get_block(
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

    fn wrong_kind(
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

    fn expect_str(&self, bound: &Bound, index: usize, param: &str) -> Eval<String> {
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

    fn bool_arg(&self, bound: &Bound, index: usize, param: &str, default: bool) -> Eval<bool> {
        match bound.get(index) {
            None => Ok(default),
            Some(arg) => self.as_bool(arg, param),
        }
    }

    fn as_bool(&self, arg: &Arg, param: &str) -> Eval<bool> {
        match &arg.value {
            Value::Bool(b) => Ok(*b),
            Value::Int(i) => Ok(*i != 0),
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

    /// A live loop or block handle of an argument; `kind` restricts the kind.
    fn handle(&self, arg: &Arg, param: &str, kind: Option<SRefKind>) -> Eval<(Rv, NodeId)> {
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

    fn handle_arg(
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

    fn loop_arg(&self, bound: &Bound, index: usize, param: &str) -> Eval<(Rv, NodeId)> {
        self.handle_arg(bound, index, param, Some(SRefKind::Loop))
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
    fn block_arg(
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
    fn annotation_value(&self, arg: &Arg) -> Eval<(AttrValue, TraceArg)> {
        fn convert(value: &Value) -> Option<(AttrValue, TraceArg)> {
            Some(match value {
                Value::Int(i) => (AttrValue::Int(*i), TraceArg::Int(*i)),
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
                Value::Schedule | Value::Block(_) | Value::Loop(_) => return None,
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

/// The name of an argument written as a plain variable.
fn name_of(expr: &ast::Expr) -> Option<String> {
    match &expr.kind {
        ast::ExprKind::Name(name) => Some(name.clone()),
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

/// `sch.split(loop, factors, preserve_unit_iters=..., ...)` for help lines.
fn usage_of(method: &str, signature: &Signature) -> String {
    let mut parts: Vec<String> = signature
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i < signature.required {
                p.to_string()
            } else {
                format!("{p}=...")
            }
        })
        .collect();
    if let Some(varargs) = signature.varargs {
        parts.insert(0, format!("*{varargs}"));
    }
    parts.extend(signature.keyword_only.iter().map(|p| format!("{p}=...")));
    format!("sch.{method}({})", parts.join(", "))
}
