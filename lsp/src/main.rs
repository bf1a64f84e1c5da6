//! `tirc-lsp`: tirc's language server on standard input and output
//! (`tirc lsp` starts it).

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--version" || a == "-V") {
        println!("tirc-lsp {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    tirc_lsp::serve_stdio().await;
}
