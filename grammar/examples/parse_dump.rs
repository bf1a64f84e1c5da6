//! Parses a file (or standard input) and prints its syntax tree and errors, for looking at what the parser builds.

use std::io::Read;

fn main() {
    let mut source = String::new();
    match std::env::args().nth(1) {
        Some(path) => match std::fs::read_to_string(&path) {
            Ok(text) => source = text,
            Err(error) => {
                eprintln!("cannot read {path}: {error}");
                std::process::exit(2);
            }
        },
        None => {
            if let Err(error) = std::io::stdin().read_to_string(&mut source) {
                eprintln!("cannot read standard input: {error}");
                std::process::exit(2);
            }
        }
    }
    let parsed = tirc_grammar::parse_file(&source);
    println!("{:#?}", parsed.file);
    for error in &parsed.errors {
        let (line, column) = line_and_column(&source, error.span.start as usize);
        println!("{line}:{column}: {}", error.message);
    }
}

/// One-based line and column (in characters) of a byte offset.
fn line_and_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |index| index + 1);
    (line, before[line_start..].chars().count() + 1)
}
