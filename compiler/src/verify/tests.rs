//! Unit tests of rules that text cannot reach (the frontend builds IR that
//! satisfies them by construction) but a pass could break.

use super::codes;
use crate::check::{check_source, CheckOptions};
use crate::diagnostics::Diagnostic;
use crate::source::SourceMap;

fn check(text: &str) -> Vec<Diagnostic> {
    let mut sources = SourceMap::new();
    check_source(&mut sources, "test.tir", text, &CheckOptions::default()).diagnostics
}

#[test]
fn a_valid_matmul_has_no_diagnostics() {
    let text = r#"@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
    assert_eq!(check(text), Vec::new());
    let _ = codes::ALL;
}

use crate::frontend::parse_program;
use crate::ir::{BinaryOp, Expr, ExprKind, IRModule, PrimFunc, Stmt, StmtKind, Var};

const COPY: &str = r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#;

fn parse(text: &str) -> IRModule {
    let mut sources = SourceMap::new();
    let (program, diagnostics) = parse_program(&mut sources, "test.tir", text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    program.expect("a program").module
}

fn codes_of(module: &IRModule) -> Vec<String> {
    super::verify_module(module, &CheckOptions::default())
        .into_iter()
        .map(|d| d.code)
        .collect()
}

/// The loop and block realize of `COPY`.
fn loop_and_realize(function: &PrimFunc) -> (crate::ir::For, crate::ir::BlockRealize) {
    // The frontend wraps block-level bodies in the implicit root block.
    let body = match function.root_block() {
        Some(root) => root.body.clone(),
        None => function.body.clone(),
    };
    let for_loop = body.as_for().expect("a loop").clone();
    let realize = for_loop.body.as_block_realize().expect("a block").clone();
    (for_loop, realize)
}

fn with_body(module: &IRModule, body: Stmt) -> IRModule {
    let mut module = module.clone();
    module.functions[0].body = body;
    module
}

#[test]
fn the_copy_program_is_clean() {
    assert_eq!(codes_of(&parse(COPY)), Vec::<String>::new());
}

#[test]
fn a_block_without_one_binding_per_iteration_variable_is_refused() {
    let module = parse(COPY);
    let (for_loop, mut realize) = loop_and_realize(&module.functions[0]);
    realize.iter_values.clear();
    let body = Stmt::for_loop(crate::ir::For {
        body: Stmt::block_realize(realize),
        ..for_loop
    });
    assert!(codes_of(&with_body(&module, body)).contains(&codes::BINDING_COUNT.to_string()));
}

#[test]
fn an_iteration_variable_used_after_its_block_is_out_of_scope() {
    let module = parse(COPY);
    let function = &module.functions[0];
    let (for_loop, realize) = loop_and_realize(function);
    let vi = realize.block.iter_vars[0].var.clone();
    let (a, b) = (&function.buffer_map[0].1, &function.buffer_map[1].1);
    let after = Stmt::store(b, Expr::load(a, vec![vi.to_expr()]), vec![Expr::i32(0)]);
    let body = Stmt::seq(vec![Stmt::for_loop(for_loop), after]);
    let codes = codes_of(&with_body(&module, body));
    assert!(
        codes.contains(&codes::OUT_OF_SCOPE.to_string()),
        "{codes:?}"
    );
}

#[test]
fn a_buffer_allocated_in_a_block_and_used_outside_it_is_refused() {
    let text = r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            X = T.alloc_buffer((128,), "float32")
            X[vi] = A[vi]
            B[vi] = X[vi]
"#;
    let module = parse(text);
    let function = &module.functions[0];
    let (for_loop, realize) = loop_and_realize(function);
    let x = realize.block.alloc_buffers[0].clone();
    let b = &function.buffer_map[1].1;
    let after = Stmt::store(b, Expr::load(&x, vec![Expr::i32(0)]), vec![Expr::i32(0)]);
    let body = Stmt::seq(vec![Stmt::for_loop(for_loop), after]);
    let codes = codes_of(&with_body(&module, body));
    assert!(
        codes.contains(&codes::BUFFER_OUT_OF_SCOPE.to_string()),
        "{codes:?}"
    );
}

#[test]
fn operands_of_different_types_are_refused() {
    let module = parse(COPY);
    let function = &module.functions[0];
    let a = &function.buffer_map[0].1;
    let mixed = Expr::binary(
        BinaryOp::Add,
        Expr::load(a, vec![Expr::i32(0)]),
        Expr::i32(1),
    );
    let store = Stmt::store(a, mixed, vec![Expr::i32(0)]);
    let codes = codes_of(&with_body(&module, store));
    assert!(
        codes.contains(&codes::OPERAND_TYPES_DIFFER.to_string()),
        "{codes:?}"
    );
}

#[test]
fn a_buffer_bound_to_a_scalar_parameter_is_refused() {
    let mut module = parse(COPY);
    let function = &mut module.functions[0];
    let scalar = Var::new("n", crate::ir::DataType::int32(), crate::source::Span::NONE);
    function.params.push(scalar.clone());
    let buffer = function.buffer_map[0].1.clone();
    function.buffer_map.push((scalar, buffer));
    let codes = codes_of(&module);
    assert!(codes.contains(&codes::BUFFER_MAP.to_string()), "{codes:?}");
}

#[test]
fn one_undefined_variable_gives_one_diagnostic() {
    let module = parse(COPY);
    let function = &module.functions[0];
    let a = &function.buffer_map[0].1;
    let n = Var::new("n", crate::ir::DataType::int32(), crate::source::Span::NONE);
    let stores: Vec<Stmt> = (0..3)
        .map(|_| Stmt::store(a, Expr::load(a, vec![n.to_expr()]), vec![n.to_expr()]))
        .collect();
    let codes = codes_of(&with_body(&module, Stmt::seq(stores)));
    let undefined = codes
        .iter()
        .filter(|c| *c == codes::UNDEFINED_VARIABLE)
        .count();
    assert_eq!(undefined, 1, "{codes:?}");
}

#[test]
fn every_verifier_code_is_distinct_and_well_formed() {
    let mut seen = std::collections::HashSet::new();
    for code in codes::ALL {
        assert!(seen.insert(*code), "{code} twice");
        assert!(code.starts_with("E02") || code.starts_with("W02"), "{code}");
    }
    let _ = (ExprKind::Int(0), StmtKind::Seq(Vec::new()));
}

/// A function over symbolic `n` and `m` whose one loop of `extent` binds
/// `vi` (declared over `vi_extent`) and `vj` (over `m`) to `vi_value` and `vj_value`.
fn fused_bindings(extent: &str, vi_extent: &str, vi_value: &str, vj_value: &str) -> String {
    format!(
        r#"@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    m = T.int32()
    A = T.match_buffer(a, (n, m))
    B = T.match_buffer(b, (n, m))
    for f in range({extent}):
        with T.block("B"):
            vi = T.axis.spatial({vi_extent}, {vi_value})
            vj = T.axis.spatial(m, {vj_value})
            B[vi, vj] = A[vi, vj]
"#
    )
}

fn binding_errors(text: &str) -> usize {
    check(text)
        .iter()
        .filter(|d| d.code == codes::BINDING_OUT_OF_DOMAIN)
        .count()
}

/// `template` with its `{predicate}` replaced.
fn with_predicate(template: &str, predicate: &str) -> String {
    template.replace("{predicate}", predicate)
}

/// Asserts that the verifier finds every binding of `text` inside its domain.
fn assert_bindings_accepted(text: &str) {
    assert_eq!(binding_errors(text), 0, "{:?}", check(text));
}

#[test]
fn a_fused_symbolic_loop_binds_inside_its_domains() {
    // Interval evaluation alone cannot bound `f // m` by `n` without knowing
    // `m > 0`; the affine form of the bindings can.
    assert_bindings_accepted(&fused_bindings("n * m", "n", "f // m", "f % m"));
}

#[test]
fn the_affine_form_does_not_excuse_a_domain_that_is_too_small() {
    // `f // m` takes n values, not m.
    assert_eq!(
        binding_errors(&fused_bindings("n * m", "m", "f // m", "f % m")),
        1
    );
    // The loop covers twice the space the bindings' domains declare.
    assert_eq!(
        binding_errors(&fused_bindings("n * m * 2", "n", "f // m", "f % m")),
        1
    );
}

#[test]
fn a_floor_division_that_does_not_divide_the_loop_is_refused() {
    let text = r#"@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((3,), "float32")):
    for i in range(10):
        with T.block("B"):
            vi = T.axis.spatial(3, i // 3)
            B[vi] = A[i]
"#;
    // `i // 3` reaches 3 at i = 9.
    assert_eq!(binding_errors(text), 1);
}

/// The loops a non-dividing split and a fuse leave (see
/// tests/schedule/split_predicate_then_fuse.tir), with the block's
/// condition left as `{predicate}`.
const PREDICATED_FUSED_BINDING: &str = r#"@T.prim_func
def main(A: T.Buffer((2048,), "float32")):
    for i_0_0, fused, i_1_1 in T.grid(22, 48, 2):
        with T.block("A"):
            vi = T.axis.spatial(2048, i_0_0 * 96 + fused * 2 + i_1_1)
            T.where({predicate})
            A[vi] = T.float32(0)
"#;

#[test]
fn a_predicate_on_a_scaled_part_of_a_binding_bounds_it() {
    // vi = 32 * (i_0_0 * 3 + fused // 16) + fused % 16 * 2 + i_1_1 <= 32 * 63 + 31.
    assert_bindings_accepted(&with_predicate(
        PREDICATED_FUSED_BINDING,
        "i_0_0 * 3 + fused // 16 < 64",
    ));
}

#[test]
fn a_predicate_too_loose_for_the_domain_still_leaves_the_binding_outside() {
    // One more outer value reaches 32 * 64 + 31 = 2079.
    assert_eq!(
        binding_errors(&with_predicate(
            PREDICATED_FUSED_BINDING,
            "i_0_0 * 3 + fused // 16 < 65"
        )),
        1
    );
    // A bound on another sum says nothing about this one.
    assert_eq!(
        binding_errors(&with_predicate(
            PREDICATED_FUSED_BINDING,
            "i_0_0 * 2 + fused // 16 < 64"
        )),
        1
    );
}

/// A unit loop split by 16, fused and split by 5 (see
/// tests/schedule/unit_loop_split_fuse_resplit.tir), with the block's
/// condition left as `{predicate}`.
const RESPLIT_UNIT_BINDING: &str = r#"@T.prim_func
def main(C: T.Buffer((1,), "float32"), D: T.Buffer((1,), "float32")):
    for f_0, f_1 in T.grid(4, 5):
        with T.block("D"):
            v_b = T.axis.spatial(1, f_0 * 5 + f_1)
            T.where({predicate})
            D[v_b] = C[v_b]
"#;

#[test]
fn a_remainder_bounded_by_another_conjunct_bounds_the_binding() {
    // With `x < 16`, `x % 16 < 1` says `x < 1`.
    assert_bindings_accepted(&with_predicate(
        RESPLIT_UNIT_BINDING,
        "(f_0 * 5 + f_1) % 16 < 1 and f_0 * 5 + f_1 < 16",
    ));
}

#[test]
fn a_remainder_is_not_read_as_its_dividend_without_a_bound_below_the_divisor() {
    // x = 16 passes `x % 16 < 1 and x < 17`.
    assert_eq!(
        binding_errors(&with_predicate(
            RESPLIT_UNIT_BINDING,
            "(f_0 * 5 + f_1) % 16 < 1 and f_0 * 5 + f_1 < 17"
        )),
        1
    );
    // Alone, `x % 16 < 1` admits x = 16.
    assert_eq!(
        binding_errors(&with_predicate(
            RESPLIT_UNIT_BINDING,
            "(f_0 * 5 + f_1) % 16 < 1"
        )),
        1
    );
}

/// Three symbolic loops fused into `f_0`, next to `g` of `0:12` that
/// the block's condition `{predicate}` restricts (see
/// tests/schedule/symbolic_unit_loop_pinned_by_predicate.tir).
const SYMBOLIC_BINDING_BESIDE: &str = r#"@T.prim_func
def main(a: T.handle, c: T.handle):
    n = T.int32()
    m = T.int32()
    A = T.match_buffer(a, (n, m))
    C = T.match_buffer(c, (n, m))
    for f_0, u, g in T.grid(n * m, 1, 12):
        with T.block("C"):
            v_i = T.axis.spatial(n, (f_0 + g) // m)
            v_j = T.axis.spatial(m, (f_0 + g) % m)
            T.where({predicate})
            C[v_i, v_j] = A[v_i, v_j]
"#;

#[test]
fn a_loop_the_predicate_keeps_at_one_value_is_read_as_that_value() {
    // `u * 12 + g < 1` leaves g = 0, so the bindings are those of `f_0` alone.
    assert_bindings_accepted(&with_predicate(SYMBOLIC_BINDING_BESIDE, "u * 12 + g < 1"));
}

#[test]
fn a_loop_the_predicate_leaves_two_values_is_not_pinned() {
    // g = 1 with f_0 = n * m - 1 reaches row n.
    let diagnostics = check(&with_predicate(SYMBOLIC_BINDING_BESIDE, "u * 12 + g < 2"));
    assert!(
        diagnostics
            .iter()
            .any(|d| d.code == codes::BINDING_OUT_OF_DOMAIN && d.message.contains("`v_i`")),
        "{diagnostics:?}"
    );
}
