//! Assignments: stores to buffers and local scalars, symbolic-variable
//! declarations (`n = T.int32()`), and names bound to evaluated values.

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::operators;
use crate::ir::{Buffer, DataType, Expr, ExprKind, IterKind, Stmt, StmtKind, Var};
use tirc_grammar::ast;

impl Lowerer {
    /// Binds a name to an evaluated value: buffers are aliased, Python values kept.
    pub(crate) fn bind_value(&mut self, name: &str, value: Value, span: ast::Span) {
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

    /// `A[i, j] = value`: a store with the value cast to the buffer's dtype.
    pub(crate) fn store(
        &mut self,
        target: &ast::Expr,
        value: Value,
        span: ast::Span,
    ) -> Option<Stmt> {
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

    pub(crate) fn lower_assign(&mut self, target: &ast::Expr, value: &ast::Expr) -> Option<Stmt> {
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
    pub(crate) fn poison_loop_targets(&mut self, target: &ast::Expr) {
        match &target.kind {
            ast::ExprKind::Name(name) => self.bind(name, Value::Poison),
            ast::ExprKind::Tuple(items) => self.poison_targets(items),
            _ => {}
        }
    }

    /// `x = value` for a local scalar `x`: a store to its only element.
    pub(crate) fn scalar_store(&mut self, buffer: &Buffer, value: Value, span: ast::Span) -> Stmt {
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
    pub(crate) fn poison_targets(&mut self, targets: &[ast::Expr]) {
        for target in targets {
            if let ast::ExprKind::Name(name) = &target.kind {
                self.bind(name, Value::Poison);
            }
        }
    }

    /// `n = T.int32()`: declares symbolic variables (reusing a variable a quoted
    /// signature shape already introduced under that name).
    pub(crate) fn declare_vars(&mut self, target: &ast::Expr, dtypes: &[DataType]) {
        let names = super::target_names(target);
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
}
