//! Scoping: every variable is used inside what defines it (a loop, a block,
//! a let, a launched thread, a buffer signature), a block sees only its own
//! iteration variables and not the loops around it, a buffer is used only
//! where it is allocated or declared, no name is defined twice in nested
//! scopes, and loop variables are never reassigned.
//!
//! The frontend resolves names lexically and already reports names that are
//! not defined at all (E0101); what remains are the IR-level rules that
//! lexical scoping lets through, and the same rules for IR a pass built.

use super::codes;
use super::spans::SpanStack;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferMap, BufferSet, VarMap, VarSet};
use crate::ir::visit::{walk_exprs, walk_stmts};
use crate::ir::{AttrNode, Buffer, BufferRegion, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

/// What introduced a variable, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
enum DefinitionKind {
    Parameter,
    /// A variable a buffer declaration introduces (`("n", 128)`, `strides=("s0",)`).
    BufferSignature,
    Loop,
    IterVar {
        block: String,
    },
    Let,
    Thread,
    Allocation,
}

#[derive(Clone, Debug)]
struct Definition {
    kind: DefinitionKind,
    span: Span,
}

/// Checks the scoping rules of a function.
pub(super) fn check_function(function: &PrimFunc) -> Vec<Diagnostic> {
    let mut checker = ScopeChecker::new(function);
    let pushed = checker.spans.enter(function.span);
    for param in &function.params {
        checker.define(param, DefinitionKind::Parameter);
    }
    // Plain variables in parameter shapes are defined by the buffer map, in
    // any order; compound shape expressions are checked once all are known.
    for (_, buffer) in &function.buffer_map {
        checker.declare_buffer(buffer);
    }
    checker.stmt(&function.body);
    checker.spans.leave(pushed);
    checker.diagnostics
}

struct ScopeChecker {
    /// Variables in scope now, with how many nested definitions hold them.
    defined: VarMap<usize>,
    /// Every definition anywhere in the function, to explain out-of-scope uses.
    every_definition: VarMap<Definition>,
    /// Where each buffer is allocated, by the block (or statement) name that owns it.
    every_allocation: BufferMap<(String, Span)>,
    /// For loop variables in scope: the number of non-opaque blocks around the loop.
    loop_block_depth: VarMap<usize>,
    /// Names of the non-opaque blocks around the current node, innermost last.
    blocks: Vec<String>,
    /// Buffers declared or allocated around the current node.
    visible_buffers: BufferMap<usize>,
    /// Names in scope now, innermost definition last.
    names: HashMap<String, Vec<Var>>,
    /// What defined each variable in scope.
    kinds: VarMap<DefinitionKind>,
    reported_vars: VarSet,
    reported_in_block: HashSet<(Var, usize)>,
    reported_buffers: BufferSet,
    spans: SpanStack,
    diagnostics: Vec<Diagnostic>,
}

impl ScopeChecker {
    fn new(function: &PrimFunc) -> ScopeChecker {
        let mut every_definition = Default::default();
        let mut every_allocation = Default::default();
        collect_definitions(&function.body, &mut every_definition, &mut every_allocation);
        ScopeChecker {
            defined: Default::default(),
            every_definition,
            every_allocation,
            loop_block_depth: Default::default(),
            blocks: Vec::new(),
            visible_buffers: Default::default(),
            names: HashMap::new(),
            kinds: Default::default(),
            reported_vars: Default::default(),
            reported_in_block: HashSet::new(),
            reported_buffers: Default::default(),
            spans: SpanStack::default(),
            diagnostics: Vec::new(),
        }
    }

    /// Brings a variable into scope, reporting a second definition of a name
    /// (or of the same variable) that is still in scope. Only names a user
    /// chooses for loops, iteration variables and lets are compared: buffer
    /// data pointers share their buffer's name by construction, and variables
    /// a pass or a schedule primitive built (no source span) are told apart
    /// by the printer (`u`, `u_1`), as in TVM.
    fn define(&mut self, var: &Var, kind: DefinitionKind) {
        let named_by_user = var.span().is_known()
            && matches!(
                kind,
                DefinitionKind::Loop | DefinitionKind::IterVar { .. } | DefinitionKind::Let
            );
        let already = self.defined.get(var).copied().unwrap_or(0) > 0;
        if already && kind != DefinitionKind::Thread {
            self.report_duplicate(var, var);
        } else if named_by_user {
            let shadowed = self
                .names
                .get(var.name())
                .and_then(|vars| {
                    // A variable a pass or primitive made (no span, as the
                    // loop of `add_unit_loop`) is shadowed only in the IR:
                    // the printer renames the inner one, as TVM's does.
                    vars.iter().rev().find(|v| {
                        *v != var
                            && v.span().is_known()
                            && v.span() != var.span()
                            && matches!(
                                self.kinds.get(*v),
                                Some(
                                    DefinitionKind::Loop
                                        | DefinitionKind::IterVar { .. }
                                        | DefinitionKind::Let
                                        | DefinitionKind::Parameter
                                        | DefinitionKind::Thread
                                )
                            )
                    })
                })
                .cloned();
            if let Some(previous) = shadowed {
                let reassigns_loop = kind == DefinitionKind::Let
                    && matches!(
                        self.kinds.get(&previous),
                        Some(DefinitionKind::Loop | DefinitionKind::IterVar { .. })
                    );
                if reassigns_loop {
                    let span = self.spans.or_current(var.span());
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::ASSIGN_TO_LOOP_VAR,
                            format!("`{}` is a loop variable and cannot be assigned", var.name()),
                            span,
                        )
                        .with_label("assigned here")
                        .with_secondary(previous.span(), "the loop variable is defined here")
                        .with_help(format!(
                            "compute the value under a new name, for example `{}_1 = ...`",
                            var.name()
                        )),
                    );
                } else {
                    self.report_duplicate(var, &previous);
                }
            }
        }
        *self.defined.entry(var.clone()).or_insert(0) += 1;
        self.kinds.insert(var.clone(), kind);
        self.names
            .entry(var.name().to_string())
            .or_default()
            .push(var.clone());
    }

    fn report_duplicate(&mut self, var: &Var, previous: &Var) {
        let span = self.spans.or_current(var.span());
        let mut diagnostic = Diagnostic::error(
            codes::DUPLICATE_DEFINITION,
            format!(
                "`{}` is defined again while the previous definition is in scope",
                var.name()
            ),
            span,
        )
        .with_label("defined again here")
        .with_help("give each loop, iteration and let variable its own name");
        if previous.span() != var.span() {
            diagnostic = diagnostic.with_secondary(previous.span(), "previous definition here");
        }
        self.diagnostics.push(diagnostic);
    }

    fn undefine(&mut self, var: &Var) {
        if let Some(count) = self.defined.get_mut(var) {
            *count -= 1;
            if *count == 0 {
                self.defined.remove(var);
            }
        }
        if let Some(vars) = self.names.get_mut(var.name()) {
            if let Some(position) = vars.iter().rposition(|v| v == var) {
                vars.remove(position);
            }
        }
    }

    /// Declares a buffer: its plain shape variables and its data pointer are
    /// defined by it when not already in scope. Returns what to undefine.
    fn declare_buffer(&mut self, buffer: &Buffer) -> Vec<Var> {
        let mut introduced = Vec::new();
        let node = buffer.node();
        let parts = node
            .shape
            .iter()
            .chain(&node.strides)
            .chain(std::iter::once(&node.elem_offset));
        let mut compound = Vec::new();
        for part in parts {
            match part.as_var() {
                Some(var) if !self.defined.contains_key(var) => {
                    self.define(var, DefinitionKind::BufferSignature);
                    introduced.push(var.clone());
                }
                Some(_) => {}
                None => compound.push(part.clone()),
            }
        }
        let pushed = self.spans.enter(buffer.span());
        for part in &compound {
            self.use_expr(part);
        }
        self.spans.leave(pushed);
        if !self.defined.contains_key(buffer.data()) {
            self.define(buffer.data(), DefinitionKind::Allocation);
            introduced.push(buffer.data().clone());
        }
        // Buffers a pass or primitive declared (no span, or the span of the
        // buffer they derive from) are renamed by the printer, as in TVM.
        // A buffer sharing its span with a visible buffer of another name
        // derives from it (`C_local` from `C`, beside an earlier `C_local`).
        let derived = |b: &Buffer| {
            self.visible_buffers
                .keys()
                .any(|other| other != b && other.span() == b.span() && other.name() != b.name())
        };
        let same_name = buffer
            .span()
            .is_known()
            .then(|| {
                self.visible_buffers
                    .keys()
                    .find(|b| {
                        *b != buffer && b.name() == buffer.name() && b.span() != buffer.span()
                    })
                    .cloned()
            })
            .flatten()
            .filter(|previous| !derived(buffer) && !derived(previous));
        if let Some(previous) = same_name {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::DUPLICATE_DEFINITION,
                    format!(
                        "buffer `{}` is declared again while the previous one is in scope",
                        buffer.name()
                    ),
                    self.spans.or_current(buffer.span()),
                )
                .with_secondary(previous.span(), "previous declaration here")
                .with_help("give each buffer its own name"),
            );
        }
        *self.visible_buffers.entry(buffer.clone()).or_insert(0) += 1;
        introduced
    }

    fn undeclare_buffer(&mut self, buffer: &Buffer, introduced: Vec<Var>) {
        if let Some(count) = self.visible_buffers.get_mut(buffer) {
            *count -= 1;
            if *count == 0 {
                self.visible_buffers.remove(buffer);
            }
        }
        for var in introduced {
            self.undefine(&var);
        }
    }

    fn use_var(&mut self, var: &Var) {
        if self.defined.contains_key(var) {
            let Some(depth) = self.loop_block_depth.get(var).copied() else {
                return;
            };
            let current = self.blocks.len();
            if depth < current && self.reported_in_block.insert((var.clone(), current)) {
                let block = self.blocks.last().cloned().unwrap_or_default();
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::LOOP_VAR_IN_BLOCK,
                        format!(
                            "loop variable `{}` is used inside block \"{}\", which may only use its own iteration variables",
                            var.name(),
                            block
                        ),
                        self.spans.current(),
                    )
                    .with_label(format!("`{}` comes from a loop outside the block", var.name()))
                    .with_secondary(var.span(), "the loop variable is defined here")
                    .with_help(format!(
                        "bind an iteration variable to it, for example `v{0} = T.axis.spatial(<extent>, {0})`, and use that inside the block",
                        var.name()
                    )),
                );
            }
            return;
        }
        if !self.reported_vars.insert(var.clone()) {
            return;
        }
        let span = self.spans.current();
        let diagnostic = match self.every_definition.get(var) {
            Some(definition) => {
                let (message, help) = match &definition.kind {
                    DefinitionKind::IterVar { block } => (
                        format!("iteration variable `{}` of block \"{}\" is used outside its block", var.name(), block),
                        format!("use `{}` only inside block \"{}\", or bind an iteration variable of the block where it is used", var.name(), block),
                    ),
                    DefinitionKind::Loop => (
                        format!("loop variable `{}` is used outside its loop", var.name()),
                        "move the use into the loop body".to_string(),
                    ),
                    DefinitionKind::Let => (
                        format!("`{}` is used outside the statement that defines it", var.name()),
                        "move the use after the assignment, in the same body".to_string(),
                    ),
                    DefinitionKind::Thread => (
                        format!("thread variable `{}` is used outside its `T.launch_thread`", var.name()),
                        "use the thread index only inside the launched scope".to_string(),
                    ),
                    DefinitionKind::Allocation | DefinitionKind::BufferSignature | DefinitionKind::Parameter => (
                        format!("`{}` is used outside the scope that defines it", var.name()),
                        "move the use into the scope of its definition".to_string(),
                    ),
                };
                Diagnostic::error(codes::OUT_OF_SCOPE, message, span)
                    .with_label("used here")
                    .with_secondary(definition.span, "defined here")
                    .with_help(help)
            }
            None => Diagnostic::error(
                codes::UNDEFINED_VARIABLE,
                format!("`{}` is used but never defined", var.name()),
                span,
            )
            .with_label("not defined by a parameter, a buffer shape, a loop or a let")
            .with_secondary(var.span(), "declared here")
            .with_help(format!(
                "a symbolic variable is defined by appearing in a parameter buffer's shape, for example `A: T.Buffer(({}, 128), \"float32\")`, or by being a parameter `{}: T.int32`",
                var.name(),
                var.name()
            )),
        };
        self.diagnostics.push(diagnostic);
    }

    fn use_buffer(&mut self, buffer: &Buffer) {
        if self.visible_buffers.contains_key(buffer) || self.defined.contains_key(buffer.data()) {
            return;
        }
        if !self.reported_buffers.insert(buffer.clone()) {
            return;
        }
        let span = self.spans.current();
        let diagnostic = match self.every_allocation.get(buffer) {
            Some((owner, allocated)) => Diagnostic::error(
                codes::BUFFER_OUT_OF_SCOPE,
                format!("buffer `{}` is allocated in {} and used outside it", buffer.name(), owner),
                span,
            )
            .with_label("used here")
            .with_secondary(*allocated, "allocated here")
            .with_help("allocate the buffer in a block that encloses every use, for example the root block"),
            None => Diagnostic::error(
                codes::BUFFER_OUT_OF_SCOPE,
                format!("buffer `{}` is used but never allocated or declared", buffer.name()),
                span,
            )
            .with_label("used here")
            .with_secondary(buffer.span(), "described here, without storage")
            .with_help("allocate it with `T.alloc_buffer` in an enclosing block, or pass it as a parameter"),
        };
        self.diagnostics.push(diagnostic);
    }

    fn use_expr(&mut self, expr: &Expr) {
        let pushed = self.spans.enter(expr.span());
        match expr.kind() {
            ExprKind::Var(var) => self.use_var(var),
            ExprKind::Load(load) => {
                self.use_buffer(&load.buffer);
                for index in &load.indices {
                    self.use_expr(index);
                }
            }
            ExprKind::Let { var, value, body } => {
                self.use_expr(value);
                self.define(var, DefinitionKind::Let);
                self.use_expr(body);
                self.undefine(var);
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {}
            ExprKind::Cast(value) | ExprKind::Not(value) => self.use_expr(value),
            ExprKind::Binary(_, a, b) => {
                self.use_expr(a);
                self.use_expr(b);
            }
            ExprKind::Select(c, a, b) => {
                self.use_expr(c);
                self.use_expr(a);
                self.use_expr(b);
            }
            ExprKind::Ramp { base, stride, .. } => {
                self.use_expr(base);
                self.use_expr(stride);
            }
            ExprKind::Broadcast { value, .. } => self.use_expr(value),
            ExprKind::Call { args, .. } | ExprKind::CallFunction { args, .. } => {
                for arg in args {
                    self.use_expr(arg);
                }
            }
            ExprKind::Shuffle { vectors, indices } => {
                for e in vectors.iter().chain(indices) {
                    self.use_expr(e);
                }
            }
        }
        self.spans.leave(pushed);
    }

    fn use_region(&mut self, region: &BufferRegion) {
        self.use_buffer(&region.buffer);
        for range in &region.region {
            self.use_expr(&range.min);
            self.use_expr(&range.extent);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let pushed = self.spans.enter(stmt.span());
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                self.use_expr(&for_loop.min);
                self.use_expr(&for_loop.extent);
                self.define(&for_loop.loop_var, DefinitionKind::Loop);
                self.loop_block_depth
                    .insert(for_loop.loop_var.clone(), self.blocks.len());
                self.stmt(&for_loop.body);
                self.loop_block_depth.remove(&for_loop.loop_var);
                self.undefine(&for_loop.loop_var);
            }
            StmtKind::BlockRealize(realize) => {
                for value in &realize.iter_values {
                    self.use_expr(value);
                }
                self.use_expr(&realize.predicate);
                let block = &realize.block;
                for iter_var in &block.iter_vars {
                    self.use_expr(&iter_var.dom.min);
                    self.use_expr(&iter_var.dom.extent);
                }
                let opaque = block.iter_vars.is_empty();
                if !opaque {
                    self.blocks.push(block.name.clone());
                }
                for iter_var in &block.iter_vars {
                    self.define(
                        &iter_var.var,
                        DefinitionKind::IterVar {
                            block: block.name.clone(),
                        },
                    );
                }
                let mut declared = Vec::new();
                for buffer in &block.alloc_buffers {
                    let introduced = self.declare_buffer(buffer);
                    declared.push((buffer.clone(), introduced));
                }
                for matched in &block.match_buffers {
                    self.use_region(&matched.source);
                    let introduced = self.declare_buffer(&matched.buffer);
                    declared.push((matched.buffer.clone(), introduced));
                }
                if let Some(init) = &block.init {
                    self.stmt(init);
                }
                self.stmt(&block.body);
                // After the body: a use there has a precise span, while a
                // region only has the block's.
                for region in block.reads.iter().chain(&block.writes) {
                    self.use_region(region);
                }
                for (buffer, introduced) in declared.into_iter().rev() {
                    self.undeclare_buffer(&buffer, introduced);
                }
                for iter_var in &block.iter_vars {
                    self.undefine(&iter_var.var);
                }
                if !opaque {
                    self.blocks.pop();
                }
            }
            StmtKind::BufferStore(store) => {
                self.use_buffer(&store.buffer);
                self.use_expr(&store.value);
                for index in &store.indices {
                    self.use_expr(index);
                }
            }
            StmtKind::Seq(stmts) => {
                for stmt in stmts {
                    self.stmt(stmt);
                }
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.use_expr(condition);
                self.stmt(then_case);
                if let Some(else_case) = else_case {
                    self.stmt(else_case);
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                self.use_expr(value);
                self.define(var, DefinitionKind::Let);
                self.stmt(body);
                self.undefine(var);
            }
            StmtKind::Evaluate(value) => self.use_expr(value),
            StmtKind::Allocate(allocate) => {
                for extent in &allocate.extents {
                    self.use_expr(extent);
                }
                self.use_expr(&allocate.condition);
                self.define(&allocate.buffer_var, DefinitionKind::Allocation);
                self.stmt(&allocate.body);
                self.undefine(&allocate.buffer_var);
            }
            StmtKind::AllocBuffer { buffer, body, .. } | StmtKind::DeclBuffer { buffer, body } => {
                let introduced = self.declare_buffer(buffer);
                self.stmt(body);
                self.undeclare_buffer(buffer, introduced);
            }
            StmtKind::AttrStmt(attr) => {
                self.use_expr(&attr.value);
                match &attr.node {
                    AttrNode::Thread { var, .. } => {
                        self.define(var, DefinitionKind::Thread);
                        self.stmt(&attr.body);
                        self.undefine(var);
                    }
                    AttrNode::Buffer(buffer) => {
                        self.use_buffer(buffer);
                        self.stmt(&attr.body);
                    }
                    AttrNode::Var(var) => {
                        self.use_var(var);
                        self.stmt(&attr.body);
                    }
                    AttrNode::Reducer(_) | AttrNode::None | AttrNode::Str(_) => {
                        self.stmt(&attr.body)
                    }
                }
            }
            StmtKind::Assert {
                condition,
                message,
                body,
                ..
            } => {
                self.use_expr(condition);
                for part in message {
                    self.use_expr(part);
                }
                self.stmt(body);
            }
            StmtKind::While { condition, body } => {
                self.use_expr(condition);
                self.stmt(body);
            }
        }
        self.spans.leave(pushed);
    }
}

/// Records every definition and allocation of a body, so a use outside its
/// scope can say where the variable or buffer lives.
fn collect_definitions(
    body: &Stmt,
    definitions: &mut VarMap<Definition>,
    allocations: &mut BufferMap<(String, Span)>,
) {
    walk_stmts(body, &mut |stmt| {
        let span = stmt.span();
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                record(definitions, &for_loop.loop_var, DefinitionKind::Loop, span)
            }
            StmtKind::BlockRealize(realize) => {
                let block = &realize.block;
                for iter_var in &block.iter_vars {
                    let kind = DefinitionKind::IterVar {
                        block: block.name.clone(),
                    };
                    record(definitions, &iter_var.var, kind, span);
                }
                let owner = format!("block \"{}\"", block.name);
                for buffer in block
                    .alloc_buffers
                    .iter()
                    .chain(block.match_buffers.iter().map(|m| &m.buffer))
                {
                    allocations
                        .entry(buffer.clone())
                        .or_insert((owner.clone(), buffer.span()));
                }
            }
            StmtKind::LetStmt { var, .. } => record(definitions, var, DefinitionKind::Let, span),
            StmtKind::Allocate(allocate) => record(
                definitions,
                &allocate.buffer_var,
                DefinitionKind::Allocation,
                span,
            ),
            StmtKind::AttrStmt(attr) => {
                if let AttrNode::Thread { var, .. } = &attr.node {
                    record(definitions, var, DefinitionKind::Thread, span);
                }
            }
            StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } => {
                allocations
                    .entry(buffer.clone())
                    .or_insert(("the statement that declares it".to_string(), span));
            }
            _ => {}
        }
        let values: Vec<&Expr> = match stmt.kind() {
            StmtKind::BufferStore(store) => vec![&store.value],
            StmtKind::Evaluate(value) | StmtKind::LetStmt { value, .. } => vec![value],
            _ => Vec::new(),
        };
        for value in values {
            walk_exprs(value, &mut |expr| {
                if let ExprKind::Let { var, .. } = expr.kind() {
                    record(definitions, var, DefinitionKind::Let, span);
                }
            });
        }
    });
}

fn record(definitions: &mut VarMap<Definition>, var: &Var, kind: DefinitionKind, span: Span) {
    definitions.entry(var.clone()).or_insert(Definition {
        kind,
        span: if var.span().is_known() {
            var.span()
        } else {
            span
        },
    });
}
