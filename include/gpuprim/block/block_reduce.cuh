// Block-wide reduction: shuffle reductions in each warp, then one warp over the warp results.
#pragma once

#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/uninitialized.cuh"
#include "../functional.cuh"
#include "../warp/warp_reduce.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// Reduces values held by the `BlockThreads` threads of a 1D block (any multiple of 32 up to
/// 1024). Every thread calls each member together; the result is defined in thread 0 only.
/// Threads combine in thread order (a non-commutative associative operator is fine). Place
/// `temp_storage` in `__shared__` memory; `__syncthreads()` before reusing it for another call.
template <class T, int BlockThreads>
class block_reduce {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static constexpr int warps = BlockThreads / 32;

 public:
  /// Threads per block.
  static constexpr int block_threads = BlockThreads;
  /// Shared memory of one call: one `T` per warp. Place it in `__shared__` memory.
  struct temp_storage {
    detail::uninitialized_array<T, warps> warp_results;  ///< One result per warp.
  };

  /// Binds the shared storage that the members use.
  GPUPRIM_DEVICE explicit block_reduce(temp_storage& storage) : storage_(storage) {}

  /// Reduction of one `x` per thread.
  template <class Op>
  GPUPRIM_DEVICE T reduce(T x, Op op) {
    return combine_warps(warp_reduce<T>{}.reduce(x, op), op, warps);
  }

  /// Reduction of `ItemsPerThread` items per thread, in blocked order.
  template <int ItemsPerThread, class Op>
  GPUPRIM_DEVICE T reduce(const T (&items)[ItemsPerThread], Op op) {
    T x = items[0];
#pragma unroll
    for (int i = 1; i < ItemsPerThread; ++i) x = static_cast<T>(op(x, items[i]));
    return reduce(x, op);
  }

  /// Reduction of `x` over threads `[0, valid_items)`; `valid_items` in [1, BlockThreads].
  template <class Op>
  GPUPRIM_DEVICE T reduce(T x, Op op, int valid_items) {
    if (valid_items >= BlockThreads) return reduce(x, op);
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int warp_valid = valid_items - warp * 32;
    // Warp-uniform branch: full warps take the cheaper butterfly.
    T w = warp_valid >= 32 ? warp_reduce<T>{}.reduce(x, op)
                           : warp_reduce<T>{}.reduce_to_first_lane(x, op, warp_valid);
    return combine_warps(w, op, (valid_items + 31) / 32);
  }

  ///@{
  /// `reduce` with `plus`: one item, `items[ItemsPerThread]`, or threads `[0, valid_items)`.
  GPUPRIM_DEVICE T sum(T x) { return reduce(x, plus{}); }
  template <int ItemsPerThread>
  GPUPRIM_DEVICE T sum(const T (&items)[ItemsPerThread]) { return reduce(items, plus{}); }
  GPUPRIM_DEVICE T sum(T x, int valid_items) { return reduce(x, plus{}, valid_items); }
  ///@}

 private:
  // Lane 0 of each of the first `valid_warps` warps holds its warp's result in `w`.
  template <class Op>
  GPUPRIM_DEVICE T combine_warps(T w, Op op, int valid_warps) {
    if constexpr (warps == 1) {
      return w;
    } else {
      const int warp = static_cast<int>(threadIdx.x) / 32;
      const int lane = static_cast<int>(threadIdx.x) % 32;
      if (lane == 0 && warp < valid_warps) storage_.warp_results[warp] = w;
      __syncthreads();  // warp results visible to warp 0
      if (warp == 0) {
        T v = storage_.warp_results[lane < valid_warps ? lane : 0];
        w = warp_reduce<T>{}.reduce_to_first_lane(v, op, valid_warps);
      }
      return w;
    }
  }

  temp_storage& storage_;
};

GPUPRIM_NAMESPACE_END
