// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ T_softmax_norm) {
  int ax0_fused = ((int)blockIdx.x);
  __shared__ __align__(16) float T_softmax_maxelem_shared[1];
  __shared__ __align__(16) float T_softmax_expsum_shared[1];
  float T_softmax_maxelem_in_thread_acc[1];
  T_softmax_maxelem_in_thread_acc[0] = (-3.4028235e38f);
  int ax1_fused_1 = ((int)threadIdx.x);
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], A[(ax0_fused * 1000) + ax1_fused_1]);
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], A[((ax0_fused * 1000) + ax1_fused_1) + 256]);
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], A[((ax0_fused * 1000) + ax1_fused_1) + 512]);
  if (ax1_fused_1 < 232) {
    T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], A[((ax0_fused * 1000) + ax1_fused_1) + 768]);
  }
  int ax1_fused_1_1 = ((int)threadIdx.x);
  unsigned int T_softmax_maxelem_mask[1];
  __shared__ __align__(16) float T_softmax_maxelem_red_buf_staging[8];
  __shared__ __align__(16) float T_softmax_maxelem_red_result[1];
  T_softmax_maxelem_mask[0] = __activemask();
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 16, 32));
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 8, 32));
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 4, 32));
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 2, 32));
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 1, 32));
  if ((ax1_fused_1_1 & 31) == 0) {
    T_softmax_maxelem_red_buf_staging[ax1_fused_1_1 >> 5] = T_softmax_maxelem_in_thread_acc[0];
  }
  __syncthreads();
  if (ax1_fused_1_1 < 8) {
    T_softmax_maxelem_in_thread_acc[0] = T_softmax_maxelem_red_buf_staging[ax1_fused_1_1];
  }
  T_softmax_maxelem_mask[0] = __activemask();
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 4, 8));
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 2, 8));
  T_softmax_maxelem_in_thread_acc[0] = max(T_softmax_maxelem_in_thread_acc[0], __shfl_down_sync(T_softmax_maxelem_mask[0], T_softmax_maxelem_in_thread_acc[0], 1, 8));
  if (ax1_fused_1_1 == 0) {
    T_softmax_maxelem_red_result[0] = T_softmax_maxelem_in_thread_acc[0];
  }
  __syncthreads();
  T_softmax_maxelem_in_thread_acc[0] = T_softmax_maxelem_red_result[0];
  if (ax1_fused_1_1 == 0) {
    T_softmax_maxelem_shared[0] = T_softmax_maxelem_in_thread_acc[0];
  }
  __syncthreads();
  float T_softmax_expsum_in_thread_acc[1];
  T_softmax_expsum_in_thread_acc[0] = 0.0f;
  int ax1_fused_1_2 = ((int)threadIdx.x);
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + expf((A[(ax0_fused * 1000) + ax1_fused_1_2] - T_softmax_maxelem_shared[0])));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + expf((A[((ax0_fused * 1000) + ax1_fused_1_2) + 256] - T_softmax_maxelem_shared[0])));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + expf((A[((ax0_fused * 1000) + ax1_fused_1_2) + 512] - T_softmax_maxelem_shared[0])));
  if (ax1_fused_1_2 < 232) {
    T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + expf((A[((ax0_fused * 1000) + ax1_fused_1_2) + 768] - T_softmax_maxelem_shared[0])));
  }
  int ax1_fused_1_3 = ((int)threadIdx.x);
  unsigned int T_softmax_expsum_mask[1];
  __shared__ __align__(16) float T_softmax_expsum_red_buf_staging[8];
  __shared__ __align__(16) float T_softmax_expsum_red_result[1];
  T_softmax_expsum_mask[0] = __activemask();
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 16, 32));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 8, 32));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 4, 32));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 2, 32));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 1, 32));
  if ((ax1_fused_1_3 & 31) == 0) {
    T_softmax_expsum_red_buf_staging[ax1_fused_1_3 >> 5] = T_softmax_expsum_in_thread_acc[0];
  }
  __syncthreads();
  if (ax1_fused_1_3 < 8) {
    T_softmax_expsum_in_thread_acc[0] = T_softmax_expsum_red_buf_staging[ax1_fused_1_3];
  }
  T_softmax_expsum_mask[0] = __activemask();
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 4, 8));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 2, 8));
  T_softmax_expsum_in_thread_acc[0] = (T_softmax_expsum_in_thread_acc[0] + __shfl_down_sync(T_softmax_expsum_mask[0], T_softmax_expsum_in_thread_acc[0], 1, 8));
  if (ax1_fused_1_3 == 0) {
    T_softmax_expsum_red_result[0] = T_softmax_expsum_in_thread_acc[0];
  }
  __syncthreads();
  T_softmax_expsum_in_thread_acc[0] = T_softmax_expsum_red_result[0];
  if (ax1_fused_1_3 == 0) {
    T_softmax_expsum_shared[0] = T_softmax_expsum_in_thread_acc[0];
  }
  __syncthreads();
  int ax1_1 = ((int)threadIdx.x);
  T_softmax_norm[(ax0_fused * 1000) + ax1_1] = (expf((A[(ax0_fused * 1000) + ax1_1] - T_softmax_maxelem_shared[0])) / T_softmax_expsum_shared[0]);
  T_softmax_norm[((ax0_fused * 1000) + ax1_1) + 256] = (expf((A[((ax0_fused * 1000) + ax1_1) + 256] - T_softmax_maxelem_shared[0])) / T_softmax_expsum_shared[0]);
  T_softmax_norm[((ax0_fused * 1000) + ax1_1) + 512] = (expf((A[((ax0_fused * 1000) + ax1_1) + 512] - T_softmax_maxelem_shared[0])) / T_softmax_expsum_shared[0]);
  if (ax1_1 < 232) {
    T_softmax_norm[((ax0_fused * 1000) + ax1_1) + 768] = (expf((A[((ax0_fused * 1000) + ax1_1) + 768] - T_softmax_maxelem_shared[0])) / T_softmax_expsum_shared[0]);
  }
}

