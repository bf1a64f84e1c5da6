//! The table of builtin operators a `Call` can name (`T.exp`, `T.if_then_else`,
//! `T.call_extern`, ...), with their arity and result-type rule.

use std::fmt;

/// How many arguments an operator takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many.
    AtLeast(usize),
}

impl Arity {
    /// True when `count` arguments are acceptable.
    pub fn accepts(self, count: usize) -> bool {
        match self {
            Arity::Exactly(n) => count == n,
            Arity::AtLeast(n) => count >= n,
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Exactly(1) => write!(f, "1 argument"),
            Arity::Exactly(n) => write!(f, "{n} arguments"),
            Arity::AtLeast(n) => write!(f, "at least {n} arguments"),
        }
    }
}

/// How the result type of a call is determined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultRule {
    /// The type of the argument at this position.
    SameAsArg(usize),
    /// `bool` with the lanes of the first argument.
    Bool,
    /// Written out as a dtype string in the call (`T.call_extern("float32", ...)`).
    Explicit,
    /// `int32`.
    Int32,
    /// `uint32` (a warp's lane mask).
    UInt32,
    /// `handle`.
    Handle,
    /// `void`.
    Void,
}

/// Where the printed form puts the explicit dtype string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypePosition {
    /// Not printed.
    None,
    /// As the first argument.
    First,
    /// As the last argument.
    Last,
}

/// What kind of arguments the operator expects, for type checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgRule {
    /// No check beyond arity.
    Any,
    /// Every argument is a float (math functions).
    Float,
    /// Every argument is an integer.
    Integer,
    /// Numeric arguments of one type.
    Numeric,
    /// `if_then_else`: bool condition, then two values of one type.
    Conditional,
    /// The single argument is a bool.
    BoolArg,
    /// `reinterpret`: the argument has as many bits, over all its lanes, as the result.
    SameWidth,
}

/// One builtin operator.
#[derive(Debug)]
pub struct OpInfo {
    /// The name after `T.` in TVMScript, such as `exp`.
    pub name: &'static str,
    /// TVM's registered name, such as `tir.exp`.
    pub tvm_name: &'static str,
    /// Accepted argument counts (not counting a printed dtype string).
    pub arity: Arity,
    /// How the result type is found.
    pub result: ResultRule,
    /// Where the dtype is printed.
    pub dtype_position: DtypePosition,
    /// What the arguments must be.
    pub args: ArgRule,
    /// True when the call has no side effects (may be moved or removed).
    pub pure: bool,
    /// One-line description, shown by hover and `tirc explain`.
    pub doc: &'static str,
}

/// A builtin operator, compared by identity of its table entry.
#[derive(Clone, Copy)]
pub struct Op(pub &'static OpInfo);

impl Op {
    /// The operator's table entry.
    pub fn info(self) -> &'static OpInfo {
        self.0
    }
    /// The TVMScript name (`exp`).
    pub fn name(self) -> &'static str {
        self.0.name
    }
    /// Finds an operator by its TVMScript name or TVM's registered name.
    pub fn lookup(name: &str) -> Option<Op> {
        let name = name.strip_prefix("T.").unwrap_or(name);
        OPS.iter()
            .find(|op| op.name == name || op.tvm_name == name)
            .map(Op)
    }
    /// Finds an operator that must exist in the table.
    pub fn named(name: &str) -> Op {
        match Op::lookup(name) {
            Some(op) => op,
            None => panic!("builtin operator table has no entry `{name}`"),
        }
    }
    /// Every builtin, in table order.
    pub fn all() -> impl Iterator<Item = Op> {
        OPS.iter().map(Op)
    }

    /// A vendor intrinsic such as `T.ptx_legacy.mma` or `T.metal.simdgroup_load`:
    /// an opaque call (any arguments, no result) tirc keeps but does not
    /// interpret. Only names under a known vendor namespace are accepted, so a
    /// misspelled builtin is still an error.
    pub fn vendor_intrinsic(name: &str) -> Option<Op> {
        let namespace = name.split('.').next()?;
        if !name.contains('.') || !VENDOR_NAMESPACES.contains(&namespace) {
            return None;
        }
        let mut interned = INTERNED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(op) = interned.iter().find(|op| op.name == name) {
            return Some(Op(op));
        }
        // Each distinct intrinsic name is leaked once; the set is bounded by
        // the vendor namespaces' vocabulary that inputs mention.
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        let info: &'static OpInfo = Box::leak(Box::new(OpInfo {
            name,
            tvm_name: name,
            arity: Arity::AtLeast(0),
            result: ResultRule::Void,
            dtype_position: DtypePosition::None,
            args: ArgRule::Any,
            pure: false,
            doc: "A vendor intrinsic; tirc passes it through to code generation unchanged.",
        }));
        interned.push(info);
        Some(Op(info))
    }
}

impl PartialEq for Op {
    fn eq(&self, other: &Op) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for Op {}
impl std::hash::Hash for Op {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.name.hash(state)
    }
}
impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T.{}", self.0.name)
    }
}

const fn math(name: &'static str, tvm_name: &'static str, doc: &'static str) -> OpInfo {
    OpInfo {
        name,
        tvm_name,
        arity: Arity::Exactly(1),
        result: ResultRule::SameAsArg(0),
        dtype_position: DtypePosition::None,
        args: ArgRule::Float,
        pure: true,
        doc,
    }
}

const fn math2(name: &'static str, tvm_name: &'static str, doc: &'static str) -> OpInfo {
    OpInfo {
        arity: Arity::Exactly(2),
        ..math(name, tvm_name, doc)
    }
}

const fn numeric(
    name: &'static str,
    tvm_name: &'static str,
    arity: usize,
    doc: &'static str,
) -> OpInfo {
    OpInfo {
        arity: Arity::Exactly(arity),
        args: ArgRule::Numeric,
        ..math(name, tvm_name, doc)
    }
}

const fn integer(
    name: &'static str,
    tvm_name: &'static str,
    arity: usize,
    doc: &'static str,
) -> OpInfo {
    OpInfo {
        arity: Arity::Exactly(arity),
        args: ArgRule::Integer,
        ..math(name, tvm_name, doc)
    }
}

const fn predicate(name: &'static str, tvm_name: &'static str, doc: &'static str) -> OpInfo {
    OpInfo {
        result: ResultRule::Bool,
        ..math(name, tvm_name, doc)
    }
}

const fn explicit(
    name: &'static str,
    tvm_name: &'static str,
    min_args: usize,
    pure: bool,
    doc: &'static str,
) -> OpInfo {
    OpInfo {
        name,
        tvm_name,
        arity: Arity::AtLeast(min_args),
        result: ResultRule::Explicit,
        dtype_position: DtypePosition::First,
        args: ArgRule::Any,
        pure,
        doc,
    }
}

const fn opaque(
    name: &'static str,
    tvm_name: &'static str,
    arity: Arity,
    result: ResultRule,
    doc: &'static str,
) -> OpInfo {
    OpInfo {
        name,
        tvm_name,
        arity,
        result,
        dtype_position: DtypePosition::None,
        args: ArgRule::Any,
        pure: false,
        doc,
    }
}

/// Namespaces of vendor intrinsics accepted as opaque calls.
const VENDOR_NAMESPACES: &[&str] = &[
    "ptx",
    "ptx_legacy",
    "metal",
    "cuda",
    "rocm",
    "hexagon",
    "vulkan",
    "nvshmem",
    "cutlass",
];

/// The `mma.sync` family of tensor-core builtins, whatever TVM version's
/// spelling names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaBuiltin {
    /// `ldmatrix` of 8x8 matrices into each lane's registers.
    Ldmatrix,
    /// `mma.sync` on each lane's registers.
    Mma,
    /// Zeroes each lane's accumulator registers.
    Fill,
    /// Stores a warp's accumulator tile from its lanes' registers.
    Store,
}

impl MmaBuiltin {
    /// The builtin `name` denotes: TVM 0.27's `ptx_legacy.ldmatrix`,
    /// 0.26's `ptx.ldmatrix_legacy`, older `ptx_ldmatrix`, and so on.
    pub fn of(name: &str) -> Option<MmaBuiltin> {
        match name {
            "ptx_legacy.ldmatrix" | "ptx.ldmatrix_legacy" | "ptx_ldmatrix" => {
                Some(MmaBuiltin::Ldmatrix)
            }
            "ptx_legacy.mma" | "ptx.mma.legacy" | "ptx_mma" => Some(MmaBuiltin::Mma),
            "cuda.mma_fill_legacy" | "mma_fill" => Some(MmaBuiltin::Fill),
            "cuda.mma_store_legacy" | "mma_store" => Some(MmaBuiltin::Store),
            _ => None,
        }
    }

    /// Its arguments.
    pub fn arity(self) -> usize {
        match self {
            MmaBuiltin::Ldmatrix => 7,
            MmaBuiltin::Mma => 13,
            MmaBuiltin::Fill => 3,
            MmaBuiltin::Store => 6,
        }
    }

    /// The positions of its (data, offset) pairs that name a lane's registers.
    pub fn register_operands(self) -> &'static [usize] {
        match self {
            MmaBuiltin::Ldmatrix => &[3],
            MmaBuiltin::Mma => &[6, 8, 10],
            MmaBuiltin::Fill => &[1],
            MmaBuiltin::Store => &[3],
        }
    }

    /// Whether tirc writes and runs an `mma` of this form: its first six
    /// arguments (shape, A and B layouts, A, B and accumulator types).
    pub fn mma_form_supported(form: &[Option<&str>]) -> bool {
        matches!(
            form,
            [
                Some("m16n8k16"),
                Some("row"),
                Some("col"),
                Some("fp16"),
                Some("fp16"),
                Some("fp32" | "fp16")
            ] | [
                Some("m16n8k16"),
                Some("row"),
                Some("col"),
                Some("bf16"),
                Some("bf16"),
                Some("fp32")
            ]
        )
    }

    /// The forms [`MmaBuiltin::mma_form_supported`] accepts, for messages.
    pub const MMA_FORMS: &'static str = "m16n8k16, row.col, fp16 inputs with fp32 or fp16 accumulators or bf16 inputs with fp32 ones";

    /// TVM 0.27's name, for messages.
    pub fn tvm_name(self) -> &'static str {
        match self {
            MmaBuiltin::Ldmatrix => "T.ptx_legacy.ldmatrix",
            MmaBuiltin::Mma => "T.ptx_legacy.mma",
            MmaBuiltin::Fill => "T.cuda.mma_fill_legacy",
            MmaBuiltin::Store => "T.cuda.mma_store_legacy",
        }
    }
}

/// The builtins by which the threads of a GPU block wait for one another
/// (a barrier, a cross-thread reduction, a warp shuffle): a kernel that
/// calls one cannot run its threads one after another.
pub const THREAD_COLLECTIVES: &[&str] = &[
    "tvm_storage_sync",
    "tvm_thread_allreduce",
    "tvm_warp_activemask",
    "tvm_warp_shuffle",
    "tvm_warp_shuffle_up",
    "tvm_warp_shuffle_down",
];

/// Vendor intrinsics met so far, interned by name.
static INTERNED: std::sync::Mutex<Vec<&'static OpInfo>> = std::sync::Mutex::new(Vec::new());

/// Every builtin operator tirc knows.
static OPS: &[OpInfo] = &[
    math("exp", "tir.exp", "e raised to the argument."),
    math("exp2", "tir.exp2", "2 raised to the argument."),
    math("exp10", "tir.exp10", "10 raised to the argument."),
    math("log", "tir.log", "Natural logarithm."),
    math("log2", "tir.log2", "Base-2 logarithm."),
    math("log10", "tir.log10", "Base-10 logarithm."),
    math("log1p", "tir.log1p", "log(1 + x), accurate near 0."),
    math("sqrt", "tir.sqrt", "Square root."),
    math("rsqrt", "tir.rsqrt", "Reciprocal square root 1 / sqrt(x)."),
    math("sin", "tir.sin", "Sine."),
    math("cos", "tir.cos", "Cosine."),
    math("tan", "tir.tan", "Tangent."),
    math("sinh", "tir.sinh", "Hyperbolic sine."),
    math("cosh", "tir.cosh", "Hyperbolic cosine."),
    math("tanh", "tir.tanh", "Hyperbolic tangent."),
    math("asin", "tir.asin", "Arc sine."),
    math("acos", "tir.acos", "Arc cosine."),
    math("atan", "tir.atan", "Arc tangent."),
    math("asinh", "tir.asinh", "Inverse hyperbolic sine."),
    math("acosh", "tir.acosh", "Inverse hyperbolic cosine."),
    math("atanh", "tir.atanh", "Inverse hyperbolic tangent."),
    math("erf", "tir.erf", "Gauss error function."),
    math("sigmoid", "tir.sigmoid", "Logistic function 1 / (1 + exp(-x))."),
    math("floor", "tir.floor", "Largest integer value not above the argument."),
    math("ceil", "tir.ceil", "Smallest integer value not below the argument."),
    math("round", "tir.round", "Round to nearest, ties away from zero."),
    math("trunc", "tir.trunc", "Round toward zero."),
    math("nearbyint", "tir.nearbyint", "Round to nearest, ties to even."),
    numeric("fabs", "tir.fabs", 1, "Absolute value (TVM prints abs as T.fabs)."),
    math2("pow", "tir.pow", "The first argument raised to the second."),
    math2("atan2", "tir.atan2", "Arc tangent of y / x using both signs."),
    math2("fmod", "tir.fmod", "Floating-point remainder."),
    math2("hypot", "tir.hypot", "sqrt(x*x + y*y) without overflow."),
    math2("copysign", "tir.copysign", "The first argument with the sign of the second."),
    math2("nextafter", "tir.nextafter", "The next representable value after x toward y."),
    OpInfo {
        args: ArgRule::Any,
        ..math2("ldexp", "tir.ldexp", "x * 2^e.")
    },
    OpInfo {
        arity: Arity::Exactly(3),
        ..math("fma", "tir.fma", "Fused multiply-add a * b + c with one rounding.")
    },
    predicate("isnan", "tir.isnan", "True when the argument is NaN."),
    predicate("isinf", "tir.isinf", "True when the argument is infinite."),
    predicate("isfinite", "tir.isfinite", "True when the argument is neither NaN nor infinite."),
    integer("clz", "tir.clz", 1, "Number of leading zero bits."),
    integer("popcount", "tir.popcount", 1, "Number of set bits."),
    integer("shift_left", "tir.shift_left", 2, "Bitwise shift left."),
    integer("shift_right", "tir.shift_right", 2, "Bitwise shift right (arithmetic for signed)."),
    integer("bitwise_and", "tir.bitwise_and", 2, "Bitwise and."),
    integer("bitwise_or", "tir.bitwise_or", 2, "Bitwise or."),
    integer("bitwise_xor", "tir.bitwise_xor", 2, "Bitwise exclusive or."),
    integer("bitwise_not", "tir.bitwise_not", 1, "Bitwise complement."),
    OpInfo {
        name: "if_then_else",
        tvm_name: "tir.if_then_else",
        arity: Arity::Exactly(3),
        result: ResultRule::SameAsArg(1),
        dtype_position: DtypePosition::None,
        args: ArgRule::Conditional,
        pure: true,
        doc: "The second argument when the condition holds, else the third; only the chosen side is evaluated.",
    },
    OpInfo {
        name: "likely",
        tvm_name: "tir.likely",
        arity: Arity::Exactly(1),
        result: ResultRule::SameAsArg(0),
        dtype_position: DtypePosition::None,
        args: ArgRule::BoolArg,
        pure: true,
        doc: "Marks a condition as likely true, a hint for loop partitioning and branch layout.",
    },
    OpInfo {
        name: "q_multiply_shift",
        tvm_name: "tir.q_multiply_shift",
        arity: Arity::Exactly(4),
        result: ResultRule::SameAsArg(0),
        dtype_position: DtypePosition::None,
        args: ArgRule::Integer,
        pure: true,
        doc: "Fixed-point multiply (x * y) >> (q - s) with rounding, as in quantized kernels.",
    },
    OpInfo {
        name: "reinterpret",
        tvm_name: "tir.reinterpret",
        arity: Arity::Exactly(1),
        result: ResultRule::Explicit,
        dtype_position: DtypePosition::First,
        args: ArgRule::SameWidth,
        pure: true,
        doc: "The bits of the argument read as another type of the same width.",
    },
    explicit("call_extern", "tir.call_extern", 1, false, "Calls an external C function by name: T.call_extern(dtype, name, args...)."),
    explicit("call_pure_extern", "tir.call_pure_extern", 1, true, "Calls a side-effect-free external function by name."),
    explicit("call_llvm_intrin", "tir.call_llvm_intrin", 1, false, "Calls an LLVM intrinsic by name or id."),
    explicit("call_llvm_pure_intrin", "tir.call_llvm_pure_intrin", 1, true, "Calls a side-effect-free LLVM intrinsic by name or id."),
    opaque("call_packed", "tir.call_packed", Arity::AtLeast(1), ResultRule::Int32, "Calls a packed function by name: T.call_packed(name, args...)."),
    explicit("type_annotation", "tir.type_annotation", 0, true, "A typed placeholder used by intrinsics such as tvm_access_ptr."),
    opaque("ret", "tir.ret", Arity::Exactly(1), ResultRule::SameAsArg(0), "Returns a value from the function."),
    opaque("tvm_storage_sync", "tir.tvm_storage_sync", Arity::AtLeast(1), ResultRule::Int32, "Synchronises threads on a storage scope (\"shared\", \"warp\", \"global\")."),
    opaque("tvm_warp_activemask", "tir.tvm_warp_activemask", Arity::Exactly(0), ResultRule::UInt32, "The mask of the lanes of the warp that run this call together (CUDA `__activemask()`)."),
    opaque("tvm_warp_shuffle", "tir.tvm_warp_shuffle", Arity::Exactly(5), ResultRule::SameAsArg(1), "The value of another lane of the warp: (mask, value, lane, width, warp_size), CUDA `__shfl_sync`."),
    opaque("tvm_warp_shuffle_up", "tir.tvm_warp_shuffle_up", Arity::Exactly(5), ResultRule::SameAsArg(1), "The value of the lane `delta` below: (mask, value, delta, width, warp_size), CUDA `__shfl_up_sync`."),
    opaque("tvm_warp_shuffle_down", "tir.tvm_warp_shuffle_down", Arity::Exactly(5), ResultRule::SameAsArg(1), "The value of the lane `delta` above: (mask, value, delta, width, warp_size), CUDA `__shfl_down_sync`."),
    opaque("address_of", "tir.address_of", Arity::Exactly(1), ResultRule::Handle, "The address of a buffer element."),
    opaque("tvm_access_ptr", "tir.tvm_access_ptr", Arity::Exactly(5), ResultRule::Handle, "A pointer into a buffer: (type, data, offset, extent, rw_mask)."),
    opaque("tvm_thread_allreduce", "tir.tvm_thread_allreduce", Arity::AtLeast(3), ResultRule::Handle, "Cross-thread reduction."),
    opaque("tvm_fill_fragment", "tir.tvm_fill_fragment", Arity::Exactly(6), ResultRule::Handle, "Fills a wmma fragment with a value."),
    opaque("tvm_load_matrix_sync", "tir.tvm_load_matrix_sync", Arity::Exactly(8), ResultRule::Handle, "Loads a wmma fragment from memory."),
    opaque("tvm_store_matrix_sync", "tir.tvm_store_matrix_sync", Arity::Exactly(8), ResultRule::Handle, "Stores a wmma fragment to memory."),
    opaque("tvm_mma_sync", "tir.tvm_mma_sync", Arity::Exactly(8), ResultRule::Handle, "Tensor-core multiply-accumulate on wmma fragments."),
    opaque("tvm_bmma_sync", "tir.tvm_bmma_sync", Arity::Exactly(8), ResultRule::Handle, "Binary tensor-core multiply-accumulate."),
    opaque("ptx_ldmatrix", "tir.ptx_ldmatrix", Arity::Exactly(7), ResultRule::Void, "`ldmatrix` into a lane's registers (TVM before 0.26; now `T.ptx_legacy.ldmatrix`): (trans, num, type, local_ptr, local_offset, smem_ptr, smem_offset)."),
    opaque("ptx_mma", "tir.ptx_mma", Arity::AtLeast(13), ResultRule::Void, "`mma.sync` on a lane's registers (TVM before 0.26; now `T.ptx_legacy.mma`): (shape, a_layout, b_layout, a_type, b_type, c_type, a, a_offset, b, b_offset, c, c_offset, saturate)."),
    opaque("mma_fill", "tir.mma_fill", Arity::Exactly(3), ResultRule::Void, "Zeroes a lane's accumulator registers (TVM before 0.26; now `T.cuda.mma_fill_legacy`): (local_size, local_ptr, offset)."),
    opaque("mma_store", "tir.mma_store", Arity::Exactly(6), ResultRule::Void, "Stores a warp's 16x16 accumulator tile (TVM before 0.26; now `T.cuda.mma_store_legacy`): (m, n, dst_ptr, src_ptr, src_offset, dst_stride)."),
    opaque("vscale", "tir.vscale", Arity::Exactly(0), ResultRule::Int32, "The scalable-vector length multiplier (Arm SVE)."),
    opaque("tvm_stack_make_array", "tir.tvm_stack_make_array", Arity::Exactly(6), ResultRule::Handle, "Builds a DLTensor on the stack for a packed call."),
    opaque("tvm_stack_make_shape", "tir.tvm_stack_make_shape", Arity::AtLeast(0), ResultRule::Handle, "Builds a shape array on the stack for a packed call."),
    opaque("assume", "tir.assume", Arity::Exactly(1), ResultRule::Void, "Tells the analyzer a condition holds."),
    opaque("undef", "tir.undef", Arity::Exactly(0), ResultRule::Int32, "An undefined value."),
];

/// The intrinsic's name and operands of a `T.call_llvm_pure_intrin` /
/// `T.call_llvm_intrin` call's arguments: `("llvm.name", operands...)`, or
/// TVM's form before 0.15 with the operand count after the name
/// (`T.uint32(3)`), which is dropped. `None` when the name is not a string.
pub fn llvm_intrinsic_call(args: &[super::Expr]) -> Option<(&str, &[super::Expr])> {
    let (first, rest) = args.split_first()?;
    let super::ExprKind::Str(name) = first.kind() else {
        return None;
    };
    let counted = rest.first().is_some_and(|count| {
        count.dtype().code == super::TypeCode::UInt
            && count.dtype().bits == 32
            && count.as_int() == Some(rest.len() as i64 - 1)
    });
    Some((name.as_str(), if counted { &rest[1..] } else { rest }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_by_script_and_tvm_name() {
        assert_eq!(Op::lookup("exp").unwrap().name(), "exp");
        assert_eq!(
            Op::lookup("tir.if_then_else").unwrap().name(),
            "if_then_else"
        );
        assert_eq!(Op::lookup("T.sqrt").unwrap().name(), "sqrt");
        assert!(Op::lookup("frobnicate").is_none());
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = Op::all().map(|op| op.name()).collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
