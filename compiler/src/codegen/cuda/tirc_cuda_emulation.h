// tirc's model of CUDA on the CPU (`tirc run --target cuda --emulate`).
//
// The kernels tirc writes are compiled as C++ against this header. Blocks
// of the grid run one after another; the threads of a block run as fibers
// on one CPU thread (entered once through ucontext, then switched with
// _setjmp/_longjmp, which saves no signal mask and makes no system call), each until it reaches __syncthreads() or
// returns, so a barrier is a point where every thread of the block has
// arrived. Shared arrays are checked: between two barriers, each element
// records which thread wrote it and which read it, and a read of another
// thread's write, a write over another thread's read or write, a read of an
// element no thread of this block wrote, or an index outside the array
// stops the run with the buffer, the element and the threads. A barrier
// that some threads reach while others have returned, or two barriers at
// different lines, is reported instead of hanging.
//
// Not modelled: timing, memory coalescing, bank conflicts, occupancy,
// warp-synchronous execution without barriers, and global-memory races.
#pragma once
#include <setjmp.h>
#include <ucontext.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#define TIRC_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)

struct dim3 {
  unsigned x, y, z;
};

namespace tirc_emu {

enum FiberState { READY, WAITING, DONE };

struct Fiber {
  ucontext_t context;
  jmp_buf resume;
  bool started;
  char* stack;
  FiberState state;
  int barrier_line;
  dim3 thread;
};

inline dim3 thread_index, block_index, block_dim, grid_dim;
inline ucontext_t scheduler;
inline jmp_buf scheduler_resume;
inline Fiber* current = nullptr;
inline unsigned current_id = 0;
// Advanced at every barrier and block: accesses of one epoch are unordered.
inline uint64_t epoch = 1;
inline uint64_t block_epoch = 1;
inline std::string error;
inline const std::function<void()>* kernel_body = nullptr;

inline std::string thread_name(unsigned id) {
  unsigned x = id % block_dim.x, y = (id / block_dim.x) % block_dim.y,
           z = id / (block_dim.x * block_dim.y);
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

inline std::string block_name() {
  return "(" + std::to_string(block_index.x) + ", " + std::to_string(block_index.y) + ", " +
         std::to_string(block_index.z) + ")";
}

// Stops the run: the scheduler never resumes the failing thread.
[[noreturn]] inline void fail(const std::string& message) {
  if (error.empty()) error = message;
  _longjmp(scheduler_resume, 1);
}

// Back to the scheduler; returns when the scheduler resumes this thread.
inline void yield_to_scheduler() {
  if (!_setjmp(current->resume)) _longjmp(scheduler_resume, 1);
}

inline void syncthreads(int line) {
  current->state = WAITING;
  current->barrier_line = line;
  yield_to_scheduler();
}

inline void fiber_entry() {
  (*kernel_body)();
  current->state = DONE;
  _longjmp(scheduler_resume, 1);
}

// Runs `fiber` until it waits at a barrier, returns or fails.
inline void resume(Fiber& fiber) {
  if (_setjmp(scheduler_resume)) return;
  if (!fiber.started) {
    fiber.started = true;
    swapcontext(&scheduler, &fiber.context);
  } else {
    _longjmp(fiber.resume, 1);
  }
}

constexpr size_t STACK_BYTES = 256 * 1024;
constexpr uint32_t NO_THREAD = 0xffffffffu;

// Runs `body` for every thread of every block; 0, or 1 with `message` set.
inline int launch(const unsigned* dims, char* message, unsigned long message_length,
                  const std::function<void()>& body) {
  grid_dim = {dims[0], dims[1], dims[2]};
  block_dim = {dims[3], dims[4], dims[5]};
  unsigned threads = block_dim.x * block_dim.y * block_dim.z;
  std::vector<Fiber> fibers(threads);
  for (auto& fiber : fibers) fiber.stack = static_cast<char*>(std::malloc(STACK_BYTES));
  kernel_body = &body;
  error.clear();
  for (unsigned bz = 0; bz < grid_dim.z && error.empty(); ++bz)
    for (unsigned by = 0; by < grid_dim.y && error.empty(); ++by)
      for (unsigned bx = 0; bx < grid_dim.x && error.empty(); ++bx) {
        block_index = {bx, by, bz};
        block_epoch = ++epoch;
        for (unsigned t = 0; t < threads; ++t) {
          Fiber& fiber = fibers[t];
          getcontext(&fiber.context);
          fiber.context.uc_stack.ss_sp = fiber.stack;
          fiber.context.uc_stack.ss_size = STACK_BYTES;
          fiber.context.uc_link = nullptr;
          makecontext(&fiber.context, fiber_entry, 0);
          fiber.started = false;
          fiber.state = READY;
          fiber.thread = {t % block_dim.x, (t / block_dim.x) % block_dim.y,
                          t / (block_dim.x * block_dim.y)};
        }
        while (error.empty()) {
          for (unsigned t = 0; t < threads && error.empty(); ++t) {
            if (fibers[t].state != READY) continue;
            current = &fibers[t];
            current_id = t;
            thread_index = fibers[t].thread;
            resume(fibers[t]);
          }
          if (!error.empty()) break;
          int waiting = -1, done = -1, other_line = -1;
          for (unsigned t = 0; t < threads; ++t) {
            if (fibers[t].state == WAITING) {
              if (waiting < 0) waiting = int(t);
              else if (fibers[t].barrier_line != fibers[waiting].barrier_line && other_line < 0)
                other_line = int(t);
            } else if (done < 0) {
              done = int(t);
            }
          }
          if (waiting < 0) break;
          if (done >= 0) {
            error = "barrier divergence in block " + block_name() + ": thread " +
                    thread_name(waiting) + " waits at the __syncthreads() of line " +
                    std::to_string(fibers[waiting].barrier_line) + " but thread " +
                    thread_name(done) + " returned without reaching it";
            break;
          }
          if (other_line >= 0) {
            error = "barrier divergence in block " + block_name() + ": thread " +
                    thread_name(waiting) + " waits at the __syncthreads() of line " +
                    std::to_string(fibers[waiting].barrier_line) + " and thread " +
                    thread_name(other_line) + " at the one of line " +
                    std::to_string(fibers[other_line].barrier_line);
            break;
          }
          ++epoch;
          for (auto& fiber : fibers)
            if (fiber.state == WAITING) fiber.state = READY;
        }
      }
  for (auto& fiber : fibers) std::free(fiber.stack);
  if (error.empty()) return 0;
  std::snprintf(message, message_length, "%s", error.c_str());
  return 1;
}

struct ShadowCell {
  uint64_t write_epoch;
  uint64_t read_epoch;
  uint32_t writer;
  uint32_t reader;
  uint32_t other_reader;
};

template <class T, long long N>
struct Shared {
  T data[N];
  ShadowCell shadow[N];
  const char* name;

  explicit Shared(const char* buffer_name) : name(buffer_name) {
    std::memset(shadow, 0, sizeof shadow);
  }

  std::string element(long long i) const { return std::string(name) + "[" + std::to_string(i) + "]"; }

  void race(long long i, const char* what, uint32_t other) const {
    fail(std::string("data race on shared memory in block ") + block_name() + ": thread " +
         thread_name(current_id) + " " + what + " " + element(i) + " after thread " +
         thread_name(other) + " with no __syncthreads() between");
  }

  void read(long long i) {
    ShadowCell& cell = shadow[i];
    if (cell.write_epoch < block_epoch)
      fail(std::string("thread ") + thread_name(current_id) + " of block " + block_name() +
           " reads " + element(i) +
           " before any thread of the block wrote it (a __syncthreads() missing before the "
           "read, or shared memory read uninitialized)");
    if (cell.write_epoch == epoch && cell.writer != current_id) race(i, "reads", cell.writer);
    if (cell.read_epoch != epoch) {
      cell.read_epoch = epoch;
      cell.reader = current_id;
      cell.other_reader = NO_THREAD;
    } else if (cell.reader != current_id && cell.other_reader == NO_THREAD) {
      cell.other_reader = current_id;
    }
  }

  void write(long long i) {
    ShadowCell& cell = shadow[i];
    if (cell.write_epoch == epoch && cell.writer != current_id) race(i, "writes", cell.writer);
    if (cell.read_epoch == epoch) {
      uint32_t other = cell.reader != current_id ? cell.reader : cell.other_reader;
      if (other != NO_THREAD) race(i, "overwrites what it read: writes", other);
    }
    cell.write_epoch = epoch;
    cell.writer = current_id;
  }

  struct Ref {
    Shared* array;
    long long index;
    operator T() const {
      array->read(index);
      return array->data[index];
    }
    // `(float)A_shared[i]` of a half array: one conversion, not two.
    template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
    explicit operator U() const {
      return U(T(*this));
    }
    Ref& operator=(const T& value) {
      array->write(index);
      array->data[index] = value;
      return *this;
    }
    Ref& operator=(const Ref& other) {
      T value = other;
      return *this = value;
    }
  };

  Ref operator[](long long i) {
    if (i < 0 || i >= N)
      fail(std::string("thread ") + thread_name(current_id) + " of block " + block_name() +
           " accesses " + element(i) + ", outside the " + std::to_string(N) +
           " elements of the shared buffer");
    return Ref{this, i};
  }
};

inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      int shift = 0;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3ff;
      bits = sign | uint32_t(127 - 15 - shift + 1) << 23 | mantissa << 13;
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) return uint16_t(sign | 0x7c00 | (magnitude > 0x7f800000u ? 0x200 : 0));
  if (magnitude >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds past the largest half
  if (magnitude < 0x38800000u) {                                   // subnormal half
    float scaled = std::fabs(f) * 16777216.0f;                     // 2^24: units of the smallest subnormal
    uint32_t units = uint32_t(std::nearbyint(scaled));
    return uint16_t(sign | units);
  }
  uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);
  return uint16_t(sign | ((rounded - (uint32_t(127 - 15) << 23)) >> 13));
}

}  // namespace tirc_emu

// half and bfloat16 as storage types: arithmetic happens in float.
struct half {
  uint16_t bits;
  half() = default;
  half(float f) : bits(tirc_emu::float_to_half_bits(f)) {}
  operator float() const { return tirc_emu::half_bits_to_float(bits); }
};

struct nv_bfloat16 {
  uint16_t bits;
  nv_bfloat16() = default;
  nv_bfloat16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
      bits = uint16_t((x >> 16) | 0x40);
    } else {
      bits = uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
    }
  }
  operator float() const {
    uint32_t x = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};

#define threadIdx tirc_emu::thread_index
#define blockIdx tirc_emu::block_index
#define blockDim tirc_emu::block_dim
#define gridDim tirc_emu::grid_dim
#define __syncthreads() tirc_emu::syncthreads(__LINE__)

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline float __int_as_float(unsigned bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline double __longlong_as_double(unsigned long long bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
using std::isfinite;
using std::isinf;
using std::isnan;
