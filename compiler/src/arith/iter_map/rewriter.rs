//! The rewriting of index expressions into iterator sums: affine arithmetic
//! on splits, fusion of consecutive splits into one mark, constraints from the
//! predicate, and the coverage check of every mark's splits.
//!
//! Padding of non-dividing splits (TVM's surjective padding) is not done: such
//! an index is reported as not affine.

use super::{IterMapError, IterMapLevel, IterMark, IterSource, IterSplit, IterSum};
use crate::arith::build;
use crate::arith::simplify::multiply_and_normalize;
use crate::arith::Analyzer;
use crate::ir::identity::VarMap;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{BinaryOp, Expr, ExprKind, Range, Var};

/// A bound `lower <= iter < upper` taken from the predicate.
pub(super) struct IterConstraint {
    pub iter: Expr,
    pub lower: Option<Expr>,
    pub upper: Option<Expr>,
}

/// An intermediate result: a plain expression or an iterator form.
#[derive(Clone, Debug)]
enum IterExpr {
    Plain(Expr),
    Split(IterSplit),
    Sum(IterSum),
}

impl IterExpr {
    fn is_iter(&self) -> bool {
        !matches!(self, IterExpr::Plain(_))
    }
}

fn is_one(e: &Expr) -> bool {
    e.as_int() == Some(1)
}

fn is_zero(e: &Expr) -> bool {
    e.as_int() == Some(0)
}

fn to_sum(value: IterExpr) -> IterSum {
    match value {
        IterExpr::Sum(sum) => sum,
        IterExpr::Split(split) => {
            let dtype = split.source.dtype();
            IterSum {
                args: vec![split],
                base: build::int(0, dtype),
            }
        }
        IterExpr::Plain(e) => IterSum {
            args: Vec::new(),
            base: e,
        },
    }
}

fn split_equal(a: &IterSplit, b: &IterSplit, check_scale: bool) -> bool {
    a.source.same_as(&b.source)
        && expr_deep_equal(&a.lower_factor, &b.lower_factor)
        && expr_deep_equal(&a.extent, &b.extent)
        && (!check_scale || expr_deep_equal(&a.scale, &b.scale))
}

fn sum_equal(a: &IterSum, b: &IterSum) -> bool {
    a.args.len() == b.args.len()
        && expr_deep_equal(&a.base, &b.base)
        && a.args
            .iter()
            .zip(&b.args)
            .all(|(x, y)| split_equal(x, y, true))
}

/// `ceil(a / b)` for non-negative values.
fn ceil_div(a: Expr, b: Expr) -> Expr {
    let one = build::int(1, b.dtype());
    build::floordiv(build::sub(build::add(a, b.clone()), one), b)
}

/// Rewrites index expressions into iterator sums over given input iterators.
pub(super) struct IterMapRewriter<'a> {
    analyzer: &'a Analyzer,
    level: IterMapLevel,
    pub errors: Vec<IterMapError>,
    var_map: VarMap<IterExpr>,
    input_vars: Vec<Var>,
    input_marks: Vec<IterMark>,
    /// Flattened sum -> (fused mark, offset of the mark's zero).
    sum_fuse_map: Vec<(IterSum, IterMark, Expr)>,
    /// Structured sum (a fused mark's source) -> flattened sum.
    flattened_map: Vec<(IterSum, IterSum)>,
    /// The flattened forms of the predicate's constrained iterators.
    constrained_iters_flattened: Vec<IterSum>,
}

impl<'a> IterMapRewriter<'a> {
    pub(super) fn new(
        analyzer: &'a Analyzer,
        input_iters: &[(Var, Range)],
        level: IterMapLevel,
        simplify_trivial_iterators: bool,
    ) -> IterMapRewriter<'a> {
        let mut rewriter = IterMapRewriter {
            analyzer,
            level,
            errors: Vec::new(),
            var_map: VarMap::with_capacity_and_hasher(input_iters.len(), Default::default()),
            input_vars: input_iters.iter().map(|(v, _)| v.clone()).collect(),
            input_marks: Vec::with_capacity(input_iters.len()),
            sum_fuse_map: Vec::new(),
            flattened_map: Vec::new(),
            constrained_iters_flattened: Vec::new(),
        };
        for (var, range) in input_iters {
            let value = if simplify_trivial_iterators && is_one(&range.extent) {
                IterExpr::Sum(IterSum {
                    args: Vec::new(),
                    base: range.min.clone(),
                })
            } else if is_zero(&range.min) {
                let mark = IterMark::new(IterSource::Expr(var.to_expr()), range.extent.clone());
                rewriter.input_marks.push(mark.clone());
                IterExpr::Split(IterSplit::whole(&mark, build::int(1, var.dtype())))
            } else {
                let offset = build::sub(var.to_expr(), range.min.clone());
                let mark = IterMark::new(IterSource::Expr(offset), range.extent.clone());
                rewriter.input_marks.push(mark.clone());
                IterExpr::Sum(IterSum {
                    args: vec![IterSplit::whole(&mark, build::int(1, var.dtype()))],
                    base: range.min.clone(),
                })
            };
            rewriter.var_map.insert(var.clone(), value);
        }
        rewriter
    }

    fn error(&mut self, message: impl Into<String>, expr: Option<&Expr>) {
        self.errors.push(IterMapError {
            message: message.into(),
            expr: expr.cloned(),
        });
    }

    // ----- proofs ------------------------------------------------------------

    fn can_prove_equal(&self, a: &Expr, b: &Expr) -> bool {
        self.analyzer.can_prove_equal(a, b)
    }

    fn can_prove_divisible(&self, lhs: &Expr, rhs: &Expr) -> bool {
        match (lhs.as_int(), rhs.as_int()) {
            (_, Some(0)) => false,
            (Some(a), Some(b)) => a.checked_rem(b) == Some(0),
            _ => {
                let remainder = build::floormod(lhs.clone(), rhs.clone());
                self.can_prove_equal(lhs, rhs)
                    || self.analyzer.can_prove(&build::node(
                        BinaryOp::Eq,
                        remainder,
                        build::int(0, lhs.dtype()),
                    ))
            }
        }
    }

    // ----- entry points ------------------------------------------------------

    /// The affine form of an index, fused into one iterator where possible.
    pub(super) fn rewrite(&mut self, expr: &Expr) -> IterSum {
        let mutated = self.mutate(expr);
        self.normalize_to_iter_with_offset(to_sum(mutated))
    }

    /// Records `lower <= expr < upper` as the extent of the fused iterator `expr`.
    pub(super) fn rewrite_iter_constraint(
        &mut self,
        expr: &Expr,
        lower: Option<Expr>,
        upper: Option<Expr>,
    ) {
        let mutated = self.mutate(expr);
        self.normalize_to_iter_on_bound(to_sum(mutated), lower, upper);
    }

    // ----- affine arithmetic -------------------------------------------------

    fn uses_input(&self, expr: &Expr) -> bool {
        expr_uses_var(expr, &mut |v| self.input_vars.contains(v))
    }

    fn mutate(&mut self, expr: &Expr) -> IterExpr {
        if !build::is_index_type(expr.dtype()) {
            return self.opaque(expr);
        }
        match expr.kind() {
            ExprKind::Var(var) => self
                .var_map
                .get(var)
                .cloned()
                .unwrap_or_else(|| IterExpr::Plain(expr.clone())),
            ExprKind::Binary(BinaryOp::Add, a, b) => self.mutate_add(expr, a, b, 1),
            ExprKind::Binary(BinaryOp::Sub, a, b) => self.mutate_add(expr, a, b, -1),
            ExprKind::Binary(BinaryOp::Mul, a, b) => self.mutate_mul(expr, a, b),
            ExprKind::Binary(BinaryOp::FloorDiv, a, b) => self.mutate_div_mod(expr, a, b, true),
            ExprKind::Binary(BinaryOp::FloorMod, a, b) => self.mutate_div_mod(expr, a, b, false),
            _ => self.opaque(expr),
        }
    }

    /// An expression the affine forms cannot hold: fine unless it uses an iterator.
    fn opaque(&mut self, expr: &Expr) -> IterExpr {
        if self.uses_input(expr) {
            self.error("not an affine function of the iterators", Some(expr));
        }
        IterExpr::Plain(expr.clone())
    }

    fn mutate_add(&mut self, expr: &Expr, a: &Expr, b: &Expr, sign: i64) -> IterExpr {
        let (ma, mb) = (self.mutate(a), self.mutate(b));
        let op = if sign > 0 {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        if let (IterExpr::Plain(x), IterExpr::Plain(y)) = (&ma, &mb) {
            if x.same_as(a) && y.same_as(b) {
                return IterExpr::Plain(expr.clone());
            }
            return IterExpr::Plain(build::binary(op, x.clone(), y.clone()));
        }
        let mut sum = to_sum(ma);
        match mb {
            IterExpr::Plain(y) => sum.base = build::binary(op, sum.base.clone(), y),
            IterExpr::Split(split) => add_to_sum(&mut sum, split, sign),
            IterExpr::Sum(other) => {
                for split in other.args {
                    add_to_sum(&mut sum, split, sign);
                }
                sum.base = build::binary(op, sum.base.clone(), other.base);
            }
        }
        IterExpr::Sum(sum)
    }

    fn mutate_mul(&mut self, expr: &Expr, a: &Expr, b: &Expr) -> IterExpr {
        let (mut ma, mut mb) = (self.mutate(a), self.mutate(b));
        if let (IterExpr::Plain(x), IterExpr::Plain(y)) = (&ma, &mb) {
            if x.same_as(a) && y.same_as(b) {
                return IterExpr::Plain(expr.clone());
            }
            return IterExpr::Plain(build::mul(x.clone(), y.clone()));
        }
        if ma.is_iter() && mb.is_iter() {
            self.error("a product of two iterators", Some(expr));
            return IterExpr::Plain(expr.clone());
        }
        if !ma.is_iter() {
            std::mem::swap(&mut ma, &mut mb);
        }
        let IterExpr::Plain(factor) = mb else {
            return IterExpr::Plain(expr.clone());
        };
        match ma {
            IterExpr::Sum(mut sum) => {
                for split in &mut sum.args {
                    split.scale = build::mul(split.scale.clone(), factor.clone());
                }
                sum.base = build::mul(sum.base.clone(), factor);
                IterExpr::Sum(sum)
            }
            IterExpr::Split(mut split) => {
                split.scale = build::mul(split.scale.clone(), factor);
                IterExpr::Split(split)
            }
            plain => plain,
        }
    }

    fn mutate_div_mod(&mut self, expr: &Expr, a: &Expr, b: &Expr, is_div: bool) -> IterExpr {
        let (ma, mb) = (self.mutate(a), self.mutate(b));
        let op = if is_div {
            BinaryOp::FloorDiv
        } else {
            BinaryOp::FloorMod
        };
        let divisor = match mb {
            IterExpr::Plain(divisor) => divisor,
            _ => {
                self.error("a division by an iterator", Some(expr));
                return IterExpr::Plain(expr.clone());
            }
        };
        let dividend = match ma {
            IterExpr::Plain(x) => {
                if x.same_as(a) && divisor.same_as(b) {
                    return IterExpr::Plain(expr.clone());
                }
                return IterExpr::Plain(build::binary(op, x, divisor));
            }
            IterExpr::Split(split) => {
                let dtype = split.source.dtype();
                IterSum {
                    args: vec![split],
                    base: build::int(0, dtype),
                }
            }
            // A dividend of no iterator (a unit iterator, made a constant)
            // stays as written, as TVM's `PreprocessDividend` leaves it.
            IterExpr::Sum(sum) if sum.args.is_empty() => return IterExpr::Plain(expr.clone()),
            IterExpr::Sum(sum) if sum.args.len() == 1 => sum,
            IterExpr::Sum(sum) => match self.try_fuse_iters(sum, self.level, true) {
                Some(fused) => fused,
                None => {
                    self.error("the dividend is not a single fused iterator", Some(expr));
                    return IterExpr::Plain(expr.clone());
                }
            },
        };
        let [split] = dividend.args.as_slice() else {
            self.error("the dividend is not a single fused iterator", Some(expr));
            return IterExpr::Plain(expr.clone());
        };
        let result = if is_div {
            self.split_floordiv_const(expr, split.clone(), dividend.base.clone(), divisor)
        } else {
            self.split_floormod_const(expr, split.clone(), dividend.base.clone(), divisor)
        };
        result.unwrap_or_else(|| IterExpr::Plain(expr.clone()))
    }

    /// `(split + base) // divisor`.
    fn split_floordiv_const(
        &mut self,
        origin: &Expr,
        mut split: IterSplit,
        mut base: Expr,
        mut divisor: Expr,
    ) -> Option<IterExpr> {
        let dtype = split.source.dtype();
        if is_one(&divisor) {
            return Some(if is_zero(&base) {
                IterExpr::Split(split)
            } else {
                IterExpr::Sum(IterSum {
                    args: vec![split],
                    base,
                })
            });
        }
        if !is_one(&split.scale) {
            if self.can_prove_divisible(&split.scale, &divisor) && is_zero(&base) {
                split.scale = build::floordiv(split.scale.clone(), divisor);
                return Some(IterExpr::Split(split));
            } else if self.can_prove_divisible(&split.scale, &divisor)
                && self.can_prove_divisible(&base, &divisor)
            {
                split.scale = build::floordiv(split.scale.clone(), divisor.clone());
                return Some(IterExpr::Sum(IterSum {
                    args: vec![split],
                    base: build::floordiv(base, divisor),
                }));
            } else if self.can_prove_divisible(&divisor, &split.scale) && is_zero(&base) {
                divisor = build::floordiv(divisor, split.scale.clone());
                split.scale = build::int(1, dtype);
            } else if self.can_prove_divisible(&divisor, &split.scale)
                && self.can_prove_divisible(&base, &split.scale)
            {
                base = build::floordiv(base, split.scale.clone());
                divisor = build::floordiv(divisor, split.scale.clone());
                split.scale = build::int(1, dtype);
            } else {
                self.error(
                    "the scale and the divisor do not divide each other",
                    Some(origin),
                );
                return None;
            }
        }
        if !self.offset_divides(origin, &base, &divisor) {
            return None;
        }
        let new_split = if self.can_prove_divisible(&split.extent, &divisor) {
            IterSplit {
                source: split.source.clone(),
                lower_factor: build::mul(split.lower_factor.clone(), divisor.clone()),
                extent: self
                    .analyzer
                    .simplify(&build::floordiv(split.extent.clone(), divisor.clone())),
                scale: split.scale.clone(),
            }
        } else if is_one(&split.lower_factor)
            && self.can_prove_equal(&split.extent, split.source.extent())
        {
            // floordiv(iter, c) over the whole iterator: the last digit is partial.
            IterSplit {
                source: split.source.clone(),
                lower_factor: divisor.clone(),
                extent: self
                    .analyzer
                    .simplify(&ceil_div(split.extent.clone(), divisor.clone())),
                scale: split.scale.clone(),
            }
        } else {
            self.error("a digit does not split evenly by the divisor", Some(origin));
            return None;
        };
        let new_base = self.analyzer.simplify(&build::floordiv(base, divisor));
        Some(if is_zero(&new_base) {
            IterExpr::Split(new_split)
        } else {
            IterExpr::Sum(IterSum {
                args: vec![new_split],
                base: new_base,
            })
        })
    }

    /// `(split + base) % divisor`.
    fn split_floormod_const(
        &mut self,
        origin: &Expr,
        split: IterSplit,
        mut base: Expr,
        mut divisor: Expr,
    ) -> Option<IterExpr> {
        let dtype = split.source.dtype();
        if is_one(&divisor) {
            return Some(IterExpr::Plain(build::int(0, dtype)));
        }
        if !is_one(&split.scale) {
            if self.can_prove_divisible(&split.scale, &divisor)
                && self.can_prove_divisible(&base, &divisor)
            {
                return Some(IterExpr::Plain(build::int(0, dtype)));
            } else if self.can_prove_divisible(&divisor, &split.scale) && is_zero(&base) {
                divisor = build::floordiv(divisor, split.scale.clone());
            } else if self.can_prove_divisible(&divisor, &split.scale)
                && self.can_prove_divisible(&base, &split.scale)
            {
                divisor = build::floordiv(divisor, split.scale.clone());
                base = build::floordiv(base, split.scale.clone());
            } else {
                self.error(
                    "the scale and the modulus do not divide each other",
                    Some(origin),
                );
                return None;
            }
        }
        if !self.offset_divides(origin, &base, &divisor) {
            return None;
        }
        if self.can_prove_divisible(&split.extent, &divisor) {
            // floormod((i // l) % (c*k), c) == (i // l) % c.
            return Some(IterExpr::Split(IterSplit {
                extent: divisor,
                ..split
            }));
        }
        let below = build::node(BinaryOp::Le, split.extent.clone(), divisor.clone());
        if self.analyzer.can_prove(&below) {
            // Every value of the digit is already below the modulus.
            return Some(IterExpr::Split(split));
        }
        self.error("a digit does not split evenly by the divisor", Some(origin));
        None
    }

    /// Without padding, an offset must be a multiple of the divisor.
    fn offset_divides(&mut self, origin: &Expr, base: &Expr, divisor: &Expr) -> bool {
        let left_pad = self
            .analyzer
            .simplify(&build::floormod(base.clone(), divisor.clone()));
        if is_zero(&left_pad) {
            return true;
        }
        self.error(
            "the offset is not a multiple of the divisor (padding is not supported)",
            Some(origin),
        );
        false
    }

    // ----- fusion ------------------------------------------------------------

    fn normalize_to_iter_with_offset(&mut self, sum: IterSum) -> IterSum {
        if sum.args.is_empty() {
            return sum;
        }
        let dtype = sum.base.dtype();
        match self.try_fuse_iters(sum, self.level, true) {
            Some(fused) => fused,
            None => {
                // An error ends the detection, so the sum returned here is never used.
                self.error("the iterators could not be fused into one", None);
                IterSum {
                    args: Vec::new(),
                    base: build::int(0, dtype),
                }
            }
        }
    }

    fn lookup_fused(&self, flattened: &IterSum) -> Option<(IterMark, Expr)> {
        self.sum_fuse_map
            .iter()
            .find(|(key, _, _)| sum_equal(key, flattened))
            .map(|(_, mark, offset)| (mark.clone(), offset.clone()))
    }

    fn set_fused(&mut self, flattened: IterSum, mark: IterMark, offset: Expr) {
        match self
            .sum_fuse_map
            .iter_mut()
            .find(|(key, _, _)| sum_equal(key, &flattened))
        {
            Some(entry) => {
                entry.1 = mark;
                entry.2 = offset;
            }
            None => self.sum_fuse_map.push((flattened, mark, offset)),
        }
    }

    fn lookup_flattened(&self, structured: &IterSum) -> Option<IterSum> {
        self.flattened_map
            .iter()
            .find(|(key, _)| sum_equal(key, structured))
            .map(|(_, flat)| flat.clone())
    }

    /// Records `lower <= sum < upper` on the fused iterator of `sum`.
    fn normalize_to_iter_on_bound(
        &mut self,
        mut sum: IterSum,
        mut lower: Option<Expr>,
        mut upper: Option<Expr>,
    ) {
        let base = sum.base.clone();
        if !is_zero(&base) {
            sum.base = build::int(0, base.dtype());
            lower = lower.map(|l| build::sub(l, base.clone()));
            upper = upper.map(|u| build::sub(u, base.clone()));
        }
        let fused = self.try_fuse_iters(sum, self.level, false);
        let Some(split) = fused
            .and_then(|f| f.args.into_iter().next())
            .filter(|s| is_one(&s.scale))
        else {
            self.error("the predicate's iterators could not be fused", None);
            return;
        };
        let IterSource::Sum(structured) = split.source.source().clone() else {
            self.error("the predicate's iterators could not be fused", None);
            return;
        };
        let Some(flattened) = self.lookup_flattened(&structured) else {
            self.error("the predicate's iterators could not be fused", None);
            return;
        };
        let Some((mark, offset)) = self.lookup_fused(&flattened) else {
            self.error("the predicate's iterators could not be fused", None);
            return;
        };
        let mut iter_min = offset.clone();
        let mut iter_max = build::add(iter_min.clone(), mark.extent().clone());
        let mut min_delta = build::int(0, iter_min.dtype());
        if let Some(lower) = lower {
            let new_min = build::max(lower, iter_min.clone());
            min_delta = build::sub(new_min.clone(), iter_min);
            iter_min = new_min;
        }
        if let Some(upper) = upper {
            // A predicate usually tightens the iterator: prefer it when provably tighter.
            let tighter = build::node(BinaryOp::Le, upper.clone(), iter_max.clone());
            iter_max = if self.analyzer.can_prove(&tighter) {
                upper
            } else {
                build::min(upper, iter_max)
            };
        }
        let mut source = structured.clone();
        if !is_zero(&min_delta) {
            self.flattened_map
                .retain(|(key, _)| !sum_equal(key, &structured));
            source.base = build::sub(source.base.clone(), min_delta);
            self.flattened_map.push((source.clone(), flattened.clone()));
        }
        let extent = build::sub(iter_max, iter_min.clone());
        let new_mark = IterMark::new(IterSource::Sum(source), extent);
        self.set_fused(flattened.clone(), new_mark, iter_min);
        self.constrained_iters_flattened.push(flattened);
    }

    /// `x1*c1 + ... + xn*cn + base` as `IterSplit(fused mark, scale cn) + base`
    /// when the splits chain (each scale is the next one's scale times extent).
    fn try_fuse_iters(
        &mut self,
        expr: IterSum,
        level: IterMapLevel,
        allow_early_skip: bool,
    ) -> Option<IterSum> {
        let mut expr = expr;
        if let Some(combined) = self.try_combine_splits_from_same_source(&expr) {
            expr = combined;
            if expr.args.len() <= 1 && allow_early_skip {
                return Some(expr);
            }
        }
        let count = expr.args.len();
        let dtype = expr.base.dtype();
        let mut visited = Taken::new(count);
        let base_index = find_base_iter(&expr, &visited, None, None)?;
        let base_scale = expr.args[base_index].scale.clone();
        let mut flattened_iters = Vec::with_capacity(count);
        let mut grouped_iters = Vec::with_capacity(count);
        let mut expected_extra_base = build::int(0, dtype);
        let mut tail_extent = build::int(0, dtype);
        let mut expected_scale = base_scale.clone();
        let first_unit = first_possible_unit_extent(&expr);
        let mut consumed = 0;
        while consumed < count {
            let mut matched = if consumed == 0 {
                Some((base_index, expected_scale.clone(), true))
            } else {
                self.find_iter_with_exact_scale(
                    &expr,
                    &visited,
                    &expected_scale,
                    None,
                    None,
                    first_unit,
                )
                .map(|pos| (pos, expected_scale.clone(), true))
            };
            if matched.is_none() && level != IterMapLevel::Bijective && is_one(&base_scale) {
                matched = self
                    .find_iter_smaller_closest_to_scale(&expr, &visited, &expected_scale)
                    .map(|(pos, scale)| (pos, scale, false));
            }
            let (position, matched_scale, exact) = matched?;
            // The longest constrained iterator that ends at this split.
            let constraint = self
                .constrained_iters_flattened
                .iter()
                .filter(|c| {
                    c.args
                        .last()
                        .is_some_and(|last| split_equal(&expr.args[position], last, false))
                })
                .max_by_key(|c| c.args.len())
                .cloned();
            if let Some(constraint) = constraint {
                for part in constraint.args.iter().rev() {
                    let expected = build::mul(part.scale.clone(), matched_scale.clone());
                    let k = (0..count).find(|&k| {
                        !visited[k]
                            && split_equal(&expr.args[k], part, false)
                            && self.can_prove_equal(&expected, &expr.args[k].scale)
                    })?;
                    visited.set(k);
                    flattened_iters.push(expr.args[k].clone());
                }
                let (mark, offset) = self.lookup_fused(&constraint)?;
                grouped_iters.push(IterSplit::whole(
                    &mark,
                    build::floordiv(matched_scale.clone(), base_scale.clone()),
                ));
                expected_extra_base = build::add(
                    expected_extra_base,
                    build::mul(offset, matched_scale.clone()),
                );
                if !exact {
                    tail_extent = build::add(
                        tail_extent,
                        build::sub(expected_scale.clone(), matched_scale.clone()),
                    );
                }
                expected_scale = multiply_and_normalize(mark.extent(), &matched_scale);
                consumed += constraint.args.len();
            } else {
                visited.set(position);
                let mut arg = expr.args[position].clone();
                arg.scale = self
                    .analyzer
                    .simplify(&build::floordiv(arg.scale.clone(), base_scale.clone()));
                flattened_iters.push(arg.clone());
                grouped_iters.push(arg);
                if !exact {
                    tail_extent = build::add(
                        tail_extent,
                        build::sub(expected_scale.clone(), matched_scale.clone()),
                    );
                }
                expected_scale =
                    multiply_and_normalize(&expr.args[position].extent, &matched_scale);
                consumed += 1;
            }
        }
        flattened_iters.reverse();
        grouped_iters.reverse();
        let flattened = IterSum {
            args: flattened_iters,
            base: build::int(0, dtype),
        };
        let structured = IterSum {
            args: grouped_iters,
            base: build::int(0, dtype),
        };
        if let Some((mark, offset)) = self.lookup_fused(&flattened) {
            // An iterator fused before: its offset must agree.
            let scaled_offset = build::mul(offset, base_scale.clone());
            if !self.can_prove_equal(&expected_extra_base, &scaled_offset) {
                return None;
            }
            return Some(IterSum {
                args: vec![IterSplit::whole(&mark, base_scale)],
                base: build::add(expr.base, expected_extra_base),
            });
        }
        let extent = build::add(
            build::binary(BinaryOp::Div, expected_scale, base_scale.clone()),
            tail_extent,
        );
        let mark = IterMark::new(IterSource::Sum(structured.clone()), extent);
        self.sum_fuse_map
            .push((flattened.clone(), mark.clone(), expected_extra_base.clone()));
        self.flattened_map.push((structured, flattened));
        Some(IterSum {
            args: vec![IterSplit::whole(&mark, base_scale)],
            base: build::add(expr.base, expected_extra_base),
        })
    }

    /// Merges consecutive digits of one mark: `((x // (c*s)) % m) * s + (x // c) % s`
    /// is `(x // c) % (m*s)`.
    fn try_combine_splits_from_same_source(&self, expr: &IterSum) -> Option<IterSum> {
        let count = expr.args.len();
        if count <= 1 {
            return None;
        }
        let hits = |mark: &IterMark| expr.args.iter().filter(|a| a.source.same_as(mark)).count();
        if expr.args.iter().all(|a| hits(&a.source) == 1) {
            return None;
        }
        let mut visited = Taken::new(count);
        let mut reversed = Vec::new();
        let first_unit = first_possible_unit_extent(expr);
        let mut rend = count;
        while rend > 0 {
            let last = rend - 1;
            if visited[last] {
                rend -= 1;
                continue;
            }
            if hits(&expr.args[last].source) == 1 {
                reversed.push(expr.args[last].clone());
                visited.set(last);
                rend -= 1;
                continue;
            }
            let matched =
                find_base_iter(expr, &visited, Some(&expr.args[last].source), Some(last))?;
            visited.set(matched);
            let mut rhs = expr.args[matched].clone();
            loop {
                let lhs_scale = multiply_and_normalize(&rhs.extent, &rhs.scale);
                let Some(position) = self.find_iter_with_exact_scale(
                    expr,
                    &visited,
                    &lhs_scale,
                    Some(&rhs.source),
                    Some(last),
                    first_unit,
                ) else {
                    break;
                };
                let lhs = &expr.args[position];
                let lhs_lower = multiply_and_normalize(&rhs.lower_factor, &rhs.extent);
                if !self.can_prove_equal(&lhs.lower_factor, &lhs_lower) {
                    break;
                }
                visited.set(position);
                rhs.extent = multiply_and_normalize(&lhs.extent, &rhs.extent);
            }
            reversed.push(rhs);
        }
        reversed.reverse();
        Some(IterSum {
            args: reversed,
            base: expr.base.clone(),
        })
    }

    fn find_iter_with_exact_scale(
        &self,
        expr: &IterSum,
        skip: &Taken,
        expected_scale: &Expr,
        match_source: Option<&IterMark>,
        last: Option<usize>,
        first_unit: usize,
    ) -> Option<usize> {
        let last = last.unwrap_or(expr.args.len().checked_sub(1)?);
        let mut matched = None;
        for j in (0..=last).rev() {
            if skip[j] || match_source.is_some_and(|m| !m.same_as(&expr.args[j].source)) {
                continue;
            }
            if self.can_prove_equal(&expr.args[j].scale, expected_scale) {
                // A unit-extent digit does not change the scale: prefer it.
                if is_one(&expr.args[j].extent) {
                    return Some(j);
                }
                if matched.is_none() {
                    matched = Some(j);
                }
                if j <= first_unit {
                    return matched;
                }
            }
        }
        matched
    }

    fn find_iter_smaller_closest_to_scale(
        &self,
        expr: &IterSum,
        skip: &Taken,
        expected_scale: &Expr,
    ) -> Option<(usize, Expr)> {
        let mut matched: Option<(usize, Expr)> = None;
        for j in (0..expr.args.len()).rev() {
            if skip[j] {
                continue;
            }
            let scale = &expr.args[j].scale;
            let gap = build::sub(expected_scale.clone(), scale.clone());
            if self.analyzer.can_prove_greater_equal(&gap, 0)
                && self.analyzer.can_prove_greater_equal(scale, 0)
            {
                let closer = match &matched {
                    None => true,
                    Some((_, best)) => self
                        .analyzer
                        .can_prove_less(&build::sub(best.clone(), scale.clone()), 0),
                };
                if closer {
                    matched = Some((j, scale.clone()));
                }
            }
        }
        matched
    }

    // ----- checks ------------------------------------------------------------

    /// True when the constrained iterators are nested or disjoint, never overlapping.
    pub(super) fn check_constraints(&self) -> bool {
        let constrained = &self.constrained_iters_flattened;
        for i in 0..constrained.len() {
            for j in i + 1..constrained.len() {
                // 0: undecided, 1: contained, -1: disjoint.
                let mut state = 0;
                for a in &constrained[i].args {
                    let found = constrained[j].args.iter().any(|b| split_equal(a, b, true));
                    if state == 0 {
                        state = if found { 1 } else { -1 };
                    } else if (state == -1 && found) || (state == 1 && !found) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// True when every mark's digits tile it without overlap (and, for a
    /// bijective map, cover it and every input iterator is used).
    pub(super) fn check_mapping(&self, bindings: &[IterSum], level: IterMapLevel) -> bool {
        // The marks in the order they are met, and each split with its mark's index.
        let mut marks: Vec<IterMark> = Vec::new();
        let mut splits: Vec<(usize, IterSplit)> = Vec::new();
        fn record(
            marks: &mut Vec<IterMark>,
            splits: &mut Vec<(usize, IterSplit)>,
            split: &IterSplit,
        ) {
            let index = match marks.iter().position(|m| m.same_as(&split.source)) {
                Some(index) => index,
                None => {
                    marks.push(split.source.clone());
                    let index = marks.len() - 1;
                    if let IterSource::Sum(sum) = split.source.source() {
                        for inner in &sum.args {
                            record(marks, splits, inner);
                        }
                    }
                    index
                }
            };
            splits.push((index, split.clone()));
        }
        for sum in bindings {
            for split in &sum.args {
                record(&mut marks, &mut splits, split);
            }
        }
        // Grouped by mark, each group in the order its splits were met.
        splits.sort_by_key(|(index, _)| *index);
        let (indices, splits): (Vec<usize>, Vec<IterSplit>) = splits.into_iter().unzip();
        let mut start = 0;
        for (index, mark) in marks.iter().enumerate() {
            let end = start + indices[start..].iter().take_while(|&&i| i == index).count();
            if !self.splits_tile_mark(mark, &splits[start..end], level) {
                return false;
            }
            start = end;
        }
        if level == IterMapLevel::Bijective {
            for mark in &self.input_marks {
                let used = marks.iter().any(|m| m.same_as(mark));
                if !used && !is_one(mark.extent()) {
                    return false;
                }
            }
        }
        true
    }

    /// True when `splits` are digits of `mark` from the innermost out without
    /// gaps (partial coverage allowed unless bijective).
    fn splits_tile_mark(&self, mark: &IterMark, splits: &[IterSplit], level: IterMapLevel) -> bool {
        let mut used = Taken::new(splits.len());
        let mut expected_lower = build::int(1, mark.dtype());
        for _ in 0..splits.len() {
            let exact = (0..splits.len()).find(|&j| {
                !used[j] && self.can_prove_equal(&splits[j].lower_factor, &expected_lower)
            });
            let j = match exact {
                Some(j) => j,
                None if level == IterMapLevel::Bijective => return false,
                None => match self.search_skip_lower_factor(splits, &used, &expected_lower) {
                    Some(j) => j,
                    None => return false,
                },
            };
            used.set(j);
            expected_lower = build::mul(splits[j].lower_factor.clone(), splits[j].extent.clone());
        }
        let full = self.can_prove_equal(&expected_lower, mark.extent());
        if level == IterMapLevel::Bijective {
            return full;
        }
        full || self.can_prove_divisible(mark.extent(), &expected_lower)
    }

    /// The unused split with the smallest lower factor, when every unused
    /// factor is a multiple of `expected_lower` (a skipped middle digit).
    fn search_skip_lower_factor(
        &self,
        splits: &[IterSplit],
        used: &Taken,
        expected_lower: &Expr,
    ) -> Option<usize> {
        let mut best: Option<usize> = None;
        for i in 0..splits.len() {
            if used[i] {
                continue;
            }
            if !self.can_prove_divisible(&splits[i].lower_factor, expected_lower) {
                return None;
            }
            let smaller = match best {
                None => true,
                Some(b) => {
                    self.can_prove_divisible(&splits[b].lower_factor, &splits[i].lower_factor)
                }
            };
            if smaller {
                best = Some(i);
            }
        }
        best
    }
}

/// Which digits of a sum are taken. A sum has a handful of digits, so a
/// word of bits holds them without allocating; a longer sum uses a list.
enum Taken {
    Bits(u64),
    List(Vec<bool>),
}

impl Taken {
    fn new(count: usize) -> Taken {
        if count <= u64::BITS as usize {
            Taken::Bits(0)
        } else {
            Taken::List(vec![false; count])
        }
    }

    fn set(&mut self, index: usize) {
        match self {
            Taken::Bits(bits) => *bits |= 1 << index,
            Taken::List(list) => list[index] = true,
        }
    }
}

impl std::ops::Index<usize> for Taken {
    type Output = bool;
    fn index(&self, index: usize) -> &bool {
        let taken = match self {
            Taken::Bits(bits) => bits >> index & 1 == 1,
            Taken::List(list) => list[index],
        };
        if taken {
            &true
        } else {
            &false
        }
    }
}

/// Adds `sign * split` to `sum`, merging with a digit of the same mark and shape.
fn add_to_sum(sum: &mut IterSum, mut split: IterSplit, sign: i64) {
    for existing in &mut sum.args {
        if existing.source.same_as(&split.source)
            && expr_deep_equal(&existing.lower_factor, &split.lower_factor)
            && expr_deep_equal(&existing.extent, &split.extent)
        {
            existing.scale = if sign > 0 {
                build::add(existing.scale.clone(), split.scale)
            } else {
                build::sub(existing.scale.clone(), split.scale)
            };
            return;
        }
    }
    if sign < 0 {
        split.scale = build::sub(build::int(0, split.scale.dtype()), split.scale);
    }
    sum.args.push(split);
}

/// The digit with the smallest scale (constant scales first, then the
/// fewest symbolic factors), searching from `last` backwards.
fn find_base_iter(
    expr: &IterSum,
    skip: &Taken,
    match_source: Option<&IterMark>,
    last: Option<usize>,
) -> Option<usize> {
    let last = last.unwrap_or(expr.args.len().checked_sub(1)?);
    let eligible =
        |i: usize| !skip[i] && match_source.is_none_or(|m| m.same_as(&expr.args[i].source));
    let mut base: Option<(usize, i64)> = None;
    for i in (0..=last).rev().filter(|&i| eligible(i)) {
        if let Some(scale) = expr.args[i].scale.as_int() {
            match base {
                None => base = Some((i, scale)),
                Some((_, best)) if scale < best => base = Some((i, scale)),
                // Ties prefer unit-extent digits.
                Some((b, best))
                    if scale == best
                        && is_one(&expr.args[i].extent)
                        && !is_one(&expr.args[b].extent) =>
                {
                    base = Some((i, scale))
                }
                _ => {}
            }
        }
    }
    if let Some((index, _)) = base {
        return Some(index);
    }
    let factor_count = |e: &Expr| {
        let mut count = 0;
        count_factors(e, &mut count);
        count
    };
    let mut best: Option<(usize, usize)> = None;
    for i in (0..=last).rev().filter(|&i| eligible(i)) {
        let size = factor_count(&expr.args[i].scale);
        if best.is_none_or(|(_, b)| size < b) {
            best = Some((i, size));
        }
    }
    best.map(|(i, _)| i)
}

fn count_factors(expr: &Expr, count: &mut usize) {
    match expr.kind() {
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            count_factors(a, count);
            count_factors(b, count);
        }
        _ => *count += 1,
    }
}

/// The first position whose digit has extent one (or the length when none does).
fn first_possible_unit_extent(expr: &IterSum) -> usize {
    expr.args
        .iter()
        .position(|a| is_one(&a.extent))
        .unwrap_or(expr.args.len())
}

/// Splits a predicate into bounds on input iterators (which narrow their
/// ranges) and bounds on compound iterators; `None` when a conjunct is not
/// an integer comparison.
pub(super) fn match_bound_constraints(
    predicate: &Expr,
    input_iters: &mut [(Var, Range)],
    analyzer: &Analyzer,
) -> Option<Vec<IterConstraint>> {
    let mut found = Vec::new();
    for part in crate::arith::const_int_bound::split_conjunction(predicate) {
        let ExprKind::Binary(op, lhs, rhs) = part.kind() else {
            return None;
        };
        let (is_greater, is_equal) = match op {
            BinaryOp::Lt => (false, false),
            BinaryOp::Le => (false, true),
            BinaryOp::Gt => (true, false),
            BinaryOp::Ge => (true, true),
            _ => return None,
        };
        if !(lhs.dtype().is_integer() && rhs.dtype().is_integer()) {
            return None;
        }
        let uses_iter =
            |e: &Expr| expr_uses_var(e, &mut |v| input_iters.iter().any(|(iv, _)| iv == v));
        if !uses_iter(lhs) && !uses_iter(rhs) {
            continue;
        }
        let (mut lhs, mut rhs) = (lhs.clone(), rhs.clone());
        let bound_at_left = if lhs.as_int().is_some() || !uses_iter(&lhs) {
            true
        } else if rhs.as_int().is_some() || !uses_iter(&rhs) {
            false
        } else {
            // Iterators on both sides: move the iterator-free terms to the right.
            let difference = build::sub(lhs.clone(), rhs.clone());
            let dtype = difference.dtype();
            let (mut iter_part, mut bound_part) = (build::int(0, dtype), build::int(0, dtype));
            collect_sum_terms(&difference, true, &mut |term, positive| {
                if uses_iter(term) {
                    iter_part = if positive {
                        build::add(iter_part.clone(), term.clone())
                    } else {
                        build::sub(iter_part.clone(), term.clone())
                    };
                } else {
                    bound_part = if positive {
                        build::sub(bound_part.clone(), term.clone())
                    } else {
                        build::add(bound_part.clone(), term.clone())
                    };
                }
            });
            lhs = analyzer.simplify(&iter_part);
            rhs = analyzer.simplify(&bound_part);
            false
        };
        let one = |e: &Expr| build::int(1, e.dtype());
        let (iter, lower, upper) = match (is_greater, bound_at_left) {
            // bound > iter, bound >= iter
            (true, true) => (
                rhs,
                None,
                Some(if is_equal {
                    build::add(lhs.clone(), one(&lhs))
                } else {
                    lhs
                }),
            ),
            // iter > bound, iter >= bound
            (true, false) => (
                lhs,
                Some(if is_equal {
                    rhs
                } else {
                    build::add(rhs.clone(), one(&rhs))
                }),
                None,
            ),
            // bound < iter, bound <= iter
            (false, true) => (
                rhs,
                Some(if is_equal {
                    lhs
                } else {
                    build::add(lhs.clone(), one(&lhs))
                }),
                None,
            ),
            // iter < bound, iter <= bound
            (false, false) => (
                lhs,
                None,
                Some(if is_equal {
                    build::add(rhs.clone(), one(&rhs))
                } else {
                    rhs
                }),
            ),
        };
        let narrowed = iter
            .as_var()
            .and_then(|v| input_iters.iter_mut().find(|(iv, _)| iv == v));
        if let Some((_, range)) = narrowed {
            // A bound on a single loop variable narrows its range instead.
            let mut begin = range.min.clone();
            let mut end = build::add(range.min.clone(), range.extent.clone());
            if let Some(lower) = lower {
                begin = build::max(begin, lower);
            }
            if let Some(upper) = upper {
                end = build::min(end, upper);
            }
            let extent = if is_zero(&begin) {
                end
            } else {
                build::sub(end, begin.clone())
            };
            *range = Range::new(begin, extent);
        } else {
            found.push(IterConstraint { iter, lower, upper });
        }
    }
    Some(found)
}

/// Calls `f(term, positive)` for each term of a chain of `+` and `-`.
fn collect_sum_terms(expr: &Expr, positive: bool, f: &mut impl FnMut(&Expr, bool)) {
    match expr.kind() {
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            collect_sum_terms(a, positive, f);
            collect_sum_terms(b, positive, f);
        }
        ExprKind::Binary(BinaryOp::Sub, a, b) => {
            collect_sum_terms(a, positive, f);
            collect_sum_terms(b, !positive, f);
        }
        _ => f(expr, positive),
    }
}

/// The expression an iterator sum stands for.
pub(super) fn sum_to_expr(sum: &IterSum, analyzer: &Analyzer) -> Expr {
    let mut result = build::int(0, sum.base.dtype());
    for split in &sum.args {
        result = build::add(result, split_to_expr(split, analyzer));
    }
    build::add(result, sum.base.clone())
}

/// The expression an iterator split stands for, without a division or
/// modulo that its extent makes redundant.
pub(super) fn split_to_expr(split: &IterSplit, analyzer: &Analyzer) -> Expr {
    let source = match split.source.source() {
        IterSource::Expr(e) => e.clone(),
        IterSource::Sum(sum) => sum_to_expr(sum, analyzer),
    };
    let mark_extent = split.source.extent();
    let whole = build::node(BinaryOp::Eq, split.extent.clone(), mark_extent.clone());
    if is_one(&split.lower_factor) && analyzer.can_prove(&whole) {
        return build::mul(source, split.scale.clone());
    }
    // Both orders of the product, as TVM's normalizer tries them: the
    // analyzer does not reorder symbolic factors (`m * n` against `n * m`).
    let top_digit = |a: &Expr, b: &Expr| {
        analyzer.can_prove(&build::node(
            BinaryOp::Eq,
            mark_extent.clone(),
            build::mul(a.clone(), b.clone()),
        ))
    };
    if top_digit(&split.lower_factor, &split.extent)
        || top_digit(&split.extent, &split.lower_factor)
    {
        // A unit digit of a longer iterator is always zero.
        if is_one(&split.extent) && !is_one(mark_extent) {
            return build::int(0, split.extent.dtype());
        }
        return build::mul(
            build::floordiv(source, split.lower_factor.clone()),
            split.scale.clone(),
        );
    }
    let span = analyzer.simplify(&build::mul(
        split.extent.clone(),
        split.lower_factor.clone(),
    ));
    build::mul(
        build::floordiv(build::floormod(source, span), split.lower_factor.clone()),
        split.scale.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::Taken;

    #[test]
    fn taken_digits_are_remembered_in_a_word_and_past_it() {
        for count in [1, 3, 64, 65, 200] {
            let mut taken = Taken::new(count);
            let chosen: Vec<usize> = (0..count)
                .filter(|i| i % 3 == 0 || *i == count - 1)
                .collect();
            for &index in &chosen {
                taken.set(index);
            }
            for index in 0..count {
                assert_eq!(taken[index], chosen.contains(&index), "{index} of {count}");
            }
        }
    }
}
