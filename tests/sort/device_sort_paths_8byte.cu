// Both onesweep pass shapes, forced in turn, for 8-byte keys (see onesweep_shapes.cuh).
#include "sort/onesweep_shapes.cuh"

TEMPLATE_TEST_CASE("device radix sort, onesweep shapes: 8-byte keys", "[sort][device]",
                   std::uint64_t, std::int64_t, double) {
  sort_test::check_both_onesweep_shapes<TestType>();
}
