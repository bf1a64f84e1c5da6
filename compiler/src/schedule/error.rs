//! Refusals: why a schedule step cannot be applied, with the code, the
//! loops and blocks of the program it concerns, and how to fix it.
//!
//! Every refusal has an `E03xx` code (listed in [`codes`]) and a help line. The
//! script interpreter turns a refusal into a diagnostic whose primary span is
//! the schedule line and whose secondary spans are the program locations.

use crate::diagnostics::Diagnostic;
use crate::source::Span;

/// Diagnostic codes of the schedule engine.
pub mod codes {
    /// A method of `sch` that is not a schedule primitive tirc knows.
    pub const UNKNOWN_PRIMITIVE: &str = "E0301";
    /// A name that was never assigned in the schedule.
    pub const UNDEFINED_NAME: &str = "E0302";
    /// A value of the wrong kind (a loop where a block is expected, ...).
    pub const WRONG_KIND: &str = "E0303";
    /// Missing, extra or unknown arguments.
    pub const BAD_ARGUMENTS: &str = "E0304";
    /// A loop or block handle whose loop or block an earlier step removed.
    pub const REMOVED_HANDLE: &str = "E0305";
    /// `get_block` found no block, or several, with that name.
    pub const BLOCK_NOT_FOUND: &str = "E0306";
    /// A function name that is not in the module.
    pub const FUNCTION_NOT_FOUND: &str = "E0307";
    /// Split factors that are not valid for the loop.
    pub const BAD_FACTORS: &str = "E0308";
    /// A loop that does not start at zero.
    pub const LOOP_NOT_FROM_ZERO: &str = "E0309";
    /// A loop with annotations or a thread binding where neither is allowed.
    pub const LOOP_HAS_ANNOTATION: &str = "E0310";
    /// Loops that are not a chain of only children (fuse).
    pub const NOT_ADJACENT: &str = "E0311";
    /// A loop whose range depends on a loop that would end up inside it.
    pub const DEPENDENT_LOOP: &str = "E0312";
    /// A loop given twice.
    pub const DUPLICATE_LOOP: &str = "E0313";
    /// Loops that are not on one chain under one block (reorder).
    pub const NOT_A_CHAIN: &str = "E0314";
    /// A block under the loops with iterators or bindings reorder cannot move.
    pub const BAD_BLOCK_UNDER_LOOPS: &str = "E0315";
    /// A loop bound to a block iterator that is not data parallel.
    pub const NOT_DATA_PARALLEL: &str = "E0316";
    /// A block under the loop that is neither complete nor a reduction.
    pub const NOT_COMPACT_DATAFLOW: &str = "E0317";
    /// A thread tag that is not a GPU thread axis.
    pub const UNKNOWN_THREAD_TAG: &str = "E0318";
    /// An annotation key that is not there.
    pub const MISSING_ANNOTATION: &str = "E0319";
    /// An operation on the root block that needs a block inside a scope.
    pub const ROOT_BLOCK: &str = "E0320";
    /// A statement a schedule section may not contain.
    pub const UNSUPPORTED_STATEMENT: &str = "E0321";
    /// No schedule section, or not the one asked for.
    pub const NO_SCHEDULE: &str = "E0322";
    /// A tuple assignment whose count does not match the value.
    pub const UNPACK_MISMATCH: &str = "E0323";
    /// A new loop whose extent does not fit its variable's type.
    pub const EXTENT_OVERFLOW: &str = "E0324";
    /// A buffer index past the block's reads or writes.
    pub const BUFFER_INDEX: &str = "E0325";
    /// A storage scope TVM does not know.
    pub const BAD_STORAGE_SCOPE: &str = "E0326";
    /// A buffer no block allocates (a parameter or `match_buffer`).
    pub const NOT_ALLOCATED: &str = "E0327";
    /// A `storage_align` axis or factor out of range.
    pub const BAD_ALIGNMENT: &str = "E0328";
    /// A consumer reading more than its producers write before it.
    pub const NOT_REGION_COVER: &str = "E0329";
    /// A buffer several blocks of the scope write.
    pub const NOT_SINGLE_WRITER: &str = "E0330";
    /// A block whose body or dataflow inlining cannot handle.
    pub const NOT_INLINABLE: &str = "E0331";
    /// A scope whose blocks are not a stage pipeline.
    pub const NOT_STAGE_PIPELINE: &str = "E0332";
    /// A block that writes an output of its scope.
    pub const OUTPUT_BLOCK: &str = "E0333";
    /// A block that is not complete where a complete one is needed.
    pub const NOT_COMPLETE_BLOCK: &str = "E0334";
    /// Removing the only block of a scope.
    pub const ONLY_LEAF: &str = "E0335";
    /// A loop where a block cannot be moved (compute_at and its reverse).
    pub const BAD_COMPUTE_LOCATION: &str = "E0336";
    /// A block that is not a reduction where one is needed.
    pub const NOT_REDUCTION_BLOCK: &str = "E0337";
    /// A loop rfactor cannot factor, or a factor axis out of range.
    pub const BAD_RFACTOR: &str = "E0338";
    /// A loop or blocks blockize cannot turn into one block.
    pub const BAD_BLOCKIZE: &str = "E0339";
    /// `tensorize` of a computation that does not match the intrinsic.
    pub const BAD_TENSORIZE: &str = "E0340";
    /// `transform_layout` with an index map it cannot apply (wrong arity, padding, a view).
    pub const BAD_LAYOUT_TRANSFORM: &str = "E0341";
    /// `reindex` of a block whose accesses it cannot reindex.
    pub const BAD_REINDEX: &str = "E0342";
    /// A cache stage whose copy would leave the buffer.
    pub const CACHE_OUT_OF_BOUNDS: &str = "E0343";
    /// A sampling instruction with arguments or a decision it cannot use.
    pub const BAD_SAMPLE: &str = "E0344";
    /// `pad_einsum` of a block it cannot pad.
    pub const BAD_PAD_EINSUM: &str = "E0345";
    /// `reorder_block_iter_var` with an order that is not a permutation.
    pub const BAD_ITER_ORDER: &str = "E0346";
    /// `annotate_buffer_access` or `unsafe_hide_buffer_access` with a buffer
    /// kind, index or region it cannot use.
    pub const BAD_BUFFER_ACCESS: &str = "E0347";
    /// `unsafe_set_dtype` with a type tirc does not know.
    pub const BAD_DTYPE: &str = "E0348";
    /// `merge` of nests it cannot merge.
    pub const BAD_MERGE: &str = "E0349";
    /// `decompose_padding` of a block that is not a padding block.
    pub const NOT_PADDING_BLOCK: &str = "E0350";
    /// `read_at` or `write_at` of a loop whose body it cannot copy for.
    pub const BAD_READ_WRITE_AT: &str = "E0351";
    /// `cache_inplace` of a buffer the block does not both read and write.
    pub const NOT_READ_MODIFY_WRITE: &str = "E0352";
}

/// A program location a refusal is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blame {
    /// Where it is in the program (a loop or block), or in the schedule.
    pub span: Span,
    /// What it has to do with the refusal.
    pub label: String,
}

/// A refused step: what is wrong, where, and how to fix it (boxed, so that
/// results stay small on the success path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError(Box<Refusal>);

/// The details of a refused step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The `E03xx` code.
    pub code: &'static str,
    /// One line saying what is wrong.
    pub message: String,
    /// The loops and blocks of the program it concerns.
    pub blame: Vec<Blame>,
    /// How to fix it.
    pub help: String,
    /// Extra facts, one line each (TVM's conditions, for instance).
    pub notes: Vec<String>,
    /// The argument of the call to point at (its position in the call's
    /// arguments as written), when one argument is at fault.
    pub argument: Option<usize>,
}

impl std::ops::Deref for ScheduleError {
    type Target = Refusal;
    fn deref(&self) -> &Refusal {
        &self.0
    }
}

impl std::ops::DerefMut for ScheduleError {
    fn deref_mut(&mut self) -> &mut Refusal {
        &mut self.0
    }
}

impl ScheduleError {
    /// A refusal with a code, a message and a help line.
    pub fn new(code: &'static str, message: impl Into<String>, help: impl Into<String>) -> Self {
        ScheduleError(Box::new(Refusal {
            code,
            message: message.into(),
            blame: Vec::new(),
            help: help.into(),
            notes: Vec::new(),
            argument: None,
        }))
    }

    /// Adds a program location.
    pub fn blame(mut self, span: Span, label: impl Into<String>) -> Self {
        self.blame.push(Blame {
            span,
            label: label.into(),
        });
        self
    }

    /// Adds a note line.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Points at one argument of the call.
    pub fn at_argument(mut self, index: usize) -> Self {
        self.argument = Some(index);
        self
    }

    /// The diagnostic for this refusal, with the primary span on the schedule line.
    pub fn to_diagnostic(&self, primary: Span, label: &str) -> Diagnostic {
        let mut diagnostic =
            Diagnostic::error(self.code, self.message.clone(), primary).with_label(label);
        for blame in &self.blame {
            diagnostic = diagnostic.with_secondary(blame.span, blame.label.clone());
        }
        for note in &self.notes {
            diagnostic = diagnostic.with_note(note.clone());
        }
        diagnostic.with_help(self.help.clone())
    }
}

/// The result of a primitive.
pub type ScheduleResult<T> = Result<T, ScheduleError>;
