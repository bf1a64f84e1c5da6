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
use crate::ir::visit::{expr_uses_var, walk_stmts};
use crate::ir::{
    BinaryOp, Block, BlockRealize, Buffer, BufferRegion, DataType, Expr, For, ForKind, IterKind,
    NodeId, Op, PrimFunc, Range, Stmt, StmtKind, TypeCode, Var,
};
use crate::schedule::reducer::{match_reducer, Reducer};
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
        self.new_buffers.push(accumulator.clone());
        let zero = || vec![Expr::i32(0)];
        let opaque_block =
            |name: String, reads: Vec<BufferRegion>, writes: Vec<BufferRegion>, body: Stmt| {
                Stmt::new(
                    StmtKind::BlockRealize(BlockRealize {
                        iter_values: Vec::new(),
                        predicate: Expr::bool(true),
                        block: Block::leaf(name, Vec::new(), reads, writes, body),
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
        // 3. Across the threads. The other threads of the block (other
        // `threadIdx` tags) reduce their own groups at the same time: each
        // group gets its own part of the shared buffers.
        let kernel_threads = self.kernel_thread_extents();
        let mut group = ThreadGroup::default();
        let mut wrap_loops = Vec::new();
        for (other_tag, extent) in &kernel_threads {
            if other_tag == tag {
                continue;
            }
            let enclosing = self.loops[..chain_start]
                .iter()
                .filter_map(thread_tag)
                .find(|(_, t)| t == other_tag);
            let var = match enclosing {
                Some((f, _)) => f.loop_var.clone(),
                None => {
                    // Bound elsewhere in the kernel: every such thread runs
                    // this code, so a loop bound to the tag names its index.
                    let letter = other_tag.trim_start_matches("threadIdx.");
                    let var = Var::new(format!("t{letter}"), DataType::int32(), Span::NONE);
                    wrap_loops.push((var.clone(), *extent, other_tag.clone()));
                    var
                }
            };
            group.add(Expr::var(&var), *extent);
        }
        let thread = Var::new(
            thread_for.loop_var.name(),
            thread_for.loop_var.dtype(),
            Span::NONE,
        );
        let t = Expr::var(&thread);
        let across = Across {
            block_name: &block.name,
            reducer: &reducer,
            accumulator: &accumulator,
            thread: t.clone(),
            threads,
            group: &group,
            span,
        };
        let lanes_contiguous = kernel_threads.iter().all(|(other, extent)| {
            thread_dimension(other) >= thread_dimension(tag) || *extent == 1
        });
        // Every path leaves the group's result where thread 0 reads it.
        let (mut steps, buffers, result) = match warp_plan(dtype, threads, lanes_contiguous) {
            Some(plan) => across.warp_shuffles(plan),
            None => across.shared_tree(),
        };
        let mut cross_reads = vec![full(&accumulator)];
        let mut cross_writes = vec![full(&accumulator)];
        for buffer in &buffers {
            cross_reads.push(full(buffer));
            cross_writes.push(full(buffer));
        }
        self.new_buffers.extend(buffers);
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
                then_case: Stmt::store(&update.buffer, result, output_indices.clone()),
                else_case: None,
            },
            span,
        ));
        cross_writes.push(BufferRegion {
            buffer: update.buffer.clone(),
            region: output_indices
                .iter()
                .map(|i| Range::point(i.clone()))
                .collect(),
        });
        let cross = opaque_block(
            format!("{}_cross_thread", block.name),
            cross_reads,
            cross_writes,
            Stmt::seq(steps),
        );
        let mut cross_loop = thread_loop(thread, threads, tag, cross);
        for (var, extent, other_tag) in wrap_loops.into_iter().rev() {
            cross_loop = thread_loop(var, extent, &other_tag, cross_loop);
        }
        let lowered = Stmt::seq(vec![init, chain, cross_loop]);
        // The chain's loops are replaced: the marker tells each enclosing
        // loop of the chain to give way to the lowered statements.
        Some(marker(lowered, self.loops.len() - chain_start))
    }
}

impl Lowering {
    /// The `threadIdx` tags bound in the kernel around the current
    /// statement (its outermost thread-bound loop), with their extents,
    /// ordered x, y, z. A tag with a non-constant extent is left out.
    fn kernel_thread_extents(&self) -> Vec<(String, i64)> {
        let Some(root) = self
            .loops
            .iter()
            .find(|l| l.as_for().is_some_and(|f| f.kind == ForKind::ThreadBinding))
        else {
            return Vec::new();
        };
        let mut extents: Vec<(String, i64)> = Vec::new();
        walk_stmts(root, &mut |s| {
            if let Some((f, tag)) = thread_tag(s) {
                if let Some(extent) = f.extent.as_int() {
                    if !extents.iter().any(|(t, _)| t == tag) {
                        extents.push((tag.to_string(), extent));
                    }
                }
            }
        });
        extents.sort_by_key(|(tag, _)| thread_dimension(tag));
        extents
    }
}

/// 0, 1, 2 for `threadIdx.x`, `.y`, `.z`.
fn thread_dimension(tag: &str) -> u8 {
    match tag.strip_prefix("threadIdx.") {
        Some("y") => 1,
        Some("z") => 2,
        _ => 0,
    }
}

fn thread_loop(var: Var, extent: i64, tag: &str, body: Stmt) -> Stmt {
    Stmt::for_loop(For {
        id: NodeId::fresh(),
        loop_var: var,
        min: Expr::i32(0),
        extent: Expr::i32(extent),
        kind: ForKind::ThreadBinding,
        thread: Some(tag.to_string()),
        annotations: Vec::new(),
        body,
    })
}

/// The index of a thread's group among the groups of a block that reduce at
/// once (one per combination of the other `threadIdx` tags), and how many
/// there are.
#[derive(Default)]
struct ThreadGroup {
    index: Option<Expr>,
    extent: i64,
}

impl ThreadGroup {
    fn add(&mut self, var: Expr, extent: i64) {
        let extent_before = self.extent.max(1);
        self.index = Some(match self.index.take() {
            None => var,
            Some(index) => Expr::binary(
                BinaryOp::Add,
                index,
                Expr::binary(BinaryOp::Mul, var, Expr::i32(extent_before)),
            ),
        });
        self.extent = extent_before * extent;
    }

    /// `index * size + offset`: an element of this group's part of a buffer
    /// of `size` elements per group.
    fn element(&self, size: i64, offset: Expr) -> Expr {
        match &self.index {
            None => offset,
            Some(index) => Expr::binary(
                BinaryOp::Add,
                Expr::binary(BinaryOp::Mul, index.clone(), Expr::i32(size)),
                offset,
            ),
        }
    }

    fn extent(&self) -> i64 {
        self.extent.max(1)
    }
}

/// CUDA's warp size.
const WARP_SIZE: i64 = 32;

/// How a reduction over `threads` threads uses warp shuffles (TVM's
/// LowerThreadAllreduce rules): `Some(width)` when the threads of a group
/// fit a warp, `Some(32)` and a second round over the warps otherwise.
#[derive(Clone, Copy)]
enum WarpPlan {
    /// Groups of `threads` lanes (a power of two up to 32) within a warp.
    WithinWarp,
    /// Each warp reduces its 32 lanes, then the first `warps` lanes (a
    /// power of two up to 32) reduce the warps' results.
    AcrossWarps { warps: i64 },
}

/// Whether a reduction of `dtype` over `threads` threads can use warp
/// shuffles: a type `__shfl_*_sync` moves (4 or 8 bytes, or half), and the
/// reducing threads consecutive lanes (`lanes_contiguous`: no lower thread
/// dimension with more than one thread).
fn warp_plan(dtype: DataType, threads: i64, lanes_contiguous: bool) -> Option<WarpPlan> {
    let shuffled_type = dtype.lanes == 1
        && match dtype.code {
            TypeCode::Float => matches!(dtype.bits, 16 | 32 | 64),
            TypeCode::Int | TypeCode::UInt => matches!(dtype.bits, 32 | 64),
            _ => false,
        };
    if !shuffled_type || !lanes_contiguous || threads < 2 {
        return None;
    }
    if WARP_SIZE % threads == 0 {
        return Some(WarpPlan::WithinWarp);
    }
    let warps = threads / WARP_SIZE;
    (threads % WARP_SIZE == 0 && warps <= WARP_SIZE && warps.count_ones() == 1)
        .then_some(WarpPlan::AcrossWarps { warps })
}

/// What the reduction across threads is built from.
struct Across<'a> {
    block_name: &'a str,
    reducer: &'a Reducer,
    /// Each thread's part, then its group's result in thread 0.
    accumulator: &'a Buffer,
    /// The reducing thread's index.
    thread: Expr,
    threads: i64,
    group: &'a ThreadGroup,
    span: Span,
}

impl Across<'_> {
    fn accumulated(&self) -> Expr {
        Expr::load(self.accumulator, vec![Expr::i32(0)])
    }

    fn when(&self, condition: Expr, then_case: Stmt) -> Stmt {
        Stmt::new(
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case: None,
            },
            self.span,
        )
    }

    fn local(&self, suffix: &str, dtype: DataType, elements: i64, scope: &str) -> Buffer {
        Buffer::new(
            &format!("{}_{suffix}", self.block_name),
            dtype,
            vec![Expr::i32(elements)],
            scope,
            self.span,
        )
    }

    /// The accumulator of lane 0 of each group of `width` lanes becomes the
    /// group's result: `acc = acc op shuffle_down(acc, offset)` for offsets
    /// halving from `width / 2`, after taking the mask of the active lanes.
    fn shuffle_rounds(&self, mask: &Buffer, width: i64, steps: &mut Vec<Stmt>) {
        let zero = || vec![Expr::i32(0)];
        let active = Expr::call(
            Op::named("tvm_warp_activemask"),
            Vec::new(),
            DataType::uint(32),
        );
        steps.push(Stmt::store(mask, active, zero()));
        let mut offset = width / 2;
        while offset >= 1 {
            let accumulated = self.accumulated();
            let other = Expr::call(
                Op::named("tvm_warp_shuffle_down"),
                vec![
                    Expr::load(mask, zero()),
                    accumulated.clone(),
                    Expr::i32(offset),
                    Expr::i32(width),
                    Expr::i32(WARP_SIZE),
                ],
                accumulated.dtype(),
            );
            steps.push(Stmt::store(
                self.accumulator,
                self.reducer.combine(accumulated, other),
                zero(),
            ));
            offset /= 2;
        }
    }

    /// Warp shuffles (TVM's LowerThreadAllreduce on CUDA): within a warp,
    /// and across warps through one shared element per warp.
    fn warp_shuffles(&self, plan: WarpPlan) -> (Vec<Stmt>, Vec<Buffer>, Expr) {
        let mask = self.local("mask", DataType::uint(32), 1, "local");
        let mut steps = Vec::new();
        let t = &self.thread;
        match plan {
            WarpPlan::WithinWarp => {
                self.shuffle_rounds(&mask, self.threads, &mut steps);
                (steps, vec![mask], self.accumulated())
            }
            WarpPlan::AcrossWarps { warps } => {
                let staging = self.local(
                    "red_buf_staging",
                    self.accumulator.dtype(),
                    warps * self.group.extent(),
                    "shared",
                );
                self.shuffle_rounds(&mask, WARP_SIZE, &mut steps);
                let lane = Expr::binary(BinaryOp::FloorMod, t.clone(), Expr::i32(WARP_SIZE));
                let warp = Expr::binary(BinaryOp::FloorDiv, t.clone(), Expr::i32(WARP_SIZE));
                steps.push(self.when(
                    Expr::binary(BinaryOp::Eq, lane, Expr::i32(0)),
                    Stmt::store(
                        &staging,
                        self.accumulated(),
                        vec![self.group.element(warps, warp)],
                    ),
                ));
                // thread-sync puts the barrier between the staging writes
                // and these reads.
                steps.push(self.when(
                    Expr::binary(BinaryOp::Lt, t.clone(), Expr::i32(warps)),
                    Stmt::store(
                        self.accumulator,
                        Expr::load(&staging, vec![self.group.element(warps, t.clone())]),
                        vec![Expr::i32(0)],
                    ),
                ));
                self.shuffle_rounds(&mask, warps, &mut steps);
                (steps, vec![mask, staging], self.accumulated())
            }
        }
    }

    /// A tree in shared memory, halving the active threads each round;
    /// thread-sync puts the barriers between rounds.
    fn shared_tree(&self) -> (Vec<Stmt>, Vec<Buffer>, Expr) {
        let threads = self.threads;
        let red_buf = self.local(
            "red_buf",
            self.accumulator.dtype(),
            threads * self.group.extent(),
            "shared",
        );
        let t = &self.thread;
        let slot = |offset: i64| {
            let thread = if offset == 0 {
                t.clone()
            } else {
                Expr::binary(BinaryOp::Add, t.clone(), Expr::i32(offset))
            };
            vec![self.group.element(threads, thread)]
        };
        let mut steps = vec![Stmt::store(&red_buf, self.accumulated(), slot(0))];
        let mut width = (threads as u64).next_power_of_two() as i64;
        while width > 1 {
            let half = width / 2;
            // With a thread count that is not a power of two, the upper
            // half of the first round is partly missing: only the threads
            // whose partner `t + half` exists combine.
            let active = half.min(threads - half);
            let condition = Expr::binary(BinaryOp::Lt, t.clone(), Expr::i32(active));
            let combined = self.reducer.combine(
                Expr::load(&red_buf, slot(0)),
                Expr::load(&red_buf, slot(half)),
            );
            steps.push(self.when(condition, Stmt::store(&red_buf, combined, slot(0))));
            width = half;
        }
        let result = Expr::load(&red_buf, slot(0));
        (steps, vec![red_buf], result)
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
