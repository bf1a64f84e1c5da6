//! Functions: buffer maps bind handle parameters of the function to distinct
//! buffers, `T.func_attr` values have the types their keys ask for, no two
//! functions export one symbol, and calls between the module's functions
//! pass one argument per parameter. (Duplicate function names are reported
//! by the frontend, E0109.)

use super::codes;
use crate::diagnostics::Diagnostic;
use crate::ir::visit::walk_exprs_in_stmt;
use crate::ir::{AttrValue, Buffer, ExprKind, IRModule, PrimFunc, Var};
use std::collections::HashMap;

/// The value a known function attribute takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AttrType {
    Bool,
    Int,
    Str,
    StrList,
    Target,
}

impl AttrType {
    fn describe(self) -> &'static str {
        match self {
            AttrType::Bool => "a bool (`True` or `False`)",
            AttrType::Int => "an integer",
            AttrType::Str => "a string",
            AttrType::StrList => "a list of strings",
            AttrType::Target => "a target (`T.target({...})` or a target string)",
        }
    }

    fn accepts(self, value: &AttrValue) -> bool {
        match (self, value) {
            (AttrType::Bool, AttrValue::Bool(_)) => true,
            // TVM stores bools as integers 0 and 1.
            (AttrType::Bool, AttrValue::Int(v)) => *v == 0 || *v == 1,
            (AttrType::Bool, AttrValue::Expr(e)) => {
                e.dtype().is_bool() || e.as_int().is_some_and(|v| v == 0 || v == 1)
            }
            (AttrType::Int, AttrValue::Int(_)) => true,
            (AttrType::Int, AttrValue::Expr(e)) => e.dtype().is_integer(),
            (AttrType::Str, AttrValue::Str(_)) => true,
            (AttrType::StrList, AttrValue::List(items)) => {
                items.iter().all(|item| matches!(item, AttrValue::Str(_)))
            }
            (AttrType::Target, AttrValue::Target(_) | AttrValue::Str(_) | AttrValue::Dict(_)) => {
                true
            }
            _ => false,
        }
    }
}

/// The function attributes whose value type tirc knows.
fn known_attribute(key: &str) -> Option<AttrType> {
    let key = key
        .strip_prefix("tirx.")
        .or_else(|| key.strip_prefix("tir."))
        .unwrap_or(key);
    Some(match key {
        "noalias" | "is_entry_func" | "is_global_func" | "is_host_func" | "is_scheduled"
        | "s_tir" => AttrType::Bool,
        "global_symbol" => AttrType::Str,
        "calling_conv" => AttrType::Int,
        "kernel_launch_params" => AttrType::StrList,
        "target" => AttrType::Target,
        _ => return None,
    })
}

fn describe_value(value: &AttrValue) -> String {
    match value {
        AttrValue::Int(i) => format!("the integer {i}"),
        AttrValue::Float(f) => format!("the float {f}"),
        AttrValue::Bool(b) => format!("the bool {}", if *b { "True" } else { "False" }),
        AttrValue::Expr(e) => format!("the {} expression `{}`", e.dtype(), super::spans::show(e)),
        AttrValue::Str(s) => format!("the string \"{s}\""),
        AttrValue::List(_) => "a list".to_string(),
        AttrValue::Dict(_) => "a dict".to_string(),
        AttrValue::None => "`None`".to_string(),
        AttrValue::Target(_) => "a target".to_string(),
    }
}

/// Checks what concerns the module as a whole: exported symbols.
pub(super) fn check_module(module: &IRModule) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut exported: HashMap<&str, &PrimFunc> = HashMap::new();
    for function in &module.functions {
        let Some(AttrValue::Str(symbol)) = function.attr("global_symbol") else {
            continue;
        };
        match exported.get(symbol.as_str()) {
            Some(first) if first.name != function.name => {
                diagnostics.push(
                    Diagnostic::error(
                        codes::DUPLICATE_SYMBOL,
                        format!(
                            "functions `{}` and `{}` both export the symbol \"{symbol}\"",
                            first.name, function.name
                        ),
                        function.span,
                    )
                    .with_secondary(first.span, format!("`{}` exports it first", first.name))
                    .with_help("give each function its own `global_symbol`, or make one private with `@T.prim_func(private=True)`"),
                );
            }
            Some(_) => {}
            None => {
                exported.insert(symbol.as_str(), function);
            }
        }
    }
    diagnostics
}

/// Checks one function's buffer map, attributes and calls.
pub(super) fn check_function(function: &PrimFunc, module: &IRModule) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    check_buffer_map(function, &mut diagnostics);
    for (key, value) in &function.attrs {
        let Some(expected) = known_attribute(key) else {
            continue;
        };
        if !expected.accepts(value) {
            diagnostics.push(
                Diagnostic::error(
                    codes::FUNC_ATTR_TYPE,
                    format!(
                        "function attribute \"{key}\" must be {}, found {}",
                        expected.describe(),
                        describe_value(value)
                    ),
                    function.span,
                )
                .with_help(format!(
                    "write `T.func_attr({{\"{key}\": ...}})` with {}",
                    expected.describe()
                )),
            );
        }
    }
    walk_exprs_in_stmt(&function.body, &mut |expr| {
        let ExprKind::CallFunction { name, args } = expr.kind() else {
            return;
        };
        let Some(callee) = module.function(name) else {
            return;
        };
        if callee.params.len() != args.len() {
            let span = if expr.span().is_known() {
                expr.span()
            } else {
                function.span
            };
            diagnostics.push(
                Diagnostic::error(
                    codes::CALL_ARGUMENTS,
                    format!(
                        "`{}` takes {} argument{} but is called with {}",
                        callee.name,
                        callee.params.len(),
                        if callee.params.len() == 1 { "" } else { "s" },
                        args.len()
                    ),
                    span,
                )
                .with_secondary(callee.span, format!("`{}` is defined here", callee.name))
                .with_help("pass one argument per parameter"),
            );
        }
    });
    diagnostics
}

fn check_buffer_map(function: &PrimFunc, diagnostics: &mut Vec<Diagnostic>) {
    let mut buffer_of: HashMap<&Var, &Buffer> = HashMap::new();
    let mut param_of: HashMap<&Buffer, &Var> = HashMap::new();
    for (param, buffer) in &function.buffer_map {
        let span = if buffer.span().is_known() {
            buffer.span()
        } else {
            function.span
        };
        if !function.params.contains(param) {
            diagnostics.push(
                Diagnostic::error(
                    codes::BUFFER_MAP,
                    format!(
                        "buffer `{}` is bound to `{}`, which is not a parameter of `{}`",
                        buffer.name(),
                        param.name(),
                        function.name
                    ),
                    span,
                )
                .with_help("bind buffers to the function's own handle parameters"),
            );
        } else if !param.dtype().is_handle() {
            diagnostics.push(
                Diagnostic::error(
                    codes::BUFFER_MAP,
                    format!(
                        "buffer `{}` is bound to parameter `{}` of type {}, which is not a handle",
                        buffer.name(),
                        param.name(),
                        param.dtype()
                    ),
                    span,
                )
                .with_secondary(param.span(), "the parameter is declared here")
                .with_help(format!(
                    "declare the parameter as `{}: T.handle`",
                    param.name()
                )),
            );
        }
        if let Some(previous) = buffer_of.insert(param, buffer) {
            if previous != buffer {
                diagnostics.push(
                    Diagnostic::error(
                        codes::BUFFER_MAP,
                        format!(
                            "parameter `{}` is bound to two buffers, `{}` and `{}`",
                            param.name(),
                            previous.name(),
                            buffer.name()
                        ),
                        span,
                    )
                    .with_secondary(previous.span(), "first binding here")
                    .with_help("match each handle parameter once"),
                );
            }
        }
        if let Some(previous) = param_of.insert(buffer, param) {
            if previous != param {
                diagnostics.push(
                    Diagnostic::error(
                        codes::BUFFER_MAP,
                        format!(
                            "buffer `{}` is bound to two parameters, `{}` and `{}`",
                            buffer.name(),
                            previous.name(),
                            param.name()
                        ),
                        span,
                    )
                    .with_help("give each parameter its own buffer"),
                );
            }
        }
    }
}
