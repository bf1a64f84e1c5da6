//! What the script computes with and what it may call: values, arguments
//! with their spans, and the signatures of the primitives as TVM's Python
//! API declares them.

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
pub(super) struct Arg<'a> {
    pub(super) value: Value,
    pub(super) span: Span,
    /// The variable name, when the argument was written as one (for messages).
    pub(super) name: Option<&'a str>,
}

impl Arg<'_> {
    pub(super) fn describe_handle(&self) -> String {
        match &self.name {
            Some(name) => format!("`{name}`"),
            None => "the handle".to_string(),
        }
    }
}

/// The parameters of a primitive, as TVM's Python API declares them.
pub(super) struct Signature {
    /// Positional-or-keyword parameters, in order.
    pub(super) params: &'static [&'static str],
    /// How many of them are required.
    pub(super) required: usize,
    /// The name of a `*args` parameter (fuse, reorder).
    pub(super) varargs: Option<&'static str>,
    /// Keyword-only parameters after `*args`.
    pub(super) keyword_only: &'static [&'static str],
}

pub(super) const PRIMITIVES: &[(&str, Signature)] = &[
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
    (
        "compute_at",
        sig(&["block", "loop", "preserve_unit_loops", "index"], 2),
    ),
    (
        "reverse_compute_at",
        sig(&["block", "loop", "preserve_unit_loops", "index"], 2),
    ),
    ("decompose_reduction", sig(&["block", "loop"], 2)),
    ("rfactor", sig(&["loop", "factor_axis"], 2)),
    ("compute_inline", sig(&["block"], 1)),
    ("reverse_compute_inline", sig(&["block"], 1)),
    (
        "cache_read",
        sig(
            &[
                "block",
                "read_buffer_index",
                "storage_scope",
                "consumer_blocks",
            ],
            3,
        ),
    ),
    (
        "cache_write",
        sig(
            &[
                "block",
                "write_buffer_index",
                "storage_scope",
                "consumer_blocks",
            ],
            3,
        ),
    ),
    (
        "storage_align",
        sig(&["block", "buffer_index", "axis", "factor", "offset"], 5),
    ),
    (
        "set_scope",
        sig(&["block", "buffer_index", "storage_scope"], 3),
    ),
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
pub(super) const TVM_ONLY_METHODS: &[&str] = &[
    "cache_inplace",
    "cache_index",
    "reindex",
    "reindex_cache_read",
    "reindex_cache_write",
    "read_at",
    "write_at",
    "blockize",
    "tensorize",
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
pub(super) struct Bound<'a> {
    pub(super) slots: Vec<Option<Arg<'a>>>,
    pub(super) varargs: Vec<Arg<'a>>,
    pub(super) keyword_only: HashMap<&'static str, Arg<'a>>,
    pub(super) call_span: Span,
}

impl<'a> Bound<'a> {
    pub(super) fn get(&self, index: usize) -> Option<&Arg<'a>> {
        self.slots.get(index).and_then(|a| a.as_ref())
    }
    /// The span of a primitive's argument slot: parameter `index`, or the
    /// `index`-th of the `*args`.
    pub(super) fn slot_span(&self, index: usize) -> Span {
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

/// `sch.split(loop, factors, preserve_unit_iters=..., ...)` for help lines.
pub(super) fn usage_of(method: &str, signature: &Signature) -> String {
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
