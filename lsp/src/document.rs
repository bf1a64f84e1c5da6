//! The open documents: their text and version, edits applied in order (full
//! and incremental sync), and the analysis of the current version, built on
//! demand and shared.

use crate::analysis::Analysis;
use crate::position::LineIndex;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tower_lsp::lsp_types::{TextDocumentContentChangeEvent, Url};

/// One open document.
struct Document {
    text: Arc<String>,
    version: i32,
    line_index: LineIndex,
    analysis: Option<Arc<Analysis>>,
    /// The latest analysis that had a program, for answers while the text
    /// has a syntax error (as rust-analyzer answers from its last good state).
    last_good: Option<Arc<Analysis>>,
}

/// Every open document, behind one lock that is never held across an await.
#[derive(Default)]
pub struct Documents {
    open: Mutex<HashMap<Url, Document>>,
}

/// The name diagnostics show for a document: its path when it is a file.
pub fn display_name(uri: &Url) -> String {
    uri.to_file_path()
        .map(|path| path.display().to_string())
        .unwrap_or_else(|_| uri.to_string())
}

impl Documents {
    fn lock(&self) -> MutexGuard<'_, HashMap<Url, Document>> {
        // A panic while holding the lock cannot leave a document half edited
        // (edits build the new text before storing it), so recover the map.
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Opens (or reopens) a document.
    pub fn open(&self, uri: Url, text: String, version: i32) {
        let document = Document {
            line_index: LineIndex::new(&text),
            text: Arc::new(text),
            version,
            analysis: None,
            last_good: None,
        };
        self.lock().insert(uri, document);
    }

    /// Applies edits in order; returns false when the document is not open.
    pub fn change(
        &self,
        uri: &Url,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let mut open = self.lock();
        let Some(document) = open.get_mut(uri) else {
            return false;
        };
        let mut text = String::clone(&document.text);
        let mut line_index = document.line_index.clone();
        for change in changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let start = line_index.offset(&text, range.start);
                    let end = line_index.offset(&text, range.end).max(start);
                    text.replace_range(start..end, &change.text);
                }
            }
            line_index = LineIndex::new(&text);
        }
        document.text = Arc::new(text);
        document.line_index = line_index;
        document.version = version;
        document.analysis = None;
        true
    }

    /// Closes a document.
    pub fn close(&self, uri: &Url) {
        self.lock().remove(uri);
    }

    /// The current version of a document.
    pub fn version(&self, uri: &Url) -> Option<i32> {
        self.lock().get(uri).map(|d| d.version)
    }

    /// The analysis of the current version, built now when there is none.
    pub fn analysis(&self, uri: &Url) -> Option<Arc<Analysis>> {
        let (text, version) = {
            let open = self.lock();
            let document = open.get(uri)?;
            if let Some(analysis) = &document.analysis {
                return Some(analysis.clone());
            }
            (document.text.clone(), document.version)
        };
        // Built outside the lock so edits keep flowing meanwhile.
        let analysis = Arc::new(Analysis::new(&display_name(uri), text, version));
        let mut open = self.lock();
        if let Some(document) = open.get_mut(uri) {
            if document.version == version && document.analysis.is_none() {
                document.analysis = Some(analysis.clone());
            }
            if analysis.checked.program.is_some() {
                document.last_good = Some(analysis.clone());
            }
        }
        Some(analysis)
    }

    /// The latest analysis of the document that had a program.
    pub fn last_good_analysis(&self, uri: &Url) -> Option<Arc<Analysis>> {
        self.lock().get(uri)?.last_good.clone()
    }

    /// The analyses of every open document, for workspace-wide features.
    pub fn all_analyses(&self) -> Vec<(Url, Arc<Analysis>)> {
        let uris: Vec<Url> = self.lock().keys().cloned().collect();
        uris.into_iter()
            .filter_map(|uri| self.analysis(&uri).map(|a| (uri, a)))
            .collect()
    }
}
