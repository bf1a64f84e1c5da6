// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, int* __restrict__ A_red) {
  int ax0_fused = ((int)blockIdx.x);
  __shared__ __align__(16) int A_red_temp_v0_shared[1];
  int A_red_temp_in_thread_acc_0[1];
  float A_red_temp_in_thread_acc_1[1];
  A_red_temp_in_thread_acc_0[0] = (-1);
  A_red_temp_in_thread_acc_1[0] = (-3.4028235e38f);
  int ax1_fused_1 = ((int)threadIdx.x);
  int A_red_temp_in_thread_acc_0_value = (((A[(ax0_fused * 256) + ax1_fused_1] < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A[(ax0_fused * 256) + ax1_fused_1]) && (A_red_temp_in_thread_acc_0[0] < ax1_fused_1))) ? A_red_temp_in_thread_acc_0[0] : ax1_fused_1);
  float A_red_temp_in_thread_acc_1_value = ((A[(ax0_fused * 256) + ax1_fused_1] < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A[(ax0_fused * 256) + ax1_fused_1]);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value;
  int ax1_fused_1_1 = ((int)threadIdx.x);
  __shared__ __align__(16) float A_red_temp_v1_shared[1];
  unsigned int A_red_temp_mask[1];
  __shared__ __align__(16) int A_red_temp_red_buf_staging_0[8];
  __shared__ __align__(16) float A_red_temp_red_buf_staging_1[8];
  __shared__ __align__(16) int A_red_temp_red_result_0[1];
  __shared__ __align__(16) float A_red_temp_red_result_1[1];
  A_red_temp_mask[0] = __activemask();
  int A_red_temp_in_thread_acc_0_other = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 16, 32);
  float A_red_temp_in_thread_acc_1_other = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 16, 32);
  int A_red_temp_in_thread_acc_0_value_1 = (((A_red_temp_in_thread_acc_1_other < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other);
  float A_red_temp_in_thread_acc_1_value_1 = ((A_red_temp_in_thread_acc_1_other < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_1;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_1;
  int A_red_temp_in_thread_acc_0_other_1 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 8, 32);
  float A_red_temp_in_thread_acc_1_other_1 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 8, 32);
  int A_red_temp_in_thread_acc_0_value_2 = (((A_red_temp_in_thread_acc_1_other_1 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_1) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_1))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_1);
  float A_red_temp_in_thread_acc_1_value_2 = ((A_red_temp_in_thread_acc_1_other_1 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_1);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_2;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_2;
  int A_red_temp_in_thread_acc_0_other_2 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 4, 32);
  float A_red_temp_in_thread_acc_1_other_2 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 4, 32);
  int A_red_temp_in_thread_acc_0_value_3 = (((A_red_temp_in_thread_acc_1_other_2 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_2) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_2))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_2);
  float A_red_temp_in_thread_acc_1_value_3 = ((A_red_temp_in_thread_acc_1_other_2 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_2);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_3;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_3;
  int A_red_temp_in_thread_acc_0_other_3 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 2, 32);
  float A_red_temp_in_thread_acc_1_other_3 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 2, 32);
  int A_red_temp_in_thread_acc_0_value_4 = (((A_red_temp_in_thread_acc_1_other_3 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_3) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_3))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_3);
  float A_red_temp_in_thread_acc_1_value_4 = ((A_red_temp_in_thread_acc_1_other_3 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_3);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_4;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_4;
  int A_red_temp_in_thread_acc_0_other_4 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 1, 32);
  float A_red_temp_in_thread_acc_1_other_4 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 1, 32);
  int A_red_temp_in_thread_acc_0_value_5 = (((A_red_temp_in_thread_acc_1_other_4 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_4) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_4))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_4);
  float A_red_temp_in_thread_acc_1_value_5 = ((A_red_temp_in_thread_acc_1_other_4 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_4);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_5;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_5;
  if ((ax1_fused_1_1 & 31) == 0) {
    int A_red_temp_red_buf_staging_0_value = A_red_temp_in_thread_acc_0[0];
    float A_red_temp_red_buf_staging_1_value = A_red_temp_in_thread_acc_1[0];
    A_red_temp_red_buf_staging_0[ax1_fused_1_1 >> 5] = A_red_temp_red_buf_staging_0_value;
    A_red_temp_red_buf_staging_1[ax1_fused_1_1 >> 5] = A_red_temp_red_buf_staging_1_value;
  }
  __syncthreads();
  if (ax1_fused_1_1 < 8) {
    int A_red_temp_in_thread_acc_0_value_6 = A_red_temp_red_buf_staging_0[ax1_fused_1_1];
    float A_red_temp_in_thread_acc_1_value_6 = A_red_temp_red_buf_staging_1[ax1_fused_1_1];
    A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_6;
    A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_6;
  }
  A_red_temp_mask[0] = __activemask();
  int A_red_temp_in_thread_acc_0_other_5 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 4, 8);
  float A_red_temp_in_thread_acc_1_other_5 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 4, 8);
  int A_red_temp_in_thread_acc_0_value_7 = (((A_red_temp_in_thread_acc_1_other_5 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_5) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_5))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_5);
  float A_red_temp_in_thread_acc_1_value_7 = ((A_red_temp_in_thread_acc_1_other_5 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_5);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_7;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_7;
  int A_red_temp_in_thread_acc_0_other_6 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 2, 8);
  float A_red_temp_in_thread_acc_1_other_6 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 2, 8);
  int A_red_temp_in_thread_acc_0_value_8 = (((A_red_temp_in_thread_acc_1_other_6 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_6) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_6))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_6);
  float A_red_temp_in_thread_acc_1_value_8 = ((A_red_temp_in_thread_acc_1_other_6 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_6);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_8;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_8;
  int A_red_temp_in_thread_acc_0_other_7 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 1, 8);
  float A_red_temp_in_thread_acc_1_other_7 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 1, 8);
  int A_red_temp_in_thread_acc_0_value_9 = (((A_red_temp_in_thread_acc_1_other_7 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_7) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_7))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_7);
  float A_red_temp_in_thread_acc_1_value_9 = ((A_red_temp_in_thread_acc_1_other_7 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_7);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_9;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_9;
  if (ax1_fused_1_1 == 0) {
    int A_red_temp_red_result_0_value = A_red_temp_in_thread_acc_0[0];
    float A_red_temp_red_result_1_value = A_red_temp_in_thread_acc_1[0];
    A_red_temp_red_result_0[0] = A_red_temp_red_result_0_value;
    A_red_temp_red_result_1[0] = A_red_temp_red_result_1_value;
  }
  __syncthreads();
  int A_red_temp_in_thread_acc_0_value_10 = A_red_temp_red_result_0[0];
  float A_red_temp_in_thread_acc_1_value_10 = A_red_temp_red_result_1[0];
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_10;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_10;
  if (ax1_fused_1_1 == 0) {
    A_red_temp_v0_shared[0] = A_red_temp_in_thread_acc_0[0];
    A_red_temp_v1_shared[0] = A_red_temp_in_thread_acc_1[0];
  }
  __syncthreads();
  int ax1_1 = ((int)threadIdx.x);
  if (ax1_1 < 1) {
    A_red[ax0_fused] = A_red_temp_v0_shared[0];
  }
}

