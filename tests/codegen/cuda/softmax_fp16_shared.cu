// CUDA C written by tirc.
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(128) main_kernel(half* __restrict__ A, half* __restrict__ B) {
  int i = ((int)blockIdx.x);
  __shared__ __align__(16) half mx_shared[1];
  __shared__ __align__(16) half s_shared[1];
  half mx_in_thread_acc[1];
  mx_in_thread_acc[0] = ((half)(-65504.0f));
  for (int ax0_0 = 0; ax0_0 < 3; ++ax0_0) {
    int ax0_1 = ((int)threadIdx.x);
    if (((ax0_0 * 128) + ax0_1) < 300) {
      mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)A[((i * 300) + (ax0_0 * 128)) + ax0_1]));
    }
  }
  int ax0_1_1 = ((int)threadIdx.x);
  unsigned int mx_mask[1];
  __shared__ __align__(16) half mx_red_buf_staging[4];
  __shared__ __align__(16) half mx_red_result[1];
  mx_mask[0] = __activemask();
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 16, 32)));
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 8, 32)));
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 4, 32)));
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 2, 32)));
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 1, 32)));
  if ((ax0_1_1 & 31) == 0) {
    mx_red_buf_staging[ax0_1_1 >> 5] = mx_in_thread_acc[0];
  }
  __syncthreads();
  if (ax0_1_1 < 4) {
    mx_in_thread_acc[0] = mx_red_buf_staging[ax0_1_1];
  }
  mx_mask[0] = __activemask();
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 2, 4)));
  mx_in_thread_acc[0] = ((half)max((float)mx_in_thread_acc[0], (float)__shfl_down_sync(mx_mask[0], mx_in_thread_acc[0], 1, 4)));
  if (ax0_1_1 == 0) {
    mx_red_result[0] = mx_in_thread_acc[0];
  }
  __syncthreads();
  mx_in_thread_acc[0] = mx_red_result[0];
  if (ax0_1_1 == 0) {
    mx_shared[0] = mx_in_thread_acc[0];
  }
  mx_in_thread_acc[0] = ((half)0.0f);
  __syncthreads();
  for (int ax0_0_1 = 0; ax0_0_1 < 3; ++ax0_0_1) {
    int ax0_1_2 = ((int)threadIdx.x);
    if (((ax0_0_1 * 128) + ax0_1_2) < 300) {
      mx_in_thread_acc[0] = (mx_in_thread_acc[0] + ((half)expf((float)(A[((i * 300) + (ax0_0_1 * 128)) + ax0_1_2] - mx_shared[0]))));
    }
  }
  int ax0_1_3 = ((int)threadIdx.x);
  unsigned int s_mask[1];
  __shared__ __align__(16) half s_red_buf_staging[4];
  __shared__ __align__(16) half s_red_result[1];
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
  if (ax0_1_3 < 4) {
    mx_in_thread_acc[0] = s_red_buf_staging[ax0_1_3];
  }
  s_mask[0] = __activemask();
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 2, 4));
  mx_in_thread_acc[0] = (mx_in_thread_acc[0] + __shfl_down_sync(s_mask[0], mx_in_thread_acc[0], 1, 4));
  if (ax0_1_3 == 0) {
    s_red_result[0] = mx_in_thread_acc[0];
  }
  __syncthreads();
  mx_in_thread_acc[0] = s_red_result[0];
  if (ax0_1_3 == 0) {
    s_shared[0] = mx_in_thread_acc[0];
  }
  __syncthreads();
  for (int j_0 = 0; j_0 < 3; ++j_0) {
    int j_1 = ((int)threadIdx.x);
    if (((j_0 * 128) + j_1) < 300) {
      B[((i * 300) + (j_0 * 128)) + j_1] = (((half)expf((float)(A[((i * 300) + (j_0 * 128)) + j_1] - mx_shared[0]))) / s_shared[0]);
    }
  }
}

