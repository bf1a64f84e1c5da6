//! Buffer declarations: the arguments of `T.Buffer`, `T.match_buffer`,
//! `T.alloc_buffer` and `T.decl_buffer`, with TVM's defaults (alignment 64,
//! offset factor 1, a fresh `elem_offset` variable when an offset factor is
//! given without an offset).

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::ir::buffer::DEFAULT_ALIGNMENT;
use crate::ir::{Buffer, BufferNode, BufferType, DataType, Expr, ExprKind, Var};
use tirc_grammar::ast;

/// The parsed arguments of a buffer declaration.
pub(crate) struct BufferArgs {
    pub shape: Vec<Expr>,
    pub dtype: DataType,
    pub data: Option<Var>,
    pub strides: Vec<Expr>,
    pub elem_offset: Option<Expr>,
    pub scope: String,
    pub align: i64,
    pub offset_factor: i64,
    pub buffer_type: BufferType,
    pub axis_separators: Vec<i64>,
}

const BUFFER_KEYWORDS: &[&str] = &[
    "shape",
    "dtype",
    "data",
    "strides",
    "elem_offset",
    "scope",
    "align",
    "offset_factor",
    "buffer_type",
    "axis_separators",
    "layout",
];

impl Lowerer {
    /// Evaluates a shape: a tuple or list of extents, or one extent. Strings
    /// (TVM's quoted signature shapes such as `("n", 128)`) are parsed as
    /// expressions whose unknown names become new `int32` variables.
    pub(crate) fn eval_shape(&mut self, expr: &ast::Expr) -> Vec<Expr> {
        let items: Vec<&ast::Expr> = match &expr.kind {
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => items.iter().collect(),
            _ => vec![expr],
        };
        items
            .into_iter()
            .map(|item| match &item.kind {
                ast::ExprKind::Str(text) => self.eval_quoted_shape(text, item.span),
                _ => {
                    let value = self.eval(item);
                    let extent = self.expr_of_value(value, item.span);
                    if extent.as_int().is_some_and(|e| e < 0) {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("a shape extent cannot be negative, found {extent}"),
                            item.span,
                        );
                    }
                    extent
                }
            })
            .collect()
    }

    fn eval_quoted_shape(&mut self, text: &str, span: ast::Span) -> Expr {
        let parsed = tirc_grammar::parse_file(text);
        let expr = match parsed.file.body.as_slice() {
            [ast::Stmt {
                kind: ast::StmtKind::Expr(e),
                ..
            }] if parsed.errors.is_empty() => e.clone(),
            _ => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("\"{text}\" is not a shape expression"),
                    span,
                );
                return Expr::i32(0);
            }
        };
        // Names not yet defined are signature variables introduced here.
        let mut names = Vec::new();
        collect_names(&expr, &mut names);
        for name in names {
            if self.lookup(&name).is_none() {
                let var = Var::new(name.clone(), DataType::int32(), self.span(span));
                self.signature_vars.insert(name.clone(), var.clone());
                self.bind(&name, Value::Expr(var.to_expr()));
            }
        }
        // The quoted text has spans relative to the string: re-anchor them.
        let value = self.eval(&reanchor(&expr, span));
        self.expr_of_value(value, span)
    }

    /// Parses buffer declaration arguments. `positional` are the arguments
    /// after any leading source argument (`T.match_buffer(a, ...)`).
    pub(crate) fn buffer_args(
        &mut self,
        positional: &[ast::Expr],
        keywords: &[ast::Keyword],
        call_span: ast::Span,
    ) -> BufferArgs {
        let mut args = BufferArgs {
            shape: Vec::new(),
            dtype: DataType::float32(),
            data: None,
            strides: Vec::new(),
            elem_offset: None,
            scope: "global".to_string(),
            align: -1,
            offset_factor: 0,
            buffer_type: BufferType::Default,
            axis_separators: Vec::new(),
        };
        let mut have_shape = false;
        for (i, arg) in positional.iter().enumerate() {
            match i {
                0 => {
                    args.shape = self.eval_shape(arg);
                    have_shape = true;
                }
                1 => args.dtype = self.eval_dtype(arg),
                _ => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "a buffer takes its shape and dtype as positional arguments; pass the rest by keyword",
                        arg.span,
                    );
                }
            }
        }
        for keyword in keywords {
            let name = keyword.name.name.as_str();
            match name {
                "shape" => {
                    args.shape = self.eval_shape(&keyword.value);
                    have_shape = true;
                }
                "dtype" => args.dtype = self.eval_dtype(&keyword.value),
                "data" => match self.eval(&keyword.value) {
                    Value::Expr(e) => match e.kind() {
                        ExprKind::Var(v) => args.data = Some(v.clone()),
                        _ => {
                            self.error(
                                codes::BAD_ARGUMENTS,
                                "`data` must be a handle variable",
                                keyword.value.span,
                            );
                        }
                    },
                    Value::None => {}
                    other => {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!(
                                "`data` must be a handle variable, found {}",
                                other.describe()
                            ),
                            keyword.value.span,
                        );
                    }
                },
                "strides" => {
                    let index_type = args
                        .shape
                        .first()
                        .map(|e| e.dtype())
                        .unwrap_or(DataType::int32());
                    args.strides = self.eval_strides(&keyword.value, index_type);
                }
                "elem_offset" => match self.eval(&keyword.value) {
                    Value::None => {}
                    value => args.elem_offset = Some(self.expr_of_value(value, keyword.value.span)),
                },
                "scope" => args.scope = self.eval_string(&keyword.value, "scope"),
                "align" => args.align = self.eval_int(&keyword.value, "align"),
                "offset_factor" => {
                    args.offset_factor = self.eval_int(&keyword.value, "offset_factor")
                }
                "buffer_type" => {
                    args.buffer_type = match self
                        .eval_string(&keyword.value, "buffer_type")
                        .as_str()
                    {
                        "auto" => BufferType::AutoBroadcast,
                        "default" | "" => BufferType::Default,
                        other => {
                            self.error(
                                codes::BAD_ARGUMENTS,
                                format!("unknown buffer_type \"{other}\" (expected \"default\" or \"auto\")"),
                                keyword.value.span,
                            );
                            BufferType::Default
                        }
                    }
                }
                "axis_separators" => {
                    let value = self.eval(&keyword.value);
                    args.axis_separators = value
                        .as_sequence()
                        .unwrap_or(&[])
                        .iter()
                        .filter_map(|v| match v {
                            Value::Int(i) => Some(*i as i64),
                            Value::Expr(e) => e.as_int(),
                            _ => None,
                        })
                        .collect();
                }
                "layout" => {
                    // TVM 0.27's tile layouts are not part of TensorIR as tirc models it;
                    // only the default (None / "default") is accepted.
                    match self.eval(&keyword.value) {
                        Value::None => {}
                        Value::Str(s) if s == "default" => {}
                        _ => {
                            self.error(
                                codes::UNSUPPORTED,
                                "buffer layouts other than the default are not supported",
                                keyword.value.span,
                            );
                        }
                    }
                }
                other => {
                    let suggestion = super::suggest(other, BUFFER_KEYWORDS.iter().copied());
                    let mut diagnostic = crate::diagnostics::Diagnostic::error(
                        codes::BAD_ARGUMENTS,
                        format!("unknown buffer argument `{other}`"),
                        self.span(keyword.name.span),
                    );
                    if let Some(s) = suggestion {
                        diagnostic = diagnostic.with_help(format!("did you mean `{s}`?"));
                    }
                    self.report(diagnostic);
                }
            }
        }
        if !have_shape {
            self.error(codes::BAD_ARGUMENTS, "a buffer needs a shape", call_span);
        }
        args
    }

    fn eval_strides(&mut self, expr: &ast::Expr, index_type: DataType) -> Vec<Expr> {
        let items: Vec<&ast::Expr> = match &expr.kind {
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => items.iter().collect(),
            ast::ExprKind::None => return Vec::new(),
            _ => vec![expr],
        };
        items
            .into_iter()
            .map(|item| match &item.kind {
                // A string names a new stride variable, as TVM's `strides=("s0", "s1")`.
                ast::ExprKind::Str(name) => {
                    Var::new(name.clone(), index_type, self.span(item.span)).to_expr()
                }
                _ => self.eval_expr(item),
            })
            .collect()
    }

    /// Evaluates a dtype given as a string or as `T.float32`.
    pub(crate) fn eval_dtype(&mut self, expr: &ast::Expr) -> DataType {
        match self.eval(expr) {
            Value::Str(text) => self.parse_dtype(&text, expr.span),
            Value::DType(dtype) => dtype,
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "expected a dtype string such as \"float32\", found {}",
                        other.describe()
                    ),
                    expr.span,
                );
                DataType::float32()
            }
        }
    }

    /// Parses a dtype string, reporting unknown names with a suggestion.
    pub(crate) fn parse_dtype(&mut self, text: &str, span: ast::Span) -> DataType {
        match text.parse::<DataType>() {
            Ok(dtype) => dtype,
            Err(error) => {
                let mut diagnostic = crate::diagnostics::Diagnostic::error(
                    codes::UNKNOWN_DTYPE,
                    format!("unknown data type \"{text}\""),
                    self.span(span),
                )
                .with_label("not a data type");
                if let Some(suggestion) = error.suggestion {
                    diagnostic = diagnostic.with_help(format!("did you mean \"{suggestion}\"?"));
                }
                self.report(diagnostic);
                DataType::float32()
            }
        }
    }

    /// Evaluates a string argument.
    pub(crate) fn eval_string(&mut self, expr: &ast::Expr, what: &str) -> String {
        match self.eval(expr) {
            Value::Str(s) => s,
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!("`{what}` must be a string, found {}", other.describe()),
                    expr.span,
                );
                String::new()
            }
        }
    }

    /// Evaluates a constant integer argument; 0 after reporting one that is not constant.
    pub(crate) fn eval_int(&mut self, expr: &ast::Expr, what: &str) -> i64 {
        self.try_eval_int(expr, what).unwrap_or(0)
    }

    /// Evaluates a constant integer argument, or reports that it is not one and gives `None`.
    pub(crate) fn try_eval_int(&mut self, expr: &ast::Expr, what: &str) -> Option<i64> {
        match self.eval(expr) {
            // Saturated, so an out-of-range constant stays out of range.
            Value::Int(i) => {
                Some(i64::try_from(i).unwrap_or(if i < 0 { i64::MIN } else { i64::MAX }))
            }
            Value::Expr(e) if e.as_int().is_some() => e.as_int(),
            other => {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "`{what}` must be a constant integer, found {}",
                        other.describe()
                    ),
                    expr.span,
                );
                None
            }
        }
    }

    /// Builds a buffer from parsed arguments with TVM's defaults.
    pub(crate) fn make_buffer(&mut self, name: &str, args: BufferArgs, span: ast::Span) -> Buffer {
        let span = self.span(span);
        let index_type = args
            .shape
            .first()
            .map(|e| e.dtype())
            .unwrap_or(DataType::int32());
        let data = args
            .data
            .unwrap_or_else(|| Var::pointer(name, args.dtype, &args.scope, span));
        let elem_offset = match args.elem_offset {
            Some(offset) => offset,
            None if args.offset_factor != 0 => {
                Var::new(format!("{name}_elem_offset"), index_type, span).to_expr()
            }
            None => Expr::zero(index_type),
        };
        Buffer::from_node(BufferNode {
            name: name.to_string(),
            data,
            dtype: args.dtype,
            shape: args.shape,
            strides: args.strides,
            elem_offset,
            scope: args.scope,
            data_alignment: if args.align <= 0 {
                DEFAULT_ALIGNMENT
            } else {
                args.align
            },
            offset_factor: if args.offset_factor == 0 {
                1
            } else {
                args.offset_factor
            },
            buffer_type: args.buffer_type,
            axis_separators: args.axis_separators,
            declared_as_scalar: false,
            span,
        })
    }
}

fn collect_names(expr: &ast::Expr, out: &mut Vec<String>) {
    match &expr.kind {
        ast::ExprKind::Name(name) if !out.contains(name) => out.push(name.clone()),
        ast::ExprKind::BinOp { lhs, rhs, .. } => {
            collect_names(lhs, out);
            collect_names(rhs, out);
        }
        ast::ExprKind::UnaryOp { operand, .. } => collect_names(operand, out),
        ast::ExprKind::Call { args, .. } => args.iter().for_each(|a| collect_names(a, out)),
        _ => {}
    }
}

/// Gives every node of a sub-parsed expression the span of the string it came from.
fn reanchor(expr: &ast::Expr, span: ast::Span) -> ast::Expr {
    let mut copy = expr.clone();
    fn visit(e: &mut ast::Expr, span: ast::Span) {
        e.span = span;
        match &mut e.kind {
            ast::ExprKind::BinOp { lhs, rhs, .. } => {
                visit(lhs, span);
                visit(rhs, span);
            }
            ast::ExprKind::UnaryOp { operand, .. } => visit(operand, span),
            ast::ExprKind::Call { func, args, .. } => {
                visit(func, span);
                args.iter_mut().for_each(|a| visit(a, span));
            }
            ast::ExprKind::Attribute { value, .. } => visit(value, span),
            _ => {}
        }
    }
    visit(&mut copy, span);
    copy
}
