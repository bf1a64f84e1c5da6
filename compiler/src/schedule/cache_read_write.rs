//! Caching: `cache_read` stages what a block reads into a buffer of another
//! storage scope (`A_shared`), `cache_write` computes into one (`C_local`)
//! and copies it out, after TVM's `cache_read_write.cc`: the stage is a block
//! named `NAME_scope` with loops `ax0, ax1, ...` and iterators `v0, v1, ...`,
//! inserted just before the first consumer (after the producer) in the
//! lowest loop or block holding both.

use super::access::{check_storage_scope, nth_access_buffer, scope_root_of, AccessKind};
use super::error::{codes, ScheduleError, ScheduleResult};
use super::loop_transformation::new_loop;
use super::primitive::{optional, required, typed, Primitive};
use super::region::relax_region;
use super::scope::{current_affine_binding, BlockFlags, DepKind};
use super::script::{Bound, Eval, Interpreter, Value};
use super::state::{SRefKind, ScheduleState};
use super::trace::{Outputs, TraceArg};
use crate::arith::{build, Analyzer};
use crate::ir::mutate::{
    mutate_block_children, mutate_expr_children, mutate_stmt_children, Mutator,
};
use crate::ir::{
    BinaryOp, Block, BlockRealize, Buffer, BufferRegion, Expr, ExprKind, IterKind, IterVar, NodeId,
    Range, Stmt, StmtKind, Var,
};
use crate::source::Span;

/// `buffer` moved to another storage scope, renamed `NAME_scope` (TVM's `WithScope`).
pub fn buffer_in_scope(buffer: &Buffer, scope: &str) -> Buffer {
    let name = format!("{}_{}", buffer.name(), scope);
    buffer.with(|node| {
        node.data = Var::pointer(&name, node.dtype, scope, node.span);
        node.name = name.clone();
        node.scope = scope.to_string();
    })
}

/// Where a cache stage goes: into the body of `location` (a loop or block),
/// at position `position` of its statement sequence.
struct StageLocation {
    location: NodeId,
    position: usize,
}

/// `sch.cache_read(block, read_buffer_index, storage_scope, consumer_blocks=None)`.
/// Returns the new cache stage block.
pub fn cache_read(
    state: &mut ScheduleState,
    block: NodeId,
    read_buffer_index: i64,
    storage_scope: &str,
    consumer_blocks: &[NodeId],
) -> ScheduleResult<NodeId> {
    check_storage_scope(storage_scope).map_err(|e| e.at_argument(2))?;
    let read_buffer = nth_access_buffer(state, block, read_buffer_index, AccessKind::Read)
        .map_err(|e| e.at_argument(1))?;
    let scope = scope_root_of(state, block)?;
    check_region_cover(state, scope, &read_buffer)?;
    check_consumers_in_scope(state, consumer_blocks, scope, true)?;
    let consumers = with_inner_blocks(state, consumer_blocks);
    let (location, cache_region) = match only_writer(state, scope, &read_buffer)? {
        Some(writer) => {
            let related = if consumers.is_empty() {
                raw_consumers(state, scope, writer)
            } else {
                consumers.clone()
            };
            let location = detect_location(state, writer, scope, &related);
            let writer_block = state.sref(writer).and_then(|s| s.as_block());
            let region = writer_block
                .and_then(|b| b.writes.iter().find(|w| w.buffer == read_buffer))
                .cloned()
                .unwrap_or_else(|| BufferRegion::full(&read_buffer));
            let relaxed = relax_region(state, writer, &region, location.location);
            (location, relaxed)
        }
        None => {
            let scope_block = state.sref(scope).and_then(|s| s.as_block());
            let region = scope_block
                .and_then(|b| b.reads.iter().find(|r| r.buffer == read_buffer))
                .cloned()
                .unwrap_or_else(|| BufferRegion::full(&read_buffer));
            (
                StageLocation {
                    location: scope,
                    position: 0,
                },
                region,
            )
        }
    };
    check_stage_in_bounds(state, location.location, &cache_region)?;
    let (cache, full) = cache_buffer(
        state,
        &read_buffer,
        storage_scope,
        scope,
        &location,
        &cache_region,
    );
    let (stage, stage_id) = make_cache_stage(
        &cache_region,
        &read_buffer,
        &cache,
        &read_buffer,
        storage_scope,
        full,
    );
    let mut rewriter = CacheReadRewriter {
        scope,
        location: &location,
        stage,
        read_buffer: read_buffer.clone(),
        cache: cache.clone(),
        consumers,
        offsets: (!full).then(|| cache_region.region.iter().map(|r| r.min.clone()).collect()),
        current_consumes: false,
    };
    let scope_stmt = state.sref(scope).expect("a live scope").stmt.clone();
    let new_scope = rewriter.mutate_stmt(&scope_stmt);
    state.replace(scope, new_scope);
    set_stage_flags(state, stage_id);
    Ok(stage_id)
}

/// `sch.cache_write(block, write_buffer_index, storage_scope, consumer_blocks=None)`.
/// Returns the new cache stage block.
pub fn cache_write(
    state: &mut ScheduleState,
    block: NodeId,
    write_buffer_index: i64,
    storage_scope: &str,
    consumer_blocks: &[NodeId],
) -> ScheduleResult<NodeId> {
    check_storage_scope(storage_scope).map_err(|e| e.at_argument(2))?;
    let write_buffer = nth_access_buffer(state, block, write_buffer_index, AccessKind::Write)
        .map_err(|e| e.at_argument(1))?;
    let scope = scope_root_of(state, block)?;
    if only_writer(state, scope, &write_buffer)? != Some(block) {
        return Err(not_single_writer(state, scope, &write_buffer));
    }
    check_consumers_in_scope(state, consumer_blocks, scope, false)?;
    check_not_read_modify_write(state, block, &write_buffer)?;
    let consumers = with_inner_blocks(state, consumer_blocks);
    let related: Vec<NodeId> = raw_consumers(state, scope, block)
        .into_iter()
        .filter(|c| !consumers.contains(c))
        .collect();
    let location = detect_location(state, block, scope, &related);
    let sref = state.sref(block).expect("a live block");
    let region = sref
        .as_block()
        .and_then(|b| b.writes.iter().find(|w| w.buffer == write_buffer))
        .cloned()
        .unwrap_or_else(|| BufferRegion::full(&write_buffer));
    let cache_region = if sref.parent.is_some() {
        relax_region(state, block, &region, location.location)
    } else {
        region
    };
    check_stage_in_bounds(state, location.location, &cache_region)?;
    let (cache, full) = cache_buffer(
        state,
        &write_buffer,
        storage_scope,
        scope,
        &location,
        &cache_region,
    );
    let (stage, stage_id) = make_cache_stage(
        &cache_region,
        &cache,
        &write_buffer,
        &write_buffer,
        storage_scope,
        full,
    );
    let mut rewriter = CacheWriteRewriter {
        scope,
        writer: block,
        location: &location,
        stage,
        write_buffer: write_buffer.clone(),
        cache,
        consumers,
        offsets: (!full).then(|| cache_region.region.iter().map(|r| r.min.clone()).collect()),
        under_writer: false,
        allocate: true,
    };
    let scope_stmt = state.sref(scope).expect("a live scope").stmt.clone();
    let new_scope = rewriter.mutate_stmt(&scope_stmt);
    state.replace(scope, new_scope);
    set_stage_flags(state, stage_id);
    Ok(stage_id)
}

/// `sch.cache_inplace(block, read_buffer_index, storage_scope)`: for a
/// block that reads and writes the same buffer (an in-place update), a stage
/// copying what it reads into a `storage_scope` cache just before it and one
/// copying what it writes back just after it, inside its innermost loop; the
/// block reads and writes the cache. Returns the two stages.
pub fn cache_inplace(
    state: &mut ScheduleState,
    block: NodeId,
    read_buffer_index: i64,
    storage_scope: &str,
) -> ScheduleResult<[NodeId; 2]> {
    check_storage_scope(storage_scope).map_err(|e| e.at_argument(2))?;
    let buffer = nth_access_buffer(state, block, read_buffer_index, AccessKind::Read)
        .map_err(|e| e.at_argument(1))?;
    let scope = scope_root_of(state, block)?;
    check_region_cover(state, scope, &buffer)?;
    let sref = state.sref(block).expect("a live block");
    let block_data = sref.as_block().expect("a block handle names a block");
    let read_region = block_data
        .reads
        .iter()
        .find(|r| r.buffer == buffer)
        .cloned();
    let Some(write_region) = block_data
        .writes
        .iter()
        .find(|w| w.buffer == buffer)
        .cloned()
    else {
        return Err(ScheduleError::new(
            codes::NOT_READ_MODIFY_WRITE,
            format!(
                "{} reads `{}` but does not write it, so there is no in-place update to cache",
                sref.describe(),
                buffer.name()
            ),
            "cache_inplace takes a block that reads and writes the buffer; use `sch.cache_read` for one that only reads it",
        )
        .blame(sref.location(), "the block")
        .at_argument(1));
    };
    let read_region = read_region.expect("nth_access_buffer found the read");
    let cache = buffer_in_scope(&buffer, storage_scope);
    // The stages go in the block's innermost loop (or its scope), with the
    // block's regions in that loop's variables: TVM copies the regions as
    // they are, in the block's iterators, which are not defined there.
    let inplace_location = |state: &ScheduleState, after: bool| StageLocation {
        location: state.sref(block).and_then(|s| s.parent).unwrap_or(scope),
        position: super::reindex::seq_position(state, block) + usize::from(after),
    };
    let location = inplace_location(state, false);
    let region = relax_region(state, block, &read_region, location.location);
    check_stage_in_bounds(state, location.location, &region)?;
    let write_check = relax_region(state, block, &write_region, location.location);
    check_stage_in_bounds(state, location.location, &write_check)?;
    let (stage, read_stage) =
        make_cache_stage(&region, &buffer, &cache, &buffer, storage_scope, true);
    let mut rewriter = CacheReadRewriter {
        scope,
        location: &location,
        stage,
        read_buffer: buffer.clone(),
        cache: cache.clone(),
        consumers: with_inner_blocks(state, &[block]),
        offsets: None,
        current_consumes: false,
    };
    let scope_stmt = state.sref(scope).expect("a live scope").stmt.clone();
    let new_scope = rewriter.mutate_stmt(&scope_stmt);
    state.replace(scope, new_scope);
    set_stage_flags(state, read_stage);
    let location = inplace_location(state, true);
    let region = relax_region(state, block, &write_region, location.location);
    let (stage, write_stage) =
        make_cache_stage(&region, &cache, &buffer, &buffer, storage_scope, true);
    let mut rewriter = CacheWriteRewriter {
        scope,
        writer: block,
        location: &location,
        stage,
        write_buffer: buffer.clone(),
        cache,
        consumers: Vec::new(),
        offsets: None,
        under_writer: false,
        allocate: false,
    };
    let scope_stmt = state.sref(scope).expect("a live scope").stmt.clone();
    let new_scope = rewriter.mutate_stmt(&scope_stmt);
    state.replace(scope, new_scope);
    set_stage_flags(state, write_stage);
    Ok([read_stage, write_stage])
}

/// A new cache stage covers what it reads and is a pipeline of its own
/// (TVM sets these flags; the binding is checked).
pub(crate) fn set_stage_flags(state: &mut ScheduleState, stage: NodeId) {
    let flags = BlockFlags {
        affine_binding: current_affine_binding(state, stage),
        region_cover: true,
        stage_pipeline: true,
    };
    state.set_block_flags(stage, flags);
}

/// Refuses a stage whose copy would leave the buffer: under a loop that a
/// non-dividing split left longer than the block's `T.where` allows, the
/// region is a point the stage would copy for every iteration (TVM copies
/// out of bounds there).
pub(crate) fn check_stage_in_bounds(
    state: &ScheduleState,
    location: NodeId,
    region: &BufferRegion,
) -> ScheduleResult<()> {
    // A stage inside a block copies in terms of its iterators.
    let analyzer = state.analyzer_at(location);
    for (dim, (range, extent)) in region.region.iter().zip(region.buffer.shape()).enumerate() {
        // Loops far longer than the buffer (factors whose product overflows
        // the index type) relax to a region whose size wrapped around.
        if let Some(size) = range.extent.as_int().filter(|size| *size < 0) {
            let mut error = ScheduleError::new(
                codes::CACHE_OUT_OF_BOUNDS,
                format!(
                    "the cache stage's region of `{}` has {size} elements in dimension {dim}: the loops around it are so long that its size overflows {}",
                    region.buffer.name(),
                    range.extent.dtype()
                ),
                "split with factors whose product is close to the loop's extent (write `None` for one of them)",
            );
            if let Some(sref) = state.sref(location) {
                error = error.blame(
                    sref.location(),
                    format!("the stage would go into {}", sref.describe()),
                );
            }
            return Err(error);
        }
        // Interval evaluation over the bound loops proves what the rewrite
        // rules cannot with symbolic sizes (`n - 1 - ax0 >= 0` for `ax0 < n`).
        let nonnegative = |e: &Expr| {
            let at_least = build::binary(BinaryOp::Ge, e.clone(), Expr::zero(e.dtype()));
            analyzer.can_prove(&at_least)
                || analyzer
                    .int_set(e)
                    .min()
                    .and_then(|min| analyzer.simplify(min).as_int())
                    .is_some_and(|min| min >= 0)
        };
        let room = build::sub(
            extent.clone(),
            build::add(range.min.clone(), range.extent.clone()),
        );
        let inside_low = nonnegative(&range.min);
        // A region clamped to the buffer's end (`T.min(16 - s, 2)` elements
        // from `s`) leaves room in one arm, where the start cancels.
        let inside_high =
            nonnegative(&room) || crate::arith::bounded_through_min_max_arms(&room, nonnegative);
        let outside = !(inside_low && inside_high);
        if outside {
            let place = state.sref(location).map(|s| (s.location(), s.describe()));
            let mut error = ScheduleError::new(
                codes::CACHE_OUT_OF_BOUNDS,
                format!(
                    "the cache stage would copy dimension {dim} of `{}` from `{}` for `{}` elements, past the buffer's {}",
                    region.buffer.name(),
                    crate::printer::expr_to_string(&range.min),
                    crate::printer::expr_to_string(&range.extent),
                    crate::printer::expr_to_string(extent)
                ),
                "the loops around the stage run where the blocks' guards (a `T.where`, a padding `T.if_then_else`) do not hold: cache before splitting by a factor that does not divide the extent, at a loop whose accesses stay inside the buffer, or at a block",
            );
            if let Some((span, described)) = place {
                error = error.blame(span, format!("the stage would go into {described}"));
            }
            return Err(error);
        }
    }
    Ok(())
}

/// Refuses `consumer_blocks` outside the cached block's scope: a consumer
/// nested in a block that is not a consumer too would read the cache while
/// the block around it still declares the original buffer, and a block above
/// the scope would lose the cache's allocation. `cache_read` may name the
/// scope itself (TVM accepts it): the blocks inside it consume, and it keeps
/// declaring the original buffer, which the cache stage inside it reads
/// (TVM's `cache_write` stops on an internal check there).
fn check_consumers_in_scope(
    state: &ScheduleState,
    consumer_blocks: &[NodeId],
    scope: NodeId,
    scope_allowed: bool,
) -> ScheduleResult<()> {
    for &consumer in consumer_blocks {
        if consumer == scope {
            if scope_allowed {
                continue;
            }
        } else if consumer_blocks.contains(&block_under_scope(state, consumer, scope)) {
            continue;
        }
        let sref = state.sref(consumer).ok_or_else(|| {
            ScheduleError::new(
                codes::REMOVED_HANDLE,
                "the block is no longer in the program",
                "get it again",
            )
        })?;
        return Err(ScheduleError::new(
                codes::BAD_COMPUTE_LOCATION,
                format!(
                    "{} is not in the scope of the block whose buffer is cached (it is above that scope, or nested in a block that is not a consumer too)",
                    sref.describe()
                ),
                "pass consumers that are siblings of the cached block, with the blocks around them",
            )
        .blame(sref.location(), "nested consumer")
        .at_argument(3));
    }
    Ok(())
}

/// The block directly under `scope` that holds `block` (itself, if a child
/// of the scope), or `scope` when `block` is not inside it.
fn block_under_scope(state: &ScheduleState, block: NodeId, scope: NodeId) -> NodeId {
    let mut outermost = block;
    while let Some(parent) = state.scope_root(outermost) {
        if parent == scope {
            return outermost;
        }
        outermost = parent;
    }
    scope
}

/// Refuses to cache what a block reads back without initializing it (an
/// update after `decompose_reduction`, an in-place `A[i] = A[i] + 1`): the
/// cache would start with garbage where the buffer had values (TVM applies
/// it). A reduction's `T.init()` moves into the cache with it.
fn check_not_read_modify_write(
    state: &ScheduleState,
    block: NodeId,
    buffer: &Buffer,
) -> ScheduleResult<()> {
    let Some(sref) = state.sref(block) else {
        return Ok(());
    };
    let Some(target) = sref.as_block() else {
        return Ok(());
    };
    if target.init.is_none() && target.reads.iter().any(|r| r.buffer == *buffer) {
        return Err(ScheduleError::new(
            codes::NOT_SINGLE_WRITER,
            format!(
                "block `{}` reads back `{}` without initializing it, so a cache of it would start without the buffer's values",
                target.name,
                buffer.name()
            ),
            "cache the write before `decompose_reduction` (the init then moves into the cache), or cache_read the buffer first",
        )
        .blame(sref.location(), "this block reads what it writes")
        .at_argument(1));
    }
    Ok(())
}

fn is_block(state: &ScheduleState, id: NodeId) -> bool {
    state.sref(id).map(|s| s.kind) == Some(SRefKind::Block)
}

/// The cache of `buffer` in `storage_scope` and whether it holds the whole
/// buffer: TVM caches only the region when the stage goes into a block
/// holding every reader of the buffer.
fn cache_buffer(
    state: &ScheduleState,
    buffer: &Buffer,
    storage_scope: &str,
    scope: NodeId,
    location: &StageLocation,
    cache_region: &BufferRegion,
) -> (Buffer, bool) {
    let full = !is_block(state, location.location)
        || !all_readers_under(state, buffer, scope, location.location);
    let cache = buffer_in_scope(buffer, storage_scope);
    if full {
        return (cache, true);
    }
    let region_only = cache.with(|node| {
        node.shape = cache_region
            .region
            .iter()
            .map(|r| r.extent.clone())
            .collect();
    });
    (region_only, false)
}

/// TVM's `CheckRegionCover`: every block of the scope that reads the buffer
/// reads only what its producers wrote before it.
fn check_region_cover(state: &ScheduleState, scope: NodeId, buffer: &Buffer) -> ScheduleResult<()> {
    for child in state.child_blocks(scope) {
        let Some(sref) = state.sref(child) else {
            continue;
        };
        let reads = sref
            .as_block()
            .is_some_and(|b| b.reads.iter().any(|r| r.buffer == *buffer));
        if reads && !state.block_flags(child).is_some_and(|f| f.region_cover) {
            return Err(ScheduleError::new(
                codes::NOT_REGION_COVER,
                format!(
                    "{} reads more of `{}` than its producers write before it",
                    sref.describe(),
                    buffer.name()
                ),
                "make the producer write every element the consumer reads before caching the buffer",
            )
            .blame(sref.location(), "reads elements nothing produced"));
        }
    }
    Ok(())
}

/// The consumer blocks with every block inside them.
fn with_inner_blocks(state: &ScheduleState, blocks: &[NodeId]) -> Vec<NodeId> {
    let mut result = Vec::new();
    for &block in blocks {
        if !result.contains(&block) {
            result.push(block);
        }
        // Every block inside, not only the children (TVM's `GetChildBlocks`):
        // a block nested two levels down (blockize twice) reads the buffer too.
        for child in state.descendant_blocks(block) {
            if !result.contains(&child) {
                result.push(child);
            }
        }
    }
    result
}

/// The only block of the scope that writes `buffer` (`None` when none does).
pub(crate) fn only_writer(
    state: &ScheduleState,
    scope: NodeId,
    buffer: &Buffer,
) -> ScheduleResult<Option<NodeId>> {
    let writers = state
        .block_info(scope)
        .and_then(|info| info.scope.buffer_writers.get(buffer).cloned())
        .unwrap_or_default();
    match writers.len() {
        0 => Ok(None),
        1 => Ok(Some(writers[0])),
        _ => Err(not_single_writer(state, scope, buffer)),
    }
}

fn not_single_writer(state: &ScheduleState, scope: NodeId, buffer: &Buffer) -> ScheduleError {
    let mut error = ScheduleError::new(
        codes::NOT_SINGLE_WRITER,
        format!(
            "`{}` is written by more than one block of the scope",
            buffer.name()
        ),
        "cache a buffer one block writes; merge the writers or cache each before they share it",
    );
    let writers = state
        .block_info(scope)
        .and_then(|info| info.scope.buffer_writers.get(buffer).cloned())
        .unwrap_or_default();
    for writer in writers {
        if let Some(sref) = state.sref(writer) {
            error = error.blame(sref.location(), format!("{} writes it", sref.describe()));
        }
    }
    error
}

/// The blocks that read what `producer` wrote (read-after-write edges).
fn raw_consumers(state: &ScheduleState, scope: NodeId, producer: NodeId) -> Vec<NodeId> {
    let Some(info) = state.block_info(scope) else {
        return Vec::new();
    };
    info.scope
        .deps_from(producer)
        .filter(|d| d.kind == DepKind::ReadAfterWrite)
        .map(|d| d.dst)
        .collect()
}

/// True when every block of the scope that reads `buffer` is under `node`.
fn all_readers_under(state: &ScheduleState, buffer: &Buffer, scope: NodeId, node: NodeId) -> bool {
    let under = state.child_blocks(node);
    state.child_blocks(scope).into_iter().all(|child| {
        let reads = state
            .sref(child)
            .and_then(|s| s.as_block())
            .is_some_and(|b| b.reads.iter().any(|r| r.buffer == *buffer));
        !reads || under.contains(&child)
    })
}

/// TVM's `CacheLocDetector`: the lowest loop or block whose body holds the
/// producer `block` and one of `related` (its consumers), and the position
/// of the first consumer there; with no consumers, the end of the scope.
fn detect_location(
    state: &ScheduleState,
    block: NodeId,
    scope: NodeId,
    related: &[NodeId],
) -> StageLocation {
    let scope_stmt = state.sref(scope).map(|s| s.stmt.clone());
    if related.is_empty() {
        let position = scope_stmt
            .as_ref()
            .and_then(|s| s.as_block_realize())
            .map(|r| match r.block.body.kind() {
                StmtKind::Seq(stmts) => stmts.len(),
                _ => 1,
            })
            .unwrap_or(0);
        return StageLocation {
            location: scope,
            position,
        };
    }
    let mut detector = LocationDetector {
        block,
        scope,
        related,
        visited_block: false,
        visited_related: false,
        location: None,
        position: None,
    };
    if let Some(stmt) = scope_stmt {
        detector.visit(&stmt);
    }
    StageLocation {
        location: detector.location.unwrap_or(scope),
        position: detector.position.unwrap_or(0),
    }
}

struct LocationDetector<'a> {
    block: NodeId,
    scope: NodeId,
    related: &'a [NodeId],
    visited_block: bool,
    visited_related: bool,
    location: Option<NodeId>,
    position: Option<usize>,
}

impl LocationDetector<'_> {
    fn visit(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::Seq(stmts) => {
                let previous = self.visited_block;
                self.visited_block = false;
                for (i, inner) in stmts.iter().enumerate() {
                    if self.position.is_some() {
                        break;
                    }
                    self.visit(inner);
                    if self.visited_block && self.visited_related && self.position.is_none() {
                        self.position = Some(i);
                        break;
                    } else if self.visited_related {
                        break;
                    }
                }
                self.visited_block |= previous;
            }
            StmtKind::BlockRealize(realize) => {
                let id = realize.block.id;
                if id == self.scope {
                    self.visit(&realize.block.body);
                    if self.visited_related && self.location.is_none() {
                        self.location = Some(id);
                        if !self.visited_block && self.position.is_none() {
                            self.position = Some(0);
                        }
                    }
                } else if id == self.block {
                    self.visited_block = true;
                } else if self.related.contains(&id) {
                    self.visited_related = true;
                }
            }
            StmtKind::For(for_loop) => {
                self.visit(&for_loop.body);
                if self.visited_block
                    && self.visited_related
                    && self.location.is_none()
                    && self.position.is_some()
                {
                    self.location = Some(for_loop.id);
                }
            }
            _ => {
                for_each_child(stmt, &mut |inner| self.visit(inner));
            }
        }
    }
}

/// Calls `f` on the direct child statements of a statement that is neither
/// a loop, a block nor a sequence.
pub(crate) fn for_each_child(stmt: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    match stmt.kind() {
        StmtKind::IfThenElse {
            then_case,
            else_case,
            ..
        } => {
            f(then_case);
            if let Some(else_case) = else_case {
                f(else_case);
            }
        }
        StmtKind::LetStmt { body, .. }
        | StmtKind::AllocBuffer { body, .. }
        | StmtKind::DeclBuffer { body, .. }
        | StmtKind::Assert { body, .. }
        | StmtKind::While { body, .. } => f(body),
        StmtKind::Allocate(allocate) => f(&allocate.body),
        StmtKind::AttrStmt(attr) => f(&attr.body),
        _ => {}
    }
}

/// TVM's `MakeCacheStage`: loops `ax0, ...` over the region, a block
/// `NAME_scope` with iterators `v0, ...` copying `source` into `target`.
/// `region_buffer` names the block. Returns the loop nest and the block's id.
fn make_cache_stage(
    region: &BufferRegion,
    source: &Buffer,
    target: &Buffer,
    region_buffer: &Buffer,
    storage_scope: &str,
    full: bool,
) -> (Stmt, NodeId) {
    let mut loop_vars = Vec::new();
    let mut iter_values = Vec::new();
    for (i, range) in region.region.iter().enumerate() {
        let var = Var::new(format!("ax{i}"), range.extent.dtype(), Span::NONE);
        iter_values.push(if full {
            build::add(range.min.clone(), var.to_expr())
        } else {
            var.to_expr()
        });
        loop_vars.push(var);
    }
    let mut iter_vars = Vec::new();
    let mut source_indices = Vec::new();
    let mut target_indices = Vec::new();
    let is_read = region_buffer == source;
    for (i, range) in region.region.iter().enumerate() {
        let dtype = range.extent.dtype();
        let var = Var::new(format!("v{i}"), dtype, Span::NONE);
        let v = var.to_expr();
        let dom = if full {
            let dim = region_buffer.shape()[i].clone();
            Range::new(Expr::zero(dim.dtype()), dim)
        } else {
            Range::new(Expr::zero(dtype), range.extent.clone())
        };
        iter_vars.push(IterVar {
            var,
            dom,
            kind: IterKind::Spatial,
        });
        let shifted = build::add(range.min.clone(), v.clone());
        let (s, t) = match (full, is_read) {
            (true, _) => (v.clone(), v),
            (false, true) => (shifted, v),
            (false, false) => (v, shifted),
        };
        source_indices.push(s);
        target_indices.push(t);
    }
    let block = Block::leaf(
        format!("{}_{}", region_buffer.name(), storage_scope),
        iter_vars,
        vec![BufferRegion::from_point(source, &source_indices)],
        vec![BufferRegion::from_point(target, &target_indices)],
        Stmt::store(target, Expr::load(source, source_indices), target_indices),
    );
    let extents = region.region.iter().map(|range| range.extent.clone());
    stage_under_loops(block, iter_values, loop_vars.iter().zip(extents))
}

/// A new stage: `block` bound to `iter_values` under serial loops (outermost
/// first). Returns the loop nest and the block's id.
pub(crate) fn stage_under_loops<'a>(
    block: Block,
    iter_values: Vec<Expr>,
    loops: impl DoubleEndedIterator<Item = (&'a Var, Expr)>,
) -> (Stmt, NodeId) {
    guarded_stage_under_loops(block, iter_values, Expr::bool(true), loops)
}

/// [`stage_under_loops`] with the block running where `predicate` holds.
pub(crate) fn guarded_stage_under_loops<'a>(
    block: Block,
    iter_values: Vec<Expr>,
    predicate: Expr,
    loops: impl DoubleEndedIterator<Item = (&'a Var, Expr)>,
) -> (Stmt, NodeId) {
    let id = block.id;
    let mut body = Stmt::block_realize(BlockRealize {
        iter_values,
        predicate,
        block,
    });
    for (var, extent) in loops.rev() {
        body = new_loop(var, extent, body, Span::NONE);
    }
    (body, id)
}

/// TVM's `InsertCacheStage`.
pub(crate) fn insert_stage(body: &Stmt, position: usize, stage: &Stmt) -> Stmt {
    match body.kind() {
        StmtKind::Seq(stmts) => {
            let mut stmts = stmts.clone();
            stmts.insert(position.min(stmts.len()), stage.clone());
            body.with_kind(StmtKind::Seq(stmts))
        }
        _ if position == 0 => Stmt::seq(vec![stage.clone(), body.clone()]),
        _ => Stmt::seq(vec![body.clone(), stage.clone()]),
    }
}

/// `region` with `buffer` replaced by `cache`, shifted by `offsets` when the
/// cache holds only the region.
fn redirect_regions(
    regions: &[BufferRegion],
    buffer: &Buffer,
    cache: &Buffer,
    offsets: Option<&Vec<Expr>>,
) -> Vec<BufferRegion> {
    let analyzer = Analyzer::new();
    regions
        .iter()
        .map(|region| {
            if region.buffer != *buffer {
                return region.clone();
            }
            let ranges = match offsets {
                None => region.region.clone(),
                Some(offsets) => region
                    .region
                    .iter()
                    .zip(offsets)
                    .map(|(r, offset)| {
                        Range::new(
                            analyzer.simplify(&build::sub(r.min.clone(), offset.clone())),
                            r.extent.clone(),
                        )
                    })
                    .collect(),
            };
            BufferRegion {
                buffer: cache.clone(),
                region: ranges,
            }
        })
        .collect()
}

fn shift_indices(indices: &[Expr], offsets: Option<&Vec<Expr>>) -> Vec<Expr> {
    match offsets {
        None => indices.to_vec(),
        Some(offsets) => {
            let analyzer = Analyzer::new();
            indices
                .iter()
                .zip(offsets)
                .map(|(i, o)| analyzer.simplify(&build::sub(i.clone(), o.clone())))
                .collect()
        }
    }
}

/// Inserts the stage at its location and adds the cache to the scope's allocations.
fn place_stage(
    block: &mut Block,
    scope: NodeId,
    location: &StageLocation,
    stage: &Stmt,
    allocate: Option<&Buffer>,
) {
    if block.id == location.location {
        block.body = insert_stage(&block.body, location.position, stage);
    }
    if block.id == scope {
        block.alloc_buffers.extend(allocate.cloned());
    }
}

fn place_stage_in_loop(stmt: Stmt, location: &StageLocation, stage: &Stmt) -> Stmt {
    match stmt.kind() {
        StmtKind::For(for_loop) if for_loop.id == location.location => {
            let mut new_loop = for_loop.clone();
            new_loop.body = insert_stage(&for_loop.body, location.position, stage);
            stmt.with_kind(StmtKind::For(new_loop))
        }
        _ => stmt,
    }
}

/// TVM's `CacheReadRewriter`: consumers read the cache, the stage is inserted.
struct CacheReadRewriter<'a> {
    scope: NodeId,
    location: &'a StageLocation,
    stage: Stmt,
    read_buffer: Buffer,
    cache: Buffer,
    /// The consumers given (with their child blocks); every reader when empty.
    consumers: Vec<NodeId>,
    offsets: Option<Vec<Expr>>,
    /// Whether the block entered last is one of the consumers (TVM keeps
    /// this flag across nested blocks).
    current_consumes: bool,
}

impl Mutator for CacheReadRewriter<'_> {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let new_stmt = mutate_stmt_children(self, stmt);
        place_stage_in_loop(new_stmt, self.location, &self.stage)
    }
    fn mutate_block(&mut self, block: &Block) -> Block {
        let is_consumer = self.consumers.is_empty() || self.consumers.contains(&block.id);
        self.current_consumes = is_consumer;
        if block.id != self.scope && block.writes.iter().any(|w| w.buffer == self.read_buffer) {
            return block.clone();
        }
        let mut new_block = mutate_block_children(self, block);
        place_stage(
            &mut new_block,
            self.scope,
            self.location,
            &self.stage,
            Some(&self.cache),
        );
        if block.id != self.scope && is_consumer {
            new_block.reads = redirect_regions(
                &new_block.reads,
                &self.read_buffer,
                &self.cache,
                self.offsets.as_ref(),
            );
            for m in &mut new_block.match_buffers {
                m.source = redirect_regions(
                    std::slice::from_ref(&m.source),
                    &self.read_buffer,
                    &self.cache,
                    self.offsets.as_ref(),
                )
                .remove(0);
            }
        }
        new_block
    }
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Load(load) = expr.kind() {
            if load.buffer == self.read_buffer && self.current_consumes {
                let indices: Vec<Expr> = load.indices.iter().map(|i| self.mutate_expr(i)).collect();
                return Expr::load(&self.cache, shift_indices(&indices, self.offsets.as_ref()));
            }
        }
        // An opaque access (`T.call_extern(..., A.data)`, `T.tvm_access_ptr`)
        // goes to the cache too, as in TVM.
        if let ExprKind::Var(var) = expr.kind() {
            if var == self.read_buffer.data() && self.current_consumes {
                return self.cache.data().to_expr();
            }
        }
        mutate_expr_children(self, expr)
    }
}

/// TVM's `CacheWriteRewriter`: the writer (and what is under it) and the
/// consumers given write and read the cache, the stage is inserted.
struct CacheWriteRewriter<'a> {
    scope: NodeId,
    writer: NodeId,
    location: &'a StageLocation,
    stage: Stmt,
    write_buffer: Buffer,
    cache: Buffer,
    consumers: Vec<NodeId>,
    offsets: Option<Vec<Expr>>,
    under_writer: bool,
    /// Whether the scope allocates the cache (`cache_inplace` made it already).
    allocate: bool,
}

impl CacheWriteRewriter<'_> {
    fn redirect(&self, block: &mut Block, original: &Block) {
        block.writes = redirect_regions(
            &original.writes,
            &self.write_buffer,
            &self.cache,
            self.offsets.as_ref(),
        );
        block.reads = redirect_regions(
            &original.reads,
            &self.write_buffer,
            &self.cache,
            self.offsets.as_ref(),
        );
        for (m, old) in block.match_buffers.iter_mut().zip(&original.match_buffers) {
            m.source = redirect_regions(
                std::slice::from_ref(&old.source),
                &self.write_buffer,
                &self.cache,
                self.offsets.as_ref(),
            )
            .remove(0);
        }
    }
}

impl Mutator for CacheWriteRewriter<'_> {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        if let StmtKind::BufferStore(store) = stmt.kind() {
            let new_stmt = mutate_stmt_children(self, stmt);
            if store.buffer == self.write_buffer {
                let StmtKind::BufferStore(new_store) = new_stmt.kind() else {
                    return new_stmt;
                };
                return Stmt::store(
                    &self.cache,
                    new_store.value.clone(),
                    shift_indices(&new_store.indices, self.offsets.as_ref()),
                );
            }
            return new_stmt;
        }
        let new_stmt = mutate_stmt_children(self, stmt);
        place_stage_in_loop(new_stmt, self.location, &self.stage)
    }
    fn mutate_block(&mut self, block: &Block) -> Block {
        // The writer listed among the consumers goes the writer's way, so the
        // blocks inside it (a blockized init's) are redirected too.
        let in_writer = block.id == self.writer || self.under_writer;
        if self.consumers.contains(&block.id) && !in_writer {
            let mut new_block = mutate_block_children(self, block);
            self.redirect(&mut new_block, block);
            return new_block;
        }
        if block.id != self.writer && block.id != self.scope && !self.under_writer {
            return block.clone();
        }
        let under = self.under_writer || block.id == self.writer;
        let saved = std::mem::replace(&mut self.under_writer, under);
        let mut new_block = mutate_block_children(self, block);
        self.under_writer = saved;
        place_stage(
            &mut new_block,
            self.scope,
            self.location,
            &self.stage,
            self.allocate.then_some(&self.cache),
        );
        if block.id != self.scope {
            self.redirect(&mut new_block, block);
        }
        new_block
    }
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Load(load) = expr.kind() {
            if load.buffer == self.write_buffer {
                let indices: Vec<Expr> = load.indices.iter().map(|i| self.mutate_expr(i)).collect();
                return Expr::load(&self.cache, shift_indices(&indices, self.offsets.as_ref()));
            }
        }
        if let ExprKind::Var(var) = expr.kind() {
            if var == self.write_buffer.data() {
                return self.cache.data().to_expr();
            }
        }
        mutate_expr_children(self, expr)
    }
}

/// The caching primitives' descriptors.
pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        name: "cache_inplace",
        aliases: &[],
        params: &[
            required("block"),
            typed("read_buffer_index", "int"),
            typed("storage_scope", "str"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "For a block that reads and writes its `read_buffer_index`-th read buffer (an in-place update): a stage copying what it reads into a `storage_scope` cache just before it and one copying what it writes back just after it, in its innermost loop; the block works on the cache. Returns the two stages.",
        apply: apply_cache_inplace,
    },
    Primitive {
        name: "cache_read",
        aliases: &[],
        params: &[
            required("block"),
            typed("read_buffer_index", "int"),
            typed("storage_scope", "str"),
            optional("consumer_blocks", "None"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Adds a block `A_shared` that copies the block's `read_buffer_index`-th read buffer into a new buffer in `storage_scope`, before its first consumer, and makes the consumers (all readers, or `consumer_blocks`) read the copy. Returns the new block.",
        apply: apply_cache_read,
    },
    Primitive {
        name: "cache_write",
        aliases: &[],
        params: &[
            required("block"),
            typed("write_buffer_index", "int"),
            typed("storage_scope", "str"),
            optional("consumer_blocks", "None"),
        ],
        varargs: None,
        keyword_only: &[],
        doc: "Makes the block write its `write_buffer_index`-th buffer into a new buffer in `storage_scope` (`C_local`) and adds a block that copies it back, before the first consumer. Returns the new block.",
        apply: apply_cache_write,
    },
];

fn apply_cache_inplace(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let index = run.int_arg(bound, 1, "read_buffer_index", None)?;
    let scope = run.expect_str(bound, 2, "storage_scope")?;
    let stages =
        cache_inplace(run.state, block, index, &scope).map_err(|e| run.refused(bound, e))?;
    let (rvs, value) = run.new_rvs(SRefKind::Block, &stages);
    run.record(
        "cache_inplace",
        vec![
            (Some("block"), TraceArg::Rv(block_rv)),
            (Some("read_buffer_index"), TraceArg::Int(index)),
            (Some("storage_scope"), TraceArg::Str(scope)),
        ],
        Outputs::List(rvs),
    );
    Ok(value)
}

fn apply_cache_read(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_cache(run, bound, "cache_read", "read_buffer_index", cache_read)
}

fn apply_cache_write(run: &mut Interpreter<'_>, bound: &Bound<'_>) -> Eval<Value> {
    apply_cache(run, bound, "cache_write", "write_buffer_index", cache_write)
}

fn apply_cache(
    run: &mut Interpreter<'_>,
    bound: &Bound<'_>,
    name: &'static str,
    index_param: &'static str,
    primitive: fn(&mut ScheduleState, NodeId, i64, &str, &[NodeId]) -> ScheduleResult<NodeId>,
) -> Eval<Value> {
    let (block_rv, block) = run.block_arg(bound, 0, "block", true)?;
    let index = run.int_arg(bound, 1, index_param, None)?;
    let scope = run.expect_str(bound, 2, "storage_scope")?;
    let (consumers, consumers_trace) = run.block_list_arg(bound, 3, "consumer_blocks")?;
    let stage = primitive(run.state, block, index, &scope, &consumers)
        .map_err(|e| run.refused(bound, e))?;
    let rv = run.new_rv(SRefKind::Block, stage);
    let mut args = vec![
        (Some("block"), TraceArg::Rv(block_rv)),
        (Some(index_param), TraceArg::Int(index)),
        (Some("storage_scope"), TraceArg::Str(scope)),
    ];
    // TVM records `consumer_blocks` only when some are given.
    if let Some(TraceArg::List(items)) = consumers_trace {
        if !items.is_empty() {
            args.push((Some("consumer_blocks"), TraceArg::List(items)));
        }
    }
    run.record(name, args, Outputs::Single(rv));
    Ok(Value::Block(rv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::testing::{block_and_loops, printed, state};

    const EXTERN_UPDATE: &str = r#"
@T.prim_func
def main(A: T.Buffer((64,), "int32")):
    for i in range(1):
        with T.block("update"):
            T.reads(A[0:64])
            T.writes(A[0:64])
            T.evaluate(T.call_extern("int32", "update", A.data))
"#;

    #[test]
    fn cache_inplace_surrounds_the_block_and_redirects_its_opaque_access() {
        let mut s = state(EXTERN_UPDATE);
        let (update, _) = block_and_loops(&s, "update");
        let [read, write] = cache_inplace(&mut s, update, 0, "local").unwrap();
        let text = printed(&s);
        assert!(
            text.contains("T.call_extern(\"int32\", \"update\", A_local.data)"),
            "{text}"
        );
        assert_eq!(
            text.matches("A_local = T.alloc_buffer").count(),
            1,
            "{text}"
        );
        let written = |id| {
            let block = s.sref(id).unwrap().as_block().unwrap();
            (
                block.reads[0].buffer.name().to_string(),
                block.writes[0].buffer.name().to_string(),
            )
        };
        assert_eq!(written(read), ("A".to_string(), "A_local".to_string()));
        assert_eq!(written(write), ("A_local".to_string(), "A".to_string()));
    }

    #[test]
    fn cache_inplace_of_a_buffer_only_read_is_refused_and_changes_nothing() {
        let mut s = state(crate::schedule::testing::MATMUL);
        let (c, _) = block_and_loops(&s, "C");
        let before = printed(&s);
        let error = cache_inplace(&mut s, c, 0, "local").unwrap_err();
        assert_eq!(error.code, codes::NOT_READ_MODIFY_WRITE);
        assert_eq!(before, printed(&s));
    }
}
