//! Tests of affine iterator map detection on the bindings that split, fuse
//! and reorder produce, and on bindings that are not affine.

use super::*;
use crate::ir::operators;
use crate::ir::{BinaryOp, Block, ForKind, NodeId, Stmt};
use crate::source::Span;

fn var(name: &str) -> Var {
    Var::new(name, DataType::int32(), Span::NONE)
}

fn c(value: i64) -> Expr {
    Expr::i32(value)
}

fn op(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    operators::binary(op, a, b).expect("well-typed test expression")
}

fn loops(vars: &[(&Var, i64)]) -> Vec<(Var, Range)> {
    vars.iter()
        .map(|(v, extent)| ((*v).clone(), Range::from_extent(c(*extent))))
        .collect()
}

fn detect(
    indices: &[Expr],
    iters: &[(Var, Range)],
    predicate: Expr,
    level: IterMapLevel,
) -> IterMapResult {
    detect_iter_map(indices, iters, &predicate, level, &Analyzer::new(), false)
}

fn fused_index(outer: &Var, inner: &Var, factor: i64) -> Expr {
    op(
        BinaryOp::Add,
        op(BinaryOp::Mul, outer.to_expr(), c(factor)),
        inner.to_expr(),
    )
}

#[test]
fn split_loops_fuse_back_into_one_bijective_index() {
    let (i0, i1) = (var("i_0"), var("i_1"));
    let result = detect(
        &[fused_index(&i0, &i1, 32)],
        &loops(&[(&i0, 4), (&i1, 32)]),
        Expr::bool(true),
        IterMapLevel::Bijective,
    );
    assert!(result.is_success(), "{:?}", result.errors);
    let sum = &result.indices[0];
    assert_eq!(sum.args.len(), 1);
    assert_eq!(sum.args[0].scale.as_int(), Some(1));
    assert_eq!(sum.args[0].source.extent().as_int(), Some(128));
    assert_eq!(iter_sum_to_expr(sum).to_string(), "i_0 * 32 + i_1");
}

#[test]
fn quotient_and_remainder_of_a_fused_loop_are_bijective() {
    let f = var("f");
    let indices = [
        op(BinaryOp::FloorDiv, f.to_expr(), c(128)),
        op(BinaryOp::FloorMod, f.to_expr(), c(128)),
    ];
    let result = detect(
        &indices,
        &loops(&[(&f, 4096)]),
        Expr::bool(true),
        IterMapLevel::Bijective,
    );
    assert!(result.is_success(), "{:?}", result.errors);
    let texts: Vec<String> = result
        .indices
        .iter()
        .map(|s| iter_sum_to_expr(s).to_string())
        .collect();
    assert_eq!(texts, ["f // 128", "f % 128"]);
}

#[test]
fn three_level_split_is_one_iterator() {
    let (a, b, d) = (var("a"), var("b"), var("c"));
    let index = op(
        BinaryOp::Add,
        op(BinaryOp::Mul, fused_index(&a, &b, 4), c(8)),
        d.to_expr(),
    );
    let result = detect(
        &[index],
        &loops(&[(&a, 2), (&b, 4), (&d, 8)]),
        Expr::bool(true),
        IterMapLevel::Bijective,
    );
    assert!(result.is_success(), "{:?}", result.errors);
    assert_eq!(result.indices[0].args[0].source.extent().as_int(), Some(64));
}

#[test]
fn reordered_loops_are_bijective_per_index() {
    let (i, j, k) = (var("i"), var("j"), var("k"));
    let indices = [i.to_expr(), j.to_expr(), k.to_expr()];
    let result = detect(
        &indices,
        &loops(&[(&k, 8), (&i, 4), (&j, 2)]),
        Expr::bool(true),
        IterMapLevel::Bijective,
    );
    assert!(result.is_success(), "{:?}", result.errors);
}

#[test]
fn non_dividing_split_is_affine_under_its_predicate() {
    let (i0, i1) = (var("i_0"), var("i_1"));
    let index = fused_index(&i0, &i1, 32);
    let predicate = op(BinaryOp::Lt, index.clone(), c(100));
    let iters = loops(&[(&i0, 4), (&i1, 32)]);
    for level in [IterMapLevel::Surjective, IterMapLevel::Bijective] {
        let result = detect(
            std::slice::from_ref(&index),
            &iters,
            predicate.clone(),
            level,
        );
        assert!(result.is_success(), "{level:?}: {:?}", result.errors);
        assert_eq!(
            result.indices[0].args[0].source.extent().as_int(),
            Some(100)
        );
    }
}

#[test]
fn predicate_on_a_single_loop_narrows_its_range() {
    let (i, j) = (var("i"), var("j"));
    let predicate = op(BinaryOp::Lt, i.to_expr(), c(3));
    let result = detect(
        &[i.to_expr(), j.to_expr()],
        &loops(&[(&i, 4), (&j, 5)]),
        predicate,
        IterMapLevel::Bijective,
    );
    assert!(result.is_success(), "{:?}", result.errors);
    assert_eq!(result.indices[0].args[0].source.extent().as_int(), Some(3));
}

#[test]
fn partial_splits_are_surjective_but_not_bijective() {
    let i = var("i");
    let iters = loops(&[(&i, 8)]);
    let quotient = [op(BinaryOp::FloorDiv, i.to_expr(), c(4))];
    assert!(!detect(&quotient, &iters, Expr::bool(true), IterMapLevel::Bijective).is_success());
    assert!(detect(
        &quotient,
        &iters,
        Expr::bool(true),
        IterMapLevel::Surjective
    )
    .is_success());
}

#[test]
fn unused_loops_break_bijectivity() {
    let (i, j) = (var("i"), var("j"));
    let iters = loops(&[(&i, 8), (&j, 2)]);
    assert!(!detect(
        &[i.to_expr()],
        &iters,
        Expr::bool(true),
        IterMapLevel::Bijective
    )
    .is_success());
    assert!(detect(
        &[i.to_expr()],
        &iters,
        Expr::bool(true),
        IterMapLevel::Surjective
    )
    .is_success());
}

#[test]
fn overlapping_or_non_affine_bindings_are_refused() {
    let (i, j) = (var("i"), var("j"));
    let iters = loops(&[(&i, 8), (&j, 4)]);
    let overlap = [i.to_expr(), op(BinaryOp::Add, i.to_expr(), c(1))];
    assert!(!detect(&overlap, &iters, Expr::bool(true), IterMapLevel::Surjective).is_success());
    let product = [op(BinaryOp::Mul, i.to_expr(), j.to_expr())];
    assert!(!detect(&product, &iters, Expr::bool(true), IterMapLevel::Surjective).is_success());
    let clipped = [op(BinaryOp::Min, i.to_expr(), c(3))];
    assert!(!detect(&clipped, &iters, Expr::bool(true), IterMapLevel::Surjective).is_success());
    let uneven = [op(BinaryOp::FloorDiv, i.to_expr(), c(3))];
    assert!(!detect(&uneven, &iters, Expr::bool(true), IterMapLevel::Surjective).is_success());
    let not_a_bound = op(BinaryOp::Eq, i.to_expr(), c(3));
    assert!(!detect(
        &[i.to_expr()],
        &iters,
        not_a_bound,
        IterMapLevel::Surjective
    )
    .is_success());
}

#[test]
fn loops_starting_away_from_zero_keep_their_offset() {
    let i = var("i");
    let iters = vec![(i.clone(), Range::new(c(2), c(8)))];
    let result = detect(
        &[i.to_expr()],
        &iters,
        Expr::bool(true),
        IterMapLevel::Bijective,
    );
    assert!(result.is_success(), "{:?}", result.errors);
    assert_eq!(result.indices[0].base.as_int(), Some(2));
}

#[test]
fn iter_map_simplify_merges_digits_of_one_loop() {
    let f = var("f");
    let quotient = op(
        BinaryOp::Mul,
        op(BinaryOp::FloorDiv, f.to_expr(), c(128)),
        c(128),
    );
    let index = op(
        BinaryOp::Add,
        quotient,
        op(BinaryOp::FloorMod, f.to_expr(), c(128)),
    );
    let simplified = iter_map_simplify(
        &[index],
        &loops(&[(&f, 4096)]),
        &Expr::bool(true),
        IterMapLevel::Surjective,
        &Analyzer::new(),
        true,
    )
    .expect("an affine form");
    assert_eq!(simplified[0].to_string(), "f");
}

fn realize(values: Vec<Expr>, predicate: Expr) -> BlockRealize {
    BlockRealize {
        iter_values: values,
        predicate,
        block: Block {
            id: NodeId::fresh(),
            name: "B".to_string(),
            iter_vars: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
            init: None,
            alloc_buffers: Vec::new(),
            match_buffers: Vec::new(),
            annotations: Vec::new(),
            body: Stmt::no_op(),
        },
    }
}

fn for_loop(var: &Var, extent: i64) -> For {
    For {
        id: NodeId::fresh(),
        loop_var: var.clone(),
        min: c(0),
        extent: c(extent),
        kind: ForKind::Serial,
        thread: None,
        annotations: Vec::new(),
        body: Stmt::no_op(),
    }
}

#[test]
fn block_bindings_from_split_and_fuse_are_affine() {
    let (i0, i1) = (var("i_0"), var("i_1"));
    let enclosing = [for_loop(&i0, 4), for_loop(&i1, 32)];
    let split = realize(vec![fused_index(&i0, &i1, 32)], Expr::bool(true));
    assert!(is_affine_binding(&split, &enclosing));
    let guarded = realize(
        vec![fused_index(&i0, &i1, 32)],
        op(BinaryOp::Lt, fused_index(&i0, &i1, 32), c(100)),
    );
    assert!(is_affine_binding(&guarded, &enclosing));
    let scaled = realize(
        vec![op(BinaryOp::Mul, i0.to_expr(), c(2))],
        Expr::bool(true),
    );
    assert!(!is_affine_binding(&scaled, &enclosing));
    let opaque = realize(
        vec![op(BinaryOp::Min, i0.to_expr(), i1.to_expr())],
        Expr::bool(true),
    );
    assert!(!is_affine_binding(&opaque, &enclosing));
    assert!(is_affine_binding(&opaque, &[]));
}

/// The inverse of a bijective map evaluated at every point gives back the
/// point: `inverse(map(p)) == p`.
fn check_inverse(indices: &[Expr], iters: &[(Var, Range)]) {
    let detected = detect(indices, iters, Expr::bool(true), IterMapLevel::Bijective);
    assert!(detected.is_success(), "{:?}", detected.errors);
    let outputs: Vec<Var> = (0..indices.len()).map(|k| var(&format!("y{k}"))).collect();
    let output_exprs: Vec<Expr> = outputs.iter().map(Var::to_expr).collect();
    let inverse = inverse_affine_iter_map(&detected.indices, &output_exprs).expect("an inverse");
    assert_eq!(inverse.len(), iters.len());
    let extents: Vec<i64> = iters
        .iter()
        .map(|(_, r)| r.extent.as_int().unwrap())
        .collect();
    let total: i64 = extents.iter().product();
    let analyzer = Analyzer::new();
    for flat in 0..total {
        let mut point = Vec::new();
        let mut rest = flat;
        for extent in extents.iter().rev() {
            point.push(rest % extent);
            rest /= extent;
        }
        point.reverse();
        let at_point: crate::ir::identity::VarMap<Expr> = iters
            .iter()
            .zip(&point)
            .map(|((v, _), value)| (v.clone(), c(*value)))
            .collect();
        let mapped: crate::ir::identity::VarMap<Expr> = outputs
            .iter()
            .zip(indices)
            .map(|(y, index)| {
                let value = crate::ir::mutate::substitute(index, &at_point);
                (y.clone(), analyzer.simplify(&value))
            })
            .collect();
        for ((input, _), value) in iters.iter().zip(&point) {
            let (_, expr) = inverse
                .iter()
                .find(|(v, _)| v == input)
                .expect("every input");
            let back = analyzer.simplify(&crate::ir::mutate::substitute(expr, &mapped));
            assert_eq!(
                back.as_int(),
                Some(*value),
                "{} at {point:?}: {expr}",
                input.name()
            );
        }
    }
}

#[test]
fn the_inverse_of_a_split_fuse_and_permutation_gives_every_point_back() {
    let (i, j, k) = (var("i"), var("j"), var("k"));
    // Split: (i // 4, i % 4, j).
    check_inverse(
        &[
            op(BinaryOp::FloorDiv, i.to_expr(), c(4)),
            op(BinaryOp::FloorMod, i.to_expr(), c(4)),
            j.to_expr(),
        ],
        &loops(&[(&i, 8), (&j, 3)]),
    );
    // Fuse and permute: (k, i * 3 + j).
    check_inverse(
        &[k.to_expr(), fused_index(&i, &j, 3)],
        &loops(&[(&i, 4), (&j, 3), (&k, 2)]),
    );
    // A fused index split differently: ((i * 6 + j) // 4, (i * 6 + j) % 4).
    let fused = fused_index(&i, &j, 6);
    check_inverse(
        &[
            op(BinaryOp::FloorDiv, fused.clone(), c(4)),
            op(BinaryOp::FloorMod, fused, c(4)),
        ],
        &loops(&[(&i, 2), (&j, 6)]),
    );
}

#[test]
fn a_map_with_holes_has_no_inverse_even_when_detection_accepts_it() {
    // `i * 2` over a unit extent is detected, but its digit is scaled by 2
    // with nothing inside it (TVM's CheckFusePattern refuses it too).
    let i = var("i");
    let scaled = op(BinaryOp::Mul, i.to_expr(), c(2));
    let detected = detect(
        &[scaled],
        &loops(&[(&i, 1)]),
        Expr::bool(true),
        IterMapLevel::Bijective,
    );
    if detected.is_success() {
        assert!(inverse_affine_iter_map(&detected.indices, &[var("y").to_expr()]).is_none());
    }
}
