// Both onesweep pass shapes, forced in turn, for 4-byte keys (see onesweep_shapes.cuh).
#include "sort/onesweep_shapes.cuh"

TEMPLATE_TEST_CASE("device radix sort, onesweep shapes: 4-byte keys", "[sort][device]",
                   std::uint32_t, std::int32_t, float) {
  sort_test::check_both_onesweep_shapes<TestType>();
}
