// Fuzz family: gpuprim::radix_sort_pairs[_descending] with 12-byte struct values (index and random
// bytes) for uint8, uint16, int32, float and double keys against cub::DeviceRadixSort (see
// fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_pairs_struct(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::u8: return sort_order<std::uint8_t, value12>(ctx, r, descending);
    case key_type::u16: return sort_order<std::uint16_t, value12>(ctx, r, descending);
    case key_type::i32: return sort_order<std::int32_t, value12>(ctx, r, descending);
    case key_type::f32: return sort_order<float, value12>(ctx, r, descending);
    default: return sort_order<double, value12>(ctx, r, descending);
  }
}

}  // namespace fuzz
