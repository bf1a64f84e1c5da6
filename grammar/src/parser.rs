//! Runs the lalrpop parser over the layout tokens and turns its failures into readable syntax errors.
//!
//! The grammar's actions call the small builders here, so the grammar file stays
//! a grammar. Error messages name what was found and what was expected, with
//! big expected-token sets collapsed into "an expression" or "a statement".

use std::convert::Infallible;

use lalrpop_util::{ErrorRecovery, ParseError};

use crate::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, Keyword, Span, Stmt, StmtKind, UnaryOp};
use crate::layout::Layout;
use crate::lexer::Tok;
use crate::{Parsed, SyntaxError};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_qualifications, unused_parens)]
    grammar
);

/// A chain of `elif` branches longer than this is refused, because each branch nests
/// one level deeper in the tree and consumers walk it recursively.
const MAX_ELIF_CHAIN: usize = 500;

/// What lalrpop hands to a `!` error-recovery action.
pub type Recovery<'source> = ErrorRecovery<usize, Tok<'source>, Infallible>;

/// A lalrpop parse error over the layout tokens.
type TokenParseError<'source> = ParseError<usize, Tok<'source>, Infallible>;

/// State shared by the grammar's actions: the source text and the errors found so far.
pub struct ParseContext<'source> {
    /// The text being parsed.
    source: &'source str,
    /// Errors reported by grammar actions, in the order they were found.
    errors: Vec<SyntaxError>,
    /// Line starts where the end of a block is a known consequence of an
    /// earlier error inside it, and must not be reported again.
    expected_dedent_errors: Vec<usize>,
}

/// The body of a compound statement as parsed, before the statement knows whether it is missing.
pub enum Suite<'source> {
    /// Statements on the header's line or in an indented block, with the end of the last one.
    Body {
        /// The statements.
        statements: Vec<Stmt>,
        /// Byte offset where the last statement ends.
        end: Option<usize>,
    },
    /// No indented block followed the header; the recovery says what came instead.
    Missing(Box<Recovery<'source>>),
}

impl<'source> Suite<'source> {
    /// A body written on the header's own line (`if x: pass`).
    pub fn from_line(line: (Box<Stmt>, Vec<Stmt>)) -> Suite<'source> {
        let (first, rest) = line;
        let mut statements = Vec::with_capacity(1 + rest.len());
        statements.push(*first);
        statements.extend(rest);
        Suite::from_block(statements)
    }

    /// A body written as an indented block.
    pub fn from_block(statements: Vec<Stmt>) -> Suite<'source> {
        let end = statements
            .last()
            .map(|statement| statement.span.end as usize);
        Suite::Body { statements, end }
    }
}

/// One argument of a call, before positional and keyword arguments are separated.
pub enum Argument {
    /// `value` or `*value`.
    Positional(Expr),
    /// `name=value` (boxed: it is the largest symbol on the parser's stack otherwise).
    Keyword(Box<Keyword>),
}

impl<'source> ParseContext<'source> {
    /// A context for parsing `source`.
    pub fn new(source: &'source str) -> ParseContext<'source> {
        ParseContext {
            source,
            errors: Vec::new(),
            expected_dedent_errors: Vec::new(),
        }
    }

    /// Reports the error a `!` recovery stands for.
    pub fn recovered(&mut self, recovery: Recovery<'source>) {
        let error = describe_parse_error(&recovery.error, self.source.len());
        self.errors.push(error);
    }

    /// Unpacks a compound statement's body; a missing body is reported as Python
    /// does ("expected an indented block after 'for'"). Returns the body and where
    /// the statement ends.
    pub fn suite_body(
        &mut self,
        suite: Suite<'source>,
        keyword: &str,
        header_end: usize,
    ) -> (Vec<Stmt>, usize) {
        match suite {
            Suite::Body { statements, end } => (statements, end.unwrap_or(header_end)),
            Suite::Missing(recovery) => {
                let span = found_span(&recovery.error, self.source.len());
                let header_indent = indentation_at(self.source, header_end);
                let error_indent = indentation_at(self.source, span.start as usize);
                let error_on_later_line =
                    self.source[header_end..(span.start as usize).max(header_end)].contains('\n');
                if error_on_later_line && error_indent > header_indent {
                    // The body is there: the error is in its statement, and recovery
                    // ends the block early, so its end will look unexpected too.
                    self.errors
                        .push(describe_parse_error(&recovery.error, self.source.len()));
                    if let Some(end) = end_of_block(self.source, span.start as usize, header_indent)
                    {
                        self.expected_dedent_errors.push(end);
                    }
                } else {
                    self.errors.push(SyntaxError {
                        span,
                        message: format!("expected an indented block after '{keyword}'"),
                    });
                }
                (Vec::new(), header_end)
            }
        }
    }

    /// Builds an `if` statement from its parts; `orelse` is the `elif`/`else` tail and its chain depth.
    pub fn if_stmt(
        &mut self,
        start: usize,
        test: Expr,
        header_end: usize,
        body: Suite<'source>,
        orelse: Option<(Vec<Stmt>, usize)>,
    ) -> Box<Stmt> {
        match self
            .elif_chain(start, test, header_end, body, orelse)
            .0
            .pop()
        {
            Some(statement) => Box::new(statement),
            None => error_stmt(start, header_end),
        }
    }

    /// Builds the `If` that an `elif` branch becomes, with the depth of the chain so far.
    pub fn elif_chain(
        &mut self,
        start: usize,
        test: Expr,
        header_end: usize,
        body: Suite<'source>,
        orelse: Option<(Vec<Stmt>, usize)>,
    ) -> (Vec<Stmt>, usize) {
        let (body, body_end) = self.suite_body(body, "if", header_end);
        let (mut orelse, mut depth) = orelse.unwrap_or_default();
        depth += 1;
        if depth > MAX_ELIF_CHAIN {
            self.errors.push(SyntaxError {
                span: Span::new(start, header_end),
                message: format!(
                    "too many 'elif' branches in one chain (more than {MAX_ELIF_CHAIN})"
                ),
            });
            orelse = vec![*error_stmt(start, header_end)];
            depth = 0;
        }
        let end = orelse
            .last()
            .map_or(body_end, |statement| statement.span.end as usize)
            .max(body_end);
        let statement = stmt(StmtKind::If { test, body, orelse }, start, end);
        (vec![*statement], depth)
    }

    /// Reports an unexpected indent at the indentation starting at `start`, and turns the
    /// indented lines into one error statement.
    pub fn unexpected_indent(&mut self, start: usize, inner: Vec<Stmt>, end: usize) -> Stmt {
        let indentation_end = self.source[start..]
            .bytes()
            .position(|byte| !matches!(byte, b' ' | b'\t' | b'\x0C'))
            .map_or(self.source.len(), |offset| start + offset);
        self.errors.push(SyntaxError {
            span: Span::new(start, indentation_end),
            message: "unexpected indent".to_string(),
        });
        let end = inner
            .last()
            .map_or(end, |statement| statement.span.end as usize);
        *error_stmt(indentation_end, end)
    }

    /// Adds a call argument to the positional or keyword list; a positional argument
    /// after a keyword one is reported, as Python does.
    pub fn add_argument(
        &mut self,
        mut arguments: (Vec<Expr>, Vec<Keyword>),
        argument: Argument,
    ) -> (Vec<Expr>, Vec<Keyword>) {
        match argument {
            Argument::Positional(value) => {
                let is_starred = matches!(value.kind, ExprKind::Starred(_) | ExprKind::Error);
                if !arguments.1.is_empty() && !is_starred {
                    self.errors.push(SyntaxError {
                        span: value.span,
                        message: "positional argument follows keyword argument".to_string(),
                    });
                }
                arguments.0.push(value);
            }
            Argument::Keyword(keyword) => arguments.1.push(*keyword),
        }
        arguments
    }

    /// The value of a string token at byte offset `start`, with bad escapes reported.
    pub fn decode_string(&mut self, token: &str, start: usize) -> String {
        let errors = &mut self.errors;
        crate::lexer::decode_string(token, |from, to, message| {
            errors.push(SyntaxError {
                span: Span::new(start + from, start + to),
                message: message.to_string(),
            });
        })
    }
}

/// An infix operator of a flat operator run, before precedence gives the run its shape.
#[derive(Clone, Copy, Debug)]
pub enum InfixOp {
    /// `or`
    Or,
    /// `and`
    And,
    /// A comparison; consecutive comparisons form one `Compare` node.
    Compare(CmpOp),
    /// An arithmetic or bitwise operator, `**` included.
    Binary(BinOp),
}

/// A prefix operator of a flat operator run.
#[derive(Clone, Copy, Debug)]
pub enum PrefixOp {
    /// `not`, which binds looser than comparisons.
    Not,
    /// `-`, `+` or `~`, which bind tighter than every binary operator but `**`.
    Unary(UnaryOp),
}

/// Binding power of `not`: its operand extends over comparisons and everything tighter.
const NOT_PRECEDENCE: u8 = 3;

/// Binding power of comparisons.
const COMPARISON_PRECEDENCE: u8 = 4;

/// Binding power of unary `-`, `+` and `~`.
const UNARY_PRECEDENCE: u8 = 11;

/// Binding power of `**`, which is right-associative and binds tighter than a unary
/// operator on its left (`-2**2 == -(2**2)`).
const POWER_PRECEDENCE: u8 = 12;

impl InfixOp {
    /// How tightly the operator binds, following Python's table (higher binds tighter).
    fn precedence(self) -> u8 {
        match self {
            InfixOp::Or => 1,
            InfixOp::And => 2,
            InfixOp::Compare(_) => COMPARISON_PRECEDENCE,
            InfixOp::Binary(op) => match op {
                BinOp::BitOr => 5,
                BinOp::BitXor => 6,
                BinOp::BitAnd => 7,
                BinOp::LShift | BinOp::RShift => 8,
                BinOp::Add | BinOp::Sub => 9,
                BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::MatMul => 10,
                BinOp::Pow => POWER_PRECEDENCE,
            },
        }
    }
}

/// One element of a flat operator run.
#[derive(Debug)]
pub enum ChainItem {
    /// A prefix operator starting at this byte offset.
    Prefix(PrefixOp, usize),
    /// An operand (an atom with its calls, attributes and subscripts), with the offsets
    /// of its text including any parentheses around it.
    Operand(Expr, usize, usize),
    /// An infix operator.
    Operator(InfixOp),
}

/// A flat run of operands and operators, such as `-a + b * c < d and not e`.
/// The common case of a lone operand is kept without allocating.
pub enum Chain {
    /// A single operand, with its outer offsets.
    Lone(Expr, u32, u32),
    /// A longer run.
    Items(Vec<ChainItem>),
}

impl Chain {
    /// A run of one operand written at `start..end` (parentheses included).
    pub fn operand(operand: Expr, start: usize, end: usize) -> Chain {
        Chain::Lone(operand, start as u32, end as u32)
    }

    /// The items of the run, as a list.
    fn into_items(self) -> Vec<ChainItem> {
        match self {
            Chain::Lone(operand, start, end) => {
                let mut items = Vec::with_capacity(4);
                items.push(ChainItem::Operand(operand, start as usize, end as usize));
                items
            }
            Chain::Items(items) => items,
        }
    }

    /// The run with a prefix operator at byte offset `start` in front.
    pub fn prefixed(self, op: PrefixOp, start: usize) -> Chain {
        let mut items = self.into_items();
        items.insert(0, ChainItem::Prefix(op, start));
        Chain::Items(items)
    }

    /// The run with `op` and then all of `operand` (an operand with its prefixes) appended.
    pub fn append(self, op: InfixOp, operand: Chain) -> Chain {
        let mut items = self.into_items();
        items.push(ChainItem::Operator(op));
        match operand {
            Chain::Lone(operand, start, end) => {
                items.push(ChainItem::Operand(operand, start as usize, end as usize));
            }
            Chain::Items(mut more) => items.append(&mut more),
        }
        Chain::Items(items)
    }

    /// The expression tree of the run, by precedence climbing. `leading_not_allowed`
    /// says whether the run may start with `not` (not in a `for` target).
    pub fn finish(self, context: &mut ParseContext<'_>, leading_not_allowed: bool) -> Expr {
        match self {
            Chain::Lone(operand, _, _) => operand,
            Chain::Items(items) => {
                let mut climber = Climber {
                    items: items.into_iter().peekable(),
                    context,
                };
                climber.expression(0, leading_not_allowed).0
            }
        }
    }
}

/// Precedence climbing over a chain's items. Left-associative runs are a loop; it
/// recurses only for tighter operators and prefixes, so its depth is bounded by the
/// number of precedence levels and the layout pass's nesting limit.
struct Climber<'context, 'source> {
    /// The items not yet consumed.
    items: std::iter::Peekable<std::vec::IntoIter<ChainItem>>,
    /// Where a misplaced `not` is reported.
    context: &'context mut ParseContext<'source>,
}

impl Climber<'_, '_> {
    /// Reads an operand and every following operator binding at least `minimum` tightly.
    /// Returns the tree with the offsets of its text: a node made here spans from its
    /// first operand's text to its last's, parentheses around those operands included.
    fn expression(&mut self, minimum: u8, not_allowed: bool) -> (Expr, usize, usize) {
        let (mut lhs, start, mut outer_end) = self.prefix(not_allowed);
        while let Some(&ChainItem::Operator(op)) = self.items.peek() {
            let precedence = op.precedence();
            if precedence < minimum {
                break;
            }
            self.items.next();
            lhs = match op {
                InfixOp::Compare(first) => {
                    let mut rest = Vec::new();
                    let mut next = Some(first);
                    while let Some(op) = next {
                        let op = self.join_is_not(op);
                        let (operand, _, end) = self.expression(COMPARISON_PRECEDENCE + 1, false);
                        outer_end = end;
                        rest.push((op, operand));
                        next = match self.items.peek() {
                            Some(&ChainItem::Operator(InfixOp::Compare(op))) => {
                                self.items.next();
                                Some(op)
                            }
                            _ => None,
                        };
                    }
                    let left = Box::new(lhs);
                    expr(ExprKind::Compare { left, rest }, start, outer_end)
                }
                InfixOp::Or | InfixOp::And => {
                    let (rhs, _, end) = self.expression(precedence + 1, true);
                    outer_end = end;
                    let op = if matches!(op, InfixOp::Or) {
                        BoolOp::Or
                    } else {
                        BoolOp::And
                    };
                    bool_op(op, lhs, rhs, start, end)
                }
                InfixOp::Binary(op) => {
                    // `**` is right-associative: its right side may hold another `**`.
                    let right_minimum = if op == BinOp::Pow {
                        POWER_PRECEDENCE
                    } else {
                        precedence + 1
                    };
                    let (rhs, _, end) = self.expression(right_minimum, false);
                    outer_end = end;
                    bin_op(op, lhs, rhs, start, end)
                }
            };
        }
        (lhs, start, outer_end)
    }

    /// Turns `is` followed by a `not` prefix into `is not`.
    fn join_is_not(&mut self, op: CmpOp) -> CmpOp {
        if op == CmpOp::Is {
            if let Some(&ChainItem::Prefix(PrefixOp::Not, _)) = self.items.peek() {
                self.items.next();
                return CmpOp::IsNot;
            }
        }
        op
    }

    /// Reads one operand with the prefix operators in front of it, and its outer offsets.
    fn prefix(&mut self, not_allowed: bool) -> (Expr, usize, usize) {
        match self.items.next() {
            Some(ChainItem::Prefix(PrefixOp::Not, start)) => {
                if !not_allowed {
                    // Python takes `not` only first or after `and`/`or`: `a == not b` is an error.
                    self.context.errors.push(SyntaxError {
                        span: Span::new(start, start + 3),
                        message: "expected an expression, found 'not'".to_string(),
                    });
                }
                let (operand, _, end) = self.expression(NOT_PRECEDENCE + 1, true);
                (unary(UnaryOp::Not, operand, start, end), start, end)
            }
            Some(ChainItem::Prefix(PrefixOp::Unary(op), start)) => {
                let (operand, _, end) = self.expression(UNARY_PRECEDENCE, false);
                (unary(op, operand, start, end), start, end)
            }
            Some(ChainItem::Operand(operand, start, end)) => (operand, start, end),
            // The grammar only builds runs that alternate operands and operators.
            Some(ChainItem::Operator(_)) | None => (expr(ExprKind::Error, 0, 0), 0, 0),
        }
    }
}

/// A statement node, boxed for the parser's symbol stack.
pub fn stmt(kind: StmtKind, start: usize, end: usize) -> Box<Stmt> {
    Box::new(Stmt {
        kind,
        span: Span::new(start, end),
    })
}

/// A statement that failed to parse.
pub fn error_stmt(start: usize, end: usize) -> Box<Stmt> {
    stmt(StmtKind::Error, start, end.max(start))
}

/// The values of a list of boxes.
pub fn unbox_all<T>(boxes: Vec<Box<T>>) -> Vec<T> {
    boxes.into_iter().map(|boxed| *boxed).collect()
}

/// An expression node.
pub fn expr(kind: ExprKind, start: usize, end: usize) -> Expr {
    Expr {
        kind,
        span: Span::new(start, end),
    }
}

/// A binary arithmetic or bitwise operation.
pub fn bin_op(op: BinOp, lhs: Expr, rhs: Expr, start: usize, end: usize) -> Expr {
    expr(
        ExprKind::BinOp {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        start,
        end,
    )
}

/// A short-circuit `and`/`or`.
pub fn bool_op(op: BoolOp, lhs: Expr, rhs: Expr, start: usize, end: usize) -> Expr {
    expr(
        ExprKind::BoolOp {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        start,
        end,
    )
}

/// A unary operation.
pub fn unary(op: UnaryOp, operand: Expr, start: usize, end: usize) -> Expr {
    expr(
        ExprKind::UnaryOp {
            op,
            operand: Box::new(operand),
        },
        start,
        end,
    )
}

/// A slice `lower:upper:step`.
pub fn slice(
    lower: Option<Expr>,
    upper: Option<Expr>,
    step: Option<Expr>,
    start: usize,
    end: usize,
) -> Expr {
    expr(
        ExprKind::Slice {
            lower: lower.map(Box::new),
            upper: upper.map(Box::new),
            step: step.map(Box::new),
        },
        start,
        end,
    )
}

/// `first` followed by `rest`, as one list.
pub fn prepend(first: Expr, rest: Vec<Expr>) -> Vec<Expr> {
    let mut items = Vec::with_capacity(1 + rest.len());
    items.push(first);
    items.extend(rest);
    items
}

/// Appends the next adjacent string literal to a string expression.
pub fn append_string(strings: &mut Expr, more: &str, end: usize) {
    if let ExprKind::Str(value) = &mut strings.kind {
        value.push_str(more);
    }
    strings.span.end = end as u32;
}

/// Attaches decorators (with the offsets of their `@`) to a function or class definition.
pub fn decorate(decorators: Vec<(usize, Expr)>, mut definition: Box<Stmt>) -> Box<Stmt> {
    let start = decorators
        .first()
        .map_or(definition.span.start as usize, |decorator| decorator.0);
    let expressions: Vec<Expr> = decorators
        .into_iter()
        .map(|decorator| decorator.1)
        .collect();
    match &mut definition.kind {
        // Not yet shared: the definition was built by the rule that called this.
        StmtKind::FunctionDef(function) => {
            std::sync::Arc::make_mut(function).decorators = expressions
        }
        StmtKind::ClassDef(class) => class.decorators = expressions,
        _ => {}
    }
    definition.span.start = start as u32;
    definition
}

/// The span of the token a parse error was raised at (an empty span at the end for end of input).
fn found_span(error: &TokenParseError<'_>, source_length: usize) -> Span {
    match error {
        ParseError::UnrecognizedToken {
            token: (start, _, end),
            ..
        }
        | ParseError::ExtraToken {
            token: (start, _, end),
        } => Span::new(*start, *end),
        ParseError::InvalidToken { location } => Span::new(*location, *location),
        ParseError::UnrecognizedEof { .. } | ParseError::User { .. } => {
            Span::new(source_length, source_length)
        }
    }
}

/// Tokens that can start an expression; when the parser would take any of them, the
/// message says "an expression" instead of listing them.
const EXPRESSION_STARTS: &[&str] = &["name", "int", "string"];

/// Tokens that can start only a statement; their presence means "a statement".
const STATEMENT_STARTS: &[&str] = &["pass", "return", "assert"];

/// Tokens worth naming in "expected ..." messages, most telling first. Operators are
/// left out: after an expression, any operator could always come next.
const STRUCTURAL_TOKENS: &[&str] = &[
    ":", ")", "]", "}", ",", "in", "import", "else", "as", "=", "->", "(", "name", "def", "class",
    "@", "newline",
];

/// Turns a lalrpop error into a message such as `expected ':', found newline`.
pub fn describe_parse_error(error: &TokenParseError<'_>, source_length: usize) -> SyntaxError {
    let span = found_span(error, source_length);
    let (found, expected) = match error {
        ParseError::UnrecognizedToken {
            token: (_, token, _),
            expected,
        } => (token.describe(), expected.as_slice()),
        ParseError::UnrecognizedEof { expected, .. } => {
            ("the end of the file".to_string(), expected.as_slice())
        }
        ParseError::ExtraToken {
            token: (_, token, _),
        } => (token.describe(), &[][..]),
        ParseError::InvalidToken { .. } => ("invalid text".to_string(), &[][..]),
        ParseError::User { error } => match *error {},
    };
    if let ParseError::UnrecognizedToken {
        token: (_, Tok::Indent, _),
        ..
    } = error
    {
        return SyntaxError {
            span,
            message: "unexpected indent".to_string(),
        };
    }
    let expected_names: Vec<&str> = expected.iter().map(|name| name.trim_matches('"')).collect();
    let has = |name: &str| expected_names.contains(&name);
    let what = if STATEMENT_STARTS.iter().any(|name| has(name)) {
        "a statement".to_string()
    } else if EXPRESSION_STARTS.iter().all(|name| has(name)) {
        "an expression".to_string()
    } else if has("indent") {
        "an indented block".to_string()
    } else {
        // A statement that could end here but has more on its line: naming the end is clearest.
        let closer = [")", "]", "}"].into_iter().find(|closer| has(closer));
        let names: Vec<String> = if has("newline") && !has(":") {
            vec!["newline".to_string()]
        } else if let Some(closer) = closer {
            // Inside brackets the useful choice is between another item and the closer.
            let mut names = Vec::new();
            if has("name") {
                names.push(quote_token_name("name"));
            }
            if has(",") {
                names.push(quote_token_name(","));
            }
            names.push(quote_token_name(closer));
            names
        } else {
            STRUCTURAL_TOKENS
                .iter()
                .filter(|name| has(name))
                .take(3)
                .map(|name| quote_token_name(name))
                .collect()
        };
        match names.len() {
            0 => {
                return SyntaxError {
                    span,
                    message: format!("unexpected {found}"),
                }
            }
            1 => names[0].clone(),
            _ => format!(
                "{} or {}",
                names[..names.len() - 1].join(", "),
                names[names.len() - 1]
            ),
        }
    };
    SyntaxError {
        span,
        message: format!("expected {what}, found {found}"),
    }
}

/// How an expected token is written in a message: punctuation and keywords in quotes, classes in words.
fn quote_token_name(name: &str) -> String {
    match name {
        "newline" => "newline".to_string(),
        "name" => "a name".to_string(),
        other => format!("'{other}'"),
    }
}

/// The indentation (in columns) of the line containing `offset`.
fn indentation_at(source: &str, offset: usize) -> usize {
    let offset = offset.min(source.len());
    let line_start = source[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    source[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .count()
}

/// The start of the first code line after `offset` indented at most `indent`:
/// where a block containing `offset` ends (the source length at the end).
fn end_of_block(source: &str, offset: usize, indent: usize) -> Option<usize> {
    let mut line_start = source[offset.min(source.len())..].find('\n')? + offset + 1;
    while line_start < source.len() {
        let line_end = source[line_start..]
            .find('\n')
            .map(|i| i + line_start)
            .unwrap_or(source.len());
        let line = &source[line_start..line_end];
        let trimmed = line.trim_start();
        if !trimmed.is_empty() && !trimmed.starts_with('#') && line.len() - trimmed.len() <= indent
        {
            return Some(line_start);
        }
        line_start = line_end + 1;
    }
    Some(source.len())
}

/// Parses a whole file: lexer, layout and grammar, with every error found.
pub fn parse(source: &str) -> Parsed {
    let mut layout = Layout::new(source);
    let mut context = ParseContext::new(source);
    let body = match grammar::FileParser::new().parse(&mut context, layout.by_ref()) {
        Ok(body) => body,
        Err(error) => {
            // Recovery at file level makes this unreachable in practice; if it happens the
            // error is still reported rather than lost.
            let mut error = describe_parse_error(&error, source.len());
            error.message.push_str(" (the parser stopped here)");
            context.errors.push(error);
            Vec::new()
        }
    };
    let layout_errors = std::mem::take(&mut layout.errors);
    let expected_dedent_errors = std::mem::take(&mut context.expected_dedent_errors);
    let mut errors: Vec<SyntaxError> = context
        .errors
        .into_iter()
        .filter(|error| {
            let start = error.span.start as usize;
            let line_start = source[..start.min(source.len())]
                .rfind('\n')
                .map(|i| i + 1)
                .unwrap_or(0);
            !(error
                .message
                .ends_with("found the end of the indented block")
                && expected_dedent_errors
                    .iter()
                    .any(|end| *end == line_start || *end == start))
        })
        .filter(|error| {
            let start = error.span.start as usize;
            // The layout already explained these: a rejected token, or everything after an unclosed bracket.
            // The starts were recorded in source order, so a binary search finds them.
            layout.error_token_starts.binary_search(&start).is_err()
                && layout
                    .unclosed_bracket_start
                    .is_none_or(|unclosed| start < unclosed)
        })
        .collect();
    errors.extend(layout_errors);
    errors.sort_by_key(|error| (error.span.start, error.span.end));
    errors
        .dedup_by(|later, earlier| later.span == earlier.span && later.message == earlier.message);
    Parsed {
        file: crate::ast::File {
            body,
            comments: std::mem::take(&mut layout.comments),
        },
        errors,
    }
}
