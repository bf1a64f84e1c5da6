//! Buffers: typed, shaped views of memory that loads and stores index.

use super::dtype::DataType;
use super::expr::{Expr, Var};
use crate::source::Span;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// How a buffer is bound to its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferType {
    /// Ordinary buffer.
    Default,
    /// Dimensions of extent 1 broadcast (TVM's `buffer_type="auto"`).
    AutoBroadcast,
}

/// The data of a buffer.
#[derive(Clone, Debug)]
pub struct BufferNode {
    /// The name hint.
    pub name: String,
    /// The `handle` variable holding the data pointer.
    pub data: Var,
    /// Element type.
    pub dtype: DataType,
    /// Extent of each dimension.
    pub shape: Vec<Expr>,
    /// Stride of each dimension in elements; empty for a compact row-major buffer.
    pub strides: Vec<Expr>,
    /// Offset of the first element, in elements.
    pub elem_offset: Expr,
    /// Storage scope (`global`, `shared`, `local`, `shared.dyn`, `warp`, `wmma.*`).
    pub scope: String,
    /// Alignment of the data pointer in bytes.
    pub data_alignment: i64,
    /// The element offset is a multiple of this (0: unconstrained).
    pub offset_factor: i64,
    /// Broadcasting behaviour.
    pub buffer_type: BufferType,
    /// Where dimensions are grouped when flattened to physical axes.
    pub axis_separators: Vec<i64>,
    /// Declared as a TVM 0.27 local scalar (`x: T.int32 = v`), so printed and
    /// read by name. A printing hint only: structural equality ignores it.
    pub declared_as_scalar: bool,
    /// Where the buffer is declared.
    pub span: Span,
}

/// The default `data_alignment`, as TVM's `runtime::kAllocAlignment`.
pub const DEFAULT_ALIGNMENT: i64 = 64;

/// A buffer, identified by its node.
#[derive(Clone)]
pub struct Buffer(Arc<BufferNode>);

impl Buffer {
    /// A compact buffer in `scope` with a fresh data variable.
    pub fn new(name: &str, dtype: DataType, shape: Vec<Expr>, scope: &str, span: Span) -> Buffer {
        let index_type = shape
            .first()
            .map(|e| e.dtype())
            .unwrap_or(DataType::int32());
        Buffer(Arc::new(BufferNode {
            name: name.to_string(),
            data: Var::pointer(name, dtype, scope, span),
            dtype,
            shape,
            strides: Vec::new(),
            elem_offset: Expr::zero(index_type),
            scope: scope.to_string(),
            data_alignment: DEFAULT_ALIGNMENT,
            offset_factor: 1,
            buffer_type: BufferType::Default,
            axis_separators: Vec::new(),
            declared_as_scalar: false,
            span,
        }))
    }

    /// A buffer from a full node description.
    pub fn from_node(node: BufferNode) -> Buffer {
        Buffer(Arc::new(node))
    }

    /// The node data.
    pub fn node(&self) -> &BufferNode {
        &self.0
    }
    /// The name hint.
    pub fn name(&self) -> &str {
        &self.0.name
    }
    /// The element type.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    /// The extents.
    pub fn shape(&self) -> &[Expr] {
        &self.0.shape
    }
    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.0.shape.len()
    }
    /// The storage scope.
    pub fn scope(&self) -> &str {
        &self.0.scope
    }
    /// The data pointer variable.
    pub fn data(&self) -> &Var {
        &self.0.data
    }
    /// Where it is declared.
    pub fn span(&self) -> Span {
        self.0.span
    }
    /// A stable address usable as an identity key.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
    /// A new buffer with the node changed by `edit` (a different buffer identity).
    pub fn with(&self, edit: impl FnOnce(&mut BufferNode)) -> Buffer {
        let mut node = (*self.0).clone();
        edit(&mut node);
        Buffer(Arc::new(node))
    }
    /// True when the extents are all constants; returns them.
    pub fn constant_shape(&self) -> Option<Vec<i64>> {
        self.0.shape.iter().map(|e| e.as_int()).collect()
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Buffer {}
impl Hash for Buffer {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id().hash(state)
    }
}
impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer({}#{:x})", self.0.name, (self.id() >> 4) & 0xffff)
    }
}

/// Storage scopes tirc knows; the verifier refuses others.
pub fn is_known_scope(scope: &str) -> bool {
    matches!(
        scope,
        "global"
            | "shared"
            | "shared.dyn"
            | "local"
            | "warp"
            | "global.texture"
            | "metal.simdgroup"
    ) || scope.starts_with("wmma.")
        || scope.starts_with("m16n8k8.")
        || scope.starts_with("local.")
        || scope.starts_with("global.")
        || scope.starts_with("shared.")
}
