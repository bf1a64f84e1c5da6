//! The verifier: what makes a lowered `.tir` module trustworthy before it is
//! scheduled or compiled. Each file checks one family of rules (types,
//! scoping, buffers, blocks, regions, functions) and reports every
//! independent problem it finds with a stable code, the span at fault, a
//! "defined here" label where one helps, and a line that says how to fix it.
//!
//! The checks assume nothing about where the IR came from: the frontend, a
//! schedule primitive or a lowering pass. They never stop at the first
//! problem, and each family avoids reporting consequences of a problem it
//! already reported (one undefined variable gives one diagnostic, an access
//! with the wrong number of indices is not also checked against its region).

mod blocks;
mod buffers;
mod functions;
mod proofs;
mod regions;
mod schedule_names;
mod scoping;
mod spans;
mod types;

use crate::check::CheckOptions;
use crate::diagnostics::{sort_diagnostics, Diagnostic};
use crate::ir::IRModule;

pub use schedule_names::verify_schedule_block_names;

/// Diagnostic codes of the verifier. Errors are `E02xx`, warnings `W02xx`;
/// the second-to-last digit names the family (0 types, 1 scoping, 2 buffers,
/// 3 blocks, 4 regions, 5 functions).
pub mod codes {
    /// A value that must be an integer (an index, an extent, a shape) is not.
    pub const NOT_AN_INTEGER: &str = "E0201";
    /// The indices of one access have different integer widths.
    pub const MIXED_INDEX_WIDTHS: &str = "E0202";
    /// A condition (`if`, `while`, `assert`, `T.where`, `T.likely`, select) is not bool.
    pub const CONDITION_NOT_BOOL: &str = "E0203";
    /// Vector lane counts that must agree do not.
    pub const LANES_MISMATCH: &str = "E0204";
    /// A builtin called with arguments of the wrong type or number.
    pub const BUILTIN_ARGUMENTS: &str = "E0205";
    /// Two values that must have one type (operands, a let and its value) do not.
    pub const OPERAND_TYPES_DIFFER: &str = "E0206";
    /// An implicit conversion inserted by TVM's rules (reported under `--strict-casts`).
    pub const IMPLICIT_CAST: &str = "W0201";

    /// A variable used outside the loop, block or let that defines it.
    pub const OUT_OF_SCOPE: &str = "E0210";
    /// A loop variable used inside a block that should use its own iteration variables.
    pub const LOOP_VAR_IN_BLOCK: &str = "E0211";
    /// A buffer used outside the block or statement that allocates it.
    pub const BUFFER_OUT_OF_SCOPE: &str = "E0212";
    /// A symbolic variable used but never defined.
    pub const UNDEFINED_VARIABLE: &str = "E0213";
    /// A name defined twice in nested scopes (loop, iteration and let variables, buffers).
    pub const DUPLICATE_DEFINITION: &str = "E0214";
    /// A loop or iteration variable rebound by an assignment.
    pub const ASSIGN_TO_LOOP_VAR: &str = "E0215";

    /// An access or region with a number of indices other than the buffer's rank.
    pub const WRONG_INDEX_COUNT: &str = "E0220";
    /// A constant index outside the buffer's shape.
    pub const INDEX_OUT_OF_BOUNDS: &str = "E0221";
    /// A constant region outside the buffer's shape.
    pub const REGION_OUT_OF_BOUNDS: &str = "E0222";
    /// A `T.match_buffer` whose shape disagrees with the region it matches.
    pub const MATCH_BUFFER_SHAPE: &str = "E0223";
    /// A storage scope tirc does not know.
    pub const UNKNOWN_SCOPE: &str = "E0224";

    /// A block iteration variable bound to values outside its domain.
    pub const BINDING_OUT_OF_DOMAIN: &str = "E0230";
    /// `T.init()` in a block without a reduction iteration variable.
    pub const INIT_WITHOUT_REDUCTION: &str = "E0231";
    /// A reduction block whose writes depend on a reduction iteration variable.
    pub const WRITE_DEPENDS_ON_REDUCTION: &str = "E0232";
    /// A block with a number of bindings other than its iteration variables.
    pub const BINDING_COUNT: &str = "E0233";
    /// A schedule asks for a block name that several blocks share.
    pub const AMBIGUOUS_BLOCK_NAME: &str = "E0234";
    /// Two blocks of one function share a name.
    pub const DUPLICATE_BLOCK_NAME: &str = "W0230";

    /// A load outside every read region the block declares.
    pub const LOAD_OUTSIDE_READS: &str = "E0240";
    /// A store outside every write region the block declares.
    pub const STORE_OUTSIDE_WRITES: &str = "E0241";
    /// A declared region larger than what the block touches (under `--warn-loose-regions`).
    pub const LOOSE_REGION: &str = "W0240";

    /// A parameter's buffer binding is inconsistent.
    pub const BUFFER_MAP: &str = "E0250";
    /// A function attribute with a value of the wrong type.
    pub const FUNC_ATTR_TYPE: &str = "E0251";
    /// Two functions export the same symbol.
    pub const DUPLICATE_SYMBOL: &str = "E0252";
    /// A call of a module function with the wrong number of arguments.
    pub const CALL_ARGUMENTS: &str = "E0253";

    /// Every verifier code, in order.
    pub const ALL: &[&str] = &[
        NOT_AN_INTEGER,
        MIXED_INDEX_WIDTHS,
        CONDITION_NOT_BOOL,
        LANES_MISMATCH,
        BUILTIN_ARGUMENTS,
        OPERAND_TYPES_DIFFER,
        IMPLICIT_CAST,
        OUT_OF_SCOPE,
        LOOP_VAR_IN_BLOCK,
        BUFFER_OUT_OF_SCOPE,
        UNDEFINED_VARIABLE,
        DUPLICATE_DEFINITION,
        ASSIGN_TO_LOOP_VAR,
        WRONG_INDEX_COUNT,
        INDEX_OUT_OF_BOUNDS,
        REGION_OUT_OF_BOUNDS,
        MATCH_BUFFER_SHAPE,
        UNKNOWN_SCOPE,
        BINDING_OUT_OF_DOMAIN,
        INIT_WITHOUT_REDUCTION,
        WRITE_DEPENDS_ON_REDUCTION,
        BINDING_COUNT,
        AMBIGUOUS_BLOCK_NAME,
        DUPLICATE_BLOCK_NAME,
        LOAD_OUTSIDE_READS,
        STORE_OUTSIDE_WRITES,
        LOOSE_REGION,
        BUFFER_MAP,
        FUNC_ATTR_TYPE,
        DUPLICATE_SYMBOL,
        CALL_ARGUMENTS,
    ];
}

/// The verifier's block checks of one function (bindings inside their
/// domains, iterator kinds, ...), for a schedule primitive that must not
/// leave a binding outside its domain.
pub fn verify_blocks(function: &crate::ir::PrimFunc) -> Vec<Diagnostic> {
    blocks::check_function(function)
}

/// Checks every function of a module and returns every problem found, sorted
/// by position. An empty result means the module is well formed.
pub fn verify_module(module: &IRModule, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    diagnostics.extend(functions::check_module(module));
    for function in &module.functions {
        diagnostics.extend(types::check_function(function, options));
        diagnostics.extend(scoping::check_function(function));
        diagnostics.extend(buffers::check_function(function));
        diagnostics.extend(blocks::check_function(function));
        diagnostics.extend(regions::check_function(function, options));
        diagnostics.extend(functions::check_function(function, module));
    }
    sort_diagnostics(&mut diagnostics);
    diagnostics
}

#[cfg(test)]
mod tests;
