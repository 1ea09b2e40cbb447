// Tests gpuprim's device radix sorts of int8 and uint8 keys against cub::DeviceRadixSort: every
// size, then every distribution x bit window (see device_sort_common.cuh).
#include "sort/device_sort_common.cuh"

TEMPLATE_TEST_CASE("device radix sort, 8-bit keys: every size, whole key", "[sort][device]",
                   std::int8_t, std::uint8_t) {
  sort_test::sweep_sizes<TestType>();
}

TEMPLATE_TEST_CASE("device radix sort, 8-bit keys: distributions x bit windows", "[sort][device]",
                   std::int8_t, std::uint8_t) {
  sort_test::sweep_distributions_and_windows<TestType>();
}
