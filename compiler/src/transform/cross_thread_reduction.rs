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
//!   between rounds); the result then reaches every thread of the group
//!   (a shuffle from the group's first lane, or through shared memory), as
//!   TVM's allreduce gives it;
//! - the write-back: the thread of index 0 stores the result, or, when the
//!   output is a `local` buffer, every thread stores it in its own copy;
//! - a later block of the kernel that reads the result, writes memory other
//!   threads see and is not under a loop bound to the reduction's thread
//!   tag runs in thread 0 only (TVM's cross-thread broadcast rewrite), so
//!   the threads do not all store one element.
//!
//! Handled: the reducers of TVM's registry, over one buffer (`C[i] = C[i]
//! op v` with op one of `+ * min max` and its identity as init) or a tuple
//! of buffers updated together through `T.let`s (argmax and argmin: an
//! index and a value; each value gets its own accumulator, shuffle and
//! shared buffer), one thread tag among its reduction loops with a
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
use crate::schedule::reducer::{match_reduction_update, CommReducer};
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
        reduced: Vec::new(),
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
    /// The outputs of the cross-thread reductions lowered so far in the
    /// current kernel, with the thread tag and extent each reduced over.
    reduced: Vec<(Var, String, i64)>,
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
                // A kernel's reductions are not seen by the next kernel.
                let leaves_kernel = for_loop.kind == ForKind::ThreadBinding
                    && !self
                        .loops
                        .iter()
                        .any(|l| l.as_for().is_some_and(|f| f.kind == ForKind::ThreadBinding));
                if leaves_kernel {
                    self.reduced.clear();
                }
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
                if let Some(broadcast) = self.broadcast(stmt, realize) {
                    return broadcast;
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
        let Some(update) = match_reduction_update(block) else {
            refuse(&mut self.errors, "but it is not `C[i] = C[i] op v` with op one of + * min max and its identity as init, nor a tuple reduction of TVM's registry (argmax, argmin)");
            return Some(stmt.clone());
        };
        let outputs_local: Vec<bool> = update
            .stores
            .iter()
            .map(|store| store.buffer.scope() == "local")
            .collect();
        if outputs_local.iter().any(|local| *local != outputs_local[0]) {
            refuse(
                &mut self.errors,
                "into some `local` buffers and some other ones; make them all `local` or none (TVM's rule)",
            );
            return Some(stmt.clone());
        }
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

        let span = stmt.span();
        let accumulators: Vec<Buffer> = update
            .stores
            .iter()
            .enumerate()
            .map(|(position, store)| {
                Buffer::new(
                    &value_name(&format!("{}_in_thread_acc", block.name), position, &update),
                    store.value.dtype(),
                    vec![Expr::i32(1)],
                    "local",
                    span,
                )
            })
            .collect();
        self.new_buffers.extend(accumulators.iter().cloned());
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
        let all_full = |buffers: &[Buffer]| buffers.iter().map(full).collect::<Vec<_>>();

        // 1. The accumulators start at the identity.
        let init = opaque_block(
            format!("{}_in_thread_init", block.name),
            Vec::new(),
            all_full(&accumulators),
            Stmt::seq(
                accumulators
                    .iter()
                    .zip(update.reducer.identity())
                    .map(|(acc, identity)| Stmt::store(acc, identity.clone(), vec![Expr::i32(0)]))
                    .collect(),
            ),
        );
        // 2. Each thread reduces its part: the block, writing the accumulators.
        let mut in_thread = block.clone();
        in_thread.id = NodeId::fresh();
        in_thread.name = format!("{}_in_thread", block.name);
        in_thread.init = None;
        in_thread.body = store_values(
            &accumulators,
            update
                .reducer
                .combine(&element_zero_loads(&accumulators), &update.rhs),
            span,
        );
        in_thread.reads = block
            .reads
            .iter()
            .filter(|r| !update.stores.iter().any(|s| s.buffer == r.buffer))
            .cloned()
            .chain(all_full(&accumulators))
            .collect();
        in_thread.writes = all_full(&accumulators);
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
            reducer: &update.reducer,
            accumulators: &accumulators,
            thread: t.clone(),
            threads,
            group: &group,
            span,
        };
        let lanes_contiguous = kernel_threads.iter().all(|(other, extent)| {
            thread_dimension(other) >= thread_dimension(tag) || *extent == 1
        });
        // Every path leaves the group's result in each thread's accumulators.
        let dtypes: Vec<DataType> = accumulators.iter().map(Buffer::dtype).collect();
        let (mut steps, buffers) = match warp_plan(&dtypes, threads, lanes_contiguous) {
            Some(plan) => across.warp_shuffles(plan),
            None => across.shared_tree(),
        };
        let mut cross_reads = all_full(&accumulators);
        let mut cross_writes = all_full(&accumulators);
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
        let output_indices: Vec<Expr> = update.stores[0]
            .indices
            .iter()
            .map(|i| substitute(i, &bindings))
            .collect();
        // A `local` output is each thread's own copy: every thread stores
        // the result in it; memory the threads share is stored once.
        let write_back = Stmt::seq(
            update
                .stores
                .iter()
                .zip(element_zero_loads(&accumulators))
                .map(|(store, result)| Stmt::store(&store.buffer, result, output_indices.clone()))
                .collect(),
        );
        if outputs_local[0] {
            steps.push(write_back);
        } else {
            steps.push(Stmt::new(
                StmtKind::IfThenElse {
                    condition: Expr::binary(BinaryOp::Eq, t.clone(), Expr::i32(0)),
                    then_case: write_back,
                    else_case: None,
                },
                span,
            ));
        }
        for store in &update.stores {
            self.reduced
                .push((store.buffer.data().clone(), tag.to_string(), threads));
            cross_writes.push(BufferRegion {
                buffer: store.buffer.clone(),
                region: output_indices
                    .iter()
                    .map(|i| Range::point(i.clone()))
                    .collect(),
            });
        }
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
    /// A block that reads the output of a cross-thread reduction of this
    /// kernel and writes memory the threads share, outside any loop bound
    /// to the reduction's tag: it runs in the first thread of that tag
    /// only, under a loop bound to it (TVM's MakeCrossThreadBroadcast).
    fn broadcast(&self, stmt: &Stmt, realize: &BlockRealize) -> Option<Stmt> {
        let block = &realize.block;
        if block.writes.iter().any(|w| w.buffer.scope() == "local") {
            return None;
        }
        let mut free: Vec<(String, i64)> = Vec::new();
        for (data, tag, extent) in &self.reduced {
            let read = block.reads.iter().any(|r| r.buffer.data() == data);
            let bound = self
                .loops
                .iter()
                .any(|l| thread_tag(l).is_some_and(|(_, t)| t == tag));
            if read && !bound && !free.iter().any(|(t, _)| t == tag) {
                free.push((tag.clone(), *extent));
            }
        }
        if free.is_empty() {
            return None;
        }
        let mut realize = realize.clone();
        let mut loops = Vec::new();
        for (tag, extent) in &free {
            let letter = tag.trim_start_matches("threadIdx.");
            let var = Var::new(format!("t{letter}"), DataType::int32(), Span::NONE);
            realize.predicate = Expr::binary(
                BinaryOp::And,
                Expr::binary(BinaryOp::Eq, Expr::var(&var), Expr::i32(0)),
                realize.predicate.clone(),
            );
            loops.push((var, *extent, tag.clone()));
        }
        let mut body = stmt.with_kind(StmtKind::BlockRealize(realize));
        for (var, extent, tag) in loops {
            body = thread_loop(var, extent, &tag, body);
        }
        Some(body)
    }

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

/// Whether a reduction of values of `dtypes` over `threads` threads can
/// use warp shuffles: types `__shfl_*_sync` moves (4 or 8 bytes, or half),
/// and the reducing threads consecutive lanes (`lanes_contiguous`: no lower
/// thread dimension with more than one thread).
fn warp_plan(dtypes: &[DataType], threads: i64, lanes_contiguous: bool) -> Option<WarpPlan> {
    let shuffled_type = dtypes.iter().all(|dtype| {
        dtype.lanes == 1
            && match dtype.code {
                TypeCode::Float => matches!(dtype.bits, 16 | 32 | 64),
                TypeCode::Int | TypeCode::UInt => matches!(dtype.bits, 32 | 64),
                _ => false,
            }
    });
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

/// The name of the `position`-th value's buffer: `name` itself for a
/// reduction of one value, `name_0`, `name_1`, ... for a tuple.
fn value_name(
    name: &str,
    position: usize,
    update: &crate::schedule::reducer::ReductionUpdate,
) -> String {
    if update.stores.len() == 1 {
        name.to_string()
    } else {
        format!("{name}_{position}")
    }
}

/// `buffer[0]` of each buffer.
fn element_zero_loads(buffers: &[Buffer]) -> Vec<Expr> {
    buffers
        .iter()
        .map(|b| Expr::load(b, vec![Expr::i32(0)]))
        .collect()
}

/// Stores `values[i]` in `buffers[i][0]`. With several values each is
/// first bound by a `T.let`, so that no store changes what a later value
/// reads (a tuple reducer's values read every accumulator).
fn store_values(buffers: &[Buffer], values: Vec<Expr>, span: Span) -> Stmt {
    store_values_at(buffers, values, &[Expr::i32(0)], span)
}

/// Stores `values[i]` at `indices` of `buffers[i]`, as [`store_values`].
fn store_values_at(buffers: &[Buffer], values: Vec<Expr>, indices: &[Expr], span: Span) -> Stmt {
    if let ([buffer], [value]) = (buffers, values.as_slice()) {
        return Stmt::store(buffer, value.clone(), indices.to_vec());
    }
    let vars: Vec<Var> = buffers
        .iter()
        .zip(&values)
        .map(|(buffer, value)| {
            Var::new(
                format!("{}_value", buffer.name()),
                value.dtype(),
                Span::NONE,
            )
        })
        .collect();
    let stores = buffers
        .iter()
        .zip(&vars)
        .map(|(buffer, var)| Stmt::store(buffer, Expr::var(var), indices.to_vec()))
        .collect();
    bind_all(&vars, values, Stmt::seq(stores), span)
}

/// `T.let`s of `vars` to `values`, in order, around `body`.
fn bind_all(vars: &[Var], values: Vec<Expr>, body: Stmt, span: Span) -> Stmt {
    vars.iter()
        .zip(values)
        .rev()
        .fold(body, |body, (var, value)| {
            Stmt::new(
                StmtKind::LetStmt {
                    var: var.clone(),
                    value,
                    body,
                },
                span,
            )
        })
}

/// What the reduction across threads is built from.
struct Across<'a> {
    block_name: &'a str,
    reducer: &'a CommReducer,
    /// Each thread's part, then its group's result, one per value.
    accumulators: &'a [Buffer],
    /// The reducing thread's index.
    thread: Expr,
    threads: i64,
    group: &'a ThreadGroup,
    span: Span,
}

impl Across<'_> {
    fn accumulated(&self) -> Vec<Expr> {
        element_zero_loads(self.accumulators)
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

    /// One buffer per value, named `<block>_<suffix>` (`_0`, `_1` for a
    /// tuple), of `elements` elements of the value's type.
    fn per_value(&self, suffix: &str, elements: i64, scope: &str) -> Vec<Buffer> {
        let count = self.accumulators.len();
        self.accumulators
            .iter()
            .enumerate()
            .map(|(position, acc)| {
                let suffix = if count == 1 {
                    suffix.to_string()
                } else {
                    format!("{suffix}_{position}")
                };
                self.local(&suffix, acc.dtype(), elements, scope)
            })
            .collect()
    }

    /// A warp operation on each accumulator, bound to a `T.let` before any
    /// value uses it: every lane runs it, even where a select of the
    /// reducer takes the other operand.
    fn shuffled(
        &self,
        op: &str,
        mask: &Buffer,
        argument: i64,
        width: i64,
    ) -> (Vec<Var>, Vec<Expr>) {
        self.accumulators
            .iter()
            .map(|acc| {
                let value = Expr::load(acc, vec![Expr::i32(0)]);
                let call = Expr::call(
                    Op::named(op),
                    vec![
                        Expr::load(mask, vec![Expr::i32(0)]),
                        value.clone(),
                        Expr::i32(argument),
                        Expr::i32(width),
                        Expr::i32(WARP_SIZE),
                    ],
                    value.dtype(),
                );
                let var = Var::new(format!("{}_other", acc.name()), value.dtype(), Span::NONE);
                (var, call)
            })
            .unzip()
    }

    /// The accumulators of lane 0 of each group of `width` lanes become
    /// the group's result: `acc = acc op shuffle_down(acc, offset)` for
    /// offsets halving from `width / 2`, after taking the mask of the
    /// active lanes.
    fn shuffle_rounds(&self, mask: &Buffer, width: i64, steps: &mut Vec<Stmt>) {
        let active = Expr::call(
            Op::named("tvm_warp_activemask"),
            Vec::new(),
            DataType::uint(32),
        );
        steps.push(Stmt::store(mask, active, vec![Expr::i32(0)]));
        let mut offset = width / 2;
        while offset >= 1 {
            let (others, calls) = self.shuffled("tvm_warp_shuffle_down", mask, offset, width);
            steps.push(self.combine_with(others, calls));
            offset /= 2;
        }
    }

    /// The accumulators combined with the warp operations `calls`: one
    /// value's call goes straight into its combination; a tuple's are
    /// bound to `others` first (see [`Across::shuffled`]).
    fn combine_with(&self, others: Vec<Var>, calls: Vec<Expr>) -> Stmt {
        if self.accumulators.len() == 1 {
            let combined = self.reducer.combine(&self.accumulated(), &calls);
            return store_values(self.accumulators, combined, self.span);
        }
        let other_values: Vec<Expr> = others.iter().map(Expr::var).collect();
        let combined = self.reducer.combine(&self.accumulated(), &other_values);
        let update = store_values(self.accumulators, combined, self.span);
        bind_all(&others, calls, update, self.span)
    }

    /// Warp shuffles (TVM's LowerThreadAllreduce on CUDA): within a warp,
    /// and across warps through one shared element per warp.
    fn warp_shuffles(&self, plan: WarpPlan) -> (Vec<Stmt>, Vec<Buffer>) {
        let mask = self.local("mask", DataType::uint(32), 1, "local");
        let mut steps = Vec::new();
        let t = &self.thread;
        match plan {
            WarpPlan::WithinWarp => {
                self.shuffle_rounds(&mask, self.threads, &mut steps);
                // Lane 0 of each group holds the result; every lane of the
                // group takes it.
                let (_, calls) = self.shuffled("tvm_warp_shuffle", &mask, 0, self.threads);
                steps.push(store_values(self.accumulators, calls, self.span));
                (steps, vec![mask])
            }
            WarpPlan::AcrossWarps { warps } => {
                let staging =
                    self.per_value("red_buf_staging", warps * self.group.extent(), "shared");
                self.shuffle_rounds(&mask, WARP_SIZE, &mut steps);
                let lane = Expr::binary(BinaryOp::FloorMod, t.clone(), Expr::i32(WARP_SIZE));
                let warp = Expr::binary(BinaryOp::FloorDiv, t.clone(), Expr::i32(WARP_SIZE));
                steps.push(self.when(
                    Expr::binary(BinaryOp::Eq, lane, Expr::i32(0)),
                    store_values_at(
                        &staging,
                        self.accumulated(),
                        &[self.group.element(warps, warp)],
                        self.span,
                    ),
                ));
                // thread-sync puts the barrier between the staging writes
                // and these reads.
                let staged = staging
                    .iter()
                    .map(|b| Expr::load(b, vec![self.group.element(warps, t.clone())]))
                    .collect();
                steps.push(self.when(
                    Expr::binary(BinaryOp::Lt, t.clone(), Expr::i32(warps)),
                    store_values(self.accumulators, staged, self.span),
                ));
                self.shuffle_rounds(&mask, warps, &mut steps);
                let results = self.publish(&mut steps);
                let mut buffers = vec![mask];
                buffers.extend(staging);
                buffers.extend(results);
                (steps, buffers)
            }
        }
    }

    /// Thread 0 of each group puts the group's result in shared memory and
    /// every thread of the group reads it back into its accumulators
    /// (thread-sync puts the barrier between); returns the shared buffers.
    fn publish(&self, steps: &mut Vec<Stmt>) -> Vec<Buffer> {
        let results = self.per_value("red_result", self.group.extent(), "shared");
        let slot = [self.group.element(1, Expr::i32(0))];
        steps.push(self.when(
            Expr::binary(BinaryOp::Eq, self.thread.clone(), Expr::i32(0)),
            store_values_at(&results, self.accumulated(), &slot, self.span),
        ));
        let published = results
            .iter()
            .map(|b| Expr::load(b, slot.to_vec()))
            .collect();
        steps.push(store_values(self.accumulators, published, self.span));
        results
    }

    /// A tree in shared memory, halving the active threads each round;
    /// thread-sync puts the barriers between rounds.
    fn shared_tree(&self) -> (Vec<Stmt>, Vec<Buffer>) {
        let threads = self.threads;
        let red_bufs = self.per_value("red_buf", threads * self.group.extent(), "shared");
        let t = &self.thread;
        let slot = |offset: i64| {
            let thread = if offset == 0 {
                t.clone()
            } else {
                Expr::binary(BinaryOp::Add, t.clone(), Expr::i32(offset))
            };
            vec![self.group.element(threads, thread)]
        };
        let loads = |offset: i64| -> Vec<Expr> {
            red_bufs
                .iter()
                .map(|b| Expr::load(b, slot(offset)))
                .collect()
        };
        let mut steps = vec![store_values_at(
            &red_bufs,
            self.accumulated(),
            &slot(0),
            self.span,
        )];
        let mut width = (threads as u64).next_power_of_two() as i64;
        while width > 1 {
            let half = width / 2;
            // With a thread count that is not a power of two, the upper
            // half of the first round is partly missing: only the threads
            // whose partner `t + half` exists combine.
            let active = half.min(threads - half);
            let condition = Expr::binary(BinaryOp::Lt, t.clone(), Expr::i32(active));
            let combined = self.reducer.combine(&loads(0), &loads(half));
            steps.push(self.when(
                condition,
                store_values_at(&red_bufs, combined, &slot(0), self.span),
            ));
            width = half;
        }
        // Every thread reads the group's result from the tree's root.
        let root = [self.group.element(threads, Expr::i32(0))];
        let results = red_bufs
            .iter()
            .map(|b| Expr::load(b, root.to_vec()))
            .collect();
        steps.push(store_values(self.accumulators, results, self.span));
        (steps, red_bufs)
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
