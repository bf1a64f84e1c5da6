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
// Warp operations (__shfl*_sync, __ballot_sync, __any_sync, __all_sync,
// __syncwarp, __activemask) are collectives of the groups of 32 threads
// (by linear thread index, as on the GPU): a thread waits at one until
// every lane its mask names has arrived at the same call, then each gets
// its result. __activemask() gives the lanes that reached that same call
// before any of them could go further. A lane of the mask that returned or
// waits elsewhere, masks that differ, or a shuffle from a lane outside the
// mask is reported instead of hanging or reading garbage.
//
// A write over an element another thread wrote (or read) in the same
// epoch with the value it already holds is not a wrong result: it is
// reported once per buffer as a warning (every thread repeating a copy),
// and the run goes on. Global memory is checked for write-write conflicts
// between the threads of a block: two threads storing different values to
// one element with no barrier between stop the run like a shared race.
//
// Not modelled: timing, memory coalescing, bank conflicts, occupancy,
// shared memory ordered by __syncwarp() alone (reported as a race), and
// global-memory reads racing with writes.
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
#include <unordered_map>
#include <unordered_set>
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

enum FiberState { READY, WAITING, WARP_WAITING, DONE };

enum WarpOp { ACTIVEMASK, SHFL, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL, SYNCWARP };

struct Fiber {
  ucontext_t context;
  jmp_buf resume;
  bool started;
  char* stack;
  FiberState state;
  int barrier_line;
  dim3 thread;
  // The warp operation this thread waits at (state WARP_WAITING).
  WarpOp warp_op;
  const char* warp_name;
  int warp_line;
  unsigned warp_mask;
  int warp_argument;
  int warp_width;
  uint64_t warp_value;
  uint64_t warp_result;
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
// Warnings of the launch, one per buffer and kind, each ending in a newline.
inline std::string warnings;
inline std::unordered_set<std::string> warned;
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

inline void warn_once(const std::string& key, const std::string& message) {
  if (warned.insert(key).second) warnings += message + "\n";
}

// A store of the value the element already holds over another thread's
// write or read of this epoch: right, but every thread repeats the work.
inline void repeated_store(const char* buffer, const std::string& element, uint32_t other) {
  warn_once(std::string("repeat:") + buffer,
            std::string("every thread repeats the stores to `") + buffer + "`: thread " +
                thread_name(current_id) + " of block " + block_name() + " writes " + element +
                " with the value thread " + thread_name(other) +
                " gave it, with no __syncthreads() between (the result is right; bind the "
                "loops of the copy to threadIdx, a cooperative fetch, so that the threads "
                "share the work)");
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

// Waits at a warp operation until the lanes of `mask` arrive; the result
// is filled in by `complete_warp_operations`.
inline uint64_t warp_operation(WarpOp op, const char* name, int line, unsigned mask,
                               uint64_t value, int argument, int width) {
  current->warp_op = op;
  current->warp_name = name;
  current->warp_line = line;
  current->warp_mask = mask;
  current->warp_value = value;
  current->warp_argument = argument;
  current->warp_width = width;
  current->state = WARP_WAITING;
  yield_to_scheduler();
  return current->warp_result;
}

template <class T>
inline T shuffle(WarpOp op, const char* name, int line, unsigned mask, T value, int argument,
                 int width = 32) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>,
                "warp shuffles move values of at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = warp_operation(op, name, line, mask, bits, argument, width);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

// `__syncwarp(mask)` with the mask optional: the macro gives the line.
struct WarpBarrier {
  int line;
  void operator()(unsigned mask = 0xffffffffu) const {
    unsigned threads = block_dim.x * block_dim.y * block_dim.z;
    unsigned base = current_id - current_id % 32;
    // The full mask of a partial last warp names only its lanes.
    if (mask == 0xffffffffu && threads - base < 32) mask = (1u << (threads - base)) - 1;
    warp_operation(SYNCWARP, "__syncwarp()", line, mask, 0, 0, 32);
  }
};

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

// A fiber's stack beyond the kernel's `local` arrays.
constexpr size_t STACK_BYTES = 256 * 1024;
constexpr uint32_t NO_THREAD = 0xffffffffu;

inline std::string hex(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// Where a lane that has not joined a warp operation is.
inline std::string whereabouts(const Fiber& fiber) {
  switch (fiber.state) {
    case DONE: return "returned";
    case WAITING: return "waits at the __syncthreads() of line " + std::to_string(fiber.barrier_line);
    case WARP_WAITING:
      return std::string("waits at the ") + fiber.warp_name + " of line " + std::to_string(fiber.warp_line);
    default: return "is running";
  }
}

// The lane of `lane` that a shuffle reads, or -1 when it keeps its own value.
inline int shuffle_source(const Fiber& fiber, int lane) {
  int width = fiber.warp_width, segment = lane - lane % width, argument = fiber.warp_argument;
  switch (fiber.warp_op) {
    case SHFL: return segment + ((argument % width) + width) % width;
    case SHFL_UP: return lane % width >= argument ? lane - argument : -1;
    case SHFL_DOWN: return lane % width + argument < width ? lane + argument : -1;
    case SHFL_XOR: {
      int source = lane ^ argument;
      return source - source % width == segment ? source : -1;
    }
    default: return -1;
  }
}

// Records the run's first error; false, for `return stop(...)`.
inline bool stop(const std::string& message) {
  if (error.empty()) error = message;
  return false;
}

// Completes the warp operations whose lanes have all arrived, when no
// thread can run; true when one did. Sets `error` when one never can.
inline bool complete_warp_operations(std::vector<Fiber>& fibers, unsigned threads) {
  bool progress = false;
  // __activemask(): the lanes that reached the same call converge there.
  for (unsigned base = 0; base < threads; base += 32) {
    unsigned lanes = threads - base < 32 ? threads - base : 32;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      Fiber& fiber = fibers[base + lane];
      if (fiber.state != WARP_WAITING || fiber.warp_op != ACTIVEMASK) continue;
      unsigned mask = 0;
      for (unsigned other = 0; other < lanes; ++other) {
        const Fiber& o = fibers[base + other];
        if (o.state == WARP_WAITING && o.warp_op == ACTIVEMASK && o.warp_line == fiber.warp_line)
          mask |= 1u << other;
      }
      for (unsigned other = 0; other < lanes; ++other)
        if (mask >> other & 1) {
          fibers[base + other].warp_result = mask;
          fibers[base + other].state = READY;
        }
      progress = true;
    }
  }
  if (progress) return true;
  std::string stuck;
  for (unsigned base = 0; base < threads; base += 32) {
    unsigned lanes = threads - base < 32 ? threads - base : 32;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      Fiber& fiber = fibers[base + lane];
      if (fiber.state != WARP_WAITING) continue;
      std::string call = std::string("the ") + fiber.warp_name + " of line " +
                         std::to_string(fiber.warp_line) + " in block " + block_name();
      unsigned mask = fiber.warp_mask;
      if (!(mask >> lane & 1))
        return stop("thread " + thread_name(base + lane) + " calls " + call + " with mask " + hex(mask) +
             ", which does not name its own lane " + std::to_string(lane));
      if (lanes < 32 && mask >> lanes)
        return stop(call + " names lanes in mask " + hex(mask) + " that its warp does not have (" +
             std::to_string(lanes) + " threads)");
      bool complete = true;
      for (unsigned other = 0; other < lanes && complete; ++other) {
        if (!(mask >> other & 1)) continue;
        const Fiber& o = fibers[base + other];
        if (o.state != WARP_WAITING || o.warp_line != fiber.warp_line || o.warp_op != fiber.warp_op) {
          complete = false;
          if (stuck.empty())
            stuck = "warp divergence: thread " + thread_name(base + lane) + " waits at " + call +
                    " for lane " + std::to_string(other) + " of mask " + hex(mask) + ", but thread " +
                    thread_name(base + other) + " " + whereabouts(o);
        } else if (o.warp_mask != mask) {
          return stop(call + ": lanes " + std::to_string(lane) + " and " + std::to_string(other) +
               " pass different masks (" + hex(mask) + " and " + hex(o.warp_mask) + ")");
        }
      }
      if (!complete) continue;
      int width = fiber.warp_width;
      if (width < 1 || width > 32 || (width & (width - 1)))
        return stop(call + " has width " + std::to_string(width) + ", not a power of two up to 32");
      unsigned votes = 0;
      for (unsigned other = 0; other < lanes; ++other)
        if ((mask >> other & 1) && fibers[base + other].warp_value) votes |= 1u << other;
      for (unsigned other = 0; other < lanes; ++other) {
        if (!(mask >> other & 1)) continue;
        Fiber& o = fibers[base + other];
        switch (o.warp_op) {
          case BALLOT: o.warp_result = votes; break;
          case ANY: o.warp_result = votes != 0; break;
          case ALL: o.warp_result = votes == mask; break;
          case SYNCWARP: o.warp_result = 0; break;
          default: {
            int source = shuffle_source(o, int(other));
            if (source < 0) {
              o.warp_result = o.warp_value;
            } else if (!(mask >> source & 1)) {
              return stop("thread " + thread_name(base + other) + " reads lane " + std::to_string(source) +
                   " in " + call + ", a lane outside mask " + hex(mask));
            } else {
              o.warp_result = fibers[base + source].warp_value;
            }
          }
        }
      }
      for (unsigned other = 0; other < lanes; ++other)
        if (mask >> other & 1) fibers[base + other].state = READY;
      progress = true;
    }
  }
  if (!progress && !stuck.empty()) {
    error = stuck;
  }
  return progress;
}

// The last writer of each global element stored in this block.
struct GlobalCell {
  uint64_t epoch;
  uint32_t writer;
};
inline std::unordered_map<const void*, GlobalCell> global_cells;

// A store to global memory, checked against the other threads' stores of
// this epoch.
template <class T, class V>
inline void store_global(T* data, long long i, const V& value, const char* buffer) {
  T stored = value;
  T* address = data + i;
  GlobalCell& cell = global_cells[address];
  if (cell.epoch == epoch && cell.writer != current_id) {
    std::string element = std::string(buffer) + "[" + std::to_string(i) + "]";
    if (std::memcmp(address, &stored, sizeof(T)) == 0) {
      repeated_store(buffer, element, cell.writer);
    } else {
      fail(std::string("data race on global memory in block ") + block_name() + ": thread " +
           thread_name(current_id) + " writes " + element + " after thread " +
           thread_name(cell.writer) +
           " wrote another value to it, with no __syncthreads() between (which value stays "
           "depends on the order the GPU runs them in)");
    }
  }
  cell.epoch = epoch;
  cell.writer = current_id;
  std::memcpy(address, &stored, sizeof(T));
}

// Runs `body` for every thread of every block; 0, 1 with the error in
// `message`, or 2 with the warnings in `message`.
inline int launch(const unsigned* dims, char* message, unsigned long message_length,
                  size_t local_bytes, const std::function<void()>& body) {
  const size_t stack_bytes = STACK_BYTES + local_bytes;
  grid_dim = {dims[0], dims[1], dims[2]};
  block_dim = {dims[3], dims[4], dims[5]};
  unsigned threads = block_dim.x * block_dim.y * block_dim.z;
  std::vector<Fiber> fibers(threads);
  for (auto& fiber : fibers) fiber.stack = static_cast<char*>(std::malloc(stack_bytes));
  kernel_body = &body;
  error.clear();
  warnings.clear();
  warned.clear();
  for (unsigned bz = 0; bz < grid_dim.z && error.empty(); ++bz)
    for (unsigned by = 0; by < grid_dim.y && error.empty(); ++by)
      for (unsigned bx = 0; bx < grid_dim.x && error.empty(); ++bx) {
        block_index = {bx, by, bz};
        block_epoch = ++epoch;
        global_cells.clear();
        for (unsigned t = 0; t < threads; ++t) {
          Fiber& fiber = fibers[t];
          getcontext(&fiber.context);
          fiber.context.uc_stack.ss_sp = fiber.stack;
          fiber.context.uc_stack.ss_size = stack_bytes;
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
          if (complete_warp_operations(fibers, threads)) continue;
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
  if (error.empty()) {
    if (warnings.empty()) return 0;
    std::snprintf(message, message_length, "%s", warnings.c_str());
    return 2;
  }
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

  void write(long long i, const T& value) {
    ShadowCell& cell = shadow[i];
    // The same bits again change nothing another thread saw.
    bool same = cell.write_epoch >= block_epoch && std::memcmp(&data[i], &value, sizeof(T)) == 0;
    if (cell.write_epoch == epoch && cell.writer != current_id) {
      if (!same) race(i, "writes", cell.writer);
      repeated_store(name, element(i), cell.writer);
    }
    if (cell.read_epoch == epoch) {
      uint32_t other = cell.reader != current_id ? cell.reader : cell.other_reader;
      if (other != NO_THREAD) {
        if (!same) race(i, "overwrites what it read: writes", other);
        repeated_store(name, element(i), other);
      }
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
      array->write(index, value);
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

// CUDA's vector types, with their alignment: a load or store of one moves
// the whole vector, and faults on the GPU when its address is not aligned.
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(4) half2 { half x, y; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline half2 __halves2half2(half x, half y) { return {x, y}; }

namespace tirc_emu {

// A whole-vector access of global memory: checked for the alignment the
// GPU requires.
template <class V, class T>
inline T* vector_address(T* data, long long first, const char* what) {
  if (reinterpret_cast<uintptr_t>(data + first) % sizeof(V) != 0)
    fail(std::string("thread ") + thread_name(current_id) + " of block " + block_name() + " " +
         what + " a " + std::to_string(sizeof(V)) + "-byte vector at element " +
         std::to_string(first) + ", an address not aligned to its size");
  return data + first;
}

template <class V, class T>
inline V load_vector(T* data, long long first) {
  V vector;
  std::memcpy(&vector, vector_address<V>(data, first, "reads"), sizeof(V));
  return vector;
}

template <class V, class T>
inline void store_vector(T* data, long long first, const V& vector, const char* buffer) {
  constexpr long long lanes = sizeof(V) / sizeof(T);
  vector_address<V>(data, first, "writes");
  T parts[lanes];
  std::memcpy(parts, &vector, sizeof(V));
  for (long long k = 0; k < lanes; ++k) store_global(data, first + k, parts[k], buffer);
}

// Shared memory: the alignment, then each element through the race detector.
template <class V, class T, long long N>
inline void check_vector_start(Shared<T, N>& array, long long first) {
  constexpr long long lanes = sizeof(V) / sizeof(T);
  if (first % lanes != 0)
    fail(std::string("thread ") + thread_name(current_id) + " of block " + block_name() +
         " accesses a " + std::to_string(sizeof(V)) + "-byte vector at " + array.element(first) +
         ", an address not aligned to its size");
}

template <class V, class T, long long N>
inline V load_vector(Shared<T, N>& array, long long first) {
  constexpr long long lanes = sizeof(V) / sizeof(T);
  check_vector_start<V>(array, first);
  T parts[lanes];
  for (long long k = 0; k < lanes; ++k) parts[k] = T(array[first + k]);
  V vector;
  std::memcpy(&vector, parts, sizeof(V));
  return vector;
}

template <class V, class T, long long N>
inline void store_vector(Shared<T, N>& array, long long first, const V& vector, const char*) {
  constexpr long long lanes = sizeof(V) / sizeof(T);
  check_vector_start<V>(array, first);
  T parts[lanes];
  std::memcpy(parts, &vector, sizeof(V));
  for (long long k = 0; k < lanes; ++k) array[first + k] = parts[k];
}

}  // namespace tirc_emu

namespace tirc_emu {

// A pointer into a checked shared array (the operand of a wmma load or
// store): element accesses go through the race detector.
template <class T, long long N>
struct SharedPointer {
  Shared<T, N>* array;
  long long first;
  T get(long long i) const { return T((*array)[first + i]); }
  void set(long long i, T value) const { (*array)[first + i] = value; }
};

template <class T>
struct GlobalPointer {
  T* data;
  T get(long long i) const { return data[i]; }
  void set(long long i, T value) const { data[i] = value; }
};

template <class T, long long N>
inline SharedPointer<T, N> pointer_into(Shared<T, N>& array, long long first) {
  return {&array, first};
}

template <class T>
inline GlobalPointer<T> pointer_into(T* data, long long first) {
  return {data + first};
}

// Tensor cores are warp collectives: a block whose threads do not fill
// whole warps cannot use them.
inline void check_whole_warps(const char* call) {
  unsigned threads = block_dim.x * block_dim.y * block_dim.z;
  if (threads % 32 != 0)
    fail(std::string(call) + " in a block of " + std::to_string(threads) +
         " threads: tensor-core operations need every lane of a warp (a multiple of 32 threads)");
}

}  // namespace tirc_emu

// nvcuda::wmma as whole tiles: every thread holds the whole m x n (m x k,
// k x n) tile in row-major order and computes the whole product, so the
// emulation checks what a kernel computes, not how the GPU spreads a tile
// over a warp's registers. Loads read every element (through the race
// detector for shared memory); a store writes each element from one lane
// (element e from lane e % 32), as the lanes of a warp share the tile.
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K>
struct tile_shape;
template <int M, int N, int K>
struct tile_shape<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
};
template <int M, int N, int K>
struct tile_shape<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
};
template <int M, int N, int K>
struct tile_shape<accumulator, M, N, K> {
  static constexpr int rows = M, cols = N;
};

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  static constexpr int rows = tile_shape<Use, M, N, K>::rows;
  static constexpr int cols = tile_shape<Use, M, N, K>::cols;
  static constexpr bool column_major = std::is_same_v<Layout, col_major>;
  static constexpr int num_elements = rows * cols;
  T x[rows * cols];
};

template <class Use, int M, int N, int K, class T, class Layout, class V>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& tile, V value) {
  tirc_emu::check_whole_warps("wmma::fill_fragment");
  for (int e = 0; e < tile.num_elements; ++e) tile.x[e] = T(float(value));
}

template <class F, class P>
inline void load_tile(F& tile, const P& memory, unsigned stride, bool column_major) {
  tirc_emu::check_whole_warps("wmma::load_matrix_sync");
  for (int r = 0; r < F::rows; ++r)
    for (int c = 0; c < F::cols; ++c)
      tile.x[r * F::cols + c] =
          memory.get(column_major ? (long long)c * stride + r : (long long)r * stride + c);
}

template <class Use, int M, int N, int K, class T, class Layout, class P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& tile, const P& memory,
                             unsigned stride) {
  load_tile(tile, memory, stride, fragment<Use, M, N, K, T, Layout>::column_major);
}

template <int M, int N, int K, class T, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& tile, const P& memory,
                             unsigned stride, layout_t layout) {
  load_tile(tile, memory, stride, layout == mem_col_major);
}

template <int M, int N, int K, class T, class P>
inline void store_matrix_sync(const P& memory, const fragment<accumulator, M, N, K, T>& tile,
                              unsigned stride, layout_t layout) {
  tirc_emu::check_whole_warps("wmma::store_matrix_sync");
  int lane = int(tirc_emu::current_id % 32);
  constexpr int rows = M, cols = N;
  for (int e = lane; e < rows * cols; e += 32) {
    int r = e / cols, c = e % cols;
    memory.set(layout == mem_col_major ? (long long)c * stride + r : (long long)r * stride + c,
               tile.x[e]);
  }
}

// d = a * b + c, each product and sum in the accumulator's type (float for
// a float accumulator: half products are exact in float).
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC>
inline void mma_sync(fragment<accumulator, M, N, K, TC>& d,
                     const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b,
                     const fragment<accumulator, M, N, K, TC>& c) {
  tirc_emu::check_whole_warps("wmma::mma_sync");
  TC result[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = float(c.x[i * N + j]);
      for (int k = 0; k < K; ++k) sum += float(a.x[i * K + k]) * float(b.x[k * N + j]);
      result[i * N + j] = TC(sum);
    }
  for (int e = 0; e < M * N; ++e) d.x[e] = result[e];
}
}  // namespace wmma
}  // namespace nvcuda

// mma.sync.m16n8k16 and ldmatrix as the PTX ISA defines them, lane by
// lane: each lane keeps its own registers, and what it needs of other
// lanes' registers (or of the row addresses they give ldmatrix) it fetches
// by warp shuffles, so a lane that does not take part is reported as in a
// shuffle. Lane l = 4g + t holds A (16x16, row-major) elements
// a[2r + e] = A[g + 8 (r % 2)][2t + 8 (r / 2) + e], B (16x8, column-major)
// b[2r + e] = B[2t + 8r + e][g], and C, D c[2r + e] = C[g + 8r][2t + e].
namespace tirc_emu {

template <class T>
inline T from_lane(T value, int lane, const char* name) {
  return shuffle(SHFL, name, 0, 0xffffffffu, value, lane, 32);
}

// Register j of lane l: row l / 4, columns 2 (l % 4) and + 1 of matrix j,
// whose row r lane 8j + r addresses (with .trans: column l / 4, rows
// 2 (l % 4) and + 1).
template <class T, class S, long long N>
inline void ldmatrix_x4(bool trans, T* local, const SharedPointer<S, N>& shared, long long offset) {
  check_whole_warps("ldmatrix");
  int lane = int(current_id % 32);
  long long mine = shared.first + offset;
  for (int j = 0; j < 4; ++j)
    for (int e = 0; e < 2; ++e) {
      int source = trans ? 8 * j + 2 * (lane % 4) + e : 8 * j + lane / 4;
      long long row = from_lane(mine, source, "ldmatrix");
      local[2 * j + e] = T((*shared.array)[row + (trans ? lane / 4 : 2 * (lane % 4) + e)]);
    }
}

template <class T>
inline uint32_t register_bits(const T* pair) {
  uint32_t bits;
  std::memcpy(&bits, pair, 4);
  return bits;
}

template <class T>
inline void register_halves(uint32_t bits, float* out) {
  T pair[2];
  std::memcpy(pair, &bits, 4);
  out[0] = float(pair[0]);
  out[1] = float(pair[1]);
}

template <class TC, class TA>
inline void mma_m16n8k16(TC* c, const TA* a, const TA* b) {
  check_whole_warps("mma.sync");
  int lane = int(current_id % 32), g = lane / 4, t = lane % 4;
  float rows[2][16], columns[2][16];
  for (int q = 0; q < 4; ++q)
    for (int r = 0; r < 4; ++r) {
      uint32_t bits = from_lane(register_bits(a + 2 * r), 4 * g + q, "mma.sync");
      register_halves<TA>(bits, &rows[r % 2][2 * q + 8 * (r / 2)]);
    }
  for (int n = 0; n < 2; ++n)
    for (int q = 0; q < 4; ++q)
      for (int r = 0; r < 2; ++r) {
        uint32_t bits = from_lane(register_bits(b + 2 * r), 4 * (2 * t + n) + q, "mma.sync");
        register_halves<TA>(bits, &columns[n][2 * q + 8 * r]);
      }
  for (int r = 0; r < 2; ++r)
    for (int e = 0; e < 2; ++e) {
      float sum = float(c[2 * r + e]);
      for (int k = 0; k < 16; ++k) sum += rows[r][k] * columns[e][k];
      c[2 * r + e] = TC(sum);
    }
}

template <class T, class P>
inline void mma_store_16x16(const P& tile, const T* local, long long stride) {
  check_whole_warps("mma_store");
  int lane = int(current_id % 32);
  for (int e = 0; e < 8; ++e)
    tile.set((8 * (e % 4 / 2) + lane / 4) * stride + 8 * (e / 4) + lane % 4 * 2 + e % 2, local[e]);
}

}  // namespace tirc_emu

template <class T, class P>
inline void tirc_ldmatrix_x4(T* local, const P& shared, long long offset) {
  tirc_emu::ldmatrix_x4(false, local, shared, offset);
}
template <class T, class P>
inline void tirc_ldmatrix_x4_trans(T* local, const P& shared, long long offset) {
  tirc_emu::ldmatrix_x4(true, local, shared, offset);
}
template <class TC, class TA>
inline void tirc_mma_m16n8k16(TC* c, const TA* a, const TA* b) {
  tirc_emu::mma_m16n8k16(c, a, b);
}
template <class T>
inline void tirc_mma_fill(T* local, int elements) {
  for (int i = 0; i < elements; ++i) local[i] = T(0.0f);
}
template <class P, class T>
inline void tirc_mma_store_16x16(const P& tile, const T* local, long long stride) {
  tirc_emu::mma_store_16x16(tile, local, stride);
}

#define threadIdx tirc_emu::thread_index
#define blockIdx tirc_emu::block_index
#define blockDim tirc_emu::block_dim
#define gridDim tirc_emu::grid_dim
#define __syncthreads() tirc_emu::syncthreads(__LINE__)
constexpr int warpSize = 32;
#define __activemask() \
  unsigned(tirc_emu::warp_operation(tirc_emu::ACTIVEMASK, "__activemask()", __LINE__, 0, 0, 0, 32))
#define __shfl_sync(...) tirc_emu::shuffle(tirc_emu::SHFL, "__shfl_sync", __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) \
  tirc_emu::shuffle(tirc_emu::SHFL_UP, "__shfl_up_sync", __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) \
  tirc_emu::shuffle(tirc_emu::SHFL_DOWN, "__shfl_down_sync", __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) \
  tirc_emu::shuffle(tirc_emu::SHFL_XOR, "__shfl_xor_sync", __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, predicate)                                                         \
  unsigned(tirc_emu::warp_operation(tirc_emu::BALLOT, "__ballot_sync", __LINE__, (mask), \
                                    (predicate) ? 1 : 0, 0, 32))
#define __any_sync(mask, predicate)                                                           \
  int(tirc_emu::warp_operation(tirc_emu::ANY, "__any_sync", __LINE__, (mask), (predicate) ? 1 : 0, \
                               0, 32))
#define __all_sync(mask, predicate)                                                           \
  int(tirc_emu::warp_operation(tirc_emu::ALL, "__all_sync", __LINE__, (mask), (predicate) ? 1 : 0, \
                               0, 32))
#define __syncwarp(...) tirc_emu::WarpBarrier{__LINE__}(__VA_ARGS__)

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
