//! Syntax errors: their messages and positions, recovery after them, and the absence of cascades.

mod common;

use common::errors_of;
use tirc_grammar::ast::StmtKind;
use tirc_grammar::parse_file;

/// Asserts that `source` gives exactly `expected` errors (`line:column: message`).
fn check(source: &str, expected: &[&str]) {
    assert_eq!(errors_of(source), expected, "errors for {source:?}");
}

#[test]
fn missing_colon_is_one_error() {
    check(
        "for x in y\n    pass\n",
        &["1:11: expected ':', found newline"],
    );
    check(
        "if x\n    a\nelse:\n    b\n",
        &["1:5: expected ':', found newline"],
    );
    check(
        "def f()\n    return 1\n",
        &["1:8: expected ':' or '->', found newline"],
    );
    check(
        "class A\n  pass\n",
        &["1:8: expected ':' or '(', found newline"],
    );
    check(
        "while x\n    pass\nprint(1)\n",
        &["1:8: expected ':', found newline"],
    );
}

#[test]
fn missing_expression() {
    check("x = (1 + )\n", &["1:10: expected an expression, found ')'"]);
    check("x =\n", &["1:4: expected an expression, found newline"]);
    check(
        "def f():\n    x = \n    y = 1\n",
        &["2:9: expected an expression, found newline"],
    );
    check("a.\n", &["1:3: expected a name, found newline"]);
    // Python allows `not` only first or after `and`/`or`.
    check(
        "x = a == not b\n",
        &["1:10: expected an expression, found 'not'"],
    );
    check("y = 1 +* 2\n", &["1:8: expected an expression, found '*'"]);
    check(
        "y = -not b\n",
        &["1:6: expected an expression, found 'not'"],
    );
    check(
        "y = a is not not b\n",
        &["1:14: expected an expression, found 'not'"],
    );
}

#[test]
fn indentation_errors() {
    check("x = 1\n    y = 2\nz = 3\n", &["2:1: unexpected indent"]);
    check("  x = 1\ny = 2\n", &["1:1: unexpected indent"]);
    check(
        "for x in y:\nz = 1\n",
        &["2:1: expected an indented block after 'for'"],
    );
    check(
        "for x in y:\n",
        &["2:1: expected an indented block after 'for'"],
    );
    check(
        "def f():\n",
        &["2:1: expected an indented block after 'def'"],
    );
    check(
        "if x:\n    a\n  b\n",
        &["3:1: unindent does not match any outer indentation level"],
    );
    check(
        "if x:\n\tpass\n",
        &["2:1: tab character in indentation; indent with spaces"],
    );
}

#[test]
fn bracket_errors() {
    check("x = f(1,\n  2\n", &["1:6: unclosed '('"]);
    check("x = f(1))\n", &["1:9: unmatched ')'"]);
    check("(\n", &["1:1: unclosed '('"]);
    // The closer matches an outer bracket: the inner one is taken as forgotten, one error in all.
    check(
        "x = [1, (2]\ny = 1\n",
        &["1:11: closing ']' does not match opening '('"],
    );
    check(
        "x = (1]\ny = 1\n",
        &["1:7: closing ']' does not match opening '('"],
    );
}

#[test]
fn unexpected_tokens_name_what_was_found() {
    check("x = 1 2\n", &["1:7: expected newline, found number 2"]);
    check(
        "def f(x y):\n    pass\n",
        &["1:9: expected ',' or ')', found name 'y'"],
    );
    check("f(a b, c)\n", &["1:5: expected ',' or ')', found name 'b'"]);
    check(
        "x = [1, 2 3]\n",
        &["1:11: expected ',' or ']', found number 3"],
    );
    check(
        "def f(*args):\n    pass\n",
        &["1:7: expected a name or ')', found '*'"],
    );
    check(
        "x = f(a, b=1, c)\n",
        &["1:15: positional argument follows keyword argument"],
    );
    check(
        "else:\n  pass\n",
        &["1:1: expected a statement, found 'else'"],
    );
    check(
        "@dec\nx = 1\n",
        &["2:1: expected 'def', 'class' or '@', found name 'x'"],
    );
}

#[test]
fn lexical_errors_are_reported_once() {
    check("x = $\ny = 1\n", &["1:5: invalid character '$'"]);
    check("x = \"abc\ny = 1\n", &["1:5: unterminated string literal"]);
    check(
        "x = '''abc\n",
        &["1:5: unterminated triple-quoted string literal"],
    );
    check(
        "x = 340282366920938463463374607431768211456\n",
        &["1:5: integer literal is too large (it must fit in 128 bits)"],
    );
    check("x = 12abc\n", &["1:5: invalid number literal '12abc'"]);
    check(
        "x = 1 \\ 2\n",
        &["1:7: unexpected character after line continuation character '\\'"],
    );
    check(
        "x = '\\xZZ'\n",
        &["1:6: invalid \\x escape: expected 2 hex digits"],
    );
}

#[test]
fn errors_in_one_argument_keep_the_call() {
    let source = "T.reads(A[vi, +], B)\n";
    let parsed = parse_file(source);
    assert_eq!(
        errors_of(source),
        vec!["1:16: expected an expression, found ']'"]
    );
    assert!(
        matches!(parsed.file.body[0].kind, StmtKind::Expr(_)),
        "{:?}",
        parsed.file.body[0]
    );
}

#[test]
fn three_independent_mistakes_give_three_errors_and_a_tree() {
    let source = "\
def f(x):
    y = (x + )
    for i in range(4)
        z = i
    return y

w = 1 2
ok = 3
";
    check(
        source,
        &[
            "2:14: expected an expression, found ')'",
            "3:22: expected ':', found newline",
            "7:7: expected newline, found number 2",
        ],
    );
    let parsed = parse_file(source);
    assert_eq!(parsed.file.body.len(), 3);
    let StmtKind::FunctionDef(function) = &parsed.file.body[0].kind else {
        panic!("the def is kept")
    };
    assert_eq!(function.body.len(), 3);
    assert!(matches!(function.body[2].kind, StmtKind::Return(Some(_))));
    assert!(matches!(parsed.file.body[1].kind, StmtKind::Error));
    assert!(matches!(parsed.file.body[2].kind, StmtKind::Assign { .. }));
}

#[test]
fn errors_come_out_sorted_by_position() {
    let source = "x = (\ny = $\n";
    let errors = parse_file(source).errors;
    let starts: Vec<u32> = errors.iter().map(|error| error.span.start).collect();
    let mut sorted = starts.clone();
    sorted.sort();
    assert_eq!(starts, sorted);
    assert_eq!(
        errors_of(source),
        vec!["1:5: unclosed '('", "2:5: invalid character '$'"]
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let source = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
    let errors = errors_of(&source);
    assert_eq!(
        errors,
        vec!["1:205: too many nested brackets (more than 200)"]
    );
    let long_chain = format!("x = {}1\n", "-".repeat(100_000));
    assert_eq!(
        errors_of(&long_chain),
        vec!["1:1005: expression is nested too deeply"]
    );
    let long_sum = format!("x = 1{}\ny = 2\n", " + 1".repeat(100_000));
    let parsed = parse_file(&long_sum);
    assert_eq!(parsed.errors.len(), 1);
    assert!(
        parsed.errors[0]
            .message
            .contains("more than 10000 operators in a row"),
        "{:?}",
        parsed.errors[0]
    );
    assert_eq!(parsed.file.body.len(), 2);
    let wide_list = format!("x = [{}]\n", "-1, ".repeat(100_000));
    assert!(
        parse_file(&wide_list).errors.is_empty(),
        "a long flat list is fine"
    );
}

/// Python writes `a + b + c` flat: a chain of thousands of terms (of
/// subscripts, calls and attributes) is no nesting (issue 25.9).
#[test]
fn long_flat_chains_are_not_nesting() {
    let terms: Vec<String> = (0..5000)
        .map(|i| format!("A[{i}] * T.float32({i})"))
        .collect();
    let sum = format!("x = {}\n", terms.join(" + "));
    // The left-deep tree is dropped on a thread with room for it.
    let errors = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || errors_of(&sum))
        .expect("a thread")
        .join()
        .expect("no panic");
    assert!(errors.is_empty(), "{errors:?}");
    let chained_calls = format!("x = f{}\n", "(1)".repeat(20_000));
    assert!(errors_of(&chained_calls)[0].contains("more than 10000 operators in a row"));
}

#[test]
fn deep_indentation_is_an_error_not_a_crash() {
    let mut source = String::new();
    for level in 0..150 {
        source.push_str(&" ".repeat(level));
        source.push_str("if x:\n");
    }
    source.push_str(&" ".repeat(150));
    source.push_str("pass\n");
    let errors = errors_of(&source);
    assert!(
        errors
            .iter()
            .any(|error| error.ends_with("too many levels of indentation")),
        "{errors:?}"
    );
}

#[test]
fn broken_statement_in_a_block_is_reported_once_at_its_token() {
    for source in [
        "for i in range(4):\n    A[i] = A[i] + * 2.0\n    A[i] = 1.0\n",
        "for i in range(4):\n    A[i] = 0.0\n    A[i] = A[i] + * 2.0\nB = 1\n",
        "with T.init():\n    C[vi] = = 0.0\n",
    ] {
        let parsed = tirc_grammar::parse_file(source);
        assert_eq!(parsed.errors.len(), 1, "{source:?}: {:?}", parsed.errors);
        let error = &parsed.errors[0];
        assert!(
            error.message.starts_with("expected an expression, found"),
            "{source:?}: {}",
            error.message
        );
    }
}

#[test]
fn empty_body_still_asks_for_an_indented_block() {
    let parsed = tirc_grammar::parse_file("for i in range(4):\nx = 1\n");
    assert_eq!(parsed.errors.len(), 1, "{:?}", parsed.errors);
    assert_eq!(
        parsed.errors[0].message,
        "expected an indented block after 'for'"
    );
}
