// Warp-wide reduction over logical warps of 1..32 lanes, by register shuffles (32-bit integer
// sums, minima and maxima over whole warps by one REDUX instruction on sm_80 and newer).
#pragma once

#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/shuffle.cuh"
#include "../functional.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// Reduces one value per lane across a logical warp of `LogicalWarpThreads` consecutive lanes
/// (a power of two, 1..32). All 32 lanes of the hardware warp call each member together; the
/// result reaches every lane of the logical warp. Lanes combine in lane order, so an associative
/// operator need not be commutative. Uses no shared memory: `temp_storage` is empty.
template <class T, int LogicalWarpThreads = 32>
class warp_reduce {
  static_assert(LogicalWarpThreads >= 1 && LogicalWarpThreads <= 32 &&
                    (LogicalWarpThreads & (LogicalWarpThreads - 1)) == 0,
                "LogicalWarpThreads must be a power of two in [1, 32]");
  static_assert(std::is_trivially_copyable_v<T>, "warp_reduce needs a trivially copyable T");

 public:
  /// Lanes per logical warp.
  static constexpr int logical_warp_threads = LogicalWarpThreads;
  /// Empty (shuffles only); kept so that code written for block_reduce reads the same.
  struct temp_storage {};

  /// Binds the (empty) storage; constructing with no argument is the same.
  GPUPRIM_DEVICE explicit warp_reduce(temp_storage&) {}
  warp_reduce() = default;

  /// Reduction of `x` over all lanes of the logical warp.
  template <class Op>
  GPUPRIM_DEVICE T reduce(T x, Op op) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // 32-bit integers over a whole warp with plus, minimum or maximum: one REDUX instruction
    // instead of five shuffles and five operations (each is commutative, so any order gives the
    // same result).
    if constexpr (LogicalWarpThreads == 32 && (std::is_same_v<T, int> || std::is_same_v<T, unsigned>)) {
      if constexpr (std::is_same_v<Op, plus>) {
        return static_cast<T>(__reduce_add_sync(detail::full_warp_mask, static_cast<unsigned>(x)));
      } else if constexpr (std::is_same_v<Op, minimum>) {
        return __reduce_min_sync(detail::full_warp_mask, x);
      } else if constexpr (std::is_same_v<Op, maximum>) {
        return __reduce_max_sync(detail::full_warp_mask, x);
      }
    }
#endif
    const int lane = static_cast<int>(detail::lane_id()) % LogicalWarpThreads;
    // Butterfly: every lane builds the same lane-ordered tree, so all lanes hold equal bits.
#pragma unroll
    for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
      const T other = detail::shfl_xor(x, offset, LogicalWarpThreads);
      const bool upper = (lane & offset) != 0;
      x = static_cast<T>(upper ? op(other, x) : op(x, other));
    }
    return x;
  }

  /// Reduction of `x` over the first `valid_lanes` lanes (1..LogicalWarpThreads) of the logical
  /// warp; the other lanes' `x` is ignored.
  template <class Op>
  GPUPRIM_DEVICE T reduce(T x, Op op, int valid_lanes) const {
    return detail::shfl_idx(reduce_to_first_lane(x, op, valid_lanes), 0, LogicalWarpThreads);
  }

  ///@{
  /// `reduce` with `plus`: the full and the partial (first `valid_lanes` lanes) forms.
  GPUPRIM_DEVICE T sum(T x) const { return reduce(x, plus{}); }
  GPUPRIM_DEVICE T sum(T x, int valid_lanes) const { return reduce(x, plus{}, valid_lanes); }
  ///@}

  /// As the partial `reduce`, but the result is defined in logical lane 0 only (one shuffle less).
  template <class Op>
  GPUPRIM_DEVICE T reduce_to_first_lane(T x, Op op, int valid_lanes) const {
    const int lane = static_cast<int>(detail::lane_id()) % LogicalWarpThreads;
#pragma unroll
    for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
      const T other = detail::shfl_down(x, offset, LogicalWarpThreads);
      if (lane + offset < valid_lanes) x = static_cast<T>(op(x, other));
    }
    return x;
  }
};

GPUPRIM_NAMESPACE_END
