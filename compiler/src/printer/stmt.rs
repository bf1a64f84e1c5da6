//! Statements to lines: loops (with `T.grid`), blocks (with `T.axis.remap`),
//! stores, control flow, allocations and attributes.

use super::buffer::DeclKind;
use super::expr::{quote, write_quoted};
use super::{Dialect, Line, Printer};
use crate::ir::operators;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    AttrNode, AttrStmt, AttrValue, Block, BlockRealize, Buffer, BufferRegion, ExprKind, For,
    ForKind, IterKind, Stmt, StmtKind,
};
use std::rc::Rc;

impl Printer {
    /// The statements of a body, in a new naming scope.
    pub(crate) fn body(&mut self, stmt: &Stmt) -> Vec<Line> {
        self.names.enter();
        self.depth += 1;
        let mut lines = Vec::new();
        self.stmt_lines(stmt, &mut lines);
        self.comments_ending_body(first_statement_span(stmt), &mut lines);
        self.depth -= 1;
        self.names.exit();
        lines
    }

    /// Declares the pending free variables that `stmt` uses, at function level.
    fn declare_free_vars_used_by(&mut self, stmt: &Stmt, out: &mut Vec<Line>) {
        if self.depth > 0
            || self.pending_free_vars.is_empty()
            || matches!(stmt.kind(), StmtKind::Seq(_))
        {
            return;
        }
        let mut used = Vec::new();
        let header = flattened_header(stmt);
        crate::ir::visit::walk_exprs_in_stmt(&header, &mut |e| {
            if let ExprKind::Var(v) = e.kind() {
                if !used.contains(v) {
                    used.push(v.clone());
                }
            }
            if let ExprKind::Let { var, .. } = e.kind() {
                if !used.contains(var) {
                    used.push(var.clone());
                }
            }
        });
        let now: Vec<crate::ir::Var> = self
            .pending_free_vars
            .iter()
            .filter(|v| used.contains(v))
            .cloned()
            .collect();
        if now.is_empty() {
            return;
        }
        self.pending_free_vars.retain(|v| !now.contains(v));
        if let Some(line) = self.define_vars_line(&now) {
            out.push(Line::Text(line));
        }
    }

    /// Declares the buffers `stmt`'s own expressions use that nothing
    /// declared: views written `X = T.Buffer(shape, data=A.data)` in the
    /// body, which the IR keeps only at their uses.
    fn declare_views_used_by(&mut self, stmt: &Stmt, out: &mut Vec<Line>) {
        let mut exprs: Vec<&crate::ir::Expr> = Vec::new();
        let mut used: Vec<Buffer> = Vec::new();
        match stmt.kind() {
            StmtKind::BufferStore(store) => {
                used.push(store.buffer.clone());
                exprs.extend(&store.indices);
                exprs.push(&store.value);
            }
            StmtKind::Evaluate(value) => exprs.push(value),
            StmtKind::LetStmt { value, .. } => exprs.push(value),
            StmtKind::IfThenElse { condition, .. } | StmtKind::While { condition, .. } => {
                exprs.push(condition)
            }
            StmtKind::Assert { condition, .. } => exprs.push(condition),
            StmtKind::For(for_loop) => exprs.extend([&for_loop.min, &for_loop.extent]),
            _ => return,
        }
        for expr in exprs {
            crate::ir::visit::walk_exprs(expr, &mut |e| {
                if let ExprKind::Load(load) = e.kind() {
                    if !used.contains(&load.buffer) {
                        used.push(load.buffer.clone());
                    }
                }
            });
        }
        for buffer in used {
            if self.names.is_buffer_defined(&buffer) || self.scalars.contains(&buffer) {
                continue;
            }
            let name = self.names.define_buffer(&buffer);
            let decl = self.buffer_decl(
                &buffer,
                &name,
                DeclKind::Statement,
                Some(buffer.data()),
                &mut Default::default(),
            );
            out.extend(decl.var_defs.into_iter().map(Line::Text));
            out.push(Line::Text(format!("{name} = T.Buffer({})", decl.args)));
        }
    }

    /// Appends the lines of `stmt` to `out`.
    pub(crate) fn stmt_lines(&mut self, stmt: &Stmt, out: &mut Vec<Line>) {
        self.stmt_lines_at(stmt, out, Place::WHOLE_BODY);
    }

    /// Appends the lines of `stmt`, which stands at `place` in its scope's
    /// list of statements.
    fn stmt_lines_at(&mut self, stmt: &Stmt, out: &mut Vec<Line>, place: Place) {
        if matches!(stmt.kind(), StmtKind::Seq(_)) {
            return self.stmt_lines_of(stmt, out, place);
        }
        // Declarations the printer adds come before the statement's comments.
        self.declare_free_vars_used_by(stmt, out);
        self.declare_views_used_by(stmt, out);
        self.with_comments(stmt.span(), out, |printer, out| {
            printer.stmt_lines_of(stmt, out, place)
        });
    }

    /// [`Self::stmt_lines_at`] without the source's comments.
    fn stmt_lines_of(&mut self, stmt: &Stmt, out: &mut Vec<Line>, place: Place) {
        // A `with` form's names are scoped to its body, as TVM's parser scopes them.
        let with_form = !place.last && is_scoping(stmt);
        if with_form {
            self.names.enter();
        }
        self.stmt_kind_lines(stmt, out, place);
        if with_form {
            self.names.exit();
        }
    }

    /// A statement that scopes over `body`: `concise` followed by the body's
    /// lines where nothing follows it in its list (TVM's concise scoping), else
    /// `with {with_head}:` around them, since the concise form read back would
    /// take the following statements into its body.
    fn scoped_lines(
        &mut self,
        out: &mut Vec<Line>,
        place: Place,
        concise: String,
        with_head: String,
        body: &Stmt,
    ) {
        if place.last {
            out.push(Line::Text(concise));
            self.stmt_lines_at(body, out, place.continued());
        } else {
            let lines = self.body(body);
            out.push(Line::nested(format!("with {with_head}"), lines));
        }
    }

    fn stmt_kind_lines(&mut self, stmt: &Stmt, out: &mut Vec<Line>, place: Place) {
        match stmt.kind() {
            StmtKind::Seq(stmts) => {
                let count = stmts.len();
                for (i, s) in stmts.iter().enumerate() {
                    let inner = Place {
                        sole: place.sole && count == 1,
                        last: place.last && i + 1 == count,
                    };
                    self.stmt_lines_at(s, out, inner);
                }
            }
            StmtKind::For(for_loop) => self.for_loop(for_loop, out),
            StmtKind::BlockRealize(realize) => {
                let line = self.block(&realize.block, Some(realize));
                out.push(line);
            }
            StmtKind::BufferStore(store)
                if self.scalars.contains(&store.buffer) && is_first_element(&store.indices) =>
            {
                let buffer = self.buffer_name(&store.buffer);
                let value = self.expr(&store.value);
                out.push(Line::Text(format!("{buffer} = {value}")));
            }
            StmtKind::BufferStore(store) => {
                let mut line = String::with_capacity(64);
                self.write_buffer_name(&mut line, &store.buffer);
                if store.indices.is_empty() {
                    line.push_str("[()]");
                } else {
                    line.push('[');
                    self.write_store_indices(&mut line, &store.indices);
                    line.push(']');
                }
                line.push_str(" = ");
                self.write_expr(&mut line, &store.value);
                out.push(Line::Text(line));
            }
            StmtKind::Evaluate(value) => {
                // TVM 0.27 prints `T.ret(x)` as a `return` statement.
                if let ExprKind::Call { op, args } = value.kind() {
                    if op.name() == "ret"
                        && args.len() == 1
                        && self.options.dialect == Dialect::Tirx
                    {
                        let returned = self.expr(&args[0]);
                        out.push(Line::Text(format!("return {returned}")));
                        return;
                    }
                }
                let text = self.expr(value);
                if matches!(value.kind(), ExprKind::Call { .. }) {
                    out.push(Line::Text(text));
                } else {
                    out.push(Line::Text(format!("T.evaluate({text})")));
                }
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let condition = self.expr(condition);
                let then_lines = self.body(then_case);
                out.push(Line::nested(format!("if {condition}"), then_lines));
                if let Some(else_case) = else_case {
                    let else_lines = self.body(else_case);
                    out.push(Line::nested("else".to_string(), else_lines));
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.expr(value);
                let name = self.names.define_var(var);
                let annotation = self.type_annotation_of(var);
                let concise_annotation = match self.options.dialect {
                    Dialect::Tirx => format!("T.let[{annotation}]"),
                    Dialect::Classic => annotation.clone(),
                };
                let concise = format!("{name}: {concise_annotation} = {value}");
                let with_head =
                    format!("T.LetStmt({value}, type_annotation={annotation}) as {name}");
                self.scoped_lines(out, place, concise, with_head, body);
            }
            StmtKind::While { condition, body } => {
                let condition = self.expr(condition);
                let lines = self.body(body);
                out.push(Line::nested(format!("while {condition}"), lines));
            }
            StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            } => {
                let condition = self.expr(condition);
                let plain_text = match message.as_slice() {
                    [only] => match only.kind() {
                        ExprKind::Str(text) => Some(quote(text)),
                        _ => None,
                    },
                    _ => None,
                };
                let message = match (self.options.dialect, plain_text) {
                    (Dialect::Classic, Some(text)) if error_kind == "RuntimeError" => text,
                    _ => format!("({}, [{}])", quote(error_kind), self.expr_list(message)),
                };
                let concise = format!("assert {condition}, {message}");
                let with_head = format!("T.Assert({condition}, {message})");
                self.scoped_lines(out, place, concise, with_head, body);
            }
            StmtKind::Allocate(allocate) => {
                let extents = self.expr_list(&allocate.extents);
                let name = self.names.define_var(&allocate.buffer_var);
                let scope = allocate
                    .buffer_var
                    .node()
                    .pointer
                    .as_ref()
                    .map(|p| p.scope.clone())
                    .unwrap_or_else(|| "global".to_string());
                let mut args = vec![
                    format!("[{extents}]"),
                    format!("\"{}\"", allocate.dtype),
                    quote(&scope),
                ];
                if !operators::is_one(&allocate.condition) {
                    args.push(self.expr(&allocate.condition));
                }
                if !allocate.annotations.is_empty() {
                    args.push(format!(
                        "annotations={}",
                        self.attr_dict(&allocate.annotations)
                    ));
                }
                let call = format!("T.allocate({})", args.join(", "));
                let (concise, with_head) =
                    (format!("{name} = {call}"), format!("{call} as {name}"));
                self.scoped_lines(out, place, concise, with_head, &allocate.body);
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } if self.options.dialect == Dialect::Tirx
                && place.last
                && annotations.is_empty()
                && is_scalar_buffer(buffer) =>
            {
                // TVM 0.27's local scalar: `x: T.int32 = v`, then `x` by name.
                let name = self.names.define_buffer(buffer);
                self.scalars.insert(buffer.clone());
                let dtype = buffer.dtype();
                let (initial, rest) = split_first(body);
                match initial.kind() {
                    StmtKind::BufferStore(store)
                        if store.buffer == *buffer && is_first_element(&store.indices) =>
                    {
                        let value = self.expr(&store.value);
                        out.push(Line::Text(format!("{name}: T.{dtype} = {value}")));
                        if let Some(rest) = rest {
                            self.stmt_lines_at(&rest, out, place.continued());
                        }
                    }
                    _ => {
                        out.push(Line::Text(format!("{name}: T.{dtype}")));
                        self.stmt_lines_at(body, out, place.continued());
                    }
                }
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => {
                let name = self.names.define_buffer(buffer);
                self.remember_data_owner(buffer);
                let (method, scope_implied) = match (self.options.dialect, buffer.scope()) {
                    (Dialect::Classic, _) => ("decl_buffer", false),
                    (Dialect::Tirx, "local") => ("alloc_local", true),
                    (Dialect::Tirx, "shared") => ("alloc_shared", true),
                    (Dialect::Tirx, _) => ("alloc_buffer", false),
                };
                let decl = self.buffer_decl(
                    buffer,
                    &name,
                    DeclKind::Statement,
                    None,
                    &mut Default::default(),
                );
                out.extend(decl.var_defs.into_iter().map(Line::Text));
                let mut args = decl.args;
                if scope_implied {
                    args = remove_keyword(&args, "scope");
                }
                if !annotations.is_empty() {
                    args = format!("{args}, annotations={}", self.attr_dict(annotations));
                }
                let call = format!("T.{method}({args})");
                let (concise, with_head) =
                    (format!("{name} = {call}"), format!("{call} as {name}"));
                self.scoped_lines(out, place, concise, with_head, body);
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let parent = self.data_owner(buffer);
                let name = self.names.define_buffer(buffer);
                let view = parent.as_ref().filter(|p| is_view_of(buffer, p));
                let call = match view {
                    Some(parent) => {
                        let parent_name = self.buffer_name(parent);
                        let dims = self.expr_list(buffer.shape());
                        format!("{parent_name}.view({dims})")
                    }
                    None => {
                        let data = Some(buffer.data().clone());
                        let decl = self.buffer_decl(
                            buffer,
                            &name,
                            DeclKind::Statement,
                            data.as_ref(),
                            &mut Default::default(),
                        );
                        out.extend(decl.var_defs.into_iter().map(Line::Text));
                        format!("T.decl_buffer({})", decl.args)
                    }
                };
                if parent.is_none() {
                    self.remember_data_owner(buffer);
                }
                let (concise, with_head) =
                    (format!("{name} = {call}"), format!("{call} as {name}"));
                self.scoped_lines(out, place, concise, with_head, body);
            }
            StmtKind::AttrStmt(attr) => self.attr_stmt(attr, out, place.sole),
        }
    }

    /// `T.launch_thread` and `T.attr`: concise when they are the sole statement
    /// of their body, else a `with` block.
    fn attr_stmt(&mut self, attr: &AttrStmt, out: &mut Vec<Line>, sole: bool) {
        let (head, body) = if let AttrNode::Thread { var, tag } = &attr.node {
            let extent = self.expr(&attr.value);
            if self.env_threads.contains(var) {
                // A thread launched more than once is declared by `T.env_thread`.
                let name = self.expr(&var.to_expr());
                let lines = self.body(&attr.body);
                out.push(Line::nested(
                    format!("with T.launch_thread({name}, {extent})"),
                    lines,
                ));
                return;
            }
            let _ = tag;
            if sole {
                let name = self.names.define_var(var);
                out.push(Line::Text(format!(
                    "{name} = T.launch_thread({}, {extent})",
                    quote(tag)
                )));
                self.stmt_lines_at(&attr.body, out, Place::WHOLE_BODY);
                return;
            }
            // The `as` variable is scoped to the `with` body.
            self.names.enter();
            let name = self.names.define_var(var);
            let lines = self.body(&attr.body);
            self.names.exit();
            out.push(Line::nested(
                format!("with T.launch_thread({}, {extent}) as {name}", quote(tag)),
                lines,
            ));
            return;
        } else if let AttrNode::None = attr.node {
            // Directly nested attributes of node 0 merge into one dict.
            let mut pairs = vec![(attr.key.clone(), attr.value.clone())];
            let mut body = &attr.body;
            while let StmtKind::AttrStmt(inner) = body.kind() {
                if !matches!(inner.node, AttrNode::None) {
                    break;
                }
                pairs.push((inner.key.clone(), inner.value.clone()));
                body = &inner.body;
            }
            let mut sorted = pairs;
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let parts: Vec<String> = sorted
                .iter()
                .map(|(key, value)| format!("{}: {}", quote(key), self.expr(value)))
                .collect();
            let call = format!("T.attr({{{}}})", parts.join(", "));
            if sole {
                out.push(Line::Text(call));
                self.stmt_lines_at(body, out, Place::WHOLE_BODY);
                return;
            }
            (format!("with {call}"), body)
        } else {
            let node = match &attr.node {
                AttrNode::Reducer(reducer) => self.comm_reducer(reducer),
                AttrNode::Var(v) => self.expr(&v.to_expr()),
                AttrNode::Buffer(b) => self.buffer_name(b),
                AttrNode::Str(s) => quote(s),
                AttrNode::None | AttrNode::Thread { .. } => "None".to_string(),
            };
            let value = self.expr(&attr.value);
            let call = format!("T.attr({node}, {}, {value})", quote(&attr.key));
            if sole {
                out.push(Line::Text(call));
                self.stmt_lines_at(&attr.body, out, Place::WHOLE_BODY);
                return;
            }
            (format!("with {call}"), &attr.body)
        };
        let lines = self.body(body);
        out.push(Line::nested(head, lines));
    }

    /// `T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)])`.
    fn comm_reducer(&mut self, reducer: &crate::ir::CommReducer) -> String {
        self.names.enter();
        let params: Vec<Rc<str>> = reducer
            .lhs
            .iter()
            .chain(&reducer.rhs)
            .map(|v| self.names.define_var(v))
            .collect();
        let results = self.expr_list(&reducer.result);
        self.names.exit();
        let body = if reducer.result.len() == 1 {
            results
        } else {
            format!("({results})")
        };
        let identity = self.expr_list(&reducer.identity);
        format!(
            "T.comm_reducer(lambda {}: {body}, [{identity}])",
            params.join(", ")
        )
    }

    /// Records that `buffer` owns its data variable, for `.view` printing.
    fn remember_data_owner(&mut self, buffer: &Buffer) {
        self.data_owners
            .entry(buffer.data().clone())
            .or_insert_with(|| buffer.clone());
    }

    /// The buffer in scope that owns `buffer`'s data, other than itself.
    fn data_owner(&self, buffer: &Buffer) -> Option<Buffer> {
        self.data_owners
            .get(buffer.data())
            .filter(|owner| *owner != buffer && self.names.is_buffer_defined(owner))
            .cloned()
    }

    /// `T.int32`, `T.handle("float32", "global")`: the annotation of a variable.
    pub(crate) fn type_annotation_of(&self, var: &crate::ir::Var) -> String {
        match &var.node().pointer {
            Some(pointer) if !(pointer.element.is_void() && pointer.scope == "global") => {
                if pointer.element.is_void() {
                    format!("T.handle(storage_scope={})", quote(&pointer.scope))
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
            _ => format!("T.{}", var.dtype()),
        }
    }

    /// A dictionary of attributes, keys sorted as TVM prints maps.
    pub(crate) fn attr_dict(&mut self, attrs: &[(String, AttrValue)]) -> String {
        let mut out = String::new();
        self.write_attr_dict(&mut out, attrs);
        out
    }

    /// Appends [`Printer::attr_dict`] to `out`.
    pub(crate) fn write_attr_dict(&mut self, out: &mut String, attrs: &[(String, AttrValue)]) {
        let write_entry =
            |printer: &mut Printer, out: &mut String, (key, value): &(String, AttrValue)| {
                write_quoted(out, key);
                out.push_str(": ");
                printer.write_attr_value(out, value);
            };
        out.push('{');
        // Most dicts hold one entry, or are already sorted: sort only the others.
        if attrs.is_sorted_by(|a, b| a.0 <= b.0) {
            self.write_separated(out, attrs, write_entry);
        } else {
            let mut sorted: Vec<&(String, AttrValue)> = attrs.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            self.write_separated(out, sorted, write_entry);
        }
        out.push('}');
    }

    /// Appends one attribute value; ints and bools print bare.
    fn write_attr_value(&mut self, out: &mut String, value: &AttrValue) {
        match value {
            AttrValue::Int(i) => super::expr::write_decimal(out, *i),
            AttrValue::Float(f) => out.push_str(&super::expr::format_float(*f)),
            AttrValue::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
            AttrValue::Expr(e) => self.write_expr(out, e),
            AttrValue::Str(s) => write_quoted(out, s),
            AttrValue::List(items) => {
                out.push('[');
                self.write_separated(out, items, |printer, out, item| {
                    printer.write_attr_value(out, item)
                });
                out.push(']');
            }
            AttrValue::Dict(items) => self.write_attr_dict(out, items),
            AttrValue::Target(items) => {
                out.push_str("T.target(");
                self.write_attr_dict(out, items);
                out.push(')');
            }
            AttrValue::None => out.push_str("None"),
        }
    }

    fn for_loop(&mut self, first: &For, out: &mut Vec<Line>) {
        // `T.grid` groups directly nested serial loops from 0 without annotations
        // whose extents do not depend on each other. The grid is counted rather
        // than collected, so a loop printed on its own allocates nothing for it.
        let nest = || std::iter::successors(Some(first), |l| l.body.as_for());
        let mut grid_len = 0;
        for l in nest() {
            if l.kind != ForKind::Serial
                || !operators::is_zero(&l.min)
                || !l.annotations.is_empty()
                || expr_uses_var(&l.extent, &mut |v| {
                    nest().take(grid_len).any(|outer| outer.loop_var == *v)
                })
            {
                break;
            }
            grid_len += 1;
        }
        let grid = || nest().take(grid_len);
        self.names.enter();
        let mut head = String::with_capacity(64);
        head.push_str("for ");
        let body = if grid_len > 1 {
            self.write_separated(&mut head, grid(), |printer, head, l| {
                head.push_str(&printer.names.define_var(&l.loop_var));
            });
            head.push_str(" in T.grid(");
            self.write_separated(&mut head, grid(), |printer, head, l| {
                printer.write_expr(head, &l.extent);
            });
            head.push(')');
            let depth = self.loops.len();
            self.loops
                .extend(grid().map(|l| (l.loop_var.clone(), l.range())));
            let mut lines = Vec::new();
            if let Some(last) = grid().last() {
                self.stmt_lines(&last.body, &mut lines);
                self.comments_ending_body(first_statement_span(&last.body), &mut lines);
            }
            self.loops.truncate(depth);
            lines
        } else {
            let l = first;
            head.push_str(&self.names.define_var(&l.loop_var));
            head.push_str(" in ");
            match l.kind {
                ForKind::Serial if l.annotations.is_empty() => head.push_str("range"),
                kind => {
                    head.push_str("T.");
                    head.push_str(kind.script_name());
                }
            }
            head.push('(');
            if operators::is_zero(&l.min) {
                self.write_expr(&mut head, &l.extent);
            } else {
                self.write_expr(&mut head, &l.min);
                head.push_str(", ");
                let stop = l.range().end().unwrap_or_else(|_| l.extent.clone());
                self.write_expr(&mut head, &stop);
            }
            if let Some(thread) = &l.thread {
                head.push_str(", thread=");
                write_quoted(&mut head, thread);
            }
            if !l.annotations.is_empty() {
                head.push_str(", annotations=");
                self.write_attr_dict(&mut head, &l.annotations);
            }
            head.push(')');
            self.loops.push((l.loop_var.clone(), l.range()));
            let mut lines = Vec::new();
            self.stmt_lines(&l.body, &mut lines);
            self.comments_ending_body(first_statement_span(&l.body), &mut lines);
            self.loops.pop();
            lines
        };
        self.names.exit();
        out.push(Line::nested(head, body));
    }

    /// `A[vi, 0:128]`: a region, with unit ranges printed as points.
    pub(crate) fn region(&mut self, region: &BufferRegion) -> String {
        let mut out = String::new();
        self.write_region(&mut out, region);
        out
    }

    /// Appends [`Printer::region`] to `out`.
    fn write_region(&mut self, out: &mut String, region: &BufferRegion) {
        self.write_buffer_name(out, &region.buffer);
        if region.region.is_empty() {
            out.push_str("[()]");
            return;
        }
        out.push('[');
        self.write_separated(out, &region.region, |printer, out, range| {
            printer.write_expr(out, &range.min);
            if !operators::is_one(&range.extent) {
                let stop = range.end().unwrap_or_else(|_| range.extent.clone());
                out.push(':');
                printer.write_expr(out, &stop);
            }
        });
        out.push(']');
    }

    /// `T.reads(A[vi], B[vi])`: the regions as the arguments of `call`.
    fn regions_line(&mut self, call: &str, regions: &[BufferRegion]) -> String {
        let mut out = String::with_capacity(64);
        out.push_str(call);
        out.push('(');
        self.write_separated(&mut out, regions, |printer, out, region| {
            printer.write_region(out, region);
        });
        out.push(')');
        out
    }

    /// True when iteration variable `i` is bound to an enclosing loop's
    /// variable over exactly its domain (printable by `T.axis.remap`).
    fn is_remappable(&self, block: &Block, realize: &BlockRealize, i: usize) -> bool {
        let iter_var = &block.iter_vars[i];
        if !matches!(iter_var.kind, IterKind::Spatial | IterKind::Reduce) {
            return false;
        }
        let Some(var) = realize.iter_values[i].as_var() else {
            return false;
        };
        self.loops.iter().rev().any(|(loop_var, range)| {
            loop_var == var
                && expr_deep_equal(&range.min, &iter_var.dom.min)
                && expr_deep_equal(&range.extent, &iter_var.dom.extent)
        })
    }

    fn iter_var_line(&mut self, block: &Block, realize: Option<&BlockRealize>, i: usize) -> String {
        let iter_var = &block.iter_vars[i];
        // The name is defined after the domain and binding are printed, as TVM does.
        let mut call = String::with_capacity(48);
        call.push_str("T.axis.");
        call.push_str(iter_var.kind.axis_name());
        call.push('(');
        if operators::is_zero(&iter_var.dom.min) {
            self.write_expr(&mut call, &iter_var.dom.extent);
        } else {
            let stop = iter_var
                .dom
                .end()
                .unwrap_or_else(|_| iter_var.dom.extent.clone());
            call.push('(');
            self.write_expr(&mut call, &iter_var.dom.min);
            call.push_str(", ");
            self.write_expr(&mut call, &stop);
            call.push(')');
        }
        if let Some(realize) = realize {
            call.push_str(", ");
            self.write_expr(&mut call, &realize.iter_values[i]);
        }
        call.push(')');
        let name = self.names.define_var(&iter_var.var);
        let mut line = String::with_capacity(name.len() + 3 + call.len());
        line.push_str(&name);
        line.push_str(" = ");
        line.push_str(&call);
        line
    }

    fn flush_remap(
        &mut self,
        block: &Block,
        realize: &BlockRealize,
        run: &mut Vec<usize>,
        lines: &mut Vec<Line>,
    ) {
        match run.len() {
            0 => {}
            1 => {
                let line = self.iter_var_line(block, Some(realize), run[0]);
                lines.push(Line::Text(line));
            }
            _ => {
                // Bindings are printed before the block's names are defined, as TVM does.
                let mut bindings = String::with_capacity(64);
                self.write_separated(&mut bindings, run.iter(), |printer, out, &i| {
                    printer.write_expr(out, &realize.iter_values[i]);
                });
                let mut line = String::with_capacity(2 * bindings.len() + 32);
                self.write_separated(&mut line, run.iter(), |printer, out, &i| {
                    out.push_str(&printer.names.define_var(&block.iter_vars[i].var));
                });
                line.push_str(" = T.axis.remap(\"");
                line.extend(run.iter().map(|&i| block.iter_vars[i].kind.letter()));
                line.push_str("\", [");
                line.push_str(&bindings);
                line.push_str("])");
                lines.push(Line::Text(line));
            }
        }
        run.clear();
    }

    /// A block as `with T.block("name"):` and its contents.
    pub(crate) fn block(&mut self, block: &Block, realize: Option<&BlockRealize>) -> Line {
        let dialect = self.options.dialect;
        self.names.enter();
        let mut lines = Vec::new();
        match realize {
            Some(realize) => {
                let mut run = Vec::new();
                for i in 0..block.iter_vars.len() {
                    if self.is_remappable(block, realize, i) {
                        run.push(i);
                    } else {
                        self.flush_remap(block, realize, &mut run, &mut lines);
                        let line = self.iter_var_line(block, Some(realize), i);
                        lines.push(Line::Text(line));
                    }
                }
                self.flush_remap(block, realize, &mut run, &mut lines);
                if !operators::is_one(&realize.predicate) {
                    let predicate = self.expr(&realize.predicate);
                    lines.push(Line::Text(format!("T.where({predicate})")));
                }
            }
            None => {
                for i in 0..block.iter_vars.len() {
                    let line = self.iter_var_line(block, None, i);
                    lines.push(Line::Text(line));
                }
            }
        }
        // Buffers allocated or matched here may appear in the regions: name them first.
        let alloc_names: Vec<Rc<str>> = block
            .alloc_buffers
            .iter()
            .map(|b| self.names.define_buffer(b))
            .collect();
        if !self.omits_reads(block.id) {
            let reads = self.regions_line("T.reads", &block.reads);
            lines.push(Line::Text(reads));
        }
        if !self.omits_writes(block.id) {
            let writes = self.regions_line("T.writes", &block.writes);
            lines.push(Line::Text(writes));
        }
        if !block.annotations.is_empty() {
            let mut line = format!("T.{}(", dialect.block_attr());
            self.write_attr_dict(&mut line, &block.annotations);
            line.push(')');
            lines.push(Line::Text(line));
        }
        for (buffer, name) in block.alloc_buffers.iter().zip(alloc_names) {
            let decl = self.buffer_decl(
                buffer,
                &name,
                DeclKind::Statement,
                None,
                &mut Default::default(),
            );
            lines.extend(decl.var_defs.into_iter().map(Line::Text));
            lines.push(Line::Text(format!(
                "{name} = T.{}({})",
                dialect.alloc_buffer(),
                decl.args
            )));
        }
        for matched in &block.match_buffers {
            let source = self.region(&matched.source);
            let name = self.names.define_buffer(&matched.buffer);
            let decl = self.buffer_decl(
                &matched.buffer,
                &name,
                DeclKind::Statement,
                None,
                &mut Default::default(),
            );
            lines.extend(decl.var_defs.into_iter().map(Line::Text));
            lines.push(Line::Text(format!(
                "{name} = T.match_buffer({source}, {})",
                decl.args
            )));
        }
        if let Some(init) = &block.init {
            let init_lines = self.body(init);
            lines.push(Line::nested("with T.init()".to_string(), init_lines));
        }
        self.stmt_lines(&block.body, &mut lines);
        self.comments_ending_body(first_statement_span(&block.body), &mut lines);
        self.names.exit();
        let no_realize = if realize.is_none() {
            ", no_realize=True"
        } else {
            ""
        };
        Line::nested(
            format!(
                "with T.{}({}{no_realize})",
                dialect.block(),
                quote(&block.name)
            ),
            lines,
        )
    }
}

/// The root block of a block-level function, when the printer leaves it
/// implicit (printing `# with T.block("root"):`), as TVM decides.
pub(crate) fn implicit_root_block(body: &Stmt) -> Option<&Block> {
    let realize = body.as_block_realize()?;
    if !realize.iter_values.is_empty() || !operators::is_one(&realize.predicate) {
        return None;
    }
    let root = &realize.block;
    if !root.annotations.is_empty()
        || !root.match_buffers.is_empty()
        || !root.reads.is_empty()
        || !root.writes.is_empty()
        || root.init.is_some()
    {
        return None;
    }
    let inner = root.body.as_block_realize();
    let contains_block = {
        let mut found = false;
        crate::ir::visit::walk_stmts(&root.body, &mut |s| {
            found |= matches!(s.kind(), StmtKind::BlockRealize(_));
        });
        found
    };
    if !root.alloc_buffers.is_empty()
        || inner.is_some_and(|r| !r.block.iter_vars.is_empty())
        || (inner.is_none() && contains_block)
    {
        Some(root)
    } else {
        None
    }
}

/// True when `child` views `parent`'s data with another shape and nothing else
/// changed: TVM prints it as `parent.view(...)`.
fn is_view_of(child: &Buffer, parent: &Buffer) -> bool {
    let (c, p) = (child.node(), parent.node());
    c.dtype == p.dtype
        && c.scope == p.scope
        && c.strides.is_empty()
        && p.strides.is_empty()
        && crate::ir::structural::expr_deep_equal(&c.elem_offset, &p.elem_offset)
        && c.data_alignment == p.data_alignment
        && c.offset_factor == p.offset_factor
        && c.axis_separators == p.axis_separators
        && (c.shape.len() != p.shape.len()
            || c.shape
                .iter()
                .zip(&p.shape)
                .any(|(a, b)| !crate::ir::structural::expr_deep_equal(a, b)))
}

/// Removes `keyword=...` from a printed argument list.
fn remove_keyword(args: &str, keyword: &str) -> String {
    args.split(", ")
        .filter(|part| !part.starts_with(&format!("{keyword}=")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// True for a one-element local buffer that TVM 0.27 prints as a named scalar.
fn is_scalar_buffer(buffer: &Buffer) -> bool {
    let node = buffer.node();
    node.declared_as_scalar
        && node.shape.len() == 1
        && node.shape[0].as_int() == Some(1)
        && node.strides.is_empty()
        && operators::is_zero(&node.elem_offset)
        && node.scope == "local"
        && node.data_alignment == crate::ir::buffer::DEFAULT_ALIGNMENT
        && node.offset_factor == 1
        && node.axis_separators.is_empty()
}

/// True for the index list `[0]`.
pub(crate) fn is_first_element(indices: &[crate::ir::Expr]) -> bool {
    matches!(indices, [only] if only.as_int() == Some(0))
}

/// The first statement of a body and the rest, if any.
fn split_first(body: &Stmt) -> (Stmt, Option<Stmt>) {
    match body.kind() {
        StmtKind::Seq(stmts) if !stmts.is_empty() => {
            let rest = (stmts.len() > 1).then(|| Stmt::seq(stmts[1..].to_vec()));
            (stmts[0].clone(), rest)
        }
        _ => (body.clone(), None),
    }
}

/// The part of a statement printed on its own line(s): for statements whose
/// body is printed flattened after them (lets, buffer declarations, asserts),
/// everything but that body; otherwise the whole statement.
fn flattened_header(stmt: &Stmt) -> Stmt {
    let empty = Stmt::no_op();
    let kind = match stmt.kind() {
        StmtKind::LetStmt { var, value, .. } => StmtKind::LetStmt {
            var: var.clone(),
            value: value.clone(),
            body: empty,
        },
        StmtKind::DeclBuffer { buffer, .. } => StmtKind::DeclBuffer {
            buffer: buffer.clone(),
            body: empty,
        },
        StmtKind::AllocBuffer {
            buffer,
            annotations,
            ..
        } => StmtKind::AllocBuffer {
            buffer: buffer.clone(),
            annotations: annotations.clone(),
            body: empty,
        },
        StmtKind::Assert {
            condition,
            error_kind,
            message,
            ..
        } => StmtKind::Assert {
            condition: condition.clone(),
            error_kind: error_kind.clone(),
            message: message.clone(),
            body: empty,
        },
        _ => return stmt.clone(),
    };
    Stmt::new(kind, stmt.span())
}

/// The span of the first statement of a body (of `stmt` itself unless it is
/// a sequence).
pub(crate) fn first_statement_span(stmt: &Stmt) -> crate::source::Span {
    match stmt.kind() {
        StmtKind::Seq(stmts) => stmts
            .first()
            .map_or(crate::source::Span::NONE, first_statement_span),
        _ => stmt.span(),
    }
}

/// Where a statement stands in the list of statements of its scope.
#[derive(Clone, Copy)]
struct Place {
    /// The statement is the whole body of its scope (TVM prints
    /// `T.launch_thread` and `T.attr` concisely, without `with`, only then).
    sole: bool,
    /// No statement follows it in the list.
    last: bool,
}

impl Place {
    const WHOLE_BODY: Place = Place {
        sole: true,
        last: true,
    };

    /// The place of the body of a concisely printed scoping statement, whose
    /// lines continue the list.
    fn continued(self) -> Place {
        Place {
            sole: false,
            last: self.last,
        }
    }
}

/// A statement that scopes over the rest of its list when printed concisely.
fn is_scoping(stmt: &Stmt) -> bool {
    matches!(
        stmt.kind(),
        StmtKind::LetStmt { .. }
            | StmtKind::Assert { .. }
            | StmtKind::Allocate(_)
            | StmtKind::AllocBuffer { .. }
            | StmtKind::DeclBuffer { .. }
    )
}
