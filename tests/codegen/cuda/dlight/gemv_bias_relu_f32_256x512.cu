// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ W, float* __restrict__ x, float* __restrict__ bias, float* __restrict__ Z) {
  int u_fused_ax0_fused_fused_0 = ((int)blockIdx.x);
  float Y_local[16];
  float Y_rf_local[2048];
  float Y_rf_local_1[512];
  int u_fused_ax0_fused_fused_1 = ((int)threadIdx.y);
  int ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 = ((int)threadIdx.x);
  __shared__ __align__(16) float W_shared[8192];
  for (int ax0 = 0; ax0 < 16; ++ax0) {
    for (int ax1_0 = 0; ax1_0 < 1; ++ax1_0) {
      int ax1_1 = ((int)threadIdx.y);
      int ax1_2 = ((int)threadIdx.x);
      W_shared[((ax0 * 512) + (ax1_1 * 32)) + ax1_2] = W[(((u_fused_ax0_fused_fused_0 * 8192) + (ax0 * 512)) + (ax1_1 * 32)) + ax1_2];
    }
  }
  Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] = 0.0f;
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] = 0.0f;
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] = 0.0f;
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] = 0.0f;
  __syncthreads();
  float x_local[8];
  x_local[0] = x[ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8];
  x_local[1] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 1];
  x_local[2] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 2];
  x_local[3] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 3];
  x_local[4] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 4];
  x_local[5] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 5];
  x_local[6] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 6];
  x_local[7] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 7];
  float4 W_shared_v = *(float4*)(W_shared + ((u_fused_ax0_fused_fused_1 * 512) + (ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8)));
  Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] + (W_shared_v.x * x_local[0]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] + (W_shared_v.y * x_local[1]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] + (W_shared_v.z * x_local[2]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] + (W_shared_v.w * x_local[3]));
  float4 W_shared_v_1 = *(float4*)(W_shared + (((u_fused_ax0_fused_fused_1 * 512) + (ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8)) + 4));
  Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] + (W_shared_v_1.x * x_local[4]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] + (W_shared_v_1.y * x_local[5]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] + (W_shared_v_1.z * x_local[6]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] + (W_shared_v_1.w * x_local[7]));
  float x_local_1[8];
  x_local_1[0] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 256];
  x_local_1[1] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 257];
  x_local_1[2] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 258];
  x_local_1[3] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 259];
  x_local_1[4] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 260];
  x_local_1[5] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 261];
  x_local_1[6] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 262];
  x_local_1[7] = x[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8) + 263];
  float4 W_shared_v_2 = *(float4*)(W_shared + (((u_fused_ax0_fused_fused_1 * 512) + (ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8)) + 256));
  Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] + (W_shared_v_2.x * x_local_1[0]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] + (W_shared_v_2.y * x_local_1[1]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] + (W_shared_v_2.z * x_local_1[2]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] + (W_shared_v_2.w * x_local_1[3]));
  float4 W_shared_v_3 = *(float4*)(W_shared + (((u_fused_ax0_fused_fused_1 * 512) + (ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 8)) + 260));
  Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] = (Y_rf_local[(ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1] + (W_shared_v_3.x * x_local_1[4]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 16] + (W_shared_v_3.y * x_local_1[5]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 32] + (W_shared_v_3.z * x_local_1[6]));
  Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] = (Y_rf_local[((ax1_fused_u_fused_1_ax1_fused_u_fused_3_fused_0 * 64) + u_fused_ax0_fused_fused_1) + 48] + (W_shared_v_3.w * x_local_1[7]));
  int ax2_fused_0_ax2_fused_1_fused = ((int)threadIdx.y);
  int ax0_1 = ((int)threadIdx.x);
  Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = 0.0f;
  Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = (Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] + Y_rf_local[(ax0_1 * 64) + ax2_fused_0_ax2_fused_1_fused]);
  Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = (Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] + Y_rf_local[((ax0_1 * 64) + ax2_fused_0_ax2_fused_1_fused) + 16]);
  Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = (Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] + Y_rf_local[((ax0_1 * 64) + ax2_fused_0_ax2_fused_1_fused) + 32]);
  Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] = (Y_rf_local_1[(ax0_1 * 16) + ax2_fused_0_ax2_fused_1_fused] + Y_rf_local[((ax0_1 * 64) + ax2_fused_0_ax2_fused_1_fused) + 48]);
  int ax1_fused_0_ax1_fused_1_fused = ((int)threadIdx.y);
  float Y_in_thread_acc[1];
  Y_in_thread_acc[0] = 0.0f;
  int ax0_2 = ((int)threadIdx.x);
  Y_in_thread_acc[0] = (Y_in_thread_acc[0] + Y_rf_local_1[(ax0_2 * 16) + ax1_fused_0_ax1_fused_1_fused]);
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
  if (tx == 0) {
    Z[(u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused] = max((Y_local[ax0_fused_0_ax0_fused_1_fused] + bias[(u_fused_ax0_fused_fused_0 * 16) + ax0_fused_0_ax0_fused_1_fused]), 0.0f);
  }
}

