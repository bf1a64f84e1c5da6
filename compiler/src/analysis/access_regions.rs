//! Infers a block's read and write regions from its body, as TVM's
//! `GetBlockReadWriteRegion` does: every access is relaxed over the loops
//! inside the block, accesses to one buffer are unioned, child blocks count
//! with their declared regions, and a reduction block (one with `T.init`)
//! does not list the buffers it writes among its reads.

use crate::arith::int_set::{eval_range, eval_set, IntSet};
use crate::arith::Analyzer;
use crate::ir::identity::{BufferMap, VarMap};
use crate::ir::mutate::substitute;
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{Block, Buffer, BufferRegion, Expr, ExprKind, Range, Stmt, StmtKind};

/// Simplifies an integer index expression (the region extents of
/// `A[i * 4:i * 4 + 4]`, slice lengths) as TVM's parser does.
pub fn simplify_index(e: &Expr) -> Expr {
    Analyzer::new().simplify(e)
}

struct Detector<'b> {
    /// Loops inside the block, as integer sets.
    domains: VarMap<IntSet>,
    /// Buffers the block itself allocates: not part of its signature.
    local: &'b [Buffer],
    /// Matched buffers map back to the region they view.
    matched: BufferMap<BufferRegion>,
    reads: Vec<(Buffer, Vec<IntSet>)>,
    writes: Vec<(Buffer, Vec<IntSet>)>,
}

impl Detector<'_> {
    fn record(&mut self, write: bool, buffer: &Buffer, region: Vec<IntSet>) {
        if self.local.contains(buffer) {
            return;
        }
        let (buffer, region) = match self.matched.get(buffer) {
            // An access through a matched buffer touches the whole matched region.
            Some(source) => (
                source.buffer.clone(),
                source
                    .region
                    .iter()
                    .map(|r| eval_range(r, &self.domains))
                    .collect(),
            ),
            None => (buffer.clone(), region),
        };
        let list = if write {
            &mut self.writes
        } else {
            &mut self.reads
        };
        match list.iter_mut().find(|(b, _)| *b == buffer) {
            Some((_, existing)) => {
                for (slot, new) in existing.iter_mut().zip(region) {
                    *slot = slot.union_with(&new);
                }
            }
            None => list.push((buffer, region)),
        }
    }

    fn access(&mut self, write: bool, buffer: &Buffer, indices: &[Expr]) {
        // A malformed access (wrong number of indices) defines no region:
        // the error is the access's, reported where it is written, and a
        // region inferred from it would repeat it at the block.
        if indices.len() != buffer.rank() {
            return;
        }
        let region = indices
            .iter()
            .map(|index| eval_set(index, &self.domains))
            .collect();
        self.record(write, buffer, region);
    }
}

impl Visitor for Detector<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::For(f) => {
                let domain = IntSet::from_range(&f.range());
                self.domains.insert(f.loop_var.clone(), domain);
                walk_stmt(self, stmt);
                self.domains.remove(&f.loop_var);
            }
            StmtKind::BufferStore(store) => {
                self.access(true, &store.buffer, &store.indices);
                self.visit_expr(&store.value);
                for index in &store.indices {
                    self.visit_expr(index);
                }
            }
            StmtKind::BlockRealize(realize) => {
                // A child block counts with its declared regions, bound and relaxed.
                let bindings: VarMap<Expr> = realize
                    .block
                    .iter_vars
                    .iter()
                    .map(|iv| iv.var.clone())
                    .zip(realize.iter_values.iter().cloned())
                    .collect();
                for (write, regions) in
                    [(false, &realize.block.reads), (true, &realize.block.writes)]
                {
                    for region in regions {
                        let relaxed = region
                            .region
                            .iter()
                            .map(|r| {
                                let bound = Range::new(
                                    substitute(&r.min, &bindings),
                                    substitute(&r.extent, &bindings),
                                );
                                eval_range(&bound, &self.domains)
                            })
                            .collect();
                        self.record(write, &region.buffer, relaxed);
                    }
                }
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Load(load) = expr.kind() {
            self.access(false, &load.buffer, &load.indices);
        }
        walk_expr(self, expr);
    }
}

fn to_regions(entries: Vec<(Buffer, Vec<IntSet>)>) -> Vec<BufferRegion> {
    let analyzer = Analyzer::new();
    entries
        .into_iter()
        .map(|(buffer, sets)| {
            let region = sets
                .into_iter()
                .enumerate()
                .map(|(dim, set)| {
                    if set.can_prove_single_point(&analyzer) {
                        // TVM keeps a point access's index as written, and
                        // simplifies the union of several (`T.min(a, a)`).
                        if let Some(point) = set.point_value() {
                            return Range::point(point.clone());
                        }
                        if let Some(min) = set.min() {
                            return Range::point(analyzer.simplify(min));
                        }
                    }
                    let fallback = match buffer.shape().get(dim) {
                        Some(extent) => Range::from_extent(extent.clone()),
                        None => Range::point(Expr::i32(0)),
                    };
                    let range = set.cover_range(&fallback);
                    Range::new(
                        analyzer.simplify(&range.min),
                        analyzer.simplify(&range.extent),
                    )
                })
                .collect();
            BufferRegion { buffer, region }
        })
        .collect()
}

/// The read and write regions of a block, in terms of its iteration variables.
pub fn infer_block_regions(block: &Block) -> (Vec<BufferRegion>, Vec<BufferRegion>) {
    let mut detector = Detector {
        domains: Default::default(),
        local: &block.alloc_buffers,
        matched: block
            .match_buffers
            .iter()
            .map(|m| (m.buffer.clone(), m.source.clone()))
            .collect(),
        reads: Vec::new(),
        writes: Vec::new(),
    };
    if let Some(init) = &block.init {
        detector.visit_stmt(init);
    }
    detector.visit_stmt(&block.body);
    let writes = to_regions(detector.writes);
    let mut reads = to_regions(detector.reads);
    if block.init.is_some() {
        reads.retain(|r| !writes.iter().any(|w| w.buffer == r.buffer));
    }
    (reads, writes)
}
