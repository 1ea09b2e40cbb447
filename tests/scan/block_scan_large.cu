// Tests gpuprim::block_scan with blocks of 224, 512, 640 and 1024 threads (see
// block_scan_common.cuh); from 16 warps on the warp totals are combined by a shuffle scan.
#include "scan/block_scan_common.cuh"

TEST_CASE("block_scan: 224 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<224>(); }
TEST_CASE("block_scan: 512 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<512>(); }
TEST_CASE("block_scan: 640 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<640>(); }
TEST_CASE("block_scan: 1024 threads", "[block][block_scan][scan]") { block_scan_test::run_all_cases<1024>(); }
