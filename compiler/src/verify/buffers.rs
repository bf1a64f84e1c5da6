//! Buffers: every access and region has one index per dimension, constant
//! indices and constant regions lie inside the shape, a `T.match_buffer`
//! has the shape of the region it matches, and storage scopes are ones tirc
//! knows.

use super::codes;
use super::spans::{show, show_region, SpanStack};
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::buffer::is_known_scope;
use crate::ir::identity::BufferSet;
use crate::ir::visit::{walk_block, walk_expr, walk_stmt, Visitor};
use crate::ir::{Block, Buffer, BufferRegion, Expr, ExprKind, PrimFunc, Stmt, StmtKind};
use crate::source::Span;

/// Scopes offered as "did you mean" suggestions.
const COMMON_SCOPES: &[&str] = &[
    "global",
    "shared",
    "shared.dyn",
    "local",
    "warp",
    "wmma.matrix_a",
    "wmma.matrix_b",
    "wmma.accumulator",
];

/// Checks every buffer declaration, access and region of a function.
pub(super) fn check_function(function: &PrimFunc) -> Vec<Diagnostic> {
    let mut checker = BufferChecker {
        spans: SpanStack::default(),
        diagnostics: Vec::new(),
        scope_reported: Default::default(),
    };
    let pushed = checker.spans.enter(function.span);
    for (_, buffer) in &function.buffer_map {
        checker.visit_buffer_def(buffer);
    }
    checker.visit_stmt(&function.body);
    checker.spans.leave(pushed);
    checker.diagnostics
}

struct BufferChecker {
    spans: SpanStack,
    diagnostics: Vec<Diagnostic>,
    scope_reported: BufferSet,
}

/// The inclusive constant range of an index: a literal, or a ramp with a
/// literal base and stride.
fn constant_index_range(index: &Expr) -> Option<(i64, i64)> {
    match index.kind() {
        ExprKind::Int(value) => Some((*value, *value)),
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } => {
            let (base, stride) = (base.as_int()?, stride.as_int()?);
            let last = base.checked_add(stride.checked_mul(i64::from(*lanes) - 1)?)?;
            Some((base.min(last), base.max(last)))
        }
        _ => None,
    }
}

impl BufferChecker {
    fn check_scope(&mut self, scope: &str, what: String, span: Span) {
        if is_known_scope(scope) {
            return;
        }
        let mut diagnostic = Diagnostic::error(
            codes::UNKNOWN_SCOPE,
            format!("unknown storage scope \"{scope}\" for {what}"),
            span,
        )
        .with_label("not a storage scope");
        diagnostic = match crate::frontend::suggest(scope, COMMON_SCOPES.iter().copied()) {
            Some(known) => diagnostic.with_help(format!("did you mean \"{known}\"?")),
            None => diagnostic.with_help(
                "use one of \"global\", \"shared\", \"shared.dyn\", \"local\", \"warp\" or a \"wmma.*\" fragment scope",
            ),
        };
        self.diagnostics.push(diagnostic);
    }

    /// Index count and constant bounds of one access. Returns false when the
    /// count is wrong (the bounds are then not checked).
    fn check_access(&mut self, buffer: &Buffer, indices: &[Expr], span: Span, verb: &str) {
        if indices.len() != buffer.rank() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::WRONG_INDEX_COUNT,
                    format!(
                        "`{}` has {} dimension{} but is {verb} with {} ind{}",
                        buffer.name(),
                        buffer.rank(),
                        if buffer.rank() == 1 { "" } else { "s" },
                        indices.len(),
                        if indices.len() == 1 { "ex" } else { "ices" }
                    ),
                    span,
                )
                .with_secondary(
                    buffer.span(),
                    format!("`{}` is declared here", buffer.name()),
                )
                .with_help(format!(
                    "write one index per dimension: {} in all",
                    buffer.rank()
                )),
            );
            return;
        }
        for (dimension, (index, extent)) in indices.iter().zip(buffer.shape()).enumerate() {
            let (Some((low, high)), Some(extent)) = (constant_index_range(index), extent.as_int())
            else {
                continue;
            };
            // A vector index only needs its first lane inside the dimension: the
            // lanes run on through memory, as TVM's tensor intrinsics read a
            // whole tile with `B[0, T.Ramp(0, 1, 16)]`; the flat check below
            // keeps them inside the buffer.
            let (low, high) = match index.kind() {
                ExprKind::Ramp { base, .. } => match base.as_int() {
                    Some(first) => (first, first),
                    None => (low, high),
                },
                _ => (low, high),
            };
            let outside = if low < 0 { low } else { high };
            if low < 0 || high >= extent {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::INDEX_OUT_OF_BOUNDS,
                        format!(
                            "index {outside} is out of bounds for dimension {dimension} of `{}`, whose extent is {extent}",
                            buffer.name()
                        ),
                        self.spans.or_current(index.span()).to(span),
                    )
                    .with_label(format!("`{}` is outside 0..{extent}", show(index)))
                    .with_secondary(buffer.span(), format!("`{}` is declared here", buffer.name()))
                    .with_help(format!("indices of dimension {dimension} run from 0 to {}", extent - 1)),
                );
                return;
            }
        }
        self.check_flat_extent(buffer, indices, span);
    }

    /// A constant vector access must end inside the buffer's memory.
    fn check_flat_extent(&mut self, buffer: &Buffer, indices: &[Expr], span: Span) {
        if !indices
            .iter()
            .any(|i| matches!(i.kind(), ExprKind::Ramp { .. }))
        {
            return;
        }
        let Some(shape) = buffer.constant_shape() else {
            return;
        };
        if !buffer.node().strides.is_empty() {
            return;
        }
        let mut last = 0i64;
        let mut total = 1i64;
        for (index, extent) in indices.iter().zip(&shape).rev() {
            let Some((_, high)) = constant_index_range(index) else {
                return;
            };
            let Some(offset) = high.checked_mul(total).and_then(|o| o.checked_add(last)) else {
                return;
            };
            last = offset;
            let Some(next) = total.checked_mul(*extent) else {
                return;
            };
            total = next;
        }
        if last >= total {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::INDEX_OUT_OF_BOUNDS,
                    format!(
                        "the vector access `{}` reaches element {last} of `{}`, which has {total} elements",
                        super::spans::show_access(buffer, indices),
                        buffer.name()
                    ),
                    span,
                )
                .with_secondary(buffer.span(), format!("`{}` is declared here", buffer.name()))
                .with_help("shorten the vector or start it earlier so every lane lies inside the buffer"),
            );
        }
    }

    fn check_region(&mut self, region: &BufferRegion, what: &str) {
        let buffer = &region.buffer;
        // A region the user wrote (`T.reads(A[i, 0:4])`) is blamed where it
        // is written; an inferred one has no span and is blamed at the block.
        let span = region_span(region).unwrap_or_else(|| self.spans.current());
        if region.region.len() != buffer.rank() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::WRONG_INDEX_COUNT,
                    format!(
                        "the {what} `{}` has {} dimension{} but `{}` has {}",
                        show_region(region),
                        region.region.len(),
                        if region.region.len() == 1 { "" } else { "s" },
                        buffer.name(),
                        buffer.rank()
                    ),
                    span,
                )
                .with_secondary(
                    buffer.span(),
                    format!("`{}` is declared here", buffer.name()),
                )
                .with_help(format!(
                    "give one index or slice per dimension of `{}`",
                    buffer.name()
                )),
            );
            return;
        }
        for (dimension, (range, extent)) in region.region.iter().zip(buffer.shape()).enumerate() {
            let (Some(min), Some(length), Some(extent)) =
                (range.min.as_int(), range.extent.as_int(), extent.as_int())
            else {
                continue;
            };
            if min < 0 || min.saturating_add(length) > extent {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::REGION_OUT_OF_BOUNDS,
                        format!(
                            "the {what} `{}` covers {}..{} in dimension {dimension}, outside the extent {extent} of `{}`",
                            show_region(region),
                            min,
                            min.saturating_add(length),
                            buffer.name()
                        ),
                        span,
                    )
                    .with_secondary(buffer.span(), format!("`{}` is declared here", buffer.name()))
                    .with_help(format!("keep dimension {dimension} within 0:{extent}")),
                );
            }
        }
    }

    fn check_match_buffer(&mut self, buffer: &Buffer, source: &BufferRegion) {
        if source.region.len() != source.buffer.rank() {
            return; // reported by `check_region`
        }
        let span = self.spans.or_current(buffer.span());
        let shape = buffer.shape();
        let region = &source.region;
        let shape_text = || {
            let parts: Vec<String> = shape.iter().map(show).collect();
            format!("({})", parts.join(", "))
        };
        if shape.len() > region.len() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::MATCH_BUFFER_SHAPE,
                    format!(
                        "`{}` has {} dimensions but matches the {}-dimensional region `{}`",
                        buffer.name(),
                        shape.len(),
                        region.len(),
                        show_region(source)
                    ),
                    span,
                )
                .with_help("a matched buffer has at most as many dimensions as its region"),
            );
            return;
        }
        let analyzer = Analyzer::new();
        let leading = region.len() - shape.len();
        let differs = |a: &Expr, b: &Expr| -> bool {
            match crate::ir::operators::sub(a.clone(), b.clone()) {
                Ok(difference) => analyzer
                    .simplify(&difference)
                    .as_int()
                    .is_some_and(|d| d != 0),
                Err(_) => false,
            }
        };
        let one = Expr::i32(1);
        let leading_not_unit = region[..leading]
            .iter()
            .any(|range| differs(&range.extent, &one));
        let trailing_differ = region[leading..]
            .iter()
            .zip(shape)
            .any(|(range, extent)| differs(&range.extent, extent));
        if leading_not_unit || trailing_differ {
            let extents: Vec<String> = region.iter().map(|r| show(&r.extent)).collect();
            self.diagnostics.push(
                Diagnostic::error(
                    codes::MATCH_BUFFER_SHAPE,
                    format!(
                        "`{}` has shape {} but the region `{}` it matches has extents ({})",
                        buffer.name(),
                        shape_text(),
                        show_region(source),
                        extents.join(", ")
                    ),
                    span,
                )
                .with_help(format!(
                    "make the shape of `{}` the region's extents ({}), or change the region",
                    buffer.name(),
                    extents.join(", ")
                )),
            );
        }
    }
}

impl Visitor for BufferChecker {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let pushed = self.spans.enter(stmt.span());
        match stmt.kind() {
            StmtKind::BufferStore(store) => {
                let span = self.spans.current();
                self.check_access(&store.buffer, &store.indices, span, "stored");
            }
            StmtKind::Allocate(allocate) => {
                if let Some(pointer) = &allocate.buffer_var.node().pointer {
                    let span = self.spans.or_current(allocate.buffer_var.span());
                    self.check_scope(
                        &pointer.scope,
                        format!("allocation `{}`", allocate.buffer_var.name()),
                        span,
                    );
                }
            }
            _ => {}
        }
        walk_stmt(self, stmt);
        self.spans.leave(pushed);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        let pushed = self.spans.enter(expr.span());
        if let ExprKind::Load(load) = expr.kind() {
            let span = self.spans.current();
            self.check_access(&load.buffer, &load.indices, span, "indexed");
        }
        walk_expr(self, expr);
        self.spans.leave(pushed);
    }

    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        if self.scope_reported.insert(buffer.clone()) {
            let span = self.spans.or_current(buffer.span());
            self.check_scope(buffer.scope(), format!("buffer `{}`", buffer.name()), span);
        }
    }

    fn visit_block(&mut self, block: &Block) {
        for matched in &block.match_buffers {
            self.check_region(&matched.source, "matched region");
            self.check_match_buffer(&matched.buffer, &matched.source);
        }
        for region in &block.reads {
            self.check_region(region, "read region");
        }
        for region in &block.writes {
            self.check_region(region, "write region");
        }
        walk_block(self, block);
    }

    fn visit_buffer_region(&mut self, region: &BufferRegion) {
        // Regions are checked once in `visit_block`; only their expressions are walked here.
        for range in &region.region {
            self.visit_range(range);
        }
    }
}

/// The source span covering a region's written bounds, when it was written.
fn region_span(region: &BufferRegion) -> Option<Span> {
    region
        .region
        .iter()
        .flat_map(|range| [range.min.span(), range.extent.span()])
        .filter(|span| span.is_known())
        .reduce(Span::to)
}
