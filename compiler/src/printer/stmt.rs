//! Statements to lines: loops (with `T.grid`), blocks (with `T.axis.remap`),
//! stores, control flow, allocations and attributes.

use super::buffer::DeclKind;
use super::expr::quote;
use super::{Line, Printer};
use crate::ir::operators;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    AttrNode, AttrValue, Block, BlockRealize, BufferRegion, ExprKind, For, ForKind, IterKind, Stmt,
    StmtKind, Var,
};
use std::collections::HashSet;

impl Printer {
    /// The statements of a body, in a new naming scope.
    pub(crate) fn body(&mut self, stmt: &Stmt) -> Vec<Line> {
        self.names.enter();
        let mut lines = Vec::new();
        self.stmt_lines(stmt, &mut lines);
        self.names.exit();
        lines
    }

    /// Appends the lines of `stmt` to `out`.
    pub(crate) fn stmt_lines(&mut self, stmt: &Stmt, out: &mut Vec<Line>) {
        match stmt.kind() {
            StmtKind::Seq(stmts) => {
                for s in stmts {
                    self.stmt_lines(s, out);
                }
            }
            StmtKind::For(for_loop) => self.for_loop(for_loop, out),
            StmtKind::BlockRealize(realize) => {
                let line = self.block(&realize.block, Some(realize));
                out.push(line);
            }
            StmtKind::BufferStore(store) => {
                let buffer = self.buffer_name(&store.buffer);
                let value = self.expr(&store.value);
                let target = if store.indices.is_empty() {
                    format!("{buffer}[()]")
                } else {
                    format!("{buffer}[{}]", self.store_indices(&store.indices))
                };
                out.push(Line::Text(format!("{target} = {value}")));
            }
            StmtKind::Evaluate(value) => {
                // TVM 0.27 prints `T.ret(x)` as a `return` statement.
                if let ExprKind::Call { op, args } = value.kind() {
                    if op.name() == "ret"
                        && args.len() == 1
                        && self.options.dialect == super::Dialect::Tirx
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
                out.push(Line::Nested(format!("if {condition}"), then_lines));
                if let Some(else_case) = else_case {
                    let else_lines = self.body(else_case);
                    out.push(Line::Nested("else".to_string(), else_lines));
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.expr(value);
                let name = self.names.define_var(var);
                out.push(Line::Text(format!("{name}: T.{} = {value}", var.dtype())));
                self.stmt_lines(body, out);
            }
            StmtKind::While { condition, body } => {
                let condition = self.expr(condition);
                let lines = self.body(body);
                out.push(Line::Nested(format!("while {condition}"), lines));
            }
            StmtKind::Assert {
                condition,
                message,
                body,
            } => {
                let condition = self.expr(condition);
                let message = self.expr(message);
                out.push(Line::Text(format!("assert {condition}, {message}")));
                self.stmt_lines(body, out);
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
                out.push(Line::Text(format!(
                    "{name} = T.allocate({})",
                    args.join(", ")
                )));
                self.stmt_lines(&allocate.body, out);
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let name = self.names.define_buffer(buffer);
                let data = Some(buffer.data().clone());
                let decl = self.buffer_decl(
                    buffer,
                    &name,
                    DeclKind::Statement,
                    data.as_ref(),
                    &mut HashSet::new(),
                );
                out.extend(decl.var_defs.into_iter().map(Line::Text));
                out.push(Line::Text(format!("{name} = T.decl_buffer({})", decl.args)));
                self.stmt_lines(body, out);
            }
            StmtKind::AttrStmt(attr) => {
                if let AttrNode::Thread { var, tag } = &attr.node {
                    let extent = self.expr(&attr.value);
                    let name = self.names.define_var(var);
                    out.push(Line::Text(format!(
                        "{name} = T.launch_thread({}, {extent})",
                        quote(tag)
                    )));
                    self.stmt_lines(&attr.body, out);
                    return;
                }
                let node = match &attr.node {
                    AttrNode::None => "None".to_string(),
                    AttrNode::Var(v) => self.expr(&v.to_expr()),
                    AttrNode::Buffer(b) => self.buffer_name(b),
                    AttrNode::Str(s) => quote(s),
                    AttrNode::Thread { .. } => unreachable!("handled above"),
                };
                let value = self.expr(&attr.value);
                let lines = self.body(&attr.body);
                out.push(Line::Nested(
                    format!("with T.attr({node}, {}, {value})", quote(&attr.key)),
                    lines,
                ));
            }
        }
    }

    /// A dictionary of attributes, keys sorted as TVM prints maps.
    pub(crate) fn attr_dict(&mut self, attrs: &[(String, AttrValue)]) -> String {
        let mut sorted: Vec<&(String, AttrValue)> = attrs.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let parts: Vec<String> = sorted
            .into_iter()
            .map(|(key, value)| format!("{}: {}", quote(key), self.attr_value(value)))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }

    /// One attribute value; ints and bools print bare.
    pub(crate) fn attr_value(&mut self, value: &AttrValue) -> String {
        match value {
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(f) => super::expr::format_float(*f),
            AttrValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            AttrValue::Expr(e) => self.expr(e),
            AttrValue::Str(s) => quote(s),
            AttrValue::List(items) => {
                let parts: Vec<String> = items.iter().map(|v| self.attr_value(v)).collect();
                format!("[{}]", parts.join(", "))
            }
            AttrValue::Dict(items) => self.attr_dict(items),
            AttrValue::None => "None".to_string(),
        }
    }

    fn for_loop(&mut self, first: &For, out: &mut Vec<Line>) {
        // `T.grid` groups directly nested serial loops from 0 without annotations
        // whose extents do not depend on each other.
        let mut grid: Vec<&For> = Vec::new();
        let mut grid_vars: HashSet<Var> = HashSet::new();
        let mut current = Some(first);
        while let Some(l) = current {
            if l.kind != ForKind::Serial
                || !operators::is_zero(&l.min)
                || !l.annotations.is_empty()
                || expr_uses_var(&l.extent, &mut |v| grid_vars.contains(v))
            {
                break;
            }
            grid.push(l);
            grid_vars.insert(l.loop_var.clone());
            current = l.body.as_for();
        }
        self.names.enter();
        let (head, body) = if grid.len() > 1 {
            let mut vars = Vec::new();
            let mut extents = Vec::new();
            for l in &grid {
                vars.push(self.names.define_var(&l.loop_var));
                extents.push(self.expr(&l.extent));
            }
            let depth = self.loops.len();
            self.loops.extend(grid.iter().map(|l| (*l).clone()));
            let mut lines = Vec::new();
            let last = grid[grid.len() - 1];
            self.stmt_lines(&last.body, &mut lines);
            self.loops.truncate(depth);
            (
                format!("for {} in T.grid({})", vars.join(", "), extents.join(", ")),
                lines,
            )
        } else {
            let l = first;
            let var = self.names.define_var(&l.loop_var);
            let mut args = Vec::new();
            if operators::is_zero(&l.min) {
                args.push(self.expr(&l.extent));
            } else {
                args.push(self.expr(&l.min));
                let stop = operators::add(l.min.clone(), l.extent.clone())
                    .unwrap_or_else(|_| l.extent.clone());
                args.push(self.expr(&stop));
            }
            if let Some(thread) = &l.thread {
                args.push(format!("thread={}", quote(thread)));
            }
            if !l.annotations.is_empty() {
                args.push(format!("annotations={}", self.attr_dict(&l.annotations)));
            }
            let prefix = match l.kind {
                ForKind::Serial if l.annotations.is_empty() => "range".to_string(),
                kind => format!("T.{}", kind.script_name()),
            };
            self.loops.push(l.clone());
            let mut lines = Vec::new();
            self.stmt_lines(&l.body, &mut lines);
            self.loops.pop();
            (format!("for {var} in {prefix}({})", args.join(", ")), lines)
        };
        self.names.exit();
        out.push(Line::Nested(head, body));
    }

    /// `A[vi, 0:128]`: a region, with unit ranges printed as points.
    pub(crate) fn region(&mut self, region: &BufferRegion) -> String {
        let buffer = self.buffer_name(&region.buffer);
        if region.region.is_empty() {
            return format!("{buffer}[()]");
        }
        let parts: Vec<String> = region
            .region
            .iter()
            .map(|range| {
                if operators::is_one(&range.extent) {
                    self.expr(&range.min)
                } else {
                    let stop = operators::add(range.min.clone(), range.extent.clone())
                        .unwrap_or_else(|_| range.extent.clone());
                    format!("{}:{}", self.expr(&range.min), self.expr(&stop))
                }
            })
            .collect();
        format!("{buffer}[{}]", parts.join(", "))
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
        self.loops.iter().rev().any(|l| {
            &l.loop_var == var
                && expr_deep_equal(&l.min, &iter_var.dom.min)
                && expr_deep_equal(&l.extent, &iter_var.dom.extent)
        })
    }

    fn iter_var_line(&mut self, block: &Block, realize: Option<&BlockRealize>, i: usize) -> String {
        let iter_var = &block.iter_vars[i];
        let dom = if operators::is_zero(&iter_var.dom.min) {
            self.expr(&iter_var.dom.extent)
        } else {
            let stop = operators::add(iter_var.dom.min.clone(), iter_var.dom.extent.clone())
                .unwrap_or_else(|_| iter_var.dom.extent.clone());
            format!("({}, {})", self.expr(&iter_var.dom.min), self.expr(&stop))
        };
        let call = match realize {
            Some(realize) => {
                let binding = self.expr(&realize.iter_values[i]);
                format!("T.axis.{}({dom}, {binding})", iter_var.kind.axis_name())
            }
            None => format!("T.axis.{}({dom})", iter_var.kind.axis_name()),
        };
        let name = self.names.define_var(&iter_var.var);
        format!("{name} = {call}")
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
                let bindings: Vec<String> = run
                    .iter()
                    .map(|&i| self.expr(&realize.iter_values[i]))
                    .collect();
                let kinds: String = run
                    .iter()
                    .map(|&i| block.iter_vars[i].kind.letter())
                    .collect();
                let names: Vec<String> = run
                    .iter()
                    .map(|&i| self.names.define_var(&block.iter_vars[i].var))
                    .collect();
                lines.push(Line::Text(format!(
                    "{} = T.axis.remap(\"{kinds}\", [{}])",
                    names.join(", "),
                    bindings.join(", ")
                )));
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
        let alloc_names: Vec<String> = block
            .alloc_buffers
            .iter()
            .map(|b| self.names.define_buffer(b))
            .collect();
        let reads: Vec<String> = block.reads.iter().map(|r| self.region(r)).collect();
        lines.push(Line::Text(format!("T.reads({})", reads.join(", "))));
        let writes: Vec<String> = block.writes.iter().map(|r| self.region(r)).collect();
        lines.push(Line::Text(format!("T.writes({})", writes.join(", "))));
        if !block.annotations.is_empty() {
            let dict = self.attr_dict(&block.annotations);
            lines.push(Line::Text(format!("T.{}({dict})", dialect.block_attr())));
        }
        for (buffer, name) in block.alloc_buffers.iter().zip(alloc_names) {
            let decl = self.buffer_decl(
                buffer,
                &name,
                DeclKind::Statement,
                None,
                &mut HashSet::new(),
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
                &mut HashSet::new(),
            );
            lines.extend(decl.var_defs.into_iter().map(Line::Text));
            lines.push(Line::Text(format!(
                "{name} = T.match_buffer({source}, {})",
                decl.args
            )));
        }
        if let Some(init) = &block.init {
            let init_lines = self.body(init);
            lines.push(Line::Nested("with T.init()".to_string(), init_lines));
        }
        self.stmt_lines(&block.body, &mut lines);
        self.names.exit();
        let no_realize = if realize.is_none() {
            ", no_realize=True"
        } else {
            ""
        };
        Line::Nested(
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
