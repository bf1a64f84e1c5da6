//! Parity with TVM's simplifier on a committed corpus: random index
//! expressions and schedule-shaped indices, simplified by TVM 0.27 (see
//! `testdata/README.md` for how the corpus is generated).
//!
//! Each line of `testdata/tvm_simplify.txt` holds variable ranges, the
//! expression as an s-expression, and TVM's printed result. Cases where tirc
//! prints something else are listed in `testdata/tvm_simplify_differences.txt`
//! with tirc's output; the test fails when a listed difference changes or a
//! new one appears. `TIRC_BLESS=1` rewrites the list.

use super::Analyzer;
use crate::ir::operators;
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Range, Var};
use crate::source::Span;
use std::collections::HashMap;

const CORPUS: &str = include_str!("testdata/tvm_simplify.txt");
const DIFFERENCES_PATH: &str = "src/arith/testdata/tvm_simplify_differences.txt";

/// A parsed s-expression: an atom or a list.
enum Sexpr {
    Atom(String),
    List(Vec<Sexpr>),
}

fn parse_sexpr(tokens: &mut std::iter::Peekable<std::vec::IntoIter<String>>) -> Option<Sexpr> {
    let token = tokens.next()?;
    if token == "(" {
        let mut items = Vec::new();
        while tokens.peek().map(String::as_str) != Some(")") {
            items.push(parse_sexpr(tokens)?);
        }
        tokens.next();
        Some(Sexpr::List(items))
    } else {
        Some(Sexpr::Atom(token))
    }
}

fn tokenize(text: &str) -> Vec<String> {
    text.replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Builds the expression the way TVM's Python operators do: arithmetic and
/// comparisons fold constants, `and`/`or`/`select` are plain nodes.
fn build(sexpr: &Sexpr, vars: &HashMap<String, Var>) -> Option<Expr> {
    match sexpr {
        Sexpr::Atom(name) => match vars.get(name) {
            Some(var) => Some(var.to_expr()),
            None => Some(Expr::i32(name.parse().ok()?)),
        },
        Sexpr::List(items) => {
            let Sexpr::Atom(head) = items.first()? else {
                return None;
            };
            let args: Vec<Expr> = items[1..]
                .iter()
                .map(|s| build(s, vars))
                .collect::<Option<_>>()?;
            let fold = |op: BinaryOp| operators::binary(op, args[0].clone(), args[1].clone()).ok();
            match head.as_str() {
                "add" => fold(BinaryOp::Add),
                "sub" => fold(BinaryOp::Sub),
                "mul" => fold(BinaryOp::Mul),
                "floordiv" => fold(BinaryOp::FloorDiv),
                "floormod" => fold(BinaryOp::FloorMod),
                "truncdiv" => fold(BinaryOp::Div),
                "truncmod" => fold(BinaryOp::Mod),
                "min" => fold(BinaryOp::Min),
                "max" => fold(BinaryOp::Max),
                "lt" => fold(BinaryOp::Lt),
                "le" => fold(BinaryOp::Le),
                "gt" => fold(BinaryOp::Gt),
                "ge" => fold(BinaryOp::Ge),
                "eq" => fold(BinaryOp::Eq),
                "ne" => fold(BinaryOp::Ne),
                "and" => Some(Expr::binary(
                    BinaryOp::And,
                    args[0].clone(),
                    args[1].clone(),
                )),
                "or" => Some(Expr::binary(BinaryOp::Or, args[0].clone(), args[1].clone())),
                "not" => Some(match args[0].as_int() {
                    Some(v) => Expr::bool(v == 0),
                    None => Expr::new(ExprKind::Not(args[0].clone()), DataType::bool(), Span::NONE),
                }),
                "select" => {
                    let dtype = args[1].dtype();
                    Some(Expr::new(
                        ExprKind::Select(args[0].clone(), args[1].clone(), args[2].clone()),
                        dtype,
                        Span::NONE,
                    ))
                }
                _ => None,
            }
        }
    }
}

/// tirc's output for one corpus line, and TVM's.
fn run_case(line: &str) -> Option<(String, String, String)> {
    let mut fields = line.split('\t');
    let (ranges, source, expected) = (fields.next()?, fields.next()?, fields.next()?);
    let vars: HashMap<String, Var> = ["x0", "x1", "x2"]
        .iter()
        .map(|n| (n.to_string(), Var::new(*n, DataType::int32(), Span::NONE)))
        .collect();
    let mut analyzer = Analyzer::new();
    for range in ranges.split_whitespace().filter(|r| *r != "-") {
        let mut parts = range.split(':');
        let var = vars.get(parts.next()?)?;
        let min: i64 = parts.next()?.parse().ok()?;
        let extent: i64 = parts.next()?.parse().ok()?;
        analyzer.bind(var, &Range::new(Expr::i32(min), Expr::i32(extent)));
    }
    let expr = build(
        &parse_sexpr(&mut tokenize(source).into_iter().peekable())?,
        &vars,
    )?;
    Some((
        source.to_string(),
        expected.to_string(),
        analyzer.simplify(&expr).to_string(),
    ))
}

#[test]
fn simplifier_matches_tvm_on_the_corpus() {
    let mut differences = String::new();
    let mut cases = 0;
    for line in CORPUS.lines().filter(|l| !l.trim().is_empty()) {
        let Some((source, expected, actual)) = run_case(line) else {
            panic!("unreadable corpus line: {line}");
        };
        cases += 1;
        if actual != expected {
            differences.push_str(&format!("{source}\n  tvm:  {expected}\n  tirc: {actual}\n"));
        }
    }
    assert!(cases > 500, "the corpus has only {cases} cases");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DIFFERENCES_PATH);
    if std::env::var_os("TIRC_BLESS").is_some() {
        std::fs::write(&path, &differences).expect("writing the differences file");
        return;
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    if recorded != differences {
        let diff = similar::TextDiff::from_lines(&recorded, &differences);
        panic!(
            "differences from TVM changed (rerun with TIRC_BLESS=1 to accept):\n{}",
            diff.unified_diff().context_radius(2)
        );
    }
}
