//! `plan-buffer-allocation`: every buffer a block allocates moves to the
//! lowest loop or block that encloses all its uses (TVM's
//! `PlanAndUpdateBufferAllocationLocation`). A buffer placed at a loop gets a
//! new opaque block as the loop's body to hold the allocation.
//!
//! The lowest common ancestor is raised where moving lower would change what
//! the program computes: a buffer written by a reduction block stays above
//! every loop its reduction variables are bound to (the accumulator must live
//! across them), a buffer indexed by a scan or opaque iteration variable stays
//! above that variable's loops, and a global buffer stays above every
//! `blockIdx` loop. A buffer that is never used disappears.

use super::LowerOptions;
use crate::analysis::access_regions::infer_block_regions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferSet, VarMap, VarSet};
use crate::ir::mutate::{mutate_block_children, mutate_stmt_children, Mutator};
use crate::ir::visit::{walk_block, walk_expr, walk_stmt, Visitor};
use crate::ir::{
    Block, BlockRealize, Buffer, BufferRegion, Expr, ExprKind, ForKind, IterKind, NodeId, PrimFunc,
    Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::HashMap;

/// Moves each block allocation of `func` to the lowest scope covering its uses.
pub fn plan_buffer_allocation(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut detector = LcaDetector::new();
    for (_, buffer) in &func.buffer_map {
        detector.register_buffer(buffer);
    }
    detector.visit_stmt(&func.body);
    detector.raise_global_buffers_above_block_indices();

    // Place each managed buffer, in declaration order, at its scope.
    let mut alloc_at: HashMap<usize, Vec<Buffer>> = HashMap::new();
    for buffer in &detector.managed {
        if let Some(scope) = detector.lca.get(buffer.data()) {
            alloc_at.entry(*scope).or_default().push(buffer.clone());
        }
    }
    let mut placer = Placer {
        next_scope: 1,
        alloc_at: &alloc_at,
    };
    let mut body = placer.mutate_stmt(&func.body);
    if let Some(root_buffers) = alloc_at.get(&ROOT_SCOPE) {
        body = wrap_in_opaque_block(body, root_buffers.clone());
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// The scope standing for the function itself, above every loop and block.
const ROOT_SCOPE: usize = 0;

/// A loop or block that may hold allocations.
#[derive(Clone, Copy, Debug)]
struct ScopeInfo {
    parent: Option<usize>,
    depth: usize,
}

struct LcaDetector {
    /// Every scope met, by pre-order number; 0 is the function.
    scopes: Vec<ScopeInfo>,
    /// The scopes enclosing the current statement, innermost last.
    ancestors: Vec<usize>,
    /// Buffer data variable → the lowest scope enclosing its uses so far.
    lca: VarMap<usize>,
    /// Data variables of the buffers met so far, with their storage scope.
    buffer_scopes: VarMap<String>,
    /// Data variables of `T.match_buffer` views: their uses are uses of the
    /// viewed buffer, which the block's match region already records.
    match_targets: VarSet,
    /// Loop variable → the scope of its loop.
    loop_scopes: VarMap<usize>,
    /// Loops bound to `blockIdx.*`.
    block_index_scopes: Vec<usize>,
    /// The buffers blocks allocate, in declaration order.
    managed: Vec<Buffer>,
}

impl LcaDetector {
    fn new() -> LcaDetector {
        LcaDetector {
            scopes: vec![ScopeInfo {
                parent: None,
                depth: 0,
            }],
            ancestors: vec![ROOT_SCOPE],
            lca: Default::default(),
            buffer_scopes: Default::default(),
            match_targets: Default::default(),
            loop_scopes: Default::default(),
            block_index_scopes: Vec::new(),
            managed: Vec::new(),
        }
    }

    fn register_buffer(&mut self, buffer: &Buffer) {
        self.buffer_scopes
            .entry(buffer.data().clone())
            .or_insert_with(|| buffer.scope().to_string());
    }

    fn current(&self) -> usize {
        *self.ancestors.last().unwrap_or(&ROOT_SCOPE)
    }

    fn push_scope(&mut self) -> usize {
        let index = self.scopes.len();
        self.scopes.push(ScopeInfo {
            parent: Some(self.current()),
            depth: self.ancestors.len(),
        });
        self.ancestors.push(index);
        index
    }

    fn lowest_common_ancestor(&self, lhs: usize, rhs: usize) -> usize {
        let (mut a, mut b) = (lhs, rhs);
        while a != b {
            let (info_a, info_b) = (self.scopes[a], self.scopes[b]);
            let (Some(parent_a), Some(parent_b)) = (info_a.parent, info_b.parent) else {
                return ROOT_SCOPE;
            };
            if info_a.depth == info_b.depth {
                a = parent_a;
                b = parent_b;
            } else if info_a.depth < info_b.depth {
                b = parent_b;
            } else {
                a = parent_a;
            }
        }
        a
    }

    fn record_use(&mut self, data: &Var, scope: usize) {
        if self.match_targets.contains(data) {
            return;
        }
        let lca = match self.lca.get(data) {
            Some(previous) => self.lowest_common_ancestor(*previous, scope),
            None => scope,
        };
        self.lca.insert(data.clone(), lca);
    }

    /// The outermost scope enclosing the loops whose variables `binding` uses
    /// (the parent of the highest such loop).
    fn dominating_scope(&self, binding: &Expr) -> Option<usize> {
        let mut highest: Option<usize> = None;
        crate::ir::visit::walk_exprs(binding, &mut |expr| {
            let Some(var) = expr.as_var() else {
                return;
            };
            let Some(loop_scope) = self.loop_scopes.get(var) else {
                return;
            };
            let Some(parent) = self.scopes[*loop_scope].parent else {
                return;
            };
            if highest.is_none_or(|h| self.scopes[parent].depth < self.scopes[h].depth) {
                highest = Some(parent);
            }
        });
        highest
    }

    /// TVM's `UpdateDominateScopeOfNonDataParIter`: the write buffers of a
    /// reduction block are used above its reduction loops; buffers indexed by
    /// scan or opaque variables are used above those variables' loops.
    fn raise_for_non_spatial_iters(&mut self, realize: &BlockRealize) {
        let block = &realize.block;
        let mut opaque_scopes: VarMap<usize> = Default::default();
        let mut highest_reduce: Option<usize> = None;
        let mut is_reduction = false;
        for (iter_var, binding) in block.iter_vars.iter().zip(&realize.iter_values) {
            if iter_var.kind == IterKind::Spatial {
                continue;
            }
            let Some(scope) = self.dominating_scope(binding) else {
                continue;
            };
            if iter_var.kind == IterKind::Reduce {
                is_reduction = true;
                if highest_reduce.is_none_or(|h| self.scopes[scope].depth < self.scopes[h].depth) {
                    highest_reduce = Some(scope);
                }
            } else {
                opaque_scopes.insert(iter_var.var.clone(), scope);
                for write in &block.writes {
                    self.record_use(write.buffer.data(), scope);
                }
            }
        }
        let current = self.current();
        let scope_of_region =
            |detector: &LcaDetector, region: &BufferRegion, reduce_write: bool| {
                let mut scope = current;
                for range in &region.region {
                    crate::ir::visit::walk_exprs(&range.min, &mut |expr| {
                        if let Some(found) = expr.as_var().and_then(|v| opaque_scopes.get(v)) {
                            if detector.scopes[*found].depth < detector.scopes[scope].depth {
                                scope = *found;
                            }
                        }
                    });
                    crate::ir::visit::walk_exprs(&range.extent, &mut |expr| {
                        if let Some(found) = expr.as_var().and_then(|v| opaque_scopes.get(v)) {
                            if detector.scopes[*found].depth < detector.scopes[scope].depth {
                                scope = *found;
                            }
                        }
                    });
                }
                if reduce_write {
                    if let Some(reduce_scope) = highest_reduce {
                        if detector.scopes[scope].depth > detector.scopes[reduce_scope].depth {
                            scope = reduce_scope;
                        }
                    }
                }
                scope
            };
        if !opaque_scopes.is_empty() {
            for read in &block.reads {
                let scope = scope_of_region(self, read, false);
                self.record_use(read.buffer.data(), scope);
            }
            for write in &block.writes {
                let scope = scope_of_region(self, write, is_reduction);
                self.record_use(write.buffer.data(), scope);
            }
        } else if is_reduction && highest_reduce.is_some() {
            for write in &block.writes {
                let scope = scope_of_region(self, write, true);
                self.record_use(write.buffer.data(), scope);
            }
        }
    }

    /// A global buffer used under a `blockIdx` loop is allocated around that
    /// loop's body at the lowest, never inside one GPU block.
    fn raise_global_buffers_above_block_indices(&mut self) {
        let entries: Vec<(Var, usize)> = self.lca.iter().map(|(v, s)| (v.clone(), *s)).collect();
        for (data, mut scope) in entries {
            let is_global = self
                .buffer_scopes
                .get(&data)
                .is_some_and(|s| s == "global" || s.starts_with("global."));
            if !is_global {
                continue;
            }
            for block_index in &self.block_index_scopes {
                scope = self.lowest_common_ancestor(scope, *block_index);
            }
            self.lca.insert(data, scope);
        }
    }
}

impl Visitor for LcaDetector {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                let scope = self.push_scope();
                if for_loop.kind == ForKind::ThreadBinding
                    && for_loop
                        .thread
                        .as_deref()
                        .is_some_and(|t| t.starts_with("blockIdx"))
                {
                    self.block_index_scopes.push(scope);
                }
                self.loop_scopes.insert(for_loop.loop_var.clone(), scope);
                walk_stmt(self, stmt);
                self.loop_scopes.remove(&for_loop.loop_var);
                self.ancestors.pop();
            }
            StmtKind::BlockRealize(realize) => {
                for buffer in &realize.block.alloc_buffers {
                    self.register_buffer(buffer);
                    self.managed.push(buffer.clone());
                }
                let scope = self.push_scope();
                self.raise_for_non_spatial_iters(realize);
                for matched in &realize.block.match_buffers {
                    self.register_buffer(&matched.source.buffer);
                    self.record_use(matched.source.buffer.data(), scope);
                    self.match_targets.insert(matched.buffer.data().clone());
                }
                walk_stmt(self, stmt);
                self.ancestors.pop();
            }
            StmtKind::AttrStmt(attr) => {
                if let crate::ir::AttrNode::Thread { tag, .. } = &attr.node {
                    if tag.starts_with("blockIdx") {
                        self.block_index_scopes.push(self.current());
                    }
                }
                walk_stmt(self, stmt);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_block(&mut self, block: &Block) {
        walk_block(self, block);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Var(var) = expr.kind() {
            if self.buffer_scopes.contains_key(var) {
                self.record_use(var, self.current());
            }
        }
        walk_expr(self, expr);
    }

    fn visit_buffer_use(&mut self, buffer: &Buffer) {
        self.register_buffer(buffer);
        self.record_use(buffer.data(), self.current());
    }

    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.register_buffer(buffer);
    }

    /// Declared regions are not uses: only their index expressions are visited.
    fn visit_buffer_region(&mut self, region: &BufferRegion) {
        for range in &region.region {
            self.visit_range(range);
        }
    }
}

/// Rebuilds the body with each block's allocations replaced by the ones
/// planned for it, numbering loops and blocks in the detector's order.
struct Placer<'a> {
    next_scope: usize,
    alloc_at: &'a HashMap<usize, Vec<Buffer>>,
}

impl Mutator for Placer<'_> {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(_) => {
                let scope = self.next_scope;
                self.next_scope += 1;
                let rebuilt = mutate_stmt_children(self, stmt);
                let Some(buffers) = self.alloc_at.get(&scope) else {
                    return rebuilt;
                };
                let StmtKind::For(for_loop) = rebuilt.kind() else {
                    return rebuilt;
                };
                let body = wrap_in_opaque_block(for_loop.body.clone(), buffers.clone());
                rebuilt.with_kind(StmtKind::For(crate::ir::For {
                    body,
                    ..for_loop.clone()
                }))
            }
            StmtKind::BlockRealize(_) => {
                let scope = self.next_scope;
                self.next_scope += 1;
                let rebuilt = mutate_stmt_children(self, stmt);
                let StmtKind::BlockRealize(realize) = rebuilt.kind() else {
                    return rebuilt;
                };
                let mut block = realize.block.clone();
                block.alloc_buffers = self.alloc_at.get(&scope).cloned().unwrap_or_default();
                let inside = buffers_allocated_within(&block);
                block.reads.retain(|r| !inside.contains(&r.buffer));
                block.writes.retain(|r| !inside.contains(&r.buffer));
                rebuilt.with_kind(StmtKind::BlockRealize(BlockRealize {
                    block,
                    ..realize.clone()
                }))
            }
            _ => mutate_stmt_children(self, stmt),
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        mutate_block_children(self, block)
    }
}

/// The buffers allocated by `block` and by every block inside it.
fn buffers_allocated_within(block: &Block) -> BufferSet {
    let mut found: BufferSet = block.alloc_buffers.iter().cloned().collect();
    crate::ir::visit::walk_stmts(&block.body, &mut |stmt| {
        if let StmtKind::BlockRealize(realize) = stmt.kind() {
            found.extend(realize.block.alloc_buffers.iter().cloned());
        }
    });
    found
}

/// `body` inside a new opaque block that allocates `buffers`, with its read
/// and write regions inferred.
pub(crate) fn wrap_in_opaque_block(body: Stmt, buffers: Vec<Buffer>) -> Stmt {
    let mut block = Block {
        id: NodeId::fresh(),
        name: String::new(),
        iter_vars: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        init: None,
        alloc_buffers: buffers,
        match_buffers: Vec::new(),
        annotations: Vec::new(),
        body,
    };
    let (reads, writes) = infer_block_regions(&block);
    block.reads = reads.into_iter().map(clamp_to_buffer).collect();
    block.writes = writes.into_iter().map(clamp_to_buffer).collect();
    Stmt::new(
        StmtKind::BlockRealize(BlockRealize {
            iter_values: Vec::new(),
            predicate: Expr::bool(true),
            block,
        }),
        Span::NONE,
    )
}

/// A region cut to its buffer's bounds where it provably reaches past them:
/// a guarded access (padding's `if_then_else`) relaxed over the loops the
/// new block holds covers indices the guard never lets through.
fn clamp_to_buffer(region: BufferRegion) -> BufferRegion {
    let analyzer = crate::arith::Analyzer::new();
    let ranges = region
        .region
        .iter()
        .zip(region.buffer.shape())
        .map(|(range, extent)| {
            let zero = Expr::zero(range.min.dtype());
            let end = crate::arith::build::add(range.min.clone(), range.extent.clone());
            let below = analyzer.can_prove(&crate::arith::build::node(
                crate::ir::BinaryOp::Lt,
                range.min.clone(),
                zero.clone(),
            ));
            let above = analyzer.can_prove(&crate::arith::build::node(
                crate::ir::BinaryOp::Gt,
                end.clone(),
                extent.clone(),
            ));
            if !below && !above {
                return range.clone();
            }
            let min = if below { zero } else { range.min.clone() };
            let end = if above { extent.clone() } else { end };
            crate::ir::Range::new(
                analyzer.simplify(&min),
                analyzer.simplify(&crate::arith::build::sub(end, min.clone())),
            )
        })
        .collect();
    BufferRegion {
        buffer: region.buffer,
        region: ranges,
    }
}
