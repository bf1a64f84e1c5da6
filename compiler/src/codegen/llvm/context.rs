//! The state of code generation: the LLVM module being filled, the function
//! being written, what each TIR variable's value is, and the error type.

use super::target::TargetSpec;
use crate::diagnostics::Diagnostic;
use crate::ir::identity::VarMap;
use crate::ir::{Buffer, Expr, Var};
use crate::source::Span;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{BasicValueEnum, FunctionValue, PointerValue};

/// Diagnostic codes of the LLVM backend.
pub mod codes {
    /// A construct the CPU backend cannot generate (threads that
    /// synchronise, GPU intrinsics, float8, a function that still has blocks).
    pub const UNSUPPORTED: &str = "E0602";
    /// LLVM refused what tirc built: a bug in tirc, reported, not a panic.
    pub const INTERNAL: &str = "E0603";
    /// A variable or buffer used where it is not defined.
    pub const UNDEFINED: &str = "E0604";
}

/// Why code could not be generated; a diagnostic pointing at the IR.
#[derive(Debug)]
pub struct CodegenError(pub Box<Diagnostic>);

impl CodegenError {
    /// A construct the backend does not generate, at `span`.
    pub fn unsupported(message: impl Into<String>, span: Span) -> CodegenError {
        CodegenError(Box::new(Diagnostic::error(
            codes::UNSUPPORTED,
            message,
            span,
        )))
    }
    /// Something LLVM refused.
    pub fn internal(message: impl Into<String>) -> CodegenError {
        CodegenError(Box::new(Diagnostic::error(
            codes::INTERNAL,
            format!("internal error in the LLVM backend: {}", message.into()),
            Span::NONE,
        )))
    }
    /// A name with no definition in scope.
    pub fn undefined(message: impl Into<String>, span: Span) -> CodegenError {
        CodegenError(Box::new(Diagnostic::error(codes::UNDEFINED, message, span)))
    }
    /// The same error located at `span` when it has no location yet.
    pub fn or_at(mut self, span: Span) -> CodegenError {
        if !self.0.span.is_known() && span.is_known() {
            self.0.span = span;
        }
        self
    }
}

impl From<BuilderError> for CodegenError {
    fn from(error: BuilderError) -> CodegenError {
        CodegenError::internal(error.to_string())
    }
}

/// The result of every code generation step.
pub type CodegenResult<T> = Result<T, CodegenError>;

/// An `assert` of the program: its failure returns its 1-based number.
#[derive(Clone, Debug)]
pub struct AssertInfo {
    /// The error kind (`RuntimeError`, `ValueError`).
    pub kind: String,
    /// The message parts joined.
    pub message: String,
    /// Where the assert is.
    pub span: Span,
}

/// The function being written and its scopes.
pub struct FunctionState<'ctx> {
    /// The LLVM function.
    pub value: FunctionValue<'ctx>,
    /// The first block, where fixed-size allocations go.
    pub entry: BasicBlock<'ctx>,
    /// The value of each TIR variable in scope.
    pub vars: VarMap<BasicValueEnum<'ctx>>,
    /// Alignment in bytes of the storage each data variable points to.
    pub data_alignment: VarMap<u32>,
    /// Known divisors of let-bound integer variables, for alignment.
    pub known_multiples: VarMap<i64>,
    /// Heap allocations live at this point, freed before an early return.
    pub heap_allocations: Vec<PointerValue<'ctx>>,
    /// True inside the body of a parallel loop (nested ones run serially).
    pub in_parallel: bool,
    /// True when distinct buffers never overlap (`tir.noalias`).
    pub noalias: bool,
}

/// Module-wide code generation state.
pub struct Codegen<'ctx> {
    /// The LLVM context.
    pub context: &'ctx Context,
    /// The module being filled.
    pub module: Module<'ctx>,
    /// The instruction builder.
    pub builder: Builder<'ctx>,
    /// The target, for function attributes.
    pub target: TargetSpec,
    /// The function being written.
    pub function: Option<FunctionState<'ctx>>,
    /// The asserts of the kernel being written, in order.
    pub asserts: Vec<AssertInfo>,
    /// The loops of the kernel being written left for LLVM to vectorize.
    pub vectorized_loops: Vec<Span>,
    /// The loops of the kernel being written bound to GPU threads, which
    /// run as CPU loops.
    pub thread_bound_loops: Vec<Span>,
    /// Check at entry that every buffer argument is as aligned as the code
    /// assumes (`--runtime-checks`): a misaligned pointer returns an error
    /// instead of faulting in an aligned vector access.
    pub check_alignment: bool,
    /// The name of the kernel being written, for helper functions' names.
    pub kernel_symbol: String,
    /// How many parallel bodies the kernel has outlined so far.
    pub outlined_count: usize,
    /// The builtin by which the kernel's GPU threads wait for one another
    /// (`tvm_storage_sync`, `tvm_thread_allreduce`), if it calls one: then
    /// its thread bindings cannot run as CPU loops.
    pub thread_collective: Option<&'static str>,
}

impl<'ctx> Codegen<'ctx> {
    /// A new code generator filling a module named `name`.
    pub fn new(context: &'ctx Context, name: &str, target: TargetSpec) -> Codegen<'ctx> {
        let module = context.create_module(name);
        let triple = inkwell::targets::TargetTriple::create(&target.triple);
        module.set_triple(&triple);
        Codegen {
            context,
            module,
            builder: context.create_builder(),
            target,
            function: None,
            asserts: Vec::new(),
            vectorized_loops: Vec::new(),
            thread_bound_loops: Vec::new(),
            check_alignment: false,
            kernel_symbol: String::new(),
            outlined_count: 0,
            thread_collective: None,
        }
    }

    /// The function being written.
    pub fn current(&self) -> CodegenResult<&FunctionState<'ctx>> {
        self.function
            .as_ref()
            .ok_or_else(|| CodegenError::internal("no function is being written"))
    }

    /// The function being written, mutably.
    pub fn current_mut(&mut self) -> CodegenResult<&mut FunctionState<'ctx>> {
        self.function
            .as_mut()
            .ok_or_else(|| CodegenError::internal("no function is being written"))
    }

    /// The value of a variable in scope.
    pub fn var_value(&self, var: &Var, span: Span) -> CodegenResult<BasicValueEnum<'ctx>> {
        self.current()?.vars.get(var).copied().ok_or_else(|| {
            CodegenError::undefined(
                format!("variable `{}` is not defined here", var.name()),
                span,
            )
        })
    }

    /// Binds a variable for the rest of the function (or until rebound).
    pub fn bind(&mut self, var: &Var, value: BasicValueEnum<'ctx>) -> CodegenResult<()> {
        self.current_mut()?.vars.insert(var.clone(), value);
        Ok(())
    }

    /// The pointer to a buffer's storage.
    pub fn buffer_data(&self, buffer: &Buffer, span: Span) -> CodegenResult<PointerValue<'ctx>> {
        match self.current()?.vars.get(buffer.data()) {
            Some(BasicValueEnum::PointerValue(pointer)) => Ok(*pointer),
            Some(_) => Err(CodegenError::internal(format!(
                "the data of buffer `{}` is not a pointer",
                buffer.name()
            ))),
            None => Err(CodegenError::undefined(
                format!(
                    "buffer `{}` has no storage here (its data variable `{}` is not allocated or passed in)",
                    buffer.name(),
                    buffer.data().name()
                ),
                span,
            )),
        }
    }

    /// The block the builder writes into.
    pub fn insert_block(&self) -> CodegenResult<BasicBlock<'ctx>> {
        self.builder
            .get_insert_block()
            .ok_or_else(|| CodegenError::internal("the builder has no insertion point"))
    }

    /// A new block at the end of the current function.
    pub fn append_block(&self, name: &str) -> CodegenResult<BasicBlock<'ctx>> {
        Ok(self.context.append_basic_block(self.current()?.value, name))
    }

    /// A constant integer divisor of `expr` known without analysis, for
    /// alignment: literals, products, sums and let-bound variables.
    pub fn known_multiple(&self, expr: &Expr) -> i64 {
        use crate::ir::{BinaryOp, ExprKind};
        let gcd = |a: i64, b: i64| -> i64 {
            let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
            while b != 0 {
                (a, b) = (b, a % b);
            }
            i64::try_from(a).unwrap_or(1)
        };
        match expr.kind() {
            // Zero is a multiple of everything; cap it at a large power of two.
            ExprKind::Int(value) => {
                if *value == 0 {
                    1 << 20
                } else {
                    value.saturating_abs()
                }
            }
            ExprKind::Var(var) => self
                .function
                .as_ref()
                .and_then(|state| state.known_multiples.get(var).copied())
                .unwrap_or(1),
            ExprKind::Binary(BinaryOp::Mul, a, b) => self
                .known_multiple(a)
                .saturating_mul(self.known_multiple(b))
                .min(1 << 20),
            ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, a, b) => {
                gcd(self.known_multiple(a), self.known_multiple(b)).max(1)
            }
            ExprKind::Ramp { base, .. } => self.known_multiple(base),
            ExprKind::Cast(value) if expr.dtype().is_integer() => self.known_multiple(value),
            _ => 1,
        }
    }
}
