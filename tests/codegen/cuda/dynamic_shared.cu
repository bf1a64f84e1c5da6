// CUDA C written by tirc.

extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A, float* __restrict__ B) {
  extern __shared__ __align__(16) unsigned char tirc_dynamic_shared[];
  int i = ((int)blockIdx.x);
  float* A_shared = (float*)(tirc_dynamic_shared + 0);
  for (int ax0_0 = 0; ax0_0 < 64; ++ax0_0) {
    int ax0_1 = ((int)threadIdx.x);
    A_shared[(ax0_0 * 256) + ax0_1] = A[((i * 16384) + (ax0_0 * 256)) + ax0_1];
  }
  __syncthreads();
  for (int j_0 = 0; j_0 < 64; ++j_0) {
    int j_1 = ((int)threadIdx.x);
    B[((i * 16384) + (j_0 * 256)) + j_1] = (A_shared[(16383 - j_1) - (j_0 * 256)] * 2.0f);
  }
}

