//! Buffer declarations: the argument lists of `T.Buffer`, `T.alloc_buffer`,
//! `T.match_buffer` and `T.decl_buffer`, printing only non-default fields.

use super::expr::quote;
use super::Printer;
use crate::ir::buffer::DEFAULT_ALIGNMENT;
use crate::ir::identity::VarSet;
use crate::ir::visit::walk_exprs;
use crate::ir::{Buffer, BufferType, DataType, ExprKind, Var};

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
        match self.names.buffer(buffer) {
            Some(name) => name.to_string(),
            None => super::names::sanitize(buffer.name()),
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
        let mut kwargs: Vec<(String, String)> = Vec::new();

        // Shape: a dimension that is a new variable is defined out of line first;
        // in a parameter annotation, TVM quotes the first use of a signature var.
        let mut shape_parts = Vec::new();
        for extent in &node.shape {
            if let ExprKind::Var(var) = extent.kind() {
                if !self.names.is_defined(var) {
                    self.names.define_var(var);
                    new_vars.push(var.clone());
                }
            }
            let mut vars_here = Vec::new();
            walk_exprs(extent, &mut |e| {
                if let ExprKind::Var(v) = e.kind() {
                    vars_here.push(v.clone());
                }
            });
            let quoted =
                kind == DeclKind::Annotation && vars_here.iter().any(|v| stringify.contains(v));
            let text = self.expr(extent);
            shape_parts.push(if quoted { quote(&text) } else { text });
            for var in vars_here {
                stringify.remove(&var);
            }
        }
        let shape = if shape_parts.len() == 1 {
            format!("({},)", shape_parts[0])
        } else {
            format!("({})", shape_parts.join(", "))
        };

        let mut positional = vec![shape];
        if kind == DeclKind::Annotation || node.dtype != DataType::float32() {
            positional.push(format!("\"{}\"", node.dtype));
        }

        // The data pointer is written only when it is a variable defined elsewhere.
        if let Some(data) = data {
            if !self.names.is_defined(data) {
                self.names.alias_var(data, format!("{name}.data"));
            } else {
                kwargs.push(("data".to_string(), self.expr(&data.to_expr())));
            }
        } else if !self.names.is_defined(&node.data) {
            self.names.alias_var(&node.data, format!("{name}.data"));
        }

        if !node.strides.is_empty() {
            let mut parts = Vec::new();
            for (i, stride) in node.strides.iter().enumerate() {
                match stride.kind() {
                    ExprKind::Var(var) if !self.names.is_defined(var) => {
                        self.names.alias_var(var, format!("{name}.strides[{i}]"));
                        parts.push(quote(var.name()));
                    }
                    _ => parts.push(self.expr(stride)),
                }
            }
            let text = if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            };
            kwargs.push(("strides".to_string(), text));
        }

        let mut needs_offset_factor = false;
        let index_type = node
            .shape
            .first()
            .map(|e| e.dtype())
            .unwrap_or(DataType::int32());
        match node.elem_offset.kind() {
            ExprKind::Int(value) => {
                if *value != 0 || node.elem_offset.dtype() != index_type {
                    kwargs.push(("elem_offset".to_string(), self.expr(&node.elem_offset)));
                }
            }
            ExprKind::Var(var) if !self.names.is_defined(var) => {
                self.names.alias_var(var, format!("{name}.elem_offset"));
                needs_offset_factor = true;
            }
            _ => kwargs.push(("elem_offset".to_string(), self.expr(&node.elem_offset))),
        }
        if node.scope != "global" {
            kwargs.push(("scope".to_string(), quote(&node.scope)));
        }
        if node.data_alignment != DEFAULT_ALIGNMENT {
            kwargs.push(("align".to_string(), node.data_alignment.to_string()));
        }
        if needs_offset_factor || node.offset_factor != 1 {
            kwargs.push(("offset_factor".to_string(), node.offset_factor.to_string()));
        }
        if node.buffer_type == BufferType::AutoBroadcast {
            kwargs.push(("buffer_type".to_string(), "\"auto\"".to_string()));
        }
        if !node.axis_separators.is_empty() {
            let parts: Vec<String> = node.axis_separators.iter().map(|a| a.to_string()).collect();
            kwargs.push((
                "axis_separators".to_string(),
                format!("[{}]", parts.join(", ")),
            ));
        }

        let var_defs = self.var_def_line(&new_vars).into_iter().collect();
        let mut args = positional;
        args.extend(kwargs.into_iter().map(|(k, v)| format!("{k}={v}")));
        BufferDecl {
            args: args.join(", "),
            var_defs,
        }
    }
}
