// Warp-wide inclusive and exclusive scans over logical warps of 1..32 lanes, by register shuffles
// (Kogge-Stone), plus the in-thread scans that the items[N] forms of the warp and block scans share.
#pragma once

#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/shuffle.cuh"
#include "../functional.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// `items[0] op items[1] op ... op items[N-1]`, left to right.
template <class T, int N, class Op>
GPUPRIM_DEVICE T thread_reduce(const T (&items)[N], Op op) {
  T x = items[0];
#pragma unroll
  for (int i = 1; i < N; ++i) x = static_cast<T>(op(x, items[i]));
  return x;
}

/// out[i] = prefix op in[0] op ... op in[i-1]. Without a prefix (`has_prefix` false) out[0] is
/// left undefined (it gets `prefix`) and out[1] = in[0]. `in` and `out` may be one array.
template <class T, int N, class Op>
GPUPRIM_DEVICE void thread_exclusive_scan(const T (&in)[N], T (&out)[N], T prefix, bool has_prefix, Op op) {
  T running = prefix;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const T item = in[i];  // read before out[i] is written: in place is fine
    out[i] = running;
    running = (i == 0 && !has_prefix) ? item : static_cast<T>(op(running, item));
  }
}

/// out[i] = prefix op in[0] op ... op in[i] (without `prefix` when `has_prefix` is false).
/// `in` and `out` may be one array.
template <class T, int N, class Op>
GPUPRIM_DEVICE void thread_inclusive_scan(const T (&in)[N], T (&out)[N], T prefix, bool has_prefix, Op op) {
  T running = has_prefix ? static_cast<T>(op(prefix, in[0])) : in[0];
  out[0] = running;
#pragma unroll
  for (int i = 1; i < N; ++i) {
    running = static_cast<T>(op(running, in[i]));
    out[i] = running;
  }
}

}  // namespace detail

/// Scans one value (or `items[N]`, blocked) per lane across a logical warp of `LogicalWarpThreads`
/// consecutive lanes (a power of two, 1..32). All 32 lanes of the hardware warp call each member
/// together; every lane gets its own results, and the aggregate (inputs only, without `init`)
/// reaches every lane. Lanes combine in lane order: `op` must be associative, not commutative.
/// Input and output may be the same variable or array. `temp_storage` is empty (shuffles only).
template <class T, int LogicalWarpThreads = 32>
class warp_scan {
  static_assert(LogicalWarpThreads >= 1 && LogicalWarpThreads <= 32 &&
                    (LogicalWarpThreads & (LogicalWarpThreads - 1)) == 0,
                "LogicalWarpThreads must be a power of two in [1, 32]");
  static_assert(std::is_trivially_copyable_v<T>, "warp_scan needs a trivially copyable T");

 public:
  /// Lanes per logical warp.
  static constexpr int logical_warp_threads = LogicalWarpThreads;
  /// Empty (shuffles only); kept so that code written for block_scan reads the same.
  struct temp_storage {};

  /// Binds the (empty) storage; constructing with no argument is the same.
  GPUPRIM_DEVICE explicit warp_scan(temp_storage&) {}
  warp_scan() = default;

  // ---- One item per lane ------------------------------------------------------------------

  ///@{
  /// out = x[0] op ... op x[lane]; `aggregate` (every lane) = x[0] op ... op x[last lane].
  template <class Op>
  GPUPRIM_DEVICE void inclusive_scan(T x, T& out, Op op) const {
    out = inclusive(x, op);
  }
  template <class Op>
  GPUPRIM_DEVICE void inclusive_scan(T x, T& out, Op op, T& aggregate) const {
    const T inc = inclusive(x, op);
    aggregate = last_lane(inc);
    out = inc;
  }
  ///@}

  ///@{
  /// out = init op x[0] op ... op x[lane - 1]; lane 0 gets `init`; `aggregate` excludes `init`.
  template <class Op>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, T init, Op op) const {
    out = with_init(exclusive_of(inclusive(x, op)), init, op);
  }
  template <class Op>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, T init, Op op, T& aggregate) const {
    const T inc = inclusive(x, op);
    aggregate = last_lane(inc);
    out = with_init(exclusive_of(inc), init, op);
  }
  ///@}

  ///@{
  /// out = x[0] op ... op x[lane - 1]; undefined in lane 0 (no `init`).
  template <class Op>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, Op op) const {
    out = exclusive_of(inclusive(x, op));
  }
  template <class Op>
  GPUPRIM_DEVICE void exclusive_scan(T x, T& out, Op op, T& aggregate) const {
    const T inc = inclusive(x, op);
    aggregate = last_lane(inc);
    out = exclusive_of(inc);
  }
  ///@}

  ///@{
  /// Inclusive scan with `plus`.
  GPUPRIM_DEVICE void inclusive_sum(T x, T& out) const { inclusive_scan(x, out, plus{}); }
  GPUPRIM_DEVICE void inclusive_sum(T x, T& out, T& aggregate) const { inclusive_scan(x, out, plus{}, aggregate); }
  ///@}
  ///@{
  /// Exclusive sum from `T{}`: lane 0 gets `T{}`.
  GPUPRIM_DEVICE void exclusive_sum(T x, T& out) const { exclusive_scan(x, out, T{}, plus{}); }
  GPUPRIM_DEVICE void exclusive_sum(T x, T& out, T& aggregate) const { exclusive_scan(x, out, T{}, plus{}, aggregate); }
  ///@}

  // ---- items[N] per lane, blocked: lane l holds items [l * N, (l + 1) * N) of its warp -------

  ///@{
  /// Inclusive scan of the warp's `items[N]` (blocked); `in` and `out` may be one array.
  template <int N, class Op>
  GPUPRIM_DEVICE void inclusive_scan(const T (&in)[N], T (&out)[N], Op op) const {
    T aggregate;
    inclusive_scan(in, out, op, aggregate);
  }
  template <int N, class Op>
  GPUPRIM_DEVICE void inclusive_scan(const T (&in)[N], T (&out)[N], Op op, T& aggregate) const {
    const T before = lanes_before(detail::thread_reduce(in, op), op, aggregate);
    detail::thread_inclusive_scan(in, out, before, lane() != 0, op);
  }
  ///@}

  ///@{
  /// Exclusive scan of the warp's `items[N]` from `init` (out[0] of lane 0 is `init`).
  template <int N, class Op>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], T init, Op op) const {
    T aggregate;
    exclusive_scan(in, out, init, op, aggregate);
  }
  template <int N, class Op>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], T init, Op op, T& aggregate) const {
    const T before = lanes_before(detail::thread_reduce(in, op), op, aggregate);
    detail::thread_exclusive_scan(in, out, with_init(before, init, op), true, op);
  }
  ///@}

  ///@{
  /// Without `init`: out[0] of lane 0 is undefined.
  template <int N, class Op>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], Op op) const {
    T aggregate;
    exclusive_scan(in, out, op, aggregate);
  }
  template <int N, class Op>
  GPUPRIM_DEVICE void exclusive_scan(const T (&in)[N], T (&out)[N], Op op, T& aggregate) const {
    const T before = lanes_before(detail::thread_reduce(in, op), op, aggregate);
    detail::thread_exclusive_scan(in, out, before, lane() != 0, op);
  }
  ///@}

  ///@{
  /// Inclusive scan of `items[N]` with `plus`.
  template <int N>
  GPUPRIM_DEVICE void inclusive_sum(const T (&in)[N], T (&out)[N]) const { inclusive_scan(in, out, plus{}); }
  template <int N>
  GPUPRIM_DEVICE void inclusive_sum(const T (&in)[N], T (&out)[N], T& aggregate) const {
    inclusive_scan(in, out, plus{}, aggregate);
  }
  ///@}
  ///@{
  /// Exclusive sum of `items[N]` from `T{}`.
  template <int N>
  GPUPRIM_DEVICE void exclusive_sum(const T (&in)[N], T (&out)[N]) const { exclusive_scan(in, out, T{}, plus{}); }
  template <int N>
  GPUPRIM_DEVICE void exclusive_sum(const T (&in)[N], T (&out)[N], T& aggregate) const {
    exclusive_scan(in, out, T{}, plus{}, aggregate);
  }
  ///@}

 private:
  static GPUPRIM_DEVICE int lane() { return static_cast<int>(detail::lane_id()) % LogicalWarpThreads; }

  // Kogge-Stone: after the step of `offset`, lane l holds x[l - 2 * offset + 1 .. l]. The earlier
  // lanes' value is the left operand, so the order of a non-commutative `op` is kept.
  template <class Op>
  static GPUPRIM_DEVICE T inclusive(T x, Op op) {
    const int l = lane();
#pragma unroll
    for (int offset = 1; offset < LogicalWarpThreads; offset *= 2) {
      const T earlier = detail::shfl_up(x, offset, LogicalWarpThreads);
      if (l >= offset) x = static_cast<T>(op(earlier, x));
    }
    return x;
  }

  // The inclusive result of the previous lane; lane 0 keeps its own (an undefined result).
  static GPUPRIM_DEVICE T exclusive_of(const T& inclusive) { return detail::shfl_up(inclusive, 1, LogicalWarpThreads); }

  static GPUPRIM_DEVICE T last_lane(const T& inclusive) {
    return detail::shfl_idx(inclusive, LogicalWarpThreads - 1, LogicalWarpThreads);
  }

  template <class Op>
  static GPUPRIM_DEVICE T with_init(const T& exclusive, const T& init, Op op) {
    return lane() == 0 ? init : static_cast<T>(op(init, exclusive));
  }

  // Reduction of the lanes before this one (undefined in lane 0); `aggregate` gets all lanes'.
  template <class Op>
  static GPUPRIM_DEVICE T lanes_before(T partial, Op op, T& aggregate) {
    const T inc = inclusive(partial, op);
    aggregate = last_lane(inc);
    return exclusive_of(inc);
  }
};

GPUPRIM_NAMESPACE_END
