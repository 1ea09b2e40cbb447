// Tile shapes: the plain tuning type and each algorithm's default, one line per algorithm.
#pragma once

#include <type_traits>

#include "config.cuh"
#include "item_source.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// A tuning: threads per block, items per thread, and digit bits for radix sorts.
template <int BlockThreads, int ItemsPerThread, int RadixBits = 0>
struct shape {
  static constexpr int block_threads = BlockThreads;       ///< Threads per block.
  static constexpr int items_per_thread = ItemsPerThread;  ///< Items per thread.
  static constexpr int radix_bits = RadixBits;             ///< Digit bits (radix sorts; 0 elsewhere).
  static constexpr int tile_items = BlockThreads * ItemsPerThread;  ///< Items per tile.
};

namespace detail {

template <class T>
struct is_shape : std::false_type {};
template <int BlockThreads, int ItemsPerThread, int RadixBits>
struct is_shape<shape<BlockThreads, ItemsPerThread, RadixBits>> : std::true_type {};

/// Marks "no shape given": the first template parameter of the device algorithms.
struct use_default_shape {};

/// The shape an algorithm runs with: `Shape`, or `Default` for `use_default_shape`.
template <class Shape, class Default>
using shape_or_default = std::conditional_t<std::is_same_v<Shape, use_default_shape>, Default, Shape>;

template <class Shape>
inline constexpr bool valid_shape_argument_v = std::is_same_v<Shape, use_default_shape> || is_shape<Shape>::value;

// Reduce: four 16-byte loads in flight per thread, blocks of 512 threads; up to 8 blocks per SM
// (as occupancy allows: 4 of 512 threads). H200, bench_reduce, 2026-11-21: 4 blocks per SM left
// sum i32 2^28 at 96% of the read ceiling. H200, notes/experiments/reduce_mid.cu (session 55,
// launch timing, the shapes interleaved call by call): 512 threads against 256, the same items a
// thread, took 0.92x the time for sum f64 at 2^22 (17.9 against 19.5 us; CUB 19.6-20.0) and
// 0.90-0.97x for f64 2^20-2^24 and i32 2^21-2^25: half the blocks to schedule, meet at the
// grid-wide barrier and combine.
template <class T>
using reduce_default_shape = shape<512, vector_items_v<T> * 4>;
inline constexpr int reduce_blocks_per_sm = 8;

// Scan: 256 threads x 128 bytes of accumulators (32 items of 4 bytes, 16 of 8 bytes).
// H200, bench_scan shape sweep, 2026-11-21: at 2^28, i32 256x32 790 us (256x16 864, 128x24 817),
// f64 256x16 1932 us (256x8 2513, 224x24 1992).
template <class T>
using scan_default_shape = shape<256, (sizeof(T) <= 4 ? 32 : sizeof(T) >= 128 ? 1 : int(128 / sizeof(T)))>;

}  // namespace detail
GPUPRIM_NAMESPACE_END
