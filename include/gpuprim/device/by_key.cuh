// Scans and reductions by key (runs of equal consecutive keys) as device scans of pairs.
//
// Every item becomes (its value, the run starts it opens: 1 or 0), combined by the segmented
// operator (a, b) -> (b opens a run ? b.value : a.value op b.value, a.heads + b.heads), which is
// associative whenever op is. The look-back scan (device/scan_kernels.cuh) runs it unchanged:
// `run_input` makes the pairs from the keys and values, and the output iterators write what each
// algorithm wants. reduce_by_key counts the run starts in the same scan, so the total of each run
// lands at its number, written where the run ends: one pass over keys and values.
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

#include "../detail/config.cuh"
#include "../detail/item_source.cuh"
#include "../detail/launch.cuh"
#include "scan_kernels.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// The scanned pair: `value` since the latest run start in the range, and `heads`, the run starts
/// in the range (scans need only "any": `Count` unsigned; reduce_by_key the number: size_t).
template <class V, class Count>
struct run_acc {
  V value;
  Count heads;
};

template <class Op>
struct run_op {
  Op op;
  template <class V, class Count>
  GPUPRIM_HOST_DEVICE run_acc<V, Count> operator()(const run_acc<V, Count>& a, const run_acc<V, Count>& b) const {
    if constexpr (sizeof(Count) < 8) {  // a flag: saturate, so that it never wraps to 0
      return {b.heads != 0 ? b.value : static_cast<V>(op(a.value, b.value)), Count(a.heads | b.heads)};
    } else {
      return {b.heads != 0 ? b.value : static_cast<V>(op(a.value, b.value)), Count(a.heads + b.heads)};
    }
  }
};

/// Whether item i opens a run of `keys` (item 0 always does).
template <class KeysIt>
GPUPRIM_DEVICE bool opens_run(const KeysIt& keys, std::size_t i) {
  return i == 0 || !(keys[i] == keys[i - 1]);
}

/// Item i as (values[i], whether it opens a run).
template <class KeysIt, class ValuesIt, class Acc>
struct run_input {
  using value_type = Acc;
  using difference_type = std::ptrdiff_t;
  using pointer = const Acc*;
  using reference = Acc;
  using iterator_category = std::random_access_iterator_tag;
  KeysIt keys;
  ValuesIt values;
  GPUPRIM_DEVICE Acc operator[](std::size_t i) const {
    using v_t = decltype(Acc::value);
    return {static_cast<v_t>(values[i]), decltype(Acc::heads)(opens_run(keys, i) ? 1 : 0)};
  }
};

/// Output of an inclusive scan by key: out[i] = the value part.
template <class OutIt>
struct run_value_output {
  OutIt out;
  struct proxy {
    OutIt out;
    std::size_t i;
    template <class Acc>
    GPUPRIM_DEVICE void operator=(const Acc& a) const {
      out[i] = a.value;
    }
  };
  GPUPRIM_DEVICE proxy operator[](std::size_t i) const { return {out, i}; }
};

/// Output of an exclusive scan by key: `init` at a run's first item, else op(init, the values of
/// the run before i). The pair scanned to item i has absorbed init at item 0's run start.
template <class KeysIt, class OutIt, class V, class Op>
struct run_exclusive_proxy {
  KeysIt keys;
  OutIt out;
  V init;
  Op op;
  std::size_t i;
  template <class Acc>
  GPUPRIM_DEVICE void operator=(const Acc& a) const {
    out[i] = opens_run(keys, i) ? init : static_cast<V>(op(init, a.value));
  }
};
template <class KeysIt, class OutIt, class V, class Op>
struct run_exclusive_output {
  KeysIt keys;
  OutIt out;
  V init;
  Op op;
  GPUPRIM_DEVICE run_exclusive_proxy<KeysIt, OutIt, V, Op> operator[](std::size_t i) const {
    return {keys, out, init, op, i};
  }
};

/// Output of reduce_by_key: where run r (its number, from 0) ends, its key to unique[r] and its
/// total to totals[r]; at the last item the number of runs to *num_runs.
template <class KeysIt, class UniqueIt, class TotalsIt, class NumRunsIt>
struct run_total_output {
  KeysIt keys;
  UniqueIt unique;
  TotalsIt totals;
  NumRunsIt num_runs;
  std::size_t n;
  struct proxy {
    const run_total_output& o;
    std::size_t i;
    template <class Acc>
    GPUPRIM_DEVICE void operator=(const Acc& a) const {
      const bool last = i + 1 == o.n;
      if (last || !(o.keys[i + 1] == o.keys[i])) {
        o.unique[a.heads - 1] = o.keys[i];
        o.totals[a.heads - 1] = a.value;
      }
      if (last) *o.num_runs = a.heads;
    }
  };
  GPUPRIM_DEVICE proxy operator[](std::size_t i) const { return {*this, i}; }
};

template <class NumRunsIt>
__global__ void write_no_runs_kernel(NumRunsIt num_runs) {
  *num_runs = 0;
}

/// Both forms of the four scans by key end here (`Exclusive`: with `init`).
template <class V, class Shape, bool Exclusive, class KeysIt, class ValuesIt, class OutIt, class Op>
cudaError_t scan_by_key(void* temp, std::size_t& temp_bytes, bool size_query, KeysIt keys, ValuesIt values,
                        OutIt out, std::size_t n, V init, Op op, cudaStream_t stream) {
  if (!size_query && n > 0 && (is_null_iterator(keys) || is_null_iterator(values) || is_null_iterator(out))) {
    return cudaErrorInvalidValue;
  }
  using acc_t = run_acc<V, unsigned>;
  const run_input<KeysIt, ValuesIt, acc_t> in{keys, values};
  if constexpr (Exclusive) {
    const run_exclusive_output<KeysIt, OutIt, V, Op> o{keys, out, init, op};
    return scan<acc_t, Shape>(temp, temp_bytes, size_query, in, o, n, acc_t{init, 0u}, run_op<Op>{op}, stream);
  } else {
    return scan<acc_t, Shape>(temp, temp_bytes, size_query, in, run_value_output<OutIt>{out}, n, no_init{},
                              run_op<Op>{op}, stream);
  }
}

/// Both forms of reduce_by_key end here.
template <class Shape, class KeysIt, class UniqueIt, class ValuesIt, class TotalsIt, class NumRunsIt, class Op>
cudaError_t reduce_by_key(void* temp, std::size_t& temp_bytes, bool size_query, KeysIt keys, UniqueIt unique,
                          ValuesIt values, TotalsIt totals, NumRunsIt num_runs, std::size_t n, Op op,
                          cudaStream_t stream) {
  if (!size_query && (is_null_iterator(num_runs) ||
                      (n > 0 && (is_null_iterator(keys) || is_null_iterator(unique) || is_null_iterator(values) ||
                                 is_null_iterator(totals))))) {
    return cudaErrorInvalidValue;
  }
  using v_t = std::remove_cv_t<iterator_value_t<ValuesIt>>;
  using acc_t = run_acc<v_t, std::size_t>;
  const run_input<KeysIt, ValuesIt, acc_t> in{keys, values};
  const run_total_output<KeysIt, UniqueIt, TotalsIt, NumRunsIt> out{keys, unique, totals, num_runs, n};
  const cudaError_t e =
      scan<acc_t, Shape>(temp, temp_bytes, size_query, in, out, n, no_init{}, run_op<Op>{op}, stream);
  if (e != cudaSuccess || size_query || n > 0) return e;
  return launch(write_no_runs_kernel<NumRunsIt>, 1, 1, stream, launch_mode::plain, num_runs);
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
