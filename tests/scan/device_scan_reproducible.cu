// Tests that the device scans are bitwise reproducible (the contract's "Lean sorts" section): the
// same input gives the same output bits on every rerun, floating point and non-commutative
// operators included, while other work on a second stream perturbs the timing of the look-back
// (detail/lookback.cuh). Sums of f32 and f64 (the tile-per-block and the streaming scan, and the
// streaming scan forced at small sizes), an exclusive scan with an init through a user functor
// (tile-per-block at every size), composition of affine maps of floats (non-commutative), and an
// inclusive sum by key of floats. The same cases are checked exact against a host serial scan on
// integer-valued inputs, also at sizes around the edges of the look-back's groups of 32 tiles.
// Reruns: 100 up to 2^24 + 1 items, 25 at 2^28 (each rerun copies the output to the host: 1-2 GiB
// there); GPUPRIM_TEST_SMALL=1 stops at 2^20 + 1 items, 5 reruns.
#include <gpuprim/scan.cuh>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "reliability/large_inputs.cuh"
#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::device_vector;
using gpuprim_test::require_sync;
using gpuprim_test::scoped_stream;

namespace {

/// x -> a * x + b over floats.
struct affine_f {
  float a, b;
};

/// "f, then g", as scan_test::compose but in floating point: associative up to rounding, so its
/// results depend on the association, and not commutative.
struct compose_f {
  __host__ __device__ affine_f operator()(const affine_f& f, const affine_f& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

/// Addition as a user functor: the scans stream only with gpuprim's own operators, so this takes
/// the tile-per-block scan at every size.
struct add {
  template <class T>
  __host__ __device__ T operator()(const T& x, const T& y) const {
    return x + y;
  }
};

// ---- inputs: item i from (seed, i), the same on the host and the device ------------------------

enum class values { reals, integers };

/// Real items uniform in [-1, 1) (53 random bits, rounded to T), or integers in [-8, 8] (every
/// partial sum of 2^28 of them stays far below 2^24: exact in f32 in any order).
template <class T>
__host__ __device__ T make_item(std::uint64_t seed, std::size_t i, values kind) {
  const std::uint64_t h = large_test::hash64(seed, i);
  if constexpr (std::is_same_v<T, affine_f>) {
    const std::uint64_t g = large_test::hash64(seed ^ 0xaffull, i);
    if (kind == values::integers) {
      // a = +-1 and small integer b: compositions stay exact, and still do not commute.
      return {(h & 1) != 0 ? -1.0f : 1.0f, static_cast<float>(static_cast<int>(g % 17) - 8)};
    }
    // a within 2^-10 of 1: products of 2^28 of them stay far from overflow and underflow.
    const float a = 1.0f + static_cast<float>(static_cast<int>(h >> 41) - (1 << 22)) * 0x1p-32f;
    const float b = static_cast<float>(static_cast<int>(g >> 40) - (1 << 23)) * 0x1p-23f;
    return {a, b};
  } else {
    if (kind == values::integers) return static_cast<T>(static_cast<int>(h % 17) - 8);
    return static_cast<T>(static_cast<double>(static_cast<long long>(h >> 11) - (1ll << 52)) * 0x1p-52);
  }
}

template <class T>
__global__ void __launch_bounds__(256) fill_items(T* out, std::size_t n, std::uint64_t seed, values kind) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = make_item<T>(seed, i, kind);
  }
}

/// Keys in 0..2 drawn per block of 16 items in every other 2^20 items and per block of 8192 items
/// in the others (equal neighbours merge): short runs, and long runs that cross tiles.
__global__ void __launch_bounds__(256) fill_run_keys(int* keys, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::size_t block = (i >> 20) % 2 == 0 ? i >> 4 : i >> 13;
    keys[i] = static_cast<int>(large_test::hash64(seed, block) % 3);
  }
}

// ---- timing perturbation ------------------------------------------------------------------------

/// Spins for about `cycles` clock cycles: occupies SMs while the scan runs beside it.
__global__ void __launch_bounds__(256) spin(long long cycles, unsigned* sink) {
  const long long start = clock64();
  unsigned x = threadIdx.x;
  while (clock64() - start < cycles) x = x * 1664525u + 1013904223u;
  if (x == 0x9e3779b9u) *sink = x;  // keeps the loop
}

/// Work queued on a second non-blocking stream just before each rerun: nothing (every third
/// rerun), a spinning grid of random size and duration, or that and a 64 MiB device copy (memory
/// bandwidth taken while the scan runs).
class perturbation {
 public:
  perturbation() : scratch_(std::size_t(64) << 20), sink_(1) {
    int device = 0;
    REQUIRE_CUDA(cudaGetDevice(&device));
    REQUIRE_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  }

  void launch(int rerun, std::mt19937_64& rng) {
    const int kind = rerun % 3;
    if (kind == 0) return;
    const unsigned blocks = 1 + static_cast<unsigned>(rng() % (2 * static_cast<unsigned>(sms_)));
    const long long cycles = static_cast<long long>(rng() % 200000);
    spin<<<blocks, 256, 0, side_>>>(cycles, sink_.data());
    REQUIRE_CUDA(cudaGetLastError());
    if (kind == 2) {
      const std::size_t half = scratch_.size() / 2;
      REQUIRE_CUDA(cudaMemcpyAsync(scratch_.data() + half, scratch_.data(), half, cudaMemcpyDeviceToDevice, side_));
    }
  }

 private:
  scoped_stream side_;
  device_vector<unsigned char> scratch_;
  device_vector<unsigned> sink_;
  int sms_ = 1;
};

/// Page-locked host memory (the reruns' output copies: a 2 GiB copy takes ~40 ms, not ~0.5 s).
template <class T>
class pinned_buffer {
 public:
  explicit pinned_buffer(std::size_t n) : n_(n) {
    if (n_ != 0) REQUIRE_CUDA(cudaMallocHost(reinterpret_cast<void**>(&p_), n_ * sizeof(T)));
  }
  ~pinned_buffer() {
    if (p_ != nullptr) (void)cudaFreeHost(p_);
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  T* data() { return p_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// ---- the scans under test -----------------------------------------------------------------------

/// A scan of the test: `run` calls its workspace form (a size query with a null workspace),
/// `reference` is the host serial scan.
struct inclusive_sum_case {
  static constexpr const char* name = "inclusive_sum";
  template <class T>
  static cudaError_t run(void* t, std::size_t& b, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return gpuprim::inclusive_sum(t, b, in, out, n, s);
  }
  template <class T>
  static std::vector<T> reference(const std::vector<T>& in) {
    return reference_inclusive<T, T>(in, host_plus{});
  }
};

struct exclusive_sum_case {
  static constexpr const char* name = "exclusive_sum";
  template <class T>
  static cudaError_t run(void* t, std::size_t& b, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return gpuprim::exclusive_sum(t, b, in, out, n, s);
  }
  template <class T>
  static std::vector<T> reference(const std::vector<T>& in) {
    return reference_exclusive<T, T>(in, T{}, host_plus{});
  }
};

/// The streaming scan at every size where it has two tiles or more (above its crossover the
/// default already streams).
struct streaming_inclusive_sum_case {
  static constexpr const char* name = "inclusive_sum, streaming scan forced";
  template <class T>
  static cudaError_t run(void* t, std::size_t& b, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return gpuprim::inclusive_sum<gpuprim::detail::scan_force_streaming>(t, b, in, out, n, s);
  }
  template <class T>
  static std::vector<T> reference(const std::vector<T>& in) {
    return reference_inclusive<T, T>(in, host_plus{});
  }
};

/// exclusive_scan with an init of 0.5 through a user functor: the tile-per-block scan at every
/// size, and the init folded into tile 0's prefix.
struct exclusive_add_case {
  static constexpr const char* name = "exclusive_scan, user functor, init 0.5";
  template <class T>
  static cudaError_t run(void* t, std::size_t& b, const T* in, T* out, std::size_t n, cudaStream_t s) {
    return gpuprim::exclusive_scan(t, b, in, out, n, T(0.5), add{}, s);
  }
  template <class T>
  static std::vector<T> reference(const std::vector<T>& in) {
    return reference_exclusive<T, T>(in, T(0.5), host_plus{});
  }
};

struct affine_case {
  static constexpr const char* name = "inclusive_scan, composition of affine maps of floats";
  static cudaError_t run(void* t, std::size_t& b, const affine_f* in, affine_f* out, std::size_t n, cudaStream_t s) {
    return gpuprim::inclusive_scan(t, b, in, out, n, compose_f{}, s);
  }
  static std::vector<affine_f> reference(const std::vector<affine_f>& in) {
    return reference_inclusive<affine_f, affine_f>(in, compose_f{});
  }
};

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s = {std::size_t(1) << 10, (std::size_t(1) << 16) + 3, (std::size_t(1) << 20) + 1};
  if (!gpuprim_test::small_mode()) {
    s.push_back(std::size_t(1) << 24);
    s.push_back(std::size_t(1) << 28);
  }
  return s;
}

/// Item counts that end a tile before, at and a tile after the edge of a group of 32 tiles (the
/// grouped look-back, detail/lookback.cuh), each also an item short and an item over: 31 .. 33,
/// 63 .. 65 and 1055 .. 1057 tiles. Both scans' tiles hold 32 KiB of items.
std::vector<std::size_t> group_edge_sizes(std::size_t item_bytes) {
  const std::size_t tile = 32768 / item_bytes;
  std::vector<std::size_t> s;
  for (std::size_t tiles : {31, 32, 33, 63, 64, 65, 1055, 1056, 1057}) {
    if (tiles > 65 && gpuprim_test::small_mode()) continue;
    for (std::size_t items : {tiles * tile - 1, tiles * tile, tiles * tile + 1}) s.push_back(items);
  }
  return s;
}

int reruns(std::size_t n) {
  if (gpuprim_test::small_mode()) return 5;
  return n <= (std::size_t(1) << 24) + 1 ? 100 : 25;
}

/// Whether `bytes` of buffers fit on the device (with 1 GiB to spare); warns or fails otherwise.
bool fits(std::size_t bytes) {
  const std::size_t needed = bytes + (std::size_t(1) << 30);
  if (gpuprim_test::free_device_memory() >= needed) return true;
  GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
  return false;
}

/// First index where two outputs differ bytewise (n when none does).
std::size_t first_difference(const unsigned char* a, const unsigned char* b, std::size_t n, std::size_t item_bytes) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(a + i * item_bytes, b + i * item_bytes, item_bytes) != 0) return i;
  }
  return n;
}

/// Runs `scan(temp, bytes, stream)` (writing `out`) `count` times after the first, each after
/// queueing the perturbation, and compares each output bitwise with the first run's.
template <class T, class Scan>
void check_reruns(Scan scan, T* out, std::size_t n, int count) {
  std::size_t bytes = 0;
  REQUIRE_CUDA(scan(nullptr, bytes, cudaStream_t(0)));
  device_vector<unsigned char> temp(bytes);
  scoped_stream stream;
  perturbation other_work;
  auto& rng = gpuprim_test::test_rng();
  pinned_buffer<T> first(n), now(n);

  for (int rerun = 0; rerun <= count; ++rerun) {
    REQUIRE_CUDA(cudaMemsetAsync(out, 0xA5, n * sizeof(T), stream));
    other_work.launch(rerun, rng);
    std::size_t b = bytes;
    REQUIRE_CUDA(scan(temp.data(), b, stream.get()));
    T* host = rerun == 0 ? first.data() : now.data();
    REQUIRE_CUDA(cudaMemcpyAsync(host, out, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    require_sync();
    if (rerun == 0) continue;
    if (std::memcmp(first.data(), now.data(), first.bytes()) != 0) {
      const auto* a = reinterpret_cast<const unsigned char*>(first.data());
      const auto* c = reinterpret_cast<const unsigned char*>(now.data());
      FAIL("rerun " << rerun << " of " << count << " differs from the first run; first at item "
                    << first_difference(a, c, n, sizeof(T)));
    }
  }
  SUCCEED("all " << count << " reruns bitwise equal to the first run");
}

/// Reruns scan Case of n real items of T.
template <class Case, class T>
void check_case_reproducible(std::size_t n) {
  if (!fits(2 * n * sizeof(T) + (std::size_t(64) << 20))) return;
  const std::uint64_t seed = gpuprim_test::test_seed() ^ (0x5eedull + n);
  INFO(Case::name << " of " << n << " items of " << sizeof(T) << " bytes, " << reruns(n)
                  << " reruns (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  device_vector<T> in(n), out(n);
  fill_items<<<1024, 256>>>(in.data(), n, seed, values::reals);
  require_sync();
  const T* first = in.data();
  T* result = out.data();
  check_reruns<T>(
      [&](void* t, std::size_t& b, cudaStream_t s) { return Case::run(t, b, first, result, n, s); }, result, n,
      reruns(n));
}

/// One run of scan Case of n integer-valued items of T against the host serial scan (exact).
template <class Case, class T>
void check_case_exact(std::size_t n) {
  if (!fits(2 * n * sizeof(T))) return;
  const std::uint64_t seed = gpuprim_test::test_seed() ^ (0xe4acull + n);
  INFO(Case::name << " of " << n << " integer-valued items of " << sizeof(T)
                  << " bytes (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  std::vector<T> h_in(n);
  for (std::size_t i = 0; i < n; ++i) h_in[i] = make_item<T>(seed, i, values::integers);
  const std::vector<T> expected = Case::reference(h_in);
  device_vector<T> in(h_in), out(n);
  out.poison();
  std::size_t bytes = 0;
  REQUIRE_CUDA(Case::run(nullptr, bytes, in.data(), out.data(), n, 0));
  device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA(Case::run(temp.data(), bytes, in.data(), out.data(), n, 0));
  require_sync();
  const std::vector<T> got = out.download();
  const std::size_t at = first_difference(reinterpret_cast<const unsigned char*>(expected.data()),
                                          reinterpret_cast<const unsigned char*>(got.data()), n, sizeof(T));
  INFO("first difference from the host serial scan at item " << at);
  CHECK(at == n);
}

template <class T>
void for_each_float_case(std::size_t n, bool exact) {
  if (exact) {
    check_case_exact<inclusive_sum_case, T>(n);
    check_case_exact<exclusive_sum_case, T>(n);
    check_case_exact<streaming_inclusive_sum_case, T>(n);
    check_case_exact<exclusive_add_case, T>(n);
  } else {
    check_case_reproducible<inclusive_sum_case, T>(n);
    check_case_reproducible<exclusive_sum_case, T>(n);
    check_case_reproducible<streaming_inclusive_sum_case, T>(n);
    check_case_reproducible<exclusive_add_case, T>(n);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("device scan: float scans bitwise reproducible under concurrent work",
                   "[scan][device][reproducible]", float, double) {
  for (std::size_t n : sizes()) for_each_float_case<TestType>(n, false);
}

TEST_CASE("device scan: composition of affine maps of floats bitwise reproducible under concurrent work",
          "[scan][device][reproducible]") {
  for (std::size_t n : sizes()) check_case_reproducible<affine_case, affine_f>(n);
}

TEMPLATE_TEST_CASE("device scan: the reproducibility cases are exact on integer-valued floats",
                   "[scan][device][reproducible]", float, double) {
  for (std::size_t n : sizes()) for_each_float_case<TestType>(n, true);
}

TEMPLATE_TEST_CASE("device scan: exact on integer-valued floats at the edges of look-back groups",
                   "[scan][device][reproducible]", float, double) {
  for (std::size_t n : group_edge_sizes(sizeof(TestType))) for_each_float_case<TestType>(n, true);
}

TEST_CASE("device scan: composition of affine maps exact on integer-valued floats", "[scan][device][reproducible]") {
  for (std::size_t n : sizes()) check_case_exact<affine_case, affine_f>(n);
}

TEST_CASE("device scan: inclusive_sum_by_key of floats bitwise reproducible under concurrent work",
          "[scan][device][reproducible][by_key]") {
  const std::size_t n = gpuprim_test::small_mode() ? (std::size_t(1) << 16) + 3 : (std::size_t(1) << 24) + 1;
  const std::uint64_t seed = gpuprim_test::test_seed() ^ 0xb1c0ull;
  INFO("inclusive_sum_by_key of " << n << " floats, " << reruns(n)
                                  << " reruns (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  device_vector<int> keys(n);
  device_vector<float> in(n), out(n);
  fill_run_keys<<<1024, 256>>>(keys.data(), n, seed);
  fill_items<<<1024, 256>>>(in.data(), n, seed, values::reals);
  require_sync();
  const int* k = keys.data();
  const float* v = in.data();
  float* result = out.data();
  check_reruns<float>(
      [&](void* t, std::size_t& b, cudaStream_t s) { return gpuprim::inclusive_sum_by_key(t, b, k, v, result, n, s); },
      result, n, reruns(n));
}
