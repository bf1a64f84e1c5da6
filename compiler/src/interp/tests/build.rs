//! Short constructors for hand-built IR, so each test reads like the
//! TVMScript it stands for.

use crate::ir::{
    Allocate, AttrNode, AttrStmt, BinaryOp, Block, BlockRealize, Buffer, BufferRegion, DataType,
    Expr, ExprKind, For, ForKind, IterKind, IterVar, MatchBufferRegion, NodeId, Op, PrimFunc,
    Range, Stmt, StmtKind, Var,
};
use crate::source::Span;

/// An `int32` variable.
pub fn int_var(name: &str) -> Var {
    Var::new(name, DataType::int32(), Span::NONE)
}

/// An `int32` literal.
pub fn int(value: i64) -> Expr {
    Expr::i32(value)
}

/// A `float32` literal.
pub fn float32(value: f64) -> Expr {
    Expr::float(value, DataType::float32())
}

/// A variable as an expression.
pub fn use_var(var: &Var) -> Expr {
    var.to_expr()
}

/// `a op b`.
pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// `a < b`.
pub fn less(a: Expr, b: Expr) -> Expr {
    binary(BinaryOp::Lt, a, b)
}

/// A cast to `dtype`.
pub fn cast(dtype: DataType, value: Expr) -> Expr {
    Expr::new(ExprKind::Cast(value), dtype, Span::NONE)
}

/// A call of the builtin `name` with result type `dtype`.
pub fn call(name: &str, args: Vec<Expr>, dtype: DataType) -> Expr {
    Expr::call(Op::named(name), args, dtype)
}

/// `T.Ramp(base, stride, lanes)` over `int32`.
pub fn ramp(base: Expr, stride: i64, lanes: u16) -> Expr {
    let dtype = base.dtype().with_lanes(lanes);
    Expr::new(
        ExprKind::Ramp {
            base,
            stride: int(stride),
            lanes,
        },
        dtype,
        Span::NONE,
    )
}

/// `T.Broadcast(value, lanes)`.
pub fn broadcast(value: Expr, lanes: u16) -> Expr {
    let dtype = value.dtype().with_lanes(lanes);
    Expr::new(ExprKind::Broadcast { value, lanes }, dtype, Span::NONE)
}

/// A global buffer with constant `int32` extents.
pub fn buffer(name: &str, dtype: DataType, shape: &[i64]) -> Buffer {
    let shape = shape.iter().map(|extent| int(*extent)).collect();
    Buffer::new(name, dtype, shape, "global", Span::NONE)
}

/// `buffer[indices]`.
pub fn load(buffer: &Buffer, indices: Vec<Expr>) -> Expr {
    Expr::load(buffer, indices)
}

/// `buffer[indices] = value`.
pub fn store(buffer: &Buffer, indices: Vec<Expr>, value: Expr) -> Stmt {
    Stmt::store(buffer, value, indices)
}

/// Statements in order.
pub fn seq(stmts: Vec<Stmt>) -> Stmt {
    Stmt::seq(stmts)
}

/// `for var in range(extent)` of the given kind.
pub fn loop_of_kind(var: &Var, extent: Expr, kind: ForKind, body: Stmt) -> Stmt {
    Stmt::for_loop(For {
        id: NodeId::fresh(),
        loop_var: var.clone(),
        min: int(0),
        extent,
        kind,
        thread: None,
        annotations: Vec::new(),
        body,
    })
}

/// `for var in range(extent)`.
pub fn serial(var: &Var, extent: i64, body: Stmt) -> Stmt {
    loop_of_kind(var, int(extent), ForKind::Serial, body)
}

/// `for var in T.thread_binding(extent, thread=tag)`.
pub fn thread_loop(var: &Var, extent: i64, tag: &str, body: Stmt) -> Stmt {
    Stmt::for_loop(For {
        id: NodeId::fresh(),
        loop_var: var.clone(),
        min: int(0),
        extent: int(extent),
        kind: ForKind::ThreadBinding,
        thread: Some(tag.to_string()),
        annotations: Vec::new(),
        body,
    })
}

/// `if condition: then_case else: else_case`.
pub fn if_then_else(condition: Expr, then_case: Stmt, else_case: Option<Stmt>) -> Stmt {
    Stmt::new(
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        },
        Span::NONE,
    )
}

/// `T.evaluate(value)`.
pub fn evaluate(value: Expr) -> Stmt {
    Stmt::new(StmtKind::Evaluate(value), Span::NONE)
}

/// One block iteration variable: its variable, domain extent, kind and binding.
pub struct Axis {
    /// The block's variable.
    pub var: Var,
    /// The domain `[0, extent)`.
    pub extent: i64,
    /// Spatial or reduce.
    pub kind: IterKind,
    /// The value bound to it, in outer loop variables.
    pub binding: Expr,
}

/// A spatial axis `[0, extent)` bound to `binding`.
pub fn spatial(name: &str, extent: i64, binding: Expr) -> Axis {
    Axis {
        var: int_var(name),
        extent,
        kind: IterKind::Spatial,
        binding,
    }
}

/// A reduction axis `[0, extent)` bound to `binding`.
pub fn reduce(name: &str, extent: i64, binding: Expr) -> Axis {
    Axis {
        var: int_var(name),
        extent,
        kind: IterKind::Reduce,
        binding,
    }
}

/// The parts of a block beyond its axes; `Default` gives a plain block.
#[derive(Default)]
pub struct BlockParts {
    /// `T.init()` body.
    pub init: Option<Stmt>,
    /// `T.where` condition.
    pub predicate: Option<Expr>,
    /// `T.alloc_buffer`s.
    pub alloc_buffers: Vec<Buffer>,
    /// `T.match_buffer`s.
    pub match_buffers: Vec<MatchBufferRegion>,
}

/// `with T.block(name)` realized with the axes' bindings.
pub fn block(name: &str, axes: &[Axis], parts: BlockParts, body: Stmt) -> Stmt {
    Stmt::block_realize(BlockRealize {
        iter_values: axes.iter().map(|axis| axis.binding.clone()).collect(),
        predicate: parts.predicate.unwrap_or_else(|| Expr::bool(true)),
        block: Block {
            id: NodeId::fresh(),
            name: name.to_string(),
            iter_vars: axes
                .iter()
                .map(|axis| IterVar {
                    var: axis.var.clone(),
                    dom: Range::from_extent(int(axis.extent)),
                    kind: axis.kind,
                })
                .collect(),
            reads: Vec::new(),
            writes: Vec::new(),
            init: parts.init,
            alloc_buffers: parts.alloc_buffers,
            match_buffers: parts.match_buffers,
            annotations: Vec::new(),
            body,
        },
    })
}

/// The root block of a block-level function.
pub fn root(alloc_buffers: Vec<Buffer>, body: Stmt) -> Stmt {
    block(
        "root",
        &[],
        BlockParts {
            alloc_buffers,
            ..BlockParts::default()
        },
        body,
    )
}

/// A region `buffer[min0:min0+extent0, ...]`.
pub fn region(buffer: &Buffer, ranges: Vec<(Expr, i64)>) -> BufferRegion {
    BufferRegion {
        buffer: buffer.clone(),
        region: ranges
            .into_iter()
            .map(|(min, extent)| Range::new(min, int(extent)))
            .collect(),
    }
}

/// `T.allocate([extent], dtype)` bound to `data` around `body`.
pub fn allocate(data: &Var, dtype: DataType, extents: &[i64], body: Stmt) -> Stmt {
    Stmt::new(
        StmtKind::Allocate(Allocate {
            buffer_var: data.clone(),
            dtype,
            extents: extents.iter().map(|extent| int(*extent)).collect(),
            condition: Expr::bool(true),
            annotations: Vec::new(),
            body,
        }),
        Span::NONE,
    )
}

/// `T.decl_buffer` of `buffer` around `body`.
pub fn decl_buffer(buffer: &Buffer, body: Stmt) -> Stmt {
    Stmt::new(
        StmtKind::DeclBuffer {
            buffer: buffer.clone(),
            body,
        },
        Span::NONE,
    )
}

/// `T.launch_thread(var, extent)` around `body`.
pub fn launch_thread(var: &Var, tag: &str, extent: i64, body: Stmt) -> Stmt {
    Stmt::new(
        StmtKind::AttrStmt(AttrStmt {
            node: AttrNode::Thread {
                var: var.clone(),
                tag: tag.to_string(),
            },
            key: "thread_extent".to_string(),
            value: int(extent),
            body,
        }),
        Span::NONE,
    )
}

/// A function of buffer parameters (in order) then scalar parameters.
pub fn function(buffers: &[&Buffer], scalars: &[&Var], body: Stmt) -> PrimFunc {
    let mut params = Vec::new();
    let mut buffer_map = Vec::new();
    for buffer in buffers {
        let handle = Var::new(
            format!("{}_handle", buffer.name()),
            DataType::handle(),
            Span::NONE,
        );
        params.push(handle.clone());
        buffer_map.push((handle, (*buffer).clone()));
    }
    params.extend(scalars.iter().map(|var| (*var).clone()));
    PrimFunc {
        name: "main".to_string(),
        params,
        buffer_map,
        ret_type: DataType::void(),
        attrs: Vec::new(),
        body,
        private: false,
        span: Span::NONE,
    }
}
