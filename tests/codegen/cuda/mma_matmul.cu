// CUDA C written by tirc.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <class T>
static __device__ __forceinline__ void tirc_ldmatrix_x4(T* local, const T* shared, int offset) {
  unsigned address = (unsigned)__cvta_generic_to_shared(shared + offset);
  unsigned* r = (unsigned*)local;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
}
template <class T>
static __device__ __forceinline__ void tirc_ldmatrix_x4_trans(T* local, const T* shared, int offset) {
  unsigned address = (unsigned)__cvta_generic_to_shared(shared + offset);
  unsigned* r = (unsigned*)local;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
}
static __device__ __forceinline__ void tirc_mma_m16n8k16(float* c, const half* a, const half* b) {
  const unsigned* ra = (const unsigned*)a;
  const unsigned* rb = (const unsigned*)b;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
}
static __device__ __forceinline__ void tirc_mma_m16n8k16(float* c, const nv_bfloat16* a, const nv_bfloat16* b) {
  const unsigned* ra = (const unsigned*)a;
  const unsigned* rb = (const unsigned*)b;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
}
static __device__ __forceinline__ void tirc_mma_m16n8k16(half* c, const half* a, const half* b) {
  const unsigned* ra = (const unsigned*)a;
  const unsigned* rb = (const unsigned*)b;
  unsigned* rc = (unsigned*)c;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
               : "+r"(rc[0]), "+r"(rc[1])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
}
template <class T>
static __device__ __forceinline__ void tirc_mma_fill(T* local, int elements) {
  for (int i = 0; i < elements; ++i) local[i] = T(0.0f);
}
// Lane l's element e of a 16x16 accumulator tile is row 8 * (e % 4 / 2) + l / 4,
// column 8 * (e / 4) + l % 4 * 2 + e % 2.
template <class T>
static __device__ __forceinline__ void tirc_mma_store_16x16(T* tile, const T* local, int stride) {
  int lane = threadIdx.x & 31;
  for (int e = 0; e < 8; ++e) {
    tile[(8 * (e % 4 / 2) + lane / 4) * stride + 8 * (e / 4) + lane % 4 * 2 + e % 2] = local[e];
  }
}

extern "C" __global__ void __launch_bounds__(128) main_kernel(half* __restrict__ A, half* __restrict__ B, float* __restrict__ C) {
  int i_0_0_j_0_0_fused = ((int)blockIdx.x);
  int i_0_1_j_0_1_fused = ((int)blockIdx.y);
  int j_0_2_i_0_2_fused = ((int)threadIdx.y);
  float C_warp[16];
  for (int j_0_4_init = 0; j_0_4_init < 2; ++j_0_4_init) {
    int tx = ((int)threadIdx.x);
    tirc_mma_fill((C_warp + j_0_4_init * 8), 8);
  }
  for (int k_0_0 = 0; k_0_0 < 2; ++k_0_0) {
    __syncthreads();
    __shared__ __align__(16) half A_shared[1280];
    __shared__ __align__(16) half B_shared[2304];
    int ax0_ax1_fused_1 = ((int)threadIdx.y);
    int ax0_ax1_fused_2 = ((int)threadIdx.x);
    A_shared[((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)] = A[((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 1] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 1];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 2] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 2];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 3] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 3];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 4] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 4];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 5] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 5];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 6] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 6];
    A_shared[(((ax0_ax1_fused_1 * 320) + ((ax0_ax1_fused_2 >> 2) * 40)) + ((ax0_ax1_fused_2 & 3) * 8)) + 7] = A[(((((i_0_1_j_0_1_fused * 2048) + (ax0_ax1_fused_1 * 512)) + ((ax0_ax1_fused_2 >> 2) * 64)) + (k_0_0 * 32)) + ((ax0_ax1_fused_2 & 3) * 8)) + 7];
    for (int ax0_ax1_fused_0 = 0; ax0_ax1_fused_0 < 2; ++ax0_ax1_fused_0) {
      int ax0_ax1_fused_1_1 = ((int)threadIdx.y);
      int ax0_ax1_fused_2_1 = ((int)threadIdx.x);
      B_shared[(((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)] = B[(((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 1] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 1];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 2] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 2];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 3] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 3];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 4] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 4];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 5] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 5];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 6] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 6];
      B_shared[((((ax0_ax1_fused_0 * 1152) + (ax0_ax1_fused_1_1 * 288)) + ((ax0_ax1_fused_2_1 >> 3) * 72)) + ((ax0_ax1_fused_2_1 & 7) * 8)) + 7] = B[((((k_0_0 * 2048) + (ax0_ax1_fused_0 * 1024)) + (ax0_ax1_fused_1_1 * 256)) + (ax0_ax1_fused_2_1 * 8)) + 7];
    }
    __syncthreads();
    for (int k_0_1 = 0; k_0_1 < 2; ++k_0_1) {
      half A_shared_warp[8];
      half B_shared_warp[16];
      int tx_1 = ((int)threadIdx.x);
      tirc_ldmatrix_x4((A_shared_warp + 0), (&A_shared[((j_0_2_i_0_2_fused & 1) * 640) + (k_0_1 * 16)]), ((tx_1 & 15) * 40) + ((tx_1 >> 4) * 8));
      for (int ax1_0 = 0; ax1_0 < 2; ++ax1_0) {
        int tx_2 = ((int)threadIdx.x);
        tirc_ldmatrix_x4_trans((B_shared_warp + ax1_0 * 8), (&B_shared[((k_0_1 * 1152) + ((j_0_2_i_0_2_fused >> 1) * 32)) + (ax1_0 * 16)]), ((tx_2 & 15) * 72) + ((tx_2 >> 4) * 8));
      }
      for (int j_0_4 = 0; j_0_4 < 2; ++j_0_4) {
        int tx_3 = ((int)threadIdx.x);
        tirc_mma_m16n8k16((C_warp + j_0_4 * 8), (A_shared_warp + 0), (B_shared_warp + j_0_4 * 8));
        tirc_mma_m16n8k16((C_warp + (j_0_4 * 8) + 4), (A_shared_warp + 0), (B_shared_warp + (j_0_4 * 8) + 4));
      }
    }
  }
  for (int ax1_0_1 = 0; ax1_0_1 < 2; ++ax1_0_1) {
    int tx_4 = ((int)threadIdx.x);
    tirc_mma_store_16x16((&C[(((i_0_1_j_0_1_fused * 2048) + ((j_0_2_i_0_2_fused & 1) * 1024)) + ((j_0_2_i_0_2_fused >> 1) * 32)) + (ax1_0_1 * 16)]), (C_warp + ax1_0_1 * 8), 64);
  }
}

