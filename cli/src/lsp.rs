//! `tirc lsp`: the language server on standard input and output, served in
//! this process by the `tirc-lsp` library.

use clap::Args;

/// Arguments of `tirc lsp`.
#[derive(Args, Debug)]
pub struct LspArgs {
    /// Accepted for editors that pass it; the server always uses standard I/O.
    #[arg(long)]
    stdio: bool,
}

/// Runs `tirc lsp` until the client exits; 0 after `shutdown` then `exit`,
/// 1 for an `exit` without `shutdown` or a closed input, as the protocol says.
pub fn run(args: LspArgs) -> u8 {
    let _ = args.stdio;
    tirc_lsp::serve_stdio()
}
