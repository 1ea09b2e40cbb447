// Segmented radix sort: every segment [begin[s], end[s]) of the keys sorted on its own, stably, in
// its own place, for any mix of segment sizes, in 3 + passes launches whatever the sizes are:
// 1. segmented_classify_kernel, a block per 256 segments (a chunk): a segment of up to
//    segment_sort_thread_max keys is sorted at once by its thread (a stable transposition network
//    in registers); those of up to segment_sort_warp_max go to the warp queue; the block-tier
//    segments are counted into tiles, which it appends to the tile queue; each longer ("big")
//    segment gets a slot and a range of Onesweep tile numbers.
// 2. segmented_block_kernel, resident blocks: each warp sorts queued segments by counting
//    comparisons; then each block takes queued tiles of segment_sort_block_shape's items, each
//    holding one segment of more than a quarter tile, or the shorter segments of a chunk that start
//    in one window of three quarters of a tile (so they never overrun it), and sorts it with two
//    block radix sorts: by key, then by the segment's index in the tile.
// 3. segmented_histogram_kernel and one segmented_pass_kernel per pass: the Onesweep machinery
//    (onesweep_tile) over the big segments' tiles, each segment a run of tiles with its own digit
//    offsets (the histogram of its keys), so that its tiles look back only within it. A few huge
//    segments run about as fast as one sort of the same keys.
// The host never reads the offsets (graph-capturable): grids are bounded by n, and blocks read the
// counts of tiles and queued segments that the classification left on the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../block/block_radix_sort.cuh"
#include "../block/block_scan.cuh"
#include "../block/block_search.cuh"
#include "../detail/config.cuh"
#include "../detail/grid_dependency.cuh"
#include "../detail/item_source.cuh"
#include "../detail/launch.cuh"
#include "../detail/radix_traits.cuh"
#include "../detail/workspace.cuh"
#include "../shape.cuh"
#include "../tile/onesweep_tile.cuh"
#include "radix_rank_sort.cuh"
#include "radix_sort_dispatch.cuh"
#include "radix_sort_plan.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Offsets must be integers.
template <class BeginIt, class EndIt>
constexpr bool segmented_sort_offsets_ok() {
  constexpr bool ok = std::is_integral_v<iterator_value_t<BeginIt>> && std::is_integral_v<iterator_value_t<EndIt>>;
  static_assert(ok, "gpuprim segmented radix sort: the segment offsets must be integers (int, int64_t, size_t)");
  return ok;
}

inline constexpr int segment_chunk = 256;  ///< segments a classification block takes
inline constexpr int segment_tile_items = segment_sort_block_shape::block_threads * segment_sort_block_shape::items_per_thread;
/// Segments of up to segment_packed_max keys share tiles: a tile takes those of a chunk that start
/// in one window of segment_window keys of the chunk's line, so that it never overflows.
inline constexpr int segment_packed_max = segment_tile_items / 4;
inline constexpr int segment_window = segment_tile_items - segment_packed_max;
/// Tile positions and segment indices share the 32-bit payload of the block tier's sorts.
inline constexpr int segment_position_bits = 13;
inline constexpr int segment_index_bits = 10;
static_assert(segment_tile_items <= (1 << segment_position_bits), "tile positions fit the payload");
static_assert(segment_tile_items / (segment_sort_thread_max + 1) < (1 << segment_index_bits),
              "a tile's segments fit the payload");
static_assert(segment_sort_warp_max < 256, "the warp queue packs a length into 8 bits");

/// Counters of one segmented sort that start at zero (with the sort's own; one memset).
struct segmented_sort_counters {
  unsigned long long big;   // big segments given a slot (high 24 bits), their Onesweep tiles (low 40)
  unsigned queue_length;    // block-tier tiles queued
  unsigned warp_queue_length;  // warp-tier segments queued
  unsigned segments_done;   // big segments whose histogram is complete
  unsigned nonuniform;      // bit p: some big segment has two digits at position p
};
inline constexpr int big_tile_bits = 40;
GPUPRIM_HOST_DEVICE unsigned long long big_tiles_of(unsigned long long big) {
  return big & ((1ull << big_tile_bits) - 1);
}
GPUPRIM_HOST_DEVICE unsigned big_segments_of(unsigned long long big) {
  return static_cast<unsigned>(big >> big_tile_bits);
}
struct segmented_sort_control {
  segmented_sort_counters seg;
  radix_sort_control sort;  // its `head` directly follows `seg`: zeroed by the same memset
};

/// A big segment's place, and its first Onesweep tile.
struct big_segment {
  std::size_t begin;
  std::size_t length;
  std::size_t first_tile;
};

/// Everything the kernels of one segmented sort share.
template <class Key, class Value, class BeginIt, class EndIt>
struct segmented_sort_args {
  radix_sort_args<Key, Value> sort;  // keys, values, alternates, n, bit range; control = &control->sort
  std::size_t segments;
  BeginIt begin;
  EndIt end;
  int passes;                      // digit positions of the bit range
  int onesweep_tile_items;         // of the big tier's passes
  segmented_sort_control* control;
  uint2* queue;                    // block-tier tiles: (chunk, tile within the chunk)
  std::size_t* warp_queue;         // warp-tier segments: first key << 8 | length (at most 128)
  big_segment* big;                // by slot
  unsigned long long* big_offsets; // by slot: [digit position][digit] counts, then offsets
  unsigned* big_arrivals;          // by slot: its histogram tiles done
  unsigned* tile_segment;          // by Onesweep tile: the slot of its segment
};

/// Segment s's first key and length (0 when end <= begin).
template <class Args>
GPUPRIM_DEVICE void segment_extent(const Args& a, std::size_t s, std::size_t& first, std::size_t& length) {
  const auto b = a.begin[s];
  const auto e = a.end[s];
  first = static_cast<std::size_t>(b);
  length = e > b ? static_cast<std::size_t>(e - b) : 0;
}

/// The sort value of a key: rank_sort_value (bit-ordered, -0.0 onto +0.0, masked to the window).
template <class Key>
using segment_word_t = rank_sort_word<Key>;

/// Sorts a segment of at most segment_sort_thread_max items in one thread's registers: odd-even
/// transposition, swapping neighbours only when strictly out of order (stable); missing items have
/// the largest value and are never moved before a real one.
template <class Key, class Value, bool Descending, class Args>
GPUPRIM_DEVICE void sort_by_thread(const Args& a, std::size_t first, int length) {
  using bits_t = typename radix_key<Key>::bits_t;
  using word_t = segment_word_t<Key>;
  constexpr int m = segment_sort_thread_max;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  const word_t window = rank_sort_window<word_t>(a.sort.begin_bit, a.sort.end_bit);
  const bits_t* in = reinterpret_cast<const bits_t*>(a.sort.keys_in) + first;
  bits_t keys[m];
  word_t words[m];
  std::conditional_t<has_values, Value, char> values[m];
#pragma unroll
  for (int i = 0; i < m; ++i) {
    words[i] = ~word_t(0);
    if (i < length) {
      keys[i] = in[i];
      words[i] = rank_sort_value<Key, Descending>(keys[i], window);
      if constexpr (has_values) values[i] = a.sort.values_in[first + i];
    }
  }
#pragma unroll
  for (int round = 0; round < m; ++round) {
#pragma unroll
    for (int i = round & 1; i + 1 < m; i += 2) {
      if (words[i] > words[i + 1]) {
        const word_t w = words[i];
        words[i] = words[i + 1];
        words[i + 1] = w;
        const bits_t k = keys[i];
        keys[i] = keys[i + 1];
        keys[i + 1] = k;
        if constexpr (has_values) {
          const Value v = values[i];
          values[i] = values[i + 1];
          values[i + 1] = v;
        }
      }
    }
  }
  bits_t* out = reinterpret_cast<bits_t*>(a.sort.keys_out) + first;
#pragma unroll
  for (int i = 0; i < m; ++i) {
    if (i < length) {
      out[i] = keys[i];
      if constexpr (has_values) a.sort.values_out[first + i] = values[i];
    }
  }
}

/// The tier of a segment of `length` keys.
enum class segment_tier { thread, warp, packed, solo, big };
GPUPRIM_HOST_DEVICE segment_tier tier_of(std::size_t length) {
  return length <= std::size_t(segment_sort_thread_max) ? segment_tier::thread
         : length <= std::size_t(segment_sort_warp_max)      ? segment_tier::warp
         : length <= std::size_t(segment_packed_max)    ? segment_tier::packed
         : length <= std::size_t(segment_tile_items)    ? segment_tier::solo
                                                        : segment_tier::big;
}

/// Gives a big segment its slot and its range of Onesweep tiles, with one atomic, so that the
/// slots' first tiles increase with the slot (the histogram finds a tile's slot by a search).
/// Its histogram and arrival count were zeroed by the host's memset.
template <class Args>
GPUPRIM_DEVICE void register_big_segment(const Args& a, std::size_t first, std::size_t length) {
  const auto tile_items = static_cast<std::size_t>(a.onesweep_tile_items);
  const unsigned long long tiles = (length + tile_items - 1) / tile_items;
  const unsigned long long old = atomicAdd(&a.control->seg.big, (1ull << big_tile_bits) | tiles);
  a.big[big_segments_of(old)] = big_segment{first, length, static_cast<std::size_t>(big_tiles_of(old))};
}

/// Sorts a segment of segment_sort_thread_max < length <= segment_sort_warp_max items with one warp by
/// counting comparisons: item i's rank is the number of items with a smaller sort value, or an
/// equal one and a smaller index. Lane l holds items l, l + 32, ...; every lane of the warp calls.
template <class Key, class Value, bool Descending, class Args>
GPUPRIM_DEVICE void sort_by_warp(const Args& a, std::size_t first, int length, int lane) {
  using bits_t = typename radix_key<Key>::bits_t;
  using word_t = segment_word_t<Key>;
  constexpr int slots = segment_sort_warp_max / 32;
  const word_t window = rank_sort_window<word_t>(a.sort.begin_bit, a.sort.end_bit);
  const bits_t* in = reinterpret_cast<const bits_t*>(a.sort.keys_in) + first;
  bits_t keys[slots];
  word_t words[slots];
  unsigned rank[slots];
#pragma unroll
  for (int s = 0; s < slots; ++s) {
    const int i = s * 32 + lane;
    words[s] = ~word_t(0);
    rank[s] = 0;
    if (i < length) {
      keys[s] = in[i];
      words[s] = rank_sort_value<Key, Descending>(keys[s], window);
    }
  }
#pragma unroll
  for (int from = 0; from < slots; ++from) {
    if (from * 32 >= length) break;  // warp-uniform
    const int lanes = length - from * 32 < 32 ? length - from * 32 : 32;
    for (int r = 0; r < lanes; ++r) {
      const word_t x = __shfl_sync(0xffffffffu, words[from], r);
#pragma unroll
      for (int s = 0; s < slots; ++s) {
        if (s * 32 >= length) break;  // warp-uniform: only the slots that hold items
        // Item from * 32 + r comes before item s * 32 + lane when from < s, or from == s and r < lane.
        const bool earlier = from < s || (from == s && r < lane);
        rank[s] += (x < words[s] || (earlier && x == words[s])) ? 1u : 0u;
      }
    }
  }
  bits_t* out = reinterpret_cast<bits_t*>(a.sort.keys_out) + first;
#pragma unroll
  for (int s = 0; s < slots; ++s) {
    const int i = s * 32 + lane;
    if (i < length) {
      out[rank[s]] = keys[s];
      if constexpr (!std::is_same_v<Value, no_values>) a.sort.values_out[first + rank[s]] = a.sort.values_in[first + i];
    }
  }
}

/// Block-tier work of one chunk's segments, as every thread of a block of at least segment_chunk
/// threads sees it: thread t < segment_chunk holds segment chunk * segment_chunk + t.
struct chunk_view {
  std::size_t first = 0, length = 0;  // this thread's segment
  unsigned packed_start = 0;          // its first key in the chunk's line of packed segments
  unsigned solo_rank = 0;             // its place among the chunk's solo segments
  unsigned packed_items = 0;          // the chunk's packed keys
  unsigned solo_count = 0;            // the chunk's solo segments
  segment_tier tier = segment_tier::thread;
  GPUPRIM_DEVICE unsigned tiles() const { return (packed_items + segment_window - 1) / segment_window + solo_count; }
};

template <int Threads, class Args>
GPUPRIM_DEVICE chunk_view view_chunk(const Args& a, std::size_t chunk,
                                     typename block_scan<unsigned, Threads>::temp_storage& scan) {
  chunk_view v;
  const std::size_t s = chunk * segment_chunk + threadIdx.x;
  if (threadIdx.x < segment_chunk && s < a.segments) segment_extent(a, s, v.first, v.length);
  v.tier = tier_of(v.length);
  block_scan<unsigned, Threads>(scan).exclusive_sum(v.tier == segment_tier::packed ? unsigned(v.length) : 0u,
                                                    v.packed_start, v.packed_items);
  __syncthreads();  // the scan's storage is reused
  block_scan<unsigned, Threads>(scan).exclusive_sum(v.tier == segment_tier::solo ? 1u : 0u, v.solo_rank,
                                                    v.solo_count);
  __syncthreads();
  return v;
}

/// One block per chunk of segments: the thread and warp tiers' segments sorted, the block tier's
/// tiles queued, the big segments registered.
template <class Key, class Value, bool Descending, class Args>
__global__ void __launch_bounds__(segment_chunk) segmented_classify_kernel(const Args a) {
  __shared__ unsigned packed_items, solo_count, warp_count, queue_base, warp_base;
  if (threadIdx.x == 0) {
    packed_items = 0;
    solo_count = 0;
    warp_count = 0;
  }
  __syncthreads();
  const std::size_t s = std::size_t(blockIdx.x) * segment_chunk + threadIdx.x;
  std::size_t first = 0, length = 0;
  if (s < a.segments) segment_extent(a, s, first, length);
  unsigned warp_at = 0;
  switch (tier_of(length)) {
    case segment_tier::thread:
      if (length > 0) sort_by_thread<Key, Value, Descending>(a, first, static_cast<int>(length));
      break;
    case segment_tier::warp:
      warp_at = atomicAdd(&warp_count, 1u);
      break;
    case segment_tier::packed:
      atomicAdd(&packed_items, static_cast<unsigned>(length));
      break;
    case segment_tier::solo:
      atomicAdd(&solo_count, 1u);
      break;
    case segment_tier::big:
      register_big_segment(a, first, length);
      break;
  }
  __syncthreads();
  const unsigned tiles = (packed_items + segment_window - 1) / segment_window + solo_count;
  if (tiles == 0 && warp_count == 0) return;
  if (threadIdx.x == 0) {
    if (tiles > 0) queue_base = atomicAdd(&a.control->seg.queue_length, tiles);
    if (warp_count > 0) warp_base = atomicAdd(&a.control->seg.warp_queue_length, warp_count);
  }
  __syncthreads();
  if (tier_of(length) == segment_tier::warp) a.warp_queue[warp_base + warp_at] = (first << 8) | length;
  for (unsigned k = threadIdx.x; k < tiles; k += segment_chunk) a.queue[queue_base + k] = make_uint2(blockIdx.x, k);
}

/// One tile of the block tier: the segments it holds (index g in the tile: keys from src[g], tile
/// positions from start[g]), their keys sorted by value and then by g, each written back to its
/// segment at its rank.
template <class Key, class Value, bool Descending, class Args>
class segment_block_tile {
  using shape_t = segment_sort_block_shape;
  static constexpr int threads = shape_t::block_threads;
  static constexpr int items = shape_t::items_per_thread;
  static constexpr int max_segments = 1 << segment_index_bits;
  using bits_t = typename radix_key<Key>::bits_t;
  using word_t = segment_word_t<Key>;
  using by_value_t = block_radix_sort<word_t, threads, items, unsigned>;
  using by_segment_t = block_radix_sort<unsigned, threads, items>;
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  static_assert(threads >= segment_chunk, "a thread per segment of the chunk");

 public:
  struct temp_storage {
    union {
      typename by_value_t::temp_storage by_value;
      typename by_segment_t::temp_storage by_segment;
      typename block_scan<unsigned, threads>::temp_storage scan;
    } u;
    std::size_t src[max_segments];
    unsigned start[max_segments + 1];
    unsigned count;
  };

  GPUPRIM_DEVICE segment_block_tile(temp_storage& s, const Args& a) : s_(s), a_(a) {}

  GPUPRIM_DEVICE void process(unsigned chunk, unsigned k) {
    find_segments(chunk, k);
    __syncthreads();  // the segment table is complete
    const unsigned count = s_.count;
    if (count == 0) return;  // the last window of a line can hold no segment's start
    word_t words[items];
    unsigned payload[items];
    load(words, payload);
    by_value_t(s_.u.by_value).sort(words, payload, a_.sort.begin_bit, a_.sort.end_bit);
    if (count > 1) {
      __syncthreads();  // the storage is reused
      int index_bits = 0;
      while ((1u << index_bits) < count) ++index_bits;
      by_segment_t(s_.u.by_segment).sort(payload, segment_position_bits, segment_position_bits + index_bits);
    }
    store(payload);
  }

 private:
  /// Tile k of the chunk: the segments that start in window k of the chunk's packed line, or (past
  /// the windows) one solo segment.
  GPUPRIM_DEVICE void find_segments(unsigned chunk, unsigned k) {
    const chunk_view v = view_chunk<threads>(a_, chunk, s_.u.scan);
    const unsigned windows = (v.packed_items + segment_window - 1) / segment_window;
    if (k >= windows) {
      if (v.tier == segment_tier::solo && v.solo_rank == k - windows) {
        s_.src[0] = v.first;
        s_.start[0] = 0;
        s_.start[1] = static_cast<unsigned>(v.length);
        s_.count = 1;
      }
      return;
    }
    const bool owned = v.tier == segment_tier::packed && v.packed_start / segment_window == k;
    unsigned g = 0, count = 0;
    block_scan<unsigned, threads>(s_.u.scan).exclusive_sum(owned ? 1u : 0u, g, count);
    // The window's first segment starts at the first packed key at or after k * window.
    __syncthreads();
    if (owned && g == 0) s_.start[max_segments] = v.packed_start;  // a spare slot: the tile's origin
    __syncthreads();
    const unsigned origin = s_.start[max_segments];
    __syncthreads();
    if (owned) {
      s_.src[g] = v.first;
      s_.start[g] = v.packed_start - origin;
      if (g + 1 == count) s_.start[count] = v.packed_start - origin + static_cast<unsigned>(v.length);
    }
    if (threadIdx.x == 0) s_.count = count;
  }

  /// Blocked arrangement: thread t holds tile positions t * items .. t * items + items - 1, each
  /// with its segment (one search, then a walk) and a payload of (segment, position).
  GPUPRIM_DEVICE void load(word_t (&words)[items], unsigned (&payload)[items]) const {
    const unsigned count = s_.count;
    const unsigned span = s_.start[count];
    const word_t window = rank_sort_window<word_t>(a_.sort.begin_bit, a_.sort.end_bit);
    const bits_t* in = reinterpret_cast<const bits_t*>(a_.sort.keys_in);
    const unsigned p0 = threadIdx.x * items;
    unsigned lo = 0, hi = count;  // the last g with start[g] <= p0
    while (hi - lo > 1) {
      const unsigned mid = (lo + hi) / 2;
      if (s_.start[mid] <= p0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    unsigned g = lo;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned p = p0 + i;
      while (g + 1 < count && s_.start[g + 1] <= p) ++g;
      words[i] = ~word_t(0);
      payload[i] = ((max_segments - 1u) << segment_position_bits) | p;  // after every real item
      if (p < span) {
        words[i] = rank_sort_value<Key, Descending>(in[s_.src[g] + (p - s_.start[g])], window);
        payload[i] = (g << segment_position_bits) | p;
      }
    }
  }

  /// Sorted position q takes the key (and value) that started at position p of segment g.
  GPUPRIM_DEVICE void store(const unsigned (&payload)[items]) const {
    const unsigned span = s_.start[s_.count];
    const bits_t* in = reinterpret_cast<const bits_t*>(a_.sort.keys_in);
    bits_t* out = reinterpret_cast<bits_t*>(a_.sort.keys_out);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned q = threadIdx.x * items + i;
      if (q < span) {
        const unsigned g = payload[i] >> segment_position_bits;
        const unsigned p = payload[i] & ((1u << segment_position_bits) - 1u);
        const std::size_t src = s_.src[g] + (p - s_.start[g]);
        const std::size_t dst = s_.src[g] + (q - s_.start[g]);
        out[dst] = in[src];
        if constexpr (has_values) a_.sort.values_out[dst] = a_.sort.values_in[src];
      }
    }
  }

  temp_storage& s_;
  const Args& a_;
};

/// Resident blocks: every warp over the warp tier's segments, then every block over the queue of
/// block-tier tiles.
template <class Key, class Value, bool Descending, class Args>
__global__ void __launch_bounds__(segment_sort_block_shape::block_threads, 2) segmented_block_kernel(const Args a) {
  using tile_t = segment_block_tile<Key, Value, Descending, Args>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& s = *reinterpret_cast<typename tile_t::temp_storage*>(smem);
  constexpr unsigned warps = segment_sort_block_shape::block_threads / 32;
  const unsigned warp_queued = a.control->seg.warp_queue_length;
  for (unsigned i = blockIdx.x * warps + threadIdx.x / 32; i < warp_queued; i += gridDim.x * warps) {
    const std::size_t entry = a.warp_queue[i];
    sort_by_warp<Key, Value, Descending>(a, entry >> 8, static_cast<int>(entry & 0xff), static_cast<int>(threadIdx.x % 32));
  }
  const unsigned queued = a.control->seg.queue_length;
  for (unsigned i = blockIdx.x; i < queued; i += gridDim.x) {
    const uint2 work = a.queue[i];
    tile_t(s, a).process(work.x, work.y);
    __syncthreads();  // the next tile reuses the storage
  }
}

/// Shared memory of a big-segment histogram block.
template <int Threads>
struct segment_histogram_storage {
  unsigned counts[radix_max_passes][radix_bins];
  typename block_scan<unsigned long long, Threads>::temp_storage scan;
  bool last;
};

/// The last histogram tile of a big segment: its counts into offsets (global positions), and
/// whether any position has two digits; the last segment chooses the passes.
template <class Args, int Threads>
GPUPRIM_DEVICE void finish_segment_histogram(const Args& a, segment_histogram_storage<Threads>& s,
                                             const big_segment& seg, unsigned long long* offsets) {
  static_assert(Threads == radix_bins, "one thread per digit");
  for (int p = 0; p < a.passes; ++p) {
    const unsigned long long c = __ldcg(&offsets[p * radix_bins + threadIdx.x]);
    unsigned long long before;
    block_scan<unsigned long long, Threads>(s.scan).exclusive_sum(c, before);
    offsets[p * radix_bins + threadIdx.x] = seg.begin + before;
    if (__syncthreads_count(c != 0) > 1 && threadIdx.x == 0) atomicOr(&a.control->seg.nonuniform, 1u << p);
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    s.last = atomicAdd(&a.control->seg.segments_done, 1u) + 1 == big_segments_of(a.control->seg.big);
  }
  __syncthreads();
  if (!s.last || threadIdx.x != 0) return;
  __threadfence();
  radix_sort_control* control = &a.control->sort;
  const unsigned nonuniform = __ldcg(&a.control->seg.nonuniform);
  unsigned active = 0;
  for (int p = 0; p < a.passes; ++p) {
    if ((nonuniform >> p & 1u) == 0) continue;  // every big segment has one digit here
    const int shift = a.sort.begin_bit + p * radix_bits;
    control->pass_shift[active] = shift;
    control->pass_bits[active] = a.sort.end_bit - shift < radix_bits ? a.sort.end_bit - shift : radix_bits;
    control->pass_position[active] = p;
    ++active;
  }
  control->active_passes = active;
  control->digits_fixed = 1;
}

/// Adds the digits of every pass of keys[base, stop) to the block's counts: radix_histogram_items
/// keys a thread in flight, digits with the -0.0 fix-up (the segmented passes always fix up).
template <class Key, bool Descending, int Threads>
GPUPRIM_DEVICE void count_segment_digits(segment_histogram_storage<Threads>& s,
                                         const typename radix_key<Key>::bits_t* keys, std::size_t base,
                                         std::size_t stop, int passes, int begin_bit, int end_bit) {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  constexpr int items = radix_histogram_items;
  constexpr int key_passes = traits::bits / radix_bits;
  for (std::size_t chunk = base; chunk < stop; chunk += std::size_t(Threads) * items) {
    bits_t ordered[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::size_t at = chunk + std::size_t(i) * Threads + threadIdx.x;
      ordered[i] = at < stop ? traits::order(keys[at], Descending) : bits_t(0);
    }
#pragma unroll
    for (int p = 0; p < key_passes; ++p) {
      if (p >= passes) break;
      const int shift = begin_bit + p * radix_bits;
      const int bits = end_bit - shift < radix_bits ? end_bit - shift : radix_bits;
#pragma unroll
      for (int i = 0; i < items; ++i) {
        if (chunk + std::size_t(i) * Threads + threadIdx.x < stop) {
          atomicAdd(&s.counts[p][traits::digit(ordered[i], shift, bits)], 1u);
        }
      }
    }
  }
}

/// Counts the digits of every pass of each big segment, a tile at a time (the passes' tiles); also
/// zeroes the look-back states.
template <class Key, bool Descending, class Args>
__global__ void __launch_bounds__(radix_bins) segmented_histogram_kernel(const Args a, uint4* states) {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  __shared__ segment_histogram_storage<radix_bins> s;
  allow_next_grid();  // pass 0 waits for this grid before reading anything
  const unsigned long long big = a.control->seg.big;
  const unsigned long long tiles = big_tiles_of(big);
  const unsigned slots = big_segments_of(big);
  const std::size_t vectors = tiles * radix_bins * sizeof(unsigned long long) / sizeof(uint4);
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
       i += std::size_t(gridDim.x) * blockDim.x) {
    states[i] = make_uint4(0, 0, 0, 0);
  }
  const bits_t* keys = reinterpret_cast<const bits_t*>(a.sort.keys_in);
  const auto tile_items = static_cast<std::size_t>(a.onesweep_tile_items);
  for (unsigned long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    for (int k = threadIdx.x; k < a.passes * radix_bins; k += radix_bins) s.counts[k / radix_bins][k % radix_bins] = 0;
    __syncthreads();
    // The last slot whose first tile is at most t; the passes read it from the map.
    const auto slot = static_cast<unsigned>(
        block_partition_point<radix_bins>(slots, [&](std::size_t i) { return a.big[i].first_tile <= t; }) - 1);
    if (threadIdx.x == 0) a.tile_segment[t] = slot;
    const big_segment seg = a.big[slot];
    const std::size_t base = seg.begin + (t - seg.first_tile) * tile_items;
    const std::size_t stop = seg.begin + seg.length - base < tile_items ? seg.begin + seg.length : base + tile_items;
    count_segment_digits<Key, Descending>(s, keys, base, stop, a.passes, a.sort.begin_bit, a.sort.end_bit);
    __syncthreads();
    unsigned long long* offsets = a.big_offsets + std::size_t(slot) * a.passes * radix_bins;
    for (int p = 0; p < a.passes; ++p) {
      const unsigned c = s.counts[p][threadIdx.x];
      if (c != 0) atomicAdd(&offsets[p * radix_bins + threadIdx.x], static_cast<unsigned long long>(c));
    }
    __threadfence();
    __syncthreads();
    const unsigned seg_tiles = static_cast<unsigned>((seg.length + tile_items - 1) / tile_items);
    if (threadIdx.x == 0) s.last = atomicAdd(&a.big_arrivals[slot], 1u) + 1 == seg_tiles;
    __syncthreads();
    if (s.last) {
      __threadfence();
      finish_segment_histogram(a, s, seg, offsets);
    }
    __syncthreads();  // the counts are reused
  }
}

/// Pass `slot` over the big segments' tiles, one a block, taken in order from a counter. The grid is
/// the host's bound on the tiles; blocks past the device's count leave before taking one, so the
/// counter hands out exactly the tiles there are. (A loop over tiles in resident blocks spilled
/// 50-200 bytes; this kernel spills none.)
template <class Key, class Value, bool Descending, class Config, class Args>
__global__ void __launch_bounds__(Config::block_threads, Config::min_blocks_per_sm)
    segmented_pass_kernel(const Args a, int slot, unsigned long long* states) {
  using storage_t = onesweep_storage<Key, Value, Config>;
  extern __shared__ __align__(16) unsigned char smem[];
  storage_t& s = *reinterpret_cast<storage_t*>(smem);
  wait_for_previous_grid();
  if (blockIdx.x >= big_tiles_of(a.control->seg.big)) return;
  if (threadIdx.x == 0) s.tile = atomicAdd(&a.control->sort.head.tile_counter[slot], 1u);
  __syncthreads();
  const unsigned tile = s.tile;
  const unsigned segment = a.tile_segment[tile];
  const big_segment seg = a.big[segment];
  const std::size_t k = tile - seg.first_tile;
  const std::size_t base = seg.begin + k * Config::tile_items;
  const std::size_t left = seg.begin + seg.length - base;
  const onesweep_run run{base, left < std::size_t(Config::tile_items) ? static_cast<int>(left) : Config::tile_items,
                         k == 0, a.big_offsets + std::size_t(segment) * a.passes * radix_bins};
  onesweep_tile<Key, Value, Descending, Config, true>(a.sort, s, slot, tile, run, states).process();
}

/// Bounds on the device-side counts, from n and the number of segments, that size the workspace.
struct segmented_sort_bounds {
  std::size_t queue = 0;      // block-tier tiles
  std::size_t warp_queue = 0; // warp-tier segments
  std::size_t slots = 0;      // big segments
  std::size_t tiles = 0;      // Onesweep tiles
};
inline segmented_sort_bounds bound_segmented_sort(std::size_t n, std::size_t segments, std::size_t onesweep_tile) {
  segmented_sort_bounds b;
  if (n == 0 || segments == 0) return b;
  const std::size_t chunks = (segments + segment_chunk - 1) / segment_chunk;
  if (n > std::size_t(segment_sort_thread_max)) {
    b.queue = n / segment_window + n / (segment_packed_max + 1) + chunks + 1;
    const std::size_t most = n / (segment_sort_thread_max + 1);
    b.warp_queue = most < segments ? most : segments;
  }
  if (n > std::size_t(segment_tile_items)) {
    const std::size_t most = n / (segment_tile_items + 1);
    b.slots = most < segments ? most : segments;
    b.tiles = n / onesweep_tile + b.slots;
  }
  return b;
}

template <class Key, class Value>
using segmented_pass_config = typename radix_configs<Key, Value>::many_waves;

/// The workspace of a segmented sort: control, queue, big-segment tables, look-back states, the
/// alternate keys and values (big segments only).
template <class Key, class Value>
workspace_layout<10> segmented_sort_workspace(std::size_t n, std::size_t segments, int passes) {
  const segmented_sort_bounds b = bound_segmented_sort(n, segments, segmented_pass_config<Key, Value>::tile_items);
  workspace_layout<10> layout;
  if (n == 0 || segments == 0) return layout;
  layout.part_bytes[9] = b.warp_queue * sizeof(std::size_t);
  const std::size_t rows = std::size_t(passes > 0 ? passes : 1) * radix_bins;
  layout.part_bytes[0] = sizeof(segmented_sort_control);
  layout.part_bytes[1] = b.queue * sizeof(uint2);
  layout.part_bytes[2] = b.slots * sizeof(big_segment);
  layout.part_bytes[3] = b.slots * rows * sizeof(unsigned long long);
  layout.part_bytes[4] = b.slots * sizeof(unsigned);
  layout.part_bytes[5] = b.tiles * sizeof(unsigned);
  layout.part_bytes[6] = b.tiles * radix_bins * sizeof(unsigned long long);
  layout.part_bytes[7] = b.slots > 0 ? n * sizeof(Key) : 0;
  layout.part_bytes[8] = b.slots > 0 ? n * radix_value_bytes<Value> : 0;
  return layout;
}

/// What the host can check of a segmented sort's arguments: the bit range, and where there is
/// work the pointers and offsets (it cannot read the offsets themselves).
template <class Key, class Value, class BeginIt, class EndIt>
bool segmented_sort_arguments_valid(const Key* keys_in, const Key* keys_out, const Value* values_in,
                                    const Value* values_out, std::size_t n, std::size_t segments, const BeginIt& begin,
                                    const EndIt& end, int begin_bit, int end_bit) {
  if (!radix_bits_valid<Key>(begin_bit, end_bit)) return false;
  return n == 0 || segments == 0 ||
         (radix_pointers_valid(keys_in, keys_out, values_in, values_out, n) && !is_null_iterator(begin) &&
          !is_null_iterator(end));
}

/// Both forms of the four segmented sorts end here. With `size_query` only `temp_bytes` is set.
template <bool Descending, class Key, class Value, class BeginIt, class EndIt>
cudaError_t segmented_radix_sort(void* temp, std::size_t& temp_bytes, bool size_query, const Key* keys_in,
                                 Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                                 std::size_t segments, BeginIt begin, EndIt end, int begin_bit, int end_bit,
                                 cudaStream_t stream) {
  using args_t = segmented_sort_args<Key, Value, BeginIt, EndIt>;
  using config = segmented_pass_config<Key, Value>;
  if (!radix_bits_valid<Key>(begin_bit, end_bit)) return cudaErrorInvalidValue;
  const bool work = n > 0 && segments > 0;
  if (!size_query &&
      !segmented_sort_arguments_valid(keys_in, keys_out, values_in, values_out, n, segments, begin, end, begin_bit,
                                      end_bit)) {
    return cudaErrorInvalidValue;
  }
  const int passes = (end_bit - begin_bit + radix_bits - 1) / radix_bits;
  const workspace_layout<10> layout = segmented_sort_workspace<Key, Value>(n, segments, passes);
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  if (!work) return cudaSuccess;
  void* parts[10];
  cudaError_t e = layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  device_facts device;
  e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  const segmented_sort_bounds bounds = bound_segmented_sort(n, segments, config::tile_items);
  // Slots are counted in the top 24 bits of one 64-bit counter: n below 4097 x 2^24 (6.9e10) keys.
  if (bounds.slots >= (std::size_t(1) << (64 - big_tile_bits))) return cudaErrorInvalidValue;
  auto* control = static_cast<segmented_sort_control*>(parts[0]);
  args_t a{{keys_in, keys_out, static_cast<typename radix_key<Key>::bits_t*>(parts[7]), values_in, values_out,
            static_cast<Value*>(parts[8]), n, begin_bit, end_bit, &control->sort},
           segments, begin, end, passes, config::tile_items, control,
           static_cast<uint2*>(parts[1]), static_cast<std::size_t*>(parts[9]), static_cast<big_segment*>(parts[2]),
           static_cast<unsigned long long*>(parts[3]), static_cast<unsigned*>(parts[4]),
           static_cast<unsigned*>(parts[5])};
  static_assert(offsetof(segmented_sort_control, sort) == sizeof(segmented_sort_counters), "one memset");
  e = cudaMemsetAsync(control, 0, sizeof(segmented_sort_counters) + sizeof(radix_sort_counters), stream);
  // The big segments' histograms and arrival counts (up to the bound on big segments).
  if (e == cudaSuccess && bounds.slots > 0) e = cudaMemsetAsync(parts[3], 0, layout.part_bytes[3], stream);
  if (e == cudaSuccess && bounds.slots > 0) e = cudaMemsetAsync(parts[4], 0, layout.part_bytes[4], stream);
  if (e != cudaSuccess) return e;
  const std::size_t chunks = (segments + segment_chunk - 1) / segment_chunk;
  e = launch(segmented_classify_kernel<Key, Value, Descending, args_t>, static_cast<unsigned>(chunks), segment_chunk,
             stream, launch_mode::plain, a);
  if (e != cudaSuccess || bounds.queue == 0) return e;
  const std::size_t sms = std::size_t(device.sm_count > 0 ? device.sm_count : 1);
  {
    constexpr auto kernel = segmented_block_kernel<Key, Value, Descending, args_t>;
    constexpr std::size_t smem = sizeof(typename segment_block_tile<Key, Value, Descending, args_t>::temp_storage);
    int resident = 0;
    e = allow_smem_and_count_resident<kernel>(smem, segment_sort_block_shape::block_threads, device.ordinal, resident);
    const std::size_t most = sms * std::size_t(resident > 0 ? resident : 1);
    if (e == cudaSuccess) {
      const std::size_t work = bounds.queue + bounds.warp_queue / (segment_sort_block_shape::block_threads / 32);
      e = launch_with_smem(kernel, static_cast<unsigned>(work < most ? work : most),
                           segment_sort_block_shape::block_threads, smem, stream, launch_mode::plain, a);
    }
  }
  if (e != cudaSuccess || bounds.tiles == 0) return e;
  auto* states = static_cast<unsigned long long*>(parts[6]);
  {
    constexpr auto kernel = segmented_histogram_kernel<Key, Descending, args_t>;
    int resident = 0;
    e = resident_blocks_per_sm<kernel>(radix_bins, device.ordinal, resident);
    const std::size_t most = sms * std::size_t(resident > 0 ? resident : 1);
    if (e == cudaSuccess) {
      e = launch(kernel, static_cast<unsigned>(bounds.tiles < most ? bounds.tiles : most), radix_bins, stream,
                 launch_mode::plain, a, reinterpret_cast<uint4*>(states));
    }
  }
  if (e != cudaSuccess) return e;
  constexpr auto pass = segmented_pass_kernel<Key, Value, Descending, config, args_t>;
  constexpr std::size_t smem = sizeof(onesweep_storage<Key, Value, config>);
  e = allow_dynamic_smem<pass>(smem, device.ordinal);
  if (e != cudaSuccess) return e;
  const auto grid = static_cast<unsigned>(bounds.tiles);
  const launch_mode chained = device.cc_major >= 9 ? launch_mode::overlap_previous : launch_mode::plain;
  // An empty bit range still runs pass 0, which copies each big segment (no pass is active).
  const int launched = passes > 0 ? passes : 1;
  for (int slot = 0; slot < launched && e == cudaSuccess; ++slot) {
    e = launch_with_smem(pass, grid, config::block_threads, smem, stream, chained, a, slot, states);
  }
  return e;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
