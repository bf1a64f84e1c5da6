//! Walks over the lowered program that several features share: the loops and
//! blocks with their spans, the statement that defines a variable, and the
//! block that contains a position.

use tirc::frontend::Program;
use tirc::ir::{Block, BlockRealize, For, IterVar, PrimFunc, Stmt, StmtKind, Var};
use tirc::source::Span;

/// The statements directly inside a statement (loop and block bodies included).
pub fn direct_children(stmt: &Stmt) -> Vec<&Stmt> {
    match stmt.kind() {
        StmtKind::For(for_loop) => vec![&for_loop.body],
        StmtKind::BlockRealize(realize) => realize
            .block
            .init
            .iter()
            .chain(std::iter::once(&realize.block.body))
            .collect(),
        StmtKind::Seq(items) => items.iter().collect(),
        StmtKind::IfThenElse {
            then_case,
            else_case,
            ..
        } => std::iter::once(then_case).chain(else_case.iter()).collect(),
        StmtKind::LetStmt { body, .. }
        | StmtKind::AllocBuffer { body, .. }
        | StmtKind::DeclBuffer { body, .. }
        | StmtKind::Assert { body, .. }
        | StmtKind::While { body, .. } => vec![body],
        StmtKind::AttrStmt(attr) => vec![&attr.body],
        StmtKind::Allocate(allocate) => vec![&allocate.body],
        StmtKind::BufferStore(_) | StmtKind::Evaluate(_) => Vec::new(),
    }
}

/// Calls `visit` on every statement of a function, parents first.
pub fn walk(stmt: &Stmt, visit: &mut impl FnMut(&Stmt)) {
    visit(stmt);
    for child in direct_children(stmt) {
        walk(child, visit);
    }
}

/// What the program says about a variable.
pub enum VarRole<'p> {
    /// A loop variable.
    Loop(&'p For),
    /// A block iteration variable, with its block and its binding.
    IterVar(&'p IterVar, &'p BlockRealize, usize),
    /// A function parameter.
    Param(&'p PrimFunc),
    /// A symbolic variable in a buffer's shape or strides.
    ShapeVar(String),
    /// A `let` binding.
    Let(&'p tirc::ir::Expr),
}

/// The role of `var` in the program.
pub fn role_of<'p>(program: &'p Program, var: &Var) -> Option<VarRole<'p>> {
    for function in &program.module.functions {
        if function.params.contains(var) {
            return Some(VarRole::Param(function));
        }
        for (_, buffer) in &function.buffer_map {
            let in_shape = buffer
                .shape()
                .iter()
                .chain(buffer.node().strides.iter())
                .any(|e| e.as_var() == Some(var));
            if in_shape {
                return Some(VarRole::ShapeVar(buffer.name().to_string()));
            }
        }
        let mut found: Option<VarRole<'p>> = None;
        find_role(&function.body, var, &mut found);
        if found.is_some() {
            return found;
        }
    }
    None
}

fn find_role<'p>(stmt: &'p Stmt, var: &Var, found: &mut Option<VarRole<'p>>) {
    if found.is_some() {
        return;
    }
    match stmt.kind() {
        StmtKind::For(for_loop) if for_loop.loop_var == *var => {
            *found = Some(VarRole::Loop(for_loop));
            return;
        }
        StmtKind::BlockRealize(realize) => {
            if let Some(index) = realize.block.iter_vars.iter().position(|iv| iv.var == *var) {
                *found = Some(VarRole::IterVar(
                    &realize.block.iter_vars[index],
                    realize,
                    index,
                ));
                return;
            }
        }
        StmtKind::LetStmt {
            var: bound, value, ..
        } if bound == var => {
            *found = Some(VarRole::Let(value));
            return;
        }
        _ => {}
    }
    for child in direct_children(stmt) {
        find_role(child, var, found);
    }
}

/// Every block of the program with the span of its `with` statement.
pub fn blocks(program: &Program) -> Vec<(&Block, Span)> {
    let mut out = Vec::new();
    for function in &program.module.functions {
        collect_blocks(&function.body, &mut out);
    }
    out
}

fn collect_blocks<'p>(stmt: &'p Stmt, out: &mut Vec<(&'p Block, Span)>) {
    if let StmtKind::BlockRealize(realize) = stmt.kind() {
        if stmt.span().is_known() {
            out.push((&realize.block, stmt.span()));
        }
    }
    for child in direct_children(stmt) {
        collect_blocks(child, out);
    }
}

/// The block written with its name string at `name_span`.
pub fn block_named_at(program: &Program, name_span: Span) -> Option<&Block> {
    blocks(program)
        .into_iter()
        .filter(|(_, span)| span.start <= name_span.start && name_span.end <= span.end)
        .min_by_key(|(_, span)| span.end - span.start)
        .map(|(block, _)| block)
}
