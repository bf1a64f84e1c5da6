//! Unit tests of the CUDA passes: where `thread-sync` puts barriers (each
//! hazard kind, loops, thread-dependent conditions, and programs that need
//! none), and the launch checks of `split-host-device`.

use super::{options_for, pipeline_for, run_passes};
use crate::codegen::Target;
use crate::ir::{IRModule, PrimFunc};
use crate::printer::{print_function, Dialect, PrintOptions};

/// The module of `text`, which must parse without errors.
pub(super) fn parse(text: &str) -> IRModule {
    let mut sources = crate::source::SourceMap::default();
    let (program, diagnostics) = crate::frontend::parse_program(&mut sources, "test.tir", text);
    assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
    program.expect("the test program parses").module
}

fn lower(text: &str) -> Result<IRModule, Vec<crate::diagnostics::Diagnostic>> {
    let target = Target::Cuda(Default::default());
    run_passes(
        &pipeline_for(&target),
        &parse(text),
        &options_for(&target),
        &mut |_, _| {},
    )
}

/// The kernel's body as printed, one statement per line, indentation kept.
fn kernel_body(text: &str) -> String {
    let module = lower(text).unwrap_or_else(|errors| panic!("{errors:#?}"));
    printed_kernel(&module)
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("for bx"))
        .map(|line| line.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module's kernel, printed.
fn printed_kernel(module: &IRModule) -> String {
    let kernel: &PrimFunc = module
        .functions
        .iter()
        .find(|f| super::split_host_device::is_kernel(f))
        .expect("a kernel");
    print_function(kernel, &PrintOptions::new(Dialect::Classic))
}

/// A module whose `main(A, B)` (64 floats each) runs `blocks`: the
/// statements under its `blockIdx.x` loop of 2, at that loop body's indentation.
fn kernel_module(blocks: &str) -> String {
    format!(
        r#"# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({{"tir.noalias": True}})
        for bx in T.thread_binding(2, thread="blockIdx.x"):
{blocks}"#
    )
}

/// A kernel of 2 blocks of 32 threads with a 64-float shared buffer `S`
/// and `body` (written at the indentation of the thread loop's body).
fn program(body: &str) -> String {
    let body: String = body
        .trim_matches('\n')
        .lines()
        .map(|line| format!("                {line}\n"))
        .collect();
    kernel_module(&format!(
        "            for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n                S = T.decl_buffer((64,), scope=\"shared\")\n{body}"
    ))
}

fn barriers(body: &str) -> usize {
    body.matches("T.tvm_storage_sync(\"shared\")").count()
}

/// The line of the first barrier and of the first line containing `marker`.
fn barrier_before(body: &str, marker: &str) -> bool {
    let lines: Vec<&str> = body.lines().collect();
    let target = lines
        .iter()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no `{marker}` in\n{body}"));
    target > 0 && lines[target - 1].contains("tvm_storage_sync")
}

#[test]
fn a_read_of_another_threads_write_gets_one_barrier_before_it() {
    let body = kernel_body(&program(
        r#"
S[tx] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[31 - tx]
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(
        barrier_before(&body, "B[bx * 32 + tx] = S[31 - tx]"),
        "{body}"
    );
}

#[test]
fn each_thread_reading_its_own_element_needs_no_barrier() {
    let body = kernel_body(&program(
        r#"
S[tx] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[tx] * T.float32(2.0)
"#,
    ));
    assert_eq!(barriers(&body), 0, "{body}");
}

#[test]
fn an_element_thread_zero_writes_and_every_thread_reads_gets_a_barrier() {
    // `S[0]` names one element for all threads: the same index is not the
    // same thread's own element (the reduction result published in shared
    // memory, as DLight's softmax reads it).
    let body = kernel_body(&program(
        r#"
if tx == 0:
    S[0] = A[bx * 32]
B[bx * 32 + tx] = A[bx * 32 + tx] - S[0]
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(
        barrier_before(&body, "B[bx * 32 + tx] = A[bx * 32 + tx] - S[0]"),
        "{body}"
    );
}

#[test]
fn a_copy_every_thread_repeats_gets_one_barrier_before_its_readers() {
    // Every thread stores S[0..4] (an unbound copy loop): two writes at one
    // index store one value, so no barrier goes into the loop; the read of
    // an element every thread shares gets one.
    let body = kernel_body(&program(
        r#"
for i in range(4):
    S[i] = A[bx * 32 + i]
B[bx * 32 + tx] = S[2]
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(barrier_before(&body, "B[bx * 32 + tx] = S[2]"), "{body}");
}

#[test]
fn a_write_over_what_another_thread_read_gets_a_barrier() {
    // Write after read: thread tx reads S[31 - tx], then every thread
    // overwrites its own element, which another thread may still read.
    let body = kernel_body(&program(
        r#"
S[tx] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[31 - tx]
S[tx] = T.float32(0.0)
A[bx * 32 + tx] = S[tx]
"#,
    ));
    assert_eq!(barriers(&body), 2, "{body}");
    assert!(barrier_before(&body, "S[tx] = T.float32(0.0)"), "{body}");
}

#[test]
fn a_loop_whose_next_iteration_overwrites_what_this_one_read_syncs_at_its_start() {
    let body = kernel_body(&program(
        r#"
for k in range(4):
    S[tx] = A[bx * 32 + (tx + k) % 32]
    B[bx * 32 + tx] = B[bx * 32 + tx] + S[(tx + 1) % 32]
"#,
    ));
    assert_eq!(barriers(&body), 2, "{body}");
    assert!(barrier_before(&body, "S[tx] = A["), "{body}");
    assert!(
        barrier_before(&body, "B[bx * 32 + tx] = B[bx * 32 + tx] + S["),
        "{body}"
    );
}

#[test]
fn a_fetch_loop_whose_iterations_write_their_own_elements_syncs_once_after_it() {
    // Iteration k writes S[32k .. 32k + 32): no thread meets another's
    // element across iterations, so no barrier goes inside the loop.
    let body = kernel_body(&program(
        r#"
for k in range(2):
    S[k * 32 + tx] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[63 - tx]
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(
        barrier_before(&body, "B[bx * 32 + tx] = S[63 - tx]"),
        "{body}"
    );
    // With a stride smaller than the threads, iterations overlap.
    let body = kernel_body(&program(
        r#"
for k in range(2):
    S[k * 16 + tx] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[47 - tx]
"#,
    ));
    assert_eq!(barriers(&body), 2, "{body}");
}

#[test]
fn a_fetch_the_loop_and_threads_index_one_to_one_syncs_once_after_it() {
    // Thread tx writes S[2tx] then S[2tx + 1]: the threads' elements
    // interleave but no element is written in two iterations.
    let fetch = |index: &str| {
        kernel_body(&program(&format!(
            r#"
for k in range(2):
    for j in range(1):
        S[{index}] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[63 - tx]
"#
        )))
    };
    let body = fetch("tx * 2 + k + j");
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(
        barrier_before(&body, "B[bx * 32 + tx] = S[63 - tx]"),
        "{body}"
    );
    // Thread tx + 1's first element is thread tx's second.
    let body = fetch("tx + k + j");
    assert_eq!(barriers(&body), 2, "{body}");
}

#[test]
fn a_guarded_fetch_whose_iterations_write_their_own_elements_syncs_once_after_it() {
    // 32 threads, a stride of 24: the guard `tx < 24` keeps iteration k
    // within S[24k .. 24k + 24) (DLight's GEMV copies 300 of 512 threads).
    let fetch = |guard: &str| {
        kernel_body(&program(&format!(
            r#"
for k in range(2):
    if {guard}:
        S[k * 24 + tx] = A[bx * 32 + tx]
B[bx * 32 + tx] = S[47 - tx]
"#
        )))
    };
    let body = fetch("tx < 24");
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(
        barrier_before(&body, "B[bx * 32 + tx] = S[47 - tx]"),
        "{body}"
    );
    // A guard that lets 25 threads through: iterations overlap.
    let body = fetch("tx < 25");
    assert_eq!(barriers(&body), 2, "{body}");
}

#[test]
fn a_vectorized_fetch_whose_iterations_write_their_own_elements_syncs_once_after_it() {
    // Each thread stores two floats: iteration k writes within
    // S[32k .. 32k + 32), disjoint from the other iteration's.
    let body = kernel_body(&program(
        r#"
for k in range(2):
    S[T.Ramp(k * 32 + tx % 16 * 2, 1, 2)] = A[T.Ramp(bx * 32 + tx % 16 * 2, 1, 2)]
B[bx * 32 + tx] = S[63 - tx]
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
}

#[test]
fn shared_memory_handed_to_a_call_through_an_access_pointer_is_synchronised() {
    // A wmma load reads S through `T.tvm_access_ptr` (mask 1, a read): the
    // fetch before it needs a barrier between them.
    let body = kernel_body(&program(
        r#"
S[tx] = A[bx * 32 + tx]
T.evaluate(T.call_extern("int32", "consume", T.tvm_access_ptr(T.type_annotation("float32"), S.data, 0, 32, 1)))
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(barrier_before(&body, "consume"), "{body}");
}

#[test]
fn a_loop_of_per_thread_accesses_needs_no_barrier() {
    let body = kernel_body(&program(
        r#"
for k in range(4):
    S[tx] = A[bx * 32 + tx] * T.Cast("float32", k)
    B[bx * 32 + tx] = B[bx * 32 + tx] + S[tx]
"#,
    ));
    assert_eq!(barriers(&body), 0, "{body}");
}

#[test]
fn no_barrier_goes_inside_a_condition_on_the_thread() {
    let body = kernel_body(&program(
        r#"
S[tx] = A[bx * 32 + tx]
if tx < 16:
    B[bx * 32 + tx] = S[tx + 16]
"#,
    ));
    assert_eq!(barriers(&body), 1, "{body}");
    assert!(barrier_before(&body, "if tx < 16"), "{body}");
}

#[test]
fn the_launch_checks_name_the_loop_that_breaks_them() {
    let code_of = |text: &str| -> Vec<String> {
        match lower(text) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.into_iter().map(|e| e.code).collect(),
        }
    };
    for explanation in super::explain::LOWERING_EXPLANATIONS {
        if !["E0505", "E0506", "E0507", "E0508", "E0509"].contains(&explanation.code) {
            continue;
        }
        let header = "# from tvm.script import tir as T\n\n";
        let wrong = code_of(&format!("{header}{}", explanation.wrong));
        assert!(
            wrong.iter().any(|c| c == explanation.code),
            "{}: the wrong example gives {wrong:?}",
            explanation.code
        );
        let right = code_of(&format!("{header}{}", explanation.right));
        assert!(
            right.is_empty(),
            "{}: the right example gives {right:?}",
            explanation.code
        );
    }
}

/// The kernel of a row sum of `dtype` over `threads` threads bound to
/// `tag` (3 elements per thread), rows on blockIdx.x, and `rows_per_block`
/// rows of a block on `row_tag`.
fn reduction_kernel(
    threads: i64,
    dtype: &str,
    tag: &str,
    row_tag: &str,
    rows_per_block: i64,
) -> String {
    let columns = threads * 3;
    let rows = 4 * rows_per_block;
    let text = format!(
        r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer(({rows}, {columns}), "{dtype}"), S: T.Buffer(({rows},), "{dtype}")):
    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_1 in T.thread_binding({rows_per_block}, thread="{row_tag}"):
            for k_0 in range(3):
                for k_1 in T.thread_binding({threads}, thread="{tag}"):
                    with T.block("S"):
                        vi = T.axis.spatial({rows}, i_0 * {rows_per_block} + i_1)
                        vk = T.axis.reduce({columns}, k_0 * {threads} + k_1)
                        with T.init():
                            S[vi] = T.{dtype}(0)
                        S[vi] = S[vi] + A[vi, vk]
"#
    );
    let module = lower(&text).unwrap_or_else(|errors| panic!("{errors:#?}"));
    let kernel = module
        .functions
        .iter()
        .find(|f| super::split_host_device::is_kernel(f))
        .expect("a kernel");
    print_function(kernel, &PrintOptions::new(Dialect::Classic))
}

/// How many shuffles of `width` lanes `printed` has.
fn shuffles(printed: &str, width: i64) -> usize {
    printed
        .lines()
        .filter(|line| {
            line.contains("T.tvm_warp_shuffle_down(") && line.contains(&format!(", {width}, 32)"))
        })
        .count()
}

#[test]
fn a_reduction_across_a_warp_is_five_shuffles_and_no_shared_memory() {
    let printed = reduction_kernel(32, "float32", "threadIdx.x", "threadIdx.y", 2);
    assert_eq!(shuffles(&printed, 32), 5, "{printed}");
    assert!(
        printed.contains("S_mask[0] = T.tvm_warp_activemask()"),
        "{printed}"
    );
    assert!(!printed.contains("\"shared\""), "{printed}");
    assert_eq!(barriers(&printed), 0, "{printed}");
    assert!(printed.contains("if k_1 == 0:"), "{printed}");
}

#[test]
fn a_reduction_over_four_warps_shuffles_then_combines_the_warps_after_one_barrier() {
    let printed = reduction_kernel(128, "float32", "threadIdx.x", "threadIdx.y", 2);
    assert_eq!(shuffles(&printed, 32), 5, "{printed}");
    assert_eq!(shuffles(&printed, 4), 2, "{printed}");
    // One element per warp and row of the block: 4 warps, 2 rows.
    assert!(
        printed.contains("S_red_buf_staging = T.decl_buffer((8,), scope=\"shared\")"),
        "{printed}"
    );
    assert!(
        printed.contains("S_red_buf_staging[i_1 * 4 + (k_1 >> 5)]"),
        "{printed}"
    );
    // The warps' results, then the row's result, which thread 0 publishes
    // in shared memory for every thread of the row to read (TVM's
    // allreduce): two barriers.
    assert!(
        printed.contains("S_red_result = T.decl_buffer((2,), scope=\"shared\")"),
        "{printed}"
    );
    assert_eq!(barriers(&printed), 2, "{printed}");
}

#[test]
fn a_reduction_within_a_warp_gives_every_lane_the_result() {
    let printed = reduction_kernel(16, "float32", "threadIdx.x", "threadIdx.y", 2);
    assert_eq!(shuffles(&printed, 16), 4, "{printed}");
    assert!(
        printed.contains("T.tvm_warp_shuffle(S_mask[0], S_in_thread_acc[0], 0, 16, 32)"),
        "{printed}"
    );
}

#[test]
fn reductions_warps_cannot_do_use_a_tree_in_shared_memory() {
    // 24 threads do not divide a warp; int8 has no shuffle; threadIdx.y's
    // threads are not consecutive lanes when threadIdx.x has 2.
    for (threads, dtype, tag, row_tag) in [
        (24, "float32", "threadIdx.x", "threadIdx.y"),
        (32, "int8", "threadIdx.x", "threadIdx.y"),
        (32, "float32", "threadIdx.y", "threadIdx.x"),
    ] {
        let printed = reduction_kernel(threads, dtype, tag, row_tag, 2);
        assert!(!printed.contains("tvm_warp"), "{printed}");
        let elements = threads * 2;
        assert!(
            printed.contains(&format!(
                "S_red_buf = T.decl_buffer(({elements},), \"{dtype}\", scope=\"shared\")"
            )) || printed.contains(&format!(
                "S_red_buf = T.decl_buffer(({elements},), scope=\"shared\")"
            )),
            "{printed}"
        );
        // The tree's rounds each read the row's own part of the buffer.
        assert!(
            printed.contains(&format!("i_1 * {threads} + k_1")),
            "{printed}"
        );
        let rounds = (threads as u64).next_power_of_two().trailing_zeros() as usize;
        // A barrier before each round, and one before every thread reads
        // the root.
        assert_eq!(barriers(&printed), rounds + 1, "{printed}");
    }
}

#[test]
fn a_reduction_over_two_thread_loops_is_refused_at_the_bound_loop() {
    let text = r#"# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 64), "float32"), S: T.Buffer((4,), "float32")):
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for k_0 in T.thread_binding(2, thread="threadIdx.y"):
            for k_1 in T.thread_binding(32, thread="threadIdx.x"):
                with T.block("S"):
                    vi = T.axis.spatial(4, i)
                    vk = T.axis.reduce(64, k_0 * 32 + k_1)
                    with T.init():
                        S[vi] = T.float32(0.0)
                    S[vi] = S[vi] + A[vi, vk]
"#;
    let errors = lower(text).expect_err("two thread loops are refused");
    assert_eq!(errors[0].code, super::codes::UNSUPPORTED);
    assert!(
        errors[0]
            .message
            .contains("more than one thread-bound loop"),
        "{}",
        errors[0].message
    );
}

/// A kernel of 2 blocks of 32 threads with a 32-float `warp` buffer `W`
/// filled by `put` and read by `get` (statements under `threadIdx.x` loops).
fn warp_program(put: &str, get: &str) -> String {
    kernel_module(&format!(
        r#"            with T.block("warp"):
                W = T.alloc_buffer((32,), scope="warp")
                for tx in T.thread_binding(32, thread="threadIdx.x"):
                    with T.block("put"):
                        {put}
                for tx in T.thread_binding(32, thread="threadIdx.x"):
                    with T.block("get"):
                        {get}
"#
    ))
}

#[test]
fn warp_memory_becomes_a_register_per_lane_and_other_lanes_are_shuffled_in() {
    let body = kernel_body(&warp_program(
        "W[tx] = A[bx * 32 + tx]",
        "B[bx * 32 + tx] = W[(tx + 1) % 32] + W[tx]",
    ));
    assert!(
        body.contains("W = T.decl_buffer((1,), scope=\"local\")"),
        "{body}"
    );
    assert!(body.contains("W[0] = A[bx * 32 + tx]"), "{body}");
    assert!(
        body.contains(
            "T.tvm_warp_shuffle(T.tvm_warp_activemask(), W[0], tx + 1 & 31, 32, 32) + W[0]"
        ),
        "{body}"
    );
}

#[test]
fn warp_memory_written_against_the_lane_order_is_refused() {
    let errors = lower(&warp_program(
        "W[31 - tx] = A[bx * 32 + tx]",
        "B[bx * 32 + tx] = W[tx]",
    ))
    .expect_err("a store at 31 - tx does not say which lane holds what");
    assert_eq!(errors[0].code, super::codes::WARP_MEMORY, "{errors:#?}");
    assert!(errors[0].message.contains("31 - tx"), "{errors:#?}");
}

#[test]
fn mma_operands_in_warp_memory_become_offsets_into_each_lanes_registers() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/codegen/cuda/mma_matmul.tir"
    ))
    .expect("the mma case");
    let mut sources = crate::source::SourceMap::default();
    let (program, diagnostics) = crate::frontend::parse_program(&mut sources, "mma.tir", &text);
    assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
    let run = crate::schedule::apply_schedule(&program.expect("parses"), None);
    assert!(run.succeeded());
    let target = Target::Cuda(Default::default());
    let lowered = run_passes(
        &pipeline_for(&target),
        run.module(),
        &options_for(&target),
        &mut |_, _| {},
    )
    .unwrap_or_else(|errors| panic!("{errors:#?}"));
    let body = printed_kernel(&lowered);
    // 4x4 tiles of 32 lanes x 8 registers: each lane keeps 16 of C's.
    assert!(
        body.contains("C_warp = T.decl_buffer((16,), scope=\"local\")"),
        "{body}"
    );
    assert!(
        body.contains("T.cuda.mma_fill_legacy(8, C_warp.data, j_0_4_init * 8)"),
        "{body}"
    );
    assert!(
        body.contains("B_shared_warp.data, j_0_4 * 8 + 4, C_warp.data, j_0_4 * 8 + 4"),
        "{body}"
    );
    assert!(!body.contains("scope=\"warp\""), "{body}");
}
