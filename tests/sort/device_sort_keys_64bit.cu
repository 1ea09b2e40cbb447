// Tests gpuprim's device radix sorts of int64 and uint64 keys against cub::DeviceRadixSort: every
// size, then every distribution x bit window (see device_sort_common.cuh).
#include "sort/device_sort_common.cuh"

TEMPLATE_TEST_CASE("device radix sort, 64-bit integer keys: every size, whole key", "[sort][device]",
                   std::int64_t, std::uint64_t) {
  sort_test::sweep_sizes<TestType>();
}

TEMPLATE_TEST_CASE("device radix sort, 64-bit integer keys: distributions x bit windows", "[sort][device]",
                   std::int64_t, std::uint64_t) {
  sort_test::sweep_distributions_and_windows<TestType>();
}

// 8-byte keys without values store each key at its rank as the ranking finds it (the onesweep
// pass's early scatter, onesweep_shape::early_scatter); these sizes take that pass, and this case
// also runs under the sanitizers (SANITIZE_ARGS in CMakeLists.txt), where the sweep above does not.
TEMPLATE_TEST_CASE("device radix sort, 64-bit integer keys: onesweep keys only", "[sort][device]", std::int64_t,
                   std::uint64_t) {
  using namespace sort_test;
  for (std::size_t n : {std::size_t(131073), std::size_t(300007)}) {
    std::mt19937_64 rng = case_rng(name_hash(key_traits<TestType>::name()), n, 7);
    for (distribution d : {distribution::uniform, distribution::few_distinct}) {
      const std::vector<TestType> keys = make_keys<TestType>(n, d, rng);
      for (int window : {0, 1}) {
        sort_call c;
        c.begin_bit = window == 0 ? 0 : 13;
        c.end_bit = window == 0 ? -1 : 61;
        for (bool descending : {false, true}) {
          c.descending = descending;
          check_sort<TestType>(keys, {}, c);
        }
      }
    }
  }
}
