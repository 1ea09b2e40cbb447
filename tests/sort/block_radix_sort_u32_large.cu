// Tests gpuprim::block_radix_sort with uint32 keys at larger shapes: 224 x 5, 256 x 4, 1024 x 2
// (keys only and with index values), 96 x 3 with 12-byte struct values, and 128 x 4 with 5-bit
// digits (passes that do not divide the key).
#include "sort/block_radix_sort_common.cuh"

using block_sort_test::run_keys_and_pairs;
using block_sort_test::run_shape;

TEST_CASE("block_radix_sort: uint32, 224 threads x 5", "[sort][block]") { run_keys_and_pairs<std::uint32_t, 224, 5>(); }
TEST_CASE("block_radix_sort: uint32, 256 threads x 4", "[sort][block]") { run_keys_and_pairs<std::uint32_t, 256, 4>(); }
TEST_CASE("block_radix_sort: uint32, 1024 threads x 2", "[sort][block]") {
  run_keys_and_pairs<std::uint32_t, 1024, 2>();
}
TEST_CASE("block_radix_sort: uint32 keys, 12-byte struct values, 96 threads x 3", "[sort][block]") {
  run_shape<std::uint32_t, gpuprim_test::triple, 96, 3>();
}
TEST_CASE("block_radix_sort: uint32, 128 threads x 4, 5-bit digits", "[sort][block]") {
  run_shape<std::uint32_t, std::uint32_t, 128, 4, gpuprim::block_radix_sort<std::uint32_t, 128, 4, std::uint32_t, 5>>();
}
