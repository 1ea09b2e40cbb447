// The kernels of the device radix sort (an LSD radix sort of 8-bit digits in the single-pass
// Onesweep form of Adinets & Merrill 2022, grown from the histogram / scan / scatter sort of
// Satish, Harris & Garland 2009):
// 1. radix_histogram_kernel reads the keys once and counts the digits of every pass at once; its
//    last block (a ticket taken after a fence) scans each pass's counts into global digit offsets
//    and drops every pass in which all keys share one digit (pass skipping).
// 2. radix_pass_kernel, one launch per pass: each block takes the next tile from a counter (so
//    tiles start in order) and runs onesweep_tile (tile/onesweep_tile.cuh).
// 3. radix_fused_kernel: the whole sort of a few dozen tiles in one launch, resident blocks taking
//    the histogram tiles and then every pass's tiles from one work counter.
// The rank sort of small inputs is in radix_rank_sort.cuh, the host side in radix_sort_dispatch.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../block/block_scan.cuh"
#include "../detail/config.cuh"
#include "../detail/grid_dependency.cuh"
#include "../detail/lookback.cuh"
#include "../detail/radix_traits.cuh"
#include "../shape.cuh"
#include "../tile/onesweep_tile.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Shared memory of a histogram block's bookkeeping (radix_start_counting, radix_histogram_arrive)
/// and of the last block's choice of passes (radix_choose_passes), in blocks of `Threads` threads.
template <int Threads>
struct radix_passes_storage {
  typename block_scan<unsigned long long, Threads>::temp_storage scan;
  bool last_block;
  bool clears_counts;
  // OR and AND of the digits present in each pass: equal where all keys share one digit.
  unsigned digit_or[radix_max_passes];
  unsigned digit_and[radix_max_passes];
};

/// What one thread of a histogram saw of the floating zeros: the keys that the -0.0 fix-up
/// changes (radix_key::needs_fixup) and those of the other zero (ordered as high_bit). radix_choose_passes
/// decides from the whole sort's whether the passes need the fix-up. Two compares and two adds a
/// key, in place of the fix-up of every key's digits: a first version that also kept each key's
/// fixed-up digits and a bit mask of the zero kinds made f32 sorts 1-2% slower at 2^24-2^28 (H200).
struct radix_zero_tally {
  unsigned fixup_keys = 0;
  unsigned other_zeros = 0;
  template <class Key>
  GPUPRIM_DEVICE void add(typename radix_key<Key>::bits_t ordered) {
    fixup_keys += radix_key<Key>::needs_fixup(ordered) ? 1u : 0u;
    other_zeros += ordered == radix_key<Key>::high_bit ? 1u : 0u;
  }
};

/// Shared memory of a histogram block (the upfront kernel and the fused sort's histogram items).
struct radix_histogram_storage {
  unsigned counts[radix_max_passes][radix_bins];
  radix_passes_storage<radix_histogram_threads> plan;
};

/// Adds the digits of every pass of `ordered` (bit-ordered keys, the first `count` valid) to the
/// block's counters: pass by pass (a uniform test per pass, not per key). Every key counts by its
/// own digits; floating keys are also tallied (radix_zero_tally), and radix_choose_passes moves the keys
/// that the -0.0 fix-up changes to their fixed-up digits where the passes fix up.
template <class Key, bool Full>
GPUPRIM_DEVICE void radix_count_chunk(radix_histogram_storage& s,
                                      typename radix_key<Key>::bits_t (&ordered)[radix_histogram_items], int count,
                                      int passes, int begin_bit, int end_bit, radix_zero_tally& zeros) {
  using traits = radix_key<Key>;
  constexpr int key_passes = traits::bits / radix_bits;  // the most passes a key can need
  if constexpr (traits::is_float) {
#pragma unroll
    for (int i = 0; i < radix_histogram_items; ++i) {
      if (Full || i < count) zeros.add<Key>(ordered[i]);
    }
  }
#pragma unroll
  for (int p = 0; p < key_passes; ++p) {
    if (p < passes) {
      const int shift = begin_bit + p * radix_bits;
      const int bits = end_bit - shift < radix_bits ? end_bit - shift : radix_bits;
#pragma unroll
      for (int i = 0; i < radix_histogram_items; ++i) {
        if (Full || i < count) atomicAdd(&s.counts[p][traits::digit_of_bits(ordered[i], shift, bits)], 1u);
      }
    }
  }
}

/// Zeroes the global digit counts of `passes` passes, then announces it (counts_clear). Called by
/// every thread of the one histogram block or tile that started first: it waits for nothing, so
/// the others, which wait for it before adding their counts, cannot deadlock.
GPUPRIM_DEVICE void radix_clear_counts(radix_sort_control* control, int passes) {
  for (int k = threadIdx.x; k < passes * radix_bins; k += blockDim.x) {
    control->counts[k / radix_bins][k % radix_bins] = 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicExch(&control->head.counts_clear, 1u);
  }
}

/// Every histogram block (or fused histogram tile) before it counts: the first to start (a ticket
/// in the control block; `clears_counts`, shared, tells the block) zeroes the global counts.
GPUPRIM_DEVICE void radix_start_counting(bool& clears_counts, radix_sort_control* control, int passes) {
  if (threadIdx.x == 0) clears_counts = atomicAdd(&control->head.count_ticket, 1u) == 0;
  __syncthreads();
  if (clears_counts) radix_clear_counts(control, passes);
}

/// Every histogram block after it counts, before it adds its counts to the global ones: waits for
/// them to be zeroed and, for floating keys, adds what its threads saw of the zeros to
/// radix_sort_counters::fixup_keys and other_zero_seen.
template <class Key>
GPUPRIM_DEVICE void radix_finish_counting(radix_sort_control* control, const radix_zero_tally& zeros) {
  if (threadIdx.x == 0) wait_for_count(&control->head.counts_clear, 1u);
  if constexpr (radix_key<Key>::is_float) {
    if (zeros.fixup_keys != 0) {
      atomicAdd(&control->head.fixup_keys, static_cast<unsigned long long>(zeros.fixup_keys));
    }
    if (__syncthreads_or(zeros.other_zeros != 0) && threadIdx.x == 0) atomicOr(&control->head.other_zero_seen, 1u);
  } else {
    __syncthreads();
  }
}

/// The upfront histogram kernels' grids zero `vectors` 16-byte vectors at `clear` (pass 0's
/// look-back states, read only after the histogram grid has ended).
GPUPRIM_DEVICE void radix_zero_states(uint4* clear, std::size_t vectors) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += std::size_t(gridDim.x) * blockDim.x) {
    clear[i] = make_uint4(0, 0, 0, 0);
  }
}

/// Counts the digits of every pass of the keys in chunks of radix_histogram_threads x
/// radix_histogram_items starting at `first`, `stride` apart, below `end`, and adds the counts to
/// the global ones. Every thread of a block of radix_histogram_threads calls it.
template <class Key, bool Descending>
GPUPRIM_DEVICE void radix_count_digits(radix_histogram_storage& s, const Key* keys, std::size_t first, std::size_t end,
                                       std::size_t stride, int begin_bit, int end_bit, radix_sort_control* control) {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  constexpr std::size_t chunk = std::size_t(radix_histogram_threads) * radix_histogram_items;
  const int passes = (end_bit - begin_bit + radix_bits - 1) / radix_bits;
  // Keys are read as their bits (same size and alignment), in one load each.
  const auto* key_bits = reinterpret_cast<const bits_t*>(keys);
  for (int k = threadIdx.x; k < radix_max_passes * radix_bins; k += radix_histogram_threads) {
    s.counts[k / radix_bins][k % radix_bins] = 0;
  }
  radix_start_counting(s.plan.clears_counts, control, passes);
  radix_zero_tally zeros;  // floating keys
  for (std::size_t base = first; base < end; base += stride) {
    // Thread t holds items t, t + threads, ...: each load instruction of a warp is coalesced.
    bits_t ordered[radix_histogram_items];
    const bits_t* chunk_bits = key_bits + base + threadIdx.x;
    if (end - base >= chunk) {  // every chunk but the last: no bounds tests
#pragma unroll
      for (int i = 0; i < radix_histogram_items; ++i) {
        ordered[i] = traits::order(chunk_bits[i * radix_histogram_threads], Descending);
      }
      radix_count_chunk<Key, true>(s, ordered, radix_histogram_items, passes, begin_bit, end_bit, zeros);
    } else {
      const std::size_t left = end - base - threadIdx.x;  // > 0 for the threads with items
      const int count = end - base > threadIdx.x
                            ? static_cast<int>((left + radix_histogram_threads - 1) / radix_histogram_threads)
                            : 0;
#pragma unroll
      for (int i = 0; i < radix_histogram_items; ++i) {
        ordered[i] = i < count ? traits::order(chunk_bits[i * radix_histogram_threads], Descending) : bits_t(0);
      }
      radix_count_chunk<Key, false>(s, ordered, count, passes, begin_bit, end_bit, zeros);
    }
  }
  radix_finish_counting<Key>(control, zeros);
  for (int k = threadIdx.x; k < passes * radix_bins; k += radix_histogram_threads) {
    const unsigned c = s.counts[k / radix_bins][k % radix_bins];
    if (c != 0) atomicAdd(&control->counts[k / radix_bins][k % radix_bins], static_cast<unsigned long long>(c));
  }
}

/// After radix_count_digits: true in the block that is the last of `arrivals` to get here; it
/// sees every block's counts.
template <int Threads>
GPUPRIM_DEVICE bool radix_histogram_arrive(radix_passes_storage<Threads>& s, radix_sort_control* control,
                                           unsigned arrivals) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s.last_block = atomicAdd(&control->head.ticket, 1u) == arrivals - 1;
  __syncthreads();
  const bool last = s.last_block;
  if (last) __threadfence();
  return last;
}

/// The last histogram block (n > 0): scans each pass's counts into global digit offsets, drops
/// every pass in which all keys share one digit (a stable identity: pass skipping).
///
/// Floating keys: the histogram counted every key by its own digits. The passes take digits through
/// radix_key::digit_bits (the -0.0 fix-up; digits_fixed 1) where a key needs it, unless `may_unfix`
/// (passes that can take either digits: radix_pass_kernel), the window is the whole key and the
/// sort's zeros all have one sign: then no key lies between the two zeros' patterns, and the keys
/// order alike either way. Where they fix up, the keys that the fix-up changes move to their fixed
/// digits in the counts first. The fix-up costs f32 sorts 7-8% at 2^26-2^28 (H200).
///
/// `keep_parity` (low-memory sorts, whose host side names the buffer of the result before the
/// passes run): where an odd number of passes would be dropped, the first of them is kept (a
/// pass over one digit is a stable identity), so that the result lands where the full count of
/// passes would put it.
template <class Key, int Threads>
GPUPRIM_DEVICE void radix_choose_passes(radix_passes_storage<Threads>& s, radix_sort_control* control, int begin_bit,
                                        int end_bit, bool may_unfix, bool keep_parity = false) {
  using scan_t = block_scan<unsigned long long, Threads>;
  static_assert(Threads >= radix_bins, "one thread per digit in the final scan");
  const int passes = (end_bit - begin_bit + radix_bits - 1) / radix_bits;
  if constexpr (radix_key<Key>::is_float) {
    using traits = radix_key<Key>;
    using bits_t = typename traits::bits_t;
    if (threadIdx.x == 0) {
      const unsigned long long moved = __ldcg(&control->head.fixup_keys);
      const bool whole_key = begin_bit == 0 && end_bit == traits::bits;
      const bool fixed =
          moved != 0 && (!may_unfix || __ldcg(&control->head.other_zero_seen) != 0 || !whole_key);
      if (fixed) {
        for (int p = 0; p < passes; ++p) {
          const int shift = begin_bit + p * radix_bits;
          const int bits = end_bit - shift < radix_bits ? end_bit - shift : radix_bits;
          unsigned long long* from =
              &control->counts[p][traits::digit_of_bits(static_cast<bits_t>(traits::high_bit - 1), shift, bits)];
          unsigned long long* to = &control->counts[p][traits::digit_of_bits(traits::high_bit, shift, bits)];
          __stcg(from, __ldcg(from) - moved);
          __stcg(to, __ldcg(to) + moved);
        }
      }
      control->digits_fixed = fixed ? 1u : 0u;
    }
    __syncthreads();
  }
  const bool digit_thread = threadIdx.x < radix_bins;
  for (int p = 0; p < passes; ++p) {
    const unsigned long long c = digit_thread ? __ldcg(&control->counts[p][threadIdx.x]) : 0;
    if (threadIdx.x == 0) {
      s.digit_or[p] = 0;
      s.digit_and[p] = radix_bins - 1;
    }
    __syncthreads();
    if (c != 0) {
      atomicOr(&s.digit_or[p], threadIdx.x);
      atomicAnd(&s.digit_and[p], threadIdx.x);
    }
    unsigned long long offset;
    scan_t(s.scan).exclusive_sum(c, offset);
    if (digit_thread) control->offsets[p][threadIdx.x] = offset;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    int dropped = 0, first_dropped = -1;
    for (int p = 0; p < passes; ++p) {
      if (s.digit_or[p] == s.digit_and[p]) {  // one digit value: a stable identity
        if (first_dropped < 0) first_dropped = p;
        ++dropped;
      }
    }
    const int kept = keep_parity && (dropped & 1) ? first_dropped : -1;
    unsigned active = 0;
    for (int p = 0; p < passes; ++p) {
      if (s.digit_or[p] == s.digit_and[p] && p != kept) continue;
      const int shift = begin_bit + p * radix_bits;
      control->pass_shift[active] = shift;
      control->pass_bits[active] = end_bit - shift < radix_bits ? end_bit - shift : radix_bits;
      control->pass_position[active] = p;
      ++active;
    }
    control->active_passes = active;
  }
}


/// Counts the digits of every pass in one read of the keys; the last block scans the counts and
/// chooses the passes (radix_choose_passes). The blocks also zero the look-back states
/// (`clear_vectors` 16-byte vectors at `clear`), which pass 0 reads only after this grid has ended.
template <class Key, bool Descending>
__global__ void __launch_bounds__(radix_histogram_threads)
    radix_histogram_kernel(const Key* keys, std::size_t n, int begin_bit, int end_bit, radix_sort_control* control,
                           uint4* clear, std::size_t clear_vectors, bool keep_parity) {
  __shared__ radix_histogram_storage s;
  allow_next_grid();  // pass 0 may be scheduled now; it waits for this grid before reading anything
  radix_zero_states(clear, clear_vectors);
  constexpr std::size_t chunk = std::size_t(radix_histogram_threads) * radix_histogram_items;
  radix_count_digits<Key, Descending>(s, keys, blockIdx.x * chunk, n, std::size_t(gridDim.x) * chunk, begin_bit,
                                      end_bit, control);
  if (radix_histogram_arrive(s.plan, control, gridDim.x)) {
    radix_choose_passes<Key>(s.plan, control, begin_bit, end_bit, true, keep_parity);
  }
}

/// Pass `slot` of the passes left after skipping, one tile per block (tiles taken in order from a
/// counter, so that a tile's predecessors have started before it).
template <class Key, class Value, bool Descending, class Config>
__global__ void __launch_bounds__(Config::block_threads, Config::min_blocks_per_sm)
    radix_pass_kernel(const radix_sort_args<Key, Value> a, int slot, unsigned long long* states) {
  using storage_t = onesweep_storage<Key, Value, Config>;
  extern __shared__ __align__(16) unsigned char smem[];
  storage_t& s = *reinterpret_cast<storage_t*>(smem);
  // Launched with programmatic dependent launch on sm_90: this pass waits until the kernel before
  // it (histogram or pass) has finished and its writes are visible, before touching anything. The
  // next pass is let in only after this block's look-back (onesweep_tile): triggering here would
  // let every later pass's blocks in at once and crowd the SMs with waiting blocks.
  wait_for_previous_grid();
  if (threadIdx.x == 0) s.tile = atomicAdd(&a.control->head.tile_counter[slot], 1u);
  __syncthreads();
  const onesweep_run run = whole_input_run<Config::tile_items>(s.tile, a.n, &a.control->offsets[0][0]);
  if constexpr (radix_key<Key>::is_float) {
    // Floating keys: the -0.0 fix-up of every digit only where the histogram asks for it.
    if (a.control->digits_fixed != 0) {
      onesweep_tile<Key, Value, Descending, Config, true>(a, s, slot, s.tile, run, states).process();
    } else {
      onesweep_tile<Key, Value, Descending, Config, false>(a, s, slot, s.tile, run, states)
          .process();
    }
  } else {
    onesweep_tile<Key, Value, Descending, Config>(a, s, slot, s.tile, run, states).process();
  }
}

/// Shared memory of the fused sort: histogram or pass tile, one at a time.
template <class Key, class Value, class Config>
union fused_storage {
  radix_histogram_storage histogram;
  onesweep_storage<Key, Value, Config> pass;
};

/// The whole sort of a few dozen tiles in one launch. The work items are the histogram of every
/// tile, then every tile of pass 0, pass 1, ..., taken in that order from a counter by resident
/// blocks that loop until none is left. A pass-0 tile waits for the passes' choice (made by the last
/// histogram item), a tile of pass p for every tile of pass p - 1; everything waited on holds an
/// earlier ticket, so its block is running: no deadlock, whatever the residency, and no grid
/// barrier. One wait per pass replaces one launch per pass.
template <class Key, class Value, bool Descending, class Config>
__global__ void __launch_bounds__(Config::block_threads, Config::min_blocks_per_sm)
    radix_fused_kernel(const radix_sort_args<Key, Value> a, int passes, unsigned tiles,
                       unsigned long long* states, bool keep_parity) {
  static_assert(Config::block_threads == radix_histogram_threads, "the histogram items use the whole block");
  using storage_t = fused_storage<Key, Value, Config>;
  extern __shared__ __align__(16) unsigned char smem[];
  storage_t& s = *reinterpret_cast<storage_t*>(smem);
  __shared__ unsigned item;
  radix_sort_control* control = a.control;
  const unsigned items = tiles * static_cast<unsigned>(passes + 1);
  for (;;) {
    __syncthreads();  // the previous item is done with `item` and the shared storage
    if (threadIdx.x == 0) item = atomicAdd(&control->head.work_ticket, 1u);
    __syncthreads();
    const unsigned k = item;
    if (k >= items) return;
    if (k < tiles) {
      // Tile k's look-back states start at zero (every pass tags its own); pass 0 waits for the
      // choice of passes, which comes after every histogram item.
      for (int d = threadIdx.x; d < radix_bins; d += Config::block_threads) {
        states[std::size_t(k) * radix_bins + d] = 0;
      }
      const std::size_t first = std::size_t(k) * Config::tile_items;
      const std::size_t end = a.n - first < std::size_t(Config::tile_items) ? a.n : first + Config::tile_items;
      radix_count_digits<Key, Descending>(s.histogram, a.keys_in, first, end,
                                          std::size_t(radix_histogram_threads) * radix_histogram_items, a.begin_bit,
                                          a.end_bit, control);
      if (radix_histogram_arrive(s.histogram.plan, control, tiles)) {
        radix_choose_passes<Key>(s.histogram.plan, control, a.begin_bit, a.end_bit, false, keep_parity);  // fix up
        __syncthreads();
        if (threadIdx.x == 0) {
          __threadfence();
          atomicExch(&control->head.plan_ready, 1u);
        }
      }
      continue;
    }
    const int slot = static_cast<int>((k - tiles) / tiles);
    const unsigned tile = (k - tiles) % tiles;
    if (threadIdx.x == 0) {
      wait_for_count(slot == 0 ? &control->head.plan_ready : &control->head.tiles_done[slot - 1],
                     slot == 0 ? 1u : tiles);
    }
    __syncthreads();
    const onesweep_run run = whole_input_run<Config::tile_items>(tile, a.n, &control->offsets[0][0]);
    onesweep_tile<Key, Value, Descending, Config>(a, s.pass, slot, tile, run, states).process();
    __syncthreads();  // every thread's stores of this tile are issued
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(&control->head.tiles_done[slot], 1u);
    }
  }
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
