//! Text formatted token by token (the schedule sections of a file, and a
//! whole file whose program has errors, which has no IR to print): Python's
//! usual spacing (`sch.reorder(i0, k, i1, j)`, `a = b`, `f(x=1)`), four
//! spaces per block level, one blank line at most between statements, and
//! every comment where it was. A statement written over several lines is
//! kept as written; text the lexer refuses is left alone.

use tirc_grammar::lexer::{tokenize, Tok};

/// One logical line of the text: its tokens with their text, the width
/// of its indentation, and its trailing comment.
struct LogicalLine<'a> {
    tokens: Vec<(Tok<'a>, &'a str)>,
    indent: usize,
    comment: Option<&'a str>,
    /// The source text, when the line spans several physical lines.
    verbatim: Option<&'a str>,
    /// Blank lines before it in the source.
    blank_before: usize,
}

/// `text` (a schedule `def` with the comments above it, or a whole file)
/// formatted; `text` itself when it holds something the lexer refuses.
pub fn format_token_layout(text: &str) -> String {
    match logical_lines(text) {
        Some(lines) => render(&lines),
        None => text.to_string(),
    }
}

fn indentation_of(text: &str, offset: usize) -> usize {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..offset]
        .chars()
        .map(|c| if c == '\t' { 8 } else { 1 })
        .sum()
}

fn logical_lines(text: &str) -> Option<Vec<LogicalLine<'_>>> {
    let mut lines = Vec::new();
    let mut current: Option<LogicalLine> = None;
    let mut first_offset = 0;
    let mut depth = 0usize;
    let mut multiline = false;
    let mut breaks = 0usize;
    for (token, range) in tokenize(text) {
        let token = token.ok()?;
        let slice = &text[range.clone()];
        match token {
            Tok::LineBreak if depth > 0 => multiline = true,
            Tok::LineBreak => {
                if let Some(mut line) = current.take() {
                    if multiline {
                        line.verbatim = Some(text[first_offset..range.start].trim_end());
                    }
                    lines.push(line);
                    breaks = 0;
                } else {
                    breaks += 1;
                }
                multiline = false;
            }
            Tok::Comment(_) if depth > 0 => multiline = true,
            Tok::Comment(comment) => match current.as_mut() {
                Some(line) => line.comment = Some(comment),
                None => {
                    first_offset = range.start;
                    current = Some(LogicalLine {
                        tokens: Vec::new(),
                        indent: indentation_of(text, range.start),
                        comment: Some(comment),
                        verbatim: None,
                        blank_before: breaks,
                    });
                }
            },
            _ => {
                match token {
                    Tok::LeftParen | Tok::LeftBracket | Tok::LeftBrace => depth += 1,
                    Tok::RightParen | Tok::RightBracket | Tok::RightBrace => {
                        depth = depth.saturating_sub(1)
                    }
                    _ => {}
                }
                let line = current.get_or_insert_with(|| {
                    first_offset = range.start;
                    LogicalLine {
                        tokens: Vec::new(),
                        indent: indentation_of(text, range.start),
                        comment: None,
                        verbatim: None,
                        blank_before: breaks,
                    }
                });
                line.tokens.push((token, slice));
            }
        }
    }
    if let Some(mut line) = current.take() {
        if multiline {
            line.verbatim = Some(text[first_offset..].trim_end());
        }
        lines.push(line);
    }
    Some(lines)
}

fn render(lines: &[LogicalLine<'_>]) -> String {
    // The block level of every code line, from the indentation widths of
    // the open blocks.
    let mut widths: Vec<usize> = vec![0];
    let levels: Vec<Option<usize>> = lines
        .iter()
        .map(|line| {
            if line.tokens.is_empty() {
                return None;
            }
            while widths.len() > 1 && widths.last().is_some_and(|w| *w > line.indent) {
                widths.pop();
            }
            if widths.last().is_some_and(|w| line.indent > *w) {
                widths.push(line.indent);
            }
            Some(widths.len() - 1)
        })
        .collect();
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate() {
        if index > 0 && line.blank_before > 0 {
            out.push('\n');
        }
        // A comment line takes the level of the code it precedes, unless
        // it is written further left (then it closes a block).
        let level = levels[index].unwrap_or_else(|| {
            let next = (index + 1..lines.len()).find(|&i| levels[i].is_some());
            let previous = (0..index).rev().find(|&i| levels[i].is_some());
            match (next, previous) {
                (Some(next), _) if line.indent >= lines[next].indent => levels[next].unwrap_or(0),
                (_, Some(previous)) if line.indent >= lines[previous].indent => {
                    levels[previous].unwrap_or(0)
                }
                (Some(next), _) => levels[next].unwrap_or(0),
                _ => 0,
            }
        });
        match line.verbatim {
            Some(text) => out.push_str(text),
            None => {
                out.push_str(&"    ".repeat(level));
                out.push_str(&render_tokens(&line.tokens));
            }
        }
        if let Some(comment) = line.comment {
            if !line.tokens.is_empty() {
                out.push_str("  ");
            }
            out.push_str(comment);
        }
        out.push('\n');
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

fn is_word(token: &Tok<'_>) -> bool {
    matches!(
        token,
        Tok::Def
            | Tok::Class
            | Tok::For
            | Tok::In
            | Tok::If
            | Tok::Elif
            | Tok::Else
            | Tok::While
            | Tok::With
            | Tok::As
            | Tok::Return
            | Tok::Pass
            | Tok::Assert
            | Tok::Import
            | Tok::From
            | Tok::And
            | Tok::Or
            | Tok::Not
            | Tok::Is
            | Tok::Lambda
    )
}

fn render_tokens(tokens: &[(Tok<'_>, &str)]) -> String {
    let mut out = String::new();
    // The open brackets, innermost last.
    let mut brackets: Vec<Tok<'_>> = Vec::new();
    let mut previous: Option<&Tok<'_>> = None;
    // True when the previous token is a unary operator or a `*`/`**` unpacking.
    let mut previous_unary = false;
    for (token, text) in tokens {
        let inside = brackets.last();
        let space = match previous {
            None => false,
            Some(prev) => {
                let prev_opens = matches!(prev, Tok::LeftParen | Tok::LeftBracket | Tok::LeftBrace);
                let closes_or_separates = matches!(
                    token,
                    Tok::RightParen
                        | Tok::RightBracket
                        | Tok::RightBrace
                        | Tok::Comma
                        | Tok::Colon
                        | Tok::Semicolon
                );
                let call_or_subscript =
                    matches!(token, Tok::LeftParen | Tok::LeftBracket) && prev.ends_operand();
                let keyword_argument = matches!(inside, Some(Tok::LeftParen))
                    && (matches!(token, Tok::Equal) || matches!(prev, Tok::Equal));
                let slice = matches!(inside, Some(Tok::LeftBracket))
                    && (matches!(token, Tok::Colon) || matches!(prev, Tok::Colon));
                !(prev_opens
                    || closes_or_separates
                    || call_or_subscript
                    || keyword_argument
                    || slice
                    || previous_unary
                    || matches!(prev, Tok::Dot)
                    || matches!(token, Tok::Dot))
            }
        };
        if space {
            out.push(' ');
        }
        out.push_str(text);
        let unary_position = previous.is_none_or(|prev| {
            !prev.ends_operand() && !is_word(prev)
                || matches!(
                    prev,
                    Tok::Not | Tok::Return | Tok::In | Tok::If | Tok::Else | Tok::And | Tok::Or
                )
        });
        // `@` opens a decorator where no operand comes before it.
        previous_unary = matches!(
            token,
            Tok::Minus | Tok::Plus | Tok::Tilde | Tok::Star | Tok::DoubleStar | Tok::At
        ) && unary_position;
        match token {
            Tok::LeftParen | Tok::LeftBracket | Tok::LeftBrace => brackets.push(*token),
            Tok::RightParen | Tok::RightBracket | Tok::RightBrace => {
                brackets.pop();
            }
            _ => {}
        }
        previous = Some(token);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format_token_layout;

    #[test]
    fn a_program_formats_token_by_token() {
        let text = "@T.prim_func\ndef main(A: T.Buffer((4,),\"float32\"), B: T.Buffer((4,), \"float32\"))->None:\n    T.func_attr({\"tir.noalias\":True})\n    for i in range( 4 ):\n        B[i]=A[i]*-undefined[0:2]";
        assert_eq!(
            format_token_layout(text),
            "@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")) -> None:\n    T.func_attr({\"tir.noalias\": True})\n    for i in range(4):\n        B[i] = A[i] * -undefined[0:2]"
        );
    }

    #[test]
    fn spacing_is_normalised() {
        let text = "def schedule(sch:T.Schedule):\n    b=sch.get_block( \"C\" )\n    i0,i1=sch.split( i , factors = [None,4] )\n    sch.reorder( i0,k,   i1, j )";
        assert_eq!(
            format_token_layout(text),
            "def schedule(sch: T.Schedule):\n    b = sch.get_block(\"C\")\n    i0, i1 = sch.split(i, factors=[None, 4])\n    sch.reorder(i0, k, i1, j)"
        );
    }

    #[test]
    fn comments_indentation_and_blank_lines_are_kept() {
        let text = "# above\ndef schedule(sch: T.Schedule):\n  # first\n  b = sch.get_block(\"C\")   # trailing\n\n\n\n  for i in range(2):\n        sch.parallel(b)\n  l = sch.get_loops(b)[-1]\n  x = -1 * 2";
        assert_eq!(
            format_token_layout(text),
            "# above\ndef schedule(sch: T.Schedule):\n    # first\n    b = sch.get_block(\"C\")  # trailing\n\n    for i in range(2):\n        sch.parallel(b)\n    l = sch.get_loops(b)[-1]\n    x = -1 * 2"
        );
    }

    #[test]
    fn formatting_is_idempotent_and_keeps_multiline_calls() {
        let text = "def schedule(sch: T.Schedule):\n    sch.reorder(\n        a,  # outer\n        b,\n    )\n    c = sch.fuse(*loops)";
        let once = format_token_layout(text);
        assert!(once.contains("        a,  # outer\n"), "{once}");
        assert!(once.contains("c = sch.fuse(*loops)"), "{once}");
        assert_eq!(format_token_layout(&once), once);
    }
}
