//! Block-level TensorIR: iteration variables, `T.init`, `T.where`,
//! `alloc_buffer` and `match_buffer`.

use super::build::*;
use super::{floats, run, zeros};
use crate::interp::{run_function_with_options, Arg, InterpOptions, Tensor, UninitializedMemory};
use crate::ir::{BufferNode, DataType, ForKind, MatchBufferRegion, Var};
use crate::source::Span;

#[test]
fn vector_add_runs_every_loop_kind_in_order() {
    let f32 = DataType::float32();
    for kind in [
        ForKind::Serial,
        ForKind::Parallel,
        ForKind::Vectorized,
        ForKind::Unrolled,
    ] {
        let (a, b, c) = (
            buffer("A", f32, &[8]),
            buffer("B", f32, &[8]),
            buffer("C", f32, &[8]),
        );
        let i = int_var("i");
        let vi = spatial("vi", 8, use_var(&i));
        let sum = load(&a, vec![use_var(&vi.var)]) + load(&b, vec![use_var(&vi.var)]);
        let body = store(&c, vec![use_var(&vi.var)], sum);
        let program = loop_of_kind(
            &i,
            int(8),
            kind,
            block("C", &[vi], BlockParts::default(), body),
        );
        let func = function(&[&a, &b, &c], &[], root(vec![], program));
        let a_data = Tensor::random(f32, &[8], 1).unwrap();
        let b_data = Tensor::random(f32, &[8], 2).unwrap();
        let args = vec![
            Arg::Tensor(a_data.clone()),
            Arg::Tensor(b_data.clone()),
            zeros(f32, &[8]),
        ];
        let args = run(&func, args).unwrap();
        let expected: Vec<f64> = a_data
            .to_f64_vec()
            .unwrap()
            .iter()
            .zip(b_data.to_f64_vec().unwrap())
            .map(|(x, y)| (*x as f32 + y as f32) as f64)
            .collect();
        assert_eq!(floats(&args, 2), expected, "{kind:?}");
    }
}

/// `C[i, j] = sum_k A[i, k] * B[k, j]` as a block with `T.init`.
fn matmul(m: i64, n: i64, k: i64) -> crate::ir::PrimFunc {
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[m, k]);
    let b = buffer("B", f32, &[k, n]);
    let c = buffer("C", f32, &[m, n]);
    let (i, j, r) = (int_var("i"), int_var("j"), int_var("k"));
    let vi = spatial("vi", m, use_var(&i));
    let vj = spatial("vj", n, use_var(&j));
    let vk = reduce("vk", k, use_var(&r));
    let (ei, ej, ek) = (use_var(&vi.var), use_var(&vj.var), use_var(&vk.var));
    let init = store(&c, vec![ei.clone(), ej.clone()], float32(0.0));
    let update = load(&c, vec![ei.clone(), ej.clone()])
        + load(&a, vec![ei.clone(), ek.clone()]) * load(&b, vec![ek, ej.clone()]);
    let body = store(&c, vec![ei, ej], update);
    let parts = BlockParts {
        init: Some(init),
        ..BlockParts::default()
    };
    let nest = serial(
        &i,
        m,
        serial(&j, n, serial(&r, k, block("C", &[vi, vj, vk], parts, body))),
    );
    function(&[&a, &b, &c], &[], root(vec![], nest))
}

#[test]
fn matmul_block_with_init_matches_a_triple_loop() {
    let (m, n, k) = (5usize, 6usize, 7usize);
    let f32 = DataType::float32();
    let a = Tensor::random(f32, &[m, k], 10).unwrap();
    let b = Tensor::random(f32, &[k, n], 11).unwrap();
    // C starts as garbage: only T.init may clear it.
    let c = Tensor::from_f32(&[m, n], vec![123.0; m * n]).unwrap();
    let args = vec![
        Arg::Tensor(a.clone()),
        Arg::Tensor(b.clone()),
        Arg::Tensor(c),
    ];
    let args = run(&matmul(m as i64, n as i64, k as i64), args).unwrap();
    let (a, b) = (a.to_f64_vec().unwrap(), b.to_f64_vec().unwrap());
    let mut expected = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0f32;
            for r in 0..k {
                sum += a[i * k + r] as f32 * b[r * n + j] as f32;
            }
            expected[i * n + j] = sum as f64;
        }
    }
    // Same order of float32 operations, so the results are identical.
    assert_eq!(floats(&args, 2), expected);
}

#[test]
fn where_predicate_skips_the_tail_of_a_non_dividing_split() {
    // for io, ii in T.grid(3, 4): with T.block: vi = io * 4 + ii; T.where(io * 4 + ii < 10)
    let f32 = DataType::float32();
    let (a, b) = (buffer("A", f32, &[10]), buffer("B", f32, &[10]));
    let (io, ii) = (int_var("io"), int_var("ii"));
    let fused = use_var(&io) * int(4) + use_var(&ii);
    let vi = spatial("vi", 10, fused.clone());
    let body = store(
        &b,
        vec![use_var(&vi.var)],
        load(&a, vec![use_var(&vi.var)]) * float32(2.0),
    );
    let parts = BlockParts {
        predicate: Some(less(fused, int(10))),
        ..BlockParts::default()
    };
    let nest = serial(&io, 3, serial(&ii, 4, block("B", &[vi], parts, body)));
    let func = function(&[&a, &b], &[], root(vec![], nest));
    let input: Vec<f32> = (0..10).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[10], input).unwrap()),
        zeros(f32, &[10]),
    ];
    let args = run(&func, args).unwrap();
    let expected: Vec<f64> = (0..10).map(|x| 2.0 * x as f64).collect();
    assert_eq!(floats(&args, 1), expected);
}

#[test]
fn binding_outside_the_domain_is_an_error() {
    let f32 = DataType::float32();
    let b = buffer("B", f32, &[4]);
    let i = int_var("i");
    let vi = spatial("vi", 4, use_var(&i) + int(1));
    let body = store(&b, vec![int(0)], float32(1.0));
    let nest = serial(&i, 4, block("shifted", &[vi], BlockParts::default(), body));
    let func = function(&[&b], &[], root(vec![], nest));
    let error = run(&func, vec![zeros(f32, &[4])]).unwrap_err();
    assert!(error.message.contains("block `shifted`"), "{error}");
    assert!(
        error
            .message
            .contains("bound to 4, outside its domain [0, 4)"),
        "{error}"
    );
}

#[test]
fn reduction_over_two_axes_initialises_once_per_output() {
    // B[i] = sum over k1, k2 of A[i, k1, k2], with loops ordered k1, i, k2 so
    // that the init point of each output comes after other outputs' updates.
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[3, 4, 5]);
    let b = buffer("B", f32, &[3]);
    let (k1, i, k2) = (int_var("k1"), int_var("i"), int_var("k2"));
    let vi = spatial("vi", 3, use_var(&i));
    let vk1 = reduce("vk1", 4, use_var(&k1));
    let vk2 = reduce("vk2", 5, use_var(&k2));
    let (ei, e1, e2) = (use_var(&vi.var), use_var(&vk1.var), use_var(&vk2.var));
    let init = store(&b, vec![ei.clone()], float32(0.0));
    let body = store(
        &b,
        vec![ei.clone()],
        load(&b, vec![ei.clone()]) + load(&a, vec![ei, e1, e2]),
    );
    let parts = BlockParts {
        init: Some(init),
        ..BlockParts::default()
    };
    let nest = serial(
        &k1,
        4,
        serial(
            &i,
            3,
            serial(&k2, 5, block("B", &[vi, vk1, vk2], parts, body)),
        ),
    );
    let func = function(&[&a, &b], &[], root(vec![], nest));
    let input: Vec<f32> = (0..60).map(|x| x as f32).collect();
    let args = vec![
        Arg::Tensor(Tensor::from_f32(&[3, 4, 5], input).unwrap()),
        Arg::Tensor(Tensor::from_f32(&[3], vec![-1.0; 3]).unwrap()),
    ];
    let args = run(&func, args).unwrap();
    let expected: Vec<f64> = (0..3)
        .map(|row| (0..20).map(|x| (row * 20 + x) as f64).sum())
        .collect();
    assert_eq!(floats(&args, 1), expected);
}

/// A block in a loop that increments its own scratch buffer and copies it out.
fn scratch_program() -> crate::ir::PrimFunc {
    let f32 = DataType::float32();
    let b = buffer("B", f32, &[3]);
    let scratch = buffer("scratch", f32, &[1]);
    let i = int_var("i");
    let vi = spatial("vi", 3, use_var(&i));
    let body = seq(vec![
        store(
            &scratch,
            vec![int(0)],
            load(&scratch, vec![int(0)]) + float32(1.0),
        ),
        store(&b, vec![use_var(&vi.var)], load(&scratch, vec![int(0)])),
    ]);
    let parts = BlockParts {
        alloc_buffers: vec![scratch.clone()],
        ..BlockParts::default()
    };
    let nest = serial(&i, 3, block("copy", &[vi], parts, body));
    function(&[&b], &[], root(vec![], nest))
}

#[test]
fn alloc_buffer_is_fresh_and_poisoned_each_time_the_block_runs() {
    let f32 = DataType::float32();
    let args = run(&scratch_program(), vec![zeros(f32, &[3])]).unwrap();
    assert!(
        floats(&args, 0).iter().all(|x| x.is_nan()),
        "{:?}",
        floats(&args, 0)
    );
    let options = InterpOptions {
        uninitialized: UninitializedMemory::Zero,
        ..InterpOptions::default()
    };
    let mut args = vec![zeros(f32, &[3])];
    run_function_with_options(&scratch_program(), &mut args, &options).unwrap();
    // Fresh zeros each time, so never 2 or 3.
    assert_eq!(floats(&args, 0), vec![1.0, 1.0, 1.0]);
}

/// A view buffer: a fresh data pointer, the given shape, and optional
/// strides and element offset.
fn view(
    name: &str,
    shape: &[i64],
    strides: Vec<crate::ir::Expr>,
    elem_offset: crate::ir::Expr,
) -> crate::ir::Buffer {
    let base = buffer(name, DataType::float32(), shape);
    base.with(|node: &mut BufferNode| {
        node.data = Var::pointer(name, DataType::float32(), "global", Span::NONE);
        node.strides = strides;
        node.elem_offset = elem_offset;
    })
}

/// `for t in range(2)`: a block matching a 4 x 4 tile of an 8 x 8 `A` (rows
/// `4t..4t+4` when `by_rows`, else columns) and adding `t + 1` to it.
fn tile_program(by_rows: bool, tile: crate::ir::Buffer) -> crate::ir::PrimFunc {
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[8, 8]);
    let (t, x, y) = (int_var("t"), int_var("x"), int_var("y"));
    let vt = spatial("vt", 2, use_var(&t));
    let start = use_var(&vt.var) * int(4);
    let source = if by_rows {
        region(&a, vec![(start, 4), (int(4), 4)])
    } else {
        region(&a, vec![(int(0), 4), (start, 4)])
    };
    let increment = cast(f32, use_var(&vt.var) + int(1));
    let indices = vec![use_var(&x), use_var(&y)];
    let body = serial(
        &x,
        4,
        serial(
            &y,
            4,
            store(&tile, indices.clone(), load(&tile, indices) + increment),
        ),
    );
    let parts = BlockParts {
        match_buffers: vec![MatchBufferRegion {
            buffer: tile,
            source,
        }],
        ..BlockParts::default()
    };
    let nest = serial(&t, 2, block("tile", &[vt], parts, body));
    function(&[&a], &[], root(vec![], nest))
}

#[test]
fn match_buffer_views_tiles_with_offsets_and_strides() {
    let f32 = DataType::float32();
    // Rows 4t..4t+4, columns 4..8: not contiguous, so the view declares
    // symbolic strides and offset for the interpreter to bind.
    let (s0, s1, offset) = (int_var("s0"), int_var("s1"), int_var("offset"));
    let strided = view(
        "A_tile",
        &[4, 4],
        vec![use_var(&s0), use_var(&s1)],
        use_var(&offset),
    );
    let args = run(&tile_program(true, strided), vec![zeros(f32, &[8, 8])]).unwrap();
    let result = floats(&args, 0);
    for row in 0..8 {
        for column in 0..8 {
            let expected = if column >= 4 {
                (row / 4 + 1) as f64
            } else {
                0.0
            };
            assert_eq!(result[row * 8 + column], expected, "A[{row}, {column}]");
        }
    }
}

#[test]
fn compact_match_buffer_indexes_with_the_source_strides() {
    // Rows 0..4, columns 4t..4t+4 are not contiguous; a view declaring no
    // strides still reaches them, as TVM's LowerMatchBuffer rewrites
    // `tile[x, y]` to `A[x, 4t + y]`.
    let f32 = DataType::float32();
    let compact = view("A_tile", &[4, 4], vec![], int_var("offset").to_expr());
    let args = run(&tile_program(false, compact), vec![zeros(f32, &[8, 8])]).unwrap();
    let result = floats(&args, 0);
    for row in 0..8 {
        for column in 0..8 {
            let expected = if row < 4 {
                (column / 4 + 1) as f64
            } else {
                0.0
            };
            assert_eq!(result[row * 8 + column], expected, "A[{row}, {column}]");
        }
    }
}

#[test]
fn compact_match_buffer_views_whole_rows() {
    // A[4t:4t+4, 0:8] is contiguous; a compact 4 x 8 view of it works.
    let f32 = DataType::float32();
    let a = buffer("A", f32, &[8, 8]);
    let tile = view("A_rows", &[4, 8], vec![], int_var("offset").to_expr());
    let t = int_var("t");
    let x = int_var("x");
    let vt = spatial("vt", 2, use_var(&t));
    let source = region(&a, vec![(use_var(&vt.var) * int(4), 4), (int(0), 8)]);
    let value = cast(f32, use_var(&vt.var) * int(10) + use_var(&x));
    let body = serial(&x, 8, store(&tile, vec![int(3), use_var(&x)], value));
    let parts = BlockParts {
        match_buffers: vec![MatchBufferRegion {
            buffer: tile,
            source,
        }],
        ..BlockParts::default()
    };
    let func = function(
        &[&a],
        &[],
        root(vec![], serial(&t, 2, block("rows", &[vt], parts, body))),
    );
    let args = run(&func, vec![zeros(f32, &[8, 8])]).unwrap();
    let result = floats(&args, 0);
    assert_eq!(
        &result[3 * 8..4 * 8],
        &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    );
    assert_eq!(
        &result[7 * 8..8 * 8],
        &[10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]
    );
    assert!(result[..3 * 8].iter().all(|x| *x == 0.0));
}
