//! The `LanguageServer` implementation: protocol plumbing only. Each request
//! takes the analysis of the document's current version and hands it to the
//! feature module that answers it; diagnostics are published by one task
//! that coalesces bursts of edits and never publishes an outdated version.

use crate::document::{display_name, Documents};
use crate::{
    code_actions, completion, diagnostics, formatting, hover, inlay_hints, navigation,
    schedule_preview, semantic_tokens, signature_help, symbols,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tirc::printer::Dialect;
use tokio::sync::mpsc;
use tower_lsp::jsonrpc::{Error, Result};
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};

/// Settings the client may send as `initializationOptions`.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Quiet time after an edit before diagnostics are computed.
    pub debounce: Duration,
    /// The dialect formatting writes: `Some(Classic)` as `tirc fmt` by default,
    /// `None` to keep the file's own dialect.
    pub format_dialect: Option<Dialect>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            debounce: Duration::from_millis(10),
            format_dialect: Some(Dialect::Classic),
        }
    }
}

impl Settings {
    fn from_options(options: Option<&Value>) -> Settings {
        let mut settings = Settings::default();
        let Some(options) = options else {
            return settings;
        };
        if let Some(ms) = options.get("debounceMs").and_then(Value::as_u64) {
            settings.debounce = Duration::from_millis(ms.min(5_000));
        }
        match options.get("formatDialect").and_then(Value::as_str) {
            Some("tirx") => settings.format_dialect = Some(Dialect::Tirx),
            Some("preserve") => settings.format_dialect = None,
            _ => {}
        }
        settings
    }
}

/// The server state shared by every request.
pub struct Backend {
    documents: Arc<Documents>,
    settings: Arc<Mutex<Settings>>,
    dirty: mpsc::UnboundedSender<Url>,
}

impl Backend {
    /// A server talking to `client`; starts the diagnostics task.
    pub fn new(client: Client) -> Backend {
        let documents = Arc::new(Documents::default());
        let settings = Arc::new(Mutex::new(Settings::default()));
        let (dirty, receiver) = mpsc::unbounded_channel();
        tokio::spawn(publish_diagnostics(
            client,
            documents.clone(),
            settings.clone(),
            receiver,
        ));
        Backend {
            documents,
            settings,
            dirty,
        }
    }

    fn settings(&self) -> Settings {
        self.settings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn analysis(&self, uri: &Url) -> Option<Arc<crate::analysis::Analysis>> {
        self.documents.analysis(uri)
    }
}

/// The diagnostics task: waits for edits to settle, analyses the latest
/// version of each edited document and publishes its diagnostics unless a
/// newer version arrived meanwhile (that version is queued and follows).
async fn publish_diagnostics(
    client: Client,
    documents: Arc<Documents>,
    settings: Arc<Mutex<Settings>>,
    mut receiver: mpsc::UnboundedReceiver<Url>,
) {
    let mut last_published: HashMap<Url, i32> = HashMap::new();
    while let Some(first) = receiver.recv().await {
        let mut dirty: HashSet<Url> = HashSet::from([first]);
        let debounce = settings.lock().map(|s| s.debounce).unwrap_or_default();
        // Debounce: collect edits until the client has been quiet for a moment.
        loop {
            match tokio::time::timeout(debounce, receiver.recv()).await {
                Ok(Some(uri)) => {
                    dirty.insert(uri);
                }
                Ok(None) => return,
                Err(_) => break,
            }
        }
        for uri in dirty {
            let documents_for_analysis = documents.clone();
            let uri_for_analysis = uri.clone();
            let analysed = tokio::task::spawn_blocking(move || {
                documents_for_analysis.analysis(&uri_for_analysis)
            })
            .await;
            let Ok(Some(analysis)) = analysed else {
                // Closed meanwhile: clear what was shown.
                if documents.version(&uri).is_none() && last_published.remove(&uri).is_some() {
                    client.publish_diagnostics(uri, Vec::new(), None).await;
                }
                continue;
            };
            if documents.version(&uri) != Some(analysis.version) {
                continue;
            }
            if last_published
                .get(&uri)
                .is_some_and(|&published| published > analysis.version)
            {
                continue;
            }
            last_published.insert(uri.clone(), analysis.version);
            let diagnostics = diagnostics::diagnostics(&analysis, &uri);
            client
                .publish_diagnostics(uri, diagnostics, Some(analysis.version))
                .await;
        }
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_params(message.into())
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        *self.settings.lock().unwrap_or_else(|p| p.into_inner()) =
            Settings::from_options(params.initialization_options.as_ref());
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "tirc-lsp".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            capabilities: crate::capabilities(),
        })
    }

    async fn initialized(&self, _: InitializedParams) {}

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        self.documents
            .open(document.uri.clone(), document.text, document.version);
        let _ = self.dirty.send(document.uri);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        // Applied before the first await, so edits apply in arrival order.
        if self
            .documents
            .change(&uri, params.text_document.version, params.content_changes)
        {
            let _ = self.dirty.send(uri);
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.documents.close(&params.text_document.uri);
        let _ = self.dirty.send(params.text_document.uri);
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let position = params.text_document_position_params;
        let uri = &position.text_document.uri;
        let Some(analysis) = self.analysis(uri) else {
            return Ok(None);
        };
        if let Some(answer) = hover::hover(&analysis, position.position) {
            return Ok(Some(answer));
        }
        // While the text does not parse, answer from the last analysis that
        // did, at the same line found again in its text.
        if analysis.checked.program.is_some() {
            return Ok(None);
        }
        Ok(self.documents.last_good_analysis(uri).and_then(|good| {
            let moved = hover::same_line_in(&analysis, &good, position.position)?;
            let mut answer = hover::hover(&good, moved)?;
            answer.range = None;
            Some(answer)
        }))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let position = params.text_document_position_params;
        let uri = position.text_document.uri;
        Ok(self
            .analysis(&uri)
            .and_then(|a| navigation::definition(&a, &uri, position.position))
            .map(GotoDefinitionResponse::Scalar))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let position = params.text_document_position;
        let uri = position.text_document.uri;
        Ok(self.analysis(&uri).map(|a| {
            navigation::references(
                &a,
                &uri,
                position.position,
                params.context.include_declaration,
            )
        }))
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let position = params.text_document_position_params;
        let uri = position.text_document.uri;
        Ok(self.analysis(&uri).map(|a| {
            navigation::references(&a, &uri, position.position, true)
                .into_iter()
                .map(|location| DocumentHighlight {
                    range: location.range,
                    kind: None,
                })
                .collect()
        }))
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        Ok(self
            .analysis(&params.text_document.uri)
            .and_then(|a| navigation::prepare_rename(&a, params.position)))
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let position = params.text_document_position;
        let uri = position.text_document.uri;
        let Some(analysis) = self.analysis(&uri) else {
            return Ok(None);
        };
        navigation::rename(&analysis, &uri, position.position, &params.new_name).map_err(invalid)
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        Ok(self
            .analysis(&params.text_document.uri)
            .map(|a| DocumentSymbolResponse::Nested(symbols::document_symbols(&a))))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<Vec<SymbolInformation>>> {
        let documents = self.documents.all_analyses();
        Ok(Some(symbols::workspace_symbols(&documents, &params.query)))
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        Ok(self.analysis(&params.text_document.uri).map(|a| {
            SemanticTokensResult::Tokens(SemanticTokens {
                result_id: None,
                data: semantic_tokens::semantic_tokens(&a),
            })
        }))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        let dialect = self.settings().format_dialect;
        Ok(self
            .analysis(&params.text_document.uri)
            .and_then(|a| formatting::format_document(&a, dialect)))
    }

    async fn range_formatting(
        &self,
        params: DocumentRangeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        let dialect = self.settings().format_dialect;
        Ok(self
            .analysis(&params.text_document.uri)
            .and_then(|a| formatting::format_range(&a, params.range, dialect)))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let position = params.text_document_position;
        Ok(self
            .analysis(&position.text_document.uri)
            .map(|a| CompletionResponse::Array(completion::completion(&a, position.position))))
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let position = params.text_document_position_params;
        Ok(self
            .analysis(&position.text_document.uri)
            .and_then(|a| signature_help::signature_help(&a, position.position)))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        Ok(self
            .analysis(&params.text_document.uri)
            .map(|a| inlay_hints::inlay_hints(&a, params.range)))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        Ok(self.analysis(&uri).map(|a| {
            code_actions::code_actions(&a, &uri, params.range, &params.context.diagnostics)
        }))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        Ok(self
            .analysis(&uri)
            .map(|a| schedule_preview::code_lenses(&a, &uri)))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        if params.command != schedule_preview::COMMAND {
            return Err(invalid(format!("unknown command `{}`", params.command)));
        }
        let request =
            schedule_preview::PreviewRequest::from_arguments(&params.arguments).map_err(invalid)?;
        let analysis = self.analysis(&request.uri).ok_or_else(|| {
            invalid(format!(
                "{} is not open in the server",
                display_name(&request.uri)
            ))
        })?;
        schedule_preview::preview(&analysis, &request)
            .map(Some)
            .map_err(invalid)
    }
}
