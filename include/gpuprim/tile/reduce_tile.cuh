// One block's share of a device-wide reduce: vector loads of full tiles, a bounds-checked last
// tile and the loose items, folded per thread and then across the block.
#pragma once

#include <cstddef>

#include "../block/block_reduce.cuh"
#include "../detail/config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Reduces tiles of an item source (detail/item_source.cuh) with one block of
/// `Shape::block_threads` threads, converting items to the accumulator type `AccT`. A tile is
/// `vectors_per_thread` vectors per thread, striped over the block so each load is coalesced.
template <class Shape, class Source, class AccT, class Op>
class reduce_tile {
  using item_type = typename Source::item_type;
  static constexpr int block_threads = Shape::block_threads;
  using block_reduce_t = block_reduce<AccT, block_threads>;

 public:
  static constexpr int vector_items = Source::vector_items;
  static constexpr int vectors_per_thread =
      Shape::items_per_thread / vector_items > 0 ? Shape::items_per_thread / vector_items : 1;
  static constexpr std::size_t tile_vectors = std::size_t(block_threads) * vectors_per_thread;
  using temp_storage = typename block_reduce_t::temp_storage;

  GPUPRIM_DEVICE reduce_tile(temp_storage& storage, const Source& source, Op op)
      : storage_(storage), source_(source), op_(op) {}

  /// Reduces the full tiles `first_tile, first_tile + tile_stride, ...` below `full_tiles`, and
  /// with `with_remainder` also the vectors past the last full tile and the loose items.
  /// Returns false in every thread when that is no item at all; otherwise true, with the
  /// reduction in `aggregate` of thread 0. Uses the temp storage once (one barrier).
  GPUPRIM_DEVICE bool reduce_tiles(std::size_t first_tile, std::size_t tile_stride, std::size_t full_tiles,
                                   bool with_remainder, AccT& aggregate) {
    AccT acc;
    bool have = false;  // whether this thread holds a value in `acc`
    int valid_threads = 0;
    std::size_t t = first_tile;
    if (t < full_tiles) {
      // Full tiles: no bounds checks, all loads of a tile issued before the first add.
      fold_full_tile<true>(t * tile_vectors, acc);
      for (t += tile_stride; t < full_tiles; t += tile_stride) fold_full_tile<false>(t * tile_vectors, acc);
      have = true;
      valid_threads = block_threads;
    }
    if (with_remainder) {
      const std::size_t v = full_tiles * tile_vectors;
      const std::size_t rest = source_.vectors - v;  // fewer than a tile
      // Every load of the partial tile is issued before the first fold, as in a full tile: with a
      // fold between them each load waited for the one before (a DRAM latency per vector).
      item_type items[vectors_per_thread][vector_items];
#pragma unroll
      for (int i = 0; i < vectors_per_thread; ++i) {
        const std::size_t index = std::size_t(i) * block_threads + threadIdx.x;
        if (index < rest) source_.load(v + index, items[i]);
      }
#pragma unroll
      for (int i = 0; i < vectors_per_thread; ++i) {
        if (std::size_t(i) * block_threads + threadIdx.x < rest) {
#pragma unroll
          for (int j = 0; j < vector_items; ++j) fold(acc, have, items[i][j]);
        }
      }
      valid_threads = max_int(valid_threads, rest < block_threads ? int(rest) : block_threads);
      // Fewer than two vectors' worth of loose items: at most one per thread.
      const int loose = source_.loose_items();
      if (int(threadIdx.x) < loose) fold(acc, have, source_.loose_item(threadIdx.x));
      valid_threads = max_int(valid_threads, loose);
    }
    if (valid_threads == 0) return false;
    // Threads holding values form a prefix [0, valid_threads) of the block.
    aggregate = block_reduce_t(storage_).reduce(acc, op_, valid_threads);
    return true;
  }

 private:
  static GPUPRIM_DEVICE int max_int(int a, int b) { return a < b ? b : a; }

  GPUPRIM_DEVICE void fold(AccT& acc, bool& have, const item_type& item) const {
    acc = have ? static_cast<AccT>(op_(acc, item)) : static_cast<AccT>(item);
    have = true;
  }

  // Folds one full tile into `acc`; the first tile starts `acc` from its first item.
  template <bool First>
  GPUPRIM_DEVICE void fold_full_tile(std::size_t v, AccT& acc) const {
    item_type items[vectors_per_thread][vector_items];
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      source_.load(v + std::size_t(i) * block_threads + threadIdx.x, items[i]);
    }
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
#pragma unroll
      for (int j = 0; j < vector_items; ++j) {
        if (First && i == 0 && j == 0) {
          acc = static_cast<AccT>(items[0][0]);
        } else {
          acc = static_cast<AccT>(op_(acc, items[i][j]));
        }
      }
    }
  }

  temp_storage& storage_;
  const Source& source_;
  Op op_;
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
