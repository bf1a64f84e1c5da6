//! Read-only traversal of statements and expressions.
//!
//! Implement [`Visitor`] and override the hooks you need; the `walk_*`
//! functions visit children in source order. Closure helpers cover the common
//! "every statement" and "every expression" cases.

use super::buffer::Buffer;
use super::expr::{Expr, ExprKind, Range};
use super::stmt::{AttrNode, AttrValue, Block, BufferRegion, Stmt, StmtKind};

/// A read-only traversal; every method defaults to visiting the children.
pub trait Visitor {
    /// Called for every statement.
    fn visit_stmt(&mut self, stmt: &Stmt) {
        walk_stmt(self, stmt)
    }
    /// Called for every expression.
    fn visit_expr(&mut self, expr: &Expr) {
        walk_expr(self, expr)
    }
    /// Called for a buffer read or written by a load, store or region.
    fn visit_buffer_use(&mut self, _buffer: &Buffer) {}
    /// Called where a buffer is declared (`alloc_buffer`, `match_buffer`, `decl_buffer`).
    fn visit_buffer_def(&mut self, _buffer: &Buffer) {}
    /// Called for each read or write region of a block.
    fn visit_buffer_region(&mut self, region: &BufferRegion) {
        self.visit_buffer_use(&region.buffer);
        for range in &region.region {
            self.visit_range(range);
        }
    }
    /// Called for each range (loop domains excluded).
    fn visit_range(&mut self, range: &Range) {
        self.visit_expr(&range.min);
        self.visit_expr(&range.extent);
    }
    /// Called for a block, before its contents.
    fn visit_block(&mut self, block: &Block) {
        walk_block(self, block)
    }
}

/// Visits the children of a statement.
pub fn walk_stmt<V: Visitor + ?Sized>(visitor: &mut V, stmt: &Stmt) {
    match stmt.kind() {
        StmtKind::For(for_loop) => {
            visitor.visit_expr(&for_loop.min);
            visitor.visit_expr(&for_loop.extent);
            visitor.visit_stmt(&for_loop.body);
        }
        StmtKind::BlockRealize(realize) => {
            for value in &realize.iter_values {
                visitor.visit_expr(value);
            }
            visitor.visit_expr(&realize.predicate);
            visitor.visit_block(&realize.block);
        }
        StmtKind::BufferStore(store) => {
            visitor.visit_buffer_use(&store.buffer);
            visitor.visit_expr(&store.value);
            for index in &store.indices {
                visitor.visit_expr(index);
            }
        }
        StmtKind::Seq(stmts) => {
            for stmt in stmts {
                visitor.visit_stmt(stmt);
            }
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } => {
            visitor.visit_expr(condition);
            visitor.visit_stmt(then_case);
            if let Some(else_case) = else_case {
                visitor.visit_stmt(else_case);
            }
        }
        StmtKind::LetStmt { value, body, .. } => {
            visitor.visit_expr(value);
            visitor.visit_stmt(body);
        }
        StmtKind::Evaluate(value) => visitor.visit_expr(value),
        StmtKind::Allocate(allocate) => {
            for extent in &allocate.extents {
                visitor.visit_expr(extent);
            }
            visitor.visit_expr(&allocate.condition);
            visitor.visit_stmt(&allocate.body);
        }
        StmtKind::DeclBuffer { buffer, body } => {
            visitor.visit_buffer_def(buffer);
            visitor.visit_stmt(body);
        }
        StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } => {
            visitor.visit_buffer_def(buffer);
            for (_, value) in annotations {
                walk_attr_value(visitor, value);
            }
            visitor.visit_stmt(body);
        }
        StmtKind::AttrStmt(attr) => {
            if let AttrNode::Buffer(buffer) = &attr.node {
                visitor.visit_buffer_use(buffer);
            }
            visitor.visit_expr(&attr.value);
            visitor.visit_stmt(&attr.body);
        }
        StmtKind::Assert {
            condition,
            message,
            body,
            ..
        } => {
            visitor.visit_expr(condition);
            for part in message {
                visitor.visit_expr(part);
            }
            visitor.visit_stmt(body);
        }
        StmtKind::While { condition, body } => {
            visitor.visit_expr(condition);
            visitor.visit_stmt(body);
        }
    }
}

/// Visits the contents of a block: domains, regions, buffers, init and body.
pub fn walk_block<V: Visitor + ?Sized>(visitor: &mut V, block: &Block) {
    for iter_var in &block.iter_vars {
        visitor.visit_range(&iter_var.dom);
    }
    for buffer in &block.alloc_buffers {
        visitor.visit_buffer_def(buffer);
    }
    for matched in &block.match_buffers {
        visitor.visit_buffer_region(&matched.source);
        visitor.visit_buffer_def(&matched.buffer);
    }
    for region in block.reads.iter().chain(&block.writes) {
        visitor.visit_buffer_region(region);
    }
    for (_, value) in &block.annotations {
        walk_attr_value(visitor, value);
    }
    if let Some(init) = &block.init {
        visitor.visit_stmt(init);
    }
    visitor.visit_stmt(&block.body);
}

fn walk_attr_value<V: Visitor + ?Sized>(visitor: &mut V, value: &AttrValue) {
    match value {
        AttrValue::Expr(expr) => visitor.visit_expr(expr),
        AttrValue::List(items) => items.iter().for_each(|v| walk_attr_value(visitor, v)),
        AttrValue::Dict(items) | AttrValue::Target(items) => {
            items.iter().for_each(|(_, v)| walk_attr_value(visitor, v))
        }
        AttrValue::Str(_)
        | AttrValue::None
        | AttrValue::Int(_)
        | AttrValue::Float(_)
        | AttrValue::Bool(_) => {}
    }
}

/// Visits the operands of an expression.
pub fn walk_expr<V: Visitor + ?Sized>(visitor: &mut V, expr: &Expr) {
    match expr.kind() {
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {}
        ExprKind::Cast(value) | ExprKind::Not(value) => visitor.visit_expr(value),
        ExprKind::Binary(_, a, b) => {
            visitor.visit_expr(a);
            visitor.visit_expr(b);
        }
        ExprKind::Select(c, a, b) => {
            visitor.visit_expr(c);
            visitor.visit_expr(a);
            visitor.visit_expr(b);
        }
        ExprKind::Load(load) => {
            visitor.visit_buffer_use(&load.buffer);
            for index in &load.indices {
                visitor.visit_expr(index);
            }
        }
        ExprKind::Ramp { base, stride, .. } => {
            visitor.visit_expr(base);
            visitor.visit_expr(stride);
        }
        ExprKind::Broadcast { value, .. } => visitor.visit_expr(value),
        ExprKind::Let { value, body, .. } => {
            visitor.visit_expr(value);
            visitor.visit_expr(body);
        }
        ExprKind::Call { args, .. } | ExprKind::CallFunction { args, .. } => {
            for arg in args {
                visitor.visit_expr(arg);
            }
        }
        ExprKind::Shuffle { vectors, indices } => {
            for e in vectors.iter().chain(indices) {
                visitor.visit_expr(e);
            }
        }
    }
}

struct StmtClosure<'f, F: FnMut(&Stmt)>(&'f mut F);

impl<F: FnMut(&Stmt)> Visitor for StmtClosure<'_, F> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        (self.0)(stmt);
        walk_stmt(self, stmt);
    }
    fn visit_expr(&mut self, _expr: &Expr) {}
}

/// Calls `f` on every statement under `stmt` (itself included), parents first.
pub fn walk_stmts(stmt: &Stmt, f: &mut impl FnMut(&Stmt)) {
    StmtClosure(f).visit_stmt(stmt);
}

struct ExprClosure<'f, F: FnMut(&Expr)>(&'f mut F);

impl<F: FnMut(&Expr)> Visitor for ExprClosure<'_, F> {
    fn visit_expr(&mut self, expr: &Expr) {
        (self.0)(expr);
        walk_expr(self, expr);
    }
}

/// Calls `f` on every expression and sub-expression under `stmt`, parents first.
pub fn walk_exprs_in_stmt(stmt: &Stmt, f: &mut impl FnMut(&Expr)) {
    ExprClosure(f).visit_stmt(stmt);
}

/// Calls `f` on `expr` and every sub-expression, parents first.
pub fn walk_exprs(expr: &Expr, f: &mut impl FnMut(&Expr)) {
    ExprClosure(f).visit_expr(expr);
}

/// True when `expr` mentions a variable for which `pred` holds.
pub fn expr_uses_var(expr: &Expr, pred: &mut impl FnMut(&super::Var) -> bool) -> bool {
    let mut found = false;
    walk_exprs(expr, &mut |e| {
        if let ExprKind::Var(v) = e.kind() {
            if pred(v) {
                found = true;
            }
        }
    });
    found
}
