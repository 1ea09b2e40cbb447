// Both onesweep pass shapes, forced in turn, for 1- and 2-byte keys (see onesweep_shapes.cuh).
#include "sort/onesweep_shapes.cuh"

TEMPLATE_TEST_CASE("device radix sort, onesweep shapes: 1- and 2-byte keys", "[sort][device]",
                   std::uint8_t, std::uint16_t, __half) {
  sort_test::check_both_onesweep_shapes<TestType>();
}
