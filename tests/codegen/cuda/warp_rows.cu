// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(64) main_kernel(float* __restrict__ A, float* __restrict__ S) {
  int i_0 = ((int)blockIdx.x);
  int i_1 = ((int)threadIdx.y);
  float S_in_thread_acc[1];
  S_in_thread_acc[0] = 0.0f;
  int k = ((int)threadIdx.x);
  S_in_thread_acc[0] = (S_in_thread_acc[0] + A[((i_0 * 64) + (i_1 * 16)) + k]);
  int k_1 = ((int)threadIdx.x);
  unsigned int S_mask[1];
  S_mask[0] = __activemask();
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 8, 16));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 4, 16));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 2, 16));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 1, 16));
  S_in_thread_acc[0] = __shfl_sync(S_mask[0], S_in_thread_acc[0], 0, 16);
  if (k_1 == 0) {
    S[(i_0 * 4) + i_1] = S_in_thread_acc[0];
  }
}

