//! Buffer declarations: the argument lists of `T.Buffer`, `T.alloc_buffer`,
//! `T.match_buffer` and `T.decl_buffer`, printing only non-default fields.

use super::expr::{quote, write_quoted};
use super::{Dialect, Printer};
use crate::ir::buffer::DEFAULT_ALIGNMENT;
use crate::ir::identity::VarSet;
use crate::ir::visit::walk_exprs;
use crate::ir::{Buffer, BufferType, DataType, ExprKind, Var};
use std::fmt::Write as _;

/// Which construct declares the buffer; it decides which fields are implicit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeclKind {
    /// A parameter annotation `A: T.Buffer(...)`: the dtype is always written.
    Annotation,
    /// `T.alloc_buffer`, `T.match_buffer`, `T.decl_buffer`, `T.Buffer` aliases.
    Statement,
}

/// A printed buffer declaration and the variable definitions it needs first.
pub(crate) struct BufferDecl {
    /// The argument list, without parentheses.
    pub args: String,
    /// Lines such as `n = T.int32()` to print before the declaration.
    pub var_defs: Vec<String>,
}

impl Printer {
    /// The printed name of a buffer (its name hint when it was never defined).
    pub fn buffer_name(&self, buffer: &Buffer) -> String {
        let mut out = String::new();
        self.write_buffer_name(&mut out, buffer);
        out
    }

    /// Appends [`Printer::buffer_name`] to `out`.
    pub fn write_buffer_name(&self, out: &mut String, buffer: &Buffer) {
        match self.names.buffer(buffer) {
            Some(name) => out.push_str(name),
            None => out.push_str(&super::names::sanitized(buffer.name())),
        }
    }

    /// How a new variable is created: `T.int32()`, `T.handle("float32", "shared")`.
    pub fn var_creation(&self, var: &Var) -> String {
        match &var.node().pointer {
            Some(pointer) if var.dtype().is_handle() => {
                if pointer.element.is_void() {
                    if pointer.scope == "global" {
                        "T.handle()".to_string()
                    } else {
                        format!("T.handle(storage_scope={})", quote(&pointer.scope))
                    }
                } else if pointer.scope.is_empty() {
                    format!("T.handle(\"{}\")", pointer.element)
                } else {
                    format!(
                        "T.handle(\"{}\", {})",
                        pointer.element,
                        quote(&pointer.scope)
                    )
                }
            }
            _ => format!("T.{}()", var.dtype()),
        }
    }

    /// Defines variables out of line and returns their definition line.
    pub fn define_vars_line(&mut self, vars: &[Var]) -> Option<String> {
        for var in vars {
            self.names.define_var(var);
        }
        self.var_def_line(vars)
    }

    /// `n = T.int32()` (or `n, m = T.int32(), T.int32()`) for already named variables.
    pub fn var_def_line(&self, vars: &[Var]) -> Option<String> {
        if vars.is_empty() {
            return None;
        }
        let names: Vec<String> = vars
            .iter()
            .map(|v| self.names.var(v).unwrap_or(v.name()).to_string())
            .collect();
        let creations: Vec<String> = vars.iter().map(|v| self.var_creation(v)).collect();
        Some(format!("{} = {}", names.join(", "), creations.join(", ")))
    }

    /// The argument list of a buffer declaration. `name` is the printed name
    /// the buffer is (or will be) bound to; `data` is the explicit data
    /// variable when the declaration names one (`T.decl_buffer(..., data=x)`).
    pub(crate) fn buffer_decl(
        &mut self,
        buffer: &Buffer,
        name: &str,
        kind: DeclKind,
        data: Option<&Var>,
        stringify: &mut VarSet,
    ) -> BufferDecl {
        let node = buffer.node();
        let mut new_vars: Vec<Var> = Vec::new();
        // The argument list is written into one string: positional arguments,
        // then `key=value` pairs.
        let mut args = String::with_capacity(48);

        // Shape: a dimension that is a new variable is defined out of line first;
        // in a parameter annotation, TVM quotes the first use of a signature var.
        args.push('(');
        self.write_separated(&mut args, &node.shape, |printer, args, extent| {
            if let ExprKind::Var(var) = extent.kind() {
                if !printer.names.is_defined(var) {
                    printer.names.define_var(var);
                    new_vars.push(var.clone());
                }
            }
            let mut quoted = false;
            if kind == DeclKind::Annotation && !stringify.is_empty() {
                walk_exprs(extent, &mut |e| {
                    if let ExprKind::Var(v) = e.kind() {
                        quoted |= stringify.remove(v);
                    }
                });
            }
            if quoted {
                let text = printer.expr(extent);
                write_quoted(args, &text);
            } else {
                printer.write_expr(args, extent);
            }
        });
        args.push_str(if node.shape.len() == 1 { ",)" } else { ")" });

        if kind == DeclKind::Annotation || node.dtype != DataType::float32() {
            args.push_str(", \"");
            let _ = write!(args, "{}", node.dtype);
            args.push('"');
        }

        // The data pointer is written only when it is a variable defined elsewhere.
        if let Some(data) = data {
            if !self.names.is_defined(data) {
                self.names.alias_var(data, format!("{name}.data"));
            } else {
                args.push_str(", data=");
                self.write_expr(&mut args, &data.to_expr());
            }
        } else if !self.names.is_defined(&node.data) {
            self.names.alias_var(&node.data, format!("{name}.data"));
        }

        if !node.strides.is_empty() {
            args.push_str(", strides=(");
            let strides = node.strides.iter().enumerate();
            self.write_separated(
                &mut args,
                strides,
                |printer, args, (i, stride)| match stride.kind() {
                    ExprKind::Var(var) if !printer.names.is_defined(var) => {
                        printer.names.alias_var(var, format!("{name}.strides[{i}]"));
                        write_quoted(args, var.name());
                    }
                    _ => printer.write_expr(args, stride),
                },
            );
            args.push_str(if node.strides.len() == 1 { ",)" } else { ")" });
        }

        let mut needs_offset_factor = false;
        let index_type = node
            .shape
            .first()
            .map(|e| e.dtype())
            .unwrap_or(DataType::int32());
        let written_offset = match node.elem_offset.kind() {
            ExprKind::Int(value) => *value != 0 || node.elem_offset.dtype() != index_type,
            ExprKind::Var(var) if !self.names.is_defined(var) => {
                self.names.alias_var(var, format!("{name}.elem_offset"));
                needs_offset_factor = true;
                false
            }
            _ => true,
        };
        if written_offset {
            args.push_str(", elem_offset=");
            self.write_expr(&mut args, &node.elem_offset);
        }
        if node.scope != "global" {
            args.push_str(", scope=");
            write_quoted(&mut args, &node.scope);
        }
        if node.data_alignment != DEFAULT_ALIGNMENT {
            let _ = write!(args, ", align={}", node.data_alignment);
        }
        if needs_offset_factor || node.offset_factor != 1 {
            let _ = write!(args, ", offset_factor={}", node.offset_factor);
        }
        // TVM 0.26 dropped both fields: its parser refuses them, so the tirx
        // form leaves them out (`tirc fmt --dialect tirx` warns).
        let classic = self.options.dialect == Dialect::Classic;
        if classic && node.buffer_type == BufferType::AutoBroadcast {
            args.push_str(", buffer_type=\"auto\"");
        }
        if classic && !node.axis_separators.is_empty() {
            args.push_str(", axis_separators=[");
            self.write_separated(&mut args, &node.axis_separators, |_, args, separator| {
                let _ = write!(args, "{separator}");
            });
            args.push(']');
        }

        let var_defs = self.var_def_line(&new_vars).into_iter().collect();
        BufferDecl { args, var_defs }
    }
}
