//! Statements that scope over the rest of their body: let bindings
//! (`x: T.int32 = v`, `T.let`), TVM 0.27 local scalars, buffer declarations
//! and views, statement-level allocations, `T.launch_thread`, `T.attr`, `assert`.

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::ir::operators;
use crate::ir::{
    Allocate, Annotations, AttrNode, AttrStmt, Buffer, DataType, Expr, Stmt, StmtKind, Var,
};
use tirc_grammar::ast;

impl Lowerer {
    /// Recognises statements that scope over the rest of their body.
    pub(crate) fn scoping_stmt(&mut self, stmt: &ast::Stmt) -> Option<Scoping> {
        match &stmt.kind {
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value: Some(value),
            } => {
                let ast::ExprKind::Name(name) = &target.kind else {
                    return None;
                };
                if let Some(scoping) =
                    self.scalar_declaration(name, target.span, annotation, Some(value))
                {
                    return Some(scoping);
                }
                // `x: T.let[T.int32] = v` (TVM 0.27) and `x: T.int32 = v` (classic) bind a let.
                let annotation = match &annotation.kind {
                    ast::ExprKind::Subscript {
                        value: head,
                        indices,
                    } if head.dotted_name().as_deref().and_then(super::builtin_name)
                        == Some("let")
                        && indices.len() == 1 =>
                    {
                        &indices[0]
                    }
                    _ => annotation,
                };
                Some(self.let_binding(name, target.span, Some(annotation), value))
            }
            ast::StmtKind::Assign { target, value } => {
                let ast::ExprKind::Name(name) = &target.kind else {
                    return None;
                };
                if let Some(Value::Scalar(_)) = self.lookup(name) {
                    return None; // a store to a local scalar
                }
                if let Some(scoping) = self.view_declaration(name, value) {
                    return Some(scoping);
                }
                if let Some((builtin, args, keywords)) = self.called_builtin(value) {
                    return self
                        .scoping_assignment(name, target, &builtin, args, keywords, value.span);
                }
                // A plain `x = expr` binds an IR expression with a let, as classic TVMScript does.
                if !matches!(
                    &value.kind,
                    ast::ExprKind::Call { .. }
                        | ast::ExprKind::Subscript { .. }
                        | ast::ExprKind::BinOp { .. }
                        | ast::ExprKind::UnaryOp { .. }
                        | ast::ExprKind::Compare { .. }
                        | ast::ExprKind::BoolOp { .. }
                ) {
                    return None;
                }
                match self.eval(value) {
                    Value::Expr(expr) => {
                        let var = Var::new(name.clone(), expr.dtype(), self.span(target.span));
                        self.bind(name, Value::Expr(var.to_expr()));
                        Some(Scoping::Let(var, expr))
                    }
                    other => {
                        self.bind_value(name, other, target.span);
                        None
                    }
                }
            }
            // `T.attr({...})` or `T.attr(node, key, value)` on its own scopes over the rest.
            ast::StmtKind::Expr(expr) => {
                let (builtin, args, _) = self.called_builtin(expr)?;
                (builtin == "attr").then(|| self.attr_scoping(args, expr.span))?
            }
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value: None,
            } => match &target.kind {
                ast::ExprKind::Name(name) => {
                    self.scalar_declaration(name, target.span, annotation, None)
                }
                _ => None,
            },
            ast::StmtKind::Assert { test, msg } => {
                let condition = self.eval_expr(test);
                let (error_kind, message) = match msg {
                    Some(m) => self.assert_message(m),
                    None => ("RuntimeError".to_string(), Vec::new()),
                };
                Some(Scoping::Assert {
                    condition,
                    error_kind,
                    message,
                })
            }
            _ => None,
        }
    }

    /// A let binding `name: annotation = value`, the annotation a type such
    /// as `T.int32` or a pointer type; without one the variable takes the
    /// value's type (`with T.LetStmt(v) as x:`).
    pub(crate) fn let_binding(
        &mut self,
        name: &str,
        target_span: ast::Span,
        annotation: Option<&ast::Expr>,
        value: &ast::Expr,
    ) -> Scoping {
        let value = self.eval_expr(value);
        let Some(annotation) = annotation else {
            let var = Var::new(name.to_string(), value.dtype(), self.span(target_span));
            self.bind(name, Value::Expr(var.to_expr()));
            return Scoping::Let(var, value);
        };
        let var = match self.eval(annotation) {
            Value::DType(dtype) => Var::new(name.to_string(), dtype, self.span(target_span)),
            Value::Pointer(element, scope) if element.is_void() && scope == "global" => {
                Var::new(name.to_string(), DataType::handle(), self.span(target_span))
            }
            Value::Pointer(element, scope) => {
                Var::pointer(name.to_string(), element, &scope, self.span(target_span))
            }
            Value::Poison => Var::new(name.to_string(), value.dtype(), self.span(target_span)),
            other => {
                self.error(
                    codes::BAD_ASSIGNMENT,
                    format!("the annotation of a let binding must be a type such as `T.int32`, found {}", other.describe()),
                    annotation.span,
                );
                Var::new(name.to_string(), value.dtype(), self.span(target_span))
            }
        };
        let value = operators::cast(var.dtype(), value);
        self.bind(name, Value::Expr(var.to_expr()));
        Scoping::Let(var, value)
    }

    /// `x: T.int32 = v` or `x: T.int32` in a TVM 0.27 function without blocks:
    /// a local scalar (a one-element `local` buffer), not a let.
    pub(crate) fn scalar_declaration(
        &mut self,
        name: &str,
        name_span: ast::Span,
        annotation: &ast::Expr,
        value: Option<&ast::Expr>,
    ) -> Option<Scoping> {
        if self.dialect != crate::printer::Dialect::Tirx {
            return None;
        }
        if let ast::ExprKind::Subscript { .. } = &annotation.kind {
            return None; // `T.let[...]`
        }
        let dtype = match self.eval(annotation) {
            Value::DType(dtype) if !dtype.is_handle() => dtype,
            _ => return None,
        };
        let initial = value.map(|v| self.eval_expr(v));
        let span = self.span(name_span);
        let buffer = crate::ir::Buffer::new(name, dtype, vec![Expr::i32(1)], "local", span)
            .with(|node| node.declared_as_scalar = true);
        self.bind(name, Value::Scalar(buffer.clone()));
        let initial = initial.map(|v| operators::cast(dtype, v));
        Some(Scoping::Scalar(buffer, initial))
    }

    /// `A_1 = A.view(16384)`: a buffer aliasing another's data with a new shape.
    pub(crate) fn view_declaration(&mut self, name: &str, value: &ast::Expr) -> Option<Scoping> {
        let ast::ExprKind::Call {
            func,
            args,
            keywords,
        } = &value.kind
        else {
            return None;
        };
        let ast::ExprKind::Attribute {
            value: object,
            attr,
        } = &func.kind
        else {
            return None;
        };
        if attr.name != "view" {
            return None;
        }
        let Value::Buffer(parent) = self.eval(object) else {
            return None;
        };
        if !keywords.is_empty() {
            self.error(
                codes::BAD_ARGUMENTS,
                "`.view` takes the new shape only",
                value.span,
            );
        }
        let shape: Vec<Expr> = args.iter().map(|a| self.eval_expr(a)).collect();
        let span = self.span(value.span);
        let buffer = parent.with(|node| {
            node.name = name.to_string();
            node.shape = shape;
            node.span = span;
        });
        self.bind(name, Value::Buffer(buffer.clone()));
        Some(Scoping::DeclBuffer(buffer))
    }

    /// Assignments of scoping builtins: `T.decl_buffer`, `T.alloc_buffer` (a
    /// statement in TVM 0.27 outside blocks), `T.allocate`, `T.launch_thread`.
    pub(crate) fn scoping_assignment(
        &mut self,
        name: &str,
        target: &ast::Expr,
        builtin: &str,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
        span: ast::Span,
    ) -> Option<Scoping> {
        let statement_alloc = match builtin {
            "alloc_local" => Some("local"),
            "alloc_shared" => Some("shared"),
            "alloc_buffer" if self.dialect == crate::printer::Dialect::Tirx => Some(""),
            "decl_buffer" => Some(""),
            _ => None,
        };
        if let Some(scope) = statement_alloc {
            let (keywords, annotations) = self.split_annotations(keywords);
            let mut buffer_args = self.buffer_args(args, &keywords, span);
            if !scope.is_empty() {
                buffer_args.scope = scope.to_string();
            }
            let declared = builtin == "decl_buffer" && buffer_args.data.is_some();
            let buffer = self.make_buffer(name, buffer_args, span);
            self.bind(name, Value::Buffer(buffer.clone()));
            return Some(if declared {
                Scoping::DeclBuffer(buffer)
            } else {
                Scoping::AllocBuffer(buffer, annotations)
            });
        }
        match builtin {
            "allocate" => self.allocate(name, target, args, keywords, span),
            "launch_thread" => {
                let (var, tag, extent) = self.launch_thread(Some(name), target.span, args, span)?;
                Some(Scoping::Thread { var, tag, extent })
            }
            _ => None,
        }
    }

    /// Removes `annotations=` from buffer keyword arguments and evaluates it.
    pub(crate) fn split_annotations(
        &mut self,
        keywords: &[ast::Keyword],
    ) -> (Vec<ast::Keyword>, Annotations) {
        let mut rest = Vec::new();
        let mut annotations = Vec::new();
        for keyword in keywords {
            if keyword.name.name == "annotations" {
                let value = self.eval(&keyword.value);
                annotations = self.annotations_from(value, keyword.value.span);
            } else {
                rest.push(keyword.clone());
            }
        }
        (rest, annotations)
    }

    /// `T.launch_thread("blockIdx.x", 8)` or `T.launch_thread(tx, 8)` with `tx`
    /// from `T.env_thread`: the thread variable, its tag and the extent.
    pub(crate) fn launch_thread(
        &mut self,
        name: Option<&str>,
        name_span: ast::Span,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> Option<(Var, String, Expr)> {
        if args.len() != 2 {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.launch_thread` takes a thread tag (or an env_thread variable) and an extent",
                span,
            );
            return None;
        }
        let first = self.eval(&args[0]);
        let extent = self.eval_expr(&args[1]);
        match first {
            Value::Str(tag) => {
                let name = name
                    .map(str::to_string)
                    .unwrap_or_else(|| tag.replace('.', "_"));
                let var = Var::new(name.clone(), extent.dtype(), self.span(name_span));
                self.bind(&name, Value::Expr(var.to_expr()));
                Some((var, tag, extent))
            }
            Value::Expr(e) => match e
                .as_var()
                .and_then(|v| self.env_threads.get(v).map(|t| (v.clone(), t.clone())))
            {
                Some((var, tag)) => Some((var, tag, extent)),
                None => {
                    self.error(codes::BAD_ARGUMENTS, "the thread of `T.launch_thread` must be a tag string or a `T.env_thread` variable", args[0].span);
                    None
                }
            },
            Value::Poison => None,
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "the thread of `T.launch_thread` must be a tag string, found {}",
                        other.describe()
                    ),
                    args[0].span,
                );
                None
            }
        }
    }

    /// `T.attr(node, key, value)` or `T.attr({key: value, ...})` (node 0).
    pub(crate) fn attr_scoping(&mut self, args: &[ast::Expr], span: ast::Span) -> Option<Scoping> {
        match args {
            [dict] => {
                let value = self.eval(dict);
                let Value::Dict(items) = value else {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "`T.attr` takes a dict, or a node, a key and a value",
                        span,
                    );
                    return None;
                };
                let mut attrs = Vec::new();
                for (key, value) in items {
                    let Value::Str(key) = key else {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "attribute keys must be strings",
                            dict.span,
                        );
                        continue;
                    };
                    let value = self.expr_of_value(value, dict.span);
                    attrs.push((AttrNode::None, key, value));
                }
                Some(Scoping::Attrs(attrs))
            }
            [node, key, value] => {
                let node = match self.eval(node) {
                    Value::Reducer(reducer) => AttrNode::Reducer(reducer),
                    Value::Buffer(b) => AttrNode::Buffer(b),
                    Value::Str(s) => AttrNode::Str(s),
                    Value::Int(0) | Value::None => AttrNode::None,
                    Value::Expr(e) => match e.as_var() {
                        Some(v) => AttrNode::Var(v.clone()),
                        None => AttrNode::None,
                    },
                    _ => AttrNode::None,
                };
                let key = self.eval_string(key, "key");
                let value = self.eval_expr(value);
                Some(Scoping::Attrs(vec![(node, key, value)]))
            }
            _ => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    "`T.attr` takes a dict, or a node, a key and a value",
                    span,
                );
                None
            }
        }
    }

    /// An assert message: a string, or TVM 0.27's `("Kind", ["part", ...])`.
    pub(crate) fn assert_message(&mut self, message: &ast::Expr) -> (String, Vec<Expr>) {
        match self.eval(message) {
            Value::Str(text) => ("RuntimeError".to_string(), vec![Expr::string(text)]),
            Value::Tuple(items) if items.len() == 2 => {
                let kind = match &items[0] {
                    Value::Str(kind) => kind.clone(),
                    _ => "RuntimeError".to_string(),
                };
                let parts = items[1]
                    .as_sequence()
                    .unwrap_or(&[])
                    .iter()
                    .map(|part| self.expr_of_value(part.clone(), message.span))
                    .collect();
                (kind, parts)
            }
            other => {
                let part = self.expr_of_value(other, message.span);
                ("RuntimeError".to_string(), vec![part])
            }
        }
    }

    pub(crate) fn allocate(
        &mut self,
        name: &str,
        target: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
        span: ast::Span,
    ) -> Option<Scoping> {
        if args.len() < 2 {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.allocate` takes extents, a dtype and a scope",
                span,
            );
            return None;
        }
        let extents = self.eval_shape(&args[0]);
        let dtype = self.eval_dtype(&args[1]);
        let scope = match args.get(2) {
            Some(a) => self.eval_string(a, "scope"),
            None => "global".to_string(),
        };
        let condition = match args.get(3) {
            Some(a) => self.eval_expr(a),
            None => Expr::bool(true),
        };
        let mut annotations = Vec::new();
        for keyword in keywords {
            if keyword.name.name == "annotations" {
                let value = self.eval(&keyword.value);
                annotations = self.annotations_from(value, keyword.value.span);
            } else {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("unknown argument `{}` of T.allocate", keyword.name.name),
                    keyword.name.span,
                );
            }
        }
        let var = Var::pointer(name, dtype, &scope, self.span(target.span));
        self.bind(name, Value::Expr(var.to_expr()));
        Some(Scoping::Allocate(Allocate {
            buffer_var: var,
            dtype,
            extents,
            condition,
            annotations,
            body: Stmt::no_op(),
        }))
    }
}

/// A statement that scopes over the rest of its body.
pub(crate) enum Scoping {
    Let(Var, Expr),
    Scalar(Buffer, Option<Expr>),
    DeclBuffer(Buffer),
    AllocBuffer(Buffer, Annotations),
    Allocate(Allocate),
    Thread {
        var: Var,
        tag: String,
        extent: Expr,
    },
    Attrs(Vec<(AttrNode, String, Expr)>),
    Assert {
        condition: Expr,
        error_kind: String,
        message: Vec<Expr>,
    },
}

impl Scoping {
    pub(crate) fn wrap(self, body: Stmt, span: crate::source::Span) -> Stmt {
        let kind = match self {
            Scoping::Let(var, value) => StmtKind::LetStmt { var, value, body },
            Scoping::Scalar(buffer, initial) => {
                let body = match initial {
                    Some(value) => {
                        let zero = Expr::zero(buffer.shape()[0].dtype());
                        let store = Stmt::new(
                            StmtKind::BufferStore(crate::ir::BufferStore {
                                buffer: buffer.clone(),
                                value,
                                indices: vec![zero],
                            }),
                            span,
                        );
                        Stmt::seq(vec![store, body])
                    }
                    None => body,
                };
                StmtKind::AllocBuffer {
                    buffer,
                    annotations: Vec::new(),
                    body,
                }
            }
            Scoping::DeclBuffer(buffer) => StmtKind::DeclBuffer { buffer, body },
            Scoping::AllocBuffer(buffer, annotations) => StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            },
            Scoping::Allocate(allocate) => StmtKind::Allocate(Allocate { body, ..allocate }),
            Scoping::Thread { var, tag, extent } => StmtKind::AttrStmt(AttrStmt {
                node: AttrNode::Thread { var, tag },
                key: "thread_extent".to_string(),
                value: extent,
                body,
            }),
            Scoping::Attrs(attrs) => {
                // Nested in order: the first attribute is the outermost.
                let mut body = body;
                for (node, key, value) in attrs.into_iter().rev() {
                    body = Stmt::new(
                        StmtKind::AttrStmt(AttrStmt {
                            node,
                            key,
                            value,
                            body,
                        }),
                        span,
                    );
                }
                return body;
            }
            Scoping::Assert {
                condition,
                error_kind,
                message,
            } => StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            },
        };
        Stmt::new(kind, span)
    }
}
