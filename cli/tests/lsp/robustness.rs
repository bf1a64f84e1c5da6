//! Robustness: 10,000 random edits (brackets, colons, newlines, indentation,
//! partial identifiers, deletions) sent to the real binary as fast as
//! possible. The server must not crash, must never publish diagnostics for a
//! version older than one it already published, must end with exactly the
//! diagnostics `tirc check` gives for the client's text (so every edit was
//! applied in order), and must answer hover correctly afterwards.

use crate::support::{hover_text, position_of, read, uri, Server};
use serde_json::{json, Value};
use tirc::check::{check_source, CheckOptions};
use tirc::source::SourceMap;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

/// Text fragments a typing user inserts.
const FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    "\n",
    "    ",
    "\t",
    " ",
    "T.",
    "T.gr",
    "sch.",
    "vi",
    "A[",
    "bl",
    "with T.block(\"",
    "\"",
    "'",
    "#",
    "for i in range(",
    "= ",
    "+ ",
    "0.5",
    "é",
    "𝔸",
];

/// The protocol position of byte `offset`.
fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}

/// A random character boundary of `text`.
fn boundary(text: &str, random: &mut Random) -> usize {
    let mut offset = random.below(text.len() + 1);
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn expected_diagnostics(text: &str) -> Vec<(String, Value)> {
    let mut sources = SourceMap::new();
    let checked = check_source(&mut sources, "x.tir", text, &CheckOptions::default());
    checked
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.clone(),
                json!({"start": position(text, d.span.start as usize), "end": position(text, d.span.end as usize)}),
            )
        })
        .collect()
}

#[test]
fn ten_thousand_random_edits_never_crash_or_publish_stale_diagnostics() {
    const EDITS: i32 = 10_000;
    let original = read("examples/matmul_128.tir");
    let document = uri("random.tir");
    let mut server = Server::start();
    server.open(&document, &original);
    let mut random = Random(0x5EED_0F71_C0DE);
    let mut text = original.clone();
    let mut version = 1;
    for edit in 0..EDITS {
        version += 1;
        let start = boundary(&text, &mut random);
        let (end, inserted) = if random.below(3) == 0 {
            let mut end = (start + 1 + random.below(5)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            (end, String::new())
        } else {
            (start, FRAGMENTS[random.below(FRAGMENTS.len())].to_string())
        };
        let range = json!({"start": position(&text, start), "end": position(&text, end)});
        text.replace_range(start..end, &inserted);
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": document, "version": version}, "contentChanges": [{"range": range, "text": inserted}]}),
        );
        // Now and then a request on the broken text: it must be answered, whatever it says.
        if edit % 1000 == 999 {
            let offset = boundary(&text, &mut random);
            let at = position(&text, offset);
            for method in [
                "textDocument/hover",
                "textDocument/completion",
                "textDocument/definition",
                "textDocument/signatureHelp",
            ] {
                let response = server.request_raw(
                    method,
                    json!({"textDocument": {"uri": document}, "position": at}),
                );
                assert!(response.get("error").is_none(), "{method}: {response}");
            }
            for method in [
                "textDocument/semanticTokens/full",
                "textDocument/documentSymbol",
                "textDocument/codeLens",
            ] {
                let response =
                    server.request_raw(method, json!({"textDocument": {"uri": document}}));
                assert!(response.get("error").is_none(), "{method}: {response}");
            }
        }
    }
    // The server's text must be the client's: its last diagnostics are exactly
    // what `tirc check` reports for the text the client holds.
    let (diagnostics, publications) = server.diagnostics_for(&document, version as i64);
    let published: Vec<(String, Value)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["range"].clone(),
            )
        })
        .collect();
    assert_eq!(published, expected_diagnostics(&text));
    // Back to the original with one edit over the whole client text.
    version += 1;
    let whole = json!({"start": {"line": 0, "character": 0}, "end": position(&text, text.len())});
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": document, "version": version}, "contentChanges": [{"range": whole, "text": original}]}),
    );
    let (diagnostics, more) = server.diagnostics_for(&document, version as i64);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let versions: Vec<i64> = publications
        .iter()
        .chain(more.iter())
        .map(|p| p["version"].as_i64().unwrap_or(-1))
        .collect();
    for pair in versions.windows(2) {
        assert!(
            pair[0] < pair[1],
            "diagnostics for version {} published after version {}",
            pair[1],
            pair[0]
        );
    }
    assert!(
        versions.len() < EDITS as usize,
        "the server did not coalesce bursts of edits"
    );
    let (line, character) = position_of(&original, "A[vi, vk] * B", 0, 0);
    let hover = server.hover(&document, line, character);
    assert!(
        hover_text(&hover).contains("A: T.Buffer((128, 128), \"float32\")"),
        "{hover}"
    );
    println!("{} publications for {} versions", versions.len(), version);
    server.shutdown();
}
