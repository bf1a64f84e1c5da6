//! Property tests: on random index expressions over bounded variables, the
//! simplified expression keeps every sampled value, and the constant bound and
//! the evaluated set contain every sampled value.

use super::testing::{
    build_condition, build_tree, condition, evaluate, fresh_vars, ranges, sample_points, tree,
};
use super::{Analyzer, IntSet};
use crate::ir::{Expr, Range, Var};
use proptest::prelude::*;
use std::collections::HashMap;

const VARS: usize = 3;

fn bound_analyzer(vars: &[Var], ranges: &[(i64, i64)]) -> Analyzer {
    let mut analyzer = Analyzer::new();
    for (var, (min, extent)) in vars.iter().zip(ranges) {
        analyzer.bind(var, &Range::new(Expr::i32(*min), Expr::i32(*extent)));
    }
    analyzer
}

fn environment(vars: &[Var], point: &[i64]) -> HashMap<Var, i64> {
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
        let dom: HashMap<Var, IntSet> = vars
            .iter()
            .zip(&ranges)
            .map(|(v, (min, extent))| (v.clone(), IntSet::from_range(&Range::new(Expr::i32(*min), Expr::i32(*extent)))))
            .collect();
        let set = super::eval_set(&expr, &dom);
        let empty = HashMap::new();
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
