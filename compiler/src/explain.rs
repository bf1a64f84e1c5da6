//! The long explanations behind every diagnostic code, printed by
//! `tirc explain CODE`: what the rule is, why it exists, a program that breaks
//! it and the same program fixed. The examples are checked by the tests below:
//! the wrong one gets its code, the right one verifies clean.

/// The explanation of one diagnostic code.
#[derive(Debug)]
pub struct Explanation {
    /// The code, such as `E0104`.
    pub code: &'static str,
    /// A few words naming the rule.
    pub title: &'static str,
    /// What the rule is and why it exists.
    pub text: &'static str,
    /// A program that breaks the rule.
    pub wrong: &'static str,
    /// The same program, fixed.
    pub right: &'static str,
    /// True for rules the frontend satisfies by construction: only IR that a
    /// pass builds can break them, and `wrong` shows that IR in printed form
    /// (reading it back, the frontend repairs or reports it another way).
    pub from_passes_only: bool,
}

/// The explanation of `code` (case-insensitive), if it is a code tirc uses.
pub fn explain(code: &str) -> Option<&'static Explanation> {
    all()
        .into_iter()
        .find(|e| e.code.eq_ignore_ascii_case(code.trim()))
}

/// Every explanation, in code order (the schedule engine's `E03xx` codes and
/// the lowering passes' `E05xx` and code generation's `E06xx` codes are
/// explained in their own modules).
pub fn all() -> Vec<&'static Explanation> {
    EXPLANATIONS
        .iter()
        .chain(crate::schedule::explain::SCHEDULE_EXPLANATIONS)
        .chain(crate::transform::explain::LOWERING_EXPLANATIONS)
        .chain(crate::codegen::explain::CODEGEN_EXPLANATIONS)
        .collect()
}

/// The explanation as `tirc explain` prints it.
pub fn render(explanation: &Explanation) -> String {
    let indent = |program: &str| {
        program
            .lines()
            .map(|line| {
                if line.is_empty() {
                    String::new()
                } else {
                    format!("    {line}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let wrong = if explanation.from_passes_only {
        "What a pass must not build:"
    } else {
        "Wrong:"
    };
    format!(
        "{}: {}\n\n{}\n\n{wrong}\n\n{}\n\nRight:\n\n{}\n",
        explanation.code,
        explanation.title,
        explanation.text,
        indent(explanation.wrong),
        indent(explanation.right)
    )
}

static EXPLANATIONS: &[Explanation] = &[
    Explanation {
        code: "E0001",
        title: "syntax error",
        text: r#"The text is not valid TVMScript syntax: a missing colon, an unclosed
bracket, a bad indentation, a stray character. tirc reads Python's syntax
rules for the subset TVMScript uses; the message names what was expected."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128)
        B[i] = A[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0101",
        title: "undefined name",
        text: r#"A name is used that no parameter, loop, block iteration variable,
assignment or buffer declaration defines in the scope of the use. A close
spelling is suggested when there is one."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[j]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0102",
        title: "unknown builtin",
        text: r#"`T.<name>` does not name a TVMScript builtin (an intrinsic such as
`T.exp`, a statement such as `T.reads`, a type such as `T.float32`)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = T.expp(A[i])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = T.exp(A[i])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0103",
        title: "bad builtin arguments",
        text: r#"A builtin got the wrong number or kind of arguments: `T.exp` takes one
value, a buffer needs a shape, `T.where` takes one condition."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = T.exp(A[i], A[i])
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = T.exp(A[i])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0104",
        title: "unknown data type",
        text: r#"A dtype string is not a data type tirc knows. Data types are a kind
(`int`, `uint`, `float`, `bfloat`, `bool`, `handle`) and a width, with
`x<lanes>` for vectors: `float32`, `int64`, `float16x8`. TVM accepts some
misspellings silently; tirc refuses them and suggests the closest name."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float33")):
    A[0] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32")):
    A[0] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0105",
        title: "type mismatch",
        text: r#"Two operands cannot be combined: a bool with an int in arithmetic,
vectors of different lengths, `/` between integers (ambiguous: write `//`
for floor division or `T.truncdiv`), an `if` condition that is not bool."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i // 2 / 2]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i // 2 // 2]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0106",
        title: "misplaced construct",
        text: r#"A construct appears where it has no meaning: `T.reads` or `T.where`
outside a block, `T.init()` outside a block, a slice outside `[]`."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.reads(A[0:128])
    for i in range(128):
        B[i] = A[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0107",
        title: "unsupported syntax",
        text: r#"Python syntax that is not part of TVMScript: lambdas outside
`T.comm_reducer`, nested function definitions, statements at the top level
other than a module, a `@T.prim_func` or a schedule section."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    def helper(x):
        return x
    B[0] = A[0]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    B[0] = A[0]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0108",
        title: "bad assignment",
        text: r#"The target of an assignment cannot be assigned: a call, a literal, a
tuple that does not match the value, a buffer region bound to a name."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        T.float32(0) = A[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0109",
        title: "defined twice",
        text: r#"A name that must be unique is defined twice: a parameter, a function of
the module, a `T.init()` of a block."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), A: T.Buffer((128,), "float32")):
    A[0] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    A[0] = B[0]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0110",
        title: "T.axis.remap mismatch",
        text: r#"`T.axis.remap(kinds, loops)` needs one kind letter per loop variable
(`S` spatial, `R` reduce, `C` scan, `O` opaque) and one name per letter on
the left, and it binds loop variables only."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.remap("SS", [i])
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0111",
        title: "division by zero",
        text: r#"A division or modulo by the constant zero."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i // 0]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = A[i // 2]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0112",
        title: "not a loop",
        text: r#"A `for` loop must iterate over `range(...)`, `T.grid(...)` or a loop kind
(`T.serial`, `T.parallel`, `T.vectorized`, `T.unroll`, `T.thread_binding`),
with one loop variable per loop."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in [0, 1, 2]:
        B[i] = A[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(3):
        B[i] = A[i]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0113",
        title: "no function",
        text: r#"The file defines no `@T.prim_func` (a `def` without the decorator is
neither a function nor, unless its first parameter is `sch`, a schedule)."#,
        wrong: r#"def schedule(sch: T.Schedule):
    b = sch.get_block("B")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0201",
        title: "not an integer",
        text: r#"Indices, loop bounds, buffer shapes, iteration domains and region bounds
are integers. A float there has no meaning (TVM accepts some and fails
later); convert explicitly if the value really is a count."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), x: T.float32):
    A[0] = A[x]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), x: T.float32):
    A[0] = A[T.Cast("int32", x)]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0202",
        title: "mixed index widths",
        text: r#"All indices of one access have one integer type. Mixing `int32` and
`int64` indices (common when shapes are `T.int64`) breaks lowering, which
computes one flat offset."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(16):
        A[i, T.int64(0)] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(16):
        A[i, 0] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0203",
        title: "condition is not bool",
        text: r#"Conditions are bool: `if`, `while`, `assert`, `T.where`, `T.Select`,
`T.if_then_else` and the argument of `T.likely`. Write a comparison."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.where(i)
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.where(i < 128)
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0204",
        title: "vector lanes disagree",
        text: r#"Vector operations keep their number of lanes: a store writes as many
lanes as its indices select, a conversion keeps the lane count,
`T.Broadcast` takes a scalar."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    B[0:4] = A[0:8]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    B[0:8] = A[0:8]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0205",
        title: "builtin argument types",
        text: r#"A builtin got arguments of a type its table entry refuses: math functions
(`T.exp`, `T.sqrt`, ...) take floats, bitwise operations take integers,
`T.likely` takes a condition."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = T.exp(T.Cast("float32", i)) + T.Cast("float32", T.exp(i))
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        B[i] = T.exp(T.Cast("float32", i))
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0206",
        title: "operand types differ",
        text: r#"Operands of one operation, a let variable and its value, a binding and its
iteration variable, a stored value and its buffer must have one type. The
frontend converts as TVM does, so this comes from IR a pass built; convert
explicitly."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((4,), "float32"), I: T.Buffer((4,), "int32")):
    # A pass that builds `A[0] + I[0]` without converting `I[0]` makes an Add
    # of float32 and int32; written as text, the frontend converts it.
    A[0] = A[0] + I[0]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    A[0] = T.Select(A[0] > T.float32(0), A[0], A[1])
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "W0201",
        title: "implicit conversion (--strict-casts)",
        text: r#"TVM converts silently where types differ: an int32 added to a float32, a
store of an int32 into a float32 buffer. tirc accepts the program and
inserts the same `T.Cast`; `tirc check --strict-casts` reports each one so
the conversions can be written out."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), I: T.Buffer((128,), "int32")):
    for i in range(128):
        A[i] = A[i] + I[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), I: T.Buffer((128,), "int32")):
    for i in range(128):
        A[i] = A[i] + T.Cast("float32", I[i])
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0210",
        title: "used outside its scope",
        text: r#"A variable is used outside what defines it: a block's iteration variable
after the block, a loop variable after the loop, a let variable outside its
body. The frontend reports such names as undefined (E0101); this code
comes from IR a pass built."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
        B[0] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0211",
        title: "loop variable used inside a block",
        text: r#"A block with iteration variables sees the loops around it only through its
bindings: its body, regions and buffer matches use its own iteration
variables. This is what lets a schedule move the block to other loops. (A
block without iteration variables is opaque and may use outer loops.)"#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0212",
        title: "buffer used outside its allocation",
        text: r#"A buffer is used where it has no storage: outside the block that
allocates it, or declared with `T.Buffer(...)` and never allocated."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    X = T.Buffer((128,), "float32")
    for i in range(128):
        X[i] = A[i]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    with T.block("root"):
        X = T.alloc_buffer((128,), "float32")
        for i in range(128):
            with T.block("X"):
                vi = T.axis.spatial(128, i)
                X[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0213",
        title: "symbolic variable never defined",
        text: r#"A symbolic variable (`n = T.int32()`) is defined by appearing as a whole
dimension of a parameter buffer's shape (or of a matched or allocated
buffer), or by being a scalar parameter. One that only appears inside
expressions has no value at run time."#,
        wrong: r#"@T.prim_func
def main(a: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n * 2,), "float32")
    A[0] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(a: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    A[0] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0214",
        title: "defined twice in nested scopes",
        text: r#"A loop variable, iteration variable, let variable or buffer reuses a name
that is still in scope. TVM renames one of them when printing, so the text
and the program drift apart; give each its own name."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        for i in range(4):
            A[i, i] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((4, 4), "float32")):
    for i in range(4):
        for j in range(4):
            A[i, j] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0215",
        title: "assignment to a loop variable",
        text: r#"Loop and iteration variables take their values from the loop; `i = i + 1`
inside the loop would only define a new variable that hides the loop's."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((129,), "float32")):
    for i in range(128):
        i = i + 1
        A[i] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((129,), "float32")):
    for i in range(128):
        i_1 = i + 1
        A[i_1] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0220",
        title: "wrong number of indices",
        text: r#"An access or a region has one index (or slice) per dimension of its
buffer."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(16):
        A[i] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(16):
        A[i, 0] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0221",
        title: "constant index out of bounds",
        text: r#"A constant index lies outside its dimension (0 to extent - 1), or a
constant vector access runs past the end of the buffer."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    B[128] = A[0]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    B[127] = A[0]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0222",
        title: "constant region out of bounds",
        text: r#"A region in `T.reads`, `T.writes` or `T.match_buffer` with constant bounds
reaches outside the buffer's shape."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[0:256])
            T.writes(B[vi])
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0223",
        title: "T.match_buffer shape",
        text: r#"A buffer matched to a region has the region's extents as its shape
(leading dimensions of extent 1 may be dropped)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in range(4):
        with T.block("tile"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi * 16:vi * 16 + 16])
            Tile = T.match_buffer(A[vi * 16:vi * 16 + 16], (8,))
            for k in range(8):
                Tile[k] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in range(4):
        with T.block("tile"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi * 16:vi * 16 + 16])
            Tile = T.match_buffer(A[vi * 16:vi * 16 + 16], (16,))
            for k in range(16):
                Tile[k] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0224",
        title: "unknown storage scope",
        text: r#"Storage scopes are `global`, `shared`, `shared.dyn`, `local`, `warp`, the
tensor-core fragments `wmma.*` and `m16n8k8.*`, and a few vendor scopes. A
misspelled scope would silently become a new memory space."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32", scope="glbal")):
    A[0] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32", scope="global")):
    A[0] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0230",
        title: "binding outside the domain",
        text: r#"Each iteration variable has a domain, and its binding must stay inside it
for every value of the loops it depends on where the block's `T.where`
predicate (and any enclosing `if`) holds. TVM accepts a loop over 128 bound
to `T.axis.spatial(64, i)` and computes garbage; tirc proves the binding
with interval arithmetic. A split that does not divide the extent is fine
when `T.where` guards it."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i0, i1 in T.grid(4, 32):
        with T.block("B"):
            vi = T.axis.spatial(100, i0 * 32 + i1)
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i0, i1 in T.grid(4, 32):
        with T.block("B"):
            vi = T.axis.spatial(100, i0 * 32 + i1)
            T.where(i0 * 32 + i1 < 100)
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0231",
        title: "T.init without a reduction",
        text: r#"`T.init()` runs before the first iteration of a reduction; a block without
a reduction iteration variable (`T.axis.reduce`, `R` in `T.axis.remap`) runs
it every time, right before its body. This is a warning, not an error: TVM
accepts such blocks, and its own lowering writes them when it simplifies a
reduction axis of extent 1 away (a batch matmul over a unit dimension)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    for i, k in T.grid(128, 128):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0232",
        title: "reduction writes depend on a reduction variable",
        text: r#"A reduction combines every value of its reduction variables into one
output element, so the element it writes cannot move with them. Writing
`C[vi, vk]` with `vk` a reduction variable is a spatial computation
mislabelled as a reduction; schedules would reorder it wrongly."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            C[vi, vk] = A[vi, vk]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SS", [i, k])
            C[vi, vk] = A[vi, vk]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0233",
        title: "binding count",
        text: r#"A block realize has exactly one binding per iteration variable. The
frontend always builds it so; this code comes from IR a pass built."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            # A pass that adds an iteration variable without its binding
            # leaves `vi` unbound; text always binds each one.
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0234",
        title: "schedule asks for an ambiguous block name",
        text: r#"Two blocks of a function sharing a name are only a warning (W0230), until
a schedule asks for that name with `sch.get_block`: it cannot tell which
block is meant."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            A[vi] = T.float32(0)
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("A"):
            vi = T.axis.spatial(128, i)
            A[vi] = T.float32(0)
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]

def schedule(sch: T.Schedule):
    b = sch.get_block("B")
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "W0230",
        title: "duplicate block name",
        text: r#"Two blocks of one function share a name. The program is valid, but a
schedule cannot name either of them (see E0234)."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            A[vi] = T.float32(0)
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("A"):
            vi = T.axis.spatial(128, i)
            A[vi] = T.float32(0)
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0240",
        title: "load outside the declared reads",
        text: r#"When a block declares `T.reads`, every load in its body (and every read
region of a block nested in it) lies inside a declared read region, for
every value of the block's iteration variables; loops inside the block
range over their whole extent. A block may also read back what it writes
(reductions do). TVM trusts declared regions without checking them, and a
schedule built on a region that lies miscompiles; omit `T.reads` to let
tirc infer it."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((129,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] + A[vi + 1]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((129,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi:vi + 2])
            T.writes(B[vi])
            B[vi] = A[vi] + A[vi + 1]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0241",
        title: "store outside the declared writes",
        text: r#"When a block declares `T.writes`, every store in its body (and every write
region of a nested block) lies inside a declared write region, for every
value of the block's iteration variables."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((129,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi + 1] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((129,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi])
            T.writes(B[vi + 1])
            B[vi + 1] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "W0240",
        title: "loose region (--warn-loose-regions)",
        text: r#"A declared region larger than what the block touches is allowed (TVM
allows it), but it hides parallelism from the schedule: two blocks that
touch disjoint parts look dependent. `tirc check --warn-loose-regions`
reports it with the tighter region."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[0:128])
            T.writes(B[vi])
            B[vi] = A[vi]
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi]
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0250",
        title: "buffer map",
        text: r#"Each buffer parameter binds one handle parameter of its own function to
one buffer. The frontend builds buffer maps that way; this code comes from
IR a pass built."#,
        wrong: r#"@T.prim_func
def main(a: T.handle, n: T.int32):
    # A pass that binds a buffer to the scalar parameter `n` (or to a
    # parameter of another function) breaks the buffer map.
    A = T.match_buffer(a, (16,), "float32")
    A[0] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(a: T.handle):
    A = T.match_buffer(a, (16,), "float32")
    A[15] = T.float32(0)
"#,
        from_passes_only: true,
    },
    Explanation {
        code: "E0251",
        title: "function attribute type",
        text: r#"Known function attributes have a type: `global_symbol` a string,
`tir.noalias` and `tir.is_entry_func` bools, `target` a `T.target(...)`,
`calling_conv` an integer."#,
        wrong: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": "yes"})
    A[0] = T.float32(0)
"#,
        right: r#"@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": True})
    A[0] = T.float32(0)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0252",
        title: "duplicate exported symbol",
        text: r#"Two functions of a module export the same `global_symbol`; linking them
would clash."#,
        wrong: r#"@I.ir_module
class Module:
    @T.prim_func
    def first(A: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "kernel"})
        A[0] = T.float32(0)

    @T.prim_func
    def second(A: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "kernel"})
        A[0] = T.float32(1)
"#,
        right: r#"@I.ir_module
class Module:
    @T.prim_func
    def first(A: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "first"})
        A[0] = T.float32(0)

    @T.prim_func
    def second(A: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "second"})
        A[0] = T.float32(1)
"#,
        from_passes_only: false,
    },
    Explanation {
        code: "E0253",
        title: "call arguments",
        text: r#"A call of another function of the module passes one argument per
parameter."#,
        wrong: r#"@I.ir_module
class Module:
    @T.prim_func(private=True)
    def square(x: T.int32) -> T.int32:
        return x * x

    @T.prim_func
    def main(A: T.Buffer((16,), "int32")):
        for i in range(16):
            A[i] = Module.square(i, i)
"#,
        right: r#"@I.ir_module
class Module:
    @T.prim_func(private=True)
    def square(x: T.int32) -> T.int32:
        return x * x

    @T.prim_func
    def main(A: T.Buffer((16,), "int32")):
        for i in range(16):
            A[i] = Module.square(i)
"#,
        from_passes_only: false,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_source, CheckOptions};
    use crate::source::SourceMap;
    use std::path::Path;

    /// The codes `program` gets from checking, its schedule and lowering, and
    /// with `compile` from JIT compilation too.
    fn codes_of(program: &str, compile: bool) -> Vec<String> {
        let mut sources = SourceMap::new();
        let options = CheckOptions {
            strict_casts: true,
            warn_loose_regions: true,
            ..CheckOptions::default()
        };
        let checked = check_source(&mut sources, "example.tir", program, &options);
        let mut codes: Vec<String> = checked.diagnostics.iter().map(|d| d.code.clone()).collect();
        // A schedule section runs too: its refusals are the E03xx codes.
        if let Some(program) = checked.program.filter(|p| !p.schedules.is_empty()) {
            let run = crate::schedule::apply_schedule(&program, None);
            codes.extend(run.diagnostics.into_iter().map(|d| d.code));
        }
        // A clean program is lowered too: its refusals are the E05xx codes.
        if codes.is_empty() {
            let mut sources = SourceMap::new();
            let checked = check_source(&mut sources, "example.tir", program, &options);
            if let Some(program) = checked.program {
                let lowered = crate::transform::lower_module(
                    &program.module,
                    &crate::transform::LowerOptions::default(),
                );
                match lowered {
                    Err(errors) => codes.extend(errors.into_iter().map(|d| d.code)),
                    // A lowered program is compiled too: the E06xx codes.
                    #[cfg(feature = "llvm")]
                    Ok(lowered) if compile => {
                        let options = crate::codegen::llvm::CodegenOptions::host();
                        if let Err(errors) =
                            crate::codegen::llvm::jit::JitModule::compile(&lowered, &options)
                        {
                            codes.extend(errors.into_iter().map(|d| d.code));
                        }
                    }
                    _ => {}
                }
            }
        }
        codes
    }

    #[test]
    fn every_code_of_the_frontend_and_the_verifier_is_explained() {
        use crate::frontend::codes as f;
        let frontend = [
            f::SYNTAX,
            f::UNDEFINED_NAME,
            f::UNKNOWN_BUILTIN,
            f::BAD_ARGUMENTS,
            f::UNKNOWN_DTYPE,
            f::TYPE_MISMATCH,
            f::MISPLACED,
            f::UNSUPPORTED,
            f::BAD_ASSIGNMENT,
            f::DUPLICATE,
            f::REMAP_MISMATCH,
            f::DIVISION_BY_ZERO,
            f::BAD_LOOP,
            f::NO_FUNCTION,
        ];
        for code in frontend.iter().chain(crate::verify::codes::ALL) {
            assert!(explain(code).is_some(), "{code} has no explanation");
        }
    }

    /// Scans the compiler's sources for code literals such as `"E0104"`.
    fn codes_in_sources(dir: &Path, found: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                codes_in_sources(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs")
                // The renderer's own tests use made-up sample codes.
                && !path.ends_with("explain.rs")
                && !path.ends_with("diagnostics.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let bytes = text.as_bytes();
                for (i, window) in bytes.windows(7).enumerate() {
                    let quoted = window[0] == b'"' && window[6] == b'"';
                    let letter = window[1] == b'E' || window[1] == b'W';
                    if quoted && letter && window[2..6].iter().all(u8::is_ascii_digit) {
                        found.push(text[i + 1..i + 6].to_string());
                    }
                }
            }
        }
    }

    #[test]
    fn every_code_used_in_the_sources_is_explained() {
        let mut found = Vec::new();
        codes_in_sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.len() > 40, "the scan found only {found:?}");
        for code in found {
            assert!(
                explain(&code).is_some(),
                "{code} is used but has no explanation"
            );
        }
    }

    #[test]
    fn wrong_examples_get_their_code_and_right_ones_verify_clean() {
        let mut problems = Vec::new();
        for explanation in all() {
            // Compiled only for code generation codes: the others have
            // programs (calls between functions) the CPU backend refuses.
            let compile = explanation.code.starts_with("E06");
            let right = codes_of(explanation.right, compile);
            if !right.is_empty() {
                problems.push(format!(
                    "{}: the right example reports {right:?}",
                    explanation.code
                ));
            }
            let wrong = codes_of(explanation.wrong, compile);
            if !explanation.from_passes_only && !wrong.iter().any(|c| c == explanation.code) {
                problems.push(format!(
                    "{}: the wrong example reports {wrong:?}",
                    explanation.code
                ));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn codes_are_unique_and_sorted_lookups_ignore_case() {
        let mut codes: Vec<&str> = all().iter().map(|e| e.code).collect();
        let count = codes.len();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), count);
        assert_eq!(explain("e0104").map(|e| e.code), Some("E0104"));
        assert!(render(explain("E0230").expect("explained")).contains("Right:"));
    }
}
