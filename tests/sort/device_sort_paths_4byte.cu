// Every path of the sort, forced in turn, for 4-byte keys (see sort_paths.cuh).
#include "sort/sort_paths.cuh"

TEMPLATE_TEST_CASE("device radix sort, every path: 4-byte keys", "[sort][device]",
                   std::uint32_t, std::int32_t, float) {
  sort_test::check_every_path<TestType>();
}
