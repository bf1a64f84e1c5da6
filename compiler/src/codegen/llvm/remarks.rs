//! What LLVM says while it optimises ("loop not vectorized: ..."). LLVM's
//! default handler prints it on standard error as `<unknown>:0:0:` lines
//! that name nothing of the program; tirc captures it instead, and the
//! driver turns it into notes at the loops it concerns (`--verbose`).

use super::function::GeneratedKernel;
use super::llvm_sys::core::{
    LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription,
    LLVMGetDiagInfoSeverity,
};
use super::llvm_sys::prelude::LLVMDiagnosticInfoRef;
use super::llvm_sys::LLVMDiagnosticSeverity;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{SourceMap, Span};
use inkwell::context::Context;
use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex};

/// One message of LLVM's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlvmRemark {
    /// True for LLVM's errors and warnings, false for remarks and notes.
    pub is_warning: bool,
    /// The text, without LLVM's `<unknown>:0:0:` location.
    pub message: String,
}

impl LlvmRemark {
    /// True when LLVM could not vectorize a loop the program marked
    /// vectorized.
    pub fn is_vectorization_failure(&self) -> bool {
        self.message.starts_with("loop not vectorized")
            || self
                .message
                .contains("unable to perform the requested transformation")
    }
}

/// Where the messages of every context a build uses are collected; clones
/// share one list.
#[derive(Clone, Debug, Default)]
pub struct RemarkSink(Arc<Mutex<Vec<LlvmRemark>>>);

impl RemarkSink {
    /// Sends `context`'s messages here until the capture is dropped.
    pub fn capture<'ctx>(&self, context: &'ctx Context) -> RemarkCapture<'ctx> {
        let list = Arc::clone(&self.0);
        let data = Arc::as_ptr(&list) as *mut c_void;
        // SAFETY: `data` points to the list the capture keeps alive, and the
        // capture removes the handler before it lets the list go.
        unsafe { LLVMContextSetDiagnosticHandler(context.raw(), Some(collect_remark), data) };
        RemarkCapture {
            context,
            _list: list,
        }
    }

    /// Every message collected so far, in order; the list is emptied.
    pub fn take(&self) -> Vec<LlvmRemark> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A context's messages going to a [`RemarkSink`].
pub struct RemarkCapture<'ctx> {
    context: &'ctx Context,
    _list: Arc<Mutex<Vec<LlvmRemark>>>,
}

impl Drop for RemarkCapture<'_> {
    fn drop(&mut self) {
        // SAFETY: the context outlives the capture (`'ctx`); a null handler
        // restores LLVM's default.
        unsafe { LLVMContextSetDiagnosticHandler(self.context.raw(), None, std::ptr::null_mut()) };
    }
}

extern "C" fn collect_remark(info: LLVMDiagnosticInfoRef, data: *mut c_void) {
    // SAFETY: LLVM passes the pointer given in `capture`, a live list.
    let list = unsafe { &*(data as *const Mutex<Vec<LlvmRemark>>) };
    // SAFETY: `info` is valid for the duration of the call; the description
    // is a C string LLVM allocated, released below.
    let (severity, message) = unsafe {
        let description = LLVMGetDiagInfoDescription(info);
        let text = CStr::from_ptr(description).to_string_lossy().into_owned();
        LLVMDisposeMessage(description);
        (LLVMGetDiagInfoSeverity(info), text)
    };
    let message = message
        .strip_prefix("<unknown>:0:0: ")
        .unwrap_or(&message)
        .to_string();
    let is_warning = matches!(
        severity,
        LLVMDiagnosticSeverity::LLVMDSError | LLVMDiagnosticSeverity::LLVMDSWarning
    );
    if let Ok(mut list) = list.lock() {
        list.push(LlvmRemark {
            is_warning,
            message,
        });
    }
}

/// LLVM's messages as notes for the user: one note at the loops marked
/// vectorized that reached LLVM (all of them: LLVM's message does not say
/// which) with every distinct reason it gave, and every other warning as a
/// note of its own; remarks that are neither are dropped.
fn remark_notes(remarks: &[LlvmRemark], vectorized_loops: &[Span]) -> Vec<Diagnostic> {
    let mut reasons: Vec<&str> = Vec::new();
    let mut notes = Vec::new();
    for remark in remarks {
        if remark.is_vectorization_failure() {
            let reason = remark
                .message
                .strip_prefix("loop not vectorized: ")
                .unwrap_or(&remark.message);
            if !reasons.contains(&reason) {
                reasons.push(reason);
            }
        } else if remark.is_warning {
            let note = Diagnostic::new(
                Severity::Note,
                "",
                format!("LLVM: {}", remark.message),
                Span::NONE,
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    // The generic "unable to perform the requested transformation" only
    // repeats what a specific reason already says.
    if reasons.len() > 1 {
        reasons.retain(|reason| !reason.contains("unable to perform the requested transformation"));
    }
    if !reasons.is_empty() {
        if let Some(mut note) = note_at_loops(
            "LLVM could not vectorize this loop marked vectorized",
            "`vectorize` makes vector code of a loop whose iterations are independent and whose innermost accesses are consecutive",
            "or this loop, also left to LLVM",
            vectorized_loops,
        ) {
            for reason in reasons {
                note = note.with_note(format!("LLVM: {reason}"));
            }
            notes.insert(0, note);
        }
    }
    notes
}

/// The one note of a kernel whose loops bound to GPU threads run as CPU
/// loops; `None` when it has none.
fn thread_binding_note(loops: &[Span]) -> Option<Diagnostic> {
    note_at_loops(
        "loops bound to GPU threads run here as CPU loops: thread blocks in parallel, the threads of a block one after another",
        "`--target cuda` runs them on a GPU (`--emulate` without one); on the CPU, `parallel` and `vectorize` are what make such loops fast",
        "also bound to a GPU thread",
        loops,
    )
}

/// A note at the first of `loops`, the others as secondary places.
fn note_at_loops(
    message: &str,
    help: &str,
    other_label: &str,
    loops: &[Span],
) -> Option<Diagnostic> {
    let (first, others) = loops.split_first()?;
    let note = Diagnostic::new(Severity::Note, "", message, *first).with_help(help);
    Some(
        others
            .iter()
            .fold(note, |note, span| note.with_secondary(*span, other_label)),
    )
}

/// What compiling some kernels has to tell the user, at the header lines
/// of the loops concerned.
#[derive(Debug, Default)]
pub struct CompileNotes {
    /// Shown on every build and run: loops bound to GPU threads run as CPU loops.
    pub notes: Vec<Diagnostic>,
    /// LLVM's messages, shown with `--verbose`.
    pub llvm_notes: Vec<Diagnostic>,
}

/// The notes of `kernels`, with what `remarks` collected while they were
/// compiled (the sink is emptied).
pub fn compile_notes<'k>(
    kernels: impl IntoIterator<Item = &'k GeneratedKernel>,
    remarks: &RemarkSink,
    sources: &SourceMap,
) -> CompileNotes {
    let kernels: Vec<&GeneratedKernel> = kernels.into_iter().collect();
    let vectorized_loops: Vec<Span> = kernels
        .iter()
        .flat_map(|kernel| kernel.vectorized_loops.iter().copied())
        .collect();
    CompileNotes {
        notes: kernels
            .iter()
            .filter_map(|kernel| thread_binding_note(&kernel.thread_bound_loops))
            .map(|note| note.at_first_lines(sources))
            .collect(),
        llvm_notes: remark_notes(&remarks.take(), &vectorized_loops)
            .into_iter()
            .map(|note| note.at_first_lines(sources))
            .collect(),
    }
}
