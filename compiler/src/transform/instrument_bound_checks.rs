//! `instrument-bound-checks`: an assert before each statement whose buffer
//! accesses may fall outside the memory they point into, as TVM's
//! `InstrumentBoundCheckers` does, so that a bad index stops the compiled
//! kernel with a message instead of corrupting memory or crashing it.
//!
//! Accesses are checked against the storage behind their data variable (a
//! parameter's buffer or an allocation), in bytes, so a view declared over
//! another buffer's data cannot reach past that buffer either. Checks the
//! analyzer proves (constant shapes, loop ranges, enclosing conditions) are
//! left out, and a load under a scalar `T.if_then_else` is checked only where
//! its side is taken.
//!
//! A check that does not change inside a loop that runs at least once is
//! made once, before the loop, so unrolling the loop does not copy it. It
//! then fails before the iteration that goes out of bounds starts, and may
//! name a later access of that iteration than the first bad one (the update
//! after a guarded `T.init` store, say).
//!
//! Not checked: gathers and scatters (an index that is neither a `Ramp` nor a
//! `Broadcast`), accesses whose index uses a variable bound inside the
//! expression (`T.Let`), loads in a `while` condition, and data pointers
//! whose size is not known (a bare `handle` parameter).

use crate::arith::Analyzer;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_stmt_children, Mutator};
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::{expr_uses_var, walk_expr, walk_exprs, Visitor};
use crate::ir::{BinaryOp, Buffer, DataType, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var};
use crate::source::Span;

/// The error kind of a failed check, as Python names an index out of range.
const ERROR_KIND: &str = "IndexError";

/// `func` with an assert before every access that may leave its storage.
pub fn instrument_bound_checks(func: &PrimFunc) -> PrimFunc {
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
    let element = Expr::int((dtype.bytes() * usize::from(dtype.lanes)) as i64, INDEX);
    extents.iter().fold(element, |total, extent| {
        Expr::binary(BinaryOp::Mul, total, Expr::cast(INDEX, extent.clone()))
    })
}

/// The type every check computes in: wide enough for any byte offset.
const INDEX: DataType = DataType::int64();

/// One access a statement makes: the buffer, its flat index, whether it
/// writes, and the condition under which it happens (`None`: always).
struct Access {
    buffer: Buffer,
    index: Expr,
    store: bool,
    guard: Option<Expr>,
    span: Span,
}

/// A check to make: the assert's condition, message and span.
struct Check {
    condition: Expr,
    message: String,
    span: Span,
}

impl Check {
    /// `body` preceded by the assert.
    fn before(self, body: Stmt) -> Stmt {
        Stmt::new(
            StmtKind::Assert {
                condition: self.condition,
                error_kind: ERROR_KIND.to_string(),
                message: vec![Expr::string(self.message)],
                body,
            },
            self.span,
        )
    }
}

/// Collects the loads of an expression, with the conditions guarding them.
struct LoadCollector {
    accesses: Vec<Access>,
    guard: Option<Expr>,
}

impl LoadCollector {
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

impl Visitor for LoadCollector {
    fn visit_expr(&mut self, expr: &Expr) {
        match expr.kind() {
            ExprKind::Load(load) => {
                if let [index] = load.indices.as_slice() {
                    self.accesses.push(Access {
                        buffer: load.buffer.clone(),
                        index: index.clone(),
                        store: false,
                        guard: self.guard.clone(),
                        span: expr.span(),
                    });
                }
                walk_expr(self, expr);
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
                let start = self.accesses.len();
                self.visit_expr(body);
                let inner = self.accesses.split_off(start);
                self.accesses.extend(inner.into_iter().filter(|access| {
                    let mentions = |e: &Expr| expr_uses_var(e, &mut |v| v == var);
                    !mentions(&access.index) && !access.guard.as_ref().is_some_and(mentions)
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
    /// `stmt` preceded by an assert for each of `accesses` that may fail;
    /// an assert that can move before an enclosing loop goes there instead.
    fn guarded(&mut self, stmt: Stmt, accesses: Vec<Access>) -> Stmt {
        // In the order of the accesses; a check repeating an earlier one
        // (a load and a store of the same element) is made once.
        let mut local: Vec<Check> = Vec::new();
        for access in &accesses {
            let Some(condition) = self.check(access) else {
                continue;
            };
            let check = Check {
                message: access_message(access, self.storage.get(access.buffer.data())),
                span: if access.span == Span::NONE {
                    stmt.span()
                } else {
                    access.span
                },
                condition,
            };
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

    /// The condition `access` stays inside its storage, or `None` when that
    /// is proven or cannot be said.
    fn check(&mut self, access: &Access) -> Option<Expr> {
        let bytes = self.storage.get(access.buffer.data())?.clone();
        let (first, last) = element_range(&access.index)?;
        let offset = Expr::cast(INDEX, access.buffer.node().elem_offset.clone());
        let element = Expr::int(
            (access.buffer.dtype().bytes() * usize::from(access.buffer.dtype().lanes)) as i64,
            INDEX,
        );
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
        let conditions = [
            Expr::binary(BinaryOp::Ge, first, Expr::int(0, INDEX)),
            Expr::binary(BinaryOp::Le, end, bytes),
        ];
        let proven = |analyzer: &mut Analyzer, condition: &Expr| match &access.guard {
            Some(guard) => analyzer.with_constraint(guard, |a| a.can_prove(condition)),
            None => analyzer.can_prove(condition),
        };
        let mut open = Vec::new();
        for condition in conditions {
            if !proven(&mut self.analyzer, &condition) {
                open.push(self.analyzer.simplify(&condition));
            }
        }
        let holds = open
            .into_iter()
            .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))?;
        Some(match &access.guard {
            Some(guard) => Expr::binary(BinaryOp::Or, negate(guard), holds),
            None => holds,
        })
    }

    /// The loads in `exprs`, each always made when the statement runs.
    fn loads(exprs: &[&Expr]) -> Vec<Access> {
        let mut collector = LoadCollector {
            accesses: Vec::new(),
            guard: None,
        };
        for expr in exprs {
            collector.visit_expr(expr);
        }
        collector.accesses
    }

    /// Records that `data` points to `bytes` bytes (folded, so a constant
    /// size shows in messages and proofs).
    fn record_storage(&mut self, data: &Var, bytes: &Expr) {
        let bytes = self.analyzer.simplify(bytes);
        self.storage.insert(data.clone(), bytes);
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

/// What a failed check says: the access, the storage it reaches past and,
/// when constant, that storage's size.
fn access_message(access: &Access, bytes: Option<&Expr>) -> String {
    let verb = if access.store {
        "store to"
    } else {
        "load from"
    };
    let buffer = access.buffer.name();
    let data = access.buffer.data().name();
    let view = if buffer == data {
        String::new()
    } else {
        format!(", a view of `{data}`")
    };
    let size = match bytes.and_then(|bytes| bytes.as_int()) {
        Some(bytes) => format!(" of {bytes} bytes"),
        None => String::new(),
    };
    format!("out-of-bounds {verb} `{buffer}`{view}: the index reaches past its storage{size}")
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
                let mut accesses = Instrumenter::loads(&exprs);
                if let [index] = store.indices.as_slice() {
                    accesses.push(Access {
                        buffer: store.buffer.clone(),
                        index: index.clone(),
                        store: true,
                        guard: None,
                        span: stmt.span(),
                    });
                }
                self.guarded(stmt.clone(), accesses)
            }
            StmtKind::Evaluate(value) => {
                let accesses = Instrumenter::loads(&[value]);
                self.guarded(stmt.clone(), accesses)
            }
            StmtKind::For(for_loop) => {
                let accesses = Instrumenter::loads(&[&for_loop.min, &for_loop.extent]);
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
                self.guarded(new_stmt, accesses)
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let accesses = Instrumenter::loads(&[condition]);
                let then_case = self.in_branch(condition, then_case);
                let else_case = else_case
                    .as_ref()
                    .map(|else_case| self.in_branch(&negate(condition), else_case));
                let new_stmt = stmt.with_kind(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case,
                    else_case,
                });
                self.guarded(new_stmt, accesses)
            }
            StmtKind::LetStmt { var, value, .. } => {
                let accesses = Instrumenter::loads(&[value]);
                self.analyzer.bind_value(var, value);
                self.define(var);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.guarded(new_stmt, accesses)
            }
            StmtKind::Assert { condition, .. } => {
                let accesses = Instrumenter::loads(&[condition]);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.guarded(new_stmt, accesses)
            }
            StmtKind::Allocate(allocate) => {
                let accesses = Instrumenter::loads(&allocate.extents.iter().collect::<Vec<_>>());
                let bytes = byte_count(&allocate.extents, allocate.dtype);
                self.record_storage(&allocate.buffer_var, &bytes);
                self.define(&allocate.buffer_var);
                let new_stmt = mutate_stmt_children(self, stmt);
                self.guarded(new_stmt, accesses)
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
