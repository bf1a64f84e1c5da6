//! The diagnostic codes of the lowering passes (`E05xx`).

/// A construct a pass does not handle (named in the message).
pub const UNSUPPORTED: &str = "E0501";
/// The input is not in the form the pass expects (a block left before
/// flattening, a block iteration variable left after conversion).
pub const WRONG_STAGE: &str = "E0502";
/// A `T.match_buffer` whose fields contradict the region it views.
pub const MATCH_BUFFER_MISMATCH: &str = "E0503";
/// Operand types that no operator accepts while rebuilding an expression.
pub const TYPE_MISMATCH: &str = "E0504";
/// A buffer used outside the scope that declares it.
pub const UNDECLARED_BUFFER: &str = "E0505";
