// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  int i_0 = ((int)blockIdx.y);
  int j_0 = ((int)blockIdx.x);
  int i_2 = ((int)threadIdx.y);
  int j_2 = ((int)threadIdx.x);
  float C_local[16];
  for (int i_3_init = 0; i_3_init < 2; ++i_3_init) {
    for (int j_3_init = 0; j_3_init < 2; ++j_3_init) {
      #pragma unroll
      for (int j_1 = 0; j_1 < 2; ++j_1) {
        #pragma unroll
        for (int i_1 = 0; i_1 < 2; ++i_1) {
          C_local[(((i_3_init * 2) + j_3_init) + (j_1 * 4)) + (i_1 * 8)] = 0.0f;
        }
      }
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
    __syncthreads();
    for (int k_1 = 0; k_1 < 8; ++k_1) {
      for (int i_3 = 0; i_3 < 2; ++i_3) {
        for (int j_3 = 0; j_3 < 2; ++j_3) {
          #pragma unroll
          for (int j_1_1 = 0; j_1_1 < 2; ++j_1_1) {
            #pragma unroll
            for (int i_1_1 = 0; i_1_1 < 2; ++i_1_1) {
              C_local[(((i_3 * 2) + j_3) + (j_1_1 * 4)) + (i_1_1 * 8)] = (C_local[(((i_3 * 2) + j_3) + (j_1_1 * 4)) + (i_1_1 * 8)] + (A_shared[(((i_1_1 * 128) + (i_2 * 16)) + (i_3 * 8)) + k_1] * B_shared[(((k_1 * 32) + (j_1_1 * 16)) + (j_2 * 2)) + j_3]));
            }
          }
        }
      }
    }
  }
  for (int ax0 = 0; ax0 < 2; ++ax0) {
    for (int ax1 = 0; ax1 < 2; ++ax1) {
      #pragma unroll
      for (int j_1_2 = 0; j_1_2 < 2; ++j_1_2) {
        #pragma unroll
        for (int i_1_2 = 0; i_1_2 < 2; ++i_1_2) {
          C[(((((((i_0 * 2048) + (i_1_2 * 1024)) + (i_2 * 128)) + (ax0 * 64)) + (j_0 * 32)) + (j_1_2 * 16)) + (j_2 * 2)) + ax1] = C_local[(((ax0 * 2) + ax1) + (j_1_2 * 4)) + (i_1_2 * 8)];
        }
      }
    }
  }
}

