//! Unit tests of the simplifier, one rule family each, with expectations in
//! TVM's printed form (what `tvm.arith.Analyzer().simplify` prints).

use super::Analyzer;
use crate::ir::operators;
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, Range, Var};
use crate::source::Span;

fn var(name: &str) -> Var {
    Var::new(name, DataType::int32(), Span::NONE)
}

fn v(var: &Var) -> Expr {
    var.to_expr()
}

fn c(value: i64) -> Expr {
    Expr::i32(value)
}

fn op(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    operators::binary(op, a, b).expect("well-typed test expression")
}

fn add(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::Add, a, b)
}
fn sub(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::Sub, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::Mul, a, b)
}
fn floordiv(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::FloorDiv, a, b)
}
fn floormod(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::FloorMod, a, b)
}
fn min(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::Min, a, b)
}
fn max(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::Max, a, b)
}
fn lt(a: Expr, b: Expr) -> Expr {
    op(BinaryOp::Lt, a, b)
}

/// An analyzer with each variable bound to `[0, extent)`.
fn bounded(vars: &[(&Var, i64)]) -> Analyzer {
    let mut analyzer = Analyzer::new();
    for (var, extent) in vars {
        analyzer.bind(var, &Range::from_extent(c(*extent)));
    }
    analyzer
}

fn check(analyzer: &Analyzer, expr: &Expr, expected: &str) {
    assert_eq!(
        analyzer.simplify(expr).to_string(),
        expected,
        "simplifying {expr}"
    );
}

// ----- the identities schedules produce ------------------------------------

#[test]
fn split_quotient_and_remainder_recover_the_loops() {
    let (i0, i1) = (var("i_0"), var("i_1"));
    let analyzer = bounded(&[(&i0, 4), (&i1, 32)]);
    let fused = add(mul(v(&i0), c(32)), v(&i1));
    check(&analyzer, &floordiv(fused.clone(), c(32)), "i_0");
    check(&analyzer, &floormod(fused, c(32)), "i_1");
}

#[test]
fn outer_quotient_needs_only_the_inner_bound() {
    let (i, j) = (var("i"), var("j"));
    let analyzer = bounded(&[(&j, 128)]);
    check(
        &analyzer,
        &floordiv(add(mul(v(&i), c(128)), v(&j)), c(128)),
        "i",
    );
    check(
        &Analyzer::new(),
        &floordiv(add(mul(v(&i), c(128)), v(&j)), c(128)),
        "j // 128 + i",
    );
}

#[test]
fn quotient_times_divisor_plus_remainder_is_the_index() {
    let f = var("f");
    let rebuilt = add(
        mul(floordiv(v(&f), c(128)), c(128)),
        floormod(v(&f), c(128)),
    );
    check(&Analyzer::new(), &rebuilt, "f");
}

#[test]
fn non_dividing_split_predicate_stays() {
    let (i0, i1) = (var("i_0"), var("i_1"));
    let analyzer = bounded(&[(&i0, 5), (&i1, 30)]);
    let predicate = lt(add(mul(v(&i0), c(30)), v(&i1)), c(128));
    check(&analyzer, &predicate, "i_0 * 30 + i_1 < 128");
    let within = bounded(&[(&i0, 4), (&i1, 30)]);
    check(&within, &predicate, "T.bool(True)");
}

// ----- sums ------------------------------------------------------------------

#[test]
fn terms_order_by_decreasing_scale_with_constant_last() {
    let (i0, i1, vi) = (var("i_0"), var("i_1"), var("vi"));
    let analyzer = Analyzer::new();
    check(
        &analyzer,
        &add(v(&i1), mul(v(&i0), c(32))),
        "i_0 * 32 + i_1",
    );
    check(&analyzer, &add(c(3), mul(v(&vi), c(4))), "vi * 4 + 3");
    check(&analyzer, &add(add(v(&vi), c(3)), c(4)), "vi + 7");
}

#[test]
fn like_terms_merge_and_cancel() {
    let (x, y) = (var("x"), var("y"));
    let analyzer = Analyzer::new();
    check(&analyzer, &sub(v(&x), v(&x)), "0");
    check(&analyzer, &sub(add(v(&x), v(&y)), v(&x)), "y");
    check(&analyzer, &sub(mul(v(&x), c(2)), v(&x)), "x");
    check(&analyzer, &mul(add(v(&x), c(2)), c(3)), "x * 3 + 6");
    check(&analyzer, &sub(c(0), v(&x)), "0 - x");
    check(&analyzer, &sub(sub(c(1), v(&x)), c(4)), "0 - x - 3");
    check(&analyzer, &sub(v(&x), mul(v(&y), c(2))), "x - y * 2");
}

#[test]
fn symbolic_products_keep_their_factors() {
    let (x, y) = (var("x"), var("y"));
    let analyzer = Analyzer::new();
    check(&analyzer, &mul(mul(v(&x), c(2)), v(&y)), "x * y * 2");
    check(
        &analyzer,
        &floordiv(mul(mul(v(&x), v(&y)), c(4)), mul(v(&y), c(2))),
        "x * 2",
    );
}

// ----- division and modulo -----------------------------------------------------

#[test]
fn division_of_a_scaled_term_divides_the_scale() {
    let x = var("x");
    let analyzer = Analyzer::new();
    check(&analyzer, &floordiv(mul(v(&x), c(8)), c(4)), "x * 2");
    check(&analyzer, &floormod(mul(v(&x), c(8)), c(4)), "0");
    check(&analyzer, &floormod(mul(v(&x), c(4)), c(8)), "x % 2 * 4");
    check(&analyzer, &floordiv(mul(v(&x), c(4)), c(8)), "x // 2");
}

#[test]
fn nested_division_and_modulo_combine() {
    let x = var("x");
    let analyzer = Analyzer::new();
    check(&analyzer, &floordiv(floordiv(v(&x), c(4)), c(8)), "x // 32");
    check(&analyzer, &floormod(floormod(v(&x), c(32)), c(8)), "x % 8");
    check(
        &analyzer,
        &floordiv(floormod(v(&x), c(32)), c(8)),
        "x % 32 // 8",
    );
    check(&analyzer, &floordiv(floormod(v(&x), c(16)), c(32)), "0");
    check(
        &analyzer,
        &floormod(floordiv(v(&x), c(4)), c(8)),
        "x % 32 // 4",
    );
    check(&analyzer, &floormod(floormod(v(&x), c(2)), c(4)), "x % 2");
}

/// TVM's `(x // c1 + c2) // c3` rule: a split of a split's inferred extent.
#[test]
fn shifted_quotient_divides_once() {
    let m = var("m");
    let analyzer = Analyzer::new();
    let half = floordiv(add(v(&m), c(1)), c(2));
    check(
        &analyzer,
        &floordiv(add(half.clone(), c(3)), c(4)),
        "(m + 7) // 8",
    );
    // Nested twice: each level folds into the one divisor.
    let quarter = floordiv(add(floordiv(add(half, c(3)), c(4)), c(1)), c(2));
    check(&analyzer, &quarter, "(m + 15) // 16");
    // A negative divisor is not rewritten.
    check(
        &analyzer,
        &floordiv(add(floordiv(v(&m), c(2)), c(3)), c(-4)),
        "(m // 2 + 3) // -4",
    );
}

#[test]
fn rounding_down_to_a_multiple_stays() {
    let n = var("n");
    check(
        &Analyzer::new(),
        &mul(floordiv(v(&n), c(4)), c(4)),
        "n // 4 * 4",
    );
}

#[test]
fn constant_offsets_fold_into_the_remainder() {
    let x = var("x");
    let analyzer = Analyzer::new();
    check(&analyzer, &floormod(sub(v(&x), c(5)), c(3)), "(x + 1) % 3");
    check(&analyzer, &floormod(add(mul(v(&x), c(4)), c(6)), c(2)), "0");
    check(
        &analyzer,
        &floordiv(add(mul(v(&x), c(4)), c(6)), c(2)),
        "x * 2 + 3",
    );
}

#[test]
fn bounded_dividends_vanish_or_stay() {
    let i = var("i");
    let analyzer = bounded(&[(&i, 16)]);
    check(&analyzer, &floordiv(v(&i), c(16)), "0");
    check(&analyzer, &floormod(v(&i), c(16)), "i");
    check(&analyzer, &floordiv(v(&i), c(8)), "i // 8");
}

#[test]
fn truncated_division_splits_only_non_negative_sums() {
    let (i, j) = (var("i"), var("j"));
    let analyzer = bounded(&[(&i, 10), (&j, 8)]);
    let index = add(mul(v(&i), c(8)), v(&j));
    check(&analyzer, &op(BinaryOp::Div, index.clone(), c(8)), "i");
    check(&analyzer, &op(BinaryOp::Mod, index, c(8)), "j");
    let (x, y) = (var("x"), var("y"));
    let free = add(mul(v(&x), c(8)), v(&y));
    check(
        &Analyzer::new(),
        &op(BinaryOp::Div, free, c(8)),
        "T.Div(x * 8 + y, 8)",
    );
}

#[test]
fn division_by_zero_is_left_alone() {
    let x = var("x");
    let expr = Expr::binary(BinaryOp::FloorDiv, v(&x), c(0));
    check(&Analyzer::new(), &expr, "T.FloorDiv(x, 0)");
    let remainder = Expr::binary(BinaryOp::FloorMod, v(&x), c(0));
    check(&Analyzer::new(), &remainder, "T.FloorMod(x, 0)");
}

// ----- min and max -----------------------------------------------------------

#[test]
fn dominated_min_max_arms_are_removed() {
    let (i, x, y) = (var("i"), var("x"), var("y"));
    let analyzer = bounded(&[(&i, 128)]);
    check(&analyzer, &min(v(&i), c(200)), "i");
    check(&analyzer, &max(v(&i), c(0)), "i");
    check(&analyzer, &min(v(&i), c(100)), "T.min(i, 100)");
    check(&analyzer, &min(add(v(&x), c(1)), add(v(&x), c(3))), "x + 1");
    check(&analyzer, &max(add(v(&x), c(1)), add(v(&x), c(3))), "x + 3");
    check(&analyzer, &min(v(&x), v(&y)), "T.min(x, y)");
    check(&analyzer, &min(v(&x), v(&x)), "x");
}

#[test]
fn nested_min_max_absorb_and_factor() {
    let (x, y, z) = (var("x"), var("y"), var("z"));
    let analyzer = Analyzer::new();
    check(&analyzer, &min(max(v(&x), v(&y)), v(&x)), "x");
    check(&analyzer, &max(min(v(&x), v(&y)), v(&x)), "x");
    check(&analyzer, &min(min(v(&x), v(&y)), v(&x)), "T.min(x, y)");
    check(
        &analyzer,
        &min(add(v(&y), v(&x)), add(v(&z), v(&x))),
        "T.min(y, z) + x",
    );
    check(
        &analyzer,
        &min(mul(v(&x), c(4)), mul(v(&y), c(4))),
        "T.min(x, y) * 4",
    );
    check(&analyzer, &min(min(v(&x), c(4)), c(2)), "T.min(x, 2)");
    check(
        &analyzer,
        &min(min(v(&x), c(4)), v(&y)),
        "T.min(T.min(x, y), 4)",
    );
}

#[test]
fn rounding_up_then_min_with_the_value_is_the_value() {
    let x = var("x");
    let rounded = mul(floordiv(add(v(&x), c(3)), c(4)), c(4));
    check(&Analyzer::new(), &min(rounded.clone(), v(&x)), "x");
    check(&Analyzer::new(), &max(rounded, v(&x)), "(x + 3) // 4 * 4");
}

// ----- comparisons and booleans ----------------------------------------------

#[test]
fn comparisons_decided_by_bounds() {
    let (i, x) = (var("i"), var("x"));
    let analyzer = bounded(&[(&i, 128)]);
    check(&analyzer, &lt(v(&x), add(v(&x), c(1))), "T.bool(True)");
    check(&analyzer, &lt(v(&i), c(128)), "T.bool(True)");
    check(&analyzer, &op(BinaryOp::Ge, v(&i), c(0)), "T.bool(True)");
    check(&analyzer, &op(BinaryOp::Eq, v(&i), c(200)), "T.bool(False)");
    check(&analyzer, &op(BinaryOp::Ne, v(&i), c(-1)), "T.bool(True)");
    check(&analyzer, &lt(v(&i), c(64)), "i < 64");
}

#[test]
fn comparisons_normalise_to_less_than() {
    let (x, y, i) = (var("x"), var("y"), var("i"));
    let analyzer = Analyzer::new();
    check(&analyzer, &op(BinaryOp::Gt, v(&x), c(3)), "3 < x");
    check(&analyzer, &op(BinaryOp::Ge, v(&x), v(&y)), "y <= x");
    check(
        &analyzer,
        &op(BinaryOp::Le, add(v(&x), c(1)), v(&y)),
        "x < y",
    );
    check(&analyzer, &lt(add(v(&x), c(2)), c(10)), "x < 8");
    check(&analyzer, &lt(mul(v(&i), c(4)), c(16)), "i < 4");
    check(&analyzer, &lt(mul(v(&i), c(4)), c(18)), "i < 5");
    check(
        &analyzer,
        &op(BinaryOp::Eq, add(v(&x), c(1)), c(4)),
        "x == 3",
    );
    check(&analyzer, &op(BinaryOp::Eq, c(4), v(&x)), "x == 4");
}

#[test]
fn common_divisor_of_a_comparison_cancels() {
    let (x, y) = (var("x"), var("y"));
    let analyzer = bounded(&[(&y, 8)]);
    check(&analyzer, &lt(add(mul(v(&x), c(8)), v(&y)), c(16)), "x < 2");
}

#[test]
fn boolean_connectives_fold() {
    let (x, b) = (var("x"), Var::new("b", DataType::bool(), Span::NONE));
    let analyzer = Analyzer::new();
    let below = lt(v(&x), c(5));
    let above = op(BinaryOp::Ge, v(&x), c(5));
    check(
        &analyzer,
        &op(BinaryOp::And, below.clone(), above.clone()),
        "T.bool(False)",
    );
    check(
        &analyzer,
        &op(BinaryOp::Or, below.clone(), above),
        "T.bool(True)",
    );
    check(
        &analyzer,
        &operators::logical_not(below.clone()).unwrap(),
        "5 <= x",
    );
    check(&analyzer, &op(BinaryOp::And, Expr::bool(true), v(&b)), "b");
    check(
        &analyzer,
        &op(BinaryOp::Or, v(&b), Expr::bool(true)),
        "T.bool(True)",
    );
    let not_b = operators::logical_not(v(&b)).unwrap();
    check(
        &analyzer,
        &op(BinaryOp::And, v(&b), not_b.clone()),
        "T.bool(False)",
    );
    check(&analyzer, &operators::logical_not(not_b).unwrap(), "b");
    let equal = op(BinaryOp::Eq, v(&x), c(5));
    check(&analyzer, &op(BinaryOp::Or, below, equal), "x <= 5");
}

// ----- select, casts, lets, floats -------------------------------------------

#[test]
fn select_branches_see_their_condition() {
    let i = var("i");
    let analyzer = bounded(&[(&i, 128)]);
    let chosen = Expr::new(
        ExprKind::Select(lt(v(&i), c(128)), v(&i), c(0)),
        DataType::int32(),
        Span::NONE,
    );
    check(&analyzer, &chosen, "i");
    let guarded = operators::if_then_else(lt(v(&i), c(16)), min(v(&i), c(15)), c(0)).unwrap();
    check(&analyzer, &guarded, "T.if_then_else(i < 16, i, 0)");
    let same_arms = Expr::new(
        ExprKind::Select(lt(v(&i), c(3)), v(&i), v(&i)),
        DataType::int32(),
        Span::NONE,
    );
    check(&analyzer, &same_arms, "i");
}

#[test]
fn nested_if_then_else_with_one_constant_else_merges_conditions() {
    let i = var("i");
    let j = var("j");
    let analyzer = bounded(&[(&i, 16), (&j, 16)]);
    let nest = |inner_else: i64| {
        let inner = operators::if_then_else(lt(v(&j), c(4)), v(&i), c(inner_else)).unwrap();
        operators::if_then_else(lt(v(&i), c(8)), inner, c(0)).unwrap()
    };
    check(&analyzer, &nest(0), "T.if_then_else(i < 8 and j < 4, i, 0)");
    // Different else values keep both calls: merging would change results.
    check(
        &analyzer,
        &nest(1),
        "T.if_then_else(i < 8, T.if_then_else(j < 4, i, 1), 0)",
    );
}

#[test]
fn casts_fold_constants_and_distribute_over_widening() {
    let (i, j) = (var("i"), var("j"));
    let analyzer = Analyzer::new();
    check(
        &analyzer,
        &Expr::cast(DataType::int64(), c(5)),
        "T.int64(5)",
    );
    let widened = Expr::cast(DataType::int64(), add(mul(v(&i), c(4)), v(&j)));
    check(
        &analyzer,
        &widened,
        "T.Cast(\"int64\", i) * T.int64(4) + T.Cast(\"int64\", j)",
    );
    let wide = Var::new("n", DataType::int64(), Span::NONE);
    let narrowed = Expr::cast(DataType::int32(), v(&wide));
    check(&analyzer, &narrowed, "T.Cast(\"int32\", n)");
}

#[test]
fn trivial_lets_are_inlined() {
    let (x, y) = (var("x"), var("y"));
    let body = add(v(&x), v(&y));
    let bound = Expr::new(
        ExprKind::Let {
            var: x.clone(),
            value: c(3),
            body,
        },
        DataType::int32(),
        Span::NONE,
    );
    check(&Analyzer::new(), &bound, "y + 3");
}

#[test]
fn float_arithmetic_only_folds_constants() {
    let f32_type = DataType::float32();
    let (a, b) = (
        Var::new("a", f32_type, Span::NONE),
        Var::new("b", f32_type, Span::NONE),
    );
    let analyzer = Analyzer::new();
    let sum = add(v(&a), v(&b));
    assert!(analyzer.simplify(&sum).same_as(&sum));
    let product = Expr::binary(
        BinaryOp::Mul,
        Expr::float(1.5, f32_type),
        Expr::float(2.0, f32_type),
    );
    check(&analyzer, &product, "T.float32(3.0)");
    let nested = Expr::binary(BinaryOp::Add, v(&a), product);
    check(&analyzer, &nested, "a + T.float32(3.0)");
}

// ----- the analyzer facade ----------------------------------------------------

#[test]
fn analyzer_proves_equalities_and_bounds() {
    let (i, j) = (var("i"), var("j"));
    let analyzer = bounded(&[(&i, 16), (&j, 4)]);
    let index = add(mul(v(&i), c(4)), v(&j));
    assert!(analyzer.can_prove_equal(&floordiv(index.clone(), c(4)), &v(&i)));
    assert!(!analyzer.can_prove_equal(&index, &v(&i)));
    assert!(analyzer.can_prove(&lt(index.clone(), c(64))));
    assert!(!analyzer.can_prove(&lt(index.clone(), c(63))));
    assert!(analyzer.can_prove_greater_equal(&index, 0));
    assert!(analyzer.can_prove_less(&index, 64));
    let bound = analyzer.const_int_bound(&index);
    assert_eq!((bound.min, bound.max), (0, 63));
}

#[test]
fn bound_values_are_substituted() {
    let (i, k) = (var("i"), var("k"));
    let mut analyzer = Analyzer::new();
    analyzer.bind(&k, &Range::new(c(2), c(1)));
    analyzer.bind_value(&i, &add(v(&k), c(1)));
    check(&analyzer, &mul(v(&i), c(2)), "6");
}

#[test]
fn constraints_hold_only_inside_their_scope() {
    let i = var("i");
    let mut analyzer = bounded(&[(&i, 100)]);
    let condition = lt(v(&i), c(10));
    let inside = analyzer.with_constraint(&condition, |a| a.simplify(&min(v(&i), c(9))));
    assert_eq!(inside.to_string(), "i");
    let repeated = analyzer.with_constraint(&condition, |a| a.simplify(&lt(v(&i), c(10))));
    assert_eq!(repeated.to_string(), "T.bool(True)");
    check(&analyzer, &min(v(&i), c(9)), "T.min(i, 9)");
}

// ----- traces of TVM's rewrite pass ------------------------------------------

#[test]
fn lone_negative_products_print_as_products() {
    let (x, y) = (var("x"), var("y"));
    let analyzer = Analyzer::new();
    check(&analyzer, &mul(v(&x), c(-2)), "x * -2");
    check(&analyzer, &sub(c(0), mul(v(&x), c(2))), "x * -2");
    check(&analyzer, &sub(c(3), mul(v(&x), c(2))), "3 - x * 2");
    let cancelled = sub(sub(mul(v(&x), c(2)), mul(v(&x), c(2))), mul(v(&y), c(3)));
    check(&analyzer, &cancelled, "y * -3");
}

#[test]
fn min_and_max_terms_lead_their_sum() {
    let (x, y, z) = (var("x"), var("y"), var("z"));
    let analyzer = Analyzer::new();
    check(&analyzer, &add(v(&x), min(v(&y), c(3))), "T.min(y, 3) + x");
    let both = add(add(v(&x), min(v(&y), c(3))), max(v(&z), c(1)));
    check(&analyzer, &both, "T.max(z, 1) + T.min(y, 3) + x");
    check(&analyzer, &add(min(v(&y), c(3)), v(&x)), "T.min(y, 3) + x");
}

#[test]
fn remainder_identities_of_the_rewrite_pass() {
    let (x, j) = (var("x"), var("j"));
    let analyzer = bounded(&[(&j, 4)]);
    check(
        &analyzer,
        &floormod(add(mul(v(&x), c(4)), v(&j)), c(16)),
        "x % 4 * 4 + j",
    );
    check(
        &analyzer,
        &floormod(add(add(mul(v(&x), c(4)), v(&j)), c(32)), c(16)),
        "x % 4 * 4 + j",
    );
    check(&analyzer, &floormod(mul(v(&x), c(7)), c(2)), "x % 2");
    check(&analyzer, &floordiv(floordiv(v(&x), c(3)), c(5)), "x // 15");
    check(
        &analyzer,
        &sub(v(&x), mul(floordiv(v(&x), c(4)), c(4))),
        "x % 4",
    );
}

#[test]
fn quotients_fixed_by_bounds_are_constants() {
    let x = var("x");
    let analyzer = bounded(&[(&x, 6)]);
    check(&analyzer, &floordiv(add(v(&x), c(34)), c(8)), "4");
    check(
        &Analyzer::new(),
        &floordiv(add(v(&x), c(34)), c(8)),
        "(x + 34) // 8",
    );
}

#[test]
fn casts_between_index_types_follow_tvm() {
    let (i, j) = (var("i"), var("j"));
    let (k, n) = (
        Var::new("k", DataType::int64(), Span::NONE),
        Var::new("n", DataType::int64(), Span::NONE),
    );
    let mut analyzer = bounded(&[(&i, 16), (&j, 8)]);
    analyzer.bind(&k, &Range::from_extent(Expr::int(64, DataType::int64())));
    let long = |value: i64| Expr::int(value, DataType::int64());
    let to_i32 = |e: Expr| Expr::cast(DataType::int32(), e);
    let to_i64 = |e: Expr| Expr::cast(DataType::int64(), e);
    check(
        &analyzer,
        &to_i32(floordiv(v(&k), long(4))),
        "T.Cast(\"int32\", k) // 4",
    );
    check(
        &analyzer,
        &to_i32(add(mul(v(&k), long(2)), long(1))),
        "T.Cast(\"int32\", k) * 2 + 1",
    );
    check(&analyzer, &to_i32(v(&n)), "T.Cast(\"int32\", n)");
    check(
        &analyzer,
        &to_i32(to_i64(v(&i))),
        "T.Cast(\"int32\", T.Cast(\"int64\", i))",
    );
    check(
        &analyzer,
        &floordiv(to_i64(add(mul(v(&i), c(8)), v(&j))), long(8)),
        "T.Cast(\"int64\", i)",
    );
    let rebuilt = add(
        mul(floordiv(v(&k), long(8)), long(8)),
        floormod(v(&k), long(8)),
    );
    check(&analyzer, &rebuilt, "k");
    check(
        &analyzer,
        &min(mul(v(&k), long(2)), long(100)),
        "T.min(k, T.int64(50)) * T.int64(2)",
    );
    check(
        &analyzer,
        &Expr::cast(DataType::int(8), v(&i)),
        "T.Cast(\"int8\", i)",
    );
}

#[test]
fn calls_of_module_functions_keep_their_name_and_simplify_their_arguments() {
    let x = var("x");
    let call = Expr::new(
        ExprKind::CallFunction {
            name: "helper".to_string(),
            args: vec![add(v(&x), c(0)), sub(v(&x), v(&x))],
        },
        DataType::int32(),
        Span::NONE,
    );
    let simplified = Analyzer::new().simplify(&call);
    match simplified.kind() {
        ExprKind::CallFunction { name, args } => {
            assert_eq!(name, "helper");
            let texts: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            assert_eq!(texts, ["x", "0"]);
        }
        other => panic!("expected a call, got {other:?}"),
    }
    let everything = super::ConstIntBound::everything(DataType::int32());
    assert_eq!(Analyzer::new().const_int_bound(&call), everything);
}

/// TVM's `kSymbolicBound` proof, which `split` uses for its guard.
#[test]
fn symbolic_bounds_prove_an_exact_symbolic_split() {
    let (n, outer, inner) = (var("n"), var("outer"), var("inner"));
    let mut analyzer = Analyzer::new();
    analyzer.bind(&outer, &Range::new(c(0), mul(v(&n), c(4))));
    analyzer.bind(&inner, &Range::new(c(0), c(16)));
    let index = add(mul(v(&outer), c(16)), v(&inner));
    let guard = lt(index.clone(), mul(v(&n), c(64)));
    // Constant bounds alone know nothing of `n`.
    assert!(!analyzer.can_prove(&guard));
    assert!(analyzer.can_prove_with_symbolic_bound(&guard));
    // One past the end is not provable, nor is `<=` against one less.
    let too_far = lt(add(index.clone(), c(1)), mul(v(&n), c(64)));
    assert!(!analyzer.can_prove_with_symbolic_bound(&too_far));
    let le = op(BinaryOp::Le, index, sub(mul(v(&n), c(64)), c(2)));
    assert!(!analyzer.can_prove_with_symbolic_bound(&le));
}

/// A min or max term splits into its arms, and which arms must be bounded
/// depends on the term's sign: either arm for a max added or a min
/// subtracted, both for a min added or a max subtracted.
#[test]
fn min_max_arms_follow_the_sign_of_the_term() {
    let (s, x) = (var("s"), var("x"));
    // `16 - (s + T.min(16 - s, 2))`: room after a region clamped to the end.
    let room = sub(c(16), add(v(&s), min(sub(c(16), v(&s)), c(2))));
    let (a, b, either) = super::min_max_arms(&room).expect("a min term");
    assert!(either, "a subtracted min is bounded by either arm");
    let analyzer = Analyzer::new();
    assert_eq!(analyzer.simplify(&a).to_string(), "0");
    assert_eq!(analyzer.simplify(&b).to_string(), "14 - s");
    let nonnegative = |e: &Expr| analyzer.const_int_bound(&analyzer.simplify(e)).min >= 0;
    assert!(super::bounded_through_min_max_arms(&room, nonnegative));
    // One element more than the clamp allows: neither arm leaves room.
    let too_long = sub(c(16), add(v(&s), min(sub(c(17), v(&s)), c(2))));
    assert!(!super::bounded_through_min_max_arms(&too_long, nonnegative));
    // `x + T.min(x, 0)` needs both arms: `x + x` and `x + 0`.
    let with_min = add(v(&x), min(v(&x), c(0)));
    let (_, _, either) = super::min_max_arms(&with_min).expect("a min term");
    assert!(!either);
    let bounded_x = bounded(&[(&x, 8)]);
    let at_least_zero = |e: &Expr| bounded_x.const_int_bound(&bounded_x.simplify(e)).min >= 0;
    assert!(super::bounded_through_min_max_arms(
        &with_min,
        at_least_zero
    ));
    // `x - T.max(x, 1)` is `x - x` or `x - 1`: only one arm is nonnegative
    // at `x = 0`, and both are needed.
    let with_max = sub(v(&x), max(v(&x), c(1)));
    assert!(!super::bounded_through_min_max_arms(
        &with_max,
        at_least_zero
    ));
    // No min or max term: nothing to split.
    assert!(super::min_max_arms(&add(v(&x), c(1))).is_none());
    assert!(!super::bounded_through_min_max_arms(&v(&x), |_| true));
}

fn ramp(base: Expr, stride: i64, lanes: u16) -> Expr {
    Expr::new(
        ExprKind::Ramp {
            base,
            stride: c(stride),
            lanes,
        },
        DataType::int32().with_lanes(lanes),
        Span::NONE,
    )
}

fn broadcast(value: Expr, lanes: u16) -> Expr {
    Expr::new(
        ExprKind::Broadcast { value, lanes },
        DataType::int32().with_lanes(lanes),
        Span::NONE,
    )
}

#[test]
fn arithmetic_on_ramps_and_broadcasts_is_done_on_their_scalars() {
    // What lowering a matched buffer's vector access leaves behind.
    let (i, j) = (var("i"), var("j"));
    let analyzer = Analyzer::new();
    let index = add(
        broadcast(mul(v(&i), c(64)), 16),
        add(broadcast(c(0), 16), ramp(c(0), 1, 16)),
    );
    check(&analyzer, &index, "T.Ramp(i * 64, 1, 16)");
    check(
        &analyzer,
        &sub(broadcast(v(&j), 4), ramp(v(&i), 2, 4)),
        "T.Ramp(j - i, -2, 4)",
    );
    check(
        &analyzer,
        &mul(ramp(v(&i), 1, 4), broadcast(c(4), 4)),
        "T.Ramp(i * 4, 4, 4)",
    );
    check(
        &analyzer,
        &add(ramp(v(&i), 1, 8), ramp(v(&j), 2, 8)),
        "T.Ramp(i + j, 3, 8)",
    );
}

#[test]
fn rounding_up_to_a_multiple_is_at_least_the_value() {
    // The region-cover check of a padded buffer (`pad_einsum`) needs
    // `n - 1 <= (n + 7) // 8 * 8 - 1` for any `n`.
    let n = var("n");
    let analyzer = Analyzer::new();
    let rounded = mul(floordiv(add(v(&n), c(7)), c(8)), c(8));
    check(
        &analyzer,
        &op(BinaryOp::Le, v(&n), rounded.clone()),
        "T.bool(True)",
    );
    check(
        &analyzer,
        &op(BinaryOp::Le, sub(v(&n), c(1)), sub(rounded.clone(), c(1))),
        "T.bool(True)",
    );
    // One more is not always below it (n = 8 rounds to 8).
    let one_more = op(BinaryOp::Le, add(v(&n), c(1)), rounded);
    assert_ne!(analyzer.simplify(&one_more).to_string(), "T.bool(True)");
}

#[test]
fn an_offset_on_a_max_moves_across_a_comparison() {
    // `compute_at` bounds a loop by `max(extent - 1, 0) + 1`; the loop's own
    // extent is below it.
    let n = var("n");
    let analyzer = Analyzer::new();
    let last = sub(mul(floordiv(add(v(&n), c(7)), c(8)), c(8)), c(1));
    let bound = add(max(last.clone(), c(0)), c(1));
    check(&analyzer, &lt(last.clone(), bound.clone()), "T.bool(True)");
    // Two above the last index is not always below it.
    let beyond = add(last, c(2));
    assert_ne!(
        analyzer.simplify(&lt(beyond, bound)).to_string(),
        "T.bool(True)"
    );
}

/// TVM's `AddShapeVarBounds`: a buffer extent `n` is non-negative as a
/// constant bound only, so `f % n < n` and `f // n < 64` under
/// `f < n * 64` are symbolic-bound facts (seed 61 trial 363).
#[test]
fn shape_extents_marked_non_negative_bound_fused_quotients() {
    let (n, f) = (var("n"), var("f"));
    let mut analyzer = Analyzer::new();
    analyzer.mark_global_non_negative(&v(&n));
    analyzer.bind(&f, &Range::new(c(0), mul(v(&n), c(64))));
    let quotient = super::build::floordiv(v(&f), v(&n));
    let remainder = super::build::floormod(v(&f), v(&n));
    assert_eq!(
        analyzer
            .simplify(&super::build::floordiv(sub(mul(v(&n), c(64)), c(1)), v(&n)))
            .to_string(),
        "-1 // n + 64"
    );
    assert!(analyzer.can_prove_with_symbolic_bound(&lt(remainder.clone(), v(&n))));
    assert!(analyzer.can_prove_with_symbolic_bound(&lt(quotient.clone(), c(64))));
    assert!(!analyzer.can_prove_with_symbolic_bound(&lt(quotient, c(63))));
    assert!(!analyzer.can_prove(&lt(remainder, v(&n))));
}

/// `c * n + k` marks `n >= ceil(-k / c)` (a constant bound, no range); a
/// sum of two symbols marks nothing, as TVM's `MarkGlobalNonNegValue`.
#[test]
fn marking_an_extent_non_negative_bounds_its_one_symbol() {
    let (n, m) = (var("n"), var("m"));
    let mut analyzer = Analyzer::new();
    analyzer.mark_global_non_negative(&sub(mul(v(&n), c(4)), c(2)));
    assert_eq!(analyzer.const_int_bound(&v(&n)).min, 1);
    assert!(analyzer.int_set(&v(&n)).is_single_point());
    analyzer.mark_global_non_negative(&add(v(&m), v(&n)));
    assert_eq!(analyzer.const_int_bound(&v(&m)).min, i64::from(i32::MIN));
}

/// TVM's `(x + y) // c * c - x` to `y - (x + y) % c`: a padded extent minus
/// the loop bound it pads is positive (seed 64 trial 477).
#[test]
fn a_rounded_up_extent_minus_its_operand_is_the_remainder_short_of_a_tile() {
    let n = var("n");
    let rounded = mul(super::build::floordiv(add(v(&n), c(15)), c(16)), c(16));
    let analyzer = Analyzer::new();
    let room = analyzer.simplify(&sub(rounded.clone(), sub(v(&n), c(1))));
    assert_eq!(room.to_string(), "16 - (n + 15) % 16");
    assert_eq!(analyzer.const_int_bound(&room).min, 1);
    // Twice the operand is not the quotient's own: nothing folds.
    let twice = analyzer.simplify(&sub(rounded, mul(v(&n), c(2))));
    assert_eq!(twice.to_string(), "(n + 15) // 16 * 16 - n * 2");
}
