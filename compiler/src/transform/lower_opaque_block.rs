//! `lower-opaque-block`: blocks disappear (TVM's `LowerOpaqueBlock`). A
//! block's allocations become `AllocBuffer` statements around its body, its
//! predicate becomes an `if`, and the rest (name, regions, annotations) is
//! dropped: the passes that needed it have run. Loops of extent one without
//! annotations (the unit loops blocks leave behind) are replaced by their
//! body at the loop's start. The function loses its
//! `s_tir` attribute: without blocks it is no longer schedulable TensorIR
//! (and the classic dialect, which derives the flag from the presence of
//! blocks, reads it back that way).

use super::codes;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_stmt_children, substitute_stmt, Mutator};
use crate::ir::operators;
use crate::ir::{ForKind, PrimFunc, Stmt, StmtKind};

/// The function attribute marking schedulable TensorIR (printed
/// `@T.prim_func(s_tir=True)` in the tirx dialect).
const S_TIR_ATTR: &str = "s_tir";

/// Replaces every (opaque) block of `func` by plain statements.
pub fn lower_opaque_block(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut lowerer = BlockLowerer { errors: Vec::new() };
    let body = lowerer.mutate_stmt(&func.body);
    if !lowerer.errors.is_empty() {
        return Err(lowerer.errors);
    }
    let mut attrs = func.attrs.clone();
    attrs.retain(|(key, _)| key != S_TIR_ATTR);
    Ok(PrimFunc {
        body,
        attrs,
        ..func.clone()
    })
}

struct BlockLowerer {
    errors: Vec<Diagnostic>,
}

impl Mutator for BlockLowerer {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let StmtKind::For(for_loop) = stmt.kind() {
            if operators::is_one(&for_loop.extent)
                && for_loop.annotations.is_empty()
                && for_loop.kind != ForKind::ThreadBinding
            {
                let map = VarMap::from_iter([(for_loop.loop_var.clone(), for_loop.min.clone())]);
                return self.mutate_stmt(&substitute_stmt(&for_loop.body, &map));
            }
        }
        if let StmtKind::Seq(_) = stmt.kind() {
            let rewritten = mutate_stmt_children(self, stmt);
            return match rewritten.kind() {
                StmtKind::Seq(items) => allocations_to_the_end(items),
                _ => rewritten,
            };
        }
        let StmtKind::BlockRealize(realize) = stmt.kind() else {
            return mutate_stmt_children(self, stmt);
        };
        let block = &realize.block;
        let unlowered = if !block.iter_vars.is_empty() {
            Some("iteration variables (run `convert-blocks-to-opaque` first)")
        } else if block.init.is_some() {
            Some("a `T.init()` (run `lower-init-block` first)")
        } else if !block.match_buffers.is_empty() {
            Some("`T.match_buffer` views (run `lower-match-buffer` first)")
        } else {
            None
        };
        if let Some(what) = unlowered {
            self.errors.push(Diagnostic::error(
                codes::WRONG_STAGE,
                format!("block `{}` still has {what}", block.name),
                stmt.span(),
            ));
            return stmt.clone();
        }
        let mut body = self.mutate_stmt(&block.body);
        let predicate = self.mutate_expr(&realize.predicate);
        if !operators::is_one(&predicate) {
            body = Stmt::new(
                StmtKind::IfThenElse {
                    condition: predicate,
                    then_case: body,
                    else_case: None,
                },
                stmt.span(),
            );
        }
        for buffer in block.alloc_buffers.iter().rev() {
            body = Stmt::new(
                StmtKind::AllocBuffer {
                    buffer: buffer.clone(),
                    annotations: Vec::new(),
                    body,
                },
                buffer.span(),
            );
        }
        body
    }
}

/// A sequence where an allocation that is not the last statement holds the
/// statements after it too: printed, `x = T.alloc_buffer(...)` reaches the end
/// of its sequence, so the program reads back as it is (the buffer only
/// lives longer; its name is unique).
fn allocations_to_the_end(items: &[Stmt]) -> Stmt {
    let mut tail: Vec<Stmt> = Vec::new();
    for item in items.iter().rev() {
        let is_allocation = matches!(
            item.kind(),
            StmtKind::AllocBuffer { .. } | StmtKind::DeclBuffer { .. }
        );
        if is_allocation && !tail.is_empty() {
            let rest = std::mem::take(&mut tail);
            tail.push(extend_innermost_body(item, rest));
        } else {
            tail.insert(0, item.clone());
        }
    }
    Stmt::seq(tail)
}

/// `stmt`, a chain of allocations, with `rest` after its innermost body.
fn extend_innermost_body(stmt: &Stmt, rest: Vec<Stmt>) -> Stmt {
    match stmt.kind() {
        StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } => stmt.with_kind(StmtKind::AllocBuffer {
            buffer: buffer.clone(),
            annotations: annotations.clone(),
            body: extend_innermost_body(body, rest),
        }),
        StmtKind::DeclBuffer { buffer, body } => stmt.with_kind(StmtKind::DeclBuffer {
            buffer: buffer.clone(),
            body: extend_innermost_body(body, rest),
        }),
        _ => Stmt::seq(std::iter::once(stmt.clone()).chain(rest).collect()),
    }
}
