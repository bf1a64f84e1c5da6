//! Statements: loops, blocks, stores, control flow and allocations.
//!
//! Loops and blocks carry a [`NodeId`] that survives rewrites: a schedule
//! primitive that rebuilds a loop "as the same loop" (reorder, annotate) keeps
//! its id, so handles held by a schedule script stay valid; a loop a primitive
//! removes disappears with its id.

use super::buffer::Buffer;
use super::expr::{Expr, Range, Var};
use super::DataType;
use crate::source::Span;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Stable identity of a loop or block across schedule steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

static NEXT_NODE_ID: AtomicU32 = AtomicU32::new(1);

impl NodeId {
    /// A new id distinct from every other in this process.
    pub fn fresh() -> NodeId {
        NodeId(NEXT_NODE_ID.fetch_add(1, Ordering::Relaxed))
    }
}

/// Thread tags a loop may be bound to.
pub const THREAD_TAGS: &[&str] = &[
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread.x",
    "vthread.y",
    "vthread.z",
    "vthread",
];

/// The kind of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForKind {
    /// Iterations run in order.
    Serial,
    /// Iterations run on a thread pool.
    Parallel,
    /// Iterations become vector lanes.
    Vectorized,
    /// The loop is unrolled.
    Unrolled,
    /// Iterations are mapped to GPU threads (the tag is in [`For::thread`]).
    ThreadBinding,
}

impl ForKind {
    /// The TVMScript constructor name (`serial`, `parallel`, ...).
    pub fn script_name(self) -> &'static str {
        match self {
            ForKind::Serial => "serial",
            ForKind::Parallel => "parallel",
            ForKind::Vectorized => "vectorized",
            ForKind::Unrolled => "unroll",
            ForKind::ThreadBinding => "thread_binding",
        }
    }
}

/// A value of an annotation or function attribute.
#[derive(Clone, Debug)]
pub enum AttrValue {
    /// A Python integer (printed bare).
    Int(i64),
    /// A Python float (printed bare).
    Float(f64),
    /// A Python bool (printed `True`/`False`).
    Bool(bool),
    /// An IR expression (`T.int64(5)`, a variable).
    Expr(Expr),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<AttrValue>),
    /// A dictionary with string keys, in order.
    Dict(Vec<(String, AttrValue)>),
    /// `None`.
    None,
    /// A compilation target, `T.target({...})`, as its configuration dict.
    Target(Vec<(String, AttrValue)>),
}

impl AttrValue {
    /// The integer value, when the value is an integer literal.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(i) => Some(*i),
            AttrValue::Bool(b) => Some(*b as i64),
            AttrValue::Expr(e) => e.as_int(),
            _ => None,
        }
    }
    /// The string, when the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Annotations of a loop or block, or attributes of a function: ordered key/value pairs.
pub type Annotations = Vec<(String, AttrValue)>;

/// A loop `for loop_var in range(min, min + extent)`.
#[derive(Clone, Debug)]
pub struct For {
    /// Identity across schedule steps.
    pub id: NodeId,
    /// The loop variable.
    pub loop_var: Var,
    /// First iteration value.
    pub min: Expr,
    /// Number of iterations.
    pub extent: Expr,
    /// Serial, parallel, vectorized, unrolled or thread-bound.
    pub kind: ForKind,
    /// The thread tag (`threadIdx.x`) of a thread-bound loop.
    pub thread: Option<String>,
    /// Loop annotations (`pragma_unroll_explicit`, ...).
    pub annotations: Annotations,
    /// The loop body.
    pub body: Stmt,
}

impl For {
    /// The values the loop variable takes: `[min, min + extent)`.
    pub fn range(&self) -> Range {
        Range::new(self.min.clone(), self.extent.clone())
    }
}

/// Kinds of block iteration variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterKind {
    /// Spatial (data-parallel): `S`.
    Spatial,
    /// Reduction: `R`.
    Reduce,
    /// Scan (ordered): `C`.
    Scan,
    /// Opaque: `O`.
    Opaque,
}

impl IterKind {
    /// The letter used by `T.axis.remap`.
    pub fn letter(self) -> char {
        match self {
            IterKind::Spatial => 'S',
            IterKind::Reduce => 'R',
            IterKind::Scan => 'C',
            IterKind::Opaque => 'O',
        }
    }
    /// The `T.axis.*` constructor name.
    pub fn axis_name(self) -> &'static str {
        match self {
            IterKind::Spatial => "spatial",
            IterKind::Reduce => "reduce",
            IterKind::Scan => "scan",
            IterKind::Opaque => "opaque",
        }
    }
    /// The kind for a `T.axis.remap` letter.
    pub fn from_letter(letter: char) -> Option<IterKind> {
        match letter {
            'S' => Some(IterKind::Spatial),
            'R' => Some(IterKind::Reduce),
            'C' => Some(IterKind::Scan),
            'O' => Some(IterKind::Opaque),
            _ => None,
        }
    }
}

/// A block iteration variable with its domain and kind.
#[derive(Clone, Debug)]
pub struct IterVar {
    /// The variable.
    pub var: Var,
    /// The values it takes.
    pub dom: Range,
    /// Spatial, reduce, scan or opaque.
    pub kind: IterKind,
}

/// A rectangular region of a buffer.
#[derive(Clone, Debug)]
pub struct BufferRegion {
    /// The buffer.
    pub buffer: Buffer,
    /// One range per dimension.
    pub region: Vec<Range>,
}

impl BufferRegion {
    /// The whole buffer.
    pub fn full(buffer: &Buffer) -> BufferRegion {
        BufferRegion {
            buffer: buffer.clone(),
            region: buffer
                .shape()
                .iter()
                .map(|extent| Range::from_extent(extent.clone()))
                .collect(),
        }
    }

    /// One element: `A[i, j]` as the region `A[i:i + 1, j:j + 1]` (TVM's `FromPoint`).
    pub fn from_point(buffer: &Buffer, indices: &[Expr]) -> BufferRegion {
        BufferRegion {
            buffer: buffer.clone(),
            region: indices
                .iter()
                .map(|i| Range::new(i.clone(), Expr::one(i.dtype())))
                .collect(),
        }
    }
}

/// `T.match_buffer(source_region, ...)` inside a block: a buffer viewing a region.
#[derive(Clone, Debug)]
pub struct MatchBufferRegion {
    /// The new buffer.
    pub buffer: Buffer,
    /// The region it views.
    pub source: BufferRegion,
}

/// A block: a unit of computation with iteration variables and declared accesses.
#[derive(Clone, Debug)]
pub struct Block {
    /// Identity across schedule steps.
    pub id: NodeId,
    /// The block name, used by `get_block`.
    pub name: String,
    /// Iteration variables with domains and kinds.
    pub iter_vars: Vec<IterVar>,
    /// Regions read.
    pub reads: Vec<BufferRegion>,
    /// Regions written.
    pub writes: Vec<BufferRegion>,
    /// The `T.init()` body of a reduction block.
    pub init: Option<Stmt>,
    /// Buffers allocated in the block.
    pub alloc_buffers: Vec<Buffer>,
    /// Buffers bound to regions of outer buffers.
    pub match_buffers: Vec<MatchBufferRegion>,
    /// Block annotations.
    pub annotations: Annotations,
    /// The body.
    pub body: Stmt,
}

impl Block {
    /// A new block (fresh id) with no init, allocations, matches or
    /// annotations: the stages primitives create.
    pub fn leaf(
        name: String,
        iter_vars: Vec<IterVar>,
        reads: Vec<BufferRegion>,
        writes: Vec<BufferRegion>,
        body: Stmt,
    ) -> Block {
        Block {
            id: NodeId::fresh(),
            name,
            iter_vars,
            reads,
            writes,
            init: None,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: Vec::new(),
            body,
        }
    }
}

/// A block with the values of its iteration variables and its predicate.
#[derive(Clone, Debug)]
pub struct BlockRealize {
    /// One binding per iteration variable, in terms of outer loop variables.
    pub iter_values: Vec<Expr>,
    /// The block runs only where this holds (`T.where`); `True` otherwise.
    pub predicate: Expr,
    /// The block.
    pub block: Block,
}

/// A store into a buffer: `A[i, j] = value`.
#[derive(Clone, Debug)]
pub struct BufferStore {
    /// The buffer written.
    pub buffer: Buffer,
    /// The stored value.
    pub value: Expr,
    /// One index per dimension.
    pub indices: Vec<Expr>,
}

/// A memory allocation for the duration of `body` (lowered TIR).
#[derive(Clone, Debug)]
pub struct Allocate {
    /// The `handle` variable bound to the allocation.
    pub buffer_var: Var,
    /// Element type.
    pub dtype: DataType,
    /// Extents.
    pub extents: Vec<Expr>,
    /// The allocation happens only where this holds.
    pub condition: Expr,
    /// Allocation annotations.
    pub annotations: Annotations,
    /// Where the allocation is live.
    pub body: Stmt,
}

/// A commutative reducer: `T.comm_reducer(lambda x, y: x + y, [identity])`,
/// the combiner of a cross-thread reduction.
#[derive(Clone, Debug)]
pub struct CommReducer {
    /// The left arguments of the combiner.
    pub lhs: Vec<Var>,
    /// The right arguments of the combiner.
    pub rhs: Vec<Var>,
    /// The combined values, one per reduced value.
    pub result: Vec<Expr>,
    /// The identity element of each reduced value.
    pub identity: Vec<Expr>,
}

/// What an attribute statement is attached to.
#[derive(Clone, Debug)]
pub enum AttrNode {
    /// A commutative reducer (`reduce_scope` attributes).
    Reducer(CommReducer),
    /// Nothing in particular.
    None,
    /// A variable.
    Var(Var),
    /// A buffer.
    Buffer(Buffer),
    /// A string.
    Str(String),
    /// A launched thread: its variable and tag (`T.launch_thread`).
    Thread {
        /// The thread index variable.
        var: Var,
        /// The thread tag (`blockIdx.x`).
        tag: String,
    },
}

/// `T.attr(node, key, value)` around a body.
#[derive(Clone, Debug)]
pub struct AttrStmt {
    /// The node the attribute applies to.
    pub node: AttrNode,
    /// The attribute key (`thread_extent`, `pragma_*`, ...).
    pub key: String,
    /// The value.
    pub value: Expr,
    /// The body it applies to.
    pub body: Stmt,
}

/// The forms a statement can take.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// A loop.
    For(For),
    /// A block with its bindings.
    BlockRealize(BlockRealize),
    /// A store.
    BufferStore(BufferStore),
    /// Statements in order.
    Seq(Vec<Stmt>),
    /// A conditional.
    IfThenElse {
        /// The condition.
        condition: Expr,
        /// Run when it holds.
        then_case: Stmt,
        /// Run otherwise.
        else_case: Option<Stmt>,
    },
    /// `var = value` visible in `body`.
    LetStmt {
        /// The bound variable.
        var: Var,
        /// Its value.
        value: Expr,
        /// Where it is visible.
        body: Stmt,
    },
    /// An expression evaluated for its effect.
    Evaluate(Expr),
    /// A memory allocation.
    Allocate(Allocate),
    /// Allocates a buffer (storage included) visible in `body`: TVM 0.27's
    /// statement-level `T.alloc_buffer` / `T.alloc_local` / `T.alloc_shared`.
    AllocBuffer {
        /// The allocated buffer.
        buffer: Buffer,
        /// Allocation annotations.
        annotations: Annotations,
        /// Where it is visible.
        body: Stmt,
    },
    /// Declares a buffer visible in `body`.
    DeclBuffer {
        /// The declared buffer.
        buffer: Buffer,
        /// Where it is visible.
        body: Stmt,
    },
    /// An attribute around a body.
    AttrStmt(AttrStmt),
    /// Checks a condition at run time.
    Assert {
        /// The checked condition.
        condition: Expr,
        /// The error kind raised when it fails (`RuntimeError`, `ValueError`).
        error_kind: String,
        /// The parts of the message, joined when it fails.
        message: Vec<Expr>,
        /// Run after the check.
        body: Stmt,
    },
    /// A while loop.
    While {
        /// The loop condition.
        condition: Expr,
        /// The body.
        body: Stmt,
    },
}

/// The data of a statement node.
#[derive(Clone, Debug)]
pub struct StmtNode {
    /// The form of the statement.
    pub kind: StmtKind,
    /// Where it was written.
    pub span: Span,
}

/// An immutable, shared statement.
#[derive(Clone, Debug)]
pub struct Stmt(Arc<StmtNode>);

impl Stmt {
    /// A new statement node.
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt(Arc::new(StmtNode { kind, span }))
    }
    /// The form of the statement.
    pub fn kind(&self) -> &StmtKind {
        &self.0.kind
    }
    /// The source span.
    pub fn span(&self) -> Span {
        self.0.span
    }
    /// True when both handles point to the same node.
    pub fn same_as(&self, other: &Stmt) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// The same statement kind with a new span.
    pub fn with_kind(&self, kind: StmtKind) -> Stmt {
        Stmt::new(kind, self.span())
    }

    /// A sequence; one statement stays itself, nested sequences are flattened.
    pub fn seq(stmts: Vec<Stmt>) -> Stmt {
        let mut flat = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            match stmt.kind() {
                StmtKind::Seq(inner) => flat.extend(inner.iter().cloned()),
                _ => flat.push(stmt),
            }
        }
        if flat.len() == 1 {
            return flat.pop().unwrap_or_else(Stmt::no_op);
        }
        Stmt::new(StmtKind::Seq(flat), Span::NONE)
    }
    /// `T.evaluate(0)`, the statement that does nothing.
    pub fn no_op() -> Stmt {
        Stmt::new(StmtKind::Evaluate(Expr::i32(0)), Span::NONE)
    }
    /// True for `T.evaluate(<constant>)` and empty sequences.
    pub fn is_no_op(&self) -> bool {
        match self.kind() {
            StmtKind::Evaluate(e) => e.is_const(),
            StmtKind::Seq(stmts) => stmts.is_empty(),
            _ => false,
        }
    }
    /// A loop node.
    pub fn for_loop(for_loop: For) -> Stmt {
        Stmt::new(StmtKind::For(for_loop), Span::NONE)
    }
    /// A block-realize node.
    pub fn block_realize(realize: BlockRealize) -> Stmt {
        Stmt::new(StmtKind::BlockRealize(realize), Span::NONE)
    }
    /// A store node.
    pub fn store(buffer: &Buffer, value: Expr, indices: Vec<Expr>) -> Stmt {
        Stmt::new(
            StmtKind::BufferStore(BufferStore {
                buffer: buffer.clone(),
                value,
                indices,
            }),
            Span::NONE,
        )
    }

    /// The loop, for `For` nodes.
    pub fn as_for(&self) -> Option<&For> {
        match self.kind() {
            StmtKind::For(f) => Some(f),
            _ => None,
        }
    }
    /// The block realize, for `BlockRealize` nodes.
    pub fn as_block_realize(&self) -> Option<&BlockRealize> {
        match self.kind() {
            StmtKind::BlockRealize(r) => Some(r),
            _ => None,
        }
    }
}
