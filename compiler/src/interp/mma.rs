//! `mma.sync` m16n8k16 and `ldmatrix` (`T.ptx_legacy.mma`,
//! `T.ptx_legacy.ldmatrix`, `T.cuda.mma_fill_legacy`,
//! `T.cuda.mma_store_legacy`) on `warp` buffers before `lower-warp-memory`,
//! lane by lane as the PTX ISA defines them. The calls sit in a
//! `threadIdx.x` loop that the interpreter runs one lane after another; a
//! lane's registers are its slice of the warp buffer (at the offset the
//! call gives, or `elem_offset + lane * registers` for fill and store), and
//! what an instruction takes from other lanes (the row addresses of
//! `ldmatrix`, the A and B registers of `mma`) is the call's operand
//! evaluated as that lane. Lane `4g + t` holds A (16x16, row-major)
//! `a[2r + e] = A[g + 8 (r % 2)][2t + 8 (r / 2) + e]`, B (16x8,
//! column-major) `b[2r + e] = B[2t + 8r + e][g]` and the accumulators
//! `c[2r + e] = C[g + 8r][2t + e]`.

use super::error::{InterpError, InterpResult};
use super::machine::Interpreter;
use super::value::{cast_scalar, ElementType, Scalar, Value};
use crate::ir::builtin::MmaBuiltin;
use crate::ir::{Expr, ExprKind, Var};

fn wrong(message: impl Into<String>) -> InterpError {
    InterpError::new(message.into())
}

/// The element type behind a register operand, which must be `warp` memory.
fn element_of(data: &Expr) -> InterpResult<ElementType> {
    let pointer = data
        .as_var()
        .and_then(|var| var.node().pointer.as_ref())
        .ok_or_else(|| {
            wrong(format!(
                "a tensor-core operand `{data}` that is not a buffer's data"
            ))
        })?;
    if pointer.scope != "warp" {
        return Err(wrong(format!(
            "a tensor-core operand `{data}` in \"{}\" memory: the interpreter runs these builtins on \"warp\" buffers, before `lower-warp-memory` gives each lane its own registers (run lowered kernels with `--target cuda --emulate`)",
            pointer.scope
        )));
    }
    ElementType::of(pointer.element)
}

fn as_f64(scalar: Scalar) -> InterpResult<f64> {
    match cast_scalar(ElementType::Float64, scalar, ElementType::Float64)? {
        Scalar::Float(value) => Ok(value),
        Scalar::Int(value) => Ok(value as f64),
        Scalar::UInt(value) => Ok(value as f64),
        _ => Err(wrong("a tensor-core operand that is not a number")),
    }
}

impl Interpreter<'_> {
    /// The `threadIdx.x` loop variable around the call and the lane it is at.
    fn current_lane(&self, name: &str) -> InterpResult<(Var, i64)> {
        let var = self.lane_loops.last().cloned().ok_or_else(|| {
            wrong(format!(
                "the interpreter does not support `{name}` outside every `threadIdx.x` loop: it is an instruction of a whole warp, run by each lane"
            ))
        })?;
        let lane = self.lookup(&var)?.as_i64()?;
        Ok((var, lane.rem_euclid(32)))
    }

    /// `expr` evaluated as lane `lane` of the warp the current lane is in.
    fn eval_as_lane(&mut self, expr: &Expr, var: &Var, lane: i64) -> InterpResult<i64> {
        let current = self.lookup(var)?.as_i64()?;
        let other = current - current.rem_euclid(32) + lane;
        let saved = self.bind(var, Value::int(var.dtype(), other)?);
        let value = self.eval_i64(expr);
        self.restore(saved);
        value
    }

    /// Runs one `mma.sync`/`ldmatrix` builtin for the current lane.
    pub(super) fn eval_mma(&mut self, builtin: MmaBuiltin, args: &[Expr]) -> InterpResult<()> {
        let name = builtin.tvm_name();
        if args.len() != builtin.arity() {
            return Err(wrong(format!(
                "`{name}` takes {} arguments, not {}",
                builtin.arity(),
                args.len()
            )));
        }
        let (lane_var, lane) = self.current_lane(name)?;
        match builtin {
            MmaBuiltin::Ldmatrix => self.ldmatrix(args, &lane_var, lane),
            MmaBuiltin::Mma => self.mma_m16n8k16(args, &lane_var, lane),
            MmaBuiltin::Fill => {
                let elements = self.eval_i64(&args[0])?;
                let handle = self.eval(&args[1])?.as_handle()?;
                let element = element_of(&args[1])?;
                let first = self.eval_i64(&args[2])? + lane * elements;
                let zero = cast_scalar(ElementType::Float64, Scalar::Float(0.0), element)?;
                for i in 0..elements {
                    self.write_element(handle, element, first + i, zero)?;
                }
                Ok(())
            }
            MmaBuiltin::Store => {
                if args[0].as_int() != Some(16) || args[1].as_int() != Some(16) {
                    return Err(wrong(
                        "the interpreter does not support `T.cuda.mma_store_legacy` of a tile other than 16x16",
                    ));
                }
                let tile = self.pointer(&args[2])?;
                let handle = self.eval(&args[3])?.as_handle()?;
                let element = element_of(&args[3])?;
                let first = self.eval_i64(&args[4])? + lane * 8;
                let stride = self.eval_i64(&args[5])?;
                for e in 0..8 {
                    let row = 8 * (e % 4 / 2) + lane / 4;
                    let column = 8 * (e / 4) + lane % 4 * 2 + e % 2;
                    let value = self.read_element(handle, element, first + e)?;
                    let value = cast_scalar(element, value, tile.element)?;
                    self.write_element(
                        tile.handle,
                        tile.element,
                        tile.first + row * stride + column,
                        value,
                    )?;
                }
                Ok(())
            }
        }
    }

    /// `ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16`: register j of
    /// lane l holds row l / 4, columns 2 (l % 4) and + 1 of matrix j (with
    /// `.trans`, column l / 4 of rows 2 (l % 4) and + 1), whose row r lane
    /// 8j + r addresses.
    fn ldmatrix(&mut self, args: &[Expr], lane_var: &Var, lane: i64) -> InterpResult<()> {
        let trans = args[0].as_int().ok_or_else(|| {
            wrong("`T.ptx_legacy.ldmatrix` with a transpose flag that is not a constant")
        })? != 0;
        let form_ok = args[1].as_int() == Some(4)
            && matches!(args[2].kind(), ExprKind::Str(kind) if kind == ".b16");
        if !form_ok {
            return Err(wrong(
                "the interpreter does not support `T.ptx_legacy.ldmatrix` other than four 8x8 matrices of `.b16`",
            ));
        }
        let handle = self.eval(&args[3])?.as_handle()?;
        let element = element_of(&args[3])?;
        let first = self.eval_i64(&args[4])?;
        let ExprKind::Call { args: access, .. } = args[5].kind() else {
            return Err(wrong(
                "`T.ptx_legacy.ldmatrix` whose shared operand is not a `T.tvm_access_ptr(...)`",
            ));
        };
        let shared = self.pointer(&args[5])?;
        for j in 0..4 {
            for e in 0..2 {
                let source = if trans {
                    8 * j + 2 * (lane % 4) + e
                } else {
                    8 * j + lane / 4
                };
                let row = self.eval_as_lane(&access[2], lane_var, source)?
                    + self.eval_as_lane(&args[6], lane_var, source)?;
                let column = if trans { lane / 4 } else { 2 * (lane % 4) + e };
                let value = self.read_element(shared.handle, shared.element, row + column)?;
                let value = cast_scalar(shared.element, value, element)?;
                self.write_element(handle, element, first + 2 * j + e, value)?;
            }
        }
        Ok(())
    }

    /// `mma.sync.aligned.m16n8k16.row.col`: the current lane's four
    /// accumulators, from rows g, g + 8 of A and columns 2t, 2t + 1 of B
    /// read from the lanes that hold them.
    fn mma_m16n8k16(&mut self, args: &[Expr], lane_var: &Var, lane: i64) -> InterpResult<()> {
        let form: Vec<Option<&str>> = args[..6]
            .iter()
            .map(|arg| match arg.kind() {
                ExprKind::Str(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let supported = MmaBuiltin::mma_form_supported(&form);
        if !supported {
            return Err(wrong(format!(
                "the interpreter does not support `T.ptx_legacy.mma` other than {}",
                MmaBuiltin::MMA_FORMS
            )));
        }
        let operand = |interp: &mut Self, i: usize| -> InterpResult<(u64, ElementType)> {
            Ok((interp.eval(&args[i])?.as_handle()?, element_of(&args[i])?))
        };
        let (a, a_element) = operand(self, 6)?;
        let (b, b_element) = operand(self, 8)?;
        let (c, c_element) = operand(self, 10)?;
        let c_first = self.eval_i64(&args[11])?;
        let (g, t) = (lane / 4, lane % 4);
        let mut outputs = [Scalar::Float(0.0); 4];
        for (slot, output) in outputs.iter_mut().enumerate() {
            let (r, e) = (slot as i64 / 2, slot as i64 % 2);
            let (row, column) = (g + 8 * r, 2 * t + e);
            let mut sum = as_f64(self.read_element(c, c_element, c_first + slot as i64)?)?;
            for k in 0..16 {
                let a_lane = 4 * (row % 8) + k % 8 / 2;
                let a_at = self.eval_as_lane(&args[7], lane_var, a_lane)?
                    + 2 * (row / 8)
                    + 4 * (k / 8)
                    + k % 2;
                let b_lane = 4 * column + k % 8 / 2;
                let b_at = self.eval_as_lane(&args[9], lane_var, b_lane)? + 2 * (k / 8) + k % 2;
                let product = as_f64(self.read_element(a, a_element, a_at)?)?
                    * as_f64(self.read_element(b, b_element, b_at)?)?;
                sum = c_element.round_float(sum + c_element.round_float(product));
            }
            *output = cast_scalar(ElementType::Float64, Scalar::Float(sum), c_element)?;
        }
        for (slot, output) in outputs.into_iter().enumerate() {
            self.write_element(c, c_element, c_first + slot as i64, output)?;
        }
        Ok(())
    }
}
