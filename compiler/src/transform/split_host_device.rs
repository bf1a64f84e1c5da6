//! `split-host-device` (CUDA target): every outermost loop nest bound to
//! GPU threads becomes a device kernel, a function of its own, and the host
//! function launches it with `T.call_packed(kernel, buffers..., scalars...,
//! extents...)`, as TVM's SplitHostDevice and LowerDeviceKernelLaunch do.
//!
//! The kernel keeps its thread-bound loops (the CUDA writer turns each into
//! `int i = threadIdx.x;`, so the program's names survive); its attribute
//! `tir.kernel_launch_params` lists the thread tags in the order the host
//! passes their extents. The launch is checked here, each problem a
//! diagnostic at the loop that causes it: one extent per thread tag, at
//! most 1,024 threads per block, static shared memory within 48 KiB. Code
//! outside every kernel runs on the host, which cannot touch GPU memory: a
//! load or store there is refused (TVM's "Did you forget to bind?").

use super::codes;
use super::support::defined_vars;
use super::LowerOptions;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::{VarMap, VarSet};
use crate::ir::structural::expr_deep_equal;
use crate::ir::visit::{walk_expr, walk_stmt, walk_stmts, Visitor};
use crate::ir::{
    AttrValue, Buffer, DataType, Expr, ExprKind, ForKind, IRModule, Op, PrimFunc, Stmt, StmtKind,
    Var,
};
use crate::source::Span;

/// The most threads one block may have on every CUDA GPU.
pub const MAX_THREADS_PER_BLOCK: i64 = 1024;

/// The static shared memory every CUDA GPU gives one block, in bytes.
pub const MAX_STATIC_SHARED_BYTES: i64 = 48 * 1024;

/// The `local` memory a CUDA thread may have, in bytes (every architecture
/// since sm_20).
pub const MAX_LOCAL_BYTES_PER_THREAD: i64 = 512 * 1024;

/// The launch parameter (after the thread tags) of a kernel whose shared
/// memory is allocated dynamically, as TVM names it: the host passes the
/// bytes.
pub const DYNAMIC_SHARED_MEMORY_TAG: &str = "tir.use_dyn_shared_memory";

/// Each shared buffer of a dynamic allocation starts at a multiple of this
/// many bytes (the widest vector access).
pub const DYNAMIC_SHARED_ALIGNMENT: i64 = 16;

/// The shared memory a block may have on `arch` (`sm_80`), in bytes: what
/// the architecture lets a kernel opt into with dynamic shared memory
/// (`CudaTarget::resolved_arch` names it).
pub fn max_shared_memory_per_block(arch: Option<&str>) -> i64 {
    let capability: u32 = arch
        .and_then(|a| a.strip_prefix("sm_").or_else(|| a.strip_prefix("compute_")))
        .and_then(|a| {
            a.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .ok()
        })
        .unwrap_or(80);
    // CUDA C Programming Guide, "Technical Specifications per Compute Capability".
    match capability {
        0..=69 => 48 * 1024,
        70 | 72 => 96 * 1024,
        75 => 64 * 1024,
        80 | 87 => 163 * 1024,
        86 | 89 => 99 * 1024,
        90..=99 => 227 * 1024,
        _ => 99 * 1024,
    }
}

/// The attribute listing a kernel's launch tags, in the host's order.
pub const LAUNCH_PARAMS_ATTR: &str = "tir.kernel_launch_params";

/// The attribute marking a function as a device kernel.
pub const KERNEL_ATTR: &str = "tir.is_global_func";

/// Splits every function of `module` into a host function and its kernels.
pub fn split_host_device(
    module: &IRModule,
    options: &LowerOptions,
) -> Result<IRModule, Vec<Diagnostic>> {
    let mut functions = Vec::new();
    let mut diagnostics = Vec::new();
    for func in &module.functions {
        if is_kernel(func) {
            functions.push(func.clone());
            continue;
        }
        let mut splitter = Splitter {
            func,
            max_shared_bytes: options.max_shared_memory_per_block,
            kernels: Vec::new(),
            diagnostics: Vec::new(),
            pending_allocations: Vec::new(),
        };
        let body = splitter.host(&func.body);
        diagnostics.append(&mut splitter.diagnostics);
        functions.push(PrimFunc {
            body,
            ..func.clone()
        });
        functions.append(&mut splitter.kernels);
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

/// The bytes a shared buffer of `bytes` takes in a dynamic allocation.
pub fn dynamic_shared_size(bytes: i64) -> i64 {
    (bytes + DYNAMIC_SHARED_ALIGNMENT - 1) / DYNAMIC_SHARED_ALIGNMENT * DYNAMIC_SHARED_ALIGNMENT
}

/// True when `func` is a device kernel made by this pass.
pub fn is_kernel(func: &PrimFunc) -> bool {
    func.attr(KERNEL_ATTR)
        .is_some_and(|v| v.as_int() == Some(1))
}

/// The thread tags of a kernel's launch, in the order of the host's extents.
pub fn launch_tags(func: &PrimFunc) -> Vec<String> {
    match func.attr(LAUNCH_PARAMS_ATTR) {
        Some(AttrValue::List(tags)) => tags
            .iter()
            .filter_map(|tag| tag.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

struct Splitter<'f> {
    func: &'f PrimFunc,
    /// The shared memory a block may have (dynamic beyond 48 KiB).
    max_shared_bytes: i64,
    kernels: Vec<PrimFunc>,
    diagnostics: Vec<Diagnostic>,
    /// Shared and local allocations on the host path to the current
    /// statement: they belong to the kernels below them.
    pending_allocations: Vec<(Buffer, crate::ir::Annotations, Span)>,
}

/// True when `stmt` has a loop bound to a GPU thread.
fn has_thread_loop(stmt: &Stmt) -> bool {
    let mut found = false;
    walk_stmts(stmt, &mut |s| {
        if let StmtKind::For(for_loop) = s.kind() {
            found |= for_loop.kind == ForKind::ThreadBinding;
        }
    });
    found
}

impl Splitter<'_> {
    /// The host part of `stmt`: kernels replaced by their launches.
    fn host(&mut self, stmt: &Stmt) -> Stmt {
        if let StmtKind::For(for_loop) = stmt.kind() {
            if for_loop.kind == ForKind::ThreadBinding {
                return self.kernel(stmt);
            }
        }
        if !has_thread_loop(stmt) {
            self.check_host_only(stmt);
            return stmt.clone();
        }
        match stmt.kind() {
            StmtKind::Seq(stmts) => Stmt::seq(stmts.iter().map(|s| self.host(s)).collect()),
            StmtKind::For(for_loop) => {
                let mut for_loop = for_loop.clone();
                for_loop.body = self.host(&for_loop.body);
                stmt.with_kind(StmtKind::For(for_loop))
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.check_host_expr(condition, stmt.span());
                stmt.with_kind(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case: self.host(then_case),
                    else_case: else_case.as_ref().map(|s| self.host(s)),
                })
            }
            StmtKind::LetStmt { var, value, body } => {
                self.check_host_expr(value, stmt.span());
                stmt.with_kind(StmtKind::LetStmt {
                    var: var.clone(),
                    value: value.clone(),
                    body: self.host(body),
                })
            }
            StmtKind::DeclBuffer { buffer, body } => stmt.with_kind(StmtKind::DeclBuffer {
                buffer: buffer.clone(),
                body: self.host(body),
            }),
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } if buffer.scope() != "global" => {
                // Shared and local memory exist only inside a kernel: the
                // allocation moves into each kernel below that uses it.
                self.pending_allocations
                    .push((buffer.clone(), annotations.clone(), stmt.span()));
                let body = self.host(body);
                self.pending_allocations.pop();
                body
            }
            StmtKind::AllocBuffer {
                buffer,
                annotations,
                body,
            } => stmt.with_kind(StmtKind::AllocBuffer {
                buffer: buffer.clone(),
                annotations: annotations.clone(),
                body: self.host(body),
            }),
            StmtKind::AttrStmt(attr) => {
                let mut attr = attr.clone();
                attr.body = self.host(&attr.body);
                stmt.with_kind(StmtKind::AttrStmt(attr))
            }
            StmtKind::Assert {
                condition,
                error_kind,
                message,
                body,
            } => stmt.with_kind(StmtKind::Assert {
                condition: condition.clone(),
                error_kind: error_kind.clone(),
                message: message.clone(),
                body: self.host(body),
            }),
            _ => {
                self.diagnostics.push(Diagnostic::error(
                    codes::UNSUPPORTED,
                    "this statement holds GPU-bound loops in a form the CUDA backend cannot launch",
                    stmt.span(),
                ));
                stmt.clone()
            }
        }
    }

    /// Refuses buffer accesses in host code: host code cannot read GPU memory.
    fn check_host_only(&mut self, stmt: &Stmt) {
        let mut access = None;
        walk_stmts(stmt, &mut |s| {
            if access.is_some() {
                return;
            }
            if let StmtKind::BufferStore(store) = s.kind() {
                access = Some((store.buffer.name().to_string(), s.span()));
            }
        });
        if access.is_none() {
            struct Loads(Option<String>);
            impl Visitor for Loads {
                fn visit_expr(&mut self, expr: &Expr) {
                    if let ExprKind::Load(load) = expr.kind() {
                        self.0.get_or_insert_with(|| load.buffer.name().to_string());
                    }
                    walk_expr(self, expr);
                }
            }
            let mut loads = Loads(None);
            loads.visit_stmt(stmt);
            access = loads.0.map(|name| (name, stmt.span()));
        }
        if let Some((buffer, span)) = access {
            // Stores a schedule step created (a cache stage) have no place
            // in the file: the statement around them, or the function, does.
            let span = [span, stmt.span(), self.func.span]
                .into_iter()
                .find(|s| s.is_known())
                .unwrap_or(span);
            self.diagnostics.push(host_access(&buffer, span));
        }
    }

    fn check_host_expr(&mut self, expr: &Expr, span: Span) {
        let mut load = None;
        crate::ir::visit::walk_exprs(expr, &mut |e| {
            if let ExprKind::Load(l) = e.kind() {
                load.get_or_insert_with(|| l.buffer.name().to_string());
            }
        });
        if let Some(buffer) = load {
            let span = if span.is_known() {
                span
            } else {
                self.func.span
            };
            self.diagnostics.push(host_access(&buffer, span));
        }
    }

    /// Makes a kernel of the thread-bound nest `root`; its launch.
    fn kernel(&mut self, root: &Stmt) -> Stmt {
        let name = match self.kernels.len() {
            0 => format!("{}_kernel", self.func.name),
            n => format!("{}_kernel_{n}", self.func.name),
        };
        let mut body = root.clone();
        for (buffer, annotations, span) in self.pending_allocations.iter().rev() {
            if uses_data(&body, buffer.data()) {
                body = Stmt::new(
                    StmtKind::AllocBuffer {
                        buffer: buffer.clone(),
                        annotations: annotations.clone(),
                        body,
                    },
                    *span,
                );
            }
        }
        let launch = match check_launch(&body, self.max_shared_bytes) {
            Ok(launch) => launch,
            Err(mut errors) => {
                self.diagnostics.append(&mut errors);
                return root.clone();
            }
        };
        let (mut buffers, scalars) = free_variables(&body);
        // A parameter's data used only as a pointer (the operand of a wmma
        // load or store, `T.tvm_access_ptr(..., C.data, ...)`) is passed too.
        for data in free_pointers(&body) {
            let covered = buffers.iter().any(|b| b.data() == &data);
            let parameter = self.func.buffer_map.iter().find(|(_, b)| b.data() == &data);
            if let (false, Some((_, buffer))) = (covered, parameter) {
                buffers.push(buffer.clone());
            }
        }
        // Parameters in the host function's order, then the rest.
        let position = |buffer: &Buffer| {
            self.func
                .buffer_map
                .iter()
                .position(|(_, b)| b.data() == buffer.data())
                .unwrap_or(usize::MAX)
        };
        buffers.sort_by_key(|b| position(b));
        let mut params = Vec::new();
        let mut buffer_map = Vec::new();
        let mut call_args = vec![Expr::string(name.clone())];
        let mut aliases = Vec::new();
        let mut seen_data: VarSet = Default::default();
        // Scalars first: the buffers' shapes may name them (`T.Buffer((n,))`).
        for scalar in &scalars {
            params.push(scalar.clone());
            call_args.push(Expr::var(scalar));
        }
        for buffer in &buffers {
            if !seen_data.insert(buffer.data().clone()) {
                aliases.push(buffer.clone());
                continue;
            }
            let param = Var::new(buffer.data().name(), DataType::handle(), buffer.span());
            params.push(param.clone());
            buffer_map.push((param, buffer.clone()));
            call_args.push(Expr::var(buffer.data()));
        }
        for (_, extent, _) in &launch {
            call_args.push(extent.clone());
        }
        for alias in aliases {
            body = Stmt::new(
                StmtKind::DeclBuffer {
                    buffer: alias,
                    body,
                },
                root.span(),
            );
        }
        let tags = launch
            .iter()
            .map(|(tag, _, _)| AttrValue::Str(tag.clone()))
            .collect();
        self.kernels.push(PrimFunc {
            name: name.clone(),
            params,
            buffer_map,
            ret_type: DataType::void(),
            attrs: vec![
                ("global_symbol".to_string(), AttrValue::Str(name)),
                ("target".to_string(), AttrValue::Str("cuda".to_string())),
                (KERNEL_ATTR.to_string(), AttrValue::Bool(true)),
                (LAUNCH_PARAMS_ATTR.to_string(), AttrValue::List(tags)),
                ("tir.noalias".to_string(), AttrValue::Bool(true)),
            ],
            body,
            private: true,
            span: self.func.span,
        });
        Stmt::new(
            StmtKind::Evaluate(Expr::call(
                Op::named("call_packed"),
                call_args,
                DataType::int32(),
            )),
            root.span(),
        )
    }
}

fn host_access(buffer: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::HOST_ACCESS,
        format!("`{buffer}` is accessed outside every GPU-bound loop, on the host, which cannot reach GPU memory"),
        span,
    )
    .with_label("runs on the host")
    .with_help("bind the loops around it to blockIdx/threadIdx (`sch.bind`), as TVM requires")
}

/// True when `stmt` reads or writes through `data`.
fn uses_data(stmt: &Stmt, data: &Var) -> bool {
    let (buffers, _) = free_variables(stmt);
    buffers.iter().any(|b| b.data() == data)
}

/// Checks the thread-bound loops of a kernel: each tag with one extent,
/// at most 1,024 threads per block, shared memory within `max_shared_bytes`.
/// The launch: (tag, extent, span of its first loop), outermost first, then
/// the dynamic shared memory's bytes when the kernel has more than the
/// static 48 KiB.
fn check_launch(
    kernel: &Stmt,
    max_shared_bytes: i64,
) -> Result<Vec<(String, Expr, Span)>, Vec<Diagnostic>> {
    let mut launch: Vec<(String, Expr, Span)> = Vec::new();
    let mut errors = Vec::new();
    let mut shared_bytes = 0i64;
    let mut dynamic_bytes = 0i64;
    let mut largest_shared: Option<Span> = None;
    let mut local_bytes = 0i64;
    let mut largest_local: Option<(i64, Span)> = None;
    walk_stmts(kernel, &mut |stmt| {
        match stmt.kind() {
        StmtKind::For(for_loop) if for_loop.kind == ForKind::ThreadBinding => {
            let tag = for_loop.thread.clone().unwrap_or_default();
            match launch.iter().find(|(t, _, _)| *t == tag) {
                Some((_, extent, first)) => {
                    if !expr_deep_equal(extent, &for_loop.extent) {
                        errors.push(
                            Diagnostic::error(
                                codes::THREAD_EXTENT,
                                format!(
                                    "`{tag}` is launched with extent {extent} but this loop bound to it has extent {}",
                                    for_loop.extent
                                ),
                                stmt.span(),
                            )
                            .with_secondary(*first, format!("`{tag}` first bound here"))
                            .with_help("every loop bound to one thread tag in a kernel needs the same extent; split the loops to match"),
                        );
                    }
                }
                None => launch.push((tag, for_loop.extent.clone(), stmt.span())),
            }
        }
        StmtKind::AllocBuffer { buffer, .. } if buffer.scope() == "local" => {
            if let Some(shape) = buffer.constant_shape() {
                let elements: i64 = shape.iter().product();
                let bytes = elements.saturating_mul(buffer.dtype().bytes() as i64);
                local_bytes = local_bytes.saturating_add(bytes);
                if largest_local.is_none_or(|(largest, _)| bytes > largest) {
                    largest_local = Some((bytes, stmt.span()));
                }
            }
        }
        StmtKind::AllocBuffer { buffer, .. } if buffer.scope().starts_with("shared") => {
            match buffer.constant_shape() {
                Some(shape) => {
                    let elements: i64 = shape.iter().product();
                    let bytes = elements * buffer.dtype().bytes() as i64;
                    shared_bytes += bytes;
                    dynamic_bytes += dynamic_shared_size(bytes);
                    largest_shared.get_or_insert(stmt.span());
                }
                None => errors.push(
                    Diagnostic::error(
                        codes::UNSUPPORTED,
                        format!("the shared buffer `{}` has a size known only at run time; the CUDA backend allocates shared memory statically", buffer.name()),
                        stmt.span(),
                    ),
                ),
            }
        }
        _ => {}
    }
    });
    let mut threads = 1i64;
    let mut all_constant = true;
    for (tag, extent, _) in &launch {
        if tag.starts_with("threadIdx") {
            match extent.as_int() {
                Some(extent) => threads = threads.saturating_mul(extent),
                None => all_constant = false,
            }
        }
    }
    if all_constant && threads > MAX_THREADS_PER_BLOCK {
        let first = launch
            .iter()
            .find(|(tag, _, _)| tag.starts_with("threadIdx"))
            .map_or(kernel.span(), |(_, _, span)| *span);
        let extents = launch
            .iter()
            .filter(|(tag, _, _)| tag.starts_with("threadIdx"))
            .map(|(tag, extent, _)| format!("{tag} = {extent}"))
            .collect::<Vec<_>>()
            .join(", ");
        errors.push(
            Diagnostic::error(
                codes::TOO_MANY_THREADS,
                format!("a block of this kernel has {threads} threads ({extents}); CUDA allows at most {MAX_THREADS_PER_BLOCK}"),
                first,
            )
            .with_help("split the thread-bound loops further and bind the outer part to blockIdx"),
        );
    }
    if local_bytes > MAX_LOCAL_BYTES_PER_THREAD {
        errors.push(
            Diagnostic::error(
                codes::LOCAL_MEMORY,
                format!("each thread of this kernel allocates {local_bytes} bytes of `local` memory; CUDA allows at most {MAX_LOCAL_BYTES_PER_THREAD}"),
                largest_local.map_or(kernel.span(), |(_, span)| span),
            )
            .with_help("give each thread (and each virtual thread) a smaller tile"),
        );
    }
    if shared_bytes > MAX_STATIC_SHARED_BYTES {
        if dynamic_bytes > max_shared_bytes {
            errors.push(
                Diagnostic::error(
                    codes::SHARED_MEMORY,
                    format!("this kernel allocates {shared_bytes} bytes of shared memory; a block has at most {max_shared_bytes} bytes on this architecture (48 KiB static, the rest dynamic)"),
                    largest_shared.unwrap_or(kernel.span()),
                )
                .with_help("use smaller tiles, or name a GPU with more shared memory (`--target \"cuda -arch=sm_90\"`)"),
            );
        } else {
            // Beyond the static 48 KiB the kernel takes its shared buffers
            // from one dynamic allocation, whose size the host passes.
            launch.push((
                DYNAMIC_SHARED_MEMORY_TAG.to_string(),
                Expr::i32(dynamic_bytes),
                largest_shared.unwrap_or(kernel.span()),
            ));
        }
    }
    if errors.is_empty() {
        Ok(launch)
    } else {
        Err(errors)
    }
}

/// The pointer variables `stmt` names in expressions but does not define
/// or allocate, first use first.
fn free_pointers(stmt: &Stmt) -> Vec<Var> {
    let defined = defined_vars(stmt);
    let mut allocated: VarSet = Default::default();
    walk_stmts(stmt, &mut |s| {
        if let StmtKind::AllocBuffer { buffer, .. } | StmtKind::DeclBuffer { buffer, .. } = s.kind()
        {
            allocated.insert(buffer.data().clone());
        }
    });
    let mut seen: VarSet = Default::default();
    let mut pointers = Vec::new();
    crate::ir::visit::walk_exprs_in_stmt(stmt, &mut |e| {
        if let ExprKind::Var(var) = e.kind() {
            let free =
                var.dtype().is_handle() && !defined.contains(var) && !allocated.contains(var);
            if free && seen.insert(var.clone()) {
                pointers.push(var.clone());
            }
        }
    });
    pointers
}

/// The buffers a kernel body accesses but does not allocate (first use
/// first), and the scalar variables it uses but does not define.
fn free_variables(stmt: &Stmt) -> (Vec<Buffer>, Vec<Var>) {
    struct Uses {
        buffers: Vec<Buffer>,
        seen_buffers: crate::ir::identity::BufferSet,
        vars: Vec<Var>,
        seen_vars: VarSet,
    }
    impl Visitor for Uses {
        fn visit_expr(&mut self, expr: &Expr) {
            if let ExprKind::Var(var) = expr.kind() {
                if !var.dtype().is_handle() && self.seen_vars.insert(var.clone()) {
                    self.vars.push(var.clone());
                }
            }
            walk_expr(self, expr);
        }
        fn visit_buffer_use(&mut self, buffer: &Buffer) {
            if self.seen_buffers.insert(buffer.clone()) {
                self.buffers.push(buffer.clone());
            }
        }
        fn visit_stmt(&mut self, stmt: &Stmt) {
            walk_stmt(self, stmt);
        }
    }
    let mut uses = Uses {
        buffers: Vec::new(),
        seen_buffers: Default::default(),
        vars: Vec::new(),
        seen_vars: Default::default(),
    };
    uses.visit_stmt(stmt);
    let defined = defined_vars(stmt);
    let mut allocated: VarMap<()> = Default::default();
    walk_stmts(stmt, &mut |s| {
        if let StmtKind::AllocBuffer { buffer, .. } = s.kind() {
            allocated.insert(buffer.data().clone(), ());
        }
    });
    let buffers = uses
        .buffers
        .into_iter()
        .filter(|b| !allocated.contains_key(b.data()) && !defined.contains(b.data()))
        .collect();
    let vars = uses
        .vars
        .into_iter()
        .filter(|v| !defined.contains(v))
        .collect();
    (buffers, vars)
}
