//! Measures parse throughput on a generated ~5 MB module: `cargo run --release -p tirc-grammar --example parse_speed`.

use std::fmt::Write;
use std::time::Instant;

/// One prim_func of the matmul module from DESIGN.md; `{index}` makes each name unique.
const FUNCTION_TEMPLATE: &str = r#"    @T.prim_func
    def main_{index}(A: T.Buffer((128, 128), "float32"),
             B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "main_{index}", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

"#;

/// Size of the generated file in bytes.
const TARGET_SIZE: usize = 5 * 1024 * 1024;

fn main() {
    let mut source = String::from(
        "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n",
    );
    let mut index = 0;
    while source.len() < TARGET_SIZE {
        let function = FUNCTION_TEMPLATE.replace("{index}", &index.to_string());
        source.push_str(&function);
        index += 1;
    }
    let mut report = String::new();
    let mut best_seconds = f64::INFINITY;
    for _ in 0..5 {
        let started = Instant::now();
        let parsed = tirc_grammar::parse_file(&source);
        let seconds = started.elapsed().as_secs_f64();
        assert!(
            parsed.errors.is_empty(),
            "the generated module must parse: {:?}",
            parsed.errors.first()
        );
        best_seconds = best_seconds.min(seconds);
        std::hint::black_box(parsed);
    }
    let megabytes = source.len() as f64 / 1e6;
    let mut best_layout_seconds = f64::INFINITY;
    for _ in 0..5 {
        let started = Instant::now();
        let token_count = tirc_grammar::layout::Layout::new(&source).count();
        best_layout_seconds = best_layout_seconds.min(started.elapsed().as_secs_f64());
        std::hint::black_box(token_count);
    }
    let _ = writeln!(
        report,
        "lexer + layout alone: {:.1} MB/s",
        megabytes / best_layout_seconds
    );
    let _ = write!(
        report,
        "parsed {megabytes:.1} MB ({index} functions) in {:.1} ms: {:.1} MB/s (best of 5)",
        best_seconds * 1e3,
        megabytes / best_seconds
    );
    println!("{report}");
}
