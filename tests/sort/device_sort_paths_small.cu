// Every path of the sort, forced in turn, for 1- and 2-byte keys (see sort_paths.cuh).
#include "sort/sort_paths.cuh"

TEMPLATE_TEST_CASE("device radix sort, every path: 1- and 2-byte keys", "[sort][device]",
                   std::uint8_t, std::uint16_t, __half) {
  sort_test::check_every_path<TestType>();
}
