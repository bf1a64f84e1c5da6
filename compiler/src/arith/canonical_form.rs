//! The canonical forms of integer index expressions: a sum of scaled split
//! terms `((index % upper) // lower) * scale` plus a constant, as TVM's
//! canonical simplifier keeps them, and their conversion back to expressions.
//!
//! Every operation that can overflow `i64` returns `None`; the simplifier then
//! leaves the expression as it was rather than produce a wrong result.

use super::build;
use crate::ir::structural::expr_deep_equal;
use crate::ir::{BinaryOp, DataType, Expr};

/// "No upper factor": the split takes the whole index.
pub(crate) const NO_UPPER: i64 = i64::MAX;

/// Division flavour of a split: truncating (`T.truncdiv`) or flooring (`//`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum DivMode {
    /// Rounds toward zero.
    Trunc,
    /// Rounds toward negative infinity.
    Floor,
}

/// A value that never equals `i64::MIN`, so that negating it is always safe.
pub(crate) fn safe(value: Option<i64>) -> Option<i64> {
    value.filter(|v| *v != i64::MIN)
}

/// `((index % upper_factor) / lower_factor) * scale` in `div_mode`.
#[derive(Clone, Debug)]
pub(crate) struct SplitTerm {
    /// The expression split.
    pub index: Expr,
    /// The divisor applied after the modulo.
    pub lower_factor: i64,
    /// The modulus, or [`NO_UPPER`]; a multiple of `lower_factor` otherwise.
    pub upper_factor: i64,
    /// The coefficient.
    pub scale: i64,
    /// How the division and modulo round.
    pub div_mode: DivMode,
    /// The integer type of the value.
    pub dtype: DataType,
}

impl SplitTerm {
    /// `index` itself, as a term with scale one.
    pub fn of(index: Expr) -> SplitTerm {
        let dtype = index.dtype();
        SplitTerm {
            index,
            lower_factor: 1,
            upper_factor: NO_UPPER,
            scale: 1,
            div_mode: DivMode::Trunc,
            dtype,
        }
    }

    /// The expression this term stands for, times `extra_scale`.
    pub fn to_expr_with_scale(&self, extra_scale: i64) -> Expr {
        if self.scale == 0 {
            return build::int(0, self.dtype);
        }
        let mut result = self.index.clone();
        if self.upper_factor != NO_UPPER {
            result = modulo(
                result,
                build::int(self.upper_factor, self.dtype),
                self.div_mode,
            );
        }
        if self.lower_factor != 1 {
            result = divide(
                result,
                build::int(self.lower_factor, self.dtype),
                self.div_mode,
            );
        }
        let total_scale = self.scale.wrapping_mul(extra_scale);
        if total_scale != 1 {
            result = build::mul(result, build::int(total_scale, self.dtype));
        }
        result
    }

    /// The expression this term stands for.
    pub fn to_expr(&self) -> Expr {
        self.to_expr_with_scale(1)
    }

    /// True when both terms split the same index expression.
    pub fn index_equal(&self, other: &SplitTerm) -> bool {
        self.index.same_as(&other.index) || expr_deep_equal(&self.index, &other.index)
    }

    /// True when the term means the same in `mode` (it has no division or modulo).
    pub fn div_mode_compatible(&self, mode: DivMode) -> bool {
        self.div_mode == mode || (self.lower_factor == 1 && self.upper_factor == NO_UPPER)
    }
}

/// `a % b` in the given rounding mode.
pub(crate) fn modulo(a: Expr, b: Expr, mode: DivMode) -> Expr {
    match mode {
        DivMode::Trunc => build::binary(BinaryOp::Mod, a, b),
        DivMode::Floor => build::floormod(a, b),
    }
}

/// `a / b` in the given rounding mode.
pub(crate) fn divide(a: Expr, b: Expr, mode: DivMode) -> Expr {
    match mode {
        DivMode::Trunc => build::binary(BinaryOp::Div, a, b),
        DivMode::Floor => build::floordiv(a, b),
    }
}

/// `sum(args) + base`, with terms of one index kept together and ordered by
/// decreasing lower factor (the order the merge rules rely on).
#[derive(Clone, Debug)]
pub(crate) struct SumForm {
    /// The scaled terms.
    pub args: Vec<SplitTerm>,
    /// The constant part.
    pub base: i64,
    /// The integer type of the value.
    pub dtype: DataType,
}

impl SumForm {
    /// The constant `base` of type `dtype`.
    pub fn constant(base: i64, dtype: DataType) -> SumForm {
        SumForm {
            args: Vec::new(),
            base,
            dtype,
        }
    }

    /// True for the constant zero.
    pub fn is_zero(&self) -> bool {
        self.base == 0 && self.args.is_empty()
    }

    /// True when every coefficient and the constant are multiples of `divisor`.
    pub fn divisible_by(&self, divisor: i64) -> bool {
        divisor != 0 && self.base % divisor == 0 && self.args.iter().all(|a| a.scale % divisor == 0)
    }

    /// Multiplies the whole sum by `factor`.
    pub fn multiply_by(&mut self, factor: i64) -> Option<()> {
        self.base = safe(self.base.checked_mul(factor))?;
        for arg in &mut self.args {
            arg.scale = safe(arg.scale.checked_mul(factor))?;
        }
        Some(())
    }

    /// Divides a sum known to be divisible by `divisor`.
    pub fn divide_by(&mut self, divisor: i64) -> Option<()> {
        if !self.divisible_by(divisor) {
            return None;
        }
        self.base = safe(self.base.checked_div(divisor))?;
        for arg in &mut self.args {
            arg.scale = safe(arg.scale.checked_div(divisor))?;
        }
        Some(())
    }

    /// Adds a constant.
    pub fn add_constant(&mut self, value: i64) -> Option<()> {
        self.base = safe(self.base.checked_add(value))?;
        Some(())
    }

    /// Adds `term * scale`, merging it with an equal term and keeping the
    /// segment order.
    pub fn add_term(&mut self, mut term: SplitTerm, scale: i64) -> Option<()> {
        if term.scale == 0 {
            return Some(());
        }
        let start = self
            .args
            .iter()
            .position(|a| a.index_equal(&term))
            .unwrap_or(self.args.len());
        for j in start..self.args.len() {
            let existing = &self.args[j];
            if !existing.index_equal(&term) || term.lower_factor > existing.lower_factor {
                term.scale = safe(term.scale.checked_mul(scale))?;
                self.args.insert(j, term);
                return Some(());
            }
            if term.lower_factor == existing.lower_factor
                && term.upper_factor == existing.upper_factor
                && term.div_mode_compatible(existing.div_mode)
            {
                let added = safe(term.scale.checked_mul(scale))?;
                let merged = safe(existing.scale.checked_add(added))?;
                self.args[j].scale = merged;
                return Some(());
            }
        }
        term.scale = safe(term.scale.checked_mul(scale))?;
        self.args.push(term);
        Some(())
    }

    /// Adds `other * scale`.
    pub fn add_sum(&mut self, other: &SumForm, scale: i64) -> Option<()> {
        for arg in &other.args {
            self.add_term(arg.clone(), scale)?;
        }
        self.add_constant(safe(other.base.checked_mul(scale))?)
    }

    /// Splits into the terms whose coefficient `divisor` divides and the rest.
    pub fn separate_divisible_parts(&self, divisor: i64) -> (SumForm, SumForm) {
        let mut divisible = SumForm::constant(0, self.dtype);
        let mut rest = SumForm::constant(0, self.dtype);
        if divisor != 0 && self.base % divisor == 0 {
            divisible.base = self.base;
        } else {
            rest.base = self.base;
        }
        for arg in &self.args {
            if divisor != 0 && arg.scale % divisor == 0 {
                divisible.args.push(arg.clone());
            } else {
                rest.args.push(arg.clone());
            }
        }
        (divisible, rest)
    }

    /// The expression this sum stands for, in TVM's canonical order: merged
    /// splits, positive terms by decreasing scale, the constant, then the
    /// negative terms subtracted.
    pub fn to_expr(&self) -> Expr {
        if self.args.is_empty() {
            return build::int(self.base, self.dtype);
        }
        let (args, base) = fold_shifted_quotient_multiples(self.args.clone(), self.base);
        if args.is_empty() {
            return build::int(base, self.dtype);
        }
        let folded = SumForm {
            args,
            base,
            dtype: self.dtype,
        };
        folded.print()
    }

    /// [`SumForm::to_expr`] once the shifted quotients are folded.
    fn print(&self) -> Expr {
        let args = merge_split_terms(self.args.clone());
        // The type's smallest value has no positive counterpart: it is added, as TVM does.
        let subtracted_base = if self.base < 0 && !self.base_is_type_minimum() {
            self.base.checked_neg()
        } else {
            None
        };
        let mut result = build::int(0, self.dtype);
        for arg in args.iter().filter(|a| a.scale > 0) {
            result = build::add(result, arg.to_expr());
        }
        if self.base > 0 || (self.base < 0 && subtracted_base.is_none()) {
            result = build::add(result, build::int(self.base, self.dtype));
        }
        for arg in args.iter().filter(|a| a.scale < 0) {
            result = build::sub(result, arg.to_expr_with_scale(-1));
        }
        if let Some(magnitude) = subtracted_base {
            result = build::sub(result, build::int(magnitude, self.dtype));
        }
        result
    }

    /// True when the constant is the smallest value of the sum's type.
    pub fn base_is_type_minimum(&self) -> bool {
        let bits = u32::from(self.dtype.bits).clamp(1, 64);
        self.base == i64::MIN >> (64 - bits)
    }
}

/// TVM's rewrite `(x + y) // c * c - x` to `y - (x + y) % c` for a
/// constant `y`, scaled by `s`: a quotient term whose index is another term
/// of the sum (at `-s` times its coefficient there) plus a constant. `(n + 15) // 16 * 16 - n + 1` is `16 - (n + 15) % 16`, which
/// bounds show is positive.
fn fold_shifted_quotient_multiples(
    mut args: Vec<SplitTerm>,
    mut base: i64,
) -> (Vec<SplitTerm>, i64) {
    let mut i = 0;
    while i < args.len() {
        if let Some((removed, offset)) = shifted_quotient_partners(&args, i) {
            let quotient = &mut args[i];
            let s = quotient.scale / quotient.lower_factor;
            let Some(new_base) = s
                .checked_mul(offset)
                .and_then(|v| safe(base.checked_add(v)))
            else {
                i += 1;
                continue;
            };
            base = new_base;
            quotient.upper_factor = quotient.lower_factor;
            quotient.lower_factor = 1;
            quotient.scale = -s;
            let mut index = 0;
            args.retain(|_| {
                index += 1;
                !removed.contains(&(index - 1))
            });
            i = 0;
            continue;
        }
        i += 1;
    }
    (args, base)
}

/// For the floor quotient `args[i]` = `(x + y) // c * (c * s)`, the position
/// of the term `-s * x`, and `y`; `None` when it is not there.
fn shifted_quotient_partners(args: &[SplitTerm], i: usize) -> Option<(Vec<usize>, i64)> {
    let quotient = &args[i];
    let c = quotient.lower_factor;
    if c <= 1
        || quotient.upper_factor != NO_UPPER
        || quotient.div_mode != DivMode::Floor
        || quotient.scale % c != 0
    {
        return None;
    }
    let s = quotient.scale / c;
    let mut terms = Vec::new();
    super::rewrite_rules::flatten_sum(&quotient.index, &mut terms);
    let mut offset = 0i64;
    let mut partners = Vec::new();
    for (op, term) in terms {
        let sign = if op == BinaryOp::Sub { -1 } else { 1 };
        if let Some(value) = term.as_int() {
            offset = safe(offset.checked_add(sign * value))?;
            continue;
        }
        let (expr, coefficient) = match term.kind() {
            crate::ir::ExprKind::Binary(BinaryOp::Mul, a, b) if b.as_int().is_some() => {
                (a.clone(), b.as_int()?)
            }
            _ => (term.clone(), 1),
        };
        let wanted = safe(s.checked_mul(coefficient * sign))?.checked_neg()?;
        let position = args.iter().enumerate().position(|(j, arg)| {
            j != i
                && !partners.contains(&j)
                && arg.lower_factor == 1
                && arg.upper_factor == NO_UPPER
                && arg.scale == wanted
                && (arg.index.same_as(&expr) || expr_deep_equal(&arg.index, &expr))
        })?;
        partners.push(position);
    }
    // TVM's rule matches one term `x` only, not a sum of several.
    (partners.len() == 1).then_some((partners, offset))
}

/// `y * s - (y / c) * (s * c)` as the single term `(y % c) * s`, where `y` is
/// `rhs`'s digit and `lhs` is its quotient by `c` (same index, modulus and mode).
fn remainder_of(lhs: &SplitTerm, rhs: &SplitTerm) -> Option<SplitTerm> {
    if rhs.lower_factor <= 0 || lhs.lower_factor % rhs.lower_factor != 0 {
        return None;
    }
    let factor = lhs.lower_factor / rhs.lower_factor;
    let fits_modulus = rhs.upper_factor == NO_UPPER
        || (lhs.lower_factor > 0 && rhs.upper_factor % lhs.lower_factor == 0);
    let applies = factor > 1
        && lhs.upper_factor == rhs.upper_factor
        && fits_modulus
        && rhs.div_mode_compatible(lhs.div_mode)
        && Some(lhs.scale) == rhs.scale.checked_mul(factor).and_then(i64::checked_neg);
    applies.then(|| SplitTerm {
        upper_factor: lhs.lower_factor,
        div_mode: lhs.div_mode,
        ..rhs.clone()
    })
}

/// Merges terms that together form a coarser split, then orders the terms by
/// decreasing scale (ties by lower factor, upper factor, division mode).
///
/// The merges use `(x % (c*s)) / c == (x / c) % s` and `(x / s) * s + x % s == x`,
/// which hold for both truncating and flooring division.
fn merge_split_terms(mut args: Vec<SplitTerm>) -> Vec<SplitTerm> {
    for i in 0..args.len() {
        if args[i].scale == 0 {
            continue;
        }
        for j in i + 1..args.len() {
            let (lhs, rhs) = (&args[i], &args[j]);
            if !lhs.index_equal(rhs) || lhs.upper_factor < rhs.lower_factor {
                break;
            }
            if lhs.upper_factor == rhs.upper_factor
                && lhs.lower_factor == rhs.lower_factor
                && lhs.div_mode_compatible(rhs.div_mode)
            {
                // The same term twice: add the coefficients.
                let Some(merged) = safe(rhs.scale.checked_add(lhs.scale)) else {
                    break;
                };
                args[j].scale = merged;
                args[i].scale = 0;
            } else if lhs.lower_factor == rhs.upper_factor
                && rhs.scale != 0
                && lhs.scale % rhs.scale == 0
                && Some(lhs.lower_factor) == (lhs.scale / rhs.scale).checked_mul(rhs.lower_factor)
                && lhs.div_mode_compatible(rhs.div_mode)
            {
                // (x / (c*s)) * s + (x % (c*s)) / c == x / c, scaled by rhs.scale.
                args[j].upper_factor = lhs.upper_factor;
                args[i].scale = 0;
                break;
            } else if let Some(merged) = remainder_of(lhs, rhs) {
                // y - (y / c) * c == y % c (TVM's rewrite pass does this one).
                args[j] = merged;
                args[i].scale = 0;
                break;
            }
        }
    }
    args.retain(|a| a.scale != 0);
    args.sort_by(|a, b| {
        b.scale
            .cmp(&a.scale)
            .then(b.lower_factor.cmp(&a.lower_factor))
            .then(b.upper_factor.cmp(&a.upper_factor))
            .then(b.div_mode.cmp(&a.div_mode))
    });
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Var;
    use crate::source::Span;

    fn var(name: &str) -> Expr {
        Var::new(name, DataType::int32(), Span::NONE).to_expr()
    }

    fn term(index: &Expr, scale: i64) -> SplitTerm {
        SplitTerm {
            scale,
            ..SplitTerm::of(index.clone())
        }
    }

    #[test]
    fn terms_print_by_decreasing_scale_then_constant_then_negatives() {
        let (i, j, k) = (var("i"), var("j"), var("k"));
        let mut sum = SumForm::constant(3, DataType::int32());
        sum.add_term(term(&j, 1), 1).unwrap();
        sum.add_term(term(&i, 32), 1).unwrap();
        sum.add_term(term(&k, 2), -1).unwrap();
        assert_eq!(sum.to_expr().to_string(), "i * 32 + j + 3 - k * 2");
    }

    #[test]
    fn a_lone_negative_term_subtracts_from_zero() {
        let x = var("x");
        let mut sum = SumForm::constant(-3, DataType::int32());
        sum.add_term(term(&x, 1), -1).unwrap();
        assert_eq!(sum.to_expr().to_string(), "0 - x - 3");
    }

    #[test]
    fn quotient_and_remainder_merge_back_into_the_index() {
        let f = var("f");
        let mut sum = SumForm::constant(0, DataType::int32());
        let quotient = SplitTerm {
            lower_factor: 128,
            scale: 128,
            div_mode: DivMode::Floor,
            ..SplitTerm::of(f.clone())
        };
        let remainder = SplitTerm {
            upper_factor: 128,
            div_mode: DivMode::Floor,
            ..SplitTerm::of(f.clone())
        };
        sum.add_term(quotient, 1).unwrap();
        sum.add_term(remainder, 1).unwrap();
        assert_eq!(sum.to_expr().to_string(), "f");
    }

    #[test]
    fn equal_terms_add_their_scales_and_overflow_is_refused() {
        let x = var("x");
        let mut sum = SumForm::constant(0, DataType::int32());
        sum.add_term(term(&x, 3), 1).unwrap();
        sum.add_term(term(&x, 4), 1).unwrap();
        assert_eq!(sum.to_expr().to_string(), "x * 7");
        assert!(sum.multiply_by(i64::MAX).is_none());
    }

    #[test]
    fn separating_divisible_parts_keeps_the_constant_where_it_divides() {
        let (i, j) = (var("i"), var("j"));
        let mut sum = SumForm::constant(8, DataType::int32());
        sum.add_term(term(&i, 4), 1).unwrap();
        sum.add_term(term(&j, 1), 1).unwrap();
        let (divisible, rest) = sum.separate_divisible_parts(4);
        assert_eq!(divisible.to_expr().to_string(), "i * 4 + 8");
        assert_eq!(rest.to_expr().to_string(), "j");
    }
}
