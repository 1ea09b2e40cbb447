// Device-wide reduce: the plan (grid and workspace), the kernel and its dispatch.
//
// One pass, one launch: every block reduces an even share of the input and writes its partial;
// then block 0 reduces the partials. Small inputs use a single block and no workspace. With
// several blocks, block 0 must know when every partial is written. The classic answer is a
// fence and an atomic ticket, the last block to draw one doing the final step; but a ticket
// must be zero before the first block draws, also the first time a workspace is used, and
// zeroing it costs a launch (measured: +4.5 us on an H200, as much as the whole reduce of 2^20
// items). So the kernel is launched cooperatively and waits at a grid-wide barrier, whose state
// the driver resets for every launch: the workspace holds only the partials, needs no
// initialisation, and may be reused or captured in a graph.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cooperative_groups.h>

#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/l2_access.cuh"
#include "../detail/launch.cuh"
#include "../detail/workspace.cuh"
#include "../shape.cuh"
#include "../tile/reduce_tile.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// A device reduce's launch: `grid` blocks of `Tile`, block `b` taking full tiles `b, b + grid,
/// ...` (grid-stride, so the whole grid streams through memory together) and block
/// `full_tiles % grid` also the remainder. Every block gets at least one tile or the remainder.
struct reduce_plan {
  unsigned grid = 1;
  std::size_t full_tiles = 0;
};

template <class Tile, class Source>
reduce_plan make_reduce_plan(const Source& source, std::size_t max_grid) {
  reduce_plan plan;
  plan.full_tiles = source.vectors / Tile::tile_vectors;
  const bool remainder = source.vectors % Tile::tile_vectors != 0 || source.loose_items() != 0;
  const std::size_t units = plan.full_tiles + (remainder ? 1 : 0);
  plan.grid = static_cast<unsigned>(units < 1 ? 1 : units < max_grid ? units : (max_grid < 1 ? 1 : max_grid));
  return plan;
}

/// The workspace for `n` items: one partial per block, for the largest grid any alignment of
/// the input can give (so a size query is valid for any input pointer), or none for one block.
template <class Tile, class AccT>
workspace_layout<1> reduce_workspace(std::size_t n, std::size_t max_grid) {
  const std::size_t tile_items = Tile::tile_vectors * Tile::vector_items;
  const std::size_t units = n / tile_items + 2;  // full tiles, plus remainder and loose items
  const std::size_t grid = units < max_grid ? units : max_grid;
  workspace_layout<1> layout;
  if (n > tile_items && grid > 1) layout.part_bytes[0] = grid * sizeof(AccT);
  return layout;
}

/// Launched cooperatively whenever `gridDim.x > 1` (the grid-wide barrier needs every block
/// resident); `partials` holds one accumulator per block. See `reduce_plan` for who reads what.
template <class Shape, class Source, class AccT, class OutputIt, class Op>
__global__ void __launch_bounds__(Shape::block_threads)
    reduce_kernel(Source source, std::size_t full_tiles, AccT* partials, OutputIt out, AccT init, Op op) {
  using tile_t = reduce_tile<Shape, Source, AccT, Op>;
  using block_reduce_t = block_reduce<AccT, Shape::block_threads>;
  __shared__ union {
    typename tile_t::temp_storage tile;
    typename block_reduce_t::temp_storage partials;
  } storage;

  const unsigned grid = gridDim.x;
  const unsigned block = blockIdx.x;
  AccT aggregate;
  const bool any = tile_t(storage.tile, source, op)
                       .reduce_tiles(block, grid, full_tiles, block == full_tiles % grid, aggregate);
  if (grid == 1) {
    if (threadIdx.x == 0) *out = any ? static_cast<AccT>(op(init, aggregate)) : init;
    return;
  }

  if (threadIdx.x == 0) partials[block] = aggregate;
  // Every block's partial is written and visible device-wide past this barrier (it orders
  // memory at device scope), and the tile is done with `storage`.
  cooperative_groups::this_grid().sync();
  if (block != 0) return;

  AccT acc;
  bool have = false;
  for (unsigned i = threadIdx.x; i < grid; i += Shape::block_threads) {
    const AccT p = l2_load(partials + i);
    acc = have ? static_cast<AccT>(op(acc, p)) : p;
    have = true;
  }
  const int valid = grid < unsigned(Shape::block_threads) ? int(grid) : Shape::block_threads;
  const AccT total = block_reduce_t(storage.partials).reduce(acc, op, valid);
  if (threadIdx.x == 0) *out = static_cast<AccT>(op(init, total));
}

/// Null input with items to read, or no output: checked before anything is launched or allocated.
template <class InputIt, class OutputIt>
bool reduce_arguments_valid(const InputIt& in, const OutputIt& out, std::size_t n) {
  return !(n > 0 && is_null_iterator(in)) && !is_null_iterator(out);
}

/// Both forms of device reduce end here. With `size_query` only `temp_bytes` is written.
template <class Shape, class InputIt, class OutputIt, class AccT, class Op>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, OutputIt out, std::size_t n,
                   AccT init, Op op, cudaStream_t stream) {
  using input_t = iterator_value_t<InputIt>;
  static_assert(valid_shape_argument_v<Shape>,
                "the first template argument of gpuprim::reduce/sum is a gpuprim::shape<...>, not a value type");
  using shape_t = shape_or_default<Shape, reduce_default_shape<input_t>>;
  if (!size_query && !reduce_arguments_valid(in, out, n)) return cudaErrorInvalidValue;

  device_facts device;
  cudaError_t e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  const auto source = make_item_source(in, n);
  using source_t = std::remove_const_t<decltype(source)>;
  using tile_t = reduce_tile<shape_t, source_t, AccT, Op>;
  constexpr auto kernel = reduce_kernel<shape_t, source_t, AccT, OutputIt, Op>;
  int resident = 0;
  e = resident_blocks_per_sm<kernel>(shape_t::block_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  const std::size_t max_grid =
      std::size_t(device.sm_count) * (resident < reduce_blocks_per_sm ? resident : reduce_blocks_per_sm);
  const workspace_layout<1> layout = reduce_workspace<tile_t, AccT>(n, max_grid);
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  void* partials[1];
  e = layout.carve(temp, temp_bytes, partials);
  if (e != cudaSuccess) return e;
  const reduce_plan plan = make_reduce_plan<tile_t>(source, max_grid);
  return launch(kernel, plan.grid, shape_t::block_threads, stream,
                plan.grid > 1 ? launch_mode::cooperative : launch_mode::plain, source, plan.full_tiles,
                static_cast<AccT*>(partials[0]), out, init, op);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
