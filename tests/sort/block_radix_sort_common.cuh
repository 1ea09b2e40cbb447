// The block_radix_sort test kernel and runner, shared by the TUs that split the shapes: each
// block sorts several tiles in a row through one temp_storage (blocked arrangement in and out),
// and every tile is compared bitwise with a stable sort on the host by the bit-ordered key
// restricted to the window (sort_test_util.cuh), index payloads proving stability.
#pragma once

#include <gpuprim/block/block_radix_sort.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "sort/sort_test_util.cuh"
#include "support/catch.hpp"
#include "support/test_util.cuh"

namespace block_sort_test {

using namespace sort_test;
using gpuprim_test::device_vector;

constexpr int grid_blocks = 3;
constexpr int reps = 2;  // tiles per block, sorted one after another through one temp_storage
constexpr int tiles = grid_blocks * reps;

/// The payload array type of a sort with Value (an unused int array for keys-only sorts).
template <class Value>
using payload_t = std::conditional_t<std::is_void_v<Value>, int, Value>;

/// Sorts tiles of keys (and values), tile t = blockIdx.x * reps + r, with Sort (a
/// gpuprim::block_radix_sort). `default_bits`: the call without bit arguments.
template <class Sort, class Key, class Value, int BlockThreads, int ItemsPerThread>
__global__ void __launch_bounds__(BlockThreads)
    block_sort_kernel(const Key* keys_in, Key* keys_out, const payload_t<Value>* values_in,
                      payload_t<Value>* values_out, int begin_bit, int end_bit, bool descending, bool default_bits) {
  __shared__ typename Sort::temp_storage storage;
  for (int r = 0; r < reps; ++r) {
    const std::size_t first =
        (std::size_t(blockIdx.x * reps + r) * BlockThreads + threadIdx.x) * std::size_t(ItemsPerThread);
    Key keys[ItemsPerThread];
    payload_t<Value> values[ItemsPerThread];
    for (int i = 0; i < ItemsPerThread; ++i) keys[i] = keys_in[first + i];
    if constexpr (!std::is_void_v<Value>) {
      for (int i = 0; i < ItemsPerThread; ++i) values[i] = values_in[first + i];
    }
    Sort sort(storage);
    if constexpr (std::is_void_v<Value>) {
      if (descending) {
        default_bits ? sort.sort_descending(keys) : sort.sort_descending(keys, begin_bit, end_bit);
      } else {
        default_bits ? sort.sort(keys) : sort.sort(keys, begin_bit, end_bit);
      }
    } else {
      if (descending) {
        default_bits ? sort.sort_descending(keys, values) : sort.sort_descending(keys, values, begin_bit, end_bit);
      } else {
        default_bits ? sort.sort(keys, values) : sort.sort(keys, values, begin_bit, end_bit);
      }
    }
    for (int i = 0; i < ItemsPerThread; ++i) keys_out[first + i] = keys[i];
    if constexpr (!std::is_void_v<Value>) {
      for (int i = 0; i < ItemsPerThread; ++i) values_out[first + i] = values[i];
    }
    __syncthreads();  // temp_storage is reused by the next tile
  }
}

/// Payload of item i: its index (uint32), or a 12-byte struct that carries it.
template <class Value>
Value payload(std::uint32_t i) {
  if constexpr (std::is_same_v<Value, gpuprim_test::triple>) {
    return {static_cast<int>(i), static_cast<int>(~i), static_cast<int>(i * 40503u)};
  } else {
    return static_cast<Value>(i);
  }
}

/// Every distribution x window x order for one shape; Value void: keys only.
template <class Key, class Value, int BlockThreads, int ItemsPerThread,
          class Sort = gpuprim::block_radix_sort<Key, BlockThreads, ItemsPerThread, Value>>
void run_shape() {
  static_assert(sizeof(typename Sort::temp_storage) <= 48 * 1024,
                "block_radix_sort::temp_storage of this shape exceeds 48 KB of static shared memory");
  constexpr bool pairs = !std::is_void_v<Value>;
  using P = payload_t<Value>;
  constexpr std::size_t tile_items = std::size_t(BlockThreads) * ItemsPerThread;
  constexpr std::size_t n = tile_items * tiles;
  INFO("block_radix_sort<" << key_traits<Key>::name() << ", " << BlockThreads << ", " << ItemsPerThread
                           << (pairs ? ", with values" : "") << ">, temp_storage "
                           << sizeof(typename Sort::temp_storage) << " bytes (GPUPRIM_TEST_SEED="
                           << gpuprim_test::test_seed() << ")");

  device_vector<Key> keys_in(n), keys_out(n);
  device_vector<P> values_in(pairs ? n : 0), values_out(pairs ? n : 0);
  std::vector<P> values(pairs ? n : 0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = payload<P>(static_cast<std::uint32_t>(i));
  values_in.upload(values);

  // Small mode (the sanitizer runs, where racecheck takes minutes per thousand launches): three
  // distributions (random, three values, all equal: the largest groups of equal digits) and the
  // whole, a partial, a one-bit and the empty window.
  const bool small = gpuprim_test::small_mode();
  const auto in_small_set = [](distribution d) {
    return d == distribution::uniform || d == distribution::few_distinct || d == distribution::all_equal;
  };
  int launch = 0;
  for (distribution d : distributions_for<Key>()) {
    if (small && !in_small_set(d)) continue;
    std::mt19937_64 rng = case_rng(name_hash(key_traits<Key>::name()), tile_items * 8 + pairs, static_cast<int>(d));
    const std::vector<Key> keys = make_keys<Key>(n, d, rng);
    keys_in.upload(keys);
    const std::vector<bit_window> windows = test_windows<Key>(rng);
    for (std::size_t wi = 0; wi < windows.size(); ++wi) {
      const bit_window& w = windows[wi];
      if (small && (wi == 3 || wi == 5)) continue;  // [B-1, B) and the random window
      for (bool descending : {false, true}) {
        const bool full = w.begin_bit == 0 && w.end_bit == key_bits<Key>;
        const bool default_bits = full && launch++ % 2 == 0;
        INFO("distribution " << distribution_name(d) << ", " << (descending ? "descending, " : "ascending, ") << w
                             << (default_bits ? " (default arguments)" : ""));
        keys_out.poison(0xCD);
        values_out.poison(0xCD);
        block_sort_kernel<Sort, Key, Value, BlockThreads, ItemsPerThread><<<grid_blocks, BlockThreads>>>(
            keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), w.begin_bit, w.end_bit, descending,
            default_bits);
        gpuprim_test::require_sync();
        const std::vector<Key> got_keys = keys_out.download();
        const std::vector<P> got_values = values_out.download();
        std::size_t bad_tiles = 0;
        for (int t = 0; t < tiles; ++t) {
          const std::size_t first = std::size_t(t) * tile_items;
          const std::vector<std::uint32_t> order =
              reference_order(keys.data() + first, tile_items, descending, w.begin_bit, w.end_bit);
          std::vector<Key> expected_keys(tile_items);
          std::vector<P> expected_values(pairs ? tile_items : 0);
          for (std::size_t i = 0; i < tile_items; ++i) {
            expected_keys[i] = keys[first + order[i]];
            if constexpr (pairs) expected_values[i] = values[first + order[i]];
          }
          std::string first_keys, first_values;
          std::size_t bad = count_bitwise_mismatches(expected_keys.data(), got_keys.data() + first, tile_items,
                                                     first_keys);
          if constexpr (pairs) {
            bad += count_bitwise_mismatches(expected_values.data(), got_values.data() + first, tile_items,
                                            first_values);
          }
          if (bad != 0 && bad_tiles++ == 0) {
            INFO("tile " << t << ", items " << first << ".." << first + tile_items - 1 << ": " << bad
                         << " mismatches\nkeys:\n"
                         << first_keys << "values:\n"
                         << first_values);
            CHECK(bad == 0);
          }
        }
        CHECK(bad_tiles == 0);
      }
    }
  }
}

/// Keys only and with uint32 index values.
template <class Key, int BlockThreads, int ItemsPerThread>
void run_keys_and_pairs() {
  run_shape<Key, void, BlockThreads, ItemsPerThread>();
  run_shape<Key, std::uint32_t, BlockThreads, ItemsPerThread>();
}

}  // namespace block_sort_test
