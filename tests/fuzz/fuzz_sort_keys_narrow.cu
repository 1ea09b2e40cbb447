// Fuzz family: gpuprim::radix_sort_keys[_descending] of 1-, 2- and 4-byte integer keys and __half
// against cub::DeviceRadixSort::SortKeys[Descending] (see fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_keys_narrow(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::u8: return sort_order<std::uint8_t, no_value>(ctx, r, descending);
    case key_type::i16: return sort_order<std::int16_t, no_value>(ctx, r, descending);
    case key_type::f16: return sort_order<__half, no_value>(ctx, r, descending);
    case key_type::u32: return sort_order<std::uint32_t, no_value>(ctx, r, descending);
    default: return sort_order<std::int32_t, no_value>(ctx, r, descending);
  }
}

}  // namespace fuzz
