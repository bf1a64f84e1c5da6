//! Regions: every load in a block's body falls inside a read region the
//! block declares, and every store inside a declared write region, for every
//! value of the block's iteration variables (loops inside the block are
//! relaxed to their ranges; nested blocks count with their declared regions).
//! Under `--warn-loose-regions`, a declared region larger than what the
//! block touches is reported as a warning.
//!
//! As in TVM, a reduction block (one with `T.init()`) may read the buffers it
//! writes without listing them among its reads.

use super::codes;
use super::proofs::Facts;
use super::spans::{show_access, show_region, SpanStack};
use crate::analysis::infer_block_regions;
use crate::check::CheckOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferMap, BufferSet, VarMap, VarSet};
use crate::ir::mutate::substitute;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    operators, AttrNode, BinaryOp, Block, BlockRealize, Buffer, BufferRegion, Expr, ExprKind,
    PrimFunc, Range, Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::HashSet;

/// Checks the declared regions of every block of a function.
pub(super) fn check_function(function: &PrimFunc, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut walker = OuterWalk {
        context: Vec::new(),
        warn_loose: options.warn_loose_regions,
        spans: SpanStack::default(),
        diagnostics: Vec::new(),
    };
    let pushed = walker.spans.enter(function.span);
    walker.stmt(&function.body);
    walker.spans.leave(pushed);
    walker.diagnostics
}

/// What surrounds a block: the variables in scope with their ranges.
#[derive(Clone)]
enum Frame {
    /// A variable with its range; `true` for loop variables.
    Range(Var, Range, bool),
    Value(Var, Expr),
}

/// Finds the blocks, keeping the variables around them.
struct OuterWalk {
    context: Vec<Frame>,
    warn_loose: bool,
    spans: SpanStack,
    diagnostics: Vec<Diagnostic>,
}

impl OuterWalk {
    fn stmt(&mut self, stmt: &Stmt) {
        let pushed = self.spans.enter(stmt.span());
        let depth = self.context.len();
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.context.push(Frame::Range(
                    for_loop.loop_var.clone(),
                    for_loop.range(),
                    true,
                ));
                self.stmt(&for_loop.body);
            }
            StmtKind::BlockRealize(realize) => {
                let span = self.spans.current();
                self.check_block(realize, span);
                for iter_var in &realize.block.iter_vars {
                    self.context.push(Frame::Range(
                        iter_var.var.clone(),
                        iter_var.dom.clone(),
                        false,
                    ));
                }
                if let Some(init) = &realize.block.init {
                    self.stmt(init);
                }
                self.stmt(&realize.block.body);
            }
            StmtKind::LetStmt { var, value, body } => {
                self.context.push(Frame::Value(var.clone(), value.clone()));
                self.stmt(body);
            }
            StmtKind::AttrStmt(attr) => {
                if let AttrNode::Thread { var, .. } = &attr.node {
                    self.context.push(Frame::Range(
                        var.clone(),
                        Range::from_extent(attr.value.clone()),
                        false,
                    ));
                }
                self.stmt(&attr.body);
            }
            StmtKind::Seq(stmts) => stmts.iter().for_each(|s| self.stmt(s)),
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                self.stmt(then_case);
                if let Some(else_case) = else_case {
                    self.stmt(else_case);
                }
            }
            StmtKind::Allocate(allocate) => self.stmt(&allocate.body),
            StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Assert { body, .. }
            | StmtKind::While { body, .. } => self.stmt(body),
            StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => {}
        }
        self.context.truncate(depth);
        self.spans.leave(pushed);
    }

    fn check_block(&mut self, realize: &BlockRealize, span: Span) {
        let block = &realize.block;
        // The root block (and any opaque block without a signature) declares nothing.
        if block.iter_vars.is_empty() && block.reads.is_empty() && block.writes.is_empty() {
            return;
        }
        let mut facts = Facts::default();
        let mut foreign = VarSet::default();
        for frame in &self.context {
            match frame {
                Frame::Range(var, range, is_loop) => {
                    facts.bind_range(var, range, false);
                    // A block with iteration variables may not use the loops
                    // around it (E0211); accesses that do are not compared.
                    if *is_loop && !block.iter_vars.is_empty() {
                        foreign.insert(var.clone());
                    }
                }
                Frame::Value(var, value) => facts.bind_value(var, value),
            }
        }
        for iter_var in &block.iter_vars {
            facts.bind_range(&iter_var.var, &iter_var.dom, false);
        }
        let mut checker = AccessChecker {
            block,
            block_span: span,
            facts,
            foreign,
            local: block.alloc_buffers.iter().cloned().collect(),
            matched: block
                .match_buffers
                .iter()
                .map(|m| (m.buffer.clone(), m.source.clone()))
                .collect(),
            spans: SpanStack::default(),
            reported: HashSet::new(),
            inferred: None,
            diagnostics: Vec::new(),
        };
        let pushed = checker.spans.enter(span);
        if let Some(init) = &block.init {
            checker.stmt(init);
        }
        checker.stmt(&block.body);
        checker.spans.leave(pushed);
        let reported_buffers: BufferSet =
            checker.reported.iter().map(|(b, _, _)| b.clone()).collect();
        // Opaque blocks (tensor intrinsics, the root block) declare whole
        // buffers on purpose; only blocks with iteration variables are compared.
        if self.warn_loose && !block.iter_vars.is_empty() {
            let inferred = checker.inferred_regions().clone();
            check_loose_regions(
                block,
                span,
                &inferred,
                &reported_buffers,
                &mut checker.facts,
                &mut self.diagnostics,
            );
        }
        self.diagnostics.append(&mut checker.diagnostics);
    }
}

/// Checks the accesses of one block's body against its declared regions.
struct AccessChecker<'b> {
    block: &'b Block,
    block_span: Span,
    facts: Facts,
    /// Loop variables from outside the block, which it may not use.
    foreign: VarSet,
    /// Buffers allocated inside the block: not part of its signature.
    local: BufferSet,
    /// Buffers the block matches, with the regions they view.
    matched: BufferMap<BufferRegion>,
    spans: SpanStack,
    /// (buffer, is_write, span) already reported.
    reported: HashSet<(Buffer, bool, Span)>,
    inferred: Option<(Vec<BufferRegion>, Vec<BufferRegion>)>,
    diagnostics: Vec<Diagnostic>,
}

/// One dimension of an access: the values it takes, as a range.
fn index_range(index: &Expr) -> Range {
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
            .and_then(|span| operators::add(span, Expr::one(stride.dtype())));
            match last {
                // A positive stride covers [base, base + stride * (lanes - 1)].
                Ok(extent) if stride.as_int().is_some_and(|s| s >= 0) => {
                    Range::new(base.clone(), extent)
                }
                _ => Range::point(base.clone()),
            }
        }
        _ => Range::point(index.clone()),
    }
}

impl<'b> AccessChecker<'b> {
    fn inferred_regions(&mut self) -> &(Vec<BufferRegion>, Vec<BufferRegion>) {
        let block = self.block;
        self.inferred
            .get_or_insert_with(|| infer_block_regions(block))
    }

    /// True when `inner` (in the body's terms) lies inside `outer` (a declared region).
    fn covered(&mut self, inner: &[Range], outer: &BufferRegion) -> bool {
        if inner.len() != outer.region.len() {
            return true; // a rank problem, reported by the buffer checks
        }
        let shape = outer.buffer.shape().to_vec();
        inner
            .iter()
            .zip(&outer.region)
            .enumerate()
            .all(|(dimension, (range, declared))| {
                if range.extent.is_int(1)
                    && declared.extent.is_int(1)
                    && expr_deep_equal(&range.min, &declared.min)
                {
                    return true;
                }
                // Compared by their ends, an empty range (a symbolic `0:n` with
                // `n` = 0) is inside too: no `n - 1 >= 0` to prove.
                if let (Ok(end), Ok(declared_end)) = (range.end(), declared.end()) {
                    if self.facts.prove_greater_equal(&range.min, &declared.min)
                        && self.facts.prove_greater_equal(&declared_end, &end)
                    {
                        return true;
                    }
                }
                let Ok(last) = range.last() else {
                    return false;
                };
                if self.facts.prove_inside(&range.min, declared)
                    && self.facts.prove_inside(&last, declared)
                {
                    return true;
                }
                // What lies outside the buffer is an out-of-bounds access, not a
                // region problem: compare only the part inside the shape.
                let Some(extent) = shape.get(dimension) else {
                    return false;
                };
                let low = operators::binary(
                    BinaryOp::Max,
                    range.min.clone(),
                    Expr::zero(range.min.dtype()),
                );
                // Both ends clamped into the shape: a guarded access may lie
                // wholly below or above it.
                let high = operators::sub(extent.clone(), Expr::one(extent.dtype()))
                    .and_then(|top| operators::binary(BinaryOp::Min, last.clone(), top))
                    .and_then(|high| {
                        operators::binary(BinaryOp::Max, high, Expr::zero(last.dtype()))
                    });
                let low = low.and_then(|low| {
                    operators::sub(extent.clone(), Expr::one(extent.dtype()))
                        .and_then(|top| operators::binary(BinaryOp::Min, low, top))
                });
                match (low, high) {
                    (Ok(low), Ok(high)) => {
                        self.facts.prove_inside(&low, declared)
                            && self.facts.prove_inside(&high, declared)
                    }
                    _ => false,
                }
            })
    }

    /// The regions of `buffer` the block declares for a read (its reads,
    /// and its writes: a block may read back what it writes) or a write.
    fn declared_regions(&self, buffer: &Buffer, write: bool) -> Vec<&'b BufferRegion> {
        let block = self.block;
        let declared = if write { &block.writes } else { &block.reads };
        let mut candidates: Vec<&BufferRegion> =
            declared.iter().filter(|r| r.buffer == *buffer).collect();
        if !write {
            candidates.extend(block.writes.iter().filter(|r| r.buffer == *buffer));
        }
        candidates
    }

    /// Checks one access (given as ranges per dimension) of `buffer`.
    fn access(&mut self, buffer: &Buffer, ranges: Vec<Range>, write: bool, shown: String) {
        if self.local.contains(buffer) {
            return;
        }
        let (buffer, ranges, shown) = match self.matched.get(buffer) {
            Some(source) => (
                source.buffer.clone(),
                source.region.clone(),
                format!("`{}` (through `{}`)", show_region(source), buffer.name()),
            ),
            None => {
                if ranges.len() != buffer.rank() {
                    return; // reported by the buffer checks
                }
                (buffer.clone(), ranges, shown)
            }
        };
        let block = self.block;
        let candidates = self.declared_regions(&buffer, write);
        let foreign = &self.foreign;
        let mentions_foreign = |range: &Range| {
            expr_uses_var(&range.min, &mut |v| foreign.contains(v))
                || expr_uses_var(&range.extent, &mut |v| foreign.contains(v))
        };
        if ranges.iter().any(mentions_foreign)
            || candidates
                .iter()
                .any(|r| r.region.iter().any(mentions_foreign))
        {
            return; // reported by the scoping checks
        }
        if candidates
            .iter()
            .any(|region| self.covered(&ranges, region))
        {
            return;
        }
        let span = self.spans.current();
        if !self.reported.insert((buffer.clone(), write, span)) {
            return;
        }
        let (code, verb, list) = if write {
            (codes::STORE_OUTSIDE_WRITES, "writes", "T.writes")
        } else {
            (codes::LOAD_OUTSIDE_READS, "reads", "T.reads")
        };
        let message = if candidates.is_empty() {
            format!(
                "block \"{}\" {verb} {shown} but `{list}` does not list `{}`",
                block.name,
                buffer.name()
            )
        } else {
            let declared: Vec<String> = candidates.iter().map(|r| show_region(r)).collect();
            format!(
                "{shown} lies outside the region block \"{}\" declares in `{list}`: {}",
                block.name,
                declared.join(", ")
            )
        };
        let suggestion = {
            let (reads, writes) = self.inferred_regions();
            let list_regions = if write { writes } else { reads };
            let parts: Vec<String> = list_regions.iter().map(show_region).collect();
            format!("{list}({})", parts.join(", "))
        };
        self.diagnostics.push(
            Diagnostic::error(code, message, span)
                .with_label(format!("{verb} outside the declared region"))
                .with_secondary(self.block_span, format!("block \"{}\" is declared here", block.name))
                .with_help(format!(
                    "declare what the block touches, `{suggestion}`, or delete `{list}` to let tirc infer it"
                )),
        );
    }

    fn expr(&mut self, expr: &Expr) {
        let pushed = self.spans.enter(expr.span());
        match expr.kind() {
            ExprKind::Load(load) => {
                let ranges = load.indices.iter().map(index_range).collect();
                let shown = format!("`{}`", show_access(&load.buffer, &load.indices));
                self.access(&load.buffer, ranges, false, shown);
                load.indices.iter().for_each(|i| self.expr(i));
            }
            ExprKind::Let { var, value, body } => {
                self.expr(value);
                self.facts.bind_value(var, value);
                self.expr(body);
            }
            _ => {
                let mut children = Vec::new();
                collect_children(expr, &mut children);
                for child in children {
                    self.expr(&child);
                }
            }
        }
        self.spans.leave(pushed);
    }

    fn child_block(&mut self, realize: &BlockRealize) {
        for value in &realize.iter_values {
            self.expr(value);
        }
        let child = &realize.block;
        if child.iter_vars.len() != realize.iter_values.len() {
            return;
        }
        let bindings: VarMap<Expr> = child
            .iter_vars
            .iter()
            .map(|iv| iv.var.clone())
            .zip(realize.iter_values.iter().cloned())
            .collect();
        let guarded = !realize.predicate.is_int(1) && realize.predicate.dtype().is_bool();
        if guarded {
            self.facts.push_condition(&realize.predicate);
        }
        // The child's iterators take values in their domains (its bindings
        // are checked against them): a region inside the declared one over
        // those domains is inside, even where the bindings, relaxed over
        // the loops of a non-dividing split, are not provably so.
        for iter_var in &child.iter_vars {
            self.facts.bind_range(&iter_var.var, &iter_var.dom, true);
        }
        let locals: Vec<Buffer> = child.alloc_buffers.clone();
        for (write, regions) in [(false, &child.reads), (true, &child.writes)] {
            for region in regions {
                if locals.contains(&region.buffer) {
                    continue;
                }
                if !self.matched.contains_key(&region.buffer)
                    && self
                        .declared_regions(&region.buffer, write)
                        .iter()
                        .any(|declared| {
                            declared.region.len() == region.region.len()
                                && self.covered(&region.region, declared)
                        })
                {
                    continue;
                }
                let ranges: Vec<Range> = region
                    .region
                    .iter()
                    .map(|r| {
                        Range::new(
                            substitute(&r.min, &bindings),
                            substitute(&r.extent, &bindings),
                        )
                    })
                    .collect();
                let shown = format!(
                    "the region `{}` of block \"{}\"",
                    show_region(region),
                    child.name
                );
                self.access(&region.buffer, ranges, write, shown);
            }
        }
        for iter_var in &child.iter_vars {
            self.facts.unrelax(&iter_var.var);
        }
        if guarded {
            self.facts.pop_condition();
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let pushed = self.spans.enter(stmt.span());
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.expr(&for_loop.min);
                self.expr(&for_loop.extent);
                let range = for_loop.range();
                self.facts.bind_range(&for_loop.loop_var, &range, true);
                self.stmt(&for_loop.body);
                self.facts.unrelax(&for_loop.loop_var);
            }
            StmtKind::BlockRealize(realize) => self.child_block(realize),
            StmtKind::BufferStore(store) => {
                self.expr(&store.value);
                store.indices.iter().for_each(|i| self.expr(i));
                let ranges = store.indices.iter().map(index_range).collect();
                let shown = format!("`{}`", show_access(&store.buffer, &store.indices));
                self.access(&store.buffer, ranges, true, shown);
            }
            StmtKind::Seq(stmts) => stmts.iter().for_each(|s| self.stmt(s)),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.expr(condition);
                self.facts.push_condition(condition);
                self.stmt(then_case);
                self.facts.pop_condition();
                if let Some(else_case) = else_case {
                    match operators::logical_not(condition.clone()) {
                        Ok(negated) => {
                            self.facts.push_condition(&negated);
                            self.stmt(else_case);
                            self.facts.pop_condition();
                        }
                        Err(_) => self.stmt(else_case),
                    }
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                self.expr(value);
                self.facts.bind_value(var, value);
                self.stmt(body);
            }
            StmtKind::Evaluate(value) => self.expr(value),
            StmtKind::Allocate(allocate) => {
                allocate.extents.iter().for_each(|e| self.expr(e));
                self.stmt(&allocate.body);
            }
            StmtKind::AllocBuffer { buffer, body, .. } | StmtKind::DeclBuffer { buffer, body } => {
                self.local.insert(buffer.clone());
                self.stmt(body);
            }
            StmtKind::AttrStmt(attr) => {
                self.expr(&attr.value);
                if let AttrNode::Thread { var, .. } = &attr.node {
                    self.facts
                        .bind_range(var, &Range::from_extent(attr.value.clone()), true);
                }
                self.stmt(&attr.body);
            }
            StmtKind::Assert {
                condition,
                message,
                body,
                ..
            } => {
                self.expr(condition);
                message.iter().for_each(|m| self.expr(m));
                self.stmt(body);
            }
            StmtKind::While { condition, body } => {
                self.expr(condition);
                self.stmt(body);
            }
        }
        self.spans.leave(pushed);
    }
}

/// The direct operands of an expression (loads and lets are handled by the caller).
fn collect_children(expr: &Expr, out: &mut Vec<Expr>) {
    match expr.kind() {
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {}
        ExprKind::Cast(value) | ExprKind::Not(value) => out.push(value.clone()),
        ExprKind::Binary(_, a, b) => out.extend([a.clone(), b.clone()]),
        ExprKind::Select(c, a, b) => out.extend([c.clone(), a.clone(), b.clone()]),
        ExprKind::Load(load) => out.extend(load.indices.iter().cloned()),
        ExprKind::Ramp { base, stride, .. } => out.extend([base.clone(), stride.clone()]),
        ExprKind::Broadcast { value, .. } => out.push(value.clone()),
        ExprKind::Let { value, body, .. } => out.extend([value.clone(), body.clone()]),
        ExprKind::Call { args, .. } | ExprKind::CallFunction { args, .. } => {
            out.extend(args.iter().cloned())
        }
        ExprKind::Shuffle { vectors, indices } => {
            out.extend(vectors.iter().cloned());
            out.extend(indices.iter().cloned());
        }
    }
}

/// Warns about declared regions larger than what the block touches.
fn check_loose_regions(
    block: &Block,
    span: Span,
    inferred: &(Vec<BufferRegion>, Vec<BufferRegion>),
    reported: &BufferSet,
    facts: &mut Facts,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let (inferred_reads, inferred_writes) = inferred;
    // Variables the body defines (inner loops are already relaxed by the
    // inference; threads and lets are not): a region in their terms says
    // nothing about the block as a whole. Buffers reached through their data
    // pointer are accessed opaquely and cannot be compared either.
    let mut inner_vars: VarSet = Default::default();
    let mut used_vars: VarSet = Default::default();
    let mut record = |stmt: &Stmt| match stmt.kind() {
        StmtKind::LetStmt { var, .. } => {
            inner_vars.insert(var.clone());
        }
        StmtKind::AttrStmt(attr) => {
            if let AttrNode::Thread { var, .. } = &attr.node {
                inner_vars.insert(var.clone());
            }
        }
        StmtKind::For(for_loop) => {
            inner_vars.insert(for_loop.loop_var.clone());
        }
        _ => {}
    };
    crate::ir::visit::walk_stmts(&block.body, &mut record);
    crate::ir::visit::walk_exprs_in_stmt(&block.body, &mut |e| {
        if let ExprKind::Var(v) = e.kind() {
            used_vars.insert(v.clone());
        }
    });
    let mentions_inner = |region: &BufferRegion| {
        region.region.iter().any(|r| {
            expr_uses_var(&r.min, &mut |v| inner_vars.contains(v))
                || expr_uses_var(&r.extent, &mut |v| inner_vars.contains(v))
        })
    };
    for (declared, touched, verb) in [
        (&block.reads, inferred_reads, "reads"),
        (&block.writes, inferred_writes, "writes"),
    ] {
        for region in declared {
            let opaque = used_vars.contains(region.buffer.data())
                || block.match_buffers.iter().any(|m| {
                    m.source.buffer == region.buffer && used_vars.contains(m.buffer.data())
                });
            if reported.contains(&region.buffer) || opaque {
                continue;
            }
            let Some(actual) = touched.iter().find(|r| r.buffer == region.buffer) else {
                // A reduction block's inferred reads leave out what it writes.
                let read_of_written = verb == "reads"
                    && block.init.is_some()
                    && inferred_writes.iter().any(|w| w.buffer == region.buffer);
                if !read_of_written {
                    diagnostics.push(
                        Diagnostic::warning(
                            codes::LOOSE_REGION,
                            format!(
                                "block \"{}\" declares that it {verb} `{}` but never does",
                                block.name,
                                show_region(region)
                            ),
                            span,
                        )
                        .with_help(format!(
                            "remove `{}` from the declared regions",
                            show_region(region)
                        )),
                    );
                }
                continue;
            };
            if region.region.len() != actual.region.len() || mentions_inner(actual) {
                continue;
            }
            let mut equal = true;
            let mut contains = true;
            for (declared_range, actual_range) in region.region.iter().zip(&actual.region) {
                let same_min = facts.prove_greater_equal(&declared_range.min, &actual_range.min)
                    && facts.prove_greater_equal(&actual_range.min, &declared_range.min);
                let same_extent = facts
                    .prove_greater_equal(&declared_range.extent, &actual_range.extent)
                    && facts.prove_greater_equal(&actual_range.extent, &declared_range.extent);
                equal &= same_min && same_extent;
                contains &= match actual_range.last() {
                    Ok(last) => {
                        facts.prove_inside(&actual_range.min, declared_range)
                            && facts.prove_inside(&last, declared_range)
                    }
                    Err(_) => false,
                };
            }
            if contains && !equal {
                diagnostics.push(
                    Diagnostic::warning(
                        codes::LOOSE_REGION,
                        format!(
                            "block \"{}\" declares that it {verb} `{}` but only touches `{}`",
                            block.name,
                            show_region(region),
                            show_region(actual)
                        ),
                        span,
                    )
                    .with_help(format!(
                        "declare the tighter region `{}`",
                        show_region(actual)
                    )),
                );
            }
        }
    }
}
