// Block-wide LSD radix sort of keys or key-value pairs held in registers (blocked arrangement in
// and out), one digit of up to RadixBits bits per pass: rank (block_radix_rank), then move keys
// and values to their ranks through a padded shared-memory exchange.
#pragma once

#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/radix_traits.cuh"
#include "../detail/uninitialized.cuh"
#include "block_radix_rank.cuh"

GPUPRIM_NAMESPACE_BEGIN

namespace detail {

/// Shared-memory exchange of one tile of T by position, padded with one slot every 32 so that
/// blocked (stride ItemsPerThread) accesses spread over the banks.
template <class T, int TileItems>
struct padded_exchange {
  static constexpr int slots = TileItems + TileItems / 32;
  uninitialized_array<T, slots> items;

  static GPUPRIM_DEVICE int slot(int position) { return position + position / 32; }
  GPUPRIM_DEVICE void put(int position, const T& x) { items[slot(position)] = x; }
  GPUPRIM_DEVICE T get(int position) const { return items[slot(position)]; }
};

/// Tile position of item i of this thread in the warp-striped arrangement.
template <int ItemsPerThread>
GPUPRIM_DEVICE int warp_striped_position(int i) {
  return static_cast<int>(threadIdx.x / 32) * 32 * ItemsPerThread + i * 32 + static_cast<int>(threadIdx.x % 32);
}

}  // namespace detail

/// Sorts the `BlockThreads * ItemsPerThread` keys (and values) of a 1D block of `BlockThreads`
/// threads (a multiple of 32 up to 1024); blocked arrangement in and out (thread t, item i is the
/// tile's item t * ItemsPerThread + i). Stable. Keys: 8/16/32/64-bit integers, float, double,
/// __half, __nv_bfloat16, ordered by their bit-ordered form as CUB orders them (-0.0 and +0.0
/// equal; NaNs by their bits). Only bits [begin_bit, end_bit) take part; an empty range leaves
/// the tile as it is. Both zeros read as +0.0 ascending and as -0.0 descending (CUB's Onesweep
/// convention; cub::BlockRadixSort reads them as +0.0 in both, which differs only for descending
/// sorts whose window holds the sign bit but not the whole key). Every thread calls each member
/// together; place `temp_storage` in `__shared__` memory and `__syncthreads()` before reusing it.
template <class Key, int BlockThreads, int ItemsPerThread, class Value = void, int RadixBits = 8>
class block_radix_sort {
  using key_traits = detail::radix_key<Key>;
  using bits_t = typename key_traits::bits_t;
  static constexpr bool has_values = !std::is_void_v<Value>;
  using value_t = std::conditional_t<has_values, Value, bits_t>;
  using rank_t = block_radix_rank<BlockThreads, ItemsPerThread, RadixBits>;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static_assert(!has_values || std::is_trivially_copyable_v<value_t>, "values must be trivially copyable");

 public:
  static constexpr int block_threads = BlockThreads;       ///< Threads per block.
  static constexpr int items_per_thread = ItemsPerThread;  ///< Keys per thread.
  static constexpr int radix_bits = RadixBits;             ///< Digit bits per pass.

  /// Shared memory: the ranking's counters or one tile of keys or of values (about
  /// `max(sizeof(Key), sizeof(Value)) * tile * 33 / 32` bytes). Place it in `__shared__` memory.
  union temp_storage {
    typename rank_t::temp_storage rank;                   ///< Ranking a pass's digits.
    detail::padded_exchange<bits_t, tile_items> keys;     ///< Moving keys to their ranks.
    detail::padded_exchange<value_t, tile_items> values;  ///< Moving values to their ranks.
  };

  /// Binds the shared storage that the members use.
  GPUPRIM_DEVICE explicit block_radix_sort(temp_storage& storage) : storage_(storage) {}

  /// Ascending sort of keys in place.
  GPUPRIM_DEVICE void sort(Key (&keys)[ItemsPerThread], int begin_bit = 0, int end_bit = key_traits::bits) {
    run<false>(keys, static_cast<value_t*>(nullptr), begin_bit, end_bit);
  }
  /// Ascending sort of keys and their values in place.
  template <class V = Value, class = std::enable_if_t<!std::is_void_v<V>>>
  GPUPRIM_DEVICE void sort(Key (&keys)[ItemsPerThread], V (&values)[ItemsPerThread], int begin_bit = 0,
                           int end_bit = key_traits::bits) {
    run<false>(keys, values, begin_bit, end_bit);
  }
  /// Descending sort of keys in place (equal keys keep their order).
  GPUPRIM_DEVICE void sort_descending(Key (&keys)[ItemsPerThread], int begin_bit = 0,
                                      int end_bit = key_traits::bits) {
    run<true>(keys, static_cast<value_t*>(nullptr), begin_bit, end_bit);
  }
  /// Descending sort of keys and their values in place.
  template <class V = Value, class = std::enable_if_t<!std::is_void_v<V>>>
  GPUPRIM_DEVICE void sort_descending(Key (&keys)[ItemsPerThread], V (&values)[ItemsPerThread], int begin_bit = 0,
                                      int end_bit = key_traits::bits) {
    run<true>(keys, values, begin_bit, end_bit);
  }

 private:
  /// The passes on bit-ordered keys (key_traits::order) in WARP-STRIPED arrangement (see
  /// block_radix_rank); the last pass leaves them in blocked arrangement.
  GPUPRIM_DEVICE void sort_ordered_warp_striped(bits_t (&ordered)[ItemsPerThread], value_t* values, int begin_bit,
                                                int end_bit) {
    for (int shift = begin_bit; shift < end_bit; shift += RadixBits) {
      const int num_bits = end_bit - shift < RadixBits ? end_bit - shift : RadixBits;
      const bool last = shift + RadixBits >= end_bit;
      unsigned ranks[ItemsPerThread];
      rank_t(storage_.rank).rank([&](int i) { return key_traits::digit(ordered[i], shift, num_bits); }, ranks);
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i) storage_.keys.put(static_cast<int>(ranks[i]), ordered[i]);
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ItemsPerThread; ++i) ordered[i] = storage_.keys.get(target(i, last));
      if constexpr (has_values) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ItemsPerThread; ++i) storage_.values.put(static_cast<int>(ranks[i]), values[i]);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ItemsPerThread; ++i) values[i] = storage_.values.get(target(i, last));
      }
      __syncthreads();
    }
  }

  static GPUPRIM_DEVICE int target(int i, bool blocked) {
    return blocked ? static_cast<int>(threadIdx.x) * ItemsPerThread + i
                   : detail::warp_striped_position<ItemsPerThread>(i);
  }

  template <class T, class Exchange>
  GPUPRIM_DEVICE void blocked_to_warp_striped(T (&items)[ItemsPerThread], Exchange& exchange) {
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) exchange.put(static_cast<int>(threadIdx.x) * ItemsPerThread + i, items[i]);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) items[i] = exchange.get(detail::warp_striped_position<ItemsPerThread>(i));
    __syncthreads();
  }

  template <bool Descending, class V>
  GPUPRIM_DEVICE void run(Key (&keys)[ItemsPerThread], V* values, int begin_bit, int end_bit) {
    if (begin_bit >= end_bit) return;
    bits_t ordered[ItemsPerThread];
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) ordered[i] = key_traits::order(key_traits::to_bits(keys[i]), Descending);
    blocked_to_warp_striped(ordered, storage_.keys);
    if constexpr (has_values) {
      blocked_to_warp_striped(*reinterpret_cast<value_t(*)[ItemsPerThread]>(values), storage_.values);
    }
    sort_ordered_warp_striped(ordered, values, begin_bit, end_bit);
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) {
      keys[i] = key_traits::from_bits(key_traits::unorder(ordered[i], Descending));
    }
  }

  temp_storage& storage_;
};

GPUPRIM_NAMESPACE_END
