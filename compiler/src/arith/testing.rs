//! Test support: an exact evaluator for integer expressions with TVM's
//! division semantics, and random expression generation for property tests.

use crate::ir::identity::VarMap;
use crate::ir::operators;
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Var};
use crate::source::Span;
use proptest::prelude::*;

/// The value of an integer or bool expression (bools as 0/1), or `None` for
/// division by zero, overflow, or a node the evaluator does not know.
pub(crate) fn evaluate(expr: &Expr, env: &VarMap<i64>) -> Option<i64> {
    let value = match expr.kind() {
        ExprKind::Int(v) => *v,
        ExprKind::Var(v) => *env.get(v)?,
        ExprKind::Cast(value) => operators::wrap_int(evaluate(value, env)?, expr.dtype()),
        ExprKind::Not(value) => i64::from(evaluate(value, env)? == 0),
        ExprKind::Select(c, a, b) => {
            // Both arms are evaluated, as TVM's select does.
            let (a, b) = (evaluate(a, env)?, evaluate(b, env)?);
            if evaluate(c, env)? != 0 {
                a
            } else {
                b
            }
        }
        ExprKind::Call { op, args } if op.name() == "if_then_else" && args.len() == 3 => {
            if evaluate(&args[0], env)? != 0 {
                evaluate(&args[1], env)?
            } else {
                evaluate(&args[2], env)?
            }
        }
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (evaluate(a, env)?, evaluate(b, env)?);
            match op {
                BinaryOp::Add => x.checked_add(y)?,
                BinaryOp::Sub => x.checked_sub(y)?,
                BinaryOp::Mul => x.checked_mul(y)?,
                BinaryOp::Div => x.checked_div(y)?,
                BinaryOp::Mod => x.checked_rem(y)?,
                BinaryOp::FloorDiv => super::build::floor_div_i64(x, y)?,
                BinaryOp::FloorMod => super::build::floor_mod_i64(x, y)?,
                BinaryOp::Min => x.min(y),
                BinaryOp::Max => x.max(y),
                BinaryOp::Eq => i64::from(x == y),
                BinaryOp::Ne => i64::from(x != y),
                BinaryOp::Lt => i64::from(x < y),
                BinaryOp::Le => i64::from(x <= y),
                BinaryOp::Gt => i64::from(x > y),
                BinaryOp::Ge => i64::from(x >= y),
                BinaryOp::And => i64::from(x != 0 && y != 0),
                BinaryOp::Or => i64::from(x != 0 || y != 0),
            }
        }
        _ => return None,
    };
    // Values outside int32 mean the generated program overflowed: not a valid sample.
    (i64::from(i32::MIN)..=i64::from(i32::MAX))
        .contains(&value)
        .then_some(value)
}

/// A generated integer expression, independent of any variable identity.
#[derive(Clone, Debug)]
pub(crate) enum Tree {
    Var(usize),
    Const(i64),
    Binary(BinaryOp, Box<Tree>, Box<Tree>),
    Select(Box<Tree>, Box<Tree>, Box<Tree>),
}

/// A generated condition.
#[derive(Clone, Debug)]
pub(crate) enum Condition {
    Compare(BinaryOp, Tree, Tree),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
}

fn constant() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -8i64..=8,
        1 => prop::sample::select(vec![16i64, 32, 64, 128, -16, 24, 100]),
    ]
}

fn divisor() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => prop::sample::select(vec![2i64, 3, 4, 8, 16, 32, 5, 7]),
        1 => prop::sample::select(vec![-2i64, -3, -4]),
    ]
}

fn comparison() -> impl Strategy<Value = BinaryOp> {
    prop::sample::select(vec![
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
    ])
}

/// Integer expressions over `vars` variables, index-like in shape: sums,
/// products by constants, division and modulo by constants, min/max, select.
pub(crate) fn tree(vars: usize) -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        3 => (0..vars).prop_map(Tree::Var),
        2 => constant().prop_map(Tree::Const),
    ];
    leaf.prop_recursive(5, 24, 3, move |inner| {
        let binary = |op: BinaryOp, a: Tree, b: Tree| Tree::Binary(op, Box::new(a), Box::new(b));
        prop_oneof![
            4 => (inner.clone(), inner.clone()).prop_map(move |(a, b)| binary(BinaryOp::Add, a, b)),
            2 => (inner.clone(), inner.clone()).prop_map(move |(a, b)| binary(BinaryOp::Sub, a, b)),
            3 => (inner.clone(), constant()).prop_map(move |(a, c)| binary(BinaryOp::Mul, a, Tree::Const(c))),
            1 => (inner.clone(), inner.clone()).prop_map(move |(a, b)| binary(BinaryOp::Mul, a, b)),
            3 => (inner.clone(), divisor()).prop_map(move |(a, c)| binary(BinaryOp::FloorDiv, a, Tree::Const(c))),
            3 => (inner.clone(), divisor()).prop_map(move |(a, c)| binary(BinaryOp::FloorMod, a, Tree::Const(c))),
            1 => (inner.clone(), divisor()).prop_map(move |(a, c)| binary(BinaryOp::Div, a, Tree::Const(c))),
            1 => (inner.clone(), divisor()).prop_map(move |(a, c)| binary(BinaryOp::Mod, a, Tree::Const(c))),
            1 => (inner.clone(), inner.clone()).prop_map(move |(a, b)| binary(BinaryOp::Min, a, b)),
            1 => (inner.clone(), inner.clone()).prop_map(move |(a, b)| binary(BinaryOp::Max, a, b)),
            1 => (inner.clone(), inner.clone(), inner.clone(), comparison()).prop_map(
                move |(a, b, c, op)| Tree::Select(Box::new(binary(op, a, b)), Box::new(c.clone()), Box::new(c))
            ),
            1 => (inner.clone(), inner.clone(), inner.clone()).prop_map(
                move |(a, b, c)| Tree::Select(Box::new(binary(BinaryOp::Lt, a.clone(), b)), Box::new(a), Box::new(c))
            ),
        ]
    })
}

/// Conditions comparing generated expressions, combined with and/or/not.
pub(crate) fn condition(vars: usize) -> impl Strategy<Value = Condition> {
    let leaf =
        (comparison(), tree(vars), tree(vars)).prop_map(|(op, a, b)| Condition::Compare(op, a, b));
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Condition::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Condition::Or(Box::new(a), Box::new(b))),
            inner.prop_map(|a| Condition::Not(Box::new(a))),
        ]
    })
}

/// Builds the expression with TVM's operators (which fold constants as the parser does).
pub(crate) fn build_tree(tree: &Tree, vars: &[Var]) -> Expr {
    match tree {
        Tree::Var(i) => vars[*i % vars.len()].to_expr(),
        Tree::Const(c) => Expr::i32(*c),
        Tree::Binary(op, a, b) => {
            let (a, b) = (build_tree(a, vars), build_tree(b, vars));
            operators::binary(*op, a.clone(), b.clone()).unwrap_or_else(|_| Expr::binary(*op, a, b))
        }
        Tree::Select(c, a, b) => {
            let c = build_tree(c, vars);
            let (a, b) = (build_tree(a, vars), build_tree(b, vars));
            if let Some(v) = c.as_int() {
                return if v != 0 { a } else { b };
            }
            Expr::new(ExprKind::Select(c, a, b), DataType::int32(), Span::NONE)
        }
    }
}

/// Builds the condition with TVM's operators.
pub(crate) fn build_condition(condition: &Condition, vars: &[Var]) -> Expr {
    let fold = |op: BinaryOp, a: Expr, b: Expr| {
        operators::binary(op, a.clone(), b.clone()).unwrap_or_else(|_| Expr::binary(op, a, b))
    };
    match condition {
        Condition::Compare(op, a, b) => fold(*op, build_tree(a, vars), build_tree(b, vars)),
        Condition::And(a, b) => fold(
            BinaryOp::And,
            build_condition(a, vars),
            build_condition(b, vars),
        ),
        Condition::Or(a, b) => fold(
            BinaryOp::Or,
            build_condition(a, vars),
            build_condition(b, vars),
        ),
        Condition::Not(a) => {
            let inner = build_condition(a, vars);
            operators::logical_not(inner.clone())
                .unwrap_or_else(|_| Expr::new(ExprKind::Not(inner), DataType::bool(), Span::NONE))
        }
    }
}

/// Variable ranges `[min, min + extent)` for generated tests.
pub(crate) fn ranges(vars: usize) -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((-8i64..=8, 1i64..=40), vars)
}

/// Points to evaluate at: every corner of the box plus random interior points.
pub(crate) fn sample_points(ranges: &[(i64, i64)], seeds: &[u64]) -> Vec<Vec<i64>> {
    let mut points = Vec::new();
    let corners = 1usize << ranges.len();
    for mask in 0..corners {
        points.push(
            ranges
                .iter()
                .enumerate()
                .map(|(i, (min, extent))| {
                    if mask >> i & 1 == 1 {
                        min + extent - 1
                    } else {
                        *min
                    }
                })
                .collect(),
        );
    }
    for seed in seeds {
        let mut state = *seed;
        points.push(
            ranges
                .iter()
                .map(|(min, extent)| {
                    // A small xorshift step per coordinate.
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    min + (state % (*extent as u64)) as i64
                })
                .collect(),
        );
    }
    points
}

/// `count` fresh int32 variables named `x0`, `x1`, ...
pub(crate) fn fresh_vars(count: usize) -> Vec<Var> {
    (0..count)
        .map(|i| Var::new(format!("x{i}"), DataType::int32(), Span::NONE))
        .collect()
}
