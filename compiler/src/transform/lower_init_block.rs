//! `lower-init-block`: a block's `T.init()` becomes a store guarded by every
//! reduction iteration variable being at the first value of its domain, run
//! before the block body (TVM's `LowerInitBlock`).

use super::codes;
use super::support::operator_error;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::mutate::{mutate_block_children, Mutator};
use crate::ir::operators;
use crate::ir::{BinaryOp, Block, Expr, IterKind, PrimFunc, Stmt, StmtKind};

/// Replaces every `T.init()` of `func` by a guarded statement in the block body.
pub fn lower_init_block(
    func: &PrimFunc,
    _options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut lowerer = InitLowerer {
        errors: Vec::new(),
    };
    let body = lowerer.mutate_stmt(&func.body);
    if !lowerer.errors.is_empty() {
        return Err(lowerer.errors);
    }
    Ok(PrimFunc {
        body,
        ..func.clone()
    })
}

struct InitLowerer {
    errors: Vec<Diagnostic>,
}

impl InitLowerer {
    /// `v0 == min0 and v1 == min1 ...` over the reduction variables; `None`
    /// when the block has none (the init then runs unconditionally, as in TVM).
    fn first_iteration_condition(&mut self, block: &Block) -> Option<Expr> {
        let mut condition: Option<Expr> = None;
        for iter_var in block.iter_vars.iter().filter(|iv| iv.kind == IterKind::Reduce) {
            let equal = operators::binary(
                BinaryOp::Eq,
                iter_var.var.to_expr(),
                iter_var.dom.min.clone(),
            );
            let combined = equal.and_then(|equal| match condition.take() {
                None => Ok(equal),
                Some(previous) => operators::binary(BinaryOp::And, previous, equal),
            });
            match combined {
                Ok(expr) => condition = Some(expr),
                Err(error) => {
                    self.errors.push(operator_error(
                        codes::TYPE_MISMATCH,
                        &error,
                        &format!("the init condition of block `{}`", block.name),
                        iter_var.var.span(),
                    ));
                    return None;
                }
            }
        }
        condition
    }
}

impl Mutator for InitLowerer {
    fn mutate_block(&mut self, block: &Block) -> Block {
        let mut lowered = mutate_block_children(self, block);
        let Some(init) = lowered.init.take() else {
            return lowered;
        };
        let guarded = match self.first_iteration_condition(block) {
            Some(condition) => Stmt::new(
                StmtKind::IfThenElse {
                    condition,
                    then_case: init.clone(),
                    else_case: None,
                },
                init.span(),
            ),
            None => init,
        };
        lowered.body = Stmt::seq(vec![guarded, lowered.body]);
        lowered
    }
}
