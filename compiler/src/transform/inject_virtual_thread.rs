//! `inject-virtual-thread` (CUDA target): a loop bound to `vthread`
//! (`vthread.x`, `.y`, `.z`) is not a hardware thread: each thread of the
//! block runs every virtual thread. It becomes an unrolled loop over them.
//!
//! TVM's InjectVirtualThread interleaves the virtual threads statement by
//! statement; running them one after another gives the same results, since
//! a TIR program may not rely on the order of the iterations of a bound loop
//! (the interpreter runs it as a loop). Every thread of the block runs the
//! same virtual threads, so barriers inside stay uniform, and the unrolled
//! copies leave NVCC free to interleave what no barrier separates. Buffers
//! indexed by the virtual thread (its part of a `local` accumulator) were
//! sized for every virtual thread when the schedule bound the loop.

use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::mutate::{mutate_stmt_children, Mutator};
use crate::ir::{ForKind, PrimFunc, Stmt, StmtKind};

/// Turns the `vthread` loops of `func` into unrolled loops.
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
        let stmt = mutate_stmt_children(self, stmt);
        let StmtKind::For(for_loop) = stmt.kind() else {
            return stmt;
        };
        let bound_to_virtual_thread = for_loop.kind == ForKind::ThreadBinding
            && for_loop.thread.as_deref().is_some_and(is_virtual_thread);
        if !bound_to_virtual_thread {
            return stmt;
        }
        let mut for_loop = for_loop.clone();
        for_loop.kind = ForKind::Unrolled;
        for_loop.thread = None;
        stmt.with_kind(StmtKind::For(for_loop))
    }
}
