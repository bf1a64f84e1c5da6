// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(96) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  int i = ((int)blockIdx.x);
  float s_local[1];
  float s_in_thread_acc[1];
  s_in_thread_acc[0] = 0.0f;
  for (int ax0_0 = 0; ax0_0 < 4; ++ax0_0) {
    int ax0_1 = ((int)threadIdx.x);
    if (((ax0_0 * 96) + ax0_1) < 300) {
      s_in_thread_acc[0] = (s_in_thread_acc[0] + (A[((i * 300) + (ax0_0 * 96)) + ax0_1] * A[((i * 300) + (ax0_0 * 96)) + ax0_1]));
    }
  }
  int ax0_1_1 = ((int)threadIdx.x);
  __shared__ __align__(16) float s_red_buf[96];
  s_red_buf[ax0_1_1] = s_in_thread_acc[0];
  __syncthreads();
  if (ax0_1_1 < 32) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 64]);
  }
  __syncthreads();
  if (ax0_1_1 < 32) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 32]);
  }
  __syncthreads();
  if (ax0_1_1 < 16) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 16]);
  }
  __syncthreads();
  if (ax0_1_1 < 8) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 8]);
  }
  __syncthreads();
  if (ax0_1_1 < 4) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 4]);
  }
  __syncthreads();
  if (ax0_1_1 < 2) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 2]);
  }
  __syncthreads();
  if (ax0_1_1 < 1) {
    s_red_buf[ax0_1_1] = (s_red_buf[ax0_1_1] + s_red_buf[ax0_1_1 + 1]);
  }
  __syncthreads();
  s_in_thread_acc[0] = s_red_buf[0];
  s_local[0] = s_in_thread_acc[0];
  int tx = ((int)threadIdx.x);
  if (tx == 0) {
    B[i] = sqrtf(s_local[0]);
  }
}

