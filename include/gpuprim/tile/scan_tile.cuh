// One block's tile of a device-wide scan (Merrill & Garland 2016): load it coalesced (16-byte
// vectors from raw pointers), scan it in the block, look back for its prefix, store it coalesced
// (16-byte vectors to aligned raw pointers). The look-back itself is in detail/lookback.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "../block/block_exchange.cuh"
#include "../block/block_scan.cuh"
#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/grid_dependency.cuh"
#include "../detail/lookback.cuh"
#include "../detail/shuffle.cuh"
#include "../warp/warp_scan.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// The init of an inclusive scan: there is none.
struct no_init {};

/// Everything the tiles of one device scan share: the kernel's parameter. Tiles cover items
/// [head, n) in order; the `head` items before them (fewer than one 16-byte vector) are peeled
/// off so that every tile of a raw pointer starts 16-byte aligned, and tile 0 scans them first.
template <class InputIt, class OutputIt, class AccT, class InitT, class Op>
struct scan_params {
  using input_iterator = InputIt;
  using output_iterator = OutputIt;
  using acc_type = AccT;
  using init_type = InitT;  // no_init: an inclusive scan
  using op_type = Op;
  using states_type = tile_states_t<AccT>;

  InputIt in;
  OutputIt out;
  std::size_t n;
  int head;           // items before tile 0, in [0, 16)
  unsigned tiles;     // ceil((n - head) / tile_items); 0 when the head is everything
  bool vector_store;  // out + head is 16-byte aligned (only read when the tile can store vectors)
  InitT init;
  Op op;
  states_type states;  // read and written only when tiles > 1
};

/// The type a scan writes: a raw pointer output's own type, else the accumulator.
template <class Params>
using scan_output_t =
    std::conditional_t<std::is_pointer_v<typename Params::output_iterator>,
                       std::remove_pointer_t<typename Params::output_iterator>, typename Params::acc_type>;

/// One warp (all 32 lanes) scans the `count` (1 to 32) items from index `first`, a lane each,
/// after `prefix` when `has_prefix` (an exclusive scan always has one: at least its init), writes
/// their results and returns, in every lane, everything through the last of them reduced.
/// Lanes past `count` duplicate the first item; they follow the others, so no result sees them.
template <class Params>
GPUPRIM_DEVICE typename Params::acc_type scan_loose_items(const Params& p, std::size_t first, int count,
                                                          const typename Params::acc_type& prefix, bool has_prefix) {
  using AccT = typename Params::acc_type;
  const int lane = static_cast<int>(lane_id());
  const AccT x = static_cast<AccT>(p.in[first + (lane < count ? lane : 0)]);
  AccT through_lane;
  warp_scan<AccT>{}.inclusive_scan(x, through_lane, p.op);
  const AccT through_all = shfl_idx(through_lane, count - 1);
  const AccT before_lane = shfl_up(through_lane, 1);
  __syncwarp();  // in place: every lane has read its item before any output is written
  AccT result;
  if constexpr (std::is_same_v<typename Params::init_type, no_init>) {
    result = has_prefix ? static_cast<AccT>(p.op(prefix, through_lane)) : through_lane;
  } else {
    result = lane == 0 ? prefix : static_cast<AccT>(p.op(prefix, before_lane));
  }
  if (lane < count) p.out[first + lane] = static_cast<scan_output_t<Params>>(result);
  return has_prefix ? static_cast<AccT>(p.op(prefix, through_all)) : through_all;
}

/// One warp: tile 0's prefix, in every lane: the init (exclusive scans), then the head's items,
/// which it scans and stores. An inclusive scan without a head has none and gets `placeholder`
/// back (nothing reads it). The tile-per-block and the streaming scans share it.
template <class Params>
GPUPRIM_DEVICE typename Params::acc_type scan_first_tile_prefix(const Params& p,
                                                                const typename Params::acc_type& placeholder) {
  using AccT = typename Params::acc_type;
  if constexpr (std::is_same_v<typename Params::init_type, no_init>) {
    return p.head > 0 ? scan_loose_items(p, 0, p.head, placeholder, false) : placeholder;
  } else {
    const AccT init = static_cast<AccT>(p.init);
    return p.head > 0 ? scan_loose_items(p, 0, p.head, init, true) : init;
  }
}

/// Scans tile `blockIdx.x` of a device scan with one block of `Shape::block_threads` threads.
template <class Shape, class Params>
class scan_tile {
  using InputIt = typename Params::input_iterator;
  using OutputIt = typename Params::output_iterator;
  using AccT = typename Params::acc_type;
  using Op = typename Params::op_type;
  using states_t = typename Params::states_type;

  static constexpr int block_threads = Shape::block_threads;
  static constexpr int items_per_thread = Shape::items_per_thread;
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr int warp_items = 32 * items_per_thread;
  static constexpr bool inclusive = std::is_same_v<typename Params::init_type, no_init>;

  using input_t = std::remove_cv_t<iterator_value_t<InputIt>>;
  // Raw pointer outputs are written in their own type; other output iterators get AccT.
  using output_t = scan_output_t<Params>;
  static_assert(!std::is_const_v<output_t>, "the scan's output must be writable");
  static constexpr int in_vector = vector_items_v<input_t>;
  static constexpr int out_vector = vector_items_v<output_t>;

  using block_scan_t = block_scan<AccT, block_threads>;
  using load_exchange_t = block_exchange<input_t, block_threads, items_per_thread>;
  using store_exchange_t = block_exchange<output_t, block_threads, items_per_thread>;

 public:
  /// Loads are 16-byte vectors from raw pointers whose type tiles 16 bytes; stores likewise, when
  /// `out + head` is 16-byte aligned too. The host peels the head for whichever side has vectors.
  static constexpr bool vector_loads = std::is_pointer_v<InputIt> && in_vector > 1 && items_per_thread % in_vector == 0;
  static constexpr bool vector_stores =
      std::is_pointer_v<OutputIt> && out_vector > 1 && items_per_thread % out_vector == 0;
  static constexpr int load_granule = vector_loads ? in_vector : 1;
  /// Striped tiles: both sides move 16-byte vectors of the same item count. Each lane keeps the
  /// vectors it loaded (warp-striped), the warps scan across lanes and no exchange through shared
  /// memory is needed. Other tiles are made blocked through shared memory for the block scan.
  static constexpr bool striped = vector_loads && vector_stores && in_vector == out_vector;

 private:
  static constexpr int warps = block_threads / 32;
  struct exchange_storage {
    union {
      typename load_exchange_t::temp_storage load;
      typename store_exchange_t::temp_storage store;
    } exchange;
    typename block_scan_t::temp_storage scan;
  };
  struct striped_storage {
    uninitialized_array<AccT, warps> warp_aggregates;  // each warp's items reduced
    uninitialized_array<AccT, warps> warp_prefixes;    // everything before each warp's items
  };

 public:
  using temp_storage = std::conditional_t<striped, striped_storage, exchange_storage>;

  GPUPRIM_DEVICE scan_tile(temp_storage& storage, const Params& params) : storage_(storage), p_(params) {}

  /// The tile's story: load, scan with the prefix found by looking back, store.
  GPUPRIM_DEVICE void process(unsigned tile) {
    if (tile >= p_.tiles) {  // only when the head is the whole input (one block, no tile)
      if (threadIdx.x < 32) (void)scan_first_tile_prefix(p_, static_cast<AccT>(p_.in[0]));
      return;
    }
    const std::size_t base = std::size_t(p_.head) + std::size_t(tile) * tile_items;
    const std::size_t rest = p_.n - base;
    const int valid = rest < std::size_t(tile_items) ? int(rest) : tile_items;

    if constexpr (striped) {
      process_striped(tile, base, valid);
    } else {
      AccT items[items_per_thread];
      load(base, valid, items);
      scan(tile, items);
      __syncthreads();  // every warp has read the load exchange, which the store exchange overwrites
      store(base, valid, items);
    }
  }

 private:
  // ---- load: warp-striped (vectors or items), then blocked through shared memory -------------

  GPUPRIM_DEVICE void load(std::size_t base, int valid, AccT (&items)[items_per_thread]) {
    input_t raw[items_per_thread];
    load_warp_striped(base, valid, raw);
    load_exchange_t(storage_.exchange.load).template warp_striped_to_blocked<load_granule>(raw, raw);
#pragma unroll
    for (int i = 0; i < items_per_thread; ++i) items[i] = static_cast<AccT>(raw[i]);
  }

  // raw[j * G + e] = tile item first + (j * 32 + lane) * G + e: each warp reads its 32 * N
  // consecutive items, the lanes of each load side by side (coalesced).
  GPUPRIM_DEVICE void load_warp_striped(std::size_t base, int valid, input_t (&raw)[items_per_thread]) const {
    constexpr int G = load_granule;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int first = static_cast<int>(threadIdx.x) / 32 * warp_items;
    if constexpr (vector_loads) {
      if (valid == tile_items) {
        const uint4* vectors = reinterpret_cast<const uint4*>(p_.in + base + first);  // 16-byte aligned
#pragma unroll
        for (int j = 0; j < items_per_thread / G; ++j) {
          const uint4 v = vectors[j * 32 + lane];
          std::memcpy(&raw[j * G], &v, sizeof(v));
        }
        return;
      }
    }
    if (valid == tile_items) {
#pragma unroll
      for (int j = 0; j < items_per_thread / G; ++j) {
#pragma unroll
        for (int e = 0; e < G; ++e) raw[j * G + e] = p_.in[base + first + (j * 32 + lane) * G + e];
      }
      return;
    }
    // The last tile: items past the end copy the tile's first item; no valid result depends on
    // them, since they follow every valid item.
    const input_t filler = p_.in[base];
#pragma unroll
    for (int j = 0; j < items_per_thread / G; ++j) {
#pragma unroll
      for (int e = 0; e < G; ++e) {
        const int k = first + (j * 32 + lane) * G + e;
        raw[j * G + e] = k < valid ? static_cast<input_t>(p_.in[base + k]) : filler;
      }
    }
  }

  // ---- striped tiles: warp-striped vectors scanned in place ------------------------------------
  //
  // Lane l of warp w holds vectors j = 0..J-1: items first(w) + (j * 32 + l) * G + [0, G). In
  // item order the tile is: warps, then chunks j, then lanes, then the G items of a vector. Every
  // combination below keeps that order, so a non-commutative operator gets the ordered result.
  // Only the first item of an inclusive scan (tile 0, no head) has nothing before it: `has_*`.

  GPUPRIM_DEVICE void process_striped(unsigned tile, std::size_t base, int valid) {
    constexpr int G = in_vector;
    constexpr int J = items_per_thread / G;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int first = warp * warp_items;

    AccT x[items_per_thread];  // x[j * G + e]
    {
      input_t raw[items_per_thread];
      load_warp_striped(base, valid, raw);
#pragma unroll
      for (int i = 0; i < items_per_thread; ++i) x[i] = static_cast<AccT>(raw[i]);
    }
    // Each vector scanned on its own, then the vector totals across the lanes of each chunk.
    AccT lane_inclusive[J];
#pragma unroll
    for (int j = 0; j < J; ++j) {
#pragma unroll
      for (int e = 1; e < G; ++e) x[j * G + e] = static_cast<AccT>(p_.op(x[j * G + e - 1], x[j * G + e]));
      warp_scan<AccT>{}.inclusive_scan(x[j * G + G - 1], lane_inclusive[j], p_.op);
    }
    // The warp's total, chunk by chunk.
    AccT warp_total = shfl_idx(lane_inclusive[0], 31);
#pragma unroll
    for (int j = 1; j < J; ++j) warp_total = static_cast<AccT>(p_.op(warp_total, shfl_idx(lane_inclusive[j], 31)));
    if (lane == 0) storage_.warp_aggregates[warp] = warp_total;

    // Warp 0 of tile 0 handles the head first (its prefix is init, then the head).
    AccT first_prefix = warp_total;  // a placeholder elsewhere
    if (tile == 0 && threadIdx.x < 32) first_prefix = scan_first_tile_prefix(p_, first_prefix);
    const bool has_tile_prefix = !inclusive || tile > 0 || p_.head > 0;
    __syncthreads();
    if (warp == 0) striped_block_prefixes(tile, first_prefix, has_tile_prefix);
    __syncthreads();

    // Everything before chunk j of this warp: the warp's prefix, then the earlier chunks.
    bool has_prefix = warp > 0 || has_tile_prefix;
    AccT chunk_prefix = storage_.warp_prefixes[warp];
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const AccT chunk_total = shfl_idx(lane_inclusive[j], 31);
      const AccT lane_exclusive = shfl_up(lane_inclusive[j], 1);
      // Everything before this lane's vector.
      AccT before = chunk_prefix;
      if (lane > 0) before = has_prefix ? static_cast<AccT>(p_.op(chunk_prefix, lane_exclusive)) : lane_exclusive;
      output_t out[G];
#pragma unroll
      for (int e = 0; e < G; ++e) {
        AccT r;
        if constexpr (inclusive) {
          const bool has_before = has_prefix || lane > 0;
          r = has_before ? static_cast<AccT>(p_.op(before, x[j * G + e])) : x[j * G + e];
        } else {
          r = e == 0 ? before : static_cast<AccT>(p_.op(before, x[j * G + e - 1]));
        }
        out[e] = static_cast<output_t>(r);
      }
      store_vector(base + first + (j * 32 + lane) * G, valid - first - (j * 32 + lane) * G, out);
      chunk_prefix = has_prefix ? static_cast<AccT>(p_.op(chunk_prefix, chunk_total)) : chunk_total;
      has_prefix = true;
    }
  }

  // Warp 0: every warp's prefix into shared memory, after the tile's own prefix (published, or
  // found by looking back). Lanes past the last warp duplicate warp 0; nothing reads their result.
  GPUPRIM_DEVICE void striped_block_prefixes(unsigned tile, const AccT& first_prefix, bool has_tile_prefix) {
    const int lane = static_cast<int>(threadIdx.x);
    const AccT total = storage_.warp_aggregates[lane < warps ? lane : 0];
    AccT through;
    warp_scan<AccT>{}.inclusive_scan(total, through, p_.op);
    const AccT aggregate = shfl_idx(through, warps - 1);
    const AccT before_lane = shfl_up(through, 1);
    AccT prefix = aggregate;  // a placeholder without a tile prefix
    if (has_tile_prefix) {
      prefix = tile_prefix_op{p_, tile, first_prefix}(aggregate);
    } else if (lane == 0 && p_.tiles > 1) {
      // Nothing comes before tile 0: its aggregate is its inclusive prefix.
      p_.states.publish(0, status_prefix, aggregate);
    }
    if (lane < warps) {
      AccT warp_prefix = prefix;
      if (lane > 0) warp_prefix = has_tile_prefix ? static_cast<AccT>(p_.op(prefix, before_lane)) : before_lane;
      storage_.warp_prefixes[lane] = warp_prefix;
    }
  }

  // One lane's vector of G items at output index `at`, of which `valid` (possibly <= 0, or more
  // than G) are inside the input. Full vectors of an aligned output are one 16-byte store.
  template <int G>
  GPUPRIM_DEVICE void store_vector(std::size_t at, int valid, const output_t (&values)[G]) {
    if (p_.vector_store && valid >= G) {
      int4 v;
      std::memcpy(&v, values, sizeof(v));
      // 16-byte aligned. An explicit vector store: the plain `uint4` assignment this replaced came
      // out of nvcc as four st.global.u32 (PTX), in every instantiation of this kernel.
      __stwb(reinterpret_cast<int4*>(p_.out + at), v);
      return;
    }
#pragma unroll
    for (int e = 0; e < G; ++e) {
      if (e < valid) p_.out[at + e] = values[e];
    }
  }

  // ---- scan: the block scan, with the tile's prefix from its callback -------------------------

  GPUPRIM_DEVICE void scan(unsigned tile, AccT (&items)[items_per_thread]) {
    block_scan_t block(storage_.scan);
    if constexpr (inclusive) {
      if (tile == 0 && p_.head == 0) {
        // Nothing comes before: the tile's aggregate is its inclusive prefix.
        AccT aggregate;
        block.inclusive_scan(items, items, p_.op, aggregate);
        if (threadIdx.x == 0 && p_.tiles > 1) {
          p_.states.publish(0, status_prefix, aggregate);
        }
        return;
      }
    }
    // Tile 0's prefix (init, then the head) is known to warp 0, which runs the callback.
    AccT first_prefix = items[0];  // a placeholder elsewhere
    if (tile == 0 && threadIdx.x < 32) first_prefix = scan_first_tile_prefix(p_, first_prefix);
    tile_prefix_op prefix_op{p_, tile, first_prefix};
    if constexpr (inclusive) {
      block.inclusive_scan(items, items, p_.op, prefix_op);
    } else {
      block.exclusive_scan(items, items, p_.op, prefix_op);
    }
  }

  /// block_scan prefix callback: tile 0 publishes its inclusive prefix right away; later tiles
  /// look back (detail/lookback.cuh).
  struct tile_prefix_op {
    const Params& p;
    unsigned tile;
    AccT first_prefix;

    GPUPRIM_DEVICE AccT operator()(const AccT& aggregate) const {
      if (tile > 0) return lookback_prefix_op<states_t, AccT, Op>{p.states, tile, p.op}(aggregate);
      if (lane_id() == 0 && p.tiles > 1) {
        p.states.publish(0, status_prefix, static_cast<AccT>(p.op(first_prefix, aggregate)));
      }
      return first_prefix;
    }
  };

  // ---- store: blocked to warp-striped through shared memory, then coalesced stores ------------

  GPUPRIM_DEVICE void store(std::size_t base, int valid, const AccT (&items)[items_per_thread]) {
    output_t values[items_per_thread];
#pragma unroll
    for (int i = 0; i < items_per_thread; ++i) values[i] = static_cast<output_t>(items[i]);
    if constexpr (vector_stores) {
      if (p_.vector_store) {
        store_warp_striped<out_vector>(base, valid, values);
        return;
      }
    }
    store_warp_striped<1>(base, valid, values);
  }

  template <int G>
  GPUPRIM_DEVICE void store_warp_striped(std::size_t base, int valid, output_t (&values)[items_per_thread]) {
    store_exchange_t(storage_.exchange.store).template blocked_to_warp_striped<G>(values, values);
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int first = static_cast<int>(threadIdx.x) / 32 * warp_items;
    if constexpr (G > 1) {
      if (valid == tile_items) {
        int4* vectors = reinterpret_cast<int4*>(p_.out + base + first);  // 16-byte aligned
#pragma unroll
        for (int j = 0; j < items_per_thread / G; ++j) {
          int4 v;
          std::memcpy(&v, &values[j * G], sizeof(v));
          __stwb(vectors + j * 32 + lane, v);  // st.global.v4 (see store_vector)
        }
        return;
      }
    }
#pragma unroll
    for (int j = 0; j < items_per_thread / G; ++j) {
#pragma unroll
      for (int e = 0; e < G; ++e) {
        const int k = first + (j * 32 + lane) * G + e;
        if (valid == tile_items || k < valid) p_.out[base + k] = values[j * G + e];
      }
    }
  }

  temp_storage& storage_;
  const Params p_;
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
