//! Evaluation of syntax-tree expressions: names, literals, operators,
//! subscripts and attribute access. Calls are in `builtins`.

use super::codes;
use super::value::{literal_expr, Subscript, Value};
use super::Lowerer;
use crate::ir::operators::{self, OperatorError};
use crate::ir::{BinaryOp, BufferLoad, Expr, ExprKind, Op};
use tirc_grammar::ast;

impl Lowerer {
    /// Evaluates an expression to a value.
    pub(crate) fn eval(&mut self, expr: &ast::Expr) -> Value {
        match &expr.kind {
            ast::ExprKind::Name(name) => self.eval_name(name, expr.span),
            ast::ExprKind::Int(v) => match i128::try_from(v.get()) {
                Ok(v) => Value::Int(v),
                Err(_) => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "integer literal is too large",
                        expr.span,
                    );
                    Value::Int(0)
                }
            },
            ast::ExprKind::Float(v) => Value::Float(*v),
            ast::ExprKind::Str(s) => Value::Str(s.clone()),
            ast::ExprKind::Bool(b) => Value::Bool(*b),
            ast::ExprKind::None => Value::None,
            ast::ExprKind::Tuple(items) => {
                Value::Tuple(items.iter().map(|e| self.eval(e)).collect())
            }
            ast::ExprKind::List(items) => Value::List(items.iter().map(|e| self.eval(e)).collect()),
            ast::ExprKind::Dict(items) => Value::Dict(
                items
                    .iter()
                    .map(|(k, v)| (self.eval(k), self.eval(v)))
                    .collect(),
            ),
            ast::ExprKind::Attribute { value, attr } => self.eval_attribute(expr, value, attr),
            ast::ExprKind::Call {
                func,
                args,
                keywords,
            } => self.eval_call(expr, func, args, keywords),
            ast::ExprKind::Subscript { value, indices } => {
                self.eval_subscript(expr, value, indices)
            }
            ast::ExprKind::BinOp { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs), self.eval(rhs));
                self.binary_op(*op, a, b, expr.span)
            }
            ast::ExprKind::UnaryOp { op, operand } => {
                let value = self.eval(operand);
                self.unary_op(*op, value, expr.span)
            }
            ast::ExprKind::BoolOp { op, lhs, rhs } => {
                let (a, b) = (self.eval(lhs), self.eval(rhs));
                self.bool_op(*op, a, b, expr.span)
            }
            ast::ExprKind::Compare { left, rest } => {
                let mut lhs = self.eval(left);
                let mut result: Option<Value> = None;
                for (op, operand) in rest {
                    let rhs = self.eval(operand);
                    let comparison = self.compare(*op, lhs, rhs.clone(), expr.span);
                    result = Some(match result {
                        None => comparison,
                        Some(previous) => {
                            self.bool_op(ast::BoolOp::And, previous, comparison, expr.span)
                        }
                    });
                    lhs = rhs;
                }
                result.unwrap_or(Value::Bool(true))
            }
            ast::ExprKind::IfExp { test, body, orelse } => {
                let condition = self.eval(test);
                match condition {
                    Value::Bool(true) => self.eval(body),
                    Value::Bool(false) => self.eval(orelse),
                    other => {
                        let condition = self.expr_of_value(other, test.span);
                        let a = self.eval_expr(body);
                        let b = self.eval_expr(orelse);
                        self.apply(operators::if_then_else(condition, a, b), expr.span)
                    }
                }
            }
            ast::ExprKind::Slice { .. } => {
                self.error(
                    codes::MISPLACED,
                    "a slice is only allowed inside `[]`",
                    expr.span,
                );
                Value::Int(0)
            }
            ast::ExprKind::Lambda { .. } | ast::ExprKind::Starred(_) => {
                self.error(
                    codes::UNSUPPORTED,
                    "this Python construct is not part of TVMScript",
                    expr.span,
                );
                Value::Int(0)
            }
            ast::ExprKind::Error => Value::Int(0),
        }
    }

    /// Evaluates an expression that must be an IR expression.
    pub(crate) fn eval_expr(&mut self, expr: &ast::Expr) -> Expr {
        let value = self.eval(expr);
        self.expr_of_value(value, expr.span)
    }

    /// Converts a value to an IR expression (literals by TVM's rules, a sliced
    /// buffer to a vector load); reports an error for anything else.
    pub(crate) fn expr_of_value(&mut self, value: Value, span: ast::Span) -> Expr {
        let ir_span = self.span(span);
        if let Value::Poison = value {
            return Expr::i32(0).with_span(ir_span);
        }
        if let Value::Scalar(buffer) = &value {
            let zero = Expr::zero(buffer.shape()[0].dtype());
            return Expr::load(buffer, vec![zero]).with_span(ir_span);
        }
        if let Value::Subscripted(buffer, subscripts) = &value {
            return self.vector_load(buffer, subscripts, span);
        }
        match literal_expr(&value, ir_span) {
            Some(expr) => expr,
            None => {
                self.error(
                    codes::TYPE_MISMATCH,
                    format!("expected an expression, found {}", value.describe()),
                    span,
                );
                Expr::i32(0)
            }
        }
    }

    /// A load with slices becomes a load with `Ramp` indices (`A[0:8]`).
    fn vector_load(
        &mut self,
        buffer: &crate::ir::Buffer,
        subscripts: &[Subscript],
        span: ast::Span,
    ) -> Expr {
        let mut indices = Vec::new();
        for subscript in subscripts {
            match subscript {
                Subscript::Index(e) => indices.push(e.clone()),
                Subscript::Slice { start, stop, step } => {
                    let start = start.clone().unwrap_or_else(|| Expr::i32(0));
                    let step = step.clone().unwrap_or_else(|| Expr::one(start.dtype()));
                    let lanes = stop.as_ref().and_then(|stop| {
                        let length = operators::sub(stop.clone(), start.clone()).ok()?;
                        let length = crate::analysis::simplify_index(&length);
                        let (length, step) = (length.as_int()?, step.as_int()?);
                        // Lazily: a zero step must not be divided by.
                        (step > 0 && length > 0).then(|| (length - 1) / step + 1)
                    });
                    match lanes {
                        // One element is a scalar index, as TVM's `Buffer.__getitem__` makes it.
                        Some(1) => indices.push(start),
                        Some(lanes) if lanes <= u16::MAX as i64 => {
                            let lanes = lanes as u16;
                            let dtype = start.dtype().with_lanes(lanes);
                            let step = operators::cast(start.dtype(), step);
                            indices.push(Expr::new(
                                ExprKind::Ramp {
                                    base: start,
                                    stride: step,
                                    lanes,
                                },
                                dtype,
                                self.span(span),
                            ));
                        }
                        _ => {
                            self.error(
                                codes::BAD_ARGUMENTS,
                                "a vector slice needs constant bounds and a positive constant step",
                                span,
                            );
                            indices.push(start);
                        }
                    }
                }
            }
        }
        Expr::load(buffer, indices).with_span(self.span(span))
    }

    fn eval_name(&mut self, name: &str, span: ast::Span) -> Value {
        if let Some(value) = self.lookup(name).cloned() {
            if self.record_symbols {
                self.symbols.record_use(self.span(span), &value);
            }
            return value;
        }
        if !self.reported_undefined.contains(name) {
            self.reported_undefined.insert(name.to_string());
            let candidates = self.visible_names();
            let suggestion = super::suggest(name, candidates.iter().map(String::as_str));
            let mut diagnostic = crate::diagnostics::Diagnostic::error(
                codes::UNDEFINED_NAME,
                format!("undefined name `{name}`"),
                self.span(span),
            )
            .with_label("not defined in this scope");
            if let Some(s) = suggestion {
                diagnostic =
                    diagnostic.with_help(format!("a name with a similar spelling exists: `{s}`"));
            }
            self.report(diagnostic);
        }
        // Later uses of the name are silent: one mistake gives one diagnostic.
        self.undefined.push((name.to_string(), Value::Poison));
        Value::Poison
    }

    fn eval_attribute(&mut self, whole: &ast::Expr, value: &ast::Expr, attr: &ast::Ident) -> Value {
        if let Some(path) = whole.dotted_name() {
            let head = path.split('.').next().unwrap_or("");
            if self.lookup(head).is_none() {
                if let Some(name) = super::builtin_name(&path) {
                    return self.builtin_constant(name, whole.span);
                }
            }
        }
        let object = self.eval(value);
        if let Value::Poison = object {
            return Value::Poison;
        }
        match (&object, attr.name.as_str()) {
            (Value::Buffer(buffer), "data") => Value::Expr(buffer.data().to_expr()),
            (Value::Buffer(buffer), "elem_offset") => {
                Value::Expr(buffer.node().elem_offset.clone())
            }
            (Value::Buffer(buffer), "shape") => {
                Value::Tuple(buffer.shape().iter().cloned().map(Value::Expr).collect())
            }
            (Value::Buffer(buffer), "strides") => Value::Tuple(
                buffer
                    .node()
                    .strides
                    .iter()
                    .cloned()
                    .map(Value::Expr)
                    .collect(),
            ),
            (Value::Buffer(buffer), "dtype") => Value::Str(buffer.dtype().to_string()),
            (Value::Buffer(buffer), "scope") => Value::Str(buffer.scope().to_string()),
            _ => {
                self.error(
                    codes::UNSUPPORTED,
                    format!("{} has no attribute `{}`", object.describe(), attr.name),
                    attr.span,
                );
                Value::Int(0)
            }
        }
    }

    fn eval_subscript(
        &mut self,
        whole: &ast::Expr,
        value: &ast::Expr,
        indices: &[ast::Expr],
    ) -> Value {
        // `T.Buffer[(128, 128), "float32"]`: the old annotation syntax. A plain
        // name (`A[i]`, the common case) cannot be that path.
        let attribute_chain = matches!(value.kind, ast::ExprKind::Attribute { .. });
        if let Some(path) = attribute_chain.then(|| value.dotted_name()).flatten() {
            if super::builtin_name(&path) == Some("Buffer") && self.lookup("T").is_none() {
                return self.buffer_annotation_subscript(whole, indices);
            }
        }
        let object = self.eval(value);
        match object {
            Value::Poison => Value::Poison,
            Value::Buffer(buffer) => {
                let mut subscripts = Vec::new();
                // `A[()]` indexes a zero-dimensional buffer.
                let flat: Vec<&ast::Expr> = match indices {
                    [single] if matches!(&single.kind, ast::ExprKind::Tuple(items) if items.is_empty()) => {
                        Vec::new()
                    }
                    _ => indices.iter().collect(),
                };
                for index in flat {
                    if let ast::ExprKind::Slice { lower, upper, step } = &index.kind {
                        let mut eval_part = |part: &Option<Box<ast::Expr>>| {
                            part.as_ref().map(|p| self.eval_expr(p))
                        };
                        let start = eval_part(lower);
                        let stop = eval_part(upper);
                        let step = eval_part(step);
                        subscripts.push(Subscript::Slice { start, stop, step });
                    } else {
                        subscripts.push(Subscript::Index(self.eval_expr(index)));
                    }
                }
                if subscripts.iter().all(|s| matches!(s, Subscript::Index(_))) {
                    let indices = subscripts
                        .into_iter()
                        .map(|s| match s {
                            Subscript::Index(e) => e,
                            Subscript::Slice { .. } => unreachable!("checked above"),
                        })
                        .collect();
                    let load = Expr::load(&buffer, indices);
                    Value::Expr(load.with_span(self.span(whole.span)))
                } else {
                    Value::Subscripted(buffer, subscripts)
                }
            }
            Value::Tuple(items) | Value::List(items) if indices.len() == 1 => {
                match self.eval(&indices[0]) {
                    Value::Int(i) if i >= 0 && (i as usize) < items.len() => {
                        items[i as usize].clone()
                    }
                    _ => {
                        self.error(codes::BAD_ARGUMENTS, "index out of range", indices[0].span);
                        Value::Int(0)
                    }
                }
            }
            other => {
                self.error(
                    codes::TYPE_MISMATCH,
                    format!("{} cannot be indexed", other.describe()),
                    value.span,
                );
                Value::Int(0)
            }
        }
    }

    /// Turns an operator result into a value, reporting a failure at `span`.
    pub(crate) fn apply(&mut self, result: Result<Expr, OperatorError>, span: ast::Span) -> Value {
        match result {
            Ok(expr) => {
                let expr = if expr.span().is_known() {
                    expr
                } else {
                    expr.with_span(self.span(span))
                };
                Value::Expr(expr)
            }
            Err(OperatorError(message)) => {
                let code = if message.contains("division by zero") {
                    codes::DIVISION_BY_ZERO
                } else {
                    codes::TYPE_MISMATCH
                };
                self.error(code, message, span);
                Value::Expr(Expr::i32(0))
            }
        }
    }

    fn python_int_op(&mut self, op: ast::BinOp, a: i128, b: i128, span: ast::Span) -> Value {
        let result = match op {
            ast::BinOp::Add => a.checked_add(b),
            ast::BinOp::Sub => a.checked_sub(b),
            ast::BinOp::Mul => a.checked_mul(b),
            ast::BinOp::FloorDiv | ast::BinOp::Mod if b == 0 => {
                self.error(codes::DIVISION_BY_ZERO, "division by zero", span);
                return Value::Int(0);
            }
            ast::BinOp::FloorDiv => crate::arith::floor_div_i128(a, b),
            ast::BinOp::Mod => crate::arith::floor_mod_i128(a, b),
            ast::BinOp::Div => {
                if b == 0 {
                    self.error(codes::DIVISION_BY_ZERO, "division by zero", span);
                    return Value::Int(0);
                }
                return Value::Float(a as f64 / b as f64);
            }
            ast::BinOp::Pow => u32::try_from(b).ok().and_then(|b| a.checked_pow(b)),
            ast::BinOp::LShift => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
            ast::BinOp::RShift => u32::try_from(b).ok().map(|b| a >> b.min(127)),
            ast::BinOp::BitAnd => Some(a & b),
            ast::BinOp::BitOr => Some(a | b),
            ast::BinOp::BitXor => Some(a ^ b),
            ast::BinOp::MatMul => None,
        };
        match result {
            Some(v) => Value::Int(v),
            None => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("cannot compute `{}` on these integers", op.symbol()),
                    span,
                );
                Value::Int(0)
            }
        }
    }

    /// A binary operator with Python semantics on literals and TVM's on IR.
    pub(crate) fn binary_op(
        &mut self,
        op: ast::BinOp,
        a: Value,
        b: Value,
        span: ast::Span,
    ) -> Value {
        let as_float = |v: &Value| match v {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        };
        match (&a, &b) {
            (Value::Int(x), Value::Int(y)) => return self.python_int_op(op, *x, *y, span),
            (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
                let (x, y) = (as_float(&a).unwrap_or(0.0), as_float(&b).unwrap_or(0.0));
                let result = match op {
                    ast::BinOp::Add => x + y,
                    ast::BinOp::Sub => x - y,
                    ast::BinOp::Mul => x * y,
                    ast::BinOp::Div => x / y,
                    ast::BinOp::FloorDiv => (x / y).floor(),
                    ast::BinOp::Mod => x - y * (x / y).floor(),
                    ast::BinOp::Pow => x.powf(y),
                    _ => {
                        self.error(
                            codes::TYPE_MISMATCH,
                            format!("`{}` needs integers", op.symbol()),
                            span,
                        );
                        0.0
                    }
                };
                return Value::Float(result);
            }
            _ => {}
        }
        let a = self.expr_of_value(a, span);
        let b = self.expr_of_value(b, span);
        let result = match op {
            ast::BinOp::Add => operators::add(a, b),
            ast::BinOp::Sub => operators::sub(a, b),
            ast::BinOp::Mul => operators::mul(a, b),
            ast::BinOp::FloorDiv => operators::floordiv(a, b),
            ast::BinOp::Mod => operators::floormod(a, b),
            ast::BinOp::Div => {
                if a.dtype().is_integer() && b.dtype().is_integer() {
                    self.report(
                        crate::diagnostics::Diagnostic::error(
                            codes::TYPE_MISMATCH,
                            "`/` is ambiguous between integers",
                            self.span(span),
                        )
                        .with_help("use `//` for floor division or `T.truncdiv(a, b)` for C-style division"),
                    );
                    return Value::Expr(Expr::i32(0));
                }
                operators::binary(BinaryOp::Div, a, b)
            }
            ast::BinOp::Pow => operators::match_types(a, b).map(|(a, b)| {
                let dtype = a.dtype();
                Expr::call(Op::named("pow"), vec![a, b], dtype)
            }),
            ast::BinOp::LShift
            | ast::BinOp::RShift
            | ast::BinOp::BitAnd
            | ast::BinOp::BitOr
            | ast::BinOp::BitXor => {
                let name = match op {
                    ast::BinOp::LShift => "shift_left",
                    ast::BinOp::RShift => "shift_right",
                    ast::BinOp::BitAnd => "bitwise_and",
                    ast::BinOp::BitOr => "bitwise_or",
                    _ => "bitwise_xor",
                };
                operators::match_types(a, b).map(|(a, b)| {
                    let dtype = a.dtype();
                    Expr::call(Op::named(name), vec![a, b], dtype)
                })
            }
            ast::BinOp::MatMul => Err(OperatorError("`@` is not a TIR operator".to_string())),
        };
        self.apply(result, span)
    }

    fn unary_op(&mut self, op: ast::UnaryOp, value: Value, span: ast::Span) -> Value {
        match (op, value) {
            (_, Value::Poison) => Value::Poison,
            (ast::UnaryOp::Neg, Value::Int(v)) => Value::Int(-v),
            (ast::UnaryOp::Neg, Value::Float(v)) => Value::Float(-v),
            (ast::UnaryOp::Pos, v @ (Value::Int(_) | Value::Float(_))) => v,
            (ast::UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
            (ast::UnaryOp::Invert, Value::Int(v)) => Value::Int(!v),
            (op, value) => {
                let expr = self.expr_of_value(value, span);
                let result = match op {
                    ast::UnaryOp::Neg => operators::neg(expr),
                    ast::UnaryOp::Pos => Ok(expr),
                    ast::UnaryOp::Not => operators::logical_not(expr),
                    ast::UnaryOp::Invert => {
                        let dtype = expr.dtype();
                        Ok(Expr::call(Op::named("bitwise_not"), vec![expr], dtype))
                    }
                };
                self.apply(result, span)
            }
        }
    }

    pub(crate) fn bool_op(
        &mut self,
        op: ast::BoolOp,
        a: Value,
        b: Value,
        span: ast::Span,
    ) -> Value {
        if let (Value::Bool(x), Value::Bool(y)) = (&a, &b) {
            return Value::Bool(match op {
                ast::BoolOp::And => *x && *y,
                ast::BoolOp::Or => *x || *y,
            });
        }
        let a = self.expr_of_value(a, span);
        let b = self.expr_of_value(b, span);
        let op = match op {
            ast::BoolOp::And => BinaryOp::And,
            ast::BoolOp::Or => BinaryOp::Or,
        };
        self.apply(operators::binary(op, a, b), span)
    }

    fn compare(&mut self, op: ast::CmpOp, a: Value, b: Value, span: ast::Span) -> Value {
        if matches!(a, Value::Poison) || matches!(b, Value::Poison) {
            return Value::Poison;
        }
        let binary = match op {
            ast::CmpOp::Eq => BinaryOp::Eq,
            ast::CmpOp::NotEq => BinaryOp::Ne,
            ast::CmpOp::Lt => BinaryOp::Lt,
            ast::CmpOp::LtE => BinaryOp::Le,
            ast::CmpOp::Gt => BinaryOp::Gt,
            ast::CmpOp::GtE => BinaryOp::Ge,
            _ => {
                self.error(
                    codes::UNSUPPORTED,
                    format!("`{}` is not a TIR comparison", op.symbol()),
                    span,
                );
                return Value::Bool(false);
            }
        };
        let numeric = |v: &Value| match v {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        };
        if let (Some(x), Some(y)) = (numeric(&a), numeric(&b)) {
            let result = match binary {
                BinaryOp::Eq => x == y,
                BinaryOp::Ne => x != y,
                BinaryOp::Lt => x < y,
                BinaryOp::Le => x <= y,
                BinaryOp::Gt => x > y,
                _ => x >= y,
            };
            return Value::Bool(result);
        }
        let a = self.expr_of_value(a, span);
        let b = self.expr_of_value(b, span);
        self.apply(operators::binary(binary, a, b), span)
    }

    /// A buffer load's region as points, for `T.reads(A[i, j])`.
    pub(crate) fn load_as_subscripts(load: &BufferLoad) -> Vec<Subscript> {
        load.indices.iter().cloned().map(Subscript::Index).collect()
    }
}
