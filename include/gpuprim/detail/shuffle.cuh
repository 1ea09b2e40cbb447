// Warp shuffles for any trivially copyable type, moved as 32-bit words.
#pragma once

#include <cstring>
#include <type_traits>

#include "config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

constexpr unsigned full_warp_mask = 0xffffffffu;

template <class T>
inline constexpr bool native_shuffle_v =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long long> ||
    std::is_same_v<T, unsigned long long> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, long> || std::is_same_v<T, unsigned long>;

// Applies `shfl` to each 32-bit word of `x`; types the hardware shuffles natively go in one call.
template <class T, class Shfl>
GPUPRIM_DEVICE T shuffle_words(const T& x, Shfl shfl) {
  static_assert(std::is_trivially_copyable_v<T>, "gpuprim shuffles need trivially copyable types");
  if constexpr (native_shuffle_v<T>) {
    return shfl(x);
  } else {
    constexpr int words = (sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned);
    unsigned w[words];
    std::memcpy(w, &x, sizeof(T));
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] = shfl(w[i]);
    T r;
    std::memcpy(&r, w, sizeof(T));
    return r;
  }
}

/// Value of the lane `lane ^ lane_mask` within segments of `width` lanes; all 32 lanes call.
template <class T>
GPUPRIM_DEVICE T shfl_xor(const T& x, int lane_mask, int width = 32) {
  return shuffle_words(x, [=](auto v) { return __shfl_xor_sync(full_warp_mask, v, lane_mask, width); });
}

/// Value of the lane `lane + delta` (own value past the segment end); all 32 lanes call.
template <class T>
GPUPRIM_DEVICE T shfl_down(const T& x, unsigned delta, int width = 32) {
  return shuffle_words(x, [=](auto v) { return __shfl_down_sync(full_warp_mask, v, delta, width); });
}

/// Value of the lane `lane - delta` (own value before the segment start); all 32 lanes call.
template <class T>
GPUPRIM_DEVICE T shfl_up(const T& x, unsigned delta, int width = 32) {
  return shuffle_words(x, [=](auto v) { return __shfl_up_sync(full_warp_mask, v, delta, width); });
}

/// Value of segment lane `src_lane`; all 32 lanes call.
template <class T>
GPUPRIM_DEVICE T shfl_idx(const T& x, int src_lane, int width = 32) {
  return shuffle_words(x, [=](auto v) { return __shfl_sync(full_warp_mask, v, src_lane, width); });
}

/// `p ? a : b`, made with `selp` in inline assembly so that the compiler cannot turn it into a
/// branch. For lane-dependent `p` inside loops of shuffles: nvcc unswitched such a loop on
/// `lane == 0` (one copy of the loop for lane 0, another for the other lanes, run one after the
/// other with every shuffle on the slow diverged path).
template <class T>
GPUPRIM_DEVICE T lane_select(bool p, const T& a, const T& b) {
  static_assert(std::is_trivially_copyable_v<T>, "lane_select needs a trivially copyable type");
  constexpr int words = (sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned);
  unsigned wa[words] = {};
  unsigned wb[words] = {};
  std::memcpy(wa, &a, sizeof(T));
  std::memcpy(wb, &b, sizeof(T));
  const unsigned pick_a = p ? 1u : 0u;
#pragma unroll
  for (int i = 0; i < words; ++i) {
    asm("{ .reg .pred q; setp.ne.u32 q, %3, 0; selp.b32 %0, %1, %2, q; }"
        : "=r"(wa[i])
        : "r"(wa[i]), "r"(wb[i]), "r"(pick_a));
  }
  T r;
  std::memcpy(&r, wa, sizeof(T));
  return r;
}

GPUPRIM_DEVICE unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
