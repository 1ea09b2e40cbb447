// Tests gpuprim::block_scan with blocks of 32 and 96 threads (see block_scan_common.cuh).
#include "scan/block_scan_common.cuh"

TEST_CASE("block_scan: 32 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<32>(); }
TEST_CASE("block_scan: 96 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<96>(); }
