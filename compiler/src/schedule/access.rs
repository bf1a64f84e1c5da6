//! What the dataflow primitives share about buffers: the n-th buffer a block
//! reads or writes, where a buffer is allocated, and replacing one buffer by
//! another in a subtree (TVM's `GetNthAccessBuffer`, `GetBufferDefiningSite`
//! and `ReplaceBufferMutator`).

use super::error::{codes, ScheduleError, ScheduleResult};
use super::scope::DepKind;
use super::state::{SRefKind, ScheduleState};
use crate::ir::buffer::is_known_scope;
use crate::ir::mutate::{mutate_block_children, Mutator};
use crate::ir::{Block, Buffer, NodeId};

/// Whether a primitive names a buffer among a block's reads or its writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// `T.reads`.
    Read,
    /// `T.writes`.
    Write,
}

impl AccessKind {
    /// The verb for a block doing this access: "reads" or "writes".
    pub fn noun(self) -> &'static str {
        match self {
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
        }
    }

    /// The block's regions of this kind (`T.reads` or `T.writes`).
    pub fn regions(self, block: &crate::ir::Block) -> &Vec<crate::ir::BufferRegion> {
        match self {
            AccessKind::Read => &block.reads,
            AccessKind::Write => &block.writes,
        }
    }
}

/// The buffer of the `index`-th region a block reads or writes.
pub fn nth_access_buffer(
    state: &ScheduleState,
    block: NodeId,
    index: i64,
    kind: AccessKind,
) -> ScheduleResult<Buffer> {
    let sref = state.sref(block).ok_or_else(removed)?;
    let realize = sref.as_realize().ok_or_else(removed)?;
    let regions = kind.regions(&realize.block);
    let found = usize::try_from(index).ok().and_then(|i| regions.get(i));
    match found {
        Some(region) => Ok(region.buffer.clone()),
        None => {
            let listed: Vec<String> = regions
                .iter()
                .enumerate()
                .map(|(i, r)| format!("{i}: `{}`", r.buffer.name()))
                .collect();
            let error = ScheduleError::new(
                codes::BUFFER_INDEX,
                format!(
                    "{} {} {} buffer{}, so there is no buffer {index}",
                    sref.describe(),
                    kind.noun(),
                    regions.len(),
                    if regions.len() == 1 { "" } else { "s" }
                ),
                if listed.is_empty() {
                    format!("the block {} nothing", kind.noun())
                } else {
                    format!("pass one of {}", listed.join(", "))
                },
            )
            .blame(
                sref.location(),
                format!("`T.{}` of this block", kind.noun()),
            );
            Err(error)
        }
    }
}

/// Refuses a storage scope tirc does not know.
pub fn check_storage_scope(scope: &str) -> ScheduleResult<()> {
    // TVM also takes the empty scope (as global) and any `texture*` scope;
    // tirc refuses both: nothing downstream lowers them, and "" names the
    // cache `A_`.
    if is_known_scope(scope) {
        return Ok(());
    }
    Err(ScheduleError::new(
        codes::BAD_STORAGE_SCOPE,
        format!("`{scope}` is not a storage scope"),
        "use \"global\", \"shared\", \"shared.dyn\", \"local\", \"warp\" or a `wmma.*` scope",
    ))
}

/// The block that allocates `buffer` (in its `alloc_buffers`), looking at
/// `block` and its ancestors; `None` for a function parameter or a buffer a
/// block matches with `match_buffer`.
pub fn allocation_site(state: &ScheduleState, block: NodeId, buffer: &Buffer) -> Option<NodeId> {
    std::iter::once(block)
        .chain(state.ancestors(block))
        .find(|id| {
            state
                .sref(*id)
                .filter(|s| s.kind == SRefKind::Block)
                .and_then(|s| s.as_block())
                .is_some_and(|b| b.alloc_buffers.contains(buffer))
        })
}

/// Refuses a buffer that no block allocates.
pub fn require_allocated(
    state: &ScheduleState,
    block: NodeId,
    buffer: &Buffer,
) -> ScheduleResult<NodeId> {
    allocation_site(state, block, buffer).ok_or_else(|| {
        ScheduleError::new(
            codes::NOT_ALLOCATED,
            format!(
                "`{}` is not allocated by a block: it is a function parameter or a `match_buffer`",
                buffer.name()
            ),
            "only buffers a block allocates (`T.alloc_buffer`) can change scope or alignment; cache it with `sch.cache_read`/`sch.cache_write` instead",
        )
        .blame(buffer.span(), format!("`{}` is declared here", buffer.name()))
    })
}

/// Replaces one buffer by another wherever a subtree uses it: loads, stores,
/// regions, allocations and the sources of `match_buffer`s.
pub struct ReplaceBuffer {
    /// The buffer replaced.
    pub from: Buffer,
    /// What replaces it.
    pub to: Buffer,
}

impl Mutator for ReplaceBuffer {
    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        if *buffer == self.from {
            self.to.clone()
        } else {
            buffer.clone()
        }
    }
    fn mutate_block(&mut self, block: &Block) -> Block {
        let mut new_block = mutate_block_children(self, block);
        for allocated in &mut new_block.alloc_buffers {
            if *allocated == self.from {
                *allocated = self.to.clone();
            }
        }
        new_block
    }
}

/// The scope root of a block (TVM's `GetScopeRoot`); the root block has none.
pub fn scope_root_of(state: &ScheduleState, block: NodeId) -> ScheduleResult<NodeId> {
    state.scope_root(block).ok_or_else(|| {
        let mut error = ScheduleError::new(
            codes::ROOT_BLOCK,
            "the root block has no scope around it",
            "pass a block inside the function body",
        )
        .at_argument(0);
        if let Some(sref) = state.sref(block) {
            error = error.blame(sref.location(), "the root block");
        }
        error
    })
}

/// The scope root of a block, which must be a stage pipeline.
pub(crate) fn stage_pipeline_scope(state: &ScheduleState, block: NodeId) -> ScheduleResult<NodeId> {
    let scope = scope_root_of(state, block)?;
    if !state.block_flags(scope).is_some_and(|f| f.stage_pipeline) {
        let sref = state.sref(scope).ok_or_else(removed)?;
        if let Some(why) = state.flags_cleared_why(scope) {
            return Err(ScheduleError::new(
                codes::NOT_STAGE_PIPELINE,
                format!(
                    "{} is not a stage pipeline {why}, and TVM then treats the scope as new, with every flag cleared",
                    sref.describe()
                ),
                "apply this step before that transform_layout, or transform the buffer without `pad_value`",
            )
            .blame(sref.location(), "this scope"));
        }
        // Say which rule failed: a child whose producers do not cover what
        // it reads, or (when every child is covered) a write after a read.
        let uncovered = state
            .child_blocks(scope)
            .into_iter()
            .find(|child| state.block_flags(*child).is_some_and(|f| !f.region_cover));
        let write_after_read = state.block_info(scope).and_then(|info| {
            let dep = info
                .scope
                .dependencies
                .iter()
                .find(|d| d.kind == DepKind::WriteAfterRead)?;
            Some((state.sref(dep.src)?, state.sref(dep.dst)?))
        });
        let why = match (
            uncovered.and_then(|child| state.sref(child)),
            &write_after_read,
        ) {
            (Some(child), _) => format!(
                "{} reads part of a buffer that the blocks before it do not produce",
                child.describe()
            ),
            (None, Some((reader, writer))) => format!(
                "{} overwrites a buffer that {} read before it",
                writer.describe(),
                reader.describe()
            ),
            (None, None) => "a block overwrites what an earlier one read".to_string(),
        };
        let mut error = ScheduleError::new(
            codes::NOT_STAGE_PIPELINE,
            format!(
                "the blocks of {} are not a stage pipeline: {why}",
                sref.describe()
            ),
            "this primitive moves work between producers and consumers, which needs each buffer written before it is read",
        )
        .blame(sref.location(), "this scope");
        if let Some(child) = uncovered.and_then(|child| state.sref(child)) {
            error = error.blame(
                child.location(),
                "this block reads what is not produced before it",
            );
        } else if let Some((reader, writer)) = write_after_read {
            error = error
                .blame(writer.location(), "this block then overwrites it")
                .blame(reader.location(), "this block reads the buffer first");
        }
        return Err(error);
    }
    Ok(scope)
}

/// Whether `buffer` is an output of the scope `scope` holding `block`: a
/// function parameter (in the root scope) or a buffer the scope does not
/// allocate.
pub(crate) fn is_scope_output(
    state: &ScheduleState,
    block: NodeId,
    scope: NodeId,
    buffer: &Buffer,
) -> ScheduleResult<bool> {
    let scope_sref = state.sref(scope).ok_or_else(removed)?;
    Ok(if scope_sref.parent.is_none() {
        state
            .function_of(block)
            .is_some_and(|f| f.buffer_map.iter().any(|(_, b)| b == buffer))
    } else {
        !scope_sref
            .as_block()
            .is_some_and(|b| b.alloc_buffers.contains(buffer))
    })
}

/// TVM's `CheckNotOutputBlock`: the block writes a function parameter (in
/// the root scope) or a buffer its scope does not allocate.
pub(crate) fn check_not_output(
    state: &ScheduleState,
    block: NodeId,
    scope: NodeId,
    buffer: &Buffer,
    primitive: &str,
) -> ScheduleResult<()> {
    if is_scope_output(state, block, scope, buffer)? {
        let sref = state.sref(block).ok_or_else(removed)?;
        return Err(ScheduleError::new(
            codes::OUTPUT_BLOCK,
            format!(
                "{} writes `{}`, an output of its scope, so {primitive} cannot move it",
                sref.describe(),
                buffer.name()
            ),
            if primitive == "compute_inline" {
                "inline the blocks that compute intermediate buffers; to fold a consumer of the output's producer into it, use `sch.reverse_compute_inline` on the consumer"
            } else {
                "move the output block's producers under its loops instead: `sch.reverse_compute_at` on this block, or `sch.compute_at` on a producer"
            },
        )
        .blame(sref.location(), "writes an output")
        .blame(buffer.span(), format!("`{}` is declared here", buffer.name()))
        .at_argument(0));
    }
    Ok(())
}

fn removed() -> ScheduleError {
    ScheduleError::new(
        codes::REMOVED_HANDLE,
        "the block is no longer in the program",
        "get it again",
    )
}
