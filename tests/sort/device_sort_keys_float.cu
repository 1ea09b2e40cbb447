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
