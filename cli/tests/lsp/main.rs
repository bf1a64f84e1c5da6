//! The language server as editors run it: the real `tirc` binary serving
//! `tirc lsp` over pipes.

mod features;
mod lifecycle;
mod robustness;
mod support;
