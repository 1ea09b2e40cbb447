// Every path of the sort, forced in turn, for 8-byte keys (see sort_paths.cuh).
#include "sort/sort_paths.cuh"

TEMPLATE_TEST_CASE("device radix sort, every path: 8-byte keys", "[sort][device]",
                   std::uint64_t, std::int64_t, double) {
  sort_test::check_every_path<TestType>();
}
