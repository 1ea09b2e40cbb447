// Tile states and the decoupled look-back of the single-pass scan: Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA Technical Report NVR-2016-002 (2016).
//
// Every tile publishes its aggregate (status AGGREGATE) as soon as its block has reduced it, then
// looks back over its predecessors, a warp-wide window of 32 * tiles_per_lane of them at a time,
// folding aggregates until it meets a tile that has published its inclusive prefix (status PREFIX), and publishes its own
// inclusive prefix. Tile 0 publishes only PREFIX, so every look-back ends there at the latest.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "config.cuh"
#include "launch.cuh"
#include "shuffle.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

enum tile_status : unsigned {
  status_invalid = 0,    // nothing published yet (the init kernel writes this)
  status_aggregate = 1,  // the value is the tile's own aggregate
  status_prefix = 2,     // the value is the reduction of every item up to and including the tile
};

// Spin of the look-back: the first polls follow each other at once (a predecessor is usually a
// few hundred cycles away), then short sleeps, doubling, keep a long wait off the memory system.
inline constexpr int lookback_spin_polls = 3;
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

/// Two 8-byte words at a 16-byte-aligned address, read / written in ONE 16-byte access (as CUB's
/// ScanTileState<T, true> does with its ulonglong2 descriptors): a reader never sees one word of
/// one write and the other of another.
GPUPRIM_DEVICE void relaxed_load_pair(const unsigned long long* p, unsigned long long& lo, unsigned long long& hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(lo), "=l"(hi) : "l"(p) : "memory");
#elif defined(__CUDA_ARCH__)
  asm volatile("ld.cg.v2.u64 {%0, %1}, [%2];" : "=l"(lo), "=l"(hi) : "l"(p) : "memory");
#elif !defined(__CUDACC__) && defined(__x86_64__)
  unsigned __int128 w;  // host emulation: a 16-byte atomic load (libatomic)
  __atomic_load(reinterpret_cast<const unsigned __int128*>(p), &w, __ATOMIC_RELAXED);
  lo = static_cast<unsigned long long>(w);
  hi = static_cast<unsigned long long>(w >> 64);
#else
  lo = static_cast<const volatile unsigned long long*>(p)[0];
  hi = static_cast<const volatile unsigned long long*>(p)[1];
#endif
}
GPUPRIM_DEVICE void relaxed_store_pair(unsigned long long* p, unsigned long long lo, unsigned long long hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.relaxed.gpu.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(lo), "l"(hi) : "memory");
#elif defined(__CUDA_ARCH__)
  asm volatile("st.cg.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(lo), "l"(hi) : "memory");
#elif !defined(__CUDACC__) && defined(__x86_64__)
  unsigned __int128 w = (static_cast<unsigned __int128>(hi) << 64) | lo;
  __atomic_store(reinterpret_cast<unsigned __int128*>(p), &w, __ATOMIC_RELAXED);
#else
  static_cast<volatile unsigned long long*>(p)[0] = lo;
  static_cast<volatile unsigned long long*>(p)[1] = hi;
#endif
}

// A value of any trivially copyable type written to / read from L2 (st.cg / ld.cg), word by word
// where the type allows, so that no stale L1 line of another SM's write is ever read.
template <class T>
GPUPRIM_DEVICE void l2_store(T* p, const T& value) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
    std::memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) __stcg(reinterpret_cast<unsigned*>(p) + i, words[i]);
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < int(sizeof(T)); ++i) __stcg(reinterpret_cast<unsigned char*>(p) + i, bytes[i]);
  }
}
template <class T>
GPUPRIM_DEVICE T l2_load(const T* p) {
  T value;
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) words[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
    std::memcpy(&value, words, sizeof(T));
  } else {
    unsigned char bytes[sizeof(T)];
#pragma unroll
    for (int i = 0; i < int(sizeof(T)); ++i) bytes[i] = __ldcg(reinterpret_cast<const unsigned char*>(p) + i);
    std::memcpy(&value, bytes, sizeof(T));
  }
  return value;
}

// Every kind of tile states reads the window of the look-back in groups of `tiles_per_lane`
// consecutive tiles, the first a multiple of it (16-byte-aligned pairs of 16-byte loads), so a
// warp's poll covers 32 * tiles_per_lane predecessors in one round trip to L2. The workspace
// holds a whole number of groups (`padded_tiles`); the states of tiles at or past the reader's
// own are read but never used.

/// Tile states for values of at most 4 bytes: status (high half) and value (low half) in one
/// 64-bit word, written and read in one access, so a reader always sees a matching pair.
template <class T>
struct packed_tile_states {
  static_assert(sizeof(T) <= 4, "packed tile states hold values of at most 4 bytes");
  static constexpr std::size_t status_bytes_per_tile = sizeof(unsigned long long);
  static constexpr std::size_t value_bytes_per_tile = 0;
  static constexpr int tiles_per_lane = 4;  // 32 bytes: two 16-byte loads

  unsigned long long* words;

  GPUPRIM_DEVICE void reset(unsigned tile) const { words[tile] = status_invalid; }

  GPUPRIM_DEVICE void publish(unsigned tile, tile_status status, const T& value) const {
    unsigned bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    relaxed_store(words + tile, (static_cast<unsigned long long>(status) << 32) | bits);
  }

  /// Tiles [first, first + tiles_per_lane) (first a multiple of tiles_per_lane): statuses, and
  /// the values of those that are not invalid.
  GPUPRIM_DEVICE void load_group(unsigned first, tile_status (&status)[tiles_per_lane],
                                 T (&value)[tiles_per_lane]) const {
    unsigned long long w[tiles_per_lane];
#pragma unroll
    for (int i = 0; i < tiles_per_lane; i += 2) relaxed_load_pair(words + first + i, w[i], w[i + 1]);
#pragma unroll
    for (int i = 0; i < tiles_per_lane; ++i) {
      const unsigned bits = static_cast<unsigned>(w[i]);
      std::memcpy(&value[i], &bits, sizeof(T));
      status[i] = static_cast<tile_status>(w[i] >> 32);
    }
  }
};

/// Tile states for values of 5 to 8 bytes: {status, value} in one 16-byte word per tile, written
/// with one 16-byte store and read with one 16-byte load, so no fence separates status and value.
template <class T>
struct wide_packed_tile_states {
  static_assert(sizeof(T) > 4 && sizeof(T) <= 8, "wide packed tile states hold values of 5 to 8 bytes");
  static constexpr std::size_t status_bytes_per_tile = 2 * sizeof(unsigned long long);
  static constexpr std::size_t value_bytes_per_tile = 0;
  static constexpr int tiles_per_lane = 2;  // 32 bytes: two 16-byte loads

  unsigned long long* words;  // two per tile: status, value bits

  GPUPRIM_DEVICE void reset(unsigned tile) const { relaxed_store_pair(words + 2 * std::size_t(tile), status_invalid, 0); }

  GPUPRIM_DEVICE void publish(unsigned tile, tile_status status, const T& value) const {
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    relaxed_store_pair(words + 2 * std::size_t(tile), status, bits);
  }

  GPUPRIM_DEVICE void load_group(unsigned first, tile_status (&status)[tiles_per_lane],
                                 T (&value)[tiles_per_lane]) const {
#pragma unroll
    for (int i = 0; i < tiles_per_lane; ++i) {
      unsigned long long s, bits;
      relaxed_load_pair(words + 2 * (std::size_t(first) + i), s, bits);
      std::memcpy(&value[i], &bits, sizeof(T));
      status[i] = static_cast<tile_status>(s);
    }
  }
};

/// Tile states for values of more than 8 bytes: a status word per tile and the values in two
/// separate arrays (aggregates and inclusive prefixes), so that a reader who saw AGGREGATE never
/// reads a value the tile has since replaced with its prefix. Writer: value, fence, status.
/// Reader: status, fence, value (from L2).
template <class T>
struct split_tile_states {
  static constexpr std::size_t status_bytes_per_tile = sizeof(unsigned);
  static constexpr std::size_t value_bytes_per_tile = sizeof(T);
  static constexpr int tiles_per_lane = 1;

  unsigned* statuses;
  T* aggregates;
  T* prefixes;

  GPUPRIM_DEVICE void reset(unsigned tile) const { statuses[tile] = status_invalid; }

  GPUPRIM_DEVICE void publish(unsigned tile, tile_status status, const T& value) const {
    l2_store((status == status_aggregate ? aggregates : prefixes) + tile, value);
    __threadfence();  // the value is visible device-wide before the status that announces it
    relaxed_store(statuses + tile, status);
  }

  GPUPRIM_DEVICE void load_group(unsigned first, tile_status (&status)[1], T (&value)[1]) const {
    status[0] = static_cast<tile_status>(relaxed_load(statuses + first));
    if (status[0] != status_invalid) {
      __threadfence();  // the value is read only after the status that announced it
      value[0] = l2_load((status[0] == status_aggregate ? aggregates : prefixes) + first);
    }
  }
};

template <class T>
using tile_states_t =
    std::conditional_t<sizeof(T) <= 4, packed_tile_states<T>,
                       std::conditional_t<sizeof(T) <= 8, wide_packed_tile_states<T>, split_tile_states<T>>>;

/// Tile states the workspace holds for `tiles` tiles: a whole number of look-back groups.
template <class States>
constexpr std::size_t padded_tiles(std::size_t tiles) {
  return (tiles + States::tiles_per_lane - 1) / States::tiles_per_lane * States::tiles_per_lane;
}

/// One lane's group of the window, tiles [first, first + K): folds them newest first, up to and
/// including the newest PREFIX, into `value` (older tiles are left operands) and returns PREFIX
/// (a PREFIX was reached), AGGREGATE (all were aggregates) or INVALID (a needed tile is not
/// published yet). Tiles at or past `tile` (the reader's own) are skipped; a group before tile 0
/// acts as PREFIX without a value (tile 0, a PREFIX, always comes first in the window).
template <class States, class T, class Op>
GPUPRIM_DEVICE tile_status fold_group(const States& states, long long first, unsigned tile, Op op, T& value) {
  constexpr int K = States::tiles_per_lane;
  if (first < 0) return status_prefix;
  tile_status status[K];
  T values[K];
  states.load_group(static_cast<unsigned>(first), status, values);
  tile_status result = status_aggregate;
  bool have = false;
  bool done = false;
#pragma unroll
  for (int e = K - 1; e >= 0; --e) {
    if (done || first + e >= static_cast<long long>(tile)) continue;
    if (status[e] == status_invalid) {
      result = status_invalid;
      done = true;
      continue;
    }
    value = have ? static_cast<T>(op(values[e], value)) : values[e];
    have = true;
    if (status[e] == status_prefix) {
      result = status_prefix;
      done = true;
    }
  }
  return result;
}

/// The exclusive prefix of `tile` (> 0): every earlier tile's items reduced in order (including
/// the scan's init, which tile 0 folds into its prefix). All 32 lanes of one warp call it; the
/// result reaches every lane. `filler` is any value (lanes without a predecessor hold it).
/// Lane l reads the group of K = tiles_per_lane tiles that starts K * l tiles before the group
/// holding tile - 1: one poll sees 32 * K predecessors.
template <class States, class T, class Op>
GPUPRIM_DEVICE T look_back(const States& states, unsigned tile, Op op, const T& filler) {
  constexpr long long K = States::tiles_per_lane;
  const int lane = static_cast<int>(lane_id());
  T exclusive = filler;
  bool have_exclusive = false;
  long long first = (static_cast<long long>(tile) - 1) / K * K - K * lane;  // this lane's group
  for (;;) {
    // Load the window. Groups before tile 0 act as PREFIX: tile 0 is a PREFIX at a lower lane, so
    // they never enter the reduction below.
    T value = filler;
    tile_status status = fold_group(states, first, tile, op, value);

    // Wait until the window up to its first PREFIX (lowest lane) holds no invalid tile; lanes
    // past that PREFIX are not needed and may stay invalid.
    unsigned prefixes;
    int polls = 0;
    unsigned sleep_ns = lookback_first_sleep_ns;
    for (;;) {
      prefixes = __ballot_sync(full_warp_mask, status == status_prefix);
      const unsigned needed = prefixes == 0 ? full_warp_mask : prefixes ^ (prefixes - 1);
      if ((__ballot_sync(full_warp_mask, status == status_invalid) & needed) == 0) break;
      if (++polls > lookback_spin_polls) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
        __nanosleep(sleep_ns);
#endif
        sleep_ns = sleep_ns * 2 < lookback_max_sleep_ns ? sleep_ns * 2 : lookback_max_sleep_ns;
      }
      if (status == status_invalid) status = fold_group(states, first, tile, op, value);
    }

    // Reduce lanes [0, last] in tile order: a higher lane holds older tiles, so it is the left
    // operand. After the step of `offset`, lane l holds lanes [l, l + 2 * offset) (up to `last`).
    const int last = prefixes == 0 ? 31 : __ffs(prefixes) - 1;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const T older = shfl_down(value, offset);
      if (lane + offset <= last) value = static_cast<T>(op(older, value));
    }
    const T window = shfl_idx(value, 0);
    exclusive = have_exclusive ? static_cast<T>(op(window, exclusive)) : window;
    have_exclusive = true;
    if (prefixes != 0) return exclusive;
    first -= 32 * K;  // the whole window was aggregates: look further back
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
    wait_for_previous_grid();  // the tile states were reset by the kernel before this one
    const bool leader = lane_id() == 0;
    if (leader) states.publish(tile, status_aggregate, aggregate);
    const T exclusive = look_back(states, tile, op, aggregate);
    if (leader) states.publish(tile, status_prefix, static_cast<T>(op(exclusive, aggregate)));
    return exclusive;
  }
};

}  // namespace detail
GPUPRIM_NAMESPACE_END
