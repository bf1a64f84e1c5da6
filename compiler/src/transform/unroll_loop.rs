//! `unroll`: an unrolled loop with a constant extent is replaced by copies of
//! its body, one per iteration, with the loop variable replaced by its value
//! (TVM's `UnrollLoop`). Each copy gets fresh variables and buffers for what
//! it defines, so no variable is defined twice.
//!
//! Under a loop annotated `pragma_auto_unroll_max_step = N`, serial loops
//! with constant extents are unrolled too while the statements they would
//! produce stay within `N` and no loop kept as a loop sits inside them; with
//! `pragma_unroll_explicit = 0` such loops are only marked `T.unroll` for the
//! back end. Loops longer than [`LowerOptions::max_unroll_extent`] stay loops
//! (marked `T.unroll`).

use super::support::renew_definitions;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_stmt_children, substitute_stmt, Mutator};
use crate::ir::{operators, AttrValue, Expr, For, ForKind, PrimFunc, Stmt, StmtKind};

/// The deepest nest of loops TVM unrolls automatically.
const AUTO_MAX_DEPTH: i64 = 8;

/// Unrolls the unrolled loops of `func`.
pub fn unroll_loop(func: &PrimFunc, options: &LowerOptions) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut unroller = Unroller {
        max_extent: options.max_unroll_extent,
        auto_max_step: 0,
        explicit_unroll: true,
        step_count: 0,
        unroll_depth: 0,
        normal_loop_depth: 0,
    };
    let body = unroller.mutate_stmt(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct Unroller {
    max_extent: i64,
    /// From the innermost enclosing `pragma_auto_unroll_max_step`.
    auto_max_step: i64,
    /// From the innermost enclosing `pragma_unroll_explicit`.
    explicit_unroll: bool,
    /// Statements the current subtree runs per iteration of its parent loop.
    step_count: i64,
    /// Unrolled loops nested in the current subtree.
    unroll_depth: i64,
    /// Loops kept as loops in the current subtree.
    normal_loop_depth: i64,
}

fn annotation(for_loop: &For, key: &str) -> Option<i64> {
    for_loop
        .annotations
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, value)| match value {
            AttrValue::Bool(b) => Some(i64::from(*b)),
            other => other.as_int(),
        })
}

impl Unroller {
    fn visit_for(&mut self, stmt: &Stmt, for_loop: &For) -> Stmt {
        // The loop's own pragmas apply to it and everything inside it.
        let saved_step = self.auto_max_step;
        let saved_explicit = self.explicit_unroll;
        if let Some(step) = annotation(for_loop, "pragma_auto_unroll_max_step") {
            self.auto_max_step = step;
        }
        if let Some(explicit) = annotation(for_loop, "pragma_unroll_explicit") {
            self.explicit_unroll = explicit != 0;
        }
        let rebuilt = mutate_stmt_children(self, stmt);
        let result = match rebuilt.kind() {
            StmtKind::For(inner) => self.decide(&rebuilt, inner),
            _ => rebuilt,
        };
        self.auto_max_step = saved_step;
        self.explicit_unroll = saved_explicit;
        result
    }

    /// TVM's rule: unroll loops marked unrolled, and serial loops small
    /// enough under an auto-unroll pragma.
    fn decide(&mut self, stmt: &Stmt, for_loop: &For) -> Stmt {
        let extent = for_loop.extent.as_int().filter(|e| *e >= 0);
        let mut unroll = match extent {
            Some(extent) => {
                for_loop.kind == ForKind::Serial
                    && self.normal_loop_depth == 0
                    && self.unroll_depth <= AUTO_MAX_DEPTH
                    && extent.saturating_mul(self.step_count) <= self.auto_max_step
            }
            None => false,
        };
        if for_loop.kind == ForKind::Unrolled && extent.is_some() {
            unroll = true;
        }
        let Some(extent) = extent.filter(|_| unroll) else {
            self.normal_loop_depth += 1;
            return stmt.clone();
        };
        self.step_count = self.step_count.saturating_mul(extent);
        self.unroll_depth += 1;
        if self.explicit_unroll && extent <= self.max_extent {
            return unrolled_copies(for_loop, extent);
        }
        if for_loop.kind == ForKind::Unrolled {
            return stmt.clone();
        }
        stmt.with_kind(StmtKind::For(For {
            kind: ForKind::Unrolled,
            ..for_loop.clone()
        }))
    }
}

/// The body of `for_loop` once per iteration, in order.
fn unrolled_copies(for_loop: &For, extent: i64) -> Stmt {
    if extent == 0 {
        return Stmt::no_op();
    }
    let mut copies = Vec::new();
    for iteration in 0..extent {
        let step = Expr::int(iteration, for_loop.loop_var.dtype());
        let value = operators::add(for_loop.min.clone(), step.clone()).unwrap_or(step);
        let map = VarMap::from_iter([(for_loop.loop_var.clone(), value)]);
        let copy = substitute_stmt(&for_loop.body, &map);
        copies.push(if iteration == 0 {
            copy
        } else {
            renew_definitions(&copy)
        });
    }
    // A copy ending in a let scopes over the copies after it, as the printed
    // program reads back (`x: T.int32 = v` binds to the end of its block).
    let mut copies = copies.into_iter().rev();
    let last = copies.next().unwrap_or_else(Stmt::no_op);
    copies.fold(last, |rest, copy| append_in_scope(&copy, rest))
}

/// `stmt` followed by `rest`, with `rest` inside the lets `stmt` ends in.
fn append_in_scope(stmt: &Stmt, rest: Stmt) -> Stmt {
    match stmt.kind() {
        StmtKind::LetStmt { var, value, body } => stmt.with_kind(StmtKind::LetStmt {
            var: var.clone(),
            value: value.clone(),
            body: append_in_scope(body, rest),
        }),
        StmtKind::Seq(stmts)
            if matches!(stmts.last().map(Stmt::kind), Some(StmtKind::LetStmt { .. })) =>
        {
            let mut stmts = stmts.clone();
            let last = stmts.pop().map(|last| append_in_scope(&last, rest));
            stmts.extend(last);
            Stmt::seq(stmts)
        }
        _ => Stmt::seq(vec![stmt.clone(), rest]),
    }
}

impl Mutator for Unroller {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(for_loop) => self.visit_for(stmt, for_loop),
            StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => {
                self.step_count += 1;
                mutate_stmt_children(self, stmt)
            }
            StmtKind::Seq(stmts) => {
                // Each statement is counted on its own; the sequence adds
                // their steps and keeps the deepest nesting.
                let mut rebuilt = Vec::with_capacity(stmts.len());
                for child in stmts {
                    let (steps, unroll_depth, normal_depth) =
                        (self.step_count, self.unroll_depth, self.normal_loop_depth);
                    self.step_count = 0;
                    self.unroll_depth = 0;
                    self.normal_loop_depth = 0;
                    rebuilt.push(self.mutate_stmt(child));
                    self.step_count = self.step_count.saturating_add(steps);
                    self.normal_loop_depth = self.normal_loop_depth.max(normal_depth);
                    self.unroll_depth = self.unroll_depth.max(unroll_depth);
                }
                stmt.with_kind(StmtKind::Seq(rebuilt))
            }
            _ => mutate_stmt_children(self, stmt),
        }
    }
}
