// Shared helpers for the GPU tests: device buffers, CUDA error checks, seeded random data, run modes.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/catch.hpp"

/// REQUIRE that a CUDA call returned cudaSuccess; on failure the message names the call and the error.
#define REQUIRE_CUDA(expr)                                                                           \
  do {                                                                                               \
    const cudaError_t gpuprim_test_err_ = (expr);                                                    \
    INFO(#expr << " -> " << cudaGetErrorName(gpuprim_test_err_) << ": "                             \
               << cudaGetErrorString(gpuprim_test_err_));                                            \
    REQUIRE(gpuprim_test_err_ == cudaSuccess);                                                       \
  } while (0)

/// Like REQUIRE_CUDA, but the test case goes on after a failure.
#define CHECK_CUDA(expr)                                                                             \
  do {                                                                                               \
    const cudaError_t gpuprim_test_err_ = (expr);                                                    \
    INFO(#expr << " -> " << cudaGetErrorName(gpuprim_test_err_) << ": "                             \
               << cudaGetErrorString(gpuprim_test_err_));                                            \
    CHECK(gpuprim_test_err_ == cudaSuccess);                                                         \
  } while (0)

namespace gpuprim_test {

// ---------------------------------------------------------------------------------------------
// Run modes

/// True when GPUPRIM_TEST_SMALL=1 (runs under compute-sanitizer): tests skip their largest sizes.
inline bool small_mode()
{
  const char* v = std::getenv("GPUPRIM_TEST_SMALL");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

/// Free memory on the current device in bytes (0 when the query fails).
inline std::size_t free_device_memory()
{
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return free_bytes;
}

/// Launch errors, then execution errors of everything queued so far.
inline void require_sync()
{
  REQUIRE_CUDA(cudaGetLastError());
  REQUIRE_CUDA(cudaDeviceSynchronize());
}

// ---------------------------------------------------------------------------------------------
// Random numbers

/// The seed of this run: GPUPRIM_TEST_SEED if set, else fresh from std::random_device.
/// Printed to stdout at first use so that a failing run can be repeated.
inline std::uint64_t test_seed()
{
  static const std::uint64_t seed = [] {
    std::uint64_t s = 0;
    const char* env = std::getenv("GPUPRIM_TEST_SEED");
    if (env != nullptr && *env != '\0') {
      s = std::strtoull(env, nullptr, 0);
    } else {
      std::random_device rd;
      s = (std::uint64_t(rd()) << 32) ^ std::uint64_t(rd());
    }
    std::printf("gpuprim tests: seed %llu (set GPUPRIM_TEST_SEED=%llu to repeat)\n",
                static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    std::fflush(stdout);
    return s;
  }();
  return seed;
}

/// The one random engine of a test executable, seeded with test_seed().
inline std::mt19937_64& test_rng()
{
  static std::mt19937_64 rng(test_seed());
  return rng;
}

/// How a test value type is built from integers. Specialise it for test structs
/// (from_int(v) and random(rng, lo, hi), each component in [lo, hi]).
template <class T, class Enable = void>
struct value_traits {
  static T from_int(long long v) { return static_cast<T>(v); }
  static T random(std::mt19937_64& rng, long long lo, long long hi)
  {
    return static_cast<T>(std::uniform_int_distribution<long long>(lo, hi)(rng));
  }
};

/// n integer-valued items in [lo, hi] (also for float/double: every partial sum stays exact
/// as long as it stays below 2^digits).
template <class T>
std::vector<T> random_vector(std::size_t n, long long lo, long long hi)
{
  std::vector<T> v(n);
  auto& rng = test_rng();
  for (auto& x : v) x = value_traits<T>::random(rng, lo, hi);
  return v;
}

/// n real (generally non-integer) items uniform in [lo, hi).
template <class T>
std::vector<T> random_reals(std::size_t n, double lo, double hi)
{
  static_assert(std::is_floating_point<T>::value, "random_reals is for float and double");
  std::vector<T> v(n);
  std::uniform_real_distribution<double> dist(lo, hi);
  auto& rng = test_rng();
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

/// A magnitude m such that sums of n items in [-m, m] are exact in Acc for any order of
/// evaluation (clamped to [1, 1000]; for float with n > 2^23 the bound m = 1 relies on the
/// random signs keeping partial sums below 2^24). Unsigned sums wrap, which is exact too.
template <class Acc>
long long exact_magnitude(std::size_t n)
{
  const double count = static_cast<double>(std::max<std::size_t>(n, 1));
  double limit;
  if constexpr (std::is_floating_point<Acc>::value) {
    limit = std::ldexp(1.0, std::numeric_limits<Acc>::digits - 1) / count;
  } else if constexpr (std::is_integral<Acc>::value && std::is_signed<Acc>::value) {
    limit = static_cast<double>(std::numeric_limits<Acc>::max()) / count;
  } else {
    limit = 1000.0;
  }
  return static_cast<long long>(std::max(1.0, std::min(1000.0, limit)));
}

/// Integer-valued random items for a reduction of n items of In into Acc: [-m, m] for signed
/// and floating types, [0, m] for unsigned ones, within the range of In.
template <class In, class Acc = In>
std::vector<In> random_exact_vector(std::size_t n)
{
  long long m = exact_magnitude<Acc>(n);
  if constexpr (std::is_arithmetic<In>::value && !std::is_floating_point<In>::value) {
    m = std::min<long long>(m, static_cast<long long>(std::numeric_limits<In>::max()));
  }
  const bool is_unsigned = std::is_arithmetic<In>::value && !std::numeric_limits<In>::is_signed;
  return random_vector<In>(n, is_unsigned ? 0 : -m, m);
}

// ---------------------------------------------------------------------------------------------
// Test value types beyond the arithmetic ones

/// 12-byte struct; combined component-wise by triple_op (a: plus, b: min, c: max). Also has
/// +, < and > (lexicographic) so that gpuprim::plus / minimum / maximum accept it.
struct triple {
  int a, b, c;
};
__host__ __device__ inline triple operator+(const triple& x, const triple& y) { return {x.a + y.a, x.b + y.b, x.c + y.c}; }
__host__ __device__ inline bool operator<(const triple& x, const triple& y)
{
  return x.a != y.a ? x.a < y.a : x.b != y.b ? x.b < y.b : x.c < y.c;
}
__host__ __device__ inline bool operator>(const triple& x, const triple& y) { return y < x; }
__host__ __device__ inline bool operator==(const triple& x, const triple& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
__host__ __device__ inline bool operator!=(const triple& x, const triple& y) { return !(x == y); }
inline std::ostream& operator<<(std::ostream& os, const triple& t) { return os << "{" << t.a << ", " << t.b << ", " << t.c << "}"; }

struct triple_op {
  __host__ __device__ triple operator()(const triple& x, const triple& y) const
  {
    return {x.a + y.a, x.b < y.b ? x.b : y.b, x.c < y.c ? y.c : x.c};
  }
};

/// 24-byte struct; combined by wide_op (x: plus, y: max, z: min, w: xor).
struct wide {
  double x;
  long long y;
  float z;
  int w;
};
__host__ __device__ inline bool operator==(const wide& p, const wide& q) { return p.x == q.x && p.y == q.y && p.z == q.z && p.w == q.w; }
__host__ __device__ inline bool operator!=(const wide& p, const wide& q) { return !(p == q); }
inline std::ostream& operator<<(std::ostream& os, const wide& v) { return os << "{" << v.x << ", " << v.y << ", " << v.z << ", " << v.w << "}"; }

struct wide_op {
  __host__ __device__ wide operator()(const wide& p, const wide& q) const
  {
    return {p.x + q.x, p.y < q.y ? q.y : p.y, q.z < p.z ? q.z : p.z, p.w ^ q.w};
  }
};

template <>
struct value_traits<triple> {
  static triple from_int(long long v) { return {int(v), int(v), int(v)}; }
  static triple random(std::mt19937_64& rng, long long lo, long long hi)
  {
    std::uniform_int_distribution<long long> d(lo, hi);
    const int a = int(d(rng)), b = int(d(rng)), c = int(d(rng));
    return {a, b, c};
  }
};

template <>
struct value_traits<wide> {
  static wide from_int(long long v) { return {double(v), v, float(v), int(v)}; }
  static wide random(std::mt19937_64& rng, long long lo, long long hi)
  {
    std::uniform_int_distribution<long long> d(lo, hi);
    const double x = double(d(rng));
    const long long y = d(rng) * 1000003LL;
    const float z = float(d(rng));
    const int w = int(rng() & 0x7fffffff);
    return {x, y, z, w};
  }
};

// ---------------------------------------------------------------------------------------------
// Device memory

/// RAII device buffer of n items of a trivially copyable T (no construction on the device).
template <class T>
class device_vector {
  static_assert(std::is_trivially_copyable<T>::value, "device_vector needs trivially copyable T");

public:
  device_vector() = default;
  explicit device_vector(std::size_t n) { REQUIRE(allocate(n)); }
  explicit device_vector(const std::vector<T>& h) : device_vector(h.size()) { upload(h); }
  ~device_vector() { release(); }

  device_vector(const device_vector&) = delete;
  device_vector& operator=(const device_vector&) = delete;
  device_vector(device_vector&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_vector& operator=(device_vector&& o) noexcept
  {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  /// Allocates n items (freeing what was held); false, with no sticky error left, when
  /// cudaMalloc fails. n == 0 holds no memory and data() is null.
  bool allocate(std::size_t n)
  {
    release();
    if (n == 0) return true;
    void* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    ptr_ = static_cast<T*>(p);
    n_ = n;
    return true;
  }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

  /// Copies count items from host memory to items [offset, offset + count).
  /// Synchronises the device afterwards: a pageable copy may still be in flight when cudaMemcpy
  /// returns, which work on a non-blocking stream would not wait for.
  void upload(const T* h, std::size_t count, std::size_t offset = 0)
  {
    REQUIRE(offset + count <= n_);
    if (count == 0) return;
    REQUIRE_CUDA(cudaMemcpy(ptr_ + offset, h, count * sizeof(T), cudaMemcpyHostToDevice));
    REQUIRE_CUDA(cudaDeviceSynchronize());
  }
  void upload(const std::vector<T>& h, std::size_t offset = 0) { upload(h.data(), h.size(), offset); }

  /// Copies count items starting at offset back to the host (synchronous).
  std::vector<T> download(std::size_t offset, std::size_t count) const
  {
    REQUIRE(offset + count <= n_);
    std::vector<T> h(count);
    if (count != 0) {
      REQUIRE_CUDA(cudaMemcpy(h.data(), ptr_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    return h;
  }
  std::vector<T> download() const { return download(0, n_); }
  T download_one(std::size_t i = 0) const { return download(i, 1)[0]; }

  /// Fills every byte with pattern (synchronous).
  void poison(unsigned char pattern = 0xA5)
  {
    if (n_ == 0) return;
    REQUIRE_CUDA(cudaMemset(ptr_, pattern, bytes()));
    REQUIRE_CUDA(cudaDeviceSynchronize());
  }

  /// Fills every byte with a pattern whose item value differs bytewise from avoid, so that
  /// an output left unwritten can never look right. Returns the poison item.
  T poison_unlike(const T& avoid)
  {
    static const unsigned char patterns[] = {0xA5, 0x5A, 0xC3, 0x3C, 0xFF};
    for (unsigned char p : patterns) {
      T candidate;
      std::memset(static_cast<void*>(&candidate), p, sizeof(T));
      if (std::memcmp(&candidate, &avoid, sizeof(T)) != 0) {
        poison(p);
        return candidate;
      }
    }
    FAIL("no poison pattern differs from the expected value");
    return avoid;
  }

private:
  void release() noexcept
  {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
    ptr_ = nullptr;
    n_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

/// RAII non-blocking CUDA stream.
class scoped_stream {
public:
  scoped_stream() { REQUIRE_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~scoped_stream() { (void)cudaStreamDestroy(s_); }
  scoped_stream(const scoped_stream&) = delete;
  scoped_stream& operator=(const scoped_stream&) = delete;
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }

private:
  cudaStream_t s_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Comparisons

/// Bytewise equality (for bitwise determinism checks).
template <class T>
bool bitwise_equal(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// CHECKs expected == actual item by item; reports the mismatch count and the first few
/// mismatching indices (one assertion, not one per item).
template <class T>
void check_equal_vectors(const std::vector<T>& expected, const std::vector<T>& actual)
{
  REQUIRE(expected.size() == actual.size());
  std::size_t mismatches = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!(expected[i] == actual[i])) {
      if (mismatches < 5) {
        first << "  [" << i << "] expected " << Catch::Detail::stringify(expected[i]) << ", got "
              << Catch::Detail::stringify(actual[i]) << "\n";
      }
      ++mismatches;
    }
  }
  INFO("first mismatches:\n" << first.str());
  CHECK(mismatches == std::size_t(0));
}

}  // namespace gpuprim_test
