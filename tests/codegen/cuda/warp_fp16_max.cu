// CUDA C written by tirc.
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(128) main_kernel(half* __restrict__ A, half* __restrict__ M) {
  int i_0 = ((int)blockIdx.x);
  int i_1 = ((int)threadIdx.y);
  half M_in_thread_acc[1];
  M_in_thread_acc[0] = ((half)(-65504.0f));
  for (int k_0 = 0; k_0 < 2; ++k_0) {
    int k_1 = ((int)threadIdx.x);
    M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)A[(((i_0 * 256) + (i_1 * 128)) + (k_0 * 64)) + k_1]));
  }
  int k_1_1 = ((int)threadIdx.x);
  unsigned int M_mask[1];
  __shared__ __align__(16) half M_red_buf_staging[4];
  __shared__ __align__(16) half M_red_result[2];
  M_mask[0] = __activemask();
  M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)__shfl_down_sync(M_mask[0], M_in_thread_acc[0], 16, 32)));
  M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)__shfl_down_sync(M_mask[0], M_in_thread_acc[0], 8, 32)));
  M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)__shfl_down_sync(M_mask[0], M_in_thread_acc[0], 4, 32)));
  M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)__shfl_down_sync(M_mask[0], M_in_thread_acc[0], 2, 32)));
  M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)__shfl_down_sync(M_mask[0], M_in_thread_acc[0], 1, 32)));
  if ((k_1_1 & 31) == 0) {
    M_red_buf_staging[(i_1 * 2) + (k_1_1 >> 5)] = M_in_thread_acc[0];
  }
  __syncthreads();
  if (k_1_1 < 2) {
    M_in_thread_acc[0] = M_red_buf_staging[(i_1 * 2) + k_1_1];
  }
  M_mask[0] = __activemask();
  M_in_thread_acc[0] = ((half)max((float)M_in_thread_acc[0], (float)__shfl_down_sync(M_mask[0], M_in_thread_acc[0], 1, 2)));
  if (k_1_1 == 0) {
    M_red_result[i_1] = M_in_thread_acc[0];
  }
  __syncthreads();
  M_in_thread_acc[0] = M_red_result[i_1];
  if (k_1_1 == 0) {
    M[(i_0 * 2) + i_1] = M_in_thread_acc[0];
  }
}

