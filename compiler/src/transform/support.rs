//! Helpers shared by the lowering passes: diagnostics for operator errors,
//! fresh copies of the variables and buffers a statement defines, and the
//! variables a statement binds.

use crate::diagnostics::Diagnostic;
use crate::ir::identity::{BufferMap, VarMap, VarSet};
use crate::ir::mutate::{mutate_expr_children, mutate_stmt_children, Mutator};
use crate::ir::operators::OperatorError;
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{Buffer, Expr, ExprKind, Stmt, StmtKind, Var};
use crate::source::Span;

/// The diagnostic for an operator that refused its operands while a pass
/// rebuilt `what`.
pub fn operator_error(code: &str, error: &OperatorError, what: &str, span: Span) -> Diagnostic {
    Diagnostic::error(code, format!("cannot build {what}: {}", error.0), span)
}

/// Every variable `stmt` binds: loop variables, `LetStmt` and `Let`
/// variables, block iteration variables, and the data variables and
/// symbolic fields of the buffers it declares.
pub fn defined_vars(stmt: &Stmt) -> VarSet {
    struct Collector(VarSet);
    impl Visitor for Collector {
        fn visit_stmt(&mut self, stmt: &Stmt) {
            match stmt.kind() {
                StmtKind::For(for_loop) => {
                    self.0.insert(for_loop.loop_var.clone());
                }
                StmtKind::LetStmt { var, .. } => {
                    self.0.insert(var.clone());
                }
                StmtKind::Allocate(allocate) => {
                    self.0.insert(allocate.buffer_var.clone());
                }
                StmtKind::AttrStmt(attr) => {
                    if let crate::ir::AttrNode::Thread { var, .. } = &attr.node {
                        self.0.insert(var.clone());
                    }
                }
                StmtKind::BlockRealize(realize) => {
                    for iter_var in &realize.block.iter_vars {
                        self.0.insert(iter_var.var.clone());
                    }
                }
                _ => {}
            }
            walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &Expr) {
            if let ExprKind::Let { var, .. } = expr.kind() {
                self.0.insert(var.clone());
            }
            walk_expr(self, expr);
        }
        fn visit_buffer_def(&mut self, buffer: &Buffer) {
            self.0.insert(buffer.data().clone());
            let node = buffer.node();
            for expr in node
                .shape
                .iter()
                .chain(&node.strides)
                .chain(std::iter::once(&node.elem_offset))
            {
                if let Some(var) = expr.as_var() {
                    self.0.insert(var.clone());
                }
            }
        }
    }
    let mut collector = Collector(Default::default());
    collector.visit_stmt(stmt);
    collector.0
}

/// True when `expr` mentions a variable of `vars`.
pub fn uses_any(expr: &Expr, vars: &VarSet) -> bool {
    !vars.is_empty() && crate::ir::visit::expr_uses_var(expr, &mut |v| vars.contains(v))
}

/// A copy of `stmt` in which every loop variable, `LetStmt`/`Let` variable
/// and statement-level buffer (`AllocBuffer`, `DeclBuffer`) it defines is
/// replaced by a fresh one, so that the copy can sit beside the original
/// (unrolling) without one variable being defined twice.
pub fn renew_definitions(stmt: &Stmt) -> Stmt {
    Renewer {
        vars: Default::default(),
        buffers: Default::default(),
    }
    .mutate_stmt(stmt)
}

struct Renewer {
    vars: VarMap<Expr>,
    buffers: BufferMap<Buffer>,
}

impl Renewer {
    fn fresh_var(&mut self, var: &Var) -> Var {
        let fresh = var.with_name(var.name());
        self.vars.insert(var.clone(), fresh.to_expr());
        fresh
    }

    fn renew_buffer(&mut self, buffer: &Buffer) -> Buffer {
        // Shapes and strides may mention variables renewed earlier.
        let shape: Vec<Expr> = buffer.shape().iter().map(|e| self.mutate_expr(e)).collect();
        let strides: Vec<Expr> = buffer
            .node()
            .strides
            .iter()
            .map(|e| self.mutate_expr(e))
            .collect();
        let elem_offset = self.mutate_expr(&buffer.node().elem_offset);
        // A buffer declared on another buffer's data keeps that data variable
        // (renamed when the other buffer was renewed too).
        let data = match self
            .vars
            .get(buffer.data())
            .and_then(|e| e.as_var().cloned())
        {
            Some(renamed) => renamed,
            None => buffer.data().clone(),
        };
        let renewed = buffer.with(|node| {
            node.shape = shape;
            node.strides = strides;
            node.elem_offset = elem_offset;
            node.data = data;
        });
        self.buffers.insert(buffer.clone(), renewed.clone());
        renewed
    }
}

impl Mutator for Renewer {
    fn mutate_expr(&mut self, expr: &Expr) -> Expr {
        match expr.kind() {
            ExprKind::Var(var) => self.vars.get(var).cloned().unwrap_or_else(|| expr.clone()),
            ExprKind::Let { var, value, body } => {
                let value = self.mutate_expr(value);
                let fresh = self.fresh_var(var);
                let body = self.mutate_expr(body);
                let dtype = body.dtype();
                Expr::new(
                    ExprKind::Let {
                        var: fresh,
                        value,
                        body,
                    },
                    dtype,
                    expr.span(),
                )
            }
            _ => mutate_expr_children(self, expr),
        }
    }

    fn mutate_buffer(&mut self, buffer: &Buffer) -> Buffer {
        self.buffers
            .get(buffer)
            .cloned()
            .unwrap_or_else(|| buffer.clone())
    }

    fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                let min = self.mutate_expr(&for_loop.min);
                let extent = self.mutate_expr(&for_loop.extent);
                let loop_var = self.fresh_var(&for_loop.loop_var);
                let body = self.mutate_stmt(&for_loop.body);
                stmt.with_kind(StmtKind::For(crate::ir::For {
                    loop_var,
                    min,
                    extent,
                    body,
                    ..for_loop.clone()
                }))
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.mutate_expr(value);
                let var = self.fresh_var(var);
                let body = self.mutate_stmt(body);
                stmt.with_kind(StmtKind::LetStmt { var, value, body })
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => {
                let data = self.fresh_var(buffer.data());
                let renewed = self.renew_buffer(buffer);
                let renewed = renewed.with(|node| node.data = data.clone());
                self.buffers.insert(buffer.clone(), renewed.clone());
                let body = self.mutate_stmt(body);
                stmt.with_kind(StmtKind::AllocBuffer {
                    buffer: renewed,
                    annotations: annotations.clone(),
                    body,
                })
            }
            StmtKind::DeclBuffer { buffer, body } => {
                let renewed = self.renew_buffer(buffer);
                let body = self.mutate_stmt(body);
                stmt.with_kind(StmtKind::DeclBuffer {
                    buffer: renewed,
                    body,
                })
            }
            _ => mutate_stmt_children(self, stmt),
        }
    }
}

/// `a + b` on index expressions, keeping vector indices as `Ramp` and
/// `Broadcast` nodes where it can (`Ramp(b, s, n) + x` is `Ramp(b + x, s, n)`).
pub fn index_add(a: &Expr, b: &Expr) -> Result<Expr, OperatorError> {
    use crate::ir::operators::add;
    match (a.kind(), b.kind()) {
        (
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            },
            _,
        ) if b.dtype().is_scalar() => {
            Ok(ramp(add(base.clone(), b.clone())?, stride.clone(), *lanes))
        }
        (
            _,
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            },
        ) if a.dtype().is_scalar() => {
            Ok(ramp(add(a.clone(), base.clone())?, stride.clone(), *lanes))
        }
        (
            ExprKind::Ramp {
                base: b1,
                stride: s1,
                lanes: l1,
            },
            ExprKind::Ramp {
                base: b2,
                stride: s2,
                lanes: l2,
            },
        ) if l1 == l2 => Ok(ramp(
            add(b1.clone(), b2.clone())?,
            add(s1.clone(), s2.clone())?,
            *l1,
        )),
        (
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            },
            ExprKind::Broadcast { value, lanes: l2 },
        ) if lanes == l2 => Ok(ramp(
            add(base.clone(), value.clone())?,
            stride.clone(),
            *lanes,
        )),
        (
            ExprKind::Broadcast { value, lanes: l1 },
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            },
        ) if lanes == l1 => Ok(ramp(
            add(value.clone(), base.clone())?,
            stride.clone(),
            *lanes,
        )),
        (
            ExprKind::Broadcast {
                value: v1,
                lanes: l1,
            },
            ExprKind::Broadcast {
                value: v2,
                lanes: l2,
            },
        ) if l1 == l2 => Ok(broadcast(add(v1.clone(), v2.clone())?, *l1)),
        (ExprKind::Broadcast { value, lanes }, _) if b.dtype().is_scalar() => {
            Ok(broadcast(add(value.clone(), b.clone())?, *lanes))
        }
        (_, ExprKind::Broadcast { value, lanes }) if a.dtype().is_scalar() => {
            Ok(broadcast(add(a.clone(), value.clone())?, *lanes))
        }
        _ => add(a.clone(), b.clone()),
    }
}

/// `a * b` on index expressions where `b` is a scalar, keeping `Ramp` and
/// `Broadcast` forms.
pub fn index_mul(a: &Expr, b: &Expr) -> Result<Expr, OperatorError> {
    use crate::ir::operators::mul;
    match a.kind() {
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        } if b.dtype().is_scalar() => Ok(ramp(
            mul(base.clone(), b.clone())?,
            mul(stride.clone(), b.clone())?,
            *lanes,
        )),
        ExprKind::Broadcast { value, lanes } if b.dtype().is_scalar() => {
            Ok(broadcast(mul(value.clone(), b.clone())?, *lanes))
        }
        _ => mul(a.clone(), b.clone()),
    }
}

/// `T.Ramp(base, stride, lanes)`; the stride takes the base's type.
pub fn ramp(base: Expr, stride: Expr, lanes: u16) -> Expr {
    let stride = crate::ir::operators::cast(base.dtype(), stride);
    let dtype = base.dtype().with_lanes(lanes);
    Expr::new(
        ExprKind::Ramp {
            base,
            stride,
            lanes,
        },
        dtype,
        Span::NONE,
    )
}

/// `T.Broadcast(value, lanes)`; the value itself when `lanes` is 1.
pub fn broadcast(value: Expr, lanes: u16) -> Expr {
    if lanes <= 1 {
        return value;
    }
    let dtype = value.dtype().with_lanes(lanes);
    Expr::new(ExprKind::Broadcast { value, lanes }, dtype, Span::NONE)
}

/// Splices nested sequences into their parent and drops empty ones, the form
/// the parser gives, so a pass's output reads back structurally equal.
pub fn normalize_sequences(stmt: &Stmt) -> Stmt {
    struct Normalizer;
    impl Mutator for Normalizer {
        fn mutate_stmt(&mut self, stmt: &Stmt) -> Stmt {
            let rebuilt = mutate_stmt_children(self, stmt);
            let StmtKind::Seq(items) = rebuilt.kind() else {
                return rebuilt;
            };
            let needs_flattening =
                items.iter().any(|s| matches!(s.kind(), StmtKind::Seq(_))) || items.len() < 2;
            if !needs_flattening {
                return rebuilt;
            }
            let mut flat = Vec::with_capacity(items.len());
            for item in items {
                match item.kind() {
                    StmtKind::Seq(inner) => flat.extend(inner.iter().cloned()),
                    _ => flat.push(item.clone()),
                }
            }
            match flat.len() {
                0 => Stmt::no_op(),
                1 => flat.pop().unwrap_or_else(Stmt::no_op),
                _ => Stmt::new(StmtKind::Seq(flat), rebuilt.span()),
            }
        }
    }
    Normalizer.mutate_stmt(stmt)
}
