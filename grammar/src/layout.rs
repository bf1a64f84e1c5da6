//! Turns the lexer's physical lines into the logical NEWLINE / INDENT / DEDENT tokens the grammar sees.
//!
//! This is RustPython's approach: a stack of indentation widths and a stack of
//! open brackets sit between the lexer and the parser. Inside brackets line
//! breaks mean nothing; outside them a line break ends the logical line, and the
//! indentation of the next line opens or closes blocks. Comments leave the token
//! stream here and are collected for the file. Lexical and layout errors are
//! recorded and replaced by a single `LexError` token, so the parser never sees
//! an `Err` (which would end lalrpop's parse) and never reports them twice.

use std::collections::VecDeque;

use crate::ast::{Comment, Span};
use crate::lexer::Tok;
use crate::SyntaxError;

/// Brackets nested deeper than this are refused, so that nothing downstream recurses without bound.
pub const MAX_BRACKET_DEPTH: usize = 200;

/// A line's expression may nest at most about this deep; the estimate is counted on tokens.
pub const MAX_EXPRESSION_DEPTH: usize = 1000;

/// A chain of binary operators, calls, subscripts and attributes
/// (`a + b + c`, `f(x)[i].y`) may be at most this long. Such a chain is a
/// left-deep tree as deep as it is long, but Python writes it flat, so it is
/// counted apart from [`MAX_EXPRESSION_DEPTH`], with a limit above what
/// CPython's parser accepts in practice (tirc's commands run on a thread
/// with stack enough for it).
pub const MAX_OPERATOR_CHAIN: usize = 10_000;

/// Indentation deeper than this many levels is refused, as Python does.
pub const MAX_INDENT_LEVELS: usize = 100;

/// A token with its byte offsets, in the form lalrpop's external lexer interface expects.
pub type SpannedTok<'source> = (usize, Tok<'source>, usize);

/// One level of the indentation stack.
#[derive(Clone, Copy, Debug)]
struct IndentLevel {
    /// The indentation width of the block's lines.
    width: usize,
    /// True when the level exists only to absorb a bad dedent; it has no INDENT and gets no DEDENT.
    phantom: bool,
}

/// An open bracket waiting for its closer.
#[derive(Clone, Copy, Debug)]
struct OpenBracket {
    /// The bracket character: `(`, `[` or `{`.
    opener: u8,
    /// Byte offset of the bracket.
    position: usize,
    /// What operators at this level contributed to the estimates since its last comma.
    since_comma: LevelCount,
}

/// What the operators of one bracket level contributed to the line's two
/// estimates since the level's last comma.
#[derive(Clone, Copy, Default, Debug)]
struct LevelCount {
    /// To the nesting estimate: unary operators, conditionals, lambdas.
    nesting: usize,
    /// To the chain estimate: binary operators, calls, subscripts, attributes.
    chain: usize,
}

/// The layout pass: an iterator of parser tokens over a lexer.
pub struct Layout<'source> {
    /// The text being parsed, for indentation widths and comment positions.
    source: &'source str,
    /// The logos lexer, with spans.
    lexer: logos::SpannedIter<'source, Tok<'source>>,
    /// Widths of the open blocks; the bottom entry is the file's own level.
    indent_stack: Vec<IndentLevel>,
    /// Brackets opened and not yet closed, innermost last.
    open_brackets: Vec<OpenBracket>,
    /// Tokens decided but not yet handed out (DEDENTs, or a token behind an INDENT).
    pending: VecDeque<SpannedTok<'source>>,
    /// True when no token of the current logical line has been handed out yet.
    at_line_start: bool,
    /// Byte offset where the current physical line starts.
    line_start: usize,
    /// Operators at bracket depth zero since the last top-level comma.
    top_level: LevelCount,
    /// Running sum of the expression-depth estimate for the current logical line.
    depth_estimate: usize,
    /// Running sum of the operator-chain estimate for the current logical line.
    chain_estimate: usize,
    /// True when the last token handed out ends an operand (a name, a
    /// literal, a closing bracket): an operator after it is binary.
    after_operand: bool,
    /// True when the last token handed out is a closing bracket: a call,
    /// subscript or attribute after it extends a chain (`f(x)(y)`).
    after_closer: bool,
    /// True while the rest of a too-deep logical line is being skipped.
    skipping_line: bool,
    /// True once the end of input has been handled.
    finished: bool,
    /// True once the first logical line has been seen.
    seen_first_line: bool,
    /// Comments removed from the token stream, in source order.
    pub comments: Vec<Comment>,
    /// Errors found by the lexer and this pass.
    pub errors: Vec<SyntaxError>,
    /// Start offsets of the `LexError` tokens handed to the parser; the parser's own
    /// complaint about such a token is a repeat and gets dropped.
    pub error_token_starts: Vec<usize>,
    /// Where the outermost bracket left open at the end of the file was; the parser's
    /// errors from there on follow from it and get dropped.
    pub unclosed_bracket_start: Option<usize>,
}

impl<'source> Layout<'source> {
    /// A layout pass over `source`.
    pub fn new(source: &'source str) -> Layout<'source> {
        Layout {
            source,
            lexer: crate::lexer::tokenize(source),
            indent_stack: vec![IndentLevel {
                width: 0,
                phantom: false,
            }],
            open_brackets: Vec::new(),
            pending: VecDeque::new(),
            at_line_start: true,
            line_start: 0,
            top_level: LevelCount::default(),
            depth_estimate: 0,
            chain_estimate: 0,
            after_operand: false,
            after_closer: false,
            skipping_line: false,
            finished: false,
            seen_first_line: false,
            comments: Vec::new(),
            errors: Vec::new(),
            error_token_starts: Vec::new(),
            unclosed_bracket_start: None,
        }
    }

    /// Records an error at `start..end`.
    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) {
        self.errors.push(SyntaxError {
            span: Span::new(start, end),
            message: message.into(),
        });
    }

    /// Records an error and returns the `LexError` token that stands for it in the parser's input.
    fn error_token(
        &mut self,
        start: usize,
        end: usize,
        message: impl Into<String>,
    ) -> SpannedTok<'source> {
        self.error(start, end, message);
        self.error_token_starts.push(start);
        (start, Tok::LexError, end)
    }

    /// Handles the first token of a logical line: compares its indentation with the
    /// open blocks and queues INDENT or DEDENTs before it.
    fn open_line(&mut self, token_start: usize) {
        let indentation = &self.source[self.line_start.min(token_start)..token_start];
        let mut width = 0;
        let mut tab_position = None;
        for (offset, byte) in indentation.bytes().enumerate() {
            match byte {
                b' ' => width += 1,
                b'\t' => {
                    tab_position.get_or_insert(self.line_start + offset);
                    // Counted as Python does, to the next multiple of 8, so the rest of the file still lines up.
                    width = (width / 8 + 1) * 8;
                }
                // A form feed resets the column, as in Python's tokenizer.
                b'\x0C' => width = 0,
                _ => {}
            }
        }
        let seen_first_line = self.seen_first_line;
        self.seen_first_line = true;
        if let Some(position) = tab_position {
            self.error(
                position,
                position + 1,
                "tab character in indentation; indent with spaces",
            );
        }
        let current = self.indent_stack.last().map_or(0, |level| level.width);
        if width > current && !seen_first_line {
            // An indented first line has no block to open; the grammar would report a
            // second error at the matching dedent, so it is reported here and absorbed.
            self.error(self.line_start, token_start, "unexpected indent");
            self.indent_stack.push(IndentLevel {
                width,
                phantom: true,
            });
        } else if width > current {
            if self.indent_stack.len() > MAX_INDENT_LEVELS {
                self.error(
                    self.line_start,
                    token_start,
                    "too many levels of indentation",
                );
                self.indent_stack.push(IndentLevel {
                    width,
                    phantom: true,
                });
            } else {
                self.indent_stack.push(IndentLevel {
                    width,
                    phantom: false,
                });
                self.pending
                    .push_back((self.line_start, Tok::Indent, token_start));
            }
        } else if width < current {
            while self.indent_stack.len() > 1
                && self
                    .indent_stack
                    .last()
                    .is_some_and(|level| level.width > width)
            {
                let level = self.indent_stack.pop().unwrap_or(IndentLevel {
                    width: 0,
                    phantom: true,
                });
                if !level.phantom {
                    self.pending
                        .push_back((token_start, Tok::Dedent, token_start));
                }
            }
            let enclosing = self.indent_stack.last().map_or(0, |level| level.width);
            if enclosing != width {
                self.error(
                    self.line_start,
                    token_start,
                    "unindent does not match any outer indentation level",
                );
                // The line is kept at the enclosing block's level; later lines of the same
                // width join it without a second error.
                self.indent_stack.push(IndentLevel {
                    width,
                    phantom: true,
                });
            }
        }
    }

    /// Whether a token builds an expression node and so deepens the depth estimate:
    /// operators, dots and expression keywords. (A comma ends a sibling instead and
    /// resets its level's share; brackets are counted where they open and close.)
    fn deepens_expression(token: &Tok<'_>) -> bool {
        matches!(
            token,
            Tok::Plus
                | Tok::Minus
                | Tok::Star
                | Tok::Slash
                | Tok::DoubleSlash
                | Tok::Percent
                | Tok::DoubleStar
                | Tok::At
                | Tok::EqEq
                | Tok::NotEq
                | Tok::Less
                | Tok::LessEq
                | Tok::Greater
                | Tok::GreaterEq
                | Tok::Amper
                | Tok::Pipe
                | Tok::Caret
                | Tok::Tilde
                | Tok::LeftShift
                | Tok::RightShift
                | Tok::Dot
                | Tok::Not
                | Tok::And
                | Tok::Or
                | Tok::If
                | Tok::Else
                | Tok::Lambda
                | Tok::In
                | Tok::Is
        )
    }

    /// The counts of the innermost level.
    fn innermost_level(&mut self) -> &mut LevelCount {
        match self.open_brackets.last_mut() {
            Some(bracket) => &mut bracket.since_comma,
            None => &mut self.top_level,
        }
    }

    /// Adds one to the nesting count of the innermost level.
    fn count_operator(&mut self) {
        self.innermost_level().nesting += 1;
        self.depth_estimate += 1;
    }

    /// Adds one to the chain count of the innermost level.
    fn count_chain_link(&mut self) {
        self.innermost_level().chain += 1;
        self.chain_estimate += 1;
    }

    /// Takes back what a level contributed: at a comma, or as it closes.
    fn forget_level(&mut self, count: LevelCount) {
        self.depth_estimate = self.depth_estimate.saturating_sub(count.nesting);
        self.chain_estimate = self.chain_estimate.saturating_sub(count.chain);
    }

    /// True for an operator that joins two operands when one comes before it.
    fn is_binary_operator(token: &Tok<'_>) -> bool {
        !matches!(
            token,
            Tok::Tilde | Tok::Not | Tok::If | Tok::Else | Tok::Lambda
        )
    }

    /// Ends the current logical line's bookkeeping.
    fn reset_line(&mut self) {
        self.top_level = LevelCount::default();
        self.depth_estimate = 0;
        self.chain_estimate = 0;
        self.after_operand = false;
        self.after_closer = false;
        self.at_line_start = true;
    }

    /// Handles the end of input: an unclosed bracket, the last NEWLINE and the DEDENTs.
    fn finish(&mut self) {
        self.finished = true;
        let end = self.source.len();
        if let Some(innermost) = self.open_brackets.last().copied() {
            let opener = innermost.opener as char;
            self.error(
                innermost.position,
                innermost.position + 1,
                format!("unclosed '{opener}'"),
            );
            self.unclosed_bracket_start =
                self.open_brackets.first().map(|bracket| bracket.position);
            self.open_brackets.clear();
        }
        if !self.at_line_start {
            self.pending.push_back((end, Tok::Newline, end));
        }
        while self.indent_stack.len() > 1 {
            if let Some(level) = self.indent_stack.pop() {
                if !level.phantom {
                    self.pending.push_back((end, Tok::Dedent, end));
                }
            }
        }
    }

    /// Pulls lexer tokens until one is ready for the parser (or input ends).
    fn advance(&mut self) {
        while self.pending.is_empty() && !self.finished {
            let Some((result, range)) = self.lexer.next() else {
                self.finish();
                return;
            };
            let (start, end) = (range.start, range.end);
            let token = match result {
                Ok(token) => token,
                Err(error) => {
                    let message = error.message(&self.source[start..end]);
                    if self.skipping_line {
                        continue;
                    }
                    if self.at_line_start && self.open_brackets.is_empty() {
                        self.open_line(start);
                    }
                    self.at_line_start = false;
                    let token = self.error_token(start, end, message);
                    self.pending.push_back(token);
                    continue;
                }
            };
            match token {
                Tok::Comment(text) => {
                    let own_line = self.source[self.line_start..start]
                        .bytes()
                        .all(|byte| byte == b' ' || byte == b'\t' || byte == b'\x0C');
                    self.comments.push(Comment {
                        text: text[1..].to_string(),
                        span: Span::new(start, end),
                        own_line,
                    });
                }
                Tok::LineBreak => {
                    self.line_start = end;
                    if self.open_brackets.is_empty() && !self.at_line_start {
                        self.skipping_line = false;
                        self.reset_line();
                        self.pending.push_back((start, Tok::Newline, end));
                    }
                }
                _ => self.accept(token, start, end),
            }
        }
    }

    /// Handles a token that belongs to the logical line: indentation, brackets and the depth guard.
    fn accept(&mut self, token: Tok<'source>, start: usize, end: usize) {
        if self.at_line_start && self.open_brackets.is_empty() {
            self.open_line(start);
        }
        self.at_line_start = false;
        let mut token = token;
        match token {
            Tok::LeftParen | Tok::LeftBracket | Tok::LeftBrace => {
                // `f(x)(y)` and `a[i][j]` are chains; `A[i]` is one operand.
                if self.after_closer {
                    self.count_chain_link();
                }
                self.open_brackets.push(OpenBracket {
                    opener: self.source.as_bytes()[start],
                    position: start,
                    since_comma: LevelCount::default(),
                });
                self.depth_estimate += 2;
                if self.open_brackets.len() > MAX_BRACKET_DEPTH && !self.skipping_line {
                    let error = self.error_token(
                        start,
                        end,
                        format!("too many nested brackets (more than {MAX_BRACKET_DEPTH})"),
                    );
                    self.skip_rest_of_line(error);
                    return;
                }
            }
            Tok::RightParen | Tok::RightBracket | Tok::RightBrace => {
                let closer = self.source.as_bytes()[start];
                let opener_of_closer = match closer {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                // A closer that matches an outer bracket means the inner ones were never
                // closed: close them here for the parser and report the mismatch once.
                let inner_count = self
                    .open_brackets
                    .iter()
                    .rev()
                    .position(|bracket| bracket.opener == opener_of_closer)
                    .unwrap_or(0);
                if inner_count > 0 && !self.skipping_line {
                    if let Some(innermost) = self.open_brackets.last() {
                        let message = format!(
                            "closing '{}' does not match opening '{}'",
                            closer as char, innermost.opener as char
                        );
                        self.error(start, end, message);
                    }
                    for _ in 0..inner_count {
                        if let Some(bracket) = self.open_brackets.pop() {
                            self.forget_level(bracket.since_comma);
                            self.depth_estimate = self.depth_estimate.saturating_sub(2);
                            let synthesized = match bracket.opener {
                                b'(' => Tok::RightParen,
                                b'[' => Tok::RightBracket,
                                _ => Tok::RightBrace,
                            };
                            self.pending.push_back((start, synthesized, start));
                        }
                    }
                }
                let Some(bracket) = self.open_brackets.pop() else {
                    if !self.skipping_line {
                        let error =
                            self.error_token(start, end, format!("unmatched '{}'", closer as char));
                        self.pending.push_back(error);
                    }
                    return;
                };
                self.forget_level(bracket.since_comma);
                self.depth_estimate = self.depth_estimate.saturating_sub(2);
                let expected = match bracket.opener {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                if closer != expected && !self.skipping_line {
                    self.error(
                        start,
                        end,
                        format!(
                            "closing '{}' does not match opening '{}'",
                            closer as char, bracket.opener as char
                        ),
                    );
                    // The parser sees the closer that was meant, so one typo is one error.
                    token = match expected {
                        b')' => Tok::RightParen,
                        b']' => Tok::RightBracket,
                        _ => Tok::RightBrace,
                    };
                }
            }
            Tok::Comma => {
                let share = std::mem::take(self.innermost_level());
                self.forget_level(share);
            }
            _ => {
                if token == Tok::Dot {
                    // `f(x).y` extends a chain; `T.float32` is one operand.
                    if self.after_closer {
                        self.count_chain_link();
                    }
                } else if Self::deepens_expression(&token) {
                    if self.after_operand && Self::is_binary_operator(&token) {
                        self.count_chain_link();
                    } else {
                        self.count_operator();
                    }
                }
            }
        }
        self.after_operand = token.ends_operand();
        self.after_closer = matches!(token, Tok::RightParen | Tok::RightBracket | Tok::RightBrace);
        if self.skipping_line {
            return;
        }
        if self.depth_estimate > MAX_EXPRESSION_DEPTH {
            let error = self.error_token(start, end, "expression is nested too deeply");
            self.skip_rest_of_line(error);
            return;
        }
        if self.chain_estimate > MAX_OPERATOR_CHAIN {
            let error = self.error_token(
                start,
                end,
                format!(
                    "expression is too long: more than {MAX_OPERATOR_CHAIN} operators in a row"
                ),
            );
            self.skip_rest_of_line(error);
            return;
        }
        self.pending.push_back((start, token, end));
    }

    /// Hands `error` to the parser and drops the rest of the logical line, so the parser
    /// never builds a tree deeper than the limits.
    fn skip_rest_of_line(&mut self, error: SpannedTok<'source>) {
        self.pending.push_back(error);
        self.skipping_line = true;
    }
}

impl<'source> Iterator for Layout<'source> {
    type Item = Result<SpannedTok<'source>, std::convert::Infallible>;

    fn next(&mut self) -> Option<Self::Item> {
        self.advance();
        self.pending.pop_front().map(Ok)
    }
}

/// Runs the lexer and layout over `source` and returns every parser token, with the
/// comments and errors; used by tests and tools that want the token stream itself.
pub fn layout_tokens(source: &str) -> (Vec<SpannedTok<'_>>, Vec<Comment>, Vec<SyntaxError>) {
    let mut layout = Layout::new(source);
    let tokens: Vec<SpannedTok<'_>> = layout
        .by_ref()
        .map(|item| match item {
            Ok(token) => token,
            Err(never) => match never {},
        })
        .collect();
    (tokens, layout.comments, layout.errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The token kinds the parser would see, written compactly: names as their text,
    /// layout tokens as `NEWLINE`, `INDENT`, `DEDENT`, others as their symbol.
    fn kinds(source: &str) -> Vec<String> {
        layout_tokens(source)
            .0
            .iter()
            .map(|(_, token, _)| match token {
                Tok::Name(name) => name.to_string(),
                Tok::Int(value) => value.to_string(),
                Tok::Newline => "NEWLINE".to_string(),
                Tok::Indent => "INDENT".to_string(),
                Tok::Dedent => "DEDENT".to_string(),
                Tok::LexError => "ERROR".to_string(),
                other => other.symbol().to_string(),
            })
            .collect()
    }

    /// The layout errors of `source` as `(start, message)`.
    fn errors(source: &str) -> Vec<(u32, String)> {
        layout_tokens(source)
            .2
            .into_iter()
            .map(|error| (error.span.start, error.message))
            .collect()
    }

    #[test]
    fn indentation_opens_and_closes_blocks() {
        assert_eq!(
            kinds("if a:\n    b\n    c\nd\n").join(" "),
            "if a : NEWLINE INDENT b NEWLINE c NEWLINE DEDENT d NEWLINE"
        );
        assert_eq!(
            kinds("a:\n  b:\n    c\nd\n").join(" "),
            "a : NEWLINE INDENT b : NEWLINE INDENT c NEWLINE DEDENT DEDENT d NEWLINE"
        );
    }

    #[test]
    fn any_width_works_and_widths_can_mix() {
        assert_eq!(
            kinds("a:\n  b\nc:\n        d\n").join(" "),
            "a : NEWLINE INDENT b NEWLINE DEDENT c : NEWLINE INDENT d NEWLINE DEDENT"
        );
    }

    #[test]
    fn blank_and_comment_lines_are_ignored() {
        let (tokens, comments, errors) =
            layout_tokens("a:\n\n    # note\n        \n    b\n# end\n");
        let names: Vec<Tok<'_>> = tokens.iter().map(|token| token.1).collect();
        assert_eq!(
            names,
            vec![
                Tok::Name("a"),
                Tok::Colon,
                Tok::Newline,
                Tok::Indent,
                Tok::Name("b"),
                Tok::Newline,
                Tok::Dedent
            ]
        );
        assert_eq!(comments.len(), 2);
        assert!(comments.iter().all(|comment| comment.own_line));
        assert!(errors.is_empty());
    }

    #[test]
    fn brackets_and_backslashes_continue_the_line() {
        assert_eq!(
            kinds("f(a,\n      b)\nc\n").join(" "),
            "f ( a , b ) NEWLINE c NEWLINE"
        );
        assert_eq!(kinds("x = [\n1,\n]\n").join(" "), "x = [ 1 , ] NEWLINE");
        assert_eq!(
            kinds("x = 1 + \\\n        2\n").join(" "),
            "x = 1 + 2 NEWLINE"
        );
    }

    #[test]
    fn end_of_file_closes_the_line_and_the_blocks() {
        assert_eq!(
            kinds("if a:\n    b").join(" "),
            "if a : NEWLINE INDENT b NEWLINE DEDENT"
        );
        assert_eq!(kinds("").len(), 0);
        assert_eq!(kinds("\n\n  \n").len(), 0);
        let tokens = layout_tokens("x").0;
        assert_eq!(tokens.last(), Some(&(1, Tok::Newline, 1)));
    }

    #[test]
    fn crlf_line_endings() {
        assert_eq!(
            kinds("if a:\r\n    b\r\nc\r\n").join(" "),
            "if a : NEWLINE INDENT b NEWLINE DEDENT c NEWLINE"
        );
    }

    #[test]
    fn tabs_in_indentation_are_errors() {
        assert_eq!(
            errors("if a:\n\tb\n"),
            vec![(
                6,
                "tab character in indentation; indent with spaces".to_string()
            )]
        );
        assert!(errors("x = 1\t# tab after code is fine\n").is_empty());
    }

    #[test]
    fn a_dedent_to_no_outer_level_is_an_error_once() {
        let source = "if a:\n    b\n  c\n  d\ne\n";
        assert_eq!(
            errors(source),
            vec![(
                12,
                "unindent does not match any outer indentation level".to_string()
            )]
        );
        // The misaligned lines join the enclosing block; no INDENT or DEDENT comes from them.
        assert_eq!(
            kinds(source).join(" "),
            "if a : NEWLINE INDENT b NEWLINE DEDENT c NEWLINE d NEWLINE e NEWLINE"
        );
    }

    #[test]
    fn an_indented_first_line_is_one_error_and_no_block() {
        assert_eq!(kinds("  a\nb\n").join(" "), "a NEWLINE b NEWLINE");
        assert_eq!(
            errors("  a\nb\n"),
            vec![(0, "unexpected indent".to_string())]
        );
    }

    #[test]
    fn bracket_errors() {
        assert_eq!(errors("a)\n"), vec![(1, "unmatched ')'".to_string())]);
        assert_eq!(kinds("a)\n").join(" "), "a ERROR NEWLINE");
        assert_eq!(
            errors("(a]\n"),
            vec![(2, "closing ']' does not match opening '('".to_string())]
        );
        assert_eq!(kinds("(a]\n").join(" "), "( a ) NEWLINE");
        let mut layout = Layout::new("x = (1,\n2\n");
        let count = layout.by_ref().count();
        assert_eq!(count, 7);
        assert_eq!(layout.errors[0].message, "unclosed '('");
        assert_eq!(layout.unclosed_bracket_start, Some(4));
    }

    #[test]
    fn nesting_past_the_limit_skips_the_line() {
        let source = format!("x = {}\ny\n", "[".repeat(MAX_BRACKET_DEPTH + 5));
        let kinds = kinds(&source);
        assert!(kinds.contains(&"ERROR".to_string()));
        assert_eq!(
            kinds.iter().filter(|kind| *kind == "[").count(),
            MAX_BRACKET_DEPTH
        );
        assert!(errors(&source)
            .iter()
            .any(|error| error.1.starts_with("too many nested brackets")));
    }

    #[test]
    fn lexer_errors_become_error_tokens() {
        let (tokens, _, errors) = layout_tokens("a = ?\n");
        assert_eq!(tokens[2], (4, Tok::LexError, 5));
        assert_eq!(errors[0].message, "invalid character '?'");
    }
}
