//! Property tests: on random index expressions over bounded variables, the
//! simplified expression keeps every sampled value, and the constant bound and
//! the evaluated set contain every sampled value.

use super::testing::{
    build_condition, build_tree, condition, evaluate, fresh_vars, ranges, sample_points, tree,
};
use super::{Analyzer, IntSet};
use crate::ir::identity::VarMap;
use crate::ir::{Expr, Range, Var};
use proptest::prelude::*;

const VARS: usize = 3;

fn bound_analyzer(vars: &[Var], ranges: &[(i64, i64)]) -> Analyzer {
    let mut analyzer = Analyzer::new();
    for (var, (min, extent)) in vars.iter().zip(ranges) {
        analyzer.bind(var, &Range::new(Expr::i32(*min), Expr::i32(*extent)));
    }
    analyzer
}

fn environment(vars: &[Var], point: &[i64]) -> VarMap<i64> {
    vars.iter().cloned().zip(point.iter().copied()).collect()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1500,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn simplify_preserves_integer_values(
        generated in tree(VARS),
        ranges in ranges(VARS),
        seeds in prop::collection::vec(any::<u64>(), 12),
    ) {
        let vars = fresh_vars(VARS);
        let expr = build_tree(&generated, &vars);
        let analyzer = bound_analyzer(&vars, &ranges);
        let simplified = analyzer.simplify(&expr);
        for point in sample_points(&ranges, &seeds) {
            let env = environment(&vars, &point);
            if let Some(expected) = evaluate(&expr, &env) {
                let actual = evaluate(&simplified, &env);
                prop_assert_eq!(
                    actual, Some(expected),
                    "{} simplified to {} at {:?} with ranges {:?}", expr, simplified, point, ranges
                );
            }
        }
    }

    #[test]
    fn simplify_preserves_conditions(
        generated in condition(VARS),
        ranges in ranges(VARS),
        seeds in prop::collection::vec(any::<u64>(), 12),
    ) {
        let vars = fresh_vars(VARS);
        let expr = build_condition(&generated, &vars);
        let analyzer = bound_analyzer(&vars, &ranges);
        let simplified = analyzer.simplify(&expr);
        for point in sample_points(&ranges, &seeds) {
            let env = environment(&vars, &point);
            if let Some(expected) = evaluate(&expr, &env) {
                let actual = evaluate(&simplified, &env);
                prop_assert_eq!(
                    actual, Some(expected),
                    "{} simplified to {} at {:?} with ranges {:?}", expr, simplified, point, ranges
                );
            }
        }
    }

    #[test]
    fn const_int_bound_contains_every_value(
        generated in tree(VARS),
        ranges in ranges(VARS),
        seeds in prop::collection::vec(any::<u64>(), 12),
    ) {
        let vars = fresh_vars(VARS);
        let expr = build_tree(&generated, &vars);
        let analyzer = bound_analyzer(&vars, &ranges);
        let bound = analyzer.const_int_bound(&expr);
        for point in sample_points(&ranges, &seeds) {
            if let Some(value) = evaluate(&expr, &environment(&vars, &point)) {
                prop_assert!(bound.contains(value), "{} = {} at {:?} outside {:?}", expr, value, point, bound);
            }
        }
    }

    #[test]
    fn eval_set_contains_every_value(
        generated in tree(VARS),
        ranges in ranges(VARS),
        seeds in prop::collection::vec(any::<u64>(), 12),
    ) {
        let vars = fresh_vars(VARS);
        let expr = build_tree(&generated, &vars);
        let dom: VarMap<IntSet> = vars
            .iter()
            .zip(&ranges)
            .map(|(v, (min, extent))| (v.clone(), IntSet::from_range(&Range::new(Expr::i32(*min), Expr::i32(*extent)))))
            .collect();
        let set = super::eval_set(&expr, &dom);
        let empty = VarMap::default();
        let lower = set.min().map(|e| evaluate(e, &empty));
        let upper = set.max().map(|e| evaluate(e, &empty));
        for point in sample_points(&ranges, &seeds) {
            // The interval arithmetic assumes non-negative dividends for truncated modulo, as TVM does.
            if let Some(value) = evaluate(&expr, &environment(&vars, &point)) {
                if let Some(Some(lo)) = lower {
                    prop_assert!(lo <= value, "{} = {} at {:?} below {:?}", expr, value, point, set);
                }
                if let Some(Some(hi)) = upper {
                    prop_assert!(value <= hi, "{} = {} at {:?} above {:?}", expr, value, point, set);
                }
            }
        }
    }
}

/// The shape of an index built from loops the way split and fuse build them.
#[derive(Clone, Debug)]
enum Shape {
    /// The loops in this order fused into one index: `((l0 * e1 + l1) * e2 + l2)`.
    Fused(Vec<usize>),
    FloorDiv(Box<Shape>, i64),
    FloorMod(Box<Shape>, i64),
    Scaled(Box<Shape>, i64),
    Offset(Box<Shape>, i64),
}

fn shape(loops: usize) -> impl Strategy<Value = Shape> {
    let fused = Just((0..loops).collect::<Vec<_>>())
        .prop_shuffle()
        .prop_flat_map(|order| {
            let count = order.len();
            (1..=count).prop_map(move |n| Shape::Fused(order[..n].to_vec()))
        });
    fused.prop_recursive(2, 4, 1, |inner| {
        let factor = prop::sample::select(vec![2i64, 3, 4, 8]);
        prop_oneof![
            (inner.clone(), factor.clone()).prop_map(|(s, k)| Shape::FloorDiv(Box::new(s), k)),
            (inner.clone(), factor.clone()).prop_map(|(s, k)| Shape::FloorMod(Box::new(s), k)),
            (inner.clone(), factor).prop_map(|(s, k)| Shape::Scaled(Box::new(s), k)),
            (inner, -4i64..=4).prop_map(|(s, k)| Shape::Offset(Box::new(s), k)),
        ]
    })
}

fn build_shape(shape: &Shape, vars: &[Var], extents: &[i64]) -> Expr {
    let op =
        |op: crate::ir::BinaryOp, a: Expr, b: Expr| crate::ir::operators::binary(op, a, b).unwrap();
    use crate::ir::BinaryOp::*;
    match shape {
        Shape::Fused(order) => {
            let mut index = vars[order[0]].to_expr();
            for &l in &order[1..] {
                index = op(
                    Add,
                    op(Mul, index, Expr::i32(extents[l])),
                    vars[l].to_expr(),
                );
            }
            index
        }
        Shape::FloorDiv(s, k) => op(FloorDiv, build_shape(s, vars, extents), Expr::i32(*k)),
        Shape::FloorMod(s, k) => op(FloorMod, build_shape(s, vars, extents), Expr::i32(*k)),
        Shape::Scaled(s, k) => op(Mul, build_shape(s, vars, extents), Expr::i32(*k)),
        Shape::Offset(s, k) => op(Add, build_shape(s, vars, extents), Expr::i32(*k)),
    }
}

/// Every point of the loop nest, in order.
fn all_points(extents: &[i64]) -> Vec<Vec<i64>> {
    let mut points = vec![Vec::new()];
    for &extent in extents {
        points = points
            .into_iter()
            .flat_map(|p| {
                (0..extent).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    points
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn detected_iter_maps_evaluate_like_their_indices(
        extents in prop::collection::vec(prop::sample::select(vec![1i64, 2, 3, 4, 6, 8]), 1..=3),
        shapes in prop::collection::vec(shape(3), 1..=3),
        bijective in any::<bool>(),
    ) {
        let loops = extents.len();
        let vars = fresh_vars(loops);
        let shapes: Vec<Shape> = shapes.into_iter().map(|s| restrict(s, loops)).collect();
        let indices: Vec<Expr> = shapes.iter().map(|s| build_shape(s, &vars, &extents)).collect();
        let iters: Vec<(Var, Range)> = vars.iter().zip(&extents).map(|(v, e)| (v.clone(), Range::from_extent(Expr::i32(*e)))).collect();
        let level = if bijective { super::IterMapLevel::Bijective } else { super::IterMapLevel::Surjective };
        let result = super::detect_iter_map(&indices, &iters, &Expr::bool(true), level, &Analyzer::new(), false);
        if result.is_success() {
            let mut seen = std::collections::HashSet::new();
            for point in all_points(&extents) {
                let env = environment(&vars, &point);
                let mut tuple = Vec::new();
                for (index, sum) in indices.iter().zip(&result.indices) {
                    let expected = evaluate(index, &env);
                    let rebuilt = super::iter_map::iter_sum_to_expr(sum);
                    prop_assert_eq!(evaluate(&rebuilt, &env), expected, "{} rebuilt as {}", index, rebuilt);
                    tuple.push(expected);
                }
                if bijective {
                    prop_assert!(seen.insert(tuple.clone()), "{:?} claimed bijective but {:?} repeats", indices.iter().map(|e| e.to_string()).collect::<Vec<_>>(), tuple);
                }
            }
        }
    }

    #[test]
    fn guarded_non_dividing_split_is_bijective(
        outer in 2i64..=6,
        inner in prop::sample::select(vec![2i64, 4, 8, 16]),
        cut in 1i64..=96,
    ) {
        let vars = fresh_vars(2);
        let limit = cut.min(outer * inner);
        let index = build_shape(&Shape::Fused(vec![0, 1]), &vars, &[outer, inner]);
        let predicate = crate::ir::operators::binary(crate::ir::BinaryOp::Lt, index.clone(), Expr::i32(limit)).unwrap();
        let iters = vec![
            (vars[0].clone(), Range::from_extent(Expr::i32(outer))),
            (vars[1].clone(), Range::from_extent(Expr::i32(inner))),
        ];
        let result = super::detect_iter_map(std::slice::from_ref(&index), &iters, &predicate, super::IterMapLevel::Bijective, &Analyzer::new(), false);
        prop_assert!(result.is_success(), "{} under {}: {:?}", index, predicate, result.errors);
        let extent = result.indices[0].args[0].source.extent().as_int();
        prop_assert_eq!(extent, Some(limit));
    }
}

/// Keeps only loop numbers below `loops` in a generated shape.
fn restrict(shape: Shape, loops: usize) -> Shape {
    match shape {
        Shape::Fused(order) => {
            let kept: Vec<usize> = order.into_iter().filter(|l| *l < loops).collect();
            Shape::Fused(if kept.is_empty() { vec![0] } else { kept })
        }
        Shape::FloorDiv(s, k) => Shape::FloorDiv(Box::new(restrict(*s, loops)), k),
        Shape::FloorMod(s, k) => Shape::FloorMod(Box::new(restrict(*s, loops)), k),
        Shape::Scaled(s, k) => Shape::Scaled(Box::new(restrict(*s, loops)), k),
        Shape::Offset(s, k) => Shape::Offset(Box::new(restrict(*s, loops)), k),
    }
}

/// One step of a division/modulo chain.
#[derive(Clone, Debug)]
enum Step {
    Scale(i64),
    Offset(i64),
    Divide(crate::ir::BinaryOp, i64),
}

fn step() -> impl Strategy<Value = Step> {
    use crate::ir::BinaryOp::*;
    let divisor = prop::sample::select(vec![2i64, 3, 4, 8, 16, -2, -4, 6]);
    prop_oneof![
        2 => prop::sample::select(vec![-3i64, -2, -1, 2, 3, 4, 8]).prop_map(Step::Scale),
        1 => (-9i64..=9).prop_map(Step::Offset),
        4 => (prop::sample::select(vec![FloorDiv, FloorMod, Div, Mod]), divisor).prop_map(|(op, c)| Step::Divide(op, c)),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// Chains like `((x * -2 + 3) // 4 % 8) * 3` over one or two variables:
    /// the split-term arithmetic of the canonical forms under stress.
    #[test]
    fn division_and_modulo_chains_preserve_values(
        two_vars in any::<bool>(),
        steps in prop::collection::vec(step(), 1..=5),
        ranges in ranges(2),
        seeds in prop::collection::vec(any::<u64>(), 12),
    ) {
        let vars = fresh_vars(2);
        let op = |op: crate::ir::BinaryOp, a: Expr, b: Expr| crate::ir::operators::binary(op, a, b).unwrap();
        let mut expr = vars[0].to_expr();
        if two_vars {
            expr = op(crate::ir::BinaryOp::Add, op(crate::ir::BinaryOp::Mul, expr, Expr::i32(4)), vars[1].to_expr());
        }
        for s in &steps {
            expr = match s {
                Step::Scale(c) => op(crate::ir::BinaryOp::Mul, expr, Expr::i32(*c)),
                Step::Offset(c) => op(crate::ir::BinaryOp::Add, expr, Expr::i32(*c)),
                Step::Divide(o, c) => op(*o, expr, Expr::i32(*c)),
            };
        }
        let analyzer = bound_analyzer(&vars, &ranges);
        let simplified = analyzer.simplify(&expr);
        let unbound = Analyzer::new().simplify(&expr);
        for point in sample_points(&ranges, &seeds) {
            let env = environment(&vars, &point);
            if let Some(expected) = evaluate(&expr, &env) {
                prop_assert_eq!(evaluate(&simplified, &env), Some(expected), "{} simplified to {} at {:?} with ranges {:?}", expr, simplified, point, ranges);
                prop_assert_eq!(evaluate(&unbound, &env), Some(expected), "{} simplified without bounds to {} at {:?}", expr, unbound, point);
            }
        }
    }
}

/// Expressions over int64 with extreme constants, zero divisors and every
/// operator, built without folding so that nothing is filtered out.
fn hostile_tree() -> impl Strategy<Value = Expr> {
    use crate::ir::BinaryOp::*;
    let dtype = crate::ir::DataType::int64();
    let vars = fresh_vars_of(3, dtype);
    let constant = prop::sample::select(vec![
        i64::MIN,
        i64::MIN + 1,
        i64::MAX,
        -1,
        0,
        1,
        2,
        1 << 31,
        -(1 << 31),
        1 << 62,
        7,
        -8,
    ]);
    let leaf = prop_oneof![
        (0..3usize).prop_map(move |i| vars[i].to_expr()),
        constant.prop_map(move |c| Expr::int(c, dtype)),
    ];
    leaf.prop_recursive(4, 20, 2, |inner| {
        let op = prop::sample::select(vec![
            Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, Lt, Le, Gt, Ge, Eq, Ne,
        ]);
        (op, inner.clone(), inner.clone(), inner).prop_map(|(op, a, b, c)| {
            let node = Expr::binary(op, a, b);
            if node.dtype().is_bool() {
                // Comparisons choose between integers, keeping the tree integer-typed.
                Expr::new(
                    crate::ir::ExprKind::Select(node, c.clone(), c.clone()),
                    c.dtype(),
                    crate::source::Span::NONE,
                )
            } else {
                node
            }
        })
    })
}

fn fresh_vars_of(count: usize, dtype: crate::ir::DataType) -> Vec<Var> {
    (0..count)
        .map(|i| Var::new(format!("y{i}"), dtype, crate::source::Span::NONE))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 800, failure_persistence: None, ..ProptestConfig::default() })]

    /// Overflow, division by zero and extreme bounds never panic.
    #[test]
    fn hostile_inputs_do_not_panic(expr in hostile_tree(), bound_vars in any::<bool>()) {
        let mut analyzer = Analyzer::new();
        let mut dom = VarMap::default();
        if bound_vars {
            let mut seen = Vec::new();
            crate::ir::visit::walk_exprs(&expr, &mut |e| {
                if let Some(v) = e.as_var() {
                    if !seen.contains(v) {
                        seen.push(v.clone());
                    }
                }
            });
            for v in seen {
                let range = Range::new(Expr::int(i64::MIN + 1, v.dtype()), Expr::int(i64::MAX, v.dtype()));
                analyzer.bind(&v, &range);
                dom.insert(v.clone(), IntSet::from_range(&range));
            }
        }
        let _ = analyzer.simplify(&expr);
        let _ = analyzer.const_int_bound(&expr);
        let _ = analyzer.modular_set(&expr);
        let _ = analyzer.eval_set(&expr, &dom);
        let _ = analyzer.can_prove(&Expr::binary(crate::ir::BinaryOp::Lt, expr.clone(), Expr::int(0, expr.dtype())));
        let iters: Vec<(Var, Range)> = dom.keys().map(|v| (v.clone(), Range::from_extent(Expr::int(8, v.dtype())))).collect();
        let _ = super::detect_iter_map(std::slice::from_ref(&expr), &iters, &Expr::bool(true), super::IterMapLevel::Surjective, &analyzer, true);
    }
}
