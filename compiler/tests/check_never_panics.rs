//! `check_source` never panics: valid corpus files mutated byte by byte
//! (bytes replaced, inserted, deleted, lines duplicated) still give
//! diagnostics, not a crash. `PROPTEST_CASES` sets how many mutants to try
//! (2000 by default); the `fuzz/` target searches the same property longer.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use tirc::check::{check_source, CheckOptions};
use tirc::source::SourceMap;

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests");
    let mut files: Vec<PathBuf> = Vec::new();
    let mut pending = vec![root.join("roundtrip"), root.join("diagnostics")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "tir") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// One edit of a file's bytes.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    DuplicateLine(usize),
}

fn interesting_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(b' '),
        Just(b'\n'),
        Just(b':'),
        Just(b'('),
        Just(b')'),
        Just(b'['),
        Just(b']'),
        Just(b','),
        Just(b'0'),
        Just(b'9'),
        Just(b'-'),
        Just(b'#'),
        Just(b'"'),
        Just(b'i'),
        any::<u8>(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), interesting_byte()).prop_map(|(p, b)| Mutation::Replace(p, b)),
        (any::<usize>(), interesting_byte()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::DuplicateLine),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for mutation in mutations {
        if bytes.is_empty() {
            break;
        }
        match *mutation {
            Mutation::Replace(p, b) => {
                let p = p % bytes.len();
                bytes[p] = b;
            }
            Mutation::Insert(p, b) => {
                let p = p % (bytes.len() + 1);
                bytes.insert(p, b);
            }
            Mutation::Delete(p) => {
                let p = p % bytes.len();
                bytes.remove(p);
            }
            Mutation::DuplicateLine(p) => {
                let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
                let line = lines[p % lines.len()].to_vec();
                let at = bytes
                    .iter()
                    .position(|b| *b == b'\n')
                    .map(|i| i + 1)
                    .unwrap_or(0);
                let mut copy = line;
                copy.push(b'\n');
                bytes.splice(at..at, copy);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_corpus_files_never_panic(
        file in any::<usize>(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let files = CORPUS.with(|c| c.clone());
        prop_assume!(!files.is_empty());
        let text = apply(&files[file % files.len()], &mutations);
        let options = CheckOptions { strict_casts: true, warn_loose_regions: true, ..CheckOptions::default() };
        let mut sources = SourceMap::new();
        let checked = check_source(&mut sources, "mutant.tir", &text, &options);
        let _ = tirc::diagnostics::render_text(&checked.diagnostics, &sources, false);
    }
}

thread_local! {
    static CORPUS: std::rc::Rc<Vec<String>> = std::rc::Rc::new(corpus());
}
