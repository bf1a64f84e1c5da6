//! TVM's tensor-core builtins (`tvm_fill_fragment`, `tvm_load_matrix_sync`,
//! `tvm_mma_sync`, `tvm_store_matrix_sync`) on `wmma.*` buffers, as the
//! block-level program their descriptions state: a fragment buffer holds
//! its tiles where the description's copy would put them (tile `index`
//! counts row-major over the buffer's tiles, as the intrinsics compute it
//! from `elem_offset` and the row stride), so a tensorized step and the
//! untensorized program agree element for element. The product adds the
//! k products one after another, rounding to the accumulator's type after
//! each, as the description's reduction does.

use super::error::{InterpError, InterpResult};
use super::layout::{decode_element, encode_element};
use super::machine::Interpreter;
use super::value::{cast_scalar, ElementType, Scalar};
use crate::ir::{Buffer, Expr, ExprKind};

/// Which operand of the tensor-core product a fragment buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragmentUse {
    /// `wmma.matrix_a`: m x k tiles.
    MatrixA,
    /// `wmma.matrix_b`: k x n tiles.
    MatrixB,
    /// `wmma.accumulator`: m x n tiles.
    Accumulator,
}

/// What the interpreter keeps about a storage allocated for a fragment buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentStorage {
    /// The operand it holds.
    pub fragment_use: FragmentUse,
    /// Elements from one row of the buffer to the next; `None` for a flat
    /// buffer (after `flatten-buffer`), whose tiles lie one after another.
    pub row_length: Option<i64>,
    /// Its element type.
    pub element: ElementType,
    /// Loaded `col_major`: its tiles hold the operand transposed.
    pub column_major: bool,
}

impl FragmentStorage {
    /// The description of `buffer` when it is a `wmma.*` fragment.
    pub fn of(buffer: &Buffer, strides: &[i64]) -> InterpResult<Option<Self>> {
        let fragment_use = match buffer.scope() {
            "wmma.matrix_a" => FragmentUse::MatrixA,
            "wmma.matrix_b" => FragmentUse::MatrixB,
            "wmma.accumulator" => FragmentUse::Accumulator,
            _ => return Ok(None),
        };
        // The geometry's strides are the declared or the row-major ones.
        let row_length = match strides.len() {
            0 | 1 => None,
            n => Some(strides[n - 2]),
        };
        Ok(Some(FragmentStorage {
            fragment_use,
            row_length,
            element: ElementType::of(buffer.dtype())?,
            column_major: false,
        }))
    }

    /// Rows and columns of one tile as the buffer holds it.
    fn tile(&self, [m, n, k]: [i64; 3]) -> (i64, i64) {
        let (rows, cols) = match self.fragment_use {
            FragmentUse::MatrixA => (m, k),
            FragmentUse::MatrixB => (k, n),
            FragmentUse::Accumulator => (m, n),
        };
        if self.column_major {
            (cols, rows)
        } else {
            (rows, cols)
        }
    }
}

/// A fragment operand: its storage, its description and its tile's first
/// element and shape.
struct Tile {
    handle: u64,
    fragment: FragmentStorage,
    /// Elements from one row of the tile to the next in the buffer.
    row_length: i64,
    first: i64,
    rows: i64,
    cols: i64,
}

/// Memory named by `T.tvm_access_ptr(type, data, offset, extent, mask)`.
pub(super) struct Pointer {
    pub(super) handle: u64,
    pub(super) first: i64,
    pub(super) element: ElementType,
}

fn wrong(message: impl Into<String>) -> InterpError {
    InterpError::new(message.into())
}

impl Interpreter<'_> {
    /// Runs one tensor-core builtin.
    pub(super) fn eval_wmma(&mut self, name: &str, args: &[Expr]) -> InterpResult<()> {
        let expected = if name == "tvm_fill_fragment" { 6 } else { 8 };
        if args.len() != expected {
            return Err(wrong(format!(
                "`T.{name}` takes {expected} arguments, not {}",
                args.len()
            )));
        }
        match name {
            "tvm_mma_sync" => {
                let d = self.tile_operand(&args[0], &args[1], None)?;
                let a = self.tile_operand(&args[2], &args[3], None)?;
                let b = self.tile_operand(&args[4], &args[5], None)?;
                let c = self.tile_operand(&args[6], &args[7], None)?;
                self.multiply_accumulate(&d, &a, &b, &c)
            }
            _ => {
                let mnk = [1, 2, 3].map(|i| args[i].as_int().filter(|v| (1..=64).contains(v)));
                let [Some(m), Some(n), Some(k)] = mnk else {
                    return Err(wrong(format!(
                        "`T.{name}` needs m, n and k as constants from 1 to 64 (tensor-core tiles are 8 to 32 wide)"
                    )));
                };
                let layout = match args.get(7).map(Expr::kind) {
                    Some(ExprKind::Str(layout)) => Some(layout.as_str()),
                    _ => None,
                };
                if name == "tvm_load_matrix_sync" {
                    self.mark_layout(&args[0], layout == Some("col_major"))?;
                }
                let tile = self.tile_operand(&args[0], &args[4], Some([m, n, k]))?;
                match name {
                    "tvm_fill_fragment" => {
                        let value = self.eval(&args[5])?.scalar()?;
                        let value = cast_scalar(
                            ElementType::of(args[5].dtype())?,
                            value,
                            tile.fragment.element,
                        )?;
                        self.for_each_element(&tile, |_, _| Ok(value))
                    }
                    "tvm_load_matrix_sync" => {
                        let memory = self.pointer(&args[5])?;
                        let stride = self.eval_i64(&args[6])?;
                        self.for_each_element(&tile, |interp, (r, c)| {
                            let scalar = interp.read_element(
                                memory.handle,
                                memory.element,
                                memory.first + r * stride + c,
                            )?;
                            cast_scalar(memory.element, scalar, tile.fragment.element)
                        })
                    }
                    _ => {
                        if layout != Some("row_major") {
                            return Err(wrong(
                                "`T.tvm_store_matrix_sync` stores \"row_major\" only in the interpreter",
                            ));
                        }
                        let memory = self.pointer(&args[5])?;
                        let stride = self.eval_i64(&args[6])?;
                        for r in 0..tile.rows {
                            for c in 0..tile.cols {
                                let scalar = self.read_element(
                                    tile.handle,
                                    tile.fragment.element,
                                    tile.first + r * tile.row_length + c,
                                )?;
                                let scalar =
                                    cast_scalar(tile.fragment.element, scalar, memory.element)?;
                                self.write_element(
                                    memory.handle,
                                    memory.element,
                                    memory.first + r * stride + c,
                                    scalar,
                                )?;
                            }
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    /// Records that a `matrix_a`/`matrix_b` fragment is loaded column-major.
    fn mark_layout(&mut self, data: &Expr, column_major: bool) -> InterpResult<()> {
        let handle = self.eval(data)?.as_handle()?;
        let storage = self.memory.get_mut(handle)?;
        match storage.fragment.as_mut() {
            Some(fragment) => {
                fragment.column_major = column_major;
                Ok(())
            }
            None => Err(not_a_fragment(&storage.name)),
        }
    }

    /// The tile `index` of the fragment buffer whose data is `data`; the
    /// shape comes from `mnk`, or for `tvm_mma_sync` from 16x16x16 tiles
    /// the buffer's fragments were filled or loaded with.
    fn tile_operand(
        &mut self,
        data: &Expr,
        index: &Expr,
        mnk: Option<[i64; 3]>,
    ) -> InterpResult<Tile> {
        let handle = self.eval(data)?.as_handle()?;
        let index = self.eval_i64(index)?;
        let storage = self.memory.get(handle)?;
        let fragment = storage
            .fragment
            .ok_or_else(|| not_a_fragment(&storage.name))?;
        let mnk = mnk.or(storage.fragment_mnk).ok_or_else(|| {
            wrong(format!(
                "the interpreter does not support `T.tvm_mma_sync` on `{}`, a fragment no wmma call filled or loaded: the call does not say its tile shape",
                storage.name
            ))
        })?;
        let (rows, cols) = fragment.tile(mnk);
        let row_length = fragment.row_length.unwrap_or(cols);
        if cols <= 0 || row_length < cols || row_length % cols != 0 || index < 0 {
            return Err(wrong(format!(
                "tile {index} of `{}`: its rows of {row_length} elements are not whole {cols}-column tiles",
                storage.name
            )));
        }
        let per_row = row_length / cols;
        let first = index / per_row * rows * row_length + index % per_row * cols;
        let storage = self.memory.get_mut(handle)?;
        storage.fragment_mnk = Some(mnk);
        Ok(Tile {
            handle,
            fragment,
            row_length,
            first,
            rows,
            cols,
        })
    }

    /// Sets every element of `tile` to `value(row, column)`.
    fn for_each_element(
        &mut self,
        tile: &Tile,
        mut value: impl FnMut(&mut Self, (i64, i64)) -> InterpResult<Scalar>,
    ) -> InterpResult<()> {
        for r in 0..tile.rows {
            for c in 0..tile.cols {
                let scalar = value(self, (r, c))?;
                let at = tile.first + r * tile.row_length + c;
                self.write_element(tile.handle, tile.fragment.element, at, scalar)?;
            }
        }
        Ok(())
    }

    /// `d = c + a * b` over whole tiles.
    fn multiply_accumulate(&mut self, d: &Tile, a: &Tile, b: &Tile, c: &Tile) -> InterpResult<()> {
        let read = |interp: &mut Self, tile: &Tile, row: i64, col: i64| -> InterpResult<f64> {
            // A column-major tile holds the operand transposed.
            let (r, c) = if tile.fragment.column_major {
                (col, row)
            } else {
                (row, col)
            };
            let scalar = interp.read_element(
                tile.handle,
                tile.fragment.element,
                tile.first + r * tile.row_length + c,
            )?;
            match cast_scalar(tile.fragment.element, scalar, ElementType::Float64)? {
                Scalar::Float(value) => Ok(value),
                Scalar::Int(value) => Ok(value as f64),
                Scalar::UInt(value) => Ok(value as f64),
                _ => Err(wrong("a tensor-core operand that is not a number")),
            }
        };
        // Logical shapes: a is m x k, b is k x n.
        let (m, k) = if a.fragment.column_major {
            (a.cols, a.rows)
        } else {
            (a.rows, a.cols)
        };
        let n = if b.fragment.column_major {
            b.rows
        } else {
            b.cols
        };
        let accumulator = d.fragment.element;
        let mut result = Vec::new();
        for i in 0..m {
            for j in 0..n {
                let mut sum = read(self, c, i, j)?;
                for kk in 0..k {
                    let product =
                        accumulator.round_float(read(self, a, i, kk)? * read(self, b, kk, j)?);
                    sum = accumulator.round_float(sum + product);
                }
                result.push(cast_scalar(
                    ElementType::Float64,
                    Scalar::Float(sum),
                    accumulator,
                )?);
            }
        }
        for i in 0..m {
            for j in 0..n {
                let at = d.first + i * d.row_length + j;
                self.write_element(d.handle, accumulator, at, result[(i * n + j) as usize])?;
            }
        }
        Ok(())
    }

    /// The memory a `T.tvm_access_ptr(...)` operand names.
    pub(super) fn pointer(&mut self, pointer: &Expr) -> InterpResult<Pointer> {
        let args = match pointer.kind() {
            ExprKind::Call { op, args } if op.name() == "tvm_access_ptr" && args.len() == 5 => args,
            _ => {
                return Err(wrong(format!(
                    "the wmma memory operand `{pointer}` is not a `T.tvm_access_ptr(...)`"
                )))
            }
        };
        let handle = self.eval(&args[1])?.as_handle()?;
        let first = self.eval_i64(&args[2])?;
        Ok(Pointer {
            handle,
            first,
            element: ElementType::of(args[0].dtype())?,
        })
    }

    fn element_bytes(&self, handle: u64, element: ElementType, at: i64) -> InterpResult<usize> {
        let storage = self.memory.get(handle)?;
        let size = element.byte_size();
        let start = usize::try_from(at).ok().and_then(|at| at.checked_mul(size));
        match start {
            Some(start) if start + size <= storage.bytes.len() => Ok(start),
            _ => Err(wrong(format!(
                "a tensor-core operation reaches element {at} of `{}`, outside its {} elements",
                storage.name,
                storage.bytes.len() / size
            ))),
        }
    }

    pub(super) fn read_element(
        &self,
        handle: u64,
        element: ElementType,
        at: i64,
    ) -> InterpResult<Scalar> {
        let start = self.element_bytes(handle, element, at)?;
        decode_element(&self.memory.get(handle)?.bytes[start..], element)
    }

    pub(super) fn write_element(
        &mut self,
        handle: u64,
        element: ElementType,
        at: i64,
        value: Scalar,
    ) -> InterpResult<()> {
        let start = self.element_bytes(handle, element, at)?;
        encode_element(
            value,
            element,
            &mut self.memory.get_mut(handle)?.bytes[start..],
        )
    }
}

fn not_a_fragment(name: &str) -> InterpError {
    wrong(format!(
        "a wmma call on `{name}`, which is not a buffer in a \"wmma.matrix_a\", \"wmma.matrix_b\" or \"wmma.accumulator\" scope"
    ))
}
