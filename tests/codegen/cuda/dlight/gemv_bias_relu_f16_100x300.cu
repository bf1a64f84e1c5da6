// CUDA C written by tirc.
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(512) main_kernel(half* __restrict__ W, half* __restrict__ x, half* __restrict__ bias, half* __restrict__ Z) {
  int u_fused_ax0_fused_fused_0 = ((int)blockIdx.x);
  half Y_local[16];
  half Y_rf_local[512];
  half Y_rf_local_1[512];
  int u_fused_ax0_fused_fused_1 = ((int)threadIdx.y);
  int ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 = ((int)threadIdx.x);
  __shared__ __align__(16) half W_shared[4800];
  for (int ax0 = 0; ax0 < 16; ++ax0) {
    for (int ax1_0 = 0; ax1_0 < 1; ++ax1_0) {
      int ax1_1 = ((int)threadIdx.y);
      int ax1_2 = ((int)threadIdx.x);
      if ((((u_fused_ax0_fused_fused_0 * 16) + ax0) < 100) && (((ax1_1 * 32) + ax1_2) < 300)) {
        W_shared[((ax0 * 300) + (ax1_1 * 32)) + ax1_2] = W[(((u_fused_ax0_fused_fused_0 * 4800) + (ax0 * 300)) + (ax1_1 * 32)) + ax1_2];
      }
    }
  }
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = ((half)0.0f);
  }
  __syncthreads();
  for (int ax1_fused_u_fused_0 = 0; ax1_fused_u_fused_0 < 10; ++ax1_fused_u_fused_0) {
    half x_local[2];
    #pragma unroll
    for (int ax0_1 = 0; ax0_1 < 2; ++ax0_1) {
      if ((((ax1_fused_u_fused_0 * 32) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) < 300) && (ax0_1 < 1)) {
        x_local[ax0_1] = x[((ax1_fused_u_fused_0 * 32) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + ax0_1];
      }
    }
    if ((((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) && (((ax1_fused_u_fused_0 * 32) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) < 300)) {
      Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + (ax1_fused_u_fused_0 * 32)) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0] * x_local[0]));
    }
  }
  int ax2_fused_0_ax2_fused_1_fused = ((int)threadIdx.y);
  int ax0_2 = ((int)threadIdx.x);
  if (((u_fused_ax0_fused_fused_0 * 16) + ax2_fused_0_ax2_fused_1_fused) < 100) {
    Y_rf_local_1[(ax0_2 * 16) + ax2_fused_0_ax2_fused_1_fused] = ((half)0.0f);
  }
  if (((u_fused_ax0_fused_fused_0 * 16) + ax2_fused_0_ax2_fused_1_fused) < 100) {
    Y_rf_local_1[(ax0_2 * 16) + ax2_fused_0_ax2_fused_1_fused] = (Y_rf_local_1[(ax0_2 * 16) + ax2_fused_0_ax2_fused_1_fused] + Y_rf_local[(ax0_2 * 16) + ax2_fused_0_ax2_fused_1_fused]);
  }
  int ax1_fused_0_ax1_fused_1_fused = ((int)threadIdx.y);
  half Y_in_thread_acc[1];
  Y_in_thread_acc[0] = ((half)0.0f);
  int ax0_3 = ((int)threadIdx.x);
  if (((u_fused_ax0_fused_fused_0 * 16) + ax1_fused_0_ax1_fused_1_fused) < 100) {
    Y_in_thread_acc[0] = (Y_in_thread_acc[0] + Y_rf_local_1[(ax0_3 * 16) + ax1_fused_0_ax1_fused_1_fused]);
  }
  int ax0_4 = ((int)threadIdx.x);
  unsigned int Y_mask[1];
  Y_mask[0] = __activemask();
  Y_in_thread_acc[0] = (Y_in_thread_acc[0] + __shfl_down_sync(Y_mask[0], Y_in_thread_acc[0], 16, 32));
  Y_in_thread_acc[0] = (Y_in_thread_acc[0] + __shfl_down_sync(Y_mask[0], Y_in_thread_acc[0], 8, 32));
  Y_in_thread_acc[0] = (Y_in_thread_acc[0] + __shfl_down_sync(Y_mask[0], Y_in_thread_acc[0], 4, 32));
  Y_in_thread_acc[0] = (Y_in_thread_acc[0] + __shfl_down_sync(Y_mask[0], Y_in_thread_acc[0], 2, 32));
  Y_in_thread_acc[0] = (Y_in_thread_acc[0] + __shfl_down_sync(Y_mask[0], Y_in_thread_acc[0], 1, 32));
  Y_in_thread_acc[0] = __shfl_sync(Y_mask[0], Y_in_thread_acc[0], 0, 32);
  Y_local[ax1_fused_0_ax1_fused_1_fused] = Y_in_thread_acc[0];
  int ax0_fused_0_ax0_fused_1_fused = ((int)threadIdx.y);
  int tx = ((int)threadIdx.x);
  if ((tx == 0) && (((u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused) < 100)) {
    Z[(u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused] = ((half)max((float)(Y_local[ax0_fused_0_ax0_fused_1_fused] + bias[(u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused]), (float)((half)0.0f)));
  }
}

