//! The CUDA C writer: one `extern "C" __global__` function per device
//! kernel of a module that `split-host-device` produced.
//!
//! The text is meant to be read next to the `.tir` program: loop variables,
//! buffers and parameters keep their names (made unique where two differ
//! only by identity), a loop bound to a thread becomes `int i_1 =
//! ((int)threadIdx.y);`, and every binary operation is parenthesised so
//! precedence never needs checking. Shared buffers are `__shared__` arrays,
//! other allocations are arrays local to the thread.

use super::codes;
use super::{CudaModule, KernelInfo, KernelParam};
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::walk_exprs;
use crate::ir::{
    BinaryOp, Buffer, BufferStore, DataType, Expr, ExprKind, ForKind, IRModule, PrimFunc, Stmt,
    StmtKind, TypeCode, Var,
};
use crate::source::Span;
use crate::transform::split_host_device::{
    dynamic_shared_size, is_kernel, launch_tags, DYNAMIC_SHARED_ALIGNMENT,
    DYNAMIC_SHARED_MEMORY_TAG,
};

/// The kernel's dynamic shared allocation, when it has one.
const DYNAMIC_SHARED_NAME: &str = "tirc_dynamic_shared";
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write;

mod mma;
mod wmma;

/// How the text is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriterOptions {
    /// For the CPU emulation: `__shared__` arrays become tirc's checked
    /// shared arrays and CUDA's headers are left to the emulation header.
    pub emulation: bool,
}

/// Writes every kernel of `module` as CUDA C.
pub fn write_cuda(
    module: &IRModule,
    options: WriterOptions,
) -> Result<CudaModule, Vec<Diagnostic>> {
    let mut kernels = Vec::new();
    let mut bodies = String::new();
    let mut helpers: BTreeSet<&'static str> = BTreeSet::new();
    let mut diagnostics = Vec::new();
    for func in module.functions.iter().filter(|f| is_kernel(f)) {
        let mut writer = KernelWriter {
            out: String::new(),
            indent: 1,
            names: Default::default(),
            taken: HashSet::new(),
            data_names: Default::default(),
            data_types: Default::default(),
            helpers: BTreeSet::new(),
            diagnostics: Vec::new(),
            options,
            dynamic_shared_offset: None,
            local_bytes: 0,
            shared_bytes: 0,
            fragment_shapes: wmma::fragment_shapes(&func.body),
            fragment_names: Default::default(),
        };
        if let Some(info) = writer.kernel(func) {
            bodies.push_str(&writer.out);
            bodies.push('\n');
            kernels.push(info);
        }
        helpers.extend(writer.helpers);
        diagnostics.extend(writer.diagnostics);
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let mut source = String::from("// CUDA C written by tirc.\n");
    let uses = |name: &str| bodies.contains(name) || helpers.iter().any(|h| h.contains(name));
    if !options.emulation {
        if uses("nvcuda::wmma::") {
            source.push_str("#include <mma.h>\n");
        }
        if uses("half") {
            source.push_str("#include <cuda_fp16.h>\n");
        }
        if uses("nv_bfloat16") {
            source.push_str("#include <cuda_bf16.h>\n");
        }
    }
    source.push('\n');
    for helper in helpers {
        source.push_str(helper);
        source.push('\n');
    }
    source.push_str(&bodies);
    Ok(CudaModule { source, kernels })
}

const FLOORDIV_INT: &str = "static __device__ __forceinline__ int tirc_floordiv(int a, int b) {\n  int q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\nstatic __device__ __forceinline__ long long tirc_floordiv(long long a, long long b) {\n  long long q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n";
const FLOORMOD_INT: &str = "static __device__ __forceinline__ int tirc_floormod(int a, int b) {\n  int r = a % b;\n  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\nstatic __device__ __forceinline__ long long tirc_floormod(long long a, long long b) {\n  long long r = a % b;\n  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n";

/// C words a name must not take.
const RESERVED: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "half",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "min",
    "max",
    "true",
    "false",
    "new",
    "delete",
    "class",
    "this",
    "template",
    "namespace",
    "operator",
    "private",
    "public",
    "protected",
    "virtual",
];

/// The C type of a scalar `dtype`, if CUDA C has one.
pub fn c_type(dtype: DataType) -> Option<&'static str> {
    if dtype.lanes != 1 {
        return None;
    }
    Some(match (dtype.code, dtype.bits) {
        (TypeCode::Float, 32) => "float",
        (TypeCode::Float, 64) => "double",
        (TypeCode::Float, 16) => "half",
        (TypeCode::BFloat, 16) => "nv_bfloat16",
        (TypeCode::Int, 8) => "signed char",
        (TypeCode::Int, 16) => "short",
        (TypeCode::Int, 32) => "int",
        (TypeCode::Int, 64) => "long long",
        (TypeCode::UInt, 8) => "unsigned char",
        (TypeCode::UInt, 16) => "unsigned short",
        (TypeCode::UInt, 32) => "unsigned int",
        (TypeCode::UInt, 64) => "unsigned long long",
        (TypeCode::Bool, _) => "bool",
        _ => return None,
    })
}

struct KernelWriter {
    out: String,
    indent: usize,
    names: VarMap<String>,
    taken: HashSet<String>,
    /// The C name of each buffer's storage, by data variable.
    data_names: VarMap<String>,
    /// The element type each storage was declared with.
    data_types: VarMap<DataType>,
    helpers: BTreeSet<&'static str>,
    diagnostics: Vec<Diagnostic>,
    options: WriterOptions,
    /// With more than 48 KiB of shared memory: the next free byte of the
    /// kernel's dynamic shared allocation.
    dynamic_shared_offset: Option<i64>,
    /// Bytes of the kernel's `local` arrays (a thread's stack in the emulation).
    local_bytes: i64,
    /// Bytes of the kernel's `shared` buffers.
    shared_bytes: i64,
    /// The tile shape of each wmma fragment buffer, from the calls on it.
    fragment_shapes: VarMap<wmma::FragmentShape>,
    /// The C name of each wmma fragment array, by data variable.
    fragment_names: VarMap<String>,
}

impl KernelWriter {
    fn unsupported(&mut self, what: impl Into<String>, span: Span) {
        self.diagnostics.push(Diagnostic::error(
            codes::CUDA_UNSUPPORTED,
            format!("the CUDA writer cannot emit {}", what.into()),
            span,
        ));
    }

    /// A C identifier for `hint` not used yet in this kernel.
    fn fresh_name(&mut self, hint: &str) -> String {
        let mut base: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
            base.insert(0, 'v');
        }
        if RESERVED.contains(&base.as_str()) {
            base.push('_');
        }
        let mut name = base.clone();
        let mut n = 1;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        name
    }

    fn define(&mut self, var: &Var) -> String {
        let name = self.fresh_name(var.name());
        self.names.insert(var.clone(), name.clone());
        name
    }

    fn var_name(&mut self, var: &Var) -> String {
        if let Some(name) = self.names.get(var) {
            return name.clone();
        }
        // A variable never defined in the kernel: an earlier error said so,
        // or it is a parameter met out of order.
        self.define(var)
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn type_of(&mut self, dtype: DataType, span: Span) -> &'static str {
        match c_type(dtype) {
            Some(name) => name,
            None => {
                self.unsupported(format!("values of type {dtype}"), span);
                "int"
            }
        }
    }

    fn kernel(&mut self, func: &PrimFunc) -> Option<KernelInfo> {
        let tags = launch_tags(func);
        let mut params = Vec::new();
        let mut signature = Vec::new();
        for param in &func.params {
            match func.buffer_of(param) {
                Some(buffer) => {
                    let name = self.fresh_name(param.name());
                    self.data_names.insert(buffer.data().clone(), name.clone());
                    self.data_types
                        .insert(buffer.data().clone(), buffer.dtype());
                    let ty = self.type_of(buffer.dtype(), buffer.span());
                    signature.push(format!("{ty}* __restrict__ {name}"));
                    params.push(KernelParam::Buffer {
                        name,
                        dtype: buffer.dtype(),
                    });
                }
                None => {
                    let name = self.define(param);
                    let ty = self.type_of(param.dtype(), param.span());
                    signature.push(format!("{ty} {name}"));
                    params.push(KernelParam::Scalar {
                        name,
                        dtype: param.dtype(),
                    });
                }
            }
        }
        let threads = thread_count(&func.body);
        let bounds = match threads {
            Some(threads) => format!("__launch_bounds__({threads}) "),
            None => String::new(),
        };
        let name = self.fresh_name(&func.name);
        let _ = writeln!(
            self.out,
            "extern \"C\" __global__ void {bounds}{name}({}) {{",
            signature.join(", ")
        );
        // The emulation has no 48 KiB limit: its shared arrays stay static.
        if tags.iter().any(|t| t == DYNAMIC_SHARED_MEMORY_TAG) && !self.options.emulation {
            self.line(&format!(
                "extern __shared__ __align__({DYNAMIC_SHARED_ALIGNMENT}) unsigned char {DYNAMIC_SHARED_NAME}[];"
            ));
            self.dynamic_shared_offset = Some(0);
        }
        self.stmt(&func.body);
        self.out.push_str("}\n");
        self.diagnostics.is_empty().then_some(KernelInfo {
            name,
            params,
            launch_tags: tags,
            threads_per_block: threads,
            local_bytes: self.local_bytes,
            shared_bytes: self.shared_bytes,
        })
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt.kind() {
            StmtKind::Seq(stmts) => {
                for s in stmts {
                    self.stmt(s);
                }
            }
            StmtKind::For(for_loop) => {
                let ty = self.type_of(for_loop.loop_var.dtype(), stmt.span());
                if for_loop.kind == ForKind::ThreadBinding {
                    let tag = for_loop.thread.clone().unwrap_or_default();
                    let min = self.expr(&for_loop.min);
                    let name = self.define(&for_loop.loop_var);
                    let value = if for_loop.min.is_int(0) {
                        format!("(({ty}){tag})")
                    } else {
                        format!("({min} + (({ty}){tag}))")
                    };
                    self.line(&format!("{ty} {name} = {value};"));
                    self.stmt(&for_loop.body);
                    return;
                }
                if for_loop.kind == ForKind::Parallel {
                    self.unsupported(
                        "a parallel loop inside a GPU kernel (bind it to threads instead)",
                        stmt.span(),
                    );
                    return;
                }
                let min = self.expr(&for_loop.min);
                let end = match (for_loop.min.as_int(), for_loop.extent.as_int()) {
                    (Some(min), Some(extent)) => {
                        literal_int(min + extent, for_loop.loop_var.dtype())
                    }
                    _ => {
                        let extent = self.expr(&for_loop.extent);
                        format!("({min} + {extent})")
                    }
                };
                let name = self.define(&for_loop.loop_var);
                if matches!(for_loop.kind, ForKind::Unrolled | ForKind::Vectorized) {
                    self.line("#pragma unroll");
                }
                self.line(&format!(
                    "for ({ty} {name} = {min}; {name} < {end}; ++{name}) {{"
                ));
                self.indent += 1;
                self.stmt(&for_loop.body);
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::BufferStore(store)
                if store.value.dtype().lanes > 1
                    || store.indices.iter().any(|i| i.dtype().lanes > 1) =>
            {
                self.vector_store(store, stmt.span());
            }
            StmtKind::BufferStore(store) => {
                let value = self.expr(&store.value);
                self.scalar_store(&store.buffer, &store.indices, &value, stmt.span());
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let condition = self.expr(condition);
                self.line(&format!("if ({}) {{", strip_parens(&condition)));
                self.indent += 1;
                self.stmt(then_case);
                self.indent -= 1;
                match else_case {
                    Some(else_case) => {
                        self.line("} else {");
                        self.indent += 1;
                        self.stmt(else_case);
                        self.indent -= 1;
                        self.line("}");
                    }
                    None => self.line("}"),
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                let ty = self.type_of(var.dtype(), stmt.span());
                let value = self.expr(value);
                let name = self.define(var);
                self.line(&format!("{ty} {name} = {value};"));
                self.stmt(body);
            }
            StmtKind::Evaluate(expr) => {
                if crate::transform::thread_sync::is_barrier(stmt) {
                    self.line("__syncthreads();");
                } else if !expr.is_const() {
                    let text = self.expr(expr);
                    self.line(&format!("{text};"));
                }
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                self.allocation(buffer, stmt.span());
                self.stmt(body);
            }
            StmtKind::DeclBuffer { buffer, body } => {
                self.declaration(buffer, stmt.span());
                self.stmt(body);
            }
            StmtKind::AttrStmt(attr) => self.stmt(&attr.body),
            StmtKind::While { condition, body } => {
                let condition = self.expr(condition);
                self.line(&format!("while ({}) {{", strip_parens(&condition)));
                self.indent += 1;
                self.stmt(body);
                self.indent -= 1;
                self.line("}");
            }
            StmtKind::Assert { .. } => {
                self.unsupported("an assert inside a GPU kernel", stmt.span())
            }
            StmtKind::Allocate(_) => {
                self.unsupported("a `T.allocate` (use `T.alloc_buffer`)", stmt.span())
            }
            StmtKind::BlockRealize(_) => {
                self.unsupported("a block (lower the program first)", stmt.span())
            }
        }
    }

    fn allocation(&mut self, buffer: &Buffer, span: Span) {
        let ty = self.type_of(buffer.dtype(), span);
        let Some(shape) = buffer.constant_shape() else {
            self.unsupported(
                format!(
                    "`{}`, an allocation whose size is known only at run time",
                    buffer.name()
                ),
                span,
            );
            return;
        };
        let elements: i64 = shape.iter().product::<i64>().max(1);
        if buffer.scope().starts_with("wmma.") {
            self.fragment_allocation(buffer, elements, span);
            return;
        }
        let name = self.fresh_name(buffer.name());
        self.data_names.insert(buffer.data().clone(), name.clone());
        // Views of it (storage reuse) read it with its element type.
        self.data_types
            .insert(buffer.data().clone(), buffer.dtype());
        if buffer.scope().starts_with("shared") {
            self.shared_bytes += elements * buffer.dtype().bytes() as i64;
            if let Some(offset) = self.dynamic_shared_offset {
                // Laid out in the order split-host-device summed them.
                self.line(&format!(
                    "{ty}* {name} = ({ty}*)({DYNAMIC_SHARED_NAME} + {offset});"
                ));
                let bytes = elements * buffer.dtype().bytes() as i64;
                self.dynamic_shared_offset = Some(offset + dynamic_shared_size(bytes));
            } else if self.options.emulation {
                self.line(&format!(
                    "static tirc_emu::Shared<{ty}, {elements}> {name}(\"{}\");",
                    buffer.name()
                ));
            } else {
                // Aligned for the widest vector access (`float4`, 16 bytes).
                self.line(&format!(
                    "__shared__ __align__(16) {ty} {name}[{elements}];"
                ));
            }
        } else {
            self.local_bytes += elements * buffer.dtype().bytes() as i64;
            self.line(&format!("{ty} {name}[{elements}];"));
        }
    }

    fn declaration(&mut self, buffer: &Buffer, span: Span) {
        // A view of storage already named, with the same element type, is
        // read by that name; a view as another type is refused rather than
        // read with the storage's type.
        if !self.data_names.contains_key(buffer.data()) {
            self.unsupported(
                format!("`{}`, a view of storage outside the kernel", buffer.name()),
                span,
            );
            return;
        }
        if self.data_types.get(buffer.data()) != Some(&buffer.dtype()) {
            self.unsupported(
                format!(
                    "`{}`, a view of storage as another element type",
                    buffer.name()
                ),
                span,
            );
        }
    }

    fn access(&mut self, buffer: &Buffer, indices: &[Expr], span: Span) -> String {
        match self.access_parts(buffer, indices, span) {
            Some((storage, index)) => format!("{storage}[{index}]"),
            None => "0".to_string(),
        }
    }

    /// The storage name and the flat index of an element access, or `None`
    /// (reported) when the kernel cannot make it.
    fn access_parts(
        &mut self,
        buffer: &Buffer,
        indices: &[Expr],
        span: Span,
    ) -> Option<(String, String)> {
        if self.is_fragment(buffer.data()) {
            self.unsupported(
                format!(
                    "an element access to the wmma fragment `{}` (its tiles are opaque: tensorize the blocks that read and write it)",
                    buffer.name()
                ),
                span,
            );
            return None;
        }
        let Some(storage) = self.data_names.get(buffer.data()).cloned() else {
            self.unsupported(
                format!(
                    "an access to `{}`, which the kernel does not have",
                    buffer.name()
                ),
                span,
            );
            return None;
        };
        if indices.len() != 1 {
            self.unsupported(
                format!(
                    "a {}-dimensional access to `{}` (buffers are flat after lowering)",
                    indices.len(),
                    buffer.name()
                ),
                span,
            );
            return None;
        }
        if indices[0].dtype().lanes != 1 {
            self.unsupported(format!("a vector access to `{}`", buffer.name()), span);
            return None;
        }
        let mut index = self.expr(&indices[0]);
        let offset = &buffer.node().elem_offset;
        if !offset.is_int(0) {
            let offset = self.expr(offset);
            index = format!("({offset} + {index})");
        }
        Some((storage, strip_parens(&index).to_string()))
    }

    /// A store of a vector (a vectorized loop after `vectorize`): whole
    /// aligned vectors of global or shared memory are read and written as
    /// `float4`, `int2`, `half2`, ... (one 16-, 8- or 4-byte access), the
    /// rest lane by lane.
    fn vector_store(&mut self, store: &BufferStore, span: Span) {
        let [index] = store.indices.as_slice() else {
            self.unsupported(
                format!(
                    "a multi-dimensional vector store to `{}`",
                    store.buffer.name()
                ),
                span,
            );
            return;
        };
        let lanes = index.dtype().lanes.max(store.value.dtype().lanes);
        // Each aligned vector load is read once, into a named vector.
        let mut loads = Vec::new();
        walk_exprs(&store.value, &mut |e| {
            if let ExprKind::Load(load) = e.kind() {
                if load.indices.iter().any(|i| i.dtype().lanes > 1) {
                    loads.push(e.clone());
                }
            }
        });
        let mut hoisted: Vec<(Expr, Vec<Var>)> = Vec::new();
        let mut whole_value = None;
        for load_expr in loads {
            let ExprKind::Load(load) = load_expr.kind() else {
                continue;
            };
            if hoisted.iter().any(|(e, _)| expr_deep_equal(e, &load_expr)) {
                continue;
            }
            let Some((first, ty)) = aligned_vector(&load.buffer, &load.indices) else {
                continue;
            };
            let read = self.vector_read(&load.buffer, &first, &ty);
            let name = self.fresh_name(&format!("{}_v", load.buffer.name()));
            self.line(&format!("{ty} {name} = {read};"));
            if expr_deep_equal(&load_expr, &store.value) {
                whole_value = Some((name.clone(), ty.clone()));
            }
            let lane_vars = (0..load_expr.dtype().lanes)
                .map(|k| {
                    let var = Var::new(
                        format!("{name}.{}", LANE_NAMES[k as usize]),
                        load_expr.dtype().element_of(),
                        Span::NONE,
                    );
                    self.names
                        .insert(var.clone(), format!("{name}.{}", LANE_NAMES[k as usize]));
                    var
                })
                .collect();
            hoisted.push((load_expr.clone(), lane_vars));
        }
        let mut values = Vec::new();
        for k in 0..lanes {
            match lane_of(&store.value, k, &hoisted) {
                Ok(lane) => values.push(self.expr(&lane)),
                Err(node) => {
                    self.unsupported(format!("the vector value `{node}`"), span);
                    return;
                }
            }
        }
        if let Some((first, ty)) = aligned_vector(&store.buffer, &store.indices) {
            let value = match whole_value {
                Some((name, value_type)) if value_type == ty => name,
                _ if ty == "half2" => format!("__halves2half2({})", values.join(", ")),
                _ => format!("make_{ty}({})", values.join(", ")),
            };
            self.vector_write(&store.buffer, &first, &ty, &value);
            return;
        }
        for (k, value) in values.iter().enumerate() {
            let Ok(index) = lane_of(index, k as u16, &[]) else {
                self.unsupported(format!("the vector index `{index}`"), span);
                return;
            };
            self.scalar_store(&store.buffer, &[index], value, span);
        }
    }

    /// `buffer[indices] = value;`. In the emulation a store to global
    /// memory goes through the header's check for two threads of a block
    /// storing different values to one element.
    fn scalar_store(&mut self, buffer: &Buffer, indices: &[Expr], value: &str, span: Span) {
        let Some((storage, index)) = self.access_parts(buffer, indices, span) else {
            return;
        };
        if self.options.emulation && is_global(buffer) {
            self.line(&format!(
                "tirc_emu::store_global({storage}, {index}, {value}, \"{}\");",
                buffer.name()
            ));
        } else {
            self.line(&format!("{storage}[{index}] = {value};"));
        }
    }

    /// The C name of a buffer's storage, for a vector access.
    fn storage_name(&mut self, buffer: &Buffer) -> String {
        self.data_names
            .get(buffer.data())
            .cloned()
            .unwrap_or_else(|| buffer.name().to_string())
    }

    /// A whole-vector read of `buffer` from element `first`.
    fn vector_read(&mut self, buffer: &Buffer, first: &Expr, ty: &str) -> String {
        let storage = self.storage_name(buffer);
        let first = self.expr(first);
        if self.options.emulation {
            // Checked: alignment, and shared memory element by element.
            format!(
                "tirc_emu::load_vector<{ty}>({storage}, {})",
                strip_parens(&first)
            )
        } else {
            format!("*({ty}*)({storage} + {first})")
        }
    }

    fn vector_write(&mut self, buffer: &Buffer, first: &Expr, ty: &str, value: &str) {
        let storage = self.storage_name(buffer);
        let first = self.expr(first);
        if self.options.emulation {
            self.line(&format!(
                "tirc_emu::store_vector<{ty}>({storage}, {}, {value}, \"{}\");",
                strip_parens(&first),
                buffer.name()
            ));
        } else {
            self.line(&format!("*({ty}*)({storage} + {first}) = {value};"));
        }
    }

    fn expr(&mut self, expr: &Expr) -> String {
        let dtype = expr.dtype();
        if dtype.lanes != 1 {
            self.unsupported(format!("the vector value `{expr}`"), expr.span());
            return "0".to_string();
        }
        match expr.kind() {
            ExprKind::Var(var) => self.var_name(var),
            ExprKind::Int(value) => literal_int(*value, dtype),
            ExprKind::Float(value) => literal_float(*value, dtype),
            ExprKind::Str(text) => format!("{text:?}"),
            ExprKind::Cast(value) => {
                let ty = self.type_of(dtype, expr.span());
                let value = self.expr(value);
                format!("(({ty}){value})")
            }
            ExprKind::Binary(op, a, b) => {
                let operand_type = a.dtype();
                let (a, b) = (self.expr(a), self.expr(b));
                self.binary(*op, operand_type, a, b)
            }
            ExprKind::Not(value) => {
                let value = self.expr(value);
                format!("(!{value})")
            }
            ExprKind::Select(condition, a, b) => {
                let (c, a, b) = (self.expr(condition), self.expr(a), self.expr(b));
                format!("({c} ? {a} : {b})")
            }
            ExprKind::Load(load) => {
                let access = self.access(&load.buffer, &load.indices, expr.span());
                let half_in_shared = load.buffer.scope().starts_with("shared")
                    && matches!(dtype.code, TypeCode::Float | TypeCode::BFloat)
                    && dtype.bits == 16;
                if self.options.emulation && half_in_shared {
                    // The emulation's checked element converts to `half`,
                    // and `half` to float: C++ takes one of the two
                    // conversions implicitly, so the first is written.
                    let ty = self.type_of(dtype, expr.span());
                    format!("{ty}({access})")
                } else {
                    access
                }
            }
            ExprKind::Call { op, args } => self.call(op.name(), args, dtype, expr),
            ExprKind::Let { .. } => {
                self.unsupported("a `T.Let` expression", expr.span());
                "0".to_string()
            }
            ExprKind::Ramp { .. } | ExprKind::Broadcast { .. } | ExprKind::Shuffle { .. } => {
                self.unsupported("vector expressions", expr.span());
                "0".to_string()
            }
            ExprKind::CallFunction { name, .. } => {
                self.unsupported(
                    format!("a call of the module's function `{name}`"),
                    expr.span(),
                );
                "0".to_string()
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, operand: DataType, a: String, b: String) -> String {
        let low_precision = matches!(
            (operand.code, operand.bits),
            (TypeCode::Float, 16) | (TypeCode::BFloat, 16)
        );
        let symbol = match op {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Min | BinaryOp::Max => {
                let name = if op == BinaryOp::Min { "min" } else { "max" };
                if low_precision {
                    let ty = c_type(operand).unwrap_or("half");
                    return format!("(({ty}){name}((float){a}, (float){b}))");
                }
                return format!("{name}({a}, {b})");
            }
            BinaryOp::FloorDiv | BinaryOp::FloorMod if operand.is_float() => {
                return if op == BinaryOp::FloorDiv {
                    format!("floor({a} / {b})")
                } else {
                    format!("({a} - floor({a} / {b}) * {b})")
                };
            }
            BinaryOp::FloorDiv => {
                self.helpers.insert(FLOORDIV_INT);
                return format!("tirc_floordiv({a}, {b})");
            }
            BinaryOp::FloorMod => {
                self.helpers.insert(FLOORMOD_INT);
                return format!("tirc_floormod({a}, {b})");
            }
        };
        format!("({a} {symbol} {b})")
    }

    fn call(&mut self, name: &str, args: &[Expr], dtype: DataType, expr: &Expr) -> String {
        if wmma::WMMA_BUILTINS.contains(&name) {
            return self.wmma_call(name, args, expr.span());
        }
        if let Some(builtin) = crate::ir::builtin::MmaBuiltin::of(name) {
            return self.mma_call(builtin, args, expr.span());
        }
        let texts: Vec<String> = match name {
            "call_extern" | "call_pure_extern" => {
                args.iter().skip(1).map(|a| self.expr(a)).collect()
            }
            _ => args.iter().map(|a| self.expr(a)).collect(),
        };
        let arg = |i: usize| texts.get(i).cloned().unwrap_or_default();
        match name {
            "if_then_else" => format!("({} ? {} : {})", arg(0), arg(1), arg(2)),
            "likely" => arg(0),
            "shift_left" => format!("({} << {})", arg(0), arg(1)),
            "shift_right" => format!("({} >> {})", arg(0), arg(1)),
            "bitwise_and" => format!("({} & {})", arg(0), arg(1)),
            "bitwise_or" => format!("({} | {})", arg(0), arg(1)),
            "bitwise_xor" => format!("({} ^ {})", arg(0), arg(1)),
            "bitwise_not" => format!("(~{})", arg(0)),
            "popcount" => format!("__popc({})", arg(0)),
            "tvm_warp_activemask" => "__activemask()".to_string(),
            // (mask, value, lane or delta, width, warp_size): CUDA's warp
            // size is fixed, so the last argument has no C counterpart.
            "tvm_warp_shuffle" | "tvm_warp_shuffle_up" | "tvm_warp_shuffle_down" => {
                let function = match name {
                    "tvm_warp_shuffle" => "__shfl_sync",
                    "tvm_warp_shuffle_up" => "__shfl_up_sync",
                    _ => "__shfl_down_sync",
                };
                if args
                    .get(4)
                    .and_then(Expr::as_int)
                    .is_some_and(|size| size != 32)
                {
                    self.unsupported(
                        format!("`T.{name}` with a warp size other than 32"),
                        expr.span(),
                    );
                }
                format!("{function}({}, {}, {}, {})", arg(0), arg(1), arg(2), arg(3))
            }
            "clz" => format!("__clz({})", arg(0)),
            "isnan" | "isinf" | "isfinite" => format!("{name}((float){})", arg(0)),
            "call_extern" | "call_pure_extern" => {
                let callee = args.first().and_then(|a| match a.kind() {
                    ExprKind::Str(s) => Some(s.clone()),
                    _ => None,
                });
                match callee {
                    Some(callee) => format!("{callee}({})", texts.join(", ")),
                    None => {
                        self.unsupported("an extern call without a name", expr.span());
                        "0".to_string()
                    }
                }
            }
            _ => match math_function(name) {
                Some(base) if dtype.is_float() || dtype.code == TypeCode::BFloat => {
                    match (dtype.code, dtype.bits) {
                        (TypeCode::Float, 64) => format!("{base}({})", texts.join(", ")),
                        (TypeCode::Float, 32) => format!("{base}f({})", texts.join(", ")),
                        _ => {
                            let ty = c_type(dtype).unwrap_or("half");
                            let floats: Vec<String> =
                                texts.iter().map(|t| format!("(float){t}")).collect();
                            format!("(({ty}){base}f({}))", floats.join(", "))
                        }
                    }
                }
                _ => {
                    self.unsupported(format!("`T.{name}`"), expr.span());
                    "0".to_string()
                }
            },
        }
    }
}

/// The components of CUDA's vector types, by lane.
const LANE_NAMES: [&str; 4] = ["x", "y", "z", "w"];

/// The CUDA vector type of `lanes` elements of `element`, where CUDA has
/// one that a single load or store moves.
fn vector_type(element: DataType, lanes: u16) -> Option<String> {
    let base = match (element.code, element.bits, lanes) {
        (TypeCode::Float, 32, 2 | 4) => "float",
        (TypeCode::Int, 32, 2 | 4) => "int",
        (TypeCode::UInt, 32, 2 | 4) => "uint",
        (TypeCode::Float, 64, 2) => "double",
        (TypeCode::Float, 16, 2) => "half",
        _ => return None,
    };
    Some(format!("{base}{lanes}"))
}

/// The first element and the vector type of an access of `buffer` at
/// `indices` that moves one whole aligned vector: a stride-1 `Ramp` in
/// global or shared memory whose first element (with the buffer's offset)
/// is a provable multiple of its lanes, so the address is aligned to the
/// vector's size (CUDA faults on a misaligned `float4`).
fn aligned_vector(buffer: &Buffer, indices: &[Expr]) -> Option<(Expr, String)> {
    let [index] = indices else { return None };
    let ExprKind::Ramp {
        base,
        stride,
        lanes,
    } = index.kind()
    else {
        return None;
    };
    let scope = buffer.scope();
    if !stride.is_int(1) || !(scope == "global" || scope.starts_with("shared")) {
        return None;
    }
    let ty = vector_type(buffer.dtype(), *lanes)?;
    let offset = &buffer.node().elem_offset;
    let first = if offset.is_int(0) {
        base.clone()
    } else {
        Expr::binary(BinaryOp::Add, offset.clone(), base.clone())
    };
    let modular = crate::arith::Analyzer::new().modular_set(&first);
    let lanes = i64::from(*lanes);
    (modular.coeff % lanes == 0 && modular.base.rem_euclid(lanes) == 0).then_some((first, ty))
}

/// Lane `k` of the vector expression `expr` as a scalar expression; loads
/// already read whole (`hoisted`) give their lane's component. `Err` names
/// the node that has no lane-wise form.
fn lane_of(expr: &Expr, k: u16, hoisted: &[(Expr, Vec<Var>)]) -> Result<Expr, Expr> {
    let dtype = expr.dtype();
    if dtype.lanes == 1 {
        return Ok(expr.clone());
    }
    let element = dtype.element_of();
    let lane = |e: &Expr| lane_of(e, k, hoisted);
    Ok(match expr.kind() {
        ExprKind::Ramp { base, stride, .. } => {
            if k == 0 {
                base.clone()
            } else {
                let step = match stride.as_int() {
                    Some(stride) => Expr::int(stride * i64::from(k), stride_type(base)),
                    None => Expr::binary(
                        BinaryOp::Mul,
                        stride.clone(),
                        Expr::int(i64::from(k), stride_type(base)),
                    ),
                };
                // Folded, so that `(i * 4 + 1) + 2` reads `i * 4 + 3`.
                crate::arith::Analyzer::new().simplify(&Expr::binary(
                    BinaryOp::Add,
                    base.clone(),
                    step,
                ))
            }
        }
        ExprKind::Broadcast { value, .. } => value.clone(),
        ExprKind::Binary(op, a, b) => Expr::binary(*op, lane(a)?, lane(b)?),
        ExprKind::Cast(value) => Expr::cast(element, lane(value)?),
        ExprKind::Not(value) => Expr::new(ExprKind::Not(lane(value)?), element, Span::NONE),
        ExprKind::Select(condition, a, b) => Expr::new(
            ExprKind::Select(lane(condition)?, lane(a)?, lane(b)?),
            element,
            Span::NONE,
        ),
        ExprKind::Load(load) => {
            if let Some((_, vars)) = hoisted.iter().find(|(e, _)| expr_deep_equal(e, expr)) {
                return Ok(Expr::var(&vars[k as usize]));
            }
            let indices = load.indices.iter().map(lane).collect::<Result<_, _>>()?;
            Expr::load(&load.buffer, indices)
        }
        ExprKind::Call { op, args } => Expr::call(
            *op,
            args.iter().map(lane).collect::<Result<_, _>>()?,
            element,
        ),
        _ => return Err(expr.clone()),
    })
}

fn stride_type(base: &Expr) -> DataType {
    base.dtype().element_of()
}

/// The C math function (double precision name) for a TIR math builtin.
fn math_function(name: &str) -> Option<&'static str> {
    Some(match name {
        "exp" => "exp",
        "exp2" => "exp2",
        "exp10" => "exp10",
        "log" => "log",
        "log2" => "log2",
        "log10" => "log10",
        "log1p" => "log1p",
        "sqrt" => "sqrt",
        "rsqrt" => "rsqrt",
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "sinh" => "sinh",
        "cosh" => "cosh",
        "tanh" => "tanh",
        "asin" => "asin",
        "acos" => "acos",
        "atan" => "atan",
        "asinh" => "asinh",
        "acosh" => "acosh",
        "atanh" => "atanh",
        "erf" => "erf",
        "floor" => "floor",
        "ceil" => "ceil",
        "round" => "round",
        "trunc" => "trunc",
        "nearbyint" => "rint",
        "fabs" => "fabs",
        "pow" => "pow",
        "atan2" => "atan2",
        "fmod" => "fmod",
        "hypot" => "hypot",
        "copysign" => "copysign",
        "nextafter" => "nextafter",
        "fma" => "fma",
        _ => return None,
    })
}

/// Removes one pair of parentheses around a whole expression.
fn strip_parens(text: &str) -> &str {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return text;
    };
    // Only when the outer pair encloses everything: `(a) + (b)` keeps them.
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return text;
                }
            }
            _ => {}
        }
    }
    if depth == 0 {
        inner
    } else {
        text
    }
}

fn literal_int(value: i64, dtype: DataType) -> String {
    match (dtype.code, dtype.bits) {
        (TypeCode::Bool, _) => (if value != 0 { "true" } else { "false" }).to_string(),
        (TypeCode::Int, 64) => {
            if value < 0 {
                format!("({value}LL)")
            } else {
                format!("{value}LL")
            }
        }
        (TypeCode::UInt, 64) => format!("{}ULL", value as u64),
        (TypeCode::UInt, _) => format!("{}U", value as u64),
        (TypeCode::Int, 32) => {
            if value == i32::MIN as i64 {
                "(-2147483647 - 1)".to_string()
            } else if value < 0 {
                format!("({value})")
            } else {
                value.to_string()
            }
        }
        _ => match c_type(dtype) {
            Some(ty) => format!("(({ty}){value})"),
            None => value.to_string(),
        },
    }
}

fn literal_float(value: f64, dtype: DataType) -> String {
    let single = |v: f32| -> String {
        if v.is_nan() {
            "__int_as_float(0x7fc00000)".to_string()
        } else if v.is_infinite() {
            if v > 0.0 {
                "__int_as_float(0x7f800000)".to_string()
            } else {
                "__int_as_float(0xff800000)".to_string()
            }
        } else {
            let text = format!("{v:?}");
            if v < 0.0 {
                format!("({text}f)")
            } else {
                format!("{text}f")
            }
        }
    };
    match (dtype.code, dtype.bits) {
        (TypeCode::Float, 64) => {
            if value.is_nan() {
                "__longlong_as_double(0x7ff8000000000000LL)".to_string()
            } else if value.is_infinite() {
                if value > 0.0 {
                    "__longlong_as_double(0x7ff0000000000000LL)".to_string()
                } else {
                    "__longlong_as_double(0xfff0000000000000ULL)".to_string()
                }
            } else if value < 0.0 {
                format!("({value:?})")
            } else {
                format!("{value:?}")
            }
        }
        (TypeCode::Float, 32) => single(value as f32),
        _ => {
            let ty = c_type(dtype).unwrap_or("half");
            format!("(({ty}){})", single(value as f32))
        }
    }
}

/// Threads per block when every `threadIdx` extent is a constant.
fn thread_count(body: &Stmt) -> Option<i64> {
    let mut extents: Vec<(String, Option<i64>)> = Vec::new();
    crate::ir::visit::walk_stmts(body, &mut |stmt| {
        if let StmtKind::For(for_loop) = stmt.kind() {
            if let (ForKind::ThreadBinding, Some(tag)) = (for_loop.kind, &for_loop.thread) {
                if tag.starts_with("threadIdx") && !extents.iter().any(|(t, _)| t == tag) {
                    extents.push((tag.clone(), for_loop.extent.as_int()));
                }
            }
        }
    });
    extents.iter().try_fold(1i64, |n, (_, e)| Some(n * (*e)?))
}

/// Memory every thread of the grid sees: a kernel's buffer parameters.
fn is_global(buffer: &Buffer) -> bool {
    matches!(buffer.scope(), "global" | "")
}
