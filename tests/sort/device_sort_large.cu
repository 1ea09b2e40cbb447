// Tests a device radix sort of more than 2^31 keys (uint8, keys only): the output must be sorted
// and hold the input's histogram (for uint8 keys that is the sorted sequence itself), the guard
// items past the end untouched and the input unchanged. Skipped in small mode
// (GPUPRIM_TEST_SMALL=1) and when the device lacks the memory.
#include <gpuprim/radix_sort.cuh>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

using gpuprim_test::device_vector;
using gpuprim_test::require_sync;

TEST_CASE("device radix sort: more than 2^31 uint8 keys", "[sort][device][large]") {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = (std::size_t(1) << 31) + 1237;
  constexpr std::size_t guard = 64;

  std::size_t bytes = 0;
  const std::uint8_t* null_in = nullptr;
  std::uint8_t* null_out = nullptr;
  REQUIRE_CUDA(gpuprim::radix_sort_keys(nullptr, bytes, null_in, null_out, n));
  const std::size_t needed = 2 * n + guard + bytes + (std::size_t(256) << 20);
  if (gpuprim_test::free_device_memory() < needed) {
    WARN("skipped: needs " << needed / double(1 << 30) << " GiB of free device memory");
    return;
  }
  device_vector<std::uint8_t> in, out;
  device_vector<unsigned char> temp;
  if (!in.allocate(n) || !out.allocate(n + guard) || !temp.allocate(bytes)) {
    WARN("skipped: allocation failed");
    return;
  }

  // Random bytes, skewed so that the histogram is uneven: byte = (a & b) ^ c of three random bytes
  // for half of the 8-byte words.
  std::vector<std::uint8_t> h(n);
  std::array<std::size_t, 256> histogram{};
  {
    std::mt19937_64 rng = sort_test::case_rng(31, n);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w = rng();
      if (w & 1) w &= rng();
      std::memcpy(&h[i], &w, 8);
    }
    for (; i < n; ++i) h[i] = static_cast<std::uint8_t>(rng());
    for (std::uint8_t k : h) ++histogram[k];
  }
  in.upload(h);
  out.poison(0xCD);

  INFO("n = " << n << " (GPUPRIM_TEST_SEED=" << gpuprim_test::test_seed() << ")");
  REQUIRE_CUDA(gpuprim::radix_sort_keys(temp.data(), bytes, in.data(), out.data(), n));
  require_sync();

  // The input is unchanged.
  {
    const std::vector<std::uint8_t> after = in.download();
    CHECK(std::memcmp(after.data(), h.data(), n) == 0);
  }
  // The output is the sorted input: histogram[k] copies of each k in order, then the guard.
  const std::vector<std::uint8_t> got = out.download();
  std::size_t mismatches = 0, first_mismatch = n;
  std::size_t pos = 0;
  for (int k = 0; k < 256; ++k) {
    for (std::size_t j = 0; j < histogram[k]; ++j, ++pos) {
      if (got[pos] != k) {
        if (mismatches++ == 0) first_mismatch = pos;
      }
    }
  }
  INFO("first mismatch at " << first_mismatch);
  CHECK(mismatches == 0);
  std::size_t touched = 0;
  for (std::size_t i = n; i < n + guard; ++i) touched += got[i] != 0xCD;
  CHECK(touched == 0);
}
