// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ gamma, float* __restrict__ beta, float* __restrict__ T_layer_norm) {
  int ax0_fused = ((int)blockIdx.x);
  __shared__ __align__(16) float A_sum_shared[1];
  __shared__ __align__(16) float A_var_sum_shared[1];
  float A_sum_in_thread_acc[1];
  A_sum_in_thread_acc[0] = 0.0f;
  int ax1_fused_1 = ((int)threadIdx.x);
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + A[(ax0_fused * 1000) + ax1_fused_1]);
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + A[((ax0_fused * 1000) + ax1_fused_1) + 256]);
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + A[((ax0_fused * 1000) + ax1_fused_1) + 512]);
  if (ax1_fused_1 < 232) {
    A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + A[((ax0_fused * 1000) + ax1_fused_1) + 768]);
  }
  int ax1_fused_1_1 = ((int)threadIdx.x);
  unsigned int A_sum_mask[1];
  __shared__ __align__(16) float A_sum_red_buf_staging[8];
  __shared__ __align__(16) float A_sum_red_result[1];
  A_sum_mask[0] = __activemask();
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 16, 32));
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 8, 32));
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 4, 32));
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 2, 32));
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 1, 32));
  if ((ax1_fused_1_1 & 31) == 0) {
    A_sum_red_buf_staging[ax1_fused_1_1 >> 5] = A_sum_in_thread_acc[0];
  }
  __syncthreads();
  if (ax1_fused_1_1 < 8) {
    A_sum_in_thread_acc[0] = A_sum_red_buf_staging[ax1_fused_1_1];
  }
  A_sum_mask[0] = __activemask();
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 4, 8));
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 2, 8));
  A_sum_in_thread_acc[0] = (A_sum_in_thread_acc[0] + __shfl_down_sync(A_sum_mask[0], A_sum_in_thread_acc[0], 1, 8));
  if (ax1_fused_1_1 == 0) {
    A_sum_red_result[0] = A_sum_in_thread_acc[0];
  }
  __syncthreads();
  A_sum_in_thread_acc[0] = A_sum_red_result[0];
  if (ax1_fused_1_1 == 0) {
    A_sum_shared[0] = A_sum_in_thread_acc[0];
  }
  __syncthreads();
  float A_var_sum_in_thread_acc[1];
  A_var_sum_in_thread_acc[0] = 0.0f;
  int ax1_fused_1_2 = ((int)threadIdx.x);
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + ((A[(ax0_fused * 1000) + ax1_fused_1_2] - (A_sum_shared[0] / 1000.0f)) * (A[(ax0_fused * 1000) + ax1_fused_1_2] - (A_sum_shared[0] / 1000.0f))));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + ((A[((ax0_fused * 1000) + ax1_fused_1_2) + 256] - (A_sum_shared[0] / 1000.0f)) * (A[((ax0_fused * 1000) + ax1_fused_1_2) + 256] - (A_sum_shared[0] / 1000.0f))));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + ((A[((ax0_fused * 1000) + ax1_fused_1_2) + 512] - (A_sum_shared[0] / 1000.0f)) * (A[((ax0_fused * 1000) + ax1_fused_1_2) + 512] - (A_sum_shared[0] / 1000.0f))));
  if (ax1_fused_1_2 < 232) {
    A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + ((A[((ax0_fused * 1000) + ax1_fused_1_2) + 768] - (A_sum_shared[0] / 1000.0f)) * (A[((ax0_fused * 1000) + ax1_fused_1_2) + 768] - (A_sum_shared[0] / 1000.0f))));
  }
  int ax1_fused_1_3 = ((int)threadIdx.x);
  unsigned int A_var_sum_mask[1];
  __shared__ __align__(16) float A_var_sum_red_buf_staging[8];
  __shared__ __align__(16) float A_var_sum_red_result[1];
  A_var_sum_mask[0] = __activemask();
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 16, 32));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 8, 32));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 4, 32));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 2, 32));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 1, 32));
  if ((ax1_fused_1_3 & 31) == 0) {
    A_var_sum_red_buf_staging[ax1_fused_1_3 >> 5] = A_var_sum_in_thread_acc[0];
  }
  __syncthreads();
  if (ax1_fused_1_3 < 8) {
    A_var_sum_in_thread_acc[0] = A_var_sum_red_buf_staging[ax1_fused_1_3];
  }
  A_var_sum_mask[0] = __activemask();
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 4, 8));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 2, 8));
  A_var_sum_in_thread_acc[0] = (A_var_sum_in_thread_acc[0] + __shfl_down_sync(A_var_sum_mask[0], A_var_sum_in_thread_acc[0], 1, 8));
  if (ax1_fused_1_3 == 0) {
    A_var_sum_red_result[0] = A_var_sum_in_thread_acc[0];
  }
  __syncthreads();
  A_var_sum_in_thread_acc[0] = A_var_sum_red_result[0];
  if (ax1_fused_1_3 == 0) {
    A_var_sum_shared[0] = A_var_sum_in_thread_acc[0];
  }
  __syncthreads();
  int ax1_1 = ((int)threadIdx.x);
  T_layer_norm[(ax0_fused * 1000) + ax1_1] = ((((A[(ax0_fused * 1000) + ax1_1] - (A_sum_shared[0] / 1000.0f)) * (1.0f / sqrtf(((A_var_sum_shared[0] / 1000.0f) + 1e-5f)))) * gamma[ax1_1]) + beta[ax1_1]);
  T_layer_norm[((ax0_fused * 1000) + ax1_1) + 256] = ((((A[((ax0_fused * 1000) + ax1_1) + 256] - (A_sum_shared[0] / 1000.0f)) * (1.0f / sqrtf(((A_var_sum_shared[0] / 1000.0f) + 1e-5f)))) * gamma[ax1_1 + 256]) + beta[ax1_1 + 256]);
  T_layer_norm[((ax0_fused * 1000) + ax1_1) + 512] = ((((A[((ax0_fused * 1000) + ax1_1) + 512] - (A_sum_shared[0] / 1000.0f)) * (1.0f / sqrtf(((A_var_sum_shared[0] / 1000.0f) + 1e-5f)))) * gamma[ax1_1 + 512]) + beta[ax1_1 + 512]);
  if (ax1_1 < 232) {
    T_layer_norm[((ax0_fused * 1000) + ax1_1) + 768] = ((((A[((ax0_fused * 1000) + ax1_1) + 768] - (A_sum_shared[0] / 1000.0f)) * (1.0f / sqrtf(((A_var_sum_shared[0] / 1000.0f) + 1e-5f)))) * gamma[ax1_1 + 768]) + beta[ax1_1 + 768]);
  }
}

