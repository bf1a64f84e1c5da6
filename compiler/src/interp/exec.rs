//! Statement execution: loops, blocks, stores, control flow, allocations,
//! buffer declarations, attributes (thread launches) and assertions.
//!
//! Everything runs sequentially in program order: parallel, vectorized,
//! unrolled and thread-bound loops, and launched threads, iterate like serial
//! loops. That is TensorIR's meaning for block-level programs; for lowered
//! GPU code it is right until threads meet at a barrier, so the threads of a
//! block whose body has a barrier run in lock step instead (see `collective`).
//!
//! An error ends the run, so scopes restore their bindings only on success.

use super::error::{InterpError, InterpResult};
use super::machine::{Interpreter, SavedBinding};
use super::value::Value;
use crate::ir::{
    Allocate, AttrNode, AttrStmt, BlockRealize, Expr, ExprKind, For, ForKind, IterKind, Stmt,
    StmtKind, Var,
};

/// True for thread tags whose threads share a block (and its barriers).
fn is_thread_in_block(tag: &str) -> bool {
    tag.starts_with("threadIdx")
}

impl Interpreter<'_> {
    /// Runs `stmt`; an error carries the span of the innermost node at
    /// fault that has one.
    pub fn exec(&mut self, stmt: &Stmt) -> InterpResult<()> {
        self.count_step(stmt.span())?;
        self.exec_kind(stmt)
            .map_err(|error| error.or_at(stmt.span()))
    }

    fn exec_kind(&mut self, stmt: &Stmt) -> InterpResult<()> {
        match stmt.kind() {
            StmtKind::For(for_loop) => self.exec_for(for_loop),
            StmtKind::BlockRealize(realize) => self.exec_block_realize(realize),
            StmtKind::BufferStore(store) => {
                let value = self.eval(&store.value)?;
                self.store(&store.buffer, &store.indices, &value)
            }
            StmtKind::Seq(stmts) => {
                for stmt in stmts {
                    self.exec(stmt)?;
                }
                Ok(())
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if self.eval_condition(condition)? {
                    self.exec(then_case)
                } else if let Some(else_case) = else_case {
                    self.exec(else_case)
                } else {
                    Ok(())
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.eval(value)?;
                let saved = self.bind(var, value);
                self.exec(body)?;
                self.restore(saved);
                Ok(())
            }
            StmtKind::Evaluate(value) => {
                // A constant is the no-op statement; anything else runs for
                // its effect (or its error) and the value is dropped.
                if !value.is_const() {
                    self.eval(value)?;
                }
                Ok(())
            }
            StmtKind::Allocate(allocate) => self.exec_allocate(allocate),
            StmtKind::DeclBuffer { buffer, body } => {
                if self.is_bound(buffer.data()) {
                    // A view of storage that already exists (`data=` an
                    // allocation's or a parameter's pointer).
                    return self.exec(body);
                }
                let (saved, handle) = self.allocate_buffer(buffer)?;
                self.exec(body)?;
                self.memory.release(handle);
                self.restore(saved);
                Ok(())
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                let (saved, handle) = self.allocate_buffer(buffer)?;
                self.exec(body)?;
                self.memory.release(handle);
                self.restore(saved);
                Ok(())
            }
            StmtKind::AttrStmt(attr) => self.exec_attr(attr),
            StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            } => {
                if !self.eval_condition(condition)? {
                    let text = self.assertion_message(error_kind, message);
                    return Err(InterpError::at(text, condition.span()));
                }
                self.exec(body)
            }
            StmtKind::While { condition, body } => {
                while self.eval_condition(condition)? {
                    self.exec(body)?;
                }
                Ok(())
            }
        }
    }

    /// The text of a failed assertion: its error kind and its message parts
    /// joined, parts that are not strings evaluated (or printed, when they
    /// cannot be).
    pub(super) fn assertion_message(&mut self, error_kind: &str, message: &[Expr]) -> String {
        let mut text = String::new();
        for part in message {
            match part.kind() {
                ExprKind::Str(part) => text.push_str(part),
                _ => match self.eval(part) {
                    Ok(value) => text.push_str(&value.to_string()),
                    Err(_) => text.push_str(&part.to_string()),
                },
            }
        }
        if error_kind.is_empty() {
            format!("assertion failed: {text}")
        } else {
            format!("assertion failed: {error_kind}: {text}")
        }
    }

    /// The truth of a scalar condition.
    fn eval_condition(&mut self, condition: &Expr) -> InterpResult<bool> {
        self.eval(condition)?
            .as_bool()
            .map_err(|error| error.or_at(condition.span()))
    }

    /// Runs `body` once for each value of `var` in `[min, min + extent)`.
    fn iterate(&mut self, var: &Var, min: i64, extent: i64, body: &Stmt) -> InterpResult<()> {
        let mut saved: Option<SavedBinding> = None;
        for step in 0..extent.max(0) {
            let index = min.checked_add(step).ok_or_else(|| {
                InterpError::new(format!("loop variable `{}` overflows 64 bits", var.name()))
            })?;
            let binding = self.bind(var, Value::int(var.dtype(), index)?);
            saved.get_or_insert(binding);
            self.exec(body)?;
        }
        if let Some(saved) = saved {
            self.restore(saved);
        }
        Ok(())
    }

    /// Runs `body` as the threads of a dimension: together when they meet
    /// at a barrier, else one after another (counting the threads of a block
    /// so that a barrier met there anyway is refused).
    fn iterate_threads(
        &mut self,
        var: &Var,
        tag: &str,
        min: i64,
        extent: i64,
        body: &Stmt,
    ) -> InterpResult<()> {
        // A `threadIdx.x` loop names the lane of the warp builtins inside it.
        let is_lane = tag == "threadIdx.x";
        if is_lane {
            self.lane_loops.push(var.clone());
        }
        let result = if is_thread_in_block(tag) && extent > 1 && self.contains_barrier(body) {
            self.run_threads_together(var, min, extent, body)
        } else {
            let outer_threads = self.threads_per_block;
            if is_thread_in_block(tag) {
                self.threads_per_block = outer_threads.saturating_mul(extent.max(1) as u64);
            }
            let result = self.iterate(var, min, extent, body);
            self.threads_per_block = outer_threads;
            result
        };
        if is_lane {
            self.lane_loops.pop();
        }
        result
    }

    fn exec_for(&mut self, for_loop: &For) -> InterpResult<()> {
        let min = self.eval_i64(&for_loop.min)?;
        let extent = self.eval_i64(&for_loop.extent)?;
        match (for_loop.kind, &for_loop.thread) {
            (ForKind::ThreadBinding, Some(tag)) => {
                self.iterate_threads(&for_loop.loop_var, tag, min, extent, &for_loop.body)
            }
            _ => self.iterate(&for_loop.loop_var, min, extent, &for_loop.body),
        }
    }

    /// A block: bind its iteration variables, check them against their
    /// domains, skip it where the predicate is false, allocate its buffers,
    /// bind its matched buffers, run `init` at the first iteration of every
    /// reduction axis, then the body.
    fn exec_block_realize(&mut self, realize: &BlockRealize) -> InterpResult<()> {
        let block = &realize.block;
        if realize.iter_values.len() != block.iter_vars.len() {
            return Err(InterpError::new(format!(
                "block `{}` has {} iteration variables but {} bindings",
                block.name,
                block.iter_vars.len(),
                realize.iter_values.len()
            )));
        }
        if !self.eval_condition(&realize.predicate)? {
            return Ok(());
        }
        let mut saved = Vec::with_capacity(block.iter_vars.len());
        let mut every_reduction_at_start = true;
        let mut values = Vec::with_capacity(block.iter_vars.len());
        for binding in &realize.iter_values {
            values.push(self.eval(binding)?);
        }
        for (iter_var, value) in block.iter_vars.iter().zip(values) {
            let index = value.as_i64()?;
            let min = self.eval_i64(&iter_var.dom.min)?;
            let extent = self.eval_i64(&iter_var.dom.extent)?;
            if index < min || index - min >= extent {
                return Err(InterpError::at(
                    format!(
                        "block `{}`: iteration variable `{}` is bound to {index}, outside its domain [{min}, {})",
                        block.name,
                        iter_var.var.name(),
                        min.saturating_add(extent)
                    ),
                    iter_var.var.span(),
                ));
            }
            if iter_var.kind == IterKind::Reduce && index != min {
                every_reduction_at_start = false;
            }
            saved.push(self.bind(&iter_var.var, value.cast(iter_var.var.dtype())?));
        }
        let mut allocations = Vec::with_capacity(block.alloc_buffers.len());
        for buffer in &block.alloc_buffers {
            let (binding, handle) = self
                .allocate_buffer(buffer)
                .map_err(|error| error.or_at(buffer.span()))?;
            saved.push(binding);
            allocations.push(handle);
        }
        let mut saved_views = Vec::with_capacity(block.match_buffers.len());
        for matched in &block.match_buffers {
            let (bindings, view) = self
                .bind_match_buffer(matched)
                .map_err(|error| error.or_at(matched.buffer.span()))?;
            saved.extend(bindings);
            saved_views.push(view);
        }
        if let Some(init) = &block.init {
            if every_reduction_at_start {
                self.exec(init)?;
            }
        }
        self.exec(&block.body)?;
        for handle in allocations {
            self.memory.release(handle);
        }
        for (buffer, previous) in saved_views.into_iter().rev() {
            match previous {
                Some(view) => self.buffer_views.insert(buffer, view),
                None => self.buffer_views.remove(&buffer),
            };
        }
        self.restore_all(saved);
        Ok(())
    }

    fn exec_allocate(&mut self, allocate: &Allocate) -> InterpResult<()> {
        let extents = allocate
            .extents
            .iter()
            .map(|extent| self.eval_i64(extent))
            .collect::<InterpResult<Vec<i64>>>()?;
        let name = allocate.buffer_var.name().to_string();
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
                InterpError::new(format!(
                    "allocation `{name}` has extents {extents:?}, which is no size"
                ))
            })?;
        if !self.eval_condition(&allocate.condition)? {
            let saved = self.bind(&allocate.buffer_var, Value::handle(0));
            self.exec(&allocate.body)?;
            self.restore(saved);
            return Ok(());
        }
        let handle = self.memory.allocate(
            &name,
            size,
            self.options.uninitialized,
            self.options.memory_limit,
        )?;
        let saved = self.bind(&allocate.buffer_var, Value::handle(handle));
        self.exec(&allocate.body)?;
        self.memory.release(handle);
        self.restore(saved);
        Ok(())
    }

    fn exec_attr(&mut self, attr: &AttrStmt) -> InterpResult<()> {
        if attr.key != "thread_extent" && attr.key != "virtual_thread" {
            // Pragmas, storage alignment and the like say how to compile,
            // not what to compute.
            return self.exec(&attr.body);
        }
        let (var, tag) = match &attr.node {
            AttrNode::Thread { var, tag } => (var, tag.as_str()),
            AttrNode::Var(var) => (var, var.name()),
            _ => {
                return Err(InterpError::new(format!(
                    "`{}` attribute without a thread variable",
                    attr.key
                )))
            }
        };
        let extent = self.eval_i64(&attr.value)?;
        self.iterate_threads(var, tag, 0, extent, &attr.body)
    }
}
