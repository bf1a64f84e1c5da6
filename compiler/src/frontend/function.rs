//! `@T.prim_func` definitions: decorator, parameters and their buffers, the
//! `global_symbol` and `s_tir` attributes, and the implicit root block.

use super::codes;
use super::value::Value;
use super::Lowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Annotations, AttrValue, Block, BlockRealize, Buffer, DataType, Expr, NodeId, PrimFunc, Stmt,
    StmtKind, Var,
};
use crate::printer::Dialect;
use tirc_grammar::ast;

/// The function being lowered.
pub(crate) struct FunctionBuilder {
    pub params: Vec<Var>,
    pub buffer_map: Vec<(Var, Buffer)>,
    pub attrs: Annotations,
    pub root_alloc_buffers: Vec<Buffer>,
}

/// The keyword arguments of a `@T.prim_func(...)` decorator.
struct Decorator {
    private: bool,
    s_tir: bool,
}

impl Lowerer {
    fn prim_func_decorator(
        &mut self,
        def: &ast::FunctionDef,
        span: ast::Span,
    ) -> Option<Decorator> {
        for decorator in &def.decorators {
            let (callee, keywords) = match &decorator.kind {
                ast::ExprKind::Call { func, keywords, .. } => (func.as_ref(), keywords.as_slice()),
                _ => (decorator, &[][..]),
            };
            let Some(path) = callee.dotted_name() else {
                continue;
            };
            if !path.ends_with("prim_func") {
                continue;
            }
            let mut result = Decorator {
                private: false,
                s_tir: false,
            };
            for keyword in keywords {
                let value = matches!(self.eval(&keyword.value), Value::Bool(true));
                match keyword.name.name.as_str() {
                    "private" => result.private = value,
                    "s_tir" => result.s_tir = value,
                    "check_well_formed" => {}
                    other => {
                        self.error(
                            codes::BAD_ARGUMENTS,
                            format!("unknown argument `{other}` of `@T.prim_func`"),
                            keyword.name.span,
                        );
                    }
                }
            }
            return Some(result);
        }
        if written_in_rfc_prototype(def) {
            self.report(
                Diagnostic::error(
                    codes::NO_FUNCTION,
                    format!(
                        "function `{}` is written in the prototype syntax of TensorIR's 2020 RFC, which TVM never released",
                        def.name.name
                    ),
                    self.span(def.name.span),
                )
                .with_secondary(self.span(span), "in this definition")
                .with_note("`ty.handle` is `T.handle`, `tir.match_buffer` is `T.match_buffer`, `tir.grid` is `T.grid`")
                .with_note("`with tir.block([16, 16], \"C\") as [vi, vj]:` is `with T.block(\"C\"):` followed by `vi, vj = T.axis.remap(\"SS\", [i, j])`, and `tir.bind(vi, i)` is `vi = T.axis.spatial(16, i)`")
                .with_help("write it as TVM prints it: `@T.prim_func` above the `def`, and the `T.` spellings above"),
            );
            return None;
        }
        self.report(
            Diagnostic::error(
                codes::NO_FUNCTION,
                format!("function `{}` is not a `@T.prim_func`", def.name.name),
                self.span(def.name.span),
            )
            .with_secondary(self.span(span), "in this definition")
            .with_help("add `@T.prim_func` above the `def`, or name the first parameter `sch` to make it a schedule"),
        );
        None
    }

    /// Lowers a `@T.prim_func` definition.
    pub(crate) fn lower_prim_func(
        &mut self,
        def: &ast::FunctionDef,
        span: ast::Span,
    ) -> Option<PrimFunc> {
        let decorator = self.prim_func_decorator(def, span)?;
        self.function_extents.push(self.span(span));
        self.symbols
            .record_function(&def.name.name, self.span(def.name.span));
        self.push_scope();
        self.signature_vars.clear();
        self.s_tir = decorator.s_tir;
        self.function = Some(FunctionBuilder {
            params: Vec::new(),
            buffer_map: Vec::new(),
            attrs: Vec::new(),
            root_alloc_buffers: Vec::new(),
        });
        for param in &def.params {
            let name = &param.name.name;
            if self
                .function
                .as_ref()
                .is_some_and(|f| f.params.iter().any(|p| p.name() == name))
            {
                self.error(
                    codes::DUPLICATE,
                    format!("parameter `{name}` is declared twice"),
                    param.name.span,
                );
            }
            let param_span = self.span(param.name.span);
            let Some(annotation) = &param.annotation else {
                self.error(codes::BAD_ARGUMENTS, format!("parameter `{name}` needs a type annotation such as `T.handle` or `T.Buffer(...)`"), param.span);
                self.bind(name, Value::Poison);
                continue;
            };
            match self.eval(annotation) {
                Value::BufferAnnotation(buffer) => {
                    let buffer = buffer.with(|node| {
                        node.name = name.clone();
                        node.data = Var::pointer(name.clone(), node.dtype, &node.scope, param_span);
                        node.span = param_span;
                    });
                    let var = Var::new(name.clone(), DataType::handle(), param_span);
                    self.bind(name, Value::Buffer(buffer.clone()));
                    if let Some(function) = self.function.as_mut() {
                        function.params.push(var.clone());
                        function.buffer_map.push((var, buffer));
                    }
                }
                Value::DType(dtype) => {
                    let var = Var::new(name.clone(), dtype, param_span);
                    self.bind(name, Value::Expr(var.to_expr()));
                    if let Some(function) = self.function.as_mut() {
                        function.params.push(var);
                    }
                }
                Value::Pointer(element, scope) => {
                    let var = if element.is_void() && scope == "global" {
                        Var::new(name.clone(), DataType::handle(), param_span)
                    } else {
                        Var::pointer(name.clone(), element, &scope, param_span)
                    };
                    self.bind(name, Value::Expr(var.to_expr()));
                    if let Some(function) = self.function.as_mut() {
                        function.params.push(var);
                    }
                }
                other => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        format!(
                            "a parameter annotation must be a type or `T.Buffer(...)`, found {}",
                            other.describe()
                        ),
                        annotation.span,
                    );
                }
            }
        }
        let ret_type = match &def.returns {
            Some(returns) => match self.eval(returns) {
                Value::DType(d) => d,
                Value::None => DataType::void(),
                other => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        format!(
                            "a return annotation must be a dtype, found {}",
                            other.describe()
                        ),
                        returns.span,
                    );
                    DataType::void()
                }
            },
            None => DataType::void(),
        };
        let body = self.lower_body(&def.body);
        self.pop_scope();
        let function = self.function.take()?;

        let mut attrs = function.attrs;
        if !decorator.private && !attrs.iter().any(|(k, _)| k == "global_symbol") {
            attrs.push((
                "global_symbol".to_string(),
                AttrValue::Str(def.name.name.clone()),
            ));
        }
        // The classic dialect has no `s_tir` flag: functions with blocks are schedulable.
        let has_blocks = {
            let mut found = false;
            crate::ir::visit::walk_stmts(&body, &mut |s| {
                found |= matches!(s.kind(), StmtKind::BlockRealize(_));
            });
            found
        };
        let s_tir = match self.dialect {
            Dialect::Tirx => decorator.s_tir,
            Dialect::Classic => has_blocks || !function.root_alloc_buffers.is_empty(),
        };
        if s_tir {
            attrs.push(("s_tir".to_string(), AttrValue::Bool(true)));
        }
        let body = if s_tir {
            wrap_root_block(body, function.root_alloc_buffers)
        } else {
            if let Some(buffer) = function.root_alloc_buffers.first() {
                self.report(
                    Diagnostic::error(
                        codes::MISPLACED,
                        "a function-level `T.alloc_buffer` needs a block-level function",
                        buffer.span(),
                    )
                    .with_help("write `@T.prim_func(s_tir=True)`"),
                );
            }
            body
        };
        // Buffers matched from handles are listed in parameter order.
        let mut buffer_map = function.buffer_map;
        buffer_map.sort_by_key(|(var, _)| function.params.iter().position(|p| p == var));
        Some(PrimFunc {
            name: def.name.name.clone(),
            params: function.params,
            buffer_map,
            ret_type,
            attrs,
            body,
            private: decorator.private,
            span: self.span(def.name.span),
        })
    }
}

/// Wraps a block-level body in the root block TVM's parser adds, unless the
/// body already is an explicit root block.
fn wrap_root_block(body: Stmt, alloc_buffers: Vec<Buffer>) -> Stmt {
    // As TVM's parser: a body that is one block without iterators (the root
    // itself), or that has no block at all, is kept as it is unless
    // root-level buffers need a root block to live in. A single block with
    // iterators cannot be a root: it gets one, as the printer expects when it
    // leaves the root implicit.
    if alloc_buffers.is_empty() {
        let mut contains_block = false;
        crate::ir::visit::walk_stmts(&body, &mut |s| {
            contains_block |= matches!(s.kind(), StmtKind::BlockRealize(_));
        });
        let is_root = body
            .as_block_realize()
            .is_some_and(|realize| realize.block.iter_vars.is_empty());
        if !contains_block || is_root {
            return body;
        }
    }
    Stmt::new(
        StmtKind::BlockRealize(BlockRealize {
            iter_values: Vec::new(),
            predicate: Expr::bool(true),
            block: Block {
                id: NodeId::fresh(),
                name: "root".to_string(),
                iter_vars: Vec::new(),
                reads: Vec::new(),
                writes: Vec::new(),
                init: None,
                alloc_buffers,
                match_buffers: Vec::new(),
                annotations: Vec::new(),
                body,
            },
        }),
        crate::source::Span::NONE,
    )
}

/// True for a `def` in the prototype syntax of the 2020 TensorIR RFC:
/// decorated `@tvm.script.tir`, or with parameters annotated `ty.handle`.
fn written_in_rfc_prototype(def: &ast::FunctionDef) -> bool {
    let dotted = |expr: &ast::Expr| expr.dotted_name().unwrap_or_default();
    def.decorators
        .iter()
        .any(|decorator| dotted(decorator) == "tvm.script.tir")
        || def
            .params
            .iter()
            .filter_map(|param| param.annotation.as_ref())
            .any(|annotation| dotted(annotation).starts_with("ty."))
}
