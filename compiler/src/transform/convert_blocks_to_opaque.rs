//! `convert-blocks-to-opaque`: every block iteration variable is replaced by
//! the value its block realize binds it to, and blocks lose their iteration
//! variables (TVM's `ConvertBlocksToOpaque`). Blocks stay, with their
//! allocations, regions and predicates, for the passes that still need them.

use super::codes;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::mutate::{mutate_block_children, mutate_expr_children, Mutator};
use crate::ir::{Block, BlockRealize, Expr, ExprKind, PrimFunc, Stmt, StmtKind};

/// Substitutes block bindings into block bodies and drops the iteration variables.
pub fn convert_blocks_to_opaque(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut converter = OpaqueConverter {
        bindings: Default::default(),
        errors: Vec::new(),
    };
    let body = converter.mutate_stmt(&func.body);
    if !converter.errors.is_empty() {
        return Err(converter.errors);
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct OpaqueConverter {
    /// Block iteration variable → the expression it stands for here.
    bindings: VarMap<Expr>,
    errors: Vec<Diagnostic>,
}

impl Mutator for OpaqueConverter {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        if let ExprKind::Var(var) = expr.kind() {
            return self
                .bindings
                .get(var)
                .cloned()
                .unwrap_or_else(|| expr.clone());
        }
        mutate_expr_children(self, expr)
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        let StmtKind::BlockRealize(realize) = stmt.kind() else {
            return crate::ir::mutate::mutate_stmt_children(self, stmt);
        };
        let block = &realize.block;
        if block.init.is_some() {
            self.errors.push(
                Diagnostic::error(
                    codes::WRONG_STAGE,
                    format!("block `{}` still has a `T.init()`", block.name),
                    stmt.span(),
                )
                .with_help("run `lower-init-block` first"),
            );
            return stmt.clone();
        }
        if block.iter_vars.len() != realize.iter_values.len() {
            self.errors.push(Diagnostic::error(
                codes::WRONG_STAGE,
                format!(
                    "block `{}` has {} iteration variables but {} bindings",
                    block.name,
                    block.iter_vars.len(),
                    realize.iter_values.len()
                ),
                stmt.span(),
            ));
            return stmt.clone();
        }
        // Bindings and the predicate are evaluated outside the block, where
        // its own variables are not defined yet.
        let predicate = self.mutate_expr(&realize.predicate);
        let values: Vec<Expr> = realize
            .iter_values
            .iter()
            .map(|v| self.mutate_expr(v))
            .collect();
        let mut saved = Vec::new();
        for (iter_var, value) in block.iter_vars.iter().zip(values) {
            saved.push((
                iter_var.var.clone(),
                self.bindings.insert(iter_var.var.clone(), value),
            ));
        }
        let mut new_block = self.mutate_block(block);
        new_block.iter_vars.clear();
        for (var, previous) in saved {
            match previous {
                Some(value) => self.bindings.insert(var, value),
                None => self.bindings.remove(&var),
            };
        }
        stmt.with_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values: Vec::new(),
            predicate,
            block: new_block,
        }))
    }

    fn mutate_block(&mut self, block: &Block) -> Block {
        mutate_block_children(self, block)
    }
}
