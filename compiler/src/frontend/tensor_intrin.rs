//! `T.TensorIntrin.register("name", description, implementation)` at the
//! top level of a file: the two named top-level `@T.prim_func`s become a
//! tensor intrinsic instead of functions of the program.

use super::{codes, Lowerer};
use crate::ir::{PrimFunc, TensorIntrin};
use std::collections::HashMap;
use tirc_grammar::ast;

/// The spellings of the registration call, as TVM's Python writes them.
const REGISTER_CALLS: &[&str] = &[
    "T.TensorIntrin.register",
    "tir.TensorIntrin.register",
    "tvm.tir.TensorIntrin.register",
    "TensorIntrin.register",
];

/// A registration statement, before its functions are lowered.
pub(crate) struct Registration {
    name: String,
    description: String,
    implementation: String,
    span: ast::Span,
}

impl Registration {
    /// True when `function` is the description or implementation of this registration.
    fn names(&self, function: &str) -> bool {
        self.description == function || self.implementation == function
    }
}

/// True when `expr` is a call of `T.TensorIntrin.register`.
pub(crate) fn is_registration(expr: &ast::Expr) -> bool {
    matches!(&expr.kind, ast::ExprKind::Call { func, .. }
        if func.dotted_name().is_some_and(|name| REGISTER_CALLS.contains(&name.as_str())))
}

/// True when a top-level function named `name` belongs to a registration.
pub(crate) fn is_intrinsic_function(registrations: &[Registration], name: &str) -> bool {
    registrations.iter().any(|r| r.names(name))
}

impl Lowerer {
    /// Reads a registration call; a malformed one is a diagnostic.
    pub(crate) fn read_registration(&mut self, expr: &ast::Expr) -> Option<Registration> {
        let ast::ExprKind::Call { args, keywords, .. } = &expr.kind else {
            return None;
        };
        let usage = "write `T.TensorIntrin.register(\"name\", description, implementation)` with the names of two top-level `@T.prim_func`s";
        // Python's binding: positional arguments first, then keywords into
        // the slots left, each slot at most once.
        let mut slots: [Option<&ast::Expr>; 3] = [None; 3];
        if args.len() > 3 {
            self.error(codes::BAD_ARGUMENTS, usage, expr.span);
            return None;
        }
        for (slot, arg) in slots.iter_mut().zip(args) {
            *slot = Some(arg);
        }
        for keyword in keywords {
            let index = match keyword.name.name.as_str() {
                "name" => 0,
                "desc" => 1,
                "impl" => 2,
                _ => {
                    self.error(
                        codes::BAD_ARGUMENTS,
                        "`T.TensorIntrin.register` takes `name`, `desc` and `impl`",
                        keyword.value.span,
                    );
                    return None;
                }
            };
            if slots[index].replace(&keyword.value).is_some() {
                self.error(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "`T.TensorIntrin.register` is given `{}` twice",
                        keyword.name.name
                    ),
                    keyword.value.span,
                );
                return None;
            }
        }
        let [Some(name), Some(description), Some(implementation)] = slots else {
            self.error(codes::BAD_ARGUMENTS, usage, expr.span);
            return None;
        };
        let (
            ast::ExprKind::Str(name),
            ast::ExprKind::Name(description),
            ast::ExprKind::Name(implementation),
        ) = (&name.kind, &description.kind, &implementation.kind)
        else {
            self.error(codes::BAD_ARGUMENTS, usage, expr.span);
            return None;
        };
        Some(Registration {
            name: name.clone(),
            description: description.clone(),
            implementation: implementation.clone(),
            span: expr.span,
        })
    }

    /// The intrinsics of `registrations`, from the lowered top-level
    /// functions they name; a name with no function, or registered twice, is
    /// a diagnostic.
    pub(crate) fn tensor_intrinsics(
        &mut self,
        registrations: &[Registration],
        functions: &HashMap<String, PrimFunc>,
    ) -> Vec<TensorIntrin> {
        let mut intrinsics: Vec<TensorIntrin> = Vec::new();
        for registration in registrations {
            let span = self.span(registration.span);
            if let Some(first) = intrinsics.iter().find(|i| i.name == registration.name) {
                self.report(
                    crate::diagnostics::Diagnostic::error(
                        codes::DUPLICATE,
                        format!(
                            "the tensor intrinsic `{}` is registered twice",
                            registration.name
                        ),
                        span,
                    )
                    .with_secondary(first.span, "first registered here"),
                );
                continue;
            }
            let mut find = |name: &str| match functions.get(name) {
                Some(func) => Some(func.clone()),
                None => {
                    self.error(
                        codes::UNDEFINED_NAME,
                        format!(
                            "`{name}` is not a `@T.prim_func` defined at the top level of this file"
                        ),
                        registration.span,
                    );
                    None
                }
            };
            let (Some(description), Some(implementation)) = (
                find(&registration.description),
                find(&registration.implementation),
            ) else {
                continue;
            };
            intrinsics.push(TensorIntrin {
                name: registration.name.clone(),
                description,
                implementation,
                span,
            });
        }
        intrinsics
    }
}

/// The registration line of `intrinsic`, as the printer writes it.
pub fn registration_line(intrinsic: &TensorIntrin) -> String {
    format!(
        "T.TensorIntrin.register(\"{}\", {}, {})",
        intrinsic.name, intrinsic.description.name, intrinsic.implementation.name
    )
}
