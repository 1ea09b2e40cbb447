// The device radix sort: an LSD radix sort of 8-bit digits in the single-pass (Onesweep) form of
// Adinets & Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs" (2022),
// grown from the histogram / scan / scatter sort of Satish, Harris & Garland (2009).
//
// 1. One upfront kernel reads the keys once and counts the digits of every pass at once (shared
//    memory histograms, added to global counters). The last block to finish (a ticket taken after
//    a fence) scans each pass's counts into global digit offsets and drops every pass in which all
//    keys share one digit: such a pass is a stable identity permutation (pass skipping).
// 2. One kernel per remaining pass: each block takes the next tile (an atomic counter, so tiles
//    start in order), ranks its keys in shared memory (block_radix_rank), publishes its per-digit
//    counts, finds the global offset of each digit by decoupled look-back over the tiles before it
//    (Merrill & Garland 2016), and scatters keys (then values) through shared memory so that the
//    global writes of one digit are contiguous. Pairs of 4-byte keys and 4-byte values copy each
//    value (cp.async) straight to its key's place as the ranking finds it
//    (onesweep_shape::direct_values), and from a few tiles per SM on they travel between the
//    passes as one 8-byte word a pair (launch_onesweep_packed).
// 3. Small and mid sizes, where every pass is one latency-bound wave and launches dominate:
//    - up to rank_sort_max_items keys: not a radix sort but its result, by counting comparisons
//      (radix_rank_sort.cuh): every block holds all sort values in shared memory, each warp finds
//      the ranks of a few keys and writes them to their places, one launch, no workspace; up to
//      rank_sort_small_items keys (1024 of up to 4 bytes) with the counting unrolled over padded
//      shared memory; from bucket_sort_min_items keys on, each block first buckets the values by
//      their highest differing bits and a key is compared only with its bucket;
//    - up to radix_fused_max_tiles tiles: one launch of the fused kernel, in which resident
//      blocks take the histogram tiles and then every pass's tiles from one work counter, a pass
//      waiting for the previous one through a counter instead of a kernel boundary.
//
// The passes ping-pong between the caller's output and a workspace buffer, chosen on the device
// from the number of passes left after skipping, so that the last one lands in the output.
// Outside a CUDA graph, kernels for skipped passes are still launched (deciding on the host would
// need a host sync); they read the pass count and return at once. A sort captured into a graph puts
// the passes after the first under one SWITCH node that the upfront kernel sets from its plan, so a
// replay launches only the passes kept (launch_onesweep_with).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "../block/block_radix_rank.cuh"
#include "../block/block_radix_sort.cuh"
#include "../block/block_scan.cuh"
#include "../warp/warp_reduce.cuh"
#include "async_copy.cuh"
#include "config.cuh"
#include "l2_access.cuh"
#include "launch.cuh"
#include "lookback.cuh"
#include "radix_rank_sort.cuh"
#include "radix_segment_sort.cuh"
#include "radix_traits.cuh"
#include "uninitialized.cuh"
#include "workspace.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

inline constexpr int radix_bits = 8;
inline constexpr int radix_bins = 1 << radix_bits;
inline constexpr int radix_max_passes = 64 / radix_bits;

/// Stand-in value type of keys-only sorts.
struct no_values {};

/// The counters of one sort that start at zero: the memset before the first kernel clears only
/// these (radix_sort_control::head), so that it stays small. H200: a memset of up to 4096 bytes
/// costs the host 0.8 us, a larger one 2.8-3.5 us, as much as a kernel launch, and the GPU waits
/// for it (notes/PERF.md, session 19). The digit counts and the first pass's look-back states,
/// which also start at zero, are cleared on the device (radix_clear_counts, the histogram).
struct radix_sort_counters {
  unsigned tile_counter[radix_max_passes];  // next tile of each pass kernel
  unsigned ticket;                          // histogram blocks (or tiles) done
  unsigned plan_ready;                      // fused sort: offsets and passes chosen
  unsigned work_ticket;                     // fused sort: next work item
  unsigned tiles_done[radix_max_passes];    // fused sort: tiles of each pass done
  unsigned count_ticket;                    // histogram blocks (or tiles) started
  unsigned counts_clear;                    // 1 once `counts` is zeroed
  unsigned other_zero_seen;                 // floating keys: 1 once the histogram saw a zero that
                                            // digit_bits leaves as it is (ordered as high_bit)
  unsigned long long fixup_keys;            // floating keys: the keys that digit_bits changes
  unsigned oversized;                       // segment sort: segments over the blocks' capacity
  unsigned spread_checked;                  // segment sort: 1 once a histogram block checked the
  unsigned spread_short;                    // spread of the top 16 bits; 1 where one found it short
};

/// Per-call control block in the workspace.
struct radix_sort_control {
  radix_sort_counters head;                                   // zeroed by a memset
  unsigned active_passes;                                     // passes left after skipping
  unsigned digits_fixed;  // floating keys: 1 when the passes take digits through digit_bits
  unsigned segment_sort;  // 1 when the passes sort the top 16 bits and the segment sort the rest
  int pass_shift[radix_max_passes];                           // of each pass left, in order
  int pass_bits[radix_max_passes];
  int pass_position[radix_max_passes];                        // its row in counts / offsets
  int pass_match_bits[radix_max_passes];  // its digits differ only in their low this many bits
  unsigned long long counts[radix_max_passes][radix_bins];   // digit counts of each digit position
  unsigned long long offsets[radix_max_passes][radix_bins];  // their exclusive scans
};
static_assert(sizeof(radix_sort_counters) <= 4096, "the control block's memset stays small");

/// The buffers of the packed pair passes (launch_onesweep_packed): between the passes of a sort of
/// pairs of 4-byte keys and 4-byte values, each item is one 8-byte word, the key's ordered bits low
/// and the value's bits high, so a pass moves one word an item instead of two arrays' items (one
/// store a sorted item, and half the partly written sectors at the edges of a digit's run). Words
/// alternate between `x` (workspace, n words) and `y`, which borrows the caller's outputs: words
/// [0, half) are `keys_out`, [half, 2 half) `values_out`, and an odd n's last word lies at x[n].
/// The last pass reads `x` and writes `keys_out` and `values_out` as keys and values.
struct radix_packed_buffers {
  std::uint64_t* x = nullptr;
  std::uint64_t* y_low = nullptr;   // keys_out
  std::uint64_t* y_high = nullptr;  // values_out
  std::size_t half = 0;             // n / 2
  /// Word g of `y`.
  GPUPRIM_HOST_DEVICE std::uint64_t* y(std::size_t g) const {
    return g < half ? y_low + g : (g < 2 * half ? y_high + (g - half) : x + (g + 1));
  }
};

/// Key type of the packed pair passes: one word holding a `Key` (ordered bits, low) and its value
/// (high). Its radix_key traits take digits from the key half.
template <class Key>
struct packed_pair {
  std::uint64_t word;
};

template <class Key>
inline constexpr bool is_packed_pair_v = false;
template <class Key>
inline constexpr bool is_packed_pair_v<packed_pair<Key>> = true;

/// The traits of packed pairs: those of `Key` on the low half of the word (order and unorder keep
/// the value half).
template <class Key>
struct radix_key<packed_pair<Key>> {
  using key_traits = radix_key<Key>;
  static_assert(sizeof(Key) == 4, "packed pairs hold 4-byte keys");
  using key_bits_t = typename key_traits::bits_t;
  using bits_t = std::uint64_t;
  static constexpr int bits = key_traits::bits;
  static constexpr bits_t all_ones = ~bits_t(0);
  static constexpr bool is_float = key_traits::is_float;
  static constexpr bool is_signed_integer = key_traits::is_signed_integer;
  GPUPRIM_HOST_DEVICE static key_bits_t low(bits_t w) { return static_cast<key_bits_t>(w); }
  GPUPRIM_HOST_DEVICE static bits_t with_low(bits_t w, key_bits_t k) { return (w & ~bits_t(0xffffffffu)) | k; }
  GPUPRIM_HOST_DEVICE static bits_t order(bits_t w, bool descending) {
    return with_low(w, key_traits::order(low(w), descending));
  }
  GPUPRIM_HOST_DEVICE static bits_t unorder(bits_t w, bool descending) {
    return with_low(w, key_traits::unorder(low(w), descending));
  }
  GPUPRIM_HOST_DEVICE static unsigned digit(bits_t w, int shift, int num_bits) {
    return key_traits::digit(low(w), shift, num_bits);
  }
  GPUPRIM_HOST_DEVICE static unsigned digit_fresh(bits_t w, int shift, int num_bits) {
    return key_traits::digit_fresh(low(w), shift, num_bits);
  }
  GPUPRIM_HOST_DEVICE static unsigned digit_fresh_unfixed(bits_t w, int shift, int num_bits) {
    return key_traits::digit_fresh_unfixed(low(w), shift, num_bits);
  }
  GPUPRIM_HOST_DEVICE static unsigned digit_of_bits(bits_t w, int shift, int num_bits) {
    return key_traits::digit_of_bits(low(w), shift, num_bits);
  }
};

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
  /// Pairs of up to 8 bytes an item: have L2 fetch a tile's values while its keys are ranked (set
  /// per device by choose_value_prefetch).
  bool prefetch_values = true;
  /// The packed pair passes' buffers (launch_onesweep_packed; unused elsewhere).
  radix_packed_buffers packed = {};
  /// The segment sort's ladder step (radix_segment_step_for) where the plan may choose it, else -1.
  int segment_step = -1;
};

// ---- Shapes (measured on the H200; see notes/PERF.md) -----------------------------------------

/// How the early-scatter tiles of pairs of 4-byte keys and 4-byte values move the values
/// (onesweep_shape::direct_values): straight to their places in wide tiles or in narrow ones, or
/// held as ranks in registers and exchanged after the keys; `direct_packed`: as `direct`, writing
/// packed pairs for the passes after it (launch_onesweep_packed) unless it is the last.
enum class radix_values_path { direct, direct_narrow, held, direct_packed };

/// Bytes one item moves per pass: key plus value.
template <class Key, class Value>
inline constexpr int radix_item_bytes =
    static_cast<int>(sizeof(Key)) + (std::is_same_v<Value, no_values> ? 0 : static_cast<int>(sizeof(Value)));

/// Predecessor tiles whose look-back states one step of a pass's look-back reads at once (one
/// round trip to L2 for several tiles; onesweep_shape and fused_shape), by whether the pass's
/// tiles come in many waves (the early-scatter tiles). H200, same process as CUB, against one tile
/// a step: u32 keys 4 tiles 0.949x the time at 2^26-2^28, 0.92-0.93x at 3-4M (2 tiles 0.956x, 8
/// 0.960x at 2^28); keys of the fused kernel (20000-131072) 0.88-0.91x (u64 at 131072 0.82x); but
/// u32/u32 pairs 1.04-1.06x at 2^26-2^28 with 4 (2: 1.04x), so pairs in many waves read one
/// (notes/PERF.md, session 32): those passes are bound by L2 traffic (session 33: the L2 fabric 82%
/// busy), to which every look-back load adds. Where every tile of a pass is resident at once (the
/// one-wave and fused tiles), the tiles publish at about the same time and a look-back of one tile
/// a step walks back over all of them; four a step: u32/u32 pairs 0.90-0.96x the time from 20000
/// to 2^21 keys, u64/u32 pairs 0.86-0.96x up to 2^20 (H200 and H100 80GB HBM3 alike; two a step
/// 0.94-0.99x). Early-scatter pair tiles in a grid of a few waves read four too (onesweep_shape's
/// FewWaves, radix_lookback_few_waves_below): u64/u32 0.94-0.95x at 2-4M, 0.98x at 2^23, 1.00x at
/// 2^24, but 1.01x at 2^26; u32/u32 (the first packed pass) 0.97-0.99x at 4M-2^24 (notes/PERF.md,
/// sessions 35-36).
template <class Value, bool ManyWaves>
inline constexpr int radix_lookback_window = !ManyWaves || std::is_same_v<Value, no_values> ? 4 : 1;

/// Tiles of the onesweep passes: 384 threads (3 blocks per SM for items of up to 4 bytes: 56
/// registers; 2 above: 85). Bigger tiles mean fewer tiles to publish, scan and look back over, at
/// the price of registers. H200, same run, keys at 2^28: u32 19 items 5971 us, 21 5675, 23 5487,
/// 25 5283 (40 B spilled), CUB 5418-5452; f32 19 items 7022 us (136 B spilled), 16 6662 (8 B),
/// 15 6869, before the -0.0 fix-up went into volatile PTX (radix_key::digit_bits; since then f32
/// spills as u32 does and shares its shape); u64 keys (2^27) 16 items 8785 us, 20 8064 (116 B
/// spilled), CUB 8229; pairs u32/u32 16 items 9238 us, 20 8129, 24 8965. Pairs of 8-byte keys
/// (2^28, same run): u64/u32 12 items 23420 us, 16 19968, 20 20264 (68 B spilled), CUB 20082;
/// u64/u64 6 items 39215 us, 12 25439, 16 22727, 20 30472 (148 B spilled), CUB 24592. With each
/// pair item's rank and digit packed into registers between the key and the value scatters
/// (packed_fields; same run, 2^28): u32/u32 20 items 7806 us, 24 7682, 26 7316 (CUB 7409);
/// u64/u32 16 items 20455, 18 19077 (19216 unpacked; CUB 20073); u64/u64 16 22660, 18 22154 (CUB
/// 24600). Items of more than 16 bytes: not measured.
///
/// `Path`: how the early-scatter tiles of pairs that can take either way (direct_capable) move
/// their values; other shapes ignore it.
///
/// `FewWaves`: early-scatter tiles launched in a grid of only a few waves of them
/// (radix_lookback_few_waves_below), which read look-back states as one-wave passes do
/// (radix_lookback_window); other shapes ignore it.
///
/// `FewTiles`: one-wave tiles for a grid of no more tiles than SMs (radix_few_tiles_one_wave): the
/// narrower tiles (4-byte keys 19 items, not 25; pairs of 8 bytes 20, not 26; pairs of 9 to 16
/// bytes 16, not 18), so that more SMs sort a tile each; other shapes ignore it.
template <class Key, class Value, bool EarlyScatter = false, radix_values_path Path = radix_values_path::direct,
          bool FewWaves = false, bool FewTiles = false>
struct onesweep_shape {
  static constexpr int bytes = radix_item_bytes<Key, Value>;
  static constexpr bool has_values = !std::is_same_v<Value, no_values>;
  // Signed integer keys take the shapes of unsigned ones: the passes undo their order transform (an
  // XOR) with one uniform mask (onesweep_tile's out_flip). With the transform applied per item under
  // `last ? unorder(key) : key`, nvcc compiled two scatters and the wider tiles spilled (int32/u32
  // pairs 116 bytes at 26 items, 92 in the packed first pass), so signed keys had kept narrower
  // tiles and the held values (notes/PERF.md, session 38).
  static constexpr bool few_tiles = FewTiles && !EarlyScatter;
  // The 25-item tile: 4-byte keys, keys only.
  static constexpr bool wide_tile = bytes == 4 && sizeof(Key) == 4 && !few_tiles;
  // The wider pair tiles (ranks and digits packed in registers until the values move).
  static constexpr bool wide_pairs = has_values && !few_tiles;
  static constexpr int block_threads = 384;
  /// Tiles of the one-wave passes (each tile's ranks held in registers until the exchange).
  static constexpr int one_wave_items = wide_tile ? 25
                                        : bytes <= 4  ? 19
                                        : bytes == 8  ? (wide_pairs ? 26 : 20)
                                        : bytes <= 16 ? (wide_pairs ? 18 : 16)
                                                      : (96 / bytes > 1 ? 96 / bytes : 1);
  /// Tiles of the early-scatter passes (0: as one_wave_items). They hold no rank array, and their
  /// keys-only and 8-byte-key kernels take digits through radix_key::digit_fresh, so they have the
  /// registers for wider tiles, and wider tiles mean fewer tiles to publish, scan and look back
  /// over. H200, same process as CUB, 2^28 keys, time against 25/20/26/18 items (notes/PERF.md,
  /// session 22): 4-byte keys 29 items 0.94, 32 0.926, 36 0.936 (f32 32: 0.970, 36: 0.987); u64
  /// keys 22 0.97, 26 0.918, 28 0.98; u64/u32 pairs 22 0.956, 26 0.944; u32/u32 pairs 28 0.986
  /// (with digit_fresh 1.00), 30 1.007 (spills).
  //
  // Pairs of 4-byte keys and 4-byte values whose values move straight to their places
  // (direct_values, below) take 32 items, two blocks an SM, or in the narrow shape 19 items, three
  // blocks an SM (56 registers: digits through digit_fresh; 75 KB of shared memory a block).
  // H200, same process as CUB, u32/u32 pairs, time against the 28-item tiles that hold ranks and
  // digits in registers (Path held): 32 items 2^28 0.950, 2^26 0.961-0.966, 2^24 1.002-1.013, 2^23
  // 1.051, 2^22 1.077 (1.3 waves of the wide tiles); narrow 2^28 1.147, 2^26 1.130, 2^24 1.055,
  // 2^23 0.989-1.000, 2^22 0.936-0.942, 3000017 0.895-0.902; keys in [0, 2^20) alike. On the H100
  // 80GB HBM3 the wide tiles took 1.023x the time at 2^26-2^28 (notes/PERF.md, session 29).
  // launch_onesweep takes them by size and device (radix_direct_wide_from, radix_direct_values_fit).
  static constexpr bool direct_capable = has_values && bytes == 8 && sizeof(Key) == 4 && alignof(Value) == 4;
  static constexpr bool direct_values = EarlyScatter && direct_capable && Path != radix_values_path::held;
  static constexpr bool narrow = direct_values && Path == radix_values_path::direct_narrow;
  /// The first pass of launch_onesweep_packed: writes packed pairs (radix_packed_buffers) unless it
  /// is the last pass.
  static constexpr bool packed_out = direct_values && Path == radix_values_path::direct_packed;
  static constexpr int early_items = bytes == 4 && sizeof(Key) == 4  ? 32
                                     : bytes == 8 && sizeof(Key) == 8  ? 26
                                     : narrow                          ? 19
                                     : direct_values                   ? 32
                                     : bytes == 8 && sizeof(Key) == 4  ? 28
                                     : bytes == 12 && sizeof(Key) == 8 ? 26
                                                                       : 0;
  static constexpr int items_per_thread = EarlyScatter && early_items > 0 ? early_items : one_wave_items;
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr int min_blocks_per_sm = bytes <= 4 || narrow ? 3 : 2;  // caps registers at 56 (85) per thread
  // Each key is stored at its rank in shared memory as soon as the ranking finds it (the exchange
  // then needs its own storage beside the counters: u32 keys 55 KiB a block instead of 40), so no
  // rank array is held in registers. Measured on the H200 (notes/PERF.md, session 20), same process
  // as CUB: from 2^22 keys 0.91-0.94x the time for u64 keys, 0.94x f32, 0.97x u32, 0.96x u32/u32
  // pairs; but 1.10-1.15x at 2^18-2^20 for u32 and f32 keys (u64 keys 1.04x), where a pass is one
  // wave of tiles. Both shapes exist; launch_onesweep takes this one for grids of more than one wave.
  static constexpr bool early_scatter = EarlyScatter;
  // direct_values (declared above): each value is copied asynchronously (cp.async) from global
  // memory straight to its key's place in a shared array of its own as soon as the ranking finds
  // the place, and a sorted item's key and value are stored together. No rank or digit is held in
  // registers for the values, which take no second pass through shared memory (two barriers
  // fewer), at the price of a tile's worth of shared memory: 113 KB a block (the narrow shape
  // 75 KB), two (three) blocks an SM on sm_90.
  /// Digits through radix_key::digit_fresh (see early_items). Pairs of 4-byte keys have the
  /// registers to keep the digits, and recomputing them cost u32/u32 2% (H200, 2^28); the narrow
  /// shape needs it to fit 56 registers (96 bytes spilled without).
  static constexpr bool fresh_digits = !has_values || sizeof(Key) == 8 || narrow;
  /// Predecessor tiles whose look-back states one step of the look-back reads at once.
  static constexpr int lookback_window = radix_lookback_window<Value, EarlyScatter && !FewWaves>;
};

/// The one-wave tiles of grids of no more tiles than SMs (onesweep_shape's FewTiles), where they
/// are narrower than the others (else the same shape). Each tile gets an SM of its own (one block an
/// SM: launch_onesweep_with), so narrower tiles put more SMs to work. H200, same process as CUB,
/// time against the wider tiles (notes/PERF.md, session 38): u32 keys 150001-800011 0.89-0.93x,
/// f32 keys 0.87-0.91x, u32/u32 pairs 0.86-0.92x; at 2^20, where the narrower tiles outnumber the
/// SMs (144 against 132), 1.02-1.04x.
template <class Key, class Value>
using radix_few_tiles_one_wave =
    std::conditional_t<onesweep_shape<Key, Value, false, radix_values_path::direct, false, true>::tile_items ==
                           onesweep_shape<Key, Value, false>::tile_items,
                       onesweep_shape<Key, Value, false>,
                       onesweep_shape<Key, Value, false, radix_values_path::direct, false, true>>;

/// Tiles of the fused single-launch sort (mid sizes: every pass is one latency-bound wave, so
/// smaller tiles than onesweep_shape's shorten each pass).
template <class Key, class Value>
struct fused_shape {
  static constexpr int bytes = radix_item_bytes<Key, Value>;
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = bytes <= 8 ? 8 : bytes <= 16 ? 4 : (64 / bytes > 1 ? 64 / bytes : 1);
  static constexpr int tile_items = block_threads * items_per_thread;
  static constexpr int min_blocks_per_sm = 4;  // caps registers at 64 per thread
  static constexpr bool early_scatter = false;  // see onesweep_shape
  static constexpr bool direct_values = false;  // see onesweep_shape
  static constexpr bool fresh_digits = false;   // see onesweep_shape
  static constexpr bool packed_out = false;     // see onesweep_shape
  /// See radix_lookback_window (one wave: every tile of a pass is resident at once).
  static constexpr int lookback_window = radix_lookback_window<Value, false>;
};

/// Inputs of up to this many fused_shape tiles are sorted by the fused single-launch kernel.
inline constexpr std::size_t radix_fused_max_tiles = 64;

/// Digit bits that the ranking's ballots cover in passes whose digits differ only in their low
/// bits (radix_sort_control::pass_match_bits); the other passes ballot all radix_bits.
inline constexpr int radix_low_match_bits = 4;

inline constexpr int radix_histogram_threads = 256;
inline constexpr int radix_histogram_items = 8;

// ---- Look-back states: a status in the top two bits, the count or offset below ----------------

template <class State>
struct radix_state {
  static constexpr int value_bits = 8 * sizeof(State) - 2;
  static constexpr State value_mask = (State(1) << value_bits) - 1;
  static constexpr State aggregate = State(status_aggregate) << value_bits;
  static constexpr State prefix = State(status_prefix) << value_bits;
  /// Largest n the state holds (offsets up to n plus one tile of padding).
  static constexpr unsigned long long max_items = (1ull << (value_bits < 62 ? value_bits : 62)) - (1ull << 20);
};

// ---- Kernels ----------------------------------------------------------------------------------

/// Shared memory of a histogram block's bookkeeping (radix_start_counting, radix_histogram_arrive)
/// and of the last block's plan (radix_plan), in blocks of `Threads` threads.
template <int Threads>
struct radix_plan_storage {
  typename block_scan<unsigned long long, Threads>::temp_storage scan;
  bool last_block;
  bool clears_counts;
  // OR and AND of the digits present in each pass: equal where all keys share one digit.
  unsigned digit_or[radix_max_passes];
  unsigned digit_and[radix_max_passes];
  unsigned long long digit_max[radix_max_passes];  // the largest digit count of each pass
};

/// What one thread of a histogram saw of the floating zeros: the keys that the -0.0 fix-up
/// changes (radix_key::needs_fixup) and those of the other zero (ordered as high_bit). radix_plan
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

/// Shared memory of the upfront histogram of radix_histogram_threads threads (8-byte keys, and the
/// fused sort's histogram items).
struct radix_histogram_storage {
  unsigned counts[radix_max_passes][radix_bins];
  radix_plan_storage<radix_histogram_threads> plan;
};

/// Adds the digits of every pass of `ordered` (bit-ordered keys, the first `count` valid) to the
/// block's counters: pass by pass (a uniform test per pass, not per key). Every key counts by its
/// own digits; floating keys are also tallied (radix_zero_tally), and radix_plan moves the keys
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
GPUPRIM_DEVICE bool radix_histogram_arrive(radix_plan_storage<Threads>& s, radix_sort_control* control,
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
/// every pass in which all keys share one digit, and notes for each pass left how many of its
/// digits' low bits differ between keys (the ranking's ballots need only those).
///
/// Floating keys: the histogram counted every key by its own digits. The passes take digits through
/// radix_key::digit_bits (the -0.0 fix-up; digits_fixed 1) where a key needs it, unless `may_unfix`
/// (passes that can take either digits: radix_onesweep_kernel), the window is the whole key and the
/// sort's zeros all have one sign: then no key lies between the two zeros' patterns, and the keys
/// order alike either way. Where they fix up, the keys that the fix-up changes move to their fixed
/// digits in the counts first. The fix-up costs f32 sorts 7-8% at 2^26-2^28 (H200).
template <class Key, int Threads>
GPUPRIM_DEVICE void radix_plan(radix_plan_storage<Threads>& s, radix_sort_control* control, int begin_bit,
                               int end_bit, bool may_unfix, bool segments_allowed = false) {
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
      s.digit_max[p] = 0;
    }
    __syncthreads();
    if (c != 0) {
      atomicOr(&s.digit_or[p], threadIdx.x);
      atomicAnd(&s.digit_and[p], threadIdx.x);
      atomicMax(&s.digit_max[p], c);
    }
    unsigned long long offset;
    scan_t(s.scan).exclusive_sum(c, offset);
    if (digit_thread) control->offsets[p][threadIdx.x] = offset;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    // The segment sort (radix_segment_sort.cuh) takes positions 0 and 1 where every position
    // varies and the digit counts of positions 2 and 3 are flat (none above 17/16 of the mean), so
    // that the runs of equal top 16 bits are about n / 65536 long. Skewed keys (the top digits
    // concentrated) keep the four passes.
    bool segments = segments_allowed && passes == 4;
    if (segments) {
      const unsigned long long n = control->offsets[0][radix_bins - 1] + __ldcg(&control->counts[0][radix_bins - 1]);
      for (int p = 0; p < passes; ++p) segments = segments && s.digit_or[p] != s.digit_and[p];
      for (int p = 2; p < passes; ++p) segments = segments && s.digit_max[p] * radix_bins * 16 <= n * 17;
      // Flat digit counts can hide top 16 bits that take few values (position 3 equal to position
      // 2, say), whose runs would all be over capacity: the histogram's spread check.
      segments = segments && !(__ldcg(&control->head.spread_checked) != 0 && __ldcg(&control->head.spread_short) != 0);
    }
    control->segment_sort = segments ? 1u : 0u;
    unsigned active = 0;
    for (int p = segments ? 2 : 0; p < passes; ++p) {
      if (s.digit_or[p] == s.digit_and[p]) continue;  // one digit value: a stable identity
      const int shift = begin_bit + p * radix_bits;
      control->pass_shift[active] = shift;
      control->pass_bits[active] = end_bit - shift < radix_bits ? end_bit - shift : radix_bits;
      control->pass_position[active] = p;
      control->pass_match_bits[active] = 32 - __clz(static_cast<int>(s.digit_or[p] ^ s.digit_and[p]));
      ++active;
    }
    control->active_passes = active;
  }
}

/// The upfront histogram's last block: radix_plan, then, inside a captured graph, the SWITCH node
/// that holds the passes after the first (launch_onesweep_with) set to how many of them the plan
/// keeps, so that the skipped ones are not launched.
template <class Key, int Threads>
GPUPRIM_DEVICE void radix_plan_passes(radix_plan_storage<Threads>& s, radix_sort_control* control, int begin_bit,
                                      int end_bit, graph_switch later, bool segments_allowed) {
  radix_plan<Key>(s, control, begin_bit, end_bit, true, segments_allowed);
  if (later.enabled != 0 && threadIdx.x == 0) {
    const unsigned active = control->active_passes;  // written by this thread
    cudaGraphSetConditional(later.handle, active > 1 ? active - 1 : 0);
  }
}

/// Counts the digits of every pass in one read of the keys; the last block scans the counts and
/// chooses the passes (radix_plan_passes). The blocks also zero the first pass's look-back states
/// (`clear_vectors` 16-byte vectors at `clear`), which pass 0 reads only after this grid has ended.
template <class Key, bool Descending>
__global__ void __launch_bounds__(radix_histogram_threads)
    radix_histogram_kernel(const Key* keys, std::size_t n, int begin_bit, int end_bit, radix_sort_control* control,
                           uint4* clear, std::size_t clear_vectors, graph_switch later, bool segments_allowed) {
  __shared__ radix_histogram_storage s;
  allow_next_grid();  // pass 0 may be scheduled now; it waits for this grid before reading anything
  radix_zero_states(clear, clear_vectors);
  constexpr std::size_t chunk = std::size_t(radix_histogram_threads) * radix_histogram_items;
  radix_count_digits<Key, Descending>(s, keys, blockIdx.x * chunk, n, std::size_t(gridDim.x) * chunk, begin_bit,
                                      end_bit, control);
  if (radix_histogram_arrive(s.plan, control, gridDim.x)) {
    radix_plan_passes<Key>(s.plan, control, begin_bit, end_bit, later, segments_allowed);
  }
}

/// The segment sort's spread check (radix_plan): a histogram block marks the ordered top 16 bits of
/// some of its keys in a bitmap and compares how many distinct values it saw with how many as many
/// uniform draws would show. Flat digit counts at positions 2 and 3 can hide top 16 bits that take
/// few values (position 3 equal to position 2: 256 of them), whose runs would all be over the
/// segment sort's capacity and go to its slow fix-up (H200, 64M such u32/u32 pairs: 4.4x the time
/// of four passes). Empty where `Enabled` is false.
template <bool Enabled>
struct radix_spread_storage {
  GPUPRIM_DEVICE void clear() {}
  GPUPRIM_DEVICE void mark(unsigned) {}
  GPUPRIM_DEVICE void check(std::size_t, unsigned&, unsigned&) {}
};
template <>
struct radix_spread_storage<true> {
  unsigned bits[radix_segments / 32];
  unsigned seen;
  /// Every thread, before the block's first mark (a barrier follows before any mark).
  GPUPRIM_DEVICE void clear() {
    for (int k = threadIdx.x; k < int(radix_segments / 32); k += blockDim.x) bits[k] = 0;
    if (threadIdx.x == 0) seen = 0;
  }
  GPUPRIM_DEVICE void mark(unsigned top) { atomicOr(&bits[top / 32], 1u << (top % 32)); }
  /// Every thread, after its last mark, with the block's `sampled` keys: sets `checked` and, where
  /// the block saw fewer than 3/4 of the distinct values that as many uniform draws would show,
  /// `short_of` (blocks of fewer than 4096 samples leave it alone).
  GPUPRIM_DEVICE void check(std::size_t sampled, unsigned& checked, unsigned& short_of) {
    __syncthreads();
    unsigned distinct = 0;
    for (int k = threadIdx.x; k < int(radix_segments / 32); k += blockDim.x) distinct += __popc(bits[k]);
    distinct = warp_reduce<unsigned>{}.sum(distinct);
    if (threadIdx.x % 32 == 0 && distinct != 0) atomicAdd(&seen, distinct);
    __syncthreads();
    if (threadIdx.x == 0) {
      const double draws = static_cast<double>(sampled);
      const double expected = radix_segments * (1.0 - exp(-draws / radix_segments));
      if (sampled >= 4096 && seen < 0.75 * expected) atomicOr(&short_of, 1u);
      atomicOr(&checked, 1u);
    }
  }
};

/// Keys of up to 4 bytes: the upfront histogram, counted per warp and digit position in one of
/// three ways, chosen from the OR and AND of the warp's keys of a chunk:
/// - all share the digit: one atomic for the warp;
/// - the digits differ in at most 4 bits: shared atomics on one counter per digit, where the
///   lanes with equal digits are combined;
/// - else: lane columns, a counter per (digit, lane) with lane L's counters in bank L, so that the
///   warp's 32 atomics never meet in one bank.
/// Shared atomics of 32 distinct addresses bound radix_histogram_kernel (H200, 2^28 u32 keys: 473
/// us uniform; 349 for keys in [0, 2^20), whose upper digits take few values). One block an SM; the
/// keys come in 16-byte loads from the first aligned key on.
template <class Key>
struct radix_column_histogram {
  static constexpr int threads = 1024;
  static constexpr int loads = static_cast<int>(sizeof(Key));  // of 16 bytes a thread a chunk: 16 keys
  static constexpr int keys_per_load = 16 / sizeof(Key);
  static constexpr int items = loads * keys_per_load;
  static constexpr int chunk = threads * items;
  static constexpr int passes = radix_key<Key>::bits / radix_bits;
  /// Digit positions whose digits differ in at most this many bits count on shared counters.
  static constexpr int narrow_bits = 4;
  /// Dynamic shared memory: the lane columns, [pass][digit][lane].
  static constexpr std::size_t smem = std::size_t(passes) * radix_bins * 32 * sizeof(unsigned);
};

template <class Key, bool Descending>
__global__ void __launch_bounds__(radix_column_histogram<Key>::threads, 1)
    radix_column_histogram_kernel(const Key* keys, std::size_t n, int begin_bit, int end_bit,
                                  radix_sort_control* control, uint4* clear, std::size_t clear_vectors,
                                  graph_switch later, bool segments_allowed) {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  using shape = radix_column_histogram<Key>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& columns = *reinterpret_cast<unsigned(*)[shape::passes][radix_bins][32]>(smem);
  __shared__ unsigned shared_counts[shape::passes][radix_bins];
  __shared__ radix_plan_storage<shape::threads> plan;
  // Where the segment sort is offered (4-byte keys): the top 16 bits of one key in 16 marked in a
  // bitmap (radix_spread_storage).
  constexpr bool spread_keys = sizeof(bits_t) == 4;
  __shared__ radix_spread_storage<spread_keys> spread;
  allow_next_grid();  // pass 0 may be scheduled now; it waits for this grid before reading anything
  radix_zero_states(clear, clear_vectors);
  const int passes = (end_bit - begin_bit + radix_bits - 1) / radix_bits;
  unsigned* flat = &columns[0][0][0];
  for (int k = threadIdx.x; k < shape::passes * radix_bins * 32; k += shape::threads) flat[k] = 0;
  for (int k = threadIdx.x; k < shape::passes * radix_bins; k += shape::threads) (&shared_counts[0][0])[k] = 0;
  if constexpr (spread_keys) {
    if (segments_allowed) spread.clear();
  }
  radix_start_counting(plan.clears_counts, control, passes);
  std::size_t sampled = 0;  // keys marked in the spread bitmap by this block

  const unsigned lane = threadIdx.x % 32;
  radix_zero_tally zeros;  // floating keys
  const auto* key_bits = reinterpret_cast<const bits_t*>(keys);
  // Keys before the first 16-byte boundary (misaligned input): block 0, one a thread.
  const std::size_t misaligned = (16 - reinterpret_cast<std::uintptr_t>(keys) % 16) % 16 / sizeof(bits_t);
  const std::size_t head = misaligned < n ? misaligned : n;
  const auto digit_at = [&](bits_t bits, int p) {
    const int shift = begin_bit + p * radix_bits;
    return traits::digit_of_bits(bits, shift, end_bit - shift < radix_bits ? end_bit - shift : radix_bits);
  };
  // Adds the first `count` keys of this thread (their digit bits) to the lane columns of position p.
  const auto add_to_columns = [&](const bits_t(&bits)[shape::items], int count, int p) {
#pragma unroll
    for (int i = 0; i < shape::items; ++i) {
      if (i < count) atomicAdd(&columns[p][digit_at(bits[i], p)][lane], 1u);
    }
  };
  // ... for every position.
  const auto count_columns = [&](const bits_t(&bits)[shape::items], int count) {
#pragma unroll
    for (int p = 0; p < shape::passes; ++p) {
      if (p < passes) add_to_columns(bits, count, p);
    }
  };
  const auto tally_zeros = [&](const bits_t(&bits)[shape::items], int count) {
    if constexpr (traits::is_float) {
#pragma unroll
      for (int i = 0; i < shape::items; ++i) {
        if (i < count) zeros.add<Key>(bits[i]);
      }
    }
  };
  if (blockIdx.x == 0 && threadIdx.x < head) {
    bits_t bits[shape::items] = {traits::order(key_bits[threadIdx.x], Descending)};
    tally_zeros(bits, 1);
    count_columns(bits, 1);
  }
  const std::size_t stride = std::size_t(gridDim.x) * shape::chunk;
  for (std::size_t base = head + std::size_t(blockIdx.x) * shape::chunk; base < n; base += stride) {
    bits_t bits[shape::items];
    if (n - base >= std::size_t(shape::chunk)) {
      // Load j of thread t: keys [(j * threads + t) * keys_per_load, ...): coalesced 16-byte loads.
      const auto* vectors = reinterpret_cast<const uint4*>(key_bits + base);
      uint4 v[shape::loads];
#pragma unroll
      for (int j = 0; j < shape::loads; ++j) v[j] = vectors[j * shape::threads + threadIdx.x];
      static_assert(sizeof(v) == sizeof(bits), "the loads hold the items");
      std::memcpy(bits, v, sizeof(v));
#pragma unroll
      for (int i = 0; i < shape::items; ++i) bits[i] = traits::order(bits[i], Descending);
      tally_zeros(bits, shape::items);
      if constexpr (spread_keys) {
        if (segments_allowed) {
          spread.mark(static_cast<unsigned>(bits[0]) >> radix_segment_low_bits);
          sampled += shape::threads;
        }
      }
      unsigned any = 0, all = ~0u;
#pragma unroll
      for (int i = 0; i < shape::items; ++i) {
        any |= bits[i];
        all &= bits[i];
      }
      warp_or_and(any, all);
#pragma unroll
      for (int p = 0; p < shape::passes; ++p) {
        if (p < passes) {
          const unsigned differ = digit_at(static_cast<bits_t>(any ^ all), p);
          if (differ == 0) {
            if (lane == 0) atomicAdd(&shared_counts[p][digit_at(static_cast<bits_t>(all), p)], 32u * shape::items);
          } else if (__popc(differ) <= shape::narrow_bits) {
#pragma unroll
            for (int i = 0; i < shape::items; ++i) atomicAdd(&shared_counts[p][digit_at(bits[i], p)], 1u);
          } else {
            add_to_columns(bits, shape::items, p);
          }
        }
      }
    } else {
      const std::size_t left = n - base - threadIdx.x;  // > 0 for the threads with items
      const int count = n - base > threadIdx.x ? static_cast<int>((left + shape::threads - 1) / shape::threads) : 0;
#pragma unroll
      for (int i = 0; i < shape::items; ++i) {
        bits[i] = i < count ? traits::order(key_bits[base + std::size_t(i) * shape::threads + threadIdx.x], Descending)
                            : bits_t(0);
      }
      tally_zeros(bits, count);
      count_columns(bits, count);
    }
  }
  if constexpr (spread_keys) {
    if (segments_allowed) spread.check(sampled, control->head.spread_checked, control->head.spread_short);
  }
  radix_finish_counting<Key>(control, zeros);
  // Each warp sums rows of 32 lane counters (one per bank) and the shared counter, and adds the
  // nonzero totals.
  const int warp = threadIdx.x / 32;
  for (int row = warp; row < passes * radix_bins; row += shape::threads / 32) {
    const unsigned c = warp_reduce<unsigned>{}.sum(flat[row * 32 + lane]) + (&shared_counts[0][0])[row];
    if (lane == 0 && c != 0) {
      atomicAdd(&control->counts[row / radix_bins][row % radix_bins], static_cast<unsigned long long>(c));
    }
  }
  if (radix_histogram_arrive(plan, control, gridDim.x)) {
    radix_plan_passes<Key>(plan, control, begin_bit, end_bit, later, segments_allowed);
  }
}

/// Shared memory of one onesweep tile.
template <class Key, class Value, class Shape, class State>
struct onesweep_storage {
  using bits_t = typename radix_key<Key>::bits_t;
  using rank_t = block_radix_rank<Shape::block_threads, Shape::items_per_thread, radix_bits>;
  union exchange {
    uninitialized_array<bits_t, Shape::tile_items> keys;
    uninitialized_array<Value, Shape::tile_items> values;
  };
  // Shape::direct_values: keys and values side by side.
  struct side_by_side {
    uninitialized_array<bits_t, Shape::tile_items> keys;
    uninitialized_array<Value, Shape::tile_items> values;
  };
  // Early scatter: the exchange apart from the counters (each key goes to its place while other
  // warps still rank); else all three share the storage.
  struct apart {
    typename rank_t::temp_storage rank;
    std::conditional_t<Shape::direct_values, side_by_side, exchange> u;
  };
  union shared {
    typename rank_t::temp_storage rank;
    exchange u;
  };
  std::conditional_t<Shape::early_scatter, apart, shared> x;
  State shift[radix_bins];  // global position - tile position, of each digit (mod 2^bits)
  unsigned tile;
};

/// N unsigned fields of Bits bits each, packed into registers (32 / Bits per word): what a pairs
/// tile keeps per item between the key and the value scatters (ranks in 16 bits, digits in 8).
/// Constant indices after unrolling: each access is a shift and a mask.
template <int N, int Bits>
struct packed_fields {
  static constexpr int per_word = 32 / Bits;
  static constexpr unsigned mask = (1u << Bits) - 1u;
  unsigned words[(N + per_word - 1) / per_word] = {};
  /// Sets field i, which must still be 0, to x (< 2^Bits).
  GPUPRIM_DEVICE void put(int i, unsigned x) { words[i / per_word] |= x << (Bits * (i % per_word)); }
  GPUPRIM_DEVICE unsigned get(int i) const { return (words[i / per_word] >> (Bits * (i % per_word))) & mask; }
};

/// Copies tile `tile` of keys (and values) to the output: the sort of an empty digit range,
/// or of keys whose every digit position was skipped.
template <class Key, class Value, class Shape>
GPUPRIM_DEVICE void onesweep_copy_tile(const radix_sort_args<Key, Value>& a, unsigned tile) {
  using bits_t = typename radix_key<Key>::bits_t;
  const std::size_t base = std::size_t(tile) * Shape::tile_items;
#pragma unroll
  for (int i = 0; i < Shape::items_per_thread; ++i) {
    const std::size_t idx = base + i * Shape::block_threads + threadIdx.x;
    if (idx < a.n) {
      reinterpret_cast<bits_t*>(a.keys_out)[idx] = reinterpret_cast<const bits_t*>(a.keys_in)[idx];
      if constexpr (!std::is_same_v<Value, no_values>) a.values_out[idx] = a.values_in[idx];
    }
  }
}

/// Tile `tile` of pass `slot` of the passes left after skipping: rank, publish, look back,
/// scatter. Every thread of the block calls it; it reads the pass plan from the control block.
/// `Fixup` false: digits without the -0.0 fix-up of floating keys, for sorts whose plan asks for
/// none (radix_sort_control::digits_fixed).
template <class Key, class Value, bool Descending, class State, class Shape, bool Fixup = true>
GPUPRIM_DEVICE void onesweep_tile(const radix_sort_args<Key, Value>& a, onesweep_storage<Key, Value, Shape, State>& s,
                                  int slot, unsigned tile, State* states_even, State* states_odd) {
  using traits = radix_key<Key>;
  using bits_t = typename traits::bits_t;
  using rank_t = typename onesweep_storage<Key, Value, Shape, State>::rank_t;
  using state = radix_state<State>;
  constexpr int threads = Shape::block_threads;
  constexpr int items = Shape::items_per_thread;
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  // A pass after the first of launch_onesweep_packed: its keys are packed pairs.
  constexpr bool packed_in = is_packed_pair_v<Key>;
  const radix_sort_control* control = a.control;

  const int active = static_cast<int>(control->active_passes);
  if (slot >= active) {
    if (slot == 0) onesweep_copy_tile<Key, Value, Shape>(a, tile);
    return;
  }
  const int shift = control->pass_shift[slot];
  const int bits = control->pass_bits[slot];
  const int position = control->pass_position[slot];
  const bool first = slot == 0;
  const bool last = slot == active - 1;
  const bool write_output = ((active - 1 - slot) & 1) == 0;  // the last pass writes the output
  const bool read_output = ((active - slot) & 1) == 0;       // where pass slot - 1 wrote

  State* states = (slot & 1) ? states_odd : states_even;
  State* next_states = (slot & 1) ? states_even : states_odd;
  if constexpr (Shape::packed_out) {
    // The next pass has the packed passes' tiles (more of them): zero theirs, strided by this
    // pass's grid of one block a tile.
    constexpr std::size_t next_items = onesweep_shape<packed_pair<Key>, no_values, true>::tile_items;
    const std::size_t next_tiles = (a.n + next_items - 1) / next_items;
    for (std::size_t t = tile; t < next_tiles; t += gridDim.x) {
      for (int d = threadIdx.x; d < radix_bins; d += threads) next_states[t * radix_bins + d] = 0;
    }
  } else {
    for (int d = threadIdx.x; d < radix_bins; d += threads) next_states[std::size_t(tile) * radix_bins + d] = 0;
  }

  // Load the tile warp-striped, bit-ordered; missing items of the last tile get the largest key,
  // so they rank after every real key and are never stored.
  const std::size_t tile_base = std::size_t(tile) * Shape::tile_items;
  const int valid = a.n - tile_base < std::size_t(Shape::tile_items) ? static_cast<int>(a.n - tile_base)
                                                                     : Shape::tile_items;
  // Where this pass reads its keys. Floating keys, and integer keys without values in the
  // early-scatter tiles, read them through one pointer (the first pass from the input) and are
  // ordered in a second loop once every load of the tile has been issued. Ordering each key as it
  // arrives put a consumer right behind every load: the first pass of int32 keys took 7% longer
  // than that of u32 keys (ncu, H200, 2^26), and with the two loops the sort of int32 keys takes
  // 0.97-0.98x the time from 2^24, f32 keys 0.95-0.97x against the per-item select between two
  // loads. The other integer tiles keep that select (`first ? order(in) : other`): with one
  // pointer or the second loop they spilled more (the narrow direct tiles of 4-byte pairs 20-96
  // bytes, int64/u32 pairs 4-24, the one-wave tiles of 4-byte keys 48 bytes against 40;
  // notes/PERF.md, session 39).
  constexpr bool one_source = traits::is_float || (!has_values && Shape::early_scatter);
  const bits_t* in_bits = reinterpret_cast<const bits_t*>(a.keys_in);
  const bits_t* other = read_output ? reinterpret_cast<const bits_t*>(a.keys_out) : a.keys_alt;
  [[maybe_unused]] const bits_t* src = one_source && first ? in_bits : other;
  // Item i of this thread lies at tile_base + warp_striped_position(i); it is real below `valid`.
  bits_t ordered[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int pos = warp_striped_position<items>(i);
    if (pos < valid) {
      if constexpr (packed_in) {  // never the first pass
        ordered[i] = read_output ? *a.packed.y(tile_base + pos) : a.packed.x[tile_base + pos];
      } else if constexpr (one_source) {
        ordered[i] = src[tile_base + pos];
      } else {
        ordered[i] = first ? traits::order(in_bits[tile_base + pos], Descending) : other[tile_base + pos];
      }
    } else {
      ordered[i] = traits::all_ones;
    }
  }
  if constexpr (one_source) {
    if (first) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        if (warp_striped_position<items>(i) < valid) ordered[i] = traits::order(ordered[i], Descending);
      }
    }
  }
  const auto digit_of = [&](int i) {
    if constexpr (!Fixup) {
      return traits::digit_fresh_unfixed(ordered[i], shift, bits);
    } else if constexpr (Shape::fresh_digits) {
      return traits::digit_fresh(ordered[i], shift, bits);
    } else {
      return traits::digit(ordered[i], shift, bits);
    }
  };
  const Value* vsrc = first ? a.values_in : (read_output ? a.values_out : a.values_alt);
  // Passes of up to 8 bytes an item are latency-bound where DRAM bandwidth is plentiful: have L2
  // fetch the values while the keys are ranked, on devices where that was measured to pay
  // (choose_value_prefetch; H200, 2^28 pairs: u32/u32 5% faster at 20 items, 1-2% at 26; u64/u32 the
  // same; u64/u64 6% slower).
  if constexpr (has_values && radix_item_bytes<Key, Value> <= 8) {
    if (a.prefetch_values) l2_prefetch<threads>(vsrc + tile_base, std::size_t(valid) * sizeof(Value));
  }

  rank_t ranker(s.x.rank);
  ranker.count(digit_of);

  // Publish this tile's digit counts at once (tile 0: its inclusive offsets), so that later tiles
  // rarely wait for it.
  for (int d = threadIdx.x; d < radix_bins; d += threads) {
    const State c = ranker.bin_count(d);
    State* mine = &states[std::size_t(tile) * radix_bins + d];
    if (tile == 0) {
      relaxed_store(mine, static_cast<State>(state::prefix | (static_cast<State>(control->offsets[position][d]) + c)));
    } else {
      relaxed_store(mine, static_cast<State>(state::aggregate | c));
    }
  }
  ranker.scan_counters();
  State digit_start = 0, digit_count = 0;  // of digit threadIdx.x in this tile (radix_bins <= threads)
  static_assert(threads >= radix_bins, "one thread per digit");
  if (threadIdx.x < radix_bins) {
    digit_start = ranker.bin_start(threadIdx.x);
    digit_count = ranker.scanned_bin_count(threadIdx.x);
  }
  __syncthreads();  // `finish` consumes the counters
  // Pairs keep the ranks for the values, packed two to a register (tiles hold < 2^16 items),
  // unless their values go to their places at once (Shape::direct_values).
  static_assert(Shape::tile_items <= 65536, "ranks are packed in 16 bits");
  constexpr bool held_values = has_values && !Shape::direct_values;
  packed_fields<held_values ? items : 1, 16> rank_of;
  if constexpr (Shape::early_scatter) {
    // Direct values: item i of this thread is the value at vfrom + 32 i, real while 32 i < vlimit
    // (an offset folded into the copy's address and one compare an item).
    [[maybe_unused]] const Value* vfrom = vsrc + tile_base + warp_striped_position<items>(0);
    [[maybe_unused]] const int vlimit = valid - warp_striped_position<items>(0);
    // Each key goes to its place in the tile as soon as its rank is known: no rank is held.
    const auto place = [&](int i, unsigned rank) {
      s.x.u.keys[static_cast<int>(rank)] = ordered[i];
      if constexpr (Shape::direct_values) {
        // The value follows from global memory (L2 where the prefetch above ran) to the same place.
        if (32 * i < vlimit) async_copy_item(&s.x.u.values[static_cast<int>(rank)], vfrom + 32 * i);
      } else if constexpr (has_values) {
        rank_of.put(i, rank);
      }
    };
    // Keys-only passes of integer keys whose digits differ only in their low 4 bits (the top pass
    // of keys below 2^20, say) find the groups of equal digits with 4 ballots instead of 8. Not in
    // a partial tile: its padding keys' digits (all ones) need not share the real keys' high bits.
    // Not with values: the second ranking body made ptxas spill (u32/u32 pairs 40 bytes). Not for
    // floating keys, whose kernel holds two ranking bodies already (with and without the -0.0
    // fix-up): with four, f32 keys took 1.02-1.03x the time at 2^22-2^28 (H200, notes/PERF.md,
    // session 25). Not in the one-wave and fused passes (up to ~2^22 keys): there it measured
    // 1.00-1.02x the time.
    if constexpr (!has_values && !traits::is_float) {
      if (valid == Shape::tile_items && control->pass_match_bits[slot] <= radix_low_match_bits) {
        ranker.template finish_each<radix_low_match_bits>(digit_of, place);
      } else {
        ranker.finish_each(digit_of, place);
      }
    } else {
      ranker.finish_each(digit_of, place);
    }
  } else {
    unsigned ranks[items];
    ranker.finish(digit_of, ranks);
    __syncthreads();  // the key exchange reuses the counters' storage
#pragma unroll
    for (int i = 0; i < items; ++i) s.x.u.keys[static_cast<int>(ranks[i])] = ordered[i];
    if constexpr (has_values) {
#pragma unroll
      for (int i = 0; i < items; ++i) rank_of.put(i, ranks[i]);
    }
  }

  // Decoupled look-back (after the shared scatter, as CUB does, so that predecessors have had
  // time to publish), one thread per digit, walking back to a tile with an inclusive offset. The
  // lanes of a warp step together: one load per step for the warp's 32 digits, coalesced while
  // they look at the same tile; a lane whose tile has published nothing yet stays on it.
  if (threadIdx.x < radix_bins) {
    const int d = threadIdx.x;
    State before;
    if (tile == 0) {
      before = static_cast<State>(control->offsets[position][d]);
    } else {
      before = 0;
      std::size_t t = tile - 1;  // the newest tile not yet added
      bool done = false;
      while (__any_sync(0xffffffffu, !done)) {
        if (!done) {
          // Shape::lookback_window tiles at once (one round trip to L2), added newest first up to
          // the first with a prefix (done) or the first that has published nothing yet (read
          // again next round). Tile 0 publishes a prefix, so no walk passes it.
          State st[Shape::lookback_window];
#pragma unroll
          for (int w = 0; w < Shape::lookback_window; ++w) {
            st[w] = t >= std::size_t(w) ? relaxed_load(&states[(t - w) * radix_bins + d]) : State(0);
          }
          bool stop = false;
#pragma unroll
          for (int w = 0; w < Shape::lookback_window; ++w) {
            const State status = st[w] & ~state::value_mask;
            if (!stop && status != 0) {
              before += st[w] & state::value_mask;
              if (status == state::prefix) {
                done = true;
                stop = true;
              } else {
                --t;
              }
            } else {
              stop = true;
            }
          }
        }
      }
      relaxed_store(&states[std::size_t(tile) * radix_bins + d],
                    static_cast<State>(state::prefix | (before + digit_count)));
    }
    s.shift[d] = before - digit_start;
  }
  allow_next_grid();  // only the scatter is left: the next pass may be scheduled now
  if constexpr (Shape::direct_values) async_copy_wait_all();  // this thread's values have landed
  __syncthreads();

  // Item j of the sorted tile goes to shift[digit] + j: runs of one digit are contiguous.
  const auto sorted_at = [&](int j, bits_t& key) {
    key = s.x.u.keys[j];
    const unsigned d = Fixup ? traits::digit(key, shift, bits) : traits::digit_of_bits(key, shift, bits);
    return static_cast<std::size_t>(static_cast<State>(s.shift[d] + static_cast<State>(j)));
  };
  // Calls store(j, g, key) for every sorted item j of the tile with its place g and key (the
  // packed passes' scatters).
  const auto for_each_sorted = [&](auto&& store) {
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + threadIdx.x;
      if (j < valid) {
        bits_t key;
        const std::size_t g = sorted_at(j, key);
        store(j, g, key);
      }
    }
  };
  if constexpr (packed_in) {
    // Packed pairs: as pairs in the caller's outputs after the last pass, else as words.
    const radix_packed_buffers& p = a.packed;
    if (last) {
      auto* keys_out = reinterpret_cast<typename traits::key_bits_t*>(p.y_low);
      auto* values_out = reinterpret_cast<std::uint32_t*>(p.y_high);
      for_each_sorted([&](int, std::size_t g, bits_t key) {
        keys_out[g] = traits::low(traits::unorder(key, Descending));
        values_out[g] = static_cast<std::uint32_t>(key >> 32);
      });
    } else {
      for_each_sorted([&](int, std::size_t g, bits_t key) { *(write_output ? p.y(g) : p.x + g) = key; });
    }
  } else if (Shape::packed_out && !last) {
    if constexpr (Shape::packed_out) {  // only these shapes compile the words' scatter
      // The first pass of packed pairs: each sorted key and its value as one word.
      const radix_packed_buffers& p = a.packed;
      static_assert(sizeof(Value) == sizeof(std::uint32_t), "packed pairs hold 4-byte values");
      for_each_sorted([&](int j, std::size_t g, bits_t key) {
        std::uint32_t value_bits;
        std::memcpy(&value_bits, &s.x.u.values[j], sizeof(value_bits));
        *(write_output ? p.y(g) : p.x + g) = std::uint64_t(key) | std::uint64_t(value_bits) << 32;
      });
    }
  } else {
    // Keys (and values) to their places in the keys (and values) buffers.
    // Integer keys: the last pass undoes the order transform (an XOR) with one uniform mask.
    [[maybe_unused]] bits_t out_flip = 0;
    if constexpr (traits::order_is_xor) out_flip = last ? traits::order_mask(Descending) : bits_t(0);
    // Pairs keep each sorted item's digit for the values, packed four to a register.
    bits_t* dst_bits = write_output ? reinterpret_cast<bits_t*>(a.keys_out) : a.keys_alt;
    Value* vdst = write_output ? a.values_out : a.values_alt;
    packed_fields<held_values ? items : 1, 8> out_digit;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + threadIdx.x;
      if (j < valid) {
        const bits_t key = s.x.u.keys[j];
        const unsigned d = Fixup ? traits::digit(key, shift, bits) : traits::digit_of_bits(key, shift, bits);
        if constexpr (held_values) out_digit.put(k, d);
        const std::size_t g = static_cast<State>(s.shift[d] + static_cast<State>(j));
        if constexpr (traits::order_is_xor) {
          dst_bits[g] = key ^ out_flip;
        } else {
          dst_bits[g] = last ? traits::unorder(key, Descending) : key;
        }
        if constexpr (Shape::direct_values) vdst[g] = s.x.u.values[j];
      }
    }
    if constexpr (held_values) {
      Value v[items];
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int pos = warp_striped_position<items>(i);
        if (pos < valid) v[i] = vsrc[tile_base + pos];
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int r = static_cast<int>(rank_of.get(i));
        if (r < valid) s.x.u.values[r] = v[i];
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const int j = k * threads + threadIdx.x;
        if (j < valid) vdst[static_cast<State>(s.shift[out_digit.get(k)] + static_cast<State>(j))] = s.x.u.values[j];
      }
    }
  }
}

/// `Shape::min_blocks_per_sm` for __launch_bounds__, capped at the blocks of
/// `Shape::block_threads` that one SM of the architecture being compiled holds (sm_75: 2 of 384).
template <class Shape>
inline constexpr int radix_min_blocks_per_sm = [] {
  constexpr int fit = GPUPRIM_ARCH_MAX_THREADS_PER_SM / Shape::block_threads;
  return Shape::min_blocks_per_sm <= fit ? Shape::min_blocks_per_sm : (fit > 0 ? fit : 1);
}();

/// Pass `slot` of the passes left after skipping, one tile per block (tiles taken in order from a
/// counter, so that a tile's predecessors have started before it).
template <class Key, class Value, bool Descending, class State, class Shape>
__global__ void __launch_bounds__(Shape::block_threads, radix_min_blocks_per_sm<Shape>)
    radix_onesweep_kernel(const radix_sort_args<Key, Value> a, int slot, State* states_even, State* states_odd) {
  using storage_t = onesweep_storage<Key, Value, Shape, State>;
  extern __shared__ __align__(16) unsigned char smem[];
  storage_t& s = *reinterpret_cast<storage_t*>(smem);
  // Launched with programmatic dependent launch on sm_90: this pass waits until the kernel before
  // it (histogram or pass) has finished and its writes are visible, before touching anything.
  // The next pass is let in only after this block's look-back (in onesweep_tile): triggering here
  // would let every later pass's blocks in at once and crowd the SMs with waiting blocks (H200,
  // 2^20 u32 keys: 93 us instead of 85).
  wait_for_previous_grid();
  // Where the host offered the segment sort (radix_plan), slots 2 and 3 run only if the plan kept
  // four passes: their blocks read the plan before taking a tile, so that a skipped slot costs no
  // atomics on the tile counter (H200, 2^28 u32/u32: 73 us a skipped slot with them).
  if (a.segment_step >= 0 && slot >= 2 && slot >= static_cast<int>(a.control->active_passes)) return;
  if (threadIdx.x == 0) s.tile = atomicAdd(&a.control->head.tile_counter[slot], 1u);
  __syncthreads();
  if constexpr (radix_key<Key>::is_float) {
    // Floating keys: the -0.0 fix-up in every digit only where the plan asks for it (radix_plan:
    // a key that needs it, for ascending sorts a -0.0, for descending ones a +0.0, and a zero of
    // the other sign or a window short of the whole key). H200, same process as CUB, f32 keys
    // without the fix-up: 2^28 0.927x the time, 2^24 0.956x (notes/PERF.md, session 22).
    if (a.control->digits_fixed != 0) {
      onesweep_tile<Key, Value, Descending, State, Shape, true>(a, s, slot, s.tile, states_even, states_odd);
    } else {
      onesweep_tile<Key, Value, Descending, State, Shape, false>(a, s, slot, s.tile, states_even, states_odd);
    }
  } else {
    onesweep_tile<Key, Value, Descending, State, Shape>(a, s, slot, s.tile, states_even, states_odd);
  }
}

/// Shared memory of the fused sort: histogram or pass tile, one at a time.
template <class Key, class Value, class Shape, class State>
union fused_storage {
  radix_histogram_storage histogram;
  onesweep_storage<Key, Value, Shape, State> pass;
};

/// The whole sort of a few hundred tiles in one launch. The work items are the histogram of every
/// tile, then every tile of pass 0, pass 1, ..., taken in that order from a counter by resident
/// blocks that loop until none is left. A pass-0 tile waits for the plan (made by the last
/// histogram item), a tile of pass p for every tile of pass p - 1; everything waited on holds an
/// earlier ticket, so its block is running: no deadlock, whatever the residency, and no grid
/// barrier. This replaces one launch per pass by one wait per pass (mid-size inputs, where every
/// pass is a single latency-bound wave).
template <class Key, class Value, bool Descending, class State, class Shape>
__global__ void __launch_bounds__(Shape::block_threads, radix_min_blocks_per_sm<Shape>)
    radix_fused_kernel(const radix_sort_args<Key, Value> a, int passes, unsigned tiles, State* states_even,
                       State* states_odd) {
  static_assert(Shape::block_threads == radix_histogram_threads, "the histogram items use the whole block");
  using storage_t = fused_storage<Key, Value, Shape, State>;
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
      // Pass 0's look-back state of tile k starts at zero; pass 0 waits for the plan, which comes
      // after every histogram item.
      for (int d = threadIdx.x; d < radix_bins; d += Shape::block_threads) {
        states_even[std::size_t(k) * radix_bins + d] = 0;
      }
      const std::size_t first = std::size_t(k) * Shape::tile_items;
      const std::size_t end = a.n - first < std::size_t(Shape::tile_items) ? a.n : first + Shape::tile_items;
      radix_count_digits<Key, Descending>(s.histogram, a.keys_in, first, end,
                                          std::size_t(radix_histogram_threads) * radix_histogram_items, a.begin_bit,
                                          a.end_bit, control);
      if (radix_histogram_arrive(s.histogram.plan, control, tiles)) {
        radix_plan<Key>(s.histogram.plan, control, a.begin_bit, a.end_bit, false);  // its tiles always fix up
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
    onesweep_tile<Key, Value, Descending, State, Shape>(a, s.pass, slot, tile, states_even, states_odd);
    __syncthreads();  // every thread's stores of this tile are issued
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(&control->head.tiles_done[slot], 1u);
    }
  }
}

// ---- Host side --------------------------------------------------------------------------------

template <class Key>
bool radix_bits_valid(int begin_bit, int end_bit) {
  return begin_bit >= 0 && end_bit <= radix_key<Key>::bits && begin_bit <= end_bit;
}

template <class Key, class Value>
bool radix_pointers_valid(const Key* keys_in, const Key* keys_out, const Value* values_in, const Value* values_out,
                          std::size_t n) {
  if (n == 0) return true;
  if (keys_in == nullptr || keys_out == nullptr) return false;
  if constexpr (!std::is_same_v<Value, no_values>) {
    if (values_in == nullptr || values_out == nullptr) return false;
  }
  return true;
}

/// Of the onesweep shapes of `Key`/`Value` (one wave, for any grid or for few tiles; early scatter,
/// narrow or not, values held or not), the one with the narrowest tiles: its workspace (the most
/// tiles, so the most look-back states) holds the passes of any.
template <class Key, class Value>
struct onesweep_narrowest {
  template <class A, class B>
  using narrower = std::conditional_t<(A::tile_items <= B::tile_items), A, B>;
  using type = narrower<narrower<narrower<onesweep_shape<Key, Value, false>, onesweep_shape<Key, Value, true>>,
                                 narrower<onesweep_shape<Key, Value, true, radix_values_path::direct_narrow>,
                                          onesweep_shape<Key, Value, true, radix_values_path::held>>>,
                        radix_few_tiles_one_wave<Key, Value>>;
};
template <class Key, class Value>
using onesweep_workspace_shape = typename onesweep_narrowest<Key, Value>::type;

/// The workspace of an onesweep sort of n items: control block, two regions of look-back states,
/// the alternate key and value buffers. Where the packed pair passes may run
/// (onesweep_shape::direct_capable), the two buffers, which lie one after the other, are also their
/// `x` of n words, with one word more for the odd n's last word of `y` (radix_packed_buffers).
template <class Key, class Value, class State, class Shape = onesweep_workspace_shape<Key, Value>>
workspace_layout<5> onesweep_workspace(std::size_t n) {
  using shape = Shape;
  const std::size_t tiles = (n + shape::tile_items - 1) / shape::tile_items;
  workspace_layout<5> layout;
  layout.part_bytes[0] = sizeof(radix_sort_control);
  layout.part_bytes[1] = tiles * radix_bins * sizeof(State);
  layout.part_bytes[2] = tiles * radix_bins * sizeof(State);
  layout.part_bytes[3] = n * sizeof(Key);
  layout.part_bytes[4] = std::is_same_v<Value, no_values> ? 0
                         : onesweep_shape<Key, Value, true>::direct_capable
                             ? n * sizeof(Value) + sizeof(std::uint64_t)
                             : n * sizeof(Value);
  return layout;
}

/// Inputs of up to this many keys are sorted by counting comparisons (radix_rank_sort.cuh), in
/// one launch and without workspace. n^2 comparisons: H200, same run, u32 keys 16384 in 28.4 us
/// against 34.7 for the fused kernel (20480: fused 35, rank ~40 by the n^2 law).
inline constexpr std::size_t rank_sort_max_items = 16384;

/// From this many keys on, the rank sort counts within buckets (radix_bucket_sort_kernel), where
/// the device allows its shared memory. H200, same run, u32 keys: 4096 keys 9.4 us plain against
/// 11.0 bucketed, 6144 11.6 against 11.4, 8192 13.5 against 12.4, 16384 29.5 against 14.3.
inline constexpr std::size_t bucket_sort_min_items = 6144;

/// Grid and keys per warp of a bucketed rank sort of n keys: every block repeats the bucketing of
/// all n keys, so as few blocks as cover the keys with up to one block per SM (more only where 32
/// keys per warp do not suffice).
struct bucket_sort_plan {
  unsigned grid;
  int keys_per_warp;
};
inline bucket_sort_plan plan_bucket_sort(std::size_t n, int sm_count) {
  constexpr std::size_t warps_per_block = bucket_sort_threads / 32;
  const std::size_t warps = std::size_t(sm_count > 0 ? sm_count : 1) * warps_per_block;
  std::size_t per_warp = (n + warps - 1) / warps;
  if (per_warp > 32) per_warp = 32;
  if (per_warp < 1) per_warp = 1;
  const std::size_t per_block = warps_per_block * per_warp;
  return {static_cast<unsigned>((n + per_block - 1) / per_block), static_cast<int>(per_warp)};
}

/// Block size of a rank sort of n keys on sm_count SMs: of 1024, 512 and 256 threads, the one
/// whose grid puts the fewest owned keys on the busiest SM (ties to the larger block: every block
/// loads all n keys), so that 12288 keys spread over 384 blocks of 256 rather than 96 of 1024.
inline unsigned rank_sort_block_threads(std::size_t n, int sm_count) {
  const std::size_t sms = sm_count > 0 ? static_cast<std::size_t>(sm_count) : 1;
  unsigned best = 1024;
  std::size_t best_load = ~std::size_t(0);
  for (unsigned threads : {1024u, 512u, 256u}) {
    const std::size_t keys_per_block = std::size_t(threads / 32) * rank_sort_keys_per_warp;
    const std::size_t blocks = (n + keys_per_block - 1) / keys_per_block;
    const std::size_t load = (blocks + sms - 1) / sms * keys_per_block;
    if (load < best_load) {
      best = threads;
      best_load = load;
    }
  }
  return best;
}

/// The rank sort: one launch, no workspace.
template <class Key, class Value, bool Descending>
cudaError_t launch_rank_sort(const radix_sort_args<Key, Value>& a, cudaStream_t stream) {
  constexpr bool has_values = !std::is_same_v<Value, no_values>;
  constexpr auto kernel = radix_rank_sort_kernel<Key, has_values, Descending, radix_sort_args<Key, Value>>;
  if (a.n <= rank_sort_small_items<Key>) {
    // The unrolled form: no device facts needed (its shared memory stays under the default limit).
    constexpr auto small =
        radix_rank_sort_kernel<Key, has_values, Descending, radix_sort_args<Key, Value>, rank_sort_small_slices>;
    constexpr std::size_t keys_per_block = rank_sort_small_threads / 32 * rank_sort_small_keys_per_warp;
    const auto grid = static_cast<unsigned>((a.n + keys_per_block - 1) / keys_per_block);
    return launch_with_smem(small, grid, rank_sort_small_threads, rank_sort_smem_bytes<Key>(rank_sort_small_items<Key>),
                            stream, launch_mode::plain, a);
  }
  device_facts device;
  cudaError_t e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  static_assert(rank_sort_max_items <= std::size_t(bucket_sort_max_items), "the bucketed kernel takes every size");
  if (a.n >= bucket_sort_min_items) {
    constexpr auto bucketed = radix_bucket_sort_kernel<Key, has_values, Descending, radix_sort_args<Key, Value>>;
    constexpr std::size_t most = bucket_sort_smem_bytes<Key>(bucket_sort_max_items);
    int limit = 0;
    e = max_smem_per_block_optin(device.ordinal, limit);
    if (e != cudaSuccess) return e;
    if (std::size_t(limit) >= most) {
      e = allow_dynamic_smem<bucketed>(most, device.ordinal);
      if (e != cudaSuccess) return e;
      const bucket_sort_plan plan = plan_bucket_sort(a.n, device.sm_count);
      return launch_with_smem(bucketed, plan.grid, bucket_sort_threads, bucket_sort_smem_bytes<Key>(a.n), stream,
                              launch_mode::plain, a, plan.keys_per_warp);
    }
  }
  e = allow_dynamic_smem<kernel>(rank_sort_smem_bytes<Key>(rank_sort_max_items), device.ordinal);
  if (e != cudaSuccess) return e;
  const unsigned threads = rank_sort_block_threads(a.n, device.sm_count);
  const std::size_t keys_per_block = std::size_t(threads / 32) * rank_sort_keys_per_warp;
  const auto grid = static_cast<unsigned>((a.n + keys_per_block - 1) / keys_per_block);
  return launch_with_smem(kernel, grid, threads, rank_sort_smem_bytes<Key>(a.n), stream, launch_mode::plain, a);
}

/// Resident grid for `work` items: at most `resident` blocks on each SM of `device`.
inline unsigned resident_grid(std::size_t work, const device_facts& device, int resident) {
  const std::size_t max_grid = std::size_t(device.sm_count) * static_cast<std::size_t>(resident > 0 ? resident : 1);
  return static_cast<unsigned>(work < max_grid ? work : max_grid);
}

/// Carves the onesweep workspace (Shape's tiles) into `a` and the two state regions, and zeroes
/// the control block's counters (the first kernel zeroes the rest that needs it).
template <class Key, class Value, class State, class Shape>
cudaError_t prepare_onesweep(void* temp, std::size_t temp_bytes, radix_sort_args<Key, Value>& a, State*& states_even,
                             State*& states_odd, cudaStream_t stream) {
  void* parts[5];
  cudaError_t e = onesweep_workspace<Key, Value, State, Shape>(a.n).carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  a.control = static_cast<radix_sort_control*>(parts[0]);
  a.keys_alt = static_cast<typename radix_key<Key>::bits_t*>(parts[3]);
  if constexpr (!std::is_same_v<Value, no_values>) a.values_alt = static_cast<Value*>(parts[4]);
  states_even = static_cast<State*>(parts[1]);
  states_odd = static_cast<State*>(parts[2]);
  return cudaMemsetAsync(&a.control->head, 0, sizeof(radix_sort_counters), stream);
}

/// Devices with at least this much DRAM bandwidth per SM (MB/s, dram_mbps_per_sm) prefetch the
/// values of onesweep pair tiles into L2. Measured, u32/u32 pairs (26 items), same process as
/// CUB: H200 (36,472 MB/s per SM) 2^28 7355 us with the prefetch against 7423 without (CUB 7456),
/// 2^26 1901 against 1928 (1928); H100 80GB HBM3 (25,396) 9337 us with it against 8637 without
/// (CUB 8675), 2^26 2386 against 2227 (2247): there the prefetched values compete with the keys
/// for DRAM and L2 (notes/PERF.md, session 17).
inline constexpr int radix_prefetch_min_mbps_per_sm = 30000;

/// Sets `a.prefetch_values` for `device` (pair sorts; both the onesweep and the fused kernels).
/// The fused kernel, H100, u32/u32 and u64/u32 pairs of 20000 to 131072 items, same process:
/// 0.97-1.01x the time without the prefetch (notes/PERF.md, session 18), so one rule serves both.
template <class Key, class Value>
[[nodiscard]] cudaError_t choose_value_prefetch(const device_facts& device, radix_sort_args<Key, Value>& a) {
  if constexpr (std::is_same_v<Value, no_values>) {
    return cudaSuccess;
  } else {
    int mbps = 0;
    const cudaError_t e = dram_mbps_per_sm(device, mbps);
    a.prefetch_values = mbps >= radix_prefetch_min_mbps_per_sm;
    return e;
  }
}

/// Lets onesweep pass kernel `Pass` of `Shape` (`smem` bytes of storage) take its dynamic shared
/// memory on `device`: one-wave passes up to the device's opt-in limit, since they may be launched
/// with more than they use (see launch_onesweep_with). Every caller of a pass kernel asks for the
/// same size, and allow_dynamic_smem only ever raises it.
template <auto Pass, class Shape>
[[nodiscard]] cudaError_t allow_pass_smem(std::size_t smem, int device) {
  if constexpr (!Shape::early_scatter) {
    int optin = 0;
    const cudaError_t e = max_smem_per_block_optin(device, optin);
    if (e != cudaSuccess) return e;
    if (std::size_t(optin) > smem) smem = std::size_t(optin);
  }
  return allow_dynamic_smem<Pass>(smem, device);
}

/// Keys of up to 4 bytes count the upfront histogram with radix_column_histogram_kernel from this
/// many keys on. Its grid is one block of 1024 threads an SM, each clearing and summing 128 KiB of
/// counters. H200, same process as CUB, against radix_histogram_kernel: u32 keys 2^28 0.962x the
/// time of the whole sort (4292 -> 4129 us), 2^26 0.971, 2^24 0.975, but 2^22 1.036 and 2^20 1.071;
/// keys in [0, 2^20) 2^28 0.976, 2^26 0.985, 2^24 1.002, 2^22 1.053; u32/u32 pairs 2^28 0.977, 2^24
/// 1.010 (notes/PERF.md, session 26).
inline constexpr std::size_t radix_column_histogram_min_items = std::size_t(1) << 24;

/// ... and on devices with at least this much DRAM bandwidth per SM (MB/s, dram_mbps_per_sm): the
/// H200 (36,472), measured above. On the H100 80GB HBM3 (25,396), same process as CUB, it gained
/// nothing: u32 keys 2^28 1.003x the time, 2^24 1.015; keys in [0, 2^20) 2^28 1.017, 2^22-2^24
/// 1.02-1.03 (notes/PERF.md, session 26).
inline constexpr int radix_column_histogram_min_mbps_per_sm = 30000;

/// A sort captured into a CUDA graph puts its passes after the first under a SWITCH node
/// (launch_onesweep_with) where their grid is at least this many waves of resident blocks. The node
/// costs a replay 9-15 us (the pass after the first waits for the node instead of starting under
/// programmatic dependent launch, and the body is launched from the device); a skipped pass
/// launched as a plain kernel costs ~0.7 us a wave of its blocks, which each take a tile and leave.
/// H200, graph replays with the switch against plain launches (notes/PERF.md, session 42): u32 keys
/// uniform 2^20 1.14x the time, 2^24 1.05, 2^26 (14 waves) 1.012, 2^28 (55) 1.004; in [0, 2^20)
/// (one pass skipped) 1.18, 1.04, 1.007, 0.991; u64 keys in [0, 2^20) (five skipped) 2^24 0.958,
/// 2^26 (25) 0.941, uniform 1.013 and 1.004; u32/u32 pairs uniform 2^26 (25) 0.999, 2^28 0.991, in
/// [0, 2^20) 0.992 and 0.983.
inline constexpr std::size_t radix_capture_switch_min_waves = 16;

/// Test hook, not part of the API: -1 (the default) lets a sort captured into a CUDA graph put its
/// passes after the first under a SWITCH node by the size of their grid (launch_onesweep_with,
/// radix_capture_switch_min_waves), 1 puts them there at any size, 0 never (plain launches, as
/// outside a capture).
inline std::atomic<int> radix_capture_switch_override{-1};

/// Test hook, not part of the API: -1 (the default) lets launch_radix_histogram choose the upfront
/// histogram kernel by n, 0 forces radix_histogram_kernel and 1 radix_column_histogram_kernel (for
/// keys of up to 4 bytes, where the device has its shared memory), so that tests and sanitizer runs
/// cover both at small sizes.
inline std::atomic<int> radix_histogram_override{-1};

/// Launches the upfront histogram of the onesweep sort (which also zeroes `clear_vectors` vectors
/// of pass 0's look-back states at `clear`): radix_column_histogram_kernel for many keys of up to
/// 4 bytes on devices with the DRAM bandwidth and the shared memory for it, else
/// radix_histogram_kernel.
template <class Key, bool Descending>
[[nodiscard]] cudaError_t launch_radix_histogram(const device_facts& device, const Key* keys, std::size_t n,
                                                 int begin_bit, int end_bit, radix_sort_control* control, uint4* clear,
                                                 std::size_t clear_vectors, graph_switch later, bool segments_allowed,
                                                 cudaStream_t stream) {
  int resident = 0;
  cudaError_t e = cudaSuccess;
  if constexpr (sizeof(Key) <= 4) {
    using shape = radix_column_histogram<Key>;
    constexpr auto kernel = radix_column_histogram_kernel<Key, Descending>;
    const int forced = radix_histogram_override.load(std::memory_order_relaxed);
    int optin = 0, mbps = 0;
    e = max_smem_per_block_optin(device.ordinal, optin);
    if (e == cudaSuccess) e = dram_mbps_per_sm(device, mbps);
    if (e != cudaSuccess) return e;
    const bool pays = n >= radix_column_histogram_min_items && mbps >= radix_column_histogram_min_mbps_per_sm;
    if (std::size_t(optin) >= shape::smem && (forced < 0 ? pays : forced == 1)) {
      e = allow_smem_and_count_resident<kernel>(shape::smem, shape::threads, device.ordinal, resident);
      if (e != cudaSuccess) return e;
      const unsigned grid = resident_grid((n + shape::chunk - 1) / shape::chunk, device, resident);
      return launch_with_smem(kernel, grid, shape::threads, shape::smem, stream, launch_mode::plain, keys, n,
                              begin_bit, end_bit, control, clear, clear_vectors, later, segments_allowed);
    }
  }
  constexpr auto kernel = radix_histogram_kernel<Key, Descending>;
  e = resident_blocks_per_sm<kernel>(radix_histogram_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  constexpr std::size_t chunk = std::size_t(radix_histogram_threads) * radix_histogram_items;
  const unsigned grid = resident_grid((n + chunk - 1) / chunk, device, resident);
  return launch(kernel, grid, radix_histogram_threads, stream, launch_mode::plain, keys, n, begin_bit, end_bit,
                control, clear, clear_vectors, later, segments_allowed);
}

/// Where `a.segment_step` allows it (pairs of 32-bit integer keys and 4-byte values), the segment
/// sort's kernels after the passes (launch_segment_sort), with the starts and the list of segments
/// over capacity in the two look-back state regions, which the passes no longer need.
template <class Key, class Value>
inline constexpr bool radix_segment_capable =
    !std::is_same_v<Value, no_values> && sizeof(Value) == 4 && sizeof(Key) == 4 && std::is_integral_v<Key>;

/// Test hook, not part of the API: -1 (the default) lets launch_onesweep choose the segment sort by
/// size and device (radix_segment_step_for, radix_segment_min_mbps_per_sm), 0 never offers it to
/// the plan, k > 0 offers it with ladder step k - 1 at any size whose look-back state regions hold
/// its starts (the plan still decides from the digit counts).
inline std::atomic<int> radix_segment_override{-1};

/// Devices with at least this much DRAM bandwidth per SM (MB/s, dram_mbps_per_sm) offer the segment
/// sort to the plan: measured on the H200 (36,472 MB/s per SM) only (notes/PERF.md, session 46).
inline constexpr int radix_segment_min_mbps_per_sm = 30000;

template <class Key, class Value, bool Descending, class State>
[[nodiscard]] cudaError_t launch_segments_after_passes(const device_facts& device, const radix_sort_args<Key, Value>& a,
                                                       State* states_even, State* states_odd, cudaStream_t stream) {
  if constexpr (radix_segment_capable<Key, Value>) {
    if (a.segment_step < 0) return cudaSuccess;
    radix_segment_buffers b{};
    b.keys = reinterpret_cast<unsigned*>(a.keys_out);
    b.values = reinterpret_cast<unsigned*>(a.values_out);
    b.keys_alt = reinterpret_cast<unsigned*>(a.keys_alt);
    b.values_alt = reinterpret_cast<unsigned*>(a.values_alt);
    b.n = a.n;
    b.order_mask = radix_key<Key>::order_mask(Descending);
    b.enabled = &a.control->segment_sort;
    b.oversized_count = &a.control->head.oversized;
    b.starts = reinterpret_cast<std::size_t*>(states_even);
    b.oversized = reinterpret_cast<unsigned*>(states_odd);
    return launch_segment_sort(device, a.segment_step, b, stream);
  } else {
    (void)device, (void)a, (void)states_even, (void)states_odd, (void)stream;
    return cudaSuccess;
  }
}

/// The onesweep sort: the upfront histogram, then one launch per pass, the first with the tiles of
/// `First`, the others with those of `Rest`. `Rest` differs from `First` only for the packed pair
/// passes (First::packed_out, launch_onesweep_packed), whose later passes sort the words as
/// packed_pair keys without values.
template <class Key, class Value, bool Descending, class State, class First, class Rest = First>
cudaError_t launch_onesweep_with(const device_facts& device, void* temp, std::size_t temp_bytes,
                                 radix_sort_args<Key, Value> a, int passes, cudaStream_t stream) {
  constexpr bool packed = First::packed_out;
  static_assert(packed || std::is_same_v<First, Rest>, "only the packed passes change shape after the first");
  using rest_key = std::conditional_t<packed, packed_pair<Key>, Key>;
  using rest_value = std::conditional_t<packed, no_values, Value>;
  constexpr auto first_pass = radix_onesweep_kernel<Key, Value, Descending, State, First>;
  constexpr auto rest_pass = radix_onesweep_kernel<rest_key, rest_value, Descending, State, Rest>;
  constexpr std::size_t first_smem = sizeof(onesweep_storage<Key, Value, First, State>);
  constexpr std::size_t rest_smem = sizeof(onesweep_storage<rest_key, rest_value, Rest, State>);
  cudaError_t e = allow_pass_smem<first_pass, First>(first_smem, device.ordinal);
  if constexpr (packed) {
    if (e == cudaSuccess) e = allow_pass_smem<rest_pass, Rest>(rest_smem, device.ordinal);
  }
  if (e == cudaSuccess) e = choose_value_prefetch(device, a);
  if (e != cudaSuccess) return e;
  const std::size_t first_tiles = (a.n + First::tile_items - 1) / First::tile_items;
  const std::size_t rest_tiles = (a.n + Rest::tile_items - 1) / Rest::tile_items;
  // One-wave grids: at most as many blocks on an SM as the grid needs (1 up to a tile per SM), so
  // that a pass spreads over every SM. Each pass's blocks are placed while the kernel before it
  // still runs (programmatic dependent launch), and the scheduler packed them onto the SMs with
  // room. H200, same process as CUB: u32/u32 pairs at 2^20 (105 tiles) 0.85-0.86x the time (77.6
  // us against 91.0; CUB 89.4), 4-byte keys at 2^21 (two tiles an SM) 0.955-0.97x, other sizes
  // from 20000 to 2^24 keys 0.98-1.02x; allowing one block more than needed made u32 keys at 2^20
  // 1.13x slower (notes/PERF.md, session 25).
  std::size_t launch_smem = first_smem;
  if constexpr (!First::early_scatter) {
    int resident = 0;
    e = resident_blocks_per_sm<first_pass>(First::block_threads, device.ordinal, resident, first_smem);
    if (e != cudaSuccess) return e;
    const std::size_t sms = std::size_t(device.sm_count > 0 ? device.sm_count : 1);
    e = smem_capping_blocks_per_sm(device.ordinal, first_smem, resident, (first_tiles + sms - 1) / sms, launch_smem);
    if (e != cudaSuccess) return e;
  }
  // The look-back states of the shape with more tiles serve both.
  using states_shape = std::conditional_t<(First::tile_items <= Rest::tile_items), First, Rest>;
  State* states_even = nullptr;
  State* states_odd = nullptr;
  e = prepare_onesweep<Key, Value, State, states_shape>(temp, temp_bytes, a, states_even, states_odd, stream);
  if (e != cudaSuccess) return e;
  // The segment sort keeps its starts in a state region: none where that is smaller.
  const std::size_t state_region_bytes =
      (a.n + states_shape::tile_items - 1) / states_shape::tile_items * radix_bins * sizeof(State);
  if (state_region_bytes < radix_segment_starts_bytes) a.segment_step = -1;
  radix_sort_args<rest_key, rest_value> b{};
  if constexpr (packed) {
    static_assert(onesweep_workspace_shape<Key, Value>::tile_items <= states_shape::tile_items,
                  "the workspace holds the states");
    a.packed.x = reinterpret_cast<std::uint64_t*>(a.keys_alt);  // parts 3 and 4 (onesweep_workspace)
    a.packed.y_low = reinterpret_cast<std::uint64_t*>(a.keys_out);
    a.packed.y_high = reinterpret_cast<std::uint64_t*>(a.values_out);
    a.packed.half = a.n / 2;
    b.n = a.n;
    b.begin_bit = a.begin_bit;
    b.end_bit = a.end_bit;
    b.control = a.control;
    b.packed = a.packed;
    b.segment_step = a.segment_step;
  } else {
    b = a;
  }

  // Inside a stream capture, and where their grid is large enough for a skipped pass to cost more
  // than the node (radix_capture_switch_min_waves), the passes after the first go into the graph as
  // the bodies of one SWITCH node (body k: passes 1 to k), whose value the histogram sets from the
  // plan: a replay launches no skipped pass. Outside a capture the plan exists only on the device,
  // so every pass is launched and the skipped ones leave at once (onesweep_tile). The handle's
  // default runs every pass, so that the result never depends on the switch.
  const unsigned rest_grid = static_cast<unsigned>(rest_tiles);
  const std::size_t rest_launch_smem = packed ? rest_smem : launch_smem;
  // The gate comes first (cached values only), so that only a grid worth the node asks whether
  // the stream is being captured: smaller sorts make no capture query.
  graph_switch later{};
  const int switch_forced = radix_capture_switch_override.load(std::memory_order_relaxed);
  bool worth = passes > 1 && switch_forced == 1;
  if (passes > 1 && switch_forced != 0 && switch_forced != 1) {
    int resident = 0;
    e = resident_blocks_per_sm<rest_pass>(Rest::block_threads, device.ordinal, resident,
                                          packed ? rest_smem : first_smem);
    if (e != cudaSuccess) return e;
    const std::size_t wave = std::size_t(device.sm_count > 0 ? device.sm_count : 1) * std::size_t(resident);
    worth = rest_tiles >= radix_capture_switch_min_waves * wave;
  }
  if (worth) {
    cudaGraph_t graph = nullptr;
    e = capturing_graph(stream, graph);
    if (e == cudaSuccess && graph != nullptr) {
      e = cudaGraphConditionalHandleCreate(&later.handle, graph, static_cast<unsigned>(passes - 1),
                                           cudaGraphCondAssignDefault);
      later.enabled = 1;
    }
    if (e != cudaSuccess) return e;
  }

  // The histogram zeroes the first pass's look-back states; with packed passes, the first pass
  // zeroes those of the later passes' (more) tiles.
  static_assert(radix_bins * sizeof(State) % sizeof(uint4) == 0, "the histogram zeroes whole vectors of states");
  const std::size_t clear_vectors = first_tiles * radix_bins * sizeof(State) / sizeof(uint4);
  e = launch_radix_histogram<Key, Descending>(device, a.keys_in, a.n, a.begin_bit, a.end_bit, a.control,
                                              reinterpret_cast<uint4*>(states_even), clear_vectors, later,
                                              a.segment_step >= 0, stream);
  const launch_mode chained = device.cc_major >= 9 ? launch_mode::overlap_previous : launch_mode::plain;
  if (e == cudaSuccess) {
    e = launch_with_smem(first_pass, static_cast<unsigned>(first_tiles), First::block_threads, launch_smem, stream,
                         chained, a, 0, states_even, states_odd);
  }
  if (later.enabled == 0) {
    for (int slot = 1; slot < passes && e == cudaSuccess; ++slot) {
      e = launch_with_smem(rest_pass, rest_grid, Rest::block_threads, rest_launch_smem, stream, chained, b, slot,
                           states_even, states_odd);
    }
  } else {
    cudaGraph_t* bodies = nullptr;
    if (e == cudaSuccess) e = capture_switch(stream, later, static_cast<unsigned>(passes), bodies);
    for (int k = 1; k < passes && e == cudaSuccess; ++k) {
      cudaGraphNode_t previous = nullptr;
      for (int slot = 1; slot <= k && e == cudaSuccess; ++slot) {
        cudaGraphNode_t node = nullptr;
        e = add_kernel_node(bodies[k], slot > 1 ? &previous : nullptr, chained == launch_mode::overlap_previous,
                            node, rest_pass, rest_grid, Rest::block_threads, rest_launch_smem, b, slot, states_even,
                            states_odd);
        previous = node;
      }
    }
  }
  if (e == cudaSuccess) e = launch_segments_after_passes<Key, Value, Descending>(device, a, states_even, states_odd, stream);
  return e;
}

/// Test hook, not part of the API: -1 (the default) lets launch_onesweep choose the passes by grid
/// size, 0 forces the one-wave passes, 1 the early-scatter passes, and for pairs that can move
/// their values directly (onesweep_shape::direct_capable) 1 the wide direct tiles, 2 the narrow
/// ones, 3 the tiles that hold the values' ranks and 4 the packed passes (launch_onesweep_packed;
/// the wide tiles where the outputs cannot hold words) (else 2, 3 and 4 as 1); 5 as 4 (as 1 for
/// other pairs) in the few-waves form (onesweep_shape's FewWaves), which 1-4 never take; 6 the
/// one-wave passes with the narrower tiles of few-tile grids (onesweep_shape's FewTiles; as 0
/// where they are the same), which 0 never takes; up to 2^30 keys. Tests and sanitizer runs cover
/// every shape at small sizes with it.
inline std::atomic<int> onesweep_shape_override{-1};

/// Where direct_capable pairs may move their values directly (radix_direct_values_fit), the passes
/// take, by how many of the wide tiles there would be per SM (two blocks an SM, so two a wave): the
/// narrow tiles below radix_direct_narrow_below; from there the packed passes where the device
/// holds two wide tiles an SM and the outputs hold words (launch_onesweep_packed), else the tiles
/// that hold the values' ranks up to radix_direct_wide_from and the wide tiles from there. H200,
/// u32/u32 pairs, time against the held tiles (wide tiles per SM in brackets): 3000017 (1.9) narrow
/// 0.895-0.908; 2^22 (2.6) narrow 0.936-0.948, wide 1.075; 6000011 (3.7) narrow 1.021-1.030; 2^23
/// (5.2) narrow 0.989-1.000, wide 1.051; 12000007 (7.4) narrow 1.055, wide 1.041; 2^24 (10.3) narrow
/// 1.055, wide 1.002-1.013; 2^26 (41) wide 0.961-0.966; 2^28 (165) wide 0.950-0.958 (notes/PERF.md,
/// session 29). Session 34, same process as CUB, against the packed passes: 3000017 narrow 0.973
/// on the H200, 1.018 on the H100 80GB HBM3; 2^22 narrow 1.07 and held 1.04 on the H200, narrow
/// 1.09 and held 1.05 on the H100.
inline constexpr std::size_t radix_direct_narrow_below = 2;
inline constexpr std::size_t radix_direct_wide_from = 16;

/// Early-scatter grids of pairs (onesweep_shape's FewWaves) with fewer tiles than this per SM read
/// four look-back states a step, as one-wave passes do (radix_lookback_window). Pair tiles hold two
/// blocks an SM, so that is up to eight waves. H200, u64/u32 pairs, four states a step against one:
/// 2^21 (1.6 tiles an SM) 0.94x the time, 3000017-2^22 0.95x, 2^23 0.98x, 2^24 (12.7) 0.998-0.999x,
/// 2^26 (51) 1.013x (H100 80GB HBM3: 0.94x, 0.95x, 0.96x, 1.00x, 1.00x, 1.015x); u32/u32 pairs,
/// the first of the packed passes: 2^22 0.98x, 6000011 0.97x, 2^23 0.99x, 12000007 0.98x, 2^24
/// (10.3) 0.987-0.989x (keys in [0, 2^20) 0.979-0.990x) against 8 tiles an SM as the limit
/// (notes/PERF.md, session 36).
inline constexpr std::size_t radix_lookback_few_waves_below = 16;

/// Devices with at least this much DRAM bandwidth per SM (MB/s, dram_mbps_per_sm) take the wide
/// direct tiles of direct_capable pairs (onesweep_shape::direct_values), as the value prefetch: H200
/// (36,472 MB/s per SM), u32/u32 pairs 2^28 0.950x the time of the held tiles; H100 80GB HBM3
/// (25,396) 1.023x. The narrow ones gained on both: 3000017 0.889 and 2^22 0.954 on that H100
/// (notes/PERF.md, session 29).
inline constexpr int radix_direct_min_mbps_per_sm = 30000;

/// Which direct tiles of `Key`/`Value` pairs `device` takes (onesweep_shape::direct_values; all
/// false for other pairs and keys): `narrow` where three blocks of the narrow tiles (75 KB of shared
/// memory each) fit an SM; `packed` where two of the wide ones (113 KB) fit (the first pass of
/// launch_onesweep_packed); `wide` where they fit and DRAM bandwidth per SM is at least
/// radix_direct_min_mbps_per_sm.
template <class Key, class Value, bool Descending, class State>
[[nodiscard]] cudaError_t radix_direct_values_fit(const device_facts& device, bool& narrow, bool& wide,
                                                  bool& packed) {
  using waves = onesweep_shape<Key, Value, true>;
  using narrow_shape = onesweep_shape<Key, Value, true, radix_values_path::direct_narrow>;
  narrow = false;
  wide = false;
  packed = false;
  if constexpr (waves::direct_values) {
    int optin = 0, mbps = 0;
    cudaError_t e = max_smem_per_block_optin(device.ordinal, optin);
    if (e == cudaSuccess) e = dram_mbps_per_sm(device, mbps);
    if (e != cudaSuccess) return e;
    // Blocks of `Shape`'s pass kernel that one SM holds (0 where one does not fit).
    const auto resident = [&](auto shape, int& blocks) {
      using shape_t = decltype(shape);
      constexpr auto pass = radix_onesweep_kernel<Key, Value, Descending, State, shape_t>;
      constexpr std::size_t smem = sizeof(onesweep_storage<Key, Value, shape_t, State>);
      blocks = 0;
      if (std::size_t(optin) < smem) return cudaSuccess;
      return allow_smem_and_count_resident<pass>(smem, shape_t::block_threads, device.ordinal, blocks);
    };
    int blocks = 0;
    if constexpr (sizeof(State) == 4) {  // the narrow tiles serve grids of a few waves only
      e = resident(narrow_shape{}, blocks);
      if (e != cudaSuccess) return e;
      narrow = blocks >= 3;
    }
    e = resident(waves{}, blocks);
    if (e != cudaSuccess) return e;
    packed = blocks >= 2;
    wide = packed && mbps >= radix_direct_min_mbps_per_sm;
  }
  return cudaSuccess;
}

/// The onesweep sort of direct_capable pairs with packed passes: the first pass (wide direct tiles,
/// onesweep_shape::packed_out) writes each sorted pair as one word, the passes after it sort the
/// words as keys (packed_pair: the key's digits from the low half, onesweep_shape's 8-byte-key
/// tiles), and the last one writes keys and values to the caller's outputs (radix_packed_buffers).
/// Needs `keys_out` and `values_out` aligned to 8 bytes.
///
/// Why: the pair passes are bound by L2 traffic (ncu, H200, 2^26 u32/u32: 1.5x the ideal sectors
/// read, 2x written, where half the traffic crosses between the two L2 partitions and a warp's
/// store of a run that starts inside a sector writes that sector in part). One word a pair
/// halves the partly written sectors at the runs' edges and the stores. Per pass (ncu, H200, 2^26):
/// pairs to pairs 395 us, pairs to words 374, words to words 376-385, words to pairs 413.
/// Same process as CUB, u32/u32 pairs, time against the passes this replaces (notes/PERF.md,
/// session 34): H100 80GB HBM3 (held tiles before) 2^28 0.92x, 2^25-2^26 0.93-0.95x, 6000011-2^24
/// 0.95-0.97x, (narrow tiles) 2^22 0.91-0.92x; H200 (wide tiles) 2^26-2^28 0.99-1.00x, (held tiles)
/// 2^24 0.98x, 8-12M 0.995x, 6000011 1.011x, (narrow tiles) 2^22 0.92x. Below two wide tiles per
/// SM the narrow tiles stay (radix_direct_narrow_below).
/// `FewWaves`: the first pass's grid is a few waves (radix_lookback_few_waves_below).
template <class Key, class Value, bool Descending, class State, bool FewWaves = false>
cudaError_t launch_onesweep_packed(const device_facts& device, void* temp, std::size_t temp_bytes,
                                   radix_sort_args<Key, Value> a, int passes, cudaStream_t stream) {
  using first_shape = onesweep_shape<Key, Value, true, radix_values_path::direct_packed, FewWaves>;
  using rest_shape = onesweep_shape<packed_pair<Key>, no_values, true>;
  static_assert(first_shape::packed_out && rest_shape::early_scatter, "packed passes");
  return launch_onesweep_with<Key, Value, Descending, State, first_shape, rest_shape>(device, temp, temp_bytes, a,
                                                                                      passes, stream);
}

/// Whether the outputs of `a` can hold the packed passes' words (radix_packed_buffers::y).
template <class Key, class Value>
bool radix_outputs_hold_words(const radix_sort_args<Key, Value>& a) {
  return reinterpret_cast<std::uintptr_t>(a.keys_out) % sizeof(std::uint64_t) == 0 &&
         reinterpret_cast<std::uintptr_t>(a.values_out) % sizeof(std::uint64_t) == 0;
}

/// The onesweep sort: passes of one wave of tiles (every tile resident at once) keep each tile's
/// ranks in registers; larger grids store the keys at their ranks as the ranking finds them
/// (onesweep_shape::early_scatter); the workspace of the narrower tiles
/// (onesweep_workspace_shape: the most tiles) serves both.
template <class Key, class Value, bool Descending, class State>
cudaError_t launch_onesweep(void* temp, std::size_t temp_bytes, radix_sort_args<Key, Value> a, int passes,
                            cudaStream_t stream) {
  using one_wave = onesweep_shape<Key, Value, false>;
  using waves = onesweep_shape<Key, Value, true>;
  device_facts device;
  cudaError_t e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  if constexpr (radix_segment_capable<Key, Value>) {
    // The segment sort's ladder step where the plan may choose it: the whole key, by size on the
    // devices where it was measured (radix_segment_min_mbps_per_sm), or forced by the test hook.
    const int forced_step = radix_segment_override.load(std::memory_order_relaxed);
    if (a.begin_bit == 0 && a.end_bit == 32 && forced_step != 0) {
      if (forced_step > 0) {
        a.segment_step = forced_step - 1 < radix_segment_steps ? forced_step - 1 : radix_segment_steps - 1;
      } else {
        int mbps = 0;
        e = dram_mbps_per_sm(device, mbps);
        if (e != cudaSuccess) return e;
        if (mbps >= radix_segment_min_mbps_per_sm) a.segment_step = radix_segment_step_for(a.n);
      }
    }
  }
  using held = onesweep_shape<Key, Value, true, radix_values_path::held>;
  if constexpr (sizeof(State) > 4) {  // more than 2^30 keys: many waves on any device
    if constexpr (waves::direct_values) {
      bool narrow = false, wide = false, packed = false;
      e = radix_direct_values_fit<Key, Value, Descending, State>(device, narrow, wide, packed);
      if (e != cudaSuccess) return e;
      if (packed && radix_outputs_hold_words(a)) {
        return launch_onesweep_packed<Key, Value, Descending, State>(device, temp, temp_bytes, a, passes, stream);
      }
      if (!wide) {
        return launch_onesweep_with<Key, Value, Descending, State, held>(device, temp, temp_bytes, a, passes, stream);
      }
    }
    return launch_onesweep_with<Key, Value, Descending, State, waves>(device, temp, temp_bytes, a, passes, stream);
  } else {
    constexpr auto pass = radix_onesweep_kernel<Key, Value, Descending, State, one_wave>;
    constexpr std::size_t smem = sizeof(onesweep_storage<Key, Value, one_wave, State>);
    e = allow_pass_smem<pass, one_wave>(smem, device.ordinal);
    if (e != cudaSuccess) return e;
    int resident = 0;
    e = resident_blocks_per_sm<pass>(one_wave::block_threads, device.ordinal, resident, smem);
    if (e != cudaSuccess) return e;
    const std::size_t sms = std::size_t(device.sm_count > 0 ? device.sm_count : 1);
    const int forced = onesweep_shape_override.load(std::memory_order_relaxed);
    // One wave: every tile resident at once. Grids of no more of the narrower one-wave tiles than
    // SMs take those (radix_few_tiles_one_wave; the same shape for some types).
    using few_tiles = radix_few_tiles_one_wave<Key, Value>;
    const std::size_t tiles = (a.n + one_wave::tile_items - 1) / one_wave::tile_items;
    const std::size_t narrower_tiles = (a.n + few_tiles::tile_items - 1) / few_tiles::tile_items;
    const bool fits_one_wave = tiles <= sms * static_cast<std::size_t>(resident);
    const bool one_wave_grid = forced < 0 ? fits_one_wave : forced == 0 || forced == 6;
    const bool few_tile_grid = forced < 0 ? fits_one_wave && narrower_tiles <= sms : forced == 6;
    if (one_wave_grid) {
      if (few_tile_grid) {
        return launch_onesweep_with<Key, Value, Descending, State, few_tiles>(device, temp, temp_bytes, a, passes,
                                                                              stream);
      }
      return launch_onesweep_with<Key, Value, Descending, State, one_wave>(device, temp, temp_bytes, a, passes,
                                                                           stream);
    }
    const std::size_t wave_tiles = (a.n + waves::tile_items - 1) / waves::tile_items;
    // Pairs whose early-scatter grid is a few waves read four look-back states a step (FewWaves).
    const bool few_waves = forced < 0 ? wave_tiles < radix_lookback_few_waves_below * sms : forced == 5;
    if constexpr (waves::direct_values) {
      // Forced: 1 wide, 2 narrow, 3 held, 4 packed (where the outputs hold words, else wide), 5 as 4
      // with few waves. Else by size, where the device takes them.
      bool narrow = forced == 2, wide = forced == 1 || forced >= 4, packed = forced >= 4;
      if (forced < 0) {
        e = radix_direct_values_fit<Key, Value, Descending, State>(device, narrow, wide, packed);
        if (e != cudaSuccess) return e;
        narrow = narrow && wave_tiles < radix_direct_narrow_below * sms;
        packed = packed && !narrow;
        wide = wide && !narrow && wave_tiles >= radix_direct_wide_from * sms;
      }
      if (narrow) {
        using narrow_shape = onesweep_shape<Key, Value, true, radix_values_path::direct_narrow>;
        return launch_onesweep_with<Key, Value, Descending, State, narrow_shape>(device, temp, temp_bytes, a, passes,
                                                                                 stream);
      }
      if (packed && radix_outputs_hold_words(a)) {
        return few_waves ? launch_onesweep_packed<Key, Value, Descending, State, true>(device, temp, temp_bytes, a,
                                                                                       passes, stream)
                         : launch_onesweep_packed<Key, Value, Descending, State>(device, temp, temp_bytes, a, passes,
                                                                                 stream);
      }
      if (!wide) {
        return launch_onesweep_with<Key, Value, Descending, State, held>(device, temp, temp_bytes, a, passes, stream);
      }
    }
    if constexpr (waves::has_values && !waves::direct_values) {
      if (few_waves) {
        using few = onesweep_shape<Key, Value, true, radix_values_path::direct, true>;
        return launch_onesweep_with<Key, Value, Descending, State, few>(device, temp, temp_bytes, a, passes, stream);
      }
    }
    return launch_onesweep_with<Key, Value, Descending, State, waves>(device, temp, temp_bytes, a, passes, stream);
  }
}

/// The fused single-launch sort (fused_shape tiles, 32-bit look-back states).
template <class Key, class Value, bool Descending>
cudaError_t launch_fused(void* temp, std::size_t temp_bytes, radix_sort_args<Key, Value> a, int passes,
                         cudaStream_t stream) {
  using shape = fused_shape<Key, Value>;
  using state_t = unsigned;
  device_facts device;
  cudaError_t e = current_device_facts(device);
  if (e != cudaSuccess) return e;
  constexpr auto kernel = radix_fused_kernel<Key, Value, Descending, state_t, shape>;
  constexpr std::size_t smem = sizeof(fused_storage<Key, Value, shape, state_t>);
  int resident = 0;
  e = allow_smem_and_count_resident<kernel>(smem, shape::block_threads, device.ordinal, resident);
  if (e != cudaSuccess) return e;
  e = choose_value_prefetch(device, a);
  if (e != cudaSuccess) return e;
  state_t* states_even = nullptr;
  state_t* states_odd = nullptr;
  e = prepare_onesweep<Key, Value, state_t, shape>(temp, temp_bytes, a, states_even, states_odd, stream);
  if (e != cudaSuccess) return e;

  const std::size_t tiles = (a.n + shape::tile_items - 1) / shape::tile_items;
  const unsigned grid = resident_grid(tiles * static_cast<std::size_t>(passes + 1), device, resident);
  return launch_with_smem(kernel, grid, shape::block_threads, smem, stream, launch_mode::plain, a, passes,
                          static_cast<unsigned>(tiles), states_even, states_odd);
}

/// The whole sort, for both forms: with `size_query` only sets `temp_bytes`.
template <bool Descending, class Key, class Value>
cudaError_t radix_sort(void* temp, std::size_t& temp_bytes, bool size_query, const Key* keys_in, Key* keys_out,
                       const Value* values_in, Value* values_out, std::size_t n, int begin_bit, int end_bit,
                       cudaStream_t stream) {
  static_assert(is_radix_key_v<Key>, "radix sort keys: 8/16/32/64-bit integers, float, double, __half, bf16");
  static_assert(std::is_trivially_copyable_v<Value>, "radix sort values must be trivially copyable");
  if (!radix_bits_valid<Key>(begin_bit, end_bit)) return cudaErrorInvalidValue;
  if (!size_query && !radix_pointers_valid(keys_in, keys_out, values_in, values_out, n)) return cudaErrorInvalidValue;
  using big_state = unsigned long long;
  using fast_state = unsigned;
  const int passes = (end_bit - begin_bit + radix_bits - 1) / radix_bits;
  const bool by_rank = n <= rank_sort_max_items;
  const bool copy_only = passes == 0;
  const bool fast = n <= radix_state<fast_state>::max_items;
  using fused = fused_shape<Key, Value>;
  const bool use_fused = (n + fused::tile_items - 1) / fused::tile_items <= radix_fused_max_tiles;
  std::size_t needed = 0;
  if (!by_rank && !copy_only) {
    needed = use_fused ? onesweep_workspace<Key, Value, fast_state, fused>(n).bytes()
             : fast    ? onesweep_workspace<Key, Value, fast_state>(n).bytes()
                       : onesweep_workspace<Key, Value, big_state>(n).bytes();
  }
  if (size_query) {
    temp_bytes = needed;
    return cudaSuccess;
  }
  if (needed > 0 && (temp == nullptr || temp_bytes < needed)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;

  radix_sort_args<Key, Value> a{keys_in, keys_out, nullptr, values_in, values_out, nullptr, n, begin_bit, end_bit,
                                nullptr};
  if (by_rank) return launch_rank_sort<Key, Value, Descending>(a, stream);
  if (copy_only) {
    cudaError_t e = cudaMemcpyAsync(keys_out, keys_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream);
    if constexpr (!std::is_same_v<Value, no_values>) {
      if (e == cudaSuccess) {
        e = cudaMemcpyAsync(values_out, values_in, n * sizeof(Value), cudaMemcpyDeviceToDevice, stream);
      }
    }
    return e;
  }
  if (use_fused) return launch_fused<Key, Value, Descending>(temp, temp_bytes, a, passes, stream);
  return fast ? launch_onesweep<Key, Value, Descending, fast_state>(temp, temp_bytes, a, passes, stream)
              : launch_onesweep<Key, Value, Descending, big_state>(temp, temp_bytes, a, passes, stream);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
