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

/// Every schedule primitive a schedule section may call on `sch`, from the
/// engine's table (each name it answers to), then the TVM primitives tirc
/// does not implement yet, so that completion still knows them.
pub fn primitives() -> Vec<Entry> {
    let mut entries: Vec<Entry> = tirc::schedule::primitive::all()
        .flat_map(|p| {
            p.names().map(move |name| Entry {
                name: name.to_string(),
                parameters: p.parameter_texts(),
                doc: p.doc.to_string(),
            })
        })
        .collect();
    entries.extend(
        tirc::schedule::primitive::TVM_ONLY_METHODS
            .iter()
            .map(|name| Entry {
                name: name.to_string(),
                parameters: Vec::new(),
                doc: "A TVM schedule primitive that tirc does not implement yet: a schedule calling it is refused at this line.".to_string(),
            }),
    );
    entries
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
