// Tests gpuprim's device radix sorts of int32 and uint32 keys against cub::DeviceRadixSort: every
// size, then every distribution x bit window (see device_sort_common.cuh).
#include "sort/device_sort_common.cuh"

TEMPLATE_TEST_CASE("device radix sort, 32-bit integer keys: every size, whole key", "[sort][device]",
                   std::int32_t, std::uint32_t) {
  sort_test::sweep_sizes<TestType>();
}

TEMPLATE_TEST_CASE("device radix sort, 32-bit integer keys: distributions x bit windows", "[sort][device]",
                   std::int32_t, std::uint32_t) {
  sort_test::sweep_distributions_and_windows<TestType>();
}
