
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
  __shared__ alignas(64) float W_shared_ptr[8192];
  alignas(64) float Y_rf_local_ptr[4];
  alignas(64) float x_local_ptr[8];
  alignas(64) float Y_rf_local_ptr_1[1];
  alignas(64) float red_buf0_ptr[1];
  for (int ax0 = 0; ax0 < 16; ++ax0) {
    for (int ax1_0 = 0; ax1_0 < 1; ++ax1_0) {
      int cse_v1 = (ax0 * 512);
      int cse_v2 = (((int)threadIdx.y) * 32);
      W_shared_ptr[(((ax0 * 512) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))] = W_ptr[((((((int)blockIdx.x) * 8192) + (ax0 * 512)) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))];
    }
  }
  *(float4*)(Y_rf_local_ptr + 0) = make_float4(0x0p+0f/*0.000000e+00*/, 0x0p+0f/*0.000000e+00*/, 0x0p+0f/*0.000000e+00*/, 0x0p+0f/*0.000000e+00*/);
  int cse_v3 = (((int)threadIdx.x) * 8);
  x_local_ptr[0] = x_ptr[(((int)threadIdx.x) * 8)];
  x_local_ptr[1] = x_ptr[((((int)threadIdx.x) * 8) + 1)];
  x_local_ptr[2] = x_ptr[((((int)threadIdx.x) * 8) + 2)];
  x_local_ptr[3] = x_ptr[((((int)threadIdx.x) * 8) + 3)];
  x_local_ptr[4] = x_ptr[((((int)threadIdx.x) * 8) + 4)];
  x_local_ptr[5] = x_ptr[((((int)threadIdx.x) * 8) + 5)];
  x_local_ptr[6] = x_ptr[((((int)threadIdx.x) * 8) + 6)];
  x_local_ptr[7] = x_ptr[((((int)threadIdx.x) * 8) + 7)];
  int cse_v4 = ((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8));
  __syncthreads();
  float4 __1;
    float4 v_ = *(float4*)(Y_rf_local_ptr + 0);
    float4 __2;
      float4 v__1 = *(float4*)(W_shared_ptr + ((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)));
      float4 v__2 = *(float4*)(x_local_ptr + 0);
      __2.x = (v__1.x*v__2.x);
      __2.y = (v__1.y*v__2.y);
      __2.z = (v__1.z*v__2.z);
      __2.w = (v__1.w*v__2.w);
    __1.x = (v_.x+__2.x);
    __1.y = (v_.y+__2.y);
    __1.z = (v_.z+__2.z);
    __1.w = (v_.w+__2.w);
  *(float4*)(Y_rf_local_ptr + 0) = __1;
  float4 __3;
    float4 v__3 = *(float4*)(Y_rf_local_ptr + 0);
    float4 __4;
      float4 v__4 = *(float4*)(W_shared_ptr + (((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)) + 4));
      float4 v__5 = *(float4*)(x_local_ptr + 4);
      __4.x = (v__4.x*v__5.x);
      __4.y = (v__4.y*v__5.y);
      __4.z = (v__4.z*v__5.z);
      __4.w = (v__4.w*v__5.w);
    __3.x = (v__3.x+__4.x);
    __3.y = (v__3.y+__4.y);
    __3.z = (v__3.z+__4.z);
    __3.w = (v__3.w+__4.w);
  *(float4*)(Y_rf_local_ptr + 0) = __3;
  x_local_ptr[0] = x_ptr[((((int)threadIdx.x) * 8) + 256)];
  x_local_ptr[1] = x_ptr[((((int)threadIdx.x) * 8) + 257)];
  x_local_ptr[2] = x_ptr[((((int)threadIdx.x) * 8) + 258)];
  x_local_ptr[3] = x_ptr[((((int)threadIdx.x) * 8) + 259)];
  x_local_ptr[4] = x_ptr[((((int)threadIdx.x) * 8) + 260)];
  x_local_ptr[5] = x_ptr[((((int)threadIdx.x) * 8) + 261)];
  x_local_ptr[6] = x_ptr[((((int)threadIdx.x) * 8) + 262)];
  x_local_ptr[7] = x_ptr[((((int)threadIdx.x) * 8) + 263)];
  float4 __5;
    float4 v__6 = *(float4*)(Y_rf_local_ptr + 0);
    float4 __6;
      float4 v__7 = *(float4*)(W_shared_ptr + (((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)) + 256));
      float4 v__8 = *(float4*)(x_local_ptr + 0);
      __6.x = (v__7.x*v__8.x);
      __6.y = (v__7.y*v__8.y);
      __6.z = (v__7.z*v__8.z);
      __6.w = (v__7.w*v__8.w);
    __5.x = (v__6.x+__6.x);
    __5.y = (v__6.y+__6.y);
    __5.z = (v__6.z+__6.z);
    __5.w = (v__6.w+__6.w);
  *(float4*)(Y_rf_local_ptr + 0) = __5;
  float4 __7;
    float4 v__9 = *(float4*)(Y_rf_local_ptr + 0);
    float4 __8;
      float4 v__10 = *(float4*)(W_shared_ptr + (((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)) + 260));
      float4 v__11 = *(float4*)(x_local_ptr + 4);
      __8.x = (v__10.x*v__11.x);
      __8.y = (v__10.y*v__11.y);
      __8.z = (v__10.z*v__11.z);
      __8.w = (v__10.w*v__11.w);
    __7.x = (v__9.x+__8.x);
    __7.y = (v__9.y+__8.y);
    __7.z = (v__9.z+__8.z);
    __7.w = (v__9.w+__8.w);
  *(float4*)(Y_rf_local_ptr + 0) = __7;
  Y_rf_local_ptr_1[0] = 0x0p+0f/*0.000000e+00*/;
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[0]);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[1]);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[2]);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[3]);
  alignas(64) float t0_ptr[1];
  alignas(64) uint mask_ptr[1];
  red_buf0_ptr[0] = Y_rf_local_ptr_1[0];
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
  if (((int)threadIdx.x) == 0) {
    int cse_v5 = ((((int)blockIdx.x) * 16) + ((int)threadIdx.y));
    Z_ptr[((((int)blockIdx.x) * 16) + ((int)threadIdx.y))] = max((red_buf0_ptr[0] + bias_ptr[((((int)blockIdx.x) * 16) + ((int)threadIdx.y))]), 0x0p+0f/*0.000000e+00*/);
  }
}

