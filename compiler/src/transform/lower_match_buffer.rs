//! `lower-match-buffer`: every `T.match_buffer` view inside a block is
//! replaced by accesses to the buffer it views (TVM's `LowerMatchBuffer`).
//!
//! A view of rank `r` over a region of rank `n >= r` maps its indices to the
//! region's last `r` dimensions, offset by the region's minimum; leading
//! dimensions take the region's minimum. The view's symbolic fields are
//! bound to what the region implies: its `elem_offset` variable to the
//! element offset of the region's first element, its stride variables to the
//! viewed buffer's strides, its shape variables to the region's extents.
//! Constant fields that contradict the region are reported.

use super::codes;
use super::LowerOptions;
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferMap, VarMap};
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, Mutator,
};
use crate::ir::operators;
use crate::ir::{
    AttrNode, AttrStmt, Block, Buffer, BufferLoad, BufferRegion, BufferStore, Expr, ExprKind,
    PrimFunc, Range, Stmt, StmtKind,
};
use crate::source::Span;

/// Replaces every match-buffer view of `func` by the buffer it views.
pub fn lower_match_buffer(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut lowerer = MatchLowerer {
        views: Default::default(),
        bound: Default::default(),
        errors: Vec::new(),
        analyzer: Analyzer::new(),
    };
    let body = lowerer.mutate_stmt(&func.body);
    if !lowerer.errors.is_empty() {
        return Err(lowerer.errors);
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct MatchLowerer {
    /// View buffer → the region it views (already in terms of real buffers).
    views: BufferMap<BufferRegion>,
    /// The views' symbolic fields → their values.
    bound: VarMap<Expr>,
    errors: Vec<Diagnostic>,
    analyzer: Analyzer,
}

impl MatchLowerer {
    /// The indices into the viewed buffer for `indices` into `view`.
    fn source_indices(&mut self, region: &BufferRegion, indices: &[Expr], span: Span) -> Vec<Expr> {
        let offset = region.region.len().saturating_sub(indices.len());
        let mut result = Vec::with_capacity(region.region.len());
        for (dim, range) in region.region.iter().enumerate() {
            if dim < offset {
                result.push(range.min.clone());
                continue;
            }
            let index = indices[dim - offset].clone();
            match operators::add(range.min.clone(), index.clone()) {
                Ok(sum) => result.push(sum),
                Err(error) => {
                    self.errors.push(super::support::operator_error(
                        codes::TYPE_MISMATCH,
                        &error,
                        "an index into a matched buffer",
                        span,
                    ));
                    result.push(index);
                }
            }
        }
        result
    }

    /// Binds `field` of `view` to `value`: a variable not bound yet is
    /// substituted. Other fields are left as they are, except that a constant
    /// extent contradicting a constant region extent is reported: the view's
    /// accesses are mapped from the region alone, as the interpreter does.
    fn bind_field(&mut self, field: &Expr, value: Expr, what: &str, view: &Buffer, check: bool) {
        if let Some(var) = field.as_var() {
            if !self.bound.contains_key(var) {
                let value = operators::cast(var.dtype(), value);
                self.bound.insert(var.clone(), value);
                return;
            }
        }
        if !check {
            return;
        }
        if let (Some(declared), Some(actual)) = (field.as_int(), value.as_int()) {
            if declared != actual {
                self.errors.push(
                    Diagnostic::error(
                        codes::MATCH_BUFFER_MISMATCH,
                        format!(
                            "the {what} of matched buffer `{}` is {declared}, but the region it views gives {actual}",
                            view.name()
                        ),
                        view.span(),
                    )
                    .with_label("declared here"),
                );
            }
        }
    }

    /// Records a view and binds its symbolic fields.
    fn bind_view(&mut self, view: &Buffer, region: BufferRegion) {
        let source = region.buffer.clone();
        let node = view.node();
        if view.rank() > region.region.len() {
            self.errors.push(Diagnostic::error(
                codes::MATCH_BUFFER_MISMATCH,
                format!(
                    "matched buffer `{}` has {} dimensions but views a region of {}",
                    view.name(),
                    view.rank(),
                    region.region.len()
                ),
                view.span(),
            ));
            return;
        }
        let offset = region.region.len() - view.rank();
        // Element offset of the region's first element in the viewed buffer.
        let mins: Vec<Expr> = region.region.iter().map(|r| r.min.clone()).collect();
        match element_offset(&source, &mins) {
            Ok(first) => {
                let first = self.analyzer.simplify(&first);
                self.bind_field(&node.elem_offset, first, "element offset", view, false);
            }
            Err(message) => self.errors.push(Diagnostic::error(
                codes::TYPE_MISMATCH,
                format!(
                    "cannot compute the offset of matched buffer `{}`: {message}",
                    view.name()
                ),
                view.span(),
            )),
        }
        if !node.strides.is_empty() {
            let source_strides = match strides_of(&source) {
                Ok(strides) => strides,
                Err(message) => {
                    self.errors.push(Diagnostic::error(
                        codes::TYPE_MISMATCH,
                        format!(
                            "cannot compute the strides of `{}`: {message}",
                            source.name()
                        ),
                        view.span(),
                    ));
                    return;
                }
            };
            for (dim, stride) in node.strides.iter().enumerate() {
                if let Some(value) = source_strides.get(dim + offset) {
                    let value = self.analyzer.simplify(value);
                    self.bind_field(stride, value, &format!("stride {dim}"), view, false);
                }
            }
        }
        for (dim, extent) in node.shape.iter().enumerate() {
            let value = region.region[dim + offset].extent.clone();
            self.bind_field(
                extent,
                value,
                &format!("extent of dimension {dim}"),
                view,
                true,
            );
        }
        self.bound
            .insert(view.data().clone(), source.data().to_expr());
        self.views.insert(view.clone(), region);
    }

    fn rewrite_region(&mut self, region: &BufferRegion) -> BufferRegion {
        let ranges: Vec<Range> = region
            .region
            .iter()
            .map(|r| Range::new(self.mutate_expr(&r.min), self.mutate_expr(&r.extent)))
            .collect();
        let Some(viewed) = self.views.get(&region.buffer).cloned() else {
            return BufferRegion {
                buffer: region.buffer.clone(),
                region: ranges,
            };
        };
        let offset = viewed.region.len().saturating_sub(ranges.len());
        let mut result = Vec::with_capacity(viewed.region.len());
        for (dim, outer) in viewed.region.iter().enumerate() {
            if dim < offset {
                result.push(Range::point(outer.min.clone()));
                continue;
            }
            let inner = &ranges[dim - offset];
            let min = operators::add(outer.min.clone(), inner.min.clone())
                .unwrap_or_else(|_| inner.min.clone());
            result.push(Range::new(min, inner.extent.clone()));
        }
        BufferRegion {
            buffer: viewed.buffer,
            region: result,
        }
    }
}

/// The strides of `buffer`: its own, or row-major ones from its shape.
fn strides_of(buffer: &Buffer) -> Result<Vec<Expr>, String> {
    let node = buffer.node();
    if !node.strides.is_empty() {
        return Ok(node.strides.clone());
    }
    let dtype = node
        .shape
        .first()
        .map(|e| e.dtype())
        .unwrap_or(crate::ir::DataType::int32());
    let mut strides = vec![Expr::one(dtype); node.shape.len()];
    let mut stride = Expr::one(dtype);
    for dim in (0..node.shape.len()).rev() {
        strides[dim] = stride.clone();
        stride = operators::mul(stride, node.shape[dim].clone()).map_err(|e| e.0)?;
    }
    Ok(strides)
}

/// `elem_offset + sum(index_i * stride_i)` of `buffer`.
fn element_offset(buffer: &Buffer, indices: &[Expr]) -> Result<Expr, String> {
    let strides = strides_of(buffer)?;
    let mut offset = buffer.node().elem_offset.clone();
    for (index, stride) in indices.iter().zip(strides) {
        let term = operators::mul(index.clone(), stride).map_err(|e| e.0)?;
        offset = operators::add(offset, term).map_err(|e| e.0)?;
    }
    Ok(offset)
}

impl Mutator for MatchLowerer {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Var(var) = expr.kind() {
            return self.bound.get(var).cloned().unwrap_or_else(|| expr.clone());
        }
        let rebuilt = mutate_expr_children(self, expr);
        if let ExprKind::Load(load) = rebuilt.kind() {
            if let Some(region) = self.views.get(&load.buffer).cloned() {
                let indices = self.source_indices(&region, &load.indices, expr.span());
                return Expr::new(
                    ExprKind::Load(BufferLoad {
                        buffer: region.buffer.clone(),
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
        let rebuilt = mutate_stmt_children(self, stmt);
        match rebuilt.kind() {
            StmtKind::BufferStore(store) => match self.views.get(&store.buffer).cloned() {
                Some(region) => {
                    let indices = self.source_indices(&region, &store.indices, stmt.span());
                    rebuilt.with_kind(StmtKind::BufferStore(BufferStore {
                        buffer: region.buffer.clone(),
                        value: store.value.clone(),
                        indices,
                    }))
                }
                None => rebuilt,
            },
            StmtKind::AttrStmt(attr) => match &attr.node {
                AttrNode::Buffer(buffer) if self.views.contains_key(buffer) => {
                    let source = self.views[buffer].buffer.clone();
                    rebuilt.with_kind(StmtKind::AttrStmt(AttrStmt {
                        node: AttrNode::Buffer(source),
                        ..attr.clone()
                    }))
                }
                _ => rebuilt,
            },
            _ => rebuilt,
        }
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        // The views are bound before the body that uses them is rewritten.
        for matched in &block.match_buffers {
            let region = self.rewrite_region(&matched.source);
            self.bind_view(&matched.buffer, region);
        }
        let mut rebuilt = mutate_block_children(self, block);
        rebuilt.match_buffers.clear();
        rebuilt.reads = block.reads.iter().map(|r| self.rewrite_region(r)).collect();
        rebuilt.writes = block
            .writes
            .iter()
            .map(|r| self.rewrite_region(r))
            .collect();
        rebuilt
    }
}
