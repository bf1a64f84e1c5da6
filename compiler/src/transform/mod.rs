//! The lowering pipeline: block-level TensorIR in, "lowered TIR" out, one
//! pass per file, each printable with `tirc lower --print-after NAME`.
//!
//! # The lowered-TIR contract
//!
//! [`lower_module`] returns a module that the code generators consume. Every
//! function in it satisfies the following:
//!
//! - **No blocks.** No `BlockRealize` is left. `T.init()` became a guarded
//!   store (`if k == 0: C[...] = 0` before the update), block predicates
//!   (`T.where`) became `if` statements, block iteration variables were
//!   replaced by their bindings, and `T.match_buffer` views were replaced by
//!   accesses to the buffer they view.
//! - **Flat buffers.** Every buffer that is loaded or stored has one
//!   dimension. Parameters keep their N-d buffer in the function's
//!   `buffer_map`; when a parameter buffer is not already flat (rank other than
//!   one, or explicit strides) the body starts with a flat alias declared by a
//!   `DeclBuffer` on the same data pointer, printed `A_1 = A.view(16384)`
//!   (or `T.decl_buffer((n,), data=A.data, ...)` when the printer cannot use
//!   the `view` sugar). The flat index is `sum(index_i * stride_i)`, with the
//!   buffer's `strides` when it has them and row-major strides otherwise.
//!   A flat buffer keeps its parent's `elem_offset`: element `k` of a flat
//!   buffer `B` lives at `B.data + (B.elem_offset + k) * sizeof(dtype)`, so a
//!   code generator adds `elem_offset` (usually the literal 0) to every index.
//!   Buffers with `axis_separators` flatten to one dimension per group of axes
//!   (their flat form has `axis_separators` `[1, 2, ...]`; the only case where
//!   a lowered buffer has more than one dimension, which CPU code generation
//!   may refuse). `storage_align` annotations
//!   (`T.block_attr({"buffer_dim_align": [[buffer_index, axis, factor,
//!   offset]]})`) become padded strides of the buffer they name before it is
//!   flattened.
//! - **Allocations.** Buffers a function allocates are `AllocBuffer`
//!   statements (printed `T.alloc_buffer`/`T.decl_buffer` without `data=`)
//!   with a flat buffer, placed at the innermost loop or block that covers
//!   every use, and shrunk to the region actually used. An allocation under a
//!   parallel loop is private to each iteration. Nothing else allocates.
//!   Buffers allocated at the same place whose lifetimes do not overlap
//!   share storage: the later one is a `DeclBuffer` on the earlier one's
//!   data (`T.decl_buffer(..., data=T_mul.data)`).
//! - **Loops.** Vectorized loops whose body can be expressed on vectors became
//!   `Ramp`/`Broadcast` expressions (vector loads and stores use a `Ramp`
//!   index; scalars are broadcast). A vectorized loop that cannot (a loop-
//!   dependent `if`, an extern call, a store and a load of one buffer at
//!   different indices, a non-constant extent) stays `For(Vectorized)`: the
//!   back end treats it as a serial loop it may vectorize itself. Unrolled
//!   loops with a constant extent up to [`LowerOptions::max_unroll_extent`]
//!   are replaced by copies of their body; others stay `For(Unrolled)`. Loops
//!   under a `pragma_auto_unroll_max_step` annotation are unrolled as TVM's
//!   `UnrollLoop` does. Serial loops of extent one are removed. Parallel loops
//!   stay `For(Parallel)`. Thread-bound loops stay as they are (CPU code
//!   generation refuses them). Loop annotations are kept.
//! - **Expressions.** `floordiv`/`floormod` stay as nodes except where
//!   `lower-intrin` could do better: by a constant power of two they became
//!   `>>` and `&` (exact for every sign), and with a provably non-negative
//!   dividend and positive divisor they became truncating `T.Div` /
//!   `T.truncmod`. What remains of `floordiv`/`floormod` has TVM's floor
//!   semantics, which the back end implements. `Select`, `T.if_then_else`
//!   (only the chosen side is evaluated), `T.likely`, `Cast`, `Let` and
//!   vector forms are kept. Math calls stay `T.exp`, `T.sqrt`, ... calls
//!   (the back end maps each to an LLVM intrinsic or a libm function), except
//!   `T.sigmoid`, `T.rsqrt` and `T.exp10`, which became plain arithmetic on
//!   `T.exp`, `T.sqrt` and `T.pow`, and integer `T.fabs`, which became a
//!   `Select`.
//! - **Everything else** (`LetStmt`, `AttrStmt`, `Assert`, `While`,
//!   `Evaluate` of calls, `Allocate`, `DeclBuffer` aliases the input already
//!   had) passes through, with its buffers flattened.
//!
//! Every pass's output prints and parses back to a structurally equal module,
//! and the reference interpreter computes the same results before and after
//! each pass (both are tested over the golden corpus).
//!
//! A pass that meets something it cannot handle returns a diagnostic naming
//! it instead of producing wrong code; no pass panics.
//!
//! [`instrument_runtime_checks`] is not in the pipeline: the LLVM back end runs
//! it on lowered functions when asked (`tirc run` does, for the run whose
//! outputs it reports), adding `Assert` statements for buffer bounds and
//! integer divisions to them.

pub mod codes;
pub mod compact_buffer_allocation;
pub mod convert_blocks_to_opaque;
pub mod cross_thread_reduction;
#[cfg(test)]
mod cuda_tests;
pub mod explain;
pub mod flatten_buffer;
pub mod inject_virtual_thread;
pub mod instrument_runtime_checks;
pub mod launch_threads_as_loops;
pub mod lower_init_block;
pub mod lower_intrin;
pub mod lower_match_buffer;
pub mod lower_opaque_block;
pub mod lower_warp_memory;
pub mod plan_buffer_allocation;
pub mod reuse_storage;
pub mod simplify;
pub mod split_host_device;
mod support;
#[cfg(test)]
mod tests;
pub mod thread_sync;
pub mod unroll_loop;
pub mod vectorize_loop;

use crate::diagnostics::Diagnostic;
use crate::ir::{IRModule, PrimFunc};

/// Choices of the pipeline beyond the defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerOptions {
    /// Unrolled loops with a constant extent up to this many iterations are
    /// replaced by copies of their body; longer ones stay `For(Unrolled)`.
    pub max_unroll_extent: i64,
    /// Vectorized loops with more iterations than this stay `For(Vectorized)`.
    pub max_vector_lanes: i64,
    /// Keep every vectorized loop as `For(Vectorized)` (TVM's
    /// `tir.disable_vectorize`).
    pub disable_vectorize: bool,
    /// CUDA: the shared memory one block may have, in bytes, with the
    /// dynamic allocation the GPU's architecture allows beyond 48 KiB.
    pub max_shared_memory_per_block: i64,
}

impl Default for LowerOptions {
    fn default() -> LowerOptions {
        LowerOptions {
            max_unroll_extent: 256,
            max_vector_lanes: 256,
            disable_vectorize: false,
            max_shared_memory_per_block: split_host_device::max_shared_memory_per_block(None),
        }
    }
}

/// The signature of a pass over one function.
pub type PassFunction = fn(&PrimFunc, &LowerOptions) -> Result<PrimFunc, Vec<Diagnostic>>;

/// The signature of a pass over a whole module (it may add functions).
pub type ModulePassFunction = fn(&IRModule, &LowerOptions) -> Result<IRModule, Vec<Diagnostic>>;

/// How a pass runs: on each function alone, or on the module.
#[derive(Clone, Copy)]
pub enum PassRun {
    /// Each function in turn.
    Function(PassFunction),
    /// The whole module at once (`split-host-device` adds kernels).
    Module(ModulePassFunction),
}

/// One pass of the pipeline.
#[derive(Clone, Copy)]
pub struct Pass {
    /// The name `--print-after` takes (`flatten-buffer`).
    pub name: &'static str,
    /// One line saying what the pass does.
    pub summary: &'static str,
    /// The pass itself.
    pub run: PassRun,
}

impl std::fmt::Debug for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pass({})", self.name)
    }
}

/// The passes of [`lower_module`], in order. A name may appear twice
/// (`simplify` runs after flattening and again after unrolling).
pub const PIPELINE: &[Pass] = &[
    Pass {
        name: "lower-init-block",
        summary:
            "T.init() becomes a store guarded by the reduction variables being at their first value",
        run: PassRun::Function(lower_init_block::lower_init_block),
    },
    Pass {
        name: "plan-buffer-allocation",
        summary:
            "each block-allocated buffer moves to the innermost loop or block covering its uses",
        run: PassRun::Function(plan_buffer_allocation::plan_buffer_allocation),
    },
    Pass {
        name: "convert-blocks-to-opaque",
        summary: "block iteration variables are replaced by their bindings",
        run: PassRun::Function(convert_blocks_to_opaque::convert_blocks_to_opaque),
    },
    Pass {
        name: "compact-buffer-allocation",
        summary: "allocated buffers shrink to the region used; storage_align pads their strides",
        run: PassRun::Function(compact_buffer_allocation::compact_buffer_allocation),
    },
    Pass {
        name: "lower-match-buffer",
        summary: "T.match_buffer views are replaced by accesses to the buffer they view",
        run: PassRun::Function(lower_match_buffer::lower_match_buffer),
    },
    Pass {
        name: "lower-opaque-block",
        summary: "blocks disappear: allocations become statements, predicates become ifs",
        run: PassRun::Function(lower_opaque_block::lower_opaque_block),
    },
    Pass {
        name: "flatten-buffer",
        summary: "every buffer access becomes one-dimensional",
        run: PassRun::Function(flatten_buffer::flatten_buffer),
    },
    Pass {
        name: "simplify",
        summary: "index arithmetic simplified, provable conditions and unit loops removed",
        run: PassRun::Function(simplify::simplify),
    },
    Pass {
        name: "vectorize",
        summary: "vectorized loops become Ramp/Broadcast vector expressions",
        run: PassRun::Function(vectorize_loop::vectorize_loop),
    },
    Pass {
        name: "unroll",
        summary: "unrolled loops with constant extents are replaced by copies of their body",
        run: PassRun::Function(unroll_loop::unroll_loop),
    },
    Pass {
        name: "simplify",
        summary: "index arithmetic simplified, provable conditions and unit loops removed",
        run: PassRun::Function(simplify::simplify),
    },
    Pass {
        name: "lower-intrin",
        summary: "floordiv/floormod and math builtins lowered to what the back end implements",
        run: PassRun::Function(lower_intrin::lower_intrin),
    },
    Pass {
        name: "reuse-storage",
        summary: "buffers allocated together whose lifetimes do not overlap share storage",
        run: PassRun::Function(reuse_storage::reuse_storage),
    },
];

/// The passes the CUDA target runs before [`PIPELINE`], on blocks.
pub const CUDA_PRELUDE: &[Pass] = &[
    Pass {
        name: "launch-threads-as-loops",
        summary: "each `T.launch_thread` scope of a lowered module becomes a loop bound to its tag",
        run: PassRun::Function(launch_threads_as_loops::launch_threads_as_loops),
    },
    Pass {
        name: "cross-thread-reduction",
        summary: "a reduction across the threads of a block: each thread reduces its part, then a tree or warp shuffles, the result reaching every thread",
        run: PassRun::Function(cross_thread_reduction::cross_thread_reduction),
    },
];

/// The passes the CUDA target runs after [`PIPELINE`], in order.
pub const CUDA_PIPELINE: &[Pass] = &[
    Pass {
        name: "inject-virtual-thread",
        summary:
            "loops over virtual threads (vthread) move down to the statements that use them, as unrolled loops; what they share runs once",
        run: PassRun::Function(inject_virtual_thread::inject_virtual_thread),
    },
    Pass {
        name: "split-host-device",
        summary:
            "each GPU-bound loop nest becomes a kernel the host launches; launches are checked",
        run: PassRun::Module(split_host_device::split_host_device),
    },
    Pass {
        name: "thread-sync",
        summary: "__syncthreads() barriers wherever threads of a block share memory unsafely",
        run: PassRun::Function(thread_sync::thread_sync),
    },
    Pass {
        name: "lower-warp-memory",
        summary: "each lane of a warp keeps its own slice of a `warp` buffer in registers; loads from other lanes become shuffles",
        run: PassRun::Function(lower_warp_memory::lower_warp_memory),
    },
];

/// The passes a target runs, in order.
pub fn pipeline_for(target: &crate::codegen::Target) -> Vec<Pass> {
    match target {
        crate::codegen::Target::Cuda(_) => CUDA_PRELUDE
            .iter()
            .chain(PIPELINE)
            .chain(CUDA_PIPELINE)
            .copied()
            .collect(),
        crate::codegen::Target::Llvm(_) => PIPELINE.to_vec(),
    }
}

/// The lowering options a target needs.
pub fn options_for(target: &crate::codegen::Target) -> LowerOptions {
    match target {
        // The CUDA writer reads and writes whole aligned vectors (`float4`)
        // and everything else lane by lane.
        crate::codegen::Target::Cuda(cuda) => LowerOptions {
            max_shared_memory_per_block: split_host_device::max_shared_memory_per_block(Some(
                &cuda.resolved_arch(),
            )),
            ..LowerOptions::default()
        },
        crate::codegen::Target::Llvm(_) => LowerOptions::default(),
    }
}

/// The distinct pass names, in pipeline order.
pub fn pass_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for pass in CUDA_PRELUDE.iter().chain(PIPELINE).chain(CUDA_PIPELINE) {
        if !names.contains(&pass.name) {
            names.push(pass.name);
        }
    }
    names
}

/// True when `name` names a pass of the pipeline.
pub fn is_pass_name(name: &str) -> bool {
    CUDA_PRELUDE
        .iter()
        .chain(PIPELINE)
        .chain(CUDA_PIPELINE)
        .any(|pass| pass.name == name)
}

/// TVM's names of passes whose tirc name is not their kebab-case spelling.
const TVM_PASS_ALIASES: &[(&str, &str)] = &[
    (
        "PlanAndUpdateBufferAllocationLocation",
        "plan-buffer-allocation",
    ),
    ("VectorizeLoop", "vectorize"),
    ("UnrollLoop", "unroll"),
    ("StorageRewrite", "reuse-storage"),
];

/// tirc's name of a pass given by its tirc name or by TVM's
/// (`FlattenBuffer`, `tir.transform.FlattenBuffer`, `StorageRewrite`).
pub fn canonical_pass_name(name: &str) -> Option<&'static str> {
    let name = name.rsplit('.').next().unwrap_or(name);
    let kebab = match TVM_PASS_ALIASES.iter().find(|(tvm, _)| *tvm == name) {
        Some((_, tirc)) => tirc.to_string(),
        None => {
            let mut kebab = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    kebab.push('-');
                }
                kebab.push(c.to_ascii_lowercase());
            }
            kebab
        }
    };
    CUDA_PRELUDE
        .iter()
        .chain(PIPELINE)
        .chain(CUDA_PIPELINE)
        .map(|pass| pass.name)
        .find(|pass| *pass == kebab)
}

/// Lowers every function of `module` through the whole pipeline.
pub fn lower_module(
    module: &IRModule,
    options: &LowerOptions,
) -> Result<IRModule, Vec<Diagnostic>> {
    lower_module_observed(module, options, &mut |_, _| {})
}

/// [`lower_module`], calling `observe` with each pass and the module after it.
pub fn lower_module_observed(
    module: &IRModule,
    options: &LowerOptions,
    observe: &mut dyn FnMut(&Pass, &IRModule),
) -> Result<IRModule, Vec<Diagnostic>> {
    run_passes(PIPELINE, module, options, observe)
}

/// Runs `passes` in order over `module`, calling `observe` after each.
pub fn run_passes(
    passes: &[Pass],
    module: &IRModule,
    options: &LowerOptions,
    observe: &mut dyn FnMut(&Pass, &IRModule),
) -> Result<IRModule, Vec<Diagnostic>> {
    let mut current = module.clone();
    for pass in passes {
        current = run_pass(pass, &current, options)?;
        observe(pass, &current);
    }
    Ok(current)
}

/// Runs one pass over every function of `module`; the diagnostics of every
/// function that failed.
pub fn run_pass(
    pass: &Pass,
    module: &IRModule,
    options: &LowerOptions,
) -> Result<IRModule, Vec<Diagnostic>> {
    if let PassRun::Module(run) = pass.run {
        let lowered = run(module, options)?;
        let functions = lowered
            .functions
            .iter()
            .map(|func| PrimFunc {
                body: support::normalize_sequences(&func.body),
                ..func.clone()
            })
            .collect();
        return Ok(IRModule {
            functions,
            ..lowered
        });
    }
    let mut diagnostics = Vec::new();
    let mut functions = Vec::with_capacity(module.functions.len());
    for func in &module.functions {
        match apply(pass, func, options) {
            Ok(lowered) => functions.push(lowered),
            Err(mut errors) => {
                for error in &mut errors {
                    error.notes.push(format!(
                        "in pass `{}` on function `{}`",
                        pass.name, func.name
                    ));
                }
                diagnostics.extend(errors);
            }
        }
    }
    if diagnostics.is_empty() {
        Ok(IRModule {
            functions,
            ..module.clone()
        })
    } else {
        Err(diagnostics)
    }
}

/// Lowers one function through the whole pipeline.
pub fn lower_function(
    func: &PrimFunc,
    options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let mut current = func.clone();
    for pass in PIPELINE {
        current = apply(pass, &current, options)?;
    }
    Ok(current)
}

/// Runs one pass on one function and puts its body in the parser's form
/// (nested sequences spliced), so that the result prints and reads back
/// structurally equal.
pub fn apply(
    pass: &Pass,
    func: &PrimFunc,
    options: &LowerOptions,
) -> Result<PrimFunc, Vec<Diagnostic>> {
    let lowered = match pass.run {
        PassRun::Function(run) => run(func, options)?,
        PassRun::Module(run) => {
            let module = IRModule {
                name: String::new(),
                functions: vec![func.clone()],
                attrs: Vec::new(),
            };
            let lowered = run(&module, options)?;
            match lowered.functions.into_iter().next() {
                Some(func) => func,
                None => return Ok(func.clone()),
            }
        }
    };
    let body = support::normalize_sequences(&lowered.body);
    Ok(PrimFunc { body, ..lowered })
}
