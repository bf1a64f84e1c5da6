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
    let source = dir.join("main.c");
    std::fs::write(&source, program).expect("the C program is written");
    let executable = dir.join("main");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = Command::new(&compiler)
        .arg("-std=c11")
        .arg("-I")
        .arg(dir)
        .arg(&source)
        .arg(library)
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-o")
        .arg(&executable)
        .arg("-lm")
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

#[test]
fn parallel_matmul_library_is_callable_from_c() {
    let dir = scratch("matmul");
    let library = dir.join("libmatmul_128_tiled.so");
    tirc_build(
        &workspace().join("tests/run/matmul_128_tiled.tir"),
        &library,
    );
    let header =
        std::fs::read_to_string(dir.join("libmatmul_128_tiled.h")).expect("the header is written");
    assert!(
        header.contains("int32_t matmul_128_tiled_main(float* A, float* B, float* C);"),
        "{header}"
    );
    let program = r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "libmatmul_128_tiled.h"

int main(void) {
    enum { N = 128 };
    float *a = aligned_alloc(64, N * N * sizeof(float));
    float *b = aligned_alloc(64, N * N * sizeof(float));
    float *c = aligned_alloc(64, N * N * sizeof(float));
    for (int i = 0; i < N * N; ++i) {
        a[i] = (float)((i * 7) % 13) - 6.0f;
        b[i] = (float)((i * 5) % 11) - 5.0f;
    }
    if (matmul_128_tiled_main(a, b, c) != 0) {
        printf("the kernel failed\n");
        return 1;
    }
    for (int i = 0; i < N; ++i) {
        for (int j = 0; j < N; ++j) {
            float sum = 0.0f;
            for (int k = 0; k < N; ++k) sum += a[i * N + k] * b[k * N + j];
            if (fabsf(sum - c[i * N + j]) > 1e-3f) {
                printf("mismatch at %d %d: %f vs %f\n", i, j, sum, c[i * N + j]);
                return 1;
            }
        }
    }
    printf("ok\n");
    return 0;
}
"#;
    assert_eq!(compile_and_run(&dir, &library, program).trim(), "ok");
    let _ = std::fs::remove_dir_all(&dir);
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
    assert_eq!(compile_and_run(&dir, &library, program).trim(), "ok");
    let _ = std::fs::remove_dir_all(&dir);
}
