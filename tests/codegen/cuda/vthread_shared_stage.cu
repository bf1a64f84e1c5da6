// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  int i_0 = ((int)blockIdx.y);
  int j_0 = ((int)blockIdx.x);
  #pragma unroll
  for (int i_1 = 0; i_1 < 2; ++i_1) {
    #pragma unroll
    for (int j_1 = 0; j_1 < 2; ++j_1) {
      __shared__ __align__(16) float C_shared[1024];
      int i_2 = ((int)threadIdx.y);
      int j_2 = ((int)threadIdx.x);
      for (int i_3_init = 0; i_3_init < 2; ++i_3_init) {
        for (int j_3_init = 0; j_3_init < 2; ++j_3_init) {
          __syncthreads();
          C_shared[(((((i_1 * 512) + (i_2 * 64)) + (i_3_init * 32)) + (j_1 * 16)) + (j_2 * 2)) + j_3_init] = 0.0f;
        }
      }
      for (int k_0 = 0; k_0 < 8; ++k_0) {
        __syncthreads();
        __shared__ __align__(16) float A_shared[256];
        __shared__ __align__(16) float B_shared[256];
        for (int ax0_ax1_fused_0 = 0; ax0_ax1_fused_0 < 4; ++ax0_ax1_fused_0) {
          int ax0_ax1_fused_1 = ((int)threadIdx.y);
          int ax0_ax1_fused_2 = ((int)threadIdx.x);
          A_shared[((ax0_ax1_fused_0 * 64) + (ax0_ax1_fused_1 * 8)) + ax0_ax1_fused_2] = A[((((i_0 * 2048) + (ax0_ax1_fused_0 * 512)) + (ax0_ax1_fused_1 * 64)) + (k_0 * 8)) + ax0_ax1_fused_2];
        }
        for (int ax0_ax1_fused_0_1 = 0; ax0_ax1_fused_0_1 < 4; ++ax0_ax1_fused_0_1) {
          int ax0_ax1_fused_1_1 = ((int)threadIdx.y);
          int ax0_ax1_fused_2_1 = ((int)threadIdx.x);
          B_shared[((ax0_ax1_fused_0_1 * 64) + (ax0_ax1_fused_1_1 * 8)) + ax0_ax1_fused_2_1] = B[(((((k_0 * 512) + (ax0_ax1_fused_0_1 * 128)) + ((ax0_ax1_fused_1_1 >> 2) * 64)) + (j_0 * 32)) + ((ax0_ax1_fused_1_1 & 3) * 8)) + ax0_ax1_fused_2_1];
        }
        for (int k_1 = 0; k_1 < 8; ++k_1) {
          for (int i_3 = 0; i_3 < 2; ++i_3) {
            for (int j_3 = 0; j_3 < 2; ++j_3) {
              __syncthreads();
              C_shared[(((((i_1 * 512) + (i_2 * 64)) + (i_3 * 32)) + (j_1 * 16)) + (j_2 * 2)) + j_3] = (C_shared[(((((i_1 * 512) + (i_2 * 64)) + (i_3 * 32)) + (j_1 * 16)) + (j_2 * 2)) + j_3] + (A_shared[(((i_1 * 128) + (i_2 * 16)) + (i_3 * 8)) + k_1] * B_shared[(((k_1 * 32) + (j_1 * 16)) + (j_2 * 2)) + j_3]));
            }
          }
        }
      }
      __syncthreads();
      int ax0_0 = ((int)threadIdx.y);
      int ax1_0 = ((int)threadIdx.x);
      for (int ax0_1 = 0; ax0_1 < 2; ++ax0_1) {
        for (int ax1_1 = 0; ax1_1 < 2; ++ax1_1) {
          C[(((((((i_0 * 2048) + (i_1 * 1024)) + (ax0_0 * 128)) + (ax0_1 * 64)) + (j_0 * 32)) + (j_1 * 16)) + (ax1_0 * 2)) + ax1_1] = C_shared[(((((i_1 * 512) + (ax0_0 * 64)) + (ax0_1 * 32)) + (j_1 * 16)) + (ax1_0 * 2)) + ax1_1];
        }
      }
    }
  }
}

