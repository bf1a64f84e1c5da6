//! `launch-threads-as-loops` (CUDA target): the lowered form TVM prints
//! (`blockIdx_x = T.launch_thread("blockIdx.x", n)`, a `thread_extent`
//! attribute around the rest of the body) becomes the loop bound to the
//! same tag that a schedule's `bind` makes. The passes after it
//! (`split-host-device`, `thread-sync`, the CUDA writer) then see one form
//! of GPU threads, and a module pasted from `tvm.lower` builds for CUDA.

use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::mutate::{mutate_stmt_children, Mutator};
use crate::ir::{AttrNode, Expr, For, ForKind, NodeId, PrimFunc, Stmt, StmtKind};

/// Rewrites every `T.launch_thread` scope of `func` as a thread-bound loop.
pub fn launch_threads_as_loops(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    Ok(PrimFunc {
        body: LaunchAsLoop.mutate_stmt(&func.body),
        ..func.clone()
    })
}

struct LaunchAsLoop;

impl Mutator for LaunchAsLoop {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let stmt = mutate_stmt_children(self, stmt);
        let StmtKind::AttrStmt(attr) = stmt.kind() else {
            return stmt;
        };
        let AttrNode::Thread { var, tag } = &attr.node else {
            return stmt;
        };
        // `vthread` launches stay attributes: inject-virtual-thread reads them.
        let is_gpu_thread = tag.starts_with("blockIdx.") || tag.starts_with("threadIdx.");
        if attr.key != "thread_extent" || !is_gpu_thread {
            return stmt;
        }
        stmt.with_kind(StmtKind::For(For {
            id: NodeId::fresh(),
            loop_var: var.clone(),
            min: Expr::int(0, var.dtype()),
            extent: attr.value.clone(),
            kind: ForKind::ThreadBinding,
            thread: Some(tag.clone()),
            annotations: Vec::new(),
            body: attr.body.clone(),
        }))
    }
}
