//! What the editor says about `T.*` builtins and `sch.*` schedule primitives:
//! signatures, one-paragraph docs and completion snippets. Operators come
//! from the compiler's operator table (`ir::builtin`); statement builtins and
//! schedule primitives are described here.

use tirc::ir::builtin::Arity;
use tirc::ir::Op;

/// One documented callable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name after `T.` or `sch.` (`axis.remap`, `split`).
    pub name: String,
    /// The parameters as written in the signature, in order.
    pub parameters: Vec<String>,
    /// One paragraph saying what it does.
    pub doc: String,
}

impl Entry {
    /// `T.name(a, b)` or `sch.name(a, b)`.
    pub fn signature(&self, prefix: &str) -> String {
        format!("{prefix}.{}({})", self.name, self.parameters.join(", "))
    }

    /// A completion snippet with one tab stop per required parameter.
    pub fn snippet(&self) -> String {
        let required: Vec<String> = self
            .parameters
            .iter()
            .filter(|p| !p.contains('=') && !p.starts_with('*'))
            .enumerate()
            .map(|(index, parameter)| {
                let name = parameter.split(':').next().unwrap_or(parameter).trim();
                format!("${{{}:{}}}", index + 1, name)
            })
            .collect();
        format!("{}({})", self.name, required.join(", "))
    }
}

fn entry(name: &str, parameters: &[&str], doc: &str) -> Entry {
    Entry {
        name: name.to_string(),
        parameters: parameters.iter().map(|p| p.to_string()).collect(),
        doc: doc.to_string(),
    }
}

/// Statement builtins and constructors that the operator table does not hold.
fn statement_builtins() -> Vec<Entry> {
    vec![
        entry("grid", &["*extents"], "Nested serial loops, one per extent: `for i, j in T.grid(128, 64)` is `for i in range(128): for j in range(64)`. The printer folds perfectly nested serial loops back into one `T.grid`."),
        entry("serial", &["start", "stop=None", "annotations=None"], "A serial loop over `range(start, stop)` (or `range(start)` with one argument); iterations run in order."),
        entry("parallel", &["start", "stop=None", "annotations=None"], "A loop whose iterations run on a CPU thread pool. Only legal when iterations are independent; `sch.parallel` makes one from a serial loop."),
        entry("vectorized", &["start", "stop=None", "annotations=None"], "A loop whose iterations become the lanes of vector instructions. The extent should be a constant that the target's vector width divides."),
        entry("unroll", &["start", "stop=None", "annotations=None"], "A loop that code generation unrolls completely."),
        entry("thread_binding", &["start", "stop=None", "thread: str", "annotations=None"], "A loop whose iterations are mapped to GPU threads or thread blocks: `thread` is a tag such as `\"blockIdx.x\"` or `\"threadIdx.x\"`."),
        entry("block", &["name: str = \"\""], "A block: a unit of computation with iteration variables (`T.axis.*`), declared reads and writes, an optional `T.init()` and a body. Schedules find blocks by this name (`sch.get_block(\"C\")`). TVM 0.25+ spells it `T.sblock`."),
        entry("sblock", &["name: str = \"\""], "The tirx (TVM 0.25+) spelling of `T.block`: a unit of computation with iteration variables, declared reads and writes, an optional `T.init()` and a body."),
        entry("init", &[], "The initialisation of a reduction block: the body runs once, before the first iteration of the block's reduction axes."),
        entry("reads", &["*regions"], "The buffer regions the block reads, such as `A[vi, 0:128]`. When omitted, tirc infers them from the body as TVM does."),
        entry("writes", &["*regions"], "The buffer regions the block writes. When omitted, tirc infers them from the body as TVM does."),
        entry("where", &["predicate"], "The block's predicate: the block runs only for the iterations where it holds (written by `split` when the factors do not divide the extent)."),
        entry("block_attr", &["attrs: dict"], "Annotations of the enclosing block, such as `{\"meta_schedule.auto_tensorize\": \"...\"}`. TVM 0.25+ spells it `T.sblock_attr`."),
        entry("sblock_attr", &["attrs: dict"], "The tirx spelling of `T.block_attr`: annotations of the enclosing block."),
        entry("func_attr", &["attrs: dict"], "Attributes of the function, such as `{\"global_symbol\": \"main\", \"tir.noalias\": True}`."),
        entry("alloc_buffer", &["shape", "dtype=\"float32\"", "scope=\"global\"", "align=-1", "offset_factor=0"], "Allocates a buffer that lives as long as the enclosing block (the root block at function level). TVM 0.25+ spells the block form `T.sblock_alloc_buffer`."),
        entry("sblock_alloc_buffer", &["shape", "dtype=\"float32\"", "scope=\"global\""], "The tirx spelling of a block-level `T.alloc_buffer`."),
        entry("match_buffer", &["param_or_region", "shape", "dtype=\"float32\"", "scope=\"global\"", "strides=None", "elem_offset=None", "offset_factor=0"], "Declares a buffer that views a handle parameter or a region of another buffer with a given shape, strides and offset."),
        entry("decl_buffer", &["shape", "dtype=\"float32\"", "data=None", "scope=\"global\""], "Declares a buffer over existing data (or allocates it) for the rest of the body."),
        entry("allocate", &["extents", "dtype", "scope", "condition=True"], "Allocates raw memory for the rest of the body (lowered TIR); the result is a `handle`."),
        entry("launch_thread", &["thread", "extent"], "Launches a GPU thread axis (`\"threadIdx.x\"`) of the given extent over the rest of the body (lowered TIR)."),
        entry("attr", &["node", "key: str", "value"], "An attribute statement over the rest of the body, such as `T.attr(0, \"pragma_unroll\", 4)`."),
        entry("axis.spatial", &["dom", "binding"], "A spatial (data-parallel) block iteration variable over `dom`, bound to `binding` in terms of the enclosing loops."),
        entry("axis.reduce", &["dom", "binding"], "A reduction block iteration variable over `dom`: iterations along it accumulate into the same output element."),
        entry("axis.scan", &["dom", "binding"], "A scan block iteration variable: iterations along it depend on earlier ones."),
        entry("axis.opaque", &["dom", "binding"], "An opaque block iteration variable: no assumption is made about its iterations."),
        entry("axis.remap", &["kinds: str", "bindings: list"], "Declares one block iteration variable per enclosing loop variable, with kinds `S` (spatial) or `R` (reduce): `vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])`."),
        entry("axis.S", &["dom", "binding"], "Short for `T.axis.spatial`."),
        entry("axis.R", &["dom", "binding"], "Short for `T.axis.reduce`."),
        entry("prim_func", &["private=False", "s_tir=False"], "Marks a function as a TensorIR primitive function. `s_tir=True` (tirx dialect) says it holds blocks and may be scheduled."),
        entry("Buffer", &["shape", "dtype=\"float32\"", "scope=\"global\"", "strides=None", "elem_offset=None"], "The annotation of a buffer parameter: `A: T.Buffer((128, 128), \"float32\")`."),
        entry("Cast", &["dtype", "value"], "Converts `value` to `dtype` as written (no folding)."),
        entry("Select", &["condition", "true_value", "false_value"], "Chooses between two values by a condition; both are evaluated."),
        entry("if_then_else", &["condition", "true_value", "false_value"], "Chooses between two values by a condition; only the chosen one is evaluated."),
        entry("Ramp", &["base", "stride", "lanes"], "The vector `base, base + stride, ..., base + (lanes - 1) * stride`."),
        entry("Broadcast", &["value", "lanes"], "A vector of `lanes` copies of a scalar."),
        entry("min", &["a", "b"], "The smaller of two values, folded when both are constants."),
        entry("max", &["a", "b"], "The larger of two values, folded when both are constants."),
        entry("floordiv", &["a", "b"], "Division rounding towards negative infinity."),
        entry("floormod", &["a", "b"], "The remainder of `floordiv`, with the sign of the divisor."),
        entry("truncdiv", &["a", "b"], "Division rounding towards zero (C semantics)."),
        entry("truncmod", &["a", "b"], "The remainder of `truncdiv`, with the sign of the dividend."),
        entry("evaluate", &["value"], "Evaluates an expression for its side effects."),
        entry("handle", &["dtype=None", "scope=\"global\""], "The type of an opaque pointer parameter, optionally with the element type and storage scope it points to."),
    ]
}

/// Parameter names for an operator of the given arity.
fn operator_parameters(arity: Arity) -> Vec<String> {
    const NAMES: [&str; 6] = ["a", "b", "c", "d", "e", "f"];
    match arity {
        Arity::Exactly(1) => vec!["x".to_string()],
        Arity::Exactly(n) => (0..n)
            .map(|i| {
                NAMES
                    .get(i)
                    .map(|s| s.to_string())
                    .unwrap_or(format!("arg{i}"))
            })
            .collect(),
        Arity::AtLeast(n) => {
            let mut parameters: Vec<String> = (0..n)
                .map(|i| {
                    NAMES
                        .get(i)
                        .map(|s| s.to_string())
                        .unwrap_or(format!("arg{i}"))
                })
                .collect();
            parameters.push("*args".to_string());
            parameters
        }
    }
}

/// Every `T.*` builtin: statement builtins, then the operator table.
pub fn builtins() -> Vec<Entry> {
    let mut entries = statement_builtins();
    for op in Op::all() {
        let info = op.info();
        if entries.iter().any(|e| e.name == info.name) {
            continue;
        }
        entries.push(Entry {
            name: info.name.to_string(),
            parameters: operator_parameters(info.arity),
            doc: info.doc.to_string(),
        });
    }
    entries
}

/// The builtin named `name` (after `T.`), including data types.
pub fn builtin(name: &str) -> Option<Entry> {
    if let Some(entry) = statement_builtins().into_iter().find(|e| e.name == name) {
        return Some(entry);
    }
    if let Some(op) = Op::lookup(name) {
        let info = op.info();
        return Some(Entry {
            name: info.name.to_string(),
            parameters: operator_parameters(info.arity),
            doc: info.doc.to_string(),
        });
    }
    if name.parse::<tirc::ir::DataType>().is_ok() {
        return Some(entry(
            name,
            &["value"],
            &format!("The data type `{name}`: as an annotation it types a variable; called, it makes a constant or a cast of this type."),
        ));
    }
    None
}

/// Every schedule primitive a schedule section may call on `sch`.
pub fn primitives() -> Vec<Entry> {
    vec![
        entry("get_block", &["name: str", "func_name=\"main\""], "Returns a handle to the block with this name in the function. The name is the string written in `T.block(\"...\")`. TVM 0.25+ spells it `get_sblock`."),
        entry("get_sblock", &["name: str", "func_name=\"main\""], "The tirx spelling of `get_block`: returns a handle to the block with this name."),
        entry("get_loops", &["block"], "Returns handles to the loops above a block, outermost first."),
        entry("get_child_blocks", &["block_or_loop"], "Returns handles to the blocks directly inside a block or loop."),
        entry("get_producers", &["block"], "Returns handles to the blocks that write what this block reads."),
        entry("get_consumers", &["block"], "Returns handles to the blocks that read what this block writes."),
        entry("split", &["loop", "factors: list", "preserve_unit_iters=True", "disable_predication=False"], "Splits a loop into nested loops whose extents are `factors` (at most one `None`, inferred). The new loops are named `i_0, i_1, ...`. A factor that does not divide the extent adds a `T.where` predicate."),
        entry("fuse", &["*loops", "preserve_unit_iters=True"], "Fuses perfectly nested consecutive loops into one loop named `i_j_fused`."),
        entry("reorder", &["*ordered_loops"], "Reorders loops of one nest to the given order; the loops must be in one chain, and a block's iteration bindings must stay affine."),
        entry("parallel", &["loop"], "Runs the iterations of a loop on a CPU thread pool. The loop must bind only spatial block iterators, and it must not carry a dependence."),
        entry("vectorize", &["loop"], "Turns the iterations of a loop into vector lanes. The loop must not carry a dependence."),
        entry("unroll", &["loop"], "Marks a loop to be unrolled by code generation."),
        entry("bind", &["loop", "thread_axis: str"], "Binds a loop to a GPU thread axis such as `\"blockIdx.x\"` or `\"threadIdx.x\"`."),
        entry("compute_at", &["block", "loop", "preserve_unit_loops=False", "index=-1"], "Moves a producer block under a loop of its consumer, computing only the region the consumer needs at each iteration."),
        entry("reverse_compute_at", &["block", "loop", "preserve_unit_loops=False", "index=-1"], "Moves a consumer block under a loop of its producer, consuming only the region produced at each iteration."),
        entry("compute_inline", &["block"], "Inlines an elementwise producer block into its consumers and removes it."),
        entry("reverse_compute_inline", &["block"], "Inlines an elementwise consumer block into its producer and removes it."),
        entry("cache_read", &["block", "read_buffer_index: int", "storage_scope: str"], "Adds a block that copies a buffer the block reads into a new buffer in `storage_scope` (named `A_shared` for `A` into shared) and makes the block read the copy."),
        entry("cache_write", &["block", "write_buffer_index: int", "storage_scope: str"], "Makes the block write a new buffer in `storage_scope` and adds a block that copies it to the original buffer."),
        entry("set_scope", &["block", "buffer_index: int", "storage_scope: str"], "Changes the storage scope of a buffer the block writes."),
        entry("rfactor", &["loop", "factor_axis: int"], "Factorises a reduction along a loop into an intermediate buffer and a final reduction block."),
        entry("decompose_reduction", &["block", "loop"], "Splits a reduction block's `T.init()` into its own block placed above `loop`."),
        entry("blockize", &["target", "preserve_unit_iters=True"], "Wraps the subtree under a loop into a new outer block."),
        entry("tensorize", &["block_or_loop", "tensor_intrin: str", "preserve_unit_iters=True"], "Replaces a block or loop nest with a tensor intrinsic's implementation after matching its description."),
        entry("annotate", &["block_or_loop", "ann_key: str", "ann_val"], "Adds an annotation to a block or loop."),
        entry("unannotate", &["block_or_loop", "ann_key: str"], "Removes an annotation from a block or loop."),
        entry("storage_align", &["block", "buffer_index: int", "axis: int", "factor: int", "offset: int"], "Pads a dimension of a buffer the block writes so that its stride is `factor * k + offset`."),
        entry("set_axis_separator", &["block", "buffer_index: int", "axis_separators: list"], "Sets the axis separators of a buffer, for multi-dimensional physical memory."),
        entry("transform_layout", &["block", "buffer", "index_map"], "Rewrites the layout of a buffer by an index map, such as `lambda i, j: (j, i)`."),
        entry("add_unit_loop", &["block_or_loop"], "Adds a loop of extent 1 above a block or loop."),
        entry("sample_perfect_tile", &["loop", "n: int", "max_innermost_factor=16", "decision=None"], "Chooses `n` factors whose product is the loop's extent; a trace records the decision."),
        entry("enter_postproc", &[], "Marks the start of post-processing in a trace; it changes nothing."),
    ]
}

/// The primitive named `name` (after `sch.`).
pub fn primitive(name: &str) -> Option<Entry> {
    primitives().into_iter().find(|e| e.name == name)
}

/// Data type names offered inside dtype strings.
pub const DTYPES: &[&str] = &[
    "float32",
    "float16",
    "bfloat16",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "float8_e4m3fn",
    "float8_e5m2",
    "handle",
];

/// Storage scopes offered inside scope strings.
pub const SCOPES: &[&str] = &[
    "global",
    "shared",
    "shared.dyn",
    "local",
    "warp",
    "wmma.matrix_a",
    "wmma.matrix_b",
    "wmma.accumulator",
];

#[cfg(test)]
mod tests {

    /// Every primitive the engine applies is documented with exactly its
    /// parameters (issue 26.1: `split` lacked `disable_predication`).
    #[test]
    fn primitive_docs_name_the_parameters_the_engine_takes() {
        for (name, expected) in tirc::schedule::script::primitive_parameters() {
            let entry = primitive(name).unwrap_or_else(|| panic!("`{name}` is not documented"));
            let documented: Vec<String> = entry
                .parameters
                .iter()
                .map(|p| {
                    p.split([':', '='])
                        .next()
                        .unwrap_or_default()
                        .trim()
                        .to_string()
                })
                .collect();
            assert_eq!(documented, expected, "`{name}`");
        }
    }

    use super::*;

    #[test]
    fn every_operator_is_documented() {
        let entries = builtins();
        assert!(entries.iter().any(|e| e.name == "exp" && !e.doc.is_empty()));
        assert!(entries.iter().any(|e| e.name == "grid"));
        assert!(entries.iter().all(|e| !e.doc.is_empty()));
    }

    #[test]
    fn snippets_have_one_stop_per_required_parameter() {
        let split = primitive("split").expect("split is a primitive");
        assert_eq!(split.snippet(), "split(${1:loop}, ${2:factors})");
        assert_eq!(
            split.signature("sch"),
            "sch.split(loop, factors: list, preserve_unit_iters=True, disable_predication=False)"
        );
    }

    #[test]
    fn dtypes_are_builtins() {
        assert!(builtin("float32").is_some());
        assert!(builtin("no_such_thing").is_none());
    }
}
