//! `instrument-runtime-checks`: an assert before each statement that may
//! fault, so that the compiled kernel stops with a message instead of
//! corrupting memory or trapping. Two hazards are checked:
//!
//! - buffer accesses that may fall outside the memory they point into, as
//!   TVM's `InstrumentBoundCheckers` does;
//! - integer divisions and remainders whose divisor may be zero, or whose
//!   operands may be the type's minimum and -1 (the quotient overflows);
//!   both trap on the CPU. TVM does not check these.
//!
//! Accesses are checked against the storage behind their data variable (a
//! parameter's buffer or an allocation), in bytes, so a view declared over
//! another buffer's data cannot reach past that buffer either. Checks the
//! analyzer proves (constant shapes, loop ranges, enclosing conditions) are
//! left out, and a load under a scalar `T.if_then_else` is checked only where
//! its side is taken.
//!
//! Divisions are treated like loads: proven ones (a constant divisor, a
//! divisor known positive under a guard) are left out, and a division is
//! checked before any index that contains it is.
//!
//! A check that does not change inside a loop that runs at least once is
//! made once, before the loop, so unrolling the loop does not copy it. It
//! then fails before the iteration that goes wrong starts, and may name a
//! later access of that iteration than the first bad one (the update after a
//! guarded `T.init` store, say).
//!
//! Not checked: gathers and scatters (an index that is neither a `Ramp` nor a
//! `Broadcast`), accesses whose index uses a variable bound inside the
//! expression (`T.Let`), anything in a `while` condition, data pointers
//! whose size is not known (a bare `handle` parameter); vector divisions.

use crate::arith::Analyzer;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_stmt_children, Mutator};
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::{expr_uses_var, walk_expr, walk_exprs, Visitor};
use crate::ir::{BinaryOp, Buffer, DataType, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var};
use crate::source::Span;

/// `func` with an assert before every access that may leave its storage.
pub fn instrument_runtime_checks(func: &PrimFunc) -> PrimFunc {
    let mut instrumenter = Instrumenter {
        analyzer: Analyzer::new(),
        storage: VarMap::default(),
        scopes: Vec::new(),
    };
    for (_, buffer) in &func.buffer_map {
        if let Some(bytes) = dense_bytes(buffer) {
            instrumenter.record_storage(buffer.data(), &bytes);
        }
    }
    let body = instrumenter.mutate_stmt(&func.body);
    PrimFunc {
        body,
        ..func.clone()
    }
}

/// The size in bytes of a buffer without strides, as an `int64` expression.
fn dense_bytes(buffer: &Buffer) -> Option<Expr> {
    let node = buffer.node();
    if !node.strides.is_empty() {
        return None;
    }
    Some(byte_count(&node.shape, buffer.dtype()))
}

/// `extents` multiplied together, times the bytes of one `dtype` element.
fn byte_count(extents: &[Expr], dtype: DataType) -> Expr {
    let element = Expr::int(dtype.bytes_of_all_lanes() as i64, INDEX);
    extents.iter().fold(element, |total, extent| {
        Expr::binary(BinaryOp::Mul, total, Expr::cast(INDEX, extent.clone()))
    })
}

/// The type every check computes in: wide enough for any byte offset.
const INDEX: DataType = DataType::int64();

/// What could fault at a place in a statement.
enum Hazard {
    /// A load or store: the buffer, its flat index, whether it writes.
    Access {
        buffer: Buffer,
        index: Expr,
        store: bool,
    },
    /// An integer division or remainder, which traps on a zero divisor and
    /// on the most negative value divided by -1.
    Division { dividend: Expr, divisor: Expr },
}

/// A hazard of a statement, with the condition under which it is met
/// (`None`: always) and where it is written.
struct Site {
    hazard: Hazard,
    guard: Option<Expr>,
    span: Span,
}

/// A check to make: the assert's condition, error kind, message and span.
struct Check {
    condition: Expr,
    error_kind: &'static str,
    message: String,
    span: Span,
}

impl Check {
    /// `body` preceded by the assert.
    fn before(self, body: Stmt) -> Stmt {
        Stmt::new(
            StmtKind::Assert {
                condition: self.condition,
                error_kind: self.error_kind.to_string(),
                message: vec![Expr::string(self.message)],
                body,
            },
            self.span,
        )
    }
}

/// Collects the hazards of an expression (loads and integer divisions), with
/// the conditions guarding them, in the order they are evaluated.
struct SiteCollector {
    sites: Vec<Site>,
    guard: Option<Expr>,
}

impl SiteCollector {
    fn push(&mut self, hazard: Hazard, span: Span) {
        self.sites.push(Site {
            hazard,
            guard: self.guard.clone(),
            span,
        });
    }

    fn with_guard(&mut self, condition: Expr, expr: &Expr) {
        let outer = self.guard.clone();
        self.guard = Some(match &outer {
            Some(outer) => Expr::binary(BinaryOp::And, outer.clone(), condition),
            None => condition,
        });
        self.visit_expr(expr);
        self.guard = outer;
    }
}

impl Visitor for SiteCollector {
    fn visit_expr(&mut self, expr: &Expr) {
        match expr.kind() {
            // Operands first: a check evaluates the index, so a division in
            // it must be checked before.
            ExprKind::Load(load) => {
                walk_expr(self, expr);
                if let [index] = load.indices.as_slice() {
                    let hazard = Hazard::Access {
                        buffer: load.buffer.clone(),
                        index: index.clone(),
                        store: false,
                    };
                    self.push(hazard, expr.span());
                }
            }
            ExprKind::Binary(
                BinaryOp::Div | BinaryOp::Mod | BinaryOp::FloorDiv | BinaryOp::FloorMod,
                dividend,
                divisor,
            ) if expr.dtype().is_scalar() && (expr.dtype().is_int() || expr.dtype().is_uint()) => {
                walk_expr(self, expr);
                let hazard = Hazard::Division {
                    dividend: dividend.clone(),
                    divisor: divisor.clone(),
                };
                self.push(hazard, expr.span());
            }
            // Only the taken side of a scalar `if_then_else` runs (the back end branches).
            ExprKind::Call { op, args }
                if op.name() == "if_then_else"
                    && args.len() == 3
                    && args[0].dtype().is_scalar() =>
            {
                self.visit_expr(&args[0]);
                self.with_guard(args[0].clone(), &args[1]);
                self.with_guard(negate(&args[0]), &args[2]);
            }
            ExprKind::Let { var, value, body } => {
                self.visit_expr(value);
                // Checks go before the statement, where `var` is not defined.
                let start = self.sites.len();
                self.visit_expr(body);
                let inner = self.sites.split_off(start);
                self.sites.extend(inner.into_iter().filter(|site| {
                    let mentions = |e: &Expr| expr_uses_var(e, &mut |v| v == var);
                    let operands_mention = match &site.hazard {
                        Hazard::Access { index, .. } => mentions(index),
                        Hazard::Division { dividend, divisor } => {
                            mentions(dividend) || mentions(divisor)
                        }
                    };
                    !operands_mention && !site.guard.as_ref().is_some_and(mentions)
                }));
            }
            _ => walk_expr(self, expr),
        }
    }
}

struct Instrumenter {
    analyzer: Analyzer,
    /// The size in bytes of the storage each known data variable points to.
    storage: VarMap<Expr>,
    /// The loops and conditional branches around the statement being
    /// instrumented, outermost first.
    scopes: Vec<Scope>,
}

/// A loop or branch around the statement being instrumented.
enum Scope {
    /// A loop: the variables defined in it, whether it surely runs, and the
    /// asserts that go before it.
    Loop {
        defined: Vec<Var>,
        runs: bool,
        hoisted: Vec<Check>,
    },
    /// A branch of an `if` or the body of a `while`: a check in it may not
    /// hold where the branch does not run, so none moves out of it.
    Branch,
}

impl Instrumenter {
    /// `stmt` preceded by an assert for each hazard of `sites` that may
    /// fault; an assert that can move before an enclosing loop goes there.
    fn guarded(&mut self, stmt: Stmt, sites: Vec<Site>) -> Stmt {
        // In evaluation order; a check repeating an earlier one (a load and
        // a store of the same element) is made once.
        let mut local: Vec<Check> = Vec::new();
        for site in &sites {
            for check in self.checks(site, stmt.span()) {
                let list = match self.hoist_target(&check.condition) {
                    Some(scope) => match &mut self.scopes[scope] {
                        Scope::Loop { hoisted, .. } => hoisted,
                        Scope::Branch => &mut local,
                    },
                    None => &mut local,
                };
                if !list
                    .iter()
                    .any(|earlier| expr_deep_equal(&earlier.condition, &check.condition))
                {
                    list.push(check);
                }
            }
        }
        local
            .into_iter()
            .rev()
            .fold(stmt, |body, check| check.before(body))
    }

    /// The outermost loop `condition` can be checked before: every loop
    /// passed surely runs and defines nothing the condition uses, and no
    /// branch is passed. The condition must not load (memory may change).
    fn hoist_target(&self, condition: &Expr) -> Option<usize> {
        let mut loads = false;
        walk_exprs(condition, &mut |e| {
            loads |= matches!(e.kind(), ExprKind::Load(_))
        });
        if loads {
            return None;
        }
        let mut target = None;
        for (position, scope) in self.scopes.iter().enumerate().rev() {
            match scope {
                Scope::Loop { defined, runs, .. }
                    if *runs && !expr_uses_var(condition, &mut |v| defined.contains(v)) =>
                {
                    target = Some(position);
                }
                _ => break,
            }
        }
        target
    }

    /// Records a variable defined in the innermost loop, which no check
    /// using it may leave.
    fn define(&mut self, var: &Var) {
        if let Some(Scope::Loop { defined, .. }) = self
            .scopes
            .iter_mut()
            .rev()
            .find(|scope| matches!(scope, Scope::Loop { .. }))
        {
            defined.push(var.clone());
        }
    }

    /// The checks `site` needs: none when the analyzer proves it safe, or
    /// when it cannot be said (a gather, storage of unknown size).
    fn checks(&mut self, site: &Site, statement_span: Span) -> Vec<Check> {
        let span = if site.span == Span::NONE {
            statement_span
        } else {
            site.span
        };
        let guard = site.guard.as_ref();
        let check = |condition, error_kind, message| Check {
            condition,
            error_kind,
            message,
            span,
        };
        match &site.hazard {
            Hazard::Access {
                buffer,
                index,
                store,
            } => {
                let (Some(bytes), Some((first, last))) = (
                    self.storage.get(buffer.data()).cloned(),
                    element_range(index),
                ) else {
                    return Vec::new();
                };
                let offset = Expr::cast(INDEX, buffer.node().elem_offset.clone());
                let element = Expr::int(buffer.dtype().bytes_of_all_lanes() as i64, INDEX);
                let first = Expr::binary(BinaryOp::Add, offset.clone(), first);
                let end = Expr::binary(
                    BinaryOp::Mul,
                    Expr::binary(
                        BinaryOp::Add,
                        Expr::binary(BinaryOp::Add, offset, last),
                        Expr::int(1, INDEX),
                    ),
                    element,
                );
                let conditions = vec![
                    Expr::binary(BinaryOp::Ge, first, Expr::int(0, INDEX)),
                    Expr::binary(BinaryOp::Le, end, bytes.clone()),
                ];
                let message = access_message(buffer, *store, &bytes);
                self.unproven(conditions, guard)
                    .map(|condition| check(condition, "IndexError", message))
                    .into_iter()
                    .collect()
            }
            Hazard::Division { dividend, divisor } => {
                let dtype = divisor.dtype();
                let nonzero = Expr::binary(BinaryOp::Ne, divisor.clone(), Expr::int(0, dtype));
                let mut checks: Vec<Check> = self
                    .unproven(vec![nonzero], guard)
                    .map(|condition| {
                        let message = "integer division by zero".to_string();
                        check(condition, "ZeroDivisionError", message)
                    })
                    .into_iter()
                    .collect();
                // `MIN / -1` overflows, and traps like a zero divisor.
                if dtype.is_int() && (2..=64).contains(&dtype.bits) {
                    let min = i64::MIN >> (64 - dtype.bits);
                    let not_minus_one =
                        Expr::binary(BinaryOp::Ne, divisor.clone(), Expr::int(-1, dtype));
                    let safe = self.unproven(vec![not_minus_one], guard).is_none()
                        || self.analyzer.const_int_bound(dividend).min > min;
                    if !safe {
                        // Built, not simplified: like TVM's, the simplifier
                        // folds `x == MIN` to false for a variable `x`.
                        let overflows = Expr::binary(
                            BinaryOp::And,
                            Expr::binary(BinaryOp::Eq, dividend.clone(), Expr::int(min, dtype)),
                            Expr::binary(BinaryOp::Eq, divisor.clone(), Expr::int(-1, dtype)),
                        );
                        checks.push(check(
                            under_guard(guard, negate(&overflows)),
                            "OverflowError",
                            format!("integer division overflow: {min} divided by -1"),
                        ));
                    }
                }
                checks
            }
        }
    }

    /// The conjunction of `conditions` the analyzer cannot prove (under
    /// `guard`, which the result then assumes), or `None` if it proves all.
    fn unproven(&mut self, conditions: Vec<Expr>, guard: Option<&Expr>) -> Option<Expr> {
        let mut open = Vec::new();
        for condition in conditions {
            let proven = match guard {
                Some(guard) => self
                    .analyzer
                    .with_constraint(guard, |analyzer| analyzer.can_prove(&condition)),
                None => self.analyzer.can_prove(&condition),
            };
            if !proven {
                open.push(self.analyzer.simplify(&condition));
            }
        }
        let holds = open
            .into_iter()
            .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))?;
        Some(under_guard(guard, holds))
    }

    /// The hazards of `exprs`, evaluated whenever the statement runs.
    fn sites(exprs: &[&Expr]) -> Vec<Site> {
        let mut collector = SiteCollector {
            sites: Vec::new(),
            guard: None,
        };
        for expr in exprs {
            collector.visit_expr(expr);
        }
        collector.sites
    }

    /// Records that `data` points to `bytes` bytes (folded, so a constant
    /// size shows in messages and proofs).
    fn record_storage(&mut self, data: &Var, bytes: &Expr) {
        let bytes = self.analyzer.simplify(bytes);
        self.storage.insert(data.clone(), bytes);
    }
}

/// `condition` where `guard` holds: `not guard or condition`.
fn under_guard(guard: Option<&Expr>, condition: Expr) -> Expr {
    match guard {
        Some(guard) => Expr::binary(BinaryOp::Or, negate(guard), condition),
        None => condition,
    }
}

/// `not condition`, without stacking negations.
fn negate(condition: &Expr) -> Expr {
    match condition.kind() {
        ExprKind::Not(inner) => inner.clone(),
        _ => Expr::new(
            ExprKind::Not(condition.clone()),
            condition.dtype(),
            Span::NONE,
        ),
    }
}

/// What a failed bound check says: the access, the storage it reaches
/// past and, when constant, that storage's size.
fn access_message(buffer: &Buffer, store: bool, bytes: &Expr) -> String {
    let verb = if store { "store to" } else { "load from" };
    let name = buffer.name();
    let data = buffer.data().name();
    let view = if name == data {
        String::new()
    } else {
        format!(", a view of `{data}`")
    };
    let size = match bytes.as_int() {
        Some(bytes) => format!(" of {bytes} bytes"),
        None => String::new(),
    };
    format!("out-of-bounds {verb} `{name}`{view}: the index reaches past its storage{size}")
}

/// The first and last element a flat index touches, as `int64`: a scalar,
/// a `Ramp` with a constant stride, or a `Broadcast`; `None` for a gather.
fn element_range(index: &Expr) -> Option<(Expr, Expr)> {
    let wide = |e: &Expr| Expr::cast(INDEX, e.clone());
    match index.kind() {
        _ if index.dtype().is_scalar() => Some((wide(index), wide(index))),
        ExprKind::Broadcast { value, .. } if value.dtype().is_scalar() => {
            Some((wide(value), wide(value)))
        }
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } if base.dtype().is_scalar() => {
            let stride = stride.as_int()?;
            let span = stride.checked_mul(i64::from(*lanes) - 1)?;
            let other = Expr::binary(BinaryOp::Add, wide(base), Expr::int(span, INDEX));
            Some(if span >= 0 {
                (wide(base), other)
            } else {
                (other, wide(base))
            })
        }
        _ => None,
    }
}

impl Mutator for Instrumenter {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        expr.clone()
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::BufferStore(store) => {
                let mut exprs: Vec<&Expr> = vec![&store.value];
                exprs.extend(store.indices.iter());
                let mut sites = Instrumenter::sites(&exprs);
                if let [index] = store.indices.as_slice() {
                    sites.push(Site {
                        hazard: Hazard::Access {
                            buffer: store.buffer.clone(),
                            index: index.clone(),
                            store: true,
                        },
                        guard: None,
                        span: stmt.span(),
                    });
                }
                self.guarded(stmt.clone(), sites)
            }
            StmtKind::Evaluate(value) => {
                let sites = Instrumenter::sites(&[value]);
                self.guarded(stmt.clone(), sites)
            }
            StmtKind::For(for_loop) => {
                let sites = Instrumenter::sites(&[&for_loop.min, &for_loop.extent]);
                let runs = self.analyzer.can_prove_greater_equal(&for_loop.extent, 1);
                self.analyzer.bind(&for_loop.loop_var, &for_loop.range());
                self.scopes.push(Scope::Loop {
                    defined: vec![for_loop.loop_var.clone()],
                    runs,
                    hoisted: Vec::new(),
                });
                let mut new_stmt = mutate_stmt_children(self, stmt);
                if let Some(Scope::Loop { hoisted, .. }) = self.scopes.pop() {
                    for check in hoisted.into_iter().rev() {
                        new_stmt = check.before(new_stmt);
                    }
                }
                self.guarded(new_stmt, sites)
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let sites = Instrumenter::sites(&[condition]);
                let then_case = self.in_branch(condition, then_case);
                let else_case = else_case
                    .as_ref()
                    .map(|else_case| self.in_branch(&negate(condition), else_case));
                let new_stmt = stmt.with_kind(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case,
                    else_case,
                });
                self.guarded(new_stmt, sites)
            }
            StmtKind::LetStmt { var, value, .. } => {
                let sites = Instrumenter::sites(&[value]);
                self.analyzer.bind_value(var, value);
                self.define(var);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.guarded(new_stmt, sites)
            }
            StmtKind::Assert { condition, .. } => {
                let sites = Instrumenter::sites(&[condition]);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.guarded(new_stmt, sites)
            }
            StmtKind::Allocate(allocate) => {
                let sites = Instrumenter::sites(&allocate.extents.iter().collect::<Vec<_>>());
                let bytes = byte_count(&allocate.extents, allocate.dtype);
                self.record_storage(&allocate.buffer_var, &bytes);
                self.define(&allocate.buffer_var);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.guarded(new_stmt, sites)
            }
            StmtKind::AllocBuffer { buffer, .. } => {
                if let Some(bytes) = dense_bytes(buffer) {
                    self.record_storage(buffer.data(), &bytes);
                }
                mutate_stmt_children(self, stmt)
            }
            StmtKind::While { .. } => {
                self.scopes.push(Scope::Branch);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.scopes.pop();
                new_stmt
            }
            _ => mutate_stmt_children(self, stmt),
        }
    }
}

impl Instrumenter {
    /// A branch of an `if`, instrumented knowing that `condition` holds in it.
    fn in_branch(&mut self, condition: &Expr, branch: &Stmt) -> Stmt {
        self.scopes.push(Scope::Branch);
        let mut analyzer = std::mem::take(&mut self.analyzer);
        let result = analyzer.with_constraint(condition, |constrained| {
            // The branch is instrumented with the constrained analyzer in place.
            std::mem::swap(&mut self.analyzer, constrained);
            let result = self.mutate_stmt(branch);
            std::mem::swap(&mut self.analyzer, constrained);
            result
        });
        self.analyzer = analyzer;
        self.scopes.pop();
        result
    }
}
