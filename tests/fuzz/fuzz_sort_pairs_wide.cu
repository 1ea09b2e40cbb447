// Fuzz family: gpuprim::radix_sort_pairs[_descending] of float and 8-byte keys with uint32 index
// payloads against cub::DeviceRadixSort::SortPairs[Descending] (see fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_pairs_wide(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::f32: return sort_order<float, std::uint32_t>(ctx, r, descending);
    case key_type::u64: return sort_order<std::uint64_t, std::uint32_t>(ctx, r, descending);
    case key_type::i64: return sort_order<std::int64_t, std::uint32_t>(ctx, r, descending);
    default: return sort_order<double, std::uint32_t>(ctx, r, descending);
  }
}

}  // namespace fuzz
