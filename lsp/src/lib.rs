//! tirc's language server: diagnostics, hover, navigation, rename, symbols,
//! semantic tokens, formatting, completion, signature help, inlay hints,
//! code actions and schedule previews for `.tir` files.
//!
//! This is the only crate that knows the Language Server Protocol. `server`
//! is the thin `LanguageServer` implementation; every feature is one module
//! that answers from an [`analysis::Analysis`] of the document's current
//! version, which the compiler's driver builds (`tirc::driver::analyze`, so the editor shows
//! exactly what `tirc check` reports).
#![deny(missing_docs)]

pub mod analysis;
pub mod call_context;
pub mod catalog;
pub mod code_actions;
pub mod completion;
pub mod diagnostics;
pub mod document;
pub mod formatting;
pub mod hover;
pub mod inferred_regions;
pub mod inlay_hints;
pub mod lifecycle;
pub mod navigation;
pub mod position;
pub mod program_tree;
pub mod schedule_preview;
pub mod schedule_script;
pub mod semantic_tokens;
pub mod server;
pub mod signature_help;
pub mod symbols;

use tower_lsp::lsp_types::*;

/// What the server can do, as announced to the client.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                work_done_progress_options: WorkDoneProgressOptions::default(),
                legend: semantic_tokens::legend(),
                range: None,
                full: Some(SemanticTokensFullOptions::Bool(true)),
            },
        )),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string(), "\"".to_string()]),
            ..CompletionOptions::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
            retrigger_characters: None,
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![schedule_preview::COMMAND.to_string()],
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        ..ServerCapabilities::default()
    }
}

/// Serves the protocol on standard input and output until the client
/// exits; the process exit code the protocol asks for: 0 after `shutdown`
/// and `exit` (or a closed input after `shutdown`), 1 otherwise.
pub fn serve_stdio() -> u8 {
    // Analyses run on these threads; long expressions need deep stacks.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(64 << 20)
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the language server's runtime: {error}");
            return 2;
        }
    };
    let code = runtime.block_on(lifecycle::serve(tokio::io::stdin(), tokio::io::stdout()));
    // Tokio reads standard input on a blocking thread that waits for the next
    // byte; waiting for it would keep the process alive while an editor
    // holds the pipe open after `exit`.
    runtime.shutdown_background();
    code
}
