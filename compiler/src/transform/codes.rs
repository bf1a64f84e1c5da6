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
/// A load or store outside every GPU-bound loop of a CUDA program.
pub const HOST_ACCESS: &str = "E0505";
/// Loops bound to one thread tag of a kernel with different extents.
pub const THREAD_EXTENT: &str = "E0506";
/// A block of more threads than CUDA allows.
pub const TOO_MANY_THREADS: &str = "E0507";
/// More static shared memory than a block has.
pub const SHARED_MEMORY: &str = "E0508";
/// More `local` memory per thread than CUDA allows.
pub const LOCAL_MEMORY: &str = "E0509";
/// A `warp` buffer whose accesses do not say which lane holds which element.
pub const WARP_MEMORY: &str = "E0510";
