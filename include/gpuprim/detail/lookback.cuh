// Tile states and the decoupled look-back of the single-pass scan: Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA Technical Report NVR-2016-002 (2016).
//
// Every tile publishes its aggregate (status AGGREGATE) as soon as its block has scanned it, then
// looks back over its predecessors, a warp of 32 of them at a time, folding aggregates until it
// meets a tile that has published its inclusive prefix (status PREFIX), and publishes its own
// inclusive prefix. Tile 0 publishes only PREFIX, so every look-back ends there at the latest.
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

/// Predecessors one look-back round inspects: 32 lanes x this many, loaded together. Chosen on the
/// expectation that at the H200's tile rate the nearest PREFIX is often more than 32 tiles back;
/// measured (i32, 2^28), 128 tiles and 32 tiles ran equally fast (714 vs 713 us): the look-back
/// waits for predecessors' loads, not for extra rounds. Kept since it costs no time.
inline constexpr int lookback_window_chunks = 4;

/// The exclusive prefix of `tile` (> 0): every earlier tile's items reduced in order (including
/// the scan's init, which tile 0 folds into its prefix). All 32 lanes of one warp call it; the
/// result reaches every lane. `filler` is any value (lanes without a predecessor hold it).
template <class States, class T, class Op>
GPUPRIM_DEVICE T look_back(const States& states, unsigned tile, Op op, const T& filler) {
  constexpr int chunks = lookback_window_chunks;
  const int lane = static_cast<int>(lane_id());
  T exclusive = filler;
  bool have_exclusive = false;
  long long newest = static_cast<long long>(tile) - 1;  // chunk 0, lane 0; chunk k, lane l: newest - 32k - l
  for (;;) {
    // Load the whole window at once. Lanes before tile 0 act as PREFIX: tile 0 is a PREFIX at a
    // lower lane of the same or an earlier chunk, so they never enter a reduction.
    T value[chunks];
    tile_status status[chunks];
#pragma unroll
    for (int k = 0; k < chunks; ++k) {
      const long long predecessor = newest - 32 * k - lane;
      value[k] = filler;
      status[k] = predecessor >= 0 ? states.load(static_cast<unsigned>(predecessor), value[k]) : status_prefix;
    }

#pragma unroll
    for (int k = 0; k < chunks; ++k) {
      const long long predecessor = newest - 32 * k - lane;
      // Wait until the chunk up to its first PREFIX (lowest lane) holds no invalid tile; lanes
      // past that PREFIX are not needed and may stay invalid.
      unsigned prefixes;
      poll_backoff backoff;
      for (;;) {
        prefixes = __ballot_sync(full_warp_mask, status[k] == status_prefix);
        const unsigned needed = prefixes == 0 ? full_warp_mask : prefixes ^ (prefixes - 1);
        if ((__ballot_sync(full_warp_mask, status[k] == status_invalid) & needed) == 0) break;
        backoff.pause();
        if (status[k] == status_invalid) status[k] = states.load(static_cast<unsigned>(predecessor), value[k]);
      }

      // Reduce lanes [0, last] in tile order: a higher lane holds an older tile, so it is the
      // left operand. After the step of `offset`, lane l holds lanes [l, l + 2 * offset) (up to
      // `last`).
      const int last = prefixes == 0 ? 31 : __ffs(prefixes) - 1;
      T v = value[k];
#pragma unroll
      for (int offset = 1; offset < 32; offset *= 2) {
        const T older = shfl_down(v, offset);
        if (lane + offset <= last) v = static_cast<T>(op(older, v));
      }
      const T window = shfl_idx(v, 0);
      exclusive = have_exclusive ? static_cast<T>(op(window, exclusive)) : window;
      have_exclusive = true;
      if (prefixes != 0) return exclusive;
    }
    newest -= 32 * chunks;  // the whole window was aggregates: look further back
  }
}

/// block_scan prefix callback of a tile after the first: publishes the tile's aggregate, looks
/// back, publishes the tile's inclusive prefix and returns its exclusive prefix (every lane).
template <class States, class T, class Op>
struct lookback_prefix_op {
  States states;
  unsigned tile;
  Op op;

  GPUPRIM_DEVICE T operator()(const T& aggregate) const {
    const bool leader = lane_id() == 0;
    if (leader) states.publish(tile, status_aggregate, aggregate);
    const T exclusive = look_back(states, tile, op, aggregate);
    if (leader) states.publish(tile, status_prefix, static_cast<T>(op(exclusive, aggregate)));
    return exclusive;
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
