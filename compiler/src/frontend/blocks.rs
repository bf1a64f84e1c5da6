//! Blocks and their signature statements: `T.axis.*`, `T.axis.remap`,
//! `T.reads`/`T.writes` regions, `T.block_attr`, `T.alloc_buffer`,
//! `T.match_buffer`, `T.init`, and the `with` statements that open them.

use super::codes;
use super::scoping::Scoping;
use super::value::{Subscript, Value};
use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::operators;
use crate::ir::{
    Annotations, AttrValue, Block, BlockRealize, Buffer, BufferRegion, DataType, Expr, ExprKind,
    IterKind, IterVar, MatchBufferRegion, NodeId, Range, Stmt, StmtKind, Var,
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

impl Lowerer {
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

    pub(crate) fn attr_value(&mut self, value: Value, span: ast::Span) -> AttrValue {
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
    pub(crate) fn regions(&mut self, args: &[ast::Expr]) -> Vec<BufferRegion> {
        let mut regions = Vec::new();
        for arg in args {
            let value = self.eval(arg);
            self.collect_regions(value, arg.span, &mut regions);
        }
        regions
    }

    pub(crate) fn collect_regions(
        &mut self,
        value: Value,
        span: ast::Span,
        out: &mut Vec<BufferRegion>,
    ) {
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
                // A name used as an index is the variable's shared node, which
                // has no span; the region's span stands in, so a diagnostic
                // about the region points at the `T.reads`/`T.writes` line.
                Subscript::Index(index) if !index.span().is_known() => {
                    region.push(Range::point(index.with_span(self.span(span))))
                }
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

    pub(crate) fn axis_domain(&mut self, dom: &ast::Expr) -> Range {
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

    pub(crate) fn add_iter_var(
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

    pub(crate) fn axis(
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

    pub(crate) fn remap(&mut self, target: &ast::Expr, args: &[ast::Expr], span: ast::Span) {
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
        let names = super::target_names(target);
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

    pub(crate) fn match_buffer(
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

    pub(crate) fn lower_with(
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
        if let Some(stmt) = self.lower_scoping_with(item, body, span) {
            return stmt;
        }
        let Some((name, args, keywords)) = self.called_builtin(&item.context) else {
            self.error(
                codes::UNSUPPORTED,
                "expected `with T.block(...)`, `with T.init()`, `with T.attr(...)` or the `with` form of a scoping statement such as `with T.decl_buffer(...) as X:`",
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

    /// The `with` form of a statement that scopes over the rest of its list
    /// (`with T.decl_buffer(...) as X:`, `with T.allocate(...) as x:`,
    /// `with X.view(...) as Y:`, `with T.LetStmt(v) as x:`,
    /// `with T.Assert(c, msg):`), which TVM prints where statements follow it:
    /// the concise statement, scoped to the `with` body. `None` for any other
    /// `with`.
    fn lower_scoping_with(
        &mut self,
        item: &ast::WithItem,
        body: &[ast::Stmt],
        span: ast::Span,
    ) -> Option<Option<Stmt>> {
        let context = &item.context;
        let concise = match (self.called_builtin(context), &item.target) {
            (Some((builtin, _, _)), _)
                if matches!(
                    builtin.as_str(),
                    "block" | "sblock" | "init" | "attr" | "launch_thread"
                ) =>
            {
                return None
            }
            (Some((builtin, args, keywords)), Some(target)) if builtin == "LetStmt" => {
                let value = args.first()?;
                let annotation = keywords
                    .iter()
                    .find(|k| k.name.name == "type_annotation")
                    .map(|k| &k.value);
                let ast::ExprKind::Name(name) = &target.kind else {
                    return None;
                };
                self.push_scope();
                let scoping = self.let_binding(name, target.span, annotation, value);
                let body = self.lower_body(body);
                self.pop_scope();
                return Some(Some(scoping.wrap(body, self.span(span))));
            }
            (Some((builtin, args, _)), None) if builtin == "Assert" => ast::StmtKind::Assert {
                test: args.first()?.clone(),
                msg: args.get(1).cloned(),
            },
            (_, Some(target)) => ast::StmtKind::Assign {
                target: target.clone(),
                value: context.clone(),
            },
            (_, None) => return None,
        };
        let concise = ast::Stmt {
            kind: concise,
            span: context.span,
        };
        self.push_scope();
        let scoping = self.scoping_stmt(&concise);
        let lowered = scoping.map(|scoping| {
            let body = self.lower_body(body);
            scoping.wrap(body, self.span(span))
        });
        self.pop_scope();
        // Not a scoping statement: the caller says which `with` forms exist.
        lowered.map(Some)
    }

    pub(crate) fn lower_block(
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
                self.inferred_reads.insert(block.id);
            }
            if builder.writes.is_none() {
                block.writes = writes;
                self.inferred_writes.insert(block.id);
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
