// Segmented reduce: one result per segment [begin[s], end[s]) of the input, for any mix of sizes,
// in two launches.
//
// First the segments' lengths are scanned (the device scan) into `starts`: starts[s] is the number
// of items in the segments before s, and starts[S] = W, all items. The work is then a line of W
// items, which a grid of resident blocks cuts into equal ranges. Block b owns the segments that
// start in its range (the last block also those that start at W: trailing empty ones) and reduces
// each by its size: a thread one of up to segment_thread_max items, a warp one of up to
// segment_warp_max, the whole block a longer one (reduce_tile, vector loads). A segment that runs
// past its owner's range leaves the owner's part as a tail partial; every block it runs through
// leaves its part as a head partial, and after a grid-wide barrier the owner folds them in order.
// So the load is even for any sizes: 16 huge segments keep every SM busy, and 2^22 tiny ones are
// a few thousand threads' serial loops. Results depend only on the input and the grid size.
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

#include <cooperative_groups.h>

#include "../block/block_search.cuh"
#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/l2_access.cuh"
#include "../detail/launch.cuh"
#include "../detail/shuffle.cuh"
#include "../detail/workspace.cuh"
#include "../shape.cuh"
#include "../tile/reduce_tile.cuh"
#include "../warp/warp_reduce.cuh"
#include "scan_kernels.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Segments of up to this many items are reduced by one thread, of up to segment_warp_max by a
/// warp, longer ones by the block (not yet tuned: chosen so that a thread's serial loop and a
/// warp's loads stay within a few hundred cycles).
inline constexpr std::size_t segment_thread_max = 16;
inline constexpr std::size_t segment_warp_max = 4096;

/// The segments' lengths (0 where end <= begin), and 0 at index `segments`, so that an exclusive
/// scan over segments + 1 items ends with the total.
template <class BeginIt, class EndIt>
struct segment_length_input {
  using value_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using pointer = const std::size_t*;
  using reference = std::size_t;
  using iterator_category = std::random_access_iterator_tag;
  BeginIt begin;
  EndIt end;
  std::size_t segments;
  GPUPRIM_DEVICE std::size_t operator[](std::size_t s) const {
    if (s >= segments) return 0;
    const auto b = begin[s];
    const auto e = end[s];
    return e > b ? static_cast<std::size_t>(e - b) : 0;
  }
};

/// Where a block's head and tail partials are, and what its flags say.
enum segment_flags : unsigned { head_valid = 1, head_ends_segment = 2, tail_valid = 4 };

template <class AccT>
struct segment_partials {
  AccT* head;
  AccT* tail;
  unsigned* flags;
};

/// A block's share of the line and the segments it owns, found by thread 0.
struct segment_share {
  std::size_t w0, w1;            // the block's items of the line
  std::size_t own_first, own_end;  // the segments it owns
  std::size_t head_segment;      // the segment it starts inside (when it does), else ~0
  bool tail;                     // its last owned segment runs past w1
};

/// Block b's share of the line of W = starts[segments] items cut among `grid` blocks, where
/// `first_at_least(w)` is the first segment whose start is >= w (`segments` when none). A pure
/// function (tests/host/segmented_share.cu checks it over tables): block b takes items
/// [w0, w1) and owns the segments that start there (the last block also those that start at W).
template <class FirstAtLeast>
GPUPRIM_HOST_DEVICE segment_share make_segment_share(const std::size_t* starts, std::size_t segments,
                                                     std::size_t b, std::size_t grid, FirstAtLeast first_at_least) {
  const std::size_t W = starts[segments];
  const std::size_t per = W / grid, extra = W % grid;
  segment_share sh;
  sh.w0 = b * per + (b < extra ? b : extra);
  sh.w1 = sh.w0 + per + (b < extra ? 1 : 0);
  sh.own_first = first_at_least(sh.w0);
  sh.own_end = b + 1 == grid ? segments : first_at_least(sh.w1);
  if (sh.own_end < sh.own_first) sh.own_end = sh.own_first;
  // The block starts inside the last segment that starts before w0 when none starts at w0.
  sh.head_segment = ~std::size_t(0);
  if (sh.w0 < sh.w1 && (sh.own_first == segments || starts[sh.own_first] > sh.w0)) sh.head_segment = sh.own_first - 1;
  sh.tail = sh.own_end > sh.own_first && starts[sh.own_end] > sh.w1;
  return sh;
}

template <class Shape, class InputIt, class OutputIt, class BeginIt, class AccT, class Op>
class segmented_reduce_block {
  using source_t = decltype(make_item_source(std::declval<InputIt>(), std::size_t(0)));
  using tile_t = reduce_tile<Shape, source_t, AccT, Op>;
  static constexpr int threads = Shape::block_threads;
  static constexpr int warps = threads / 32;

 public:
  struct temp_storage {
    typename tile_t::temp_storage tile;
    segment_share share;
    unsigned warp_count, block_count;
    unsigned warp_list[threads];
    unsigned block_list[threads];
  };

  GPUPRIM_DEVICE segmented_reduce_block(temp_storage& s, InputIt in, OutputIt out, std::size_t segments,
                                        BeginIt begin, const std::size_t* starts, AccT init, Op op)
      : s_(s), in_(in), out_(out), segments_(segments), begin_(begin), starts_(starts), init_(init),
        op_(op) {}

  /// Everything but the fold of the partials across blocks (after the grid-wide barrier).
  GPUPRIM_DEVICE void reduce_own(const segment_partials<AccT>& partials) {
    const segment_share sh = find_share();
    if (threadIdx.x == 0) s_.share = sh;
    unsigned flags = 0;
    AccT part;
    if (sh.head_segment != ~std::size_t(0)) {  // the piece of a segment that started before w0
      const std::size_t h = sh.head_segment;
      const std::size_t end_in_line = starts_[h + 1];
      const std::size_t stop = end_in_line < sh.w1 ? end_in_line : sh.w1;
      const std::size_t at = item_index(begin_[h]) + (sh.w0 - starts_[h]);
      if (reduce_piece(at, stop - sh.w0, part) && threadIdx.x == 0) partials.head[blockIdx.x] = part;
      flags |= head_valid | (end_in_line <= sh.w1 ? head_ends_segment : 0u);
    }
    const std::size_t own_stop = sh.tail ? sh.own_end - 1 : sh.own_end;
    for (std::size_t base = sh.own_first; base < own_stop; base += threads) reduce_chunk(base, own_stop);
    if (sh.tail) {  // the owned part of the last segment, which runs on into the next blocks
      const std::size_t l = sh.own_end - 1;
      if (reduce_piece(item_index(begin_[l]), sh.w1 - starts_[l], part) && threadIdx.x == 0) {
        partials.tail[blockIdx.x] = part;
      }
      flags |= tail_valid;
    }
    if (threadIdx.x == 0) partials.flags[blockIdx.x] = flags;
  }

  /// After the barrier: the owner of a segment that ran on folds the next blocks' head partials.
  GPUPRIM_DEVICE void fold_tail(const segment_partials<AccT>& partials) const {
    if (threadIdx.x != 0 || !s_.share.tail) return;
    AccT acc = l2_load(partials.tail + blockIdx.x);
    for (unsigned b = blockIdx.x + 1; b < gridDim.x; ++b) {
      const unsigned f = l2_load(partials.flags + b);
      if ((f & head_valid) == 0) continue;  // an empty range
      acc = static_cast<AccT>(op_(acc, l2_load(partials.head + b)));
      if (f & head_ends_segment) break;
    }
    out_[s_.share.own_end - 1] = static_cast<AccT>(op_(init_, acc));
  }

 private:
  template <class Offset>
  static GPUPRIM_DEVICE std::size_t item_index(const Offset& o) {
    return static_cast<std::size_t>(o);
  }

  /// The block's share (every thread computes it; thread 0 keeps it for fold_tail).
  GPUPRIM_DEVICE segment_share find_share() {
    return make_segment_share(starts_, segments_, blockIdx.x, gridDim.x, [&](std::size_t w) {
      return block_partition_point<threads>(segments_, [&](std::size_t i) { return starts_[i] < w; });
    });
  }

  /// Reduces items in[at, at + len) with the whole block; the result in thread 0. Every thread calls.
  GPUPRIM_DEVICE bool reduce_piece(std::size_t at, std::size_t len, AccT& result) {
    const source_t source = make_item_source(in_ + at, len);
    const std::size_t full_tiles = source.vectors / tile_t::tile_vectors;
    const bool any = tile_t(s_.tile, source, op_).reduce_tiles(0, 1, full_tiles, true, result);
    __syncthreads();  // the tile's storage is free again
    return any;
  }

  /// Owned segments [base, min(base + threads, stop)): the short ones here, a thread each; the
  /// others listed for the warps and the block.
  GPUPRIM_DEVICE void reduce_chunk(std::size_t base, std::size_t stop) {
    if (threadIdx.x == 0) {
      s_.warp_count = 0;
      s_.block_count = 0;
    }
    __syncthreads();
    const std::size_t s = base + threadIdx.x;
    if (s < stop) {
      const std::size_t len = starts_[s + 1] - starts_[s];
      if (len <= segment_thread_max) {
        AccT acc = init_;
        const std::size_t at = len > 0 ? item_index(begin_[s]) : 0;
        for (std::size_t k = 0; k < len; ++k) acc = static_cast<AccT>(op_(acc, in_[at + k]));
        out_[s] = acc;
      } else if (len <= segment_warp_max) {
        s_.warp_list[atomicAdd(&s_.warp_count, 1u)] = threadIdx.x;
      } else {
        s_.block_list[atomicAdd(&s_.block_count, 1u)] = threadIdx.x;
      }
    }
    __syncthreads();
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (unsigned i = warp; i < s_.warp_count; i += warps) reduce_by_warp(base + s_.warp_list[i], lane);
    for (unsigned i = 0; i < s_.block_count; ++i) {
      const std::size_t t = base + s_.block_list[i];
      AccT part;
      if (reduce_piece(item_index(begin_[t]), starts_[t + 1] - starts_[t], part) && threadIdx.x == 0) {
        out_[t] = static_cast<AccT>(op_(init_, part));
      }
    }
    __syncthreads();  // the lists are read before the next chunk resets them
  }

  /// A segment of segment_thread_max < len <= segment_warp_max items by one warp: four loads in
  /// flight a lane, then the warp's reduce.
  GPUPRIM_DEVICE void reduce_by_warp(std::size_t s, unsigned lane) {
    const std::size_t at = item_index(begin_[s]);
    const std::size_t len = starts_[s + 1] - starts_[s];
    AccT acc = static_cast<AccT>(in_[at + (lane < len ? lane : 0)]);  // lanes >= len: not valid below
    std::size_t k = lane + 32;
    for (; k + 96 < len; k += 128) {
      const AccT x0 = static_cast<AccT>(in_[at + k]), x1 = static_cast<AccT>(in_[at + k + 32]);
      const AccT x2 = static_cast<AccT>(in_[at + k + 64]), x3 = static_cast<AccT>(in_[at + k + 96]);
      const AccT x23 = static_cast<AccT>(op_(x2, x3));
      acc = static_cast<AccT>(op_(static_cast<AccT>(op_(acc, x0)), static_cast<AccT>(op_(x1, x23))));
    }
    for (; k < len; k += 32) acc = static_cast<AccT>(op_(acc, in_[at + k]));
    const int valid = len < 32 ? static_cast<int>(len) : 32;
    const AccT total = warp_reduce<AccT>().reduce(acc, op_, valid);
    if (lane == 0) out_[s] = static_cast<AccT>(op_(init_, total));
  }

  temp_storage& s_;
  InputIt in_;
  OutputIt out_;
  std::size_t segments_;
  BeginIt begin_;
  const std::size_t* starts_;
  AccT init_;
  Op op_;
};

/// Launched cooperatively (every block resident): the grid-wide barrier orders the partials. The
/// segments' ends are in `starts` (the scanned lengths), so only their beginnings are passed.
template <class Shape, class InputIt, class OutputIt, class BeginIt, class AccT, class Op>
__global__ void __launch_bounds__(Shape::block_threads)
    segmented_reduce_kernel(InputIt in, OutputIt out, std::size_t segments, BeginIt begin,
                            const std::size_t* starts, segment_partials<AccT> partials, AccT init, Op op) {
  using block_t = segmented_reduce_block<Shape, InputIt, OutputIt, BeginIt, AccT, Op>;
  __shared__ typename block_t::temp_storage storage;
  block_t block(storage, in, out, segments, begin, starts, init, op);
  block.reduce_own(partials);
  cooperative_groups::this_grid().sync();
  block.fold_tail(partials);
}

/// Both forms of segmented_reduce end here. With `size_query` only `temp_bytes` is written.
template <class Shape, class InputIt, class OutputIt, class BeginIt, class EndIt, class AccT, class Op>
cudaError_t segmented_reduce(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, OutputIt out,
                             std::size_t segments, BeginIt begin, EndIt end, AccT init, Op op, cudaStream_t stream) {
  using input_t = iterator_value_t<InputIt>;
  static_assert(valid_shape_argument_v<Shape>,
                "the first template argument of gpuprim::segmented_reduce is a gpuprim::shape<...>, not a value type");
  using shape_t = shape_or_default<Shape, reduce_default_shape<input_t>>;
  if (!size_query && segments > 0 &&
      (is_null_iterator(in) || is_null_iterator(out) || is_null_iterator(begin) || is_null_iterator(end))) {
    return cudaErrorInvalidValue;
  }
  device_facts device;
  cudaError_t e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  constexpr auto kernel = segmented_reduce_kernel<shape_t, InputIt, OutputIt, BeginIt, AccT, Op>;
  int resident = 0;
  e = resident_blocks_per_sm<kernel>(shape_t::block_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  const std::size_t grid = std::size_t(device.sm_count > 0 ? device.sm_count : 1) * std::size_t(resident > 0 ? resident : 1);

  const segment_length_input<BeginIt, EndIt> lengths{begin, end, segments};
  std::size_t scan_bytes = 0;
  e = scan<std::size_t, use_default_shape>(nullptr, scan_bytes, true, lengths, static_cast<std::size_t*>(nullptr),
                                           segments + 1, std::size_t(0), plus{}, stream);
  if (e != cudaSuccess) return e;
  workspace_layout<5> layout;
  layout.part_bytes[0] = (segments + 1) * sizeof(std::size_t);
  layout.part_bytes[1] = scan_bytes;
  layout.part_bytes[2] = grid * sizeof(AccT);
  layout.part_bytes[3] = grid * sizeof(AccT);
  layout.part_bytes[4] = grid * sizeof(unsigned);
  if (segments == 0) layout = workspace_layout<5>{};
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  if (segments == 0) return cudaSuccess;
  void* parts[5];
  e = layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  std::size_t* starts = static_cast<std::size_t*>(parts[0]);
  e = scan<std::size_t, use_default_shape>(parts[1], scan_bytes, false, lengths, starts, segments + 1,
                                           std::size_t(0), plus{}, stream);
  if (e != cudaSuccess) return e;
  const segment_partials<AccT> partials{static_cast<AccT*>(parts[2]), static_cast<AccT*>(parts[3]),
                                        static_cast<unsigned*>(parts[4])};
  return launch(kernel, static_cast<unsigned>(grid), shape_t::block_threads, stream, launch_mode::cooperative, in,
                out, segments, begin, static_cast<const std::size_t*>(starts), partials, init, op);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
