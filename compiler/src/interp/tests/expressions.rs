//! Expression semantics inside programs: integer widths, division, float
//! formats, casts, vectors, and which sides of a condition are evaluated.

use super::build::*;
use super::{eval_closed, floats, ints, run, zeros};
use crate::interp::{Arg, Scalar, Tensor};
use crate::ir::{BinaryOp, DataType, Expr, ExprKind, TypeCode, Var};
use crate::source::Span;

/// `C[i] = op(A[i], B[i])` over `n` elements of `dtype`.
fn elementwise(op: BinaryOp, dtype: DataType, n: i64) -> crate::ir::PrimFunc {
    let (a, b, c) = (
        buffer("A", dtype, &[n]),
        buffer("B", dtype, &[n]),
        buffer("C", dtype, &[n]),
    );
    let i = int_var("i");
    let index = || vec![use_var(&i)];
    let value = binary(op, load(&a, index()), load(&b, index()));
    function(&[&a, &b, &c], &[], serial(&i, n, store(&c, index(), value)))
}

fn run_elementwise_ints(op: BinaryOp, dtype: DataType, a: &[i64], b: &[i64]) -> Vec<i64> {
    let n = a.len();
    let args = vec![
        Arg::Tensor(Tensor::from_i64s(dtype, &[n], a).unwrap()),
        Arg::Tensor(Tensor::from_i64s(dtype, &[n], b).unwrap()),
        zeros(dtype, &[n]),
    ];
    ints(&run(&elementwise(op, dtype, n as i64), args).unwrap(), 2)
}

#[test]
fn int8_and_uint8_arithmetic_wraps() {
    let i8 = DataType::int(8);
    let u8 = DataType::uint(8);
    assert_eq!(
        run_elementwise_ints(BinaryOp::Add, i8, &[127, -128, 100], &[1, -1, 100]),
        vec![-128, 127, -56]
    );
    assert_eq!(
        run_elementwise_ints(BinaryOp::Mul, i8, &[16, -128], &[8, -1]),
        vec![-128, -128]
    );
    assert_eq!(
        run_elementwise_ints(BinaryOp::Add, u8, &[200, 255], &[100, 1]),
        vec![44, 0]
    );
    assert_eq!(
        run_elementwise_ints(BinaryOp::Sub, u8, &[0, 3], &[1, 5]),
        vec![255, 254]
    );
}

#[test]
fn floor_division_rounds_down_and_truncating_division_toward_zero() {
    let i32 = DataType::int32();
    let a = [-7, 7, -7, 7, -8, 0];
    let b = [2, -2, -2, 2, 4, -3];
    assert_eq!(
        run_elementwise_ints(BinaryOp::FloorDiv, i32, &a, &b),
        vec![-4, -4, 3, 3, -2, 0]
    );
    assert_eq!(
        run_elementwise_ints(BinaryOp::FloorMod, i32, &a, &b),
        vec![1, -1, -1, 1, 0, 0]
    );
    assert_eq!(
        run_elementwise_ints(BinaryOp::Div, i32, &a, &b),
        vec![-3, -3, 3, 3, -2, 0]
    );
    assert_eq!(
        run_elementwise_ints(BinaryOp::Mod, i32, &a, &b),
        vec![-1, 1, -1, 1, 0, 0]
    );
    let error = run(
        &elementwise(BinaryOp::FloorDiv, i32, 1),
        vec![
            Arg::Tensor(Tensor::from_i32(&[1], vec![5]).unwrap()),
            zeros(i32, &[1]),
            zeros(i32, &[1]),
        ],
    )
    .unwrap_err();
    assert!(error.message.contains("division by zero"), "{error}");
}

#[test]
fn float16_and_bfloat16_round_to_nearest_even() {
    let f16 = DataType::float(16);
    let one = 1.0;
    let half_ulp = 2f64.powi(-11);
    let args = vec![
        Arg::Tensor(Tensor::from_f64s(f16, &[3], &[one, one, 2048.0]).unwrap()),
        Arg::Tensor(Tensor::from_f64s(f16, &[3], &[half_ulp, 3.0 * half_ulp, 1.0]).unwrap()),
        zeros(f16, &[3]),
    ];
    let args = run(&elementwise(BinaryOp::Add, f16, 3), args).unwrap();
    // 1 + 2^-11 ties to 1; 1 + 3 * 2^-11 ties to 1 + 2^-9 (even); 2048 + 1
    // ties to 2048 where float16's spacing is 2.
    assert_eq!(floats(&args, 2), vec![1.0, 1.0 + 2f64.powi(-9), 2048.0]);

    let cast_to = |dtype: DataType, value: f64| {
        eval_closed(&cast(dtype, Expr::float(value, DataType::float(64))))
            .unwrap()
            .as_f64()
            .unwrap()
    };
    // A sticky bit far below the tie still rounds up.
    assert_eq!(
        cast_to(f16, 1.0 + half_ulp + 2f64.powi(-40)),
        1.0 + 2f64.powi(-10)
    );
    assert_eq!(cast_to(f16, 70000.0), f64::INFINITY);
    assert_eq!(cast_to(f16, 1e-8), 0.0);
    let bf16 = DataType::scalar(TypeCode::BFloat, 16);
    assert_eq!(cast_to(bf16, 1.0 + 2f64.powi(-8)), 1.0);
    assert_eq!(
        cast_to(bf16, 1.0 + 3.0 * 2f64.powi(-8)),
        1.0 + 2f64.powi(-6)
    );
    assert_eq!(cast_to(bf16, 3.0e38), 226.0 * 2f64.powi(120));
}

#[test]
fn float8_conversions_round_and_overflow_per_format() {
    let e4m3 = DataType::scalar(TypeCode::Float8E4M3FN, 8);
    let e5m2 = DataType::scalar(TypeCode::Float8E5M2, 8);
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[5]), buffer("B", e4m3, &[5]));
    let c = buffer("C", e5m2, &[5]);
    let i = int_var("i");
    let body = seq(vec![
        store(
            &b,
            vec![use_var(&i)],
            cast(e4m3, load(&a, vec![use_var(&i)])),
        ),
        store(
            &c,
            vec![use_var(&i)],
            cast(e5m2, load(&a, vec![use_var(&i)])),
        ),
    ]);
    let func = function(&[&a, &b, &c], &[], serial(&i, 5, body));
    let input = vec![0.3, 448.0, 500.0, -70000.0, 0.001];
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[5], input).unwrap()),
        zeros(e4m3, &[5]),
        zeros(e5m2, &[5]),
    ];
    let args = run(&func, args).unwrap();
    let e4m3_values = floats(&args, 1);
    assert_eq!(e4m3_values[0], 0.3125);
    assert_eq!(e4m3_values[1], 448.0);
    assert!(
        e4m3_values[2].is_nan(),
        "e4m3fn has no infinity: {}",
        e4m3_values[2]
    );
    assert!(e4m3_values[3].is_nan());
    assert_eq!(
        e4m3_values[4],
        2f64.powi(-9),
        "0.001 rounds to the smallest subnormal"
    );
    let e5m2_values = floats(&args, 2);
    assert_eq!(e5m2_values[..4], [0.3125, 448.0, 512.0, f64::NEG_INFINITY]);
    assert_eq!(e5m2_values[4], 0.0009765625);
    // The bytes are the formats' encodings.
    assert_eq!(args[1].tensor().unwrap().bytes()[1], 0x7e);
    assert_eq!(args[2].tensor().unwrap().bytes()[3], 0xfc);
}

fn cast_value(to: DataType, from: Expr) -> Result<Scalar, crate::interp::InterpError> {
    eval_closed(&cast(to, from)).map(|value| value.lanes()[0])
}

#[test]
fn casts_between_types() {
    let f32 = DataType::float32();
    let i8 = DataType::int(8);
    let u8 = DataType::uint(8);
    let i32 = DataType::int32();
    // Float to integer truncates toward zero.
    assert_eq!(cast_value(i32, float32(-2.7)).unwrap(), Scalar::Int(-2));
    assert_eq!(cast_value(u8, float32(255.9)).unwrap(), Scalar::UInt(255));
    assert_eq!(cast_value(u8, float32(-0.5)).unwrap(), Scalar::UInt(0));
    // Integer to integer wraps.
    assert_eq!(
        cast_value(i8, Expr::int(200, DataType::uint(8))).unwrap(),
        Scalar::Int(-56)
    );
    assert_eq!(
        cast_value(u8, Expr::int(-1, i32)).unwrap(),
        Scalar::UInt(255)
    );
    assert_eq!(
        cast_value(DataType::uint(64), Expr::int(-1, i32)).unwrap(),
        Scalar::UInt(u64::MAX)
    );
    // Bools are 0 and 1; anything non-zero (NaN too) is true.
    assert_eq!(
        cast_value(f32, Expr::bool(true)).unwrap(),
        Scalar::Float(1.0)
    );
    assert_eq!(
        cast_value(DataType::bool(), Expr::int(-3, i32)).unwrap(),
        Scalar::Bool(true)
    );
    assert_eq!(
        cast_value(DataType::bool(), float32(f64::NAN)).unwrap(),
        Scalar::Bool(true)
    );
    // Integer to float rounds once, however wide the integer.
    let big = Expr::int((1i64 << 60) + (1i64 << 52) + 1, DataType::int64());
    let bf16 = DataType::scalar(TypeCode::BFloat, 16);
    assert_eq!(
        cast_value(bf16, big).unwrap(),
        Scalar::Float(2f64.powi(60) + 2f64.powi(53))
    );
    assert_eq!(
        cast_value(f32, Expr::int(16_777_217, i32)).unwrap(),
        Scalar::Float(16_777_216.0)
    );
    // float64 to float32 rounds to nearest.
    let third = Expr::float(1.0 / 3.0, DataType::float(64));
    assert_eq!(
        cast_value(f32, third).unwrap(),
        Scalar::Float((1.0f32 / 3.0) as f64)
    );
}

#[test]
fn float_to_integer_out_of_range_is_an_error() {
    let i32 = DataType::int32();
    for value in [3.0e9, -2_147_483_904.0, f64::NAN, f64::INFINITY] {
        let error = cast_value(i32, Expr::float(value, DataType::float(64))).unwrap_err();
        assert!(error.message.contains("out of range"), "{value}: {error}");
    }
    assert_eq!(
        cast_value(i32, Expr::float(-2_147_483_648.9, DataType::float(64))).unwrap(),
        Scalar::Int(-2_147_483_648)
    );
    let error = cast_value(DataType::uint(8), float32(256.0)).unwrap_err();
    assert!(error.message.contains("uint8"), "{error}");
}

#[test]
fn vector_loads_and_stores_with_ramp_indices() {
    // for i in range(2): B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 8, 2, 4)] * T.Broadcast(10, 4)
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[16]), buffer("B", f32, &[8]));
    let i = int_var("i");
    let source = load(&a, vec![ramp(use_var(&i) * int(8), 2, 4)]);
    assert_eq!(source.dtype(), f32.with_lanes(4));
    let value = source * broadcast(float32(10.0), 4);
    let body = store(&b, vec![ramp(use_var(&i) * int(4), 1, 4)], value);
    let func = function(&[&a, &b], &[], serial(&i, 2, body));
    let input: Vec<f32> = (0..16).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[16], input).unwrap()),
        zeros(f32, &[8]),
    ];
    let args = run(&func, args).unwrap();
    let expected: Vec<f64> = (0..8).map(|x| 20.0 * x as f64).collect();
    assert_eq!(floats(&args, 1), expected);

    // A ramp that runs past the end names the lane at fault.
    let late = store(&b, vec![ramp(int(6), 1, 4)], broadcast(float32(1.0), 4));
    let error = run(&function(&[&b], &[], late), vec![zeros(f32, &[8])]).unwrap_err();
    assert!(error.message.contains("`B` at [8]"), "{error}");
    assert!(error.message.contains("lane 2 of a 4-lane"), "{error}");
}

/// `B[i] = f(i)` for `i` in `[0, 8)` where `A` has only 4 elements, so the
/// load `A[i]` must not be made for `i >= 4`.
fn guarded_copy(guard: impl FnOnce(Expr, Expr, Expr) -> Expr) -> crate::ir::PrimFunc {
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[4]), buffer("B", f32, &[8]));
    let i = int_var("i");
    let value = guard(
        less(use_var(&i), int(4)),
        load(&a, vec![use_var(&i)]),
        float32(-1.0),
    );
    function(
        &[&a, &b],
        &[],
        serial(&i, 8, store(&b, vec![use_var(&i)], value)),
    )
}

#[test]
fn if_then_else_evaluates_only_the_chosen_side() {
    let f32 = DataType::float32();
    let func = guarded_copy(|condition, then_value, else_value| {
        call("if_then_else", vec![condition, then_value, else_value], f32)
    });
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[4], vec![1.0, 2.0, 3.0, 4.0]).unwrap()),
        zeros(f32, &[8]),
    ];
    let args = run(&func, args).unwrap();
    assert_eq!(
        floats(&args, 1),
        vec![1.0, 2.0, 3.0, 4.0, -1.0, -1.0, -1.0, -1.0]
    );
}

#[test]
fn select_evaluates_both_sides() {
    let f32 = DataType::float32();
    let func = guarded_copy(|condition, then_value, else_value| {
        Expr::new(
            ExprKind::Select(condition, then_value, else_value),
            f32,
            Span::NONE,
        )
    });
    let args = vec![
        Arg::Tensor(Tensor::zeros(f32, &[4]).unwrap()),
        zeros(f32, &[8]),
    ];
    let error = run(&func, args).unwrap_err();
    assert!(
        error
            .message
            .contains("out-of-bounds load from buffer `A` at [4]"),
        "{error}"
    );
}

#[test]
fn and_or_short_circuit_on_scalars() {
    // `i < 4 and A[i] > 0`: the load is skipped where the guard is false.
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[4]), buffer("B", DataType::bool(), &[8]));
    let i = int_var("i");
    let guard = less(use_var(&i), int(4));
    let test = binary(BinaryOp::Gt, load(&a, vec![use_var(&i)]), float32(0.0));
    let both = binary(BinaryOp::And, guard.clone(), test.clone());
    let func = function(
        &[&a, &b],
        &[],
        serial(&i, 8, store(&b, vec![use_var(&i)], both)),
    );
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[4], vec![1.0, -1.0, 2.0, 0.0]).unwrap()),
        zeros(DataType::bool(), &[8]),
    ];
    let args = run(&func, args).unwrap();
    assert_eq!(ints(&args, 1), vec![1, 0, 1, 0, 0, 0, 0, 0]);
    let negated = Expr::new(ExprKind::Not(guard), DataType::bool(), Span::NONE);
    let either = binary(BinaryOp::Or, negated, test);
    assert!(
        eval_closed(&binary(BinaryOp::Or, Expr::bool(true), either.clone()))
            .unwrap()
            .as_bool()
            .unwrap()
    );
}

#[test]
fn let_shuffle_reinterpret_and_math_builtins() {
    let i32 = DataType::int32();
    let x = Var::new("x", i32, Span::NONE);
    let let_expr = Expr::new(
        ExprKind::Let {
            var: x.clone(),
            value: int(6),
            body: use_var(&x) * use_var(&x),
        },
        i32,
        Span::NONE,
    );
    assert_eq!(eval_closed(&let_expr).unwrap().as_i64().unwrap(), 36);

    let shuffle = Expr::new(
        ExprKind::Shuffle {
            vectors: vec![ramp(int(0), 1, 4), ramp(int(10), 1, 2)],
            indices: vec![int(5), int(0), int(3)],
        },
        i32.with_lanes(3),
        Span::NONE,
    );
    let lanes = eval_closed(&shuffle).unwrap();
    assert_eq!(
        lanes.lanes(),
        &[Scalar::Int(11), Scalar::Int(0), Scalar::Int(3)]
    );

    let bits = call("reinterpret", vec![float32(1.0)], i32);
    assert_eq!(eval_closed(&bits).unwrap().as_i64().unwrap(), 0x3f80_0000);

    // float16 math is computed in float32 and rounded once.
    let f16 = DataType::float(16);
    let exp = call("exp", vec![Expr::float(1.0, f16)], f16);
    let expected = crate::interp::FloatFormat::FLOAT16.round(1f32.exp() as f64);
    assert_eq!(eval_closed(&exp).unwrap().as_f64().unwrap(), expected);
    let power = call(
        "pow",
        vec![float32(2.0), float32(10.0)],
        DataType::float32(),
    );
    assert_eq!(eval_closed(&power).unwrap().as_f64().unwrap(), 1024.0);
}

#[test]
fn vector_index_may_cross_rows_but_not_leave_the_buffer() {
    // `C[T.Ramp(0, 1, 16)] = B[row, T.Ramp(0, 1, 16)]` on a 4 x 4 `B`, as
    // TVM's dot-product intrinsics read it.
    let i8 = DataType::int(8);
    let (b, c) = (buffer("B", i8, &[4, 4]), buffer("C", i8, &[16]));
    let copy = |row: i64| {
        let body = store(
            &c,
            vec![ramp(int(0), 1, 16)],
            load(&b, vec![int(row), ramp(int(0), 1, 16)]),
        );
        function(&[&b, &c], &[], body)
    };
    let values: Vec<i64> = (0..16).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_i64s(i8, &[4, 4], &values).unwrap()),
        zeros(i8, &[16]),
    ];
    let args = run(&copy(0), args).unwrap();
    assert_eq!(ints(&args, 1), values);
    let args = vec![
        Arg::Tensor(Tensor::from_i64s(i8, &[4, 4], &values).unwrap()),
        zeros(i8, &[16]),
    ];
    let error = run(&copy(1), args).unwrap_err();
    assert!(
        error
            .message
            .contains("element 16 is outside the buffer's 16 elements"),
        "{error}"
    );
}
