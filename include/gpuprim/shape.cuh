// Every tuned default of gpuprim: the tuning type `shape`, then the default shapes and thresholds
// of reduce, scan and radix sort, one line each with the GPU, benchmark and date it was measured
// on (docs/tuning.md has a row for each, with the figures).
#pragma once

#include <cstddef>
#include <type_traits>

#include "detail/config.cuh"
#include "detail/item_source.cuh"

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
// sum i32 2^28 at 96% of the read ceiling. H200, an in-process experiment (2026-11-30,
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

// Inputs of at least this many items of `ItemBytes` bytes take the streaming scan
// (tile/scan_streaming.cuh): 5M 4-byte items (20 MiB), 8M 8-byte items (64 MiB); both kernels cut
// 32 KiB tiles. The streaming scan's time over the tile-per-block scan's: H100 and H200, in the
// same process as CUB, 2026-11-22, 4-byte items 5M 0.96-0.97, 6M 0.93 (H100) and 0.96-0.98
// (H200), 4M 1.03 (H100); with the grouped look-back and a publication of each group's total
// before its last tile looks back (H200, one process, 2026-12-03), 4-byte sums 4M 1.18-1.23,
// 5M 1.00-1.01, 6M 0.95-0.97, 8M 0.94-0.98; f64 sums 4M 1.11, 6M 1.01-1.07, 8M 0.99-1.00,
// 12M 0.93, 16M 0.87-0.89.
template <int ItemBytes>
inline constexpr std::size_t streaming_scan_min_items = ItemBytes <= 4 ? std::size_t(5) << 20 : std::size_t(8) << 20;

// ---- Radix sort ---------------------------------------------------------------------------------

// Inputs of up to this many keys are sorted by counting comparisons (device/radix_rank_sort.cuh),
// one launch and no workspace. H200, in-process, 2026-11-22: u32 keys 16384 in 28.4 us against
// 34.7 for the fused kernel (n^2 comparisons: 20480 would take ~40).
inline constexpr std::size_t rank_sort_max_items = 16384;
// From this many keys on, the rank sort counts within buckets (radix_bucket_sort_kernel). H200,
// in-process, 2026-11-22, u32 keys: 4096 9.4 us plain against 11.0 bucketed, 6144 11.6 against
// 11.4, 8192 13.5 against 12.4, 16384 29.5 against 14.3.
inline constexpr std::size_t bucket_sort_min_items = 6144;
// Inputs of up to this many fused tiles run the fused single-launch sort (radix_fused_kernel).
inline constexpr std::size_t radix_fused_max_tiles = 64;
// Fused tiles: 256 threads (4 blocks an SM, 64 registers), 8 items up to 8 bytes, 4 up to 16. H200, 2026-11-23.
template <int KeyBytes, int ValueBytes>
using radix_fused_shape = shape<256, (KeyBytes + ValueBytes <= 8 ? 8 : KeyBytes + ValueBytes <= 16 ? 4
                                      : 64 / (KeyBytes + ValueBytes) > 1 ? 64 / (KeyBytes + ValueBytes) : 1)>;
// One-wave passes (every tile resident; ranks held in registers): 384 threads, 19 items of up to 4
// bytes, 20 of 8, 16 of up to 16. H200, A/B against 25/26/18, 2026-12-02: 150001-800011 keys and
// pairs 0.88-0.94x the time, 1.5M 0.89-0.94x, 2^20 1.04-1.06x (144 tiles, 132 SMs).
template <int KeyBytes, int ValueBytes>
using radix_one_wave_shape =
    shape<384, (KeyBytes + ValueBytes <= 4 ? 19 : KeyBytes + ValueBytes == 8 ? 20 : KeyBytes + ValueBytes <= 16 ? 16
                : 96 / (KeyBytes + ValueBytes) > 1 ? 96 / (KeyBytes + ValueBytes) : 1)>;
// Onesweep passes of many waves (keys stored at their ranks as found): 32 items for 4-byte keys,
// 26 for 8-byte items and 8-byte keys with 4-byte values, 19 for other items of up to 4 bytes, 18
// for other pairs of up to 16 bytes. H200, bench_radix_sort 2^28, 2026-11-22, against 25/20/18
// items: 4-byte keys 0.926x the time, u64 keys 0.918x, u64/u32 pairs 0.944x; u32/u32 pairs at 28
// items 0.986x against 26, but 28 spill 84 bytes with 64-bit look-back states (ptxas, 2026-12-01).
template <int KeyBytes, int ValueBytes>
using radix_many_waves_shape =
    shape<384, (KeyBytes == 4 && ValueBytes == 0 ? 32
                : KeyBytes + ValueBytes == 8 || (KeyBytes == 8 && ValueBytes == 4) ? 26
                : KeyBytes + ValueBytes <= 4 ? 19 : KeyBytes + ValueBytes <= 16 ? 18
                : radix_one_wave_shape<KeyBytes, ValueBytes>::items_per_thread)>;
// Segmented sorts (device/segmented_sort.cuh): segments of up to segment_sort_thread_max keys are
// sorted by one thread, of up to segment_sort_warp_max by a warp; the block tier's tiles hold segment_sort_block_shape's items, shorter
// segments packed by windows of half a tile, and longer segments take the Onesweep passes. Not yet
// tuned (2026-12-02): chosen so that the block tier covers the issue's 1000-key segments.
inline constexpr int segment_sort_thread_max = 8;
inline constexpr int segment_sort_warp_max = 128;
using segment_sort_block_shape = shape<512, 8>;
// The upfront histogram: 256 threads, 8 keys a thread a chunk. H200, 2026-11-21.
inline constexpr int radix_histogram_threads = 256;
inline constexpr int radix_histogram_items = 8;

}  // namespace detail
GPUPRIM_NAMESPACE_END
