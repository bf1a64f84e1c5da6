//! Tensor intrinsics: a description (what a sub-program computes, in block
//! form) and an implementation (how: vector code, target intrinsics) that
//! `tensorize` swaps in where the description matches, as TVM's
//! `TensorIntrin` does.

use super::PrimFunc;
use crate::source::Span;

/// One intrinsic, registered under `name` by
/// `T.TensorIntrin.register(name, description, implementation)`.
#[derive(Clone, Debug)]
pub struct TensorIntrin {
    /// The name `tensorize` is given (`dot_16x4_vnni`).
    pub name: String,
    /// What the intrinsic computes: a root block holding the loops and
    /// blocks a tensorized sub-program must match.
    pub description: PrimFunc,
    /// What replaces the matched sub-program; its parameters correspond to
    /// the description's, one for one.
    pub implementation: PrimFunc,
    /// The registration statement.
    pub span: Span,
}
