// Tile states and the decoupled look-back of the single-pass scan: Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA Technical Report NVR-2016-002 (2016).
//
// Every tile publishes its aggregate (status AGGREGATE) as soon as its block has scanned it, then
// looks back over its predecessors for the nearest that has published its inclusive prefix
// (status PREFIX), folds the aggregates after it left to right, and publishes its own inclusive
// prefix. Tile 0 publishes only PREFIX, so every look-back ends there at the latest. The fold's
// association does not depend on which PREFIX the look-back meets: scans are bitwise
// reproducible (look_back). The grouped look-back (grouped_look_back) runs the same over groups
// of 32 tiles, each folded within: a serial fold of a few dozen ops where the chain lags far.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "config.cuh"
#include "l2_access.cuh"
#include "shuffle.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

enum tile_status : unsigned {
  status_invalid = 0,    // nothing published yet (all zero bits: a memset resets the states)
  status_aggregate = 1,  // the value is the tile's own aggregate
  status_prefix = 2,     // the value is the reduction of every item up to and including the tile
};

// Spin backoff of the look-back: short, since a predecessor is usually a few hundred cycles away.
inline constexpr unsigned lookback_first_sleep_ns = 32;
inline constexpr unsigned lookback_max_sleep_ns = 512;

// Strong (relaxed, device scope) accesses of status words: each is one single-copy-atomic access
// that neither caches in L1 nor is merged or hoisted by the compiler.
GPUPRIM_DEVICE unsigned long long relaxed_load(const unsigned long long* p) {
  unsigned long long v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
#else
  v = *static_cast<const volatile unsigned long long*>(p);
#endif
  return v;
}
GPUPRIM_DEVICE unsigned relaxed_load(const unsigned* p) {
  unsigned v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#else
  v = *static_cast<const volatile unsigned*>(p);
#endif
  return v;
}
/// Exponential backoff between polls of a word that another block writes: sleeps
/// lookback_first_sleep_ns, doubling up to lookback_max_sleep_ns.
struct poll_backoff {
  unsigned sleep_ns = lookback_first_sleep_ns;
  GPUPRIM_DEVICE void pause() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(sleep_ns);
#endif
    sleep_ns = sleep_ns * 2 < lookback_max_sleep_ns ? sleep_ns * 2 : lookback_max_sleep_ns;
  }
};

/// Acquire load (device scope) of a counter that another block releases after its writes.
GPUPRIM_DEVICE unsigned acquire_load(const unsigned* p) {
  unsigned v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
#else
  v = *static_cast<const volatile unsigned*>(p);
  __threadfence();
#endif
  return v;
}
/// Waits until `*counter`, which other blocks raise (release), reaches `target`; called by one
/// thread, then a barrier of the threads that depend on it.
GPUPRIM_DEVICE void wait_for_count(const unsigned* counter, unsigned target) {
  poll_backoff backoff;
  while (acquire_load(counter) < target) backoff.pause();
}

GPUPRIM_DEVICE void relaxed_store(unsigned long long* p, unsigned long long v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
  *static_cast<volatile unsigned long long*>(p) = v;
#endif
}
GPUPRIM_DEVICE void relaxed_store(unsigned* p, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  *static_cast<volatile unsigned*>(p) = v;
#endif
}

/// Tile states for values of at most 16 bytes: the value cut into 32-bit pieces, each stored
/// beside a copy of the status in its own 64-bit word. Every word is written and read in one
/// single-copy-atomic access; a reader accepts the value only when all its words carry the same
/// status. Each status is published once per tile after the reset, so words that agree come from
/// one publication: no fence is needed on either side. Words that disagree (the reader saw a
/// publication half done) read as invalid, and the look-back polls again.
template <class T>
struct tagged_tile_states {
  static constexpr int words_per_tile = static_cast<int>((sizeof(T) + 3) / 4);
  static_assert(words_per_tile <= 4, "tagged tile states hold values of at most 16 bytes");
  static constexpr std::size_t status_bytes_per_tile = words_per_tile * sizeof(unsigned long long);
  static constexpr std::size_t value_bytes_per_tile = 0;

  unsigned long long* words;

  GPUPRIM_DEVICE void publish(unsigned tile, tile_status status, const T& value) const {
    unsigned pieces[words_per_tile] = {};
    std::memcpy(pieces, &value, sizeof(T));
    const unsigned long long tag = static_cast<unsigned long long>(status) << 32;
#pragma unroll
    for (int w = 0; w < words_per_tile; ++w) {
      relaxed_store(words + std::size_t(tile) * words_per_tile + w, tag | pieces[w]);
    }
  }

  /// The tile's status; `value` is set unless the status is invalid.
  GPUPRIM_DEVICE tile_status load(unsigned tile, T& value) const {
    unsigned long long word[words_per_tile];
#pragma unroll
    for (int w = 0; w < words_per_tile; ++w) word[w] = relaxed_load(words + std::size_t(tile) * words_per_tile + w);
    const auto status = static_cast<tile_status>(word[0] >> 32);
    unsigned pieces[words_per_tile];
    bool agree = true;
#pragma unroll
    for (int w = 0; w < words_per_tile; ++w) {
      agree = agree && static_cast<tile_status>(word[w] >> 32) == status;
      pieces[w] = static_cast<unsigned>(word[w]);
    }
    if (!agree) return status_invalid;
    std::memcpy(&value, pieces, sizeof(T));
    return status;
  }
};

/// Tile states for larger values: a status word per tile and the values in two separate arrays
/// (aggregates and inclusive prefixes), so that a reader who saw AGGREGATE never reads a value
/// the tile has since replaced with its prefix. Writer: value, fence, status. Reader: status,
/// fence, value (from L2).
template <class T>
struct split_tile_states {
  static constexpr std::size_t status_bytes_per_tile = sizeof(unsigned);
  static constexpr std::size_t value_bytes_per_tile = sizeof(T);

  unsigned* statuses;
  T* aggregates;
  T* prefixes;

  GPUPRIM_DEVICE void publish(unsigned tile, tile_status status, const T& value) const {
    l2_store((status == status_aggregate ? aggregates : prefixes) + tile, value);
    __threadfence();  // the value is visible device-wide before the status that announces it
    relaxed_store(statuses + tile, status);
  }

  /// The tile's status; `value` is set unless the status is invalid.
  GPUPRIM_DEVICE tile_status load(unsigned tile, T& value) const {
    const auto status = static_cast<tile_status>(relaxed_load(statuses + tile));
    if (status != status_invalid) {
      __threadfence();  // the value is read only after the status that announced it
      value = l2_load((status == status_aggregate ? aggregates : prefixes) + tile);
    }
    return status;
  }
};

template <class T>
using tile_states_t = std::conditional_t<sizeof(T) <= 16, tagged_tile_states<T>, split_tile_states<T>>;

/// The exclusive prefix of `tile` (> 0): every earlier tile's items reduced in order (including
/// the scan's init, which tile 0 folds into its prefix), looking at the 32 predecessors before it,
/// one a lane. All 32 lanes of one warp call it; the result reaches every lane. `filler` is any
/// value (lanes without a predecessor hold it). grouped_look_back runs it over groups of tiles
/// (group_states_view).
///
/// The result is the same bits whatever the timing: with A(t) the aggregate tile t publishes and
/// S(t) its inclusive prefix, every tile publishes S(t) = S(t - 1) op A(t), and the look-back
/// computes S(t - 1) as ((S(j) op A(j + 1)) op A(j + 2)) ... op A(t - 1), left to right, from the
/// nearest predecessor j that has published its PREFIX. By induction S(j) is that same chain up
/// to j, and each step repeats one the chain took, on the same operands, so which j the look-back
/// meets changes no bit (neither commutativity nor exact associativity of a rounded op is used).
/// A window of aggregates alone cannot be folded on its own without changing the association,
/// so the warp waits until a PREFIX lies within it (rather than walking further back). That
/// cannot deadlock: a look-back waits only for tiles before its own, tile 0 publishes its PREFIX
/// without waiting, and by induction on the tile index every predecessor, started before it (the
/// forward progress the kernels already assume), publishes its PREFIX in the end, tile - 1's
/// among them, which lies in the window.
template <class States, class T, class Op>
GPUPRIM_DEVICE T look_back(const States& states, unsigned tile, Op op, const T& filler) {
  // Lane l holds predecessor tile - 1 - l. Lanes before tile 0 act as PREFIX and are never
  // folded: tile 0, which publishes only PREFIX, sits at a lower lane, must be valid before the
  // fold, and is then nearer.
  const int predecessor = static_cast<int>(tile) - 1 - static_cast<int>(lane_id());  // tiles < 2^31
  T value = filler;
  const auto load = [&] {
    return predecessor >= 0 ? states.load(static_cast<unsigned>(predecessor), value) : status_prefix;
  };
  tile_status status = load();
  // Wait until the window holds a PREFIX and no tile after the nearest one is invalid (polling the
  // invalid ones); lanes past that PREFIX are not needed and may stay invalid. A window without a
  // PREFIX is read again whole: any tile may have turned PREFIX meanwhile.
  unsigned prefixes;
  poll_backoff backoff;
  for (;;) {
    prefixes = __ballot_sync(full_warp_mask, status == status_prefix);
    const unsigned needed = prefixes == 0 ? full_warp_mask : prefixes ^ (prefixes - 1);
    if (prefixes != 0 && (__ballot_sync(full_warp_mask, status == status_invalid) & needed) == 0) break;
    backoff.pause();
    if (prefixes == 0 || status == status_invalid) status = load();
  }
  // S(j) at the nearest PREFIX's lane, then the aggregates after it, oldest first. The shuffles do
  // not depend on the running value, so they issue ahead of the serial chain of ops; all 32 steps
  // run, those past the PREFIX predicated off.
  const int nearest = __ffs(prefixes) - 1;
  T exclusive = shfl_idx(value, nearest);
#pragma unroll
  for (int l = 31; l >= 0; --l) {
    const T x = shfl_idx(value, l);
    if (l < nearest) exclusive = static_cast<T>(op(exclusive, x));
  }
  return exclusive;
}

/// Tiles a group of the grouped look-back (one a lane of a warp).
inline constexpr unsigned lookback_group_tiles = 32;

/// The grouped look-back's view of tile states: group g's state is that of its last tile.
template <class States>
struct group_states_view {
  States states;
  template <class T>
  GPUPRIM_DEVICE tile_status load(unsigned group, T& value) const {
    return states.load(group * lookback_group_tiles + (lookback_group_tiles - 1), value);
  }
};

/// The grouped look-back (the tile-per-block scan's, and the streaming scan's for 8-byte
/// accumulators): the prefix chain runs over groups of lookback_group_tiles tiles, not over
/// tiles, so that the serial fold a tile waits for is a few dozen operations, not one for each of
/// the tiles that the chain lags behind (look_back folds every aggregate after the nearest PREFIX
/// one by one). With A(t) a tile's aggregate, I(t) = A(first of its group) op ... op A(t) and,
/// for the group's last tile, its total G(g) = I(last), the prefix through group g is
/// P(g) = P(g - 1) op G(g), and the exclusive prefix of tile t, in group g, is P(g - 1) op I(t - 1)
/// (either part alone at the start of a group, or in group 0). Every fold is left to right over
/// fixed operands: the bits depend on neither timing nor grid. Publications: a tile's aggregate
/// (AGGREGATE; tile 0 its inclusive prefix) except for a group's last tile, whose state holds G(g)
/// (AGGREGATE, as soon as its group's aggregates are in) and then P(g) (PREFIX; group 0 only
/// PREFIX); look_back over group_states_view finds P(g - 1). No wait is circular: a tile waits for
/// earlier tiles' aggregates and earlier groups' totals, which wait for nothing but aggregates,
/// and for P of an earlier group (by induction; group 0's needs no look-back).

/// I(tile - 1): the aggregates of the tiles of `tile`'s group before it (at least one), folded
/// left to right, polled until every one is published. All 32 lanes call it; the result reaches
/// every lane. `filler` is any value.
template <class States, class T, class Op>
GPUPRIM_DEVICE T fold_group_before(const States& states, unsigned tile, Op op, const T& filler) {
  static_assert(lookback_group_tiles == 32, "a lane per tile of the group");
  const int lane = static_cast<int>(lane_id());
  const unsigned first = tile - tile % lookback_group_tiles;
  const int count = static_cast<int>(tile - first);  // 1 .. 31
  T value = filler;
  bool have = lane >= count;
  poll_backoff backoff;
  for (;;) {
    if (!have) have = states.load(first + static_cast<unsigned>(lane), value) != status_invalid;
    if (__all_sync(full_warp_mask, have)) break;
    backoff.pause();
  }
  // The shuffles do not depend on the running value: they issue ahead of the chain of ops.
  T before = shfl_idx(value, 0);
#pragma unroll
  for (int l = 1; l < 31; ++l) {
    const T x = shfl_idx(value, l);
    if (l < count) before = static_cast<T>(op(before, x));
  }
  return before;
}

/// What tile `tile` (> 0) publishes before its grouped look-back (all 32 lanes call it): its
/// aggregate, but for a group's last tile after group 0 the group's total, folded here (it waits
/// for the group's aggregates), so that later tiles need not wait for the tile's look-back. (Group
/// 0's total is its prefix, which grouped_look_back publishes.)
template <class States, class T, class Op>
GPUPRIM_DEVICE void publish_before_grouped_look_back(const States& states, unsigned tile, Op op, const T& aggregate) {
  const bool leader = lane_id() == 0;
  if (tile % lookback_group_tiles != lookback_group_tiles - 1) {
    if (leader) states.publish(tile, status_aggregate, aggregate);
  } else if (tile >= lookback_group_tiles) {
    const T total = static_cast<T>(op(fold_group_before(states, tile, op, aggregate), aggregate));
    if (leader) states.publish(tile, status_aggregate, total);
  }
}

/// The grouped look-back of `tile` (> 0), whose aggregate is `aggregate`, after
/// publish_before_grouped_look_back: publishes the group's prefix when `tile` is a group's last,
/// and returns the tile's exclusive prefix (every lane; all 32 lanes call it).
template <class States, class T, class Op>
GPUPRIM_DEVICE T grouped_look_back(const States& states, unsigned tile, Op op, const T& aggregate) {
  const bool leader = lane_id() == 0;
  const unsigned group = tile / lookback_group_tiles;
  const bool in_group = tile % lookback_group_tiles != 0;
  const bool last = tile % lookback_group_tiles == lookback_group_tiles - 1;
  const T before = in_group ? fold_group_before(states, tile, op, aggregate) : aggregate;
  const T total = in_group ? static_cast<T>(op(before, aggregate)) : aggregate;
  if (group == 0) {
    if (last && leader) states.publish(tile, status_prefix, total);
    return before;
  }
  const T groups_before = look_back(group_states_view<States>{states}, group, op, aggregate);
  if (last && leader) states.publish(tile, status_prefix, static_cast<T>(op(groups_before, total)));
  return in_group ? static_cast<T>(op(groups_before, before)) : groups_before;
}

/// block_scan prefix callback of a tile after the first (the tile-per-block scan): publishes the
/// tile's aggregate (or its group's total), looks back (grouped_look_back) and returns the tile's
/// exclusive prefix (every lane).
template <class States, class T, class Op>
struct lookback_prefix_op {
  States states;
  unsigned tile;
  Op op;

  GPUPRIM_DEVICE T operator()(const T& aggregate) const {
    publish_before_grouped_look_back(states, tile, op, aggregate);
    return grouped_look_back(states, tile, op, aggregate);
  }
};

/// Tile states of counts (the radix sort's digit counts): one 64-bit word per tile and digit, the
/// status in the top two bits, the pass's tag in the next four and the count below, written and
/// read in one access, so no fence is needed on either side. Every pass of a sort uses the same
/// words: a word another pass published (another tag) reads as nothing published yet, so the
/// states are zeroed once a sort, not once a pass. `column` points at the first tile's word of
/// one digit; the words of one digit lie `stride` apart.
struct count_tile_states {
  static constexpr int value_bits = 58;
  static constexpr unsigned long long value_mask = (1ull << value_bits) - 1;
  static constexpr unsigned long long status_mask = 3ull << 62;
  static constexpr unsigned long long tag_mask = 15ull << value_bits;
  static constexpr unsigned long long aggregate = static_cast<unsigned long long>(status_aggregate) << 62;
  static constexpr unsigned long long prefix = static_cast<unsigned long long>(status_prefix) << 62;
  static constexpr int most_tags = 15;  // tags 1..15: zeroed words belong to no pass

  unsigned long long* column;
  std::size_t stride;
  unsigned long long tag;  ///< the pass's tag (1 .. most_tags), in place: tag << value_bits

  GPUPRIM_HOST_DEVICE static constexpr unsigned long long tag_of_pass(int pass) {
    return static_cast<unsigned long long>(pass + 1) << value_bits;
  }
  GPUPRIM_DEVICE void publish(std::size_t tile, unsigned long long status, unsigned long long count) const {
    relaxed_store(column + tile * stride, status | tag | count);
  }
  /// The word of `tile`, or 0 where this pass has published nothing there yet.
  GPUPRIM_DEVICE unsigned long long load(std::size_t tile) const {
    const unsigned long long word = relaxed_load(column + tile * stride);
    return (word & tag_mask) == tag ? word : 0ull;
  }
};

/// The exclusive prefix of one digit's count for `tile` (> 0) over count_tile_states: each lane of
/// a warp looks back for its own digit, reading `Window` predecessors a step (one round trip to L2
/// for several tiles), adding them newest first up to the first with a PREFIX, or up to the first
/// that has published nothing yet (read again next step). The lanes step together, so that a
/// warp's loads of one tile coalesce. Every lane of the warp calls it (tile 0 publishes a PREFIX,
/// so no walk passes it).
template <int Window>
GPUPRIM_DEVICE unsigned long long look_back_count(const count_tile_states& states, std::size_t tile) {
  using state = count_tile_states;
  unsigned long long before = 0;
  std::size_t t = tile - 1;  // the newest tile not yet added
  bool done = false;
  while (__any_sync(full_warp_mask, !done)) {
    if (done) continue;
    unsigned long long word[Window];
#pragma unroll
    for (int w = 0; w < Window; ++w) word[w] = t >= std::size_t(w) ? states.load(t - w) : 0ull;
    bool stop = false;
#pragma unroll
    for (int w = 0; w < Window; ++w) {
      const unsigned long long status = word[w] & state::status_mask;
      if (stop || status == 0) {
        stop = true;
        continue;
      }
      before += word[w] & state::value_mask;
      if (status == state::prefix) {
        done = true;
        stop = true;
      } else {
        --t;
      }
    }
  }
  return before;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
