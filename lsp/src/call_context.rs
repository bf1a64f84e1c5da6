//! Reading the text just before the cursor: the dotted name being typed, the
//! call the cursor is inside and which argument, and whether it is in a
//! string. Completion and signature help work from this, so they keep
//! working while the line does not parse yet.

/// The call the cursor is inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallContext {
    /// The callee as written (`T.axis.remap`, `sch.split`).
    pub callee: String,
    /// The 0-based index of the argument the cursor is in.
    pub argument: usize,
    /// The keyword of that argument, when one is written (`factors=`).
    pub keyword: Option<String>,
}

/// The text of the current line up to `offset`.
pub fn line_before(text: &str, offset: usize) -> &str {
    let offset = floor_boundary(text, offset);
    let start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    &text[start..offset]
}

/// `offset` moved back to a character boundary of `text`.
pub fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The dotted name that ends at the cursor (`T.ax` gives `T.ax`).
pub fn dotted_prefix(before: &str) -> &str {
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| *c == '_' || *c == '.' || c.is_alphanumeric())
        .last()
        .map(|(i, _)| i)
        .unwrap_or(before.len());
    &before[start..]
}

/// The open string the cursor is in, with the text before its quote, when
/// the cursor is inside a string literal on this line.
pub fn open_string(before: &str) -> Option<(&str, &str)> {
    let mut quote: Option<(char, usize)> = None;
    let mut escaped = false;
    for (index, character) in before.char_indices() {
        match quote {
            Some((q, _)) => {
                if escaped {
                    escaped = false;
                } else if character == '\\' {
                    escaped = true;
                } else if character == q {
                    quote = None;
                }
            }
            None => {
                if character == '#' {
                    return None;
                }
                if character == '"' || character == '\'' {
                    quote = Some((character, index));
                }
            }
        }
    }
    let (_, index) = quote?;
    Some((&before[..index], &before[index + 1..]))
}

/// The innermost call whose parentheses are open at the end of `before`
/// (the text of the document up to the cursor; only the last lines are read).
pub fn enclosing_call(before: &str) -> Option<CallContext> {
    // Calls in TVMScript rarely span more than a few lines.
    let window_start = before
        .char_indices()
        .rev()
        .filter(|(_, c)| *c == '\n')
        .nth(8)
        .map(|(i, _)| i + 1)
        .unwrap_or(0);
    let window = &before[window_start..];
    let mut depth = 0i32;
    let mut argument = 0usize;
    let mut keyword_end: Option<usize> = None;
    let mut in_string: Option<char> = None;
    // Scan forwards to know which characters are inside strings, then walk back.
    let mut string_mask = vec![false; window.len()];
    for (index, character) in window.char_indices() {
        match in_string {
            Some(q) => {
                string_mask[index] = true;
                if character == q {
                    in_string = None;
                }
            }
            None => {
                if character == '"' || character == '\'' {
                    in_string = Some(character);
                    string_mask[index] = true;
                } else if character == '#' {
                    // A comment runs to the end of its line.
                    let end = window[index..]
                        .find('\n')
                        .map(|e| index + e)
                        .unwrap_or(window.len());
                    for flag in &mut string_mask[index..end] {
                        *flag = true;
                    }
                }
            }
        }
    }
    let mut seen_comma = false;
    for (index, character) in window.char_indices().rev() {
        if string_mask[index] {
            continue;
        }
        match character {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '[' | '{' => {
                // Inside a list argument (`factors=[None, |`): the list is one
                // argument of the call further out.
                argument = 0;
                keyword_end = None;
                seen_comma = false;
            }
            '(' => {
                let callee = dotted_prefix(&window[..index]);
                if callee.is_empty() {
                    return None;
                }
                let keyword =
                    keyword_end.map(|end| dotted_prefix(window[..end].trim_end()).to_string());
                return Some(CallContext {
                    callee: callee.to_string(),
                    argument,
                    keyword: keyword.filter(|k| !k.is_empty() && !k.contains('.')),
                });
            }
            ',' if depth == 0 => {
                argument += 1;
                seen_comma = true;
            }
            '=' if depth == 0 && !seen_comma && keyword_end.is_none() => {
                let previous = window[..index].chars().last();
                let next = window[index + 1..].chars().next();
                let comparison =
                    matches!(previous, Some('=' | '<' | '>' | '!')) || next == Some('=');
                if !comparison {
                    keyword_end = Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_callee_and_argument() {
        let context =
            enclosing_call("    i0, i1 = sch.split(i, factors=[None, ").expect("in a call");
        assert_eq!(context.callee, "sch.split");
        assert_eq!(context.argument, 1);
        let context = enclosing_call("T.axis.remap(\"SSR\", [i, j").expect("in a call");
        assert_eq!(context.callee, "T.axis.remap");
        assert_eq!(context.argument, 1);
        assert_eq!(enclosing_call("x = f(a)"), None);
    }

    #[test]
    fn keyword_arguments_are_named() {
        let context = enclosing_call("sch.split(i, factors=").expect("in a call");
        assert_eq!(context.keyword.as_deref(), Some("factors"));
    }

    #[test]
    fn strings_are_detected() {
        assert_eq!(
            open_string("sch.get_block(\"C"),
            Some(("sch.get_block(", "C"))
        );
        assert_eq!(open_string("x = \"a\" + "), None);
        assert_eq!(dotted_prefix("    T.axis.re"), "T.axis.re");
    }
}
