// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int ax0_fused = ((int)blockIdx.x);
  float S_local[1];
  float S_rf_local[512];
  int ax1_fused_1 = ((int)threadIdx.x);
  S_rf_local[ax1_fused_1] = 0.0f;
  S_rf_local[ax1_fused_1] = (S_rf_local[ax1_fused_1] + (A[(ax0_fused * 512) + ax1_fused_1] * A[(ax0_fused * 512) + ax1_fused_1]));
  float S_in_thread_acc[1];
  S_in_thread_acc[0] = 0.0f;
  int ax0 = ((int)threadIdx.x);
  S_in_thread_acc[0] = (S_in_thread_acc[0] + S_rf_local[ax0]);
  int ax0_1 = ((int)threadIdx.x);
  unsigned int S_mask[1];
  __shared__ __align__(16) float S_red_buf_staging[16];
  __shared__ __align__(16) float S_red_result[1];
  S_mask[0] = __activemask();
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 16, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 8, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 4, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 2, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 1, 32));
  if ((ax0_1 & 31) == 0) {
    S_red_buf_staging[ax0_1 >> 5] = S_in_thread_acc[0];
  }
  __syncthreads();
  if (ax0_1 < 16) {
    S_in_thread_acc[0] = S_red_buf_staging[ax0_1];
  }
  S_mask[0] = __activemask();
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 8, 16));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 4, 16));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 2, 16));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 1, 16));
  if (ax0_1 == 0) {
    S_red_result[0] = S_in_thread_acc[0];
  }
  __syncthreads();
  S_in_thread_acc[0] = S_red_result[0];
  S_local[0] = S_in_thread_acc[0];
  int tx = ((int)threadIdx.x);
  if (tx == 0) {
    B[ax0_fused] = sqrtf(S_local[0]);
  }
}

