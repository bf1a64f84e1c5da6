//! `cross-thread-reduction` (CUDA target): a reduction block whose
//! reduction variable is bound to a loop over `threadIdx` sums across the
//! threads of a block. Left as it is, every thread would update the same
//! element at once. As TVM's LowerCrossThreadReduction does, the reduction
//! is split in three blocks:
//!
//! - `<B>_in_thread`: each thread reduces its own part (the reduction loops
//!   not bound to a thread run in it) into a local `<B>_in_thread_acc`,
//!   starting from the reducer's identity;
//! - `<B>_cross_thread`: under a loop bound to the same thread tag, each
//!   thread puts its part in a shared `<B>_red_buf` and the parts are
//!   combined in a tree, halving the active threads each round (TVM's
//!   LowerThreadAllreduce uses warp shuffles first; a shared-memory tree is
//!   what it does across warps, and `thread-sync` puts the barriers
//!   between rounds);
//! - the thread of index 0 writes the result.
//!
//! Handled: one reducer of `+ * min max` (the block `C[i] = C[i] op v` with
//! its identity as init), one thread tag among its reduction loops with a
//! constant extent, and the reduction loops (thread-bound or not) forming a
//! chain of loops right above the block. Other forms are refused with the
//! reason at the bound loop.

use super::codes;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::substitute;
use crate::ir::visit::expr_uses_var;
use crate::ir::{
    BinaryOp, Block, BlockRealize, Buffer, BufferRegion, Expr, For, ForKind, IterKind, NodeId,
    PrimFunc, Range, Stmt, StmtKind, Var,
};
use crate::schedule::rfactor::match_reducer;
use crate::source::Span;

/// Lowers reductions across the threads of a block.
pub fn cross_thread_reduction(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut lowering = Lowering {
        loops: Vec::new(),
        errors: Vec::new(),
        new_buffers: Vec::new(),
    };
    let body = lowering.stmt(&func.body);
    if !lowering.errors.is_empty() {
        return Err(lowering.errors);
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct Lowering {
    /// The loops around the current statement, outermost first.
    loops: Vec<Stmt>,
    errors: Vec<Diagnostic>,
    /// Buffers made for reductions not yet attached to an enclosing block.
    new_buffers: Vec<Buffer>,
}

fn thread_tag(stmt: &Stmt) -> Option<(&For, &str)> {
    let for_loop = stmt.as_for()?;
    match (for_loop.kind, for_loop.thread.as_deref()) {
        (ForKind::ThreadBinding, Some(tag)) if tag.starts_with("threadIdx") => {
            Some((for_loop, tag))
        }
        _ => None,
    }
}

impl Lowering {
    fn stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.loops.push(stmt.clone());
                let body = self.stmt(&for_loop.body);
                self.loops.pop();
                if let Some(replacement) = body_replacement(&body) {
                    return replacement;
                }
                let mut for_loop = for_loop.clone();
                for_loop.body = body;
                stmt.with_kind(StmtKind::For(for_loop))
            }
            StmtKind::BlockRealize(realize) => {
                if let Some(lowered) = self.reduction(stmt, realize) {
                    return lowered;
                }
                let mut realize = realize.clone();
                let outer_buffers = std::mem::take(&mut self.new_buffers);
                realize.block.body = self.stmt(&realize.block.body);
                // The buffers of reductions inside this block live in it.
                realize.block.alloc_buffers.append(&mut self.new_buffers);
                self.new_buffers = outer_buffers;
                stmt.with_kind(StmtKind::BlockRealize(realize))
            }
            StmtKind::Seq(stmts) => Stmt::seq(stmts.iter().map(|s| self.stmt(s)).collect()),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => stmt.with_kind(StmtKind::IfThenElse {
                condition: condition.clone(),
                then_case: self.stmt(then_case),
                else_case: else_case.as_ref().map(|s| self.stmt(s)),
            }),
            StmtKind::LetStmt { var, value, body } => stmt.with_kind(StmtKind::LetStmt {
                var: var.clone(),
                value: value.clone(),
                body: self.stmt(body),
            }),
            _ => stmt.clone(),
        }
    }

    /// The lowered form of a cross-thread reduction block (a marker that
    /// replaces the chain of reduction loops above it), or `None` when the
    /// block reduces nothing across threads.
    fn reduction(&mut self, stmt: &Stmt, realize: &BlockRealize) -> Option<Stmt> {
        let block = &realize.block;
        let thread_loops: Vec<&Stmt> = self
            .loops
            .iter()
            .filter(|l| thread_tag(l).is_some())
            .filter(|l| {
                let var = &l.as_for().map(|f| f.loop_var.clone());
                block
                    .iter_vars
                    .iter()
                    .zip(&realize.iter_values)
                    .any(|(iter, value)| {
                        iter.kind == IterKind::Reduce
                            && var
                                .as_ref()
                                .is_some_and(|var| expr_uses_var(value, &mut |v| v == var))
                    })
            })
            .collect();
        let first = *thread_loops.first()?;
        let refuse = |errors: &mut Vec<Diagnostic>, why: &str| {
            errors.push(
                Diagnostic::error(
                    codes::UNSUPPORTED,
                    format!("block `{}` reduces across the threads of a block, {why}", block.name),
                    first.span(),
                )
                .with_secondary(stmt.span(), "the reduction block")
                .with_help("bind one loop of the reduction to threadIdx, directly above the block (with only reduction loops between), or rfactor the reduction (`sch.rfactor`)"),
            );
        };
        if thread_loops.len() > 1 {
            refuse(
                &mut self.errors,
                "over more than one thread-bound loop, which tirc does not lower yet",
            );
            return Some(stmt.clone());
        }
        let Some((reducer, update, _, rhs)) = match_reducer(block) else {
            refuse(&mut self.errors, "but it is not `C[i] = C[i] op v` with op one of + * min max and its identity as init");
            return Some(stmt.clone());
        };
        let (thread_for, tag) = thread_tag(first)?;
        let Some(threads) = thread_for.extent.as_int() else {
            refuse(
                &mut self.errors,
                "over a thread loop whose extent is not a constant",
            );
            return Some(stmt.clone());
        };
        // The chain of reduction loops right above the block.
        let reduce_values: Vec<&Expr> = block
            .iter_vars
            .iter()
            .zip(&realize.iter_values)
            .filter(|(iter, _)| iter.kind == IterKind::Reduce)
            .map(|(_, value)| value)
            .collect();
        let spatial_values: Vec<&Expr> = block
            .iter_vars
            .iter()
            .zip(&realize.iter_values)
            .filter(|(iter, _)| iter.kind != IterKind::Reduce)
            .map(|(_, value)| value)
            .collect();
        let is_reduction_loop = |l: &Stmt| {
            let Some(f) = l.as_for() else { return false };
            let var = &f.loop_var;
            reduce_values
                .iter()
                .any(|v| expr_uses_var(v, &mut |x| x == var))
                && !spatial_values
                    .iter()
                    .any(|v| expr_uses_var(v, &mut |x| x == var))
        };
        let mut chain_start = self.loops.len();
        while chain_start > 0 && is_reduction_loop(&self.loops[chain_start - 1]) {
            chain_start -= 1;
        }
        let thread_index = self.loops.iter().position(|l| l.same_as(first))?;
        if thread_index < chain_start {
            refuse(&mut self.errors, "and a loop between its thread-bound loop and the block is not one of its reduction loops");
            return Some(stmt.clone());
        }
        // Every loop of the chain must hold only the next one.
        for pair in self.loops[chain_start..].windows(2) {
            let holds_next = pair[0].as_for().is_some_and(|f| f.body.same_as(&pair[1]));
            if !holds_next {
                refuse(
                    &mut self.errors,
                    "and the loops of its reduction hold other statements",
                );
                return Some(stmt.clone());
            }
        }
        let chain_outer_holds_block = self
            .loops
            .last()
            .and_then(Stmt::as_for)
            .is_some_and(|f| f.body.same_as(stmt));
        if !chain_outer_holds_block {
            refuse(
                &mut self.errors,
                "and its innermost loop holds other statements",
            );
            return Some(stmt.clone());
        }

        let dtype = update.value.dtype();
        let span = stmt.span();
        let accumulator = Buffer::new(
            &format!("{}_in_thread_acc", block.name),
            dtype,
            vec![Expr::i32(1)],
            "local",
            span,
        );
        let red_buf = Buffer::new(
            &format!("{}_red_buf", block.name),
            dtype,
            vec![Expr::i32(threads)],
            "shared",
            span,
        );
        self.new_buffers.push(accumulator.clone());
        self.new_buffers.push(red_buf.clone());
        let zero = || vec![Expr::i32(0)];
        let opaque_block =
            |name: String, reads: Vec<BufferRegion>, writes: Vec<BufferRegion>, body: Stmt| {
                Stmt::new(
                    StmtKind::BlockRealize(BlockRealize {
                        iter_values: Vec::new(),
                        predicate: Expr::bool(true),
                        block: Block {
                            id: NodeId::fresh(),
                            name,
                            iter_vars: Vec::new(),
                            reads,
                            writes,
                            init: None,
                            alloc_buffers: Vec::new(),
                            match_buffers: Vec::new(),
                            annotations: Vec::new(),
                            body,
                        },
                    }),
                    span,
                )
            };
        let full = BufferRegion::full;

        // 1. The accumulator starts at the identity.
        let init = opaque_block(
            format!("{}_in_thread_init", block.name),
            Vec::new(),
            vec![full(&accumulator)],
            Stmt::store(&accumulator, reducer.identity(dtype), zero()),
        );
        // 2. Each thread reduces its part: the block, writing the accumulator.
        let accumulated = Expr::load(&accumulator, zero());
        let mut in_thread = block.clone();
        in_thread.id = NodeId::fresh();
        in_thread.name = format!("{}_in_thread", block.name);
        in_thread.init = None;
        in_thread.body = Stmt::store(
            &accumulator,
            reducer.combine(accumulated.clone(), rhs.clone()),
            zero(),
        );
        in_thread.reads = block
            .reads
            .iter()
            .filter(|r| r.buffer != update.buffer)
            .cloned()
            .chain(std::iter::once(full(&accumulator)))
            .collect();
        in_thread.writes = vec![full(&accumulator)];
        let mut chain = Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                block: in_thread,
                ..realize.clone()
            }),
            span,
        );
        for l in self.loops[chain_start..].iter().rev() {
            let mut for_loop = l.as_for()?.clone();
            for_loop.body = chain;
            chain = l.with_kind(StmtKind::For(for_loop));
        }
        // 3. Across the threads: a tree in shared memory, then thread 0 writes.
        let thread = Var::new(
            thread_for.loop_var.name(),
            thread_for.loop_var.dtype(),
            Span::NONE,
        );
        let t = Expr::var(&thread);
        let slot = |offset: i64| {
            if offset == 0 {
                vec![t.clone()]
            } else {
                vec![Expr::binary(BinaryOp::Add, t.clone(), Expr::i32(offset))]
            }
        };
        let mut steps = vec![Stmt::store(&red_buf, accumulated, slot(0))];
        let mut width = (threads as u64).next_power_of_two() as i64;
        while width > 1 {
            let half = width / 2;
            let mut condition = Expr::binary(BinaryOp::Lt, t.clone(), Expr::i32(half));
            // With a thread count that is not a power of two, the upper
            // half of the first round is partly missing.
            if 2 * half > threads {
                condition = Expr::binary(
                    BinaryOp::And,
                    condition,
                    Expr::binary(
                        BinaryOp::Lt,
                        Expr::binary(BinaryOp::Add, t.clone(), Expr::i32(half)),
                        Expr::i32(threads),
                    ),
                );
            }
            let combined = reducer.combine(
                Expr::load(&red_buf, slot(0)),
                Expr::load(&red_buf, slot(half)),
            );
            steps.push(Stmt::new(
                StmtKind::IfThenElse {
                    condition,
                    then_case: Stmt::store(&red_buf, combined, slot(0)),
                    else_case: None,
                },
                span,
            ));
            width = half;
        }
        // The spatial indices of the output, in terms of the loops outside.
        let mut bindings: VarMap<Expr> = Default::default();
        for (iter, value) in block.iter_vars.iter().zip(&realize.iter_values) {
            bindings.insert(iter.var.clone(), value.clone());
        }
        let output_indices: Vec<Expr> = update
            .indices
            .iter()
            .map(|i| substitute(i, &bindings))
            .collect();
        steps.push(Stmt::new(
            StmtKind::IfThenElse {
                condition: Expr::binary(BinaryOp::Eq, t.clone(), Expr::i32(0)),
                then_case: Stmt::store(
                    &update.buffer,
                    Expr::load(&red_buf, zero()),
                    output_indices.clone(),
                ),
                else_case: None,
            },
            span,
        ));
        let output_region = BufferRegion {
            buffer: update.buffer.clone(),
            region: output_indices
                .iter()
                .map(|i| Range::point(i.clone()))
                .collect(),
        };
        let cross = opaque_block(
            format!("{}_cross_thread", block.name),
            vec![full(&accumulator), full(&red_buf)],
            vec![full(&red_buf), output_region],
            Stmt::seq(steps),
        );
        let cross_loop = Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: thread,
            min: Expr::i32(0),
            extent: Expr::i32(threads),
            kind: ForKind::ThreadBinding,
            thread: Some(tag.to_string()),
            annotations: Vec::new(),
            body: cross,
        });
        let lowered = Stmt::seq(vec![init, chain, cross_loop]);
        // The chain's loops are replaced: the marker tells each enclosing
        // loop of the chain to give way to the lowered statements.
        Some(marker(lowered, self.loops.len() - chain_start))
    }
}

/// The lowered statements of a reduction, to replace the `levels` loops of
/// its chain: each enclosing loop of the chain passes it up one level.
fn marker(lowered: Stmt, levels: usize) -> Stmt {
    Stmt::new(
        StmtKind::AttrStmt(crate::ir::AttrStmt {
            node: crate::ir::AttrNode::None,
            key: REPLACE_CHAIN.to_string(),
            value: Expr::i32(levels as i64),
            body: lowered,
        }),
        Span::NONE,
    )
}

const REPLACE_CHAIN: &str = "tirc.cross_thread_reduction_chain";

/// When `body` is a marker, what its loop becomes: the lowered statements
/// once the last loop of the chain is passed, else the marker one level up.
fn body_replacement(body: &Stmt) -> Option<Stmt> {
    let StmtKind::AttrStmt(attr) = body.kind() else {
        return None;
    };
    if attr.key != REPLACE_CHAIN {
        return None;
    }
    let levels = attr.value.as_int()?;
    if levels <= 1 {
        Some(attr.body.clone())
    } else {
        Some(marker(attr.body.clone(), levels as usize - 1))
    }
}
