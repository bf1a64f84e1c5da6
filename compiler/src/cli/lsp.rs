//! `tirc lsp`: starts the language server. The server is its own executable,
//! `tirc-lsp`, built by the `lsp` crate next to `tirc` (`cargo build
//! --release` builds both); the compiler crate cannot depend on the server
//! crate, which depends on it, so this command runs that executable with the
//! same standard input and output.

use super::{EXIT_OK, EXIT_USAGE};
use clap::Args;
use std::path::PathBuf;
use std::process::Command;

/// Arguments of `tirc lsp`.
#[derive(Args, Debug)]
pub struct LspArgs {
    /// Accepted for editors that pass it; the server always uses standard I/O.
    #[arg(long)]
    stdio: bool,
}

/// The server executable's path: beside the running `tirc`.
fn server_path() -> Result<PathBuf, String> {
    let tirc = std::env::current_exe()
        .map_err(|e| format!("error: cannot find the running tirc executable: {e}"))?;
    let name = format!("tirc-lsp{}", std::env::consts::EXE_SUFFIX);
    let directory = tirc
        .parent()
        .ok_or("error: the tirc executable has no directory")?;
    // Test binaries run from `target/<profile>/deps`; the server sits one level up.
    let candidates = [directory.join(&name), directory.join("..").join(&name)];
    candidates
        .iter()
        .find(|path| path.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "error: the language server executable {} is missing; build it with `cargo build --release` (which builds tirc and tirc-lsp) or `cargo build -p tirc-lsp`",
                candidates[0].display()
            )
        })
}

/// Runs `tirc lsp`.
pub fn run(args: LspArgs) -> u8 {
    let _ = args.stdio;
    let path = match server_path() {
        Ok(path) => path,
        Err(message) => {
            eprintln!("{message}");
            return EXIT_USAGE;
        }
    };
    match Command::new(&path).status() {
        Ok(status) if status.success() => EXIT_OK,
        Ok(status) => status
            .code()
            .map(|c| c.clamp(1, 255) as u8)
            .unwrap_or(EXIT_USAGE),
        Err(e) => {
            eprintln!("error: cannot start {}: {e}", path.display());
            EXIT_USAGE
        }
    }
}
