// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int ax0_fused = ((int)blockIdx.x);
  __shared__ __align__(16) float S_shared[1];
  float S_rf_local[256];
  int ax1_fused_1 = ((int)threadIdx.x);
  S_rf_local[ax1_fused_1] = 0.0f;
  S_rf_local[ax1_fused_1] = (S_rf_local[ax1_fused_1] + A[(ax0_fused * 256) + ax1_fused_1]);
  float S_in_thread_acc[1];
  S_in_thread_acc[0] = 0.0f;
  int ax0 = ((int)threadIdx.x);
  S_in_thread_acc[0] = (S_in_thread_acc[0] + S_rf_local[ax0]);
  int ax0_1 = ((int)threadIdx.x);
  unsigned int S_mask[1];
  __shared__ __align__(16) float S_red_buf_staging[8];
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
  if (ax0_1 < 8) {
    S_in_thread_acc[0] = S_red_buf_staging[ax0_1];
  }
  S_mask[0] = __activemask();
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 4, 8));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 2, 8));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 1, 8));
  if (ax0_1 == 0) {
    S_red_result[0] = S_in_thread_acc[0];
  }
  __syncthreads();
  S_in_thread_acc[0] = S_red_result[0];
  if (ax0_1 == 0) {
    S_shared[0] = S_in_thread_acc[0];
  }
  __syncthreads();
  int ax0_ax1_fused_1 = ((int)threadIdx.x);
  B[(ax0_fused * 256) + ax0_ax1_fused_1] = (A[(ax0_fused * 256) + ax0_ax1_fused_1] - (S_shared[0] / 256.0f));
}

