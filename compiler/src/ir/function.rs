//! Functions and modules: a `PrimFunc` is one kernel; an `IRModule` holds many.

use super::buffer::Buffer;
use super::expr::Var;
use super::stmt::{Annotations, AttrValue, Block, Stmt, StmtKind};
use super::DataType;
use crate::source::Span;

/// A primitive function: parameters, the buffers bound to them, and a body.
#[derive(Clone, Debug)]
pub struct PrimFunc {
    /// The function's name in its module.
    pub name: String,
    /// Parameters in order (`handle` vars for buffers, scalars otherwise).
    pub params: Vec<Var>,
    /// The buffer bound to each buffer parameter, in parameter order.
    pub buffer_map: Vec<(Var, Buffer)>,
    /// The return type (`void` for kernels).
    pub ret_type: DataType,
    /// Function attributes (`T.func_attr`), in order.
    pub attrs: Annotations,
    /// The body; block-level functions have a root block here.
    pub body: Stmt,
    /// True for functions printed `@T.prim_func(private=True)`.
    pub private: bool,
    /// Where the function is defined (its `def` line).
    pub span: Span,
}

impl PrimFunc {
    /// The buffer bound to a parameter, if any.
    pub fn buffer_of(&self, param: &Var) -> Option<&Buffer> {
        self.buffer_map
            .iter()
            .find(|(var, _)| var == param)
            .map(|(_, buffer)| buffer)
    }

    /// The value of a function attribute.
    pub fn attr(&self, key: &str) -> Option<&AttrValue> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The root block, when the body is a block realize (block-level TensorIR).
    pub fn root_block(&self) -> Option<&Block> {
        match self.body.kind() {
            StmtKind::BlockRealize(realize) => Some(&realize.block),
            _ => None,
        }
    }

    /// True when the function contains blocks (schedulable TensorIR).
    pub fn has_blocks(&self) -> bool {
        let mut found = false;
        super::visit::walk_stmts(&self.body, &mut |stmt| {
            if matches!(stmt.kind(), StmtKind::BlockRealize(_)) {
                found = true;
            }
        });
        found
    }
}

/// A module of named functions, in the order they are printed.
#[derive(Clone, Debug, Default)]
pub struct IRModule {
    /// The class name it is printed with (`Module` by default).
    pub name: String,
    /// The functions.
    pub functions: Vec<PrimFunc>,
    /// Module attributes.
    pub attrs: Annotations,
}

impl IRModule {
    /// The function with the given name.
    pub fn function(&self, name: &str) -> Option<&PrimFunc> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The function with the given name, mutably.
    pub fn function_mut(&mut self, name: &str) -> Option<&mut PrimFunc> {
        self.functions.iter_mut().find(|f| f.name == name)
    }
}
