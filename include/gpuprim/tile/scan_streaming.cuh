// The device scan for large inputs on Hopper: one persistent block per SM streams tiles through a
// ring of shared-memory slots, and its warps specialise so that no tile's aggregate ever waits
// for an earlier tile's look-back.
//
// A chained scan (Merrill & Garland 2016) stalls when a tile must wait in its look-back for
// predecessors whose loads are still in flight: the block holding it issues no loads meanwhile,
// and the wait is the tail latency of the slowest recent load. Here each block has four roles:
//   - the producer (one lane) takes tiles in order from a ticket counter and bulk-copies each
//     into a free slot (cp.async.bulk, completion counted by an mbarrier), holding one ticket
//     ahead whose tile it has L2 prefetch meanwhile;
//   - the reducer warp reduces every landed tile and publishes its aggregate at once (for the
//     last tile of each group of 32: the group's total, once the group's aggregates are in);
//   - the look-back warp finds each tile's prefix (detail/lookback.cuh, grouped_look_back: over
//     groups of 32 tiles), publishes the group prefixes the look-back builds on and hands the
//     scanning warps a prefix per chunk;
//   - the scanning warps (8, a chunk of the tile each) scan their chunk by rows of 32 vectors
//     while the look-back runs, then finish it with the prefix (re-reading the slot) and store
//     16-byte vectors.
// Loads stay in flight whatever a look-back waits for, and a tile's aggregate waits for nothing
// but its own load. Tickets are taken only by running blocks, so every look-back ends without
// any assumption about which blocks are resident; a ticket held ahead is later than every tile
// in its block's slots, which finish without it, so the block always gets to copy it.
//
// The reducer adds up each lane's vectors and then the lanes: it reorders the operands, which
// is right only for commutative operators (`streaming_scan_reorders`: plus on arithmetic
// types, minimum and maximum on integers). Other operators take the tile-per-block scan
// (scan_tile.cuh). The ordered reductions tried in one warp took longer than a 32 KiB tile's
// share of memory time (~2 us on an H100): 3.3 us per tile for in-order lane ranges read with a
// rotation (no bank conflicts), more for a shuffle tree per row.
//
// Items are 16-byte vectors of G items in the slot; tile vector v belongs to chunk
// v / chunk_vectors (one scanning warp), and in item order the tile is: chunks, then rows of 32
// vectors, then lanes, then the G items of a vector; the look-back and the scanning warps keep
// that order in every combination (only the reducer does not). The input's head (before the first
// 16-byte boundary) is scanned by the look-back warp of the first tile, its tail (after the last
// whole vector, fewer than G items) by the lane that holds the last vector.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "../detail/async_copy.cuh"
#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/lookback.cuh"
#include "../detail/shuffle.cuh"
#include "../detail/uninitialized.cuh"
#include "../warp/warp_scan.cuh"
#include "scan_tile.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Whether the streaming scan may reduce a tile's items in any order with `Op` on `T`.
template <class Op, class T>
inline constexpr bool streaming_scan_reorders =
    (std::is_same_v<Op, plus> && std::is_arithmetic_v<T>) ||
    ((std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>) && std::is_integral_v<T>);

/// The streaming kernel's parameter: the scan's (its `tiles` counts streaming tiles) and more.
template <class Params>
struct streaming_scan_params {
  Params scan;
  unsigned* ticket;          // the next tile to take; zero before the launch
  unsigned* cleared;         // warps done zeroing the tile states; zero before the launch
  std::size_t body_vectors;  // whole 16-byte vectors from in + head
  int tail;                  // items after them (fewer than one vector)
};

template <class Params>
class streaming_scan {
  using InputIt = typename Params::input_iterator;
  using OutputIt = typename Params::output_iterator;
  using AccT = typename Params::acc_type;
  using input_t = std::remove_cv_t<iterator_value_t<InputIt>>;
  using output_t = scan_output_t<Params>;
  static constexpr bool inclusive = std::is_same_v<typename Params::init_type, no_init>;

 public:
  static constexpr int G = vector_items_v<input_t>;  // items per 16-byte vector
  /// Raw pointers on both sides to 4- or 8-byte items, the same item count per vector on both
  /// sides, and tagged tile states. (Narrower items would need their wider accumulators packed
  /// back into vectors of another item count; not measured, they take the tile-per-block scan.)
  static constexpr bool applicable = std::is_pointer_v<InputIt> && std::is_pointer_v<OutputIt> && (G == 2 || G == 4) &&
                                     vector_items_v<output_t> == G && sizeof(AccT) <= 16 &&
                                     streaming_scan_reorders<typename Params::op_type, AccT>;

  static constexpr int scan_warps = 8;
  static constexpr int rows = 8;  // rows of 32 vectors per chunk
  // Seven 32 KiB slots: 225 KiB of shared memory with the control block (Hopper allows 227 KiB per
  // block). H200, same run, i32 exclusive sum 2^28: 580 us with 7 slots, 593 with 6 (copy 509).
  static constexpr int slots = 7;
  enum : int { producer_warp, reducer_warp, lookback_warp, first_scan_warp };
  static constexpr int block_threads = (first_scan_warp + scan_warps) * 32;
  static constexpr int chunk_vectors = 32 * rows;
  static constexpr int tile_vectors = scan_warps * chunk_vectors;
  static constexpr int tile_items = tile_vectors * G;  // 32 KiB of input
  static constexpr unsigned end_of_tiles = 0xffffffffu;

 private:
  struct control {
    unsigned long long full[slots];      // the slot's tile has landed (or the tiles ran out)
    unsigned long long reduced[slots];   // its chunk totals are written, its aggregate published
    unsigned long long prefixed[slots];  // its chunk prefixes are written
    unsigned long long empty[slots];     // every warp that reads it is done (reducer, look-back, scanners)
    unsigned tile[slots];
    uninitialized_array<AccT, scan_warps> chunk_total[slots];
    uninitialized_array<AccT, scan_warps> chunk_prefix[slots];
    uninitialized_array<AccT, slots> aggregate;  // the tile's aggregate as the reducer published it
  };
  static constexpr std::size_t control_bytes = (sizeof(control) + 127) / 128 * 128;

 public:
  static constexpr std::size_t smem_bytes = control_bytes + std::size_t(slots) * tile_vectors * sizeof(uint4);
  static_assert(!applicable || smem_bytes <= 227 * 1024, "more shared memory than a Hopper block may opt in to");

  GPUPRIM_DEVICE streaming_scan(unsigned char* smem, const streaming_scan_params<Params>& p)
      : c_(*reinterpret_cast<control*>(smem)), slots_(reinterpret_cast<uint4*>(smem + control_bytes)), p_(p) {}

  GPUPRIM_DEVICE void run() {
    if (threadIdx.x == 0) {
      for (int s = 0; s < slots; ++s) {
        mbarrier_init(&c_.full[s], 1);
        mbarrier_init(&c_.reduced[s], 1);
        mbarrier_init(&c_.prefixed[s], 1);
        mbarrier_init(&c_.empty[s], scan_warps + 2);
      }
      mbarrier_init_fence();
    }
    __syncthreads();
    const int warp = static_cast<int>(threadIdx.x) / 32;
    if (warp == producer_warp) {
      if (lane_id() == 0) produce();
      return;
    }
    clear_states();
    if (warp == reducer_warp) {
      reduce();
    } else if (warp == lookback_warp) {
      find_prefixes();
    } else {
      scan_chunks(warp - first_scan_warp);
    }
  }

 private:
  // Each role visits the slots in turn; visit `it` uses slot it % slots in phase (it / slots) & 1.
  GPUPRIM_HOST_DEVICE static constexpr int slot_of(unsigned it) { return static_cast<int>(it % slots); }
  GPUPRIM_HOST_DEVICE static constexpr unsigned phase_of(unsigned it) { return (it / slots) & 1u; }

  GPUPRIM_DEVICE int valid_vectors(unsigned tile) const {
    const std::size_t left = p_.body_vectors - std::size_t(tile) * tile_vectors;
    return left < std::size_t(tile_vectors) ? static_cast<int>(left) : tile_vectors;
  }
  GPUPRIM_DEVICE static int chunks_of(int valid) { return (valid + chunk_vectors - 1) / chunk_vectors; }
  GPUPRIM_DEVICE const uint4* slot(int s) const { return slots_ + s * tile_vectors; }


  // Vector `v` of a slot as accumulators.
  GPUPRIM_DEVICE void read_vector(const uint4* buf, int v, AccT (&x)[G]) const {
    const uint4 raw = buf[v];
    input_t items[G];
    std::memcpy(items, &raw, sizeof(raw));
#pragma unroll
    for (int e = 0; e < G; ++e) x[e] = static_cast<AccT>(items[e]);
  }

  // ---- tile states: zeroed here, not by a memset ----------------------------------------------
  //
  // A memset of more than 4096 bytes costs the host as much as a kernel launch (H200: 2.8-3.5 us
  // against 0.8 for a small one), and the GPU waits for it. So the memset clears only the ticket
  // and `cleared`; every warp but the producer zeroes a share of the tile states, then counts
  // itself in `cleared`. The grid is launched cooperatively (all blocks resident), and the
  // reducer and the look-back warps wait for every block's warps before their first state access;
  // the producer's loads and the first reductions go on meanwhile.
  static_assert(producer_warp == 0, "the clearing threads are those after warp 0");
  static constexpr unsigned clearing_threads = block_threads - 32;
  static constexpr unsigned clearing_warps = clearing_threads / 32;

  GPUPRIM_DEVICE void clear_states() const {
    using states_t = typename Params::states_type;
    const std::size_t words = std::size_t(p_.scan.tiles) * states_t::words_per_tile;
    const std::size_t stride = std::size_t(gridDim.x) * clearing_threads;
    for (std::size_t i = std::size_t(blockIdx.x) * clearing_threads + threadIdx.x - 32; i < words; i += stride) {
      p_.scan.states.words[i] = 0;
    }
    __threadfence();  // each lane's zeros are visible device-wide before its warp is counted
    __syncwarp();
    if (lane_id() == 0) atomicAdd(p_.cleared, 1u);
  }

  // Called by a whole warp before its first tile state access.
  GPUPRIM_DEVICE void wait_for_clear_states() const {
    if (lane_id() == 0) wait_for_count(p_.cleared, gridDim.x * clearing_warps);
    __syncwarp();
  }

  // ---- producer -------------------------------------------------------------------------------

  GPUPRIM_DEVICE const input_t* tile_source(unsigned tile) const {
    return p_.scan.in + p_.scan.head + std::size_t(tile) * tile_items;  // 16-byte aligned
  }

  // Takes the next ticket and has L2 fetch that tile while it waits for a slot.
  GPUPRIM_DEVICE unsigned reserve_tile() const {
    const unsigned tile = atomicAdd(p_.ticket, 1u);
    if (tile < p_.scan.tiles) bulk_prefetch_l2(tile_source(tile), static_cast<unsigned>(valid_vectors(tile)) * 16u);
    return tile;
  }

  // The producer holds one ticket ahead of its slots: the tile it will copy next is already on
  // its way into L2, so the bulk copy into the slot, once one frees, waits for L2 rather than for
  // DRAM, and the tail of the DRAM latency (the slowest of the recent tiles paces every prefix)
  // is spent while the slots are still busy. H200, same process as HEAD and CUB, 11 rounds: i32
  // exclusive sum 2^25 0.89x the time, 2^28 0.92-0.93x (541-553 us, CUB 700-712), 2^30 0.93x;
  // 8-byte sums at 2^26-2^28 0.95x. Two tickets ahead: 0.97-1.01x; four: 1.2-1.3x (the reserved
  // tiles, not yet copied, hold up the prefixes of every later tile).
  GPUPRIM_DEVICE void produce() {
    unsigned next = reserve_tile();
    for (unsigned it = 0;; ++it) {
      const int s = slot_of(it);
      mbarrier_wait(&c_.empty[s], phase_of(it) ^ 1u);
      const unsigned tile = next;
      if (tile >= p_.scan.tiles) {
        c_.tile[s] = end_of_tiles;
        mbarrier_arrive(&c_.full[s]);
        return;
      }
      next = reserve_tile();
      c_.tile[s] = tile;
      bulk_copy_to_shared(slots_ + s * tile_vectors, tile_source(tile),
                          static_cast<unsigned>(valid_vectors(tile)) * 16u, &c_.full[s]);
    }
  }

  // ---- reducer: chunk totals and the tile's aggregate (operands reordered) ---------------------

  // x = x op y, where either may be absent (`has`).
  GPUPRIM_DEVICE void fold(AccT& x, bool& has, const AccT& y, bool y_has) const {
    if (y_has) {
      x = has ? static_cast<AccT>(p_.scan.op(x, y)) : y;
      has = true;
    }
  }

  // Chunk w of a slot holding `valid` vectors (the chunk has some): its total, in every lane.
  template <bool Full>
  GPUPRIM_DEVICE AccT reduce_chunk(const uint4* buf, int w, int valid, int lane, const AccT& placeholder) const {
    AccT x = placeholder;
    bool has = false;
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      const int v = w * chunk_vectors + j * 32 + lane;
      if (Full || v < valid) {
        AccT items[G];
        read_vector(buf, v, items);
#pragma unroll
        for (int e = 0; e < G; ++e) {
          if (Full) {
            x = j == 0 && e == 0 ? items[0] : static_cast<AccT>(p_.scan.op(x, items[e]));
          } else {
            fold(x, has, items[e], true);
          }
        }
      }
    }
    if (Full) has = true;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const AccT y = shfl_xor(x, offset);
      if (Full) {
        x = static_cast<AccT>(p_.scan.op(x, y));
      } else {
        fold(x, has, y, __shfl_xor_sync(full_warp_mask, has ? 1 : 0, offset) != 0);
      }
    }
    return x;
  }

  // The tile's aggregate in every lane; lane w < chunks keeps chunk w's total and writes it out
  // once, after the loop. (A store under `lane == 0` in each iteration let nvcc thread one path
  // for lane 0 through the unrolled loop and another for the rest: every shuffle then ran on the
  // slow diverged path, 5.6 us per 4-byte tile instead of ~1.4, ncu.)
  template <bool Full>
  GPUPRIM_DEVICE AccT reduce_tile(const uint4* buf, int s, int valid, int lane) {
    AccT first[G];
    read_vector(buf, 0, first);
    AccT aggregate = reduce_chunk<Full>(buf, 0, valid, lane, first[0]);
    AccT mine = aggregate;
#pragma unroll
    for (int w = 1; w < scan_warps; ++w) {
      if (Full || w * chunk_vectors < valid) {
        const AccT total = reduce_chunk<Full>(buf, w, valid, lane, first[0]);
        mine = lane_select(lane == w, total, mine);
        aggregate = static_cast<AccT>(p_.scan.op(aggregate, total));
      }
    }
    if (lane < chunks_of(valid)) c_.chunk_total[s][lane] = mine;
    return aggregate;
  }

  GPUPRIM_DEVICE void reduce() {
    const int lane = static_cast<int>(lane_id());
    bool states_clear = false;
    for (unsigned it = 0;; ++it) {
      const int s = slot_of(it);
      mbarrier_wait_warp(&c_.full[s], phase_of(it));
      const unsigned tile = c_.tile[s];
      if (tile == end_of_tiles) {
        if (lane == 0) mbarrier_arrive(&c_.reduced[s]);
        return;
      }
      const int valid = valid_vectors(tile);
      const AccT aggregate = valid == tile_vectors ? reduce_tile<true>(slot(s), s, valid, lane)
                                                   : reduce_tile<false>(slot(s), s, valid, lane);
      if (!states_clear) {
        wait_for_clear_states();
        states_clear = true;
      }
      __syncwarp();
      // The reducer of a group's last tile folds and publishes the group's total itself (it waits
      // for the group's aggregates), so that later tiles need not wait until this block's
      // look-back warp reaches the tile. H200, 2^28, one process, against the total published by
      // the look-back warp: f64 sums 0.79-0.82x the time (2^24 0.82-0.88x); i32 and f32 sums,
      // which took the tile-by-tile look-back (over 256 tiles) then, 0.96x and 0.99x (2^24 0.89x,
      // 0.93x).
      if (tile > 0) publish_before_grouped_look_back(p_.scan.states, tile, p_.scan.op, aggregate);
      if (lane == 0) {
        c_.aggregate[s] = aggregate;
        mbarrier_arrive(&c_.reduced[s]);
        // The slot may be refilled only after this warp's reads too: releasing it directly (not
        // only through the look-back and the scanners) keeps every reader one barrier from the
        // producer.
        mbarrier_arrive(&c_.empty[s]);
      }
    }
  }

  // ---- look-back warp: tile prefixes, chunk prefixes, the head ---------------------------------

  GPUPRIM_DEVICE void find_prefixes() {
    const int lane = static_cast<int>(lane_id());
    const Params& sp = p_.scan;
    wait_for_clear_states();
    for (unsigned it = 0;; ++it) {
      const int s = slot_of(it);
      mbarrier_wait_warp(&c_.reduced[s], phase_of(it));
      const unsigned tile = c_.tile[s];
      if (tile == end_of_tiles) return;
      const int chunks = chunks_of(valid_vectors(tile));
      const AccT total = c_.chunk_total[s][lane < chunks ? lane : 0];
      AccT through;
      warp_scan<AccT>{}.inclusive_scan(total, through, sp.op);
      const AccT before = shfl_up(through, 1);
      // The prefixes are built on the aggregate the reducer published, not on the chunk totals'
      // scan here (another association): the look-back's bitwise reproducibility needs every fold
      // of A(t) to take the A(t) that the tile's successors fold.
      const AccT aggregate = c_.aggregate[s];

      // The tile's exclusive prefix; only the first tile of an inclusive scan without a head
      // has none.
      AccT prefix = aggregate;
      bool has_prefix = true;
      if (tile == 0) {
        has_prefix = !inclusive || sp.head > 0;
        prefix = scan_first_tile_prefix(sp, aggregate);
        // Tile 0's inclusive prefix (the grouped look-back publishes its groups' own).
        if (lane == 0 && sp.tiles > 1) {
          sp.states.publish(tile, status_prefix, has_prefix ? static_cast<AccT>(sp.op(prefix, aggregate)) : aggregate);
        }
      } else {
        prefix = grouped_look_back(sp.states, tile, sp.op, aggregate);
      }
      if (lane < scan_warps) {
        AccT chunk_prefix = prefix;
        if (lane > 0) chunk_prefix = has_prefix ? static_cast<AccT>(sp.op(prefix, before)) : before;
        c_.chunk_prefix[s][lane] = chunk_prefix;
      }
      __syncwarp();
      if (lane == 0) {
        mbarrier_arrive(&c_.prefixed[s]);
        mbarrier_arrive(&c_.empty[s]);
      }
    }
  }

  // ---- scanning warps --------------------------------------------------------------------------

  // Vector (row j, lane) of chunk `first`, or vector 0 past the body: those follow every valid
  // item, so no stored result depends on them.
  GPUPRIM_DEVICE void read_chunk_vector(const uint4* buf, int first, int j, int lane, int valid, AccT (&x)[G]) const {
    const int v = first + j * 32 + lane;
    read_vector(buf, v < valid ? v : 0, x);
  }

  // First look at a landed tile: each row's lane-inclusive scan of vector totals.
  GPUPRIM_DEVICE void scan_rows(int s, int w, int lane, AccT (&lane_inclusive)[rows]) const {
    const int valid = valid_vectors(c_.tile[s]);
    const uint4* buf = slot(s);
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      AccT x[G];
      read_chunk_vector(buf, w * chunk_vectors, j, lane, valid, x);
      AccT r = x[0];
#pragma unroll
      for (int e = 1; e < G; ++e) r = static_cast<AccT>(p_.scan.op(r, x[e]));
      warp_scan<AccT>{}.inclusive_scan(r, lane_inclusive[j], p_.scan.op);
    }
  }

  // Second look, once the prefix is known: the results, stored; the slot released.
  GPUPRIM_DEVICE void finish_rows(int s, unsigned tile, int w, int lane, const AccT (&lane_inclusive)[rows]) {
    const Params& sp = p_.scan;
    const int valid = valid_vectors(tile);
    const uint4* buf = slot(s);
    const int first = w * chunk_vectors;
    AccT chunk_prefix = c_.chunk_prefix[s][w];
    bool has_prefix = !(inclusive && tile == 0 && sp.head == 0 && w == 0);
    output_t* out = sp.out + sp.head + std::size_t(tile) * tile_items;  // 16-byte aligned
    const bool tail_here = p_.tail > 0 && tile == sp.tiles - 1;
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      AccT x[G];
      read_chunk_vector(buf, first, j, lane, valid, x);
      const AccT row_total = shfl_idx(lane_inclusive[j], 31);
      const AccT lane_exclusive = shfl_up(lane_inclusive[j], 1);
      // Everything before this lane's vector, then through each item. Lane 0 differs from the
      // others only through lane_select: with a plain select or branch, nvcc unswitched the row
      // loop on `lane == 0` (two copies run one after the other, every shuffle on the slow
      // diverged path: 4-byte tiles at half speed on the H100, ncu). Lane 0 computes and drops
      // the combination with its own lane_exclusive.
      const AccT combined = static_cast<AccT>(sp.op(chunk_prefix, lane_exclusive));
      const bool first_lane = lane == 0;
      AccT through = lane_select(first_lane, chunk_prefix, has_prefix ? combined : lane_exclusive);
      const bool has = has_prefix || !first_lane;
      output_t result[G];
#pragma unroll
      for (int e = 0; e < G; ++e) {
        if constexpr (!inclusive) result[e] = static_cast<output_t>(through);
        const AccT next = static_cast<AccT>(sp.op(through, x[e]));
        through = e == 0 ? lane_select(has, next, x[0]) : next;
        if constexpr (inclusive) result[e] = static_cast<output_t>(through);
      }
      const int v = first + j * 32 + lane;
      if (v < valid) {
        uint4 raw;
        std::memcpy(&raw, result, sizeof(raw));
        reinterpret_cast<uint4*>(out)[v] = raw;
      }
      if (tail_here && v == valid - 1) scan_tail(through);
      chunk_prefix = has_prefix ? static_cast<AccT>(sp.op(chunk_prefix, row_total)) : row_total;
      has_prefix = true;
    }
    __syncwarp();  // every lane has read the slot
    if (lane == 0) mbarrier_arrive(&c_.empty[s]);
  }

  // One lane: the tail items after the last vector, given everything through it.
  GPUPRIM_DEVICE void scan_tail(AccT through) const {
    const Params& sp = p_.scan;
    const std::size_t first = std::size_t(sp.head) + p_.body_vectors * G;
    for (int k = 0; k < p_.tail; ++k) {
      const AccT x = static_cast<AccT>(sp.in[first + k]);
      if constexpr (!inclusive) sp.out[first + k] = static_cast<output_t>(through);
      through = static_cast<AccT>(sp.op(through, x));
      if constexpr (inclusive) sp.out[first + k] = static_cast<output_t>(through);
    }
  }

  GPUPRIM_DEVICE void scan_chunks(int w) {
    const int lane = static_cast<int>(lane_id());
    for (unsigned it = 0;; ++it) {
      const int s = slot_of(it);
      mbarrier_wait_warp(&c_.full[s], phase_of(it));
      const unsigned tile = c_.tile[s];
      if (tile == end_of_tiles) return;
      AccT lane_inclusive[rows];
      scan_rows(s, w, lane, lane_inclusive);
      mbarrier_wait_warp(&c_.prefixed[s], phase_of(it));
      finish_rows(s, tile, w, lane, lane_inclusive);
    }
  }

  control& c_;
  uint4* slots_;
  const streaming_scan_params<Params>& p_;
};

template <class Params>
__global__ void __launch_bounds__(streaming_scan<Params>::block_threads, 1)
    streaming_scan_kernel(const streaming_scan_params<Params> params) {
#if GPUPRIM_HAS_BULK_COPY
  extern __shared__ __align__(128) unsigned char streaming_smem[];
  streaming_scan<Params>(streaming_smem, params).run();
#endif
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
