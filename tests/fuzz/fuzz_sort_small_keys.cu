// Fuzz family: gpuprim::radix_sort_keys[_descending] and radix_sort_pairs[_descending] (uint32
// index payloads) of int8, uint16 and __nv_bfloat16 keys against cub::DeviceRadixSort (see
// fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_keys_small(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::i8: return sort_order<std::int8_t, no_value>(ctx, r, descending);
    case key_type::u16: return sort_order<std::uint16_t, no_value>(ctx, r, descending);
    default: return sort_order<__nv_bfloat16, no_value>(ctx, r, descending);
  }
}

result run_sort_pairs_small(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::i8: return sort_order<std::int8_t, std::uint32_t>(ctx, r, descending);
    case key_type::u16: return sort_order<std::uint16_t, std::uint32_t>(ctx, r, descending);
    default: return sort_order<__nv_bfloat16, std::uint32_t>(ctx, r, descending);
  }
}

}  // namespace fuzz
