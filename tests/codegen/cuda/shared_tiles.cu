// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  int i_0 = ((int)blockIdx.y);
  int j_0 = ((int)blockIdx.x);
  int i_1 = ((int)threadIdx.y);
  int j_1 = ((int)threadIdx.x);
  float C_local[1];
  for (int k_0 = 0; k_0 < 4; ++k_0) {
    __syncthreads();
    __shared__ __align__(16) float A_shared[272];
    __shared__ __align__(16) float B_shared[256];
    int ax0_ax1_fused_0 = ((int)threadIdx.y);
    int ax0_ax1_fused_1 = ((int)threadIdx.x);
    A_shared[(ax0_ax1_fused_0 * 17) + ax0_ax1_fused_1] = A[(((i_0 * 1024) + (ax0_ax1_fused_0 * 64)) + (k_0 * 16)) + ax0_ax1_fused_1];
    int ax0_ax1_fused_0_1 = ((int)threadIdx.y);
    int ax0_ax1_fused_1_1 = ((int)threadIdx.x);
    B_shared[(ax0_ax1_fused_0_1 * 16) + ax0_ax1_fused_1_1] = B[(((k_0 * 1024) + (ax0_ax1_fused_0_1 * 64)) + (j_0 * 16)) + ax0_ax1_fused_1_1];
    __syncthreads();
    for (int k_1 = 0; k_1 < 16; ++k_1) {
      if (((k_0 * 16) + k_1) == 0) {
        C_local[0] = 0.0f;
      }
      C_local[0] = (C_local[0] + (A_shared[(i_1 * 17) + k_1] * B_shared[(k_1 * 16) + j_1]));
    }
  }
  C[(((i_0 * 1024) + (i_1 * 64)) + (j_0 * 16)) + j_1] = C_local[0];
}

