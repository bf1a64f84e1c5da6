//! The CUDA backend: lowered TIR (after `split-host-device` and
//! `thread-sync`) to CUDA C ([`writer`]), compiled to PTX by NVRTC
//! ([`nvrtc`]) and launched through the CUDA driver ([`device`]), or run on
//! the CPU by compiling the very same kernels as C++ against tirc's model of
//! CUDA ([`emulation`]). The host side of a run ([`host`]) walks the host
//! function: allocations, loops and kernel launches with their extents.

pub mod device;
pub mod emulation;
pub mod host;
pub mod nvrtc;
pub mod writer;

#[cfg(test)]
mod emulation_tests;

use crate::diagnostics::Diagnostic;
use crate::ir::{DataType, IRModule};

/// The diagnostic codes of the CUDA backend.
pub mod codes {
    /// A construct the CUDA writer cannot emit.
    pub const CUDA_UNSUPPORTED: &str = "E0610";
    /// The emulation saw threads of a block store the same value into one
    /// element with no barrier between: right, but repeated work.
    pub const EMULATION_REPEATED_STORE: &str = "W0620";
}

/// A module's kernels as CUDA C.
#[derive(Clone, Debug)]
pub struct CudaModule {
    /// The whole translation unit.
    pub source: String,
    /// Each kernel's name, parameters and launch.
    pub kernels: Vec<KernelInfo>,
}

/// One `__global__` function.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// Its C name.
    pub name: String,
    /// Its parameters, in order.
    pub params: Vec<KernelParam>,
    /// The thread tags whose extents the host passes, in order.
    pub launch_tags: Vec<String>,
    /// Threads per block, when constant.
    pub threads_per_block: Option<i64>,
    /// Bytes of `local` arrays each thread declares.
    pub local_bytes: i64,
    /// Bytes of `shared` buffers each block allocates.
    pub shared_bytes: i64,
}

/// A kernel parameter.
#[derive(Clone, Debug)]
pub enum KernelParam {
    /// A pointer to a buffer's elements.
    Buffer {
        /// The C name.
        name: String,
        /// The element type.
        dtype: DataType,
    },
    /// A scalar value.
    Scalar {
        /// The C name.
        name: String,
        /// Its type.
        dtype: DataType,
    },
}

/// Lowers `module` for CUDA: the common pipeline, then `split-host-device`
/// and `thread-sync`.
pub fn lower_for_cuda(module: &IRModule) -> Result<IRModule, Vec<Diagnostic>> {
    let target = crate::codegen::Target::Cuda(Default::default());
    let passes = crate::transform::pipeline_for(&target);
    let options = crate::transform::options_for(&target);
    crate::transform::run_passes(&passes, module, &options, &mut |_, _| {})
}

/// Lowers `module` for CUDA and writes its kernels.
pub fn compile_to_cuda(
    module: &IRModule,
    options: writer::WriterOptions,
) -> Result<(IRModule, CudaModule), Vec<Diagnostic>> {
    let lowered = lower_for_cuda(module)?;
    let cuda = writer::write_cuda(&lowered, options)?;
    Ok((lowered, cuda))
}
