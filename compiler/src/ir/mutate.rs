//! Rewriting of statements and expressions that shares every unchanged subtree.
//!
//! Implement [`Mutator`] and override the hooks you need; the `mutate_*_children`
//! functions rebuild a node only when one of its children changed, so a
//! rewrite that touches nothing returns the very same nodes.

use super::buffer::Buffer;
use super::expr::{BufferLoad, Expr, ExprKind, Range};
use super::identity::VarMap;
use super::stmt::{
    Allocate, AttrNode, AttrStmt, Block, BlockRealize, BufferRegion, BufferStore, For, IterVar,
    MatchBufferRegion, Stmt, StmtKind,
};

/// A rewrite; every method defaults to rewriting the children.
pub trait Mutator {
    /// Rewrites an expression.
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        mutate_expr_children(self, expr)
    }
    /// Rewrites a statement.
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        mutate_stmt_children(self, stmt)
    }
    /// Rewrites a block (inside a block realize).
    fn mutate_block(&mut self, block: &Block) -> Block {
        mutate_block_children(self, block)
    }
    /// Rewrites a buffer where it is used (loads, stores, regions). Defaults to itself.
    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        buffer.clone()
    }
}

fn mutate_all<M: Mutator + ?Sized>(mutator: &mut M, exprs: &[Expr]) -> (Vec<Expr>, bool) {
    let mut changed = false;
    let new: Vec<Expr> = exprs
        .iter()
        .map(|e| {
            let n = mutator.mutate_expr(e);
            changed |= !n.same_as(e);
            n
        })
        .collect();
    (new, changed)
}

fn mutate_range<M: Mutator + ?Sized>(mutator: &mut M, range: &Range) -> (Range, bool) {
    let min = mutator.mutate_expr(&range.min);
    let extent = mutator.mutate_expr(&range.extent);
    let changed = !min.same_as(&range.min) || !extent.same_as(&range.extent);
    (Range { min, extent }, changed)
}

/// Rewrites a buffer region's buffer and ranges.
pub fn mutate_region<M: Mutator + ?Sized>(mutator: &mut M, region: &BufferRegion) -> BufferRegion {
    BufferRegion {
        buffer: mutator.mutate_buffer(&region.buffer),
        region: region
            .region
            .iter()
            .map(|r| mutate_range(mutator, r).0)
            .collect(),
    }
}

/// Rebuilds an expression from its rewritten operands (the same node when none changed).
pub fn mutate_expr_children<M: Mutator + ?Sized>(mutator: &mut M, expr: &Expr) -> Expr {
    let rebuild = |kind: ExprKind| Expr::new(kind, expr.dtype(), expr.span());
    match expr.kind() {
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => expr.clone(),
        ExprKind::Cast(value) => {
            let v = mutator.mutate_expr(value);
            if v.same_as(value) {
                expr.clone()
            } else {
                rebuild(ExprKind::Cast(v))
            }
        }
        ExprKind::Not(value) => {
            let v = mutator.mutate_expr(value);
            if v.same_as(value) {
                expr.clone()
            } else {
                rebuild(ExprKind::Not(v))
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (na, nb) = (mutator.mutate_expr(a), mutator.mutate_expr(b));
            if na.same_as(a) && nb.same_as(b) {
                expr.clone()
            } else {
                rebuild(ExprKind::Binary(*op, na, nb))
            }
        }
        ExprKind::Select(c, a, b) => {
            let (nc, na, nb) = (
                mutator.mutate_expr(c),
                mutator.mutate_expr(a),
                mutator.mutate_expr(b),
            );
            if nc.same_as(c) && na.same_as(a) && nb.same_as(b) {
                expr.clone()
            } else {
                rebuild(ExprKind::Select(nc, na, nb))
            }
        }
        ExprKind::Load(load) => {
            let buffer = mutator.mutate_buffer(&load.buffer);
            let (indices, changed) = mutate_all(mutator, &load.indices);
            if !changed && buffer == load.buffer {
                expr.clone()
            } else {
                let lanes = expr.dtype().lanes / load.buffer.dtype().lanes.max(1);
                let dtype = buffer
                    .dtype()
                    .with_lanes(buffer.dtype().lanes * lanes.max(1));
                Expr::new(
                    ExprKind::Load(BufferLoad { buffer, indices }),
                    dtype,
                    expr.span(),
                )
            }
        }
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } => {
            let (nb, ns) = (mutator.mutate_expr(base), mutator.mutate_expr(stride));
            if nb.same_as(base) && ns.same_as(stride) {
                expr.clone()
            } else {
                rebuild(ExprKind::Ramp {
                    base: nb,
                    stride: ns,
                    lanes: *lanes,
                })
            }
        }
        ExprKind::Broadcast { value, lanes } => {
            let v = mutator.mutate_expr(value);
            if v.same_as(value) {
                expr.clone()
            } else {
                rebuild(ExprKind::Broadcast {
                    value: v,
                    lanes: *lanes,
                })
            }
        }
        ExprKind::Let { var, value, body } => {
            let (nv, nb) = (mutator.mutate_expr(value), mutator.mutate_expr(body));
            if nv.same_as(value) && nb.same_as(body) {
                expr.clone()
            } else {
                Expr::new(
                    ExprKind::Let {
                        var: var.clone(),
                        value: nv,
                        body: nb.clone(),
                    },
                    nb.dtype(),
                    expr.span(),
                )
            }
        }
        ExprKind::Call { op, args } => {
            let (args, changed) = mutate_all(mutator, args);
            if changed {
                rebuild(ExprKind::Call { op: *op, args })
            } else {
                expr.clone()
            }
        }
        ExprKind::CallFunction { name, args } => {
            let (args, changed) = mutate_all(mutator, args);
            if changed {
                rebuild(ExprKind::CallFunction {
                    name: name.clone(),
                    args,
                })
            } else {
                expr.clone()
            }
        }
        ExprKind::Shuffle { vectors, indices } => {
            let (vectors, changed_v) = mutate_all(mutator, vectors);
            let (indices, changed_i) = mutate_all(mutator, indices);
            if changed_v || changed_i {
                rebuild(ExprKind::Shuffle { vectors, indices })
            } else {
                expr.clone()
            }
        }
    }
}

/// Rebuilds a block from its rewritten parts.
pub fn mutate_block_children<M: Mutator + ?Sized>(mutator: &mut M, block: &Block) -> Block {
    Block {
        id: block.id,
        name: block.name.clone(),
        iter_vars: block
            .iter_vars
            .iter()
            .map(|iv| IterVar {
                var: iv.var.clone(),
                dom: mutate_range(mutator, &iv.dom).0,
                kind: iv.kind,
            })
            .collect(),
        reads: block
            .reads
            .iter()
            .map(|r| mutate_region(mutator, r))
            .collect(),
        writes: block
            .writes
            .iter()
            .map(|r| mutate_region(mutator, r))
            .collect(),
        init: block.init.as_ref().map(|s| mutator.mutate_stmt(s)),
        alloc_buffers: block.alloc_buffers.clone(),
        match_buffers: block
            .match_buffers
            .iter()
            .map(|m| MatchBufferRegion {
                buffer: m.buffer.clone(),
                source: mutate_region(mutator, &m.source),
            })
            .collect(),
        annotations: block.annotations.clone(),
        body: mutator.mutate_stmt(&block.body),
    }
}

/// Rebuilds a statement from its rewritten children (the same node when none changed).
pub fn mutate_stmt_children<M: Mutator + ?Sized>(mutator: &mut M, stmt: &Stmt) -> Stmt {
    let kind = match stmt.kind() {
        StmtKind::For(f) => {
            let min = mutator.mutate_expr(&f.min);
            let extent = mutator.mutate_expr(&f.extent);
            let body = mutator.mutate_stmt(&f.body);
            if min.same_as(&f.min) && extent.same_as(&f.extent) && body.same_as(&f.body) {
                return stmt.clone();
            }
            StmtKind::For(For {
                min,
                extent,
                body,
                ..f.clone()
            })
        }
        StmtKind::BlockRealize(realize) => {
            let (iter_values, _) = mutate_all(mutator, &realize.iter_values);
            let predicate = mutator.mutate_expr(&realize.predicate);
            let block = mutator.mutate_block(&realize.block);
            StmtKind::BlockRealize(BlockRealize {
                iter_values,
                predicate,
                block,
            })
        }
        StmtKind::BufferStore(store) => {
            let buffer = mutator.mutate_buffer(&store.buffer);
            let value = mutator.mutate_expr(&store.value);
            let (indices, changed) = mutate_all(mutator, &store.indices);
            if !changed && buffer == store.buffer && value.same_as(&store.value) {
                return stmt.clone();
            }
            StmtKind::BufferStore(BufferStore {
                buffer,
                value,
                indices,
            })
        }
        StmtKind::Seq(stmts) => {
            let mut changed = false;
            let new: Vec<Stmt> = stmts
                .iter()
                .map(|s| {
                    let n = mutator.mutate_stmt(s);
                    changed |= !n.same_as(s);
                    n
                })
                .collect();
            if !changed {
                return stmt.clone();
            }
            StmtKind::Seq(new)
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } => StmtKind::IfThenElse {
            condition: mutator.mutate_expr(condition),
            then_case: mutator.mutate_stmt(then_case),
            else_case: else_case.as_ref().map(|s| mutator.mutate_stmt(s)),
        },
        StmtKind::LetStmt { var, value, body } => StmtKind::LetStmt {
            var: var.clone(),
            value: mutator.mutate_expr(value),
            body: mutator.mutate_stmt(body),
        },
        StmtKind::Evaluate(value) => {
            let v = mutator.mutate_expr(value);
            if v.same_as(value) {
                return stmt.clone();
            }
            StmtKind::Evaluate(v)
        }
        StmtKind::Allocate(allocate) => StmtKind::Allocate(Allocate {
            extents: mutate_all(mutator, &allocate.extents).0,
            condition: mutator.mutate_expr(&allocate.condition),
            body: mutator.mutate_stmt(&allocate.body),
            ..allocate.clone()
        }),
        StmtKind::DeclBuffer { buffer, body } => StmtKind::DeclBuffer {
            buffer: buffer.clone(),
            body: mutator.mutate_stmt(body),
        },
        StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } => StmtKind::AllocBuffer {
            buffer: buffer.clone(),
            annotations: annotations.clone(),
            body: mutator.mutate_stmt(body),
        },
        StmtKind::AttrStmt(attr) => StmtKind::AttrStmt(AttrStmt {
            node: match &attr.node {
                AttrNode::Buffer(b) => AttrNode::Buffer(mutator.mutate_buffer(b)),
                other => other.clone(),
            },
            key: attr.key.clone(),
            value: mutator.mutate_expr(&attr.value),
            body: mutator.mutate_stmt(&attr.body),
        }),
        StmtKind::Assert {
            condition,
            error_kind,
            message,
            body,
        } => StmtKind::Assert {
            condition: mutator.mutate_expr(condition),
            error_kind: error_kind.clone(),
            message: mutate_all(mutator, message).0,
            body: mutator.mutate_stmt(body),
        },
        StmtKind::While { condition, body } => StmtKind::While {
            condition: mutator.mutate_expr(condition),
            body: mutator.mutate_stmt(body),
        },
    };
    Stmt::new(kind, stmt.span())
}

/// Replaces variables by expressions.
pub struct Substitute<'m> {
    map: &'m VarMap<Expr>,
}

impl Mutator for Substitute<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Var(var) = expr.kind() {
            if let Some(replacement) = self.map.get(var) {
                return replacement.clone();
            }
            return expr.clone();
        }
        mutate_expr_children(self, expr)
    }
}

/// `expr` with each variable in `map` replaced by its expression.
pub fn substitute(expr: &Expr, map: &VarMap<Expr>) -> Expr {
    if map.is_empty() {
        return expr.clone();
    }
    Substitute { map }.mutate_expr(expr)
}

/// `stmt` with each variable in `map` replaced by its expression.
pub fn substitute_stmt(stmt: &Stmt, map: &VarMap<Expr>) -> Stmt {
    if map.is_empty() {
        return stmt.clone();
    }
    Substitute { map }.mutate_stmt(stmt)
}

/// `expr` rewritten bottom-up: `rewrite` sees each node after its children
/// were rewritten (the shape of most single-rule rewrites).
pub fn rewrite_post_order(expr: &Expr, rewrite: impl FnMut(Expr) -> Expr) -> Expr {
    PostOrder { rewrite }.mutate_expr(expr)
}

struct PostOrder<F> {
    rewrite: F,
}

impl<F: FnMut(Expr) -> Expr> Mutator for PostOrder<F> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rebuilt = mutate_expr_children(self, expr);
        (self.rewrite)(rebuilt)
    }
}
