// Block-wide inclusive and exclusive scans: a shuffle scan in each warp, then the warp totals
// combined through shared memory; a prefix callback chains the scans of consecutive tiles.
#pragma once

#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/shuffle.cuh"
#include "../detail/uninitialized.cuh"
#include "../functional.cuh"
#include "../warp/warp_scan.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// Scans one value (or `items[N]`, blocked: thread t holds items [t * N, (t + 1) * N)) per thread
/// of a 1D block of `BlockThreads` threads (any multiple of 32 up to 1024). Every thread calls each
/// member together and gets its own results; the aggregate (inputs only, without `init`) reaches
/// every thread. Threads combine in order (`op` associative, not necessarily commutative). Input
/// and output may be the same. Place `temp_storage` in `__shared__` memory; `__syncthreads()`
/// before reusing it.
///
/// Prefix callback (CUB's BlockPrefixCallbackOp): `prefix_op(aggregate)` is called by all 32 lanes
/// of warp 0 with the aggregate of this call's inputs; lane 0's return value is the prefix of the
/// whole call: thread 0's first output is that prefix (exclusive) or prefix op item (inclusive).
template <class T, int BlockThreads>
class block_scan {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static_assert(std::is_trivially_copyable_v<T>, "block_scan needs a trivially copyable T");
  static constexpr int warps = BlockThreads / 32;
  /// From this many warps on, the warp totals are combined by a shuffle scan in every warp rather
  /// than folded one by one in every thread: at 32 warps the fold issued ~95 instructions a
  /// thread (2048-entry scans of the bucketed rank sort: ~7% of its time each, ncu)
  ///, which the shuffle scan cuts to ~15; below, the fold's shorter chain of dependent
  /// instructions is kept.
  static constexpr int shuffle_fold_warps = 16;
  /// Lanes of that shuffle scan: the warp count rounded up to a power of two.
  static constexpr int fold_lanes = warps <= 16 ? 16 : 32;

 public:
  /// Threads per block.
  static constexpr int block_threads = BlockThreads;
  /// Shared memory of one call: one `T` per warp and one for the prefix. Place it in `__shared__`.
  struct temp_storage {
    detail::uninitialized_array<T, warps> warp_aggregates;  ///< One total per warp.
    detail::uninitialized_array<T, 1> block_prefix;         ///< The callback's answer, for every warp.
  };

  /// Binds the shared storage that the members use.
  GPUPRIM_DEVICE explicit block_scan(temp_storage& storage) : storage_(storage) {}

  // ---- One item per thread ------------------------------------------------------------------

  ///@{
  /// out = x[0] op ... op x[thread]; `aggregate` (every thread) = the reduction of all x.
  template <class Op>
  GPUPRIM_DEVICE void inclusive_scan(T x, T& out, Op op) {
    T aggregate;
    inclusive_scan(x, out, op, aggregate);
  }
  template <class Op>
  GPUPRIM_DEVICE void inclusive_scan(T x, T& out, Op op, T& aggregate) {
    T before;
    threads_before(x, before, aggregate, op);
    out = threadIdx.x == 0 ? x : static_cast<T>(op(before, x));
  }
  ///@}
  /// out = prefix op x[0] op ... op x[thread], with the prefix from `prefix_op(aggregate)`.
  template <class Op, class PrefixOp>
  GPUPRIM_DEVICE void inclusive_scan(T x, T& out, Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    threads_before(x, before, aggregate, op);
    const T prefix = call_prefix_op(prefix_op, aggregate);
    out = static_cast<T>(op(threadIdx.x == 0 ? prefix : static_cast<T>(op(prefix, before)), x));
  }

  ///@{
  /// out = init op x[0] op ... op x[thread - 1]; thread 0 gets `init`; `aggregate` excludes it.
  template <class Op>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, T init, Op op) {
    T aggregate;
    exclusive_scan(x, out, init, op, aggregate);
  }
  template <class Op>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, T init, Op op, T& aggregate) {
    T before;
    threads_before(x, before, aggregate, op);
    out = threadIdx.x == 0 ? init : static_cast<T>(op(init, before));
  }
  ///@}
  /// out = prefix op x[0] op ... op x[thread - 1], with the prefix from `prefix_op(aggregate)`.
  template <class Op, class PrefixOp>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    threads_before(x, before, aggregate, op);
    const T prefix = call_prefix_op(prefix_op, aggregate);
    out = threadIdx.x == 0 ? prefix : static_cast<T>(op(prefix, before));
  }

  ///@{
  /// Inclusive scan with `plus` (plain, with the aggregate, or with a prefix callback).
  GPUPRIM_DEVICE void inclusive_sum(T x, T& out) { inclusive_scan(x, out, plus{}); }
  GPUPRIM_DEVICE void inclusive_sum(T x, T& out, T& aggregate) { inclusive_scan(x, out, plus{}, aggregate); }
  template <class PrefixOp>
  GPUPRIM_DEVICE void inclusive_sum(T x, T& out, PrefixOp& prefix_op) { inclusive_scan(x, out, plus{}, prefix_op); }
  ///@}
  ///@{
  /// Exclusive sum from `T{}` (or from the callback's prefix).
  GPUPRIM_DEVICE void exclusive_sum(T x, T& out) { exclusive_scan(x, out, T{}, plus{}); }
  GPUPRIM_DEVICE void exclusive_sum(T x, T& out, T& aggregate) { exclusive_scan(x, out, T{}, plus{}, aggregate); }
  template <class PrefixOp>
  GPUPRIM_DEVICE void exclusive_sum(T x, T& out, PrefixOp& prefix_op) { exclusive_scan(x, out, plus{}, prefix_op); }
  ///@}

  // ---- items[N] per thread, blocked ------------------------------------------------------------

  ///@{
  /// Inclusive scan of the block's `items[N]` (blocked; `in` and `out` may be one array): plain,
  /// with the aggregate, or with a prefix callback.
  template <int N, class Op>
  GPUPRIM_DEVICE void inclusive_scan(const T (&in)[N], T (&out)[N], Op op) {
    T aggregate;
    inclusive_scan(in, out, op, aggregate);
  }
  template <int N, class Op>
  GPUPRIM_DEVICE void inclusive_scan(const T (&in)[N], T (&out)[N], Op op, T& aggregate) {
    T before;
    threads_before(detail::thread_reduce(in, op), before, aggregate, op);
    detail::thread_inclusive_scan(in, out, before, threadIdx.x != 0, op);
  }
  template <int N, class Op, class PrefixOp>
  GPUPRIM_DEVICE void inclusive_scan(const T (&in)[N], T (&out)[N], Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    threads_before(detail::thread_reduce(in, op), before, aggregate, op);
    const T prefix = call_prefix_op(prefix_op, aggregate);
    detail::thread_inclusive_scan(in, out, threadIdx.x == 0 ? prefix : static_cast<T>(op(prefix, before)), true, op);
  }
  ///@}

  ///@{
  /// Exclusive scan of the block's `items[N]` from `init` (thread 0's out[0] is `init`), or from
  /// the prefix callback's answer.
  template <int N, class Op>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], T init, Op op) {
    T aggregate;
    exclusive_scan(in, out, init, op, aggregate);
  }
  template <int N, class Op>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], T init, Op op, T& aggregate) {
    T before;
    threads_before(detail::thread_reduce(in, op), before, aggregate, op);
    detail::thread_exclusive_scan(in, out, threadIdx.x == 0 ? init : static_cast<T>(op(init, before)), true, op);
  }
  template <int N, class Op, class PrefixOp>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    threads_before(detail::thread_reduce(in, op), before, aggregate, op);
    const T prefix = call_prefix_op(prefix_op, aggregate);
    detail::thread_exclusive_scan(in, out, threadIdx.x == 0 ? prefix : static_cast<T>(op(prefix, before)), true, op);
  }
  ///@}

  ///@{
  /// Inclusive scan of `items[N]` with `plus`.
  template <int N>
  GPUPRIM_DEVICE void inclusive_sum(const T (&in)[N], T (&out)[N]) { inclusive_scan(in, out, plus{}); }
  template <int N>
  GPUPRIM_DEVICE void inclusive_sum(const T (&in)[N], T (&out)[N], T& aggregate) {
    inclusive_scan(in, out, plus{}, aggregate);
  }
  template <int N, class PrefixOp>
  GPUPRIM_DEVICE void inclusive_sum(const T (&in)[N], T (&out)[N], PrefixOp& prefix_op) {
    inclusive_scan(in, out, plus{}, prefix_op);
  }
  ///@}
  ///@{
  /// Exclusive sum of `items[N]` from `T{}` (or from the callback's prefix).
  template <int N>
  GPUPRIM_DEVICE void exclusive_sum(const T (&in)[N], T (&out)[N]) { exclusive_scan(in, out, T{}, plus{}); }
  template <int N>
  GPUPRIM_DEVICE void exclusive_sum(const T (&in)[N], T (&out)[N], T& aggregate) {
    exclusive_scan(in, out, T{}, plus{}, aggregate);
  }
  template <int N, class PrefixOp>
  GPUPRIM_DEVICE void exclusive_sum(const T (&in)[N], T (&out)[N], PrefixOp& prefix_op) {
    exclusive_scan(in, out, plus{}, prefix_op);
  }
  ///@}

 private:
  // `before` = x[0] op ... op x[thread - 1] (undefined in thread 0); `aggregate` = the reduction
  // of every thread's x, in every thread. One barrier when the block has more than one warp.
  template <class Op>
  GPUPRIM_DEVICE void threads_before(T x, T& before, T& aggregate, Op op) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    T in_warp;  // the lanes before this one in its warp (undefined in lane 0)
    if constexpr (warps == 1) {
      warp_scan<T>{}.exclusive_scan(x, in_warp, op, aggregate);
      before = in_warp;
    } else {
      warp_scan<T>{}.exclusive_scan(x, in_warp, op);
      if (lane == 31) storage_.warp_aggregates[warp] = static_cast<T>(op(in_warp, x));
      __syncthreads();  // every warp's total is visible to every thread
      T warp_prefix;  // the totals of the warps before this one (undefined in warp 0)
      if constexpr (warps >= shuffle_fold_warps) {
        // Every warp scans the warp totals itself, lane w holding total w (the lanes past the
        // last warp repeat its total; their results are not used): log2(warps) shuffle steps
        // instead of one shared load, one op and one select per warp in every thread.
        const T total = storage_.warp_aggregates[lane < warps ? lane : warps - 1];
        T totals_before;  // inclusive: totals 0..lane
        warp_scan<T, fold_lanes>{}.inclusive_scan(total, totals_before, op);
        aggregate = detail::shfl_idx(totals_before, warps - 1);
        warp_prefix = detail::shfl_idx(totals_before, warp > 0 ? warp - 1 : 0);
      } else {
        // Every thread folds the warp totals in order (smem broadcasts), picking up its warp's
        // prefix on the way.
        warp_prefix = storage_.warp_aggregates[0];
        aggregate = warp_prefix;
#pragma unroll
        for (int w = 1; w < warps; ++w) {
          if (w == warp) warp_prefix = aggregate;
          aggregate = static_cast<T>(op(aggregate, storage_.warp_aggregates[w]));
        }
      }
      if (warp == 0) {
        before = in_warp;
      } else {
        before = lane == 0 ? warp_prefix : static_cast<T>(op(warp_prefix, in_warp));
      }
    }
  }

  // Calls the callback in warp 0 and returns lane 0's answer in every thread.
  template <class PrefixOp>
  GPUPRIM_DEVICE T call_prefix_op(PrefixOp& prefix_op, const T& aggregate) {
    const int warp = static_cast<int>(threadIdx.x) / 32;
    if constexpr (warps == 1) {
      return detail::shfl_idx(static_cast<T>(prefix_op(aggregate)), 0);
    } else {
      if (warp == 0) {
        const T prefix = static_cast<T>(prefix_op(aggregate));
        if (threadIdx.x == 0) storage_.block_prefix[0] = prefix;
      }
      __syncthreads();  // the prefix is visible to every warp
      return storage_.block_prefix[0];
    }
  }

  temp_storage& storage_;
};

GPUPRIM_NAMESPACE_END
