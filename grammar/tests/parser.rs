//! The parser's trees and spans for every statement and expression form, and for real TVMScript modules.

mod common;

use common::{parse_expr, parse_ok};
use tirc_grammar::ast::{ExprKind, StmtKind};
use tirc_grammar::parse_file;

#[test]
fn simple_statements() {
    let cases = [
        ("a = 1\n", "(= a 1)"),
        ("a, b = f()\n", "(= (tuple a b) (call f))"),
        ("(a, b) = c, d\n", "(= (tuple a b) (tuple c d))"),
        ("[a, b] = c\n", "(= (list a b) c)"),
        ("A[i, j] = 0.0\n", "(= (sub A i j) 0.0)"),
        ("x.y = None\n", "(= (. x y) None)"),
        ("x: T.int32 = 5\n", "(: x (. T int32) 5)"),
        ("x: T.int32\n", "(: x (. T int32))"),
        ("C[i] += A[i] * 2\n", "(+= (sub C i) (* (sub A i) 2))"),
        ("x //= 2\n", "(//= x 2)"),
        ("x **= 2\n", "(**= x 2)"),
        ("x >>= 1\n", "(>>= x 1)"),
        ("x <<= 1\n", "(<<= x 1)"),
        ("x @= y\n", "(@= x y)"),
        ("x &= y\n", "(&= x y)"),
        ("x |= y\n", "(|= x y)"),
        ("x ^= y\n", "(^= x y)"),
        ("x %= y\n", "(%= x y)"),
        ("x -= y\n", "(-= x y)"),
        ("x /= y\n", "(/= x y)"),
        ("x *= y\n", "(*= x y)"),
        ("T.reads(A[vi, vk])\n", "(call (. T reads) (sub A vi vk))"),
        ("return\n", "(return)"),
        ("return a, b\n", "(return (tuple a b))"),
        ("pass\n", "pass"),
        (
            "assert x > 0, \"positive\"\n",
            "(assert (cmp x > 0) \"positive\")",
        ),
        ("assert x\n", "(assert x)"),
        ("import tvm\n", "(import tvm)"),
        (
            "import tvm.script.tir as T, numpy\n",
            "(import tvm.script.tir as T, numpy)",
        ),
        (
            "from tvm.script import tir as T, ir\n",
            "(from tvm.script import tir as T, ir)",
        ),
        ("from a import (b, c as d,)\n", "(from a import b, c as d)"),
        ("from a import *\n", "(from a import *)"),
        ("x = 1,\n", "(= x (tuple 1))"),
    ];
    for (source, expected) in cases {
        assert_eq!(
            parse_ok(source),
            vec![expected.to_string()],
            "for {source:?}"
        );
    }
}

#[test]
fn semicolons_separate_simple_statements() {
    assert_eq!(
        parse_ok("a = 1; b = 2; pass;\n"),
        vec!["(= a 1)", "(= b 2)", "pass"]
    );
}

#[test]
fn compound_statements() {
    let cases = [
        (
            "for i in range(4):\n    pass\n",
            "(for i (call range 4) {pass})",
        ),
        (
            "for a, b in T.grid(2, 3):\n    f(a)\n",
            "(for (tuple a b) (call (. T grid) 2 3) {(call f a)})",
        ),
        ("for (a, b) in c:\n    pass\n", "(for (tuple a b) c {pass})"),
        (
            "while x < 4:\n    x += 1\n",
            "(while (cmp x < 4) {(+= x 1)})",
        ),
        ("if x: pass\n", "(if x {pass} {})"),
        ("if x:\n    a\nelse:\n    b\n", "(if x {a} {b})"),
        (
            "if x:\n    a\nelif y:\n    b\nelif z:\n    c\nelse:\n    d\n",
            "(if x {a} {(if y {b} {(if z {c} {d})})})",
        ),
        (
            "with T.block(\"C\") as b, T.init():\n    pass\n",
            "(with (call (. T block) \"C\") as b, (call (. T init)) {pass})",
        ),
        ("with a:\n    x = 1; y = 2\n", "(with a {(= x 1); (= y 2)})"),
        ("def f(): return 1\n", "(def f () {(return 1)})"),
        (
            "class A(B, C):\n    x = 1\n",
            "(class A (bases B C) {(= x 1)})",
        ),
        (
            "@I.ir_module\nclass Module:\n    pass\n",
            "(class @(. I ir_module) Module (bases) {pass})",
        ),
    ];
    for (source, expected) in cases {
        assert_eq!(
            parse_ok(source),
            vec![expected.to_string()],
            "for {source:?}"
        );
    }
    assert_eq!(
        parse_ok("@T.prim_func(s_tir=True)\n@other\ndef main(A: T.Buffer((2,), \"float32\"), n=4, m: int = 2) -> None:\n    pass\n"),
        vec!["(def @(call (. T prim_func) s_tir=True) @other main (A:(call (. T Buffer) (tuple 2) \"float32\") n=4 m:int=2) -> None {pass})"]
    );
}

#[test]
fn nested_blocks_close_at_the_right_level() {
    let source = "def f():\n    for i in a:\n        if i:\n            x = 1\n    y = 2\nz = 3\n";
    assert_eq!(
        parse_ok(source),
        vec![
            "(def f () {(for i a {(if i {(= x 1)} {})}); (= y 2)})",
            "(= z 3)"
        ]
    );
}

#[test]
fn expression_atoms() {
    let cases = [
        ("x\n", "x"),
        ("42\n", "42"),
        ("0x1F\n", "31"),
        ("1.5\n", "1.5"),
        ("'a' \"b\" '''c'''\n", "\"abc\""),
        ("True\n", "True"),
        ("False\n", "False"),
        ("None\n", "None"),
        ("()\n", "(tuple)"),
        ("(a,)\n", "(tuple a)"),
        ("(a, b,)\n", "(tuple a b)"),
        ("((a))\n", "a"),
        ("[]\n", "(list)"),
        ("[1, 2,]\n", "(list 1 2)"),
        ("{}\n", "(dict)"),
        ("{\"a\": 1, b: c,}\n", "(dict \"a\":1 b:c)"),
        ("lambda: 0\n", "(lambda () 0)"),
        ("lambda x, y: x + y\n", "(lambda (x y) (+ x y))"),
        ("f(*args, key=1,)\n", "(call f (* args) key=1)"),
        ("f(a)(b)[c].d\n", "(. (sub (call (call f a) b) c) d)"),
        ("A[0:128, vj]\n", "(sub A (slice 0 128 _) vj)"),
        ("A[::2]\n", "(sub A (slice _ _ 2))"),
        ("A[:]\n", "(sub A (slice _ _ _))"),
        ("A[i, 0:n:1]\n", "(sub A i (slice 0 n 1))"),
        ("A[1:]\n", "(sub A (slice 1 _ _))"),
        ("A[(1, 2)]\n", "(sub A (tuple 1 2))"),
        ("A[i,]\n", "(sub A i)"),
        ("x if c else y\n", "(if c x y)"),
        ("*a, b = c\n", "(= (tuple (* a) b) c)"),
    ];
    for (source, expected) in cases {
        let result = if source.starts_with("*a") {
            parse_ok(source)[0].clone()
        } else {
            parse_expr(source)
        };
        assert_eq!(result, expected, "for {source:?}");
    }
}

#[test]
fn precedence_table() {
    let cases = [
        ("a or b and c\n", "(or a (and b c))"),
        ("a and b or c\n", "(or (and a b) c)"),
        ("a or b or c\n", "(or (or a b) c)"),
        ("not a and b\n", "(and (not a) b)"),
        ("not a == b\n", "(not (cmp a == b))"),
        ("a < b <= c != d\n", "(cmp a < b <= c != d)"),
        ("a in b\n", "(cmp a in b)"),
        ("a not in b\n", "(cmp a not in b)"),
        ("a is b\n", "(cmp a is b)"),
        ("a is not None\n", "(cmp a is not None)"),
        ("a == b | c\n", "(cmp a == (| b c))"),
        ("a | b ^ c\n", "(| a (^ b c))"),
        ("a ^ b & c\n", "(^ a (& b c))"),
        ("a & b << c\n", "(& a (<< b c))"),
        ("a >> b + c\n", "(>> a (+ b c))"),
        ("a + b * c\n", "(+ a (* b c))"),
        ("a - b - c\n", "(- (- a b) c)"),
        (
            "a * b / c // d % e @ f\n",
            "(@ (% (// (/ (* a b) c) d) e) f)",
        ),
        ("-a * b\n", "(* (neg a) b)"),
        ("-2 ** 2\n", "(neg (** 2 2))"),
        ("2 ** -1\n", "(** 2 (neg 1))"),
        ("a ** b ** c\n", "(** a (** b c))"),
        ("~a + +b\n", "(+ (~ a) (pos b))"),
        ("-x.y[0]\n", "(neg (sub (. x y) 0))"),
        ("(a + b) * c\n", "(* (+ a b) c)"),
        ("a if b else c if d else e\n", "(if b a (if d c e))"),
        ("a or b if c else d\n", "(if c (or a b) d)"),
        ("lambda x: a if x else b\n", "(lambda (x) (if x a b))"),
        ("i_0 * 30 + i_1 < 128\n", "(cmp (+ (* i_0 30) i_1) < 128)"),
        ("a and not b or c\n", "(or (and a (not b)) c)"),
        ("not not a\n", "(not (not a))"),
        ("not a < b == c and d\n", "(and (not (cmp a < b == c)) d)"),
        ("a < (b < c)\n", "(cmp a < (cmp b < c))"),
        ("a | b < c & d\n", "(cmp (| a b) < (& c d))"),
        ("a + b - c * d // e\n", "(- (+ a b) (// (* c d) e))"),
        ("a << b + c >> d\n", "(>> (<< a (+ b c)) d)"),
        ("a is (not b)\n", "(cmp a is (not b))"),
        ("-a ** -b ** c\n", "(neg (** a (neg (** b c))))"),
        ("~-+a\n", "(~ (neg (pos a)))"),
        ("a**b*c\n", "(* (** a b) c)"),
        ("not -a < b\n", "(not (cmp (neg a) < b))"),
    ];
    for (source, expected) in cases {
        assert_eq!(parse_expr(source), expected, "for {source:?}");
    }
}

#[test]
fn expression_spans_exclude_parentheses_but_tuples_keep_theirs() {
    let source = "x = (a + b) * (c)\n";
    let parsed = parse_file(source);
    let StmtKind::Assign { value, .. } = &parsed.file.body[0].kind else {
        panic!("not an assignment")
    };
    assert_eq!(&source[value.span.range()], "(a + b) * (c)");
    let ExprKind::BinOp { lhs, rhs, .. } = &value.kind else {
        panic!("not a binary operation")
    };
    assert_eq!(&source[lhs.span.range()], "a + b");
    assert_eq!(&source[rhs.span.range()], "c");

    let source = "y = (1, 2)\n";
    let parsed = parse_file(source);
    let StmtKind::Assign { value, .. } = &parsed.file.body[0].kind else {
        panic!("not an assignment")
    };
    assert_eq!(&source[value.span.range()], "(1, 2)");
}

#[test]
fn operator_spans_include_parenthesised_operands() {
    let source = "(a) + (b) < (c)\n";
    let parsed = parse_file(source);
    let StmtKind::Expr(compare) = &parsed.file.body[0].kind else {
        panic!("not an expression")
    };
    assert_eq!(&source[compare.span.range()], "(a) + (b) < (c)");
    let ExprKind::Compare { left, rest } = &compare.kind else {
        panic!("not a comparison")
    };
    assert_eq!(&source[left.span.range()], "(a) + (b)");
    assert_eq!(&source[rest[0].1.span.range()], "c");
    let source = "not (x) and y\n";
    let parsed = parse_file(source);
    let StmtKind::Expr(and) = &parsed.file.body[0].kind else {
        panic!("not an expression")
    };
    let ExprKind::BoolOp { lhs, .. } = &and.kind else {
        panic!("not a bool op")
    };
    assert_eq!(&source[lhs.span.range()], "not (x)");
    assert_eq!(&source[and.span.range()], "not (x) and y");
}

#[test]
fn statement_spans() {
    let source = "@dec\ndef f(a: int = 1) -> int:\n    return a  # done\n\nx: T.int32 = 5\nfor i in r:\n    pass\n";
    let parsed = parse_file(source);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let text = |span: tirc_grammar::Span| &source[span.range()];
    let body = &parsed.file.body;
    assert_eq!(
        text(body[0].span),
        "@dec\ndef f(a: int = 1) -> int:\n    return a"
    );
    let StmtKind::FunctionDef(function) = &body[0].kind else {
        panic!("not a def")
    };
    assert_eq!(text(function.name.span), "f");
    assert_eq!(text(function.params[0].span), "a: int = 1");
    assert_eq!(text(function.params[0].name.span), "a");
    assert_eq!(text(function.body[0].span), "return a");
    assert_eq!(text(body[1].span), "x: T.int32 = 5");
    assert_eq!(text(body[2].span), "for i in r:\n    pass");
}

#[test]
fn call_and_attribute_spans() {
    let source = "T.axis.remap(\"SR\", [j, k], name=x)\n";
    let parsed = parse_file(source);
    let StmtKind::Expr(call) = &parsed.file.body[0].kind else {
        panic!("not an expression")
    };
    assert_eq!(
        &source[call.span.range()],
        "T.axis.remap(\"SR\", [j, k], name=x)"
    );
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &call.kind
    else {
        panic!("not a call")
    };
    assert_eq!(func.dotted_name().as_deref(), Some("T.axis.remap"));
    assert_eq!(&source[func.span.range()], "T.axis.remap");
    assert_eq!(&source[args[0].span.range()], "\"SR\"");
    assert_eq!(&source[args[1].span.range()], "[j, k]");
    assert_eq!(&source[keywords[0].name.span.range()], "name");
    assert_eq!(&source[keywords[0].value.span.range()], "x");
}

#[test]
fn slice_spans_cover_their_bounds() {
    let source = "A[0:128, :]\n";
    let parsed = parse_file(source);
    let StmtKind::Expr(subscript) = &parsed.file.body[0].kind else {
        panic!("not an expression")
    };
    let ExprKind::Subscript { indices, .. } = &subscript.kind else {
        panic!("not a subscript")
    };
    assert_eq!(&source[indices[0].span.range()], "0:128");
    assert_eq!(&source[indices[1].span.range()], ":");
}

#[test]
fn comments_are_collected_with_their_position() {
    let source = "# header\nx = 1  # trailing\n    # indented own line\ny = (1,  # inside brackets\n     2)\n";
    let parsed = parse_file(source);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let comments: Vec<(&str, bool)> = parsed
        .file
        .comments
        .iter()
        .map(|comment| (comment.text.as_str(), comment.own_line))
        .collect();
    assert_eq!(
        comments,
        vec![
            (" header", true),
            (" trailing", false),
            (" indented own line", true),
            (" inside brackets", false)
        ]
    );
    assert_eq!(&source[parsed.file.comments[1].span.range()], "# trailing");
    assert_eq!(parsed.file.body.len(), 2);
}

#[test]
fn string_escapes_are_resolved() {
    let cases = [
        (r#"'a\nb'"#, "a\nb"),
        (r#""tab\there""#, "tab\there"),
        (r#"'back\\slash'"#, "back\\slash"),
        (r#"'it\'s'"#, "it's"),
        (r#""say \"hi\"""#, "say \"hi\""),
        (r#"'\x41\u00e9'"#, "Aé"),
        (r#"'\d'"#, "\\d"),
        (r#"r'\d\n'"#, "\\d\\n"),
        (r#"R"raw\"quote""#, "raw\\\"quote"),
        ("\"\"\"doc\nstring\"\"\"", "doc\nstring"),
    ];
    for (literal, expected) in cases {
        let source = format!("{literal}\n");
        let parsed = parse_file(&source);
        assert!(parsed.errors.is_empty(), "{source:?}: {:?}", parsed.errors);
        let StmtKind::Expr(value) = &parsed.file.body[0].kind else {
            panic!("not an expression")
        };
        assert_eq!(
            value.kind,
            ExprKind::Str(expected.to_string()),
            "for {literal}"
        );
    }
}

#[test]
fn empty_and_trivial_files() {
    for source in [
        "",
        "\n\n",
        "   \n\t\n",
        "# only a comment",
        "# one\n# two\n",
    ] {
        let parsed = parse_file(source);
        assert!(parsed.errors.is_empty(), "{source:?}: {:?}", parsed.errors);
        assert!(parsed.file.body.is_empty(), "{source:?}");
    }
    assert_eq!(parse_file("# one\n# two\n").file.comments.len(), 2);
}

#[test]
fn file_without_final_newline_and_with_crlf() {
    assert_eq!(parse_ok("x = 1"), vec!["(= x 1)"]);
    assert_eq!(parse_ok("if x:\n    y"), vec!["(if x {y} {})"]);
    assert_eq!(
        parse_ok("if x:\r\n    y = 1\r\nz = 2\r\n"),
        vec!["(if x {(= y 1)} {})", "(= z 2)"]
    );
}

/// The matmul module of DESIGN.md, with its schedule.
const DESIGN_MATMUL: &str = r#"# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"),
             B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

def schedule(sch: T.Schedule):
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    i0, i1 = sch.split(i, factors=[None, 32])
    sch.reorder(i0, k, i1, j)
    sch.vectorize(j)
    sch.parallel(i0)
"#;

/// What TVM 0.27 prints for a scheduled matmul, followed by `print(sch.trace)` (2-space indented).
const TVM_027_OUTPUT: &str = r#"# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tir.noalias": True})
        # with T.sblock("root"):
        for i_0 in T.parallel(5):
            for k, i_1 in T.grid(128, 30):
                for j in T.vectorized(128):
                    with T.sblock("C"):
                        vi = T.axis.spatial(128, i_0 * 30 + i_1)
                        vj, vk = T.axis.remap("SR", [j, k])
                        T.where(i_0 * 30 + i_1 < 128)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0.0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 30], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l4, l3, l5, l2)
"#;

#[test]
fn design_matmul_module_parses_with_the_right_shape() {
    let parsed = parse_file(DESIGN_MATMUL);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let body = &parsed.file.body;
    assert_eq!(body.len(), 2);
    let StmtKind::ClassDef(module) = &body[0].kind else {
        panic!("not a class")
    };
    assert_eq!(module.name.name, "Module");
    assert_eq!(
        module.decorators[0].dotted_name().as_deref(),
        Some("I.ir_module")
    );
    let StmtKind::FunctionDef(main) = &module.body[0].kind else {
        panic!("not a def")
    };
    assert_eq!(main.name.name, "main");
    assert_eq!(main.params.len(), 3);
    assert_eq!(main.body.len(), 2);
    let StmtKind::For {
        target,
        body: loop_body,
        ..
    } = &main.body[1].kind
    else {
        panic!("not a for")
    };
    assert_eq!(common::expr_sexpr(target), "(tuple i j k)");
    let StmtKind::With {
        body: block_body, ..
    } = &loop_body[0].kind
    else {
        panic!("not a with")
    };
    assert_eq!(block_body.len(), 5);
    assert_eq!(
        common::stmt_sexpr(&block_body[4]),
        "(= (sub C vi vj) (+ (sub C vi vj) (* (sub A vi vk) (sub B vk vj))))"
    );
    let StmtKind::FunctionDef(schedule) = &body[1].kind else {
        panic!("not a def")
    };
    assert_eq!(schedule.name.name, "schedule");
    assert_eq!(schedule.body.len(), 6);
    assert_eq!(
        common::stmt_sexpr(&schedule.body[2]),
        "(= (tuple i0 i1) (call (. sch split) i factors=(list None 32)))"
    );
    assert_eq!(parsed.file.comments.len(), 2);
}

#[test]
fn tvm_027_output_with_mixed_indentation_parses() {
    let parsed = parse_file(TVM_027_OUTPUT);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let body = &parsed.file.body;
    assert_eq!(body.len(), 2);
    let StmtKind::ClassDef(module) = &body[0].kind else {
        panic!("not a class")
    };
    let StmtKind::FunctionDef(main) = &module.body[0].kind else {
        panic!("not a def")
    };
    assert_eq!(
        common::expr_sexpr(&main.decorators[0]),
        "(call (. T prim_func) s_tir=True)"
    );
    // Descend for i_0 / for k, i_1 / for j / with T.sblock to the block body.
    let mut statements = &main.body;
    for _ in 0..3 {
        let StmtKind::For { body, .. } = &statements.last().expect("a loop").kind else {
            panic!("not a for")
        };
        statements = body;
    }
    let StmtKind::With {
        body: block_body, ..
    } = &statements[0].kind
    else {
        panic!("not a with")
    };
    assert_eq!(block_body.len(), 7);
    assert_eq!(
        common::stmt_sexpr(&block_body[2]),
        "(call (. T where) (cmp (+ (* i_0 30) i_1) < 128))"
    );
    let StmtKind::FunctionDef(trace) = &body[1].kind else {
        panic!("not a def")
    };
    assert_eq!(trace.name.name, "apply_trace");
    assert_eq!(
        trace.returns.as_ref().map(common::expr_sexpr).as_deref(),
        Some("None")
    );
    assert_eq!(trace.body.len(), 4);
    assert_eq!(
        common::stmt_sexpr(&trace.body[2]),
        "(= (tuple l4 l5) (call (. sch split) loop=l1 factors=(list None 30) preserve_unit_iters=True disable_predication=False))"
    );
    let comment_lines: Vec<bool> = parsed
        .file
        .comments
        .iter()
        .map(|comment| comment.own_line)
        .collect();
    assert_eq!(comment_lines, vec![true, true, true, true]);
}

#[test]
fn older_tvmscript_spellings_parse() {
    let source = "@tvm.script.ir_module\nclass M:\n    @tvm.tir.prim_func\n    def f(a: T.handle):\n        A = T.match_buffer(a, [16], dtype=\"float32\")\n        B: T.Buffer[(128, 128), \"float32\"]\n        T.evaluate(0)\n";
    let statements = parse_ok(source);
    assert_eq!(statements.len(), 1);
    assert!(
        statements[0].contains("(: B (sub (. T Buffer) (tuple 128 128) \"float32\"))"),
        "{}",
        statements[0]
    );
}
