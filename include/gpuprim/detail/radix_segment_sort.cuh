// The segment sort that ends a large sort of pairs of 32-bit integer keys and 4-byte values in two
// onesweep passes instead of four (radix_plan's segment_sort): once the passes have sorted the
// pairs by the top 16 bits of their ordered keys, every run of equal top 16 bits (a "segment",
// n / 65536 pairs on average) is sorted by its low 16 bits in shared memory, one block a segment,
// in place. That is one coalesced read and one coalesced write of the data in place of two
// passes, whose scatter of the values is bound by L2 traffic.
//
// H200, u32/u32 pairs, one process, each block capacity at the n whose mean segment fills 0.85 of
// it, against the four passes (notes/PERF.md, session 46): 64M 0.86x the time, 128M 0.89x, 171M
// 0.87x, 214M 0.89x, 2^28 0.91x, 342M 0.95x, 428M 0.99x, 513M 1.04x.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <utility>

#include "../block/block_radix_rank.cuh"
#include "../block/block_scan.cuh"
#include "config.cuh"
#include "launch.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Bits of the ordered key that the segment sort sorts; the passes sort the rest (16 bits).
inline constexpr int radix_segment_low_bits = 16;
/// Segments: one per value of the ordered key's top 16 bits.
inline constexpr unsigned radix_segments = 1u << (32 - radix_segment_low_bits);

/// Threads, pairs a thread and blocks an SM of the segment sort's blocks, one block capacity per
/// step of the ladder that radix_segment_step_for picks from. Each block keeps its pairs as words
/// (key low, value high) in registers and shared memory. Up to 15 pairs a thread, 1024 threads an
/// SM (64 registers; small spills); above, 768 (85 registers, none): H200, u32/u32 pairs, the
/// segment sort alone, 64M 128 x 9 8 blocks 507 us, 2^27 256 x 9 4 blocks 1086, 171M 256 x 12
/// 1381, 214M 256 x 15 1823, 2^28 384 x 12 2 blocks 2378 against 256 x 18 (232 bytes spilled)
/// 2664 (notes/PERF.md, session 46).
struct radix_segment_step {
  int threads;
  int items;
  int blocks_per_sm;
  constexpr int capacity() const { return threads * items; }
};
inline constexpr radix_segment_step radix_segment_ladder[] = {
    {128, 9, 8},  {128, 10, 8}, {256, 6, 4},  {256, 7, 4},  {256, 8, 4},  {256, 9, 4},  {256, 10, 4},
    {256, 11, 4}, {256, 12, 4}, {256, 13, 4}, {256, 15, 4}, {384, 12, 2}, {384, 14, 2}, {768, 8, 1},
};
inline constexpr int radix_segment_steps = sizeof(radix_segment_ladder) / sizeof(radix_segment_ladder[0]);

/// The step of the ladder for n pairs: the smallest capacity that holds a segment of six standard
/// deviations above the mean (uniform keys; segments over capacity take the fix-up), or -1 where
/// none does or where the mean fills less than 0.7 of the smallest (the blocks' fixed costs then
/// outweigh the passes saved).
inline int radix_segment_step_for(std::size_t n) {
  const double mean = static_cast<double>(n) / radix_segments;
  const double need = mean + 6 * std::sqrt(mean);
  if (mean < 0.7 * radix_segment_ladder[0].capacity()) return -1;
  for (int s = 0; s < radix_segment_steps; ++s) {
    if (need <= radix_segment_ladder[s].capacity()) return s;
  }
  return -1;
}

/// starts[v] = the first position whose ordered key's top 16 bits are at least v (v in [0,
/// 65536]); starts[65536] = n. One thread a value, a binary search each. Does nothing unless
/// `*enabled`. (A template, as every kernel in these headers, so that each translation unit's
/// copy is the same entity: a plain __global__ function would be defined once per unit.)
template <int Unused = 0>
__global__ void __launch_bounds__(256) radix_segment_bounds_kernel(const unsigned* keys, std::size_t n,
                                                                    unsigned order_mask, const unsigned* enabled,
                                                                    std::size_t* starts) {
  if (*enabled == 0) return;
  const unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v > radix_segments) return;
  std::size_t lo = 0, hi = n;
  if (v == radix_segments) lo = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (((keys[mid] ^ order_mask) >> radix_segment_low_bits) < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  starts[v] = lo;
}

/// Sorts segments blockIdx.x, blockIdx.x + gridDim.x, ... (each the positions [starts[s],
/// starts[s + 1]) of keys and values, already in order of their top 16 bits) by the low 16 bits of
/// the ordered keys (key ^ order_mask), stable, in place: two rankings in shared memory. A segment
/// over the block's capacity is left to the fix-up (its number goes to `oversized`). Resident
/// blocks loop over the segments, so that where the plan kept four passes (`*enabled` 0) the
/// kernel costs one read a block, not 65536 blocks' launches (H200, 2^28: ~250 us of empty blocks).
template <int Threads, int Items, int BlocksPerSm>
__global__ void __launch_bounds__(Threads, BlocksPerSm)
    radix_segment_sort_kernel(unsigned* keys, unsigned* values, unsigned order_mask, const unsigned* enabled,
                              const std::size_t* starts, unsigned* oversized_count, unsigned* oversized) {
  constexpr int capacity = Threads * Items;
  using rank_t = block_radix_rank<Threads, Items, 8>;
  __shared__ typename rank_t::temp_storage rank_storage;
  extern __shared__ unsigned long long words[];  // capacity + capacity / 32 (padded slots)
  if (*enabled == 0) return;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const auto slot = [](int p) { return p + p / 32; };
  for (unsigned segment = blockIdx.x; segment < radix_segments; segment += gridDim.x) {
    const std::size_t first = starts[segment];
    const std::size_t count_wide = starts[segment + 1] - first;
    if (count_wide <= 1) continue;
    if (count_wide > std::size_t(capacity)) {
      if (threadIdx.x == 0) oversized[atomicAdd(oversized_count, 1u)] = segment;
      continue;
    }
    const int count = static_cast<int>(count_wide);
    // Warp-striped (block_radix_rank's arrangement): coalesced loads. Slots past the segment hold
    // keys whose ordered digits are all 255, so that they rank after every pair of the segment.
    unsigned long long w[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int p = warp * 32 * Items + i * 32 + lane;
      const unsigned key = p < count ? keys[first + p] : ~order_mask;
      const unsigned value = p < count ? values[first + p] : 0u;
      w[i] = static_cast<unsigned long long>(value) << 32 | key;
    }
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
      unsigned ranks[Items];
      const int shift = 8 * pass;
      rank_t(rank_storage).rank(
          [&](int i) { return ((static_cast<unsigned>(w[i]) ^ order_mask) >> shift) & 0xffu; }, ranks);
#pragma unroll
      for (int i = 0; i < Items; ++i) words[slot(static_cast<int>(ranks[i]))] = w[i];
      __syncthreads();
      if (pass == 0) {
#pragma unroll
        for (int i = 0; i < Items; ++i) w[i] = words[slot(warp * 32 * Items + i * 32 + lane)];
        __syncthreads();
      }
    }
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int p = i * Threads + static_cast<int>(threadIdx.x);
      if (p < count) {
        const unsigned long long x = words[slot(p)];
        keys[first + p] = static_cast<unsigned>(x);
        values[first + p] = static_cast<unsigned>(x >> 32);
      }
    }
    __syncthreads();  // the next segment reuses the words and the ranking's storage
  }
}

/// Threads and pairs a thread of the fix-up's chunks.
inline constexpr int radix_segment_fixup_threads = 256;
inline constexpr int radix_segment_fixup_items = 16;

/// The segments over capacity (radix_segment_sort_kernel's `oversized`), a block each in turn:
/// two stable passes of 8 bits through `keys_alt` / `values_alt` (the same positions), each a
/// count of the segment's digits, then its chunks in order, ranked in shared memory and scattered
/// to their digits' next places. Does nothing unless `*enabled` and some segment is over.
template <int Unused = 0>
__global__ void __launch_bounds__(radix_segment_fixup_threads)
    radix_segment_fixup_kernel(unsigned* keys, unsigned* values, unsigned* keys_alt, unsigned* values_alt,
                               unsigned order_mask, const unsigned* enabled, const std::size_t* starts,
                               const unsigned* oversized_count, const unsigned* oversized) {
  constexpr int threads = radix_segment_fixup_threads;
  constexpr int items = radix_segment_fixup_items;
  constexpr int chunk = threads * items;
  static_assert(threads == 256, "one thread a digit in the counts' scans");
  using rank_t = block_radix_rank<threads, items, 8>;
  using scan_t = block_scan<unsigned, threads>;
  __shared__ typename rank_t::temp_storage rank_storage;
  __shared__ typename scan_t::temp_storage scan_storage;
  __shared__ unsigned next[256];         // the next place of each digit in the segment
  __shared__ unsigned chunk_first[256];  // the first rank of each digit in the chunk
  __shared__ unsigned scratch[256];
  if (*enabled == 0) return;
  // Every thread: `firsts` = the exclusive scan of the digit counts in `scratch` (thread d, digit d).
  // The scan's storage is free again after the caller's next barrier.
  const auto scan_counts = [&](unsigned* firsts) {
    unsigned first_place;
    scan_t(scan_storage).exclusive_sum(scratch[threadIdx.x], first_place);
    firsts[threadIdx.x] = first_place;
  };
  const unsigned segments = *oversized_count;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (unsigned j = blockIdx.x; j < segments; j += gridDim.x) {
    const unsigned segment = oversized[j];
    const std::size_t first = starts[segment];
    const std::size_t count = starts[segment + 1] - first;
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
      const int shift = 8 * pass;
      const unsigned* from_keys = pass == 0 ? keys : keys_alt;
      const unsigned* from_values = pass == 0 ? values : values_alt;
      unsigned* to_keys = pass == 0 ? keys_alt : keys;
      unsigned* to_values = pass == 0 ? values_alt : values;
      const auto digit = [&](unsigned key) { return ((key ^ order_mask) >> shift) & 0xffu; };
      // Digit counts of the segment, then their exclusive scan: each digit's first place.
      for (int d = threadIdx.x; d < 256; d += threads) scratch[d] = 0;
      __syncthreads();
      for (std::size_t p = threadIdx.x; p < count; p += threads) atomicAdd(&scratch[digit(from_keys[first + p])], 1u);
      __syncthreads();
      scan_counts(next);
      __syncthreads();
      for (std::size_t base = 0; base < count; base += chunk) {
        const int valid = count - base < std::size_t(chunk) ? static_cast<int>(count - base) : chunk;
        unsigned key[items], value[items];
#pragma unroll
        for (int i = 0; i < items; ++i) {
          const int p = warp * 32 * items + i * 32 + lane;
          key[i] = p < valid ? from_keys[first + base + p] : ~order_mask;
          value[i] = p < valid ? from_values[first + base + p] : 0u;
        }
        // This chunk's digit counts (its valid pairs) and their exclusive scan.
        for (int d = threadIdx.x; d < 256; d += threads) scratch[d] = 0;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < items; ++i) {
          if (warp * 32 * items + i * 32 + lane < valid) atomicAdd(&scratch[digit(key[i])], 1u);
        }
        __syncthreads();
        scan_counts(chunk_first);
        unsigned ranks[items];
        rank_t(rank_storage).rank([&](int i) { return digit(key[i]); }, ranks);  // barriers inside
#pragma unroll
        for (int i = 0; i < items; ++i) {
          if (warp * 32 * items + i * 32 + lane < valid) {
            const unsigned d = digit(key[i]);
            const std::size_t place = first + next[d] + (ranks[i] - chunk_first[d]);
            to_keys[place] = key[i];
            to_values[place] = value[i];
          }
        }
        __syncthreads();
        for (int d = threadIdx.x; d < 256; d += threads) next[d] += scratch[d];
        __syncthreads();
      }
      __threadfence_block();
      __syncthreads();
    }
  }
}

/// Where the segment sort's kernels find their data: the sorted pairs (as bits), the alternate
/// buffers of the fix-up, the plan's flag and count, and workspace for the starts and the list of
/// segments over capacity (the look-back states' regions, free once the passes have ended).
struct radix_segment_buffers {
  unsigned* keys;
  unsigned* values;
  unsigned* keys_alt;
  unsigned* values_alt;
  std::size_t n;
  unsigned order_mask;
  const unsigned* enabled;
  unsigned* oversized_count;
  std::size_t* starts;     // radix_segments + 1
  unsigned* oversized;     // radix_segments
};

/// Bytes of workspace the starts need (in one of the two state regions; the list of segments over
/// capacity, 4 bytes a segment, fits the other, which is as large).
inline constexpr std::size_t radix_segment_starts_bytes = (radix_segments + 1) * sizeof(std::size_t);

template <int Step>
[[nodiscard]] cudaError_t launch_segment_blocks(const device_facts& device, const radix_segment_buffers& b,
                                                cudaStream_t stream) {
  constexpr radix_segment_step step = radix_segment_ladder[Step];
  constexpr auto kernel = radix_segment_sort_kernel<step.threads, step.items, step.blocks_per_sm>;
  constexpr std::size_t smem = std::size_t(step.capacity() + step.capacity() / 32) * sizeof(unsigned long long);
  // The attribute bounds the dynamic part, but static and dynamic together above 48 KiB need it
  // raised: ask for both (the ranking's counters are static).
  constexpr std::size_t static_smem = sizeof(typename block_radix_rank<step.threads, step.items, 8>::temp_storage);
  int resident = 0;
  const cudaError_t e =
      allow_smem_and_count_resident<kernel>(smem + static_smem, step.threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  const unsigned grid = static_cast<unsigned>(device.sm_count > 0 ? device.sm_count : 1) *
                        static_cast<unsigned>(resident > 0 ? resident : 1);
  return launch_with_smem(kernel, grid, step.threads, smem, stream, launch_mode::plain, b.keys, b.values, b.order_mask,
                          b.enabled, static_cast<const std::size_t*>(b.starts), b.oversized_count, b.oversized);
}

template <std::size_t... Steps>
[[nodiscard]] cudaError_t launch_segment_blocks_of(int step, const device_facts& device,
                                                   const radix_segment_buffers& b, cudaStream_t stream,
                                                   std::index_sequence<Steps...>) {
  cudaError_t e = cudaErrorInvalidValue;
  ((step == static_cast<int>(Steps) ? (e = launch_segment_blocks<static_cast<int>(Steps)>(device, b, stream), 0) : 0),
   ...);
  return e;
}

/// After the passes of a sort whose plan may choose the segment sort: the starts, the segments
/// (blocks of ladder step `step`) and the fix-up of those over capacity. Each kernel returns at
/// once where the plan kept four passes (`*b.enabled` 0).
[[nodiscard]] inline cudaError_t launch_segment_sort(const device_facts& device, int step,
                                                     const radix_segment_buffers& b, cudaStream_t stream) {
  cudaError_t e = launch(radix_segment_bounds_kernel<>, (radix_segments + 1 + 255) / 256, 256, stream,
                         launch_mode::plain, static_cast<const unsigned*>(b.keys), b.n, b.order_mask, b.enabled,
                         b.starts);
  if (e == cudaSuccess) {
    e = launch_segment_blocks_of(step, device, b, stream, std::make_index_sequence<radix_segment_steps>{});
  }
  if (e == cudaSuccess) {
    const unsigned grid = static_cast<unsigned>(device.sm_count > 0 ? device.sm_count : 1) * 4;
    e = launch(radix_segment_fixup_kernel<>, grid, radix_segment_fixup_threads, stream, launch_mode::plain, b.keys,
               b.values, b.keys_alt, b.values_alt, b.order_mask, b.enabled, static_cast<const std::size_t*>(b.starts),
               static_cast<const unsigned*>(b.oversized_count), static_cast<const unsigned*>(b.oversized));
  }
  return e;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
