// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(int n, int stride, int stride_1, float* __restrict__ A_1, float* __restrict__ B_1) {
  int blockIdx_x = ((int)blockIdx.x);
  int threadIdx_x = ((int)threadIdx.x);
  if (((blockIdx_x * 64) + threadIdx_x) < n) {
    B_1[((blockIdx_x * 64) + threadIdx_x) * stride_1] = (1.0f / (1.0f + expf((A_1[((blockIdx_x * 64) + threadIdx_x) * stride] * (-1.0f)))));
  }
}

