//! Running the threads of a GPU block together, so that barriers
//! (`T.tvm_storage_sync`) in lowered GPU code hold.
//!
//! A launch of `threadIdx` threads whose body contains a barrier is run in
//! lock step instead of one thread after another: every thread has its own
//! variable bindings, each statement free of barriers runs for every thread
//! in turn, and statements that contain a barrier are walked together. The
//! loops, conditions and `let`s around a barrier must agree across threads,
//! as CUDA requires of `__syncthreads()`; a barrier in divergent code is an
//! error. Allocations in `shared` memory made while the threads run together
//! are made once for the block; `local` ones once per thread.

use super::error::{InterpError, InterpResult};
use super::machine::{Bindings, Interpreter};
use super::value::Value;
use crate::ir::visit::walk_exprs_in_stmt;
use crate::ir::{AttrNode, Buffer, Expr, ExprKind, Stmt, StmtKind, Var};
use std::fmt::Display;

/// True for a call of the block barrier.
fn is_barrier(expr: &Expr) -> bool {
    matches!(expr.kind(), ExprKind::Call { op, .. } if op.name() == "tvm_storage_sync")
}

/// True for storage every thread has its own copy of.
fn is_thread_local_scope(scope: &str) -> bool {
    scope.starts_with("local") || scope == "warp" || scope.starts_with("wmma.")
}

/// The one value all threads computed, or an error naming what diverged.
fn uniform<T: PartialEq + Display>(values: Vec<T>, what: &str) -> InterpResult<T> {
    let mut values = values.into_iter();
    let Some(first) = values.next() else {
        return Err(InterpError::new(format!("{what} with no threads")));
    };
    for other in values {
        if other != first {
            return Err(InterpError::new(format!(
                "{what} differs between the threads of a block ({first} and {other}), \
                 but a barrier inside it needs every thread to reach it"
            )));
        }
    }
    Ok(first)
}

impl Interpreter<'_> {
    /// True when a barrier is called anywhere inside `stmt`.
    pub(super) fn contains_barrier(&mut self, stmt: &Stmt) -> bool {
        let key = stmt.kind() as *const StmtKind as usize;
        if let Some(known) = self.barrier_cache.get(&key) {
            return *known;
        }
        let mut found = false;
        walk_exprs_in_stmt(stmt, &mut |expr| found |= is_barrier(expr));
        self.barrier_cache.insert(key, found);
        found
    }

    /// Runs `body` for the threads `min..min + extent` of `var` together.
    pub(super) fn run_threads_together(
        &mut self,
        var: &Var,
        min: i64,
        extent: i64,
        body: &Stmt,
    ) -> InterpResult<()> {
        let mut threads = Vec::with_capacity(extent.max(0) as usize);
        for index in 0..extent.max(0) {
            let mut thread = self.bindings.clone();
            thread.insert(
                var.id(),
                Value::int(var.dtype(), min.saturating_add(index))?,
            );
            threads.push(thread);
        }
        self.run_together(body, &mut threads)
    }

    /// Runs `f` once as each thread and collects the results.
    fn as_each_thread<T>(
        &mut self,
        threads: &mut [Bindings],
        mut f: impl FnMut(&mut Self) -> InterpResult<T>,
    ) -> InterpResult<Vec<T>> {
        let mut results = Vec::with_capacity(threads.len());
        for thread in threads.iter_mut() {
            std::mem::swap(&mut self.bindings, thread);
            let result = f(self);
            std::mem::swap(&mut self.bindings, thread);
            results.push(result?);
        }
        Ok(results)
    }

    fn uniform_i64(
        &mut self,
        threads: &mut [Bindings],
        expr: &Expr,
        what: &str,
    ) -> InterpResult<i64> {
        let values = self.as_each_thread(threads, |this| this.eval_i64(expr))?;
        uniform(values, what)
    }

    fn uniform_condition(
        &mut self,
        threads: &mut [Bindings],
        condition: &Expr,
        what: &str,
    ) -> InterpResult<bool> {
        let values = self.as_each_thread(threads, |this| this.eval(condition)?.as_bool())?;
        uniform(values, what)
    }

    fn bind_in_each(threads: &mut [Bindings], var: &Var, value: &Value) {
        for thread in threads.iter_mut() {
            thread.insert(var.id(), value.clone());
        }
    }

    /// Runs `stmt` as every thread of `threads`, keeping them in step at
    /// each barrier.
    fn run_together(&mut self, stmt: &Stmt, threads: &mut [Bindings]) -> InterpResult<()> {
        if threads.is_empty() {
            return Ok(());
        }
        if !self.contains_barrier(stmt) {
            self.as_each_thread(threads, |this| this.exec(stmt))?;
            return Ok(());
        }
        self.count_step(stmt.span())?;
        self.run_together_kind(stmt, threads)
            .map_err(|error| error.or_at(stmt.span()))
    }

    fn run_together_kind(&mut self, stmt: &Stmt, threads: &mut [Bindings]) -> InterpResult<()> {
        match stmt.kind() {
            StmtKind::Seq(stmts) => {
                for stmt in stmts {
                    self.run_together(stmt, threads)?;
                }
                Ok(())
            }
            // Every thread has arrived: the barrier is kept.
            StmtKind::Evaluate(value) if is_barrier(value) => Ok(()),
            StmtKind::For(for_loop) => {
                let min = self.uniform_i64(threads, &for_loop.min, "the start of a loop")?;
                let extent = self.uniform_i64(threads, &for_loop.extent, "the extent of a loop")?;
                let var = &for_loop.loop_var;
                for step in 0..extent.max(0) {
                    let index = min.checked_add(step).ok_or_else(|| {
                        InterpError::new(format!("loop variable `{}` overflows", var.name()))
                    })?;
                    Self::bind_in_each(threads, var, &Value::int(var.dtype(), index)?);
                    self.run_together(&for_loop.body, threads)?;
                }
                Ok(())
            }
            StmtKind::While { condition, body } => {
                while self.uniform_condition(threads, condition, "the condition of a while loop")? {
                    self.run_together(body, threads)?;
                }
                Ok(())
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if self.uniform_condition(threads, condition, "the condition of an if")? {
                    self.run_together(then_case, threads)
                } else if let Some(else_case) = else_case {
                    self.run_together(else_case, threads)
                } else {
                    Ok(())
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                let values = self.as_each_thread(threads, |this| this.eval(value))?;
                for (thread, value) in threads.iter_mut().zip(values) {
                    thread.insert(var.id(), value);
                }
                self.run_together(body, threads)
            }
            StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            } => {
                let holds = self.as_each_thread(threads, |this| this.eval(condition)?.as_bool())?;
                if holds.contains(&false) {
                    let text = self.assertion_message(error_kind, message);
                    return Err(InterpError::at(text, condition.span()));
                }
                self.run_together(body, threads)
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                let handles = self.allocate_for_threads(buffer, threads)?;
                self.run_together(body, threads)?;
                for handle in handles {
                    self.memory.release(handle);
                }
                Ok(())
            }
            StmtKind::AttrStmt(attr)
                if attr.key == "thread_extent" || attr.key == "virtual_thread" =>
            {
                let var = match &attr.node {
                    AttrNode::Thread { var, .. } | AttrNode::Var(var) => var,
                    _ => {
                        return Err(InterpError::new(format!(
                            "`{}` attribute without a thread variable",
                            attr.key
                        )))
                    }
                };
                let extent = self.uniform_i64(threads, &attr.value, "a thread extent")?;
                // Every thread of the new dimension joins the ones running.
                let mut expanded = Vec::with_capacity(threads.len() * extent.max(0) as usize);
                for thread in threads.iter() {
                    for index in 0..extent.max(0) {
                        let mut joined = thread.clone();
                        joined.insert(var.id(), Value::int(var.dtype(), index)?);
                        expanded.push(joined);
                    }
                }
                self.run_together(&attr.body, &mut expanded)
            }
            StmtKind::AttrStmt(attr) => self.run_together(&attr.body, threads),
            StmtKind::Allocate(allocate) => {
                let extents = allocate
                    .extents
                    .iter()
                    .map(|extent| self.uniform_i64(threads, extent, "an allocation's extent"))
                    .collect::<InterpResult<Vec<i64>>>()?;
                let scope = allocate
                    .buffer_var
                    .node()
                    .pointer
                    .as_ref()
                    .map(|pointer| pointer.scope.clone())
                    .unwrap_or_default();
                let element_size = super::value::ElementType::of(allocate.dtype)?.byte_size()
                    * allocate.dtype.lanes.max(1) as usize;
                let size = extents
                    .iter()
                    .try_fold(element_size, |size, extent| {
                        usize::try_from(*extent)
                            .ok()
                            .and_then(|extent| size.checked_mul(extent))
                    })
                    .ok_or_else(|| {
                        InterpError::new(format!("allocation extents {extents:?} are no size"))
                    })?;
                let copies = if is_thread_local_scope(&scope) {
                    threads.len()
                } else {
                    1
                };
                let mut handles = Vec::with_capacity(copies);
                for _ in 0..copies {
                    handles.push(self.memory.allocate(
                        allocate.buffer_var.name(),
                        size,
                        self.options.uninitialized,
                        self.options.memory_limit,
                    )?);
                }
                for (position, thread) in threads.iter_mut().enumerate() {
                    let handle = handles[if copies == 1 { 0 } else { position }];
                    thread.insert(allocate.buffer_var.id(), Value::handle(handle));
                }
                self.run_together(&allocate.body, threads)?;
                for handle in handles {
                    self.memory.release(handle);
                }
                Ok(())
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let bound = threads
                    .first()
                    .is_some_and(|thread| thread.contains_key(&buffer.data().id()));
                if bound {
                    return self.run_together(body, threads);
                }
                let handles = self.allocate_for_threads(buffer, threads)?;
                self.run_together(body, threads)?;
                for handle in handles {
                    self.memory.release(handle);
                }
                Ok(())
            }
            StmtKind::Evaluate(_) | StmtKind::BufferStore(_) | StmtKind::BlockRealize(_) => {
                Err(InterpError::new(
                    "a barrier inside an expression or a block: the interpreter can only keep \
                     barriers that are statements of lowered code",
                ))
            }
        }
    }

    /// Storage for a declared buffer with no data yet: once for the block,
    /// or once per thread for thread-local scopes.
    fn allocate_for_threads(
        &mut self,
        buffer: &Buffer,
        threads: &mut [Bindings],
    ) -> InterpResult<Vec<u64>> {
        let per_thread = is_thread_local_scope(buffer.scope());
        let mut handles = Vec::new();
        if per_thread {
            let allocated = self.as_each_thread(threads, |this| this.allocate_buffer(buffer))?;
            handles.extend(allocated.into_iter().map(|(_, handle)| handle));
        } else {
            let Some(first) = threads.first_mut() else {
                return Ok(handles);
            };
            std::mem::swap(&mut self.bindings, first);
            let allocated = self.allocate_buffer(buffer);
            std::mem::swap(&mut self.bindings, first);
            let (_, handle) = allocated?;
            Self::bind_in_each(threads, buffer.data(), &Value::handle(handle));
            handles.push(handle);
        }
        Ok(handles)
    }
}
