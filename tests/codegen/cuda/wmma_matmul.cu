// CUDA C written by tirc.
#include <mma.h>
#include <cuda_fp16.h>

extern "C" __global__ void __launch_bounds__(128) main_kernel(half* __restrict__ A, half* __restrict__ B, float* __restrict__ C) {
  int i_0_0_j_0_0_fused = ((int)blockIdx.x);
  int i_0_1_j_0_1_fused = ((int)threadIdx.y);
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> C_wmma_accumulator[1];
  nvcuda::wmma::fill_fragment(C_wmma_accumulator[0], 0.0f);
  for (int k_0 = 0; k_0 < 4; ++k_0) {
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> A_wmma_matrix_a[1];
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::row_major> B_wmma_matrix_b[1];
    __shared__ __align__(16) half A_shared[512];
    __shared__ __align__(16) half B_shared[512];
    for (int ax0_ax1_fused_0 = 0; ax0_ax1_fused_0 < 4; ++ax0_ax1_fused_0) {
      int ax0_ax1_fused_1 = ((int)threadIdx.y);
      int ax0_ax1_fused_2 = ((int)threadIdx.x);
      A_shared[((ax0_ax1_fused_0 * 128) + (ax0_ax1_fused_1 * 32)) + ax0_ax1_fused_2] = A[((((((i_0_0_j_0_0_fused >> 1) * 2048) + (ax0_ax1_fused_0 * 512)) + (ax0_ax1_fused_1 * 128)) + ((ax0_ax1_fused_2 >> 4) * 64)) + (k_0 * 16)) + (ax0_ax1_fused_2 & 15)];
    }
    __syncthreads();
    nvcuda::wmma::load_matrix_sync(A_wmma_matrix_a[0], (&A_shared[(i_0_1_j_0_1_fused >> 1) * 256]), 16);
    for (int ax0_ax1_fused_0_1 = 0; ax0_ax1_fused_0_1 < 4; ++ax0_ax1_fused_0_1) {
      int ax0_ax1_fused_1_1 = ((int)threadIdx.y);
      int ax0_ax1_fused_2_1 = ((int)threadIdx.x);
      B_shared[((ax0_ax1_fused_0_1 * 128) + (ax0_ax1_fused_1_1 * 32)) + ax0_ax1_fused_2_1] = B[((((k_0 * 1024) + (ax0_ax1_fused_0_1 * 256)) + (ax0_ax1_fused_1_1 * 64)) + ((i_0_0_j_0_0_fused & 1) * 32)) + ax0_ax1_fused_2_1];
    }
    __syncthreads();
    nvcuda::wmma::load_matrix_sync(B_wmma_matrix_b[0], (&B_shared[(i_0_1_j_0_1_fused & 1) * 16]), 32);
    nvcuda::wmma::mma_sync(C_wmma_accumulator[0], A_wmma_matrix_a[0], B_wmma_matrix_b[0], C_wmma_accumulator[0]);
  }
  nvcuda::wmma::store_matrix_sync((&C[((((i_0_0_j_0_0_fused >> 1) * 2048) + ((i_0_1_j_0_1_fused >> 1) * 1024)) + ((i_0_0_j_0_0_fused & 1) * 32)) + ((i_0_1_j_0_1_fused & 1) * 16)]), C_wmma_accumulator[0], 64, nvcuda::wmma::mem_row_major);
}

