//! The table of schedule primitives: one descriptor per primitive, declared
//! in its family file next to its implementation (name and TVM spellings,
//! parameters with defaults, documentation, and the function that applies a
//! call and records it in the trace). The script interpreter dispatches
//! through it; the language server documents, completes and explains from it.
//!
//! Adding a primitive means its family file (implementation and descriptor)
//! and its test files; [`FAMILIES`] lists the family tables.

use super::script::{Bound, Eval, Interpreter, Value};

/// A parameter, as TVM's Python API declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name (a keyword argument may use it).
    pub name: &'static str,
    /// The default as Python text (`True`, `None`, `-1`), for optional ones.
    pub default: Option<&'static str>,
    /// What it takes, for documentation (`int`, `list`, `str`).
    pub kind: Option<&'static str>,
    /// The keyword TVM's traces print for it, where that is not the Python
    /// API's name (`get_output_blocks(block=...)` for `scope_block`); a
    /// call may use either.
    pub trace_keyword: Option<&'static str>,
}

impl Param {
    /// `name`, `name: int` or `name=True`, as editors show it.
    pub fn text(&self) -> String {
        match (self.kind, self.default) {
            (_, Some(default)) => format!("{}={default}", self.name),
            (Some(kind), None) => format!("{}: {kind}", self.name),
            (None, None) => self.name.to_string(),
        }
    }
}

/// A required parameter.
pub const fn required(name: &'static str) -> Param {
    Param {
        name,
        default: None,
        kind: None,
        trace_keyword: None,
    }
}

/// A required parameter with the kind of value it takes.
pub const fn typed(name: &'static str, kind: &'static str) -> Param {
    Param {
        name,
        default: None,
        kind: Some(kind),
        trace_keyword: None,
    }
}

/// An optional parameter with its default.
pub const fn optional(name: &'static str, default: &'static str) -> Param {
    Param {
        name,
        default: Some(default),
        kind: None,
        trace_keyword: None,
    }
}

/// A required parameter that TVM's traces name differently.
pub const fn traced_as(name: &'static str, trace_keyword: &'static str) -> Param {
    Param {
        name,
        default: None,
        kind: None,
        trace_keyword: Some(trace_keyword),
    }
}

/// Applies a call bound to the primitive's parameters, recording it in the trace.
pub(crate) type Apply = fn(&mut Interpreter<'_>, &Bound<'_>) -> Eval<Value>;

/// One schedule primitive.
pub struct Primitive {
    /// The name TVM 0.27 records in traces (`get_sblock`, `split`).
    pub name: &'static str,
    /// Other names a schedule may call it by (`get_block`, TVM's classic spelling).
    pub aliases: &'static [&'static str],
    /// Positional-or-keyword parameters, in order.
    pub params: &'static [Param],
    /// The name of a `*args` parameter (fuse, reorder).
    pub varargs: Option<&'static str>,
    /// Keyword-only parameters after `*args`.
    pub keyword_only: &'static [Param],
    /// One paragraph saying what it does.
    pub doc: &'static str,
    /// How a call is applied.
    pub(crate) apply: Apply,
}

impl Primitive {
    /// How many parameters are required.
    pub fn required_count(&self) -> usize {
        self.params.iter().filter(|p| p.default.is_none()).count()
    }

    /// The parameter names: positional ones, `*varargs`, keyword-only ones.
    pub fn parameter_names(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|p| p.name.to_string())
            .chain(self.varargs.map(|v| format!("*{v}")))
            .chain(self.keyword_only.iter().map(|p| p.name.to_string()))
            .collect()
    }

    /// The parameters as editors show them (`factors: list`, `preserve_unit_iters=True`).
    pub fn parameter_texts(&self) -> Vec<String> {
        self.params
            .iter()
            .map(Param::text)
            .chain(self.varargs.map(|v| format!("*{v}")))
            .chain(self.keyword_only.iter().map(Param::text))
            .collect()
    }

    /// `sch.split(loop, factors, preserve_unit_iters=..., ...)`, for help lines.
    pub fn usage(&self, called_as: &str) -> String {
        let mut parts: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.default {
                None => p.name.to_string(),
                Some(_) => format!("{}=...", p.name),
            })
            .collect();
        if let Some(varargs) = self.varargs {
            parts.insert(0, format!("*{varargs}"));
        }
        parts.extend(self.keyword_only.iter().map(|p| format!("{}=...", p.name)));
        format!("sch.{called_as}({})", parts.join(", "))
    }

    /// The names a schedule may call it by.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }
}

/// The family tables, in the order primitives are listed.
const FAMILIES: &[&[Primitive]] = &[
    super::get_block_loop::PRIMITIVES,
    super::loop_transformation::PRIMITIVES,
    super::merge::PRIMITIVES,
    super::for_kind::PRIMITIVES,
    super::annotate::PRIMITIVES,
    super::compute_at::PRIMITIVES,
    super::compute_inline::PRIMITIVES,
    super::cache_read_write::PRIMITIVES,
    super::block_annotate::PRIMITIVES,
    super::reduction::PRIMITIVES,
    super::decompose_padding::PRIMITIVES,
    super::read_write_at::PRIMITIVES,
    super::rfactor::PRIMITIVES,
    super::blockize::PRIMITIVES,
    super::tensorize::PRIMITIVES,
    super::layout_transformation::PRIMITIVES,
    super::reindex::PRIMITIVES,
    super::pad_einsum::PRIMITIVES,
    super::reorder_block_iter_var::PRIMITIVES,
    super::buffer_access::PRIMITIVES,
    super::sampling::PRIMITIVES,
];

/// Every primitive tirc applies.
pub fn all() -> impl Iterator<Item = &'static Primitive> {
    FAMILIES.iter().flat_map(|family| family.iter())
}

/// The primitive called `name` (its TVM name or an alias).
pub fn find(name: &str) -> Option<&'static Primitive> {
    all().find(|p| p.names().any(|n| n == name))
}

/// TVM schedule methods tirc does not implement (yet), for a precise refusal
/// and for editors.
pub const TVM_ONLY_METHODS: &[&str] = &[
    "cache_index",
    "reindex_cache_read",
    "reindex_cache_write",
    "rolling_buffer",
    "loop_partition",
    "fuse_reduction_epilogue",
    "sample_partitioned_tile",
    "enter_postproc",
    "get",
    "get_sref",
    "remove_rv",
    "copy",
    "seed",
    "fork_seed",
    "show",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_not_tvm_only() {
        let mut seen = std::collections::HashSet::new();
        for primitive in all() {
            for name in primitive.names() {
                assert!(seen.insert(name), "`{name}` is declared twice");
                assert!(
                    !TVM_ONLY_METHODS.contains(&name),
                    "`{name}` is listed as TVM-only"
                );
            }
            assert!(!primitive.doc.is_empty(), "`{}` has no doc", primitive.name);
        }
        assert!(find("get_block").is_some_and(|p| p.name == "get_sblock"));
    }

    #[test]
    fn required_parameters_come_first() {
        for primitive in all() {
            let required = primitive.required_count();
            assert!(
                primitive.params[..required]
                    .iter()
                    .all(|p| p.default.is_none()),
                "`{}`",
                primitive.name
            );
        }
    }
}
