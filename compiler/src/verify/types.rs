//! Types: indices, extents and shapes are integers (of one width per
//! access), conditions are bool, vector lanes agree, operands of one
//! operation share a type, builtins get the argument types their table entry
//! asks for; under `--strict-casts`, the implicit conversions TVM's rules
//! inserted are reported as warnings.

use super::codes;
use super::spans::{is_implicit_cast, show, SpanStack};
use crate::check::CheckOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::builtin::ArgRule;
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{Buffer, BufferRegion, DataType, Expr, ExprKind, PrimFunc, Range, Stmt, StmtKind};
use crate::source::Span;
use std::collections::HashSet;

/// Checks the types of every expression and statement of a function.
pub(super) fn check_function(function: &PrimFunc, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut checker = TypeChecker {
        strict_casts: options.strict_casts,
        spans: SpanStack::default(),
        diagnostics: Vec::new(),
        reported_nodes: HashSet::new(),
    };
    let pushed = checker.spans.enter(function.span);
    for (_, buffer) in &function.buffer_map {
        checker.visit_buffer_def(buffer);
    }
    checker.visit_stmt(&function.body);
    checker.spans.leave(pushed);
    checker.diagnostics
}

struct TypeChecker {
    strict_casts: bool,
    spans: SpanStack,
    diagnostics: Vec<Diagnostic>,
    /// Expression nodes already blamed, so a statement-level check and the
    /// expression-level one never report the same node twice.
    reported_nodes: HashSet<usize>,
}

fn node_address(expr: &Expr) -> usize {
    expr.node() as *const _ as usize
}

/// True for scalar integers (signed or unsigned; bool is not an integer).
fn is_scalar_integer(dtype: DataType) -> bool {
    dtype.is_integer() && dtype.is_scalar()
}

impl TypeChecker {
    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// `what` must be a scalar integer: a loop bound, a shape, a domain, a region bound.
    fn require_integer(&mut self, expr: &Expr, what: &str) {
        if is_scalar_integer(expr.dtype()) || !self.mark_reported(expr) {
            return;
        }
        let span = self.spans.or_current(expr.span());
        self.report(
            Diagnostic::error(
                codes::NOT_AN_INTEGER,
                format!(
                    "{what} must be an integer, found {} `{}`",
                    expr.dtype(),
                    show(expr)
                ),
                span,
            )
            .with_label(format!("this is {}", expr.dtype()))
            .with_help(
                "write an integer expression here, or convert it with `T.Cast(\"int32\", ...)`",
            ),
        );
    }

    /// `what` must be a bool (scalar, or with `lanes` lanes for vector selects).
    fn require_bool(&mut self, expr: &Expr, what: &str, help: &str) {
        if expr.dtype().is_bool() || !self.mark_reported(expr) {
            return;
        }
        let span = self.spans.or_current(expr.span());
        self.report(
            Diagnostic::error(
                codes::CONDITION_NOT_BOOL,
                format!(
                    "{what} must be bool, found {} `{}`",
                    expr.dtype(),
                    show(expr)
                ),
                span,
            )
            .with_label(format!("this is {}", expr.dtype()))
            .with_help(help.to_string()),
        );
    }

    /// Records that a node was blamed; false when it already was.
    fn mark_reported(&mut self, expr: &Expr) -> bool {
        self.reported_nodes.insert(node_address(expr))
    }

    fn operand_types_differ(&mut self, what: String, span: Span, help: &str) {
        self.report(
            Diagnostic::error(codes::OPERAND_TYPES_DIFFER, what, span).with_help(help.to_string()),
        );
    }

    /// The indices of one access: integers, one width, vector lanes that agree.
    fn check_indices(&mut self, buffer: &Buffer, indices: &[Expr], span: Span) {
        let mut widths: Vec<(u16, &Expr)> = Vec::new();
        let mut vector_lanes: Option<u16> = None;
        for index in indices {
            let element = index.dtype().element_of();
            if !element.is_integer() {
                if self.mark_reported(index) {
                    self.report(
                        Diagnostic::error(
                            codes::NOT_AN_INTEGER,
                            format!(
                                "an index of `{}` must be an integer, found {} `{}`",
                                buffer.name(),
                                index.dtype(),
                                show(index)
                            ),
                            self.spans.or_current(index.span()).to(span),
                        )
                        .with_help("index buffers with integer expressions; convert with `T.Cast(\"int32\", ...)` if needed"),
                    );
                }
                continue;
            }
            widths.push((element.bits, index));
            if index.dtype().is_vector() {
                match vector_lanes {
                    Some(lanes) if lanes != index.dtype().lanes => {
                        self.report(
                            Diagnostic::error(
                                codes::LANES_MISMATCH,
                                format!(
                                    "the vector indices of `{}` have {} and {} lanes",
                                    buffer.name(),
                                    lanes,
                                    index.dtype().lanes
                                ),
                                span,
                            )
                            .with_help(
                                "give every vector index of one access the same number of lanes",
                            ),
                        );
                    }
                    _ => vector_lanes = Some(index.dtype().lanes),
                }
            }
        }
        if let Some((first_bits, first)) = widths.first().copied() {
            if let Some((bits, other)) = widths.iter().find(|(bits, _)| *bits != first_bits) {
                self.report(
                    Diagnostic::error(
                        codes::MIXED_INDEX_WIDTHS,
                        format!(
                            "the indices of `{}` mix integer widths: `{}` is {}-bit and `{}` is {}-bit",
                            buffer.name(),
                            show(first),
                            first_bits,
                            show(other),
                            bits
                        ),
                        span,
                    )
                    .with_help("use one index type for the whole access, for example wrap the narrow ones in `T.int64(...)` or `T.Cast(\"int64\", ...)`"),
                );
            }
        }
    }

    fn check_call(&mut self, expr: &Expr, op: crate::ir::Op, args: &[Expr]) {
        let info = op.info();
        let span = self.spans.or_current(expr.span());
        if !info.arity.accepts(args.len()) {
            self.report(
                Diagnostic::error(
                    codes::BUILTIN_ARGUMENTS,
                    format!(
                        "`T.{}` takes {}, found {}",
                        info.name,
                        info.arity,
                        args.len()
                    ),
                    span,
                )
                .with_help(format!("`T.{}`: {}", info.name, info.doc)),
            );
            return;
        }
        let wrong_argument = |kind: &str, arg: &Expr| {
            Diagnostic::error(
                codes::BUILTIN_ARGUMENTS,
                format!(
                    "`T.{}` takes {kind} arguments, found {} `{}`",
                    info.name,
                    arg.dtype(),
                    show(arg)
                ),
                span,
            )
        };
        match info.args {
            ArgRule::Any => {}
            ArgRule::Float => {
                if let Some(arg) = args.iter().find(|a| !a.dtype().is_float()) {
                    let diagnostic = wrong_argument("floating-point", arg).with_help(
                        "convert the argument first, for example `T.Cast(\"float32\", x)`",
                    );
                    self.report(diagnostic);
                }
            }
            ArgRule::Integer => {
                if let Some(arg) = args.iter().find(|a| !a.dtype().is_integer()) {
                    let diagnostic = wrong_argument("integer", arg)
                        .with_help("bitwise operations and shifts apply to integers only");
                    self.report(diagnostic);
                }
            }
            ArgRule::Numeric => {
                if let Some(arg) = args
                    .iter()
                    .find(|a| !(a.dtype().is_integer() || a.dtype().is_float()))
                {
                    let diagnostic = wrong_argument("numeric", arg)
                        .with_help("pass an integer or floating-point value");
                    self.report(diagnostic);
                }
            }
            ArgRule::Conditional => {
                if let Some(condition) = args.first() {
                    self.require_bool(
                        condition,
                        &format!("the condition of `T.{}`", info.name),
                        "compare values to make a condition, for example `i < 16`",
                    );
                }
                if let [condition, a, _] = args {
                    let lanes = condition.dtype().lanes;
                    if lanes != 1 && lanes != a.dtype().lanes {
                        self.report(
                            Diagnostic::error(
                                codes::BUILTIN_ARGUMENTS,
                                format!(
                                    "the condition of `T.{}` has {lanes} lanes but its values have {}",
                                    info.name,
                                    a.dtype().lanes
                                ),
                                span,
                            )
                            .with_help("use a scalar condition, or values with one lane per condition lane (`T.Broadcast`)"),
                        );
                    }
                }
                if let [_, a, b] = args {
                    if a.dtype() != b.dtype() {
                        self.operand_types_differ(
                            format!(
                                "the two values of `T.{}` have different types, {} and {}",
                                info.name,
                                a.dtype(),
                                b.dtype()
                            ),
                            span,
                            "convert one side so both have one type",
                        );
                    }
                }
            }
            ArgRule::SameWidth => {
                let width =
                    |dtype: crate::ir::DataType| u32::from(dtype.bits) * u32::from(dtype.lanes);
                if let Some(arg) = args.first() {
                    if width(arg.dtype()) != width(expr.dtype()) {
                        self.report(Diagnostic::error(
                            codes::BUILTIN_ARGUMENTS,
                            format!(
                                "`T.{}` to {} needs a {}-bit argument, found {} `{}`",
                                info.name,
                                expr.dtype(),
                                width(expr.dtype()),
                                arg.dtype(),
                                show(arg)
                            ),
                            span,
                        ));
                    }
                }
            }
            ArgRule::BoolArg => {
                if let Some(arg) = args.first() {
                    self.require_bool(
                        arg,
                        &format!("the argument of `T.{}`", info.name),
                        "`T.likely` marks a condition: pass a comparison such as `i < n`",
                    );
                }
            }
        }
    }

    fn check_expr(&mut self, expr: &Expr) {
        let span = self.spans.or_current(expr.span());
        match expr.kind() {
            ExprKind::Binary(op, a, b) => {
                if op.is_logical() {
                    for operand in [a, b] {
                        self.require_bool(
                            operand,
                            &format!(
                                "an operand of `{}`",
                                if op.tvm_name() == "And" { "and" } else { "or" }
                            ),
                            "combine conditions (comparisons), not numbers",
                        );
                    }
                } else if a.dtype() != b.dtype() && self.mark_reported(expr) {
                    self.operand_types_differ(
                        format!(
                            "the operands of `T.{}` have different types, {} and {}",
                            op.tvm_name(),
                            a.dtype(),
                            b.dtype()
                        ),
                        span,
                        "convert one operand with `T.Cast` so both have one type",
                    );
                }
            }
            ExprKind::Not(value) => self.require_bool(
                value,
                "the operand of `not`",
                "negate a condition (a comparison), not a number",
            ),
            ExprKind::Select(condition, a, b) => {
                self.require_bool(
                    condition,
                    "the condition of `T.Select`",
                    "compare values to make a condition, for example `x > 0`",
                );
                if a.dtype() != b.dtype() {
                    self.operand_types_differ(
                        format!(
                            "the two values of `T.Select` have different types, {} and {}",
                            a.dtype(),
                            b.dtype()
                        ),
                        span,
                        "convert one side so both have one type",
                    );
                }
            }
            ExprKind::Cast(operand) => {
                if expr.dtype().lanes != operand.dtype().lanes {
                    if self.mark_reported(expr) {
                        self.report(
                            Diagnostic::error(
                                codes::LANES_MISMATCH,
                                format!(
                                    "cannot convert {} `{}` to {}: the lane counts differ",
                                    operand.dtype(),
                                    show(operand),
                                    expr.dtype()
                                ),
                                span,
                            )
                            .with_help("a conversion keeps the number of lanes; slice or broadcast the vector to the right length"),
                        );
                    }
                } else if self.strict_casts && is_implicit_cast(expr) {
                    self.report(
                        Diagnostic::warning(
                            codes::IMPLICIT_CAST,
                            format!(
                                "implicit conversion of `{}` from {} to {}",
                                show(operand),
                                operand.dtype(),
                                expr.dtype()
                            ),
                            span,
                        )
                        .with_label(format!("converted to {}", expr.dtype()))
                        .with_help(format!(
                            "write the conversion out: `T.Cast(\"{}\", {})`",
                            expr.dtype(),
                            show(operand)
                        )),
                    );
                }
            }
            ExprKind::Load(load) => self.check_indices(&load.buffer, &load.indices, span),
            ExprKind::Ramp { base, stride, .. } => {
                self.require_integer(base, "the base of a `T.Ramp`");
                self.require_integer(stride, "the stride of a `T.Ramp`");
                if is_scalar_integer(base.dtype())
                    && is_scalar_integer(stride.dtype())
                    && base.dtype() != stride.dtype()
                {
                    self.operand_types_differ(
                        format!(
                            "the base and stride of `T.Ramp` have different types, {} and {}",
                            base.dtype(),
                            stride.dtype()
                        ),
                        span,
                        "give the base and the stride one integer type",
                    );
                }
            }
            ExprKind::Broadcast { value, .. } => {
                if value.dtype().is_vector() {
                    self.report(
                        Diagnostic::error(
                            codes::LANES_MISMATCH,
                            format!("`T.Broadcast` takes a scalar, found {}", value.dtype()),
                            span,
                        )
                        .with_help("broadcast a scalar value; a vector already has lanes"),
                    );
                }
            }
            ExprKind::Let { var, value, .. } => {
                if var.dtype() != value.dtype() {
                    self.operand_types_differ(
                        format!(
                            "`{}` is {} but is bound to a {} value",
                            var.name(),
                            var.dtype(),
                            value.dtype()
                        ),
                        span,
                        "convert the value to the variable's type",
                    );
                }
            }
            ExprKind::Call { op, args } => self.check_call(expr, *op, args),
            ExprKind::Var(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::CallFunction { .. }
            | ExprKind::Shuffle { .. } => {}
        }
    }

    fn check_stmt(&mut self, stmt: &Stmt) {
        let span = self.spans.current();
        match stmt.kind() {
            StmtKind::For(for_loop) => {
                // The start of `range(n)` takes the type of `n`: report the extent alone.
                if is_scalar_integer(for_loop.extent.dtype()) {
                    self.require_integer(&for_loop.min, "a loop start");
                } else {
                    self.require_integer(&for_loop.extent, "a loop extent");
                    self.mark_reported(&for_loop.min);
                }
                let var_type = for_loop.loop_var.dtype();
                if is_scalar_integer(for_loop.extent.dtype()) && for_loop.extent.dtype() != var_type
                {
                    self.operand_types_differ(
                        format!(
                            "loop variable `{}` is {} but its extent is {}",
                            for_loop.loop_var.name(),
                            var_type,
                            for_loop.extent.dtype()
                        ),
                        span,
                        "give the loop variable the type of its bounds",
                    );
                }
            }
            StmtKind::BlockRealize(realize) => {
                self.require_bool(
                    &realize.predicate,
                    "the `T.where` predicate",
                    "write a condition such as `T.where(i * 32 + j < 100)`",
                );
                for (iter_var, value) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
                    self.require_integer(value, "an iteration variable binding");
                    self.require_integer(&iter_var.dom.min, "an iteration domain start");
                    self.require_integer(&iter_var.dom.extent, "an iteration domain extent");
                    if is_scalar_integer(value.dtype()) && value.dtype() != iter_var.var.dtype() {
                        self.operand_types_differ(
                            format!(
                                "iteration variable `{}` is {} but is bound to a {} value",
                                iter_var.var.name(),
                                iter_var.var.dtype(),
                                value.dtype()
                            ),
                            self.spans.or_current(iter_var.var.span()),
                            "bind the iteration variable to a value of its own type",
                        );
                    }
                }
            }
            StmtKind::BufferStore(store) => {
                self.check_indices(&store.buffer, &store.indices, span);
                let index_lanes = store
                    .indices
                    .iter()
                    .map(|i| i.dtype().lanes)
                    .max()
                    .unwrap_or(1);
                let expected = store
                    .buffer
                    .dtype()
                    .with_lanes(store.buffer.dtype().lanes.saturating_mul(index_lanes));
                let value = &store.value;
                let lanes_reported_at_cast = matches!(value.kind(), ExprKind::Cast(operand) if operand.dtype().lanes != value.dtype().lanes);
                if lanes_reported_at_cast {
                    if let ExprKind::Cast(operand) = value.kind() {
                        if self.mark_reported(value) {
                            self.report(
                                Diagnostic::error(
                                    codes::LANES_MISMATCH,
                                    format!(
                                        "a store of {} lanes into {} elements of `{}`",
                                        operand.dtype().lanes,
                                        expected.lanes,
                                        store.buffer.name()
                                    ),
                                    span,
                                )
                                .with_help("store as many lanes as the indices select: make both slices the same length"),
                            );
                        }
                    }
                } else if value.dtype().lanes != expected.lanes {
                    self.report(
                        Diagnostic::error(
                            codes::LANES_MISMATCH,
                            format!(
                                "a store of {} lanes into {} elements of `{}`",
                                value.dtype().lanes,
                                expected.lanes,
                                store.buffer.name()
                            ),
                            span,
                        )
                        .with_help("store as many lanes as the indices select"),
                    );
                } else if value.dtype() != expected {
                    self.operand_types_differ(
                        format!(
                            "a {} value stored into `{}` of {}",
                            value.dtype(),
                            store.buffer.name(),
                            store.buffer.dtype()
                        ),
                        span,
                        "convert the value to the buffer's element type",
                    );
                }
            }
            StmtKind::IfThenElse { condition, .. } => self.require_bool(
                condition,
                "an `if` condition",
                "compare values to make a condition, for example `if i < 16:`",
            ),
            StmtKind::While { condition, .. } => self.require_bool(
                condition,
                "a `while` condition",
                "compare values to make a condition",
            ),
            StmtKind::Assert { condition, .. } => self.require_bool(
                condition,
                "an `assert` condition",
                "assert a comparison, for example `assert n > 0`",
            ),
            StmtKind::LetStmt { var, value, .. } => {
                if var.dtype() != value.dtype() {
                    self.operand_types_differ(
                        format!(
                            "`{}` is {} but is bound to a {} value",
                            var.name(),
                            var.dtype(),
                            value.dtype()
                        ),
                        span,
                        "annotate the variable with the value's type, or convert the value",
                    );
                }
            }
            StmtKind::Allocate(allocate) => {
                for extent in &allocate.extents {
                    self.require_integer(extent, "an allocation extent");
                }
                self.require_bool(
                    &allocate.condition,
                    "an allocation condition",
                    "allocate under a condition such as `True`",
                );
            }
            StmtKind::Seq(_)
            | StmtKind::Evaluate(_)
            | StmtKind::AllocBuffer { .. }
            | StmtKind::DeclBuffer { .. }
            | StmtKind::AttrStmt(_) => {}
        }
    }
}

impl Visitor for TypeChecker {
    fn visit_stmt(&mut self, stmt: &Stmt) {
        let pushed = self.spans.enter(stmt.span());
        self.check_stmt(stmt);
        walk_stmt(self, stmt);
        self.spans.leave(pushed);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        let pushed = self.spans.enter(expr.span());
        self.check_expr(expr);
        walk_expr(self, expr);
        self.spans.leave(pushed);
    }

    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        let pushed = self.spans.enter(buffer.span());
        for extent in buffer.shape() {
            self.require_integer(extent, &format!("the shape of `{}`", buffer.name()));
        }
        for stride in &buffer.node().strides {
            self.require_integer(stride, &format!("a stride of `{}`", buffer.name()));
        }
        self.spans.leave(pushed);
    }

    fn visit_buffer_region(&mut self, region: &BufferRegion) {
        for range in &region.region {
            self.require_integer(
                &range.min,
                &format!("a region bound of `{}`", region.buffer.name()),
            );
            self.require_integer(
                &range.extent,
                &format!("a region extent of `{}`", region.buffer.name()),
            );
            self.visit_range(range);
        }
    }

    fn visit_range(&mut self, range: &Range) {
        self.visit_expr(&range.min);
        self.visit_expr(&range.extent);
    }
}
