//! Front-end speed: parse + lower + print a module of 1,000 functions taken
//! from the TVM 0.27 corpus. The module is also written to
//! `target/bench/frontend_module.tir` so `tools/tvm/bench_frontend.py` can time
//! TVM's parser and printer on the same text in the same session.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

// Measure with the allocator the `tirc` binary uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::path::Path;
use tirc::format::print_program;
use tirc::frontend::parse_program;
use tirc::printer::Dialect;
use tirc::source::{FileId, SourceMap};

/// The `@T.prim_func` definitions of a printed module, re-indented to class level.
fn functions_of(text: &str) -> Vec<String> {
    let mut functions = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("    @T.prim_func") {
            if let Some(f) = current.take() {
                functions.push(f);
            }
            current = Some(String::new());
        }
        if let Some(f) = current.as_mut() {
            if !line.is_empty() {
                f.push_str(line);
                f.push('\n');
            }
        }
    }
    functions.extend(current);
    functions
}

/// A module of `count` block-level functions renamed `f0000`, `f0001`, ...
fn bench_module(count: usize) -> String {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/roundtrip/tvm");
    let mut files: Vec<_> = std::fs::read_dir(&corpus)
        .expect("the TVM corpus is in tests/roundtrip/tvm")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.starts_with("te_") || name.starts_with("sched_")
        })
        .collect();
    files.sort();
    let mut pool = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable corpus file");
        // Only single-function modules whose functions refer to nothing outside themselves.
        if text.contains("TypeVar") || text.matches("@T.prim_func").count() != 1 {
            continue;
        }
        pool.extend(functions_of(&text));
    }
    let mut out = String::from("# from tvm.script import ir as I\n# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n@I.ir_module\nclass Module:\n");
    for i in 0..count {
        let function = &pool[i % pool.len()];
        let def_line = function.lines().nth(1).unwrap_or("");
        let old_name = def_line
            .trim_start()
            .strip_prefix("def ")
            .and_then(|rest| rest.split('(').next())
            .unwrap_or("main");
        let renamed = function.replacen(&format!("def {old_name}("), &format!("def f{i:04}("), 1);
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&renamed);
    }
    out
}

fn frontend(c: &mut Criterion) {
    let text = bench_module(1000);
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench");
    let _ = std::fs::create_dir_all(&out_dir);
    let _ = std::fs::write(out_dir.join("frontend_module.tir"), &text);
    let mut group = c.benchmark_group("frontend");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("parse_lower_print_1000_functions", |b| {
        b.iter(|| {
            let mut sources = SourceMap::new();
            let (program, diagnostics) = parse_program(&mut sources, "bench.tir", &text);
            assert!(diagnostics.is_empty(), "the benchmark module must be valid");
            let program = program.expect("a program");
            print_program(&program, Some(Dialect::Tirx))
        })
    });
    // The stages on their own, so a change can be placed: parsing (with the
    // syntax tree's drop), building IR from a parsed tree, printing built IR.
    group.bench_function("parse_only_1000_functions", |b| {
        b.iter(|| tirc_grammar::parse_file(&text))
    });
    let parsed = tirc_grammar::parse_file(&text);
    group.bench_function("lower_only_1000_functions", |b| {
        b.iter(|| tirc::frontend::lower_file(&parsed.file, &text, FileId(0)))
    });
    let (program, _) = tirc::frontend::lower_file(&parsed.file, &text, FileId(0));
    group.bench_function("print_only_1000_functions", |b| {
        b.iter(|| print_program(&program, Some(Dialect::Tirx)))
    });
    group.finish();
}

criterion_group!(benches, frontend);
criterion_main!(benches);
