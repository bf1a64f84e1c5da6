//! The printer: IR to TVMScript text, line for line as TVM 0.27 prints it.
//!
//! IR → lines (this module's `Line` tree, where sugar such as `T.grid` and
//! `T.axis.remap` is chosen) → a `pretty` document → text. Expressions are
//! printed straight to strings with TVM's precedence rules; statements become
//! lines nested under their headers.

mod buffer;
mod expr;
mod function;
pub mod names;
pub mod source_layout;
mod stmt;

use crate::ir::{Expr, IRModule, PrimFunc};
use names::Names;
use std::fmt;

pub use expr::format_float;

/// Which TVMScript dialect to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum Dialect {
    /// TVM up to 0.20 and every tutorial: `T.block`, `T.alloc_buffer`, `sch.get_block`.
    #[default]
    Classic,
    /// TVM 0.25 and later: `T.sblock`, `T.sblock_alloc_buffer`, `sch.get_sblock`.
    Tirx,
}

impl Dialect {
    /// `block` or `sblock`.
    pub fn block(self) -> &'static str {
        match self {
            Dialect::Classic => "block",
            Dialect::Tirx => "sblock",
        }
    }
    /// `alloc_buffer` or `sblock_alloc_buffer`.
    pub fn alloc_buffer(self) -> &'static str {
        match self {
            Dialect::Classic => "alloc_buffer",
            Dialect::Tirx => "sblock_alloc_buffer",
        }
    }
    /// `block_attr` or `sblock_attr`.
    pub fn block_attr(self) -> &'static str {
        match self {
            Dialect::Classic => "block_attr",
            Dialect::Tirx => "sblock_attr",
        }
    }
    /// The function-attribute prefix `tir` or `tirx` (`tir.noalias`).
    pub fn attr_prefix(self) -> &'static str {
        match self {
            Dialect::Classic => "tir",
            Dialect::Tirx => "tirx",
        }
    }
    /// `get_block` or `get_sblock`.
    pub fn get_block(self) -> &'static str {
        match self {
            Dialect::Classic => "get_block",
            Dialect::Tirx => "get_sblock",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Classic => "classic",
            Dialect::Tirx => "tirx",
        })
    }
}

impl std::str::FromStr for Dialect {
    type Err = String;
    fn from_str(text: &str) -> Result<Dialect, String> {
        match text {
            "classic" | "tir" => Ok(Dialect::Classic),
            "tirx" => Ok(Dialect::Tirx),
            other => Err(format!(
                "unknown dialect `{other}` (expected classic or tirx)"
            )),
        }
    }
}

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// The dialect to write.
    pub dialect: Dialect,
    /// Write the `# from tvm.script import ...` header lines.
    pub header: bool,
    /// Rewrite `tir.*`/`tirx.*` attribute keys for the dialect (when converting
    /// a file from the other dialect); keys are otherwise printed as written.
    pub convert_attr_keys: bool,
    /// The source's comments and choices, kept by the formatter; `None`
    /// prints the IR alone, as TVM does.
    pub layout: Option<std::sync::Arc<source_layout::SourceLayout>>,
    /// With a layout: print the inferred regions and the root-block line the
    /// source left out, exactly as TVM prints the module (`fmt --explicit`).
    pub explicit: bool,
}

impl PrintOptions {
    /// Options for `dialect` with the standard header.
    pub fn new(dialect: Dialect) -> PrintOptions {
        PrintOptions {
            dialect,
            header: true,
            convert_attr_keys: false,
            layout: None,
            explicit: false,
        }
    }
}

/// One printed line, or a header line with an indented body.
#[derive(Debug, Clone)]
pub(crate) enum Line {
    /// A line of text.
    Text(String),
    /// A header line ending in `:` (see [`Line::nested`]) followed by the
    /// body indented one level.
    Nested(String, Vec<Line>),
}

impl Line {
    /// `head:` with `body` under it. The colon is written into the header
    /// here, so the header renders as one piece of text.
    pub(crate) fn nested(mut head: String, body: Vec<Line>) -> Line {
        head.push(':');
        Line::Nested(head, body)
    }
}

fn to_doc<'a>(
    arena: &'a pretty::Arena<'a>,
    lines: &'a [Line],
    hardline: &pretty::DocBuilder<'a, pretty::Arena<'a>>,
) -> pretty::DocBuilder<'a, pretty::Arena<'a>> {
    use pretty::DocAllocator;
    arena.intersperse(
        lines.iter().map(|line| match line {
            Line::Text(text) => arena.text(text.as_str()),
            Line::Nested(head, body) => arena.text(head.as_str()).append(
                hardline
                    .clone()
                    .append(to_doc(arena, body, hardline))
                    .nest(4),
            ),
        }),
        hardline.clone(),
    )
}

/// The length of the rendered text of `lines` at `indent`, so the output is allocated once.
fn rendered_size(lines: &[Line], indent: usize) -> usize {
    lines
        .iter()
        .map(|line| match line {
            Line::Text(text) => indent + text.len() + 1,
            Line::Nested(head, body) => indent + head.len() + 1 + rendered_size(body, indent + 4),
        })
        .sum()
}

/// Renders lines as text; long lines stay whole, as TVM prints them.
pub(crate) fn render_lines(lines: &[Line]) -> String {
    let mut out = String::with_capacity(rendered_size(lines, 0));
    // An arena: the document lives only for this rendering, so its nodes are freed at once.
    let arena = pretty::Arena::new();
    // No line is ever broken: breaking outside brackets would change meaning.
    // One hardline node, shared by every line break.
    let hardline = {
        use pretty::DocAllocator;
        let node = arena.hardline().into_doc();
        pretty::DocBuilder(&arena, node.into())
    };
    let _ = to_doc(&arena, lines, &hardline).render_fmt(usize::MAX, &mut out);
    out.push('\n');
    out
}

/// Shared state of one printing run.
pub(crate) struct Printer {
    pub options: PrintOptions,
    pub names: Names,
    /// Variables and ranges of the loops enclosing the statement being
    /// printed, outermost first (an iterator bound to one over the same
    /// domain prints with `T.axis.remap`).
    pub loops: Vec<(crate::ir::Var, crate::ir::Range)>,
    /// True inside a function that carries the `s_tir` attribute.
    pub s_tir: bool,
    /// The buffer that first declared each data variable (for `.view`).
    pub data_owners: std::collections::HashMap<crate::ir::Var, crate::ir::Buffer>,
    /// Buffers printed as TVM 0.27 local scalars (read and written by name).
    pub scalars: std::collections::HashSet<crate::ir::Buffer>,
    /// The class name of the module being printed, for calls between functions.
    pub module_name: Option<String>,
    /// Thread variables launched more than once (declared by `T.env_thread`).
    pub env_threads: std::collections::HashSet<crate::ir::Var>,
    /// Free variables not yet declared; declared before their first use at
    /// function level.
    pub pending_free_vars: Vec<crate::ir::Var>,
    /// Depth of nested bodies being printed (0: the function body).
    pub depth: usize,
    /// The next comment of the layout to print.
    pub next_comment: usize,
    /// Comments from here on belong to what follows the function printed.
    pub comment_limit: u32,
}

impl Printer {
    pub fn new(options: PrintOptions) -> Printer {
        Printer {
            options,
            names: Names::new(),
            loops: Vec::new(),
            s_tir: false,
            data_owners: std::collections::HashMap::new(),
            scalars: std::collections::HashSet::new(),
            module_name: None,
            env_threads: std::collections::HashSet::new(),
            pending_free_vars: Vec::new(),
            depth: 0,
            next_comment: 0,
            comment_limit: u32::MAX,
        }
    }
}

/// The header comment lines TVM prints before a module or function.
pub fn header_lines(dialect: Dialect, module: bool, type_vars: bool) -> Vec<&'static str> {
    let mut lines = Vec::with_capacity(4);
    if type_vars {
        lines.push("# from typing import TypeVar");
    }
    if module {
        lines.push("# from tvm.script import ir as I");
    }
    lines.push(match dialect {
        Dialect::Classic => "# from tvm.script import tir as T",
        Dialect::Tirx => "# from tvm.script import tirx as T",
    });
    if dialect == Dialect::Tirx {
        lines.push("# from tvm.tirx.layout import Axis");
    }
    lines
}

/// Prints a module as `@I.ir_module class Module:` with its functions.
pub fn print_module(module: &IRModule, options: &PrintOptions) -> String {
    function::print_module(module, options)
}

/// Prints one function on its own, as `@T.prim_func def name(...)`.
pub fn print_function(func: &PrimFunc, options: &PrintOptions) -> String {
    function::print_standalone_function(func, options)
}

/// Prints functions without a module class, a blank line between two.
pub fn print_functions(funcs: &[PrimFunc], options: &PrintOptions) -> String {
    function::print_standalone_functions(funcs, options)
}

/// Int64 symbolic variables the printer declares as module-level `TypeVar`s.
pub fn type_vars_of(func: &PrimFunc) -> Vec<crate::ir::Var> {
    function::type_vars(func)
}

/// An expression as TVMScript text, with variables printed by their name hints.
pub fn expr_to_string(expr: &Expr) -> String {
    let mut printer = Printer::new(PrintOptions::default());
    printer.expr(expr)
}
