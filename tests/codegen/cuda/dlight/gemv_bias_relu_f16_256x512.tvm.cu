
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

#if !defined(__CUDA_ARCH__) || (__CUDA_ARCH__ >= 530)
#include <cuda_fp16.h>
__device__ half max(half a, half b)
{
  return __hgt(__half(a), __half(b)) ? a : b;
}
__device__ half min(half a, half b)
{
  return __hlt(__half(a), __half(b)) ? a : b;
}
#endif // __CUDA_ARCH__ >= 530

// Pack two half values.
static inline __device__ __host__ unsigned
__pack_half2(const half x, const half y) {
  unsigned v0 = *((unsigned short *)&x);
  unsigned v1 = *((unsigned short *)&y);
  return (v1 << 16) | v0;
}

#define CUDA_UNSUPPORTED_HALF_MATH_BINARY(HALF_MATH_NAME, FP32_MATH_NAME) \
static inline __device__ __host__ half HALF_MATH_NAME(half x, half y) {   \
  float tmp_x = __half2float(x);                                          \
  float tmp_y = __half2float(y);                                          \
  float result = FP32_MATH_NAME(tmp_x, tmp_y);                            \
  return __float2half(result);                                            \
}

#define CUDA_UNSUPPORTED_HALF_MATH_UNARY(HALF_MATH_NAME, FP32_MATH_NAME) \
static inline __device__ __host__ half HALF_MATH_NAME(half x) {          \
  float tmp_x = __half2float(x);                                         \
  float result = FP32_MATH_NAME(tmp_x);                                  \
  return __float2half(result);                                           \
}

// Some fp16 math functions are not supported in cuda_fp16.h,
// so we define them here to make sure the generated CUDA code
// is valid.
#if defined(__CUDA_ARCH__)
#if (__CUDA_ARCH__ >= 530)
CUDA_UNSUPPORTED_HALF_MATH_BINARY(hpow, powf)
#if ((__CUDACC_VER_MAJOR__ < 12) || ((__CUDACC_VER_MAJOR__ == 12) && (__CUDACC_VER_MINOR__ < 8)))
CUDA_UNSUPPORTED_HALF_MATH_UNARY(htanh, tanhf)
#endif
CUDA_UNSUPPORTED_HALF_MATH_UNARY(htan, tanf)
CUDA_UNSUPPORTED_HALF_MATH_UNARY(hatan, atanf)
CUDA_UNSUPPORTED_HALF_MATH_UNARY(herf, erf)
#else
CUDA_UNSUPPORTED_HALF_MATH_UNARY(hexp, exp)
#endif
#endif

#undef CUDA_UNSUPPORTED_HALF_MATH_BINARY
#undef CUDA_UNSUPPORTED_HALF_MATH_UNARY

template <typename T, typename TVec2>
struct __align__(8) half4_bfloat164 {
  T x, y, z, w;
  __host__ __device__ half4_bfloat164() : x(T(0)), y(T(0)), z(T(0)), w(T(0)) {}
  __host__ __device__ half4_bfloat164(T x, T y, T z, T w) : x(x), y(y), z(z), w(w) {}

};

using half4 = half4_bfloat164<__half, __half2>;
__host__ __device__ half4 make_half4(__half x, __half y, __half z, __half w) {
    return half4(x, y, z, w);
}

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
extern "C" __global__ void __launch_bounds__(512) main_kernel(half* __restrict__ W_ptr, half* __restrict__ Z_ptr, half* __restrict__ bias_ptr, half* __restrict__ x_ptr);
extern "C" __global__ void __launch_bounds__(512) main_kernel(half* __restrict__ W_ptr, half* __restrict__ Z_ptr, half* __restrict__ bias_ptr, half* __restrict__ x_ptr) {
  __shared__ alignas(64) half W_shared_ptr[8192];
  alignas(64) half Y_rf_local_ptr[4];
  alignas(64) half x_local_ptr[8];
  alignas(64) half Y_rf_local_ptr_1[1];
  alignas(64) half red_buf0_ptr[1];
  for (int ax0 = 0; ax0 < 16; ++ax0) {
    for (int ax1_0 = 0; ax1_0 < 1; ++ax1_0) {
      int cse_v1 = (ax0 * 512);
      int cse_v2 = (((int)threadIdx.y) * 32);
      W_shared_ptr[(((ax0 * 512) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))] = W_ptr[((((((int)blockIdx.x) * 8192) + (ax0 * 512)) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))];
    }
  }
  *(half4*)(Y_rf_local_ptr + 0) = make_half4(__float2half_rn(0x0p+0f/*0.000000e+00*/), __float2half_rn(0x0p+0f/*0.000000e+00*/), __float2half_rn(0x0p+0f/*0.000000e+00*/), __float2half_rn(0x0p+0f/*0.000000e+00*/));
  int cse_v3 = (((int)threadIdx.x) * 8);
  *(half2*)(x_local_ptr + 0) = *(half2*)(x_ptr + (((int)threadIdx.x) * 8));
  *(half2*)(x_local_ptr + 2) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 2));
  *(half2*)(x_local_ptr + 4) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 4));
  *(half2*)(x_local_ptr + 6) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 6));
  int cse_v4 = ((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8));
  __syncthreads();
  half4 __1;
    half4 v_ = *(half4*)(Y_rf_local_ptr + 0);
    half4 __2;
      half4 v__1 = *(half4*)(W_shared_ptr + ((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)));
      half4 v__2 = *(half4*)(x_local_ptr + 0);
      __2.x = (v__1.x*v__2.x);
      __2.y = (v__1.y*v__2.y);
      __2.z = (v__1.z*v__2.z);
      __2.w = (v__1.w*v__2.w);
    __1.x = (v_.x+__2.x);
    __1.y = (v_.y+__2.y);
    __1.z = (v_.z+__2.z);
    __1.w = (v_.w+__2.w);
  *(half4*)(Y_rf_local_ptr + 0) = __1;
  half4 __3;
    half4 v__3 = *(half4*)(Y_rf_local_ptr + 0);
    half4 __4;
      half4 v__4 = *(half4*)(W_shared_ptr + (((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)) + 4));
      half4 v__5 = *(half4*)(x_local_ptr + 4);
      __4.x = (v__4.x*v__5.x);
      __4.y = (v__4.y*v__5.y);
      __4.z = (v__4.z*v__5.z);
      __4.w = (v__4.w*v__5.w);
    __3.x = (v__3.x+__4.x);
    __3.y = (v__3.y+__4.y);
    __3.z = (v__3.z+__4.z);
    __3.w = (v__3.w+__4.w);
  *(half4*)(Y_rf_local_ptr + 0) = __3;
  *(half2*)(x_local_ptr + 0) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 256));
  *(half2*)(x_local_ptr + 2) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 258));
  *(half2*)(x_local_ptr + 4) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 260));
  *(half2*)(x_local_ptr + 6) = *(half2*)(x_ptr + ((((int)threadIdx.x) * 8) + 262));
  half4 __5;
    half4 v__6 = *(half4*)(Y_rf_local_ptr + 0);
    half4 __6;
      half4 v__7 = *(half4*)(W_shared_ptr + (((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)) + 256));
      half4 v__8 = *(half4*)(x_local_ptr + 0);
      __6.x = (v__7.x*v__8.x);
      __6.y = (v__7.y*v__8.y);
      __6.z = (v__7.z*v__8.z);
      __6.w = (v__7.w*v__8.w);
    __5.x = (v__6.x+__6.x);
    __5.y = (v__6.y+__6.y);
    __5.z = (v__6.z+__6.z);
    __5.w = (v__6.w+__6.w);
  *(half4*)(Y_rf_local_ptr + 0) = __5;
  half4 __7;
    half4 v__9 = *(half4*)(Y_rf_local_ptr + 0);
    half4 __8;
      half4 v__10 = *(half4*)(W_shared_ptr + (((((int)threadIdx.y) * 512) + (((int)threadIdx.x) * 8)) + 260));
      half4 v__11 = *(half4*)(x_local_ptr + 4);
      __8.x = (v__10.x*v__11.x);
      __8.y = (v__10.y*v__11.y);
      __8.z = (v__10.z*v__11.z);
      __8.w = (v__10.w*v__11.w);
    __7.x = (v__9.x+__8.x);
    __7.y = (v__9.y+__8.y);
    __7.z = (v__9.z+__8.z);
    __7.w = (v__9.w+__8.w);
  *(half4*)(Y_rf_local_ptr + 0) = __7;
  Y_rf_local_ptr_1[0] = __float2half_rn(0x0p+0f/*0.000000e+00*/);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[0]);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[1]);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[2]);
  Y_rf_local_ptr_1[0] = (Y_rf_local_ptr_1[0] + Y_rf_local_ptr[3]);
  alignas(64) half t0_ptr[1];
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
    Z_ptr[((((int)blockIdx.x) * 16) + ((int)threadIdx.y))] = max((red_buf0_ptr[0] + bias_ptr[((((int)blockIdx.x) * 16) + ((int)threadIdx.y))]), __float2half_rn(0x0p+0f/*0.000000e+00*/));
  }
}

