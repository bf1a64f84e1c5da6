//! Structural equality and hashing up to renaming of variables and buffers.
//!
//! Both sides are serialised into a token stream in which every variable and
//! buffer is replaced by the order in which it is first met; two functions are
//! equal when their streams are. The hash is the hash of the stream, so the two
//! agree by construction, and the first differing token gives the path and the
//! spans of the first difference.

use super::buffer::{Buffer, BufferType};
use super::dtype::DataType;
use super::expr::{Expr, ExprKind, Range, Var};
use super::function::{IRModule, PrimFunc};
use super::identity::{BufferMap, VarMap};
use super::stmt::{AttrNode, AttrValue, Block, BufferRegion, ForKind, IterKind, Stmt, StmtKind};
use crate::source::Span;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Token {
    Open(&'static str),
    Close,
    Int(i64),
    FloatBits(u64),
    Text(String),
    Dtype(DataType),
    Var(u32),
    Buffer(u32),
    Count(usize),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Open(tag) => write!(f, "{tag}"),
            Token::Close => write!(f, "end of node"),
            Token::Int(v) => write!(f, "{v}"),
            Token::FloatBits(bits) => write!(f, "{}", f64::from_bits(*bits)),
            Token::Text(s) => write!(f, "{s:?}"),
            Token::Dtype(d) => write!(f, "{d}"),
            Token::Var(i) => write!(f, "variable #{i}"),
            Token::Buffer(i) => write!(f, "buffer #{i}"),
            Token::Count(n) => write!(f, "{n} items"),
        }
    }
}

struct Serializer {
    tokens: Vec<(Token, Span)>,
    vars: VarMap<u32>,
    buffers: BufferMap<u32>,
    names: HashMap<u32, String>,
    span: Span,
}

impl Serializer {
    fn new() -> Serializer {
        Serializer {
            tokens: Vec::new(),
            vars: Default::default(),
            buffers: Default::default(),
            names: HashMap::new(),
            span: Span::NONE,
        }
    }

    fn push(&mut self, token: Token) {
        self.tokens.push((token, self.span));
    }

    fn open(&mut self, tag: &'static str, span: Span) -> Span {
        let saved = self.span;
        if span.is_known() {
            self.span = span;
        }
        self.push(Token::Open(tag));
        saved
    }

    fn close(&mut self, saved: Span) {
        self.push(Token::Close);
        self.span = saved;
    }

    fn var(&mut self, var: &Var) {
        let next = self.vars.len() as u32;
        let index = *self.vars.entry(var.clone()).or_insert(next);
        self.names
            .entry(index)
            .or_insert_with(|| var.name().to_string());
        self.push(Token::Var(index));
        if index == next {
            self.push(Token::Dtype(var.dtype()));
            if let Some(pointer) = &var.node().pointer {
                self.push(Token::Dtype(pointer.element));
                self.push(Token::Text(pointer.scope.clone()));
            }
        }
    }

    fn buffer(&mut self, buffer: &Buffer) {
        let next = self.buffers.len() as u32;
        let index = *self.buffers.entry(buffer.clone()).or_insert(next);
        self.push(Token::Buffer(index));
        if index != next {
            return;
        }
        let saved = self.open("Buffer", buffer.span());
        let node = buffer.node();
        self.push(Token::Dtype(node.dtype));
        self.exprs("shape", &node.shape);
        self.exprs("strides", &node.strides);
        self.expr(&node.elem_offset);
        self.push(Token::Text(node.scope.clone()));
        self.var(&node.data);
        self.push(Token::Int(node.data_alignment));
        self.push(Token::Int(node.offset_factor));
        self.push(Token::Int(match node.buffer_type {
            BufferType::Default => 1,
            BufferType::AutoBroadcast => 2,
        }));
        self.push(Token::Count(node.axis_separators.len()));
        for separator in &node.axis_separators {
            self.push(Token::Int(*separator));
        }
        self.close(saved);
    }

    fn exprs(&mut self, tag: &'static str, exprs: &[Expr]) {
        let saved = self.open(tag, Span::NONE);
        self.push(Token::Count(exprs.len()));
        for e in exprs {
            self.expr(e);
        }
        self.close(saved);
    }

    fn range(&mut self, range: &Range) {
        self.expr(&range.min);
        self.expr(&range.extent);
    }

    fn expr(&mut self, expr: &Expr) {
        let tag = match expr.kind() {
            ExprKind::Var(_) => "Var",
            ExprKind::Int(_) => "IntImm",
            ExprKind::Float(_) => "FloatImm",
            ExprKind::Str(_) => "StringImm",
            ExprKind::Cast(_) => "Cast",
            ExprKind::Binary(op, _, _) => op.tvm_name(),
            ExprKind::Not(_) => "Not",
            ExprKind::Select(..) => "Select",
            ExprKind::Load(_) => "BufferLoad",
            ExprKind::Ramp { .. } => "Ramp",
            ExprKind::Broadcast { .. } => "Broadcast",
            ExprKind::Let { .. } => "Let",
            ExprKind::Call { .. } => "Call",
            ExprKind::CallFunction { .. } => "CallFunction",
            ExprKind::Shuffle { .. } => "Shuffle",
        };
        let saved = self.open(tag, expr.span());
        self.push(Token::Dtype(expr.dtype()));
        match expr.kind() {
            ExprKind::Var(v) => self.var(v),
            ExprKind::Int(v) => self.push(Token::Int(*v)),
            ExprKind::Float(v) => {
                // All NaNs are one value; 0.0 and -0.0 stay distinct as in TVM.
                let bits = if v.is_nan() {
                    f64::NAN.to_bits()
                } else {
                    v.to_bits()
                };
                self.push(Token::FloatBits(bits))
            }
            ExprKind::Str(s) => self.push(Token::Text(s.clone())),
            ExprKind::Cast(v) | ExprKind::Not(v) => self.expr(v),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Select(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Load(load) => {
                self.buffer(&load.buffer);
                self.exprs("indices", &load.indices);
            }
            ExprKind::Ramp {
                base,
                stride,
                lanes,
            } => {
                self.expr(base);
                self.expr(stride);
                self.push(Token::Int(*lanes as i64));
            }
            ExprKind::Broadcast { value, lanes } => {
                self.expr(value);
                self.push(Token::Int(*lanes as i64));
            }
            ExprKind::Let { var, value, body } => {
                self.var(var);
                self.expr(value);
                self.expr(body);
            }
            ExprKind::Call { op, args } => {
                self.push(Token::Text(op.name().to_string()));
                self.exprs("args", args);
            }
            ExprKind::CallFunction { name, args } => {
                self.push(Token::Text(name.clone()));
                self.exprs("args", args);
            }
            ExprKind::Shuffle { vectors, indices } => {
                self.exprs("vectors", vectors);
                self.exprs("indices", indices);
            }
        }
        self.close(saved);
    }

    fn attr_value(&mut self, value: &AttrValue) {
        match value {
            AttrValue::Int(i) => {
                self.push(Token::Open("int"));
                self.push(Token::Int(*i));
            }
            AttrValue::Float(f) => {
                self.push(Token::Open("float"));
                self.push(Token::FloatBits(f.to_bits()));
            }
            AttrValue::Bool(b) => {
                self.push(Token::Open("bool"));
                self.push(Token::Int(*b as i64));
            }
            AttrValue::Expr(e) => self.expr(e),
            AttrValue::Str(s) => {
                self.push(Token::Open("str"));
                self.push(Token::Text(s.clone()));
            }
            AttrValue::List(items) => {
                self.push(Token::Open("list"));
                self.push(Token::Count(items.len()));
                for item in items {
                    self.attr_value(item);
                }
            }
            AttrValue::Dict(items) => self.attrs(items),
            AttrValue::Target(items) => {
                self.push(Token::Open("target"));
                self.attrs(items);
            }
            AttrValue::None => self.push(Token::Open("None")),
        }
    }

    fn attrs(&mut self, attrs: &[(String, AttrValue)]) {
        // Attribute maps are unordered in TVM: compare them sorted by key.
        // `tirx.noalias` is TVM 0.25+'s spelling of `tir.noalias`: one
        // attribute, so the comparison is blind to the dialect.
        let mut sorted: Vec<(String, &AttrValue)> = attrs
            .iter()
            .map(|(key, value)| match key.strip_prefix("tirx.") {
                Some(rest) => (format!("tir.{rest}"), value),
                None => (key.clone(), value),
            })
            .collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let saved = self.open("attrs", Span::NONE);
        self.push(Token::Count(sorted.len()));
        for (key, value) in sorted {
            self.push(Token::Text(key));
            self.attr_value(value);
        }
        self.close(saved);
    }

    fn region(&mut self, region: &BufferRegion) {
        self.buffer(&region.buffer);
        self.push(Token::Count(region.region.len()));
        for range in &region.region {
            self.range(range);
        }
    }

    fn block(&mut self, block: &Block) {
        self.push(Token::Text(block.name.clone()));
        self.push(Token::Count(block.iter_vars.len()));
        for iter_var in &block.iter_vars {
            self.var(&iter_var.var);
            self.range(&iter_var.dom);
            self.push(Token::Int(match iter_var.kind {
                IterKind::Spatial => 0,
                IterKind::Reduce => 1,
                IterKind::Scan => 2,
                IterKind::Opaque => 3,
            }));
        }
        self.push(Token::Count(block.alloc_buffers.len()));
        for buffer in &block.alloc_buffers {
            self.buffer(buffer);
        }
        self.push(Token::Count(block.match_buffers.len()));
        for matched in &block.match_buffers {
            self.region(&matched.source);
            self.buffer(&matched.buffer);
        }
        let saved = self.open("reads", Span::NONE);
        self.push(Token::Count(block.reads.len()));
        block.reads.iter().for_each(|r| self.region(r));
        self.close(saved);
        let saved = self.open("writes", Span::NONE);
        self.push(Token::Count(block.writes.len()));
        block.writes.iter().for_each(|r| self.region(r));
        self.close(saved);
        self.attrs(&block.annotations);
        match &block.init {
            Some(init) => {
                let saved = self.open("init", init.span());
                self.stmt(init);
                self.close(saved);
            }
            None => self.push(Token::Open("no init")),
        }
        self.stmt(&block.body);
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let tag = match stmt.kind() {
            StmtKind::For(_) => "For",
            StmtKind::BlockRealize(_) => "Block",
            StmtKind::BufferStore(_) => "BufferStore",
            StmtKind::Seq(_) => "SeqStmt",
            StmtKind::IfThenElse { .. } => "IfThenElse",
            StmtKind::LetStmt { .. } => "LetStmt",
            StmtKind::Evaluate(_) => "Evaluate",
            StmtKind::Allocate(_) => "Allocate",
            StmtKind::DeclBuffer { .. } => "DeclBuffer",
            StmtKind::AllocBuffer { .. } => "AllocBuffer",
            StmtKind::AttrStmt(_) => "AttrStmt",
            StmtKind::Assert { .. } => "AssertStmt",
            StmtKind::While { .. } => "While",
        };
        let saved = self.open(tag, stmt.span());
        match stmt.kind() {
            StmtKind::For(f) => {
                self.var(&f.loop_var);
                self.expr(&f.min);
                self.expr(&f.extent);
                self.push(Token::Int(match f.kind {
                    ForKind::Serial => 0,
                    ForKind::Parallel => 1,
                    ForKind::Vectorized => 2,
                    ForKind::Unrolled => 3,
                    ForKind::ThreadBinding => 4,
                }));
                self.push(Token::Text(f.thread.clone().unwrap_or_default()));
                self.attrs(&f.annotations);
                self.stmt(&f.body);
            }
            StmtKind::BlockRealize(realize) => {
                self.exprs("iter_values", &realize.iter_values);
                self.expr(&realize.predicate);
                self.block(&realize.block);
            }
            StmtKind::BufferStore(store) => {
                self.buffer(&store.buffer);
                self.expr(&store.value);
                self.exprs("indices", &store.indices);
            }
            StmtKind::Seq(stmts) => {
                self.push(Token::Count(stmts.len()));
                for s in stmts {
                    self.stmt(s);
                }
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.expr(condition);
                self.stmt(then_case);
                match else_case {
                    Some(e) => self.stmt(e),
                    None => self.push(Token::Open("no else")),
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                self.expr(value);
                self.var(var);
                self.stmt(body);
            }
            StmtKind::Evaluate(e) => self.expr(e),
            StmtKind::Allocate(allocate) => {
                self.var(&allocate.buffer_var);
                self.push(Token::Dtype(allocate.dtype));
                self.exprs("extents", &allocate.extents);
                self.expr(&allocate.condition);
                self.attrs(&allocate.annotations);
                self.stmt(&allocate.body);
            }
            StmtKind::DeclBuffer { buffer, body } => {
                self.buffer(buffer);
                self.stmt(body);
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => {
                self.buffer(buffer);
                self.attrs(annotations);
                self.stmt(body);
            }
            StmtKind::AttrStmt(attr) => {
                match &attr.node {
                    AttrNode::Reducer(reducer) => {
                        self.push(Token::Open("reducer"));
                        for var in reducer.lhs.iter().chain(&reducer.rhs) {
                            self.var(var);
                        }
                        self.exprs("result", &reducer.result);
                        self.exprs("identity", &reducer.identity);
                    }
                    AttrNode::None => self.push(Token::Open("none")),
                    AttrNode::Var(v) => self.var(v),
                    AttrNode::Buffer(b) => self.buffer(b),
                    AttrNode::Str(s) => self.push(Token::Text(s.clone())),
                    AttrNode::Thread { var, tag } => {
                        self.var(var);
                        self.push(Token::Text(tag.clone()));
                    }
                }
                self.push(Token::Text(attr.key.clone()));
                self.expr(&attr.value);
                self.stmt(&attr.body);
            }
            StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            } => {
                self.expr(condition);
                self.push(Token::Text(error_kind.clone()));
                self.exprs("message", message);
                self.stmt(body);
            }
            StmtKind::While { condition, body } => {
                self.expr(condition);
                self.stmt(body);
            }
        }
        self.close(saved);
    }

    fn function(&mut self, func: &PrimFunc) {
        let saved = self.open("PrimFunc", func.span);
        self.push(Token::Count(func.params.len()));
        for param in &func.params {
            self.var(param);
            match func.buffer_of(param) {
                Some(buffer) => self.buffer(buffer),
                None => self.push(Token::Open("no buffer")),
            }
        }
        self.push(Token::Dtype(func.ret_type));
        self.attrs(&func.attrs);
        self.stmt(&func.body);
        self.close(saved);
    }
}

/// Where and how two IR trees first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The chain of nodes leading to the difference, such as `PrimFunc > For > BufferStore > Add`.
    pub path: String,
    /// What the left side has there.
    pub lhs: String,
    /// What the right side has there.
    pub rhs: String,
    /// The nearest source location on the left.
    pub lhs_span: Span,
    /// The nearest source location on the right.
    pub rhs_span: Span,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {} vs {}", self.path, self.lhs, self.rhs)
    }
}

fn describe(token: Option<&(Token, Span)>, names: &HashMap<u32, String>) -> String {
    match token {
        None => "nothing".to_string(),
        Some((Token::Var(i), _)) => match names.get(i) {
            Some(name) => format!("variable `{name}`"),
            None => format!("variable #{i}"),
        },
        Some((token, _)) => token.to_string(),
    }
}

fn compare(lhs: Serializer, rhs: Serializer) -> Result<(), Difference> {
    let position = lhs
        .tokens
        .iter()
        .zip(&rhs.tokens)
        .position(|(a, b)| a.0 != b.0)
        .or_else(|| {
            (lhs.tokens.len() != rhs.tokens.len()).then(|| lhs.tokens.len().min(rhs.tokens.len()))
        });
    let Some(position) = position else {
        return Ok(());
    };
    let mut path: Vec<&'static str> = Vec::new();
    for (token, _) in &lhs.tokens[..position] {
        match token {
            Token::Open(tag) => path.push(tag),
            Token::Close => {
                path.pop();
            }
            _ => {}
        }
    }
    // Leaf markers ("str", "list") have no Close; keep only real nesting names.
    let path = path
        .into_iter()
        .filter(|tag| {
            tag.chars().next().is_some_and(|c| c.is_uppercase())
                || *tag == "init"
                || *tag == "reads"
                || *tag == "writes"
        })
        .collect::<Vec<_>>()
        .join(" > ");
    let span_at = |s: &Serializer| {
        s.tokens
            .get(position)
            .or_else(|| s.tokens.last())
            .map(|t| t.1)
            .unwrap_or(Span::NONE)
    };
    Err(Difference {
        path,
        lhs: describe(lhs.tokens.get(position), &lhs.names),
        rhs: describe(rhs.tokens.get(position), &rhs.names),
        lhs_span: span_at(&lhs),
        rhs_span: span_at(&rhs),
    })
}

/// Compares two functions up to renaming; `Err` describes the first difference.
pub fn func_equal(lhs: &PrimFunc, rhs: &PrimFunc) -> Result<(), Difference> {
    let (mut a, mut b) = (Serializer::new(), Serializer::new());
    a.function(lhs);
    b.function(rhs);
    compare(a, b)
}

/// Compares two modules function by function, matching functions by name.
pub fn module_equal(lhs: &IRModule, rhs: &IRModule) -> Result<(), Difference> {
    let mut lhs_names: Vec<&str> = lhs.functions.iter().map(|f| f.name.as_str()).collect();
    let mut rhs_names: Vec<&str> = rhs.functions.iter().map(|f| f.name.as_str()).collect();
    lhs_names.sort();
    rhs_names.sort();
    if lhs_names != rhs_names {
        return Err(Difference {
            path: "IRModule".to_string(),
            lhs: format!("functions {lhs_names:?}"),
            rhs: format!("functions {rhs_names:?}"),
            lhs_span: lhs.functions.first().map(|f| f.span).unwrap_or(Span::NONE),
            rhs_span: rhs.functions.first().map(|f| f.span).unwrap_or(Span::NONE),
        });
    }
    for func in &lhs.functions {
        if let Some(other) = rhs.function(&func.name) {
            func_equal(func, other).map_err(|mut difference| {
                difference.path = format!("{} > {}", func.name, difference.path);
                difference
            })?;
        }
    }
    Ok(())
}

/// Compares two statements, mapping free variables and buffers as they are met.
pub fn stmt_equal(lhs: &Stmt, rhs: &Stmt) -> Result<(), Difference> {
    let (mut a, mut b) = (Serializer::new(), Serializer::new());
    a.stmt(lhs);
    b.stmt(rhs);
    compare(a, b)
}

/// Compares two expressions, mapping free variables and buffers as they are met.
pub fn expr_equal(lhs: &Expr, rhs: &Expr) -> bool {
    let (mut a, mut b) = (Serializer::new(), Serializer::new());
    a.expr(lhs);
    b.expr(rhs);
    compare(a, b).is_ok()
}

/// A hash of a function that is equal for structurally equal functions.
pub fn func_hash(func: &PrimFunc) -> u64 {
    let mut serializer = Serializer::new();
    serializer.function(func);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for (token, _) in &serializer.tokens {
        token.hash(&mut hasher);
    }
    hasher.finish()
}

/// A hash of an expression that is equal for structurally equal expressions.
pub fn expr_hash(expr: &Expr) -> u64 {
    let mut serializer = Serializer::new();
    serializer.expr(expr);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for (token, _) in &serializer.tokens {
        token.hash(&mut hasher);
    }
    hasher.finish()
}

/// True when two expressions are the same up to free-variable identity
/// (the same variables in the same places): the check simplification proofs use.
pub fn expr_deep_equal(lhs: &Expr, rhs: &Expr) -> bool {
    if lhs.same_as(rhs) {
        return true;
    }
    if lhs.dtype() != rhs.dtype() {
        return false;
    }
    match (lhs.kind(), rhs.kind()) {
        (ExprKind::Var(a), ExprKind::Var(b)) => a == b,
        (ExprKind::Int(a), ExprKind::Int(b)) => a == b,
        (ExprKind::Float(a), ExprKind::Float(b)) => a.to_bits() == b.to_bits(),
        (ExprKind::Str(a), ExprKind::Str(b)) => a == b,
        (ExprKind::Cast(a), ExprKind::Cast(b)) | (ExprKind::Not(a), ExprKind::Not(b)) => {
            expr_deep_equal(a, b)
        }
        (ExprKind::Binary(op_a, a1, a2), ExprKind::Binary(op_b, b1, b2)) => {
            op_a == op_b && expr_deep_equal(a1, b1) && expr_deep_equal(a2, b2)
        }
        (ExprKind::Select(a1, a2, a3), ExprKind::Select(b1, b2, b3)) => {
            expr_deep_equal(a1, b1) && expr_deep_equal(a2, b2) && expr_deep_equal(a3, b3)
        }
        (ExprKind::Load(a), ExprKind::Load(b)) => {
            a.buffer == b.buffer
                && a.indices.len() == b.indices.len()
                && a.indices
                    .iter()
                    .zip(&b.indices)
                    .all(|(x, y)| expr_deep_equal(x, y))
        }
        (
            ExprKind::Ramp {
                base: a1,
                stride: a2,
                lanes: la,
            },
            ExprKind::Ramp {
                base: b1,
                stride: b2,
                lanes: lb,
            },
        ) => la == lb && expr_deep_equal(a1, b1) && expr_deep_equal(a2, b2),
        (
            ExprKind::Broadcast {
                value: a,
                lanes: la,
            },
            ExprKind::Broadcast {
                value: b,
                lanes: lb,
            },
        ) => la == lb && expr_deep_equal(a, b),
        (
            ExprKind::Let {
                var: va,
                value: a1,
                body: a2,
            },
            ExprKind::Let {
                var: vb,
                value: b1,
                body: b2,
            },
        ) => va == vb && expr_deep_equal(a1, b1) && expr_deep_equal(a2, b2),
        (
            ExprKind::CallFunction { name: na, args: aa },
            ExprKind::CallFunction { name: nb, args: ab },
        ) => {
            na == nb
                && aa.len() == ab.len()
                && aa.iter().zip(ab).all(|(x, y)| expr_deep_equal(x, y))
        }
        (ExprKind::Call { op: oa, args: aa }, ExprKind::Call { op: ob, args: ab }) => {
            oa == ob
                && aa.len() == ab.len()
                && aa.iter().zip(ab).all(|(x, y)| expr_deep_equal(x, y))
        }
        (
            ExprKind::Shuffle {
                vectors: va,
                indices: ia,
            },
            ExprKind::Shuffle {
                vectors: vb,
                indices: ib,
            },
        ) => {
            va.len() == vb.len()
                && ia.len() == ib.len()
                && va.iter().zip(vb).all(|(x, y)| expr_deep_equal(x, y))
                && ia.iter().zip(ib).all(|(x, y)| expr_deep_equal(x, y))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::stmt::For;
    use crate::ir::NodeId;

    fn loop_over(name: &str, extent: i64, body_uses_loop_var: bool) -> (Stmt, Buffer) {
        let buffer = Buffer::new(
            "A",
            DataType::float32(),
            vec![Expr::i32(extent)],
            "global",
            Span::NONE,
        );
        let var = Var::new(name, DataType::int32(), Span::NONE);
        let index = if body_uses_loop_var {
            var.to_expr()
        } else {
            Expr::i32(0)
        };
        let body = Stmt::store(&buffer, Expr::float(1.0, DataType::float32()), vec![index]);
        let stmt = Stmt::for_loop(For {
            id: NodeId::fresh(),
            loop_var: var,
            min: Expr::i32(0),
            extent: Expr::i32(extent),
            kind: ForKind::Serial,
            thread: None,
            annotations: Vec::new(),
            body,
        });
        (stmt, buffer)
    }

    #[test]
    fn renamed_loops_are_equal_and_hash_alike() {
        let (a, _) = loop_over("i", 8, true);
        let (b, _) = loop_over("j", 8, true);
        assert!(stmt_equal(&a, &b).is_ok());
    }

    #[test]
    fn different_extent_reports_path_and_values() {
        let (a, _) = loop_over("i", 8, true);
        let (b, _) = loop_over("i", 16, true);
        let difference = stmt_equal(&a, &b).unwrap_err();
        assert!(difference.path.starts_with("For"), "{difference}");
        assert_eq!(difference.lhs, "8");
        assert_eq!(difference.rhs, "16");
    }

    #[test]
    fn using_a_different_variable_is_a_difference() {
        let (a, _) = loop_over("i", 8, true);
        let (b, _) = loop_over("i", 8, false);
        assert!(stmt_equal(&a, &b).is_err());
    }
}
