// Tests gpuprim::block_scan with blocks of 224 and 1024 threads (see block_scan_common.cuh).
#include "scan/block_scan_common.cuh"

TEST_CASE("block_scan: 224 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<224>(); }
TEST_CASE("block_scan: 1024 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<1024>(); }
