// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(float* __restrict__ A, int* __restrict__ A_red) {
  int ax0 = ((int)blockIdx.x);
  __shared__ __align__(16) int idx_shared[1];
  int A_red_temp_in_thread_acc_0[1];
  float A_red_temp_in_thread_acc_1[1];
  A_red_temp_in_thread_acc_0[0] = (-1);
  A_red_temp_in_thread_acc_1[0] = (-3.4028235e38f);
  for (int ax0_0 = 0; ax0_0 < 5; ++ax0_0) {
    int ax0_1 = ((int)threadIdx.x);
    if (((ax0_0 * 64) + ax0_1) < 300) {
      int A_red_temp_in_thread_acc_0_value = (((A[((ax0 * 300) + (ax0_0 * 64)) + ax0_1] < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A[((ax0 * 300) + (ax0_0 * 64)) + ax0_1]) && (A_red_temp_in_thread_acc_0[0] < ((ax0_0 * 64) + ax0_1)))) ? A_red_temp_in_thread_acc_0[0] : ((ax0_0 * 64) + ax0_1));
      float A_red_temp_in_thread_acc_1_value = ((A[((ax0 * 300) + (ax0_0 * 64)) + ax0_1] < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A[((ax0 * 300) + (ax0_0 * 64)) + ax0_1]);
      A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value;
      A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value;
    }
  }
  int ax0_1_1 = ((int)threadIdx.x);
  __shared__ __align__(16) float val_shared[1];
  unsigned int A_red_temp_mask[1];
  __shared__ __align__(16) int A_red_temp_red_buf_staging_0[2];
  __shared__ __align__(16) float A_red_temp_red_buf_staging_1[2];
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
  if ((ax0_1_1 & 31) == 0) {
    int A_red_temp_red_buf_staging_0_value = A_red_temp_in_thread_acc_0[0];
    float A_red_temp_red_buf_staging_1_value = A_red_temp_in_thread_acc_1[0];
    A_red_temp_red_buf_staging_0[ax0_1_1 >> 5] = A_red_temp_red_buf_staging_0_value;
    A_red_temp_red_buf_staging_1[ax0_1_1 >> 5] = A_red_temp_red_buf_staging_1_value;
  }
  __syncthreads();
  if (ax0_1_1 < 2) {
    int A_red_temp_in_thread_acc_0_value_6 = A_red_temp_red_buf_staging_0[ax0_1_1];
    float A_red_temp_in_thread_acc_1_value_6 = A_red_temp_red_buf_staging_1[ax0_1_1];
    A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_6;
    A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_6;
  }
  A_red_temp_mask[0] = __activemask();
  int A_red_temp_in_thread_acc_0_other_5 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_0[0], 1, 2);
  float A_red_temp_in_thread_acc_1_other_5 = __shfl_down_sync(A_red_temp_mask[0], A_red_temp_in_thread_acc_1[0], 1, 2);
  int A_red_temp_in_thread_acc_0_value_7 = (((A_red_temp_in_thread_acc_1_other_5 < A_red_temp_in_thread_acc_1[0]) || ((A_red_temp_in_thread_acc_1[0] == A_red_temp_in_thread_acc_1_other_5) && (A_red_temp_in_thread_acc_0[0] < A_red_temp_in_thread_acc_0_other_5))) ? A_red_temp_in_thread_acc_0[0] : A_red_temp_in_thread_acc_0_other_5);
  float A_red_temp_in_thread_acc_1_value_7 = ((A_red_temp_in_thread_acc_1_other_5 < A_red_temp_in_thread_acc_1[0]) ? A_red_temp_in_thread_acc_1[0] : A_red_temp_in_thread_acc_1_other_5);
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_7;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_7;
  if (ax0_1_1 == 0) {
    int A_red_temp_red_result_0_value = A_red_temp_in_thread_acc_0[0];
    float A_red_temp_red_result_1_value = A_red_temp_in_thread_acc_1[0];
    A_red_temp_red_result_0[0] = A_red_temp_red_result_0_value;
    A_red_temp_red_result_1[0] = A_red_temp_red_result_1_value;
  }
  __syncthreads();
  int A_red_temp_in_thread_acc_0_value_8 = A_red_temp_red_result_0[0];
  float A_red_temp_in_thread_acc_1_value_8 = A_red_temp_red_result_1[0];
  A_red_temp_in_thread_acc_0[0] = A_red_temp_in_thread_acc_0_value_8;
  A_red_temp_in_thread_acc_1[0] = A_red_temp_in_thread_acc_1_value_8;
  if (ax0_1_1 == 0) {
    idx_shared[0] = A_red_temp_in_thread_acc_0[0];
    val_shared[0] = A_red_temp_in_thread_acc_1[0];
  }
  __syncthreads();
  int tx = ((int)threadIdx.x);
  if (tx == 0) {
    A_red[ax0] = idx_shared[0];
  }
}

