
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
extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ W_ptr, float* __restrict__ Z_ptr, float* __restrict__ bias_ptr, float* __restrict__ x_ptr);
extern "C" __global__ void __launch_bounds__(512) main_kernel(float* __restrict__ W_ptr, float* __restrict__ Z_ptr, float* __restrict__ bias_ptr, float* __restrict__ x_ptr) {
  __shared__ alignas(64) float W_shared_ptr[4800];
  alignas(64) float Y_rf_local_ptr[1];
  alignas(64) float x_local_ptr[1];
  alignas(64) float Y_rf_local_ptr_1[1];
  alignas(64) float in_thread_Y_local_ptr[1];
  alignas(64) float red_buf0_ptr[1];
  int cse_v1 = (((int)blockIdx.x) * 4);
  for (int ax0 = 0; ax0 < 16; ++ax0) {
    for (int ax1_0 = 0; ax1_0 < 1; ++ax1_0) {
      if ((((((int)blockIdx.x) * 4) + (ax0 >> 2)) < 25) && (((((int)threadIdx.y) * 8) + (((int)threadIdx.x) >> 2)) < 75)) {
        int cse_v2 = (ax0 * 300);
        int cse_v3 = (((int)threadIdx.y) * 32);
        W_shared_ptr[(((ax0 * 300) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))] = W_ptr[((((((int)blockIdx.x) * 4800) + (ax0 * 300)) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))];
      }
    }
  }
  int cse_v4 = ((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2));
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = 0x0p+0f/*0.000000e+00*/;
  }
  x_local_ptr[0] = x_ptr[((int)threadIdx.x)];
  int cse_v5 = ((((int)threadIdx.y) * 300) + ((int)threadIdx.x));
  __syncthreads();
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[((((int)threadIdx.y) * 300) + ((int)threadIdx.x))] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 32)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 32)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 64)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 64)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 96)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 96)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 128)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 128)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 160)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 160)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 192)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 192)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 224)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 224)] * x_local_ptr[0]));
  }
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 256)];
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 256)] * x_local_ptr[0]));
  }
  if (((int)threadIdx.x) < 12) {
    x_local_ptr[0] = x_ptr[(((int)threadIdx.x) + 288)];
  }
  if ((((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) && (((int)threadIdx.x) < 12)) {
    Y_rf_local_ptr[0] = (Y_rf_local_ptr[0] + (W_shared_ptr[(((((int)threadIdx.y) * 300) + ((int)threadIdx.x)) + 288)] * x_local_ptr[0]));
  }
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr_1[0] = 0x0p+0f/*0.000000e+00*/;
  }
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[0]);
  }
  in_thread_Y_local_ptr[0] = 0x0p+0f/*0.000000e+00*/;
  if (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25) {
    in_thread_Y_local_ptr[0] = (in_thread_Y_local_ptr[0] + Y_rf_local_ptr_1[0]);
  }
  alignas(64) float t0_ptr[1];
  alignas(64) uint mask_ptr[1];
  red_buf0_ptr[0] = in_thread_Y_local_ptr[0];
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
  red_buf0_ptr[0] = __shfl_sync(mask_ptr[0], red_buf0_ptr[0], (((int)threadIdx.y) * 32), 32);
  if ((((int)threadIdx.x) == 0) && (((((int)blockIdx.x) * 4) + (((int)threadIdx.y) >> 2)) < 25)) {
    int cse_v6 = ((((int)blockIdx.x) * 16) + ((int)threadIdx.y));
    Z_ptr[((((int)blockIdx.x) * 16) + ((int)threadIdx.y))] = max((red_buf0_ptr[0] + bias_ptr[((((int)blockIdx.x) * 16) + ((int)threadIdx.y))]), 0x0p+0f/*0.000000e+00*/);
  }
}

