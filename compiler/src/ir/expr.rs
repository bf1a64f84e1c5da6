//! Expressions: variables, literals, arithmetic, loads, vectors and calls.
//!
//! An [`Expr`] is an immutable, reference-counted node; rebuilding a tree shares
//! every unchanged subtree. A [`Var`] is identified by its node, not its name:
//! two variables named `i` are different variables.

use super::buffer::Buffer;
use super::builtin::Op;
use super::dtype::DataType;
use crate::source::Span;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The pointee of a `handle` variable: element type and storage scope.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PointerType {
    /// The element type pointed to.
    pub element: DataType,
    /// The storage scope (`global`, `shared`, `local`, ...).
    pub scope: String,
}

/// The data of a variable.
#[derive(Debug)]
pub struct VarNode {
    /// The name hint; not unique.
    pub name: String,
    /// The value type.
    pub dtype: DataType,
    /// For handles: what they point to, when known.
    pub pointer: Option<PointerType>,
    /// True for size variables (known to be non-negative), as TVM's `SizeVar`.
    pub is_size_var: bool,
    /// Where the variable is defined.
    pub span: Span,
}

/// A variable, identified by its node.
#[derive(Clone)]
pub struct Var(Arc<VarNode>);

impl Var {
    /// A new variable distinct from every other.
    pub fn new(name: impl Into<String>, dtype: DataType, span: Span) -> Var {
        Var(Arc::new(VarNode {
            name: name.into(),
            dtype,
            pointer: None,
            is_size_var: false,
            span,
        }))
    }

    /// A new variable from a full node description.
    pub fn from_node(node: VarNode) -> Var {
        Var(Arc::new(node))
    }

    /// A new `handle` variable pointing to `element` data in `scope`.
    pub fn pointer(name: impl Into<String>, element: DataType, scope: &str, span: Span) -> Var {
        Var(Arc::new(VarNode {
            name: name.into(),
            dtype: DataType::handle(),
            pointer: Some(PointerType {
                element,
                scope: scope.to_string(),
            }),
            is_size_var: false,
            span,
        }))
    }

    /// A new variable with the same type and a different name.
    pub fn with_name(&self, name: impl Into<String>) -> Var {
        Var(Arc::new(VarNode {
            name: name.into(),
            dtype: self.dtype(),
            pointer: self.0.pointer.clone(),
            is_size_var: self.0.is_size_var,
            span: self.0.span,
        }))
    }

    /// A new variable with the same name and a different dtype.
    pub fn with_dtype(&self, dtype: DataType) -> Var {
        Var(Arc::new(VarNode {
            name: self.0.name.clone(),
            dtype,
            pointer: self.0.pointer.clone(),
            is_size_var: self.0.is_size_var,
            span: self.0.span,
        }))
    }

    /// The name hint.
    pub fn name(&self) -> &str {
        &self.0.name
    }
    /// The value type.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    /// The definition site.
    pub fn span(&self) -> Span {
        self.0.span
    }
    /// The node data.
    pub fn node(&self) -> &VarNode {
        &self.0
    }
    /// This variable as an expression.
    pub fn to_expr(&self) -> Expr {
        Expr::new(ExprKind::Var(self.clone()), self.dtype(), Span::NONE)
    }
    /// A stable address usable as a map key for identity.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Var) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Var {}
impl Hash for Var {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id().hash(state)
    }
}
impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{:x}", self.0.name, (self.id() >> 4) & 0xffff)
    }
}

/// Binary operators of TIR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`: float division, or integer division truncating toward zero.
    Div,
    /// Integer remainder truncating toward zero (`T.truncmod`).
    Mod,
    /// `a // b`: integer division rounding toward negative infinity.
    FloorDiv,
    /// `a % b`: remainder of floor division (sign of the divisor).
    FloorMod,
    /// `T.min(a, b)`
    Min,
    /// `T.max(a, b)`
    Max,
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
    /// `a and b`
    And,
    /// `a or b`
    Or,
}

impl BinaryOp {
    /// True for comparisons, whose result is bool.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
    /// True for `and`/`or`.
    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }
    /// The node name as TVM spells it (`T.Add`, `T.FloorDiv`, ...).
    pub fn tvm_name(self) -> &'static str {
        match self {
            BinaryOp::Add => "Add",
            BinaryOp::Sub => "Sub",
            BinaryOp::Mul => "Mul",
            BinaryOp::Div => "Div",
            BinaryOp::Mod => "Mod",
            BinaryOp::FloorDiv => "FloorDiv",
            BinaryOp::FloorMod => "FloorMod",
            BinaryOp::Min => "Min",
            BinaryOp::Max => "Max",
            BinaryOp::Eq => "EQ",
            BinaryOp::Ne => "NE",
            BinaryOp::Lt => "LT",
            BinaryOp::Le => "LE",
            BinaryOp::Gt => "GT",
            BinaryOp::Ge => "GE",
            BinaryOp::And => "And",
            BinaryOp::Or => "Or",
        }
    }
}

/// A load from a buffer: `A[i, j]`.
#[derive(Clone, Debug)]
pub struct BufferLoad {
    /// The buffer read.
    pub buffer: Buffer,
    /// One index per dimension; a `Ramp` index loads a vector.
    pub indices: Vec<Expr>,
}

/// The forms an expression can take.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A variable reference.
    Var(Var),
    /// An integer or bool literal (bool as 0/1). Unsigned 64-bit values are stored bit-cast.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A string literal (call arguments, extern names).
    Str(String),
    /// Conversion of the operand to this node's dtype.
    Cast(Expr),
    /// A binary operation.
    Binary(BinaryOp, Expr, Expr),
    /// Logical negation.
    Not(Expr),
    /// `T.Select(cond, a, b)`: both sides evaluated, one chosen.
    Select(Expr, Expr, Expr),
    /// A buffer load.
    Load(BufferLoad),
    /// `T.Ramp(base, stride, lanes)`: the vector `base + k * stride`.
    Ramp {
        /// First lane's value.
        base: Expr,
        /// Difference between neighbouring lanes.
        stride: Expr,
        /// Number of lanes.
        lanes: u16,
    },
    /// `T.Broadcast(value, lanes)`: `value` in every lane.
    Broadcast {
        /// The scalar.
        value: Expr,
        /// Number of lanes.
        lanes: u16,
    },
    /// `T.Let(body, where={var: value})`: `body` with `var` bound.
    Let {
        /// The bound variable.
        var: Var,
        /// Its value.
        value: Expr,
        /// The expression it is visible in.
        body: Expr,
    },
    /// A call of a builtin operator or an external function.
    Call {
        /// The operator.
        op: Op,
        /// The arguments (for `call_extern`, the function name is the first).
        args: Vec<Expr>,
    },
    /// A call of another function of the module: `Module.helper(x)`.
    CallFunction {
        /// The callee's name.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `T.Shuffle(vectors, indices)`: picks lanes from concatenated vectors.
    Shuffle {
        /// The source vectors.
        vectors: Vec<Expr>,
        /// Lane indices into their concatenation.
        indices: Vec<Expr>,
    },
}

/// The data of an expression node.
#[derive(Clone, Debug)]
pub struct ExprNode {
    /// The form of the expression.
    pub kind: ExprKind,
    /// The type of its value.
    pub dtype: DataType,
    /// Where it was written; `Span::NONE` for built nodes.
    pub span: Span,
}

/// An immutable, shared expression.
#[derive(Clone)]
pub struct Expr(Arc<ExprNode>);

/// The smallest and largest integer literal [`shared_int`] shares.
const SHARED_INT_RANGE: std::ops::RangeInclusive<i64> = -16..=256;
/// The types whose small literals are shared.
const SHARED_INT_TYPES: [DataType; 3] = [DataType::int32(), DataType::int64(), DataType::bool()];

thread_local! {
    /// One node per small literal of each shared type: index arithmetic makes
    /// and drops thousands of `0`, `1` and tile sizes per schedule step.
    static SHARED_INTS: Vec<Vec<Expr>> = SHARED_INT_TYPES
        .iter()
        .map(|&dtype| {
            SHARED_INT_RANGE
                .map(|value| Expr::new(ExprKind::Int(value), dtype, Span::NONE))
                .collect()
        })
        .collect();
}

/// The shared node of a small `int32`, `int64` or `bool` literal, if it is one.
fn shared_int(value: i64, dtype: DataType) -> Option<Expr> {
    if !SHARED_INT_RANGE.contains(&value) {
        return None;
    }
    let slot = SHARED_INT_TYPES
        .iter()
        .position(|&shared| shared == dtype)?;
    let index = (value - SHARED_INT_RANGE.start()) as usize;
    SHARED_INTS.with(|shared| shared.get(slot).and_then(|nodes| nodes.get(index)).cloned())
}

impl Expr {
    /// A new node.
    pub fn new(kind: ExprKind, dtype: DataType, span: Span) -> Expr {
        Expr(Arc::new(ExprNode { kind, dtype, span }))
    }

    /// The form of the expression.
    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }
    /// The value type.
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    /// The source span.
    pub fn span(&self) -> Span {
        self.0.span
    }
    /// The node data.
    pub fn node(&self) -> &ExprNode {
        &self.0
    }
    /// True when both handles point to the same node.
    pub fn same_as(&self, other: &Expr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// The same expression with another span.
    pub fn with_span(&self, span: Span) -> Expr {
        Expr::new(self.kind().clone(), self.dtype(), span)
    }

    /// An integer literal of the given type.
    pub fn int(value: i64, dtype: DataType) -> Expr {
        shared_int(value, dtype)
            .unwrap_or_else(|| Expr::new(ExprKind::Int(value), dtype, Span::NONE))
    }
    /// An `int32` literal.
    pub fn i32(value: i64) -> Expr {
        Expr::int(value, DataType::int32())
    }
    /// A bool literal.
    pub fn bool(value: bool) -> Expr {
        Expr::int(value as i64, DataType::bool())
    }
    /// A float literal of the given type.
    pub fn float(value: f64, dtype: DataType) -> Expr {
        Expr::new(ExprKind::Float(value), dtype, Span::NONE)
    }
    /// A string literal.
    pub fn string(value: impl Into<String>) -> Expr {
        Expr::new(ExprKind::Str(value.into()), DataType::handle(), Span::NONE)
    }
    /// A variable reference.
    pub fn var(var: &Var) -> Expr {
        var.to_expr()
    }
    /// A literal of `dtype` with value 0 (false for bool); a broadcast
    /// for a vector type, as the parser reads `T.float32x4(0.0)`.
    pub fn zero(dtype: DataType) -> Expr {
        if dtype.lanes > 1 {
            super::operators::make_const_int(dtype, 0)
        } else if dtype.is_float() {
            Expr::float(0.0, dtype)
        } else {
            Expr::int(0, dtype)
        }
    }
    /// A literal of `dtype` with value 1 (true for bool); a broadcast for a
    /// vector type.
    pub fn one(dtype: DataType) -> Expr {
        if dtype.lanes > 1 {
            super::operators::make_const_int(dtype, 1)
        } else if dtype.is_float() {
            Expr::float(1.0, dtype)
        } else {
            Expr::int(1, dtype)
        }
    }

    /// A binary node; the result type is bool for comparisons and logic, else the
    /// type of `a` (callers make the operand types agree first).
    pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        let dtype = if op.is_comparison() || op.is_logical() {
            DataType::bool().with_lanes(a.dtype().lanes.max(b.dtype().lanes))
        } else {
            a.dtype()
        };
        Expr::new(ExprKind::Binary(op, a, b), dtype, Span::NONE)
    }
    /// A conversion to `dtype`; no node when the type already matches.
    pub fn cast(dtype: DataType, value: Expr) -> Expr {
        if value.dtype() == dtype {
            return value;
        }
        Expr::new(ExprKind::Cast(value), dtype, Span::NONE)
    }
    /// A buffer load; vector indices give a vector result.
    pub fn load(buffer: &Buffer, indices: Vec<Expr>) -> Expr {
        let lanes = indices.iter().map(|i| i.dtype().lanes).max().unwrap_or(1);
        let dtype = buffer.dtype().with_lanes(buffer.dtype().lanes * lanes);
        Expr::new(
            ExprKind::Load(BufferLoad {
                buffer: buffer.clone(),
                indices,
            }),
            dtype,
            Span::NONE,
        )
    }
    /// A call of `op` with the given result type.
    pub fn call(op: Op, args: Vec<Expr>, dtype: DataType) -> Expr {
        Expr::new(ExprKind::Call { op, args }, dtype, Span::NONE)
    }

    /// The constant integer value, for `Int` nodes.
    pub fn as_int(&self) -> Option<i64> {
        match self.kind() {
            ExprKind::Int(v) => Some(*v),
            _ => None,
        }
    }
    /// The constant float value, for `Float` nodes.
    pub fn as_float(&self) -> Option<f64> {
        match self.kind() {
            ExprKind::Float(v) => Some(*v),
            _ => None,
        }
    }
    /// The variable, for `Var` nodes.
    pub fn as_var(&self) -> Option<&Var> {
        match self.kind() {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }
    /// True when this is the integer literal `value`.
    pub fn is_int(&self, value: i64) -> bool {
        self.as_int() == Some(value)
    }
    /// True for literals (int, float, string).
    pub fn is_const(&self) -> bool {
        matches!(
            self.kind(),
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_)
        )
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::printer::expr_to_string(self))
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::printer::expr_to_string(self))
    }
}

/// Arithmetic on expressions builds nodes without simplifying; operand types
/// must already agree. `arith` simplifies.
macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl std::ops::$trait for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                Expr::binary($op, self, rhs)
            }
        }
        impl std::ops::$trait<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                Expr::binary($op, self.clone(), rhs.clone())
            }
        }
    };
}
binary_operator!(Add, add, BinaryOp::Add);
binary_operator!(Sub, sub, BinaryOp::Sub);
binary_operator!(Mul, mul, BinaryOp::Mul);

/// A half-open integer range `[min, min + extent)`.
#[derive(Clone, Debug)]
pub struct Range {
    /// The first value.
    pub min: Expr,
    /// The number of values.
    pub extent: Expr,
}

impl Range {
    /// The range `[min, min + extent)`.
    pub fn new(min: Expr, extent: Expr) -> Range {
        Range { min, extent }
    }
    /// The range `[0, extent)` in the extent's type.
    pub fn from_extent(extent: Expr) -> Range {
        Range {
            min: Expr::zero(extent.dtype()),
            extent,
        }
    }
    /// The single point `[value, value + 1)`.
    pub fn point(value: Expr) -> Range {
        let one = Expr::one(value.dtype());
        Range {
            min: value,
            extent: one,
        }
    }
    /// `min + extent`, the first value past the range (constants folded); an
    /// error when the two types do not combine.
    pub fn end(&self) -> Result<Expr, super::operators::OperatorError> {
        super::operators::add(self.min.clone(), self.extent.clone())
    }
    /// `min + extent - 1`, the last value in the range.
    pub fn last(&self) -> Result<Expr, super::operators::OperatorError> {
        self.end()
            .and_then(|end| super::operators::sub(end, Expr::one(self.min.dtype())))
    }
}
