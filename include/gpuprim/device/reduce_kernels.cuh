// Device-wide reduce: the plan (its grouping, grid and workspace), the kernel and its dispatch.
//
// One pass, one launch. The items are cut into chunks of whole tiles, by a function of n alone
// (make_reduce_plan); each chunk reduces to one partial by a fixed tree, and block 0 reduces the
// partials by a fixed tree. Physical blocks, as many as are resident, run the chunks (block b
// chunks b, b + grid, ...), and tiles are read by logical index at any alignment
// (logical_vector_source): so the result's bits depend on n and the types only, never on the
// GPU, the grid or the input's address (the contract's reproducibility clause). One chunk (up to
// a tile) is one block and needs no workspace. With several, block 0 must know when every
// partial is written. The classic answer is a fence and an atomic ticket, the last block to draw
// one doing the final step; but a ticket must be zero before the first block draws, also the
// first time a workspace is used, and zeroing it costs a launch (measured: +4.5 us on an H200,
// as much as the whole reduce of 2^20 items). So the kernel is launched cooperatively and waits
// at a grid-wide barrier, whose state the driver resets for every launch: the workspace holds
// only the partials, needs no initialisation, and may be reused or captured in a graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cooperative_groups.h>

#include "../block/block_reduce.cuh"
#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/l2_access.cuh"
#include "../detail/launch.cuh"
#include "../detail/workspace.cuh"
#include "../shape.cuh"
#include "../tile/reduce_tile.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// The most chunks a reduce is cut into: up to this many tiles a chunk is one tile (the grid
/// streams through the input tile by tile, the last round as short as a tile); beyond, chunks of
/// several tiles keep the partials that one block reduces at the end within 32768 (128 KiB of
/// 4-byte partials, about a microsecond's read from L2). Part of the grouping: changing it
/// changes floating-point results' bits.
inline constexpr std::size_t reduce_max_chunks = 32768;

/// A device reduce's plan: a pure function of n, the tile and a grid limit (make_reduce_plan).
/// The grouping, every field but `grid`, depends on n and the tile alone: `vectors` full logical
/// vectors and `tail` items after them; `tiles` tiles of vectors (the last possibly partial); cut
/// into `chunks` chunks of `tiles_per_chunk` consecutive tiles (the last possibly fewer, and it
/// also holds the tail). `grid` blocks run the chunks: block b in round r runs chunk_of(b, r).
struct reduce_plan {
  std::size_t vectors = 0;
  int tail = 0;
  int block_threads = 0;
  std::size_t tile_vectors = 0;
  std::size_t tiles = 0;
  std::size_t tiles_per_chunk = 1;
  std::size_t chunks = 0;
  unsigned grid = 1;

  /// Block `block`'s chunk of round `round` (none when >= chunks): b, b + grid, b + 2 grid, ...,
  /// so the whole grid streams through memory together, every chunk run exactly once.
  GPUPRIM_HOST_DEVICE std::size_t chunk_of(unsigned block, unsigned round) const {
    return block + std::size_t(round) * grid;
  }
  /// Chunk c's tiles: [first_tile(c), end_tile(c)).
  GPUPRIM_HOST_DEVICE std::size_t first_tile(std::size_t c) const { return c * tiles_per_chunk; }
  GPUPRIM_HOST_DEVICE std::size_t end_tile(std::size_t c) const {
    const std::size_t end = first_tile(c) + tiles_per_chunk;
    return end < tiles ? end : tiles;
  }
  /// Threads [0, valid_threads(c)) of the block running chunk c hold an item: all of them, but
  /// in a last chunk of one partial tile (and the tail).
  GPUPRIM_HOST_DEVICE int valid_threads(std::size_t c) const {
    if (c + 1 < chunks) return block_threads;
    const std::size_t rest = vectors - first_tile(c) * tile_vectors;  // the last chunk's vectors
    const int from_vectors = rest < std::size_t(block_threads) ? int(rest) : block_threads;
    return from_vectors < tail ? tail : from_vectors;
  }
  /// Whether chunk c takes the unchecked loads: every chunk but the last, and for a shifted
  /// source (a misaligned pointer) not the first either (its first aligned vector starts before
  /// the input). The others read tile by tile with every load checked.
  GPUPRIM_HOST_DEVICE bool inner(std::size_t c, bool shifted) const { return c + 1 < chunks && (!shifted || c > 0); }
};

/// The plan for `n` items in chunks of `Tile` (a reduce_chunk) on at most `max_grid` blocks.
template <class Tile>
reduce_plan make_reduce_plan(std::size_t n, std::size_t max_grid) {
  reduce_plan plan;
  plan.vectors = n / Tile::vector_items;
  plan.tail = static_cast<int>(n % Tile::vector_items);
  plan.block_threads = Tile::block_threads;
  plan.tile_vectors = Tile::tile_vectors;
  plan.tiles = (plan.vectors + Tile::tile_vectors - 1) / Tile::tile_vectors;
  if (plan.tiles == 0) {
    plan.chunks = n > 0 ? 1 : 0;  // a tail alone, or nothing
  } else {
    plan.tiles_per_chunk = (plan.tiles + reduce_max_chunks - 1) / reduce_max_chunks;
    plan.chunks = (plan.tiles + plan.tiles_per_chunk - 1) / plan.tiles_per_chunk;
  }
  const std::size_t grid = plan.chunks < max_grid ? plan.chunks : max_grid;
  plan.grid = static_cast<unsigned>(grid < 1 ? 1 : grid);
  return plan;
}

/// The workspace for `n` items: one partial per chunk, or none for a single chunk. A function of
/// n and the types alone, so a size query holds for every grid, device and input address.
template <class Tile, class AccT>
workspace_layout<1> reduce_workspace(std::size_t n) {
  const reduce_plan plan = make_reduce_plan<Tile>(n, 1);
  workspace_layout<1> layout;
  if (plan.chunks > 1) layout.part_bytes[0] = plan.chunks * sizeof(AccT);
  return layout;
}

/// The accumulator of a reduce whose init is `InitT`: `InitT` itself, or `InitT::deferred_type` for an
/// init that the kernel converts to it where it is used, on the device (dist.cuh: a rank's slice
/// starts from its first item, read there).
template <class InitT, class = void>
struct reduce_acc {
  using type = InitT;
};
template <class InitT>
struct reduce_acc<InitT, std::void_t<typename InitT::deferred_type>> {
  using type = typename InitT::deferred_type;
};
template <class InitT>
using reduce_acc_t = typename reduce_acc<InitT>::type;

/// Launched cooperatively whenever `plan.chunks > 1` (the grid-wide barrier needs every block
/// resident); `partials` holds one accumulator per chunk. See `reduce_plan` for who runs what.
template <class Shape, class Source, class AccT, class OutputIt, class Op, class InitT>
__global__ void __launch_bounds__(Shape::block_threads,
                                  reduce_chunk<Shape, Source, AccT, Op>::min_blocks_per_sm)
    reduce_kernel(Source source, reduce_plan plan, AccT* partials, OutputIt out, InitT init, Op op) {
  using chunk_t = reduce_chunk<Shape, Source, AccT, Op>;
  using block_reduce_t = block_reduce<AccT, Shape::block_threads>;
  __shared__ union {
    typename chunk_t::temp_storage chunk;
    typename block_reduce_t::temp_storage partials;
  } storage;
  if (plan.chunks == 0) {
    if (threadIdx.x == 0) *out = static_cast<AccT>(init);
    return;
  }

  chunk_t chunk(storage.chunk, source, op);
  const unsigned block = blockIdx.x;
  const int warp = int(threadIdx.x) / 32;
  // The block's chunks are rounds [0, rounds). Two edge chunks, the last and (for a misaligned
  // pointer) the first, take checked loads and run after the others, so that the fast loop holds
  // no more registers than its own.
  const unsigned rounds = unsigned((plan.chunks - block + plan.grid - 1) / plan.grid);
  const bool first_is_edge = Source::shifted && block == 0 && plan.chunks > 1;
  const bool owns_last = (plan.chunks - 1) % plan.grid == block;
  const unsigned end_round = rounds - (owns_last ? 1u : 0u);
  for (unsigned round = first_is_edge ? 1u : 0u, k = 0; round < end_round; ++round, ++k) {
    const std::size_t c = plan.chunk_of(block, round);
    const AccT acc = chunk.fold_full(plan.first_tile(c), plan.end_tile(c));
    chunk.store_warp_result(acc, Shape::block_threads, k);
    // The step over the warps waits for the group's last chunk (or the loop's last).
    const unsigned in_group = k % chunk_t::group_chunks;
    if (in_group + 1 < chunk_t::group_chunks && round + 1 < end_round) continue;
    __syncthreads();  // the group's warp results are visible to the warps that combine them
    if (warp <= int(in_group)) {  // warp w: the group's chunk w
      const AccT partial = chunk.combine_warp_results(k - in_group + unsigned(warp), chunk_t::warps);
      if (threadIdx.x % 32 == 0) partials[plan.chunk_of(block, round - in_group + unsigned(warp))] = partial;
    }
  }
  if (first_is_edge || owns_last) {
    __syncthreads();  // the loop's last group is combined: its slots are free
    for (int e = 0; e < 2; ++e) {
      const std::size_t c = e == 0 ? 0 : plan.chunks - 1;
      if ((e == 0 && !first_is_edge) || (e == 1 && !owns_last)) continue;
      AccT acc;
      (void)chunk.fold_checked(plan.first_tile(c), plan.end_tile(c), c + 1 == plan.chunks, acc);
      const int valid = plan.valid_threads(c);
      chunk.store_warp_result(acc, valid, 0);
      __syncthreads();  // the warp results are visible to warp 0
      if (warp == 0) {
        const AccT partial = chunk.combine_warp_results(0, (valid + 31) / 32);
        if (threadIdx.x == 0) {
          if (plan.chunks == 1) {
            *out = static_cast<AccT>(op(static_cast<AccT>(init), partial));
          } else {
            partials[c] = partial;
          }
        }
      }
      __syncthreads();  // warp 0 has read the slot before the next edge chunk stores to it
    }
  }
  if (plan.chunks == 1) return;

  // Every chunk's partial is written and visible device-wide past this barrier (it orders memory
  // at device scope), and the chunks are done with `storage`.
  cooperative_groups::this_grid().sync();
  if (block != 0) return;

  // Thread t folds partials t, t + block_threads, ... in order, then block_reduce combines the
  // threads: a tree fixed by `chunks`. Whole batches of loads first (in flight together, from L2),
  // then the rest one by one; thread t < chunks always has partial t.
  constexpr int batch = 16;
  constexpr std::size_t stride = Shape::block_threads;
  const std::size_t i0 = threadIdx.x;
  AccT acc = l2_load(partials + (i0 < plan.chunks ? i0 : 0));
  std::size_t i = i0 + stride;
  for (; i + (batch - 1) * stride < plan.chunks; i += batch * stride) {
    AccT p[batch];
#pragma unroll
    for (int k = 0; k < batch; ++k) p[k] = l2_load(partials + i + k * stride);
#pragma unroll
    for (int k = 0; k < batch; ++k) acc = static_cast<AccT>(op(acc, p[k]));
  }
  for (; i < plan.chunks; i += stride) acc = static_cast<AccT>(op(acc, l2_load(partials + i)));
  const int valid = plan.chunks < stride ? int(plan.chunks) : Shape::block_threads;
  const AccT total = block_reduce_t(storage.partials).reduce(acc, op, valid);
  if (threadIdx.x == 0) *out = static_cast<AccT>(op(static_cast<AccT>(init), total));
}

/// Null input with items to read, or no output: checked before anything is launched or allocated.
template <class InputIt, class OutputIt>
bool reduce_arguments_valid(const InputIt& in, const OutputIt& out, std::size_t n) {
  return !(n > 0 && is_null_iterator(in)) && !is_null_iterator(out);
}

/// The reduce over `source` on as many blocks as the device holds at once, at most `max_grid`.
template <class Shape, class Source, class OutputIt, class InitT, class Op>
cudaError_t launch_reduce(void* temp, std::size_t& temp_bytes, bool size_query, const Source& source, OutputIt out,
                          std::size_t n, InitT init, Op op, cudaStream_t stream, std::size_t max_grid) {
  using AccT = reduce_acc_t<InitT>;
  using chunk_t = reduce_chunk<Shape, Source, AccT, Op>;
  const workspace_layout<1> layout = reduce_workspace<chunk_t, AccT>(n);
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  void* partials[1];
  cudaError_t e = layout.carve(temp, temp_bytes, partials);
  if (e != cudaSuccess) return e;

  device_facts device;
  e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  constexpr auto kernel = reduce_kernel<Shape, Source, AccT, OutputIt, Op, InitT>;
  int resident = 0;
  e = resident_blocks_per_sm<kernel>(Shape::block_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  std::size_t grid =
      std::size_t(device.sm_count) * (resident < reduce_blocks_per_sm ? resident : reduce_blocks_per_sm);
  if (grid > max_grid) grid = max_grid;
  const reduce_plan plan = make_reduce_plan<chunk_t>(n, grid);
  return launch(kernel, plan.grid, Shape::block_threads, stream,
                plan.chunks > 1 ? launch_mode::cooperative : launch_mode::plain, source, plan,
                static_cast<AccT*>(partials[0]), out, init, op);
}

/// No limit on a reduce's grid but the device's.
inline constexpr std::size_t device_grid = std::numeric_limits<std::size_t>::max();

/// Both forms of device reduce end here, on at most `max_grid` blocks: the public functions pass
/// `device_grid` (as many as the device holds at once); a test passes the grids of other GPUs,
/// which must give the same bits. With `size_query` only `temp_bytes` is written.
template <class Shape, class InputIt, class OutputIt, class InitT, class Op>
cudaError_t reduce_on_grid(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, OutputIt out,
                           std::size_t n, InitT init, Op op, cudaStream_t stream, std::size_t max_grid) {
  using input_t = iterator_value_t<InputIt>;
  static_assert(valid_shape_argument_v<Shape>,
                "the first template argument of gpuprim::reduce/sum is a gpuprim::shape<...>, not a value type");
  using shape_t = shape_or_default<Shape, reduce_default_shape<input_t>>;
  if (!size_query && !reduce_arguments_valid(in, out, n)) return cudaErrorInvalidValue;
  if constexpr (takes_vector_path_v<InputIt>) {
    // Two kernels: the aligned one reads each logical vector with one load, as any vector loop.
    using T = std::remove_cv_t<std::remove_pointer_t<InputIt>>;
    if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) {
      return launch_reduce<shape_t>(temp, temp_bytes, size_query, logical_vector_source<T, true>::make(in, n), out, n,
                                    init, op, stream, max_grid);
    }
    return launch_reduce<shape_t>(temp, temp_bytes, size_query, logical_vector_source<T, false>::make(in, n), out, n,
                                  init, op, stream, max_grid);
  } else {
    return launch_reduce<shape_t>(temp, temp_bytes, size_query, iterator_source<InputIt>{in, n}, out, n, init, op,
                                  stream, max_grid);
  }
}

/// `reduce_on_grid` on the device's grid.
template <class Shape, class InputIt, class OutputIt, class InitT, class Op>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, OutputIt out, std::size_t n,
                   InitT init, Op op, cudaStream_t stream) {
  return reduce_on_grid<Shape>(temp, temp_bytes, size_query, in, out, n, init, op, stream, device_grid);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
