//! Arguments of a JIT-compiled kernel: each buffer copied into 64-byte
//! aligned storage (what generated code assumes of its pointers), scalars
//! and symbolic shapes encoded in the 64-bit slots of the packed wrapper,
//! and the results copied back into the tensors.

use super::shape_binding::bind_shape_vars;
use crate::codegen::signature::{KernelArgument, KernelSignature};
use crate::interp::{Arg, Tensor};
use crate::ir::{DataType, PrimFunc, TypeCode};
use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Alignment of argument storage, as TVM's `kAllocAlignment`.
pub const ARGUMENT_ALIGNMENT: usize = 64;

/// Zero-initialised bytes aligned to [`ARGUMENT_ALIGNMENT`].
pub struct AlignedBytes {
    pointer: *mut u8,
    length: usize,
    layout: Layout,
}

impl AlignedBytes {
    /// A copy of `bytes` in aligned storage (at least one alignment unit).
    pub fn copy_of(bytes: &[u8]) -> Result<AlignedBytes, String> {
        let size = bytes.len().max(1).next_multiple_of(ARGUMENT_ALIGNMENT);
        let layout =
            Layout::from_size_align(size, ARGUMENT_ALIGNMENT).map_err(|e| e.to_string())?;
        // SAFETY: the layout has a non-zero size.
        let pointer = unsafe { alloc_zeroed(layout) };
        if pointer.is_null() {
            return Err(format!("cannot allocate {size} bytes for an argument"));
        }
        // SAFETY: both ranges are valid and do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), pointer, bytes.len()) };
        Ok(AlignedBytes {
            pointer,
            length: bytes.len(),
            layout,
        })
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `pointer` holds `length` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.pointer, self.length) }
    }

    /// The address, for a pointer slot.
    pub fn address(&self) -> u64 {
        self.pointer as u64
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        // SAFETY: allocated in `copy_of` with this layout.
        unsafe { dealloc(self.pointer, self.layout) };
    }
}

/// A call ready to run: storage for every buffer and the packed slots.
pub struct KernelCall {
    slots: Vec<u64>,
    /// (parameter position, storage) for each buffer argument.
    buffers: Vec<(usize, AlignedBytes)>,
}

/// The 64-bit slot of a scalar argument of type `dtype`.
fn scalar_slot(arg: &Arg, dtype: DataType, name: &str) -> Result<u64, String> {
    let as_float = || match arg {
        Arg::Float(value) => Ok(*value),
        Arg::Int(value) => Ok(*value as f64),
        Arg::Tensor(_) => Err(format!("`{name}` is a scalar, but a tensor was given")),
    };
    Ok(match (dtype.code, dtype.bits) {
        (TypeCode::Float, 64) => as_float()?.to_bits(),
        (TypeCode::Float, 32) => u64::from((as_float()? as f32).to_bits()),
        (TypeCode::Float, 16) => u64::from(half::f16::from_f64(as_float()?).to_bits()),
        (TypeCode::BFloat, 16) => u64::from(half::bf16::from_f64(as_float()?).to_bits()),
        (TypeCode::Int | TypeCode::UInt | TypeCode::Bool, _) => match arg {
            Arg::Int(value) => *value as u64,
            _ => return Err(format!("`{name}` is {dtype}; give it an integer")),
        },
        _ => {
            return Err(format!(
                "`{name}` is {dtype}, which tirc cannot pass to a kernel"
            ))
        }
    })
}

impl KernelCall {
    /// Prepares a call of `func` (with the C ABI `signature`) on `args`,
    /// given in parameter order.
    pub fn prepare(
        func: &PrimFunc,
        signature: &KernelSignature,
        args: &[Arg],
    ) -> Result<KernelCall, String> {
        let shape_values = bind_shape_vars(func, args)?;
        let mut slots = Vec::with_capacity(signature.arguments.len());
        let mut buffers = Vec::new();
        for argument in &signature.arguments {
            match argument {
                KernelArgument::Buffer { param, .. } => {
                    let position = func
                        .params
                        .iter()
                        .position(|p| p == param)
                        .ok_or("unknown parameter")?;
                    let tensor = args[position]
                        .tensor()
                        .ok_or_else(|| format!("`{}` needs an array", param.name()))?;
                    let storage = AlignedBytes::copy_of(tensor.bytes())?;
                    slots.push(storage.address());
                    buffers.push((position, storage));
                }
                KernelArgument::Scalar { param } => {
                    let position = func
                        .params
                        .iter()
                        .position(|p| p == param)
                        .ok_or("unknown parameter")?;
                    slots.push(scalar_slot(&args[position], param.dtype(), param.name())?);
                }
                KernelArgument::ShapeVar { var } => {
                    let value = shape_values.get(var).ok_or_else(|| {
                        format!(
                            "the shape variable `{}` is not bound by any array",
                            var.name()
                        )
                    })?;
                    slots.push(*value as u64);
                }
            }
        }
        Ok(KernelCall { slots, buffers })
    }

    /// The packed slots.
    pub fn slots(&self) -> &[u64] {
        &self.slots
    }

    /// The current contents of every buffer argument, as tensors shaped like
    /// the arguments in `args`; scalars are returned unchanged.
    pub fn results(&self, args: &[Arg]) -> Result<Vec<Arg>, String> {
        // Only what is not read back from a buffer is cloned: copying an
        // input tensor just to overwrite it would double the memory touched.
        let mut updated: Vec<Option<Arg>> = vec![None; args.len()];
        for (position, storage) in &self.buffers {
            if let Some(Arg::Tensor(tensor)) = args.get(*position) {
                let tensor =
                    Tensor::from_bytes(tensor.dtype(), tensor.shape(), storage.as_slice().to_vec())
                        .map_err(|e| e.message)?;
                updated[*position] = Some(Arg::Tensor(tensor));
            }
        }
        Ok(args
            .iter()
            .zip(updated)
            .map(|(arg, updated)| updated.unwrap_or_else(|| arg.clone()))
            .collect())
    }
}
