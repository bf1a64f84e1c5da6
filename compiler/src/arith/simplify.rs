//! The simplifier: a canonical-form rewrite of integer index arithmetic (sums
//! of scaled terms, division and modulo by constants), with the rule-based
//! simplification of comparisons, `min`/`max`, booleans and `select` from
//! `rewrite_rules`, following TVM's `CanonicalSimplifier` layered on its
//! `RewriteSimplifier`.
//!
//! Float arithmetic is only constant-folded. Nothing here panics: an
//! operation that would overflow or divide by zero leaves its expression as
//! it was.

use super::build;
use super::canonical_form::{safe, DivMode, SplitTerm, SumForm, NO_UPPER};
use super::const_int_bound::{detect_bound_constraints, BoundConstraint, ConstIntBound};
use super::modular_set::ModularSet;
use super::Analyzer;
use crate::ir::identity::{AddressMap, VarMap};
use crate::ir::operators;
use crate::ir::structural::expr_deep_equal;
use crate::ir::{BinaryOp, BufferLoad, DataType, Expr, ExprKind, Var};

/// How many times a rewrite may feed its result back into the rewriter
/// (TVM's `kMaxRecurDepth`).
const MAX_REWRITE_DEPTH: u32 = 5;
/// How deeply proofs may nest inside proofs before giving up.
const MAX_PROOF_DEPTH: u32 = 8;

/// The outcome of comparing two values, as a set of possible orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CompareResult {
    /// Always greater.
    Gt,
    /// Always equal.
    Eq,
    /// Always less.
    Lt,
    /// Never less.
    Ge,
    /// Never greater.
    Le,
    /// Never equal.
    Ne,
    /// Nothing known.
    Unknown,
}

/// An intermediate result: a plain expression or one of the canonical forms.
#[derive(Clone, Debug)]
pub(crate) enum Canon {
    /// An expression outside the canonical forms (or a constant).
    Expr(Expr),
    /// A sum of terms.
    Sum(SumForm),
    /// A single term.
    Split(SplitTerm),
}

impl Canon {
    /// The expression this form stands for.
    pub fn to_expr(&self) -> Expr {
        match self {
            Canon::Expr(e) => e.clone(),
            Canon::Sum(s) => s.to_expr(),
            Canon::Split(s) => s.to_expr(),
        }
    }
    fn as_int(&self) -> Option<i64> {
        match self {
            Canon::Expr(e) => e.as_int(),
            _ => None,
        }
    }
    fn dtype(&self) -> DataType {
        match self {
            Canon::Expr(e) => e.dtype(),
            Canon::Sum(s) => s.dtype,
            Canon::Split(s) => s.dtype,
        }
    }
}

/// One simplification run over an analyzer's facts, with the facts of the
/// branch being simplified (`select`, `if_then_else`) layered on top.
pub(crate) struct Simplifier<'a> {
    pub(super) analyzer: &'a Analyzer,
    pub(super) scoped_bounds: Vec<BoundConstraint>,
    pub(super) scoped_literals: Vec<Expr>,
    let_values: VarMap<Expr>,
    /// Results of `mutate` in the current scope, by node address (the node is
    /// kept alive with its result): proofs re-simplify operands that are
    /// already simplified, which would otherwise cost a pass per nesting level.
    memo: AddressMap<(Expr, Canon)>,
    pub(super) rewrite_depth: u32,
    proof_depth: u32,
}

impl<'a> Simplifier<'a> {
    /// A simplifier reading `analyzer`'s facts.
    pub(crate) fn new(analyzer: &'a Analyzer) -> Simplifier<'a> {
        Simplifier {
            analyzer,
            scoped_bounds: Vec::new(),
            scoped_literals: Vec::new(),
            let_values: Default::default(),
            memo: AddressMap::default(),
            rewrite_depth: 0,
            proof_depth: 0,
        }
    }

    /// The simplified expression: canonical passes until nothing changes (at
    /// most three, as TVM's `Simplify` alternates its two simplifiers).
    pub(crate) fn simplify(&mut self, expr: &Expr) -> Expr {
        let mut current = self.visit(expr);
        for _ in 0..2 {
            if current.as_int().is_some() {
                break;
            }
            // A new pass simplifies what the last one produced: forget its results.
            self.memo.clear();
            // TVM's rewrite pass between its canonical ones folds quotients.
            let rewritten = super::shifted_quotients::fold_shifted_quotients(&current);
            let next = self.visit(&rewritten);
            if next.same_as(&current) || expr_deep_equal(&next, &current) {
                break;
            }
            current = next;
        }
        super::final_form::finish(&current)
    }

    // ----- facts -------------------------------------------------------------

    /// The constant bound of `expr` under every fact in scope.
    pub(super) fn bound(&self, expr: &Expr) -> ConstIntBound {
        self.analyzer
            .bounds
            .context(&self.scoped_bounds, Some(&self.analyzer.modular))
            .bound(expr)
    }

    /// The modular set of `expr`.
    pub(super) fn modular(&self, expr: &Expr) -> ModularSet {
        let context = self
            .analyzer
            .bounds
            .context(&self.scoped_bounds, Some(&self.analyzer.modular));
        self.analyzer.modular.eval_with_bounds(expr, &context)
    }

    /// Runs `f` with `condition` assumed true.
    pub(super) fn with_condition<R>(
        &mut self,
        condition: &Expr,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let bounds = detect_bound_constraints(condition);
        let bound_count = bounds.len();
        self.scoped_bounds.extend(bounds);
        let literals = super::literal_facts(condition);
        let literal_count = literals.len();
        self.scoped_literals.extend(literals);
        let outer_memo = std::mem::take(&mut self.memo);
        let result = f(self);
        self.memo = outer_memo;
        let keep = self.scoped_bounds.len() - bound_count;
        self.scoped_bounds.truncate(keep);
        let keep = self.scoped_literals.len() - literal_count;
        self.scoped_literals.truncate(keep);
        result
    }

    /// `Some(true)` when `expr` is a fact in scope, `Some(false)` when its negation is.
    pub(super) fn match_literal_fact(&self, expr: &Expr) -> Option<bool> {
        let facts = self
            .analyzer
            .literal_constraints
            .iter()
            .chain(&self.scoped_literals);
        for fact in facts {
            if expr_deep_equal(fact, expr) {
                return Some(true);
            }
            if let ExprKind::Not(negated) = fact.kind() {
                if expr_deep_equal(negated, expr) {
                    return Some(false);
                }
            }
        }
        None
    }

    /// Runs a nested proof, refusing when proofs nest too deeply.
    fn nested_proof<R>(&mut self, fallback: R, f: impl FnOnce(&mut Self) -> R) -> R {
        if self.proof_depth >= MAX_PROOF_DEPTH {
            return fallback;
        }
        self.proof_depth += 1;
        let result = f(self);
        self.proof_depth -= 1;
        result
    }

    /// True when `expr >= lower` is provable from bounds.
    pub(super) fn can_prove_greater_equal(&mut self, expr: &Expr, lower: i64) -> bool {
        if let Some(v) = expr.as_int() {
            return v >= lower;
        }
        self.nested_proof(false, |s| {
            let simplified = s.visit(expr);
            s.bound(&simplified).min >= lower
        })
    }

    /// True when the simplified `condition` is the constant true.
    pub(super) fn can_prove(&mut self, condition: &Expr) -> bool {
        if let Some(v) = condition.as_int() {
            return v != 0;
        }
        self.nested_proof(false, |s| {
            let simplified = s.visit(condition);
            simplified.as_int().is_some_and(|v| v != 0)
        })
    }

    /// What can be said about `x` compared with the constant `value`.
    pub(super) fn try_compare_constant(&mut self, x: &Expr, value: i64) -> CompareResult {
        self.nested_proof(CompareResult::Unknown, |s| {
            let difference = s.visit(x);
            if let Some(v) = difference.as_int() {
                return match v.cmp(&value) {
                    std::cmp::Ordering::Equal => CompareResult::Eq,
                    std::cmp::Ordering::Greater => CompareResult::Gt,
                    std::cmp::Ordering::Less => CompareResult::Lt,
                };
            }
            let bound = s.bound(&difference);
            if bound.min == value && bound.max == value {
                return CompareResult::Eq;
            }
            if bound.min > value {
                return CompareResult::Gt;
            }
            if bound.max < value {
                return CompareResult::Lt;
            }
            if bound.min >= value {
                return CompareResult::Ge;
            }
            if bound.max <= value {
                return CompareResult::Le;
            }
            if value == 0 && s.modular(&difference).base != 0 {
                return CompareResult::Ne;
            }
            CompareResult::Unknown
        })
    }

    /// What can be said about `x` compared with `y` (through the bound of `x - y`).
    pub(super) fn try_compare(&mut self, x: &Expr, y: &Expr) -> CompareResult {
        let difference = build::sub(x.clone(), y.clone());
        self.try_compare_constant(&difference, 0)
    }

    // ----- traversal ---------------------------------------------------------

    /// The simplified expression, in normal (non-canonical) form.
    pub(crate) fn visit(&mut self, expr: &Expr) -> Expr {
        let canon = self.mutate(expr);
        let result = canon.to_expr();
        if matches!(canon, Canon::Sum(_) | Canon::Split(_)) {
            // The printed form is a new node that proofs will visit again as an
            // operand: remember its canonical form.
            let key = result.node() as *const crate::ir::ExprNode as usize;
            self.memo
                .entry(key)
                .or_insert_with(|| (result.clone(), canon));
        }
        result
    }
    /// Remembers the canonical form of a printed expression that proofs may
    /// visit again, so that they do not simplify it from scratch.
    fn remember(&mut self, printed: &Expr, canon: Canon) {
        let key = printed.node() as *const crate::ir::ExprNode as usize;
        self.memo
            .entry(key)
            .or_insert_with(|| (printed.clone(), canon));
    }

    /// The printed form of a sum, remembered.
    fn print_sum(&mut self, sum: &SumForm) -> Expr {
        let printed = sum.to_expr();
        self.remember(&printed, Canon::Sum(sum.clone()));
        printed
    }

    /// The form as a single term, remembering a sum printed into an opaque index.
    fn split_of(&mut self, canon: Canon) -> SplitTerm {
        match canon {
            Canon::Sum(sum) if !(sum.base == 0 && sum.args.len() == 1) => {
                SplitTerm::of(self.print_sum(&sum))
            }
            other => to_split(other),
        }
    }

    /// The simplified expression, possibly still in a canonical form.
    pub(super) fn mutate(&mut self, expr: &Expr) -> Canon {
        let key = expr.node() as *const crate::ir::ExprNode as usize;
        if let Some((_, known)) = self.memo.get(&key) {
            return known.clone();
        }
        let result = self.mutate_uncached(expr);
        self.memo.insert(key, (expr.clone(), result.clone()));
        result
    }

    fn mutate_uncached(&mut self, expr: &Expr) -> Canon {
        let dtype = expr.dtype();
        match expr.kind() {
            ExprKind::Binary(op, a, b) if build::is_index_type(dtype) => {
                let handled = match op {
                    BinaryOp::Add => self.canonical_add(expr, a, b, 1),
                    BinaryOp::Sub => self.canonical_add(expr, a, b, -1),
                    BinaryOp::Mul => self.canonical_mul(expr, a, b),
                    BinaryOp::FloorDiv => self.canonical_div(expr, a, b, DivMode::Floor),
                    BinaryOp::Div => self.canonical_div(expr, a, b, DivMode::Trunc),
                    BinaryOp::FloorMod => self.canonical_mod(expr, a, b, DivMode::Floor),
                    BinaryOp::Mod => self.canonical_mod(expr, a, b, DivMode::Trunc),
                    _ => None,
                };
                match handled {
                    Some(result) => result,
                    None => Canon::Expr(self.rewrite(expr)),
                }
            }
            ExprKind::Cast(value) if build::is_index_type(dtype) => {
                self.canonical_cast(dtype, value)
            }
            _ => Canon::Expr(self.rewrite(expr)),
        }
    }

    /// Simplifies a node outside the canonical forms: children first, then the
    /// node's rules.
    pub(super) fn rewrite(&mut self, expr: &Expr) -> Expr {
        let dtype = expr.dtype();
        match expr.kind() {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => expr.clone(),
            // A call of another function of the module is opaque; its arguments are not.
            ExprKind::CallFunction { name, args } => {
                let new_args: Vec<Expr> = args.iter().map(|a| self.visit(a)).collect();
                if new_args.iter().zip(args).all(|(n, o)| n.same_as(o)) {
                    return expr.clone();
                }
                Expr::new(
                    ExprKind::CallFunction {
                        name: name.clone(),
                        args: new_args,
                    },
                    dtype,
                    expr.span(),
                )
            }
            ExprKind::Var(var) => self.visit_var(expr, var),
            ExprKind::Cast(value) => {
                let value = self.visit(value);
                operators::cast(dtype, value)
            }
            ExprKind::Binary(op, a, b) => self.rewrite_binary(expr, *op, a, b),
            ExprKind::Not(value) => {
                let value = self.visit(value);
                self.rewrite_not(value)
            }
            ExprKind::Select(condition, a, b) => self.rewrite_select(expr, condition, a, b),
            ExprKind::Let { var, value, body } => self.rewrite_let(expr, var, value, body),
            ExprKind::Call { op, args } => self.rewrite_call(expr, *op, args),
            ExprKind::Load(load) => {
                let indices: Vec<Expr> = load.indices.iter().map(|i| self.visit(i)).collect();
                if indices.iter().zip(&load.indices).all(|(n, o)| n.same_as(o)) {
                    return expr.clone();
                }
                Expr::new(
                    ExprKind::Load(BufferLoad {
                        buffer: load.buffer.clone(),
                        indices,
                    }),
                    dtype,
                    expr.span(),
                )
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                let (new_base, new_stride) = (self.visit(base), self.visit(stride));
                if new_base.same_as(base) && new_stride.same_as(stride) {
                    return expr.clone();
                }
                Expr::new(
                    ExprKind::Ramp {
                        base: new_base,
                        stride: new_stride,
                        lanes: *lanes,
                    },
                    dtype,
                    expr.span(),
                )
            }
            ExprKind::Broadcast { value, lanes } => {
                let new_value = self.visit(value);
                if new_value.same_as(value) {
                    return expr.clone();
                }
                Expr::new(
                    ExprKind::Broadcast {
                        value: new_value,
                        lanes: *lanes,
                    },
                    dtype,
                    expr.span(),
                )
            }
            ExprKind::Shuffle { vectors, indices } => {
                let new_vectors: Vec<Expr> = vectors.iter().map(|v| self.visit(v)).collect();
                let new_indices: Vec<Expr> = indices.iter().map(|v| self.visit(v)).collect();
                let unchanged = new_vectors.iter().zip(vectors).all(|(n, o)| n.same_as(o))
                    && new_indices.iter().zip(indices).all(|(n, o)| n.same_as(o));
                if unchanged {
                    return expr.clone();
                }
                Expr::new(
                    ExprKind::Shuffle {
                        vectors: new_vectors,
                        indices: new_indices,
                    },
                    dtype,
                    expr.span(),
                )
            }
        }
    }

    fn visit_var(&mut self, expr: &Expr, var: &Var) -> Expr {
        if let Some(value) = self.let_values.get(var) {
            return value.clone();
        }
        if let Some(value) = self.analyzer.var_values.get(var) {
            return value.clone();
        }
        if var.dtype().is_bool() {
            if let Some(known) = self.match_literal_fact(expr) {
                return Expr::bool(known);
            }
        }
        expr.clone()
    }

    fn rewrite_let(&mut self, expr: &Expr, var: &Var, value: &Expr, body: &Expr) -> Expr {
        let new_value = self.visit(value);
        // Only trivial bindings are inlined, to avoid duplicating work.
        if new_value.is_const() || new_value.as_var().is_some() {
            let previous = self.let_values.insert(var.clone(), new_value);
            // Results computed outside the binding do not know the variable's value.
            let outer_memo = std::mem::take(&mut self.memo);
            let result = self.visit(body);
            self.memo = outer_memo;
            match previous {
                Some(p) => self.let_values.insert(var.clone(), p),
                None => self.let_values.remove(var),
            };
            return result;
        }
        let new_body = self.visit(body);
        if new_value.same_as(value) && new_body.same_as(body) {
            return expr.clone();
        }
        Expr::new(
            ExprKind::Let {
                var: var.clone(),
                value: new_value,
                body: new_body.clone(),
            },
            new_body.dtype(),
            expr.span(),
        )
    }

    fn rewrite_select(&mut self, expr: &Expr, condition: &Expr, a: &Expr, b: &Expr) -> Expr {
        let new_condition = self.visit(condition);
        let new_a = self.with_condition(&new_condition, |s| s.visit(a));
        let negated = self.negate(&new_condition);
        let new_b = self.with_condition(&negated, |s| s.visit(b));
        match new_condition.as_int() {
            Some(0) => return new_b,
            Some(_) => return new_a,
            None => {}
        }
        if expr_deep_equal(&new_a, &new_b) {
            return new_a;
        }
        if new_condition.same_as(condition) && new_a.same_as(a) && new_b.same_as(b) {
            return expr.clone();
        }
        Expr::new(
            ExprKind::Select(new_condition, new_a, new_b),
            expr.dtype(),
            expr.span(),
        )
    }

    fn rewrite_call(&mut self, expr: &Expr, op: crate::ir::Op, args: &[Expr]) -> Expr {
        if op.name() == "if_then_else" && args.len() == 3 {
            let condition = self.visit(&args[0]);
            let then_value = self.with_condition(&condition, |s| s.visit(&args[1]));
            let negated = self.negate(&condition);
            let else_value = self.with_condition(&negated, |s| s.visit(&args[2]));
            match condition.as_int() {
                Some(0) => return else_value,
                Some(_) => return then_value,
                None => {}
            }
            if let Some(merged) =
                merge_nested_if_then_else(expr, op, &condition, &then_value, &else_value)
            {
                return merged;
            }
            let unchanged = condition.same_as(&args[0])
                && then_value.same_as(&args[1])
                && else_value.same_as(&args[2]);
            if unchanged {
                return expr.clone();
            }
            return Expr::new(
                ExprKind::Call {
                    op,
                    args: vec![condition, then_value, else_value],
                },
                expr.dtype(),
                expr.span(),
            );
        }
        let new_args: Vec<Expr> = args.iter().map(|a| self.visit(a)).collect();
        if op.name() == "likely" {
            if let Some(first) = new_args.first() {
                if first.as_int().is_some() {
                    return first.clone();
                }
                if let Some(known) = self.match_literal_fact(first) {
                    return Expr::bool(known);
                }
            }
        }
        if new_args.iter().zip(args).all(|(n, o)| n.same_as(o)) {
            return expr.clone();
        }
        Expr::new(
            ExprKind::Call { op, args: new_args },
            expr.dtype(),
            expr.span(),
        )
    }

    /// Simplifies a binary node that the canonical forms do not cover.
    fn rewrite_binary(&mut self, expr: &Expr, op: BinaryOp, a: &Expr, b: &Expr) -> Expr {
        match op {
            BinaryOp::Lt => return self.rewrite_less(expr, a, b),
            BinaryOp::Gt => {
                let flipped = build::node(BinaryOp::Lt, b.clone(), a.clone());
                return self.rewrite_less(&flipped, b, a);
            }
            BinaryOp::Le => return self.rewrite_less_equal(expr, a, b),
            BinaryOp::Ge => {
                let flipped = build::node(BinaryOp::Le, b.clone(), a.clone());
                return self.rewrite_less_equal(&flipped, b, a);
            }
            _ => {}
        }
        let new_a = self.visit(a);
        let new_b = self.visit(b);
        if let Some(folded) = build::try_fold(op, &new_a, &new_b) {
            return folded;
        }
        if let Some(lanes) = self.rewrite_lanes(op, &new_a, &new_b) {
            return lanes;
        }
        let rebuilt = if new_a.same_as(a) && new_b.same_as(b) {
            expr.clone()
        } else {
            Expr::new(
                ExprKind::Binary(op, new_a.clone(), new_b.clone()),
                expr.dtype(),
                expr.span(),
            )
        };
        match op {
            BinaryOp::Eq => self.rewrite_equal(rebuilt, &new_a, &new_b),
            BinaryOp::Ne => self.rewrite_not_equal(rebuilt, &new_a, &new_b),
            BinaryOp::And => self.rewrite_and(rebuilt, &new_a, &new_b),
            BinaryOp::Or => self.rewrite_or(rebuilt, &new_a, &new_b),
            BinaryOp::Min => self.rewrite_min_max(rebuilt, true, &new_a, &new_b),
            BinaryOp::Max => self.rewrite_min_max(rebuilt, false, &new_a, &new_b),
            _ => rebuilt,
        }
    }

    /// TVM's vector rules: arithmetic on `T.Broadcast` and `T.Ramp` operands
    /// done on their scalar parts (`Broadcast(x) + Ramp(b, s)` is
    /// `Ramp(x + b, s)`), so that an index stays a ramp a backend loads
    /// contiguously.
    fn rewrite_lanes(&mut self, op: BinaryOp, a: &Expr, b: &Expr) -> Option<Expr> {
        let ramp = |base: Expr, stride: Expr, lanes: u16| {
            Expr::new(
                ExprKind::Ramp {
                    base,
                    stride,
                    lanes,
                },
                a.dtype(),
                a.span(),
            )
        };
        let broadcast = |value: Expr, lanes: u16| {
            Expr::new(ExprKind::Broadcast { value, lanes }, a.dtype(), a.span())
        };
        let zero = |e: &Expr| Expr::zero(e.dtype());
        let scalar = |this: &mut Self, op: BinaryOp, x: &Expr, y: &Expr| {
            this.visit(&build::node(op, x.clone(), y.clone()))
        };
        match (op, a.kind(), b.kind()) {
            (
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul,
                ExprKind::Broadcast { value: x, lanes: n },
                ExprKind::Broadcast { value: y, lanes: m },
            ) if n == m => Some(broadcast(scalar(self, op, x, y), *n)),
            (
                BinaryOp::Add | BinaryOp::Sub,
                ExprKind::Ramp {
                    base: b1,
                    stride: s1,
                    lanes: n,
                },
                ExprKind::Ramp {
                    base: b2,
                    stride: s2,
                    lanes: m,
                },
            ) if n == m => Some(ramp(scalar(self, op, b1, b2), scalar(self, op, s1, s2), *n)),
            (
                BinaryOp::Add | BinaryOp::Sub,
                ExprKind::Ramp {
                    base,
                    stride,
                    lanes: n,
                },
                ExprKind::Broadcast { value, lanes: m },
            ) if n == m => Some(ramp(scalar(self, op, base, value), stride.clone(), *n)),
            (
                BinaryOp::Add,
                ExprKind::Broadcast { value, lanes: m },
                ExprKind::Ramp {
                    base,
                    stride,
                    lanes: n,
                },
            ) if n == m => Some(ramp(scalar(self, op, value, base), stride.clone(), *n)),
            (
                BinaryOp::Sub,
                ExprKind::Broadcast { value, lanes: m },
                ExprKind::Ramp {
                    base,
                    stride,
                    lanes: n,
                },
            ) if n == m => Some(ramp(
                scalar(self, op, value, base),
                scalar(self, BinaryOp::Sub, &zero(stride), stride),
                *n,
            )),
            (
                BinaryOp::Mul,
                ExprKind::Ramp {
                    base,
                    stride,
                    lanes: n,
                },
                ExprKind::Broadcast { value, lanes: m },
            )
            | (
                BinaryOp::Mul,
                ExprKind::Broadcast { value, lanes: m },
                ExprKind::Ramp {
                    base,
                    stride,
                    lanes: n,
                },
            ) if n == m => Some(ramp(
                scalar(self, op, base, value),
                scalar(self, op, stride, value),
                *n,
            )),
            _ => None,
        }
    }

    /// `a < b` after the canonical step that divides both sides by the gcd of
    /// the coefficients of `a - b` (TVM's canonical `LT` rule).
    fn rewrite_less(&mut self, expr: &Expr, a: &Expr, b: &Expr) -> Expr {
        if build::is_index_type(a.dtype()) && a.dtype() == b.dtype() {
            if let Some(result) = self.less_by_common_divisor(a, b) {
                return result;
            }
        }
        self.rewrite_less_plain(expr, a, b)
    }

    /// `x0*s0 + ... + xn + c < 0` where `d = gcd(s0, ..., c)`: when `0 <= xn < d`
    /// the last term drops out and both sides divide by `d`.
    fn less_by_common_divisor(&mut self, a: &Expr, b: &Expr) -> Option<Expr> {
        let difference = build::sub(a.clone(), b.clone());
        let Canon::Sum(sum) = self.mutate(&difference) else {
            return None;
        };
        let mut divisor = sum.base;
        let mut has_non_unit_scale = false;
        for arg in &sum.args {
            if arg.scale > 1 || arg.scale < -1 {
                has_non_unit_scale = true;
                divisor = build::gcd(divisor, arg.scale);
            }
        }
        if !has_non_unit_scale || divisor <= 1 {
            return None;
        }
        let (mut divisible, extra) = sum.separate_divisible_parts(divisor);
        let dtype = sum.dtype;
        let extra_expr = self.print_sum(&extra);
        let zero = build::int(0, dtype);
        let below = build::node(BinaryOp::Lt, extra_expr.clone(), build::int(divisor, dtype));
        let non_negative = build::node(BinaryOp::Ge, extra_expr, zero.clone());
        if self.can_prove(&below) && self.can_prove(&non_negative) {
            divisible.divide_by(divisor)?;
            let reduced = build::node(BinaryOp::Lt, divisible.to_expr(), zero);
            return Some(self.recursive_rewrite(&reduced));
        }
        if let [term] = extra.args.as_slice() {
            let lower = divisor.checked_mul(term.lower_factor)?;
            // Only a flooring modulo is non-negative, which the rewrite relies on
            // (TVM applies it to truncated terms as well, which is unsound for negative indices).
            let applies = term.scale == 1
                && term.div_mode == DivMode::Floor
                && term.lower_factor > 0
                && term.upper_factor > 0
                && term.upper_factor != NO_UPPER
                && term.upper_factor % lower == 0;
            if applies {
                // xn == (yn % m) // L with m % (d*L) == 0: xn // d == (yn // (d*L)) % (m / (d*L)).
                divisible.divide_by(divisor)?;
                let quotient = build::floordiv(term.index.clone(), build::int(lower, dtype));
                let remainder =
                    build::floormod(quotient, build::int(term.upper_factor / lower, dtype));
                let reduced = build::node(
                    BinaryOp::Lt,
                    build::add(divisible.to_expr(), remainder),
                    zero,
                );
                return Some(self.recursive_rewrite(&reduced));
            }
        }
        None
    }

    /// Visits the result of a rewrite again, a bounded number of times.
    pub(super) fn recursive_rewrite(&mut self, expr: &Expr) -> Expr {
        if self.rewrite_depth >= MAX_REWRITE_DEPTH {
            return expr.clone();
        }
        self.rewrite_depth += 1;
        let result = self.visit(expr);
        self.rewrite_depth -= 1;
        result
    }

    /// The negation of a condition, simplified.
    pub(super) fn negate(&mut self, condition: &Expr) -> Expr {
        let negated = build::not(condition.clone());
        match negated.kind() {
            ExprKind::Not(inner) => self.rewrite_not(inner.clone()),
            _ => negated,
        }
    }

    // ----- canonical arithmetic ----------------------------------------------

    /// `a + sign * b`.
    fn canonical_add(&mut self, expr: &Expr, a: &Expr, b: &Expr, sign: i64) -> Option<Canon> {
        let ca = self.mutate(a);
        let cb = self.mutate(b);
        let op = if sign > 0 {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        if let Some(folded) = fold_canon(op, &ca, &cb, expr.dtype()) {
            return Some(folded);
        }
        let mut sum = to_sum(ca);
        match cb {
            Canon::Expr(e) if e.as_int().is_some() => {
                let value = e.as_int()?;
                sum.add_constant(safe(value.checked_mul(sign))?)?;
            }
            Canon::Sum(other) => sum.add_sum(&other, sign)?,
            other => sum.add_term(self.split_of(other), sign)?,
        }
        Some(Canon::Sum(sum))
    }

    fn canonical_mul(&mut self, expr: &Expr, a: &Expr, b: &Expr) -> Option<Canon> {
        let mut ca = self.mutate(a);
        let mut cb = self.mutate(b);
        if let Some(folded) = fold_canon(BinaryOp::Mul, &ca, &cb, expr.dtype()) {
            return Some(folded);
        }
        if ca.as_int().is_some() {
            std::mem::swap(&mut ca, &mut cb);
        }
        if let Some(factor) = cb.as_int() {
            return match ca {
                Canon::Sum(mut sum) => {
                    sum.multiply_by(factor)?;
                    Some(Canon::Sum(sum))
                }
                other => {
                    let mut term = self.split_of(other);
                    term.scale = safe(term.scale.checked_mul(factor))?;
                    Some(Canon::Split(term))
                }
            };
        }
        // A product of two symbolic values: keep it as a plain product.
        let (na, nb) = (ca.to_expr(), cb.to_expr());
        let product = multiply_and_normalize(&na, &nb);
        if let ExprKind::Binary(BinaryOp::Mul, pa, pb) = product.kind() {
            if pa.same_as(a) && pb.same_as(b) {
                return Some(Canon::Expr(expr.clone()));
            }
        }
        Some(Canon::Expr(product))
    }

    fn canonical_div(&mut self, expr: &Expr, a: &Expr, b: &Expr, mode: DivMode) -> Option<Canon> {
        let ca = self.mutate(a);
        let cb = self.mutate(b);
        let dtype = expr.dtype();
        let op = match mode {
            DivMode::Floor => BinaryOp::FloorDiv,
            DivMode::Trunc => BinaryOp::Div,
        };
        if cb.as_int() == Some(0) {
            // Division by zero is left for the verifier to report.
            return Some(Canon::Expr(rebuild(
                expr,
                op,
                ca.to_expr(),
                cb.to_expr(),
                a,
                b,
            )));
        }
        if let Some(folded) = fold_canon(op, &ca, &cb, dtype) {
            return Some(folded);
        }
        let Some(divisor) = cb.as_int().filter(|c| *c > 0) else {
            return Some(Canon::Expr(self.divide_symbolic(expr, op, ca, cb, a, b)));
        };
        if divisor == 1 {
            return Some(ca);
        }
        if mode == DivMode::Floor {
            if let Some(result) = self.floordiv_of_shifted_quotient(&ca, divisor, dtype) {
                return Some(result);
            }
        }
        if let Canon::Sum(sum) = &ca {
            if let Some(result) = self.divide_sum(sum, divisor, mode) {
                return Some(result);
            }
        } else {
            // 0 <= a < divisor gives zero.
            let bound = self.bound(&ca.to_expr());
            if bound.min >= 0 && bound.max < divisor {
                return Some(Canon::Expr(build::int(0, dtype)));
            }
        }
        if mode == DivMode::Floor {
            if let Canon::Split(term) = &ca {
                if let Some(result) = self.floordiv_of_floormod(term, divisor) {
                    return Some(result);
                }
            }
        }
        let term = self.split_of(ca);
        Some(Canon::Split(self.split_div_const(term, divisor, mode)?))
    }

    /// TVM's rewrite rule `(x // c1 + c2) // c3` to `(x + c1 * c2) // (c1 * c3)`
    /// for positive `c1` and `c3`, which a split of a split's inferred extent
    /// needs (`((m + 1) // 2 + 3) // 4` is `(m + 7) // 8`).
    fn floordiv_of_shifted_quotient(
        &mut self,
        dividend: &Canon,
        c3: i64,
        dtype: DataType,
    ) -> Option<Canon> {
        let Canon::Sum(sum) = dividend else {
            return None;
        };
        let [term] = sum.args.as_slice() else {
            return None;
        };
        let is_quotient = term.div_mode == DivMode::Floor
            && term.scale == 1
            && term.upper_factor == NO_UPPER
            && term.lower_factor > 1;
        if !is_quotient || sum.base == 0 || c3 <= 0 {
            return None;
        }
        let c1 = term.lower_factor;
        let shift = c1.checked_mul(sum.base)?;
        let divisor = c1.checked_mul(c3)?;
        let shifted = build::add(term.index.clone(), build::int(shift, dtype));
        let rewritten = build::floordiv(shifted, build::int(divisor, dtype));
        Some(self.mutate(&rewritten))
    }

    /// `sum / divisor`: the divisible terms divide exactly; the rest is divided
    /// on its own, or dropped when it provably lies in `[0, divisor)`.
    fn divide_sum(&mut self, sum: &SumForm, divisor: i64, mode: DivMode) -> Option<Canon> {
        let (mut divisible, extra) = sum.separate_divisible_parts(divisor);
        if extra.is_zero() {
            divisible.divide_by(divisor)?;
            return Some(Canon::Sum(divisible));
        }
        if mode == DivMode::Trunc {
            // Truncation only splits over a sum when both parts are non-negative.
            let (divisible_expr, extra_expr) = (self.print_sum(&divisible), self.print_sum(&extra));
            let both_non_negative = self.can_prove_greater_equal(&divisible_expr, 0)
                && self.can_prove_greater_equal(&extra_expr, 0);
            if !both_non_negative {
                return None;
            }
        }
        divisible.divide_by(divisor)?;
        let remainder = self.print_sum(&extra);
        if let Some(value) = remainder.as_int() {
            let quotient = match mode {
                DivMode::Floor => build::floor_div_i64(value, divisor)?,
                DivMode::Trunc => value.checked_div(divisor)?,
            };
            divisible.add_constant(quotient)?;
            return Some(Canon::Sum(divisible));
        }
        let below = self.try_compare_constant(&remainder, divisor) == CompareResult::Lt;
        let droppable = match mode {
            DivMode::Floor => below && self.can_prove_greater_equal(&remainder, 0),
            DivMode::Trunc => below,
        };
        if droppable {
            return Some(Canon::Sum(divisible));
        }
        if mode == DivMode::Floor {
            if let Some(quotient) = self.constant_quotient(&extra, &remainder, divisor) {
                divisible.add_constant(quotient)?;
                return Some(Canon::Sum(divisible));
            }
        }
        if mode == DivMode::Floor {
            if let Some(quotient) = self.floordiv_of_scaled_plus_small(&extra, divisor) {
                let whole = build::add(self.print_sum(&divisible), quotient);
                return Some(self.mutate(&whole));
            }
        }
        // A single positive term divides as itself: (x // 3) // 5 is x // 15. Anything
        // else divides as the printed remainder, as TVM's canonical pass does.
        let single_positive = extra.base == 0 && extra.args.len() == 1 && extra.args[0].scale > 0;
        let term = if single_positive {
            self.split_of(Canon::Sum(extra))
        } else {
            SplitTerm::of(remainder)
        };
        let term = self.split_div_const(term, divisor, mode)?;
        divisible.add_term(term, 1)?;
        Some(Canon::Sum(divisible))
    }

    /// The constant value of `floordiv(remainder, divisor)` when bounds fix it,
    /// in the two shapes TVM's rewrite rules recognise: `x + c1` (with
    /// `0 <= x + c1 % c2 < c2`) and `x * c1 + y` (whose quotient has one value).
    fn constant_quotient(
        &mut self,
        extra: &SumForm,
        remainder: &Expr,
        divisor: i64,
    ) -> Option<i64> {
        let has_positive_term = extra.args.iter().any(|a| a.scale > 0);
        if extra.base > 0 && has_positive_term {
            let residue = build::floor_mod_i64(extra.base, divisor)?;
            let mut rest = extra.clone();
            rest.base = 0;
            let rest_expr = self.print_sum(&rest);
            let bound = self.bound(&rest_expr);
            if self.can_prove_greater_equal(&rest_expr, -residue) && bound.max < divisor - residue {
                return build::floor_div_i64(extra.base, divisor);
            }
        }
        let scaled = |e: &Expr| matches!(e.kind(), ExprKind::Binary(BinaryOp::Mul, _, c) if c.as_int().is_some());
        let shaped = match remainder.kind() {
            ExprKind::Binary(BinaryOp::Add, a, b) => scaled(a) || scaled(b),
            ExprKind::Binary(BinaryOp::Sub, a, b) => scaled(a) && b.as_int().is_some(),
            _ => scaled(remainder),
        };
        if shaped {
            let bound = self.bound(remainder);
            if bound.has_finite_min() && bound.has_finite_max() {
                let low = build::floor_div_i64(bound.min, divisor)?;
                let high = build::floor_div_i64(bound.max, divisor)?;
                if low == high {
                    return Some(low);
                }
            }
        }
        None
    }

    /// `floordiv(floormod(index, m*n), n) == floormod(floordiv(index, n), m)`,
    /// used when `index` has parts divisible by `n` that then simplify.
    fn floordiv_of_floormod(&mut self, term: &SplitTerm, divisor: i64) -> Option<Canon> {
        let applies = term.lower_factor == 1
            && term.scale == 1
            && term.upper_factor != NO_UPPER
            && term.upper_factor % divisor == 0
            && term.div_mode_compatible(DivMode::Floor);
        if !applies {
            return None;
        }
        let Canon::Sum(raw) = self.mutate(&term.index) else {
            return None;
        };
        let (divisible, _) = raw.separate_divisible_parts(divisor);
        if divisible.is_zero() {
            return None;
        }
        let Canon::Sum(quotient) = self.divide_sum(&raw, divisor, DivMode::Floor)? else {
            return None;
        };
        let modulus = term.upper_factor / divisor;
        let rebuilt = build::floormod(quotient.to_expr(), build::int(modulus, term.dtype));
        Some(Canon::Expr(self.visit(&rebuilt)))
    }

    /// `term / divisor` as a single term.
    fn split_div_const(
        &mut self,
        term: SplitTerm,
        divisor: i64,
        mode: DivMode,
    ) -> Option<SplitTerm> {
        let mut term = convert_div_mode(term, mode);
        if term.scale == 0 {
            return Some(term);
        }
        if term.scale % divisor == 0 {
            term.scale /= divisor;
            return Some(term);
        }
        // A negative scale makes the digit's divisor negative, which only keeps its
        // meaning without an inner division (TVM allows it anyway and miscomputes
        // ((x // 2) * -1) % 2).
        if divisor % term.scale == 0 && (term.scale > 0 || term.lower_factor == 1) {
            let scaled_divisor = divisor / term.scale;
            let new_lower = term.lower_factor.checked_mul(scaled_divisor)?;
            if term.upper_factor == NO_UPPER || term.upper_factor % new_lower == 0 {
                term.scale = 1;
                term.lower_factor = new_lower;
                return Some(term);
            }
            if 0 < term.upper_factor && term.upper_factor <= new_lower {
                // (x % c1) / c2 == 0 when c2 >= c1.
                return Some(SplitTerm::of(build::int(0, term.dtype)));
            }
            // Move the modulo into the index.
            term.index = super::canonical_form::modulo(
                term.index.clone(),
                build::int(term.upper_factor, term.dtype),
                mode,
            );
            term.upper_factor = NO_UPPER;
            term.scale = 1;
            term.lower_factor = new_lower;
            return Some(term);
        }
        let mut term = SplitTerm::of(term.to_expr());
        term.lower_factor = divisor;
        term.div_mode = mode;
        Some(term)
    }

    fn canonical_mod(&mut self, expr: &Expr, a: &Expr, b: &Expr, mode: DivMode) -> Option<Canon> {
        let ca = self.mutate(a);
        let cb = self.mutate(b);
        let dtype = expr.dtype();
        let op = match mode {
            DivMode::Floor => BinaryOp::FloorMod,
            DivMode::Trunc => BinaryOp::Mod,
        };
        if cb.as_int() == Some(0) {
            return Some(Canon::Expr(rebuild(
                expr,
                op,
                ca.to_expr(),
                cb.to_expr(),
                a,
                b,
            )));
        }
        if let Some(folded) = fold_canon(op, &ca, &cb, dtype) {
            return Some(folded);
        }
        let Some(divisor) = cb.as_int().filter(|c| *c > 0) else {
            return Some(Canon::Expr(self.divide_symbolic(expr, op, ca, cb, a, b)));
        };
        let modulus = build::int(divisor, dtype);
        match ca {
            Canon::Sum(sum) => {
                let (divisible, extra) = sum.separate_divisible_parts(divisor);
                let mut remaining = sum.clone();
                match mode {
                    DivMode::Floor => {
                        let remainder = self.print_sum(&extra);
                        if remainder.as_int().is_some() {
                            return Some(Canon::Expr(build::floormod(remainder, modulus)));
                        }
                        if self.try_compare_constant(&remainder, divisor) == CompareResult::Lt
                            && self.can_prove_greater_equal(&remainder, 0)
                        {
                            return Some(Canon::Expr(remainder));
                        }
                        // floormod(x - 5, 3) == floormod(x + 1, 3).
                        remaining = extra;
                        remaining.base = build::floor_mod_i64(remaining.base, divisor)?;
                        if let Some(split) = self.floormod_of_scaled_plus_small(&remaining, divisor)
                        {
                            return Some(Canon::Expr(split));
                        }
                    }
                    DivMode::Trunc => {
                        if extra.is_zero() {
                            return Some(Canon::Expr(build::int(0, dtype)));
                        }
                        let divisible_expr = self.print_sum(&divisible);
                        let extra_expr = self.print_sum(&extra);
                        if self.can_prove_greater_equal(&divisible_expr, 0)
                            && self.can_prove_greater_equal(&extra_expr, 0)
                        {
                            let remainder = extra_expr.clone();
                            if remainder.as_int().is_some() {
                                return Some(Canon::Expr(build::binary(
                                    BinaryOp::Mod,
                                    remainder,
                                    modulus,
                                )));
                            }
                            if self.try_compare_constant(&remainder, divisor) == CompareResult::Lt {
                                return Some(Canon::Expr(remainder));
                            }
                            remaining = extra;
                        }
                        // truncmod(x - 5, 3) == truncmod(x - 2, 3) when both dividends are non-negative.
                        let remaining_expr = self.print_sum(&remaining);
                        let bound = self.bound(&remaining_expr);
                        let new_base = remaining.base % divisor;
                        let shifted_min = bound
                            .min
                            .checked_sub(remaining.base)
                            .and_then(|v| v.checked_add(new_base));
                        if bound.min >= 0 && shifted_min.is_some_and(|v| v >= 0) {
                            remaining.base = new_base;
                        }
                    }
                }
                let term = self.split_of(Canon::Sum(remaining));
                Some(Canon::Split(self.split_mod_const(term, divisor, mode)?))
            }
            other => {
                // 0 <= a < divisor is its own remainder.
                let bound = self.bound(&other.to_expr());
                if bound.min >= 0 && bound.max < divisor {
                    return Some(other);
                }
                let term = self.split_of(other);
                Some(Canon::Split(self.split_mod_const(term, divisor, mode)?))
            }
        }
    }

    /// `floormod(x * c1 + y, c2) == floormod(x, c2 / c1) * c1 + y` when `c1`
    /// divides `c2` and `0 <= y < c1` (TVM's rewrite rule, on the printed sum).
    fn floormod_of_scaled_plus_small(&mut self, sum: &SumForm, divisor: i64) -> Option<Expr> {
        let printed = sum.to_expr();
        let ExprKind::Binary(BinaryOp::Add, scaled, small) = printed.kind() else {
            return None;
        };
        let ExprKind::Binary(BinaryOp::Mul, x, factor) = scaled.kind() else {
            return None;
        };
        let factor = factor.as_int().filter(|c| *c > 0 && divisor % *c == 0)?;
        let bound = self.bound(small);
        if !(bound.min >= 0 && bound.max < factor) {
            return None;
        }
        let dtype = sum.dtype;
        let reduced = build::floormod(x.clone(), build::int(divisor / factor, dtype));
        let rebuilt = build::add(
            build::mul(reduced, build::int(factor, dtype)),
            small.clone(),
        );
        Some(self.visit(&rebuilt))
    }

    /// `floordiv(x * c1 + y, c2) == floordiv(x, c2 / c1)` when `c1` divides
    /// `c2` and `0 <= y < c1`; a constant `y` first gives up its multiples of
    /// `c2` (`(x * 4 - 14) // 16` is `x // 4 - 1`). TVM's rewrite rules: a
    /// region of a split of a fused loop, `(f * 32 + 31) // 64`, is one row.
    fn floordiv_of_scaled_plus_small(&mut self, sum: &SumForm, divisor: i64) -> Option<Expr> {
        let printed = sum.to_expr();
        let (scaled, small) = match printed.kind() {
            ExprKind::Binary(BinaryOp::Add, scaled, small) => (scaled, small.clone()),
            // `x * 4 - 14` prints as a subtraction of the constant.
            ExprKind::Binary(BinaryOp::Sub, scaled, constant) => (
                scaled,
                build::int(constant.as_int()?.checked_neg()?, sum.dtype),
            ),
            _ => return None,
        };
        let ExprKind::Binary(BinaryOp::Mul, x, factor) = scaled.kind() else {
            return None;
        };
        let factor = factor.as_int().filter(|c| *c > 1 && divisor % *c == 0)?;
        let dtype = sum.dtype;
        let (small, whole_quotients) = match small.as_int() {
            Some(constant) => (
                build::floor_mod_i64(constant, divisor)?,
                build::floor_div_i64(constant, divisor)?,
            ),
            None => {
                let bound = self.bound(&small);
                (if bound.min >= 0 { bound.max } else { -1 }, 0)
            }
        };
        if !(0..factor).contains(&small) {
            return None;
        }
        let quotient = build::floordiv(x.clone(), build::int(divisor / factor, dtype));
        Some(self.visit(&build::add(quotient, build::int(whole_quotients, dtype))))
    }

    /// `term % divisor` as a single term.
    fn split_mod_const(
        &mut self,
        term: SplitTerm,
        divisor: i64,
        mode: DivMode,
    ) -> Option<SplitTerm> {
        let mut term = convert_div_mode(term, mode);
        if term.scale == 0 {
            return Some(term);
        }
        if term.scale % divisor == 0 {
            term.scale = 0;
            return Some(term);
        }
        // A negative scale makes the digit's divisor negative, which only keeps its
        // meaning without an inner division (TVM allows it anyway and miscomputes
        // ((x // 2) * -1) % 2).
        if divisor % term.scale == 0 && (term.scale > 0 || term.lower_factor == 1) {
            // ((i % u) / l * s) % (c * s) == ((i % (l * c)) / l) * s.
            let scaled_divisor = divisor / term.scale;
            let mut new_upper = term.lower_factor.checked_mul(scaled_divisor)?;
            if mode == DivMode::Trunc {
                // truncmod(x, -c) == truncmod(x, c): keep the modulus positive, as TVM prints it.
                new_upper = new_upper.checked_abs()?;
            }
            if term.upper_factor == NO_UPPER || term.upper_factor % new_upper == 0 {
                if new_upper < term.upper_factor && term.upper_factor != NO_UPPER {
                    // A smaller modulus: simplify the index under it again.
                    let reduced = super::canonical_form::modulo(
                        term.index.clone(),
                        build::int(new_upper, term.dtype),
                        mode,
                    );
                    let reduced = self.visit(&reduced);
                    let updated = self.split_of(Canon::Expr(reduced));
                    let mut result = if term.lower_factor != 1 {
                        self.split_div_const(updated, term.lower_factor, mode)?
                    } else {
                        updated
                    };
                    result.scale = safe(result.scale.checked_mul(term.scale))?;
                    return Some(result);
                }
                term.upper_factor = new_upper;
                return Some(term);
            }
            // (x % 2) % 4 == x % 2: the digit's values already lie below the modulus
            // (for flooring, only when they are non-negative).
            let non_negative = term.scale > 0 && term.lower_factor > 0 && term.upper_factor > 0;
            if new_upper % term.upper_factor == 0 && (mode == DivMode::Trunc || non_negative) {
                return Some(term);
            }
        }
        if mode == DivMode::Floor && divisor > 0 {
            // floormod(x * s, c) == floormod(x * (s mod c), c), TVM's rewrite rule.
            let reduced = build::floor_mod_i64(term.scale, divisor)?;
            if reduced != term.scale {
                term.scale = reduced;
                return self.split_mod_const(term, divisor, mode);
            }
        }
        let mut term = SplitTerm::of(term.to_expr());
        term.div_mode = mode;
        term.upper_factor = divisor;
        Some(term)
    }

    /// Division or modulo by a symbolic divisor: cancel common product factors.
    fn divide_symbolic(
        &mut self,
        expr: &Expr,
        op: BinaryOp,
        ca: Canon,
        cb: Canon,
        a: &Expr,
        b: &Expr,
    ) -> Expr {
        if op == BinaryOp::FloorDiv {
            if let Some(quotient) = self.floordiv_of_divisor_multiples(&ca, &cb.to_expr()) {
                return quotient;
            }
        }
        let (na, nb) = (ca.to_expr(), cb.to_expr());
        if cb.as_int().is_none() {
            if let Some((lhs, rhs, common)) = cancel_common_factors(&na, &nb) {
                return match op {
                    BinaryOp::FloorDiv | BinaryOp::Div => build::binary(op, lhs, rhs),
                    _ => build::mul(build::binary(op, lhs, rhs), common),
                };
            }
        }
        rebuild(expr, op, na, nb, a, b)
    }

    /// TVM's rules `floordiv(x * z + y, z)` to `x + floordiv(y, z)` and
    /// `floordiv(z + y, z)` to `floordiv(y, z) + 1` for a symbolic `z >= 0`:
    /// the terms of a sum that are multiples of the divisor leave the quotient
    /// (`(n * 64 - 1) // n` is `-1 // n + 64` for a buffer extent `n`).
    fn floordiv_of_divisor_multiples(&mut self, numerator: &Canon, divisor: &Expr) -> Option<Expr> {
        let Canon::Sum(sum) = numerator else {
            return None;
        };
        if divisor.as_int().is_some() || !self.can_prove_greater_equal(divisor, 0) {
            return None;
        }
        let mut rest = SumForm::constant(sum.base, sum.dtype);
        let mut quotient = build::int(0, sum.dtype);
        for arg in &sum.args {
            let term = arg.to_expr();
            match cancel_common_factors(&term, divisor) {
                Some((lhs, rhs, _)) if rhs.as_int() == Some(1) => {
                    quotient = build::add(quotient, lhs);
                }
                _ => rest.args.push(arg.clone()),
            }
        }
        if rest.args.len() == sum.args.len() {
            return None;
        }
        let remainder = build::floordiv(rest.to_expr(), divisor.clone());
        Some(self.visit(&build::add(remainder, quotient)))
    }

    fn canonical_cast(&mut self, dtype: DataType, value: &Expr) -> Canon {
        let canon = self.mutate(value);
        match canon {
            Canon::Sum(mut sum) if self.sum_cast_is_safe(&sum, dtype) => {
                for arg in &mut sum.args {
                    arg.index = operators::cast(dtype, arg.index.clone());
                    arg.dtype = dtype;
                }
                sum.dtype = dtype;
                Canon::Sum(sum)
            }
            Canon::Split(mut term) if self.term_cast_is_safe(&term, dtype) => {
                term.index = operators::cast(dtype, term.index.clone());
                term.dtype = dtype;
                Canon::Split(term)
            }
            other => Canon::Expr(operators::cast(dtype, other.to_expr())),
        }
    }

    /// True when `value` fits in `dtype` (always for a widening cast).
    fn cast_is_safe(&self, dtype: DataType, value: &Expr) -> bool {
        if !build::is_index_type(dtype) {
            return false;
        }
        if value.dtype().bits <= dtype.bits {
            return true;
        }
        let bound = self.bound(value);
        let range = ConstIntBound::everything(dtype);
        bound.max <= range.max && bound.min >= range.min
    }

    /// True when a cast distributes over the sum: every partial sum fits.
    fn sum_cast_is_safe(&self, sum: &SumForm, dtype: DataType) -> bool {
        if !build::is_index_type(dtype) || !build::is_index_type(sum.dtype) {
            return false;
        }
        if dtype.bits >= sum.dtype.bits {
            return true;
        }
        let mut partial = build::int(0, sum.dtype);
        for arg in sum.args.iter().filter(|a| a.scale > 0) {
            partial = build::add(partial, arg.to_expr());
            if !self.cast_is_safe(dtype, &partial) {
                return false;
            }
        }
        if sum.base > 0 || sum.base.checked_neg().is_none() {
            partial = build::add(partial, build::int(sum.base, sum.dtype));
            if !self.cast_is_safe(dtype, &partial) {
                return false;
            }
        }
        for arg in sum.args.iter().filter(|a| a.scale < 0) {
            partial = build::sub(partial, arg.to_expr_with_scale(-1));
            if !self.cast_is_safe(dtype, &partial) {
                return false;
            }
        }
        if let Some(magnitude) = sum.base.checked_neg().filter(|m| *m > 0) {
            partial = build::sub(partial, build::int(magnitude, sum.dtype));
            if !self.cast_is_safe(dtype, &partial) {
                return false;
            }
        }
        sum.args
            .iter()
            .all(|arg| self.term_cast_is_safe(arg, dtype))
    }

    /// True when a cast distributes over the term: every intermediate value fits.
    fn term_cast_is_safe(&self, term: &SplitTerm, dtype: DataType) -> bool {
        if !build::is_index_type(dtype) || !build::is_index_type(term.dtype) {
            return false;
        }
        if dtype.bits >= term.dtype.bits || term.scale == 0 {
            return true;
        }
        let mut value = term.index.clone();
        if !self.cast_is_safe(dtype, &value) {
            return false;
        }
        if term.upper_factor != NO_UPPER {
            value = super::canonical_form::modulo(
                value,
                build::int(term.upper_factor, term.dtype),
                term.div_mode,
            );
            if !self.cast_is_safe(dtype, &value) {
                return false;
            }
        }
        if term.lower_factor != 1 {
            value = super::canonical_form::divide(
                value,
                build::int(term.lower_factor, term.dtype),
                term.div_mode,
            );
            if !self.cast_is_safe(dtype, &value) {
                return false;
            }
        }
        if term.scale != 1 {
            value = build::mul(value, build::int(term.scale, term.dtype));
            if !self.cast_is_safe(dtype, &value) {
                return false;
            }
        }
        true
    }
}

/// The node rebuilt from new operands, or the original when nothing changed.
fn rebuild(expr: &Expr, op: BinaryOp, na: Expr, nb: Expr, a: &Expr, b: &Expr) -> Expr {
    if na.same_as(a) && nb.same_as(b) {
        return expr.clone();
    }
    Expr::new(ExprKind::Binary(op, na, nb), expr.dtype(), expr.span())
}

/// Constant folding on canonical operands (TVM's `TryConstFold` on its forms).
fn fold_canon(op: BinaryOp, a: &Canon, b: &Canon, dtype: DataType) -> Option<Canon> {
    let (x, y) = (a.as_int(), b.as_int());
    if let (Some(x), Some(y)) = (x, y) {
        let folded = build::try_fold(op, &build::int(x, a.dtype()), &build::int(y, b.dtype()))?;
        return Some(Canon::Expr(folded));
    }
    let result = match op {
        BinaryOp::Add if x == Some(0) => b.clone(),
        BinaryOp::Add | BinaryOp::Sub if y == Some(0) => a.clone(),
        BinaryOp::Mul if x == Some(1) => b.clone(),
        BinaryOp::Mul if y == Some(1) => a.clone(),
        BinaryOp::Mul if x == Some(0) || y == Some(0) => Canon::Expr(build::int(0, dtype)),
        BinaryOp::FloorDiv | BinaryOp::Div if x == Some(0) || y == Some(1) => a.clone(),
        BinaryOp::FloorMod | BinaryOp::Mod if x == Some(0) => a.clone(),
        BinaryOp::FloorMod | BinaryOp::Mod if y == Some(1) => Canon::Expr(build::int(0, dtype)),
        _ => return None,
    };
    Some(result)
}

/// The form as a sum.
fn to_sum(canon: Canon) -> SumForm {
    match canon {
        Canon::Sum(sum) => sum,
        Canon::Expr(e) if e.as_int().is_some() => {
            SumForm::constant(e.as_int().unwrap_or(0), e.dtype())
        }
        other => {
            let term = to_split(other);
            let dtype = term.dtype;
            let mut sum = SumForm::constant(0, dtype);
            sum.args.push(term);
            sum
        }
    }
}

/// The form as a single term (a sum of several terms becomes an opaque index).
fn to_split(canon: Canon) -> SplitTerm {
    match canon {
        Canon::Split(term) => term,
        Canon::Sum(sum) if sum.base == 0 && sum.args.len() == 1 => sum
            .args
            .into_iter()
            .next()
            .unwrap_or_else(|| SplitTerm::of(build::int(0, DataType::int32()))),
        other => SplitTerm::of(other.to_expr()),
    }
}

/// The term in another rounding mode, normalising it first when the modes differ in meaning.
fn convert_div_mode(term: SplitTerm, mode: DivMode) -> SplitTerm {
    if term.div_mode == mode {
        return term;
    }
    if term.div_mode_compatible(mode) {
        return SplitTerm {
            div_mode: mode,
            ..term
        };
    }
    SplitTerm {
        div_mode: mode,
        ..SplitTerm::of(term.to_expr())
    }
}

/// The factors of a product, with the constant factors multiplied out.
fn product_factors(expr: &Expr, factors: &mut Vec<Expr>, constant: &mut i64) {
    match expr.kind() {
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            product_factors(a, factors, constant);
            product_factors(b, factors, constant);
        }
        ExprKind::Int(v) => *constant = constant.wrapping_mul(*v),
        _ => factors.push(expr.clone()),
    }
}

/// `a * b` as `(x * y) * c`: symbolic factors in order, the constant last.
pub(crate) fn multiply_and_normalize(a: &Expr, b: &Expr) -> Expr {
    let mut factors = Vec::new();
    let mut constant = 1i64;
    product_factors(a, &mut factors, &mut constant);
    product_factors(b, &mut factors, &mut constant);
    let dtype = a.dtype();
    let mut result = build::int(1, dtype);
    for factor in factors {
        result = build::mul(result, factor);
    }
    if constant != 1 {
        result = build::mul(result, build::int(constant, dtype));
    }
    result
}

/// For `a / b` with symbolic `b`: cancels factors the products share
/// (`div(x*y*4, y*2) == div(x*2, 1)`), returning `(a', b', common)`.
fn cancel_common_factors(a: &Expr, b: &Expr) -> Option<(Expr, Expr, Expr)> {
    let mut lhs_factors = Vec::new();
    let mut lhs_constant = 1i64;
    product_factors(a, &mut lhs_factors, &mut lhs_constant);
    let mut rhs_factors = Vec::new();
    let mut rhs_constant = 1i64;
    product_factors(b, &mut rhs_factors, &mut rhs_constant);
    let mut remaining: Vec<Option<Expr>> = lhs_factors.into_iter().map(Some).collect();
    let (lhs_type, rhs_type) = (a.dtype(), b.dtype());
    let mut new_rhs = build::int(1, rhs_type);
    let mut common = build::int(1, rhs_type);
    let mut eliminated = 0;
    for factor in rhs_factors {
        let position = remaining
            .iter()
            .position(|f| f.as_ref().is_some_and(|f| expr_deep_equal(f, &factor)));
        match position {
            Some(index) => {
                remaining[index] = None;
                eliminated += 1;
                common = build::mul(common, factor);
            }
            None => new_rhs = build::mul(new_rhs, factor),
        }
    }
    let divisor = build::gcd(lhs_constant, rhs_constant);
    if eliminated == 0 && divisor <= 1 {
        return None;
    }
    let divisor = divisor.max(1);
    let mut new_lhs = build::int(1, lhs_type);
    for factor in remaining.into_iter().flatten() {
        new_lhs = build::mul(new_lhs, factor);
    }
    let new_lhs = build::mul(new_lhs, build::int(lhs_constant / divisor, lhs_type));
    let new_rhs = build::mul(new_rhs, build::int(rhs_constant / divisor, rhs_type));
    let common = build::mul(common, build::int(divisor, rhs_type));
    Some((new_lhs, new_rhs, common))
}

/// `if_then_else(c1, if_then_else(c2, x, k), k)` with the same constant `k`
/// in both else arms is `if_then_else(c1 and c2, x, k)`, as TVM's rewrite
/// simplifier merges it (only for constant arms, so no proof recursion).
fn merge_nested_if_then_else(
    expr: &Expr,
    op: crate::ir::Op,
    condition: &Expr,
    then_value: &Expr,
    else_value: &Expr,
) -> Option<Expr> {
    let ExprKind::Call {
        op: inner_op,
        args: inner,
    } = then_value.kind()
    else {
        return None;
    };
    if inner_op.name() != "if_then_else" || inner.len() != 3 {
        return None;
    }
    let same_constant = match (inner[2].kind(), else_value.kind()) {
        (ExprKind::Int(a), ExprKind::Int(b)) => a == b,
        (ExprKind::Float(a), ExprKind::Float(b)) => a == b,
        _ => false,
    };
    if !same_constant {
        return None;
    }
    let both = build::binary(BinaryOp::And, condition.clone(), inner[0].clone());
    Some(Expr::new(
        ExprKind::Call {
            op,
            args: vec![both, inner[1].clone(), else_value.clone()],
        },
        expr.dtype(),
        expr.span(),
    ))
}
