//! Functions and modules: the decorator, the signature with buffer
//! annotations, `T.func_attr`, the implicit root block and free variables.

use super::buffer::DeclKind;
use super::expr::quote;
use super::stmt::implicit_root_block;
use super::{header_lines, render_lines, Dialect, Line, PrintOptions, Printer};
use crate::ir::identity::VarSet;
use crate::ir::visit::{walk_exprs, Visitor};
use crate::ir::{AttrValue, Buffer, DataType, ExprKind, IRModule, PrimFunc, Stmt, StmtKind, Var};
use std::fmt::Write as _;

/// The attribute that marks a schedulable (block-level) function in TVM 0.27.
pub const S_TIR_ATTR: &str = "s_tir";
/// The attribute naming a function's external symbol.
pub const GLOBAL_SYMBOL_ATTR: &str = "global_symbol";

/// Maps `tir.*` attribute keys to the dialect's prefix (`tirx.noalias`).
pub fn dialect_attr_key(key: &str, dialect: Dialect) -> String {
    for prefix in ["tir.", "tirx."] {
        if let Some(rest) = key.strip_prefix(prefix) {
            return format!("{}.{rest}", dialect.attr_prefix());
        }
    }
    key.to_string()
}

/// Int64 variables in parameter buffer shapes that are not parameters: TVM
/// 0.27 declares them at module level as `n = TypeVar("n")`.
pub(crate) fn type_vars(func: &PrimFunc) -> Vec<Var> {
    let mut found: Vec<Var> = Vec::new();
    for (_, buffer) in &func.buffer_map {
        let node = buffer.node();
        for e in node
            .shape
            .iter()
            .chain(&node.strides)
            .chain([&node.elem_offset])
        {
            walk_exprs(e, &mut |sub| {
                if let ExprKind::Var(v) = sub.kind() {
                    if v.dtype() == DataType::int64()
                        && !func.params.contains(v)
                        && !found.contains(v)
                    {
                        found.push(v.clone());
                    }
                }
            });
        }
    }
    found
}

/// Every variable the function uses but never defines, in first-use order.
fn free_vars(func: &PrimFunc, already: &VarSet) -> Vec<Var> {
    struct Collector<'a> {
        defined: VarSet,
        already: &'a VarSet,
        free: Vec<Var>,
    }
    impl Collector<'_> {
        fn use_var(&mut self, var: &Var) {
            if !self.defined.contains(var)
                && !self.already.contains(var)
                && !self.free.contains(var)
            {
                self.free.push(var.clone());
            }
        }
        fn define_buffer(&mut self, buffer: &Buffer) {
            self.defined.insert(buffer.data().clone());
            let node = buffer.node();
            // Buffer fields that are lone new variables are defined by the buffer itself.
            for e in node.strides.iter().chain([&node.elem_offset]) {
                if let ExprKind::Var(v) = e.kind() {
                    self.defined.insert(v.clone());
                }
            }
            for e in node
                .shape
                .iter()
                .chain(&node.strides)
                .chain([&node.elem_offset])
            {
                walk_exprs(e, &mut |sub| {
                    if let ExprKind::Var(v) = sub.kind() {
                        if !self.defined.contains(v) {
                            self.defined.insert(v.clone());
                            if !self.free.contains(v) && !self.already.contains(v) {
                                self.free.push(v.clone());
                            }
                        }
                    }
                });
            }
        }
    }
    impl Visitor for Collector<'_> {
        fn visit_expr(&mut self, expr: &crate::ir::Expr) {
            // A `T.Let` variable is declared up front (`x = T.int32()`), as TVM does.
            match expr.kind() {
                ExprKind::Var(v) => self.use_var(v),
                ExprKind::Let { var, .. } => self.use_var(var),
                _ => {}
            }
            crate::ir::visit::walk_expr(self, expr);
        }
        fn visit_buffer_def(&mut self, buffer: &Buffer) {
            self.define_buffer(buffer);
        }
        fn visit_buffer_use(&mut self, buffer: &Buffer) {
            if !self.defined.contains(buffer.data()) {
                self.define_buffer(buffer);
            }
        }
        fn visit_stmt(&mut self, stmt: &Stmt) {
            match stmt.kind() {
                StmtKind::For(f) => {
                    self.defined.insert(f.loop_var.clone());
                }
                StmtKind::LetStmt { var, .. } => {
                    self.defined.insert(var.clone());
                }
                StmtKind::Allocate(a) => {
                    self.defined.insert(a.buffer_var.clone());
                }
                StmtKind::AttrStmt(attr) => {
                    if let crate::ir::AttrNode::Thread { var, .. } = &attr.node {
                        self.defined.insert(var.clone());
                    }
                }
                StmtKind::BlockRealize(realize) => {
                    for iv in &realize.block.iter_vars {
                        self.defined.insert(iv.var.clone());
                    }
                }
                _ => {}
            }
            crate::ir::visit::walk_stmt(self, stmt);
        }
    }
    // Sized for a typical function's loops, iterators and buffers, so the walk does not rehash.
    let mut defined = VarSet::with_capacity_and_hasher(64, Default::default());
    defined.extend(func.params.iter().cloned());
    let mut collector = Collector {
        defined,
        already,
        free: Vec::new(),
    };
    for (_, buffer) in &func.buffer_map {
        collector.define_buffer(buffer);
    }
    // Shape variables of parameter buffers are defined by the signature.
    collector.free.clear();
    collector.visit_stmt(&func.body);
    collector.free
}

impl Printer {
    fn decorator(&self, func: &PrimFunc) -> String {
        let mut kwargs = Vec::new();
        if func.attr(GLOBAL_SYMBOL_ATTR).is_none() {
            kwargs.push("private=True");
        }
        if self.options.dialect == Dialect::Tirx && func.attr(S_TIR_ATTR).is_some() {
            kwargs.push("s_tir=True");
        }
        if kwargs.is_empty() {
            "@T.prim_func".to_string()
        } else {
            format!("@T.prim_func({})", kwargs.join(", "))
        }
    }

    /// The lines of a function: decorator, `def` line and body.
    pub(crate) fn function(&mut self, func: &PrimFunc, type_vars: &[Var]) -> Vec<Line> {
        // The comments between the previous function and this one.
        let mut before = Vec::new();
        let extent = self
            .options
            .layout
            .as_ref()
            .and_then(|layout| layout.function_extent(func.span));
        if let Some(extent) = extent {
            self.comments_before(extent.start, &mut before);
        }
        self.comment_limit = extent.map_or(u32::MAX, |extent| extent.end);
        self.names.enter();
        self.s_tir = func.attr(S_TIR_ATTR).is_some();
        let mut body: Vec<Line> = Vec::new();
        for var in type_vars {
            self.names.define_var(var);
        }

        // Scalar parameters are named first so buffer shapes can refer to them.
        for param in &func.params {
            if func.buffer_of(param).is_none() {
                self.names.define_var(param);
            }
        }
        let mut bound: VarSet = func
            .params
            .iter()
            .filter(|p| func.buffer_of(p).is_none())
            .cloned()
            .collect();
        // The `def` line is the longest a function prints: written in place, not joined from parts.
        let mut signature = String::with_capacity(128);
        signature.push_str("def ");
        signature.push_str(&func.name);
        signature.push('(');
        for (i, param) in func.params.iter().enumerate() {
            if i > 0 {
                signature.push_str(", ");
            }
            match func.buffer_of(param) {
                Some(buffer) => {
                    // The first use of an unbound signature variable is quoted.
                    let mut stringify: VarSet = Default::default();
                    for extent in buffer.shape() {
                        walk_exprs(extent, &mut |e| {
                            if let ExprKind::Var(v) = e.kind() {
                                if !bound.contains(v) && !type_vars.contains(v) {
                                    stringify.insert(v.clone());
                                }
                            }
                        });
                    }
                    let name = self.names.define_buffer(buffer);
                    self.names.alias_var(param, name.clone());
                    self.data_owners
                        .insert(buffer.data().clone(), buffer.clone());
                    let decl =
                        self.buffer_decl(buffer, &name, DeclKind::Annotation, None, &mut stringify);
                    body.extend(decl.var_defs.into_iter().map(Line::Text));
                    signature.push_str(&name);
                    signature.push_str(": T.Buffer(");
                    signature.push_str(&decl.args);
                    signature.push(')');
                    for extent in buffer.shape() {
                        walk_exprs(extent, &mut |e| {
                            if let ExprKind::Var(v) = e.kind() {
                                bound.insert(v.clone());
                            }
                        });
                    }
                }
                None => {
                    signature.push_str(self.names.var(param).unwrap_or(param.name()));
                    signature.push_str(": ");
                    signature.push_str(&self.type_annotation_of(param));
                }
            }
        }

        signature.push(')');
        if !func.ret_type.is_void() {
            let _ = write!(signature, " -> T.{}", func.ret_type);
        }

        // Variables used but never defined are declared just before the first
        // function-level statement that uses them, as TVM's printer does.
        let mut known: VarSet = type_vars.iter().cloned().collect();
        known.extend(bound.iter().cloned());
        let free = free_vars(func, &known);
        self.pending_free_vars = free
            .into_iter()
            .filter(|v| !self.names.is_defined(v))
            .collect();
        for (var, tag) in repeated_thread_launches(&func.body) {
            let name = self.names.define_var(&var);
            self.env_threads.insert(var);
            body.push(Line::Text(format!(
                "{name} = T.env_thread({})",
                quote(&tag)
            )));
        }

        let shown_attrs: Vec<(String, AttrValue)> = func
            .attrs
            .iter()
            .filter(|(key, value)| {
                !(key == S_TIR_ATTR
                    || key == GLOBAL_SYMBOL_ATTR && value.as_str() == Some(func.name.as_str()))
            })
            .map(|(key, value)| {
                // Converting never merges two keys: a key whose converted
                // spelling is already present stays as written.
                let converted = dialect_attr_key(key, self.options.dialect);
                let collides = converted != *key && func.attrs.iter().any(|(k, _)| *k == converted);
                let key = if self.options.convert_attr_keys && !collides {
                    converted
                } else {
                    key.clone()
                };
                (key, value.clone())
            })
            .collect();
        if !shown_attrs.is_empty() {
            let mut line = String::from("T.func_attr(");
            self.write_attr_dict(&mut line, &shown_attrs);
            line.push(')');
            body.push(Line::Text(line));
        }

        match implicit_root_block(&func.body) {
            Some(root) => {
                if self.prints_root_block_line(func.span) {
                    body.push(Line::Text(format!(
                        "# with T.{}(\"root\"):",
                        self.options.dialect.block()
                    )));
                }
                for buffer in &root.alloc_buffers {
                    let name = self.names.define_buffer(buffer);
                    let decl = self.buffer_decl(
                        buffer,
                        &name,
                        DeclKind::Statement,
                        None,
                        &mut Default::default(),
                    );
                    body.extend(decl.var_defs.into_iter().map(Line::Text));
                    body.push(Line::Text(format!(
                        "{name} = T.{}({})",
                        self.options.dialect.alloc_buffer(),
                        decl.args
                    )));
                }
                self.stmt_lines(&root.body, &mut body);
            }
            None => self.stmt_lines(&func.body, &mut body),
        }
        // Comments after the last statement stay in the function.
        let first = match implicit_root_block(&func.body) {
            Some(root) => super::stmt::first_statement_span(&root.body),
            None => super::stmt::first_statement_span(&func.body),
        };
        self.comments_ending_body(first, &mut body);
        // Variables used only outside any statement (none in practice) still get defined.
        let leftover = std::mem::take(&mut self.pending_free_vars);
        if let Some(line) = self.define_vars_line(&leftover) {
            body.insert(0, Line::Text(line));
        }
        if body.is_empty() {
            body.push(Line::Text("T.evaluate(0)".to_string()));
        }
        self.names.exit();

        let mut lines = before;
        lines.push(Line::Text(self.decorator(func)));
        lines.push(Line::nested(signature, body));
        lines
    }
}

/// Thread variables launched by more than one `T.launch_thread`, in order.
fn repeated_thread_launches(body: &Stmt) -> Vec<(Var, String)> {
    let mut launches: Vec<(Var, String, usize)> = Vec::new();
    crate::ir::visit::walk_stmts(body, &mut |stmt| {
        if let StmtKind::AttrStmt(attr) = stmt.kind() {
            if let crate::ir::AttrNode::Thread { var, tag } = &attr.node {
                match launches.iter_mut().find(|(v, _, _)| v == var) {
                    Some(entry) => entry.2 += 1,
                    None => launches.push((var.clone(), tag.clone(), 1)),
                }
            }
        }
    });
    launches
        .into_iter()
        .filter(|(_, _, count)| *count > 1)
        .map(|(var, tag, _)| (var, tag))
        .collect()
}

fn type_var_lines(vars: &[Var]) -> Vec<Line> {
    vars.iter()
        .map(|v| Line::Text(format!("{} = TypeVar({})", v.name(), quote(v.name()))))
        .collect()
}

/// Prints a module with its header.
pub(crate) fn print_module(module: &IRModule, options: &PrintOptions) -> String {
    let mut printer = Printer::new(options.clone());
    printer.module_name = Some(if module.name.is_empty() {
        "Module".to_string()
    } else {
        module.name.clone()
    });
    let type_vars_by_function: Vec<Vec<Var>> = module.functions.iter().map(type_vars).collect();
    let all_type_vars: Vec<Var> = type_vars_by_function.iter().flatten().cloned().collect();
    let mut lines: Vec<Line> = Vec::new();
    if options.header {
        lines.extend(
            header_lines(options.dialect, true, !all_type_vars.is_empty())
                .into_iter()
                .map(|line| Line::Text(line.to_string())),
        );
        lines.push(Line::Text(String::new()));
    }
    lines.extend(type_var_lines(&all_type_vars));
    lines.push(Line::Text("@I.ir_module".to_string()));
    let mut class_body = Vec::new();
    if !module.attrs.is_empty() {
        let dict = printer.attr_dict(&module.attrs);
        class_body.push(Line::Text(format!("I.module_attrs({dict})")));
    }
    for (i, (func, vars)) in module
        .functions
        .iter()
        .zip(&type_vars_by_function)
        .enumerate()
    {
        if i > 0 {
            class_body.push(Line::Text(String::new()));
        }
        class_body.extend(printer.function(func, vars));
    }
    printer.remaining_comments(&mut class_body);
    let name = if module.name.is_empty() {
        "Module"
    } else {
        &module.name
    };
    lines.push(Line::nested(format!("class {name}"), class_body));
    strip_trailing_spaces(render_lines(&lines))
}

/// Prints a single function with its header.
pub(crate) fn print_standalone_function(func: &PrimFunc, options: &PrintOptions) -> String {
    print_standalone_functions(std::slice::from_ref(func), options)
}

/// Prints functions one after another (a file of `@T.prim_func` functions
/// without a module class), a blank line between two, with one header.
pub(crate) fn print_standalone_functions(funcs: &[PrimFunc], options: &PrintOptions) -> String {
    let mut printer = Printer::new(options.clone());
    let vars: Vec<Var> = funcs.iter().flat_map(type_vars).collect();
    let mut lines: Vec<Line> = Vec::new();
    if options.header {
        lines.extend(
            header_lines(options.dialect, false, !vars.is_empty())
                .into_iter()
                .map(|line| Line::Text(line.to_string())),
        );
        lines.push(Line::Text(String::new()));
    }
    for (i, func) in funcs.iter().enumerate() {
        if i > 0 {
            lines.push(Line::Text(String::new()));
        }
        let vars = type_vars(func);
        lines.extend(type_var_lines(&vars));
        lines.extend(printer.function(func, &vars));
    }
    printer.remaining_comments(&mut lines);
    strip_trailing_spaces(render_lines(&lines))
}

/// Blank lines inside nested bodies would carry indentation; drop it.
fn strip_trailing_spaces(text: String) -> String {
    if !text.contains(" \n") {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(content) => {
                out.push_str(content.trim_end());
                out.push('\n');
            }
            None => out.push_str(line.trim_end()),
        }
    }
    out
}
