//! Affine iterator maps (TVM's `DetectIterMap`): decides whether index
//! expressions are the affine combinations of loop variables that `split` and
//! `fuse` produce (`i_0 * 32 + i_1`, `f // 128`, `f % 128`), and whether the
//! map from loops to indices is bijective or surjective under a predicate.
//!
//! An index becomes an [`IterSum`] of [`IterSplit`]s; a split takes a digit
//! `(source // lower_factor) % extent` of an [`IterMark`] (a loop variable or a
//! fused group of splits) and scales it.

mod rewriter;

use super::build;
use super::Analyzer;
use crate::ir::{BinaryOp, BlockRealize, DataType, Expr, ExprKind, For, Range, Var};
use rewriter::IterMapRewriter;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

/// What a mark iterates: an input loop variable (possibly offset by its
/// minimum) or a fused group of splits.
#[derive(Clone, Debug)]
pub enum IterSource {
    /// An input iterator such as `i` or `i - min`.
    Expr(Expr),
    /// A fused iterator built from splits of other marks.
    Sum(IterSum),
}

#[derive(Debug)]
struct IterMarkData {
    source: IterSource,
    extent: Expr,
}

/// An iterator over `[0, extent)`, identified by its node (like [`Var`]).
#[derive(Clone)]
pub struct IterMark(Arc<IterMarkData>);

impl IterMark {
    /// A new mark distinct from every other.
    pub fn new(source: IterSource, extent: Expr) -> IterMark {
        IterMark(Arc::new(IterMarkData { source, extent }))
    }
    /// What the mark iterates.
    pub fn source(&self) -> &IterSource {
        &self.0.source
    }
    /// The number of values.
    pub fn extent(&self) -> &Expr {
        &self.0.extent
    }
    /// True when both handles are the same mark.
    pub fn same_as(&self, other: &IterMark) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// The integer type of the iterated values.
    pub fn dtype(&self) -> DataType {
        match self.source() {
            IterSource::Expr(e) => e.dtype(),
            IterSource::Sum(s) => s.base.dtype(),
        }
    }
}

impl fmt::Debug for IterMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.source() {
            IterSource::Expr(e) => write!(f, "IterMark({e}, extent={})", self.extent()),
            IterSource::Sum(s) => write!(f, "IterMark({s:?}, extent={})", self.extent()),
        }
    }
}

/// `((source // lower_factor) % extent) * scale`.
#[derive(Clone, Debug)]
pub struct IterSplit {
    /// The iterator split.
    pub source: IterMark,
    /// The divisor: how many source values one step of this digit spans.
    pub lower_factor: Expr,
    /// The number of values of the digit.
    pub extent: Expr,
    /// The coefficient of the digit in the index.
    pub scale: Expr,
}

impl IterSplit {
    /// The whole mark as one digit, times `scale`.
    pub fn whole(source: &IterMark, scale: Expr) -> IterSplit {
        IterSplit {
            source: source.clone(),
            lower_factor: build::int(1, source.dtype()),
            extent: source.extent().clone(),
            scale,
        }
    }
}

/// `sum(args) + base`: an affine index in terms of iterator digits.
#[derive(Clone, Debug)]
pub struct IterSum {
    /// The digits, outermost (largest scale) first.
    pub args: Vec<IterSplit>,
    /// The constant (or loop-invariant) offset.
    pub base: Expr,
}

/// How strictly the map from loops to indices is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterMapLevel {
    /// Every loop iteration gives a distinct index tuple and every tuple is reached.
    Bijective,
    /// Every index tuple in the iterated space is reached (splits may be partial).
    Surjective,
    /// Only the affine form is required.
    NoCheck,
}

/// Why an index map was not recognised: a message and, when one is to blame,
/// the expression (printed only on demand).
#[derive(Clone, Debug)]
pub struct IterMapError {
    /// What went wrong.
    pub message: String,
    /// The sub-expression at fault.
    pub expr: Option<Expr>,
}

impl IterMapError {
    fn new(message: impl Into<String>) -> IterMapError {
        IterMapError {
            message: message.into(),
            expr: None,
        }
    }
}

impl fmt::Display for IterMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.expr {
            Some(expr) => write!(f, "{}: {expr}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The outcome of [`detect_iter_map`]: one sum per index, or the reasons it failed.
#[derive(Clone, Debug, Default)]
pub struct IterMapResult {
    /// The affine form of each index; empty when detection failed.
    pub indices: Vec<IterSum>,
    /// Why detection failed (empty on success).
    pub errors: Vec<IterMapError>,
}

impl IterMapResult {
    /// True when every index was recognised and the map passed its check.
    pub fn is_success(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Recognises `indices` as an affine map of the loop variables `input_iters`
/// (each ranging over its range) restricted by `predicate`, checked at `level`.
///
/// With `simplify_trivial_iterators`, loops of extent one are treated as constants.
pub fn detect_iter_map(
    indices: &[Expr],
    input_iters: &[(Var, Range)],
    predicate: &Expr,
    level: IterMapLevel,
    analyzer: &Analyzer,
    simplify_trivial_iterators: bool,
) -> IterMapResult {
    let mut result = IterMapResult::default();
    let uses_input = |e: &Expr| {
        crate::ir::visit::expr_uses_var(e, &mut |v| input_iters.iter().any(|(iv, _)| iv == v))
    };
    if input_iters
        .iter()
        .any(|(_, range)| uses_input(&range.min) || uses_input(&range.extent))
    {
        result.errors.push(IterMapError::new(
            "iterator ranges may not depend on other iterators",
        ));
        return result;
    }
    let mut constrained_iters = input_iters.to_vec();
    let mut constraints = Vec::new();
    if predicate.as_int() != Some(1) {
        match rewriter::match_bound_constraints(predicate, &mut constrained_iters, analyzer) {
            Some(found) => constraints = found,
            None => {
                result.errors.push(IterMapError::new(
                    "the predicate is not a conjunction of bounds on the iterators",
                ));
                return result;
            }
        }
    }
    // Constraints on inner iterators must be known before the ones that contain them.
    constraints.sort_by_key(|c| expr_size(&c.iter));

    let mut rewriter = IterMapRewriter::new(
        analyzer,
        &constrained_iters,
        level,
        simplify_trivial_iterators,
    );
    for constraint in &constraints {
        rewriter.rewrite_iter_constraint(
            &constraint.iter,
            constraint.lower.clone(),
            constraint.upper.clone(),
        );
        if !rewriter.errors.is_empty() {
            result.errors = rewriter.errors;
            return result;
        }
    }
    if !rewriter.check_constraints() {
        result
            .errors
            .push(IterMapError::new("the predicate's constraints overlap"));
        return result;
    }
    let mut sums = Vec::with_capacity(indices.len());
    for index in indices {
        sums.push(rewriter.rewrite(index));
        if !rewriter.errors.is_empty() {
            result.errors = rewriter.errors;
            return result;
        }
    }
    if !rewriter.check_mapping(&sums, level) {
        result.errors.push(IterMapError::new(match level {
            IterMapLevel::Bijective => "the index map is not bijective",
            _ => "the mapped indices are not independent",
        }));
        return result;
    }
    result.indices = sums;
    result
}

/// The number of nodes of an expression (TVM's `CalculateExprComplexity`).
fn expr_size(expr: &Expr) -> usize {
    let mut count = 0;
    crate::ir::visit::walk_exprs(expr, &mut |_| count += 1);
    count
}

/// The expression an iterator sum stands for.
pub fn iter_sum_to_expr(sum: &IterSum) -> Expr {
    let analyzer = Analyzer::new();
    rewriter::sum_to_expr(sum, &analyzer)
}

/// The expression an iterator split stands for.
pub fn iter_split_to_expr(split: &IterSplit) -> Expr {
    let analyzer = Analyzer::new();
    rewriter::split_to_expr(split, &analyzer)
}

/// TVM's `InverseAffineIterMap`: for the affine forms `sums` of a
/// bijective map (from [`detect_iter_map`] at [`IterMapLevel::Bijective`])
/// and the values `outputs` of its indices, each input variable as an
/// expression of the outputs: every digit of an index is read back
/// (`(y - base) // scale % extent`), a mark is the sum of its digits times
/// their lower factors, and a fused mark is read back the same way. `None`
/// when a mark is not an input variable (or one minus its minimum), or an
/// index's digits do not fuse.
///
/// The values are built as TVM builds them, folded but not simplified, in
/// its back-propagation order: callers that want them simplified (TVM's
/// `compute_at` and `IndexMap::Inverse`) simplify them; the inliners keep
/// `vi % 8 + vi // 8 * 8` as TVM does.
pub fn inverse_affine_iter_map(sums: &[IterSum], outputs: &[Expr]) -> Option<Vec<(Var, Expr)>> {
    let analyzer = Analyzer::new();
    // Nodes are keyed by address: the sums and splits of the map, and a
    // fused mark's sum, are each one node however often they are reached.
    let order = inverse_order(sums);
    let mut backprop: HashMap<usize, Expr> = HashMap::new();
    for (sum, output) in sums.iter().zip(outputs) {
        backprop.insert(node_key(sum), output.clone());
    }
    let accumulate = |backprop: &mut HashMap<usize, Expr>, key: usize, value: Expr| {
        let total = match backprop.remove(&key) {
            Some(total) => build::add(total, value),
            None => value,
        };
        backprop.insert(key, total);
    };
    // Each input variable, its value so far, and its mark's minimum.
    let mut inputs: Vec<(Var, Expr, Option<Expr>)> = Vec::new();
    for node in order {
        match node {
            InverseNode::Sum(sum) => {
                let Some(value) = backprop.get(&node_key(sum)).cloned() else {
                    continue;
                };
                let input = build::sub(value, sum.base.clone());
                if let [split] = sum.args.as_slice() {
                    if !matches!(split.scale.as_int(), Some(1 | -1)) {
                        return None;
                    }
                    let part = build::mul(input, split.scale.clone());
                    accumulate(&mut backprop, node_key(split), part);
                    continue;
                }
                // TVM's `CheckFusePattern`: the digits of one index must fuse,
                // each outer one scaled by all the digits inside it (`i * 2`
                // alone has holes and no inverse).
                let mut expected_scale = Expr::one(sum.base.dtype());
                for split in sum.args.iter().rev() {
                    if !analyzer.can_prove_equal(&split.scale, &expected_scale) {
                        return None;
                    }
                    expected_scale = build::mul(expected_scale, split.extent.clone());
                }
                for (position, split) in sum.args.iter().enumerate().rev() {
                    // The outermost digit needs no `% extent`: the others are below its scale.
                    let mut part = build::floordiv(input.clone(), split.scale.clone());
                    if position > 0 {
                        part = build::floormod(part, split.extent.clone());
                    }
                    accumulate(&mut backprop, node_key(split), part);
                }
            }
            InverseNode::Split(split) => {
                let Some(value) = backprop.get(&node_key(split)).cloned() else {
                    continue;
                };
                let input = build::mul(value, split.lower_factor.clone());
                match split.source.source() {
                    IterSource::Sum(source) => accumulate(&mut backprop, node_key(source), input),
                    IterSource::Expr(source) => {
                        let (var, minimum) = match source.kind() {
                            ExprKind::Var(var) => (var, None),
                            ExprKind::Binary(BinaryOp::Sub, a, min) => (a.as_var()?, Some(min)),
                            _ => return None,
                        };
                        match inputs.iter_mut().find(|(known, _, _)| known == var) {
                            Some((_, total, _)) => *total = build::add(total.clone(), input),
                            None => inputs.push((var.clone(), input, minimum.cloned())),
                        }
                    }
                }
            }
        }
    }
    // A mark `i - min` reads back as the digits' sum plus its minimum.
    let inputs = inputs
        .into_iter()
        .map(|(var, value, minimum)| match minimum {
            Some(minimum) => (var, build::add(value, minimum)),
            None => (var, value),
        })
        .collect();
    Some(inputs)
}

/// A node of an iterator map for [`inverse_affine_iter_map`].
#[derive(Clone, Copy)]
enum InverseNode<'a> {
    Sum(&'a IterSum),
    Split(&'a IterSplit),
}

fn node_key<T>(node: &T) -> usize {
    node as *const T as usize
}

/// The nodes of the map, each after every node that feeds it a value (TVM's
/// `ReverseTopologyOrder`: the reverse of a post-order walk from the sums).
fn inverse_order(sums: &[IterSum]) -> Vec<InverseNode<'_>> {
    fn walk<'a>(
        node: InverseNode<'a>,
        seen: &mut HashSet<usize>,
        order: &mut Vec<InverseNode<'a>>,
    ) {
        let key = match node {
            InverseNode::Sum(sum) => node_key(sum),
            InverseNode::Split(split) => node_key(split),
        };
        if !seen.insert(key) {
            return;
        }
        match node {
            InverseNode::Sum(sum) => {
                for split in &sum.args {
                    walk(InverseNode::Split(split), seen, order);
                }
            }
            InverseNode::Split(split) => {
                if let IterSource::Sum(source) = split.source.source() {
                    walk(InverseNode::Sum(source), seen, order);
                }
            }
        }
        order.push(node);
    }
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    for sum in sums {
        walk(InverseNode::Sum(sum), &mut seen, &mut order);
    }
    order.reverse();
    order
}

/// The indices rewritten through their affine form (`(i * 4 + j) // 4`
/// becomes `i` when `j < 4`), or `None` when none is found (TVM's
/// `IterMapSimplify`, whose callers keep the indices then). When the
/// predicate makes detection fail, detection is retried without it;
/// `simplify_trivial_iterators` drops unit loops, as detection does.
pub fn iter_map_simplify(
    indices: &[Expr],
    input_iters: &[(Var, Range)],
    predicate: &Expr,
    level: IterMapLevel,
    analyzer: &Analyzer,
    simplify_trivial_iterators: bool,
) -> Option<Vec<Expr>> {
    let detect = |predicate: &Expr| {
        detect_iter_map(
            indices,
            input_iters,
            predicate,
            level,
            analyzer,
            simplify_trivial_iterators,
        )
    };
    let mut result = detect(predicate);
    if !result.is_success() && predicate.as_int() != Some(1) && level != IterMapLevel::Bijective {
        // The predicate may be what failed; the map without it is still valid for simplification.
        result = detect(&Expr::bool(true));
    }
    if !result.is_success() || result.indices.len() != indices.len() {
        return None;
    }
    Some(
        result
            .indices
            .iter()
            .map(|sum| rewriter::sum_to_expr(sum, analyzer))
            .collect(),
    )
}

/// True when a block's bindings are an affine, surjective map of the loops
/// around it (between the block and its parent block), given its predicate.
pub fn is_affine_binding<'a>(
    realize: &BlockRealize,
    enclosing_loops: impl IntoIterator<Item = &'a For>,
) -> bool {
    let loops: Vec<(Var, Range)> = enclosing_loops
        .into_iter()
        .map(|l| (l.loop_var.clone(), l.range()))
        .collect();
    if loops.is_empty() {
        return true;
    }
    let analyzer = Analyzer::new();
    let result = detect_iter_map(
        &realize.iter_values,
        &loops,
        &realize.predicate,
        IterMapLevel::Surjective,
        &analyzer,
        false,
    );
    // As in TVM, a block without bindings under loops does not count as affine.
    if result.indices.is_empty() {
        return false;
    }
    result.indices.iter().all(|sum| {
        sum.args
            .first()
            .is_none_or(|first| first.scale.as_int() == Some(1))
    })
}

#[cfg(test)]
mod tests;
