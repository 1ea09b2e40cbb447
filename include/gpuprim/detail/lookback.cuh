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
#include "launch.cuh"
#include "shuffle.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

enum tile_status : unsigned {
  status_invalid = 0,    // nothing published yet (the init kernel writes this)
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

/// Tile states for values of at most 4 bytes: status (high half) and value (low half) in one
/// 64-bit word, written and read in one access, so a reader always sees a matching pair.
template <class T>
struct packed_tile_states {
  static_assert(sizeof(T) <= 4, "packed tile states hold values of at most 4 bytes");
  static constexpr std::size_t status_bytes_per_tile = sizeof(unsigned long long);
  static constexpr std::size_t value_bytes_per_tile = 0;

  unsigned long long* words;

  GPUPRIM_DEVICE void reset(unsigned tile) const { words[tile] = status_invalid; }

  GPUPRIM_DEVICE void publish(unsigned tile, tile_status status, const T& value) const {
    unsigned bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    relaxed_store(words + tile, (static_cast<unsigned long long>(status) << 32) | bits);
  }

  /// The tile's status; `value` is set unless the status is invalid.
  GPUPRIM_DEVICE tile_status load(unsigned tile, T& value) const {
    const unsigned long long word = relaxed_load(words + tile);
    const unsigned bits = static_cast<unsigned>(word);
    std::memcpy(&value, &bits, sizeof(T));
    return static_cast<tile_status>(word >> 32);
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

  GPUPRIM_DEVICE void reset(unsigned tile) const { statuses[tile] = status_invalid; }

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
using tile_states_t = std::conditional_t<sizeof(T) <= 4, packed_tile_states<T>, split_tile_states<T>>;

/// The exclusive prefix of `tile` (> 0): every earlier tile's items reduced in order (including
/// the scan's init, which tile 0 folds into its prefix). All 32 lanes of one warp call it; the
/// result reaches every lane. `filler` is any value (lanes without a predecessor hold it).
template <class States, class T, class Op>
GPUPRIM_DEVICE T look_back(const States& states, unsigned tile, Op op, const T& filler) {
  const int lane = static_cast<int>(lane_id());
  T exclusive = filler;
  bool have_exclusive = false;
  long long newest = static_cast<long long>(tile) - 1;  // lane 0's tile; lane l looks at newest - l
  for (;;) {
    // Load the window. Lanes before tile 0 act as PREFIX: tile 0 is a PREFIX at a lower lane, so
    // they never enter the reduction below.
    const long long predecessor = newest - lane;
    T value = filler;
    tile_status status = predecessor >= 0 ? states.load(static_cast<unsigned>(predecessor), value) : status_prefix;

    // Wait until the window up to its first PREFIX (lowest lane) holds no invalid tile; lanes
    // past that PREFIX are not needed and may stay invalid.
    unsigned prefixes;
    unsigned sleep_ns = lookback_first_sleep_ns;
    for (;;) {
      prefixes = __ballot_sync(full_warp_mask, status == status_prefix);
      const unsigned needed = prefixes == 0 ? full_warp_mask : prefixes ^ (prefixes - 1);
      if ((__ballot_sync(full_warp_mask, status == status_invalid) & needed) == 0) break;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
      __nanosleep(sleep_ns);
#endif
      sleep_ns = sleep_ns * 2 < lookback_max_sleep_ns ? sleep_ns * 2 : lookback_max_sleep_ns;
      if (status == status_invalid) status = states.load(static_cast<unsigned>(predecessor), value);
    }

    // Reduce lanes [0, last] in tile order: a higher lane holds an older tile, so it is the left
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
    newest -= 32;  // the whole window was aggregates: look further back
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
