//! What a TVMScript expression evaluates to while the frontend builds IR:
//! Python literals (kept exact until they meet an IR operand, as in TVM),
//! IR expressions, buffers, regions and containers.

use crate::ir::{Buffer, DataType, Expr, Range};
use crate::source::Span;

/// One dimension of a subscript: an index or a slice `start:stop:step`.
#[derive(Clone, Debug)]
pub(crate) enum Subscript {
    /// `A[i]`
    Index(Expr),
    /// `A[a:b]` or `A[a:b:s]`; missing bounds are `None`.
    Slice {
        /// Start, when written.
        start: Option<Expr>,
        /// Stop, when written.
        stop: Option<Expr>,
        /// Step, when written.
        step: Option<Expr>,
    },
}

/// The value of an evaluated expression.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    /// A Python integer.
    Int(i128),
    /// A Python float.
    Float(f64),
    /// A Python bool.
    Bool(bool),
    /// A Python string.
    Str(String),
    /// `None`.
    None,
    /// An IR expression.
    Expr(Expr),
    /// A tuple.
    Tuple(Vec<Value>),
    /// A list.
    List(Vec<Value>),
    /// A dict.
    Dict(Vec<(Value, Value)>),
    /// A buffer.
    Buffer(Buffer),
    /// `A[0:16, vj]`: a buffer with subscripts, read as a region or a vector load.
    Subscripted(Buffer, Vec<Subscript>),
    /// A data type used as a value or annotation (`T.float32`, `T.handle`).
    DType(DataType),
    /// A `handle` type with its pointee (`T.handle("float32", "shared")`).
    Pointer(DataType, String),
    /// A parameter annotation `T.Buffer(...)`, not yet bound to a name.
    BufferAnnotation(Buffer),
    /// A `Range` value (`T.Range(a, b)`).
    Range(Range),
    /// A TVM 0.27 local scalar (`x: T.int32 = v` outside block-level code):
    /// a one-element buffer read and written by name.
    Scalar(Buffer),
    /// `T.comm_reducer(...)`: the combiner of a cross-thread reduction.
    Reducer(crate::ir::CommReducer),
    /// `T.target({...})`: a compilation target given by its configuration dict.
    Target(Vec<(Value, Value)>),
    /// The result of an expression that already produced an error: every
    /// later use of it is silent, so one mistake gives one diagnostic.
    Poison,
}

impl Value {
    /// A short description of the value's kind for error messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a bool",
            Value::Str(_) => "a string",
            Value::None => "None",
            Value::Expr(_) => "an expression",
            Value::Tuple(_) => "a tuple",
            Value::List(_) => "a list",
            Value::Dict(_) => "a dict",
            Value::Buffer(_) => "a buffer",
            Value::Subscripted(..) => "a buffer region",
            Value::DType(_) | Value::Pointer(..) => "a type",
            Value::BufferAnnotation(_) => "a buffer annotation",
            Value::Range(_) => "a range",
            Value::Poison => "an erroneous value",
            Value::Target(_) => "a target",
            Value::Scalar(_) => "a scalar",
            Value::Reducer(_) => "a reducer",
        }
    }

    /// The elements of a tuple or list.
    pub fn as_sequence(&self) -> Option<&[Value]> {
        match self {
            Value::Tuple(items) | Value::List(items) => Some(items),
            _ => None,
        }
    }
}

/// A Python literal as TVM's `tvm.tirx.const` makes it: ints are `int32`
/// when they fit, else `int64`; floats are `float32`; bools are `bool`.
pub(crate) fn literal_expr(value: &Value, span: Span) -> Option<Expr> {
    let expr = match value {
        Value::Int(v) => {
            if *v >= i32::MIN as i128 && *v <= i32::MAX as i128 {
                Expr::i32(*v as i64)
            } else if *v >= i64::MIN as i128 && *v <= i64::MAX as i128 {
                Expr::int(*v as i64, DataType::int64())
            } else if *v >= 0 && *v <= u64::MAX as i128 {
                Expr::int(*v as u64 as i64, DataType::uint(64))
            } else {
                return None;
            }
        }
        Value::Float(v) => Expr::float(*v, DataType::float32()),
        Value::Bool(v) => Expr::bool(*v),
        Value::Expr(e) => return Some(e.clone()),
        Value::Str(s) => Expr::string(s.clone()),
        _ => return None,
    };
    Some(expr.with_span(span))
}
