//! Tensor-core fragments in CUDA C (TVM's InferFragment and the wmma part
//! of its CUDA codegen): a `wmma.*` buffer becomes an array of
//! `nvcuda::wmma::fragment`s, one per tile, and TVM's builtins
//! (`tvm_fill_fragment`, `tvm_load_matrix_sync`, `tvm_mma_sync`,
//! `tvm_store_matrix_sync`) become the `nvcuda::wmma` calls. A fragment's
//! shape (m, n, k) and layout are not in its buffer: they come from the
//! calls that fill, load and store it.

use super::KernelWriter;
use crate::ir::identity::VarMap;
use crate::ir::visit::walk_exprs_in_stmt;
use crate::ir::{Buffer, Expr, ExprKind, Stmt, Var};
use crate::source::Span;

/// The builtins that name a fragment by its buffer's data and a tile index.
pub const WMMA_BUILTINS: &[&str] = &[
    "tvm_fill_fragment",
    "tvm_load_matrix_sync",
    "tvm_mma_sync",
    "tvm_store_matrix_sync",
];

/// What the calls on one fragment buffer say of its tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentShape {
    /// `m, n, k` of the tensor-core operation.
    pub mnk: [i64; 3],
    /// `row_major` or `col_major`, from the load of a `matrix_a`/`matrix_b`.
    pub layout: Option<String>,
}

/// `matrix_a`, `matrix_b` or `accumulator` for a `wmma.*` scope.
pub fn fragment_use(scope: &str) -> Option<&'static str> {
    match scope {
        "wmma.matrix_a" => Some("matrix_a"),
        "wmma.matrix_b" => Some("matrix_b"),
        "wmma.accumulator" => Some("accumulator"),
        _ => None,
    }
}

/// The elements of one tile: m x k of `matrix_a`, k x n of `matrix_b`,
/// m x n of the accumulator.
pub fn tile_elements(fragment_use: &str, [m, n, k]: [i64; 3]) -> i64 {
    match fragment_use {
        "matrix_a" => m * k,
        "matrix_b" => k * n,
        _ => m * n,
    }
}

/// The fragment shape of every buffer the wmma calls of `body` name, by
/// data variable. A call whose shape or layout is not a constant is left
/// out; the buffer's declaration then reports it.
pub fn fragment_shapes(body: &Stmt) -> VarMap<FragmentShape> {
    let mut shapes: VarMap<FragmentShape> = VarMap::default();
    walk_exprs_in_stmt(body, &mut |expr| {
        let ExprKind::Call { op, args } = expr.kind() else {
            return;
        };
        let with_shape = matches!(
            op.name(),
            "tvm_fill_fragment" | "tvm_load_matrix_sync" | "tvm_store_matrix_sync"
        );
        let (Some(data), true) = (args.first().and_then(Expr::as_var), with_shape) else {
            return;
        };
        let mnk = [1, 2, 3].map(|i| args.get(i).and_then(Expr::as_int));
        let [Some(m), Some(n), Some(k)] = mnk else {
            return;
        };
        let layout = match (op.name(), args.get(7).map(Expr::kind)) {
            ("tvm_load_matrix_sync", Some(ExprKind::Str(layout))) => Some(layout.clone()),
            _ => None,
        };
        let entry = shapes.entry(data.clone()).or_insert(FragmentShape {
            mnk: [m, n, k],
            layout: None,
        });
        if entry.layout.is_none() {
            entry.layout = layout;
        }
    });
    shapes
}

impl KernelWriter {
    /// `nvcuda::wmma::fragment<...> name[tiles];` for a `wmma.*` buffer.
    pub(super) fn fragment_allocation(&mut self, buffer: &Buffer, elements: i64, span: Span) {
        let ty = self.type_of(buffer.dtype(), span);
        let Some(fragment_use) = fragment_use(buffer.scope()) else {
            self.unsupported(
                format!(
                    "`{}` in scope \"{}\" (the wmma scopes are \"wmma.matrix_a\", \"wmma.matrix_b\" and \"wmma.accumulator\")",
                    buffer.name(),
                    buffer.scope()
                ),
                span,
            );
            return;
        };
        let Some(shape) = self.fragment_shapes.get(buffer.data()).cloned() else {
            self.unsupported(
                format!(
                    "`{}`, a wmma fragment that no wmma call fills, loads or stores with a constant shape (tensorize the blocks that read and write it)",
                    buffer.name()
                ),
                span,
            );
            return;
        };
        let tile = tile_elements(fragment_use, shape.mnk);
        if tile <= 0 || elements % tile != 0 {
            self.unsupported(
                format!(
                    "`{}`, a wmma fragment buffer of {elements} elements, not a whole number of {tile}-element tiles",
                    buffer.name()
                ),
                span,
            );
            return;
        }
        let [m, n, k] = shape.mnk;
        let layout = match (fragment_use, shape.layout.as_deref()) {
            ("accumulator", _) => String::new(),
            (_, Some(layout @ ("row_major" | "col_major"))) => {
                format!(", nvcuda::wmma::{layout}")
            }
            _ => {
                self.unsupported(
                    format!(
                        "`{}`, a wmma {fragment_use} fragment with no `row_major` or `col_major` load",
                        buffer.name()
                    ),
                    span,
                );
                return;
            }
        };
        let name = self.fresh_name(buffer.name());
        self.data_names.insert(buffer.data().clone(), name.clone());
        self.fragment_names
            .insert(buffer.data().clone(), name.clone());
        // The emulation holds a whole tile per thread; the GPU spreads it
        // over the warp's registers.
        self.local_bytes += elements * buffer.dtype().bytes() as i64;
        self.line(&format!(
            "nvcuda::wmma::fragment<nvcuda::wmma::{fragment_use}, {m}, {n}, {k}, {ty}{layout}> {name}[{}];",
            elements / tile
        ));
    }

    /// `fragment[index]` for a wmma call's (data, index) pair.
    fn fragment(&mut self, data: &Expr, index: &Expr, span: Span) -> String {
        let name = data
            .as_var()
            .and_then(|var| self.fragment_names.get(var).cloned());
        let Some(name) = name else {
            self.unsupported(
                format!("a wmma call on `{data}`, which is not a wmma fragment of the kernel"),
                span,
            );
            return "0".to_string();
        };
        let index = self.expr(index);
        format!("{name}[{}]", super::strip_parens(&index))
    }

    /// The C text of a wmma builtin call.
    pub(super) fn wmma_call(&mut self, name: &str, args: &[Expr], span: Span) -> String {
        let expected = if name == "tvm_fill_fragment" { 6 } else { 8 };
        if args.len() != expected {
            self.unsupported(format!("`T.{name}` with {} arguments", args.len()), span);
            return "0".to_string();
        }
        match name {
            "tvm_fill_fragment" => {
                let fragment = self.fragment(&args[0], &args[4], span);
                let value = self.expr(&args[5]);
                format!("nvcuda::wmma::fill_fragment({fragment}, {value})")
            }
            "tvm_mma_sync" => {
                let parts: Vec<String> = args
                    .chunks(2)
                    .map(|pair| self.fragment(&pair[0], &pair[1], span))
                    .collect();
                format!("nvcuda::wmma::mma_sync({})", parts.join(", "))
            }
            _ => {
                let fragment = self.fragment(&args[0], &args[4], span);
                let pointer = self.pointer(&args[5], span);
                let stride = self.expr(&args[6]);
                let is_accumulator = args[0].as_var().is_some_and(|var| {
                    var.node()
                        .pointer
                        .as_ref()
                        .is_some_and(|p| p.scope == "wmma.accumulator")
                });
                let layout = match args[7].kind() {
                    ExprKind::Str(layout) if layout == "row_major" || layout == "col_major" => {
                        format!("nvcuda::wmma::mem_{layout}")
                    }
                    _ => {
                        self.unsupported(
                            format!("`T.{name}` with a layout other than \"row_major\" or \"col_major\""),
                            span,
                        );
                        return "0".to_string();
                    }
                };
                let stride = super::strip_parens(&stride);
                if name == "tvm_store_matrix_sync" {
                    format!("nvcuda::wmma::store_matrix_sync({pointer}, {fragment}, {stride}, {layout})")
                } else if is_accumulator {
                    format!(
                        "nvcuda::wmma::load_matrix_sync({fragment}, {pointer}, {stride}, {layout})"
                    )
                } else {
                    format!("nvcuda::wmma::load_matrix_sync({fragment}, {pointer}, {stride})")
                }
            }
        }
    }

    /// The memory operand of a tensor-core load or store:
    /// `T.tvm_access_ptr(type, data, offset, extent, rw_mask)` as a pointer
    /// to its first element (in the emulation, a checked pointer).
    pub(super) fn pointer(&mut self, pointer: &Expr, span: Span) -> String {
        let access = match pointer.kind() {
            ExprKind::Call { op, args } if op.name() == "tvm_access_ptr" && args.len() == 5 => args,
            _ => {
                self.unsupported(
                    format!(
                        "the tensor-core memory operand `{pointer}` (write it as `T.tvm_access_ptr(...)`)"
                    ),
                    span,
                );
                return "0".to_string();
            }
        };
        let Some(data) = access[1].as_var() else {
            self.unsupported(
                format!("`{}`, a pointer that is not a buffer's data", access[1]),
                span,
            );
            return "0".to_string();
        };
        let Some(storage) = self.data_names.get(data).cloned() else {
            self.unsupported(
                format!(
                    "a pointer into `{}`, which the kernel does not have",
                    data.name()
                ),
                span,
            );
            return "0".to_string();
        };
        let annotated = access[0].dtype();
        let stored = data.node().pointer.as_ref().map(|p| p.element);
        if stored.is_some_and(|stored| stored != annotated) {
            self.unsupported(
                format!(
                    "a `{annotated}` pointer into `{}`, whose elements are another type",
                    data.name()
                ),
                span,
            );
        }
        let offset = self.expr(&access[2]);
        let offset = super::strip_parens(&offset).to_string();
        if self.options.emulation {
            format!("tirc_emu::pointer_into({storage}, {offset})")
        } else {
            format!("(&{storage}[{offset}])")
        }
    }

    /// True when `var` is the data of a wmma fragment of this kernel.
    pub(super) fn is_fragment(&self, var: &Var) -> bool {
        self.fragment_names.contains_key(var)
    }
}
