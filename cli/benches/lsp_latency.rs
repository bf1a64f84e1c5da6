//! Latency benchmark of the real `tirc` binary (`tirc lsp`) over stdio (not a timed
//! test): time from a change to the published diagnostics on a 5,000-line
//! file, and hover and completion latency on it.
//!
//! `cargo bench -p tirc-cli --bench lsp_latency` (release build). Targets: under
//! 50 ms for diagnostics, under 5 ms for hover and completion.

#[path = "../tests/lsp/support/mod.rs"]
mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::{position_of, Server};

/// A module of `functions` matmul-like functions, about 20 lines each.
fn large_file(functions: usize) -> String {
    let mut text = String::from("# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n");
    for index in 0..functions {
        text.push_str(&format!(
            r#"    @T.prim_func
    def main_{index}(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({{"tir.noalias": True}})
        # with T.block("root"):
        D = T.alloc_buffer((128, 128))
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(D[vi, vj])
                with T.init():
                    D[vi, vj] = T.float32(0.0)
                D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(D[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(D[vi, vj], T.float32(0.0))

"#
        ));
    }
    text
}

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "{name:<42} median {:>7.2} ms   p90 {:>7.2} ms   max {:>7.2} ms   ({} runs)",
        at(0.5),
        at(0.9),
        at(1.0),
        samples.len()
    );
}

fn main() {
    let text = large_file(250);
    println!("file: {} lines, {} bytes", text.lines().count(), text.len());
    let document = support::uri("large.tir");
    let mut server = Server::start();
    let start = Instant::now();
    server.open(&document, &text);
    let (diagnostics, _) = server.diagnostics_for(&document, 1);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    println!(
        "open to first diagnostics: {:.2} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );

    // Alternately break and fix one name in the middle of the file.
    let (line, character) = position_of(&text, "A[vi, vk] * B", 125, 0);
    let range = json!({"start": {"line": line, "character": character}, "end": {"line": line, "character": character + 1}});
    let mut samples = Vec::new();
    for version in 2..42 {
        let replacement = if version % 2 == 0 { "Q" } else { "A" };
        let start = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": document, "version": version},
                "contentChanges": [{"range": range, "text": replacement}],
            }),
        );
        let (diagnostics, _) = server.diagnostics_for(&document, version);
        samples.push(start.elapsed());
        assert_eq!(diagnostics.len(), usize::from(version % 2 == 0));
    }
    summary("change -> published diagnostics", samples);

    let hover_at = json!({"textDocument": {"uri": document}, "position": {"line": line, "character": character}});
    let mut samples = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        let hover = server.request("textDocument/hover", hover_at.clone());
        samples.push(start.elapsed());
        assert!(support::hover_text(&hover).contains("A: T.Buffer"));
    }
    summary("hover (buffer)", samples);

    let (line, character) = position_of(&text, "T.max", 125, 2);
    let completion_at = json!({"textDocument": {"uri": document}, "position": {"line": line, "character": character}});
    let mut samples = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        let items = server.request("textDocument/completion", completion_at.clone());
        samples.push(start.elapsed());
        assert!(items.as_array().is_some_and(|a| a.len() > 20));
    }
    summary("completion after `T.`", samples);

    let (line, character) = position_of(&text, "D[vi, vj] + A", 125, 0);
    let names_at = json!({"textDocument": {"uri": document}, "position": {"line": line, "character": character}});
    let mut samples = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        server.request("textDocument/completion", names_at.clone());
        samples.push(start.elapsed());
    }
    summary("completion of names in scope", samples);
    server.shutdown();
}
