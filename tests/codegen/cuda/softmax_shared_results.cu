// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int i = ((int)blockIdx.x);
  __shared__ __align__(16) float mx_shared[1];
  __shared__ __align__(16) float s_shared[1];
  float mx_in_thread_acc[1];
  mx_in_thread_acc[0] = (-3.4028235e38f);
  for (int ax0_0 = 0; ax0_0 < 2; ++ax0_0) {
    int ax0_1 = ((int)threadIdx.x);
    if (((ax0_0 * 256) + ax0_1) < 300) {
      mx_in_thread_acc[0] = max(mx_in_thread_acc[0], A[((i * 300) + (ax0_0 * 256)) + ax0_1]);
    }
  }
  int ax0_1_1 = ((int)threadIdx.x);
  unsigned int mx_mask[1];
  __shared__ __align__(16) float mx_red_buf_staging[8];
  __shared__ __align__(16) float mx_red_result[1];
  mx_mask[0] = __activemask();
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 16, 32));
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 8, 32));
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 4, 32));
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 2, 32));
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 1, 32));
  if ((ax0_1_1 & 31) == 0) {
    mx_red_buf_staging[ax0_1_1 >> 5] = mx_in_thread_acc[0];
  }
  __syncthreads();
  if (ax0_1_1 < 8) {
    mx_in_thread_acc[0] = mx_red_buf_staging[ax0_1_1];
  }
  mx_mask[0] = __activemask();
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 4, 8));
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 2, 8));
  mx_in_thread_acc[0] = max(mx_in_thread_acc[0], __shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 1, 8));
  if (ax0_1_1 == 0) {
    mx_red_result[0] = mx_in_thread_acc[0];
  }
  __syncthreads();
  mx_in_thread_acc[0] = mx_red_result[0];
  if (ax0_1_1 == 0) {
    mx_shared[0] = mx_in_thread_acc[0];
  }
  mx_in_thread_acc[0] = 0.0f;
  __syncthreads();
  for (int ax0_0_1 = 0; ax0_0_1 < 2; ++ax0_0_1) {
    int ax0_1_2 = ((int)threadIdx.x);
    if (((ax0_0_1 * 256) + ax0_1_2) < 300) {
      mx_in_thread_acc[0] = (mx_in_thread_acc[0] + expf((A[((i * 300) + (ax0_0_1 * 256)) + ax0_1_2] - mx_shared[0])));
    }
  }
  int ax0_1_3 = ((int)threadIdx.x);
  unsigned int s_mask[1];
  __shared__ __align__(16) float s_red_buf_staging[8];
  __shared__ __align__(16) float s_red_result[1];
  s_mask[0] = __activemask();
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 16, 32));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 8, 32));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 4, 32));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 2, 32));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 1, 32));
  if ((ax0_1_3 & 31) == 0) {
    s_red_buf_staging[ax0_1_3 >> 5] = mx_in_thread_acc[0];
  }
  __syncthreads();
  if (ax0_1_3 < 8) {
    mx_in_thread_acc[0] = s_red_buf_staging[ax0_1_3];
  }
  s_mask[0] = __activemask();
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 4, 8));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 2, 8));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 1, 8));
  if (ax0_1_3 == 0) {
    s_red_result[0] = mx_in_thread_acc[0];
  }
  __syncthreads();
  mx_in_thread_acc[0] = s_red_result[0];
  if (ax0_1_3 == 0) {
    s_shared[0] = mx_in_thread_acc[0];
  }
  __syncthreads();
  for (int j_0 = 0; j_0 < 2; ++j_0) {
    int j_1 = ((int)threadIdx.x);
    if (((j_0 * 256) + j_1) < 300) {
      B[((i * 300) + (j_0 * 256)) + j_1] = (expf((A[((i * 300) + (j_0 * 256)) + j_1] - mx_shared[0])) / s_shared[0]);
    }
  }
}

