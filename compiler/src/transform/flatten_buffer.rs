//! `flatten-buffer`: every buffer access becomes one-dimensional (TVM's
//! `FlattenBuffer`).
//!
//! The flat index of `A[i0, ..., in]` is `sum(ik * stride_k)`, with the
//! buffer's own strides when it has them (padded by `storage_align`, or
//! declared on a parameter) and row-major strides otherwise. The flat buffer
//! keeps the data pointer, scope, alignment and `elem_offset` of the original,
//! so element `k` of it is element `elem_offset + k` of the storage. Its
//! extent covers every element the strides reach.
//!
//! Parameters keep their N-d buffer in the signature (the caller's tensors
//! are checked against it); the body declares a flat alias on the same data
//! pointer (`A_1 = A.view(16384)`) for each parameter that is used and not
//! already flat. Allocations and declarations inside the body are replaced
//! by their flat form. `axis_separators` split the axes into groups, one flat
//! dimension per group.

use super::codes;
use super::support::{index_add, index_mul};
use super::LowerOptions;
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferMap, BufferSet};
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, Mutator};
use crate::ir::operators;
use crate::ir::{
    AttrNode, AttrStmt, Buffer, BufferLoad, BufferStore, DataType, Expr, ExprKind, PrimFunc, Stmt,
    StmtKind,
};
use crate::source::Span;

/// Flattens every buffer access of `func`.
pub fn flatten_buffer(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut flattener = Flattener {
        flat: Default::default(),
        analyzer: Analyzer::new(),
        errors: Vec::new(),
        used_aliases: Vec::new(),
        parameter_aliases: Default::default(),
        refused: Default::default(),
    };
    for (_, buffer) in &func.buffer_map {
        if is_flat(buffer) {
            flattener.flat.insert(buffer.clone(), buffer.clone());
        } else if let Some(flat) = flattener.flat_buffer(buffer, buffer.span()) {
            flattener.parameter_aliases.insert(buffer.clone(), flat);
        }
    }
    let mut body = flattener.mutate_stmt(&func.body);
    if !flattener.errors.is_empty() {
        return Err(flattener.errors);
    }
    // The aliases of used parameters, first parameter outermost.
    for (_, buffer) in func.buffer_map.iter().rev() {
        if let Some(alias) = flattener
            .used_aliases
            .iter()
            .find(|(original, _)| original == buffer)
            .map(|(_, alias)| alias.clone())
        {
            body = Stmt::new(
                StmtKind::DeclBuffer {
                    buffer: alias,
                    body,
                },
                Span::NONE,
            );
        }
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// True when a buffer is already in its flat form: one dimension, or one per
/// group of axes (`axis_separators` `[1, 2, ...]`), without strides.
fn is_flat(buffer: &Buffer) -> bool {
    let node = buffer.node();
    node.strides.is_empty()
        && buffer.rank() == node.axis_separators.len() + 1
        && node
            .axis_separators
            .iter()
            .enumerate()
            .all(|(position, separator)| *separator == position as i64 + 1)
}

struct Flattener {
    /// Original buffer → its flat form, for every buffer met.
    flat: BufferMap<Buffer>,
    analyzer: Analyzer,
    errors: Vec<Diagnostic>,
    /// Parameter buffers used in the body, with their flat alias, in order of first use.
    used_aliases: Vec<(Buffer, Buffer)>,
    /// Parameter buffer → its flat alias (declared only if used).
    parameter_aliases: BufferMap<Buffer>,
    /// Buffers already reported as impossible to flatten: their accesses are
    /// not reported again.
    refused: BufferSet,
}

/// The axis groups of a buffer: one per `axis_separators` gap.
fn axis_groups(buffer: &Buffer) -> Result<Vec<std::ops::Range<usize>>, String> {
    let rank = buffer.rank();
    let mut groups = Vec::new();
    let mut start = 0usize;
    for separator in &buffer.node().axis_separators {
        let Ok(separator) = usize::try_from(*separator) else {
            return Err(format!("axis separator {separator} is negative"));
        };
        if separator < start || separator > rank {
            return Err(format!(
                "axis separators {:?} do not fit {rank} dimensions",
                buffer.node().axis_separators
            ));
        }
        groups.push(start..separator);
        start = separator;
    }
    groups.push(start..rank);
    Ok(groups)
}

/// The index type of a buffer: its first extent's, else `int32`.
fn index_type(buffer: &Buffer) -> DataType {
    buffer
        .shape()
        .first()
        .map(|e| e.dtype())
        .filter(|d| d.is_integer())
        .unwrap_or(DataType::int32())
}

/// The stride of every axis: the buffer's own, or row-major within each group.
fn axis_strides(buffer: &Buffer, groups: &[std::ops::Range<usize>]) -> Result<Vec<Expr>, String> {
    let node = buffer.node();
    if !node.strides.is_empty() {
        if node.strides.len() != node.shape.len() {
            return Err(format!(
                "{} strides for {} dimensions",
                node.strides.len(),
                node.shape.len()
            ));
        }
        if groups.len() > 1 {
            return Err("strides together with axis separators".to_string());
        }
        return Ok(node.strides.clone());
    }
    let dtype = index_type(buffer);
    let mut strides = vec![Expr::one(dtype); node.shape.len()];
    for group in groups {
        let mut stride = Expr::one(dtype);
        for dim in group.clone().rev() {
            strides[dim] = stride.clone();
            stride = operators::mul(stride, node.shape[dim].clone()).map_err(|e| e.0)?;
        }
    }
    Ok(strides)
}

impl Flattener {
    /// The flat form of `buffer` (memoised).
    fn flat_buffer(&mut self, buffer: &Buffer, span: Span) -> Option<Buffer> {
        if let Some(flat) = self.flat.get(buffer) {
            return Some(flat.clone());
        }
        if let Some(alias) = self.parameter_aliases.get(buffer) {
            return Some(alias.clone());
        }
        if is_flat(buffer) {
            self.flat.insert(buffer.clone(), buffer.clone());
            return Some(buffer.clone());
        }
        if self.refused.contains(buffer) {
            return None;
        }
        match self.compute_flat_shape(buffer) {
            Ok(shape) => {
                // One physical axis per group; the separators between them
                // stay, as TVM's `GetFlattenedBuffer` keeps them.
                let separators = (1..shape.len() as i64).collect();
                let flat = buffer.with(|node| {
                    node.shape = shape;
                    node.strides = Vec::new();
                    node.axis_separators = separators;
                    node.declared_as_scalar = false;
                });
                self.flat.insert(buffer.clone(), flat.clone());
                Some(flat)
            }
            Err(message) => {
                self.refused.insert(buffer.clone());
                self.errors.push(
                    Diagnostic::error(
                        codes::UNSUPPORTED,
                        format!("cannot flatten buffer `{}`: {message}", buffer.name()),
                        if span.is_known() { span } else { buffer.span() },
                    )
                    .with_secondary(buffer.span(), "declared here"),
                );
                None
            }
        }
    }

    /// The extent of each flat dimension.
    fn compute_flat_shape(&self, buffer: &Buffer) -> Result<Vec<Expr>, String> {
        let groups = axis_groups(buffer)?;
        let node = buffer.node();
        let dtype = index_type(buffer);
        if node.shape.is_empty() {
            return Ok(vec![Expr::one(dtype)]);
        }
        let strides = axis_strides(buffer, &groups)?;
        let mut shape = Vec::with_capacity(groups.len());
        for group in &groups {
            if group.is_empty() {
                shape.push(Expr::one(dtype));
                continue;
            }
            let extent = if node.strides.is_empty() {
                let mut product = Expr::one(dtype);
                for dim in group.clone() {
                    product = operators::mul(product, node.shape[dim].clone()).map_err(|e| e.0)?;
                }
                product
            } else {
                strided_extent(&node.shape, &strides)?
            };
            shape.push(self.analyzer.simplify(&extent));
        }
        Ok(shape)
    }

    /// The flat indices of an access.
    fn flat_indices(&mut self, buffer: &Buffer, indices: &[Expr], span: Span) -> Option<Vec<Expr>> {
        if is_flat(buffer) {
            return Some(indices.to_vec());
        }
        if self.refused.contains(buffer) {
            return None;
        }
        let result = (|| -> Result<Vec<Expr>, String> {
            if buffer.rank() == 0 {
                return Ok(vec![Expr::zero(index_type(buffer))]);
            }
            if indices.len() != buffer.rank() {
                return Err(format!(
                    "it has {} dimensions but is accessed with {} indices",
                    buffer.rank(),
                    indices.len()
                ));
            }
            let groups = axis_groups(buffer)?;
            let strides = axis_strides(buffer, &groups)?;
            let mut flat = Vec::with_capacity(groups.len());
            for group in groups {
                let mut offset: Option<Expr> = None;
                for dim in group {
                    let term = if operators::is_one(&strides[dim]) {
                        indices[dim].clone()
                    } else {
                        index_mul(&indices[dim], &strides[dim]).map_err(|e| e.0)?
                    };
                    offset = Some(match offset {
                        None => term,
                        Some(previous) => index_add(&previous, &term).map_err(|e| e.0)?,
                    });
                }
                flat.push(offset.unwrap_or_else(|| Expr::zero(index_type(buffer))));
            }
            Ok(flat)
        })();
        match result {
            Ok(flat) => Some(
                flat.iter()
                    .map(|index| {
                        if index.dtype().is_scalar() {
                            self.analyzer.simplify(index)
                        } else {
                            index.clone()
                        }
                    })
                    .collect(),
            ),
            Err(message) => {
                self.refused.insert(buffer.clone());
                self.errors.push(Diagnostic::error(
                    codes::UNSUPPORTED,
                    format!("cannot flatten an access to `{}`: {message}", buffer.name()),
                    if span.is_known() { span } else { buffer.span() },
                ));
                None
            }
        }
    }

    /// The buffer an access of `buffer` goes through after flattening.
    fn access_buffer(&mut self, buffer: &Buffer, span: Span) -> Option<Buffer> {
        if let Some(alias) = self.parameter_aliases.get(buffer).cloned() {
            if !self.used_aliases.iter().any(|(b, _)| b == buffer) {
                self.used_aliases.push((buffer.clone(), alias.clone()));
            }
            return Some(alias);
        }
        self.flat_buffer(buffer, span)
    }
}

/// `1 + sum((extent_k - 1) * stride_k)`: the elements a strided buffer
/// reaches, computed exactly for constants; `stride_0 * extent_0` (the
/// allocation of padded row-major strides) when symbolic.
fn strided_extent(shape: &[Expr], strides: &[Expr]) -> Result<Expr, String> {
    let constants: Option<Vec<(i64, i64)>> = shape
        .iter()
        .zip(strides)
        .map(|(e, s)| Some((e.as_int()?, s.as_int()?)))
        .collect();
    let dtype = shape[0].dtype();
    if let Some(pairs) = constants {
        if pairs.iter().any(|(extent, _)| *extent == 0) {
            return Ok(Expr::int(0, dtype));
        }
        let mut reach: i64 = 1;
        for (extent, stride) in &pairs {
            let term = (extent - 1)
                .checked_mul(stride.abs())
                .ok_or("the strides overflow")?;
            reach = reach.checked_add(term).ok_or("the strides overflow")?;
        }
        let outer = pairs[0].0.checked_mul(pairs[0].1).unwrap_or(reach);
        return Ok(Expr::int(reach.max(outer), dtype));
    }
    operators::mul(strides[0].clone(), shape[0].clone()).map_err(|e| e.0)
}

impl Mutator for Flattener {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let rebuilt = mutate_expr_children(self, expr);
        let ExprKind::Load(load) = rebuilt.kind() else {
            return rebuilt;
        };
        let Some(buffer) = self.access_buffer(&load.buffer, expr.span()) else {
            return rebuilt;
        };
        let Some(indices) = self.flat_indices(&load.buffer, &load.indices, expr.span()) else {
            return rebuilt;
        };
        Expr::new(
            ExprKind::Load(BufferLoad { buffer, indices }),
            rebuilt.dtype(),
            rebuilt.span(),
        )
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(for_loop) if for_loop.extent.dtype().is_integer() => {
                // Flat indices are simplified knowing the loop ranges.
                self.analyzer.bind(&for_loop.loop_var, &for_loop.range());
            }
            StmtKind::BlockRealize(realize) => {
                self.errors.push(
                    Diagnostic::error(
                        codes::WRONG_STAGE,
                        format!(
                            "block `{}` is still there when buffers are flattened",
                            realize.block.name
                        ),
                        stmt.span(),
                    )
                    .with_help("run `lower-opaque-block` first"),
                );
                return stmt.clone();
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => {
                let flat = self.flat_buffer(buffer, stmt.span());
                let body = self.mutate_stmt(body);
                return stmt.with_kind(StmtKind::AllocBuffer {
                    buffer: flat.unwrap_or_else(|| buffer.clone()),
                    annotations: annotations.clone(),
                    body,
                });
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let flat = self.flat_buffer(buffer, stmt.span());
                let body = self.mutate_stmt(body);
                return stmt.with_kind(StmtKind::DeclBuffer {
                    buffer: flat.unwrap_or_else(|| buffer.clone()),
                    body,
                });
            }
            _ => {}
        }
        let rebuilt = mutate_stmt_children(self, stmt);
        match rebuilt.kind() {
            StmtKind::BufferStore(store) => {
                let (Some(buffer), Some(indices)) = (
                    self.access_buffer(&store.buffer, stmt.span()),
                    self.flat_indices(&store.buffer, &store.indices, stmt.span()),
                ) else {
                    return rebuilt;
                };
                rebuilt.with_kind(StmtKind::BufferStore(BufferStore {
                    buffer,
                    value: store.value.clone(),
                    indices,
                }))
            }
            StmtKind::AttrStmt(attr) => match &attr.node {
                AttrNode::Buffer(buffer) => match self.access_buffer(buffer, stmt.span()) {
                    Some(flat) => rebuilt.with_kind(StmtKind::AttrStmt(AttrStmt {
                        node: AttrNode::Buffer(flat),
                        ..attr.clone()
                    })),
                    None => rebuilt,
                },
                _ => rebuilt,
            },
            _ => rebuilt,
        }
    }
}
