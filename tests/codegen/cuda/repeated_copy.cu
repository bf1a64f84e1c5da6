// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  int i_0 = ((int)blockIdx.y);
  int j_0 = ((int)blockIdx.x);
  __shared__ __align__(16) float A_shared[256];
  for (int ax0 = 0; ax0 < 8; ++ax0) {
    for (int ax1 = 0; ax1 < 32; ++ax1) {
      A_shared[(ax0 * 32) + ax1] = A[((i_0 * 256) + (ax0 * 32)) + ax1];
    }
  }
  __syncthreads();
  int i_1 = ((int)threadIdx.y);
  int j_1 = ((int)threadIdx.x);
  for (int k = 0; k < 32; ++k) {
    if (k == 0) {
      C[(((i_0 * 256) + (i_1 * 32)) + (j_0 * 8)) + j_1] = 0.0f;
    }
    C[(((i_0 * 256) + (i_1 * 32)) + (j_0 * 8)) + j_1] = (C[(((i_0 * 256) + (i_1 * 32)) + (j_0 * 8)) + j_1] + (A_shared[(i_1 * 32) + k] * B[((k * 32) + (j_0 * 8)) + j_1]));
  }
}

