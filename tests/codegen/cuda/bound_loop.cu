// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(int n, float scale, float* __restrict__ A, float* __restrict__ B) {
  int i_0 = ((int)blockIdx.x);
  int i_1 = ((int)threadIdx.x);
  if (((i_0 * 64) + i_1) < n) {
    B[(i_0 * 64) + i_1] = ((A[(i_0 * 64) + i_1] * scale) + 1.0f);
  }
}

