//! `thread-sync` (CUDA target): a `T.tvm_storage_sync("shared")` barrier
//! (`__syncthreads()`) wherever one thread of a block may read a `shared`
//! element another wrote, or overwrite one another still reads, with no
//! barrier between, and nowhere else. This is TVM's ThreadSync planner:
//!
//! - Statements of a sequence are scanned in order, keeping the shared
//!   accesses made since the last barrier. A statement whose reads meet an
//!   earlier write, or whose writes meet an earlier read or write, gets a
//!   barrier before it.
//! - A loop body is also checked against itself across iterations: what
//!   the end of iteration `k` touched against what the start of `k + 1`
//!   touches; a conflict puts a barrier at the start of the body.
//! - Two accesses conflict when they touch the same buffer, one writes,
//!   and they are not both one element at the same index (the same thread
//!   touching what it touched itself, or threads storing one value). For a
//!   read and a write the index must also depend on the innermost thread
//!   index around them: `S[0]` written by thread 0 and read by every thread
//!   is a conflict, as in TVM's planner. Indices are compared with every
//!   loop bound to a thread tag read as that tag, so a cooperative fetch
//!   bound to `threadIdx.x` and a read at `threadIdx.x` compare equal; an
//!   access inside a serial loop of the statement touches a range.
//! - No barrier goes inside a condition that depends on the thread: it goes
//!   before the `if`, which every thread reaches.

use super::support::defined_vars;
use super::LowerOptions;
use crate::arith::{Analyzer, ConstIntBound};
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::{expr_uses_var, walk_exprs, walk_stmt, walk_stmts, Visitor};
use crate::ir::{
    BinaryOp, DataType, Expr, ExprKind, ForKind, Op, PrimFunc, Range, Stmt, StmtKind, Var,
};
use crate::source::Span;

/// Inserts barriers in a device kernel; other functions pass unchanged.
pub fn thread_sync(func: &PrimFunc, _options: &LowerOptions) -> Result<PrimFunc, Vec<Diagnostic>> {
    if !super::split_host_device::is_kernel(func) {
        return Ok(func.clone());
    }
    let mut planner = Planner {
        thread_vars: Default::default(),
        canonical: Default::default(),
        analyzer: Analyzer::new(),
        launched: Default::default(),
        guards: Default::default(),
    };
    walk_stmts(&func.body, &mut |stmt| {
        if let StmtKind::For(for_loop) = stmt.kind() {
            if let (ForKind::ThreadBinding, Some(tag)) = (for_loop.kind, &for_loop.thread) {
                let canonical = planner
                    .canonical
                    .iter()
                    .find(|(t, _)| t == tag)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| {
                        let var = Var::new(tag.replace('.', "_"), DataType::int32(), Span::NONE);
                        planner.canonical.push((tag.clone(), var.clone()));
                        if for_loop.extent.as_int().is_some() {
                            planner
                                .analyzer
                                .bind(&var, &Range::from_extent(for_loop.extent.clone()));
                        }
                        var
                    });
                planner
                    .thread_vars
                    .insert(for_loop.loop_var.clone(), canonical.to_expr());
            }
        }
    });
    let (body, _) = planner.plan(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// True when `stmt` is the barrier this pass inserts.
pub fn is_barrier(stmt: &Stmt) -> bool {
    match stmt.kind() {
        StmtKind::Evaluate(expr) => matches!(
            expr.kind(),
            ExprKind::Call { op, .. } if op.name() == "tvm_storage_sync"
        ),
        _ => false,
    }
}

/// `T.tvm_storage_sync("shared")`.
pub fn barrier() -> Stmt {
    Stmt::new(
        StmtKind::Evaluate(Expr::call(
            Op::named("tvm_storage_sync"),
            vec![Expr::string("shared")],
            DataType::int32(),
        )),
        Span::NONE,
    )
}

/// One access to a shared buffer.
#[derive(Clone)]
struct Access {
    data: Var,
    indices: Vec<Expr>,
    /// One element (not a range over a loop inside the statement).
    point: bool,
    write: bool,
    /// The canonical variable of the innermost thread-bound loop around
    /// the access: an index that does not use it names an element several
    /// threads share.
    innermost_thread: Option<Var>,
    /// The conjuncts of the `if` conditions the access is under.
    guards: Vec<Expr>,
    /// The loops inside the planned statement the indices range over
    /// (none for a point); `None` where one is not a loop (a `let`).
    loops: Option<Vec<(Var, Range)>>,
}

/// What a statement does to shared memory, as seen from around it.
#[derive(Clone, Default)]
struct Summary {
    /// Accesses before its first barrier (all of them when it has none).
    head: Vec<Access>,
    /// Accesses after its last barrier (all of them when it has none).
    tail: Vec<Access>,
    /// It contains a barrier every thread passes.
    has_barrier: bool,
}

impl Summary {
    fn flat(accesses: Vec<Access>) -> Summary {
        Summary {
            head: accesses.clone(),
            tail: accesses,
            has_barrier: false,
        }
    }
}

struct Planner {
    /// Each thread-bound loop variable as its tag's variable.
    thread_vars: VarMap<Expr>,
    canonical: Vec<(String, Var)>,
    /// Knows each tag's variable ranges over its extent.
    analyzer: Analyzer,
    /// The canonical variables of the thread-bound loops around the
    /// statement being planned, outermost first.
    launched: std::cell::RefCell<Vec<Var>>,
    /// The conjuncts of the `if` conditions around the statement being
    /// planned (thread variables as tags).
    guards: std::cell::RefCell<Vec<Expr>>,
}

/// A loop whose next iteration a conflict test looks into.
struct Carried {
    var: Var,
    range: Range,
    /// The tags' variables of `threadIdx.*`: what differs between the
    /// threads of one block.
    thread_indices: Vec<Var>,
}

fn is_shared(scope: &str) -> bool {
    scope == "shared" || scope == "shared.dyn"
}

/// True when `a` (earlier) and `b` (later) may touch one element from two
/// threads; `carried_by` is the loop whose next iteration `b` is in.
fn conflict(a: &Access, b: &Access, carried_by: Option<&Carried>, analyzer: &Analyzer) -> bool {
    if a.data != b.data || !(a.write || b.write) {
        return false;
    }
    if let Some(carried) = carried_by {
        if iterations_injective(a, b, carried, analyzer) {
            return false;
        }
    }
    let carried_by = carried_by.map(|carried| &carried.var);
    let same_index = a.point
        && b.point
        && a.indices.len() == b.indices.len()
        && a.indices
            .iter()
            .zip(&b.indices)
            .all(|(x, y)| expr_deep_equal(x, y));
    // A read and a write at one index touch one thread's own element only
    // when the index moves with the innermost thread index (TVM's
    // `depends_on_thread_index`): `S[0]` is every thread's. Two writes at
    // one index store what one statement computes: the threads that share
    // the element store one value there (the emulation stops another value
    // as a race), and no barrier between orders anything a read sees.
    let uses_thread = |index: &Expr| match &b.innermost_thread {
        Some(thread) => expr_uses_var(index, &mut |v| v == thread),
        None => true,
    };
    let own_element =
        same_index && (a.write && b.write || a.indices.iter().chain(&b.indices).all(uses_thread));
    if !own_element {
        return true;
    }
    match carried_by {
        // In one iteration, one index names one element per thread.
        None => false,
        Some(var) => {
            let varies = a
                .indices
                .iter()
                .any(|index| expr_uses_var(index, &mut |v| v == var));
            // An index that moves with the loop may meet another thread's
            // element in the next iteration, unless every iteration keeps
            // to its own elements.
            let guards: Vec<Expr> = a
                .guards
                .iter()
                .filter(|g| b.guards.iter().any(|h| expr_deep_equal(g, h)))
                .cloned()
                .collect();
            varies
                && !a
                    .indices
                    .iter()
                    .any(|index| iterations_disjoint(index, var, analyzer, &guards))
        }
    }
}

/// True when `a` and `b`, one index over the same loops, name one element
/// in no two iterations of `var` whatever the threads: the index is a
/// bijective map of `var`, the loops inside and the thread variables it uses
/// (`S[k * 8 + tx * 4 + j]`, `j < 4`, two threads).
fn iterations_injective(a: &Access, b: &Access, carried: &Carried, analyzer: &Analyzer) -> bool {
    let (Some(a_loops), Some(b_loops)) = (&a.loops, &b.loops) else {
        return false;
    };
    let same_loops =
        a_loops.len() == b_loops.len() && a_loops.iter().zip(b_loops).all(|(x, y)| x.0 == y.0);
    let same_indices = a.indices.len() == b.indices.len()
        && a.indices
            .iter()
            .zip(&b.indices)
            .all(|(x, y)| expr_deep_equal(x, y));
    if !same_loops || !same_indices || a.indices.iter().any(|i| i.dtype().lanes != 1) {
        return false;
    }
    let mut iters = vec![(carried.var.clone(), carried.range.clone())];
    iters.extend(a_loops.iter().cloned());
    // The thread indices (the tags' variables, which the analyzer bounds)
    // vary; the block index and the loops outside are the same for both
    // accesses and stay symbolic.
    for index in &a.indices {
        walk_exprs(index, &mut |e| {
            let ExprKind::Var(v) = e.kind() else {
                return;
            };
            if !carried.thread_indices.contains(v) || iters.iter().any(|(known, _)| known == v) {
                return;
            }
            let bound = analyzer.const_int_bound(e);
            if bound.min != ConstIntBound::NEG_INF && bound.max != ConstIntBound::POS_INF {
                let range = Range::new(
                    Expr::int(bound.min, v.dtype()),
                    Expr::int(bound.max - bound.min + 1, v.dtype()),
                );
                iters.push((v.clone(), range));
            }
        });
    }
    crate::arith::detect_iter_map(
        &a.indices,
        &iters,
        &Expr::bool(true),
        crate::arith::IterMapLevel::Bijective,
        analyzer,
        true,
    )
    .is_success()
}

/// Marks the accesses whose indices use a variable defined in `stmt` as
/// ranges over the loops of `stmt` they use.
fn relax_over(accesses: &mut [Access], stmt: &Stmt) {
    let inner = defined_vars(stmt);
    let mut loops: Vec<(Var, Range)> = Vec::new();
    walk_stmts(stmt, &mut |s| {
        if let StmtKind::For(for_loop) = s.kind() {
            loops.push((for_loop.loop_var.clone(), for_loop.range()));
        }
    });
    for access in accesses {
        let mut used: Vec<Var> = Vec::new();
        for index in &access.indices {
            walk_exprs(index, &mut |e| {
                if let ExprKind::Var(v) = e.kind() {
                    if inner.contains(v) && !used.contains(v) {
                        used.push(v.clone());
                    }
                }
            });
        }
        if used.is_empty() {
            continue;
        }
        access.point = false;
        if let Some(known) = access.loops.as_mut() {
            for v in used {
                match loops.iter().find(|(loop_var, _)| *loop_var == v) {
                    Some(found) if !known.iter().any(|(k, _)| *k == v) => known.push(found.clone()),
                    Some(_) => {}
                    None => {
                        access.loops = None;
                        break;
                    }
                }
            }
        }
    }
}

/// True when `index` (thread variables as tags) names disjoint elements in
/// different iterations of `var` whatever the threads: it is
/// `var * step + rest` and `rest` differs by less than `step` between any
/// two threads (`S[k * 256 + threadIdx.x]` with 256 threads), or `guards`
/// (conditions both accesses are under) keep `rest` in fewer than `step`
/// values (`S[k * 300 + ty * 32 + tx]` under `ty * 32 + tx < 300`).
fn iterations_disjoint(index: &Expr, var: &Var, analyzer: &Analyzer, guards: &[Expr]) -> bool {
    // A vector access `T.Ramp(base, stride, lanes)` (a vectorized fetch)
    // spans `(lanes - 1) * |stride|` elements past its base.
    let (index, span) = match index.kind() {
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } => match stride.as_int() {
            Some(stride) => (base, (*lanes as i64 - 1) * stride.abs()),
            None => return false,
        },
        _ => (index, 0),
    };
    let at = |value: Expr| {
        let mut map: VarMap<Expr> = Default::default();
        map.insert(var.clone(), value);
        substitute(index, &map)
    };
    let step = analyzer.simplify(&Expr::binary(
        BinaryOp::Sub,
        at(Expr::binary(
            BinaryOp::Add,
            Expr::var(var),
            Expr::int(1, var.dtype()),
        )),
        index.clone(),
    ));
    let Some(step) = step.as_int().filter(|s| *s != 0) else {
        return false;
    };
    // `rest` for two threads: the thread variables of one copy renamed.
    let rest = at(Expr::int(0, var.dtype()));
    let mut analyzer = analyzer.clone();
    let mut other_thread: VarMap<Expr> = Default::default();
    let mut thread_vars = Vec::new();
    walk_exprs(&rest, &mut |e| {
        if let ExprKind::Var(v) = e.kind() {
            thread_vars.push(v.clone());
        }
    });
    for v in thread_vars {
        // Only the thread variables are bounded; the loops outside are the
        // same for both threads and cancel.
        let bound = analyzer.const_int_bound(&Expr::var(&v));
        if bound.min == ConstIntBound::NEG_INF || bound.max == ConstIntBound::POS_INF {
            continue;
        }
        let copy = Var::new(format!("{}_other", v.name()), v.dtype(), Span::NONE);
        analyzer.bind(
            &copy,
            &Range::new(
                Expr::int(bound.min, v.dtype()),
                Expr::int(bound.max - bound.min + 1, v.dtype()),
            ),
        );
        other_thread.insert(v, Expr::var(&copy));
    }
    let difference = analyzer.simplify(&Expr::binary(
        BinaryOp::Sub,
        substitute(&rest, &other_thread),
        rest.clone(),
    ));
    let bound = analyzer.const_int_bound(&difference);
    let reach = step.abs() - span;
    if bound.max < reach && bound.min > -reach {
        return true;
    }
    let (low, high) = guarded_bounds(&rest, guards, &analyzer);
    low != ConstIntBound::NEG_INF && high != ConstIntBound::POS_INF && high - low < reach
}

/// The bounds of `value`, narrowed by each guard `value + c < d` (or `<=`,
/// `>`, `>=`) with constants `c` and `d`.
fn guarded_bounds(value: &Expr, guards: &[Expr], analyzer: &Analyzer) -> (i64, i64) {
    let bound = analyzer.const_int_bound(value);
    let (mut low, mut high) = (bound.min, bound.max);
    for guard in guards {
        let ExprKind::Binary(op, left, right) = guard.kind() else {
            continue;
        };
        // `left op right` as `value + offset` below (or above) a constant.
        let (term, limit, upper, strict) = match op {
            BinaryOp::Lt => (left, right, true, true),
            BinaryOp::Le => (left, right, true, false),
            BinaryOp::Gt => (left, right, false, true),
            BinaryOp::Ge => (left, right, false, false),
            _ => continue,
        };
        let offset = analyzer.simplify(&Expr::binary(BinaryOp::Sub, term.clone(), value.clone()));
        let (Some(offset), Some(limit)) = (offset.as_int(), limit.as_int()) else {
            continue;
        };
        let strictness = i64::from(strict);
        if upper {
            high = high.min(limit - offset - strictness);
        } else {
            low = low.max(limit - offset + strictness);
        }
    }
    (low, high)
}

fn any_conflict(
    earlier: &[Access],
    later: &[Access],
    carried_by: Option<&Carried>,
    analyzer: &Analyzer,
) -> bool {
    later
        .iter()
        .any(|b| earlier.iter().any(|a| conflict(a, b, carried_by, analyzer)))
}

impl Planner {
    fn canonical_index(&self, index: &Expr) -> Expr {
        substitute(index, &self.thread_vars)
    }

    /// The shared loads in `expr`, as reads, and the shared memory a
    /// `T.tvm_access_ptr` hands to a call (a wmma load or store), as a
    /// range read or written as its mask says.
    fn reads(&self, expr: &Expr, accesses: &mut Vec<Access>) {
        walk_exprs(expr, &mut |e| {
            if let ExprKind::Call { op, args } = e.kind() {
                if let (true, [_, data, offset, _, mask]) =
                    (op.name() == "tvm_access_ptr", args.as_slice())
                {
                    let shared = data
                        .as_var()
                        .and_then(|v| v.node().pointer.as_ref())
                        .is_some_and(|p| is_shared(&p.scope));
                    if let (true, Some(data)) = (shared, data.as_var()) {
                        let mask = mask.as_int().unwrap_or(3);
                        for write in [false, true] {
                            if mask & if write { 2 } else { 1 } != 0 {
                                accesses.push(Access {
                                    data: data.clone(),
                                    indices: vec![self.canonical_index(offset)],
                                    point: false,
                                    write,
                                    innermost_thread: self.innermost_thread(),
                                    guards: self.guards.borrow().clone(),
                                    loops: None,
                                });
                            }
                        }
                    }
                }
            }
            if let ExprKind::Load(load) = e.kind() {
                if is_shared(load.buffer.scope()) {
                    accesses.push(Access {
                        data: load.buffer.data().clone(),
                        indices: load
                            .indices
                            .iter()
                            .map(|i| self.canonical_index(i))
                            .collect(),
                        point: true,
                        write: false,
                        innermost_thread: self.innermost_thread(),
                        guards: self.guards.borrow().clone(),
                        loops: Some(Vec::new()),
                    });
                }
            }
        });
    }

    fn innermost_thread(&self) -> Option<Var> {
        self.launched.borrow().last().cloned()
    }

    /// The store's own access: a write of one element.
    fn store_access(&self, store: &crate::ir::BufferStore, accesses: &mut Vec<Access>) {
        self.reads(&store.value, accesses);
        for index in &store.indices {
            self.reads(index, accesses);
        }
        if is_shared(store.buffer.scope()) {
            accesses.push(Access {
                data: store.buffer.data().clone(),
                indices: store
                    .indices
                    .iter()
                    .map(|i| self.canonical_index(i))
                    .collect(),
                point: true,
                write: true,
                innermost_thread: self.innermost_thread(),
                guards: self.guards.borrow().clone(),
                loops: Some(Vec::new()),
            });
        }
    }

    /// Runs `f` with the loop `for_loop` counted as launched when it is
    /// bound to a thread tag.
    fn inside<R>(&self, for_loop: &crate::ir::For, f: impl FnOnce() -> R) -> R {
        let canonical = match (for_loop.kind, &for_loop.thread) {
            (ForKind::ThreadBinding, Some(tag)) => self
                .canonical
                .iter()
                .find(|(t, _)| t == tag)
                .map(|(_, v)| v.clone()),
            _ => None,
        };
        let pushed = canonical.is_some();
        if let Some(var) = canonical {
            self.launched.borrow_mut().push(var);
        }
        let result = f();
        if pushed {
            self.launched.borrow_mut().pop();
        }
        result
    }

    /// Runs `f` with the conjuncts of `condition` counted as holding.
    fn guarded<R>(&self, condition: &Expr, f: impl FnOnce() -> R) -> R {
        let conjuncts =
            crate::arith::const_int_bound::split_conjunction(&self.canonical_index(condition));
        let depth = self.guards.borrow().len();
        self.guards.borrow_mut().extend(conjuncts);
        let result = f();
        self.guards.borrow_mut().truncate(depth);
        result
    }

    fn depends_on_thread(&self, expr: &Expr) -> bool {
        expr_uses_var(expr, &mut |v| {
            self.thread_vars.contains_key(v) || self.canonical.iter().any(|(_, c)| c == v)
        })
    }

    /// Every shared access of `stmt`, barriers ignored.
    fn all_accesses(&self, stmt: &Stmt) -> Vec<Access> {
        let mut collector = AccessCollector {
            planner: self,
            accesses: Vec::new(),
        };
        collector.visit_stmt(stmt);
        let mut accesses = collector.accesses;
        relax_over(&mut accesses, stmt);
        accesses
    }

    /// `stmt` with barriers inserted, and its summary.
    fn plan(&self, stmt: &Stmt) -> (Stmt, Summary) {
        match stmt.kind() {
            StmtKind::Seq(stmts) => {
                let (stmts, summary) = self.plan_sequence(stmts, None);
                (Stmt::seq(stmts), summary)
            }
            StmtKind::For(for_loop) if for_loop.kind == ForKind::ThreadBinding => {
                let (body, summary) = self.inside(for_loop, || self.plan(&for_loop.body));
                let mut for_loop = for_loop.clone();
                for_loop.body = body;
                (stmt.with_kind(StmtKind::For(for_loop)), summary)
            }
            StmtKind::For(for_loop) => {
                let body_stmts = match for_loop.body.kind() {
                    StmtKind::Seq(stmts) => stmts.clone(),
                    _ => vec![for_loop.body.clone()],
                };
                let (stmts, summary) =
                    self.plan_sequence(&body_stmts, Some((&for_loop.loop_var, &for_loop.range())));
                let mut new_loop = for_loop.clone();
                new_loop.body = Stmt::seq(stmts);
                let relax = |mut accesses: Vec<Access>| -> Vec<Access> {
                    relax_over(&mut accesses, stmt);
                    accesses
                };
                // Seen from outside, a loop body with a barrier starts with
                // its head (first iteration) and ends with its tail (last).
                let summary = Summary {
                    head: relax(summary.head),
                    tail: relax(summary.tail),
                    has_barrier: summary.has_barrier,
                };
                (stmt.with_kind(StmtKind::For(new_loop)), summary)
            }
            StmtKind::While { condition, body } => {
                // Iterations of a while loop are not numbered: every access
                // in it touches a range.
                let mut accesses = self.all_accesses(stmt);
                for access in &mut accesses {
                    access.point = false;
                    access.loops = None;
                }
                let _ = (condition, body);
                (stmt.clone(), Summary::flat(accesses))
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if self.depends_on_thread(condition) {
                    return (stmt.clone(), Summary::flat(self.all_accesses(stmt)));
                }
                let mut condition_reads = Vec::new();
                self.reads(condition, &mut condition_reads);
                let (then_stmt, then_summary) = self.guarded(condition, || self.plan(then_case));
                let (else_stmt, else_summary) = match else_case {
                    Some(else_case) => {
                        let (s, summary) = self.plan(else_case);
                        (Some(s), summary)
                    }
                    None => (None, Summary::default()),
                };
                let mut head = condition_reads.clone();
                head.extend(then_summary.head);
                head.extend(else_summary.head);
                let mut tail = if then_summary.has_barrier || else_summary.has_barrier {
                    Vec::new()
                } else {
                    condition_reads
                };
                tail.extend(then_summary.tail);
                tail.extend(else_summary.tail);
                (
                    stmt.with_kind(StmtKind::IfThenElse {
                        condition: condition.clone(),
                        then_case: then_stmt,
                        else_case: else_stmt,
                    }),
                    Summary {
                        head,
                        tail,
                        has_barrier: then_summary.has_barrier && else_summary.has_barrier,
                    },
                )
            }
            StmtKind::LetStmt { var, value, body } => {
                let mut reads = Vec::new();
                self.reads(value, &mut reads);
                let (body, mut summary) = self.plan(body);
                let mut head = reads.clone();
                head.append(&mut summary.head);
                summary.head = head;
                if !summary.has_barrier {
                    let mut tail = reads;
                    tail.append(&mut summary.tail);
                    summary.tail = tail;
                }
                (
                    stmt.with_kind(StmtKind::LetStmt {
                        var: var.clone(),
                        value: value.clone(),
                        body,
                    }),
                    summary,
                )
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => {
                let (body, summary) = self.plan(body);
                (
                    stmt.with_kind(StmtKind::AllocBuffer {
                        buffer: buffer.clone(),
                        annotations: annotations.clone(),
                        body,
                    }),
                    summary,
                )
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let (body, summary) = self.plan(body);
                (
                    stmt.with_kind(StmtKind::DeclBuffer {
                        buffer: buffer.clone(),
                        body,
                    }),
                    summary,
                )
            }
            StmtKind::AttrStmt(attr) => {
                let (body, summary) = self.plan(&attr.body);
                let mut attr = attr.clone();
                attr.body = body;
                (stmt.with_kind(StmtKind::AttrStmt(attr)), summary)
            }
            _ if is_barrier(stmt) => (
                stmt.clone(),
                Summary {
                    head: Vec::new(),
                    tail: Vec::new(),
                    has_barrier: true,
                },
            ),
            _ => (stmt.clone(), Summary::flat(self.all_accesses(stmt))),
        }
    }

    /// A sequence with barriers inserted; `loop_var` when it is a loop body.
    fn plan_sequence(
        &self,
        stmts: &[Stmt],
        loop_var: Option<(&Var, &Range)>,
    ) -> (Vec<Stmt>, Summary) {
        let carried = loop_var.map(|(var, range)| Carried {
            var: var.clone(),
            range: range.clone(),
            thread_indices: self
                .canonical
                .iter()
                .filter(|(tag, _)| tag.starts_with("threadIdx."))
                .map(|(_, var)| var.clone())
                .collect(),
        });
        let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
        let mut outstanding: Vec<Access> = Vec::new();
        let mut head: Vec<Access> = Vec::new();
        let mut synced = false;
        for stmt in stmts {
            let (stmt, summary) = self.plan(stmt);
            if any_conflict(&outstanding, &summary.head, None, &self.analyzer) {
                out.push(barrier());
                outstanding.clear();
                synced = true;
            }
            if !synced {
                head.extend(summary.head.iter().cloned());
            }
            if summary.has_barrier {
                synced = true;
                outstanding = summary.tail;
            } else {
                outstanding.extend(summary.tail);
            }
            out.push(stmt);
        }
        if let Some(carried) = &carried {
            let starts_with_barrier = out.first().is_some_and(is_barrier);
            if !starts_with_barrier
                && any_conflict(&outstanding, &head, Some(carried), &self.analyzer)
            {
                out.insert(0, barrier());
                return (
                    out,
                    Summary {
                        head: Vec::new(),
                        tail: outstanding,
                        has_barrier: true,
                    },
                );
            }
        }
        let summary = if synced {
            Summary {
                head,
                tail: outstanding,
                has_barrier: true,
            }
        } else {
            Summary::flat(outstanding)
        };
        (out, summary)
    }
}

/// Collects the shared accesses of a statement, knowing the thread-bound
/// loops it enters.
struct AccessCollector<'a> {
    planner: &'a Planner,
    accesses: Vec<Access>,
}

impl Visitor for AccessCollector<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let planner = self.planner;
        match stmt.kind() {
            StmtKind::BufferStore(store) => planner.store_access(store, &mut self.accesses),
            StmtKind::Evaluate(expr) => planner.reads(expr, &mut self.accesses),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                planner.reads(condition, &mut self.accesses);
                planner.guarded(condition, || self.visit_stmt(then_case));
                if let Some(else_case) = else_case {
                    self.visit_stmt(else_case);
                }
                return;
            }
            StmtKind::LetStmt { value, .. } => planner.reads(value, &mut self.accesses),
            StmtKind::For(for_loop) => {
                planner.reads(&for_loop.min, &mut self.accesses);
                planner.reads(&for_loop.extent, &mut self.accesses);
                planner.inside(for_loop, || walk_stmt(self, stmt));
                return;
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    // Reads are collected with the statement that holds them.
    fn visit_expr(&mut self, _expr: &Expr) {}
}
