//! Kernels on a real GPU through the CUDA driver (cudarc, loaded
//! dynamically after `probe_cuda_device` found a device: cudarc panics
//! when `libcuda` is missing).

use super::host::{KernelRunner, LaunchArg, LaunchDims};
use super::KernelInfo;
use crate::ir::TypeCode;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

/// A GPU with the module's kernels loaded.
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    functions: Vec<(String, CudaFunction)>,
    allocations: Vec<CudaSlice<u8>>,
}

/// The compute capability of device 0 as `sm_XY`, when a GPU is present.
pub fn device_arch() -> Option<String> {
    if !crate::driver::toolchain::probe_cuda_device().found {
        return None;
    }
    let context = CudaContext::new(0).ok()?;
    let (major, minor) = context.compute_capability().ok()?;
    Some(format!("sm_{major}{minor}"))
}

fn driver_error(what: &str, error: impl std::fmt::Debug) -> String {
    format!("the CUDA driver failed to {what}: {error:?}")
}

impl Gpu {
    /// Opens device 0 and loads `ptx` with `kernels`.
    pub fn open(ptx: &str, kernels: &[KernelInfo]) -> Result<Gpu, String> {
        let probe = crate::driver::toolchain::probe_cuda_device();
        if !probe.found {
            return Err(format!("no CUDA device: {}", probe.detail));
        }
        let context = CudaContext::new(0).map_err(|e| driver_error("open device 0", e))?;
        let stream = context.default_stream();
        let module = context
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|e| driver_error("load the PTX", e))?;
        let mut functions = Vec::new();
        for kernel in kernels {
            let function = module
                .load_function(&kernel.name)
                .map_err(|e| driver_error(&format!("find `{}`", kernel.name), e))?;
            functions.push((kernel.name.clone(), function));
        }
        Ok(Gpu {
            context,
            stream,
            functions,
            allocations: Vec::new(),
        })
    }

    /// Copies `bytes` to a new device buffer; its device address.
    pub fn upload(&mut self, bytes: &[u8]) -> Result<u64, String> {
        let slice = self
            .stream
            .memcpy_stod(bytes)
            .map_err(|e| driver_error("copy an input to the device", e))?;
        let address = {
            let (address, _sync) = cudarc::driver::DevicePtr::device_ptr(&slice, &self.stream);
            address
        };
        self.allocations.push(slice);
        Ok(address)
    }

    /// The bytes of the device buffer made by the `index`-th upload or allocation.
    pub fn download(&self, index: usize) -> Result<Vec<u8>, String> {
        let slice = self.allocations.get(index).ok_or("no such device buffer")?;
        self.stream
            .memcpy_dtov(slice)
            .map_err(|e| driver_error("copy an output back", e))
    }

    /// How many device buffers were made so far.
    pub fn allocation_count(&self) -> usize {
        self.allocations.len()
    }

    /// Waits for every launch.
    pub fn synchronize(&self) -> Result<(), String> {
        self.stream
            .synchronize()
            .map_err(|e| driver_error("finish the kernels", e))
    }

    /// A timing event recorded on the stream now.
    pub fn record(&self) -> Result<CudaEvent, String> {
        // cudarc's default flags disable timing, and `elapsed_ms` then fails.
        let event = self
            .context
            .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| driver_error("create an event", e))?;
        event
            .record(&self.stream)
            .map_err(|e| driver_error("record an event", e))?;
        Ok(event)
    }
}

/// A kernel argument in the C type of its parameter.
enum TypedArg {
    U64(u64),
    I64(i64),
    I32(i32),
    U32(u32),
    I16(i16),
    I8(i8),
    F64(f64),
    F32(f32),
    U16(u16),
}

fn typed(arg: LaunchArg) -> TypedArg {
    match arg {
        LaunchArg::Pointer(address) => TypedArg::U64(address),
        LaunchArg::Int(value, dtype) => match (dtype.code, dtype.bits) {
            (TypeCode::Int, 64) => TypedArg::I64(value),
            (TypeCode::UInt, 64) => TypedArg::U64(value as u64),
            (TypeCode::UInt, 32) => TypedArg::U32(value as u32),
            (_, 16) => TypedArg::I16(value as i16),
            (_, 8) | (TypeCode::Bool, _) => TypedArg::I8(value as i8),
            _ => TypedArg::I32(value as i32),
        },
        LaunchArg::Float(value, dtype) => match (dtype.code, dtype.bits) {
            (TypeCode::Float, 64) => TypedArg::F64(value),
            (TypeCode::Float, 16) => TypedArg::U16(half::f16::from_f64(value).to_bits()),
            (TypeCode::BFloat, 16) => TypedArg::U16(half::bf16::from_f64(value).to_bits()),
            _ => TypedArg::F32(value as f32),
        },
    }
}

impl KernelRunner for Gpu {
    fn allocate(&mut self, bytes: usize) -> Result<u64, String> {
        self.upload(&vec![0u8; bytes.max(1)])
    }

    fn launch(
        &mut self,
        kernel: &KernelInfo,
        args: &[LaunchArg],
        dims: LaunchDims,
    ) -> Result<(), String> {
        let function = self
            .functions
            .iter()
            .find(|(name, _)| *name == kernel.name)
            .map(|(_, f)| f)
            .ok_or_else(|| format!("`{}` was not loaded", kernel.name))?;
        let values: Vec<TypedArg> = args.iter().map(|a| typed(*a)).collect();
        let mut builder = self.stream.launch_builder(function);
        for value in &values {
            match value {
                TypedArg::U64(v) => builder.arg(v),
                TypedArg::I64(v) => builder.arg(v),
                TypedArg::I32(v) => builder.arg(v),
                TypedArg::U32(v) => builder.arg(v),
                TypedArg::I16(v) => builder.arg(v),
                TypedArg::I8(v) => builder.arg(v),
                TypedArg::F64(v) => builder.arg(v),
                TypedArg::F32(v) => builder.arg(v),
                TypedArg::U16(v) => builder.arg(v),
            };
        }
        if dims.dynamic_shared_bytes > 48 * 1024 {
            // Beyond 48 KiB a kernel must opt into its dynamic shared memory.
            function
                .set_attribute(
                    cudarc::driver::sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    dims.dynamic_shared_bytes as i32,
                )
                .map_err(|e| {
                    driver_error(
                        &format!(
                            "give `{}` {} bytes of shared memory",
                            kernel.name, dims.dynamic_shared_bytes
                        ),
                        e,
                    )
                })?;
        }
        let config = LaunchConfig {
            grid_dim: (dims.grid[0], dims.grid[1], dims.grid[2]),
            block_dim: (dims.block[0], dims.block[1], dims.block[2]),
            shared_mem_bytes: dims.dynamic_shared_bytes,
        };
        // SAFETY: the arguments match the kernel's C parameters in number
        // and type (both come from the same KernelInfo).
        unsafe { builder.launch(config) }
            .map(|_| ())
            .map_err(|e| driver_error(&format!("launch `{}`", kernel.name), e))
    }
}
