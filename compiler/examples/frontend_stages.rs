//! Times each front-end stage (parse, lower, print) on a file, to see where
//! the front end spends its time: `cargo run --release --example frontend_stages FILE`.

use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: frontend_stages FILE");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let mut best = [f64::MAX; 3];
    for _ in 0..5 {
        let start = Instant::now();
        let parsed = tirc_grammar::parse_file(&text);
        let parse = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let (program, _) = tirc::frontend::lower_file(&parsed.file, &text, tirc::source::FileId(0));
        let lower = start.elapsed().as_secs_f64();
        drop(parsed);
        let start = Instant::now();
        let printed = tirc::format::print_program(&program, None);
        let print = start.elapsed().as_secs_f64();
        assert!(!printed.is_empty());
        for (slot, value) in best.iter_mut().zip([parse, lower, print]) {
            *slot = slot.min(value);
        }
    }
    let megabytes = text.len() as f64 / 1e6;
    for (name, seconds) in ["parse", "lower", "print"].iter().zip(best) {
        println!(
            "{name:>6}: {:8.1} ms  {:7.1} MB/s",
            seconds * 1e3,
            megabytes / seconds
        );
    }
    let total: f64 = best.iter().sum();
    println!(
        " total: {:8.1} ms  {:7.1} MB/s",
        total * 1e3,
        megabytes / total
    );
}
