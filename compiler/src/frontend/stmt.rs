//! Statements: loops, blocks and their signature statements (`T.axis.*`,
//! `T.reads`, `T.where`, ...), stores, control flow, and the statements that
//! scope over the rest of their body (`x: T.int32 = v`, `T.decl_buffer`,
//! `T.allocate`, `T.launch_thread`, `assert`).

use super::codes;
use super::value::{Subscript, Value};
use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::operators;
use crate::ir::{
    Allocate, Annotations, AttrNode, AttrStmt, AttrValue, Block, BlockRealize, Buffer,
    BufferRegion, DataType, Expr, ExprKind, For, ForKind, IterKind, IterVar, MatchBufferRegion,
    NodeId, Range, Stmt, StmtKind, Var,
};
use tirc_grammar::ast;

/// The signature parts of a block collected while its body is lowered.
pub(crate) struct BlockBuilder {
    pub iter_vars: Vec<IterVar>,
    pub iter_values: Vec<Expr>,
    pub predicate: Option<Expr>,
    pub reads: Option<Vec<BufferRegion>>,
    pub writes: Option<Vec<BufferRegion>>,
    pub annotations: Annotations,
    pub alloc_buffers: Vec<Buffer>,
    pub match_buffers: Vec<MatchBufferRegion>,
    pub init: Option<Stmt>,
}

/// The loop kinds of `for` headers.
fn loop_kind(name: &str) -> Option<ForKind> {
    Some(match name {
        "serial" => ForKind::Serial,
        "parallel" => ForKind::Parallel,
        "vectorized" => ForKind::Vectorized,
        "unroll" => ForKind::Unrolled,
        "thread_binding" => ForKind::ThreadBinding,
        _ => return None,
    })
}

impl Lowerer {
    /// The builtin a call expression names (`T.grid` → `grid`), when it is one.
    pub(crate) fn called_builtin<'e>(
        &self,
        expr: &'e ast::Expr,
    ) -> Option<(String, &'e [ast::Expr], &'e [ast::Keyword])> {
        let ast::ExprKind::Call {
            func,
            args,
            keywords,
        } = &expr.kind
        else {
            return None;
        };
        let path = func.dotted_name()?;
        let head = path.split('.').next().unwrap_or("");
        if self.lookup(head).is_some() {
            return None;
        }
        let name = if path == "range" {
            "range"
        } else {
            super::builtin_name(&path)?
        };
        Some((name.to_string(), args.as_slice(), keywords.as_slice()))
    }

    /// Lowers a body (a list of statements) to one statement.
    pub(crate) fn lower_body(&mut self, stmts: &[ast::Stmt]) -> Stmt {
        self.push_scope();
        let result = self.lower_sequence(stmts);
        self.pop_scope();
        result
    }

    /// Lowers statements in the current scope; statements that scope over the
    /// rest of the body take it as their body.
    fn lower_sequence(&mut self, stmts: &[ast::Stmt]) -> Stmt {
        let mut out: Vec<Stmt> = Vec::new();
        let mut index = 0;
        while index < stmts.len() {
            let stmt = &stmts[index];
            index += 1;
            if let Some(scoping) = self.scoping_stmt(stmt) {
                let rest = self.lower_sequence(&stmts[index..]);
                out.push(scoping.wrap(rest, self.span(stmt.span)));
                break;
            }
            if let Some(lowered) = self.lower_stmt(stmt) {
                out.push(lowered);
            }
        }
        if out.is_empty() {
            return Stmt::no_op();
        }
        Stmt::seq(out)
    }

    /// Recognises statements that scope over the rest of their body.
    fn scoping_stmt(&mut self, stmt: &ast::Stmt) -> Option<Scoping> {
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
                let value = self.eval_expr(value);
                let var = match self.eval(annotation) {
                    Value::DType(dtype) => Var::new(name.clone(), dtype, self.span(target.span)),
                    Value::Pointer(element, scope) if element.is_void() && scope == "global" => {
                        Var::new(name.clone(), DataType::handle(), self.span(target.span))
                    }
                    Value::Pointer(element, scope) => {
                        Var::pointer(name.clone(), element, &scope, self.span(target.span))
                    }
                    Value::Poison => Var::new(name.clone(), value.dtype(), self.span(target.span)),
                    other => {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            format!("the annotation of a let binding must be a type such as `T.int32`, found {}", other.describe()),
                            annotation.span,
                        );
                        Var::new(name.clone(), value.dtype(), self.span(target.span))
                    }
                };
                let value = operators::cast(var.dtype(), value);
                self.bind(name, Value::Expr(var.to_expr()));
                Some(Scoping::Let(var, value))
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

    /// `x: T.int32 = v` or `x: T.int32` in a TVM 0.27 function without blocks:
    /// a local scalar (a one-element `local` buffer), not a let.
    fn scalar_declaration(
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
    fn view_declaration(&mut self, name: &str, value: &ast::Expr) -> Option<Scoping> {
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
    fn scoping_assignment(
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
    fn split_annotations(&mut self, keywords: &[ast::Keyword]) -> (Vec<ast::Keyword>, Annotations) {
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
    fn attr_scoping(&mut self, args: &[ast::Expr], span: ast::Span) -> Option<Scoping> {
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
    fn assert_message(&mut self, message: &ast::Expr) -> (String, Vec<Expr>) {
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

    fn allocate(
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

    /// Binds a name to an evaluated value: buffers are aliased, Python values kept.
    fn bind_value(&mut self, name: &str, value: Value, span: ast::Span) {
        // `i = 5` inside `for i in ...` would silently rebind the loop variable.
        let loop_var = match self.lookup(name) {
            Some(Value::Expr(e)) => e
                .as_var()
                .filter(|v| self.loops.iter().any(|(l, _)| l == *v))
                .cloned(),
            _ => None,
        };
        if let Some(loop_var) = loop_var {
            self.report(
                Diagnostic::error(
                    crate::verify::codes::ASSIGN_TO_LOOP_VAR,
                    format!("`{name}` is a loop variable and cannot be assigned"),
                    self.span(span),
                )
                .with_label("assigned here")
                .with_secondary(loop_var.span(), "the loop variable is defined here")
                .with_help(format!(
                    "compute the value under a new name, for example `{name}_1 = ...`"
                )),
            );
            return;
        }
        match value {
            Value::BufferAnnotation(buffer) => {
                let buffer = buffer.with(|node| node.name = name.to_string());
                self.bind(name, Value::Buffer(buffer));
            }
            Value::Expr(_)
            | Value::Buffer(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Bool(_)
            | Value::Str(_)
            | Value::Tuple(_)
            | Value::List(_)
            | Value::Dict(_)
            | Value::None
            | Value::DType(_)
            | Value::Range(_)
            | Value::Pointer(..)
            | Value::Target(_)
            | Value::Scalar(_)
            | Value::Reducer(_) => self.bind(name, value),
            Value::Subscripted(..) => {
                self.error(
                    codes::BAD_ASSIGNMENT,
                    "a buffer region cannot be assigned to a name",
                    span,
                );
                self.bind(name, Value::Poison);
            }
            Value::Poison => self.bind(name, Value::Poison),
        }
    }

    /// Lowers one statement that does not scope over the rest.
    fn lower_stmt(&mut self, stmt: &ast::Stmt) -> Option<Stmt> {
        let span = self.span(stmt.span);
        match &stmt.kind {
            ast::StmtKind::Expr(expr) => self.lower_expr_stmt(expr),
            ast::StmtKind::Assign { target, value } => self.lower_assign(target, value),
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value: None,
            } => {
                let ast::ExprKind::Name(name) = &target.kind else {
                    self.error(
                        codes::BAD_ASSIGNMENT,
                        "only a name can be declared",
                        target.span,
                    );
                    return None;
                };
                match self.eval(annotation) {
                    Value::DType(dtype) => {
                        let var = Var::new(name.clone(), dtype, self.span(target.span));
                        self.bind(name, Value::Expr(var.to_expr()));
                    }
                    Value::Pointer(element, scope) => {
                        let var =
                            Var::pointer(name.clone(), element, &scope, self.span(target.span));
                        self.bind(name, Value::Expr(var.to_expr()));
                    }
                    other => {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            format!("expected a type annotation, found {}", other.describe()),
                            annotation.span,
                        );
                    }
                }
                None
            }
            ast::StmtKind::AugAssign { target, op, value } => {
                let current = self.eval(target);
                let rhs = self.eval(value);
                let updated = self.binary_op(*op, current, rhs, stmt.span);
                match &target.kind {
                    ast::ExprKind::Subscript { .. } => self.store(target, updated, stmt.span),
                    ast::ExprKind::Name(name) => {
                        if let Some(Value::Scalar(buffer)) = self.lookup(name).cloned() {
                            return Some(self.scalar_store(&buffer, updated, stmt.span));
                        }
                        self.bind(name, updated);
                        None
                    }
                    _ => {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            "cannot update this target",
                            target.span,
                        );
                        None
                    }
                }
            }
            ast::StmtKind::For { target, iter, body } => {
                self.lower_for(target, iter, body, stmt.span)
            }
            ast::StmtKind::While { test, body } => {
                let condition = self.eval_expr(test);
                let body = self.lower_body(body);
                Some(Stmt::new(StmtKind::While { condition, body }, span))
            }
            ast::StmtKind::If { test, body, orelse } => match self.eval(test) {
                Value::Bool(true) => Some(self.lower_body(body)),
                Value::Bool(false) => (!orelse.is_empty()).then(|| self.lower_body(orelse)),
                other => {
                    let condition = self.expr_of_value(other, test.span);
                    if !condition.dtype().is_bool() {
                        self.error(
                            codes::TYPE_MISMATCH,
                            format!(
                                "an `if` condition must be bool, found {}",
                                condition.dtype()
                            ),
                            test.span,
                        );
                    }
                    let then_case = self.lower_body(body);
                    let else_case = (!orelse.is_empty()).then(|| self.lower_body(orelse));
                    Some(Stmt::new(
                        StmtKind::IfThenElse {
                            condition,
                            then_case,
                            else_case,
                        },
                        span,
                    ))
                }
            },
            ast::StmtKind::With { items, body } => self.lower_with(items, body, stmt.span),
            ast::StmtKind::Return(value) => {
                let value = match value {
                    Some(v) => self.eval_expr(v),
                    None => Expr::i32(0),
                };
                let dtype = value.dtype();
                Some(Stmt::new(
                    StmtKind::Evaluate(Expr::call(crate::ir::Op::named("ret"), vec![value], dtype)),
                    span,
                ))
            }
            ast::StmtKind::Pass | ast::StmtKind::Error | ast::StmtKind::Import { .. } => None,
            ast::StmtKind::FunctionDef(_) | ast::StmtKind::ClassDef(_) => {
                self.error(
                    codes::UNSUPPORTED,
                    "nested definitions are not supported in a TIR function",
                    stmt.span,
                );
                None
            }
            ast::StmtKind::Assert { .. } | ast::StmtKind::AnnAssign { .. } => None,
        }
    }

    fn lower_expr_stmt(&mut self, expr: &ast::Expr) -> Option<Stmt> {
        let span = self.span(expr.span);
        if matches!(expr.kind, ast::ExprKind::Str(_)) {
            return None; // a docstring
        }
        if let Some((name, args, keywords)) = self.called_builtin(expr) {
            match name.as_str() {
                "reads" | "writes" => {
                    let regions = self.regions(args);
                    match self.blocks.last_mut() {
                        Some(block) => {
                            if name == "reads" {
                                block.reads = Some(regions);
                            } else {
                                block.writes = Some(regions);
                            }
                        }
                        None => {
                            self.error(
                                codes::MISPLACED,
                                format!("`T.{name}` is only allowed inside a block"),
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "where" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.where` takes one condition",
                            expr.span,
                        );
                        return None;
                    }
                    let predicate = self.eval_expr(&args[0]);
                    match self.blocks.last_mut() {
                        Some(block) => block.predicate = Some(predicate),
                        None => {
                            self.error(
                                codes::MISPLACED,
                                "`T.where` is only allowed inside a block",
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "block_attr" | "sblock_attr" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("`T.{name}` takes one dict"),
                            expr.span,
                        );
                        return None;
                    }
                    let value = self.eval(&args[0]);
                    let annotations = self.annotations_from(value, args[0].span);
                    match self.blocks.last_mut() {
                        Some(block) => block.annotations.extend(annotations),
                        None => {
                            self.error(
                                codes::MISPLACED,
                                format!("`T.{name}` is only allowed inside a block"),
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "func_attr" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.func_attr` takes one dict",
                            expr.span,
                        );
                        return None;
                    }
                    let value = self.eval(&args[0]);
                    let attrs = self.annotations_from(value, args[0].span);
                    match self.function.as_mut() {
                        Some(function) => {
                            for (key, value) in attrs {
                                function.attrs.retain(|(k, _)| *k != key);
                                function.attrs.push((key, value));
                            }
                        }
                        None => {
                            self.error(
                                codes::MISPLACED,
                                "`T.func_attr` is only allowed in a function",
                                expr.span,
                            );
                        }
                    }
                    return None;
                }
                "evaluate" => {
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.evaluate` takes one expression",
                            expr.span,
                        );
                        return None;
                    }
                    let value = self.eval_expr(&args[0]);
                    return Some(Stmt::new(StmtKind::Evaluate(value), span));
                }
                _ => {
                    let _ = keywords;
                }
            }
        }
        match self.eval(expr) {
            Value::Expr(value) => Some(Stmt::new(StmtKind::Evaluate(value), span)),
            Value::Poison => None,
            other => {
                self.error(
                    codes::UNSUPPORTED,
                    format!("{} on its own is not a statement", other.describe()),
                    expr.span,
                );
                None
            }
        }
    }

    /// Converts a Python dict of annotations.
    pub(crate) fn annotations_from(&mut self, value: Value, span: ast::Span) -> Annotations {
        match value {
            Value::Dict(items) => items
                .into_iter()
                .filter_map(|(key, value)| match key {
                    Value::Str(key) => Some((key, self.attr_value(value, span))),
                    other => {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("attribute keys must be strings, found {}", other.describe()),
                            span,
                        );
                        None
                    }
                })
                .collect(),
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("expected a dict of attributes, found {}", other.describe()),
                    span,
                );
                Vec::new()
            }
        }
    }

    fn attr_value(&mut self, value: Value, span: ast::Span) -> AttrValue {
        match value {
            Value::Str(s) => AttrValue::Str(s),
            Value::None => AttrValue::None,
            Value::List(items) | Value::Tuple(items) => AttrValue::List(
                items
                    .into_iter()
                    .map(|v| self.attr_value(v, span))
                    .collect(),
            ),
            Value::Dict(_) => AttrValue::Dict(self.annotations_from(value, span)),
            Value::Target(items) => {
                AttrValue::Target(self.annotations_from(Value::Dict(items), span))
            }
            Value::Int(i) => AttrValue::Int(i as i64),
            Value::Float(f) => AttrValue::Float(f),
            Value::Bool(b) => AttrValue::Bool(b),
            other => AttrValue::Expr(self.expr_of_value(other, span)),
        }
    }

    /// The regions of `T.reads(...)` / `T.writes(...)`.
    fn regions(&mut self, args: &[ast::Expr]) -> Vec<BufferRegion> {
        let mut regions = Vec::new();
        for arg in args {
            let value = self.eval(arg);
            self.collect_regions(value, arg.span, &mut regions);
        }
        regions
    }

    fn collect_regions(&mut self, value: Value, span: ast::Span, out: &mut Vec<BufferRegion>) {
        match value {
            Value::List(items) | Value::Tuple(items) => {
                for item in items {
                    self.collect_regions(item, span, out);
                }
            }
            Value::Buffer(buffer) => out.push(BufferRegion::full(&buffer)),
            Value::Subscripted(buffer, subscripts) => {
                if let Some(region) = self.region_of(&buffer, &subscripts, span) {
                    out.push(region);
                }
            }
            Value::Poison => {}
            Value::Expr(expr) => match expr.kind() {
                ExprKind::Load(load) => {
                    let subscripts = Self::load_as_subscripts(load);
                    if let Some(region) = self.region_of(&load.buffer, &subscripts, span) {
                        out.push(region);
                    }
                }
                _ => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "expected a buffer region such as `A[vi, 0:128]`",
                        span,
                    );
                }
            },
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("expected a buffer region, found {}", other.describe()),
                    span,
                );
            }
        }
    }

    /// A region from subscripts: an index is a point, `a:b` is `[a, b)`.
    pub(crate) fn region_of(
        &mut self,
        buffer: &Buffer,
        subscripts: &[Subscript],
        span: ast::Span,
    ) -> Option<BufferRegion> {
        let mut region = Vec::new();
        for (dim, subscript) in subscripts.iter().enumerate() {
            match subscript {
                Subscript::Index(index) => region.push(Range::point(index.clone())),
                Subscript::Slice { start, stop, step } => {
                    if step.as_ref().is_some_and(|s| !operators::is_one(s)) {
                        self.error(codes::BAD_ARGUMENTS, "a region cannot have a step", span);
                        return None;
                    }
                    let index_type = buffer
                        .shape()
                        .get(dim)
                        .map(|e| e.dtype())
                        .unwrap_or(DataType::int32());
                    let start = start.clone().unwrap_or_else(|| Expr::zero(index_type));
                    let stop = match stop {
                        Some(stop) => stop.clone(),
                        None => match buffer.shape().get(dim) {
                            Some(extent) => extent.clone(),
                            None => {
                                self.error(
                                    codes::BAD_ARGUMENTS,
                                    "too many indices for the buffer",
                                    span,
                                );
                                return None;
                            }
                        },
                    };
                    match operators::sub(stop, start.clone()) {
                        Ok(extent) => {
                            region.push(Range::new(start, crate::analysis::simplify_index(&extent)))
                        }
                        Err(e) => {
                            self.apply(Err(e), span);
                            return None;
                        }
                    }
                }
            }
        }
        Some(BufferRegion {
            buffer: buffer.clone(),
            region,
        })
    }

    /// `A[i, j] = value`: a store with the value cast to the buffer's dtype.
    fn store(&mut self, target: &ast::Expr, value: Value, span: ast::Span) -> Option<Stmt> {
        let ast::ExprKind::Subscript {
            value: object,
            indices,
        } = &target.kind
        else {
            return None;
        };
        let object_value = self.eval(object);
        if let Value::Poison = object_value {
            return None;
        }
        let Value::Buffer(buffer) = object_value else {
            self.error(
                codes::BAD_ASSIGNMENT,
                format!(
                    "only buffer elements can be assigned with `[...]`, not {}",
                    object_value.describe()
                ),
                object.span,
            );
            return None;
        };
        let load = self.eval(&ast::Expr {
            kind: ast::ExprKind::Subscript {
                value: object.clone(),
                indices: indices.clone(),
            },
            span: target.span,
        });
        let indices = match load {
            Value::Expr(e) => match e.kind() {
                ExprKind::Load(l) => l.indices.clone(),
                _ => return None,
            },
            Value::Subscripted(buffer, subscripts) => {
                let vector =
                    self.expr_of_value(Value::Subscripted(buffer, subscripts), target.span);
                match vector.kind() {
                    ExprKind::Load(l) => l.indices.clone(),
                    _ => return None,
                }
            }
            _ => return None,
        };
        let value = self.expr_of_value(value, span);
        let lanes = indices.iter().map(|i| i.dtype().lanes).max().unwrap_or(1);
        let target_type = buffer.dtype().with_lanes(buffer.dtype().lanes * lanes);
        let value = operators::cast(target_type, value);
        Some(Stmt::new(
            StmtKind::BufferStore(crate::ir::BufferStore {
                buffer,
                value,
                indices,
            }),
            // The whole `A[i] = value`, so diagnostics about the store point at its target too.
            self.span(target.span).to(self.span(span)),
        ))
    }

    fn lower_assign(&mut self, target: &ast::Expr, value: &ast::Expr) -> Option<Stmt> {
        if let ast::ExprKind::Name(name) = &target.kind {
            if let Some(Value::Scalar(buffer)) = self.lookup(name).cloned() {
                let evaluated = self.eval(value);
                return Some(self.scalar_store(&buffer, evaluated, value.span));
            }
        }
        if let ast::ExprKind::Subscript { .. } = &target.kind {
            let evaluated = self.eval(value);
            return self.store(target, evaluated, value.span);
        }
        if let Some((name, args, keywords)) = self.called_builtin(value) {
            match name.as_str() {
                "axis.spatial" | "axis.reduce" | "axis.scan" | "axis.opaque" | "axis.S"
                | "axis.R" => {
                    let kind = match name.as_str() {
                        "axis.spatial" | "axis.S" => IterKind::Spatial,
                        "axis.reduce" | "axis.R" => IterKind::Reduce,
                        "axis.scan" => IterKind::Scan,
                        _ => IterKind::Opaque,
                    };
                    let ast::ExprKind::Name(var_name) = &target.kind else {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            "`T.axis.*` defines one name",
                            target.span,
                        );
                        return None;
                    };
                    self.axis(var_name, target.span, kind, args, value.span);
                    return None;
                }
                "axis.remap" => {
                    self.remap(target, args, value.span);
                    return None;
                }
                "alloc_buffer" | "sblock_alloc_buffer" => {
                    let ast::ExprKind::Name(buffer_name) = &target.kind else {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            "a buffer must be assigned to a name",
                            target.span,
                        );
                        return None;
                    };
                    let buffer_args = self.buffer_args(args, keywords, value.span);
                    let buffer = self.make_buffer(buffer_name, buffer_args, value.span);
                    self.bind(buffer_name, Value::Buffer(buffer.clone()));
                    match self.blocks.last_mut() {
                        Some(block) => block.alloc_buffers.push(buffer),
                        None => match self.function.as_mut() {
                            Some(function) => function.root_alloc_buffers.push(buffer),
                            None => {
                                self.error(
                                    codes::MISPLACED,
                                    "`T.alloc_buffer` outside a function",
                                    value.span,
                                );
                            }
                        },
                    }
                    return None;
                }
                "match_buffer" => {
                    self.match_buffer(target, args, keywords, value.span);
                    return None;
                }
                "env_thread" => {
                    let ast::ExprKind::Name(var_name) = &target.kind else {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            "`T.env_thread` defines one name",
                            target.span,
                        );
                        return None;
                    };
                    if args.len() != 1 {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.env_thread` takes a thread tag",
                            value.span,
                        );
                        return None;
                    }
                    let tag = self.eval_string(&args[0], "thread tag");
                    let var =
                        Var::new(var_name.as_str(), DataType::int32(), self.span(target.span));
                    self.env_threads.insert(var.clone(), tag);
                    self.bind(var_name, Value::Expr(var.to_expr()));
                    return None;
                }
                "var" => {
                    let dtype = match args.first() {
                        Some(a) => self.eval_dtype(a),
                        None => DataType::int32(),
                    };
                    self.declare_vars(target, &[dtype]);
                    return None;
                }
                other => {
                    if let Some(dtype) = DataType::parse_known(other) {
                        if args.is_empty() {
                            self.declare_vars(target, &[dtype]);
                            return None;
                        }
                    }
                }
            }
        }
        // `n, m = T.int32(), T.int32()`
        if let (ast::ExprKind::Tuple(targets), ast::ExprKind::Tuple(values)) =
            (&target.kind, &value.kind)
        {
            if targets.len() == values.len() {
                let mut all_declarations = Vec::new();
                for v in values {
                    match self.called_builtin(v) {
                        Some((name, [], _)) => match DataType::parse_known(&name) {
                            Some(dtype) => all_declarations.push(dtype),
                            None => break,
                        },
                        _ => break,
                    }
                }
                if all_declarations.len() == values.len() {
                    self.declare_vars(target, &all_declarations);
                    return None;
                }
                for (t, v) in targets.iter().zip(values) {
                    self.lower_assign(t, v);
                }
                return None;
            }
        }
        let evaluated = self.eval(value);
        match &target.kind {
            ast::ExprKind::Name(name) => {
                self.bind_value(name, evaluated, target.span);
                None
            }
            ast::ExprKind::Tuple(targets) if matches!(evaluated, Value::Poison) => {
                self.poison_targets(targets);
                None
            }
            ast::ExprKind::Tuple(targets) => {
                match evaluated.as_sequence() {
                    Some(items) if items.len() == targets.len() => {
                        for (t, item) in targets.iter().zip(items.to_vec()) {
                            match &t.kind {
                                ast::ExprKind::Name(name) => self.bind_value(name, item, t.span),
                                _ => {
                                    self.error(
                                        codes::BAD_ASSIGNMENT,
                                        "only names can be unpacked into",
                                        t.span,
                                    );
                                }
                            }
                        }
                    }
                    _ => {
                        self.error(
                            codes::BAD_ASSIGNMENT,
                            format!(
                                "cannot unpack {} into {} names",
                                evaluated.describe(),
                                targets.len()
                            ),
                            value.span,
                        );
                    }
                }
                None
            }
            _ => {
                self.error(
                    codes::BAD_ASSIGNMENT,
                    "cannot assign to this expression",
                    target.span,
                );
                None
            }
        }
    }

    /// Binds the loop variables of a loop that could not be built to poison.
    fn poison_loop_targets(&mut self, target: &ast::Expr) {
        match &target.kind {
            ast::ExprKind::Name(name) => self.bind(name, Value::Poison),
            ast::ExprKind::Tuple(items) => self.poison_targets(items),
            _ => {}
        }
    }

    /// `x = value` for a local scalar `x`: a store to its only element.
    fn scalar_store(&mut self, buffer: &Buffer, value: Value, span: ast::Span) -> Stmt {
        let value = self.expr_of_value(value, span);
        let value = operators::cast(buffer.dtype(), value);
        let zero = Expr::zero(buffer.shape()[0].dtype());
        Stmt::new(
            StmtKind::BufferStore(crate::ir::BufferStore {
                buffer: buffer.clone(),
                value,
                indices: vec![zero],
            }),
            self.span(span),
        )
    }

    /// Binds every name of an assignment target to poison after an error.
    fn poison_targets(&mut self, targets: &[ast::Expr]) {
        for target in targets {
            if let ast::ExprKind::Name(name) = &target.kind {
                self.bind(name, Value::Poison);
            }
        }
    }

    /// `n = T.int32()`: declares symbolic variables (reusing a variable a quoted
    /// signature shape already introduced under that name).
    fn declare_vars(&mut self, target: &ast::Expr, dtypes: &[DataType]) {
        let names: Vec<(&String, ast::Span)> = match &target.kind {
            ast::ExprKind::Name(n) => vec![(n, target.span)],
            ast::ExprKind::Tuple(items) => items
                .iter()
                .filter_map(|t| match &t.kind {
                    ast::ExprKind::Name(n) => Some((n, t.span)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if names.len() != dtypes.len() {
            self.error(
                codes::BAD_ASSIGNMENT,
                "each declared variable needs one `T.<dtype>()`",
                target.span,
            );
            return;
        }
        for ((name, span), dtype) in names.into_iter().zip(dtypes) {
            if let Some(existing) = self.signature_vars.get(name).cloned() {
                if existing.dtype() == *dtype {
                    self.bind(name, Value::Expr(existing.to_expr()));
                    continue;
                }
            }
            let var = Var::new(name.clone(), *dtype, self.span(span));
            self.bind(name, Value::Expr(var.to_expr()));
        }
    }

    fn axis_domain(&mut self, dom: &ast::Expr) -> Range {
        match self.eval(dom) {
            Value::Tuple(items) | Value::List(items) if items.len() == 2 => {
                let min = self.expr_of_value(items[0].clone(), dom.span);
                let max = self.expr_of_value(items[1].clone(), dom.span);
                match operators::sub(max, min.clone()) {
                    Ok(extent) => Range::new(min, extent),
                    Err(e) => {
                        self.apply(Err(e), dom.span);
                        Range::from_extent(Expr::i32(1))
                    }
                }
            }
            Value::Range(range) => range,
            other => Range::from_extent(self.expr_of_value(other, dom.span)),
        }
    }

    fn add_iter_var(
        &mut self,
        name: &str,
        name_span: ast::Span,
        kind: IterKind,
        dom: Range,
        binding: Option<Expr>,
        span: ast::Span,
    ) {
        let dtype = dom.extent.dtype();
        let var = Var::new(name, dtype, self.span(name_span));
        let Some(block) = self.blocks.last_mut() else {
            self.error(
                codes::MISPLACED,
                "`T.axis` is only allowed inside a block",
                span,
            );
            return;
        };
        block.iter_vars.push(IterVar {
            var: var.clone(),
            dom,
            kind,
        });
        block.iter_values.push(
            binding
                .map(|b| operators::cast(dtype, b))
                .unwrap_or_else(|| Expr::zero(dtype)),
        );
        self.bind(name, Value::Expr(var.to_expr()));
    }

    fn axis(
        &mut self,
        name: &str,
        name_span: ast::Span,
        kind: IterKind,
        args: &[ast::Expr],
        span: ast::Span,
    ) {
        if args.is_empty() || args.len() > 2 {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.axis.*` takes a domain and a binding",
                span,
            );
            return;
        }
        let dom = self.axis_domain(&args[0]);
        let binding = args.get(1).map(|b| self.eval_expr(b));
        self.add_iter_var(name, name_span, kind, dom, binding, span);
    }

    fn remap(&mut self, target: &ast::Expr, args: &[ast::Expr], span: ast::Span) {
        if args.len() != 2 {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.axis.remap` takes a kinds string and a list of loop variables",
                span,
            );
            return;
        }
        let kinds = self.eval_string(&args[0], "kinds");
        let bindings: Vec<&ast::Expr> = match &args[1].kind {
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![&args[1]],
        };
        let names: Vec<(&String, ast::Span)> = match &target.kind {
            ast::ExprKind::Name(n) => vec![(n, target.span)],
            ast::ExprKind::Tuple(items) => items
                .iter()
                .filter_map(|t| match &t.kind {
                    ast::ExprKind::Name(n) => Some((n, t.span)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if kinds.chars().count() != bindings.len() || names.len() != bindings.len() {
            self.report(
                Diagnostic::error(
                    codes::REMAP_MISMATCH,
                    format!(
                        "`T.axis.remap` has {} kind letters, {} loop variables and {} names",
                        kinds.chars().count(),
                        bindings.len(),
                        names.len()
                    ),
                    self.span(span),
                )
                .with_help("write one letter (S for spatial, R for reduce) per loop variable, and one name per letter"),
            );
            for (name, _) in names {
                self.bind(name, Value::Poison);
            }
            return;
        }
        for ((letter, binding), (name, name_span)) in kinds.chars().zip(bindings).zip(names) {
            let Some(kind) = IterKind::from_letter(letter) else {
                self.error(
                    codes::REMAP_MISMATCH,
                    format!("unknown iteration kind `{letter}` (expected S, R, C or O)"),
                    args[0].span,
                );
                self.bind(name, Value::Poison);
                continue;
            };
            let value = self.eval_expr(binding);
            let Some(loop_var) = value.as_var().cloned() else {
                self.error(
                    codes::REMAP_MISMATCH,
                    "`T.axis.remap` binds loop variables only",
                    binding.span,
                );
                continue;
            };
            let dom = match self.loops.iter().rev().find(|(v, _)| *v == loop_var) {
                Some((_, range)) => range.clone(),
                None => {
                    self.error(
                        codes::REMAP_MISMATCH,
                        format!(
                            "`{}` is not a loop variable of an enclosing loop",
                            loop_var.name()
                        ),
                        binding.span,
                    );
                    continue;
                }
            };
            self.add_iter_var(name, name_span, kind, dom, Some(value), span);
        }
    }

    fn match_buffer(
        &mut self,
        target: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
        span: ast::Span,
    ) {
        let ast::ExprKind::Name(name) = &target.kind else {
            self.error(
                codes::BAD_ASSIGNMENT,
                "a buffer must be assigned to a name",
                target.span,
            );
            return;
        };
        let Some((source, rest)) = args.split_first() else {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.match_buffer` needs a source",
                span,
            );
            return;
        };
        let source_value = self.eval(source);
        let buffer_args = self.buffer_args(rest, keywords, span);
        match source_value {
            // A handle parameter: the buffer of the function signature.
            Value::Expr(e)
                if e.as_var().is_some_and(|v| v.dtype().is_handle()) && self.blocks.is_empty() =>
            {
                let param = e.as_var().cloned().unwrap_or_else(|| {
                    Var::new(name, DataType::handle(), crate::source::Span::NONE)
                });
                let buffer = self.make_buffer(name, buffer_args, span);
                self.bind(name, Value::Buffer(buffer.clone()));
                match self.function.as_mut() {
                    Some(function) if function.params.contains(&param) => {
                        if function.buffer_map.iter().any(|(p, _)| *p == param) {
                            self.error(
                                codes::DUPLICATE,
                                format!("parameter `{}` is matched twice", param.name()),
                                source.span,
                            );
                        } else {
                            function.buffer_map.push((param, buffer));
                        }
                    }
                    _ => {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            "`T.match_buffer` of a handle needs a parameter of this function",
                            source.span,
                        );
                    }
                }
            }
            value @ (Value::Subscripted(..) | Value::Buffer(_) | Value::Expr(_)) => {
                let mut regions = Vec::new();
                self.collect_regions(value, source.span, &mut regions);
                let Some(region) = regions.pop() else { return };
                let mut buffer_args = buffer_args;
                if buffer_args.shape.is_empty() {
                    buffer_args.shape = region.region.iter().map(|r| r.extent.clone()).collect();
                }
                let buffer = self.make_buffer(name, buffer_args, span);
                self.bind(name, Value::Buffer(buffer.clone()));
                match self.blocks.last_mut() {
                    Some(block) => block.match_buffers.push(MatchBufferRegion {
                        buffer,
                        source: region,
                    }),
                    None => {
                        self.error(
                            codes::MISPLACED,
                            "`T.match_buffer` of a region is only allowed inside a block",
                            span,
                        );
                    }
                }
            }
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("`T.match_buffer` cannot match {}", other.describe()),
                    source.span,
                );
            }
        }
    }

    fn lower_for(
        &mut self,
        target: &ast::Expr,
        iter: &ast::Expr,
        body: &[ast::Stmt],
        span: ast::Span,
    ) -> Option<Stmt> {
        let Some((name, args, keywords)) = self.called_builtin(iter) else {
            self.error(codes::BAD_LOOP, "a loop must iterate over `range(...)`, `T.grid(...)` or a loop kind such as `T.serial(...)`", iter.span);
            self.poison_loop_targets(target);
            return None;
        };
        let targets: Vec<(&String, ast::Span)> = match &target.kind {
            ast::ExprKind::Name(n) => vec![(n, target.span)],
            ast::ExprKind::Tuple(items) => items
                .iter()
                .filter_map(|t| match &t.kind {
                    ast::ExprKind::Name(n) => Some((n, t.span)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        // Each loop: (min, extent, kind, thread, annotations).
        let mut loops: Vec<(Expr, Expr, ForKind, Option<String>, Annotations)> = Vec::new();
        if name == "grid" {
            if !keywords.is_empty() {
                self.error(
                    codes::BAD_ARGUMENTS,
                    "`T.grid` takes extents only",
                    iter.span,
                );
            }
            for arg in args {
                let extent = self.eval_expr(arg);
                loops.push((
                    Expr::zero(extent.dtype()),
                    extent,
                    ForKind::Serial,
                    None,
                    Vec::new(),
                ));
            }
        } else {
            let kind = if name == "range" {
                ForKind::Serial
            } else if let Some(kind) = loop_kind(&name) {
                kind
            } else {
                let iterators = [
                    "grid",
                    "serial",
                    "parallel",
                    "vectorized",
                    "unroll",
                    "thread_binding",
                ];
                let mut diagnostic = Diagnostic::error(
                    codes::BAD_LOOP,
                    format!("`T.{name}` is not a loop iterator"),
                    self.span(iter.span),
                );
                if let Some(s) = super::suggest(&name, iterators) {
                    diagnostic = diagnostic.with_help(format!("did you mean `T.{s}`?"));
                }
                self.report(diagnostic);
                self.poison_loop_targets(target);
                return None;
            };
            let (min, extent) = match args {
                [extent] => {
                    let extent = self.eval_expr(extent);
                    (Expr::zero(extent.dtype()), extent)
                }
                [start, stop] | [start, stop, _] => {
                    if let Some(step) = args.get(2) {
                        if !matches!(self.eval(step), Value::Int(1)) {
                            self.error(
                                codes::UNSUPPORTED,
                                "loops with a step other than 1 are not supported",
                                step.span,
                            );
                        }
                    }
                    let start = self.eval_expr(start);
                    let stop = self.eval_expr(stop);
                    match operators::match_types(start, stop) {
                        Ok((start, stop)) => match operators::sub(stop, start.clone()) {
                            Ok(extent) => (start, extent),
                            Err(e) => {
                                self.apply(Err(e), iter.span);
                                return None;
                            }
                        },
                        Err(e) => {
                            self.apply(Err(e), iter.span);
                            return None;
                        }
                    }
                }
                _ => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        format!("`{name}` takes an extent, or a start and a stop"),
                        iter.span,
                    );
                    return None;
                }
            };
            let mut thread = None;
            let mut annotations = Vec::new();
            for keyword in keywords {
                match keyword.name.name.as_str() {
                    "thread" if kind == ForKind::ThreadBinding => {
                        let tag = self.eval_string(&keyword.value, "thread");
                        thread = Some(tag);
                    }
                    "annotations" => {
                        let value = self.eval(&keyword.value);
                        annotations = self.annotations_from(value, keyword.value.span);
                    }
                    other => {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("unknown argument `{other}` of `{name}`"),
                            keyword.name.span,
                        );
                    }
                }
            }
            if kind == ForKind::ThreadBinding && thread.is_none() {
                self.error(
                    codes::BAD_ARGUMENTS,
                    "`T.thread_binding` needs `thread=\"...\"`",
                    iter.span,
                );
                thread = Some("threadIdx.x".to_string());
            }
            loops.push((min, extent, kind, thread, annotations));
        }
        if targets.len() != loops.len() {
            self.error(
                codes::BAD_LOOP,
                format!(
                    "{} loop variable(s) for {} loop(s)",
                    targets.len(),
                    loops.len()
                ),
                target.span,
            );
            return None;
        }
        self.push_scope();
        let mut vars = Vec::new();
        for ((name, var_span), (min, extent, ..)) in targets.iter().zip(&loops) {
            let var = Var::new(name.as_str(), extent.dtype(), self.span(*var_span));
            self.bind(name, Value::Expr(var.to_expr()));
            self.loops
                .push((var.clone(), Range::new(min.clone(), extent.clone())));
            vars.push(var);
        }
        let mut body = self.lower_body(body);
        self.loops.truncate(self.loops.len() - vars.len());
        self.pop_scope();
        for (var, (min, extent, kind, thread, annotations)) in vars.into_iter().zip(loops).rev() {
            let min = operators::cast(var.dtype(), min);
            body = Stmt::new(
                StmtKind::For(For {
                    id: NodeId::fresh(),
                    loop_var: var,
                    min,
                    extent,
                    kind,
                    thread,
                    annotations,
                    body,
                }),
                self.span(span),
            );
        }
        Some(body)
    }

    fn lower_with(
        &mut self,
        items: &[ast::WithItem],
        body: &[ast::Stmt],
        span: ast::Span,
    ) -> Option<Stmt> {
        let [item] = items else {
            self.error(
                codes::UNSUPPORTED,
                "a `with` statement takes one item here",
                span,
            );
            return None;
        };
        let Some((name, args, keywords)) = self.called_builtin(&item.context) else {
            self.error(
                codes::UNSUPPORTED,
                "expected `with T.block(...)`, `with T.init()` or `with T.attr(...)`",
                item.context.span,
            );
            return None;
        };
        match name.as_str() {
            "block" | "sblock" => self.lower_block(args, keywords, body, span),
            "init" => {
                let init = self.lower_body(body);
                match self.blocks.last_mut() {
                    Some(block) => {
                        if block.init.is_some() {
                            self.error(
                                codes::DUPLICATE,
                                "a block has at most one `T.init()`",
                                span,
                            );
                        } else {
                            block.init = Some(init);
                        }
                    }
                    None => {
                        self.error(
                            codes::MISPLACED,
                            "`T.init()` is only allowed inside a block",
                            span,
                        );
                    }
                }
                None
            }
            "attr" => {
                let scoping = self.attr_scoping(args, item.context.span)?;
                let body = self.lower_body(body);
                Some(scoping.wrap(body, self.span(span)))
            }
            "launch_thread" => {
                let name = match item.target.as_ref().map(|t| &t.kind) {
                    Some(ast::ExprKind::Name(n)) => Some(n.clone()),
                    _ => None,
                };
                self.push_scope();
                let launched =
                    self.launch_thread(name.as_deref(), item.context.span, args, item.context.span);
                let body = self.lower_body(body);
                self.pop_scope();
                let (var, tag, extent) = launched?;
                Some(Scoping::Thread { var, tag, extent }.wrap(body, self.span(span)))
            }
            other => {
                self.error(
                    codes::UNSUPPORTED,
                    format!("`with T.{other}(...)` is not supported"),
                    item.context.span,
                );
                None
            }
        }
    }

    fn lower_block(
        &mut self,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
        body: &[ast::Stmt],
        span: ast::Span,
    ) -> Option<Stmt> {
        let name = match args.first() {
            Some(a) => self.eval_string(a, "block name"),
            None => String::new(),
        };
        if let Some(a) = args.first() {
            if self.record_symbols {
                self.symbols.record_block(&name, self.span(a.span));
            }
        }
        for keyword in keywords {
            match keyword.name.name.as_str() {
                "no_realize" => {
                    if matches!(self.eval(&keyword.value), Value::Bool(true)) {
                        self.error(
                            codes::UNSUPPORTED,
                            "blocks with `no_realize=True` are not supported",
                            keyword.value.span,
                        );
                    }
                }
                other => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        format!("unknown argument `{other}` of a block"),
                        keyword.name.span,
                    );
                }
            }
        }
        self.blocks.push(BlockBuilder {
            iter_vars: Vec::new(),
            iter_values: Vec::new(),
            predicate: None,
            reads: None,
            writes: None,
            annotations: Vec::new(),
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            init: None,
        });
        let block_body = self.lower_body(body);
        let builder = self.blocks.pop()?;
        let mut block = Block {
            id: NodeId::fresh(),
            name,
            iter_vars: builder.iter_vars,
            reads: builder.reads.clone().unwrap_or_default(),
            writes: builder.writes.clone().unwrap_or_default(),
            init: builder.init,
            alloc_buffers: builder.alloc_buffers,
            match_buffers: builder.match_buffers,
            annotations: builder.annotations,
            body: block_body,
        };
        if builder.reads.is_none() || builder.writes.is_none() {
            let (reads, writes) = crate::analysis::infer_block_regions(&block);
            if builder.reads.is_none() {
                block.reads = reads;
            }
            if builder.writes.is_none() {
                block.writes = writes;
            }
        }
        let predicate = builder.predicate.unwrap_or_else(|| Expr::bool(true));
        Some(Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values: builder.iter_values,
                predicate,
                block,
            }),
            self.span(span),
        ))
    }
}

/// A statement that scopes over the rest of its body.
enum Scoping {
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
    fn wrap(self, body: Stmt, span: crate::source::Span) -> Stmt {
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
