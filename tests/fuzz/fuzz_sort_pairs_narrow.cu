// Fuzz family: gpuprim::radix_sort_pairs[_descending] of 1-, 2- and 4-byte integer keys and __half
// with uint32 index payloads against cub::DeviceRadixSort::SortPairs[Descending] (see fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_pairs_narrow(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::u8: return sort_order<std::uint8_t, std::uint32_t>(ctx, r, descending);
    case key_type::i16: return sort_order<std::int16_t, std::uint32_t>(ctx, r, descending);
    case key_type::f16: return sort_order<__half, std::uint32_t>(ctx, r, descending);
    case key_type::u32: return sort_order<std::uint32_t, std::uint32_t>(ctx, r, descending);
    default: return sort_order<std::int32_t, std::uint32_t>(ctx, r, descending);
  }
}

}  // namespace fuzz
