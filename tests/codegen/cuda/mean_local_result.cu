// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(128) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int i = ((int)blockIdx.x);
  float s_local[1];
  float s_in_thread_acc[1];
  s_in_thread_acc[0] = 0.0f;
  for (int ax0_0 = 0; ax0_0 < 4; ++ax0_0) {
    int ax0_1 = ((int)threadIdx.x);
    s_in_thread_acc[0] = (s_in_thread_acc[0] + A[((i * 512) + (ax0_0 * 128)) + ax0_1]);
  }
  int ax0_1_1 = ((int)threadIdx.x);
  unsigned int s_mask[1];
  __shared__ __align__(16) float s_red_buf_staging[4];
  __shared__ __align__(16) float s_red_result[1];
  s_mask[0] = __activemask();
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 16, 32));
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 8, 32));
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 4, 32));
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 2, 32));
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 1, 32));
  if ((ax0_1_1 & 31) == 0) {
    s_red_buf_staging[ax0_1_1 >> 5] = s_in_thread_acc[0];
  }
  __syncthreads();
  if (ax0_1_1 < 4) {
    s_in_thread_acc[0] = s_red_buf_staging[ax0_1_1];
  }
  s_mask[0] = __activemask();
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 2, 4));
  s_in_thread_acc[0] = (s_in_thread_acc[0] + __shfl_down_sync(s_mask[0], s_in_thread_acc[0], 1, 4));
  if (ax0_1_1 == 0) {
    s_red_result[0] = s_in_thread_acc[0];
  }
  __syncthreads();
  s_in_thread_acc[0] = s_red_result[0];
  s_local[0] = s_in_thread_acc[0];
  int tx = ((int)threadIdx.x);
  if (tx == 0) {
    B[i] = (s_local[0] / 512.0f);
  }
}

