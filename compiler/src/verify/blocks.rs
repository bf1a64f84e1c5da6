//! Blocks: every iteration variable's binding stays inside its domain for
//! every value of the loops around the block where its `T.where` predicate
//! (and any enclosing `if`) holds; `T.init()` appears only in blocks with a
//! reduction iteration variable; a reduction block's writes do not depend on
//! its reduction variables; a block has one binding per iteration variable;
//! two blocks of one function do not share a name (a warning).

use super::codes;
use super::proofs::{AffineValueRanges, Facts};
use super::spans::{show, SpanStack};
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferSet, VarMap};
use crate::ir::mutate::substitute;
use crate::ir::operators;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    AttrNode, BinaryOp, BlockRealize, Buffer, Expr, IterKind, PrimFunc, Range, Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

/// Checks every block of a function.
pub(super) fn check_function(function: &PrimFunc) -> Vec<Diagnostic> {
    let mut checker = BlockChecker {
        facts: Facts::default(),
        ranges: Default::default(),
        loops: Vec::new(),
        spans: SpanStack::default(),
        diagnostics: Vec::new(),
        first_block_named: HashMap::new(),
    };
    let pushed = checker.spans.enter(function.span);
    checker.stmt(&function.body);
    checker.spans.leave(pushed);
    checker.diagnostics
}

struct BlockChecker {
    facts: Facts,
    /// The ranges of loops and iteration variables in scope.
    ranges: VarMap<Range>,
    /// The loops between the statement being checked and its enclosing
    /// block, outermost first: the iterators a block's bindings map from.
    loops: Vec<(Var, Range)>,
    spans: SpanStack,
    diagnostics: Vec<Diagnostic>,
    first_block_named: HashMap<String, Span>,
}

fn is_scalar_integer(expr: &Expr) -> bool {
    expr.dtype().is_integer() && expr.dtype().is_scalar()
}

impl BlockChecker {
    fn stmt(&mut self, stmt: &Stmt) {
        let pushed = self.spans.enter(stmt.span());
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                let range = for_loop.range();
                self.facts.bind_range(&for_loop.loop_var, &range, true);
                self.ranges.insert(for_loop.loop_var.clone(), range.clone());
                self.loops.push((for_loop.loop_var.clone(), range));
                // The body runs only when a symbolic extent is positive.
                let runs = (for_loop.extent.as_int().is_none())
                    .then(|| {
                        operators::binary(
                            BinaryOp::Lt,
                            Expr::zero(for_loop.extent.dtype()),
                            for_loop.extent.clone(),
                        )
                        .ok()
                    })
                    .flatten();
                if let Some(runs) = &runs {
                    self.facts.push_condition(runs);
                }
                self.stmt(&for_loop.body);
                if runs.is_some() {
                    self.facts.pop_condition();
                }
                self.loops.pop();
            }
            StmtKind::BlockRealize(realize) => {
                self.check_realize(realize);
                let block = &realize.block;
                for iter_var in &block.iter_vars {
                    self.facts.bind_range(&iter_var.var, &iter_var.dom, true);
                    self.ranges
                        .insert(iter_var.var.clone(), iter_var.dom.clone());
                }
                // Blocks inside bind to the loops inside this one only.
                let outer_loops = std::mem::take(&mut self.loops);
                if let Some(init) = &block.init {
                    self.stmt(init);
                }
                self.stmt(&block.body);
                self.loops = outer_loops;
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.facts.push_condition(condition);
                self.stmt(then_case);
                self.facts.pop_condition();
                if let Some(else_case) = else_case {
                    if let Ok(negated) = crate::ir::operators::logical_not(condition.clone()) {
                        self.facts.push_condition(&negated);
                        self.stmt(else_case);
                        self.facts.pop_condition();
                    } else {
                        self.stmt(else_case);
                    }
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                self.facts.bind_value(var, value);
                self.stmt(body);
            }
            StmtKind::AttrStmt(attr) => {
                if let AttrNode::Thread { var, .. } = &attr.node {
                    let range = Range::from_extent(attr.value.clone());
                    self.facts.bind_range(var, &range, true);
                }
                self.stmt(&attr.body);
            }
            StmtKind::Seq(stmts) => {
                for stmt in stmts {
                    self.stmt(stmt);
                }
            }
            StmtKind::Allocate(allocate) => self.stmt(&allocate.body),
            StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Assert { body, .. }
            | StmtKind::While { body, .. } => self.stmt(body),
            StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => {}
        }
        self.spans.leave(pushed);
    }

    fn check_realize(&mut self, realize: &BlockRealize) {
        let block = &realize.block;
        let span = self.spans.current();
        match self.first_block_named.get(&block.name) {
            // TVM itself nests root blocks in tensor intrinsic descriptions.
            Some(_) if block.name == "root" => {}
            Some(first) => {
                self.diagnostics.push(
                    Diagnostic::warning(
                        codes::DUPLICATE_BLOCK_NAME,
                        format!(
                            "another block of this function is also named \"{}\"",
                            block.name
                        ),
                        span,
                    )
                    .with_secondary(*first, "the first block with this name")
                    .with_help("give every block its own name so a schedule can tell them apart"),
                );
            }
            None => {
                self.first_block_named.insert(block.name.clone(), span);
            }
        }
        if realize.iter_values.len() != block.iter_vars.len() {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::BINDING_COUNT,
                    format!(
                        "block \"{}\" has {} iteration variables but {} bindings",
                        block.name,
                        block.iter_vars.len(),
                        realize.iter_values.len()
                    ),
                    span,
                )
                .with_help("bind every iteration variable exactly once"),
            );
        } else {
            self.check_bindings(realize, span);
        }
        let reduce_vars: Vec<&Var> = block
            .iter_vars
            .iter()
            .filter(|iv| iv.kind == IterKind::Reduce)
            .map(|iv| &iv.var)
            .collect();
        if let Some(init) = &block.init {
            if reduce_vars.is_empty() {
                // TVM accepts it (its lowering writes one when a reduction
                // axis of extent 1 is simplified away): the init always runs.
                self.diagnostics.push(
                    Diagnostic::warning(
                        codes::INIT_WITHOUT_REDUCTION,
                        format!(
                            "block \"{}\" has `T.init()` but no reduction iteration variable, so the initialization runs every time, before the body",
                            block.name
                        ),
                        span,
                    )
                    .with_secondary(init.span(), "the initialization")
                    .with_help("declare the reduced axis with `T.axis.reduce(...)` (an `R` in `T.axis.remap`), or move the initialization into the body"),
                );
            }
        }
        if !reduce_vars.is_empty() {
            self.check_reduction_writes(realize, &reduce_vars, span);
        }
    }

    /// True when the binding is a variable whose range is the domain itself,
    /// as `T.axis.remap` makes it (symbolic extents included).
    fn bound_to_same_range(&self, value: &Expr, dom: &Range) -> bool {
        let Some(range) = value.as_var().and_then(|v| self.ranges.get(v)) else {
            return false;
        };
        expr_deep_equal(&range.min, &dom.min) && expr_deep_equal(&range.extent, &dom.extent)
    }

    /// Bounds a binding `rest + ax0` where `ax0`'s loop extent depends on
    /// outer loops, as compute_at regenerates it (`f * 16 // 196 + ax0` under
    /// `ax0 < (f * 16 + 15) // 196 + 1 - f * 16 // 196`): the binding is
    /// largest at the loop's last value and smallest at its first, and those
    /// expressions bound over the outer loops alone.
    fn prove_through_dependent_loops(&mut self, value: &Expr, dom: &Range) -> bool {
        let mut lowest = value.clone();
        let mut highest = value.clone();
        let mut used = false;
        for (var, range) in self.loops.iter().rev() {
            let dependent = self
                .loops
                .iter()
                .any(|(outer, _)| expr_uses_var(&range.extent, &mut |v| v == outer));
            if !dependent || !expr_uses_var(value, &mut |v| v == var) {
                continue;
            }
            // Only bounds that grow with the loop by exactly its value (inner
            // loops already replaced by their ends may depend on it too).
            for bound in [&lowest, &highest] {
                let rest = self.facts.simplify(&Expr::binary(
                    crate::ir::BinaryOp::Sub,
                    bound.clone(),
                    var.to_expr(),
                ));
                if expr_uses_var(&rest, &mut |v| v == var) {
                    return false;
                }
            }
            let Ok(last) = range.end() else {
                return false;
            };
            let last = Expr::binary(crate::ir::BinaryOp::Sub, last, Expr::one(var.dtype()));
            let first: VarMap<Expr> = std::iter::once((var.clone(), range.min.clone())).collect();
            let at_last: VarMap<Expr> = std::iter::once((var.clone(), last)).collect();
            lowest = substitute(&lowest, &first);
            highest = substitute(&highest, &at_last);
            used = true;
        }
        if !used {
            return false;
        }
        // The simplifier prints a dependent extent as `(x % d + c) // d + 1`,
        // which hides that the last value is `(x + c) // d`.
        let bound = |e: &Expr| {
            let simplified = self.facts.simplify(e);
            self.facts
                .simplify(&crate::arith::merge_remainder_quotients(&simplified))
        };
        let (lowest, highest) = (bound(&lowest), bound(&highest));
        self.facts.prove_values_inside(&lowest, &highest, dom)
    }

    fn check_bindings(&mut self, realize: &BlockRealize, block_span: Span) {
        let block = &realize.block;
        let has_predicate = !realize.predicate.is_int(1) && realize.predicate.dtype().is_bool();
        // A split with `preserve_unit_iters=False` drops a unit loop from the
        // bindings but not from the predicate (as TVM does): read it as its one value.
        let unit_loops: VarMap<Expr> = self
            .loops
            .iter()
            .filter(|(var, range)| {
                range.extent.as_int() == Some(1)
                    && expr_uses_var(&realize.predicate, &mut |v| v == var)
            })
            .map(|(var, range)| (var.clone(), range.min.clone()))
            .collect();
        let predicate = if unit_loops.is_empty() {
            realize.predicate.clone()
        } else {
            substitute(&realize.predicate, &unit_loops)
        };
        if has_predicate {
            self.facts.push_condition(&predicate);
        }
        // The affine form of all the bindings, found once for the first that needs it.
        let mut affine_ranges: Option<AffineValueRanges> = None;
        for (index, (iter_var, value)) in
            block.iter_vars.iter().zip(&realize.iter_values).enumerate()
        {
            let dom = &iter_var.dom;
            if !is_scalar_integer(value)
                || !is_scalar_integer(&dom.min)
                || !is_scalar_integer(&dom.extent)
            {
                continue; // reported by the type checks
            }
            let unit_free = if unit_loops.is_empty() {
                value.clone()
            } else {
                substitute(value, &unit_loops)
            };
            if self.bound_to_same_range(value, dom) || self.facts.prove_inside(&unit_free, dom) {
                continue;
            }
            let affine = affine_ranges.get_or_insert_with(|| {
                let all_integer = realize.iter_values.iter().all(is_scalar_integer);
                all_integer
                    .then(|| {
                        self.facts.affine_value_ranges(
                            &realize.iter_values,
                            &self.loops,
                            &predicate,
                        )
                    })
                    .flatten()
            });
            if let Some(Some((min, max))) = affine.as_ref().and_then(|ranges| ranges.get(index)) {
                let (min, max) = (min.clone(), max.clone());
                if self.facts.prove_values_inside(&min, &max, dom) {
                    continue;
                }
            }
            if self.prove_through_dependent_loops(&unit_free, dom) {
                continue;
            }
            let end = dom
                .end()
                .map(|e| self.facts.simplify(&e))
                .unwrap_or_else(|_| dom.extent.clone());
            let domain_text = format!("{}:{}", show(&dom.min), show(&end));
            let values = self.facts.describe_values(value);
            let span = if value.span().is_known() {
                value.span()
            } else if iter_var.var.span().is_known() {
                iter_var.var.span()
            } else {
                block_span
            };
            let mut diagnostic = Diagnostic::error(
                codes::BINDING_OUT_OF_DOMAIN,
                format!(
                    "iteration variable `{}` of block \"{}\" is bound to `{}`, which takes the values {} outside its domain {}",
                    iter_var.var.name(),
                    block.name,
                    show(value),
                    values,
                    domain_text
                ),
                span,
            )
            .with_label(format!("`{}` is declared over {}", iter_var.var.name(), domain_text));
            if has_predicate {
                diagnostic = diagnostic.with_note(format!(
                    "the predicate `T.where({})` does not keep the binding inside the domain",
                    show(&realize.predicate)
                ));
            }
            diagnostic = diagnostic.with_help(format!(
                "declare `{}` over a domain that covers the values its binding takes ({}), or guard the block with `T.where(...)` so it runs only where the binding is inside {}",
                iter_var.var.name(),
                values,
                domain_text
            ));
            self.diagnostics.push(diagnostic);
        }
        if has_predicate {
            self.facts.pop_condition();
        }
    }

    /// A reduction block writes each output element once per reduction: the
    /// written indices may not move with a reduction variable.
    fn check_reduction_writes(
        &mut self,
        realize: &BlockRealize,
        reduce_vars: &[&Var],
        block_span: Span,
    ) {
        let block = &realize.block;
        let local: HashSet<&Buffer> = block.alloc_buffers.iter().collect();
        let uses_reduce = |e: &Expr| expr_uses_var(e, &mut |v| reduce_vars.contains(&v));
        let mut stores = Vec::new();
        if let Some(init) = &block.init {
            collect_own_stores(init, &mut stores);
        }
        collect_own_stores(&block.body, &mut stores);
        let mut reported_buffers: BufferSet = Default::default();
        for (buffer, indices, span) in stores {
            if local.contains(&buffer) {
                continue;
            }
            let Some(index) = indices.iter().find(|i| uses_reduce(i)) else {
                continue;
            };
            let var = reduce_vars
                .iter()
                .find(|v| expr_uses_var(index, &mut |u| u == **v))
                .map(|v| v.name().to_string())
                .unwrap_or_default();
            reported_buffers.insert(buffer.clone());
            self.diagnostics.push(
                Diagnostic::error(
                    codes::WRITE_DEPENDS_ON_REDUCTION,
                    format!(
                        "block \"{}\" writes `{}` at an index that depends on its reduction variable `{}`",
                        block.name,
                        buffer.name(),
                        var
                    ),
                    if span.is_known() { span } else { block_span },
                )
                .with_label(format!("`{}` moves with `{var}`", show(index)))
                .with_help(format!(
                    "a reduction combines many `{var}` into one element: index the output with spatial variables only, or make `{var}` spatial (`S` in `T.axis.remap`)"
                )),
            );
        }
        for region in &block.writes {
            if reported_buffers.contains(&region.buffer) {
                continue;
            }
            let depends = region
                .region
                .iter()
                .any(|r| uses_reduce(&r.min) || uses_reduce(&r.extent));
            if depends {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::WRITE_DEPENDS_ON_REDUCTION,
                        format!(
                            "block \"{}\" declares a write region of `{}` that depends on a reduction variable",
                            block.name,
                            region.buffer.name()
                        ),
                        block_span,
                    )
                    .with_help("write regions of a reduction block use spatial iteration variables only"),
                );
            }
        }
    }
}

/// The stores of a block body, not counting those of nested blocks.
fn collect_own_stores(stmt: &Stmt, out: &mut Vec<(Buffer, Vec<Expr>, Span)>) {
    match stmt.kind() {
        StmtKind::BufferStore(store) => {
            out.push((store.buffer.clone(), store.indices.clone(), stmt.span()))
        }
        StmtKind::BlockRealize(_) => {}
        StmtKind::For(for_loop) => collect_own_stores(&for_loop.body, out),
        StmtKind::Seq(stmts) => stmts.iter().for_each(|s| collect_own_stores(s, out)),
        StmtKind::IfThenElse {
            then_case,
            else_case,
            ..
        } => {
            collect_own_stores(then_case, out);
            if let Some(else_case) = else_case {
                collect_own_stores(else_case, out);
            }
        }
        StmtKind::LetStmt { body, .. }
        | StmtKind::AllocBuffer { body, .. }
        | StmtKind::DeclBuffer { body, .. }
        | StmtKind::Assert { body, .. }
        | StmtKind::While { body, .. } => collect_own_stores(body, out),
        StmtKind::Allocate(allocate) => collect_own_stores(&allocate.body, out),
        StmtKind::AttrStmt(attr) => collect_own_stores(&attr.body, out),
        StmtKind::Evaluate(_) => {}
    }
}
