
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
extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A_ptr, float* __restrict__ compute_ptr);
extern "C" __global__ void __launch_bounds__(256) main_kernel(float* __restrict__ A_ptr, float* __restrict__ compute_ptr) {
  alignas(64) float in_thread_T_softmax_maxelem_shared_ptr[1];
  __shared__ alignas(64) float red_result_ptr[1];
  __shared__ alignas(64) float T_softmax_maxelem_shared_ptr[1];
  alignas(64) float in_thread_compute_shared_ptr[1];
  __shared__ alignas(64) float red_result_ptr_1[1];
  __shared__ alignas(64) float compute_shared_ptr[1];
  in_thread_T_softmax_maxelem_shared_ptr[0] = -0x1.fffffep+127f/*-3.402823e+38*/;
  int cse_v1 = ((((int)blockIdx.x) * 300) + ((int)threadIdx.x));
  in_thread_T_softmax_maxelem_shared_ptr[0] = max(in_thread_T_softmax_maxelem_shared_ptr[0], A_ptr[((((int)blockIdx.x) * 300) + ((int)threadIdx.x))]);
  int cse_v2 = (((((int)blockIdx.x) * 300) + ((int)threadIdx.x)) + 256);
  if (((int)threadIdx.x) < 44) {
    in_thread_T_softmax_maxelem_shared_ptr[0] = max(in_thread_T_softmax_maxelem_shared_ptr[0], A_ptr[(((((int)blockIdx.x) * 300) + ((int)threadIdx.x)) + 256)]);
  }
  __shared__ alignas(64) float red_buf_staging_ptr[8];
  alignas(64) float t0_ptr[1];
  alignas(64) uint mask_ptr[1];
  alignas(64) float red_buf0_ptr[1];
  alignas(64) float t0_ptr_1[1];
  alignas(64) uint mask_ptr_1[1];
  alignas(64) float red_buf0_ptr_1[1];
  red_buf0_ptr[0] = in_thread_T_softmax_maxelem_shared_ptr[0];
  mask_ptr[0] = __activemask();
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 16, 32);
  red_buf0_ptr[0] = max(red_buf0_ptr[0], t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 8, 32);
  red_buf0_ptr[0] = max(red_buf0_ptr[0], t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 4, 32);
  red_buf0_ptr[0] = max(red_buf0_ptr[0], t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 2, 32);
  red_buf0_ptr[0] = max(red_buf0_ptr[0], t0_ptr[0]);
  t0_ptr[0] = __shfl_down_sync(mask_ptr[0], red_buf0_ptr[0], 1, 32);
  red_buf0_ptr[0] = max(red_buf0_ptr[0], t0_ptr[0]);
  if ((((int)threadIdx.x) % 32) == 0) {
    red_buf_staging_ptr[(((int)threadIdx.x) >> 5)] = red_buf0_ptr[0];
  }
  __syncthreads();
  if (((int)threadIdx.x) < 8) {
    red_buf0_ptr_1[0] = red_buf_staging_ptr[((int)threadIdx.x)];
  }
  mask_ptr_1[0] = __activemask();
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 4, 32);
  red_buf0_ptr_1[0] = max(red_buf0_ptr_1[0], t0_ptr_1[0]);
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 2, 32);
  red_buf0_ptr_1[0] = max(red_buf0_ptr_1[0], t0_ptr_1[0]);
  t0_ptr_1[0] = __shfl_down_sync(mask_ptr_1[0], red_buf0_ptr_1[0], 1, 32);
  red_buf0_ptr_1[0] = max(red_buf0_ptr_1[0], t0_ptr_1[0]);
  if (((int)threadIdx.x) == 0) {
    ((volatile float*)red_result_ptr)[0] = red_buf0_ptr_1[0];
  }
  __syncthreads();
  if (((int)threadIdx.x) == 0) {
    T_softmax_maxelem_shared_ptr[0] = ((volatile float*)red_result_ptr)[0];
  }
  in_thread_compute_shared_ptr[0] = 0x0p+0f/*0.000000e+00*/;
  __syncthreads();
  in_thread_compute_shared_ptr[0] = (in_thread_compute_shared_ptr[0] + expf((A_ptr[((((int)blockIdx.x) * 300) + ((int)threadIdx.x))] - T_softmax_maxelem_shared_ptr[0])));
  if (((int)threadIdx.x) < 44) {
    in_thread_compute_shared_ptr[0] = (in_thread_compute_shared_ptr[0] + expf((A_ptr[(((((int)blockIdx.x) * 300) + ((int)threadIdx.x)) + 256)] - T_softmax_maxelem_shared_ptr[0])));
  }
  __shared__ alignas(64) float red_buf_staging_ptr_1[8];
  alignas(64) float t0_ptr_2[1];
  alignas(64) uint mask_ptr_2[1];
  alignas(64) float red_buf0_ptr_2[1];
  alignas(64) float t0_ptr_3[1];
  alignas(64) uint mask_ptr_3[1];
  alignas(64) float red_buf0_ptr_3[1];
  red_buf0_ptr_2[0] = in_thread_compute_shared_ptr[0];
  mask_ptr_2[0] = __activemask();
  t0_ptr_2[0] = __shfl_down_sync(mask_ptr_2[0], red_buf0_ptr_2[0], 16, 32);
  red_buf0_ptr_2[0] = (red_buf0_ptr_2[0] + t0_ptr_2[0]);
  t0_ptr_2[0] = __shfl_down_sync(mask_ptr_2[0], red_buf0_ptr_2[0], 8, 32);
  red_buf0_ptr_2[0] = (red_buf0_ptr_2[0] + t0_ptr_2[0]);
  t0_ptr_2[0] = __shfl_down_sync(mask_ptr_2[0], red_buf0_ptr_2[0], 4, 32);
  red_buf0_ptr_2[0] = (red_buf0_ptr_2[0] + t0_ptr_2[0]);
  t0_ptr_2[0] = __shfl_down_sync(mask_ptr_2[0], red_buf0_ptr_2[0], 2, 32);
  red_buf0_ptr_2[0] = (red_buf0_ptr_2[0] + t0_ptr_2[0]);
  t0_ptr_2[0] = __shfl_down_sync(mask_ptr_2[0], red_buf0_ptr_2[0], 1, 32);
  red_buf0_ptr_2[0] = (red_buf0_ptr_2[0] + t0_ptr_2[0]);
  if ((((int)threadIdx.x) % 32) == 0) {
    red_buf_staging_ptr_1[(((int)threadIdx.x) >> 5)] = red_buf0_ptr_2[0];
  }
  __syncthreads();
  if (((int)threadIdx.x) < 8) {
    red_buf0_ptr_3[0] = red_buf_staging_ptr_1[((int)threadIdx.x)];
  }
  mask_ptr_3[0] = __activemask();
  t0_ptr_3[0] = __shfl_down_sync(mask_ptr_3[0], red_buf0_ptr_3[0], 4, 32);
  red_buf0_ptr_3[0] = (red_buf0_ptr_3[0] + t0_ptr_3[0]);
  t0_ptr_3[0] = __shfl_down_sync(mask_ptr_3[0], red_buf0_ptr_3[0], 2, 32);
  red_buf0_ptr_3[0] = (red_buf0_ptr_3[0] + t0_ptr_3[0]);
  t0_ptr_3[0] = __shfl_down_sync(mask_ptr_3[0], red_buf0_ptr_3[0], 1, 32);
  red_buf0_ptr_3[0] = (red_buf0_ptr_3[0] + t0_ptr_3[0]);
  if (((int)threadIdx.x) == 0) {
    ((volatile float*)red_result_ptr_1)[0] = red_buf0_ptr_3[0];
  }
  __syncthreads();
  if (((int)threadIdx.x) == 0) {
    compute_shared_ptr[0] = ((volatile float*)red_result_ptr_1)[0];
  }
  __syncthreads();
  compute_ptr[((((int)blockIdx.x) * 300) + ((int)threadIdx.x))] = ((A_ptr[((((int)blockIdx.x) * 300) + ((int)threadIdx.x))] - T_softmax_maxelem_shared_ptr[0]) - logf(compute_shared_ptr[0]));
  if (((int)threadIdx.x) < 44) {
    compute_ptr[(((((int)blockIdx.x) * 300) + ((int)threadIdx.x)) + 256)] = ((A_ptr[(((((int)blockIdx.x) * 300) + ((int)threadIdx.x)) + 256)] - T_softmax_maxelem_shared_ptr[0]) - logf(compute_shared_ptr[0]));
  }
}

