// Fuzz family: gpuprim::radix_sort_keys[_descending] of float and 8-byte keys against
// cub::DeviceRadixSort::SortKeys[Descending] (see fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_keys_wide(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::f32: return sort_order<float, no_value>(ctx, r, descending);
    case key_type::u64: return sort_order<std::uint64_t, no_value>(ctx, r, descending);
    case key_type::i64: return sort_order<std::int64_t, no_value>(ctx, r, descending);
    default: return sort_order<double, no_value>(ctx, r, descending);
  }
}

}  // namespace fuzz
