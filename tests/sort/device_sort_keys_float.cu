// Tests gpuprim's device radix sorts of float and double keys against cub::DeviceRadixSort: every
// size, then every distribution x bit window (see device_sort_common.cuh).
#include "sort/device_sort_common.cuh"

TEMPLATE_TEST_CASE("device radix sort, float and double keys: every size, whole key", "[sort][device]",
                   float, double) {
  sort_test::sweep_sizes<TestType>();
}

TEMPLATE_TEST_CASE("device radix sort, float and double keys: distributions x bit windows", "[sort][device]",
                   float, double) {
  sort_test::sweep_distributions_and_windows<TestType>();
}

// A sort of the whole key whose zeros all have one sign takes the keys' own digits (radix_plan):
// -0.0 keys ascending, +0.0 keys descending, are those the -0.0 fix-up would change. Sizes past
// the fused single-launch sort (one-wave passes) and, outside small mode, early-scatter passes;
// windows short of the whole key fix up as before. Keys and pairs (index payloads: the zeros keep
// their input order), bitwise against CUB.
TEMPLATE_TEST_CASE("device radix sort, float and double keys: zeros of one sign", "[sort][device]", float,
                   double) {
  using namespace sort_test;
  std::vector<std::size_t> sizes = {140001};
  if (!gpuprim_test::small_mode()) sizes.push_back(3000017);
  for_each_window_case<TestType>(
      sizes, {distribution::float_negative_zeros, distribution::float_positive_zeros}, 12,
      [](const std::vector<TestType>& keys, const std::vector<std::uint32_t>& values, sort_call c, int, distribution) {
        check_sort<TestType>(keys, {}, c);
        check_sort<TestType, std::uint32_t>(keys, values, c);
      });
}
