// The sort TU body shared by old.cu and new.cu, included after they define AB_LIB (the renamed
// namespace) and AB_FN (the exported function).
#include <cstdint>
#include "iface.h"

namespace {
template <class Key, bool Pairs>
cudaError_t run(void* t, std::size_t& b, const void* ki, void* ko, const unsigned* vi, unsigned* vo, std::size_t n,
                cudaStream_t s) {
  constexpr int end_bit = int(8 * sizeof(Key));
  if constexpr (Pairs)
    return AB_LIB::radix_sort_pairs(t, b, static_cast<const Key*>(ki), static_cast<Key*>(ko), vi, vo, n, 0, end_bit,
                                    s);
  else
    return AB_LIB::radix_sort_keys(t, b, static_cast<const Key*>(ki), static_cast<Key*>(ko), n, 0, end_bit, s);
}
}  // namespace

cudaError_t AB_FN(AB_SORT_ARGS) {
  switch (kind) {
    case K_U32: return run<std::uint32_t, false>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
    case K_F32: return run<float, false>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
    case K_U64: return run<std::uint64_t, false>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
    case P_U32_U32:
      return run<std::uint32_t, true>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
    case P_U64_U32:
      return run<std::uint64_t, true>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
  }
  return cudaErrorInvalidValue;
}
