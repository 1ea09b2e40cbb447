// Fuzz family: gpuprim::radix_sort_pairs[_descending] with uint64 payloads (index and random high
// bits) for int16, uint32, float, uint64 and double keys against cub::DeviceRadixSort (see
// fuzz_sort.cuh).
#include "fuzz/fuzz_sort.cuh"

namespace fuzz {

result run_sort_pairs_u64(context& ctx, rng& r, key_type k, bool descending) {
  switch (k) {
    case key_type::i16: return sort_order<std::int16_t, std::uint64_t>(ctx, r, descending);
    case key_type::u32: return sort_order<std::uint32_t, std::uint64_t>(ctx, r, descending);
    case key_type::f32: return sort_order<float, std::uint64_t>(ctx, r, descending);
    case key_type::u64: return sort_order<std::uint64_t, std::uint64_t>(ctx, r, descending);
    default: return sort_order<double, std::uint64_t>(ctx, r, descending);
  }
}

}  // namespace fuzz
