//! `compact-buffer-allocation`: every buffer the function allocates shrinks
//! to the region its uses touch below its allocation site, and accesses are
//! shifted to the new origin (TVM's `CompactBufferAllocation`). A
//! `storage_align` annotation (`T.block_attr({"buffer_dim_align": [[index,
//! axis, factor, offset], ...]})` on the block writing the buffer) gives the
//! compacted buffer padded strides.
//!
//! The used region is the union of every access with the loops inside the
//! allocation relaxed to their ranges; loops enclosing the allocation stay
//! symbolic, so a cache tile allocated inside a tile loop becomes one tile.
//! Thread-bound loops outside a shared (or global) buffer are relaxed too,
//! since all threads of a GPU block see one copy of it. The region is kept
//! inside the original shape. A buffer whose data pointer is used directly,
//! or that several buffers alias, is left as it is.

use super::support::defined_vars;
use super::LowerOptions;
use crate::arith::{Analyzer, IntSet};
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferMap, BufferSet, VarMap, VarSet};
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, Mutator,
};
use crate::ir::operators;
use crate::ir::visit::{walk_block, walk_expr, walk_stmt, Visitor};
use crate::ir::{
    AttrNode, AttrValue, BinaryOp, Block, Buffer, BufferRegion, DataType, Expr, ExprKind, ForKind,
    MatchBufferRegion, PrimFunc, Range, Stmt, StmtKind, Var,
};

/// Shrinks every allocated buffer of `func` to the region it uses.
pub fn compact_buffer_allocation(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let aliases = AliasCollector::collect(&func.body);
    let storage_align = collect_storage_align(&func.body);
    let mut collector = RegionCollector {
        ancestors: Vec::new(),
        dom_map: Default::default(),
        let_values: Default::default(),
        analyzer: Analyzer::new(),
        definition_depth: Default::default(),
        relaxed: Default::default(),
        regions: Default::default(),
        excluded: aliases.excluded,
    };
    collector.visit_stmt(&func.body);

    let mut replacements: BufferMap<Compacted> = Default::default();
    for (buffer, region) in collector.regions {
        let aligns = storage_align.get(buffer.data());
        let unchanged = aligns.is_none()
            && region.iter().zip(buffer.shape()).all(|(range, extent)| {
                operators::is_zero(&range.min)
                    && crate::ir::structural::expr_deep_equal(&range.extent, extent)
            });
        if unchanged {
            continue;
        }
        let shape: Vec<Expr> = region.iter().map(|r| r.extent.clone()).collect();
        let strides = match aligns {
            Some(aligns) => aligned_strides(&shape, aligns),
            None => Vec::new(),
        };
        let compacted = buffer.with(|node| {
            node.shape = shape;
            node.strides = strides;
        });
        replacements.insert(
            buffer,
            Compacted {
                buffer: compacted,
                origin: region.into_iter().map(|r| r.min).collect(),
            },
        );
    }
    if replacements.is_empty() {
        return Ok(func.clone());
    }
    let mut rewriter = Rewriter {
        replacements: &replacements,
        analyzer: Analyzer::new(),
    };
    let body = rewriter.mutate_stmt(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// The new buffer of a compacted allocation and the old indices of its origin.
struct Compacted {
    buffer: Buffer,
    origin: Vec<Expr>,
}

/// A loop or thread launch enclosing the current statement.
struct Ancestor {
    var: Var,
    thread_tag: Option<String>,
}

struct RegionCollector {
    ancestors: Vec<Ancestor>,
    /// Variables relaxed when an access is evaluated: every enclosing loop.
    dom_map: VarMap<IntSet>,
    /// `LetStmt` variables and the value they stand for (already expanded).
    let_values: VarMap<Expr>,
    analyzer: Analyzer,
    /// Allocated buffer → number of enclosing loops at its allocation.
    definition_depth: BufferMap<usize>,
    /// Allocated buffer → the union of the regions used so far, per dimension.
    relaxed: BufferMap<Vec<IntSet>>,
    /// The compacted region of each buffer whose allocation scope ended.
    regions: BufferMap<Vec<Range>>,
    /// Buffers that must keep their shape.
    excluded: BufferSet,
}

/// TVM's storage ranks: a buffer is shared by the threads of the ranks at or
/// below its own.
fn storage_rank(scope: &str) -> Option<i32> {
    match scope {
        "global" => Some(0),
        "shared" | "shared.dyn" => Some(1),
        "warp" => Some(2),
        "local" => Some(3),
        _ if scope.starts_with("global.") => Some(0),
        _ if scope.starts_with("shared.") => Some(1),
        _ => None,
    }
}

/// True when a buffer in `scope` is shared across the threads of `tag`, so
/// accesses relax the thread variable even though the loop encloses the
/// allocation.
fn relaxes_thread(scope: &str, tag: &str) -> bool {
    let Some(rank) = storage_rank(scope) else {
        return false;
    };
    if rank == 2 {
        return tag == "threadIdx.x";
    }
    let thread_rank = if tag.starts_with("blockIdx") {
        0
    } else if tag.starts_with("threadIdx") || tag.starts_with("vthread") {
        1
    } else {
        return false;
    };
    rank <= thread_rank
}

impl RegionCollector {
    fn enter_scope(&mut self, var: &Var, min: &Expr, extent: &Expr, thread_tag: Option<String>) {
        let range = Range::new(min.clone(), extent.clone());
        let domain = IntSet::from_range(&range);
        self.analyzer.bind(var, &range);
        self.dom_map.insert(var.clone(), domain);
        self.ancestors.push(Ancestor {
            var: var.clone(),
            thread_tag,
        });
    }

    fn leave_scope(&mut self) {
        if let Some(ancestor) = self.ancestors.pop() {
            self.dom_map.remove(&ancestor.var);
        }
    }

    /// The values an index takes with the relaxed variables ranging.
    fn index_set(&self, index: &Expr) -> IntSet {
        let index = crate::ir::mutate::substitute(index, &self.let_values);
        match index.kind() {
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let last = operators::mul(
                    stride.clone(),
                    Expr::int(i64::from(*lanes) - 1, stride.dtype()),
                )
                .and_then(|offset| operators::add(base.clone(), offset));
                let Ok(last) = last else {
                    return IntSet::everything();
                };
                let first = self.analyzer.eval_set(base, &self.dom_map);
                let last = self.analyzer.eval_set(&last, &self.dom_map);
                crate::arith::int_set::union(&[first, last])
            }
            ExprKind::Broadcast { value, .. } => self.analyzer.eval_set(value, &self.dom_map),
            _ if index.dtype().is_scalar() && index.dtype().is_integer() => {
                self.analyzer.eval_set(&index, &self.dom_map)
            }
            _ => IntSet::everything(),
        }
    }

    /// Records an access of `buffer` at `ranges`.
    fn record_access(&mut self, buffer: &Buffer, ranges: &[Range]) {
        let Some(depth) = self.definition_depth.get(buffer).copied() else {
            return;
        };
        if ranges.len() != buffer.rank() {
            self.excluded.insert(buffer.clone());
            return;
        }
        // Loops enclosing the allocation stay symbolic, unless the buffer is
        // shared across their threads.
        let mut kept = Vec::new();
        for ancestor in self.ancestors.iter().take(depth) {
            let shared = ancestor
                .thread_tag
                .as_deref()
                .is_some_and(|tag| relaxes_thread(buffer.scope(), tag));
            if !shared {
                if let Some(domain) = self.dom_map.remove(&ancestor.var) {
                    kept.push((ancestor.var.clone(), domain));
                }
            }
        }
        let sets: Vec<IntSet> = ranges
            .iter()
            .map(|range| {
                if range.extent.as_int() == Some(1) {
                    return self.index_set(&range.min);
                }
                match range.last() {
                    Ok(last) => crate::arith::int_set::union(&[
                        self.index_set(&range.min),
                        self.index_set(&last),
                    ]),
                    Err(_) => IntSet::everything(),
                }
            })
            .collect();
        for (var, domain) in kept {
            self.dom_map.insert(var, domain);
        }
        match self.relaxed.get_mut(buffer) {
            Some(previous) => {
                for (old, new) in previous.iter_mut().zip(sets) {
                    *old = old.union_with(&new);
                }
            }
            None => {
                self.relaxed.insert(buffer.clone(), sets);
            }
        }
    }

    fn define(&mut self, buffer: &Buffer) {
        self.definition_depth
            .insert(buffer.clone(), self.ancestors.len());
    }

    /// At the end of a buffer's scope: the region it uses, inside its shape.
    fn finish(&mut self, buffer: &Buffer, scope_body: &Stmt) {
        self.definition_depth.remove(buffer);
        let Some(sets) = self.relaxed.remove(buffer) else {
            return;
        };
        if self.excluded.contains(buffer) || sets.len() != buffer.rank() {
            return;
        }
        let inner = defined_vars(scope_body);
        let enclosing: VarSet = self.ancestors.iter().map(|a| a.var.clone()).collect();
        let mut region = Vec::new();
        for (set, extent) in sets.iter().zip(buffer.shape()) {
            let dtype = extent.dtype();
            let original = Range::from_extent(extent.clone());
            region.push(self.narrow(set, &original, dtype, &inner, &enclosing));
        }
        self.regions.insert(buffer.clone(), region);
    }

    /// TVM's `SimplifyAndNarrowBufferRegionFromNDIntSet` for one dimension.
    fn narrow(
        &self,
        set: &IntSet,
        original: &Range,
        dtype: DataType,
        inner: &VarSet,
        enclosing: &VarSet,
    ) -> Range {
        let covered = set.cover_range(original);
        let min = operators::cast(dtype, covered.min.clone());
        let extent = operators::cast(dtype, covered.extent.clone());
        let zero = Expr::zero(dtype);
        let Ok(min) = operators::binary(BinaryOp::Max, zero, min) else {
            return original.clone();
        };
        let min = self.analyzer.simplify(&min);
        let fits = operators::binary(BinaryOp::Le, extent.clone(), original.extent.clone())
            .map(|le| self.analyzer.can_prove(&le))
            .unwrap_or(false);
        let mut extent = if fits {
            extent
        } else {
            match operators::binary(BinaryOp::Min, original.extent.clone(), extent) {
                Ok(clamped) => clamped,
                Err(_) => return original.clone(),
            }
        };
        extent = self.analyzer.simplify(&extent);
        if super::support::uses_any(&extent, enclosing) {
            // A loop-dependent extent: allocate for the largest one.
            let bound = self.analyzer.const_int_bound(&extent);
            if !bound.has_finite_max() {
                return original.clone();
            }
            extent = Expr::int(bound.max, dtype);
        }
        let positive = operators::binary(BinaryOp::Ge, extent.clone(), Expr::one(dtype))
            .map(|ge| self.analyzer.can_prove(&ge))
            .unwrap_or(false);
        if !positive
            || super::support::uses_any(&min, inner)
            || super::support::uses_any(&extent, inner)
        {
            return original.clone();
        }
        Range::new(min, extent)
    }
}

impl Visitor for RegionCollector {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.visit_expr(&for_loop.min);
                self.visit_expr(&for_loop.extent);
                let tag = match for_loop.kind {
                    ForKind::ThreadBinding => for_loop.thread.clone(),
                    _ => None,
                };
                self.enter_scope(&for_loop.loop_var, &for_loop.min, &for_loop.extent, tag);
                self.visit_stmt(&for_loop.body);
                self.leave_scope();
            }
            StmtKind::AttrStmt(attr) => {
                if let AttrNode::Thread { var, tag } = &attr.node {
                    self.visit_expr(&attr.value);
                    let zero = Expr::zero(attr.value.dtype());
                    self.enter_scope(var, &zero, &attr.value, Some(tag.clone()));
                    self.visit_stmt(&attr.body);
                    self.leave_scope();
                } else {
                    walk_stmt(self, stmt);
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                self.visit_expr(value);
                if value.dtype().is_integer() && value.dtype().is_scalar() {
                    let expanded = crate::ir::mutate::substitute(value, &self.let_values);
                    self.let_values.insert(var.clone(), expanded);
                }
                self.visit_stmt(body);
                self.let_values.remove(var);
            }
            StmtKind::BufferStore(store) => {
                let ranges: Vec<Range> = store.indices.iter().cloned().map(Range::point).collect();
                self.record_access(&store.buffer, &ranges);
                walk_stmt(self, stmt);
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                self.define(buffer);
                walk_stmt(self, stmt);
                self.finish(buffer, body);
            }
            StmtKind::BlockRealize(realize) => {
                if !realize.block.iter_vars.is_empty() {
                    // Only opaque blocks are compacted: leave every buffer of
                    // a block that still has iteration variables alone.
                    for buffer in &realize.block.alloc_buffers {
                        self.excluded.insert(buffer.clone());
                    }
                }
                walk_stmt(self, stmt);
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_block(&mut self, block: &Block) {
        for buffer in &block.alloc_buffers {
            self.define(buffer);
        }
        for matched in &block.match_buffers {
            let source = &matched.source;
            self.record_access(&source.buffer, &source.region);
        }
        walk_block(self, block);
        for buffer in &block.alloc_buffers {
            self.finish(buffer, &block.body);
        }
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Load(load) = expr.kind() {
            let ranges: Vec<Range> = load.indices.iter().cloned().map(Range::point).collect();
            self.record_access(&load.buffer, &ranges);
        }
        walk_expr(self, expr);
    }

    /// Declared regions are not accesses: only their expressions are visited.
    fn visit_buffer_region(&mut self, region: &BufferRegion) {
        for range in &region.region {
            self.visit_range(range);
        }
    }
}

/// Finds the buffers compaction must leave alone: those whose data variable
/// is used directly (`A.data` in a call) or by more than one buffer.
struct AliasCollector {
    by_data: VarMap<BufferSet>,
    bare_uses: VarSet,
    excluded: BufferSet,
}

impl AliasCollector {
    fn collect(body: &Stmt) -> AliasCollector {
        let mut collector = AliasCollector {
            by_data: Default::default(),
            bare_uses: Default::default(),
            excluded: Default::default(),
        };
        collector.visit_stmt(body);
        for buffers in collector.by_data.values() {
            let aliased = buffers.len() > 1
                || buffers
                    .iter()
                    .any(|b| collector.bare_uses.contains(b.data()));
            if aliased {
                collector.excluded.extend(buffers.iter().cloned());
            }
        }
        collector
    }

    fn note(&mut self, buffer: &Buffer) {
        self.by_data
            .entry(buffer.data().clone())
            .or_default()
            .insert(buffer.clone());
    }
}

impl Visitor for AliasCollector {
    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Var(var) = expr.kind() {
            if var.dtype().is_handle() {
                self.bare_uses.insert(var.clone());
            }
        }
        walk_expr(self, expr);
    }
    fn visit_buffer_use(&mut self, buffer: &Buffer) {
        self.note(buffer);
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.note(buffer);
    }
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if let StmtKind::AttrStmt(attr) = stmt.kind() {
            if let AttrNode::Var(var) = &attr.node {
                self.bare_uses.insert(var.clone());
            }
        }
        walk_stmt(self, stmt);
    }
}

/// Data variable of each buffer named by a `buffer_dim_align` annotation →
/// its `(axis, factor, offset)` alignments.
fn collect_storage_align(body: &Stmt) -> VarMap<Vec<(usize, i64, i64)>> {
    let mut aligns: VarMap<Vec<(usize, i64, i64)>> = Default::default();
    crate::ir::visit::walk_stmts(body, &mut |stmt| {
        let StmtKind::BlockRealize(realize) = stmt.kind() else {
            return;
        };
        let block = &realize.block;
        for (key, value) in &block.annotations {
            if key != "buffer_dim_align" {
                continue;
            }
            let AttrValue::List(entries) = value else {
                continue;
            };
            for entry in entries {
                let AttrValue::List(fields) = entry else {
                    continue;
                };
                let numbers: Vec<i64> = fields.iter().filter_map(AttrValue::as_int).collect();
                let [index, axis, factor, offset] = numbers[..] else {
                    continue;
                };
                let (Ok(index), Ok(axis)) = (usize::try_from(index), usize::try_from(axis)) else {
                    continue;
                };
                let Some(write) = block.writes.get(index) else {
                    continue;
                };
                if axis < write.buffer.rank() && factor > 0 {
                    aligns
                        .entry(write.buffer.data().clone())
                        .or_default()
                        .push((axis, factor, offset));
                }
            }
        }
    });
    aligns
}

/// Row-major strides with each aligned dimension's stride padded to
/// `factor * k + offset` (TVM's `CalcStrides`).
fn aligned_strides(shape: &[Expr], aligns: &[(usize, i64, i64)]) -> Vec<Expr> {
    let Some(first) = shape.first() else {
        return Vec::new();
    };
    let dtype = first.dtype();
    let analyzer = Analyzer::new();
    let mut strides = vec![Expr::one(dtype); shape.len()];
    let mut stride = Expr::one(dtype);
    for dim in (0..shape.len()).rev() {
        if let Some((_, factor, offset)) = aligns.iter().rev().find(|(axis, _, _)| *axis == dim) {
            let factor_expr = Expr::int(*factor, dtype);
            let offset_expr = Expr::int(*offset, dtype);
            // stride + (factor + offset - stride % factor) % factor
            let padded = operators::floormod(stride.clone(), factor_expr.clone())
                .and_then(|rem| {
                    operators::add(factor_expr.clone(), offset_expr)
                        .and_then(|s| operators::sub(s, rem))
                })
                .and_then(|pad| operators::floormod(pad, factor_expr))
                .and_then(|pad| operators::add(stride.clone(), pad));
            if let Ok(padded) = padded {
                stride = analyzer.simplify(&padded);
            }
        }
        strides[dim] = stride.clone();
        if let Ok(next) = operators::mul(stride.clone(), shape[dim].clone()) {
            stride = analyzer.simplify(&next);
        }
    }
    strides
}

/// Rewrites allocations, accesses and regions of compacted buffers.
struct Rewriter<'a> {
    replacements: &'a BufferMap<Compacted>,
    /// Knows the enclosing loops, to simplify the shifted indices.
    analyzer: Analyzer,
}

impl Rewriter<'_> {
    fn shifted(&self, compacted: &Compacted, indices: &[Expr]) -> Vec<Expr> {
        indices
            .iter()
            .zip(&compacted.origin)
            .map(|(index, origin)| self.shifted_index(index, origin))
            .collect()
    }

    /// `index - origin`, simplified knowing the enclosing loops.
    fn shifted_index(&self, index: &Expr, origin: &Expr) -> Expr {
        if operators::is_zero(origin) {
            return index.clone();
        }
        match operators::sub(index.clone(), origin.clone()) {
            Ok(shifted) if shifted.dtype().is_scalar() => self.analyzer.simplify(&shifted),
            Ok(shifted) => shifted,
            Err(_) => index.clone(),
        }
    }

    fn region(&mut self, region: &BufferRegion) -> BufferRegion {
        let ranges: Vec<Range> = region
            .region
            .iter()
            .map(|r| Range::new(self.mutate_expr(&r.min), self.mutate_expr(&r.extent)))
            .collect();
        match self.replacements.get(&region.buffer) {
            Some(compacted) => BufferRegion {
                buffer: compacted.buffer.clone(),
                region: ranges
                    .iter()
                    .zip(&compacted.origin)
                    .map(|(range, origin)| {
                        let min = self.shifted_index(&range.min, origin);
                        Range::new(min, range.extent.clone())
                    })
                    .collect(),
            },
            None => BufferRegion {
                buffer: region.buffer.clone(),
                region: ranges,
            },
        }
    }
}

impl Mutator for Rewriter<'_> {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rebuilt = mutate_expr_children(self, expr);
        if let ExprKind::Load(load) = rebuilt.kind() {
            if let Some(compacted) = self.replacements.get(&load.buffer) {
                let indices = self.shifted(compacted, &load.indices);
                return Expr::new(
                    ExprKind::Load(crate::ir::BufferLoad {
                        buffer: compacted.buffer.clone(),
                        indices,
                    }),
                    rebuilt.dtype(),
                    rebuilt.span(),
                );
            }
        }
        rebuilt
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let StmtKind::For(for_loop) = stmt.kind() {
            if for_loop.extent.dtype().is_integer() {
                self.analyzer.bind(&for_loop.loop_var, &for_loop.range());
            }
        }
        let rebuilt = mutate_stmt_children(self, stmt);
        match rebuilt.kind() {
            StmtKind::BufferStore(store) => match self.replacements.get(&store.buffer) {
                Some(compacted) => {
                    let indices = self.shifted(compacted, &store.indices);
                    rebuilt.with_kind(StmtKind::BufferStore(crate::ir::BufferStore {
                        buffer: compacted.buffer.clone(),
                        value: store.value.clone(),
                        indices,
                    }))
                }
                None => rebuilt,
            },
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => match self.replacements.get(buffer) {
                Some(compacted) => rebuilt.with_kind(StmtKind::AllocBuffer {
                    buffer: compacted.buffer.clone(),
                    annotations: annotations.clone(),
                    body: body.clone(),
                }),
                None => rebuilt,
            },
            _ => rebuilt,
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        let mut rebuilt = mutate_block_children(self, block);
        rebuilt.reads = block.reads.iter().map(|r| self.region(r)).collect();
        rebuilt.writes = block.writes.iter().map(|r| self.region(r)).collect();
        rebuilt.match_buffers = block
            .match_buffers
            .iter()
            .map(|m| MatchBufferRegion {
                buffer: m.buffer.clone(),
                source: self.region(&m.source),
            })
            .collect();
        rebuilt.alloc_buffers = block
            .alloc_buffers
            .iter()
            .map(|b| {
                self.replacements
                    .get(b)
                    .map(|c| c.buffer.clone())
                    .unwrap_or_else(|| b.clone())
            })
            .collect();
        rebuilt
    }
}
