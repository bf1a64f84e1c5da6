//! `cross-thread-reduction` (CUDA target): a reduction block whose
//! reduction variable is bound to a loop over `threadIdx` sums across the
//! threads of a block. TVM lowers it to `T.tvm_thread_allreduce` (warp
//! shuffles, then shared memory across warps); tirc does not lower it yet,
//! and without that lowering every thread would update the same element at
//! once. This pass refuses such a block with a diagnostic at the loop, so
//! no racing kernel is ever emitted.

use super::codes;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::visit::{expr_uses_var, walk_stmt, Visitor};
use crate::ir::{ForKind, IterKind, PrimFunc, Stmt, StmtKind};
use crate::source::Span;

/// Refuses reductions across the threads of a block.
pub fn cross_thread_reduction(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    struct Finder {
        /// Loops bound to a `threadIdx` tag around the current statement.
        thread_loops: VarMap<(String, Span)>,
        errors: Vec<Diagnostic>,
    }
    impl Visitor for Finder {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            match stmt.kind() {
                StmtKind::For(for_loop)
                    if for_loop.kind == ForKind::ThreadBinding
                        && for_loop
                            .thread
                            .as_deref()
                            .is_some_and(|t| t.starts_with("threadIdx")) =>
                {
                    let tag = for_loop.thread.clone().unwrap_or_default();
                    self.thread_loops
                        .insert(for_loop.loop_var.clone(), (tag, stmt.span()));
                    walk_stmt(self, stmt);
                    self.thread_loops.remove(&for_loop.loop_var);
                }
                StmtKind::BlockRealize(realize) => {
                    for (iter_var, value) in
                        realize.block.iter_vars.iter().zip(&realize.iter_values)
                    {
                        if iter_var.kind != IterKind::Reduce {
                            continue;
                        }
                        let mut bound = None;
                        expr_uses_var(value, &mut |v| {
                            if let Some(found) = self.thread_loops.get(v) {
                                bound.get_or_insert_with(|| (v.name().to_string(), found.clone()));
                            }
                            false
                        });
                        if let Some((loop_name, (tag, span))) = bound {
                            self.errors.push(
                                Diagnostic::error(
                                    codes::UNSUPPORTED,
                                    format!(
                                        "block `{}` reduces over loop `{loop_name}`, bound to `{tag}`: a reduction across the threads of a block, which the CUDA backend does not lower yet",
                                        realize.block.name
                                    ),
                                    span,
                                )
                                .with_secondary(stmt.span(), "the reduction block")
                                .with_help("bind only spatial loops to threads, or rfactor the reduction so each thread reduces its own part (`sch.rfactor`) and reduce the parts in a second block"),
                            );
                        }
                    }
                    walk_stmt(self, stmt);
                }
                _ => walk_stmt(self, stmt),
            }
        }
    }
    let mut finder = Finder {
        thread_loops: Default::default(),
        errors: Vec::new(),
    };
    finder.visit_stmt(&func.body);
    if finder.errors.is_empty() {
        Ok(func.clone())
    } else {
        Err(finder.errors)
    }
}
