// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(14) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int i = ((int)threadIdx.x);
  B[i] = (A[i] * 2.0f);
}

extern "C" __global__ void __launch_bounds__(14) main_kernel_1(float* __restrict__ C, float* __restrict__ B) {
  int i = ((int)threadIdx.x);
  C[i] = (B[i] + 1.0f);
}

