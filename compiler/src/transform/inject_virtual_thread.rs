//! `inject-virtual-thread` (CUDA target): a loop bound to `vthread`
//! (`vthread.x`, `.y`, `.z`) is not a hardware thread: each thread of the
//! block runs every virtual thread.
//!
//! As TVM's InjectVirtualThread, the loop over virtual threads is pushed
//! down to the statements that depend on it: what does not mention the
//! virtual thread (the cooperative fetch of a shared tile) runs once for all
//! of them, and each statement that does runs in its own unrolled loop over
//! them. A buffer allocated under the loop and written differently by each
//! virtual thread (its part of a `local` accumulator) gets one copy per
//! virtual thread. As in TVM, a statement that does not depend on the
//! virtual thread runs once instead of once per virtual thread (so it must
//! not count them), and the rest may run in another order than virtual
//! thread after virtual thread: a TIR program may not rely on the order of a
//! bound loop's iterations, any more than on its threads'. Where a buffer
//! without a copy per virtual thread (allocated outside the loop, or shared)
//! is written per virtual thread and read back under it, or the loop does
//! not start at 0 with a constant extent, it is unrolled whole, in order.

use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, substitute_stmt, Mutator};
use crate::ir::visit::{walk_exprs, walk_stmt, Visitor};
use crate::ir::{
    BinaryOp, Buffer, BufferLoad, BufferStore, Expr, ExprKind, For, ForKind, PrimFunc, Stmt,
    StmtKind, Var,
};
use std::collections::HashSet;

/// Pushes the `vthread` loops of `func` down to the statements that use them.
pub fn inject_virtual_thread(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let body = VirtualThreads.mutate_stmt(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// True for a loop tag that names a virtual thread.
pub fn is_virtual_thread(tag: &str) -> bool {
    tag == "vthread" || tag.starts_with("vthread.")
}

struct VirtualThreads;

impl Mutator for VirtualThreads {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        // Inner virtual threads first: an outer one then goes inside their loops.
        let stmt = mutate_stmt_children(self, stmt);
        let StmtKind::For(for_loop) = stmt.kind() else {
            return stmt;
        };
        let bound_to_virtual_thread = for_loop.kind == ForKind::ThreadBinding
            && for_loop.thread.as_deref().is_some_and(is_virtual_thread);
        if !bound_to_virtual_thread {
            return stmt;
        }
        inject(for_loop, &stmt)
    }
}

/// `for_loop` (a vthread loop) pushed down into its body, or unrolled whole
/// where that would not be sound.
fn inject(for_loop: &For, stmt: &Stmt) -> Stmt {
    let unrolled_whole = || {
        let mut unrolled = for_loop.clone();
        unrolled.kind = ForKind::Unrolled;
        unrolled.thread = None;
        stmt.with_kind(StmtKind::For(unrolled))
    };
    let (Some(0), Some(extent)) = (for_loop.min.as_int(), for_loop.extent.as_int()) else {
        return unrolled_whole();
    };
    let touched = Touched::of(&for_loop.body, &for_loop.loop_var);
    let Some(expanded) = expandable_storage(&for_loop.body, &touched) else {
        return unrolled_whole();
    };
    let expanded = expanded
        .into_iter()
        .map(|(buffer, elements)| {
            let mut node = buffer.node().clone();
            node.shape = vec![Expr::int(elements * extent, node.shape[0].dtype())];
            (buffer, Buffer::from_node(node), elements)
        })
        .collect();
    let mut injector = Injector {
        for_loop,
        touched: &touched,
        expanded,
    };
    injector.push_down(&for_loop.body)
}

/// What depends on the virtual thread: its variable, variables bound to
/// values that do, and the storage of buffers written with such values (or
/// at such indices, or under such conditions), to a fixed point.
struct Touched {
    vars: HashSet<Var>,
    storage: HashSet<Var>,
}

impl Touched {
    fn of(body: &Stmt, virtual_thread: &Var) -> Touched {
        let mut touched = Touched {
            vars: HashSet::from([virtual_thread.clone()]),
            storage: HashSet::new(),
        };
        loop {
            let before = touched.vars.len() + touched.storage.len();
            touched.collect(body, false);
            if touched.vars.len() + touched.storage.len() == before {
                return touched;
            }
        }
    }

    fn expr_depends(&self, expr: &Expr) -> bool {
        let mut depends = false;
        walk_exprs(expr, &mut |e| match e.kind() {
            ExprKind::Var(var) if self.vars.contains(var) => depends = true,
            ExprKind::Load(load) if self.storage.contains(load.buffer.data()) => depends = true,
            _ => {}
        });
        depends
    }

    /// True when `stmt` mentions anything that depends on the virtual thread.
    fn stmt_depends(&self, stmt: &Stmt) -> bool {
        struct Finder<'t> {
            touched: &'t Touched,
            found: bool,
        }
        impl Visitor for Finder<'_> {
            fn visit_expr(&mut self, expr: &Expr) {
                self.found |= self.touched.expr_depends(expr);
            }
            fn visit_buffer_use(&mut self, buffer: &Buffer) {
                self.found |= self.touched.storage.contains(buffer.data());
            }
        }
        let mut finder = Finder {
            touched: self,
            found: false,
        };
        finder.visit_stmt(stmt);
        finder.found
    }

    fn collect(&mut self, stmt: &Stmt, under_dependence: bool) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                let inner = under_dependence
                    || self.expr_depends(&for_loop.min)
                    || self.expr_depends(&for_loop.extent);
                self.collect(&for_loop.body, inner);
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let inner = under_dependence || self.expr_depends(condition);
                self.collect(then_case, inner);
                if let Some(else_case) = else_case {
                    self.collect(else_case, inner);
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                // A binding that depends is wrapped whole, its body included.
                let inner = under_dependence || self.expr_depends(value);
                if inner {
                    self.vars.insert(var.clone());
                }
                self.collect(body, inner);
            }
            StmtKind::BufferStore(store) => {
                let depends = under_dependence
                    || self.expr_depends(&store.value)
                    || store.indices.iter().any(|i| self.expr_depends(i));
                if depends {
                    self.storage.insert(store.buffer.data().clone());
                }
            }
            StmtKind::Seq(statements) => {
                for statement in statements {
                    self.collect(statement, under_dependence);
                }
            }
            StmtKind::AllocBuffer { body, .. } | StmtKind::DeclBuffer { body, .. } => {
                self.collect(body, under_dependence)
            }
            StmtKind::AttrStmt(attr) => self.collect(&attr.body, under_dependence),
            // A loop the virtual threads cannot enter: when anything in it
            // depends, it runs once per virtual thread, and so does every
            // store in it (a counter of its own included).
            StmtKind::While { condition, body } => {
                let inner =
                    under_dependence || self.expr_depends(condition) || self.stmt_depends(body);
                self.collect(body, inner);
            }
            // A call may write through any buffer it is handed.
            StmtKind::Evaluate(call) if under_dependence || self.expr_depends(call) => {
                walk_exprs(call, &mut |e| match e.kind() {
                    ExprKind::Load(load) => {
                        self.storage.insert(load.buffer.data().clone());
                    }
                    ExprKind::Var(var) if var.dtype().is_handle() => {
                        self.storage.insert(var.clone());
                    }
                    _ => {}
                });
            }
            _ => {}
        }
    }

    /// True when the loop over virtual threads goes inside `stmt` rather
    /// than around it: statements in order, and loops, conditions,
    /// bindings and scopes whose own expressions do not depend on it.
    fn pushes_into(&self, stmt: &Stmt) -> bool {
        let independent = |e: &Expr| !self.expr_depends(e);
        match stmt.kind() {
            StmtKind::Seq(_) | StmtKind::AllocBuffer { .. } | StmtKind::DeclBuffer { .. } => true,
            StmtKind::For(inner) => independent(&inner.min) && independent(&inner.extent),
            StmtKind::IfThenElse { condition, .. } => independent(condition),
            StmtKind::LetStmt { value, .. } => independent(value),
            StmtKind::AttrStmt(attr) => independent(&attr.value),
            _ => false,
        }
    }
}

/// The touched storage to give a copy per virtual thread, each with its
/// elements per virtual thread: `local` and `warp` buffers allocated where
/// the loop goes past (an allocation inside a statement the loop wraps is
/// already one per virtual thread; `shared` buffers were sized for every
/// virtual thread). `None` when a touched buffer is read back under the
/// loop without a copy of its own (allocated outside, or shared), or is
/// declared under another name, and the loop must run whole, in order.
fn expandable_storage(body: &Stmt, touched: &Touched) -> Option<Vec<(Buffer, i64)>> {
    #[derive(Default)]
    struct Uses {
        allocated: Vec<Buffer>,
        declared: Vec<Buffer>,
        read: HashSet<Var>,
        other: bool,
    }
    impl Visitor for Uses {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            match stmt.kind() {
                StmtKind::AllocBuffer { buffer, .. } => self.allocated.push(buffer.clone()),
                StmtKind::DeclBuffer { buffer, .. } => self.declared.push(buffer.clone()),
                StmtKind::Allocate(_) => self.other = true,
                _ => {}
            }
            walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &Expr) {
            if let ExprKind::Load(load) = expr.kind() {
                self.read.insert(load.buffer.data().clone());
            }
            crate::ir::visit::walk_expr(self, expr);
        }
    }
    /// The allocations on the paths the loop is pushed down.
    fn passed(stmt: &Stmt, touched: &Touched, found: &mut Vec<Buffer>) {
        if !touched.stmt_depends(stmt) || !touched.pushes_into(stmt) {
            return;
        }
        match stmt.kind() {
            StmtKind::Seq(statements) => {
                for statement in statements {
                    passed(statement, touched, found);
                }
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                found.push(buffer.clone());
                passed(body, touched, found);
            }
            StmtKind::For(For { body, .. })
            | StmtKind::LetStmt { body, .. }
            | StmtKind::DeclBuffer { body, .. } => passed(body, touched, found),
            StmtKind::AttrStmt(attr) => passed(&attr.body, touched, found),
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                passed(then_case, touched, found);
                if let Some(else_case) = else_case {
                    passed(else_case, touched, found);
                }
            }
            _ => {}
        }
    }
    let mut uses = Uses::default();
    uses.visit_stmt(body);
    if uses.other {
        return None;
    }
    let mut on_the_way = Vec::new();
    passed(body, touched, &mut on_the_way);
    let mut expanded = Vec::new();
    for storage in &touched.storage {
        if uses.declared.iter().any(|b| b.data() == storage) {
            return None;
        }
        let per_thread_scope = |b: &Buffer| b.scope() == "local" || b.scope() == "warp";
        match on_the_way.iter().find(|b| b.data() == storage) {
            Some(buffer) if per_thread_scope(buffer) => {
                let [extent] = buffer.shape() else {
                    return None;
                };
                expanded.push((buffer.clone(), extent.as_int()?));
            }
            // Allocated inside a statement the loop wraps: one per iteration.
            None if uses.allocated.iter().any(|b| b.data() == storage) => {}
            _ if !uses.read.contains(storage) => {}
            _ => return None,
        }
    }
    Some(expanded)
}

struct Injector<'a> {
    for_loop: &'a For,
    touched: &'a Touched,
    /// Storage with a copy per virtual thread: the buffer as allocated, with
    /// a copy per virtual thread, and its elements per copy.
    expanded: Vec<(Buffer, Buffer, i64)>,
}

impl Injector<'_> {
    /// `stmt` with the virtual-thread loop around each part that needs it.
    fn push_down(&mut self, stmt: &Stmt) -> Stmt {
        if !self.touched.stmt_depends(stmt) {
            return stmt.clone();
        }
        if !self.touched.pushes_into(stmt) {
            return self.loop_around(stmt);
        }
        match stmt.kind() {
            StmtKind::Seq(statements) => {
                let statements = statements.iter().map(|s| self.push_down(s)).collect();
                stmt.with_kind(StmtKind::Seq(statements))
            }
            StmtKind::For(inner) => {
                let mut inner = inner.clone();
                inner.body = self.push_down(&inner.body);
                stmt.with_kind(StmtKind::For(inner))
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => stmt.with_kind(StmtKind::IfThenElse {
                condition: condition.clone(),
                then_case: self.push_down(then_case),
                else_case: else_case.as_ref().map(|s| self.push_down(s)),
            }),
            StmtKind::LetStmt { var, value, body } => stmt.with_kind(StmtKind::LetStmt {
                var: var.clone(),
                value: value.clone(),
                body: self.push_down(body),
            }),
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => {
                let buffer = self.copy_per_thread(buffer);
                stmt.with_kind(StmtKind::AllocBuffer {
                    buffer,
                    annotations: annotations.clone(),
                    body: self.push_down(body),
                })
            }
            StmtKind::DeclBuffer { buffer, body } => stmt.with_kind(StmtKind::DeclBuffer {
                buffer: buffer.clone(),
                body: self.push_down(body),
            }),
            StmtKind::AttrStmt(attr) => {
                let mut attr = attr.clone();
                attr.body = self.push_down(&attr.body);
                stmt.with_kind(StmtKind::AttrStmt(attr))
            }
            _ => self.loop_around(stmt),
        }
    }

    /// The buffer with a copy per virtual thread when it is touched.
    fn copy_per_thread(&self, buffer: &Buffer) -> Buffer {
        self.expanded
            .iter()
            .find(|(allocated, _, _)| allocated == buffer)
            .map_or_else(|| buffer.clone(), |(_, copied, _)| copied.clone())
    }

    /// An unrolled loop over the virtual threads around `stmt`, with its own
    /// loop variable and each expanded buffer indexed at its thread's copy.
    fn loop_around(&mut self, stmt: &Stmt) -> Stmt {
        let old = &self.for_loop.loop_var;
        let loop_var = Var::new(old.name(), old.dtype(), old.span());
        let mut rewrite = CopyIndexing {
            expanded: &self.expanded,
            virtual_thread: Expr::var(&loop_var),
        };
        let body = rewrite.mutate_stmt(stmt);
        let mut substitution = VarMap::default();
        substitution.insert(old.clone(), Expr::var(&loop_var));
        let body = substitute_stmt(&body, &substitution);
        let mut for_loop = self.for_loop.clone();
        for_loop.id = crate::ir::NodeId::fresh();
        for_loop.loop_var = loop_var;
        for_loop.kind = ForKind::Unrolled;
        for_loop.thread = None;
        for_loop.annotations = Default::default();
        for_loop.body = body;
        Stmt::new(StmtKind::For(for_loop), stmt.span())
    }
}

/// Accesses of expanded storage moved to the virtual thread's copy.
struct CopyIndexing<'a> {
    /// The buffer as allocated before, after, and its elements per copy.
    expanded: &'a [(Buffer, Buffer, i64)],
    virtual_thread: Expr,
}

impl CopyIndexing<'_> {
    fn moved(&self, buffer: &Buffer, indices: &[Expr]) -> Option<(Buffer, Vec<Expr>)> {
        let (_, copied, elements) = self.expanded.iter().find(|(b, _, _)| b == buffer)?;
        let [index] = indices else { return None };
        let scalar = index.dtype().with_lanes(1);
        let virtual_thread = Expr::cast(scalar, self.virtual_thread.clone());
        let offset = match elements {
            1 => virtual_thread,
            _ => Expr::binary(BinaryOp::Mul, virtual_thread, Expr::int(*elements, scalar)),
        };
        let plus = |a: &Expr, b: Expr| match a.as_int() {
            Some(0) => b,
            _ => Expr::binary(BinaryOp::Add, a.clone(), b),
        };
        let index = match index.kind() {
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => Expr::new(
                ExprKind::Ramp {
                    base: plus(base, offset),
                    stride: stride.clone(),
                    lanes: *lanes,
                },
                index.dtype(),
                index.span(),
            ),
            _ if index.dtype().lanes > 1 => {
                let lanes = index.dtype().lanes;
                let broadcast = Expr::new(
                    ExprKind::Broadcast {
                        value: offset,
                        lanes,
                    },
                    index.dtype(),
                    index.span(),
                );
                Expr::binary(BinaryOp::Add, index.clone(), broadcast)
            }
            _ => plus(index, offset),
        };
        Some((copied.clone(), vec![index]))
    }
}

impl Mutator for CopyIndexing<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let expr = mutate_expr_children(self, expr);
        if let ExprKind::Load(load) = expr.kind() {
            if let Some((buffer, indices)) = self.moved(&load.buffer, &load.indices) {
                return Expr::new(
                    ExprKind::Load(BufferLoad { buffer, indices }),
                    expr.dtype(),
                    expr.span(),
                );
            }
        }
        expr
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let stmt = mutate_stmt_children(self, stmt);
        if let StmtKind::BufferStore(store) = stmt.kind() {
            if let Some((buffer, indices)) = self.moved(&store.buffer, &store.indices) {
                return stmt.with_kind(StmtKind::BufferStore(BufferStore {
                    buffer,
                    value: store.value.clone(),
                    indices,
                }));
            }
        }
        stmt
    }
}

#[cfg(test)]
#[path = "inject_virtual_thread_tests.rs"]
mod tests;
