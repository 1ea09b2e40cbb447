// Tests gpuprim's device radix sorts of __half and __nv_bfloat16 keys against cub::DeviceRadixSort: every
// size, then every distribution x bit window (see device_sort_common.cuh).
#include "sort/device_sort_common.cuh"

TEMPLATE_TEST_CASE("device radix sort, __half and bf16 keys: every size, whole key", "[sort][device]",
                   __half, __nv_bfloat16) {
  sort_test::sweep_sizes<TestType>();
}

TEMPLATE_TEST_CASE("device radix sort, __half and bf16 keys: distributions x bit windows", "[sort][device]",
                   __half, __nv_bfloat16) {
  sort_test::sweep_distributions_and_windows<TestType>();
}
