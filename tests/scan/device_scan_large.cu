// Tests the device scans at 10^7 + 19 items and above 2^31 items: the sums (int8 in, int64 out,
// checked on the device against a closed form) and exclusive_scan / inclusive_scan (uint32, both
// forms, the streaming and the tile-per-block scan, checked on the host). All are skipped in
// small mode (GPUPRIM_TEST_SMALL=1); short of device memory they warn, or fail with
// GPUPRIM_REQUIRE_GPU=1.
#include <gpuprim/scan.cuh>

#include <cstdint>
#include <vector>

#include "reliability/large_inputs.cuh"
#include "scan/device_scan_common.cuh"
#include "scan/scan_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using namespace scan_test;
using gpuprim_test::device_vector;
using gpuprim_test::random_exact_vector;
using gpuprim_test::require_sync;

TEST_CASE("device scan: 10^7 + 19 items", "[scan][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = 10000019;
  check_scan<api::exclusive_sum, int, int>(random_exact_vector<int>(n), 0, gpuprim::plus{}, host_plus{});
  check_scan<api::inclusive_scan, affine, affine>(random_affines(n), affine_identity(), compose{}, compose{});
  check_scan<api::inclusive_sum, double, double>(random_exact_vector<double>(n), 0.0, gpuprim::plus{}, host_plus{}, 1, 0);
  // 8-byte items with both pointers aligned after the head: the streaming scan (80 MB).
  check_scan<api::inclusive_sum, double, double>(random_exact_vector<double>(n), 0.0, gpuprim::plus{}, host_plus{});
  check_scan<api::exclusive_sum, std::int64_t, std::int64_t>(random_exact_vector<std::int64_t>(n), std::int64_t(0),
                                                              gpuprim::plus{}, host_plus{}, 1, 1);
}

namespace {

// Item i is pattern[i % 7]; the exclusive prefix of item i is (i / 7) * 13 + before[i % 7].
__constant__ std::int8_t pattern[7] = {3, -1, 4, 1, -5, 9, 2};
__constant__ std::int64_t before[7] = {0, 3, 2, 6, 7, 2, 11};
constexpr std::int64_t period_sum = 13;

__global__ void __launch_bounds__(256) fill_pattern(std::int8_t* in, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) in[i] = pattern[i % 7];
}

/// Counts the items that differ from the closed form and records the first of them.
__global__ void __launch_bounds__(256)
    check_pattern(const std::int64_t* out, std::size_t n, bool inclusive, unsigned long long* mismatches,
                  unsigned long long* first_mismatch) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t expected = std::int64_t(i / 7) * period_sum + before[i % 7] + (inclusive ? pattern[i % 7] : 0);
    if (out[i] != expected) {
      ++bad;
      atomicMin(first_mismatch, static_cast<unsigned long long>(i));
    }
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

}  // namespace

TEST_CASE("device scan: more than 2^31 items (int8 in, int64 out)", "[scan][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = (std::size_t(1) << 31) + 12347;
  const std::size_t needed = n * (sizeof(std::int8_t) + sizeof(std::int64_t)) + (std::size_t(1) << 30);
  if (gpuprim_test::free_device_memory() < needed) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::int8_t> in;
  device_vector<std::int64_t> out;
  if (!in.allocate(n) || !out.allocate(n)) {
    GPUPRIM_LARGE_SKIP("skipped: allocation failed");
    return;
  }
  fill_pattern<<<1024, 256>>>(in.data(), n);
  require_sync();
  device_vector<unsigned long long> counters(2);

  for (bool inclusive : {false, true}) {
    INFO((inclusive ? "inclusive_sum" : "exclusive_sum") << " of " << n << " items");
    out.poison(0xA5);
    std::size_t bytes = 0;
    if (inclusive) {
      REQUIRE_CUDA(gpuprim::inclusive_sum(nullptr, bytes, in.data(), out.data(), n));
    } else {
      REQUIRE_CUDA(gpuprim::exclusive_sum(nullptr, bytes, in.data(), out.data(), n));
    }
    device_vector<unsigned char> temp(bytes);
    if (inclusive) {
      REQUIRE_CUDA(gpuprim::inclusive_sum(temp.data(), bytes, in.data(), out.data(), n));
    } else {
      REQUIRE_CUDA(gpuprim::exclusive_sum(temp.data(), bytes, in.data(), out.data(), n));
    }
    require_sync();
    counters.upload(std::vector<unsigned long long>{0, ~0ull});
    check_pattern<<<1024, 256>>>(out.data(), n, inclusive, counters.data(), counters.data() + 1);
    require_sync();
    const auto c = counters.download();
    INFO("first mismatch at " << c[1]);
    CHECK(c[0] == 0);
  }
}

namespace {

/// Item i of the uint32 inputs above 2^31 items: 32 random bits.
__host__ __device__ inline std::uint32_t random_u32(std::uint64_t seed, std::size_t i) {
  return static_cast<std::uint32_t>(large_test::hash64(seed, i));
}

__global__ void __launch_bounds__(256) fill_random_u32(std::uint32_t* in, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    in[i] = random_u32(seed, i);
  }
}

/// Wrapping uint32 addition as a user functor. The scans stream only with gpuprim's own
/// operators (which they may reorder), so with this one they take the tile-per-block scan.
struct add_u32 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a + b; }
};

template <class Op>
using u32_params = gpuprim::detail::scan_params<const std::uint32_t*, std::uint32_t*, std::uint32_t, std::uint32_t, Op>;
static_assert(gpuprim::detail::streaming_scan<u32_params<gpuprim::plus>>::applicable,
              "uint32 with gpuprim::plus streams (on sm_90 and up, from streaming_scan_min_items)");
static_assert(!gpuprim::detail::streaming_scan<u32_params<add_u32>>::applicable,
              "a user functor takes the tile-per-block scan");

/// One scan of the test below: exclusive (init `init`) or inclusive, workspace or allocating form.
template <class Op>
void run_u32_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, bool inclusive, bool allocating,
                  std::uint32_t init, Op op) {
  if (allocating) {
    REQUIRE_CUDA(inclusive ? gpuprim::inclusive_scan(in, out, n, op) : gpuprim::exclusive_scan(in, out, n, init, op));
    return;
  }
  std::size_t bytes = 0;
  REQUIRE_CUDA(inclusive ? gpuprim::inclusive_scan(nullptr, bytes, in, out, n, op)
                         : gpuprim::exclusive_scan(nullptr, bytes, in, out, n, init, op));
  device_vector<unsigned char> temp(bytes);
  REQUIRE_CUDA(inclusive ? gpuprim::inclusive_scan(temp.data(), bytes, in, out, n, op)
                         : gpuprim::exclusive_scan(temp.data(), bytes, in, out, n, init, op));
  require_sync();  // before temp is freed
}

}  // namespace

// Random uint32 items (wrapping sums: every output item depends on every item before it). The
// host check is the scan's definition item by item: exclusive out[0] == init and out[i] ==
// out[i - 1] + in[i - 1]; inclusive out[0] == in[0] and out[i] == out[i - 1] + in[i]. Together
// these hold only for the exact scan (by induction), and they split over the host's cores.
// ~17.2 GB of device memory (items in, items out); a few seconds on an H100.
TEST_CASE("device scan: exclusive_scan and inclusive_scan of more than 2^31 uint32 items", "[scan][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = (std::size_t(1) << 31) + 65539;  // 3 items past the last 16-byte vector
  constexpr std::size_t guard = 64;
  constexpr std::uint32_t init = 7;
  const std::size_t needed = (2 * n + guard) * sizeof(std::uint32_t) + (std::size_t(1) << 30);
  if (gpuprim_test::free_device_memory() < needed) {
    GPUPRIM_LARGE_SKIP("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::uint32_t> in, out;
  if (!in.allocate(n) || !out.allocate(n + guard)) {
    GPUPRIM_LARGE_SKIP("skipped: allocation failed");
    return;
  }
  const std::uint64_t seed = gpuprim_test::test_seed() ^ 0x5ca1ab1e2ull;
  fill_random_u32<<<4096, 256>>>(in.data(), n, seed);
  require_sync();
  const std::uint32_t* first = in.data();

  struct variant {
    const char* name;
    bool inclusive, user_functor, allocating;
  };
  const variant variants[] = {
      {"exclusive_scan, gpuprim::plus, init 7, workspace form (the streaming scan)", false, false, false},
      {"inclusive_scan, gpuprim::plus, allocating form (the streaming scan)", true, false, true},
      {"exclusive_scan, user functor add_u32, init 7, allocating form (the tile-per-block scan)", false, true, true},
      {"inclusive_scan, user functor add_u32, workspace form (the tile-per-block scan)", true, true, false}};
  for (const variant& v : variants) {
    INFO(v.name << ", n = " << n << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
    out.poison(0xA5);
    if (v.user_functor) {
      run_u32_scan(first, out.data(), n, v.inclusive, v.allocating, init, add_u32{});
    } else {
      run_u32_scan(first, out.data(), n, v.inclusive, v.allocating, init, gpuprim::plus{});
    }
    require_sync();
    const bool inclusive = v.inclusive;
    const large_test::mismatches m =
        large_test::check_chunks(out.data(), n, [&](std::size_t i, const std::uint32_t* o) {
          if (inclusive) return *o != (i == 0 ? random_u32(seed, 0) : std::uint32_t(o[-1] + random_u32(seed, i)));
          return *o != (i == 0 ? init : std::uint32_t(o[-1] + random_u32(seed, i - 1)));
        });
    INFO(m.count << " items differ from the scan of the items before them; the first is item " << m.first);
    CHECK(m.checked == n);
    CHECK(m.count == 0);
    CHECK(large_test::touched_bytes(out.data() + n, guard * sizeof(std::uint32_t), 0xA5) == 0);
  }
  // The input is unchanged.
  const large_test::mismatches m = large_test::check_chunks(
      first, n, [&](std::size_t i, const std::uint32_t* x) { return *x != random_u32(seed, i); });
  INFO(m.count << " input items changed; the first is item " << m.first);
  CHECK(m.count == 0);
}
