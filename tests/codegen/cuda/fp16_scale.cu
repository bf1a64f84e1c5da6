// CUDA C written by tirc.
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(128) main_kernel(half* __restrict__ A, half* __restrict__ B, float* __restrict__ C) {
  int i_0 = ((int)blockIdx.x);
  int i_1 = ((int)threadIdx.x);
  B[(i_0 * 128) + i_1] = (((half)max((float)(A[(i_0 * 128) + i_1] * ((half)0.5f)), (float)((half)(-1.0f)))) + ((half)0.25f));
  C[(i_0 * 128) + i_1] = (((float)A[(i_0 * 128) + i_1]) * 2.0f);
}

