//! The host side of a CUDA run: the host function that `split-host-device`
//! left (allocations of global scratch buffers, serial loops, kernel
//! launches with their extents) walked statement by statement, with every
//! launch handed to a [`KernelRunner`]: the GPU through the driver, or the
//! CPU emulation.

use super::KernelInfo;
use crate::driver::shape_binding::evaluate_integer;
use crate::ir::identity::VarMap;
use crate::ir::{DataType, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var};

/// A kernel argument as the host computed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LaunchArg {
    /// A buffer's address in the runner's memory.
    Pointer(u64),
    /// An integer scalar of this type.
    Int(i64, DataType),
    /// A floating-point scalar of this type.
    Float(f64, DataType),
}

/// One launch: the grid and block extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (beyond the static 48 KiB).
    pub dynamic_shared_bytes: u32,
}

/// Where kernels run.
pub trait KernelRunner {
    /// Storage for a global buffer the host allocates, zeroed: its address.
    fn allocate(&mut self, bytes: usize) -> Result<u64, String>;
    /// Runs `kernel` once to completion.
    fn launch(
        &mut self,
        kernel: &KernelInfo,
        args: &[LaunchArg],
        dims: LaunchDims,
    ) -> Result<(), String>;
}

/// Walks `host` (its parameters bound in `values`: buffer data variables
/// to addresses, scalars and shape variables to values), launching kernels
/// through `runner`.
pub fn run_host(
    host: &PrimFunc,
    kernels: &[KernelInfo],
    values: VarMap<LaunchArg>,
    runner: &mut dyn KernelRunner,
) -> Result<(), String> {
    let mut walker = HostWalker {
        kernels,
        values,
        runner,
    };
    walker.stmt(&host.body)
}

struct HostWalker<'a> {
    kernels: &'a [KernelInfo],
    values: VarMap<LaunchArg>,
    runner: &'a mut dyn KernelRunner,
}

impl HostWalker<'_> {
    fn integers(&self) -> VarMap<i64> {
        self.values
            .iter()
            .filter_map(|(var, value)| match value {
                LaunchArg::Int(v, _) => Some((var.clone(), *v)),
                _ => None,
            })
            .collect()
    }

    fn integer(&self, expr: &Expr) -> Result<i64, String> {
        evaluate_integer(expr, &self.integers())
            .ok_or_else(|| format!("the host cannot evaluate `{expr}`"))
    }

    fn value(&self, expr: &Expr) -> Result<LaunchArg, String> {
        match expr.kind() {
            ExprKind::Var(var) if self.values.contains_key(var) => Ok(self.values[var]),
            ExprKind::Float(value) => Ok(LaunchArg::Float(*value, expr.dtype())),
            _ if expr.dtype().is_float() => Err(format!("the host cannot evaluate `{expr}`")),
            _ => Ok(LaunchArg::Int(self.integer(expr)?, expr.dtype())),
        }
    }

    fn bind(&mut self, var: &Var, value: LaunchArg) {
        self.values.insert(var.clone(), value);
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<(), String> {
        match stmt.kind() {
            StmtKind::Seq(stmts) => stmts.iter().try_for_each(|s| self.stmt(s)),
            StmtKind::For(for_loop) => {
                let min = self.integer(&for_loop.min)?;
                let extent = self.integer(&for_loop.extent)?;
                for i in min..min + extent {
                    self.bind(
                        &for_loop.loop_var,
                        LaunchArg::Int(i, for_loop.loop_var.dtype()),
                    );
                    self.stmt(&for_loop.body)?;
                }
                Ok(())
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if self.integer(condition)? != 0 {
                    self.stmt(then_case)
                } else if let Some(else_case) = else_case {
                    self.stmt(else_case)
                } else {
                    Ok(())
                }
            }
            StmtKind::LetStmt { var, value, body } => {
                let value = self.value(value)?;
                self.bind(var, value);
                self.stmt(body)
            }
            StmtKind::DeclBuffer { body, .. } => self.stmt(body),
            StmtKind::AttrStmt(attr) => self.stmt(&attr.body),
            StmtKind::AllocBuffer { buffer, body, .. } => {
                let mut elements = 1i64;
                for extent in buffer.shape() {
                    elements = elements.saturating_mul(self.integer(extent)?);
                }
                let bytes = (elements.max(1) as usize) * buffer.dtype().bytes();
                let address = self.runner.allocate(bytes)?;
                self.bind(buffer.data(), LaunchArg::Pointer(address));
                self.stmt(body)
            }
            StmtKind::Assert {
                condition,
                message,
                body,
                ..
            } => {
                if self.integer(condition)? == 0 {
                    let text: Vec<String> = message
                        .iter()
                        .map(|m| match m.kind() {
                            ExprKind::Str(s) => s.clone(),
                            _ => m.to_string(),
                        })
                        .collect();
                    return Err(format!("assertion failed: {}", text.join("")));
                }
                self.stmt(body)
            }
            StmtKind::Evaluate(expr) => match expr.kind() {
                ExprKind::Call { op, args } if op.name() == "call_packed" => self.launch(args),
                _ if expr.is_const() => Ok(()),
                _ => Err(format!("the host cannot run `{expr}`")),
            },
            _ => Err("the host function has a statement the CUDA host cannot run".to_string()),
        }
    }

    fn launch(&mut self, args: &[Expr]) -> Result<(), String> {
        let name = match args.first().map(Expr::kind) {
            Some(ExprKind::Str(name)) => name.clone(),
            _ => return Err("a kernel launch without a kernel name".to_string()),
        };
        let kernel = self
            .kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| format!("no kernel `{name}` was compiled"))?;
        let count = kernel.params.len();
        if args.len() != 1 + count + kernel.launch_tags.len() {
            return Err(format!(
                "the launch of `{name}` has the wrong number of arguments"
            ));
        }
        let mut values = Vec::with_capacity(count);
        for arg in &args[1..=count] {
            values.push(self.value(arg)?);
        }
        let mut dims = LaunchDims {
            grid: [1; 3],
            block: [1; 3],
            dynamic_shared_bytes: 0,
        };
        for (tag, extent) in kernel.launch_tags.iter().zip(&args[1 + count..]) {
            let extent = self.integer(extent)?;
            if tag == crate::transform::split_host_device::DYNAMIC_SHARED_MEMORY_TAG {
                dims.dynamic_shared_bytes = u32::try_from(extent)
                    .map_err(|_| format!("`{name}` asks for {extent} bytes of shared memory"))?;
                continue;
            }
            let extent = u32::try_from(extent)
                .ok()
                .filter(|e| *e > 0)
                .ok_or_else(|| format!("`{tag}` of `{name}` has extent {extent}"))?;
            let axis = match tag.rsplit('.').next() {
                Some("y") => 1,
                Some("z") => 2,
                _ => 0,
            };
            if tag.starts_with("blockIdx") {
                dims.grid[axis] = extent;
            } else {
                dims.block[axis] = extent;
            }
        }
        self.runner.launch(kernel, &values, dims)
    }
}
