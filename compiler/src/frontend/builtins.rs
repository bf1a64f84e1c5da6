//! Value-producing `T.*` builtins: typed constants and casts, node
//! constructors (`T.Cast`, `T.Select`, `T.Add`, ...), math and intrinsic calls
//! from the operator table, and buffer annotations.

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::builtin::{DtypePosition, ResultRule};
use crate::ir::operators::{self, make_const_float, make_const_int};
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Op, Range};
use tirc_grammar::ast;

/// Builtins that are statements or loop headers: valid only in those positions.
const STATEMENT_BUILTINS: &[&str] = &[
    "grid",
    "serial",
    "parallel",
    "vectorized",
    "unroll",
    "thread_binding",
    "block",
    "sblock",
    "init",
    "reads",
    "writes",
    "where",
    "block_attr",
    "sblock_attr",
    "func_attr",
    "evaluate",
    "alloc_buffer",
    "sblock_alloc_buffer",
    "match_buffer",
    "decl_buffer",
    "allocate",
    "launch_thread",
    "attr",
    "axis.spatial",
    "axis.reduce",
    "axis.scan",
    "axis.opaque",
    "axis.remap",
    "axis.S",
    "axis.R",
    "prim_func",
    "LetStmt",
    "Assert",
];

/// Node constructors that build the node as written, without folding.
fn node_constructor(name: &str) -> Option<BinaryOp> {
    Some(match name {
        "Add" => BinaryOp::Add,
        "Sub" => BinaryOp::Sub,
        "Mul" => BinaryOp::Mul,
        "Div" => BinaryOp::Div,
        "Mod" => BinaryOp::Mod,
        "FloorDiv" => BinaryOp::FloorDiv,
        "FloorMod" => BinaryOp::FloorMod,
        "Min" => BinaryOp::Min,
        "Max" => BinaryOp::Max,
        "EQ" => BinaryOp::Eq,
        "NE" => BinaryOp::Ne,
        "LT" => BinaryOp::Lt,
        "LE" => BinaryOp::Le,
        "GT" => BinaryOp::Gt,
        "GE" => BinaryOp::Ge,
        "And" => BinaryOp::And,
        "Or" => BinaryOp::Or,
        _ => return None,
    })
}

/// Functions with TVM's folding semantics (`tvm::min`, `tvm::truncdiv`, ...).
fn folding_function(name: &str) -> Option<BinaryOp> {
    Some(match name {
        "min" => BinaryOp::Min,
        "max" => BinaryOp::Max,
        "truncdiv" => BinaryOp::Div,
        "truncmod" => BinaryOp::Mod,
        "floordiv" => BinaryOp::FloorDiv,
        "floormod" => BinaryOp::FloorMod,
        _ => return None,
    })
}

impl Lowerer {
    /// `T.float32`, `T.handle` and similar, used without a call.
    pub(crate) fn builtin_constant(&mut self, name: &str, span: ast::Span) -> Value {
        if name == "handle" {
            return Value::Pointer(DataType::void(), "global".to_string());
        }
        if let Some(dtype) = DataType::parse_known(name) {
            return Value::DType(dtype);
        }
        let known = Op::lookup(name).is_some()
            || STATEMENT_BUILTINS.contains(&name)
            || node_constructor(name).is_some()
            || folding_function(name).is_some();
        if known {
            self.error(codes::MISPLACED, format!("`T.{name}` must be called"), span);
        } else {
            self.unknown_builtin(name, span);
        }
        Value::Poison
    }

    fn unknown_builtin(&mut self, name: &str, span: ast::Span) {
        let mut candidates: Vec<&str> = Op::all().map(|op| op.name()).collect();
        candidates.extend(STATEMENT_BUILTINS);
        candidates.extend([
            "Cast",
            "Select",
            "Ramp",
            "Broadcast",
            "Shuffle",
            "if_then_else",
            "abs",
            "Buffer",
        ]);
        // `T.flaot32(0.0)` means a dtype constructor.
        candidates.extend(crate::ir::dtype::KNOWN_SCALARS.iter().copied());
        let mut diagnostic = Diagnostic::error(
            codes::UNKNOWN_BUILTIN,
            format!("unknown builtin `T.{name}`"),
            self.span(span),
        );
        if let Some(s) = super::suggest(name, candidates) {
            diagnostic = diagnostic.with_help(format!("did you mean `T.{s}`?"));
        }
        self.report(diagnostic);
    }

    /// The lane count of `T.Ramp` or `T.Broadcast`: a constant from 2 to
    /// 65535, as in TVM (one lane is a scalar, not a vector).
    fn vector_lanes(&mut self, name: &str, arg: &ast::Expr) -> u16 {
        const MAX_LANES: i64 = u16::MAX as i64;
        // A lane count that is not a constant has been reported already.
        let Some(lanes) = self.try_eval_int(arg, "lanes") else {
            return 2;
        };
        if !(2..=MAX_LANES).contains(&lanes) {
            let found = if lanes > MAX_LANES {
                format!("more than {MAX_LANES}")
            } else {
                lanes.to_string()
            };
            self.error(
                codes::BAD_ARGUMENTS,
                format!("`T.{name}` takes 2 to {MAX_LANES} lanes, found {found}"),
                arg.span,
            );
        }
        lanes.clamp(2, MAX_LANES) as u16
    }

    fn expect_args(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        count: usize,
        span: ast::Span,
    ) -> bool {
        if args.len() == count {
            return true;
        }
        self.error(
            codes::BAD_ARGUMENTS,
            format!(
                "`T.{name}` takes {count} argument{}, found {}",
                if count == 1 { "" } else { "s" },
                args.len()
            ),
            span,
        );
        false
    }

    /// Evaluates a call expression.
    pub(crate) fn eval_call(
        &mut self,
        whole: &ast::Expr,
        func: &ast::Expr,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
    ) -> Value {
        let path = func.dotted_name();
        let builtin = path.as_deref().and_then(|p| {
            let head = p.split('.').next().unwrap_or("");
            if self.lookup(head).is_some() {
                None
            } else {
                super::builtin_name(p)
            }
        });
        if let Some(call) = self.module_function_call(path.as_deref(), args, whole.span) {
            return call;
        }
        let Some(name) = builtin else {
            self.error(
                codes::UNSUPPORTED,
                match path {
                    Some(p) => format!("`{p}` cannot be called here"),
                    None => "this expression cannot be called".to_string(),
                },
                func.span,
            );
            return Value::Int(0);
        };
        let span = whole.span;
        // Typed constants and casts: `T.float32(1)`, `T.int64(n)`.
        if let Some(dtype) = DataType::parse_known(name) {
            return self.typed_value(name, dtype, args, span);
        }
        if let Some(op) = node_constructor(name) {
            if !self.expect_args(name, args, 2, span) {
                return Value::Expr(Expr::i32(0));
            }
            let (a, b) = (self.eval_expr(&args[0]), self.eval_expr(&args[1]));
            return match operators::match_types(a, b) {
                Ok((a, b)) => Value::Expr(Expr::binary(op, a, b).with_span(self.span(span))),
                Err(e) => self.apply(Err(e), span),
            };
        }
        if let Some(op) = folding_function(name) {
            if !self.expect_args(name, args, 2, span) {
                return Value::Expr(Expr::i32(0));
            }
            let (a, b) = (self.eval_expr(&args[0]), self.eval_expr(&args[1]));
            return self.apply(operators::binary(op, a, b), span);
        }
        match name {
            "Cast" => {
                if !self.expect_args(name, args, 2, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let dtype = self.eval_dtype(&args[0]);
                let value = self.eval_expr(&args[1]);
                Value::Expr(Expr::new(ExprKind::Cast(value), dtype, self.span(span)))
            }
            "Not" => {
                if !self.expect_args(name, args, 1, span) {
                    return Value::Expr(Expr::bool(false));
                }
                let value = self.eval_expr(&args[0]);
                Value::Expr(Expr::new(
                    ExprKind::Not(value),
                    DataType::bool(),
                    self.span(span),
                ))
            }
            "Select" => {
                if !self.expect_args(name, args, 3, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let condition = self.eval_expr(&args[0]);
                let (a, b) = (self.eval_expr(&args[1]), self.eval_expr(&args[2]));
                match operators::match_types(a, b) {
                    Ok((a, b)) => {
                        let dtype = a.dtype();
                        Value::Expr(Expr::new(
                            ExprKind::Select(condition, a, b),
                            dtype,
                            self.span(span),
                        ))
                    }
                    Err(e) => self.apply(Err(e), span),
                }
            }
            "if_then_else" => {
                if !self.expect_args(name, args, 3, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let condition = self.eval_expr(&args[0]);
                let (a, b) = (self.eval_expr(&args[1]), self.eval_expr(&args[2]));
                self.apply(operators::if_then_else(condition, a, b), span)
            }
            "abs" => {
                if !self.expect_args(name, args, 1, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let value = self.eval_expr(&args[0]);
                if value.dtype().is_float() {
                    let dtype = value.dtype();
                    Value::Expr(
                        Expr::call(Op::named("fabs"), vec![value], dtype)
                            .with_span(self.span(span)),
                    )
                } else {
                    let zero = Expr::zero(value.dtype());
                    let negated = operators::neg(value.clone());
                    let condition = operators::binary(BinaryOp::Ge, value.clone(), zero);
                    match (negated, condition) {
                        (Ok(negated), Ok(condition)) => {
                            let dtype = value.dtype();
                            Value::Expr(Expr::new(
                                ExprKind::Select(condition, value, negated),
                                dtype,
                                self.span(span),
                            ))
                        }
                        (Err(e), _) | (_, Err(e)) => self.apply(Err(e), span),
                    }
                }
            }
            "Ramp" => {
                if !self.expect_args(name, args, 3, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let base = self.eval_expr(&args[0]);
                let stride = self.eval_expr(&args[1]);
                let lanes = self.vector_lanes(name, &args[2]);
                let stride = operators::cast(base.dtype(), stride);
                let dtype = base.dtype().with_lanes(lanes);
                Value::Expr(Expr::new(
                    ExprKind::Ramp {
                        base,
                        stride,
                        lanes,
                    },
                    dtype,
                    self.span(span),
                ))
            }
            "Broadcast" => {
                if !self.expect_args(name, args, 2, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let value = self.eval_expr(&args[0]);
                let lanes = self.vector_lanes(name, &args[1]);
                let dtype = value.dtype().with_lanes(lanes);
                Value::Expr(Expr::new(
                    ExprKind::Broadcast { value, lanes },
                    dtype,
                    self.span(span),
                ))
            }
            "Shuffle" => {
                if !self.expect_args(name, args, 2, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let vectors = self.eval_expr_list(&args[0]);
                let indices = self.eval_expr_list(&args[1]);
                if vectors.is_empty() || indices.is_empty() {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "`T.Shuffle` needs at least one vector and one index",
                        span,
                    );
                }
                let element = vectors
                    .first()
                    .map(|v| v.dtype().element_of())
                    .unwrap_or(DataType::int32());
                let dtype = element.with_lanes(indices.len().max(1) as u16);
                Value::Expr(Expr::new(
                    ExprKind::Shuffle { vectors, indices },
                    dtype,
                    self.span(span),
                ))
            }
            "Range" => {
                if !self.expect_args(name, args, 2, span) {
                    return Value::Int(0);
                }
                let begin = self.eval_expr(&args[0]);
                let end = self.eval_expr(&args[1]);
                match operators::sub(end, begin.clone()) {
                    Ok(extent) => Value::Range(Range::new(begin, extent)),
                    Err(e) => self.apply(Err(e), span),
                }
            }
            "infinity" | "max_value" | "min_value" => {
                if !self.expect_args(name, args, 1, span) {
                    return Value::Expr(Expr::i32(0));
                }
                let dtype = self.eval_dtype(&args[0]);
                Value::Expr(limit_value(name, dtype).with_span(self.span(span)))
            }
            "handle" => {
                let element = match args.first() {
                    Some(a) => self.eval_dtype(a),
                    None => DataType::void(),
                };
                let mut scope = match args.get(1) {
                    Some(a) => self.eval_string(a, "storage_scope"),
                    None => "global".to_string(),
                };
                for keyword in keywords {
                    match keyword.name.name.as_str() {
                        "storage_scope" => {
                            scope = self.eval_string(&keyword.value, "storage_scope")
                        }
                        "dtype" => {}
                        other => {
                            self.error(
                                codes::BAD_ARGUMENTS,
                                format!("unknown argument `{other}` of T.handle"),
                                keyword.name.span,
                            );
                        }
                    }
                }
                Value::Pointer(element, scope)
            }
            "comm_reducer" => self.comm_reducer(args, span),
            "call_intrin" => self.call_intrin(args, span),
            "Let" => self.let_expression(args, keywords, span),
            "target" => match args.first().map(|a| self.eval(a)) {
                Some(Value::Dict(items)) if args.len() == 1 => Value::Target(items),
                Some(Value::Str(kind)) if args.len() == 1 => {
                    Value::Target(vec![(Value::Str("kind".to_string()), Value::Str(kind))])
                }
                _ => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "`T.target` takes a configuration dict",
                        span,
                    );
                    Value::Poison
                }
            },
            "Buffer" => {
                let args = self.buffer_args(args, keywords, span);
                Value::BufferAnnotation(self.make_buffer("buffer", args, span))
            }
            _ => {
                if let Some(op) = Op::lookup(name).or_else(|| Op::vendor_intrinsic(name)) {
                    return self.op_call(op, args, span);
                }
                if STATEMENT_BUILTINS.contains(&name) {
                    self.error(
                        codes::MISPLACED,
                        format!("`T.{name}` is a statement and cannot be used as a value here"),
                        span,
                    );
                } else {
                    self.unknown_builtin(name, func.span);
                }
                Value::Poison
            }
        }
    }

    /// `Module.helper(x)`: a call of another function of the module.
    fn module_function_call(
        &mut self,
        path: Option<&str>,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> Option<Value> {
        let (class, function) = path?.split_once('.')?;
        if Some(class) != self.module_class.as_deref() {
            return None;
        }
        let ret_type = *self.module_functions.get(function)?;
        let args = args.iter().map(|a| self.eval_expr(a)).collect();
        Some(Value::Expr(Expr::new(
            ExprKind::CallFunction {
                name: function.to_string(),
                args,
            },
            ret_type,
            self.span(span),
        )))
    }

    /// `T.call_intrin(dtype, "tir.name", args...)`: a builtin call as written,
    /// without the folding its `T.name(...)` spelling applies.
    fn call_intrin(&mut self, args: &[ast::Expr], span: ast::Span) -> Value {
        let [dtype, name, rest @ ..] = args else {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.call_intrin` takes a dtype, an operator name and arguments",
                span,
            );
            return Value::Poison;
        };
        let dtype = self.eval_dtype(dtype);
        let op_name = self.eval_string(name, "operator name");
        let Some(op) = Op::lookup(&op_name) else {
            self.error(
                codes::UNKNOWN_BUILTIN,
                format!("unknown operator \"{op_name}\""),
                name.span,
            );
            return Value::Poison;
        };
        let values = rest.iter().map(|a| self.eval_expr(a)).collect();
        Value::Expr(Expr::call(op, values, dtype).with_span(self.span(span)))
    }

    /// `T.Let(body, where={v: value})`: an expression with a let-bound variable.
    fn let_expression(
        &mut self,
        args: &[ast::Expr],
        keywords: &[ast::Keyword],
        span: ast::Span,
    ) -> Value {
        let binding = keywords
            .iter()
            .find(|k| k.name.name == "where")
            .map(|k| &k.value);
        let (
            Some(body),
            Some(ast::Expr {
                kind: ast::ExprKind::Dict(items),
                ..
            }),
        ) = (args.first(), binding)
        else {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.Let` takes a body and `where={var: value}`",
                span,
            );
            return Value::Poison;
        };
        let [(name, value)] = items.as_slice() else {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.Let` binds exactly one variable",
                span,
            );
            return Value::Poison;
        };
        let ast::ExprKind::Name(name_text) = &name.kind else {
            self.error(codes::BAD_ARGUMENTS, "`T.Let` binds a name", name.span);
            return Value::Poison;
        };
        let value = self.eval_expr(value);
        // The bound variable may be declared already (`x = T.int32()`), as TVM prints it.
        let declared = match self.lookup(name_text) {
            Some(Value::Expr(e)) => e.as_var().cloned(),
            _ => None,
        };
        self.push_scope();
        let var = declared.unwrap_or_else(|| {
            crate::ir::Var::new(name_text.as_str(), value.dtype(), self.span(name.span))
        });
        self.bind(name_text, Value::Expr(var.to_expr()));
        let body = self.eval_expr(body);
        self.pop_scope();
        let dtype = body.dtype();
        Value::Expr(Expr::new(
            ExprKind::Let { var, value, body },
            dtype,
            self.span(span),
        ))
    }

    /// `T.comm_reducer(lambda x, y: x + y, [identity])`.
    fn comm_reducer(&mut self, args: &[ast::Expr], span: ast::Span) -> Value {
        let [lambda, identity] = args else {
            self.error(
                codes::BAD_ARGUMENTS,
                "`T.comm_reducer` takes a lambda and a list of identity elements",
                span,
            );
            return Value::Poison;
        };
        let ast::ExprKind::Lambda { params, body } = &lambda.kind else {
            self.error(
                codes::BAD_ARGUMENTS,
                "the combiner of `T.comm_reducer` must be a lambda",
                lambda.span,
            );
            return Value::Poison;
        };
        let identity = self.eval_expr_list(identity);
        if params.len() != 2 * identity.len() {
            self.error(
                codes::BAD_ARGUMENTS,
                "the combiner takes two parameters per identity element",
                lambda.span,
            );
            return Value::Poison;
        }
        self.push_scope();
        let vars: Vec<crate::ir::Var> = params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let dtype = identity[i % identity.len()].dtype();
                let var = crate::ir::Var::new(p.name.as_str(), dtype, self.span(p.span));
                self.bind(&p.name, Value::Expr(var.to_expr()));
                var
            })
            .collect();
        let result = match &body.kind {
            ast::ExprKind::Tuple(items) => items.iter().map(|e| self.eval_expr(e)).collect(),
            _ => vec![self.eval_expr(body)],
        };
        self.pop_scope();
        let (lhs, rhs) = vars.split_at(identity.len());
        Value::Reducer(crate::ir::CommReducer {
            lhs: lhs.to_vec(),
            rhs: rhs.to_vec(),
            result,
            identity,
        })
    }

    fn eval_expr_list(&mut self, expr: &ast::Expr) -> Vec<Expr> {
        match &expr.kind {
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
                items.iter().map(|e| self.eval_expr(e)).collect()
            }
            _ => vec![self.eval_expr(expr)],
        }
    }

    /// `T.float32(1.5)`, `T.int64(n)`, `T.bool(True)`, `T.float32("inf")`.
    fn typed_value(
        &mut self,
        name: &str,
        dtype: DataType,
        args: &[ast::Expr],
        span: ast::Span,
    ) -> Value {
        let ir_span = self.span(span);
        match args {
            [] => {
                self.error(
                    codes::MISPLACED,
                    format!("`T.{name}()` declares a variable: write `n = T.{name}()`"),
                    span,
                );
                Value::Expr(Expr::zero(dtype))
            }
            [arg] => match self.eval(arg) {
                Value::Int(v) => Value::Expr(make_const_int(dtype, v as i64).with_span(ir_span)),
                Value::Bool(v) => Value::Expr(make_const_int(dtype, v as i64).with_span(ir_span)),
                Value::Float(v) => Value::Expr(make_const_float(dtype, v).with_span(ir_span)),
                Value::Str(text) => {
                    let parsed = match text.as_str() {
                        "inf" => Some(f64::INFINITY),
                        "-inf" => Some(f64::NEG_INFINITY),
                        "nan" => Some(f64::NAN),
                        other => other.parse::<f64>().ok(),
                    };
                    match parsed {
                        Some(v) => Value::Expr(make_const_float(dtype, v).with_span(ir_span)),
                        None => {
                            self.error(
                                codes::BAD_ARGUMENTS,
                                format!("\"{text}\" is not a number"),
                                arg.span,
                            );
                            Value::Expr(Expr::zero(dtype))
                        }
                    }
                }
                other => {
                    let value = self.expr_of_value(other, arg.span);
                    let converted = operators::cast(dtype, value);
                    // Written out, the conversion spans the whole call; only an
                    // implicit one shares its operand's span.
                    if matches!(converted.kind(), ExprKind::Cast(_)) {
                        Value::Expr(converted.with_span(ir_span))
                    } else {
                        Value::Expr(converted)
                    }
                }
            },
            _ => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("`T.{name}` takes one argument"),
                    span,
                );
                Value::Expr(Expr::zero(dtype))
            }
        }
    }

    /// A call of an operator from the builtin table.
    fn op_call(&mut self, op: Op, args: &[ast::Expr], span: ast::Span) -> Value {
        let info = op.info();
        let mut args = args;
        let mut explicit_dtype = None;
        if info.dtype_position == DtypePosition::First {
            match args.split_first() {
                Some((first, rest)) => {
                    explicit_dtype = Some(self.eval_dtype(first));
                    args = rest;
                }
                None => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        format!("`T.{}` needs a result dtype first", info.name),
                        span,
                    );
                    return Value::Expr(Expr::i32(0));
                }
            }
        }
        if !info.arity.accepts(args.len()) {
            self.error(
                codes::BAD_ARGUMENTS,
                format!(
                    "`T.{}` takes {}, found {}",
                    info.name,
                    info.arity,
                    args.len()
                ),
                span,
            );
            return Value::Expr(Expr::zero(explicit_dtype.unwrap_or(DataType::int32())));
        }
        let values: Vec<Expr> = args.iter().map(|a| self.eval_expr(a)).collect();
        let dtype = match info.result {
            ResultRule::SameAsArg(i) => values
                .get(i)
                .map(|v| v.dtype())
                .unwrap_or(DataType::int32()),
            ResultRule::Bool => {
                DataType::bool().with_lanes(values.first().map(|v| v.dtype().lanes).unwrap_or(1))
            }
            ResultRule::Explicit => explicit_dtype.unwrap_or(DataType::int32()),
            ResultRule::Int32 => DataType::int32(),
            ResultRule::UInt32 => DataType::uint(32),
            ResultRule::Handle => DataType::handle(),
            ResultRule::Void => DataType::void(),
        };
        Value::Expr(Expr::call(op, values, dtype).with_span(self.span(span)))
    }

    /// `T.Buffer[(128, 128), "float32"]`: the subscript form of an annotation.
    pub(crate) fn buffer_annotation_subscript(
        &mut self,
        whole: &ast::Expr,
        indices: &[ast::Expr],
    ) -> Value {
        let args = self.buffer_args(indices, &[], whole.span);
        Value::BufferAnnotation(self.make_buffer("buffer", args, whole.span))
    }
}

/// `T.infinity`, `T.max_value` and `T.min_value` of a type.
fn limit_value(name: &str, dtype: DataType) -> Expr {
    let float_max = |bits: u16| match bits {
        16 => 65504.0,
        32 => f32::MAX as f64,
        _ => f64::MAX,
    };
    match name {
        "infinity" => make_const_float(dtype, f64::INFINITY),
        "max_value" if dtype.is_float() => make_const_float(dtype, float_max(dtype.bits)),
        "min_value" if dtype.is_float() => make_const_float(dtype, -float_max(dtype.bits)),
        "max_value" if dtype.is_uint() => make_const_int(
            dtype,
            if dtype.bits >= 64 {
                -1
            } else {
                (1i64 << dtype.bits) - 1
            },
        ),
        "min_value" if dtype.is_uint() => make_const_int(dtype, 0),
        "max_value" => make_const_int(
            dtype,
            if dtype.bits >= 64 {
                i64::MAX
            } else {
                (1i64 << (dtype.bits - 1)) - 1
            },
        ),
        _ => make_const_int(
            dtype,
            if dtype.bits >= 64 {
                i64::MIN
            } else {
                -(1i64 << (dtype.bits - 1))
            },
        ),
    }
}
