// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(128) main_kernel(int* __restrict__ A, int* __restrict__ B, int* __restrict__ S) {
  int bx = ((int)blockIdx.x);
  int S_in_thread_acc[1];
  int ty = ((int)threadIdx.y);
  B[(bx * 4) + ty] = (A[(bx * 32) + ty] * 2);
  S_in_thread_acc[0] = 0;
  int tx = ((int)threadIdx.x);
  S_in_thread_acc[0] = (S_in_thread_acc[0] + A[(bx * 32) + tx]);
  int ty_1 = ((int)threadIdx.y);
  int tx_1 = ((int)threadIdx.x);
  unsigned int S_mask[1];
  S_mask[0] = __activemask();
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 16, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 8, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 4, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 2, 32));
  S_in_thread_acc[0] = (S_in_thread_acc[0] + __shfl_down_sync(S_mask[0], S_in_thread_acc[0], 1, 32));
  S_in_thread_acc[0] = __shfl_sync(S_mask[0], S_in_thread_acc[0], 0, 32);
  if (tx_1 == 0) {
    S[bx] = S_in_thread_acc[0];
  }
}

