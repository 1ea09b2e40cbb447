// One tile of one pass of the Onesweep LSD radix sort (Adinets & Merrill, "Onesweep: A Faster
// Least Significant Digit Radix Sort for GPUs", 2022): load the keys, rank their digits, publish
// the tile's digit counts, look back for each digit's global offset (decoupled look-back, Merrill &
// Garland 2016), scatter the keys, then the values. Also the sort's shared data: the control block
// in the workspace and the arguments every kernel of a sort takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../block/block_radix_rank.cuh"
#include "../block/block_radix_sort.cuh"
#include "../detail/config.cuh"
#include "../detail/grid_dependency.cuh"
#include "../detail/lookback.cuh"
#include "../detail/radix_traits.cuh"
#include "../detail/uninitialized.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

inline constexpr int radix_bits = 8;
inline constexpr int radix_bins = 1 << radix_bits;
inline constexpr int radix_max_passes = 64 / radix_bits;

/// Stand-in value type of keys-only sorts.
struct no_values {};

/// The counters of one sort that start at zero: the memset before the first kernel clears only
/// these, so that it stays small (a memset of more than 4096 bytes costs the host as much as a
/// launch). The digit counts and the first pass's look-back states are cleared on the device.
struct radix_sort_counters {
  unsigned tile_counter[radix_max_passes];  // next tile of each pass kernel
  unsigned ticket;                          // histogram blocks (or tiles) done
  unsigned plan_ready;                      // fused sort: offsets and passes chosen
  unsigned work_ticket;                     // fused sort: next work item
  unsigned tiles_done[radix_max_passes];    // fused sort: tiles of each pass done
  unsigned count_ticket;                    // histogram blocks (or tiles) started
  unsigned counts_clear;                    // 1 once `counts` is zeroed
  unsigned other_zero_seen;                 // floating keys: a zero that digit_bits leaves alone
  unsigned long long fixup_keys;            // floating keys: the keys that digit_bits changes
};

/// Per-call control block in the workspace: the passes the histogram kept, and its counts.
struct radix_sort_control {
  radix_sort_counters head;     // zeroed by a memset
  unsigned active_passes;       // passes left after skipping
  unsigned digits_fixed;        // floating keys: 1 when the passes take digits through digit_bits
  int pass_shift[radix_max_passes];     // of each pass left, in order
  int pass_bits[radix_max_passes];
  int pass_position[radix_max_passes];  // its row in counts / offsets
  unsigned long long counts[radix_max_passes][radix_bins];   // digit counts of each digit position
  unsigned long long offsets[radix_max_passes][radix_bins];  // their exclusive scans
};
static_assert(sizeof(radix_sort_counters) <= 4096, "the control block's memset stays small");

/// Pointers and sizes of one sort, shared by all its kernels.
template <class Key, class Value>
struct radix_sort_args {
  using bits_t = typename radix_key<Key>::bits_t;
  const Key* keys_in;
  Key* keys_out;
  bits_t* keys_alt;  // n keys of workspace (bit-ordered between passes)
  const Value* values_in;
  Value* values_out;
  Value* values_alt;
  std::size_t n;
  int begin_bit;
  int end_bit;
  radix_sort_control* control;
  bool keys_discarded = false;  ///< no sorted keys wanted and no buffer for them: the rank sorts and the copy store none (argsort)
};

/// Bytes of a value (0 for keys-only sorts), and bytes one item moves per pass: key plus value.
template <class Value>
inline constexpr int radix_value_bytes = std::is_same_v<Value, no_values> ? 0 : static_cast<int>(sizeof(Value));
template <class Key, class Value>
inline constexpr int radix_item_bytes = static_cast<int>(sizeof(Key)) + radix_value_bytes<Value>;

/// How a pass's tiles run: `Shape` (threads, items per thread), and whether the tiles come in many
/// waves (`EarlyScatter`: each key goes to its place in shared memory as soon as it is ranked, so
/// no rank array is held in registers) or one (ranks held, the exchange sharing the counters'
/// storage). The register budget (min blocks per SM, unless `MinBlocks`) and look-back window follow
/// from them.
template <class Key, class Value, class Shape, bool EarlyScatter, int MinBlocks = 0>
struct onesweep_config {
  static constexpr int block_threads = Shape::block_threads;
  static constexpr int items_per_thread = Shape::items_per_thread;
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr bool early_scatter = EarlyScatter;
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  /// Registers: 1152 threads an SM for items of up to 4 bytes (56 registers), 768 above (85).
  static constexpr int min_blocks_per_sm = [] {
    const int budget = radix_item_bytes<Key, Value> <= 4 ? 1152 : 768;
    const int fit = GPUPRIM_ARCH_MAX_THREADS_PER_SM / block_threads;
    const int want = MinBlocks > 0 ? MinBlocks : budget / block_threads > 0 ? budget / block_threads : 1;
    return want <= fit ? want : (fit > 0 ? fit : 1);
  }();
  /// Digits recomputed wherever used (radix_key::digit_fresh) where registers are short.
  static constexpr bool fresh_digits = !has_values || sizeof(Key) == 8;
  /// Predecessors a look-back step reads (one round trip to L2 for several tiles): 4, but 1 for pairs
  /// in many waves, whose passes are bound by L2 traffic. H200, 2026-11-24, against 1: u32 keys 4
  /// 0.949x the time at 2^26-2^28, fused keys 0.88-0.91x, one-wave u32/u32 pairs 0.90-0.96x; but
  /// many-wave u32/u32 pairs 1.04-1.06x at 2^26-2^28.
  static constexpr int lookback_window = !EarlyScatter || !has_values ? 4 : 1;
  static_assert(block_threads % 32 == 0 && block_threads >= radix_bins, "one thread per digit, whole warps");
  static_assert(tile_items <= 65536, "ranks are packed in 16 bits");
};

/// Shared memory of one onesweep tile: the ranking's counters and the exchange (apart where keys
/// go to the exchange while other warps still rank), each digit's shift, the tile's number.
template <class Key, class Value, class Config>
struct onesweep_storage {
  using bits_t = typename radix_key<Key>::bits_t;
  using rank_t = block_radix_rank<Config::block_threads, Config::items_per_thread, radix_bits>;
  union exchange {
    uninitialized_array<bits_t, Config::tile_items> keys;
    uninitialized_array<Value, Config::tile_items> values;
  };
  struct apart {
    typename rank_t::temp_storage rank;
    exchange u;
  };
  union shared {
    typename rank_t::temp_storage rank;
    exchange u;
  };
  std::conditional_t<Config::early_scatter, apart, shared> x;
  unsigned long long shift[radix_bins];  // global position - tile position, of each digit (mod 2^64)
  unsigned tile;
};

/// N unsigned fields of Bits bits each, packed into registers: what a pairs tile keeps per item
/// between the key and the value scatters (ranks in 16 bits, digits in 8).
template <int N, int Bits>
struct packed_fields {
  static constexpr int per_word = 32 / Bits;
  static constexpr unsigned mask = (1u << Bits) - 1u;
  unsigned words[(N + per_word - 1) / per_word] = {};
  /// Sets field i, which must still be 0, to x (< 2^Bits).
  GPUPRIM_DEVICE void put(int i, unsigned x) { words[i / per_word] |= x << (Bits * (i % per_word)); }
  GPUPRIM_DEVICE unsigned get(int i) const { return (words[i / per_word] >> (Bits * (i % per_word))) & mask; }
};

/// Where one tile's keys lie: a run of tiles sorted as one (the whole input, or one segment of a
/// segmented sort) starts with a tile whose digit offsets come from the histogram; each later tile
/// of the run looks back to it. `offsets` holds the run's exclusive digit offsets (global
/// positions), radix_bins per digit position.
struct onesweep_run {
  std::size_t base;                     ///< global index of the tile's first item
  int valid;                            ///< the tile's items (fewer in the run's last tile)
  bool first;                           ///< the first tile of its run
  const unsigned long long* offsets;    ///< [digit position][digit]
};

/// The run of tile `tile` of a plain sort of n keys: every tile of one run.
template <int TileItems>
GPUPRIM_HOST_DEVICE onesweep_run whole_input_run(unsigned tile, std::size_t n, const unsigned long long* offsets) {
  const std::size_t base = std::size_t(tile) * TileItems;
  const int valid = n - base < std::size_t(TileItems) ? static_cast<int>(n - base) : TileItems;
  return onesweep_run{base, valid, tile == 0, offsets};
}

/// Tile `tile` of pass `slot` (of the passes the histogram kept): every thread of the block
/// constructs it and calls `process()`. The look-back states are `states` (the tiles' words,
/// [tile][digit], shared by the passes: count_tile_states tags each word with its pass). `Fixup`
/// false: digits without the -0.0 fix-up of floating keys (radix_sort_control::digits_fixed).
/// Pairs with `values_in == nullptr` (argsort) take each item's input position as its value.
template <class Key, class Value, bool Descending, class Config, bool Fixup = true>
class onesweep_tile {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  using storage_t = onesweep_storage<Key, Value, Config>;
  using rank_t = typename storage_t::rank_t;
  static constexpr int threads = Config::block_threads;
  static constexpr int items = Config::items_per_thread;
  static constexpr bool has_values = Config::has_values;

 public:
  GPUPRIM_DEVICE onesweep_tile(const radix_sort_args<Key, Value>& a, storage_t& s, int slot, unsigned tile,
                               const onesweep_run& run, unsigned long long* states)
      : a_(a), s_(s), slot_(slot), tile_(tile), first_(run.first), states_(states), tile_base_(run.base),
        valid_(run.valid), offsets_(run.offsets) {
    const radix_sort_control* control = a.control;
    active_ = static_cast<int>(control->active_passes);
    if (slot >= active_) return;
    shift_ = control->pass_shift[slot];
    bits_ = control->pass_bits[slot];
    position_ = control->pass_position[slot];
    // The passes ping-pong between the output and the workspace, so that the last one writes the
    // output.
    write_output_ = ((active_ - 1 - slot) & 1) == 0;
    read_output_ = ((active_ - slot) & 1) == 0;
  }

  GPUPRIM_DEVICE void process() {
    if (slot_ >= active_) {  // a pass the histogram dropped (all keys share its digit)
      // No pass at all: the input is the output, unless a low-memory sort's input already is.
      if (slot_ == 0 && static_cast<const void*>(a_.keys_in) != static_cast<const void*>(a_.keys_out)) copy_tile();
      return;
    }
    load_keys();
    rank_t ranker(s_.x.rank);
    ranker.count([&](int i) { return digit_of(i); });
    publish_counts(ranker);
    ranker.scan_counters();
    unsigned digit_start = 0, digit_count = 0;  // of digit threadIdx.x in this tile
    if (threadIdx.x < radix_bins) {
      digit_start = ranker.bin_start(threadIdx.x);
      digit_count = ranker.scanned_bin_count(threadIdx.x);
    }
    __syncthreads();  // `finish` consumes the counters
    rank_into_exchange(ranker);
    // After the shared scatter, as CUB does, so that predecessors have had time to publish.
    look_back(digit_start, digit_count);
    allow_next_grid();  // only the scatter is left: the next pass may be scheduled now
    __syncthreads();    // the exchange and the shifts are complete
    scatter_keys();
    if constexpr (has_values) scatter_values();
  }

 private:
  /// The sort of an empty digit range, or of keys whose every digit position was dropped.
  GPUPRIM_DEVICE void copy_tile() {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = i * threads + threadIdx.x;
      const std::size_t idx = tile_base_ + j;
      if (j < valid_) {
        reinterpret_cast<bits_t*>(a_.keys_out)[idx] = reinterpret_cast<const bits_t*>(a_.keys_in)[idx];
        if constexpr (has_values) a_.values_out[idx] = radix_input_value(a_.values_in, idx);
      }
    }
  }


  /// The tile, warp-striped and bit-ordered; missing items of the last tile get the largest key, so
  /// that they rank after every real key and are never stored. Floating keys, and integer keys
  /// without values in the many-wave tiles, read through one pointer and are ordered in a second
  /// loop once every load is issued (ordering each key as it arrived put a consumer right behind
  /// every load); the other tiles select per item, which spilled less.
  GPUPRIM_DEVICE void load_keys() {
    constexpr bool one_source = traits::is_float || (!has_values && Config::early_scatter);
    const bool first = slot_ == 0;
    const bits_t* in_bits = reinterpret_cast<const bits_t*>(a_.keys_in);
    const bits_t* other = read_output_ ? reinterpret_cast<const bits_t*>(a_.keys_out) : a_.keys_alt;
    [[maybe_unused]] const bits_t* src = one_source && first ? in_bits : other;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int pos = warp_striped_position<items>(i);
      keys_[i] = traits::all_ones;
      if (pos < valid_) {
        if constexpr (one_source) {
          keys_[i] = src[tile_base_ + pos];
        } else {
          keys_[i] = first ? traits::order(in_bits[tile_base_ + pos], Descending) : other[tile_base_ + pos];
        }
      }
    }
    if constexpr (one_source) {
      if (first) {
#pragma unroll
        for (int i = 0; i < items; ++i) {
          if (warp_striped_position<items>(i) < valid_) keys_[i] = traits::order(keys_[i], Descending);
        }
      }
    }
  }

  GPUPRIM_DEVICE const Value* values_source() const {
    return slot_ == 0 ? a_.values_in : (read_output_ ? a_.values_out : a_.values_alt);
  }

  GPUPRIM_DEVICE unsigned digit_of(int i) const {
    if constexpr (!Fixup) {
      return traits::digit_fresh_unfixed(keys_[i], shift_, bits_);
    } else if constexpr (Config::fresh_digits) {
      return traits::digit_fresh(keys_[i], shift_, bits_);
    } else {
      return traits::digit(keys_[i], shift_, bits_);
    }
  }

  GPUPRIM_DEVICE unsigned sorted_digit(bits_t key) const {
    return Fixup ? traits::digit(key, shift_, bits_) : traits::digit_of_bits(key, shift_, bits_);
  }

  /// Global position of this pass's first key of digit d in the run (first tiles only).
  GPUPRIM_DEVICE unsigned long long run_offset(int d) const { return offsets_[position_ * radix_bins + d]; }

  /// The tile's digit counts, at once, so that later tiles rarely wait for them; a run's first tile
  /// publishes its inclusive offsets (every look-back ends there at the latest).
  GPUPRIM_DEVICE void publish_counts(const rank_t& ranker) const {
    for (int d = threadIdx.x; d < radix_bins; d += threads) {
      const unsigned long long c = ranker.bin_count(d);
      const count_tile_states states{states_ + d, radix_bins, count_tile_states::tag_of_pass(slot_)};
      if (first_) {
        states.publish(tile_, count_tile_states::prefix, run_offset(d) + c);
      } else {
        states.publish(tile_, count_tile_states::aggregate, c);
      }
    }
  }

  /// Each key to its rank in the exchange: many-wave tiles as soon as the ranking finds it, others
  /// from the ranks held in registers once the counters are free. Pairs keep the ranks.
  GPUPRIM_DEVICE void rank_into_exchange(rank_t& ranker) {
    const auto digit = [&](int i) { return digit_of(i); };
    if constexpr (Config::early_scatter) {
      ranker.finish_each(digit, [&](int i, unsigned rank) {
        s_.x.u.keys[static_cast<int>(rank)] = keys_[i];
        if constexpr (has_values) rank_of_.put(i, rank);
      });
    } else {
      unsigned ranks[items];
      ranker.finish(digit, ranks);
      __syncthreads();  // the exchange reuses the counters' storage
#pragma unroll
      for (int i = 0; i < items; ++i) {
        s_.x.u.keys[static_cast<int>(ranks[i])] = keys_[i];
        if constexpr (has_values) rank_of_.put(i, ranks[i]);
      }
    }
  }

  /// One thread per digit: the digit's global offset before this tile (from the histogram's
  /// offsets for a run's first tile, else by look-back), published with this tile's count as its inclusive
  /// offset, and kept as the shift from tile positions to global ones.
  GPUPRIM_DEVICE void look_back(unsigned digit_start, unsigned digit_count) {
    if (threadIdx.x >= radix_bins) return;
    const int d = threadIdx.x;
    const count_tile_states states{states_ + d, radix_bins, count_tile_states::tag_of_pass(slot_)};
    unsigned long long before;
    if (first_) {
      before = run_offset(d);
    } else {
      before = look_back_count<Config::lookback_window>(states, tile_);
      states.publish(tile_, count_tile_states::prefix, before + digit_count);
    }
    s_.shift[d] = before - digit_start;
  }

  /// Item j of the sorted tile goes to shift[digit] + j: runs of one digit are contiguous. The last
  /// pass undoes the order transform (for integer keys one uniform XOR). Pairs keep each sorted
  /// item's digit for the values.
  GPUPRIM_DEVICE void scatter_keys() {
    const bool last = slot_ == active_ - 1;
    [[maybe_unused]] bits_t out_flip = 0;
    if constexpr (traits::order_is_xor) out_flip = last ? traits::order_mask(Descending) : bits_t(0);
    bits_t* dst = write_output_ ? reinterpret_cast<bits_t*>(a_.keys_out) : a_.keys_alt;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + threadIdx.x;
      if (j < valid_) {
        const bits_t key = s_.x.u.keys[j];
        const unsigned d = sorted_digit(key);
        if constexpr (has_values) out_digit_.put(k, d);
        const std::size_t g = s_.shift[d] + static_cast<unsigned long long>(j);
        if constexpr (traits::order_is_xor) {
          dst[g] = key ^ out_flip;
        } else {
          dst[g] = last ? traits::unorder(key, Descending) : key;
        }
      }
    }
  }

  /// The values: loaded, exchanged through shared memory by the ranks
  /// kept, and stored at their keys' places.
  GPUPRIM_DEVICE void scatter_values() {
    const Value* src = values_source();
    Value* dst = write_output_ ? a_.values_out : a_.values_alt;
    Value v[items];
    bool positions = false;  // argsort's first pass: the values are the positions
    if constexpr (std::is_integral_v<Value>) positions = src == nullptr;
    if (positions) {
      if constexpr (std::is_integral_v<Value>) {
#pragma unroll
        for (int i = 0; i < items; ++i) v[i] = static_cast<Value>(tile_base_ + warp_striped_position<items>(i));
      }
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp_striped_position<items>(i);
        if (pos < valid_) v[i] = src[tile_base_ + pos];
      }
    }
    __syncthreads();  // every key has left the exchange
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int r = static_cast<int>(rank_of_.get(i));
      if (r < valid_) s_.x.u.values[r] = v[i];
    }
    __syncthreads();  // the values are exchanged
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + threadIdx.x;
      if (j < valid_) dst[s_.shift[out_digit_.get(k)] + static_cast<unsigned long long>(j)] = s_.x.u.values[j];
    }
  }

  const radix_sort_args<Key, Value>& a_;
  storage_t& s_;
  int slot_;
  unsigned tile_;
  bool first_;
  unsigned long long* states_;
  int active_ = 0;
  int shift_ = 0, bits_ = 0, position_ = 0;
  bool write_output_ = false, read_output_ = false;
  std::size_t tile_base_;
  int valid_;
  const unsigned long long* offsets_;
  bits_t keys_[items];
  packed_fields<has_values ? items : 1, 16> rank_of_;
  packed_fields<has_values ? items : 1, 8> out_digit_;
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
