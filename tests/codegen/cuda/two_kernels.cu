// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(32) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int i = ((int)blockIdx.x);
  int j = ((int)threadIdx.x);
  B[(i * 32) + j] = (expf(A[(i * 32) + j]) - 1.0f);
}

extern "C" __global__ void __launch_bounds__(32) main_kernel_1(float* __restrict__ C, float* __restrict__ B) {
  int i = ((int)blockIdx.x);
  int j = ((int)threadIdx.x);
  C[(i * 32) + j] = (B[(j * 32) + i] * 3.0f);
}

