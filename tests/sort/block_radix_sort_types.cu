// Tests gpuprim::block_radix_sort with int32 and float keys at several shapes, keys only and with
// index values (special floats, +-0 included, in every window).
#include "sort/block_radix_sort_common.cuh"

using block_sort_test::run_keys_and_pairs;
using block_sort_test::run_shape;

TEST_CASE("block_radix_sort: int32, 96 threads x 3", "[sort][block]") { run_keys_and_pairs<std::int32_t, 96, 3>(); }
TEST_CASE("block_radix_sort: int32, 256 threads x 4, keys", "[sort][block]") {
  run_shape<std::int32_t, void, 256, 4>();
}
TEST_CASE("block_radix_sort: float, 64 threads x 4", "[sort][block]") { run_keys_and_pairs<float, 64, 4>(); }
TEST_CASE("block_radix_sort: float, 224 threads x 5, keys", "[sort][block]") { run_shape<float, void, 224, 5>(); }
TEST_CASE("block_radix_sort: float, 1024 threads x 2, pairs", "[sort][block]") {
  run_shape<float, std::uint32_t, 1024, 2>();
}
