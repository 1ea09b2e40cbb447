// Fuzz family: gpuprim::inclusive_scan (plus, minimum, maximum, composition of affine maps) and
// gpuprim::inclusive_sum against cub::DeviceScan::InclusiveScan / InclusiveSum, bitwise (see fuzz_scan.cuh).
#include "fuzz/fuzz_scan.cuh"

namespace fuzz {

result run_inclusive_scan(context& ctx, rng& r, algorithm a) {
  if (a == algorithm::inclusive_sum) return scan_random_type<algorithm::inclusive_sum, op_kind::plus>(ctx, r);
  return scan_operator<algorithm::inclusive_scan>(ctx, r);
}

}  // namespace fuzz
