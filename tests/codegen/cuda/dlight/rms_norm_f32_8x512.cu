// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ A, float* __restrict__ weight, float* __restrict__ T_cast) {
  int ax0_fused = ((int)blockIdx.x);
  __shared__ __align__(16) float T_multiply_red_shared[1];
  float T_multiply_red_rf_local[512];
  int ax1_fused_1 = ((int)threadIdx.x);
  T_multiply_red_rf_local[ax1_fused_1] = 0.0f;
  T_multiply_red_rf_local[ax1_fused_1] = (T_multiply_red_rf_local[ax1_fused_1] + (A[(ax0_fused * 512) + ax1_fused_1] * A[(ax0_fused * 512) + ax1_fused_1]));
  float T_multiply_red_in_thread_acc[1];
  T_multiply_red_in_thread_acc[0] = 0.0f;
  int ax0 = ((int)threadIdx.x);
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + T_multiply_red_rf_local[ax0]);
  int ax0_1 = ((int)threadIdx.x);
  unsigned int T_multiply_red_mask[1];
  __shared__ __align__(16) float T_multiply_red_red_buf_staging[16];
  __shared__ __align__(16) float T_multiply_red_red_result[1];
  T_multiply_red_mask[0] = __activemask();
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 16, 32));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 8, 32));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 4, 32));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 2, 32));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 1, 32));
  if ((ax0_1 & 31) == 0) {
    T_multiply_red_red_buf_staging[ax0_1 >> 5] = T_multiply_red_in_thread_acc[0];
  }
  __syncthreads();
  if (ax0_1 < 16) {
    T_multiply_red_in_thread_acc[0] = T_multiply_red_red_buf_staging[ax0_1];
  }
  T_multiply_red_mask[0] = __activemask();
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 8, 16));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 4, 16));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 2, 16));
  T_multiply_red_in_thread_acc[0] = (T_multiply_red_in_thread_acc[0] + __shfl_down_sync(T_multiply_red_mask[0], T_multiply_red_in_thread_acc[0], 1, 16));
  if (ax0_1 == 0) {
    T_multiply_red_red_result[0] = T_multiply_red_in_thread_acc[0];
  }
  __syncthreads();
  T_multiply_red_in_thread_acc[0] = T_multiply_red_red_result[0];
  if (ax0_1 == 0) {
    T_multiply_red_shared[0] = T_multiply_red_in_thread_acc[0];
  }
  __syncthreads();
  int ax0_ax1_fused_1 = ((int)threadIdx.x);
  T_cast[(ax0_fused * 512) + ax0_ax1_fused_1] = (((1.0f / sqrtf(((T_multiply_red_shared[0] / 512.0f) + 1e-5f))) * A[(ax0_fused * 512) + ax0_ax1_fused_1]) * weight[ax0_ax1_fused_1]);
}

