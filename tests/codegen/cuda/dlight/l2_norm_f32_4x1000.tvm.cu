
#ifdef __CUDACC_RTC__
  #include <cuda/std/cstdint>
  using cuda::std::uint8_t;
  using cuda::std::uint16_t;
  using cuda::std::uint32_t;
  using cuda::std::uint64_t;
  using cuda::std::int8_t;
  using cuda::std::int16_t;
  using cuda::std::int32_t;
  using cuda::std::int64_t;

  #include <cuda/std/type_traits>
  namespace std {
    using cuda::std::is_same;
    using cuda::std::is_same_v;
    using cuda::std::is_integral;
    using cuda::std::is_signed;
    using cuda::std::is_unsigned;
    using cuda::std::is_floating_point;
    using cuda::std::enable_if;
    using cuda::std::conditional;
  }

  // NVRTC uses asm/volatile instead of __asm__/__volatile__ (gcc extension).
  #ifndef __asm__
  #define __asm__ asm
  #endif
  #ifndef __volatile__
  #define __volatile__ volatile
  #endif
#else
  #include <cstdint>
  #include <type_traits>
  #include <cuda.h>
#endif

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)
#define __shfl_sync(mask, var, lane, width) \
        __shfl((var), (lane), (width))

#define __shfl_down_sync(mask, var, offset, width) \
        __shfl_down((var), (offset), (width))

#define __shfl_up_sync(mask, var, offset, width) \
        __shfl_up((var), (offset), (width))
#endif

#if (((__CUDACC_VER_MAJOR__ == 11) && (__CUDACC_VER_MINOR__ >= 4)) || \
     (__CUDACC_VER_MAJOR__ > 11))
#define TVM_ENABLE_L2_PREFETCH 1
#else
#define TVM_ENABLE_L2_PREFETCH 0
#endif

#ifdef _WIN32
  using uint = unsigned int;
  using uchar = unsigned char;
  using ushort = unsigned short;
  using int64_t = long long;
  using uint64_t = unsigned long long;
#else
  #define uint unsigned int
  #define uchar unsigned char
  #define ushort unsigned short
#endif
extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ A_ptr, float* __restrict__ B_ptr);
extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  alignas(64) float S_rf_local_ptr[1];
  __shared__ alignas(64) float red_result_ptr[1];
  S_rf_local_ptr[0] = 0x0p+0f/*0.000000e+00*/;
  int cse_v1 = ((((int)blockIdx.x) * 1000) + ((int)threadIdx.x));
  S_rf_local_ptr[0] = (S_rf_local_ptr[0] + (A_ptr[((((int)blockIdx.x) * 1000) + ((int)threadIdx.x))] * A_ptr[((((int)blockIdx.x) * 1000) + ((int)threadIdx.x))]));
  if (((int)threadIdx.x) < 488) {
    int cse_v2 = (((((int)blockIdx.x) * 1000) + ((int)threadIdx.x)) + 512);
    S_rf_local_ptr[0] = (S_rf_local_ptr[0] + (A_ptr[(((((int)blockIdx.x) * 1000) + ((int)threadIdx.x)) + 512)] * A_ptr[(((((int)blockIdx.x) * 1000) + ((int)threadIdx.x)) + 512)]));
  }
  __shared__ alignas(64) float red_buf_staging_ptr[16];
  alignas(64) float t0_ptr[1];
  alignas(64) uint mask_ptr[1];
  alignas(64) float red_buf0_ptr[1];
  alignas(64) float t0_ptr_1[1];
  alignas(64) uint mask_ptr_1[1];
  alignas(64) float red_buf0_ptr_1[1];
  red_buf0_ptr[0] = S_rf_local_ptr[0];
  mask_ptr[0] = __activemask();
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 16, 32);
  red_buf0_ptr[0] = (red_buf0_ptr[0] + t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 8, 32);
  red_buf0_ptr[0] = (red_buf0_ptr[0] + t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 4, 32);
  red_buf0_ptr[0] = (red_buf0_ptr[0] + t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 2, 32);
  red_buf0_ptr[0] = (red_buf0_ptr[0] + t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 1, 32);
  red_buf0_ptr[0] = (red_buf0_ptr[0] + t0_ptr[0]);
  if ((((int)threadIdx.x) % 32) == 0) {
    red_buf_staging_ptr[(((int)threadIdx.x) >> 5)] = red_buf0_ptr[0];
  }
  __syncthreads();
  if (((int)threadIdx.x) < 16) {
    red_buf0_ptr_1[0] = red_buf_staging_ptr[((int)threadIdx.x)];
  }
  mask_ptr_1[0] = __activemask();
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 8, 32);
  red_buf0_ptr_1[0] = (red_buf0_ptr_1[0] + t0_ptr_1[0]);
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 4, 32);
  red_buf0_ptr_1[0] = (red_buf0_ptr_1[0] + t0_ptr_1[0]);
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 2, 32);
  red_buf0_ptr_1[0] = (red_buf0_ptr_1[0] + t0_ptr_1[0]);
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 1, 32);
  red_buf0_ptr_1[0] = (red_buf0_ptr_1[0] + t0_ptr_1[0]);
  if (((int)threadIdx.x) == 0) {
    ((volatile float*)red_result_ptr)[0] = red_buf0_ptr_1[0];
  }
  __syncthreads();
  if (((int)threadIdx.x) == 0) {
    B_ptr[((int)blockIdx.x)] = sqrtf(((volatile float*)red_result_ptr)[0]);
  }
}

