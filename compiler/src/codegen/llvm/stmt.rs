//! Statements: loops (with unroll metadata), conditionals, lets, stores,
//! allocations, asserts and while loops. Parallel loops are outlined in
//! `parallel`.

use super::context::{AssertInfo, Codegen, CodegenError, CodegenResult};
use super::raw;
use crate::ir::{Allocate, BinaryOp, Expr, For, ForKind, Stmt, StmtKind};
use crate::source::Span;
use inkwell::values::{BasicValueEnum, IntValue};

impl<'ctx> Codegen<'ctx> {
    /// Emits a statement at the builder's position.
    pub fn emit_stmt(&mut self, stmt: &Stmt) -> CodegenResult<()> {
        self.emit_stmt_kind(stmt)
            .map_err(|error| error.or_at(stmt.span()))
    }

    fn emit_stmt_kind(&mut self, stmt: &Stmt) -> CodegenResult<()> {
        let span = stmt.span();
        match stmt.kind() {
            StmtKind::For(for_loop) => self.emit_for(for_loop, span),
            StmtKind::BlockRealize(realize) => Err(CodegenError::unsupported(
                format!(
                    "block `{}` is still here: the LLVM backend takes lowered TIR (run `tirc lower` first)",
                    realize.block.name
                ),
                span,
            )),
            StmtKind::BufferStore(store) => self.emit_store(&store.buffer, &store.value, &store.indices, span),
            StmtKind::Seq(stmts) => {
                let outline = super::outline::outlines_each_loop(stmts);
                for stmt in stmts {
                    match stmt.kind() {
                        StmtKind::For(for_loop) if outline => self
                            .emit_outlined_for(for_loop, stmt.span())
                            .map_err(|error| error.or_at(stmt.span()))?,
                        _ => self.emit_stmt(stmt)?,
                    }
                }
                Ok(())
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => self.emit_if(condition, then_case, else_case.as_ref(), span),
            StmtKind::LetStmt { var, value, body } => {
                let bound = self.emit_expr(value)?;
                let multiple = self.known_multiple(value);
                self.bind(var, bound)?;
                self.current_mut()?.known_multiples.insert(var.clone(), multiple);
                self.emit_stmt(body)
            }
            StmtKind::Evaluate(expr) => {
                if !expr.is_const() {
                    self.emit_expr(expr)?;
                }
                Ok(())
            }
            StmtKind::Allocate(allocate) => self.emit_allocate(allocate, span),
            StmtKind::AllocBuffer { buffer, body, .. } => {
                let count = Codegen::buffer_element_count(buffer);
                let heap = self.allocate(buffer.data(), buffer.dtype(), &count, span)?;
                self.emit_stmt(body)?;
                if heap.is_some() {
                    self.free_heap()?;
                }
                Ok(())
            }
            StmtKind::DeclBuffer { buffer, body } => {
                // The alias shares its storage: its data variable must be bound.
                self.buffer_data(buffer, span)?;
                self.emit_stmt(body)
            }
            StmtKind::AttrStmt(attr) => match attr.key.as_str() {
                "thread_extent" | "virtual_thread" => Err(CodegenError::unsupported(
                    "a GPU thread launch cannot run on the CPU; build it with `--target cuda` (`tirc run --target cuda --emulate` without a GPU), or bind the loop with `parallel` instead of a GPU thread",
                    span,
                )),
                _ => self.emit_stmt(&attr.body),
            },
            StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            } => {
                let text = message
                    .iter()
                    .map(|part| match part.kind() {
                        crate::ir::ExprKind::Str(s) => s.clone(),
                        _ => part.to_string(),
                    })
                    .collect::<String>();
                self.asserts.push(AssertInfo {
                    kind: error_kind.clone(),
                    message: text,
                    span,
                });
                let number = self.asserts.len() as u64;
                let holds = self.emit_expr(condition)?;
                let holds = self.as_condition(holds, condition.span())?;
                let code = self.context.i32_type().const_int(number, false);
                self.return_code_unless(holds, code)?;
                self.emit_stmt(body)
            }
            StmtKind::While { condition, body } => {
                let header = self.append_block("while.header")?;
                let body_block = self.append_block("while.body")?;
                let exit = self.append_block("while.end")?;
                self.builder.build_unconditional_branch(header)?;
                self.builder.position_at_end(header);
                let holds = self.emit_expr(condition)?;
                let holds = self.as_condition(holds, condition.span())?;
                self.builder.build_conditional_branch(holds, body_block, exit)?;
                self.builder.position_at_end(body_block);
                self.emit_stmt(body)?;
                self.builder.build_unconditional_branch(header)?;
                self.builder.position_at_end(exit);
                Ok(())
            }
        }
    }

    /// Continues when `holds`; otherwise frees the live heap allocations and
    /// returns `code` from the function.
    pub fn return_code_unless(
        &mut self,
        holds: IntValue<'ctx>,
        code: IntValue<'ctx>,
    ) -> CodegenResult<()> {
        let fail = self.append_block("assert.fail")?;
        let pass = self.append_block("assert.pass")?;
        self.builder.build_conditional_branch(holds, pass, fail)?;
        self.builder.position_at_end(fail);
        let live: Vec<_> = self.current()?.heap_allocations.clone();
        for pointer in live.into_iter().rev() {
            self.call_free(pointer)?;
        }
        self.builder.build_return(Some(&code))?;
        self.builder.position_at_end(pass);
        Ok(())
    }

    fn emit_allocate(&mut self, allocate: &Allocate, span: Span) -> CodegenResult<()> {
        if allocate.condition.is_int(0) {
            return self.emit_stmt(&allocate.body);
        }
        let count = allocate
            .extents
            .iter()
            .cloned()
            .reduce(|a, b| {
                let b = Expr::cast(a.dtype(), b);
                Expr::binary(BinaryOp::Mul, a, b)
            })
            .unwrap_or_else(|| Expr::i32(1));
        let heap = self.allocate(&allocate.buffer_var, allocate.dtype, &count, span)?;
        self.emit_stmt(&allocate.body)?;
        if heap.is_some() {
            self.free_heap()?;
        }
        Ok(())
    }

    fn emit_if(
        &mut self,
        condition: &Expr,
        then_case: &Stmt,
        else_case: Option<&Stmt>,
        span: Span,
    ) -> CodegenResult<()> {
        let holds = self.emit_expr(condition)?;
        let holds = self.as_condition(holds, span)?;
        let then_block = self.append_block("if.then")?;
        let merge = self.append_block("if.end")?;
        let else_block = match else_case {
            Some(_) => self.append_block("if.else")?,
            None => merge,
        };
        self.builder
            .build_conditional_branch(holds, then_block, else_block)?;
        self.builder.position_at_end(then_block);
        self.emit_stmt(then_case)?;
        self.builder.build_unconditional_branch(merge)?;
        if let Some(else_case) = else_case {
            self.builder.position_at_end(else_block);
            self.emit_stmt(else_case)?;
            self.builder.build_unconditional_branch(merge)?;
        }
        self.builder.position_at_end(merge);
        Ok(())
    }

    pub(super) fn emit_for(&mut self, for_loop: &For, span: Span) -> CodegenResult<()> {
        match for_loop.kind {
            // GPU threads that never wait for one another run as CPU loops:
            // thread blocks in parallel, the threads of a block in turn.
            ForKind::ThreadBinding => {
                let tag = for_loop.thread.as_deref().unwrap_or("a thread");
                if let Some(collective) = self.thread_collective {
                    return Err(CodegenError::unsupported(
                        format!(
                            "loop `{}` is bound to `{tag}`, and the kernel's threads wait for one another (`T.{collective}`); the CPU backend runs thread bindings as loops only when they do not; run it with `--target cuda` (`--emulate` without a GPU), or use `parallel` in the schedule",
                            for_loop.loop_var.name(),
                        ),
                        span,
                    ));
                }
                self.thread_bound_loops.push(span);
                if tag.starts_with("blockIdx") && !self.current()?.in_parallel {
                    self.emit_parallel_for(for_loop, span)
                } else {
                    self.emit_counted_for(for_loop, span)
                }
            }
            ForKind::Parallel if !self.current()?.in_parallel => {
                self.emit_parallel_for(for_loop, span)
            }
            _ => self.emit_counted_for(for_loop, span),
        }
    }

    /// A loop run by this thread: serial, unrolled or vectorized.
    fn emit_counted_for(&mut self, for_loop: &For, span: Span) -> CodegenResult<()> {
        let (start, end) = self.loop_bounds(for_loop, span)?;
        if for_loop.kind == ForKind::Vectorized {
            self.vectorized_loops.push(span);
        }
        self.emit_serial_loop(for_loop, start, end, loop_properties(for_loop.kind))
    }

    /// The loop's `[start, end)` in the loop variable's type.
    pub(super) fn loop_bounds(
        &mut self,
        for_loop: &For,
        span: Span,
    ) -> CodegenResult<(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>)> {
        let start = self.emit_expr(&for_loop.min)?;
        let extent = self.emit_expr(&for_loop.extent)?;
        let dtype = for_loop.loop_var.dtype();
        let extent = self.cast(extent, for_loop.extent.dtype(), dtype, span)?;
        let start = self.cast(start, for_loop.min.dtype(), dtype, span)?;
        let end = self.binary(BinaryOp::Add, start, extent, dtype, span)?;
        Ok((start, end))
    }

    /// `for loop_var in [start, end): body` with the loop id `properties`.
    pub fn emit_serial_loop(
        &mut self,
        for_loop: &For,
        start: BasicValueEnum<'ctx>,
        end: BasicValueEnum<'ctx>,
        properties: &[(&str, Option<u32>)],
    ) -> CodegenResult<()> {
        let dtype = for_loop.loop_var.dtype();
        let preheader = self.insert_block()?;
        let header = self.append_block(&format!("for.{}", for_loop.loop_var.name()))?;
        let body = self.append_block("for.body")?;
        let exit = self.append_block("for.end")?;
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let phi = self
            .builder
            .build_phi(start.get_type(), for_loop.loop_var.name())?;
        let index = phi.as_basic_value();
        let below = self.binary(BinaryOp::Lt, index, end, dtype, Span::NONE)?;
        let below = self.as_condition(below, Span::NONE)?;
        self.builder.build_conditional_branch(below, body, exit)?;
        self.builder.position_at_end(body);
        self.bind(&for_loop.loop_var, index)?;
        self.emit_stmt(&for_loop.body)?;
        let latch = self.insert_block()?;
        let one = self.const_int(dtype, 1, Span::NONE)?;
        let next = if dtype.is_int() && dtype.bits >= 32 {
            raw::binary_no_signed_wrap(&self.builder, raw::Opcode::LLVMAdd, index, one)
        } else {
            raw::binary(&self.builder, raw::Opcode::LLVMAdd, index, one)
        };
        let back_edge = self.builder.build_unconditional_branch(header)?;
        if !properties.is_empty() {
            raw::set_loop_metadata(self.context, back_edge, properties);
        }
        phi.add_incoming(&[(&start, preheader), (&next, latch)]);
        self.builder.position_at_end(exit);
        Ok(())
    }
}

/// The loop id properties that carry a loop's kind to LLVM.
pub(super) fn loop_properties(kind: ForKind) -> &'static [(&'static str, Option<u32>)] {
    match kind {
        ForKind::Unrolled => &[("llvm.loop.unroll.full", None)],
        // Leftover vectorized loops are serial loops LLVM may vectorize.
        ForKind::Vectorized => &[("llvm.loop.vectorize.enable", Some(1))],
        _ => &[],
    }
}
