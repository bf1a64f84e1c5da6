//! What the script computes with: values, and arguments with their spans
//! bound to a primitive's parameters.

use crate::schedule::trace::Rv;
use crate::source::Span;
use std::collections::HashMap;

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
    /// An integer a sampling instruction drew: used as an integer, and
    /// recorded in the trace as the random variable (`v3`) it came from.
    Sampled(Rv, i64),
    /// A place `sample_compute_location` drew that is not a loop: TVM's
    /// marks for "at the root" and "inline", which `compute_at` takes.
    LocationMark(Rv, crate::schedule::sampling::ComputeLocation),
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
    /// A `lambda` (TVM's index maps, `lambda i, j: (j, i)`), kept as written.
    Lambda(std::sync::Arc<Lambda>),
}

/// A `lambda` of the schedule script: its parameter names and its body,
/// given meaning by the primitive that takes it.
#[derive(Debug)]
pub struct Lambda {
    /// The parameter names, in order.
    pub params: Vec<String>,
    /// The body as written.
    pub body: tirc_grammar::ast::Expr,
    /// Where the lambda is written.
    pub span: Span,
}

impl PartialEq for Lambda {
    fn eq(&self, other: &Lambda) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Value {
    /// The integer this value is, sampled or written.
    pub fn integer(&self) -> Option<i64> {
        match self {
            Value::Int(value) | Value::Sampled(_, value) => Some(*value),
            _ => None,
        }
    }

    /// The value with a sampled integer made a plain one (what arithmetic
    /// on it gives: TVM's trace would hold an expression there).
    pub fn plain(self) -> Value {
        match self {
            Value::Sampled(_, value) => Value::Int(value),
            other => other,
        }
    }

    /// What kind of value this is, for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Schedule => "the schedule",
            Value::Block(_) => "a block handle",
            Value::Loop(_) => "a loop handle",
            Value::Int(_) | Value::Sampled(..) => "an integer",
            Value::LocationMark(..) => "a compute location",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bool(_) => "a bool",
            Value::None => "None",
            Value::List(_) => "a list",
            Value::Dict(_) => "a dict",
            Value::Lambda(_) => "a lambda",
        }
    }
}

/// An evaluated argument with where it was written.
#[derive(Clone, Debug)]
pub(crate) struct Arg<'a> {
    pub(crate) value: Value,
    pub(crate) span: Span,
    /// The variable name, when the argument was written as one (for messages).
    pub(crate) name: Option<&'a str>,
}

impl Arg<'_> {
    pub(super) fn describe_handle(&self) -> String {
        match &self.name {
            Some(name) => format!("`{name}`"),
            None => "the handle".to_string(),
        }
    }
}

/// Arguments bound to a signature: one slot per parameter, the `*args`, and
/// the keyword-only ones.
pub(crate) struct Bound<'a> {
    pub(crate) slots: Vec<Option<Arg<'a>>>,
    pub(crate) varargs: Vec<Arg<'a>>,
    pub(crate) keyword_only: HashMap<&'static str, Arg<'a>>,
    pub(crate) call_span: Span,
}

impl<'a> Bound<'a> {
    pub(crate) fn get(&self, index: usize) -> Option<&Arg<'a>> {
        self.slots.get(index).and_then(|a| a.as_ref())
    }
    /// The span of a primitive's argument slot: parameter `index`, or the
    /// `index`-th of the `*args`.
    pub(crate) fn slot_span(&self, index: usize) -> Span {
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
