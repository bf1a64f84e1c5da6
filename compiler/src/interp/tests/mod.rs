//! Tests of the interpreter on hand-built IR: whole programs (block-level
//! and lowered), expression semantics, and the errors bad programs get.

mod blocks;
mod build;
mod errors;
mod expressions;
mod lowered;
mod parsed;

use super::machine::{InterpOptions, Interpreter};
use super::{run_function, Arg, InterpError, Tensor, Value};
use crate::ir::{Expr, PrimFunc};

/// Runs `func` on `args` and returns the arguments afterwards.
fn run(func: &PrimFunc, mut args: Vec<Arg>) -> Result<Vec<Arg>, InterpError> {
    run_function(func, &mut args)?;
    Ok(args)
}

/// The tensor argument at `position` as `f64` lanes.
fn floats(args: &[Arg], position: usize) -> Vec<f64> {
    args[position].tensor().unwrap().to_f64_vec().unwrap()
}

/// The tensor argument at `position` as `i64` lanes.
fn ints(args: &[Arg], position: usize) -> Vec<i64> {
    args[position].tensor().unwrap().to_i64_vec().unwrap()
}

/// A zero tensor argument.
fn zeros(dtype: crate::ir::DataType, shape: &[usize]) -> Arg {
    Arg::Tensor(Tensor::zeros(dtype, shape).unwrap())
}

/// The value of an expression that needs no variables or buffers.
fn eval_closed(expr: &Expr) -> Result<Value, InterpError> {
    let options = InterpOptions::default();
    Interpreter::new(&options).eval(expr)
}
