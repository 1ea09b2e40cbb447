// Fuzz family: gpuprim::inclusive_scan (plus, maximum) and gpuprim::inclusive_sum against
// cub::DeviceScan::InclusiveScan / InclusiveSum, bitwise (see fuzz_scan.cuh).
#include "fuzz/fuzz_scan.cuh"

namespace fuzz {

result run_inclusive_scan(context& ctx, rng& r, algorithm a) {
  if (a == algorithm::inclusive_sum) return scan_random_type<algorithm::inclusive_sum, op_kind::plus>(ctx, r);
  return r.chance(0.5) ? scan_random_type<algorithm::inclusive_scan, op_kind::plus>(ctx, r)
                       : scan_random_type<algorithm::inclusive_scan, op_kind::maximum>(ctx, r);
}

}  // namespace fuzz
