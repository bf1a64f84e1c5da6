// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int ax0_fused = ((int)blockIdx.x);
  __shared__ __align__(16) float M_shared[1];
  float M_in_thread_acc[1];
  M_in_thread_acc[0] = (-3.4028235e38f);
  int ax1_fused_1 = ((int)threadIdx.x);
  M_in_thread_acc[0] = max(M_in_thread_acc[0], fabsf(A[(ax0_fused * 1000) + ax1_fused_1]));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], fabsf(A[((ax0_fused * 1000) + ax1_fused_1) + 256]));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], fabsf(A[((ax0_fused * 1000) + ax1_fused_1) + 512]));
  if (ax1_fused_1 < 232) {
    M_in_thread_acc[0] = max(M_in_thread_acc[0], fabsf(A[((ax0_fused * 1000) + ax1_fused_1) + 768]));
  }
  int ax1_fused_1_1 = ((int)threadIdx.x);
  unsigned int M_mask[1];
  __shared__ __align__(16) float M_red_buf_staging[8];
  __shared__ __align__(16) float M_red_result[1];
  M_mask[0] = __activemask();
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 16, 32));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 8, 32));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 4, 32));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 2, 32));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 1, 32));
  if ((ax1_fused_1_1 & 31) == 0) {
    M_red_buf_staging[ax1_fused_1_1 >> 5] = M_in_thread_acc[0];
  }
  __syncthreads();
  if (ax1_fused_1_1 < 8) {
    M_in_thread_acc[0] = M_red_buf_staging[ax1_fused_1_1];
  }
  M_mask[0] = __activemask();
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 4, 8));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 2, 8));
  M_in_thread_acc[0] = max(M_in_thread_acc[0], __shfl_down_sync(M_mask[0], M_in_thread_acc[0], 1, 8));
  if (ax1_fused_1_1 == 0) {
    M_red_result[0] = M_in_thread_acc[0];
  }
  __syncthreads();
  M_in_thread_acc[0] = M_red_result[0];
  if (ax1_fused_1_1 == 0) {
    M_shared[0] = M_in_thread_acc[0];
  }
  __syncthreads();
  int ax1_1 = ((int)threadIdx.x);
  B[(ax0_fused * 1000) + ax1_1] = (A[(ax0_fused * 1000) + ax1_1] / M_shared[0]);
  B[((ax0_fused * 1000) + ax1_1) + 256] = (A[((ax0_fused * 1000) + ax1_1) + 256] / M_shared[0]);
  B[((ax0_fused * 1000) + ax1_1) + 512] = (A[((ax0_fused * 1000) + ax1_1) + 512] / M_shared[0]);
  if (ax1_1 < 232) {
    B[((ax0_fused * 1000) + ax1_1) + 768] = (A[((ax0_fused * 1000) + ax1_1) + 768] / M_shared[0]);
  }
}

