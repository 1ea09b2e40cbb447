// Tests the device scans at 10^7 + 19 items and above 2^31 items (int8 in, int64 out, checked on
// the device against a closed form). Both are skipped in small mode (GPUPRIM_TEST_SMALL=1).
#include <gpuprim/scan.cuh>

#include <cstdint>
#include <vector>

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
    WARN("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::int8_t> in;
  device_vector<std::int64_t> out;
  if (!in.allocate(n) || !out.allocate(n)) {
    WARN("skipped: allocation failed");
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
