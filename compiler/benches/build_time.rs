//! Build time against the number of sequential loops in one function: the
//! same `tirc build --emit obj` work for 500 and 1,000 loops. Throughput is
//! in loops per second, so linear growth shows as equal throughput; the run
//! ends by printing the ratio of the two times (2.0 is linear).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::{Duration, Instant};
use tirc::driver::build::{build, BuildRequest, Emit};
use tirc::driver::{lower_file, LoweredProgram, ScheduleChoice, SourceFile};

// Measure with the allocator the `tirc` binary uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One function of `count` loops of 1,024 iterations, one after another.
fn sequential_loops(count: usize) -> String {
    let mut text = String::from(
        "# from tvm.script import tir as T\n\n@T.prim_func\n\
         def main(A: T.Buffer((1024,), \"float32\"), B: T.Buffer((1024,), \"float32\")):\n    \
         T.func_attr({\"global_symbol\": \"main\", \"tir.noalias\": True})\n",
    );
    for k in 0..count {
        text.push_str(&format!(
            "    for i{k} in range(1024):\n        B[i{k}] = B[i{k}] + A[i{k}] * T.float32({k})\n"
        ));
    }
    text
}

fn lowered(count: usize) -> LoweredProgram {
    let source = SourceFile::new(format!("loops_{count}.tir"), sequential_loops(count));
    lower_file(&source, &ScheduleChoice::Default).expect("the generated program lowers")
}

fn build_object(program: &LoweredProgram, output: &std::path::Path) {
    let request = BuildRequest {
        target: tirc::codegen::target::Target::host(),
        emit: Emit::Object,
        output: output.to_path_buf(),
        symbol_prefix: None,
        runtime_checks: false,
    };
    build(program, "loops.tir", &request).expect("the program builds");
}

fn build_time(c: &mut Criterion) {
    let directory = std::env::temp_dir().join(format!("tirc-build-bench-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    let output = directory.join("loops.o");
    let mut group = c.benchmark_group("build_sequential_loops");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    let mut means = Vec::new();
    for count in [500usize, 1000] {
        let program = lowered(count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(count),
            &program,
            |b, program| b.iter(|| build_object(program, &output)),
        );
        // A direct mean of a few builds, for the ratio printed below.
        let runs = 3;
        let start = Instant::now();
        for _ in 0..runs {
            build_object(&program, &output);
        }
        means.push(start.elapsed().as_secs_f64() / runs as f64);
    }
    group.finish();
    println!(
        "build time, 1,000 loops / 500 loops: {:.2} ({:.2} s / {:.2} s; 2.00 is linear) on {}",
        means[1] / means[0],
        means[1],
        means[0],
        tirc::driver::toolchain::probe_cpu().model,
    );
    let _ = std::fs::remove_dir_all(&directory);
}

criterion_group!(benches, build_time);
criterion_main!(benches);
