//! The TensorIR object model: types, expressions, statements, buffers,
//! functions and modules, with visitors, rewriters and structural equality.

pub mod buffer;
pub mod builtin;
pub mod dtype;
pub mod expr;
pub mod function;
pub mod identity;
pub mod mutate;
pub mod operators;
pub mod stmt;
pub mod structural;
pub mod tensor_intrin;
pub mod visit;

pub use buffer::{Buffer, BufferNode, BufferType};
pub use builtin::Op;
pub use dtype::{DataType, TypeCode};
pub use expr::{BinaryOp, BufferLoad, Expr, ExprKind, ExprNode, PointerType, Range, Var, VarNode};
pub use function::{IRModule, PrimFunc};
pub use identity::{BufferMap, BufferSet, NodeMap, NodeSet, VarMap, VarSet};
pub use stmt::{
    Allocate, Annotations, AttrNode, AttrStmt, AttrValue, Block, BlockRealize, BufferRegion,
    BufferStore, CommReducer, For, ForKind, IterKind, IterVar, MatchBufferRegion, NodeId, Stmt,
    StmtKind, StmtNode,
};
pub use tensor_intrin::TensorIntrin;
