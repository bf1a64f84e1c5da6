//! Bad programs end in errors that say what and where, never in a panic or
//! a hang.

use super::build::*;
use super::{eval_closed, run, zeros};
use crate::interp::{run_function_with_options, Arg, InterpOptions};
use crate::ir::{BinaryOp, DataType, Expr, Stmt, StmtKind, Var};
use crate::source::{FileId, Span};

#[test]
fn out_of_bounds_store_names_the_buffer_and_indices() {
    let f32 = DataType::float32();
    let c = buffer("C", f32, &[4, 3]);
    let (i, j) = (int_var("i"), int_var("j"));
    let at = Span::new(FileId(0), 40, 52);
    let write = Stmt::new(
        StmtKind::BufferStore(crate::ir::BufferStore {
            buffer: c.clone(),
            value: float32(1.0),
            indices: vec![use_var(&i), use_var(&j)],
        }),
        at,
    );
    // j runs to 4 but C's second dimension is 3.
    let func = function(&[&c], &[], serial(&i, 4, serial(&j, 4, write)));
    let error = run(&func, vec![zeros(f32, &[4, 3])]).unwrap_err();
    assert_eq!(
        error.message,
        "out-of-bounds store to buffer `C` at [0, 3]: index 3 of dimension 1 is outside [0, 3) (shape [4, 3])"
    );
    assert_eq!(error.span, at);
    assert_eq!(error.to_diagnostic().span, at);
}

#[test]
fn runaway_loop_stops_at_the_step_budget() {
    let forever = Stmt::new(
        StmtKind::While {
            condition: Expr::bool(true),
            body: evaluate(int(0)),
        },
        Span::NONE,
    );
    let options = InterpOptions {
        step_budget: 10_000,
        ..InterpOptions::default()
    };
    let error =
        run_function_with_options(&function(&[], &[], forever), &mut [], &options).unwrap_err();
    assert!(
        error.message.contains("more than 10000 statements"),
        "{error}"
    );
    // A huge but finite loop stops the same way.
    let i = int_var("i");
    let huge = loop_of_kind(
        &i,
        Expr::int(1 << 40, DataType::int64()),
        crate::ir::ForKind::Serial,
        evaluate(int(0)),
    );
    let huge = Stmt::seq(vec![huge]);
    let error =
        run_function_with_options(&function(&[], &[], huge), &mut [], &options).unwrap_err();
    assert!(error.message.contains("statements"), "{error}");
}

#[test]
fn external_calls_cannot_run() {
    let call_extern = call(
        "call_extern",
        vec![Expr::string("my_kernel"), int(1)],
        DataType::int32(),
    );
    let error = run(&function(&[], &[], evaluate(call_extern)), vec![]).unwrap_err();
    assert!(
        error.message.contains("T.call_extern(\"my_kernel\""),
        "{error}"
    );
}

#[test]
fn unbound_variables_and_ill_typed_operations_are_errors() {
    let stray = Var::new("stray", DataType::int32(), Span::new(FileId(1), 5, 10));
    let error = eval_closed(&(use_var(&stray) + int(1))).unwrap_err();
    assert!(
        error.message.contains("variable `stray` has no value"),
        "{error}"
    );
    assert_eq!(error.span, Span::new(FileId(1), 5, 10));

    let mixed = binary(BinaryOp::Add, int(1), Expr::int(1, DataType::int64()));
    assert!(eval_closed(&mixed)
        .unwrap_err()
        .message
        .contains("different types"));
    let string_math = binary(BinaryOp::Add, Expr::string("x"), int(1));
    assert!(eval_closed(&string_math).is_err());
    let void = Expr::int(0, DataType::void());
    assert!(eval_closed(&void).is_err());
}

#[test]
fn wrong_index_counts_and_types_are_errors() {
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[4, 4]);
    let one_index = evaluate(load(&a, vec![int(0)]));
    let error = run(&function(&[&a], &[], one_index), vec![zeros(f32, &[4, 4])]).unwrap_err();
    assert!(
        error.message.contains("1 indices, but it has 2 dimensions"),
        "{error}"
    );
    let float_index = evaluate(load(&a, vec![float32(0.0), int(0)]));
    let error = run(
        &function(&[&a], &[], float_index),
        vec![zeros(f32, &[4, 4])],
    )
    .unwrap_err();
    assert!(error.message.contains("not an integer"), "{error}");
    let wrong_type = store(&a, vec![int(0), int(0)], int(1));
    let error = run(&function(&[&a], &[], wrong_type), vec![zeros(f32, &[4, 4])]).unwrap_err();
    assert!(
        error
            .message
            .contains("store of a int32 value into buffer `A`"),
        "{error}"
    );
}

#[test]
fn allocations_beyond_the_memory_limit_are_refused() {
    let f32 = DataType::float32();
    let data = Var::pointer("huge", f32, "global", Span::NONE);
    let body = allocate(&data, f32, &[1 << 20, 1 << 20], evaluate(int(0)));
    let error = run(&function(&[], &[], body), vec![]).unwrap_err();
    assert!(error.message.contains("memory limit"), "{error}");
    let negative = allocate(&data, f32, &[-4], evaluate(int(0)));
    let error = run(&function(&[], &[], negative), vec![]).unwrap_err();
    assert!(error.message.contains("no size"), "{error}");
}

#[test]
fn scalar_arguments_must_fit_their_type() {
    let small = Var::new("small", DataType::int(8), Span::NONE);
    let func = function(&[], &[&small], evaluate(int(0)));
    run(&func, vec![Arg::Int(-128)]).unwrap();
    let error = run(&func, vec![Arg::Int(200)]).unwrap_err();
    assert!(error.message.contains("cannot hold 200"), "{error}");
    let error = run(&func, vec![Arg::Float(1.5)]).unwrap_err();
    assert!(error.message.contains("float 1.5"), "{error}");
}
