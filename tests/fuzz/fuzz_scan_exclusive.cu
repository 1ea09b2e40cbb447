// Fuzz family: gpuprim::exclusive_scan (plus, minimum, maximum, composition of affine maps) and
// gpuprim::exclusive_sum against cub::DeviceScan::ExclusiveScan / ExclusiveSum, bitwise (see fuzz_scan.cuh).
#include "fuzz/fuzz_scan.cuh"

namespace fuzz {

result run_exclusive_scan(context& ctx, rng& r, algorithm a) {
  if (a == algorithm::exclusive_sum) return scan_random_type<algorithm::exclusive_sum, op_kind::plus>(ctx, r);
  return scan_operator<algorithm::exclusive_scan>(ctx, r);
}

}  // namespace fuzz
