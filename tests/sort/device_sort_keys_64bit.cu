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
