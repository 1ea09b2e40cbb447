// The segment sort (detail/radix_segment_sort.cuh): a large sort of pairs of 32-bit integer keys
// and 4-byte values whose top two digit positions have flat counts ends with two onesweep passes
// (the top 16 bits) and a sort of each run of equal top 16 bits in shared memory, in place; runs
// over the blocks' capacity go to a fix-up. Bitwise against CUB, both orders, index values (the
// stable order) and float values:
// - forced through the test hook detail::radix_segment_override at 6000011 pairs (the smallest
//   ladder step, the largest, one between): uniform keys (the segment sort), few distinct keys
//   (the plan keeps four passes), keys whose position 3 equals position 2 (flat counts, but their
//   top 16 bits take 256 values: with the one-counter histogram every run goes to the fix-up; with
//   the lane-column histogram, forced too, its spread check keeps four passes), and outputs one
//   item off 8-byte alignment (the wide pair tiles instead of the packed passes);
// - by size at 60000011 pairs, where a device with the H200's bandwidth per SM offers it (other
//   devices sort the same inputs with four passes). Skipped in small mode (the sanitizer runs),
//   which forces one uniform sort, the fix-up, and the lane-column histogram's spread check.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "sort/device_sort_common.cuh"

namespace {

using namespace sort_test;

/// Uniform keys whose bits [24, 32) repeat bits [16, 24).
template <class Key>
std::vector<Key> correlated_keys(std::size_t n, std::mt19937_64& rng) {
  std::vector<Key> keys = make_keys<Key>(n, distribution::uniform, rng);
  for (Key& k : keys) {
    std::uint32_t bits;
    std::memcpy(&bits, &k, sizeof(bits));
    bits = (bits & 0x00FFFFFFu) | ((bits << 8) & 0xFF000000u);
    std::memcpy(&k, &bits, sizeof(bits));
  }
  return keys;
}

std::vector<std::uint32_t> index_values(std::size_t n) {
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  return values;
}

enum class kind { uniform, few_distinct, correlated };

template <class Key>
void check_segments(std::size_t n, kind k, bool descending, std::size_t offset, bool float_values) {
  std::mt19937_64 rng(gpuprim_test::test_seed() + n + static_cast<unsigned>(k) * 7 + (descending ? 3 : 0));
  const std::vector<Key> keys = k == kind::correlated   ? correlated_keys<Key>(n, rng)
                                : k == kind::few_distinct ? make_keys<Key>(n, distribution::few_distinct, rng)
                                                          : make_keys<Key>(n, distribution::uniform, rng);
  INFO("keys: " << (k == kind::uniform ? "uniform" : k == kind::few_distinct ? "few distinct" : "position 3 = position 2"));
  sort_call c;
  c.descending = descending;
  c.offset = offset;
  if (float_values) {
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i);  // exact below 2^24
    check_sort<Key, float>(keys, values, c);
  } else {
    check_sort<Key, std::uint32_t>(keys, index_values(n), c);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("device radix sort, segment sort: forced", "[sort][device]", std::uint32_t, std::int32_t) {
  namespace gd = gpuprim::detail;
  const bool small = gpuprim_test::small_mode();
  const std::size_t n = 6000011;
  // Ladder steps (hook value = step + 1): the smallest, one of 384 threads, the largest.
  const int steps[] = {1, 12, gd::radix_segment_steps};
  for (int step : steps) {
    if (small && step != 12) continue;
    INFO("segment sort forced, ladder step " << step - 1);
    const scoped_hook forced(gd::radix_segment_override, step);
    check_segments<TestType>(n, kind::uniform, false, 0, false);
    if (small) continue;
    check_segments<TestType>(n, kind::uniform, true, 0, true);
    check_segments<TestType>(n, kind::few_distinct, false, 0, false);
    check_segments<TestType>(n, kind::correlated, true, 0, false);  // the fix-up
    check_segments<TestType>(n, kind::uniform, false, 1, false);    // wide tiles, not packed
  }
  if (!small) {
    // The lane-column histogram's spread check turns the correlated keys away (four passes).
    const scoped_hook forced(gd::radix_segment_override, 12);
    const scoped_hook column(gd::radix_histogram_override, 1);
    INFO("segment sort forced, lane-column histogram");
    check_segments<TestType>(n, kind::correlated, false, 0, false);
    check_segments<TestType>(n, kind::uniform, true, 0, false);
  } else {
    // Small mode: the fix-up once, then the lane-column histogram's spread check once (it keeps
    // four passes), so that the sanitizers see both.
    const scoped_hook forced(gd::radix_segment_override, 12);
    check_segments<TestType>(n, kind::correlated, false, 0, false);
    const scoped_hook column(gd::radix_histogram_override, 1);
    INFO("segment sort forced, lane-column histogram");
    check_segments<TestType>(n, kind::correlated, false, 0, false);
  }
}

TEMPLATE_TEST_CASE("device radix sort, segment sort: by size", "[sort][device]", std::uint32_t, std::int32_t) {
  if (gpuprim_test::small_mode()) {
    WARN("skipped in small mode");
    return;
  }
  const std::size_t n = 60000011;
  check_segments<TestType>(n, kind::uniform, false, 0, false);
  check_segments<TestType>(n, kind::uniform, true, 0, true);
  check_segments<TestType>(n, kind::correlated, false, 0, false);
}
