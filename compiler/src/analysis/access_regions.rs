//! Infers a block's read and write regions from its body, as TVM's
//! `GetBlockReadWriteRegion` does: every access is relaxed over the loops
//! inside the block, accesses to one buffer are unioned, child blocks count
//! with their declared regions, and a reduction block (one with `T.init`)
//! does not list the buffers it writes among its reads.

use crate::ir::operators;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{
    BinaryOp, Block, Buffer, BufferRegion, Expr, ExprKind, Range, Stmt, StmtKind, Var,
};
use std::collections::HashMap;

/// An inclusive interval `[min, max]` with symbolic bounds.
#[derive(Clone, Debug)]
struct Interval {
    min: Expr,
    max: Expr,
}

impl Interval {
    fn point(e: Expr) -> Interval {
        Interval {
            min: e.clone(),
            max: e,
        }
    }
}

struct Detector<'b> {
    /// Loops inside the block, with inclusive bounds.
    domains: HashMap<Var, Interval>,
    /// Buffers the block itself allocates: not part of its signature.
    local: &'b [Buffer],
    /// Matched buffers map back to the region they view.
    matched: HashMap<Buffer, BufferRegion>,
    reads: Vec<(Buffer, Vec<Option<Interval>>)>,
    writes: Vec<(Buffer, Vec<Option<Interval>>)>,
}

fn contains_domain_var(e: &Expr, domains: &HashMap<Var, Interval>) -> bool {
    crate::ir::visit::expr_uses_var(e, &mut |v| domains.contains_key(v))
}

/// Interval arithmetic over the loop domains; `None` when the bounds are unknown.
fn eval_interval(e: &Expr, domains: &HashMap<Var, Interval>) -> Option<Interval> {
    if !contains_domain_var(e, domains) {
        return Some(Interval::point(e.clone()));
    }
    match e.kind() {
        ExprKind::Var(v) => domains.get(v).cloned(),
        ExprKind::Binary(op, a, b) => {
            let ia = eval_interval(a, domains)?;
            let ib = eval_interval(b, domains)?;
            match op {
                BinaryOp::Add => Some(Interval {
                    min: operators::add(ia.min, ib.min).ok()?,
                    max: operators::add(ia.max, ib.max).ok()?,
                }),
                BinaryOp::Sub => Some(Interval {
                    min: operators::sub(ia.min, ib.max).ok()?,
                    max: operators::sub(ia.max, ib.min).ok()?,
                }),
                BinaryOp::Mul => {
                    let (interval, factor) = match (b.as_int(), a.as_int()) {
                        (Some(c), _) => (ia, c),
                        (None, Some(c)) => (ib, c),
                        _ => return None,
                    };
                    let c = Expr::int(factor, interval.min.dtype());
                    let (lo, hi) = (
                        operators::mul(interval.min, c.clone()).ok()?,
                        operators::mul(interval.max, c).ok()?,
                    );
                    Some(if factor >= 0 {
                        Interval { min: lo, max: hi }
                    } else {
                        Interval { min: hi, max: lo }
                    })
                }
                BinaryOp::FloorDiv => {
                    let c = b.as_int().filter(|c| *c > 0)?;
                    let c = Expr::int(c, ia.min.dtype());
                    Some(Interval {
                        min: operators::floordiv(ia.min, c.clone()).ok()?,
                        max: operators::floordiv(ia.max, c).ok()?,
                    })
                }
                BinaryOp::FloorMod => {
                    let c = b.as_int().filter(|c| *c > 0)?;
                    Some(Interval {
                        min: Expr::zero(ia.min.dtype()),
                        max: Expr::int(c - 1, ia.min.dtype()),
                    })
                }
                BinaryOp::Min | BinaryOp::Max => Some(Interval {
                    min: operators::binary(*op, ia.min, ib.min).ok()?,
                    max: operators::binary(*op, ia.max, ib.max).ok()?,
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A linear combination of atoms with integer coefficients, used to cancel
/// terms in `max - min + 1`.
fn linear_terms(e: &Expr, sign: i64, terms: &mut Vec<(Expr, i64)>, constant: &mut i64) {
    match e.kind() {
        ExprKind::Int(v) => *constant += sign * v,
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            linear_terms(a, sign, terms, constant);
            linear_terms(b, sign, terms, constant);
        }
        ExprKind::Binary(BinaryOp::Sub, a, b) => {
            linear_terms(a, sign, terms, constant);
            linear_terms(b, -sign, terms, constant);
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) if b.as_int().is_some() => {
            linear_terms(a, sign * b.as_int().unwrap_or(1), terms, constant)
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) if a.as_int().is_some() => {
            linear_terms(b, sign * a.as_int().unwrap_or(1), terms, constant)
        }
        _ => match terms.iter_mut().find(|(atom, _)| expr_deep_equal(atom, e)) {
            Some((_, coefficient)) => *coefficient += sign,
            None => terms.push((e.clone(), sign)),
        },
    }
}

/// Cancels terms of an integer index expression and rebuilds it as
/// `a * 4 + b + 3` (the region extents of `A[i * 4:i * 4 + 4]`).
pub fn simplify_index(e: &Expr) -> Expr {
    simplify_linear(e)
}

fn simplify_linear(e: &Expr) -> Expr {
    if !e.dtype().is_int() || e.dtype().lanes != 1 {
        return e.clone();
    }
    let mut terms = Vec::new();
    let mut constant = 0;
    linear_terms(e, 1, &mut terms, &mut constant);
    let dtype = e.dtype();
    let mut result: Option<Expr> = None;
    for (atom, coefficient) in terms.into_iter().filter(|(_, c)| *c != 0) {
        let term = if coefficient == 1 {
            atom
        } else {
            Expr::binary(BinaryOp::Mul, atom, Expr::int(coefficient, dtype))
        };
        result = Some(match result {
            None => term,
            Some(sum) => Expr::binary(BinaryOp::Add, sum, term),
        });
    }
    match result {
        None => Expr::int(constant, dtype),
        Some(sum) if constant > 0 => Expr::binary(BinaryOp::Add, sum, Expr::int(constant, dtype)),
        Some(sum) if constant < 0 => Expr::binary(BinaryOp::Sub, sum, Expr::int(-constant, dtype)),
        Some(sum) => sum,
    }
}

fn union(a: Interval, b: Interval) -> Interval {
    let pick = |op: BinaryOp, x: Expr, y: Expr| {
        if expr_deep_equal(&x, &y) {
            x
        } else {
            operators::binary(op, x.clone(), y).unwrap_or(x)
        }
    };
    Interval {
        min: pick(BinaryOp::Min, a.min, b.min),
        max: pick(BinaryOp::Max, a.max, b.max),
    }
}

impl Detector<'_> {
    fn record(&mut self, write: bool, buffer: &Buffer, region: Vec<Option<Interval>>) {
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
                    .map(|r| {
                        let max = operators::sub(
                            operators::add(r.min.clone(), r.extent.clone()).ok()?,
                            Expr::one(r.min.dtype()),
                        )
                        .ok()?;
                        let lo = eval_interval(&r.min, &self.domains)?;
                        let hi = eval_interval(&max, &self.domains)?;
                        Some(Interval {
                            min: lo.min,
                            max: hi.max,
                        })
                    })
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
                    *slot = match (slot.take(), new) {
                        (Some(a), Some(b)) => Some(union(a, b)),
                        _ => None,
                    };
                }
            }
            None => list.push((buffer, region)),
        }
    }

    fn access(&mut self, write: bool, buffer: &Buffer, indices: &[Expr]) {
        let region = indices
            .iter()
            .map(|index| eval_interval(index, &self.domains))
            .collect();
        self.record(write, buffer, region);
    }
}

impl Visitor for Detector<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::For(f) => {
                let max = operators::sub(
                    operators::add(f.min.clone(), f.extent.clone()).unwrap_or(f.extent.clone()),
                    Expr::one(f.min.dtype()),
                )
                .unwrap_or(f.extent.clone());
                self.domains.insert(
                    f.loop_var.clone(),
                    Interval {
                        min: f.min.clone(),
                        max,
                    },
                );
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
                let bindings: HashMap<Var, Expr> = realize
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
                                let min = crate::ir::mutate::substitute(&r.min, &bindings);
                                let extent = crate::ir::mutate::substitute(&r.extent, &bindings);
                                let max = operators::sub(
                                    operators::add(min.clone(), extent).ok()?,
                                    Expr::one(min.dtype()),
                                )
                                .ok()?;
                                let lo = eval_interval(&min, &self.domains)?;
                                let hi = eval_interval(&max, &self.domains)?;
                                Some(Interval {
                                    min: lo.min,
                                    max: hi.max,
                                })
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

fn to_regions(entries: Vec<(Buffer, Vec<Option<Interval>>)>) -> Vec<BufferRegion> {
    entries
        .into_iter()
        .map(|(buffer, intervals)| {
            let region = intervals
                .into_iter()
                .enumerate()
                .map(|(dim, interval)| match interval {
                    Some(Interval { min, max }) => {
                        let min = simplify_linear(&min);
                        let max = simplify_linear(&max);
                        if expr_deep_equal(&min, &max) {
                            Range::point(min)
                        } else {
                            let extent = operators::sub(max, min.clone())
                                .and_then(|d| operators::add(d, Expr::one(min.dtype())))
                                .map(|e| simplify_linear(&e))
                                .unwrap_or_else(|_| Expr::one(min.dtype()));
                            Range::new(min, extent)
                        }
                    }
                    None => match buffer.shape().get(dim) {
                        Some(extent) => Range::from_extent(extent.clone()),
                        None => Range::point(Expr::i32(0)),
                    },
                })
                .collect();
            BufferRegion { buffer, region }
        })
        .collect()
}

/// The read and write regions of a block, in terms of its iteration variables.
pub fn infer_block_regions(block: &Block) -> (Vec<BufferRegion>, Vec<BufferRegion>) {
    let mut detector = Detector {
        domains: HashMap::new(),
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
