// One block's work in a reduce: reduce_chunk, a chunk of whole tiles of the device reduce (the same
// grouping for every grid and alignment), and reduce_tile, tiles of an alignment-split source (the
// segmented reduce's pieces); vector loads, a bounds-checked last tile and the loose items, folded
// per thread and then across the block.
#pragma once

#include <cstddef>

#include "../block/block_reduce.cuh"
#include "../detail/config.cuh"
#include "../detail/uninitialized.cuh"
#include "../warp/warp_reduce.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Chunks of `reduce_chunk` that meet at one barrier: up to 8, no more than the block's warps (warp
/// w combines the group's chunk w), and as many as keep the two groups' warp results within 1 KiB.
constexpr int reduce_group_chunks(int warps, std::size_t acc_bytes) {
  const std::size_t fit = 1024 / (2 * std::size_t(warps) * acc_bytes);
  const int g = fit < 1 ? 1 : fit > 8 ? 8 : int(fit);
  return g < warps ? g : warps;
}

/// acc = acc op item, or item where `have` is false (then `have` is set).
template <class AccT, class Item, class Op>
GPUPRIM_DEVICE void fold_item(AccT& acc, bool& have, const Item& item, Op op) {
  acc = have ? static_cast<AccT>(op(acc, item)) : static_cast<AccT>(item);
  have = true;
}

/// Folds a thread's vectors of one full tile (loaded, all loads issued before the first fold) into
/// `acc`, vector by vector, item by item; with `First`, `acc` starts from the first item, as
/// fold_item does, so both folds give the same bits.
template <bool First, class AccT, class Item, int Vectors, int VectorItems, class Op>
GPUPRIM_DEVICE void fold_full_vectors(const Item (&items)[Vectors][VectorItems], AccT& acc, Op op) {
#pragma unroll
  for (int i = 0; i < Vectors; ++i) {
#pragma unroll
    for (int j = 0; j < VectorItems; ++j) {
      if (First && i == 0 && j == 0) {
        acc = static_cast<AccT>(items[0][0]);
      } else {
        acc = static_cast<AccT>(op(acc, items[i][j]));
      }
    }
  }
}

/// Folds chunks of the device reduce (device/reduce_kernels.cuh) with one block of
/// `Shape::block_threads` threads. A chunk is whole tiles of a logical source (a
/// logical_vector_source or an iterator_source, detail/item_source.cuh); a tile is
/// `vectors_per_thread` vectors per thread, striped over the block so each load is coalesced.
/// The grouping is fixed: each thread folds its vectors tile by tile, row by row, item by item
/// (the last chunk then one tail item), a fixed tree over each warp's lanes, then one over the
/// warps, exactly as block_reduce. The warp step runs at once, the step over the warps for
/// `group_chunks` chunks together, after one barrier (so a block meets once per group, not once
/// per chunk); which block runs a chunk, and when, cannot change its bits.
template <class Shape, class Source, class AccT, class Op>
class reduce_chunk {
  using item_type = typename Source::item_type;

 public:
  static constexpr int block_threads = Shape::block_threads;
  static constexpr int warps = block_threads / 32;
  static constexpr int vector_items = Source::vector_items;
  static constexpr int vectors_per_thread =
      Shape::items_per_thread / vector_items > 0 ? Shape::items_per_thread / vector_items : 1;
  static constexpr std::size_t tile_vectors = std::size_t(block_threads) * vectors_per_thread;
  /// Chunks whose warp results wait for one barrier (it decides when the step over the warps runs,
  /// never its bits).
  static constexpr int group_chunks = reduce_group_chunks(warps, sizeof(AccT));
  /// Blocks an SM must hold (for __launch_bounds__): the residency of the alignment-split kernel
  /// this one replaced, which read at the ceiling, so that the grouping costs no occupancy: 2048
  /// threads (32 registers) for items and accumulators of up to 4 bytes, 1536 (40) up to 8, and
  /// 1024 for a misaligned pointer, whose shuffles hold a second vector per row (ptxas -v,
  /// sm_90, 2026-12-03: the aligned f32/i32 kernels spill 4-12 bytes outside the tile loop).
  static constexpr int min_blocks_per_sm = [] {
    const std::size_t bytes = sizeof(item_type) > sizeof(AccT) ? sizeof(item_type) : sizeof(AccT);
    const int threads = Source::shifted ? 1024 : bytes <= 4 ? 2048 : bytes <= 8 ? 1536 : 0;
    const int fit = GPUPRIM_ARCH_MAX_THREADS_PER_SM / block_threads;
    const int want = threads / block_threads > 0 ? threads / block_threads : 1;
    return want <= fit ? want : (fit > 0 ? fit : 1);
  }();
  /// The warp results of two groups of chunks (one filling while the other is combined).
  struct temp_storage {
    uninitialized_array<AccT, 2 * group_chunks * warps> warp_results;
  };

  GPUPRIM_DEVICE reduce_chunk(temp_storage& storage, const Source& source, Op op)
      : storage_(storage), source_(source), op_(op) {}

  /// This thread's fold of the full tiles [first_tile, end_tile) (first_tile < end_tile), with
  /// unchecked loads: the tiles must be safe for the source's fast path (see load_vector).
  GPUPRIM_DEVICE AccT fold_full(std::size_t first_tile, std::size_t end_tile) const {
    AccT acc;
    std::size_t v = first_tile * tile_vectors;
    const std::size_t end = end_tile * tile_vectors;
    fold_full_tile<true>(v, acc);
#pragma unroll 1
    for (v += tile_vectors; v < end; v += tile_vectors) fold_full_tile<false>(v, acc);
    return acc;
  }

  /// The same fold for any tiles, every load checked, then with `with_tail` this thread's tail
  /// item. Returns whether the thread has any item (then in `acc`).
  GPUPRIM_DEVICE bool fold_checked(std::size_t first_tile, std::size_t end_tile, bool with_tail, AccT& acc) const {
    bool have = false;
    for (std::size_t t = first_tile; t < end_tile; ++t) {
      const std::size_t v = t * tile_vectors + threadIdx.x;
      // Every load of the tile is issued before the first fold, as in a full tile.
      item_type items[vectors_per_thread][vector_items];
#pragma unroll
      for (int i = 0; i < vectors_per_thread; ++i) {
        source_.template load_vector<true>(v + std::size_t(i) * block_threads, items[i]);
      }
#pragma unroll
      for (int i = 0; i < vectors_per_thread; ++i) {
        if (v + std::size_t(i) * block_threads < source_.vectors) {
#pragma unroll
          for (int j = 0; j < vector_items; ++j) fold_item(acc, have, items[i][j], op_);
        }
      }
    }
    if (with_tail && int(threadIdx.x) < source_.tail_items()) fold_item(acc, have, source_.tail_item(threadIdx.x), op_);
    return have;
  }

  /// Warp step of the block's chunk of round `round`: the threads [0, valid_threads) hold values
  /// in `acc`; each warp's reduction of its valid lanes goes to the round's slot. No barrier.
  GPUPRIM_DEVICE void store_warp_result(const AccT& acc, int valid_threads, unsigned round) {
    const int warp = int(threadIdx.x) / 32;
    const int valid = valid_threads - warp * 32;
    if (valid <= 0) return;  // warp-uniform: no lane of this warp holds a value
    const AccT w = valid >= 32 ? warp_reduce<AccT>{}.reduce(acc, op_)
                               : warp_reduce<AccT>{}.reduce_to_first_lane(acc, op_, valid);
    if (threadIdx.x % 32 == 0) storage_.warp_results[slot(round) * warps + warp] = w;
  }

  /// Step over the warps of the chunk of round `round`, by one warp after the barrier that follows
  /// the round's store_warp_result: the chunk's reduction in that warp's lane 0. Its warps
  /// [0, valid_warps) stored results.
  GPUPRIM_DEVICE AccT combine_warp_results(unsigned round, int valid_warps) const {
    const int lane = int(threadIdx.x) % 32;
    const AccT w = storage_.warp_results[slot(round) * warps + (lane < valid_warps ? lane : 0)];
    return warp_reduce<AccT>{}.reduce_to_first_lane(w, op_, valid_warps);
  }

 private:
  // Groups alternate between the two halves: a group's results are stored only after the barrier
  // that ends the group before it, which every warp passes after combining the one before that.
  static GPUPRIM_DEVICE int slot(unsigned round) { return int(round % (2 * group_chunks)); }

  // Folds one full tile into `acc`; the first tile starts `acc` from its first item.
  template <bool First>
  GPUPRIM_DEVICE void fold_full_tile(std::size_t v, AccT& acc) const {
    item_type items[vectors_per_thread][vector_items];
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      source_.template load_vector<false>(v + std::size_t(i) * block_threads + threadIdx.x, items[i]);
    }
    fold_full_vectors<First>(items, acc, op_);
  }

  temp_storage& storage_;
  const Source& source_;
  Op op_;
};

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
          for (int j = 0; j < vector_items; ++j) fold_item(acc, have, items[i][j], op_);
        }
      }
      valid_threads = max_int(valid_threads, rest < block_threads ? int(rest) : block_threads);
      // Fewer than two vectors' worth of loose items: at most one per thread.
      const int loose = source_.loose_items();
      if (int(threadIdx.x) < loose) fold_item(acc, have, source_.loose_item(threadIdx.x), op_);
      valid_threads = max_int(valid_threads, loose);
    }
    if (valid_threads == 0) return false;
    // Threads holding values form a prefix [0, valid_threads) of the block.
    aggregate = block_reduce_t(storage_).reduce(acc, op_, valid_threads);
    return true;
  }

 private:
  static GPUPRIM_DEVICE int max_int(int a, int b) { return a < b ? b : a; }

  // Folds one full tile into `acc`; the first tile starts `acc` from its first item.
  template <bool First>
  GPUPRIM_DEVICE void fold_full_tile(std::size_t v, AccT& acc) const {
    item_type items[vectors_per_thread][vector_items];
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      source_.load(v + std::size_t(i) * block_threads + threadIdx.x, items[i]);
    }
    fold_full_vectors<First>(items, acc, op_);
  }

  temp_storage& storage_;
  const Source& source_;
  Op op_;
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
