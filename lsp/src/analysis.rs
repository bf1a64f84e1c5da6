//! One analysed version of a document: the diagnostics `tirc check` reports
//! (through the driver's `analyze`, schedule sections included), the lowered program with its symbol index, the
//! syntax tree, and the schedule sections. Built once per version and shared
//! by every feature.

use crate::position::LineIndex;
use crate::schedule_script::ScheduleScript;
use std::sync::{Arc, OnceLock};
use tirc::check::{CheckOptions, Checked};
use tirc::driver::{analyze, SourceFile};
use tirc::frontend::{lower_file_with, Program};
use tirc::schedule::ScheduleRun;
use tirc::source::{FileId, SourceMap};
use tirc_grammar::Parsed;

/// Everything known about one version of a document.
#[derive(Debug)]
pub struct Analysis {
    /// The document version this analysis is of.
    pub version: i32,
    /// The text analysed.
    pub text: Arc<String>,
    /// Line starts of the text.
    pub line_index: LineIndex,
    /// Diagnostics and, when the file parsed, the program.
    pub checked: Checked,
    /// The source map the diagnostics' spans point into.
    pub sources: SourceMap,
    syntax: OnceLock<Parsed>,
    partial_program: OnceLock<Option<Program>>,
    scripts: OnceLock<Vec<ScheduleScript>>,
    schedule_runs: Vec<ScheduleRun>,
}

impl Analysis {
    /// Checks `text` exactly as `tirc check` does.
    pub fn new(name: &str, text: Arc<String>, version: i32) -> Analysis {
        let options = CheckOptions {
            record_symbols: true,
            ..CheckOptions::default()
        };
        let analysis = analyze(&SourceFile::new(name, text.as_str()), &options);
        Analysis {
            version,
            line_index: LineIndex::new(&text),
            text,
            checked: analysis.checked,
            sources: analysis.sources,
            syntax: OnceLock::new(),
            partial_program: OnceLock::new(),
            scripts: OnceLock::new(),
            schedule_runs: analysis.schedule_runs,
        }
    }

    /// The file id of the document in [`Analysis::sources`].
    pub fn file(&self) -> FileId {
        FileId(0)
    }

    /// The syntax tree (partial when the file has syntax errors).
    pub fn syntax(&self) -> &Parsed {
        self.syntax
            .get_or_init(|| tirc_grammar::parse_file(&self.text))
    }

    /// The program: the checked one, or for a file with syntax errors the
    /// best the frontend can build from the partial tree, so navigation and
    /// hover keep working while the user types.
    pub fn program(&self) -> Option<&Program> {
        if let Some(program) = &self.checked.program {
            return Some(program);
        }
        self.partial_program
            .get_or_init(|| {
                let parsed = self.syntax();
                let text = self.text.clone();
                // The frontend never panics on a complete tree; a partial one
                // is less travelled ground, so a panic here only loses the
                // navigation data, never the server.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lower_file_with(&parsed.file, &text, self.file(), true).0
                }))
                .ok()
            })
            .as_ref()
    }

    /// The schedule sections with their handles and block-name strings.
    pub fn schedule_scripts(&self) -> &[ScheduleScript] {
        self.scripts.get_or_init(|| {
            crate::schedule_script::analyse_scripts(&self.syntax().file, self.program())
        })
    }

    /// The run of every schedule section by the schedule engine, in file
    /// order; empty while the file has errors (the engine needs a program).
    pub fn schedule_runs(&self) -> &[ScheduleRun] {
        &self.schedule_runs
    }

    /// The run of the schedule section named `name`.
    pub fn schedule_run(&self, name: &str) -> Option<&ScheduleRun> {
        self.schedule_runs()
            .iter()
            .find(|run| run.schedule.as_deref() == Some(name))
    }

    /// What `tirc check` reports: the checks' diagnostics and those of the
    /// schedule sections (a refused step at its line), in source order.
    pub fn all_diagnostics(&self) -> Vec<tirc::diagnostics::Diagnostic> {
        tirc::driver::all_diagnostics(&self.checked, &self.schedule_runs)
    }

    /// The protocol range of a byte span.
    pub fn range(&self, span: tirc::source::Span) -> tower_lsp::lsp_types::Range {
        self.line_index
            .range(&self.text, span.start as usize, span.end as usize)
    }

    /// The byte offset of a protocol position.
    pub fn offset(&self, position: tower_lsp::lsp_types::Position) -> usize {
        self.line_index.offset(&self.text, position)
    }
}
