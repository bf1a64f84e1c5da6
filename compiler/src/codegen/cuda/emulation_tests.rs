//! Tests of the emulation header's warp operations on hand-written CUDA C:
//! each shuffle and vote against its CUDA definition, `__activemask()` in a
//! branch, the errors that replace a hang or an undefined value (a lane
//! of the mask that returned, a read from a lane outside the mask), and
//! the race detector's rule for stores of the same value.

use super::emulation::EmulatedModule;
use super::host::{LaunchArg, LaunchDims};
use super::{CudaModule, KernelInfo, KernelParam};
use crate::ir::DataType;

/// Runs `body` as `kernel(int* out)` on one block of `threads` threads and
/// returns `out` (one element per thread), or the emulator's error.
fn run_kernel(body: &str, threads: u32) -> Result<Vec<i32>, String> {
    run_kernel_warned(body, threads).map(|(out, _)| out)
}

/// [`run_kernel`], with the warnings of the run.
fn run_kernel_warned(body: &str, threads: u32) -> Result<(Vec<i32>, Vec<String>), String> {
    launch_kernel(&compile_kernel(body, threads), threads)
}

/// `body` as `kernel(int* out)` for blocks of `threads` threads, compiled.
fn compile_kernel(body: &str, threads: u32) -> EmulatedModule {
    let source = format!(
        "extern \"C\" __global__ void kernel(int* __restrict__ out) {{\n  int t = threadIdx.x;\n{body}\n}}\n"
    );
    let module = CudaModule {
        source,
        kernels: vec![KernelInfo {
            name: "kernel".to_string(),
            params: vec![KernelParam::Buffer {
                name: "out".to_string(),
                dtype: DataType::int32(),
            }],
            launch_tags: Vec::new(),
            threads_per_block: Some(i64::from(threads)),
            local_bytes: 0,
            shared_bytes: 0,
        }],
    };
    // The emulation needs a C++ compiler, as `--emulate` does.
    EmulatedModule::compile(&module).unwrap_or_else(|error| panic!("{error}"))
}

/// Runs a kernel of [`compile_kernel`] on one block: `out` and the warnings.
fn launch_kernel(
    emulated: &EmulatedModule,
    threads: u32,
) -> Result<(Vec<i32>, Vec<String>), String> {
    // 16-byte aligned, as cudaMalloc's memory is (and more).
    let mut storage = vec![u128::MAX; (threads as usize).div_ceil(4)];
    let warnings = emulated.launch(
        &emulated.kernels()[0],
        &[LaunchArg::Pointer(storage.as_mut_ptr() as u64)],
        LaunchDims {
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            dynamic_shared_bytes: 0,
        },
    )?;
    let out = storage
        .iter()
        .flat_map(|word| {
            word.to_le_bytes()
                .chunks(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<_>>()
        })
        .take(threads as usize)
        .collect();
    Ok((out, warnings))
}

fn run_ok(body: &str, threads: u32) -> Vec<i32> {
    run_kernel(body, threads).unwrap_or_else(|error| panic!("{error}"))
}

/// A CUDA expression of the thread index `t`, and the value it gives each
/// thread (-2: not checked).
type Case = (&'static str, fn(i32) -> i32);

#[test]
fn shuffles_read_the_lane_cuda_defines() {
    let threads = 64;
    let cases: [Case; 5] = [
        // Broadcast of lane 3 of each group of 8.
        ("__shfl_sync(0xffffffffu, t * 10, 3, 8)", |t| (t - t % 8 + 3) * 10),
        // Down by 2 within groups of 16; the last two lanes keep theirs.
        ("__shfl_down_sync(0xffffffffu, t, 2, 16)", |t| if t % 16 + 2 < 16 { t + 2 } else { t }),
        ("__shfl_up_sync(0xffffffffu, t, 1)", |t| if t % 32 >= 1 { t - 1 } else { t }),
        ("__shfl_xor_sync(0xffffffffu, t, 5)", |t| t ^ 5),
        // A warp sum by shuffles, as the cross-thread reduction writes it.
        ("[&] { int v = t; for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o); return v; }()",
         |t| if t % 32 == 0 { (t..t + 32).sum() } else { -2 }),
    ];
    for (expression, expected) in cases {
        let out = run_ok(&format!("  int v = {expression};\n  out[t] = v;"), threads);
        for (t, value) in out.iter().enumerate() {
            let want = expected(t as i32);
            if want != -2 {
                assert_eq!(*value, want, "{expression}, thread {t}");
            }
        }
    }
}

#[test]
fn votes_and_the_active_mask_see_the_lanes_of_their_warp() {
    let out = run_ok(
        "  unsigned ballot = __ballot_sync(0xffffffffu, t % 3 == 0);\n  int any = __any_sync(0xffffffffu, t == 40);\n  int all = __all_sync(0xffffffffu, t < 40);\n  int active = -1;\n  if (t % 32 < 5) active = (int)__activemask();\n  out[t] = t % 32 == 0 ? (int)ballot : t % 32 == 1 ? any : t % 32 == 2 ? all : active;",
        64,
    );
    assert_eq!(out[0] as u32, 0x4924_9249, "lanes 0, 3, 6, ... of warp 0");
    assert_eq!(
        out[32] as u32, 0x9249_2492,
        "threads 33, 36, ... are lanes 1, 4, ..."
    );
    assert_eq!((out[1], out[33]), (0, 1), "only warp 1 has thread 40");
    assert_eq!((out[2], out[34]), (1, 0), "warp 1 has threads from 40 up");
    assert_eq!(out[3], 0x1f, "the lanes inside the branch");
}

#[test]
fn a_lane_of_the_mask_that_returned_is_warp_divergence_not_a_hang() {
    let error = run_kernel(
        "  if (t < 16) out[t] = __shfl_down_sync(0xffffffffu, t, 1);",
        32,
    )
    .expect_err("lanes 16 to 31 never arrive");
    assert!(error.contains("warp divergence"), "{error}");
    assert!(error.contains("__shfl_down_sync of line"), "{error}");
    assert!(error.contains("returned"), "{error}");
}

#[test]
fn a_shuffle_from_a_lane_outside_the_mask_is_an_error_not_garbage() {
    let error = run_kernel(
        "  if (t < 16) out[t] = __shfl_down_sync(0xffffu, t, 8);\n  else out[t] = 0;",
        32,
    )
    .expect_err("lane 8 reads lane 16");
    assert!(error.contains("a lane outside mask 0x0000ffff"), "{error}");
}

#[test]
fn a_misaligned_vector_access_is_an_error_as_on_the_gpu() {
    let out = run_ok(
        "  if (t < 2) tirc_emu::store_vector<int2>(out, t * 2, make_int2(t, -t), \"out\");",
        4,
    );
    assert_eq!(out, vec![0, 0, 1, -1]);
    let error = run_kernel(
        "  if (t == 0) tirc_emu::store_vector<int4>(out, 1, make_int4(1, 2, 3, 4), \"out\");",
        4,
    )
    .expect_err("element 1 is not 16-byte aligned");
    assert!(error.contains("not aligned"), "{error}");
}

/// A 16x16x16 wmma product on the lanes of one warp: A[i][k] = i + k, B's
/// memory a permutation (B[k][j] = 1 where j = k + 1 mod 16, read
/// transposed when `b_layout` is `col_major`), C filled with 1;
/// C goes through shared memory (each lane stores its share) and every
/// thread returns one element.
fn wmma_kernel(b_layout: &str) -> String {
    format!(
        "  half a[256], b[256];
  for (int e = 0; e < 256; ++e) {{ a[e] = half(float(e / 16 + e % 16)); b[e] = half((e / 16 + 1) % 16 == e % 16 ? 1.0f : 0.0f); }}
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> fa;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::{b_layout}> fb;
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> fc;
  nvcuda::wmma::load_matrix_sync(fa, tirc_emu::pointer_into(a, 0), 16);
  nvcuda::wmma::load_matrix_sync(fb, tirc_emu::pointer_into(b, 0), 16);
  nvcuda::wmma::fill_fragment(fc, 1.0f);
  nvcuda::wmma::mma_sync(fc, fa, fb, fc);
  static tirc_emu::Shared<float, 256> c(\"c\");
  nvcuda::wmma::store_matrix_sync(tirc_emu::pointer_into(c, 0), fc, 16, nvcuda::wmma::mem_row_major);
  __syncthreads();
  out[t] = int(float(c[t]));"
    )
}

#[test]
fn a_wmma_product_runs_on_whole_tiles_and_each_lane_stores_its_share() {
    // C[i][j] = 1 + A[i][j - 1 mod 16]; column-major, 1 + A[i][j + 1 mod 16].
    let row_major: Vec<i32> = (0..32).map(|t| 1 + t / 16 + (t + 15) % 16).collect();
    assert_eq!(run_ok(&wmma_kernel("row_major"), 32), row_major);
    let column_major: Vec<i32> = (0..32).map(|t| 1 + t / 16 + (t + 1) % 16).collect();
    assert_eq!(run_ok(&wmma_kernel("col_major"), 32), column_major);
}

#[test]
fn a_wmma_operation_in_a_block_of_part_of_a_warp_is_an_error() {
    let error = run_kernel(&wmma_kernel("row_major"), 16).expect_err("16 threads");
    assert!(error.contains("every lane of a warp"), "{error}");
}

#[test]
fn a_shared_store_of_the_same_value_warns_and_of_another_value_is_a_race() {
    let (out, warnings) = run_kernel_warned(
        "  static tirc_emu::Shared<int, 4> S(\"S\");\n  S[1] = 7;\n  __syncthreads();\n  out[t] = S[1];",
        8,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(out, vec![7; 8]);
    assert_eq!(warnings.len(), 1, "one warning per buffer: {warnings:?}");
    assert!(
        warnings[0].contains("every thread repeats the stores to `S`"),
        "{warnings:?}"
    );
    assert!(warnings[0].contains("cooperative fetch"), "{warnings:?}");
    let error = run_kernel(
        "  static tirc_emu::Shared<int, 4> S(\"S\");\n  S[1] = t;\n  __syncthreads();\n  out[t] = S[1];",
        8,
    )
    .expect_err("threads store different values");
    assert!(error.contains("data race on shared memory"), "{error}");
    assert!(error.contains("writes S[1]"), "{error}");
}

#[test]
fn global_stores_of_different_values_from_two_threads_are_a_race() {
    let error = run_kernel("  tirc_emu::store_global(out, 0, t, \"out\");", 4)
        .expect_err("every thread stores its own index into out[0]");
    assert!(error.contains("data race on global memory"), "{error}");
    assert!(
        error.contains("writes out[0] after thread (0, 0, 0)"),
        "{error}"
    );
    // The same value from every thread is right: a warning.
    let (out, warnings) = run_kernel_warned(
        "  tirc_emu::store_global(out, 0, 5, \"out\");\n  tirc_emu::store_global(out, t, t == 0 ? 5 : t, \"out\");",
        4,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(out, vec![5, 1, 2, 3]);
    assert!(warnings[0].contains("`out`"), "{warnings:?}");
    // A barrier between orders the stores.
    let out = run_ok(
        "  if (t == 0) tirc_emu::store_global(out, 0, 1, \"out\");\n  __syncthreads();\n  if (t == 1) tirc_emu::store_global(out, 0, 2, \"out\");\n  if (t > 0) tirc_emu::store_global(out, t, t, \"out\");",
        4,
    );
    assert_eq!(out, vec![2, 1, 2, 3]);
}

#[test]
fn emulations_running_at_once_in_one_process_keep_their_own_state() {
    // Each emulated module has its own scheduler, fibers and race
    // detector: test threads (and tools) run several at once.
    let kernel = |scale: i32| {
        format!(
            "  static tirc_emu::Shared<int, 64> S(\"S\");\n  S[t] = t * {scale};\n  __syncthreads();\n  out[t] = S[63 - t] + __shfl_xor_sync(0xffffffffu, t, 1);"
        )
    };
    let start = std::sync::Arc::new(std::sync::Barrier::new(4));
    let workers: Vec<_> = (1..=4)
        .map(|scale| {
            let emulated = compile_kernel(&kernel(scale), 64);
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                for _ in 0..20 {
                    let (out, _) = launch_kernel(&emulated, 64).unwrap_or_else(|e| panic!("{e}"));
                    let expected: Vec<i32> = (0..64).map(|t| (63 - t) * scale + (t ^ 1)).collect();
                    assert_eq!(out, expected, "scale {scale}");
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("an emulation thread panicked");
    }
}
