//! Lowered TIR: allocations, flattened buffer declarations aliasing storage,
//! thread launches, `while`, `let`, assertions and symbolic shapes.

use super::build::*;
use super::{floats, ints, run, zeros};
use crate::interp::{Arg, Tensor};
use crate::ir::{Buffer, BufferNode, DataType, Expr, StmtKind, Var};
use crate::source::Span;

/// A buffer over an existing data pointer (`T.decl_buffer(..., data=data)`).
fn alias(name: &str, data: &Var, dtype: DataType, shape: &[i64]) -> Buffer {
    buffer(name, dtype, shape).with(|node: &mut BufferNode| node.data = data.clone())
}

#[test]
fn allocate_and_decl_buffer_alias_storage_through_the_data_var() {
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[4, 4]);
    let b = buffer("B", f32, &[16]);
    // A viewed flat through its parameter's data pointer.
    let a_flat = alias("A_flat", a.data(), f32, &[16]);
    let scratch_data = Var::pointer("T", f32, "global", Span::NONE);
    let scratch = alias("T", &scratch_data, f32, &[16]);
    let (i, j, x) = (int_var("i"), int_var("j"), int_var("x"));
    let fill = serial(
        &x,
        16,
        store(
            &scratch,
            vec![use_var(&x)],
            load(&a_flat, vec![use_var(&x)]) + float32(1.0),
        ),
    );
    let flat = use_var(&i) * int(4) + use_var(&j);
    let reverse = serial(
        &i,
        4,
        serial(
            &j,
            4,
            store(&b, vec![flat.clone()], load(&scratch, vec![int(15) - flat])),
        ),
    );
    let body = decl_buffer(
        &a_flat,
        allocate(
            &scratch_data,
            f32,
            &[16],
            decl_buffer(&scratch, seq(vec![fill, reverse])),
        ),
    );
    let func = function(&[&a, &b], &[], body);
    let input: Vec<f32> = (0..16).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[4, 4], input).unwrap()),
        zeros(f32, &[16]),
    ];
    let args = run(&func, args).unwrap();
    let expected: Vec<f64> = (0..16).map(|x| (16 - x) as f64).collect();
    assert_eq!(floats(&args, 1), expected);
}

#[test]
fn decl_buffer_without_storage_allocates_poisoned_memory() {
    let f32 = DataType::float32();
    let b = buffer("B", f32, &[2]);
    let local = buffer("local", f32, &[2]);
    let body = decl_buffer(
        &local,
        seq(vec![
            store(&local, vec![int(0)], float32(5.0)),
            store(&b, vec![int(0)], load(&local, vec![int(0)])),
            store(&b, vec![int(1)], load(&local, vec![int(1)])),
        ]),
    );
    let args = run(&function(&[&b], &[], body), vec![zeros(f32, &[2])]).unwrap();
    let result = floats(&args, 0);
    assert_eq!(result[0], 5.0);
    assert!(result[1].is_nan());
}

#[test]
fn allocation_with_a_false_condition_has_no_storage() {
    let f32 = DataType::float32();
    let data = Var::pointer("T", f32, "global", Span::NONE);
    let scratch = alias("T", &data, f32, &[4]);
    let mut body = allocate(
        &data,
        f32,
        &[4],
        store(&scratch, vec![int(0)], float32(1.0)),
    );
    if let StmtKind::Allocate(node) = body.kind() {
        let mut node = node.clone();
        node.condition = Expr::bool(false);
        body = body.with_kind(StmtKind::Allocate(node));
    }
    let error = run(&function(&[], &[], body), vec![]).unwrap_err();
    assert!(error.message.contains("null data pointer"), "{error}");
}

#[test]
fn launched_threads_each_run_the_body() {
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[8]), buffer("B", f32, &[8]));
    let (block_x, thread_x) = (int_var("blockIdx.x"), int_var("threadIdx.x"));
    let index = use_var(&block_x) * int(4) + use_var(&thread_x);
    let body = launch_thread(
        &block_x,
        "blockIdx.x",
        2,
        launch_thread(
            &thread_x,
            "threadIdx.x",
            4,
            store(
                &b,
                vec![index.clone()],
                load(&a, vec![index]) * float32(3.0),
            ),
        ),
    );
    let input: Vec<f32> = (0..8).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[8], input).unwrap()),
        zeros(f32, &[8]),
    ];
    let args = run(&function(&[&a, &b], &[], body), args).unwrap();
    assert_eq!(
        floats(&args, 1),
        (0..8).map(|x| 3.0 * x as f64).collect::<Vec<_>>()
    );
}

fn barrier() -> crate::ir::Stmt {
    evaluate(call(
        "tvm_storage_sync",
        vec![Expr::string("shared")],
        DataType::int32(),
    ))
}

/// `allocate` of `dtype` in `scope` bound to a fresh data pointer, with a
/// buffer declared over it; `body` gets the buffer.
fn scoped_buffer(
    name: &str,
    scope: &str,
    dtype: DataType,
    extent: i64,
    body: impl FnOnce(&Buffer) -> crate::ir::Stmt,
) -> crate::ir::Stmt {
    let data = Var::pointer(name, dtype, scope, Span::NONE);
    let declared = alias(name, &data, dtype, &[extent])
        .with(|node: &mut BufferNode| node.scope = scope.to_string());
    let inner = body(&declared);
    allocate(&data, dtype, &[extent], decl_buffer(&declared, inner))
}

#[test]
fn threads_meeting_at_a_barrier_run_in_lock_step() {
    // Each block of 4 threads reverses its slice of A through shared memory,
    // twice, adding k, with barriers between writing and reading `S`.
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[8]), buffer("B", f32, &[8]));
    let (block_x, thread_x, k) = (int_var("blockIdx.x"), int_var("threadIdx.x"), int_var("k"));
    let global = use_var(&block_x) * int(4) + use_var(&thread_x);
    let kernel = scoped_buffer("S", "shared", f32, 4, |shared| {
        let write = store(
            shared,
            vec![use_var(&thread_x)],
            load(&a, vec![global.clone()]) + cast(f32, use_var(&k)),
        );
        let read = store(
            &b,
            vec![global.clone()],
            load(&b, vec![global.clone()]) + load(shared, vec![int(3) - use_var(&thread_x)]),
        );
        seq(vec![
            store(&b, vec![global.clone()], float32(0.0)),
            serial(&k, 2, seq(vec![write, barrier(), read, barrier()])),
        ])
    });
    let body = launch_thread(
        &block_x,
        "blockIdx.x",
        2,
        launch_thread(&thread_x, "threadIdx.x", 4, kernel),
    );
    let input: Vec<f32> = (0..8).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[8], input).unwrap()),
        zeros(f32, &[8]),
    ];
    let args = run(&function(&[&a, &b], &[], body), args).unwrap();
    // B[4b + t] = (A[4b + 3 - t] + 0) + (A[4b + 3 - t] + 1).
    let expected: Vec<f64> = (0..8)
        .map(|x| {
            let mirrored = (x / 4) * 4 + 3 - x % 4;
            2.0 * mirrored as f64 + 1.0
        })
        .collect();
    assert_eq!(floats(&args, 1), expected);
}

#[test]
fn local_allocations_are_per_thread_while_threads_run_together() {
    let i32 = DataType::int32();
    let b = buffer("B", i32, &[4]);
    let thread_x = int_var("threadIdx.x");
    let kernel = scoped_buffer("L", "local", i32, 1, |local| {
        seq(vec![
            store(local, vec![int(0)], use_var(&thread_x) * int(10)),
            barrier(),
            store(&b, vec![use_var(&thread_x)], load(local, vec![int(0)])),
        ])
    });
    let body = launch_thread(&thread_x, "threadIdx.x", 4, kernel);
    let args = run(&function(&[&b], &[], body), vec![zeros(i32, &[4])]).unwrap();
    assert_eq!(ints(&args, 0), vec![0, 10, 20, 30]);
}

#[test]
fn a_barrier_in_divergent_code_is_an_error() {
    let thread_x = int_var("threadIdx.x");
    let divergent = if_then_else(less(use_var(&thread_x), int(2)), barrier(), None);
    let body = launch_thread(&thread_x, "threadIdx.x", 4, divergent);
    let error = run(&function(&[], &[], body), vec![]).unwrap_err();
    assert!(
        error
            .message
            .contains("condition of an if differs between the threads"),
        "{error}"
    );
    // One thread per block, or blocks alone, keep a barrier trivially.
    let single = launch_thread(&int_var("threadIdx.x"), "threadIdx.x", 1, barrier());
    run(&function(&[], &[], single), vec![]).unwrap();
    let blocks = launch_thread(&int_var("blockIdx.x"), "blockIdx.x", 4, barrier());
    run(&function(&[], &[], blocks), vec![]).unwrap();
    // A barrier the interpreter cannot place (inside an expression) is refused.
    let tx = int_var("tx");
    let hidden = evaluate(binary(
        crate::ir::BinaryOp::Add,
        call(
            "tvm_storage_sync",
            vec![Expr::string("shared")],
            DataType::int32(),
        ),
        int(0),
    ));
    let bound = thread_loop(&tx, 2, "threadIdx.x", hidden);
    assert!(run(&function(&[], &[], bound), vec![]).is_err());
}

#[test]
fn while_loop_and_let_statement() {
    let i32 = DataType::int32();
    let counter = buffer("counter", i32, &[1]);
    let limit = int_var("limit");
    let value = load(&counter, vec![int(0)]);
    let body = seq(vec![
        store(&counter, vec![int(0)], int(0)),
        crate::ir::Stmt::new(
            StmtKind::LetStmt {
                var: limit.clone(),
                value: int(5),
                body: crate::ir::Stmt::new(
                    StmtKind::While {
                        condition: less(value.clone(), use_var(&limit)),
                        body: store(&counter, vec![int(0)], value + int(1)),
                    },
                    Span::NONE,
                ),
            },
            Span::NONE,
        ),
    ]);
    let args = run(&function(&[&counter], &[], body), vec![zeros(i32, &[1])]).unwrap();
    assert_eq!(ints(&args, 0), vec![5]);
}

#[test]
fn failed_assertion_reports_its_message() {
    let n = int_var("n");
    let body = crate::ir::Stmt::new(
        StmtKind::Assert {
            condition: less(use_var(&n), int(10)),
            error_kind: "ValueError".to_string(),
            message: vec![
                Expr::string("n = "),
                use_var(&n),
                Expr::string(" must be below 10"),
            ],
            body: evaluate(int(0)),
        },
        Span::new(crate::source::FileId(0), 3, 9),
    );
    let func = function(&[], &[&n], body);
    run(&func, vec![Arg::Int(3)]).unwrap();
    let error = run(&func, vec![Arg::Int(12)]).unwrap_err();
    assert_eq!(
        error.message,
        "assertion failed: ValueError: n = 12 must be below 10"
    );
    assert_eq!(error.span, Span::new(crate::source::FileId(0), 3, 9));
}

/// `B[i] = A[i] * scale` over a symbolic length `n`; B's shape is given in
/// terms of `n`.
fn scale_program(shape_of_b: impl FnOnce(&Var) -> Vec<Expr>) -> crate::ir::PrimFunc {
    let f32 = DataType::float32();
    let n = int_var("n");
    let a = Buffer::new("A", f32, vec![use_var(&n)], "global", Span::NONE);
    let b = Buffer::new("B", f32, shape_of_b(&n), "global", Span::NONE);
    let scale = Var::new("scale", f32, Span::NONE);
    let i = int_var("i");
    let body = loop_of_kind(
        &i,
        use_var(&n),
        crate::ir::ForKind::Serial,
        store(
            &b,
            vec![use_var(&i)],
            load(&a, vec![use_var(&i)]) * use_var(&scale),
        ),
    );
    function(&[&a, &b], &[&scale], body)
}

#[test]
fn symbolic_shapes_bind_from_the_tensors() {
    let f32 = DataType::float32();
    let func = scale_program(|n| vec![use_var(n)]);
    let input: Vec<f32> = (0..7).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[7], input).unwrap()),
        zeros(f32, &[7]),
        Arg::Float(0.5),
    ];
    let args = run(&func, args).unwrap();
    assert_eq!(
        floats(&args, 1),
        (0..7).map(|x| x as f64 * 0.5).collect::<Vec<_>>()
    );
    // The second tensor disagrees with the first about `n`.
    let args = vec![
        Arg::Tensor(Tensor::zeros(f32, &[7]).unwrap()),
        zeros(f32, &[6]),
        Arg::Float(0.5),
    ];
    let error = run(&func, args).unwrap_err();
    assert!(
        error.message.contains("dimension 0 of the tensor for `B`"),
        "{error}"
    );
    assert!(error.message.contains("n = 7"), "{error}");
}

#[test]
fn arguments_of_the_wrong_kind_or_type_are_refused() {
    let f32 = DataType::float32();
    let func = scale_program(|_| vec![int(4)]);
    let good = || Arg::Tensor(Tensor::zeros(f32, &[4]).unwrap());
    let error = run(&func, vec![good(), good()]).unwrap_err();
    assert!(error.message.contains("takes 3 arguments"), "{error}");
    let error = run(
        &func,
        vec![good(), zeros(DataType::int32(), &[4]), Arg::Float(1.0)],
    )
    .unwrap_err();
    assert!(error.message.contains("int32 tensor"), "{error}");
    let error = run(&func, vec![good(), good(), good()]).unwrap_err();
    assert!(error.message.contains("scalar float32"), "{error}");
    // A failed call still gives back the tensors it borrowed.
    let mut args = vec![good(), zeros(DataType::int32(), &[4]), Arg::Float(1.0)];
    assert!(crate::interp::run_function(&func, &mut args).is_err());
    assert_eq!(args[0].tensor().unwrap().bytes().len(), 16);
}

#[test]
fn if_statement_runs_one_branch() {
    let i32 = DataType::int32();
    let b = buffer("B", i32, &[6]);
    let i = int_var("i");
    let even = crate::ir::Expr::binary(
        crate::ir::BinaryOp::Eq,
        crate::ir::Expr::binary(crate::ir::BinaryOp::FloorMod, use_var(&i), int(2)),
        int(0),
    );
    let body = if_then_else(
        even,
        store(&b, vec![use_var(&i)], int(1)),
        Some(store(&b, vec![use_var(&i)], int(2))),
    );
    let args = run(
        &function(&[&b], &[], serial(&i, 6, body)),
        vec![zeros(i32, &[6])],
    )
    .unwrap();
    assert_eq!(ints(&args, 0), vec![1, 2, 1, 2, 1, 2]);
}

#[test]
fn declared_buffers_honour_strides_and_element_offset() {
    // V is a 2 x 2 view starting at element 3 of A's storage, rows 4 apart:
    // V[i, j] = A[3 + 4 * i + j].
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[12]);
    let b = buffer("B", f32, &[4]);
    let view = alias("V", a.data(), f32, &[2, 2]).with(|node: &mut BufferNode| {
        node.strides = vec![int(4), int(1)];
        node.elem_offset = int(3);
    });
    let (i, j) = (int_var("i"), int_var("j"));
    let copy = store(
        &b,
        vec![use_var(&i) * int(2) + use_var(&j)],
        load(&view, vec![use_var(&i), use_var(&j)]),
    );
    let body = decl_buffer(&view, serial(&i, 2, serial(&j, 2, copy)));
    let input: Vec<f32> = (0..12).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[12], input).unwrap()),
        zeros(f32, &[4]),
    ];
    let args = run(&function(&[&a, &b], &[], body), args).unwrap();
    assert_eq!(floats(&args, 1), vec![3.0, 4.0, 7.0, 8.0]);
}
