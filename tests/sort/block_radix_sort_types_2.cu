// Tests gpuprim::block_radix_sort with uint64, uint8 and __half keys at several shapes, keys only
// and with index values.
#include "sort/block_radix_sort_common.cuh"

using block_sort_test::run_keys_and_pairs;
using block_sort_test::run_shape;

TEST_CASE("block_radix_sort: uint64, 128 threads x 7", "[sort][block]") { run_keys_and_pairs<std::uint64_t, 128, 7>(); }
TEST_CASE("block_radix_sort: uint64, 32 threads x 1, keys", "[sort][block]") {
  run_shape<std::uint64_t, void, 32, 1>();
}
TEST_CASE("block_radix_sort: uint64, 1024 threads x 2, pairs", "[sort][block]") {
  run_shape<std::uint64_t, std::uint32_t, 1024, 2>();
}
TEST_CASE("block_radix_sort: uint8, 64 threads x 4", "[sort][block]") { run_keys_and_pairs<std::uint8_t, 64, 4>(); }
TEST_CASE("block_radix_sort: uint8, 256 threads x 4, pairs", "[sort][block]") {
  run_shape<std::uint8_t, std::uint32_t, 256, 4>();
}
TEST_CASE("block_radix_sort: __half, 128 threads x 7", "[sort][block]") { run_keys_and_pairs<__half, 128, 7>(); }
TEST_CASE("block_radix_sort: __half, 224 threads x 5, keys", "[sort][block]") { run_shape<__half, void, 224, 5>(); }
