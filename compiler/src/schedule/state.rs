//! The schedule state: the module being scheduled, where every loop and block
//! sits (its sref), the cached block information, and `replace`, the one
//! operation through which a primitive changes the program.
//!
//! Loops and blocks are named by their [`NodeId`], which survives rewrites
//! that keep "the same" loop or block (a reorder moves loops; a split keeps the
//! block under it). A primitive builds the new subtree, then calls
//! [`ScheduleState::replace`] once, at its very end: a primitive that refuses
//! returns before that call, so a refused step leaves the program exactly as
//! it was.

use super::scope::{blocks_of, compute_block_flags, compute_block_infos, BlockFlags, BlockInfo};
use crate::arith::Analyzer;
use crate::ir::{Block, BlockRealize, Buffer, For, IRModule, NodeId, PrimFunc, Stmt, StmtKind};
use crate::source::Span;
use std::cell::OnceCell;

pub use crate::ir::identity::{NodeMap, NodeSet};

/// Whether an sref is a loop or a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SRefKind {
    /// A `for` loop.
    Loop,
    /// A block (its realize: bindings and predicate included).
    Block,
}

impl SRefKind {
    /// `loop` or `block`, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            SRefKind::Loop => "loop",
            SRefKind::Block => "block",
        }
    }
}

/// Where a loop or block sits in the program: TVM's `StmtSRef`.
#[derive(Clone, Debug)]
pub struct SRef {
    /// Loop or block.
    pub kind: SRefKind,
    /// The index of the function in the module.
    pub function: usize,
    /// The closest enclosing loop or block; `None` for a function's root block.
    pub parent: Option<NodeId>,
    /// The loops and blocks directly below, in program order.
    pub children: Vec<NodeId>,
    /// The `For` statement of a loop, or the `BlockRealize` statement of a block.
    pub stmt: Stmt,
}

impl SRef {
    /// The loop, for loop srefs.
    pub fn as_for(&self) -> Option<&For> {
        self.stmt.as_for()
    }
    /// The block realize, for block srefs.
    pub fn as_realize(&self) -> Option<&BlockRealize> {
        self.stmt.as_block_realize()
    }
    /// The block, for block srefs.
    pub fn as_block(&self) -> Option<&Block> {
        self.as_realize().map(|r| &r.block)
    }
    /// Where the loop or block is written in the program.
    pub fn span(&self) -> Span {
        self.stmt.span()
    }
    /// A short span that names the loop or block in the program, for
    /// diagnostics: the loop variable where the loop defines it (for a loop
    /// made by a primitive, the variable of the loop it came from), or the
    /// `with` keyword that opens a block.
    pub fn location(&self) -> Span {
        let span = self.stmt.span();
        match self.stmt.kind() {
            StmtKind::For(f) if f.loop_var.span().is_known() => f.loop_var.span(),
            StmtKind::For(_) if span.is_known() => {
                Span::new(span.file, span.start, (span.start + 3).min(span.end))
            }
            StmtKind::BlockRealize(_) if span.is_known() => {
                Span::new(span.file, span.start, (span.start + 4).min(span.end))
            }
            _ => span,
        }
    }

    /// `loop \`i\`` or `block \`C\``, for messages.
    pub fn describe(&self) -> String {
        match self.stmt.kind() {
            StmtKind::For(f) => format!("loop `{}`", f.loop_var.name()),
            StmtKind::BlockRealize(r) => format!("block `{}`", r.block.name),
            _ => "statement".to_string(),
        }
    }
}

/// A loop or block a step removed, as it was before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovedNode {
    /// The (1-based) number of the step that removed it.
    pub step: usize,
    /// Where it was in the program.
    pub span: Span,
    /// `loop \`i\`` or `block \`C\``.
    pub description: String,
}

/// Why a handle no longer names a loop or block of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// A step removed it.
    Removed(RemovedNode),
    /// It was never part of this program.
    Unknown,
}

/// The program being scheduled and everything known about its loops and blocks.
///
/// Block scopes and dependences are computed per function on first use after
/// a change and cached until the next change. Block flags follow TVM: they
/// describe the program as it was before its first change.
#[derive(Clone, Debug)]
pub struct ScheduleState {
    module: IRModule,
    /// The srefs of each function's loops and blocks.
    srefs: Vec<NodeMap<SRef>>,
    /// An emptied map kept for the next re-index, so that a step allocates
    /// no new table.
    spare_srefs: NodeMap<SRef>,
    /// Emptied children lists of replaced srefs, reused by the next re-index.
    spare_children: Vec<Vec<NodeId>>,
    /// The loops and blocks of each function, in program order.
    function_nodes: Vec<Vec<NodeId>>,
    /// The root block of each function, when it has one.
    function_roots: Vec<Option<NodeId>>,
    /// The information of the blocks of each function, computed when first
    /// asked for after the function last changed.
    block_info: Vec<OnceCell<NodeMap<BlockInfo>>>,
    /// The flags of each function's blocks, computed when first asked for
    /// or just before the function first changes, whichever comes first, and
    /// then kept (see [`BlockFlags`]).
    block_flags: Vec<OnceCell<NodeMap<BlockFlags>>>,
    removed: NodeMap<RemovedNode>,
    /// Why a step cleared a block's flags, for the refusals that read them.
    flags_cleared: NodeMap<String>,
    /// The number of the step being applied, recorded against what it removes.
    current_step: usize,
    /// The tensor intrinsics the program registers (the stdlib's are found
    /// apart).
    tensor_intrinsics: std::sync::Arc<Vec<crate::ir::TensorIntrin>>,
    /// The seed sampling instructions draw from.
    seed: u64,
}

/// The seed of a schedule that names none (TVM's default is -1, "from the
/// clock"; tirc stays reproducible).
pub const DEFAULT_SEED: u64 = 1;

impl ScheduleState {
    /// The state of a module before any step.
    pub fn new(module: IRModule) -> ScheduleState {
        let count = module.functions.len();
        let mut state = ScheduleState {
            module,
            srefs: vec![NodeMap::default(); count],
            spare_srefs: NodeMap::default(),
            spare_children: Vec::new(),
            function_nodes: vec![Vec::new(); count],
            function_roots: vec![None; count],
            block_info: vec![OnceCell::new(); count],
            block_flags: vec![OnceCell::new(); count],
            removed: NodeMap::default(),
            flags_cleared: NodeMap::default(),
            current_step: 0,
            tensor_intrinsics: Default::default(),
            seed: DEFAULT_SEED,
        };
        for function in 0..count {
            state.index_function(function);
        }
        state
    }

    /// The seed sampling instructions draw from (`s_tir.Schedule(..., seed=)`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Sets the seed sampling instructions draw from.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Makes the program's own tensor intrinsics known to `tensorize`.
    pub fn set_tensor_intrinsics(&mut self, intrinsics: Vec<crate::ir::TensorIntrin>) {
        self.tensor_intrinsics = std::sync::Arc::new(intrinsics);
    }

    /// The program's own tensor intrinsics.
    pub fn tensor_intrinsics(&self) -> std::sync::Arc<Vec<crate::ir::TensorIntrin>> {
        self.tensor_intrinsics.clone()
    }

    /// The module as it is now.
    pub fn module(&self) -> &IRModule {
        &self.module
    }

    /// Sets the number of the step being applied (1-based), so that what a
    /// replace removes is recorded against it.
    pub fn begin_step(&mut self, step: usize) {
        self.current_step = step;
    }

    /// The sref of a live loop or block.
    pub fn sref(&self, id: NodeId) -> Option<&SRef> {
        // Modules hold few functions: looking in each map is cheaper than
        // keeping one more map up to date.
        self.srefs.iter().find_map(|map| map.get(&id))
    }

    /// The sref of a live loop or block, or why there is none.
    pub fn lookup(&self, id: NodeId) -> Result<&SRef, Missing> {
        match self.sref(id) {
            Some(sref) => Ok(sref),
            None => Err(match self.removed.get(&id) {
                Some(node) => Missing::Removed(node.clone()),
                None => Missing::Unknown,
            }),
        }
    }

    /// The cached information of a block.
    pub fn block_info(&self, block: NodeId) -> Option<&BlockInfo> {
        let function = self.sref(block)?.function;
        self.block_info
            .get(function)?
            .get_or_init(|| compute_block_infos(self, function))
            .get(&block)
    }

    /// The flags of a block: for a block of the original program, as they
    /// were before its function first changed; for a block a step created,
    /// all false (as TVM leaves them until a primitive recomputes its scope).
    pub fn block_flags(&self, block: NodeId) -> Option<BlockFlags> {
        let function = self.sref(block)?.function;
        let flags = self.function_block_flags(function)?;
        Some(flags.get(&block).copied().unwrap_or(BlockFlags {
            affine_binding: false,
            region_cover: false,
            stage_pipeline: false,
        }))
    }

    /// The affine-binding flag of a block (see [`ScheduleState::block_flags`]);
    /// false for a block not in the program.
    pub fn affine_binding(&self, block: NodeId) -> bool {
        self.block_flags(block).is_some_and(|f| f.affine_binding)
    }

    fn function_block_flags(&self, function: usize) -> Option<&NodeMap<BlockFlags>> {
        Some(
            self.block_flags
                .get(function)?
                .get_or_init(|| compute_block_flags(self, &blocks_of(self, function))),
        )
    }

    /// The function a loop or block belongs to.
    pub fn function_of(&self, id: NodeId) -> Option<&PrimFunc> {
        let sref = self.sref(id)?;
        self.module.functions.get(sref.function)
    }

    /// The index of the function with this name.
    pub fn function_index(&self, name: &str) -> Option<usize> {
        self.module.functions.iter().position(|f| f.name == name)
    }

    /// The root block of a function.
    pub fn root_block(&self, function: usize) -> Option<NodeId> {
        self.function_roots.get(function).copied().flatten()
    }

    /// The loops and blocks of a function in program order (pre-order).
    pub fn nodes_of_function(&self, function: usize) -> &[NodeId] {
        self.function_nodes
            .get(function)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The ancestors of a loop or block, nearest first.
    pub fn ancestors(&self, id: NodeId) -> Vec<NodeId> {
        let mut result = Vec::new();
        let mut current = self.sref(id).and_then(|s| s.parent);
        while let Some(parent) = current {
            result.push(parent);
            current = self.sref(parent).and_then(|s| s.parent);
        }
        result
    }

    /// An analyzer that knows the range of every loop variable and block
    /// iterator from `id` (inclusive) up to the root.
    pub fn analyzer_at(&self, id: NodeId) -> Analyzer {
        let mut analyzer = Analyzer::new();
        let mut current = Some(id);
        while let Some(sref) = current.and_then(|id| self.sref(id)) {
            if let Some(for_loop) = sref.as_for() {
                analyzer.bind(&for_loop.loop_var, &for_loop.range());
            }
            if let Some(block) = sref.as_block() {
                for iter_var in &block.iter_vars {
                    analyzer.bind(&iter_var.var, &iter_var.dom);
                }
            }
            current = sref.parent;
        }
        analyzer
    }

    /// TVM's `AddShapeVarBounds`: marks every extent of the parameter
    /// buffers of `id`'s function non-negative in `analyzer`.
    pub fn mark_shape_vars_non_negative(&self, id: NodeId, analyzer: &mut Analyzer) {
        let Some(function) = self.function_of(id) else {
            return;
        };
        for (_, buffer) in &function.buffer_map {
            for extent in buffer.shape() {
                analyzer.mark_global_non_negative(extent);
            }
        }
    }

    /// The loops between a loop or block and its closest enclosing block,
    /// outermost first (TVM's `GetLoops`).
    pub fn enclosing_loops(&self, id: NodeId) -> Vec<NodeId> {
        let mut loops = Vec::new();
        let mut current = self.sref(id).and_then(|s| s.parent);
        while let Some(parent) = current {
            let Some(sref) = self.sref(parent) else {
                break;
            };
            if sref.kind != SRefKind::Loop {
                break;
            }
            loops.push(parent);
            current = sref.parent;
        }
        loops.reverse();
        loops
    }

    /// The closest enclosing block of a loop or block (its scope root).
    pub fn scope_root(&self, id: NodeId) -> Option<NodeId> {
        self.ancestors(id)
            .into_iter()
            .find(|a| self.sref(*a).map(|s| s.kind) == Some(SRefKind::Block))
    }

    /// The blocks directly under a loop or block, not looking inside blocks
    /// (TVM's `GetChildBlockSRefOnSRefTree`), in program order.
    pub fn child_blocks(&self, id: NodeId) -> Vec<NodeId> {
        let mut result = Vec::new();
        let mut pending: Vec<NodeId> = match self.sref(id) {
            Some(sref) => sref.children.iter().rev().copied().collect(),
            None => return result,
        };
        while let Some(next) = pending.pop() {
            let Some(sref) = self.sref(next) else {
                continue;
            };
            match sref.kind {
                SRefKind::Block => result.push(next),
                SRefKind::Loop => pending.extend(sref.children.iter().rev().copied()),
            }
        }
        result
    }

    /// Every block below a loop or block, nested ones included, in program order.
    pub fn descendant_blocks(&self, id: NodeId) -> Vec<NodeId> {
        let mut result = Vec::new();
        let mut pending: Vec<NodeId> = match self.sref(id) {
            Some(sref) => sref.children.iter().rev().copied().collect(),
            None => return result,
        };
        while let Some(next) = pending.pop() {
            let Some(sref) = self.sref(next) else {
                continue;
            };
            if sref.kind == SRefKind::Block {
                result.push(next);
            }
            pending.extend(sref.children.iter().rev().copied());
        }
        result
    }

    /// Replaces the loop or block `target` by `new_stmt` (a loop, a block
    /// realize, or a loop nest around one), then re-indexes the function.
    /// Loops and blocks that no longer exist are recorded as removed by the
    /// current step. Returns what changed, or `None`, changing nothing, when
    /// `target` is not live.
    ///
    /// As in TVM, loops and blocks that keep their id keep their flags, and a
    /// new block gets all-false flags until its primitive sets them
    /// ([`ScheduleState::set_block_flags`]) or recomputes its scope
    /// ([`ScheduleState::update_scope_flags`]).
    pub fn replace(&mut self, target: NodeId, new_stmt: Stmt) -> Option<Replaced> {
        let function = self.sref(target)?.function;
        // The flags describe the program before its first change (TVM's rule).
        self.function_block_flags(function);
        let mut path: NodeSet = self.ancestors(target).into_iter().collect();
        path.insert(target);
        let func = self.module.functions.get(function)?;
        let new_body = replace_in(&func.body, target, &new_stmt, &path)?;
        self.module.functions[function].body = new_body;
        Some(self.index_function(function))
    }

    /// Binds a function's buffer parameter to another buffer (a layout
    /// transformation of a parameter changes the signature).
    pub fn replace_parameter_buffer(&mut self, function: usize, from: &Buffer, to: Buffer) {
        if let Some(func) = self.module.functions.get_mut(function) {
            for (_, buffer) in func.buffer_map.iter_mut().filter(|(_, b)| b == from) {
                *buffer = to.clone();
            }
        }
    }

    /// Sets the flags of a block, as a primitive does for a block it creates
    /// or moves.
    pub fn set_block_flags(&mut self, block: NodeId, flags: BlockFlags) {
        let Some(function) = self.sref(block).map(|s| s.function) else {
            return;
        };
        self.function_block_flags(function);
        if let Some(map) = self.block_flags[function].get_mut() {
            map.insert(block, flags);
        }
        self.flags_cleared.remove(&block);
    }

    /// Clears every flag of a block, as TVM does for a scope block it
    /// rebuilds; `why` is kept, with the step, for the refusals it causes.
    pub fn clear_block_flags(&mut self, block: NodeId, why: String) {
        self.set_block_flags(block, BlockFlags::default());
        let why = format!("since step {}: {why}", self.current_step);
        self.flags_cleared.insert(block, why);
    }

    /// Why a step cleared a block's flags ([`ScheduleState::clear_block_flags`]).
    pub fn flags_cleared_why(&self, block: NodeId) -> Option<&str> {
        self.flags_cleared.get(&block).map(String::as_str)
    }

    /// Recomputes the flags of a block and every block under it from the
    /// program as it is now (TVM's `UpdateScopeBlockInfo`), for primitives
    /// that rebuild a whole scope.
    pub fn update_scope_flags(&mut self, scope: NodeId) {
        let Some(function) = self.sref(scope).map(|s| s.function) else {
            return;
        };
        self.function_block_flags(function);
        let mut blocks = vec![scope];
        blocks.extend(self.descendant_blocks(scope));
        let flags = compute_block_flags(self, &blocks);
        for block in &blocks {
            self.flags_cleared.remove(block);
        }
        if let Some(map) = self.block_flags[function].get_mut() {
            map.extend(flags);
        }
    }

    /// Rebuilds the srefs of one function and forgets its cached block
    /// scopes (not its flags); records what is gone as removed by the current
    /// step, and returns what is gone and what is new.
    fn index_function(&mut self, function: usize) -> Replaced {
        let body = self.module.functions[function].body.clone();
        let capacity = self.srefs[function].len();
        let mut new_srefs = std::mem::take(&mut self.spare_srefs);
        new_srefs.clear();
        let mut indexer = Indexer {
            function,
            srefs: &mut new_srefs,
            order: Vec::with_capacity(capacity),
            spare_children: &mut self.spare_children,
        };
        let mut roots = Vec::new();
        indexer.visit(&body, None, &mut roots);
        let order = indexer.order;
        self.function_roots[function] = match body.kind() {
            StmtKind::BlockRealize(realize) => Some(realize.block.id),
            _ => None,
        };
        let mut old_srefs = std::mem::replace(&mut self.srefs[function], new_srefs);
        let mut report = Replaced {
            removed: Vec::new(),
            added: order
                .iter()
                .copied()
                .filter(|id| !old_srefs.contains_key(id))
                .collect(),
        };
        for (id, mut sref) in old_srefs.drain() {
            sref.children.clear();
            self.spare_children.push(std::mem::take(&mut sref.children));
            if !self.srefs[function].contains_key(&id) {
                report.removed.push(id);
                self.removed.insert(
                    id,
                    RemovedNode {
                        step: self.current_step,
                        span: sref.location(),
                        description: sref.describe(),
                    },
                );
            }
        }
        self.spare_srefs = old_srefs;
        self.function_nodes[function] = order;
        self.block_info[function] = OnceCell::new();
        report
    }
}

/// What a [`ScheduleState::replace`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replaced {
    /// The loops and blocks no longer in the program.
    pub removed: Vec<NodeId>,
    /// The loops and blocks new in the program, in program order.
    pub added: Vec<NodeId>,
}

/// Builds srefs by walking a function body.
struct Indexer<'a> {
    function: usize,
    srefs: &'a mut NodeMap<SRef>,
    order: Vec<NodeId>,
    spare_children: &'a mut Vec<Vec<NodeId>>,
}

impl Indexer<'_> {
    /// Visits `stmt` under `parent`, appending the loops and blocks found
    /// directly (not inside another loop or block) to `found`.
    fn visit(&mut self, stmt: &Stmt, parent: Option<NodeId>, found: &mut Vec<NodeId>) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                let id = for_loop.id;
                self.order.push(id);
                found.push(id);
                let mut children = self.spare_children.pop().unwrap_or_default();
                self.visit(&for_loop.body, Some(id), &mut children);
                self.srefs.insert(
                    id,
                    SRef {
                        kind: SRefKind::Loop,
                        function: self.function,
                        parent,
                        children,
                        stmt: stmt.clone(),
                    },
                );
            }
            StmtKind::BlockRealize(realize) => {
                let id = realize.block.id;
                self.order.push(id);
                found.push(id);
                let mut children = self.spare_children.pop().unwrap_or_default();
                // As in TVM, the `T.init()` body holds no srefs.
                self.visit(&realize.block.body, Some(id), &mut children);
                self.srefs.insert(
                    id,
                    SRef {
                        kind: SRefKind::Block,
                        function: self.function,
                        parent,
                        children,
                        stmt: stmt.clone(),
                    },
                );
            }
            StmtKind::Seq(stmts) => {
                for inner in stmts {
                    self.visit(inner, parent, found);
                }
            }
            StmtKind::IfThenElse {
                then_case,
                else_case,
                ..
            } => {
                self.visit(then_case, parent, found);
                if let Some(else_case) = else_case {
                    self.visit(else_case, parent, found);
                }
            }
            StmtKind::LetStmt { body, .. }
            | StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Assert { body, .. }
            | StmtKind::While { body, .. } => self.visit(body, parent, found),
            StmtKind::Allocate(allocate) => self.visit(&allocate.body, parent, found),
            StmtKind::AttrStmt(attr) => self.visit(&attr.body, parent, found),
            StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => {}
        }
    }
}

/// `stmt` with the loop or block `target` replaced by `new_stmt`, rebuilding
/// only the nodes on the way to it; `None` when `target` is not below `stmt`.
/// `path` holds `target` and its ancestors, so other subtrees are skipped.
fn replace_in(stmt: &Stmt, target: NodeId, new_stmt: &Stmt, path: &NodeSet) -> Option<Stmt> {
    let rebuilt = |kind: StmtKind| Some(stmt.with_kind(kind));
    match stmt.kind() {
        StmtKind::For(for_loop) => {
            if for_loop.id == target {
                return Some(new_stmt.clone());
            }
            if !path.contains(&for_loop.id) {
                return None;
            }
            let body = replace_in(&for_loop.body, target, new_stmt, path)?;
            rebuilt(StmtKind::For(For {
                body,
                ..for_loop.clone()
            }))
        }
        StmtKind::BlockRealize(realize) => {
            if realize.block.id == target {
                return Some(new_stmt.clone());
            }
            if !path.contains(&realize.block.id) {
                return None;
            }
            let body = replace_in(&realize.block.body, target, new_stmt, path)?;
            rebuilt(StmtKind::BlockRealize(BlockRealize {
                block: Block {
                    body,
                    ..realize.block.clone()
                },
                ..realize.clone()
            }))
        }
        StmtKind::Seq(stmts) => {
            for (i, inner) in stmts.iter().enumerate() {
                if let Some(new_inner) = replace_in(inner, target, new_stmt, path) {
                    let mut new_stmts = stmts.clone();
                    new_stmts[i] = new_inner;
                    return rebuilt(StmtKind::Seq(new_stmts));
                }
            }
            None
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } => {
            if let Some(new_then) = replace_in(then_case, target, new_stmt, path) {
                return rebuilt(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case: new_then,
                    else_case: else_case.clone(),
                });
            }
            let new_else = replace_in(else_case.as_ref()?, target, new_stmt, path)?;
            rebuilt(StmtKind::IfThenElse {
                condition: condition.clone(),
                then_case: then_case.clone(),
                else_case: Some(new_else),
            })
        }
        StmtKind::LetStmt { var, value, body } => rebuilt(StmtKind::LetStmt {
            var: var.clone(),
            value: value.clone(),
            body: replace_in(body, target, new_stmt, path)?,
        }),
        StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } => rebuilt(StmtKind::AllocBuffer {
            buffer: buffer.clone(),
            annotations: annotations.clone(),
            body: replace_in(body, target, new_stmt, path)?,
        }),
        StmtKind::DeclBuffer { buffer, body } => rebuilt(StmtKind::DeclBuffer {
            buffer: buffer.clone(),
            body: replace_in(body, target, new_stmt, path)?,
        }),
        StmtKind::Assert {
            condition,
            error_kind,
            message,
            body,
        } => rebuilt(StmtKind::Assert {
            condition: condition.clone(),
            error_kind: error_kind.clone(),
            message: message.clone(),
            body: replace_in(body, target, new_stmt, path)?,
        }),
        StmtKind::While { condition, body } => rebuilt(StmtKind::While {
            condition: condition.clone(),
            body: replace_in(body, target, new_stmt, path)?,
        }),
        StmtKind::Allocate(allocate) => {
            let body = replace_in(&allocate.body, target, new_stmt, path)?;
            rebuilt(StmtKind::Allocate(crate::ir::Allocate {
                body,
                ..allocate.clone()
            }))
        }
        StmtKind::AttrStmt(attr) => {
            let body = replace_in(&attr.body, target, new_stmt, path)?;
            rebuilt(StmtKind::AttrStmt(crate::ir::AttrStmt {
                body,
                ..attr.clone()
            }))
        }
        StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::loop_transformation::{fuse, split};
    use crate::schedule::testing::{block_and_loops, state, MATMUL};

    #[test]
    fn removed_loops_name_the_step_that_removed_them() {
        let mut s = state(MATMUL);
        let (block, loops) = block_and_loops(&s, "C");
        s.begin_step(3);
        fuse(&mut s, &loops[..2], true).unwrap();
        for id in &loops[..2] {
            match s.lookup(*id) {
                Err(Missing::Removed(removed)) => {
                    assert_eq!(removed.step, 3);
                    assert!(removed.description.starts_with("loop `"));
                }
                other => panic!("expected a removed loop, found {other:?}"),
            }
        }
        assert!(s.lookup(loops[2]).is_ok());
        assert!(s.lookup(block).is_ok());
        assert_eq!(s.lookup(NodeId(u32::MAX)).unwrap_err(), Missing::Unknown);
    }

    #[test]
    fn replace_rebuilds_only_the_path_to_the_target() {
        let mut s = state(MATMUL);
        let (block, loops) = block_and_loops(&s, "C");
        let before = s.clone();
        assert!(s.replace(NodeId(u32::MAX), Stmt::no_op()).is_none());
        split(
            &mut s,
            loops[2],
            &[None, Some(crate::ir::Expr::i32(4))],
            true,
            false,
        )
        .unwrap();
        // The loops above the replaced one are rebuilt but keep their ids.
        assert_eq!(s.enclosing_loops(block).len(), 4);
        assert_eq!(s.enclosing_loops(block)[..2], loops[..2]);
        assert!(!before.module().functions[0]
            .body
            .same_as(&s.module().functions[0].body));
        assert_eq!(s.scope_root(block), s.root_block(0));
    }
}
