//! `tirc build --emit so` end to end: the library and its header are built
//! from `.tir` files, a C program that includes the header is compiled and
//! linked against the library with the system C compiler, and it checks the
//! kernels' results against a plain C reference.
#![cfg(feature = "llvm")]

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tirc-so-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn tirc_build(input: &Path, output: &Path) {
    let result = Command::new(env!("CARGO_BIN_EXE_tirc"))
        .arg("build")
        .arg(input)
        .args(["--target", "llvm", "--emit", "so", "-o"])
        .arg(output)
        .output()
        .expect("tirc runs");
    assert!(
        result.status.success(),
        "tirc build failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

fn compile_and_run(dir: &Path, library: &Path, program: &str) -> String {
    compile_and_run_linking(dir, &[library.as_os_str(), "-lm".as_ref()], program)
}

/// Compiles `program` with `link` (libraries and flags) and runs it; its output.
fn compile_and_run_linking(dir: &Path, link: &[&std::ffi::OsStr], program: &str) -> String {
    let source = dir.join("main.c");
    std::fs::write(&source, program).expect("the C program is written");
    let executable = dir.join("main");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = Command::new(&compiler)
        .arg("-std=gnu11")
        .arg("-I")
        .arg(dir)
        .arg(&source)
        .args(link)
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-o")
        .arg(&executable)
        .output()
        .expect("the C compiler runs");
    assert!(
        compiled.status.success(),
        "the C program does not compile against the header:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let ran = Command::new(&executable)
        .output()
        .expect("the C program runs");
    let stdout = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(
        ran.status.success(),
        "the C program failed:\n{stdout}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    stdout
}

/// Runs `program` against `library`, which must print `ok`, then removes `dir`.
fn expect_ok(dir: &Path, library: &Path, program: &str) {
    assert_eq!(compile_and_run(dir, library, program).trim(), "ok");
    let _ = std::fs::remove_dir_all(dir);
}

/// C for the tests of `tests/run/matmul_128_tiled.tir`: the size, the
/// inputs every test uses, and the plain triple-loop reference.
const MATMUL_128_FIXTURE: &str = r#"
enum { N = 128 };

static void fill_inputs(float *a, float *b) {
    for (int i = 0; i < N * N; ++i) {
        a[i] = (float)((i * 7) % 13) - 6.0f;
        b[i] = (float)((i * 5) % 11) - 5.0f;
    }
}

static float reference_at(const float *a, const float *b, int i, int j) {
    float sum = 0.0f;
    for (int k = 0; k < N; ++k) sum += a[i * N + k] * b[k * N + j];
    return sum;
}
"#;

/// Builds `tests/run/matmul_128_tiled.tir` into a scratch directory named
/// after `name`; the directory and the library, whose header includes as
/// `libmatmul_128_tiled.h`.
fn build_matmul_128(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let library = dir.join("libmatmul_128_tiled.so");
    tirc_build(
        &workspace().join("tests/run/matmul_128_tiled.tir"),
        &library,
    );
    (dir, library)
}

#[test]
fn parallel_matmul_library_is_callable_from_c() {
    let (dir, library) = build_matmul_128("matmul");
    let header =
        std::fs::read_to_string(dir.join("libmatmul_128_tiled.h")).expect("the header is written");
    assert!(
        header.contains("int32_t matmul_128_tiled_main(float* A, float* B, float* C);"),
        "{header}"
    );
    let program = format!(
        r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "libmatmul_128_tiled.h"
{MATMUL_128_FIXTURE}
int main(void) {{
    float *a = aligned_alloc(64, N * N * sizeof(float));
    float *b = aligned_alloc(64, N * N * sizeof(float));
    float *c = aligned_alloc(64, N * N * sizeof(float));
    fill_inputs(a, b);
    if (matmul_128_tiled_main(a, b, c) != 0) {{
        printf("the kernel failed\n");
        return 1;
    }}
    for (int i = 0; i < N; ++i) {{
        for (int j = 0; j < N; ++j) {{
            float sum = reference_at(a, b, i, j);
            if (fabsf(sum - c[i * N + j]) > 1e-3f) {{
                printf("mismatch at %d %d: %f vs %f\n", i, j, sum, c[i * N + j]);
                return 1;
            }}
        }}
    }}
    printf("ok\n");
    return 0;
}}
"#
    );
    expect_ok(&dir, &library, &program);
}

#[test]
fn symbolic_shapes_become_int64_arguments() {
    let dir = scratch("symbolic");
    let library = dir.join("libmm.so");
    tirc_build(
        &workspace().join("tests/run/matmul_symbolic_n_i32.tir"),
        &library,
    );
    let header = std::fs::read_to_string(dir.join("libmm.h")).expect("the header is written");
    assert!(
        header.contains(
            "int32_t matmul_symbolic_n_i32_main(float* A, float* B, float* C, int64_t n);"
        ),
        "{header}"
    );
    let program = r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "libmm.h"

int main(void) {
    enum { N = 5, K = 128 };
    float *a = aligned_alloc(64, 64 * ((N * K * sizeof(float) + 63) / 64));
    float *b = aligned_alloc(64, K * K * sizeof(float));
    float *c = aligned_alloc(64, 64 * ((N * K * sizeof(float) + 63) / 64));
    for (int i = 0; i < N * K; ++i) a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < K * K; ++i) b[i] = (float)(i % 5) - 2.0f;
    if (matmul_symbolic_n_i32_main(a, b, c, N) != 0) return 1;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < K; ++j) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += a[i * K + k] * b[k * K + j];
            if (fabsf(sum - c[i * K + j]) > 1e-3f) return 2;
        }
    printf("ok\n");
    return 0;
}
"#;
    expect_ok(&dir, &library, program);
}

/// The conv2d example has a padding loop and a convolution loop, both
/// parallel: `tirc build` compiles them on threads of their own into
/// separate objects, which the library joins while exporting only the kernel.
#[test]
fn conv2d_compiled_in_parallel_units_links_and_computes() {
    let dir = scratch("conv2d");
    let library = dir.join("libconv.so");
    tirc_build(&workspace().join("examples/conv2d_nchw.tir"), &library);
    let symbols = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&library)
        .output()
        .expect("nm runs");
    let exported: Vec<String> = String::from_utf8_lossy(&symbols.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2).map(str::to_string))
        .filter(|name| name.contains("conv2d"))
        .collect();
    assert_eq!(exported, ["conv2d_nchw_main"]);
    let program = r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "libconv.h"

int main(void) {
    enum { C = 64, H = 56, W = 56 };
    float *x = aligned_alloc(64, C * H * W * sizeof(float));
    float *w = aligned_alloc(64, C * C * 9 * sizeof(float));
    float *y = aligned_alloc(64, C * H * W * sizeof(float));
    for (int i = 0; i < C * H * W; ++i) x[i] = (float)((i * 7) % 13) - 6.0f;
    for (int i = 0; i < C * C * 9; ++i) w[i] = (float)((i * 5) % 11) - 5.0f;
    if (conv2d_nchw_main(x, w, y) != 0) return 1;
    /* Every seventh output, borders included, against a direct convolution. */
    for (int o = 0; o < C * H * W; o += 7) {
        int f = o / (H * W), row = o / W % H, col = o % W;
        float sum = 0.0f;
        for (int c = 0; c < C; ++c)
            for (int dy = 0; dy < 3; ++dy)
                for (int dx = 0; dx < 3; ++dx) {
                    int r = row + dy - 1, q = col + dx - 1;
                    if (r >= 0 && r < H && q >= 0 && q < W)
                        sum += x[(c * H + r) * W + q] * w[((f * C + c) * 3 + dy) * 3 + dx];
                }
        if (fabsf(sum - y[o]) > 1e-2f) {
            printf("mismatch at %d: %f vs %f\n", o, sum, y[o]);
            return 1;
        }
    }
    printf("ok\n");
    return 0;
}
"#;
    expect_ok(&dir, &library, program);
}

/// The library's parallel loops run on a pool that outlives a call: its
/// workers are still there between calls, calls from two threads at once
/// take turns and both compute, and unloading the library stops and joins
/// the workers, so nothing runs code that is no longer mapped.
#[test]
fn parallel_pool_persists_across_calls_serves_threads_and_stops_on_unload() {
    let (dir, library) = build_matmul_128("pool");
    let program = format!(
        r#"
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
{MATMUL_128_FIXTURE}
enum {{ CALLS = 40 }};
typedef int32_t (*kernel_t)(float *, float *, float *);
static kernel_t kernel;
static float *a, *b, *expected;

static int threads_now(void) {{
    int count = 0;
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) count += entry->d_name[0] != '.';
    closedir(tasks);
    return count;
}}

static void *caller(void *unused) {{
    (void)unused;
    float *c = aligned_alloc(64, N * N * sizeof(float));
    for (int call = 0; call < CALLS; ++call) {{
        for (int i = 0; i < N * N; ++i) c[i] = -1.0f;
        if (kernel(a, b, c) != 0) return "the kernel failed";
        for (int i = 0; i < N * N; ++i)
            if (fabsf(c[i] - expected[i]) > 1e-3f) return "a result differs";
    }}
    free(c);
    return NULL;
}}

int main(void) {{
    setenv("TIRC_NUM_THREADS", "3", 1);
    a = aligned_alloc(64, N * N * sizeof(float));
    b = aligned_alloc(64, N * N * sizeof(float));
    expected = malloc(N * N * sizeof(float));
    fill_inputs(a, b);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) expected[i * N + j] = reference_at(a, b, i, j);
    for (int load = 0; load < 2; ++load) {{
        void *library = dlopen("{library}", RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {{ printf("dlopen: %s\n", dlerror()); return 1; }}
        kernel = (kernel_t)dlsym(library, "matmul_128_tiled_main");
        const char *failed = caller(NULL);
        if (failed != NULL) {{ printf("%s\n", failed); return 1; }}
        /* The caller and two workers. */
        if (threads_now() != 3) {{ printf("%d threads after a call\n", threads_now()); return 1; }}
        pthread_t first, second;
        void *first_failed, *second_failed;
        pthread_create(&first, NULL, caller, NULL);
        pthread_create(&second, NULL, caller, NULL);
        pthread_join(first, &first_failed);
        pthread_join(second, &second_failed);
        if (first_failed != NULL || second_failed != NULL) {{
            printf("%s\n", first_failed != NULL ? (char *)first_failed : (char *)second_failed);
            return 1;
        }}
        dlclose(library);
        if (threads_now() != 1) {{ printf("%d threads after unloading\n", threads_now()); return 1; }}
    }}
    printf("ok\n");
    return 0;
}}
"#,
        library = library.display()
    );
    let output = compile_and_run_linking(
        &dir,
        &["-lm".as_ref(), "-lpthread".as_ref(), "-ldl".as_ref()],
        &program,
    );
    assert_eq!(output.trim(), "ok");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The TE notebook's lowered program: two buffers whose strides are both
/// named `stride`. The header gives each its own parameter name and compiles.
#[test]
fn headers_with_same_named_strides_compile() {
    let dir = scratch("strides");
    let input = dir.join("strided.tir");
    std::fs::write(
        &input,
        r#"@T.prim_func
def main(A: T.handle, B: T.handle):
    m = T.int32()
    A_1 = T.match_buffer(A, (m,), strides=("stride",), buffer_type="auto")
    B_1 = T.match_buffer(B, (m,), strides=("stride",), buffer_type="auto")
    for i in range(m):
        A_2 = T.Buffer((A_1.strides[0] * m,), data=A_1.data, buffer_type="auto")
        B_2 = T.Buffer((B_1.strides[0] * m,), data=B_1.data, buffer_type="auto")
        B_2[i * B_1.strides[0]] = A_2[i * A_1.strides[0]] + T.float32(1)
"#,
    )
    .unwrap();
    let library = dir.join("libstrided.so");
    tirc_build(&input, &library);
    let header = std::fs::read_to_string(dir.join("libstrided.h")).unwrap();
    assert!(
        header.contains("int64_t stride, int64_t stride_1"),
        "{header}"
    );
    let output = compile_and_run(
        &dir,
        &library,
        "#include <stdio.h>\n#include \"libstrided.h\"\nint main(void) {\n  float a[4] = {1, 2, 3, 4}, b[4] = {0};\n  int32_t status = strided_main(a, b, 4, 1, 1);\n  printf(\"%d %g %g\\n\", status, b[0], b[3]);\n  return 0;\n}\n",
    );
    assert_eq!(output.trim(), "0 2 5");
}

/// With `--runtime-checks`, a buffer passed less aligned than the kernel
/// assumes (64 bytes) is an error code at entry, not a crash (issue 25.11).
#[test]
fn runtime_checks_refuse_misaligned_buffers() {
    let dir = scratch("alignment");
    let input = dir.join("scale.tir");
    std::fs::write(
        &input,
        "@T.prim_func\ndef main(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n    T.func_attr({\"tir.noalias\": True})\n    for i in T.vectorized(64):\n        B[i] = A[i] * T.float32(2)\n",
    )
    .expect("the program is written");
    let library = dir.join("libscale.so");
    let result = Command::new(env!("CARGO_BIN_EXE_tirc"))
        .arg("build")
        .arg(&input)
        .args(["--emit", "so", "--runtime-checks", "-o"])
        .arg(&library)
        .output()
        .expect("tirc runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let program = r#"
#include <stdio.h>
#include <stdlib.h>
#include "libscale.h"
int main(void) {
    float *a = aligned_alloc(64, 80 * sizeof(float));
    float *b = aligned_alloc(64, 80 * sizeof(float));
    for (int i = 0; i < 80; ++i) a[i] = (float)i;
    int aligned = scale_main(a, b);
    int misaligned = scale_main(a + 1, b + 1);
    printf("%d %d %g\n", aligned, misaligned, b[3]);
    return 0;
}
"#;
    let output = compile_and_run(&dir, &library, program);
    let fields: Vec<&str> = output.split_whitespace().collect();
    assert_eq!(fields[0], "0", "the aligned call failed: {output}");
    assert_ne!(fields[1], "0", "a misaligned call was accepted: {output}");
    assert_eq!(fields[2], "6", "{output}");
    let _ = std::fs::remove_dir_all(&dir);
}
