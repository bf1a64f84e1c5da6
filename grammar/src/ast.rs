//! The syntax tree of the Python subset that TVMScript is written in.
//!
//! The tree knows nothing of TensorIR: `T.grid(4, 4)` is a call of an attribute
//! of a name, not a loop. The compiler's frontend gives it meaning. Every node
//! carries the byte span of the source text it was parsed from.

use std::fmt;

/// A half-open byte range `start..end` into the source text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset one past the last character.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span as a `usize` range, for slicing the source.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// The value of an integer literal, up to `u128::MAX`.
///
/// Kept as two halves rather than a `u128`, whose 16-byte alignment would
/// widen every token and expression, and with them every slot of the
/// parser's stack, which is copied on each shift and reduction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct IntValue {
    low: u64,
    high: u64,
}

impl IntValue {
    /// The value.
    pub fn get(self) -> u128 {
        (u128::from(self.high) << 64) | u128::from(self.low)
    }
}

impl From<u128> for IntValue {
    fn from(value: u128) -> IntValue {
        IntValue {
            low: value as u64,
            high: (value >> 64) as u64,
        }
    }
}

impl fmt::Debug for IntValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

impl fmt::Display for IntValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The identifier text.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A whole source file: its top-level statements and its comments.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct File {
    /// Top-level statements in source order (classes, functions, assignments, imports).
    pub body: Vec<Stmt>,
    /// Every comment in the file, in source order, whatever line it is on.
    pub comments: Vec<Comment>,
}

/// A `#` comment. The text excludes the leading `#`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    /// The text after `#`, without the line break.
    pub text: String,
    /// Span of the comment including `#`.
    pub span: Span,
    /// True when nothing but whitespace precedes the comment on its line.
    pub own_line: bool,
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What kind of statement this is.
    pub kind: StmtKind,
    /// From the first token of the statement (or its first decorator) to its last.
    pub span: Span,
}

/// The statement forms of the subset.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `@decorator ... def name(params) -> returns: body`; shared, so that
    /// what keeps a definition after parsing (a schedule section) need not copy it.
    FunctionDef(std::sync::Arc<FunctionDef>),
    /// `@decorator ... class name(bases): body`
    ClassDef(ClassDef),
    /// `target = value`; the target may be a tuple (`a, b = ...`) or a subscript.
    Assign {
        /// What is assigned to: a name, a tuple of names, a subscript or an attribute.
        target: Expr,
        /// The assigned value.
        value: Expr,
    },
    /// `target: annotation = value` (the value is optional).
    AnnAssign {
        /// The annotated name.
        target: Expr,
        /// The annotation, such as `T.int32`.
        annotation: Expr,
        /// The value, when one is given.
        value: Option<Expr>,
    },
    /// `target op= value`, such as `C[i] += x`.
    AugAssign {
        /// What is updated.
        target: Expr,
        /// The operator of the update.
        op: BinOp,
        /// The right-hand side.
        value: Expr,
    },
    /// An expression on its own line, such as `T.reads(A[i])`.
    Expr(Expr),
    /// `for target in iter: body`
    For {
        /// The loop variable or tuple of loop variables.
        target: Expr,
        /// The iterated expression, such as `T.grid(4, 4)`.
        iter: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `while test: body`
    While {
        /// The loop condition.
        test: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `if test: body else: orelse`; `elif` becomes a nested `If` in `orelse`.
    If {
        /// The condition.
        test: Expr,
        /// The statements run when the condition holds.
        body: Vec<Stmt>,
        /// The statements run otherwise (empty when there is no `else`).
        orelse: Vec<Stmt>,
    },
    /// `with item, item: body`
    With {
        /// The context items.
        items: Vec<WithItem>,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `return value`
    Return(Option<Expr>),
    /// `pass`
    Pass,
    /// `assert test, msg`
    Assert {
        /// The asserted condition.
        test: Expr,
        /// The message, when given.
        msg: Option<Expr>,
    },
    /// `import a.b as c` or `from a.b import c as d`; kept as the dotted names.
    Import {
        /// The module path after `from`, when the statement is a `from` import.
        from: Option<String>,
        /// Each imported name with its alias.
        names: Vec<(String, Option<String>)>,
    },
    /// A statement that failed to parse; the parser reported an error for it.
    Error,
}

/// A function definition.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    /// Decorators, outermost first, without the `@`.
    pub decorators: Vec<Expr>,
    /// The function name.
    pub name: Ident,
    /// The parameters in order.
    pub params: Vec<Param>,
    /// The return annotation after `->`.
    pub returns: Option<Expr>,
    /// The body statements.
    pub body: Vec<Stmt>,
}

/// A class definition.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    /// Decorators, outermost first, without the `@`.
    pub decorators: Vec<Expr>,
    /// The class name.
    pub name: Ident,
    /// Base classes, when written.
    pub bases: Vec<Expr>,
    /// The body statements.
    pub body: Vec<Stmt>,
}

/// A function parameter `name: annotation = default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter name.
    pub name: Ident,
    /// The annotation after `:`.
    pub annotation: Option<Expr>,
    /// The default value after `=`.
    pub default: Option<Expr>,
    /// The whole parameter.
    pub span: Span,
}

/// One item of a `with` statement: `context as target`.
#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    /// The context expression, such as `T.block("C")`.
    pub context: Expr,
    /// The `as` target, when given.
    pub target: Option<Expr>,
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression this is.
    pub kind: ExprKind,
    /// The source text it covers, parentheses excluded.
    pub span: Span,
}

/// The expression forms of the subset.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A name such as `vi` or `T`.
    Name(String),
    /// An integer literal. Python integers are unbounded; values past `u128` are a lexer error.
    Int(IntValue),
    /// A float literal.
    Float(f64),
    /// A string literal with escapes resolved; adjacent literals are concatenated.
    Str(String),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// `value.attr`
    Attribute {
        /// The object.
        value: Box<Expr>,
        /// The attribute name.
        attr: Ident,
    },
    /// `func(args, name=value)`
    Call {
        /// The called expression.
        func: Box<Expr>,
        /// Positional arguments (a `*x` argument is a `Starred`).
        args: Vec<Expr>,
        /// Keyword arguments in order.
        keywords: Vec<Keyword>,
    },
    /// `value[i, j]`; each comma-separated index is one element, slices included.
    Subscript {
        /// The subscripted object.
        value: Box<Expr>,
        /// The indices; `A[(1, 2)]` has one index, a tuple.
        indices: Vec<Expr>,
    },
    /// `lower:upper:step` inside a subscript; every part is optional.
    Slice {
        /// The lower bound.
        lower: Option<Box<Expr>>,
        /// The upper bound.
        upper: Option<Box<Expr>>,
        /// The step.
        step: Option<Box<Expr>>,
    },
    /// `lhs op rhs` for arithmetic and bitwise operators.
    BinOp {
        /// The operator.
        op: BinOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `op operand`
    UnaryOp {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a and b`, `a or b`; chains are nested left to right.
    BoolOp {
        /// `and` or `or`.
        op: BoolOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `a < b <= c`: the first operand and each (operator, operand) that follows.
    Compare {
        /// The leftmost operand.
        left: Box<Expr>,
        /// The comparisons in order.
        rest: Vec<(CmpOp, Expr)>,
    },
    /// `body if test else orelse`
    IfExp {
        /// The condition.
        test: Box<Expr>,
        /// The value when the condition holds.
        body: Box<Expr>,
        /// The value otherwise.
        orelse: Box<Expr>,
    },
    /// `(a, b)` or a bare `a, b` where a tuple is allowed.
    Tuple(Vec<Expr>),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `{k: v, ...}`
    Dict(Vec<(Expr, Expr)>),
    /// `lambda x, y: body`
    Lambda {
        /// The parameter names.
        params: Vec<Ident>,
        /// The body expression.
        body: Box<Expr>,
    },
    /// `*value` in a call argument list or a tuple.
    Starred(Box<Expr>),
    /// An expression that failed to parse; the parser reported an error for it.
    Error,
}

/// A keyword argument `name=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    /// The keyword.
    pub name: Ident,
    /// The value.
    pub value: Expr,
}

/// Binary arithmetic and bitwise operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `@`
    MatMul,
    /// `<<`
    LShift,
    /// `>>`
    RShift,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
}

impl BinOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `not x`
    Not,
    /// `~x`
    Invert,
}

/// Short-circuit boolean operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `and`
    And,
    /// `or`
    Or,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtE,
    /// `>`
    Gt,
    /// `>=`
    GtE,
    /// `is`
    Is,
    /// `is not`
    IsNot,
    /// `in`
    In,
    /// `not in`
    NotIn,
}

impl CmpOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl Expr {
    /// The dotted path of a chain of names and attributes: `T.axis.remap` gives
    /// `Some("T.axis.remap")`; anything else gives `None`.
    pub fn dotted_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(name) => Some(name.clone()),
            ExprKind::Attribute { value, attr } => {
                let mut path = value.dotted_name()?;
                path.push('.');
                path.push_str(&attr.name);
                Some(path)
            }
            _ => None,
        }
    }
}
