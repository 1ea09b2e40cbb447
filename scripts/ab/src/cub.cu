// The CUB sort TU: cub::DeviceRadixSort from the toolkit (CCCL), with an int and a std::size_t count.
#include <climits>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include "iface.h"

namespace {
template <class Key, bool Pairs, class Count>
cudaError_t run(void* t, std::size_t& b, const void* ki, void* ko, const unsigned* vi, unsigned* vo, Count n,
                cudaStream_t s) {
  constexpr int end_bit = int(8 * sizeof(Key));
  if constexpr (Pairs)
    return cub::DeviceRadixSort::SortPairs(t, b, static_cast<const Key*>(ki), static_cast<Key*>(ko), vi, vo, n, 0,
                                           end_bit, s);
  else
    return cub::DeviceRadixSort::SortKeys(t, b, static_cast<const Key*>(ki), static_cast<Key*>(ko), n, 0, end_bit, s);
}
template <class Count>
cudaError_t dispatch(AB_SORT_ARGS) {
  const Count c = static_cast<Count>(n);
  switch (kind) {
    case K_U32: return run<std::uint32_t, false>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, c, stream);
    case K_F32: return run<float, false>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, c, stream);
    case K_U64: return run<std::uint64_t, false>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, c, stream);
    case P_U32_U32:
      return run<std::uint32_t, true>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, c, stream);
    case P_U64_U32:
      return run<std::uint64_t, true>(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, c, stream);
  }
  return cudaErrorInvalidValue;
}
}  // namespace

cudaError_t ab_cub_sort(bool wide, AB_SORT_ARGS) {
  if (wide) return dispatch<std::size_t>(kind, d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
  if (n > std::size_t(INT_MAX)) return cudaErrorInvalidValue;
  return dispatch<int>(kind, d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, stream);
}
