// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(48) main_kernel(float* __restrict__ A, float* __restrict__ M) {
  int i = ((int)blockIdx.x);
  float M_in_thread_acc[1];
  M_in_thread_acc[0] = (-3.4028235e38f);
  for (int k_0 = 0; k_0 < 2; ++k_0) {
    int k_1 = ((int)threadIdx.x);
    M_in_thread_acc[0] = max(M_in_thread_acc[0], A[((i * 96) + (k_0 * 48)) + k_1]);
  }
  int k_1_1 = ((int)threadIdx.x);
  __shared__ __align__(16) float M_red_buf[48];
  M_red_buf[k_1_1] = M_in_thread_acc[0];
  __syncthreads();
  if (k_1_1 < 16) {
    M_red_buf[k_1_1] = max(M_red_buf[k_1_1], M_red_buf[k_1_1 + 32]);
  }
  __syncthreads();
  if (k_1_1 < 16) {
    M_red_buf[k_1_1] = max(M_red_buf[k_1_1], M_red_buf[k_1_1 + 16]);
  }
  __syncthreads();
  if (k_1_1 < 8) {
    M_red_buf[k_1_1] = max(M_red_buf[k_1_1], M_red_buf[k_1_1 + 8]);
  }
  __syncthreads();
  if (k_1_1 < 4) {
    M_red_buf[k_1_1] = max(M_red_buf[k_1_1], M_red_buf[k_1_1 + 4]);
  }
  __syncthreads();
  if (k_1_1 < 2) {
    M_red_buf[k_1_1] = max(M_red_buf[k_1_1], M_red_buf[k_1_1 + 2]);
  }
  __syncthreads();
  if (k_1_1 < 1) {
    M_red_buf[k_1_1] = max(M_red_buf[k_1_1], M_red_buf[k_1_1 + 1]);
  }
  __syncthreads();
  M_in_thread_acc[0] = M_red_buf[0];
  if (k_1_1 == 0) {
    M[i] = M_in_thread_acc[0];
  }
}

