//! `tensorize`, after TVM's `blockize_tensorize.cc` and its
//! `TensorizeComparator`: the sub-program under a loop is blockized, compared
//! with a tensor intrinsic's description, and the new block's body becomes
//! the intrinsic's implementation, its buffers matched to the regions the
//! block touches (`T.match_buffer`).
//!
//! The comparison follows TVM's rules: the outer block's write and read
//! regions, in order, against the description's root block (each
//! description buffer stands for one program buffer of the same dtype and
//! scope, its last dimensions spanning the same extents); then loop by loop
//! and block by block, extents, kinds and iterator domains equal, every
//! index equal to the description's once the tile's start is taken off.
//! Where they differ, the refusal says which buffer, index, loop or dtype.

use super::blockize::blockize;
use super::error::{codes, ScheduleError, ScheduleResult};
use super::primitive::{optional, required, typed, Primitive};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::tensor_intrin::{find_intrinsic, intrinsic_names, FoundIntrin};
use super::trace::{Outputs, TraceArg};
use crate::arith::{build, Analyzer};
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, substitute, Mutator};
use crate::ir::visit::walk_stmts;
use crate::ir::{
    Block, BlockRealize, Buffer, BufferRegion, Expr, ExprKind, For, MatchBufferRegion, NodeId,
    Range, Stmt, StmtKind, Var,
};
use crate::source::Span;
use std::collections::HashSet;

/// Where the program and the description first differ.
struct Mismatch {
    /// What differs, in words.
    what: String,
    /// The program's side.
    program: Span,
    /// The description's side.
    description: Span,
    /// What would make it match, where the default advice does not fit.
    help: Option<&'static str>,
}

type Compared = Result<(), Mismatch>;

fn mismatch(what: impl Into<String>, program: Span, description: Span) -> Compared {
    Err(Mismatch {
        what: what.into(),
        program,
        description,
        help: None,
    })
}

/// A buffer whose dtype or scope differs: no loop change makes it match.
fn buffer_mismatch(what: String, program: Span, description: Span) -> Compared {
    Err(Mismatch {
        what,
        program,
        description,
        help: Some("pick the intrinsic registered for these dtypes and memory scopes (`tirc explain tensorize` lists where they come from), or convert the buffer first"),
    })
}

fn region_text(region: &BufferRegion) -> String {
    let ranges: Vec<String> = region
        .region
        .iter()
        .map(|r| {
            if r.extent.is_int(1) {
                r.min.to_string()
            } else {
                format!("{}:{}", r.min, build::add(r.min.clone(), r.extent.clone()))
            }
        })
        .collect();
    format!("{}[{}]", region.buffer.name(), ranges.join(", "))
}

fn regions_text(regions: &[BufferRegion]) -> String {
    regions
        .iter()
        .map(region_text)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The structural comparison of a program's block with a description.
#[derive(Default)]
struct Matcher {
    analyzer: Analyzer,
    /// Each description variable as the program variable it stands for.
    vars: VarMap<Expr>,
    /// (description buffer, program buffer).
    buffers: Vec<(Buffer, Buffer)>,
    /// Each program buffer's tile start: the first index of every dimension.
    bases: Vec<(Buffer, Vec<Expr>)>,
}

impl Matcher {
    fn program_buffer(&self, description: &Buffer) -> Option<&Buffer> {
        self.buffers
            .iter()
            .find(|(d, _)| d == description)
            .map(|(_, p)| p)
    }

    fn base(&self, program: &Buffer) -> Option<&Vec<Expr>> {
        self.bases
            .iter()
            .find(|(b, _)| b == program)
            .map(|(_, base)| base)
    }

    fn compare_buffer(
        &mut self,
        program: &Buffer,
        description: &Buffer,
        at: (Span, Span),
    ) -> Compared {
        if let Some(bound) = self.program_buffer(description) {
            if bound == program {
                return Ok(());
            }
            return mismatch(
                format!(
                    "the description's `{}` already stands for `{}`, but here the program uses `{}`",
                    description.name(),
                    bound.name(),
                    program.name()
                ),
                at.0,
                at.1,
            );
        }
        if let Some((other, _)) = self.buffers.iter().find(|(_, p)| p == program) {
            return mismatch(
                format!(
                    "`{}` would stand for both `{}` and `{}` of the description",
                    program.name(),
                    other.name(),
                    description.name()
                ),
                at.0,
                at.1,
            );
        }
        if program.dtype() != description.dtype() {
            return buffer_mismatch(
                format!(
                    "`{}` holds {} where the description's `{}` holds {}",
                    program.name(),
                    program.dtype(),
                    description.name(),
                    description.dtype()
                ),
                at.0,
                at.1,
            );
        }
        if program.scope() != description.scope() {
            return buffer_mismatch(
                format!(
                    "`{}` is in `{}` memory where the description's `{}` is in `{}`",
                    program.name(),
                    program.scope(),
                    description.name(),
                    description.scope()
                ),
                at.0,
                at.1,
            );
        }
        self.buffers.push((description.clone(), program.clone()));
        Ok(())
    }

    /// One declared region: the first use of a buffer records its tile start.
    fn compare_region(
        &mut self,
        program: &BufferRegion,
        description: &BufferRegion,
        at: (Span, Span),
    ) -> Compared {
        self.compare_buffer(&program.buffer, &description.buffer, at)?;
        let Some(offset) = program.region.len().checked_sub(description.region.len()) else {
            return mismatch(
                format!(
                    "`{}` has {} dimensions, fewer than the description's `{}` ({})",
                    program.buffer.name(),
                    program.region.len(),
                    description.buffer.name(),
                    description.region.len()
                ),
                at.0,
                at.1,
            );
        };
        for (dimension, range) in program.region[..offset].iter().enumerate() {
            if !range.extent.is_int(1) {
                return mismatch(
                    format!(
                        "`{}` spans {} elements in dimension {dimension}, one of the leading dimensions the description's `{}` does not have, which must be single elements",
                        region_text(program),
                        range.extent,
                        region_text(description)
                    ),
                    at.0,
                    at.1,
                );
            }
        }
        for (dimension, (range, expected)) in program.region[offset..]
            .iter()
            .zip(&description.region)
            .enumerate()
        {
            if !self
                .analyzer
                .can_prove_equal(&range.extent, &expected.extent)
            {
                return mismatch(
                    format!(
                        "`{}` spans {} element(s) in dimension {} where the description's `{}` spans {}",
                        region_text(program),
                        range.extent,
                        dimension + offset,
                        region_text(description),
                        expected.extent
                    ),
                    at.0,
                    at.1,
                );
            }
        }
        let mins: Vec<Expr> = program.region.iter().map(|r| r.min.clone()).collect();
        match self.base(&program.buffer).cloned() {
            None => self.bases.push((program.buffer.clone(), mins)),
            Some(base) => {
                for (dimension, (min, start)) in mins.iter().zip(&base).enumerate() {
                    let expected = match dimension.checked_sub(offset) {
                        Some(d) => substitute(&description.region[d].min, &self.vars),
                        None => Expr::zero(min.dtype()),
                    };
                    let relative = self
                        .analyzer
                        .simplify(&build::sub(min.clone(), start.clone()));
                    if !self.analyzer.can_prove_equal(&relative, &expected) {
                        return mismatch(
                            format!(
                                "`{}` starts at {relative} from the tile's start in dimension {dimension}, where the description's `{}` starts at {expected}",
                                region_text(program),
                                region_text(description)
                            ),
                            at.0,
                            at.1,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn compare_regions(
        &mut self,
        program: &[BufferRegion],
        description: &[BufferRegion],
        what: &str,
        at: (Span, Span),
    ) -> Compared {
        if program.len() != description.len() {
            return mismatch(
                format!(
                    "the block {what} {} regions ({}) where the description {what} {} ({})",
                    program.len(),
                    regions_text(program),
                    description.len(),
                    regions_text(description)
                ),
                at.0,
                at.1,
            );
        }
        for (p, d) in program.iter().zip(description) {
            self.compare_region(p, d, at)?;
        }
        Ok(())
    }

    /// An access: every index the description's once the tile start is taken off.
    fn compare_access(
        &mut self,
        program: (&Buffer, &[Expr]),
        description: (&Buffer, &[Expr]),
        at: (Span, Span),
    ) -> Compared {
        self.compare_buffer(program.0, description.0, at)?;
        let text = |buffer: &Buffer, indices: &[Expr]| {
            let indices: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
            format!("{}[{}]", buffer.name(), indices.join(", "))
        };
        let Some(base) = self.base(program.0).cloned() else {
            return mismatch(
                format!(
                    "`{}` is accessed but not among the regions the block declares",
                    program.0.name()
                ),
                at.0,
                at.1,
            );
        };
        let Some(offset) = program.1.len().checked_sub(description.1.len()) else {
            return mismatch(
                format!(
                    "`{}` has fewer indices than the description's `{}`",
                    text(program.0, program.1),
                    text(description.0, description.1)
                ),
                at.0,
                at.1,
            );
        };
        for (dimension, (index, start)) in program.1.iter().zip(&base).enumerate() {
            let expected = match dimension.checked_sub(offset) {
                Some(d) => substitute(&description.1[d], &self.vars),
                None => Expr::zero(index.dtype()),
            };
            let relative = self
                .analyzer
                .simplify(&build::sub(index.clone(), start.clone()));
            if !self.analyzer.can_prove_equal(&relative, &expected) {
                return mismatch(
                    format!(
                        "index {dimension} of `{}` is {} from the tile's start, where the description's `{}` has {}",
                        text(program.0, program.1),
                        relative,
                        text(description.0, description.1),
                        expected
                    ),
                    at.0,
                    at.1,
                );
            }
        }
        Ok(())
    }

    fn compare_exprs(&mut self, program: &[Expr], description: &[Expr]) -> Compared {
        for (p, d) in program.iter().zip(description) {
            self.compare_expr(p, d)?;
        }
        Ok(())
    }

    fn compare_expr(&mut self, program: &Expr, description: &Expr) -> Compared {
        let at = (program.span(), description.span());
        let differ = || {
            mismatch(
                format!("the program computes `{program}` where the description computes `{description}`"),
                at.0,
                at.1,
            )
        };
        if program.dtype() != description.dtype() {
            return mismatch(
                format!(
                    "`{program}` is {} where the description's `{description}` is {}",
                    program.dtype(),
                    description.dtype()
                ),
                at.0,
                at.1,
            );
        }
        match (program.kind(), description.kind()) {
            (_, ExprKind::Var(d)) => match self.vars.get(d) {
                Some(bound) if bound.as_var().is_some_and(|b| program.as_var() == Some(b)) => {
                    Ok(())
                }
                _ => differ(),
            },
            (ExprKind::Int(a), ExprKind::Int(b)) if a == b => Ok(()),
            (ExprKind::Float(a), ExprKind::Float(b)) if a == b => Ok(()),
            (ExprKind::Str(a), ExprKind::Str(b)) if a == b => Ok(()),
            (ExprKind::Cast(a), ExprKind::Cast(b)) | (ExprKind::Not(a), ExprKind::Not(b)) => {
                self.compare_expr(a, b)
            }
            (ExprKind::Binary(op_a, a1, a2), ExprKind::Binary(op_b, b1, b2)) if op_a == op_b => {
                self.compare_expr(a1, b1)?;
                self.compare_expr(a2, b2)
            }
            (ExprKind::Select(a1, a2, a3), ExprKind::Select(b1, b2, b3)) => {
                self.compare_expr(a1, b1)?;
                self.compare_expr(a2, b2)?;
                self.compare_expr(a3, b3)
            }
            (ExprKind::Load(a), ExprKind::Load(b)) => {
                self.compare_access((&a.buffer, &a.indices), (&b.buffer, &b.indices), at)
            }
            (ExprKind::Call { op: op_a, args: a }, ExprKind::Call { op: op_b, args: b })
                if op_a == op_b && a.len() == b.len() =>
            {
                self.compare_exprs(a, b)
            }
            (
                ExprKind::Broadcast {
                    value: a,
                    lanes: la,
                },
                ExprKind::Broadcast {
                    value: b,
                    lanes: lb,
                },
            ) if la == lb => self.compare_expr(a, b),
            _ => differ(),
        }
    }

    fn define(&mut self, description: &Var, program: &Var) {
        self.vars.insert(description.clone(), program.to_expr());
    }

    fn compare_loop(&mut self, program: &For, description: &For, at: (Span, Span)) -> Compared {
        if !self
            .analyzer
            .can_prove_equal(&program.extent, &description.extent)
        {
            return mismatch(
                format!(
                    "loop `{}` runs {} times where the description's loop `{}` runs {}",
                    program.loop_var.name(),
                    program.extent,
                    description.loop_var.name(),
                    description.extent
                ),
                at.0,
                at.1,
            );
        }
        if !self
            .analyzer
            .can_prove_equal(&program.min, &description.min)
        {
            return mismatch(
                format!(
                    "loop `{}` starts at {} where the description's loop `{}` starts at {}",
                    program.loop_var.name(),
                    program.min,
                    description.loop_var.name(),
                    description.min
                ),
                at.0,
                at.1,
            );
        }
        if program.kind != description.kind || program.thread != description.thread {
            return mismatch(
                format!(
                    "loop `{}` is {:?} where the description's loop `{}` is {:?}",
                    program.loop_var.name(),
                    program.kind,
                    description.loop_var.name(),
                    description.kind
                ),
                at.0,
                at.1,
            );
        }
        self.define(&description.loop_var, &program.loop_var);
        self.analyzer.bind(&program.loop_var, &program.range());
        self.compare_stmt(&program.body, &description.body)
    }

    fn compare_block(
        &mut self,
        program: &BlockRealize,
        description: &BlockRealize,
        at: (Span, Span),
    ) -> Compared {
        let (p, d) = (&program.block, &description.block);
        if p.iter_vars.len() != d.iter_vars.len() {
            return mismatch(
                format!(
                    "block `{}` has {} iterators where the description's block `{}` has {}",
                    p.name,
                    p.iter_vars.len(),
                    d.name,
                    d.iter_vars.len()
                ),
                at.0,
                at.1,
            );
        }
        for (pv, dv) in p.iter_vars.iter().zip(&d.iter_vars) {
            let same_domain = self
                .analyzer
                .can_prove_equal(&pv.dom.extent, &dv.dom.extent)
                && self.analyzer.can_prove_equal(&pv.dom.min, &dv.dom.min);
            if !same_domain || pv.kind != dv.kind {
                return mismatch(
                    format!(
                        "iterator `{}` of block `{}` is {:?} over {} values where the description's `{}` is {:?} over {}",
                        pv.var.name(),
                        p.name,
                        pv.kind,
                        pv.dom.extent,
                        dv.var.name(),
                        dv.kind,
                        dv.dom.extent
                    ),
                    at.0,
                    at.1,
                );
            }
            self.define(&dv.var, &pv.var);
            self.analyzer.bind(&pv.var, &pv.dom);
        }
        self.compare_exprs(&program.iter_values, &description.iter_values)?;
        self.compare_expr(&program.predicate, &description.predicate)?;
        if p.init.is_some() != d.init.is_some() {
            return mismatch(
                format!(
                    "block `{}` {} an initialization (`T.init()`) where the description's block `{}` {}",
                    p.name,
                    if p.init.is_some() { "has" } else { "has no" },
                    d.name,
                    if d.init.is_some() { "has one" } else { "has none" }
                ),
                at.0,
                at.1,
            );
        }
        if !p.alloc_buffers.is_empty() || !d.alloc_buffers.is_empty() {
            return mismatch(
                format!(
                    "block `{}` allocates buffers, which tensorize does not match",
                    p.name
                ),
                at.0,
                at.1,
            );
        }
        self.compare_regions(&p.writes, &d.writes, "writes", at)?;
        self.compare_regions(&p.reads, &d.reads, "reads", at)?;
        if let (Some(pi), Some(di)) = (&p.init, &d.init) {
            self.compare_stmt(pi, di)?;
        }
        self.compare_stmt(&p.body, &d.body)
    }

    fn compare_stmt(&mut self, program: &Stmt, description: &Stmt) -> Compared {
        let at = (program.span(), description.span());
        match (program.kind(), description.kind()) {
            (StmtKind::For(p), StmtKind::For(d)) => self.compare_loop(p, d, at),
            (StmtKind::BlockRealize(p), StmtKind::BlockRealize(d)) => self.compare_block(p, d, at),
            (StmtKind::Seq(p), StmtKind::Seq(d)) if p.len() == d.len() => {
                for (p, d) in p.iter().zip(d) {
                    self.compare_stmt(p, d)?;
                }
                Ok(())
            }
            (StmtKind::BufferStore(p), StmtKind::BufferStore(d)) => {
                self.compare_access((&p.buffer, &p.indices), (&d.buffer, &d.indices), at)?;
                self.compare_expr(&p.value, &d.value)
            }
            (
                StmtKind::IfThenElse {
                    condition: pc,
                    then_case: pt,
                    else_case: pe,
                },
                StmtKind::IfThenElse {
                    condition: dc,
                    then_case: dt,
                    else_case: de,
                },
            ) => {
                self.compare_expr(pc, dc)?;
                self.compare_stmt(pt, dt)?;
                match (pe, de) {
                    (Some(p), Some(d)) => self.compare_stmt(p, d),
                    (None, None) => Ok(()),
                    _ => mismatch("one side has an `else` and the other has not", at.0, at.1),
                }
            }
            (StmtKind::Evaluate(p), StmtKind::Evaluate(d)) => self.compare_expr(p, d),
            _ => mismatch(
                format!(
                    "the program has {} where the description has {}",
                    statement_noun(program),
                    statement_noun(description)
                ),
                at.0,
                at.1,
            ),
        }
    }
}

fn statement_noun(stmt: &Stmt) -> String {
    match stmt.kind() {
        StmtKind::For(f) => format!("loop `{}`", f.loop_var.name()),
        StmtKind::BlockRealize(r) => format!("block `{}`", r.block.name),
        StmtKind::Seq(s) => format!("a sequence of {} statements", s.len()),
        StmtKind::BufferStore(s) => format!("a store to `{}`", s.buffer.name()),
        StmtKind::IfThenElse { .. } => "an `if`".to_string(),
        _ => "another statement".to_string(),
    }
}

/// The implementation's body with fresh buffers, variables and node ids,
/// so it can be placed more than once in one program.
struct FreshCopy {
    buffers: Vec<(Buffer, Buffer)>,
    vars: VarMap<Expr>,
    /// The buffer names of the function, which a new buffer must not reuse
    /// (the verifier reads a name declared twice in one scope as an error).
    taken_names: HashSet<String>,
    /// For a stdlib intrinsic, whose spans point into another file: the
    /// program location every copied node takes instead.
    span: Option<Span>,
}

impl FreshCopy {
    fn fresh_var(&mut self, var: &Var) -> Var {
        let fresh = var.with_name(var.name());
        self.vars.insert(var.clone(), fresh.to_expr());
        fresh
    }

    /// A fresh copy of a parameter buffer: new data and offset variables.
    fn fresh_buffer(&mut self, buffer: &Buffer) -> Buffer {
        let data = self.fresh_var(buffer.data());
        // Offset, stride and shape variables (`strides=[s1, 1]` of wmma
        // intrinsics) are bound per match: each copy gets its own.
        let node = buffer.node();
        for expr in std::iter::once(&node.elem_offset)
            .chain(&node.strides)
            .chain(&node.shape)
        {
            if let Some(var) = expr.as_var() {
                if !self.vars.contains_key(var) {
                    self.fresh_var(var);
                }
            }
        }
        let elem_offset = self.mutate_expr(&node.elem_offset);
        let strides: Vec<Expr> = node.strides.iter().map(|e| self.mutate_expr(e)).collect();
        let shape: Vec<Expr> = node.shape.iter().map(|e| self.mutate_expr(e)).collect();
        let mut name = buffer.name().to_string();
        let mut suffix = 0;
        while self.taken_names.contains(&name) {
            suffix += 1;
            name = format!("{}_{suffix}", buffer.name());
        }
        self.taken_names.insert(name.clone());
        let span = self.span;
        let fresh = buffer.with(|node| {
            node.span = span.unwrap_or(node.span);
            node.name = name;
            node.data = data;
            node.elem_offset = elem_offset;
            node.strides = strides;
            node.shape = shape;
        });
        self.buffers.push((buffer.clone(), fresh.clone()));
        fresh
    }
}

impl Mutator for FreshCopy {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        let copied = match expr.kind() {
            ExprKind::Var(var) => self.vars.get(var).cloned().unwrap_or_else(|| expr.clone()),
            _ => mutate_expr_children(self, expr),
        };
        match self.span {
            Some(span) => copied.with_span(span),
            None => copied,
        }
    }

    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        self.buffers
            .iter()
            .find(|(old, _)| old == buffer)
            .map(|(_, new)| new.clone())
            .unwrap_or_else(|| buffer.clone())
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let copied = self.copy_stmt(stmt);
        match self.span {
            Some(span) => Stmt::new(copied.kind().clone(), span),
            None => copied,
        }
    }
}

impl FreshCopy {
    fn copy_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(f) => {
                let loop_var = self.fresh_var(&f.loop_var);
                let copied = mutate_stmt_children(self, stmt);
                let StmtKind::For(copied_for) = copied.kind() else {
                    return copied;
                };
                copied.with_kind(StmtKind::For(For {
                    id: NodeId::fresh(),
                    loop_var,
                    ..copied_for.clone()
                }))
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.mutate_expr(value);
                let var = self.fresh_var(var);
                let body = self.mutate_stmt(body);
                stmt.with_kind(StmtKind::LetStmt { var, value, body })
            }
            StmtKind::BlockRealize(realize) => {
                for iv in &realize.block.iter_vars {
                    self.fresh_var(&iv.var);
                }
                let copied = mutate_stmt_children(self, stmt);
                let StmtKind::BlockRealize(copied_realize) = copied.kind() else {
                    return copied;
                };
                let mut realize = copied_realize.clone();
                realize.block.id = NodeId::fresh();
                // The block declares the fresh iterators its body now uses.
                for iv in &mut realize.block.iter_vars {
                    if let Some(fresh) = self.vars.get(&iv.var).and_then(|e| e.as_var()) {
                        iv.var = fresh.clone();
                    }
                }
                copied.with_kind(StmtKind::BlockRealize(realize))
            }
            _ => mutate_stmt_children(self, stmt),
        }
    }
}

/// True when `body` accesses `buffer` past the end of a dimension with a
/// vector index (`B[0, T.Ramp(0, 1, 64)]` of a 16x4 buffer): it reads the
/// buffer's memory as one flat block.
fn accesses_across_rows(body: &Stmt, buffer: &Buffer) -> bool {
    let crosses = |indices: &[Expr]| {
        indices.iter().zip(buffer.shape()).any(|(index, extent)| {
            let ExprKind::Ramp {
                base,
                stride,
                lanes,
            } = index.kind()
            else {
                return false;
            };
            match (base.as_int(), stride.as_int(), extent.as_int()) {
                (Some(base), Some(stride), Some(extent)) => {
                    let last = base + stride * (i64::from(*lanes) - 1);
                    base.min(last) < 0 || base.max(last) >= extent
                }
                _ => true,
            }
        })
    };
    let mut found = false;
    walk_stmts(body, &mut |stmt| {
        if let StmtKind::BufferStore(store) = stmt.kind() {
            found |= store.buffer == *buffer && crosses(&store.indices);
        }
    });
    crate::ir::visit::walk_exprs_in_stmt(body, &mut |expr| {
        if let ExprKind::Load(load) = expr.kind() {
            found |= load.buffer == *buffer && crosses(&load.indices);
        }
    });
    found
}

/// True when `region` of the compact `buffer` is one run of memory: after
/// its first dimension wider than one element, it spans whole dimensions.
fn contiguous(analyzer: &Analyzer, buffer: &Buffer, region: &[Range]) -> bool {
    if !buffer.node().strides.is_empty() {
        return false;
    }
    let Some(first_wide) = region.iter().position(|r| !r.extent.is_int(1)) else {
        return true;
    };
    region
        .iter()
        .zip(buffer.shape())
        .skip(first_wide + 1)
        .all(|(range, extent)| {
            analyzer.can_prove_equal(&range.min, &Expr::zero(range.min.dtype()))
                && analyzer.can_prove_equal(&range.extent, extent)
        })
}

/// The buffer names a new `T.match_buffer` must not take: every buffer the
/// function declares except the views of blocks other than `enclosing`
/// (a block's views are scoped to it, so TVM's `C_1` repeats in sibling
/// blocks and prints the same here).
fn buffer_names(func: &crate::ir::PrimFunc, enclosing: &[NodeId]) -> HashSet<String> {
    let mut names: HashSet<String> = func
        .buffer_map
        .iter()
        .map(|(_, b)| b.name().to_string())
        .collect();
    walk_stmts(&func.body, &mut |stmt| match stmt.kind() {
        StmtKind::BlockRealize(realize) => {
            let block = &realize.block;
            names.extend(block.alloc_buffers.iter().map(|b| b.name().to_string()));
            if enclosing.contains(&block.id) {
                names.extend(
                    block
                        .match_buffers
                        .iter()
                        .map(|m| m.buffer.name().to_string()),
                );
            }
        }
        StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } => {
            names.insert(buffer.name().to_string());
        }
        _ => {}
    });
    names
}

fn root_realize(stmt: &Stmt) -> Option<&BlockRealize> {
    match stmt.kind() {
        StmtKind::BlockRealize(realize) => Some(realize),
        _ => None,
    }
}

/// `sch.tensorize(block_or_loop, tensor_intrin, preserve_unit_iters=True)`.
/// Returns the tensorized block (the new outer block for a loop).
pub fn tensorize(
    state: &mut ScheduleState,
    target: NodeId,
    found: FoundIntrin<'_>,
    preserve_unit_iters: bool,
) -> ScheduleResult<NodeId> {
    let intrinsic = found.intrinsic;
    let removed = || {
        ScheduleError::new(
            codes::REMOVED_HANDLE,
            "the loop or block is no longer in the program",
            "get it again",
        )
    };
    let target_sref = state.sref(target).ok_or_else(removed)?;
    let target_location = target_sref.location();
    // Blockize on a copy, so that a refused match leaves the program as it was.
    let mut trial = state.clone();
    let block_id = match target_sref.kind {
        SRefKind::Loop => blockize(&mut trial, target, preserve_unit_iters)?,
        SRefKind::Block => target,
    };
    let block_sref = trial.sref(block_id).ok_or_else(removed)?;
    let realize = block_sref.as_realize().ok_or_else(removed)?.clone();
    let own = found.stdlib_file.is_none();
    let intrinsic_location = |span: Span| if own { span } else { Span::NONE };
    let where_defined = match found.stdlib_file {
        Some(file) => format!("`{}` (registered in {file})", intrinsic.name),
        None => format!("`{}`", intrinsic.name),
    };
    let (Some(description), Some(implementation)) = (
        root_realize(&intrinsic.description.body),
        root_realize(&intrinsic.implementation.body),
    ) else {
        return Err(ScheduleError::new(
            codes::BAD_TENSORIZE,
            format!("the description and implementation of {where_defined} must each be one root block (`with T.block(\"root\"):`)"),
            "write the intrinsic's functions as TVM's are written",
        )
        .at_argument(1));
    };
    if intrinsic.description.params.len() != intrinsic.implementation.params.len() {
        return Err(ScheduleError::new(
            codes::BAD_TENSORIZE,
            format!(
                "the description of {where_defined} has {} parameters and its implementation {}",
                intrinsic.description.params.len(),
                intrinsic.implementation.params.len()
            ),
            "give both functions the same buffers, in the same order",
        )
        .at_argument(1));
    }
    // TVM's scope-block comparison: the regions, not the outer iterators.
    let mut matcher = Matcher::default();
    let scope_at = (block_sref.location(), intrinsic.description.body.span());
    let compared = if realize.block.init.is_some() {
        mismatch(
            format!(
                "block `{}` still initializes what it reduces (its `T.init()`), which the description does not",
                realize.block.name
            ),
            scope_at.0,
            scope_at.1,
        )
    } else {
        matcher
            .compare_regions(
                &realize.block.writes,
                &description.block.writes,
                "writes",
                scope_at,
            )
            .and_then(|()| {
                matcher.compare_regions(
                    &realize.block.reads,
                    &description.block.reads,
                    "reads",
                    scope_at,
                )
            })
            .and_then(|()| matcher.compare_stmt(&realize.block.body, &description.block.body))
    };
    if let Err(difference) = compared {
        let mut error = ScheduleError::new(
            codes::BAD_TENSORIZE,
            format!(
                "the computation under {} does not match the description of {where_defined}: {}",
                target_sref.describe(),
                difference.what
            ),
            match difference.help {
                Some(help) => help,
                None if realize.block.init.is_some() => {
                    "decompose the reduction first (`sch.decompose_reduction(block, loop)`), then tensorize the update block's loop"
                }
                None => {
                    "split and reorder the loops so that the ones inside the tensorized loop have the description's extents and order"
                }
            },
        )
        .blame(target_location, "tensorized here")
        .at_argument(0);
        if difference.program != Span::NONE && difference.program != target_location {
            error = error.blame(difference.program, "the program");
        }
        let description_span = intrinsic_location(difference.description);
        if description_span != Span::NONE {
            error = error.blame(description_span, "the description");
        }
        return Err(error);
    }
    // Each implementation parameter views the program's region the
    // corresponding description parameter matched.
    let mut copy = FreshCopy {
        buffers: Vec::new(),
        vars: VarMap::default(),
        taken_names: trial
            .function_of(block_id)
            .map(|func| buffer_names(func, &trial.ancestors(block_id)))
            .unwrap_or_default(),
        span: found.stdlib_file.map(|_| target_location),
    };
    let mut match_buffers = Vec::new();
    let buffer_of = |func: &crate::ir::PrimFunc, param: &Var| {
        func.buffer_map
            .iter()
            .find(|(p, _)| p == param)
            .map(|(_, b)| b.clone())
    };
    for (description_param, implementation_param) in intrinsic
        .description
        .params
        .iter()
        .zip(&intrinsic.implementation.params)
    {
        let (Some(description_buffer), Some(implementation_buffer)) = (
            buffer_of(&intrinsic.description, description_param),
            buffer_of(&intrinsic.implementation, implementation_param),
        ) else {
            continue;
        };
        let Some(program_buffer) = matcher.program_buffer(&description_buffer).cloned() else {
            return Err(ScheduleError::new(
                codes::BAD_TENSORIZE,
                format!(
                    "the description of {where_defined} never accesses its parameter `{}`",
                    description_buffer.name()
                ),
                "every parameter of the description must be read or written",
            )
            .at_argument(1));
        };
        let base = matcher.base(&program_buffer).cloned().unwrap_or_default();
        let implementation_region = implementation
            .block
            .reads
            .iter()
            .chain(&implementation.block.writes)
            .find(|r| r.buffer == implementation_buffer)
            .map(|r| r.region.clone())
            .unwrap_or_else(|| {
                implementation_buffer
                    .shape()
                    .iter()
                    .map(|e| Range::from_extent(e.clone()))
                    .collect()
            });
        let offset = base.len().saturating_sub(implementation_region.len());
        let region: Vec<Range> = base
            .iter()
            .enumerate()
            .map(|(dimension, start)| match dimension.checked_sub(offset) {
                Some(d) => Range::new(start.clone(), implementation_region[d].extent.clone()),
                None => Range::new(start.clone(), Expr::one(start.dtype())),
            })
            .collect();
        // An implementation that reads its buffer as one flat block
        // (`B[0, T.Ramp(0, 1, 64)]` of a 16x4 buffer) needs the region to be
        // contiguous, which the comparison does not ensure.
        if implementation_buffer.node().strides.is_empty()
            && accesses_across_rows(&implementation.block.body, &implementation_buffer)
            && !contiguous(&matcher.analyzer, &program_buffer, &region)
        {
            let source = BufferRegion {
                buffer: program_buffer.clone(),
                region: region.clone(),
            };
            return Err(ScheduleError::new(
                codes::BAD_TENSORIZE,
                format!(
                    "the implementation of {where_defined} reads `{}` as one contiguous block of memory, but its region `{}` is not contiguous in `{}`",
                    implementation_buffer.name(),
                    region_text(&source),
                    program_buffer.name()
                ),
                "lay the buffer out as the intrinsic wants it (pack it, or cache_read it into a packed copy) so that the tile's rows follow each other",
            )
            .blame(target_location, "tensorized here")
            .at_argument(0));
        }
        match_buffers.push(MatchBufferRegion {
            buffer: copy.fresh_buffer(&implementation_buffer),
            source: BufferRegion {
                buffer: program_buffer,
                region,
            },
        });
    }
    // Scratch the implementation allocates in its root block (an AMX tile
    // configuration) comes along, allocated by the tensorized block.
    let mut alloc_buffers = realize.block.alloc_buffers.clone();
    alloc_buffers.extend(
        implementation
            .block
            .alloc_buffers
            .iter()
            .map(|buffer| copy.fresh_buffer(buffer)),
    );
    let body = copy.mutate_stmt(&implementation.block.body);
    let tensorized = BlockRealize {
        block: Block {
            body,
            match_buffers,
            alloc_buffers,
            ..realize.block.clone()
        },
        ..realize
    };
    trial.replace(block_id, Stmt::block_realize(tensorized));
    *state = trial;
    Ok(block_id)
}

/// The descriptor of `tensorize`.
pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    name: "tensorize",
    aliases: &[],
    params: &[
        required("block_or_loop"),
        typed("tensor_intrin", "str"),
        optional("preserve_unit_iters", "True"),
    ],
    varargs: None,
    keyword_only: &[],
    doc: "Replaces the computation under a loop (blockized first) or in a block by a tensor intrinsic's implementation, where it matches the intrinsic's description: loops, iterators and indices equal once each buffer's tile start is taken off. Each implementation buffer becomes a `T.match_buffer` of the region it stands for. Intrinsics come from the file (`T.TensorIntrin.register(name, desc, impl)`) or from tirc's `stdlib/intrinsics/`: `x86.tir` (`dot_16x4_vnni`, `dot_16x4_avx512`, `dot_16x4_avxvnni`, `dot_16x4_avx2`, `dot_16x16x64_u8i8i32_amx`, `dot_16x2_bf16f32_avx512`) `arm.tir` (`dot_4x4_i8i8s32_sdot`, `dot_4x4_u8u8u32_udot`, `dot_4x4_u8u8i32_hdot`), `cuda.tir` (the `wmma_*` tensor-core loads, fills, products and stores) and `cuda_mma.tir` (`mma_ldmatrix_f16_a`, `mma_f16f16f32`, `mma_fill_16x16_f32`, `mma_store_16x16_f32_global_`, ...: `mma.sync` with `ldmatrix` on `warp` buffers, float16 and bfloat16). As in TVM, the tensorized block is opaque: parallelize before `decompose_reduction` and `tensorize`.",
    apply: apply_tensorize,
}];

fn apply_tensorize(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (target_rv, target) = run.handle_arg(bound, 0, "block_or_loop", None)?;
    let name = run.expect_str(bound, 1, "tensor_intrin")?;
    let preserve = run.bool_arg(bound, 2, "preserve_unit_iters", true)?;
    let own = run.state.tensor_intrinsics();
    let Some(found) = find_intrinsic(&own, &name) else {
        let names = intrinsic_names(&own);
        let refusal = ScheduleError::new(
            codes::BAD_TENSORIZE,
            format!("no tensor intrinsic is registered as `{name}`"),
            match crate::frontend::suggest(&name, names.iter().map(String::as_str)) {
                Some(close) => format!("did you mean `{close}`? known: {}", names.join(", ")),
                None => format!("register it with `T.TensorIntrin.register(\"{name}\", desc, impl)` in the file; known: {}", names.join(", ")),
            },
        )
        .at_argument(1);
        return Err(run.refused(bound, refusal));
    };
    tensorize(run.state, target, found, preserve).map_err(|e| run.refused(bound, e))?;
    run.record(
        "tensorize",
        vec![
            (Some("block_or_loop"), TraceArg::Rv(target_rv)),
            (Some("tensor_intrin"), TraceArg::Str(name)),
            (Some("preserve_unit_iters"), TraceArg::Bool(preserve)),
        ],
        Outputs::Nothing,
    );
    Ok(Value::None)
}
