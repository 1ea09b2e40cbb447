// Tests gpuprim::block_radix_sort with uint32 keys, keys only and with index values, at small
// shapes: 32 x 1, 64 x 4, 96 x 3, 128 x 7 (threads x items per thread).
#include "sort/block_radix_sort_common.cuh"

using block_sort_test::run_keys_and_pairs;

TEST_CASE("block_radix_sort: uint32, 32 threads x 1", "[sort][block]") { run_keys_and_pairs<std::uint32_t, 32, 1>(); }
TEST_CASE("block_radix_sort: uint32, 64 threads x 4", "[sort][block]") { run_keys_and_pairs<std::uint32_t, 64, 4>(); }
TEST_CASE("block_radix_sort: uint32, 96 threads x 3", "[sort][block]") { run_keys_and_pairs<std::uint32_t, 96, 3>(); }
TEST_CASE("block_radix_sort: uint32, 128 threads x 7", "[sort][block]") { run_keys_and_pairs<std::uint32_t, 128, 7>(); }
