//! `reuse-storage`: buffers allocated together share storage when their
//! lifetimes do not overlap, as TVM's `StorageRewrite` plans memory.
//!
//! The allocations a function makes at one place (a run of nested
//! `AllocBuffer`s around a sequence of statements) are planned together. A
//! buffer whose first use comes after another's last use takes over that
//! buffer's storage; so does one written, element for element, from the
//! last reads of the other in a single statement (`B[e] = f(A[e])`, each `e`
//! written once), as in a chain of elementwise stages. The buffer that
//! takes over becomes a `DeclBuffer` on the other's data; the pair must
//! agree on dtype, scope, alignment and constant size. A buffer whose data
//! pointer is used other than by loads and stores is left alone.
//!
//! Under GPU threads (a `thread_extent` or a thread-bound loop) only
//! thread-local buffers are planned: threads run the statements without
//! waiting for one another, so one thread could still read a buffer that
//! another has already overwritten with its successor.

use super::LowerOptions;
use crate::arith::iter_map::{detect_iter_map, IterMapLevel};
use crate::arith::Analyzer;
use crate::diagnostics::Diagnostic;
use crate::ir::mutate::{mutate_stmt_children, Mutator};
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{
    Annotations, Buffer, BufferNode, DataType, Expr, ExprKind, ForKind, PrimFunc, Range, Stmt,
    StmtKind, Var, VarMap, VarSet,
};
use crate::source::Span;

/// Runs the pass on one function.
pub fn reuse_storage(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let body = Planner::default().mutate_stmt(&func.body);
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

/// Plans every run of allocations; `thread_depth` counts the GPU thread
/// scopes (launches and thread-bound loops) around the current statement.
#[derive(Default)]
struct Planner {
    thread_depth: usize,
}

impl Mutator for Planner {
    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let launches_threads = match stmt.kind() {
            StmtKind::AllocBuffer { .. } => return self.plan_allocations(stmt),
            StmtKind::AttrStmt(attr) => attr.key == "thread_extent" || attr.key == "virtual_thread",
            StmtKind::For(for_loop) => for_loop.kind == ForKind::ThreadBinding,
            _ => false,
        };
        self.thread_depth += usize::from(launches_threads);
        let rewritten = mutate_stmt_children(self, stmt);
        self.thread_depth -= usize::from(launches_threads);
        rewritten
    }
}

/// One `AllocBuffer` of a run of nested ones.
struct Allocation<'a> {
    stmt: &'a Stmt,
    buffer: &'a Buffer,
    annotations: &'a Annotations,
}

impl Planner {
    /// Plans the run of nested allocations starting at `stmt`.
    fn plan_allocations(&mut self, stmt: &Stmt) -> Stmt {
        let mut allocations = Vec::new();
        let mut inner = stmt;
        while let StmtKind::AllocBuffer {
            buffer,
            annotations,
            body,
        } = inner.kind()
        {
            allocations.push(Allocation {
                stmt: inner,
                buffer,
                annotations,
            });
            inner = body;
        }
        let original_inner = inner;
        let inner = self.mutate_stmt(inner);
        let aliases = match inner.kind() {
            StmtKind::Seq(statements) => {
                plan_sharing(&allocations, statements, self.thread_depth > 0)
            }
            _ => VarMap::default(),
        };
        if aliases.is_empty() && inner.same_as(original_inner) {
            return stmt.clone();
        }
        let mut body = if aliases.is_empty() {
            inner
        } else {
            let mut substitution = Substitution { aliases: &aliases };
            let mut body = substitution.mutate_stmt(&inner);
            for allocation in allocations.iter().rev() {
                if let Some(alias) = aliases.get(allocation.buffer.data()) {
                    body = Stmt::new(
                        StmtKind::DeclBuffer {
                            buffer: alias.clone(),
                            body,
                        },
                        allocation.stmt.span(),
                    );
                }
            }
            body
        };
        for allocation in allocations.iter().rev() {
            if aliases.contains_key(allocation.buffer.data()) {
                continue;
            }
            body = allocation.stmt.with_kind(StmtKind::AllocBuffer {
                buffer: allocation.buffer.clone(),
                annotations: allocation.annotations.clone(),
                body,
            });
        }
        body
    }
}

/// What storage sharing needs to agree on.
#[derive(PartialEq)]
struct StorageKey {
    dtype: DataType,
    scope: String,
    alignment: i64,
    elements: i64,
}

/// The key of a buffer that may share storage: flat, without annotations
/// or offset, of constant size.
fn storage_key(allocation: &Allocation<'_>) -> Option<StorageKey> {
    let node = allocation.buffer.node();
    // Other scopes (shared, warp, texture, ...) are memories of their own.
    let plain_memory =
        node.scope.is_empty() || node.scope == "global" || node.scope.starts_with("local");
    if !plain_memory
        || !allocation.annotations.is_empty()
        || !node.strides.is_empty()
        || node.elem_offset.as_int() != Some(0)
        || !node.axis_separators.is_empty()
    {
        return None;
    }
    let elements = node.shape.iter().try_fold(1i64, |product, extent| {
        product.checked_mul(extent.as_int()?)
    })?;
    Some(StorageKey {
        dtype: node.dtype,
        scope: node.scope.clone(),
        alignment: node.data_alignment,
        elements,
    })
}

/// Storage in use: the buffer that owns it and the one that used it last.
struct Slot<'a> {
    key: StorageKey,
    owner: &'a Buffer,
    current: &'a Buffer,
    last_use: usize,
}

/// For each buffer that takes over another's storage, its alias on that storage.
fn plan_sharing(
    allocations: &[Allocation<'_>],
    statements: &[Stmt],
    under_threads: bool,
) -> VarMap<Buffer> {
    let data: VarSet = allocations
        .iter()
        .map(|allocation| allocation.buffer.data().clone())
        .collect();
    let mut uses = UseCollector {
        data: &data,
        touched: VarSet::default(),
        escaped: VarSet::default(),
    };
    let mut spans: VarMap<(usize, usize)> = VarMap::default();
    for (index, statement) in statements.iter().enumerate() {
        uses.touched.clear();
        uses.visit_stmt(statement);
        for var in &uses.touched {
            spans
                .entry(var.clone())
                .and_modify(|span| span.1 = index)
                .or_insert((index, index));
        }
    }
    let mut candidates: Vec<(usize, usize, &Allocation<'_>, StorageKey)> = allocations
        .iter()
        .filter(|allocation| !uses.escaped.contains(allocation.buffer.data()))
        .filter(|allocation| !under_threads || allocation.buffer.scope().starts_with("local"))
        .filter_map(|allocation| {
            let (first, last) = *spans.get(allocation.buffer.data())?;
            let key = storage_key(allocation)?;
            Some((first, last, allocation, key))
        })
        .collect();
    candidates.sort_by_key(|candidate| candidate.0);
    let mut slots: Vec<Slot<'_>> = Vec::new();
    let mut aliases = VarMap::default();
    for (first, last, allocation, key) in candidates {
        let buffer = allocation.buffer;
        let free = slots.iter_mut().find(|slot| {
            slot.key == key
                && (slot.last_use < first
                    || (slot.last_use == first
                        && writes_in_place(&statements[first], slot.current, buffer)))
        });
        match free {
            Some(slot) => {
                let alias = Buffer::from_node(BufferNode {
                    data: slot.owner.data().clone(),
                    ..buffer.node().clone()
                });
                aliases.insert(buffer.data().clone(), alias);
                slot.current = buffer;
                slot.last_use = last;
            }
            None => slots.push(Slot {
                key,
                owner: buffer,
                current: buffer,
                last_use: last,
            }),
        }
    }
    aliases
}

/// Which planned buffers a statement loads or stores, and which have their
/// data pointer used otherwise (passed, aliased), anywhere.
struct UseCollector<'a> {
    data: &'a VarSet,
    touched: VarSet,
    escaped: VarSet,
}

impl Visitor for UseCollector<'_> {
    fn visit_expr(&mut self, expr: &Expr) {
        if let ExprKind::Var(var) = expr.kind() {
            if self.data.contains(var) {
                self.escaped.insert(var.clone());
            }
        }
        walk_expr(self, expr);
    }
    fn visit_buffer_use(&mut self, buffer: &Buffer) {
        if self.data.contains(buffer.data()) {
            self.touched.insert(buffer.data().clone());
        }
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        if self.data.contains(buffer.data()) {
            self.escaped.insert(buffer.data().clone());
        }
    }
}

/// True when `statement` can write `target` over `source`'s storage: it
/// stores to `target` once, at an index that no two iterations share, and
/// reads `source` only in that store's value at that same index, so each
/// element of `source` is read just before the same element is overwritten.
fn writes_in_place(statement: &Stmt, source: &Buffer, target: &Buffer) -> bool {
    let mut checker = InPlaceChecker {
        source: source.data(),
        target: target.data(),
        loops: Vec::new(),
        store: None,
        stores: 0,
        in_store_value: None,
        ok: true,
    };
    checker.visit_stmt(statement);
    let Some((index, loops)) = checker.store.filter(|_| checker.ok && checker.stores == 1) else {
        return false;
    };
    // Variables bound inside the statement other than its loops (lets) would
    // hide how the index depends on the loops.
    let loop_vars: VarSet = loops.iter().map(|(var, _)| var.clone()).collect();
    let hidden: VarSet = super::support::defined_vars(statement)
        .into_iter()
        .filter(|var| !loop_vars.contains(var))
        .collect();
    if super::support::uses_any(&index, &hidden) {
        return false;
    }
    is_injective(&index, loops)
}

/// True when `index` (scalar, or a `Ramp` of lanes) takes a distinct value
/// for every iteration of `loops` and every lane.
fn is_injective(index: &Expr, mut loops: Vec<(Var, Range)>) -> bool {
    let scalar = match index.kind() {
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } => {
            let index_type = base.dtype();
            let lane = Var::new("lane", index_type, Span::NONE);
            loops.push((
                lane.clone(),
                Range::new(
                    Expr::zero(index_type),
                    Expr::int(i64::from(*lanes), index_type),
                ),
            ));
            let Ok(offset) = super::support::index_mul(&Expr::var(&lane), stride) else {
                return false;
            };
            match super::support::index_add(base, &offset) {
                Ok(sum) => sum,
                Err(_) => return false,
            }
        }
        _ if index.dtype().lanes == 1 => index.clone(),
        _ => return false,
    };
    detect_iter_map(
        &[scalar],
        &loops,
        &Expr::bool(true),
        IterMapLevel::Bijective,
        &Analyzer::new(),
        true,
    )
    .is_success()
}

/// Walks one statement for [`writes_in_place`].
struct InPlaceChecker<'a> {
    source: &'a Var,
    target: &'a Var,
    /// The loops around the current point, outermost first.
    loops: Vec<(Var, Range)>,
    /// The index of the store to `target` and the loops around it.
    store: Option<(Expr, Vec<(Var, Range)>)>,
    stores: usize,
    /// The index of the store whose value is being visited, when it is the store to `target`.
    in_store_value: Option<Expr>,
    ok: bool,
}

impl Visitor for InPlaceChecker<'_> {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.visit_expr(&for_loop.min);
                self.visit_expr(&for_loop.extent);
                self.loops
                    .push((for_loop.loop_var.clone(), for_loop.range()));
                self.visit_stmt(&for_loop.body);
                self.loops.pop();
            }
            StmtKind::BufferStore(store) if store.buffer.data() == self.target => {
                self.stores += 1;
                let [index] = store.indices.as_slice() else {
                    self.ok = false;
                    return;
                };
                self.visit_expr(index);
                self.in_store_value = Some(index.clone());
                self.visit_expr(&store.value);
                self.in_store_value = None;
                self.store = Some((index.clone(), self.loops.clone()));
            }
            StmtKind::BufferStore(store) if store.buffer.data() == self.source => self.ok = false,
            // A while loop has no variable to tell its iterations apart.
            StmtKind::While { .. } => self.ok = false,
            _ => walk_stmt(self, stmt),
        }
    }
    fn visit_expr(&mut self, expr: &Expr) {
        match expr.kind() {
            ExprKind::Load(load) if load.buffer.data() == self.target => self.ok = false,
            ExprKind::Load(load) if load.buffer.data() == self.source => {
                let same_element = match (&self.in_store_value, load.indices.as_slice()) {
                    (Some(stored), [index]) => expr_deep_equal(stored, index),
                    _ => false,
                };
                if !same_element {
                    self.ok = false;
                }
                walk_expr(self, expr);
            }
            ExprKind::Var(var) if var == self.source || var == self.target => self.ok = false,
            _ => walk_expr(self, expr),
        }
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        if buffer.data() == self.source || buffer.data() == self.target {
            self.ok = false;
        }
    }
}

/// Replaces each buffer that took over storage by its alias.
struct Substitution<'a> {
    aliases: &'a VarMap<Buffer>,
}

impl Mutator for Substitution<'_> {
    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        self.aliases
            .get(buffer.data())
            .cloned()
            .unwrap_or_else(|| buffer.clone())
    }
}
