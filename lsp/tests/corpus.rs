//! Every feature on every file of the corpus (examples and the 524 modules
//! TVM 0.27 printed), through the library: nothing panics, every symbol
//! occurrence covers its name, and hover answers at every occurrence.

use std::sync::Arc;
use tirc::frontend::symbols::SymbolKind;
use tirc_lsp::analysis::Analysis;
use tower_lsp::lsp_types::{Position, Range, Url};

fn corpus() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for folder in [
        "examples",
        "tests/roundtrip/tvm",
        "tests/roundtrip/examples",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "tir") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                files.push((path.display().to_string(), text));
            }
        }
    }
    files.sort();
    assert!(
        files.len() > 500,
        "the corpus is missing: {} files",
        files.len()
    );
    files
}

#[test]
fn every_feature_answers_on_every_corpus_file() {
    let uri = Url::parse("file:///work/corpus.tir").expect("a valid uri");
    let everything = Range::new(Position::new(0, 0), Position::new(u32::MAX, 0));
    let mut occurrences_checked = 0;
    for (name, text) in corpus() {
        let analysis = Analysis::new(&name, Arc::new(text.clone()), 1);
        assert!(!analysis.checked.has_errors(), "{name} has errors");
        let program = analysis.program().expect("corpus files lower");
        for occurrence in &program.symbols.occurrences {
            let symbol = program
                .symbols
                .symbol(occurrence.symbol)
                .expect("occurrences name symbols");
            let written = &text[occurrence.span.range()];
            match symbol.kind {
                SymbolKind::Variable | SymbolKind::Buffer | SymbolKind::Function => {
                    // A name inside a quoted shape expression (`"n * m"`) is
                    // known only by the string that holds it.
                    let quoted = written.starts_with('"') && written.contains(symbol.name.as_str());
                    assert!(
                        written == symbol.name || quoted,
                        "{name}: `{written}` for `{}` at {:?}",
                        symbol.name,
                        occurrence.span
                    )
                }
                SymbolKind::Block => {
                    assert_eq!(written.trim_matches(['"', '\'']), symbol.name, "{name}")
                }
                SymbolKind::Builtin => assert!(
                    written.ends_with(symbol.name.rsplit('.').next().unwrap_or_default()),
                    "{name}: {written}"
                ),
            }
            let position = analysis
                .line_index
                .position(&text, occurrence.span.start as usize);
            if symbol.kind != SymbolKind::Builtin
                || tirc_lsp::catalog::builtin(&symbol.name).is_some()
            {
                assert!(
                    tirc_lsp::hover::hover(&analysis, position).is_some(),
                    "{name}: no hover for `{written}` at {position:?}"
                );
            }
            occurrences_checked += 1;
        }
        tirc_lsp::semantic_tokens::semantic_tokens(&analysis);
        tirc_lsp::symbols::document_symbols(&analysis);
        tirc_lsp::inlay_hints::inlay_hints(&analysis, everything);
        tirc_lsp::code_actions::code_actions(&analysis, &uri, everything, &[]);
        tirc_lsp::schedule_preview::code_lenses(&analysis, &uri);
        tirc_lsp::diagnostics::diagnostics(&analysis, &uri);
    }
    assert!(occurrences_checked > 10_000, "{occurrences_checked}");
}
