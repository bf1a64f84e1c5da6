//! Unit tests of single passes on small programs: each runs one pass and
//! compares the printed function with the expected text, or checks the
//! diagnostic a pass gives for input it refuses.

use super::{codes, LowerOptions, PIPELINE};
use crate::ir::{IRModule, PrimFunc};
use crate::printer::{print_function, Dialect, PrintOptions};

fn parse(text: &str) -> IRModule {
    let mut sources = crate::source::SourceMap::default();
    let (program, diagnostics) = crate::frontend::parse_program(&mut sources, "test.tir", text);
    assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
    program.expect("the test program parses").module
}

fn pass(name: &str) -> &'static super::Pass {
    PIPELINE
        .iter()
        .find(|p| p.name == name)
        .expect("a pass of that name")
}

/// Runs the named passes in order on the only function of `text`.
fn run_passes(names: &[&str], text: &str) -> Result<PrimFunc, Vec<crate::diagnostics::Diagnostic>> {
    let module = parse(text);
    let mut func = module.functions[0].clone();
    for name in names {
        func = super::apply(pass(name), &func, &LowerOptions::default())?;
    }
    Ok(func)
}

/// The body lines of the printed function, without the signature.
fn body_text(func: &PrimFunc) -> String {
    let printed = print_function(func, &PrintOptions::new(Dialect::Classic));
    printed
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("def "))
        .skip(1)
        .filter(|line| !line.trim_start().starts_with("T.func_attr"))
        .map(|line| line.strip_prefix("    ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs the passes, checks that the result reads back in both dialects, and
/// compares the function body with `expected`.
fn check(names: &[&str], text: &str, expected: &str) {
    let func = run_passes(names, text).unwrap_or_else(|errors| panic!("{errors:#?}"));
    let actual = body_text(&func);
    // The tirx form leaves out what TVM 0.26 removed, so it reads back as
    // another function there.
    let dropped_in_tirx = actual.contains("axis_separators=") || actual.contains("buffer_type=");
    let dialects: &[Dialect] = if dropped_in_tirx {
        &[Dialect::Classic]
    } else {
        &[Dialect::Classic, Dialect::Tirx]
    };
    for &dialect in dialects {
        let module = IRModule {
            functions: vec![func.clone()],
            ..IRModule::default()
        };
        crate::schedule::step_check::check_module(&module, dialect, &[])
            .unwrap_or_else(|problem| panic!("the result does not read back: {problem}"));
    }
    let expected = expected.trim_matches('\n');
    assert_eq!(actual, expected, "\nactual:\n{actual}\n");
}

const BLOCKS_TO_FLAT: &[&str] = &[
    "lower-init-block",
    "plan-buffer-allocation",
    "convert-blocks-to-opaque",
    "compact-buffer-allocation",
    "lower-match-buffer",
    "lower-opaque-block",
    "flatten-buffer",
];

#[test]
fn flattening_a_block_is_refused_with_the_pass_to_run_first() {
    let errors = run_passes(
        &["flatten-buffer"],
        r#"
@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.float32(1.0)
"#,
    )
    .expect_err("blocks cannot be flattened");
    assert_eq!(errors[0].code, codes::WRONG_STAGE);
    assert!(errors[0].message.contains("block `root`") || errors[0].message.contains("block `A`"));
    assert_eq!(
        errors[0].help.as_deref(),
        Some("run `lower-opaque-block` first")
    );
}

#[test]
fn lowering_a_block_with_iteration_variables_is_refused() {
    let errors = run_passes(
        &["lower-init-block", "lower-opaque-block"],
        r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(1.0)
"#,
    )
    .expect_err("iteration variables must be converted first");
    assert_eq!(errors[0].code, codes::WRONG_STAGE);
    assert!(
        errors[0].message.contains("iteration variables"),
        "{}",
        errors[0].message
    );
}

#[test]
fn a_match_buffer_whose_shape_contradicts_its_region_is_reported() {
    let errors = run_passes(
        BLOCKS_TO_FLAT,
        r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for io in range(2):
        with T.block("tile"):
            vio = T.axis.spatial(2, io)
            T.reads()
            T.writes(A[vio * 4:vio * 4 + 4])
            At = T.match_buffer(A[vio * 4:vio * 4 + 4], (3,))
            for ii in range(3):
                At[ii] = T.float32(0.0)
"#,
    )
    .expect_err("a view of 3 elements over a region of 4");
    assert_eq!(errors[0].code, codes::MATCH_BUFFER_MISMATCH);
    assert!(errors[0].message.contains("`At`"), "{}", errors[0].message);
}

#[test]
fn init_of_a_block_without_reduction_variables_runs_unconditionally() {
    check(
        &[
            "lower-init-block",
            "convert-blocks-to-opaque",
            "lower-opaque-block",
        ],
        r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            with T.init():
                A[vi] = T.float32(0.0)
            A[vi] = A[vi] + T.float32(1.0)
"#,
        r#"
for i in range(4):
    A[i] = T.float32(0.0)
    A[i] = A[i] + T.float32(1.0)"#,
    );
}

#[test]
fn a_loop_dependent_extent_is_allocated_for_its_largest_value() {
    // The tail tile of a split that does not divide 10 uses fewer than 4
    // elements; the allocation takes the largest tile.
    check(
        BLOCKS_TO_FLAT,
        r#"
@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for io in range(3):
        with T.block("tile"):
            vio = T.axis.spatial(3, io)
            T.reads(A[vio * 4:vio * 4 + 4])
            T.writes(B[vio * 4:vio * 4 + 4])
            S = T.alloc_buffer((10,))
            for ii in range(4):
                with T.block("S"):
                    T.where(vio * 4 + ii < 10)
                    v = T.axis.spatial(10, vio * 4 + ii)
                    S[v] = A[v]
            for ii in range(4):
                with T.block("B"):
                    T.where(vio * 4 + ii < 10)
                    v = T.axis.spatial(10, vio * 4 + ii)
                    B[v] = S[v] * T.float32(2.0)
"#,
        r#"
for io in range(3):
    S = T.decl_buffer((4,))
    for ii in range(4):
        if io * 4 + ii < 10:
            S[ii] = A[io * 4 + ii]
    for ii in range(4):
        if io * 4 + ii < 10:
            B[io * 4 + ii] = S[ii] * T.float32(2.0)"#,
    );
}

#[test]
fn vectorization_keeps_the_loop_when_lanes_would_see_each_other() {
    // Lane k reads what lane k - 1 wrote in the serial loop.
    check(
        &["vectorize"],
        r#"
@T.prim_func
def main(A: T.Buffer((9,), "float32")):
    for i in T.vectorized(8):
        A[i + 1] = A[i] * T.float32(2.0)
"#,
        r#"
for i in T.vectorized(8):
    A[i + 1] = A[i] * T.float32(2.0)"#,
    );
}

#[test]
fn vectorization_keeps_the_loop_under_a_lane_dependent_condition() {
    check(
        &["vectorize"],
        r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in T.vectorized(8):
        if i < 5:
            A[i] = T.float32(1.0)
"#,
        r#"
for i in T.vectorized(8):
    if i < 5:
        A[i] = T.float32(1.0)"#,
    );
}

#[test]
fn vectorization_broadcasts_invariants_and_folds_ramp_division() {
    check(
        &["vectorize"],
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((4,), "float32")):
    for o in range(4):
        for i in T.vectorized(16):
            A[o * 16 + i] = A[o * 16 + i] + B[(o * 16 + i) // 16]
"#,
        r#"
for o in range(4):
    A[o * 16:o * 16 + 16] = A[T.Ramp(o * 16, 1, 16)] + T.Broadcast(B[o * 16 // 16], 16)"#,
    );
}

#[test]
fn an_unrolled_loop_without_a_constant_extent_stays_a_loop() {
    check(
        &["unroll"],
        r#"
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in T.unroll(n):
        A[i] = T.float32(0.0)
"#,
        r#"
for i in T.unroll(n):
    A[i] = T.float32(0.0)"#,
    );
}

#[test]
fn unrolled_copies_define_fresh_variables() {
    let func = run_passes(
        &["unroll"],
        r#"
@T.prim_func
def main(A: T.Buffer((2, 3), "float32")):
    for i in T.unroll(2):
        for j in range(3):
            A[i, j] = T.float32(0.0)
"#,
    )
    .unwrap();
    let StmtKind::Seq(copies) = func.body.kind() else {
        panic!("two copies expected: {:?}", func.body);
    };
    let loop_vars: Vec<_> = copies
        .iter()
        .filter_map(|s| s.as_for().map(|f| f.loop_var.clone()))
        .collect();
    assert_eq!(loop_vars.len(), 2);
    assert_ne!(loop_vars[0], loop_vars[1]);
    crate::schedule::step_check::check_module(
        &IRModule {
            functions: vec![func],
            ..IRModule::default()
        },
        Dialect::Classic,
        &[],
    )
    .unwrap();
}

#[test]
fn floor_division_becomes_shifts_or_truncating_division_where_exact() {
    check(
        &["lower-intrin"],
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32")):
    for i in range(64):
        B[i] = A[i] // 8 + A[i] % 8 + i // 3 + i % 3 + A[i] // 3
"#,
        r#"
for i in range(64):
    B[i] = (A[i] >> 3) + (A[i] & 7) + T.Div(i, 3) + T.truncmod(i, 3) + A[i] // 3"#,
    );
}

#[test]
fn math_builtins_without_a_back_end_function_are_expanded() {
    check(
        &["lower-intrin"],
        r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = T.sigmoid(A[i]) + T.rsqrt(A[i])
"#,
        r#"
for i in range(4):
    B[i] = T.float32(1.0) / (T.float32(1.0) + T.exp(A[i] * T.float32(-1.0))) + T.float32(1.0) / T.sqrt(A[i])"#,
    );
}

#[test]
fn simplify_removes_decided_conditions_and_unit_loops() {
    check(
        &["simplify"],
        r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in range(8):
        for j in range(1):
            if i + j < 8:
                A[i + j] = T.float32(1.0)
            if i >= 8:
                A[i] = T.float32(2.0)
"#,
        r#"
for i in range(8):
    A[i] = T.float32(1.0)"#,
    );
}

#[test]
fn axis_separators_give_one_flat_dimension_per_group() {
    check(
        &["flatten-buffer"],
        r#"
@T.prim_func
def main(A: T.Buffer((4, 4, 8), "float32", axis_separators=[2])):
    for i, j, k in T.grid(4, 4, 8):
        A[i, j, k] = T.float32(0.0)
"#,
        r#"
A_1 = T.decl_buffer((16, 8), data=A.data, axis_separators=[1])
for i, j, k in T.grid(4, 4, 8):
    A_1[i * 4 + j, k] = T.float32(0.0)"#,
    );
}

#[test]
fn a_buffer_written_elementwise_from_the_last_reads_of_another_takes_its_storage() {
    // X's last reads and Y's writes are one elementwise statement (the second
    // one a vector store), and Z follows Y the same way: all three share X's storage.
    check(
        &["reuse-storage"],
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    X = T.decl_buffer((64,))
    Y = T.decl_buffer((64,))
    Z = T.decl_buffer((64,))
    for i in range(64):
        X[i] = A[i] * T.float32(2.0)
    for i in T.parallel(16):
        Y[i * 4:i * 4 + 4] = X[T.Ramp(i * 4, 1, 4)] + X[T.Ramp(i * 4, 1, 4)]
    for i in range(64):
        Z[i] = T.max(Y[i], T.float32(0.0))
    for i in range(64):
        C[i] = Z[i]
"#,
        r#"
X = T.decl_buffer((64,))
Y = T.decl_buffer((64,), data=X.data)
Z = T.decl_buffer((64,), data=X.data)
for i in range(64):
    X[i] = A[i] * T.float32(2.0)
for i in T.parallel(16):
    Y[i * 4:i * 4 + 4] = X[T.Ramp(i * 4, 1, 4)] + X[T.Ramp(i * 4, 1, 4)]
for i in range(64):
    Z[i] = T.max(Y[i], T.float32(0.0))
for i in range(64):
    C[i] = Z[i]"#,
    );
}

#[test]
fn a_buffer_first_used_after_another_is_dead_takes_its_storage() {
    check(
        &["reuse-storage"],
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    X = T.decl_buffer((64,))
    Y = T.decl_buffer((64,))
    for i in range(64):
        X[i] = A[i] * T.float32(2.0)
    for i in range(64):
        C[63 - i] = X[i]
    for i in range(64):
        Y[63 - i] = A[i] * T.float32(3.0)
    for i in range(64):
        D[i] = Y[i]
"#,
        r#"
X = T.decl_buffer((64,))
Y = T.decl_buffer((64,), data=X.data)
for i in range(64):
    X[i] = A[i] * T.float32(2.0)
for i in range(64):
    C[63 - i] = X[i]
for i in range(64):
    Y[63 - i] = A[i] * T.float32(3.0)
for i in range(64):
    D[i] = Y[i]"#,
    );
}

#[test]
fn storage_is_not_shared_where_a_read_could_see_an_overwritten_element() {
    let cases = [
        // Y[i] is written from X[i + 1]: X[i + 1] is gone when i + 1's turn comes.
        "Y[i] = X[(i + 1) % 64]",
        // Every Y[i] is written twice, the second time from an X[i] already overwritten.
        "for r in range(2):\n            Y[i] = X[i] + T.float32(1.0)",
        // X is read again after Y is written.
        "Y[i] = X[i]\n    for i in range(64):\n        C[i] = X[i] + Y[i]",
        // X is read outside the store to Y.
        "C[i] = X[i]\n        Y[i] = X[i]",
        // Y is read before all of it is written.
        "Y[i] = X[i] + Y[63 - i]",
        // A while loop may write Y[i] more than once.
        "while C[0] < T.float32(3.0):\n            Y[i] = X[i] + T.float32(1.0)\n            C[0] = C[0] + T.float32(1.0)",
    ];
    let program_with = |case: &str| {
        format!(
            r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    X = T.decl_buffer((64,))
    Y = T.decl_buffer((64,))
    for i in range(64):
        X[i] = A[i]
    for i in range(64):
        {case}
    for i in range(64):
        C[i] = Y[i]
"#
        )
    };
    // The same program written elementwise shares.
    let control = run_passes(
        &["reuse-storage"],
        &program_with("Y[i] = X[i] + T.float32(1.0)"),
    );
    assert!(body_text(&control.expect("the pass runs")).contains("data=X.data"));
    for case in cases {
        let func = run_passes(&["reuse-storage"], &program_with(case)).expect("the pass runs");
        assert!(
            !body_text(&func).contains("data=X.data"),
            "shared storage for `{case}`:\n{}",
            body_text(&func)
        );
    }
}

#[test]
fn storage_is_shared_only_between_buffers_of_one_dtype_and_size() {
    for (y, store, load) in [
        (
            "(64,), \"int32\"",
            "T.Cast(\"int32\", A[i])",
            "T.Cast(\"float32\", Y[i])",
        ),
        ("(32,)", "A[i]", "Y[i]"),
    ] {
        let program = format!(
            r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    X = T.decl_buffer((64,))
    Y = T.decl_buffer({y})
    for i in range(64):
        X[i] = A[i]
    for i in range(32):
        C[i] = X[i]
    for i in range(32):
        Y[i] = {store}
    for i in range(32):
        C[i] = {load}
"#
        );
        let func = run_passes(&["reuse-storage"], &program).expect("the pass runs");
        assert!(
            !body_text(&func).contains("data=X.data"),
            "X and a {y} share"
        );
    }
}

#[test]
fn under_gpu_threads_only_thread_local_buffers_share_storage() {
    // Threads do not wait for one another, so a thread could read X[j]
    // after another thread wrote Y over it; a local buffer is the thread's own.
    for (scope, shared) in [("global", false), ("shared", false), ("local", true)] {
        let program = format!(
            r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for tx in T.thread_binding(64, thread="threadIdx.x"):
        X = T.decl_buffer((64,), scope="{scope}")
        Y = T.decl_buffer((64,), scope="{scope}")
        for j in range(64):
            X[j] = A[j]
        for j in range(64):
            Y[j] = X[j] + T.float32(1.0)
        C[tx] = Y[tx]
"#
        );
        let func = run_passes(&["reuse-storage"], &program).expect("the pass runs");
        assert_eq!(
            body_text(&func).contains("data=X.data"),
            shared,
            "{scope}:\n{}",
            body_text(&func)
        );
    }
}

use crate::ir::StmtKind;

/// The body of the only function of `text`, lowered and then instrumented with run-time checks.
fn checked_body(text: &str) -> String {
    let module = parse(text);
    let lowered = super::lower_function(&module.functions[0], &LowerOptions::default())
        .unwrap_or_else(|errors| panic!("{errors:#?}"));
    body_text(&super::instrument_runtime_checks::instrument_runtime_checks(&lowered))
}

#[test]
fn bound_checks_guard_accesses_a_symbolic_loop_may_push_out_of_bounds() {
    let text = r#"
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), n: T.int32):
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] * 2.0
"#;
    // `i >= 0` follows from the loop; `i <= 3` does not. The store to `B`
    // needs the same condition as the load from `A` before it: one assert.
    let expected = r#"
for i in range(n):
    assert T.Cast("int64", i) <= T.int64(3), ("IndexError", ["out-of-bounds load from `A`: the index reaches past its storage of 16 bytes"])
    B[i] = A[i] * T.float32(2.0)"#;
    assert_eq!(checked_body(text), expected.trim_matches('\n'));
}

#[test]
fn bound_checks_proven_by_constant_shapes_and_guards_cost_nothing() {
    // Both sides of the `if_then_else` stay inside `A` where they run; the
    // vector load's last lane is element 7 * 128 + 1 + 15 * 8 = 1017.
    let text = r#"
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.if_then_else(vi < 127, A[vi + 1, vj], A[vi, vj])
    for i in range(8):
        for j in T.vectorized(16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj * 8] = A[vi, vj * 8 + 1]
"#;
    let module = parse(text);
    let lowered = super::lower_function(&module.functions[0], &LowerOptions::default())
        .unwrap_or_else(|errors| panic!("{errors:#?}"));
    assert_eq!(checked_body(text), body_text(&lowered));
    assert!(!checked_body(text).contains("assert"));
}

#[test]
fn bound_checks_measure_a_view_by_the_storage_behind_it_and_respect_guards() {
    let text = r#"
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((2,), "float32"), m: T.int32):
    B_1 = T.decl_buffer((256,), data=B.data)
    for i in range(m):
        B_1[i] = T.if_then_else(i < 100, A[i + 28], A[i])
"#;
    // `A[i + 28]` runs only below 100, so it is proven; `A[i]` runs only at
    // 100 and above, so its check is skipped below 100.
    let expected = r#"
B_1 = B.view(256)
for i in range(m):
    assert i < 100 or T.Cast("int64", i) <= T.int64(127), ("IndexError", ["out-of-bounds load from `A`: the index reaches past its storage of 512 bytes"])
    assert T.Cast("int64", i) <= T.int64(1), ("IndexError", ["out-of-bounds store to `B_1`, a view of `B`: the index reaches past its storage of 8 bytes"])
    B_1[i] = T.if_then_else(i < 100, A[i + 28], A[i])"#;
    assert_eq!(checked_body(text), expected.trim_matches('\n'));
}

#[test]
fn bound_checks_that_a_loop_does_not_change_are_made_once_before_it() {
    let text = r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((8,), "float32"), m: T.int32):
    for i in range(m):
        for j in range(8):
            B[i] = B[i] + A[i * 8 + j]
        for j in range(m):
            B[i] = B[i] + A[j]
"#;
    // `B[i]` does not depend on `j`: its check leaves the loop that surely
    // runs, and stays in the one that may not (where `i` may be 8 while
    // nothing is accessed). The hoisted check scopes over the first loop
    // alone, so it prints in its `with` form.
    let expected = r#"
for i in range(m):
    with T.Assert(T.Cast("int64", i) <= T.int64(7), ("IndexError", ["out-of-bounds load from `B`: the index reaches past its storage of 32 bytes"])):
        for j in range(8):
            assert T.int64(0) <= T.int64(63) - T.Cast("int64", j) - T.Cast("int64", i) * T.int64(8), ("IndexError", ["out-of-bounds load from `A`: the index reaches past its storage of 256 bytes"])
            B[i] = B[i] + A[i * 8 + j]
    for j in range(m):
        assert T.Cast("int64", i) <= T.int64(7), ("IndexError", ["out-of-bounds load from `B`: the index reaches past its storage of 32 bytes"])
        assert T.Cast("int64", j) <= T.int64(63), ("IndexError", ["out-of-bounds load from `A`: the index reaches past its storage of 256 bytes"])
        B[i] = B[i] + A[j]"#;
    assert_eq!(checked_body(text), expected.trim_matches('\n'));
}

#[test]
fn division_checks_guard_zero_divisors_and_the_overflowing_quotient() {
    let text = r#"
@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), d: T.int32):
    for i in range(64):
        B[i] = A[i] // d + T.if_then_else(d > 0, A[i] % d, 0) + A[i] // 3
"#;
    // `d != 0` does not change in the loop, so it is checked once before
    // it; `MIN // -1` depends on `A[i]`. Under `d > 0` both are proven, and
    // a constant divisor needs no check.
    let expected = r#"
assert d != 0, ("ZeroDivisionError", ["integer division by zero"])
for i in range(64):
    assert not (A[i] == -2147483648 and d == -1), ("OverflowError", ["integer division overflow: -2147483648 divided by -1"])
    B[i] = A[i] // 3 + A[i] // d + T.if_then_else(0 < d, A[i] % d, 0)"#;
    assert_eq!(checked_body(text), expected.trim_matches('\n'));
}
