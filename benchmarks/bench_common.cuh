// Shared harness of the gpuprim benchmarks: checked CUDA calls, CUDA-event timing for Google
// Benchmark's manual time, rotating input pools larger than L2, counters and the common main().
//
// Builds with Google Benchmark 1.7.1 and 1.8.3: only plain-number min times, const char* error
// messages, and counters whose JSON is the same in both (bytes_per_second, items_per_second,
// "GBps", "n").
#pragma once

#include <benchmark/benchmark.h>
#include <cub/version.cuh>
#include <cuda_runtime.h>

#if __has_include(<gpuprim/detail/config.cuh>)
#include <gpuprim/detail/config.cuh>  // GPUPRIM_VERSION_* for the JSON context
#endif

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace gpuprim_bench {

// ---------------------------------------------------------------------------------------------
// Device facts and failure bookkeeping
// ---------------------------------------------------------------------------------------------

struct device_info {
  bool ok = false;
  std::string error;  // why no device is usable, when !ok
  int ordinal = 0;
  cudaDeviceProp prop{};
  std::size_t l2_bytes = 0;
};

inline device_info& device() {
  static device_info d;
  return d;
}

/// Seed of every input in this process (env GPUPRIM_BENCH_SEED, else fresh); printed in the context.
inline std::uint64_t& seed() {
  static std::uint64_t s = 0;
  return s;
}

/// Number of benchmarks that ended with SkipWithError; decides main's exit status.
inline int& failures() {
  static int f = 0;
  return f;
}

/// Name of the benchmark being run (State::name() is missing from 1.7.1); set by add().
inline std::string& current_name() {
  static std::string n;
  return n;
}

/// Marks the benchmark skipped with `msg`. `counts` = false for an expected skip (a size that
/// does not fit this GPU's memory), which does not turn the exit status into a failure.
inline void fail(benchmark::State& state, const std::string& msg, bool counts = true) {
  if (counts) ++failures();
  std::fprintf(stderr, "[%s] %s\n", current_name().c_str(), msg.c_str());
  state.SkipWithError(msg.c_str());  // const char*: accepted by 1.7.1 and 1.8.x
}

inline std::string cuda_message(const char* what, cudaError_t e, const char* file, int line) {
  return std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
         ") at " + file + ":" + std::to_string(line);
}

/// Checks a cudaError_t expression; on failure marks the benchmark skipped and returns from the
/// enclosing void function (also allowed from inside the `for (auto _ : state)` loop).
#define GPUPRIM_BENCH_CHECK(state, call)                                                          \
  do {                                                                                            \
    const cudaError_t gpuprim_bench_err_ = (call);                                                \
    if (gpuprim_bench_err_ != cudaSuccess) {                                                      \
      ::gpuprim_bench::fail((state), ::gpuprim_bench::cuda_message(#call, gpuprim_bench_err_,     \
                                                                   __FILE__, __LINE__));          \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

/// Same for functions returning bool.
#define GPUPRIM_BENCH_CHECK_BOOL(state, call)                                                     \
  do {                                                                                            \
    const cudaError_t gpuprim_bench_err_ = (call);                                                \
    if (gpuprim_bench_err_ != cudaSuccess) {                                                      \
      ::gpuprim_bench::fail((state), ::gpuprim_bench::cuda_message(#call, gpuprim_bench_err_,     \
                                                                   __FILE__, __LINE__));          \
      return false;                                                                               \
    }                                                                                             \
  } while (0)

// ---------------------------------------------------------------------------------------------
// RAII device memory, stream and the event timer
// ---------------------------------------------------------------------------------------------

class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { reset(); }

  cudaError_t allocate(std::size_t bytes) {
    reset();
    // Never a zero-byte allocation: a workspace query may answer 0 bytes.
    const cudaError_t e = cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 256));
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      return e;
    }
    bytes_ = bytes;
    return cudaSuccess;
  }
  void reset() {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Where a timed iteration's clock starts (env GPUPRIM_BENCH_TIMING; recorded in the JSON context
/// as "timing"):
/// - `launch` (the default): the start event is recorded on an idle GPU, then the body is launched,
///   so the time includes the host's launch of the body's first kernel, as a caller sees it;
/// - `queued`: a kernel that waits for the host is queued first, then the events and the body, then
///   the host releases it (nvbench's blocking kernel), so that the time is the GPU's alone: every
///   launch of the body is already queued when the clock starts. The body must not wait for the
///   GPU; one that does makes the held kernel give up after ~2 s and the benchmark fail.
enum class timing_mode { launch, queued };

inline timing_mode& timing() {
  static timing_mode m = timing_mode::launch;
  return m;
}

/// Holds its stream until the host writes 1 to `*release`, or gives up after `limit` cycles and
/// writes 1 to `*gave_up`. Both live in mapped pinned host memory.
static __global__ void hold_stream(const volatile int* release, volatile int* gave_up, long long limit) {
  const long long start = clock64();
  while (*release == 0) {
    if (clock64() - start > limit) {
      *gave_up = 1;
      return;
    }
  }
}

/// One stream and two events per benchmark call. Each timed iteration is bracketed by events on
/// the stream and the elapsed GPU time becomes the iteration's manual time (see timing_mode).
class cuda_env {
 public:
  cuda_env() = default;
  cuda_env(const cuda_env&) = delete;
  cuda_env& operator=(const cuda_env&) = delete;
  ~cuda_env() {
    if (start_ != nullptr) (void)cudaEventDestroy(start_);
    if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
    if (hold_ != nullptr) (void)cudaFreeHost(const_cast<int*>(hold_));
  }

  /// False (benchmark already marked skipped) when no GPU is usable or creation fails.
  bool init(benchmark::State& state) {
    if (!device().ok) {
      fail(state, "no usable CUDA device: " + device().error);
      return false;
    }
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaSetDevice(device().ordinal));
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaEventCreate(&start_));
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaEventCreate(&stop_));
    if (timing() == timing_mode::queued) {
      void* p = nullptr;
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped));
      hold_ = static_cast<volatile int*>(p);
      void* d = nullptr;
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaHostGetDevicePointer(&d, p, 0));
      hold_device_ = static_cast<volatile int*>(d);
      int khz = 0;
      if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device().ordinal) != cudaSuccess || khz <= 0) {
        khz = 1980000;
      }
      hold_limit_ = 2000LL * khz;  // ~2 s
    }
    return true;
  }

  cudaStream_t stream() const { return stream_; }

  /// Runs prologue(i) untimed, then body(i) between the two events, for every iteration of the
  /// state, rotating i = first, first + 1, ... Both return cudaError_t; raw launches inside are
  /// also caught through cudaGetLastError. Returns false if the benchmark was marked skipped.
  template <class Prologue, class Body>
  bool timed_loop(benchmark::State& state, std::size_t first, Prologue&& prologue, Body&& body) {
    std::size_t i = first;
    for (auto _ : state) {
      GPUPRIM_BENCH_CHECK_BOOL(state, prologue(i));
      if (hold_ != nullptr) {
        hold_[0] = 0;  // release
        hold_[1] = 0;  // gave up
        hold_stream<<<1, 1, 0, stream_>>>(hold_device_, hold_device_ + 1, hold_limit_);
      }
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaEventRecord(start_, stream_));
      GPUPRIM_BENCH_CHECK_BOOL(state, body(i));
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaEventRecord(stop_, stream_));
      if (hold_ != nullptr) hold_[0] = 1;
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaEventSynchronize(stop_));
      if (hold_ != nullptr && hold_[1] != 0) {
        fail(state, "queued timing: the held kernel gave up, so the body waited for the GPU");
        return false;
      }
      float ms = 0.0f;
      GPUPRIM_BENCH_CHECK_BOOL(state, cudaEventElapsedTime(&ms, start_, stop_));
      state.SetIterationTime(static_cast<double>(ms) * 1e-3);
      ++i;
    }
    return true;
  }

  template <class Body>
  bool timed_loop(benchmark::State& state, std::size_t first, Body&& body) {
    return timed_loop(state, first, [](std::size_t) { return cudaSuccess; },
                      std::forward<Body>(body));
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  volatile int* hold_ = nullptr;         // queued timing: [0] release, [1] gave up (host view)
  volatile int* hold_device_ = nullptr;  // the same, as the device sees them
  long long hold_limit_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Inputs: random non-zero integer-valued items, identical in every type
// ---------------------------------------------------------------------------------------------

/// Item i of the input drawn with `seed`: one of -4..-1, 1..4, never 0. The same integers for every
/// type, so one exact int64 reference serves i32, f32 and f64; zero-mean, so partial sums stay far
/// below 2^24 and float/double sums of any association are exact.
__host__ __device__ inline int item_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const int v = static_cast<int>(z >> 61);  // 0..7
  return v < 4 ? v - 4 : v - 3;
}

template <class T>
__global__ __launch_bounds__(256) void fill_pool_kernel(T* out, std::size_t total, std::size_t n,
                                                       std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    out[i] = static_cast<T>(item_value(seed, i % n));
  }
}

/// Exact sum of items [0, n) of this process's input, on the host. Prefix sums already computed
/// are reused, so the whole run costs one pass over the largest n.
inline long long reference_sum(std::size_t n) {
  static std::vector<std::pair<std::size_t, long long>> known{{0, 0}};
  auto best = known.front();
  for (const auto& k : known) {
    if (k.first <= n && k.first > best.first) best = k;
  }
  long long s = best.second;
  for (std::size_t i = best.first; i < n; ++i) s += item_value(seed(), i);
  if (best.first != n) known.emplace_back(n, s);
  return s;
}

/// The reference in T: two's-complement wrap for integers, exact value for floating types.
template <class T>
T reference_as(long long ref) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<unsigned long long>(ref)));
  } else {
    return static_cast<T>(ref);
  }
}

/// Integers must match exactly. Floating sums of these inputs are exact too (see item_value), so
/// 0.5 tolerates nothing but a benign last-bit difference and catches any lost or doubled item.
template <class T>
bool matches(T got, long long ref) {
  if constexpr (std::is_integral_v<T>) {
    return got == reference_as<T>(ref);
  } else {
    return std::isfinite(static_cast<double>(got)) &&
           std::fabs(static_cast<double>(got) - static_cast<double>(ref)) <= 0.5;
  }
}

template <class T>
std::string to_text(T v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  }
}

/// Copies of one input laid end to end; iteration i reads copy i % copies, so consecutive
/// iterations never find their input in L2.
template <class T>
struct pool_view {
  const T* data = nullptr;
  std::size_t n = 0;
  std::size_t copies = 0;
  const T* copy(std::size_t i) const { return data + (i % copies) * n; }
};

/// Copies needed so the pool spans at least 4x L2 (one copy when the input alone does).
inline std::size_t pool_copies(std::size_t input_bytes) {
  const std::size_t target = 4 * std::max<std::size_t>(device().l2_bytes, std::size_t{50} << 20);
  if (input_bytes >= target) return 1;
  return (target + input_bytes - 1) / input_bytes;
}

/// Fails the benchmark with a clear message unless `bytes` more fit in free device memory, leaving
/// `reserve` bytes for workspaces and outputs.
inline bool require_free_memory(benchmark::State& state, std::size_t bytes,
                                std::size_t reserve = std::size_t{512} << 20) {
  std::size_t free_b = 0, total_b = 0;
  GPUPRIM_BENCH_CHECK_BOOL(state, cudaMemGetInfo(&free_b, &total_b));
  if (bytes + reserve > free_b) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "not enough device memory: needs %.2f GiB (+%.2f GiB reserve), %.2f of %.2f GiB free",
                  bytes / 1073741824.0, reserve / 1073741824.0, free_b / 1073741824.0,
                  total_b / 1073741824.0);
    fail(state, buf, /*counts=*/false);
    return false;
  }
  return true;
}

/// The one live input pool of the process, reused while consecutive benchmarks ask for the same
/// type and size (gpuprim and CUB rows are registered side by side), replaced otherwise.
template <class T>
bool acquire_pool(benchmark::State& state, std::size_t n, pool_view<T>& view) {
  struct cache_t {
    device_buffer buf;
    const std::type_info* type = nullptr;
    std::size_t n = 0, copies = 0;
  };
  static cache_t* cache = new cache_t;  // lives until exit: no cudaFree after runtime teardown
  if (cache->type == nullptr || *cache->type != typeid(T) || cache->n != n) {
    cache->buf.reset();
    cache->type = nullptr;
    const std::size_t copies = pool_copies(n * sizeof(T));
    if (!require_free_memory(state, copies * n * sizeof(T))) return false;
    GPUPRIM_BENCH_CHECK_BOOL(state, cache->buf.allocate(copies * n * sizeof(T)));
    const int blocks = device().prop.multiProcessorCount * 8;
    fill_pool_kernel<T><<<blocks, 256>>>(cache->buf.get<T>(), copies * n, n, seed());
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaGetLastError());
    GPUPRIM_BENCH_CHECK_BOOL(state, cudaDeviceSynchronize());
    cache->type = &typeid(T);
    cache->n = n;
    cache->copies = copies;
  }
  view.data = cache->buf.get<T>();
  view.n = n;
  view.copies = cache->copies;
  return true;
}

// ---------------------------------------------------------------------------------------------
// The read-bandwidth kernel: ceiling/read, and the L2 flush of the ladder
// ---------------------------------------------------------------------------------------------

/// Reads `n_vec` int4 with 16-byte loads, grid-stride, Unroll loads in flight per thread. The
/// accumulated xor is written only when it equals `sentinel`, so no load can be dropped.
template <int Unroll>
__global__ __launch_bounds__(256) void read_kernel(const int4* in, std::size_t n_vec, int* out,
                                                  int sentinel) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int acc = 0;
  for (; i + (Unroll - 1) * stride < n_vec; i += Unroll * stride) {
    int4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n_vec; i += stride) {
    const int4 v = in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == sentinel) *out = acc;
}

/// Launches read_kernel over `bytes` (a multiple of 16) at `in`.
inline cudaError_t launch_read(const void* in, std::size_t bytes, int* out, cudaStream_t s) {
  const int blocks = device().prop.multiProcessorCount * 8;  // 2048 resident threads per SM
  read_kernel<4><<<blocks, 256, 0, s>>>(static_cast<const int4*>(in), bytes / 16, out,
                                        0x7fffffff);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------
// Counters
// ---------------------------------------------------------------------------------------------

/// bytes_per_second and items_per_second (Google Benchmark's own), plus "GBps" (1e9 bytes per
/// second of manual time) and "n", which read the same in the JSON of 1.7.1 and 1.8.x.
inline void set_counters(benchmark::State& state, std::size_t n, std::size_t bytes_per_iteration) {
  const auto iters = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iters * static_cast<std::int64_t>(bytes_per_iteration));
  state.SetItemsProcessed(iters * static_cast<std::int64_t>(n));
  state.counters["GBps"] = benchmark::Counter(static_cast<double>(bytes_per_iteration) / 1e9,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["n"] = benchmark::Counter(static_cast<double>(n));
}

/// The copy ceiling: cudaMemcpyAsync device to device of n items of T (rotating pool copies),
/// counting bytes read + written. A scan of n T moves exactly these bytes, so its time over this
/// one is its fraction of the copy bandwidth in the same run.
template <class T>
void bm_copy(benchmark::State& state, std::size_t n) {
  cuda_env env;
  if (!env.init(state)) return;
  pool_view<T> pool;
  if (!acquire_pool(state, n, pool)) return;
  const std::size_t bytes = n * sizeof(T);
  if (!require_free_memory(state, bytes)) return;
  device_buffer dst;
  GPUPRIM_BENCH_CHECK(state, dst.allocate(bytes));
  auto run = [&](std::size_t i) {
    return cudaMemcpyAsync(dst.get(), pool.copy(i), bytes, cudaMemcpyDeviceToDevice, env.stream());
  };
  GPUPRIM_BENCH_CHECK(state, run(0));
  GPUPRIM_BENCH_CHECK(state, cudaStreamSynchronize(env.stream()));
  if (!env.timed_loop(state, 1, run)) return;
  set_counters(state, n, 2 * bytes);
}

// ---------------------------------------------------------------------------------------------
// Registration and main
// ---------------------------------------------------------------------------------------------

/// Registers `fn(state)` under the exact `name` with manual (CUDA event) time in microseconds.
/// Google Benchmark appends "/manual_time" to the reported name; scripts/bench_report.py strips it.
template <class Fn>
benchmark::internal::Benchmark* add(const std::string& name, Fn fn) {
  return benchmark::RegisterBenchmark(name.c_str(),
                                      [name, fn](benchmark::State& state) {
                                        current_name() = name;
                                        fn(state);
                                      })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

/// Finds the GPU (any error means none), records it and the toolchain in the JSON context.
inline void probe_device() {
  device_info& d = device();
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaSuccess && count == 0) e = cudaErrorNoDevice;
  if (e == cudaSuccess) e = cudaGetDevice(&d.ordinal);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&d.prop, d.ordinal);
  if (e == cudaSuccess) e = cudaFree(nullptr);  // create the context outside any benchmark
  if (e != cudaSuccess) {
    d.ok = false;
    d.error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    (void)cudaGetLastError();
    benchmark::AddCustomContext("gpu", "none (" + d.error + ")");
  } else {
    d.ok = true;
    d.l2_bytes = static_cast<std::size_t>(d.prop.l2CacheSize);
    benchmark::AddCustomContext("gpu", d.prop.name);
    benchmark::AddCustomContext("gpu_cc", std::to_string(d.prop.major) + "." +
                                              std::to_string(d.prop.minor));
    benchmark::AddCustomContext("gpu_sms", std::to_string(d.prop.multiProcessorCount));
    benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(d.prop.l2CacheSize));
    benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(d.prop.totalGlobalMem));
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess) {
      benchmark::AddCustomContext("cuda_driver", std::to_string(driver));
    }
  }
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  }
#ifdef CUB_VERSION
  benchmark::AddCustomContext("cub_version", std::to_string(CUB_VERSION));
#endif
#ifdef GPUPRIM_VERSION_MAJOR
  benchmark::AddCustomContext("gpuprim_version", std::to_string(GPUPRIM_VERSION_MAJOR) + "." +
                                                     std::to_string(GPUPRIM_VERSION_MINOR) + "." +
                                                     std::to_string(GPUPRIM_VERSION_PATCH));
#endif
  if (const char* s = std::getenv("GPUPRIM_BENCH_SEED")) {
    seed() = std::strtoull(s, nullptr, 0);
  } else {
    std::random_device rd;
    seed() = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  benchmark::AddCustomContext("seed", std::to_string(seed()));
  benchmark::AddCustomContext("timing", timing() == timing_mode::queued ? "queued" : "launch");
}

/// Keeps every SM busy for about `cycles` clock cycles (the warm-up's load).
static __global__ void warm_up_spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// Busies the GPU (and the host thread that waits for it) for `seconds` before the first
/// benchmark, so that the first rows run in the state that the later ones see. Without it, on the
/// H200 (bench_radix_sort at 1fdd9ed), the first rows of the run (u32 keys up to 8192, gpuprim
/// and CUB alike) took 1.2-1.6 us longer than rows of the same work later in the run. A 20 s spin
/// (session 53, 5c7d2e8) took a few tenths of a microsecond more off the first rows, but in a
/// whole run with it later 1024-key rows moved by up to 1 us either way, and the GPU's log showed
/// no clock, P-state or PCIe change (docs/radix_sort.md); so the default stays. Seconds from
/// GPUPRIM_BENCH_WARMUP_S (default 1; 0 turns it off); recorded in the JSON context.
inline void warm_up() {
  double seconds = 1.0;
  if (const char* s = std::getenv("GPUPRIM_BENCH_WARMUP_S")) seconds = std::strtod(s, nullptr);
  benchmark::AddCustomContext("warmup_s", std::to_string(seconds));
  if (!device().ok || !(seconds > 0)) return;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device().ordinal) != cudaSuccess || khz <= 0) khz = 1980000;
  const long long cycles = static_cast<long long>(khz) / 10;  // ~100 us a launch
  const unsigned grid = static_cast<unsigned>(device().prop.multiProcessorCount) * 4;
  const auto start = std::chrono::steady_clock::now();
  // One sync per launch keeps the host thread busy too.
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    warm_up_spin<<<grid, 256>>>(cycles);
    if (cudaDeviceSynchronize() != cudaSuccess) break;
  }
  (void)cudaGetLastError();
}

/// Records in the JSON context the order the cases run in: "interleaved" where Google Benchmark's
/// random interleaving is on (--benchmark_enable_random_interleaving, or the environment variable
/// BENCHMARK_ENABLE_RANDOM_INTERLEAVING that sets its default): the repetitions of all cases in
/// one random order, so that a slow phase of the machine falls on gpuprim's and CUB's rows alike.
/// Otherwise "registration": each case's gpuprim row right before its CUB rows.
inline void record_order(int argc, char** argv) {
  // Google Benchmark's reading of a boolean flag's value: anything but false, no, off, 0, f, n.
  auto is_true = [](std::string v) {
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v.size() == 1) return std::isalnum(static_cast<unsigned char>(v[0])) != 0 && v != "0" && v != "f" && v != "n";
    return v != "false" && v != "no" && v != "off";
  };
  bool interleaved = false;
  if (const char* e = std::getenv("BENCHMARK_ENABLE_RANDOM_INTERLEAVING")) interleaved = is_true(e);
  const std::string flag = "--benchmark_enable_random_interleaving";
  for (int i = 1; i < argc; ++i) {
    const std::string a(argv[i]);
    if (a == flag) interleaved = true;
    if (a.rfind(flag + "=", 0) == 0) interleaved = is_true(a.substr(flag.size() + 1));
  }
  benchmark::AddCustomContext("order", interleaved ? "interleaved" : "registration");
}

/// The benchmarks' main: flags, device probe, registration, run. Exit status: 0 when every
/// benchmark ran, 1 when one failed on a usable GPU (CUDA error, wrong result), 77 when none
/// could run for want of a GPU (the tests' skip code).
inline int run_main(int argc, char** argv, void (*register_benchmarks)()) {
  record_order(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (const char* t = std::getenv("GPUPRIM_BENCH_TIMING")) {
    const std::string mode(t);
    if (mode != "launch" && mode != "queued") {
      std::fprintf(stderr, "GPUPRIM_BENCH_TIMING must be launch or queued, not '%s'\n", t);
      return 1;
    }
    timing() = mode == "queued" ? timing_mode::queued : timing_mode::launch;
  }
  probe_device();
  warm_up();
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (failures() == 0) return 0;
  if (!device().ok) {
    std::fprintf(stderr, "no usable CUDA device (%s): nothing was measured\n",
                 device().error.c_str());
    return 77;
  }
  return 1;
}

}  // namespace gpuprim_bench
