// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ W, float* __restrict__ x, float* __restrict__ bias, float* __restrict__ Z) {
  int u_fused_ax0_fused_fused_0 = ((int)blockIdx.x);
  float Y_local[16];
  float Y_rf_local[512];
  float Y_rf_local_1[512];
  int u_fused_ax0_fused_fused_1 = ((int)threadIdx.y);
  int ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 = ((int)threadIdx.x);
  __shared__ __align__(16) float W_shared[4800];
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
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = 0.0f;
  }
  __syncthreads();
  float x_local[1];
  x_local[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[(u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0] * x_local[0]));
  }
  float x_local_1[1];
  x_local_1[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 32];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 32] * x_local_1[0]));
  }
  float x_local_2[1];
  x_local_2[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 64];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 64] * x_local_2[0]));
  }
  float x_local_3[1];
  x_local_3[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 96];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 96] * x_local_3[0]));
  }
  float x_local_4[1];
  x_local_4[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 128];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 128] * x_local_4[0]));
  }
  float x_local_5[1];
  x_local_5[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 160];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 160] * x_local_5[0]));
  }
  float x_local_6[1];
  x_local_6[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 192];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 192] * x_local_6[0]));
  }
  float x_local_7[1];
  x_local_7[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 224];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 224] * x_local_7[0]));
  }
  float x_local_8[1];
  x_local_8[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 256];
  if (((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 256] * x_local_8[0]));
  }
  float x_local_9[1];
  if (ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 < 12) {
    x_local_9[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 + 288];
  }
  if ((((u_fused_ax0_fused_fused_0 * 16) + u_fused_ax0_fused_fused_1) < 100) && (ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 < 12)) {
    Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 16) + u_fused_ax0_fused_fused_1] + (W_shared[((u_fused_ax0_fused_fused_1 * 300) + ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0) + 288] * x_local_9[0]));
  }
  int ax2_fused_0_ax2_fused_1_fused = ((int)threadIdx.y);
  int ax0_1 = ((int)threadIdx.x);
  if (((u_fused_ax0_fused_fused_0 * 16) + ax2_fused_0_ax2_fused_1_fused) < 100) {
    Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = 0.0f;
  }
  if (((u_fused_ax0_fused_fused_0 * 16) + ax2_fused_0_ax2_fused_1_fused) < 100) {
    Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = (Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] + Y_rf_local[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused]);
  }
  int ax1_fused_0_ax1_fused_1_fused = ((int)threadIdx.y);
  float Y_in_thread_acc[1];
  Y_in_thread_acc[0] = 0.0f;
  int ax0_2 = ((int)threadIdx.x);
  if (((u_fused_ax0_fused_fused_0 * 16) + ax1_fused_0_ax1_fused_1_fused) < 100) {
    Y_in_thread_acc[0] = (Y_in_thread_acc[0] + Y_rf_local_1[(ax0_2 * 16) + ax1_fused_0_ax1_fused_1_fused]);
  }
  int ax0_3 = ((int)threadIdx.x);
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
    Z[(u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused] = max((Y_local[ax0_fused_0_ax0_fused_1_fused] + bias[(u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused]), 0.0f);
  }
}

