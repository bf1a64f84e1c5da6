//! The token kinds of TVMScript's Python subset and the logos lexer that produces them.
//!
//! Tokens borrow their text from the source: the lexer never allocates. Strings
//! keep their quotes and prefix here and are decoded by the parser, which is the
//! only place that builds owned text. Bad input becomes a [`LexError`] with a
//! span; the lexer never panics.

use crate::ast::IntValue;
use logos::{Lexer, Logos};

/// Why a piece of source text is not a token.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    /// A character that starts no token, such as `$` or `?`.
    #[default]
    UnknownCharacter,
    /// A string literal whose closing quote is missing.
    UnterminatedString,
    /// A triple-quoted string whose closing quotes are missing.
    UnterminatedTripleString,
    /// An integer literal whose value does not fit in `u128`.
    IntegerTooLarge,
    /// A number immediately followed by letters or underscores, such as `12ab` or `0x`.
    InvalidNumber,
    /// A backslash that is not the last character of its line.
    StrayBackslash,
}

impl LexError {
    /// The message shown to the user for this error; `text` is the offending source text.
    pub fn message(&self, text: &str) -> String {
        match self {
            LexError::UnknownCharacter => {
                let character = text.chars().next().unwrap_or('?');
                if character.is_control() || character.is_whitespace() {
                    format!("invalid character U+{:04X}", character as u32)
                } else {
                    format!("invalid character '{character}'")
                }
            }
            LexError::UnterminatedString => "unterminated string literal".to_string(),
            LexError::UnterminatedTripleString => {
                "unterminated triple-quoted string literal".to_string()
            }
            LexError::IntegerTooLarge => {
                "integer literal is too large (it must fit in 128 bits)".to_string()
            }
            LexError::InvalidNumber => format!("invalid number literal '{text}'"),
            LexError::StrayBackslash => {
                "unexpected character after line continuation character '\\'".to_string()
            }
        }
    }
}

/// One token of the source, as the lexer sees it (physical newlines and comments
/// included), plus the `Indent`/`Dedent`/`LexError` tokens that the layout pass inserts.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\x0C]+")]
// A backslash at the end of a line joins it with the next one, as in Python.
#[logos(skip r"\\(\r\n|\n|\r)")]
pub enum Tok<'source> {
    /// An identifier (ASCII or Unicode letters, digits and `_`, not starting with a digit).
    #[regex(r"[\p{XID_Start}_][\p{XID_Continue}]*")]
    Name(&'source str),
    /// An integer literal with its value.
    #[regex(r"[0-9](_?[0-9])*", |lex| integer_value(lex.slice(), 10))]
    #[regex(r"0[xX](_?[0-9a-fA-F])+", |lex| integer_value(&lex.slice()[2..], 16))]
    #[regex(r"0[oO](_?[0-7])+", |lex| integer_value(&lex.slice()[2..], 8))]
    #[regex(r"0[bB](_?[01])+", |lex| integer_value(&lex.slice()[2..], 2))]
    Int(IntValue),
    /// A float literal with its value.
    #[regex(r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?", |lex| float_value(lex.slice()))]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?", |lex| float_value(lex.slice()))]
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*", |lex| float_value(lex.slice()))]
    Float(f64),
    /// A string literal exactly as written: prefix, quotes and escapes included.
    #[regex(r#"[rRuU]?["']"#, lex_quoted_string)]
    #[regex(r#"[rRuU]?("""|''')"#, lex_triple_quoted_string)]
    Str(&'source str),
    /// A physical line break (`\n`, `\r\n` or `\r`); the layout pass turns these into `Newline`.
    #[regex(r"\r\n|\n|\r")]
    LineBreak,
    /// A `#` comment up to the end of its line, `#` included.
    #[regex(r"#[^\r\n]*", allow_greedy = true)]
    Comment(&'source str),

    /// The end of a logical line (inserted by the layout pass).
    Newline,
    /// An increase of indentation (inserted by the layout pass).
    Indent,
    /// A decrease of indentation (inserted by the layout pass).
    Dedent,
    /// Text the lexer or the layout pass rejected; the error is already reported.
    LexError,

    /// `def`
    #[token("def")]
    Def,
    /// `class`
    #[token("class")]
    Class,
    /// `for`
    #[token("for")]
    For,
    /// `in`
    #[token("in")]
    In,
    /// `if`
    #[token("if")]
    If,
    /// `elif`
    #[token("elif")]
    Elif,
    /// `else`
    #[token("else")]
    Else,
    /// `while`
    #[token("while")]
    While,
    /// `with`
    #[token("with")]
    With,
    /// `as`
    #[token("as")]
    As,
    /// `return`
    #[token("return")]
    Return,
    /// `pass`
    #[token("pass")]
    Pass,
    /// `assert`
    #[token("assert")]
    Assert,
    /// `import`
    #[token("import")]
    Import,
    /// `from`
    #[token("from")]
    From,
    /// `and`
    #[token("and")]
    And,
    /// `or`
    #[token("or")]
    Or,
    /// `not`
    #[token("not")]
    Not,
    /// `is`
    #[token("is")]
    Is,
    /// `lambda`
    #[token("lambda")]
    Lambda,
    /// `True`
    #[token("True")]
    True,
    /// `False`
    #[token("False")]
    False,
    /// `None`
    #[token("None")]
    None,

    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `//`
    #[token("//")]
    DoubleSlash,
    /// `%`
    #[token("%")]
    Percent,
    /// `**`
    #[token("**")]
    DoubleStar,
    /// `@`
    #[token("@")]
    At,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    NotEq,
    /// `<`
    #[token("<")]
    Less,
    /// `<=`
    #[token("<=")]
    LessEq,
    /// `>`
    #[token(">")]
    Greater,
    /// `>=`
    #[token(">=")]
    GreaterEq,
    /// `&`
    #[token("&")]
    Amper,
    /// `|`
    #[token("|")]
    Pipe,
    /// `^`
    #[token("^")]
    Caret,
    /// `~`
    #[token("~")]
    Tilde,
    /// `<<`
    #[token("<<")]
    LeftShift,
    /// `>>`
    #[token(">>")]
    RightShift,
    /// `+=`
    #[token("+=")]
    PlusEq,
    /// `-=`
    #[token("-=")]
    MinusEq,
    /// `*=`
    #[token("*=")]
    StarEq,
    /// `/=`
    #[token("/=")]
    SlashEq,
    /// `//=`
    #[token("//=")]
    DoubleSlashEq,
    /// `%=`
    #[token("%=")]
    PercentEq,
    /// `**=`
    #[token("**=")]
    DoubleStarEq,
    /// `@=`
    #[token("@=")]
    AtEq,
    /// `&=`
    #[token("&=")]
    AmperEq,
    /// `|=`
    #[token("|=")]
    PipeEq,
    /// `^=`
    #[token("^=")]
    CaretEq,
    /// `<<=`
    #[token("<<=")]
    LeftShiftEq,
    /// `>>=`
    #[token(">>=")]
    RightShiftEq,
    /// `=`
    #[token("=")]
    Equal,
    /// `(`
    #[token("(")]
    LeftParen,
    /// `)`
    #[token(")")]
    RightParen,
    /// `[`
    #[token("[")]
    LeftBracket,
    /// `]`
    #[token("]")]
    RightBracket,
    /// `{`
    #[token("{")]
    LeftBrace,
    /// `}`
    #[token("}")]
    RightBrace,
    /// `->`
    #[token("->")]
    Arrow,
    /// `:`
    #[token(":")]
    Colon,
    /// `,`
    #[token(",")]
    Comma,
    /// `.`
    #[token(".")]
    Dot,
    /// `;`
    #[token(";")]
    Semicolon,

    /// A number run into letters (`12ab`, `0x`, `1_`), which Python rejects.
    #[regex(r"[0-9][0-9a-zA-Z_]*", invalid_number, priority = 1)]
    #[regex(r"[0-9](_?[0-9])*\.[0-9a-zA-Z_]+", invalid_number, priority = 1)]
    InvalidNumber,
    /// A backslash that does not end its line.
    #[token("\\", stray_backslash)]
    StrayBackslash,
}

impl Tok<'_> {
    /// How the token is named in an error message, such as `':'` or `newline`.
    pub fn describe(&self) -> String {
        match self {
            Tok::Name(name) => format!("name '{name}'"),
            Tok::Int(value) => format!("number {value}"),
            Tok::Float(value) => format!("number {value}"),
            Tok::Str(_) => "a string".to_string(),
            Tok::LineBreak | Tok::Newline => "newline".to_string(),
            Tok::Comment(_) => "a comment".to_string(),
            Tok::Indent => "an indent".to_string(),
            Tok::Dedent => "the end of the indented block".to_string(),
            Tok::LexError | Tok::InvalidNumber | Tok::StrayBackslash => "invalid text".to_string(),
            other => format!("'{}'", other.symbol()),
        }
    }

    /// The fixed spelling of a keyword or operator token; empty for tokens with a payload.
    pub fn symbol(&self) -> &'static str {
        match self {
            Tok::Def => "def",
            Tok::Class => "class",
            Tok::For => "for",
            Tok::In => "in",
            Tok::If => "if",
            Tok::Elif => "elif",
            Tok::Else => "else",
            Tok::While => "while",
            Tok::With => "with",
            Tok::As => "as",
            Tok::Return => "return",
            Tok::Pass => "pass",
            Tok::Assert => "assert",
            Tok::Import => "import",
            Tok::From => "from",
            Tok::And => "and",
            Tok::Or => "or",
            Tok::Not => "not",
            Tok::Is => "is",
            Tok::Lambda => "lambda",
            Tok::True => "True",
            Tok::False => "False",
            Tok::None => "None",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::DoubleSlash => "//",
            Tok::Percent => "%",
            Tok::DoubleStar => "**",
            Tok::At => "@",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Less => "<",
            Tok::LessEq => "<=",
            Tok::Greater => ">",
            Tok::GreaterEq => ">=",
            Tok::Amper => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::LeftShift => "<<",
            Tok::RightShift => ">>",
            Tok::PlusEq => "+=",
            Tok::MinusEq => "-=",
            Tok::StarEq => "*=",
            Tok::SlashEq => "/=",
            Tok::DoubleSlashEq => "//=",
            Tok::PercentEq => "%=",
            Tok::DoubleStarEq => "**=",
            Tok::AtEq => "@=",
            Tok::AmperEq => "&=",
            Tok::PipeEq => "|=",
            Tok::CaretEq => "^=",
            Tok::LeftShiftEq => "<<=",
            Tok::RightShiftEq => ">>=",
            Tok::Equal => "=",
            Tok::LeftParen => "(",
            Tok::RightParen => ")",
            Tok::LeftBracket => "[",
            Tok::RightBracket => "]",
            Tok::LeftBrace => "{",
            Tok::RightBrace => "}",
            Tok::Arrow => "->",
            Tok::Colon => ":",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::Semicolon => ";",
            Tok::Name(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::LineBreak
            | Tok::Comment(_)
            | Tok::Newline
            | Tok::Indent
            | Tok::Dedent
            | Tok::LexError
            | Tok::InvalidNumber
            | Tok::StrayBackslash => "",
        }
    }
}

impl Tok<'_> {
    /// True for a token that ends an operand (a name, a literal, a closing
    /// bracket): an operator after it is binary, a bracket after it a call
    /// or subscript.
    pub fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::Name(_)
                | Tok::Int(_)
                | Tok::Float(_)
                | Tok::Str(_)
                | Tok::True
                | Tok::False
                | Tok::None
                | Tok::RightParen
                | Tok::RightBracket
                | Tok::RightBrace
        )
    }
}

/// Lexes `source` into tokens with their byte ranges; rejected text comes back as an error with its range.
pub fn tokenize(source: &str) -> logos::SpannedIter<'_, Tok<'_>> {
    Tok::lexer(source).spanned()
}

/// Rejects a number run into letters.
fn invalid_number<'source>(_: &mut Lexer<'source, Tok<'source>>) -> Result<(), LexError> {
    Err(LexError::InvalidNumber)
}

/// Rejects a backslash that does not end its line.
fn stray_backslash<'source>(_: &mut Lexer<'source, Tok<'source>>) -> Result<(), LexError> {
    Err(LexError::StrayBackslash)
}

/// The value of an integer literal's digits (underscores allowed) in `radix`, or an
/// error when it does not fit in `u128`. Works on the slice so that no string is built.
fn integer_value(digits: &str, radix: u32) -> Result<IntValue, LexError> {
    let mut value: u128 = 0;
    for byte in digits.bytes() {
        if byte == b'_' {
            continue;
        }
        let digit = (byte as char)
            .to_digit(radix)
            .ok_or(LexError::InvalidNumber)?;
        value = value
            .checked_mul(radix as u128)
            .and_then(|shifted| shifted.checked_add(digit as u128))
            .ok_or(LexError::IntegerTooLarge)?;
    }
    Ok(value.into())
}

/// The value of a float literal; underscores are removed first, which allocates only
/// when the literal has them.
fn float_value(text: &str) -> Result<f64, LexError> {
    let parsed = if text.contains('_') {
        text.replace('_', "").parse::<f64>()
    } else {
        text.parse::<f64>()
    };
    parsed.map_err(|_| LexError::InvalidNumber)
}

/// Finishes a one-line string after its opening quote: escapes skip the next
/// character (a line break included, which continues the string as in Python).
fn lex_quoted_string<'source>(
    lex: &mut Lexer<'source, Tok<'source>>,
) -> Result<&'source str, LexError> {
    let quote = *lex.slice().as_bytes().last().unwrap_or(&b'"');
    let rest = lex.remainder().as_bytes();
    let mut index = 0;
    while index < rest.len() {
        match rest[index] {
            byte if byte == quote => {
                lex.bump(index + 1);
                return Ok(lex.slice());
            }
            b'\\' => {
                // `\` followed by CRLF continues the string over both characters.
                if rest.get(index + 1) == Some(&b'\r') && rest.get(index + 2) == Some(&b'\n') {
                    index += 3;
                } else {
                    index += 2;
                }
            }
            b'\n' | b'\r' => break,
            _ => index += 1,
        }
    }
    // The error covers the string up to the end of its line, so the next token is the line break.
    let end = index.min(rest.len());
    lex.bump(end);
    Err(LexError::UnterminatedString)
}

/// Finishes a triple-quoted string after its opening quotes; it may span lines.
fn lex_triple_quoted_string<'source>(
    lex: &mut Lexer<'source, Tok<'source>>,
) -> Result<&'source str, LexError> {
    let quote = *lex.slice().as_bytes().last().unwrap_or(&b'"');
    let rest = lex.remainder().as_bytes();
    let mut index = 0;
    while index < rest.len() {
        match rest[index] {
            b'\\' => index += 2,
            byte if byte == quote
                && rest.get(index + 1) == Some(&quote)
                && rest.get(index + 2) == Some(&quote) =>
            {
                lex.bump(index + 3);
                return Ok(lex.slice());
            }
            _ => index += 1,
        }
    }
    lex.bump(rest.len());
    Err(LexError::UnterminatedTripleString)
}

/// Resolves the escapes of a string token (quotes and prefix included) into its value.
/// Bad `\x`/`\u` escapes are reported through `on_error` with their byte offset in the
/// token and kept literally.
pub fn decode_string(token: &str, mut on_error: impl FnMut(usize, usize, &str)) -> String {
    let bytes = token.as_bytes();
    let mut prefix_length = 0;
    let mut raw = false;
    while prefix_length < bytes.len()
        && bytes[prefix_length] != b'"'
        && bytes[prefix_length] != b'\''
    {
        if bytes[prefix_length] == b'r' || bytes[prefix_length] == b'R' {
            raw = true;
        }
        prefix_length += 1;
    }
    let quote_length = if token[prefix_length..].starts_with("\"\"\"")
        || token[prefix_length..].starts_with("'''")
    {
        3
    } else {
        1
    };
    let body_start = (prefix_length + quote_length).min(token.len());
    let body_end = token.len().saturating_sub(quote_length).max(body_start);
    let body = &token[body_start..body_end];
    if raw || !body.contains('\\') {
        return body.to_string();
    }
    let mut value = String::with_capacity(body.len());
    let mut characters = body.char_indices().peekable();
    while let Some((offset, character)) = characters.next() {
        if character != '\\' {
            value.push(character);
            continue;
        }
        let Some((_, escaped)) = characters.next() else {
            value.push('\\');
            break;
        };
        match escaped {
            'n' => value.push('\n'),
            't' => value.push('\t'),
            'r' => value.push('\r'),
            '0' => value.push('\0'),
            'a' => value.push('\x07'),
            'b' => value.push('\x08'),
            'f' => value.push('\x0C'),
            'v' => value.push('\x0B'),
            '\\' => value.push('\\'),
            '\'' => value.push('\''),
            '"' => value.push('"'),
            // A backslash before a line break joins the lines.
            '\n' => {}
            '\r' => {
                if characters.peek().map(|&(_, next)| next) == Some('\n') {
                    characters.next();
                }
            }
            'x' | 'u' | 'U' => {
                let digit_count = match escaped {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits_start = offset + 2;
                let digits = body.get(digits_start..digits_start + digit_count);
                let code = digits
                    .filter(|digits| digits.bytes().all(|byte| byte.is_ascii_hexdigit()))
                    .and_then(|digits| u32::from_str_radix(digits, 16).ok())
                    .and_then(char::from_u32);
                match code {
                    Some(decoded) => {
                        value.push(decoded);
                        for _ in 0..digit_count {
                            characters.next();
                        }
                    }
                    None => {
                        let end = body.len().min(digits_start + digit_count);
                        on_error(
                            body_start + offset,
                            body_start + end,
                            &format!(
                                "invalid \\{escaped} escape: expected {digit_count} hex digits"
                            ),
                        );
                        value.push('\\');
                        value.push(escaped);
                    }
                }
            }
            // Python keeps unknown escapes such as `\d` as they are.
            other => {
                value.push('\\');
                value.push(other);
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `source`, with errors as `Err`.
    fn lex(source: &str) -> Vec<Result<Tok<'_>, LexError>> {
        Tok::lexer(source).collect()
    }

    /// The single token of `source`, asserting there is exactly one.
    fn single(source: &str) -> Result<Tok<'_>, LexError> {
        let tokens = lex(source);
        assert_eq!(
            tokens.len(),
            1,
            "expected one token in {source:?}, got {tokens:?}"
        );
        tokens[0].clone()
    }

    #[test]
    fn names_ascii_and_unicode() {
        assert_eq!(single("vi_0"), Ok(Tok::Name("vi_0")));
        assert_eq!(single("_private"), Ok(Tok::Name("_private")));
        assert_eq!(single("données"), Ok(Tok::Name("données")));
        assert_eq!(single("变量"), Ok(Tok::Name("变量")));
        assert_eq!(single("define"), Ok(Tok::Name("define")));
        assert_eq!(single("None_"), Ok(Tok::Name("None_")));
    }

    #[test]
    fn every_keyword() {
        let keywords = [
            ("def", Tok::Def),
            ("class", Tok::Class),
            ("for", Tok::For),
            ("in", Tok::In),
            ("if", Tok::If),
            ("elif", Tok::Elif),
            ("else", Tok::Else),
            ("while", Tok::While),
            ("with", Tok::With),
            ("as", Tok::As),
            ("return", Tok::Return),
            ("pass", Tok::Pass),
            ("assert", Tok::Assert),
            ("import", Tok::Import),
            ("from", Tok::From),
            ("and", Tok::And),
            ("or", Tok::Or),
            ("not", Tok::Not),
            ("is", Tok::Is),
            ("lambda", Tok::Lambda),
            ("True", Tok::True),
            ("False", Tok::False),
            ("None", Tok::None),
        ];
        for (text, token) in keywords {
            assert_eq!(single(text), Ok(token), "for {text}");
            assert_eq!(token.symbol(), text);
        }
    }

    #[test]
    fn every_operator_and_delimiter() {
        let operators = [
            "+", "-", "*", "/", "//", "%", "**", "@", "==", "!=", "<", "<=", ">", ">=", "&", "|",
            "^", "~", "<<", ">>", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=",
            "^=", "<<=", ">>=", "=", "(", ")", "[", "]", "{", "}", "->", ":", ",", ".", ";",
        ];
        for text in operators {
            let token =
                single(text).unwrap_or_else(|error| panic!("{text} did not lex: {error:?}"));
            assert_eq!(token.symbol(), text);
        }
        // Longest match: `**=` is one token, `*-` is two.
        assert_eq!(lex("a**=b").len(), 3);
        assert_eq!(lex("*-"), vec![Ok(Tok::Star), Ok(Tok::Minus)]);
    }

    #[test]
    fn integers() {
        assert_eq!(single("0"), Ok(Tok::Int(IntValue::from(0))));
        assert_eq!(single("128"), Ok(Tok::Int(IntValue::from(128))));
        assert_eq!(single("1_000"), Ok(Tok::Int(IntValue::from(1000))));
        assert_eq!(single("0x1F"), Ok(Tok::Int(IntValue::from(31))));
        assert_eq!(single("0XfF"), Ok(Tok::Int(IntValue::from(255))));
        assert_eq!(single("0o17"), Ok(Tok::Int(IntValue::from(15))));
        assert_eq!(single("0b1010"), Ok(Tok::Int(IntValue::from(10))));
        assert_eq!(single("0b_1010"), Ok(Tok::Int(IntValue::from(10))));
        assert_eq!(
            single("340282366920938463463374607431768211455"),
            Ok(Tok::Int(IntValue::from(u128::MAX)))
        );
        assert_eq!(
            single("340282366920938463463374607431768211456"),
            Err(LexError::IntegerTooLarge)
        );
        assert_eq!(
            single("0x1_0000_0000_0000_0000_0000_0000_0000_0000"),
            Err(LexError::IntegerTooLarge)
        );
    }

    #[test]
    fn floats() {
        assert_eq!(single("1.5"), Ok(Tok::Float(1.5)));
        assert_eq!(single("1."), Ok(Tok::Float(1.0)));
        assert_eq!(single(".5"), Ok(Tok::Float(0.5)));
        assert_eq!(single("1e-5"), Ok(Tok::Float(1e-5)));
        assert_eq!(single("2.5E+3"), Ok(Tok::Float(2500.0)));
        assert_eq!(single("1_0.0"), Ok(Tok::Float(10.0)));
        assert_eq!(single("1.25e-05"), Ok(Tok::Float(1.25e-05)));
        assert_eq!(single("1e5"), Ok(Tok::Float(100000.0)));
        // A dot after a name is an attribute, not a float.
        assert_eq!(lex("x.5").len(), 2);
    }

    #[test]
    fn malformed_numbers_are_errors() {
        assert_eq!(single("12abc"), Err(LexError::InvalidNumber));
        assert_eq!(single("0x"), Err(LexError::InvalidNumber));
        assert_eq!(single("1_"), Err(LexError::InvalidNumber));
        assert_eq!(single("1.5x"), Err(LexError::InvalidNumber));
    }

    #[test]
    fn strings_keep_their_quotes_and_prefix() {
        assert_eq!(single("'a'"), Ok(Tok::Str("'a'")));
        assert_eq!(single("\"a b\""), Ok(Tok::Str("\"a b\"")));
        assert_eq!(single("\"\""), Ok(Tok::Str("\"\"")));
        assert_eq!(single(r#""it\"s""#), Ok(Tok::Str(r#""it\"s""#)));
        assert_eq!(single(r#"r"\d""#), Ok(Tok::Str(r#"r"\d""#)));
        assert_eq!(
            single("\"\"\"doc\n\"quoted\" string\"\"\""),
            Ok(Tok::Str("\"\"\"doc\n\"quoted\" string\"\"\""))
        );
        assert_eq!(single("'''a'b'''"), Ok(Tok::Str("'''a'b'''")));
        assert_eq!(
            lex("\"a\" 'b'"),
            vec![Ok(Tok::Str("\"a\"")), Ok(Tok::Str("'b'"))]
        );
    }

    #[test]
    fn unterminated_strings_are_errors_that_stop_at_the_line_end() {
        let mut lexer = Tok::lexer("x = \"abc\ny");
        assert_eq!(lexer.next(), Some(Ok(Tok::Name("x"))));
        assert_eq!(lexer.next(), Some(Ok(Tok::Equal)));
        assert_eq!(lexer.next(), Some(Err(LexError::UnterminatedString)));
        assert_eq!(lexer.span(), 4..8);
        assert_eq!(lexer.next(), Some(Ok(Tok::LineBreak)));
        assert_eq!(lexer.next(), Some(Ok(Tok::Name("y"))));
        assert_eq!(
            single("'''never closed\n"),
            Err(LexError::UnterminatedTripleString)
        );
        assert_eq!(
            single("'ends in backslash\\"),
            Err(LexError::UnterminatedString)
        );
    }

    #[test]
    fn decoding_escapes() {
        let decode = |token: &str| {
            decode_string(token, |_, _, message| panic!("unexpected error: {message}"))
        };
        assert_eq!(decode(r#""a\nb\tc""#), "a\nb\tc");
        assert_eq!(decode(r#"'\\ \' \"'"#), "\\ ' \"");
        assert_eq!(decode(r#"'\x41\u00e9\U0001F600'"#), "Aé😀");
        assert_eq!(decode(r#"'\d\q'"#), "\\d\\q");
        assert_eq!(decode(r#"r'\n'"#), "\\n");
        assert_eq!(decode("'a\\\nb'"), "ab");
        assert_eq!(decode("'''x'''"), "x");
        let mut reported = Vec::new();
        let value = decode_string(r#"'\x4'"#, |start, end, message| {
            reported.push((start, end, message.to_string()))
        });
        assert_eq!(value, "\\x4");
        assert_eq!(
            reported,
            vec![(
                1,
                4,
                "invalid \\x escape: expected 2 hex digits".to_string()
            )]
        );
    }

    #[test]
    fn comments_line_breaks_and_continuations() {
        assert_eq!(
            lex("x # note\n"),
            vec![
                Ok(Tok::Name("x")),
                Ok(Tok::Comment("# note")),
                Ok(Tok::LineBreak)
            ]
        );
        assert_eq!(
            lex("a\r\nb\rc"),
            vec![
                Ok(Tok::Name("a")),
                Ok(Tok::LineBreak),
                Ok(Tok::Name("b")),
                Ok(Tok::LineBreak),
                Ok(Tok::Name("c")),
            ]
        );
        assert_eq!(
            lex("a + \\\n  b"),
            vec![Ok(Tok::Name("a")), Ok(Tok::Plus), Ok(Tok::Name("b"))]
        );
        assert_eq!(lex("a \\ b")[1], Err(LexError::StrayBackslash));
    }

    #[test]
    fn unknown_characters_are_errors_with_a_message() {
        assert_eq!(lex("a $ b")[1], Err(LexError::UnknownCharacter));
        assert_eq!(
            LexError::UnknownCharacter.message("$"),
            "invalid character '$'"
        );
        assert_eq!(
            LexError::UnknownCharacter.message("\u{0}"),
            "invalid character U+0000"
        );
        assert_eq!(lex("?").len(), 1);
        assert_eq!(lex("!").len(), 1, "a lone '!' is not an operator");
    }
}
