// Device-wide inclusive and exclusive scans and sums (host API), re-exporting warp_scan,
// block_scan and block_exchange. The algorithm: device/scan_kernels.cuh; docs/scan.md.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "block/block_exchange.cuh"
#include "block/block_scan.cuh"
#include "detail/config.cuh"
#include "detail/item_source.cuh"
#include "detail/launch.cuh"
#include "detail/requirements.cuh"
#include "device/by_key.cuh"
#include "device/scan_kernels.cuh"
#include "functional.cuh"
#include "warp/warp_scan.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// d_out[i] = init op d_in[0] op ... op d_in[i - 1] (d_out[0] = init), for i < n, accumulated in
/// `T` (the type of `init`), in order: `op` must be associative, not commutative. In place
/// (d_out == d_in) is fine. Workspace form: with `d_temp_storage == nullptr` only sets
/// `temp_storage_bytes` (at least 1). Asynchronous on `stream`; graph-capturable.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class T, class Op>
[[nodiscard]] cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                         OutputIt d_out, std::size_t n, T init, Op op, cudaStream_t stream = 0) {
  if constexpr (detail::scan_requirements<InputIt, OutputIt, T>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    const cudaError_t e =
        detail::scan<T, Shape>(d_temp_storage, temp_storage_bytes, size_query, d_in, d_out, n, init, op, stream);
    // Never report zero bytes: a null workspace means "size query".
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `exclusive_scan` with its workspace taken stream-ordered (cudaMallocAsync / cudaFreeAsync).
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class T, class Op>
[[nodiscard]] cudaError_t exclusive_scan(InputIt d_in, OutputIt d_out, std::size_t n, T init, Op op,
                                         cudaStream_t stream = 0) {
  if constexpr (detail::scan_requirements<InputIt, OutputIt, T>::check()) {
    if (!detail::scan_arguments_valid(d_in, d_out, n)) return cudaErrorInvalidValue;
    return detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return detail::scan<T, Shape>(temp, bytes, size_query, d_in, d_out, n, init, op, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// d_out[i] = d_in[0] op ... op d_in[i], for i < n, accumulated in the input's value type, in
/// order (`op` associative, not necessarily commutative). In place is fine. Workspace form as
/// for `exclusive_scan`.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class Op>
[[nodiscard]] cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                         OutputIt d_out, std::size_t n, Op op, cudaStream_t stream = 0) {
  using acc_t = std::remove_cv_t<detail::iterator_value_t<InputIt>>;
  if constexpr (detail::scan_requirements<InputIt, OutputIt, acc_t>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    const cudaError_t e = detail::scan<acc_t, Shape>(d_temp_storage, temp_storage_bytes, size_query, d_in, d_out, n,
                                                     detail::no_init{}, op, stream);
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `inclusive_scan` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class Op>
[[nodiscard]] cudaError_t inclusive_scan(InputIt d_in, OutputIt d_out, std::size_t n, Op op, cudaStream_t stream = 0) {
  using acc_t = std::remove_cv_t<detail::iterator_value_t<InputIt>>;
  if constexpr (detail::scan_requirements<InputIt, OutputIt, acc_t>::check()) {
    if (!detail::scan_arguments_valid(d_in, d_out, n)) return cudaErrorInvalidValue;
    return detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return detail::scan<acc_t, Shape>(temp, bytes, size_query, d_in, d_out, n, detail::no_init{}, op, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `exclusive_scan(..., T{}, plus{})`, accumulated in the output's type `T` when `d_out` is a raw
/// pointer (as gpuprim::sum), else in the input's value type.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt>
[[nodiscard]] cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                        OutputIt d_out, std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<InputIt, OutputIt>;
  return exclusive_scan<Shape>(d_temp_storage, temp_storage_bytes, d_in, d_out, n, acc_t{}, plus{}, stream);
}

/// `exclusive_sum` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt>
[[nodiscard]] cudaError_t exclusive_sum(InputIt d_in, OutputIt d_out, std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<InputIt, OutputIt>;
  return exclusive_scan<Shape>(d_in, d_out, n, acc_t{}, plus{}, stream);
}

/// Inclusive scan with `plus`, accumulated in the output's type when `d_out` is a raw pointer,
/// else in the input's value type.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt>
[[nodiscard]] cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                        OutputIt d_out, std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<InputIt, OutputIt>;
  if constexpr (detail::scan_requirements<InputIt, OutputIt, acc_t>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    const cudaError_t e = detail::scan<acc_t, Shape>(d_temp_storage, temp_storage_bytes, size_query, d_in, d_out, n,
                                                     detail::no_init{}, plus{}, stream);
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `inclusive_sum` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt>
[[nodiscard]] cudaError_t inclusive_sum(InputIt d_in, OutputIt d_out, std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<InputIt, OutputIt>;
  if constexpr (detail::scan_requirements<InputIt, OutputIt, acc_t>::check()) {
    if (!detail::scan_arguments_valid(d_in, d_out, n)) return cudaErrorInvalidValue;
    return detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return detail::scan<acc_t, Shape>(temp, bytes, size_query, d_in, d_out, n, detail::no_init{}, plus{}, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

// ---- By key: the scan restarts wherever keys[i] != keys[i-1] (device/by_key.cuh) ---------------

namespace detail {
/// The workspace and allocating forms of a scan by key, after its requirements.
template <class V, class Shape, bool Exclusive, class KeysIt, class ValuesIt, class OutIt, class Op>
cudaError_t scan_by_key_entry(void* temp, std::size_t* bytes, KeysIt keys, ValuesIt values, OutIt out,
                              std::size_t n, V init, Op op, cudaStream_t stream) {
  if constexpr (by_key_requirements<KeysIt, ValuesIt, OutIt, V>::check()) {
    if (bytes != nullptr) {
      const bool size_query = temp == nullptr;
      const cudaError_t e =
          scan_by_key<V, Shape, Exclusive>(temp, *bytes, size_query, keys, values, out, n, init, op, stream);
      if (e == cudaSuccess && size_query && *bytes == 0) *bytes = 1;
      return e;
    }
    if (n > 0 && (is_null_iterator(keys) || is_null_iterator(values) || is_null_iterator(out))) {
      return cudaErrorInvalidValue;
    }
    return with_stream_ordered_workspace(stream, [&](void* t, std::size_t& b, bool size_query) {
      return scan_by_key<V, Shape, Exclusive>(t, b, size_query, keys, values, out, n, init, op, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}
}  // namespace detail

/// d_values_out[i] = op over d_values_in of i's run up to i (runs: equal consecutive keys).
/// In place allowed (d_values_out == d_values_in).
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt, class Op>
[[nodiscard]] cudaError_t inclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                                KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                                std::size_t n, Op op, cudaStream_t stream = 0) {
  using v_t = detail::iterator_item_t<ValuesIt>;
  return detail::scan_by_key_entry<v_t, Shape, false>(d_temp_storage, &temp_storage_bytes, d_keys_in, d_values_in,
                                                      d_values_out, n, v_t{}, op, stream);
}

/// `inclusive_scan_by_key` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt, class Op>
[[nodiscard]] cudaError_t inclusive_scan_by_key(KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                                std::size_t n, Op op, cudaStream_t stream = 0) {
  using v_t = detail::iterator_item_t<ValuesIt>;
  return detail::scan_by_key_entry<v_t, Shape, false>(nullptr, nullptr, d_keys_in, d_values_in, d_values_out, n,
                                                      v_t{}, op, stream);
}

/// d_values_out[i] = op(init, the values of i's run before i): init at each run's first item.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt, class T, class Op>
[[nodiscard]] cudaError_t exclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                                KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                                std::size_t n, T init, Op op, cudaStream_t stream = 0) {
  return detail::scan_by_key_entry<T, Shape, true>(d_temp_storage, &temp_storage_bytes, d_keys_in, d_values_in,
                                                   d_values_out, n, init, op, stream);
}

/// `exclusive_scan_by_key` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt, class T, class Op>
[[nodiscard]] cudaError_t exclusive_scan_by_key(KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                                std::size_t n, T init, Op op, cudaStream_t stream = 0) {
  return detail::scan_by_key_entry<T, Shape, true>(nullptr, nullptr, d_keys_in, d_values_in, d_values_out, n, init,
                                                   op, stream);
}

/// `inclusive_scan_by_key` with `plus`, accumulated as `inclusive_sum` accumulates.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt>
[[nodiscard]] cudaError_t inclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                               KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                               std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<ValuesIt, OutputIt>;
  return detail::scan_by_key_entry<acc_t, Shape, false>(d_temp_storage, &temp_storage_bytes, d_keys_in,
                                                        d_values_in, d_values_out, n, acc_t{}, plus{}, stream);
}

/// `inclusive_sum_by_key` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt>
[[nodiscard]] cudaError_t inclusive_sum_by_key(KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                               std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<ValuesIt, OutputIt>;
  return detail::scan_by_key_entry<acc_t, Shape, false>(nullptr, nullptr, d_keys_in, d_values_in, d_values_out, n,
                                                        acc_t{}, plus{}, stream);
}

/// `exclusive_scan_by_key` with init 0 and `plus`, accumulated as `exclusive_sum` accumulates.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt>
[[nodiscard]] cudaError_t exclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                               KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                               std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<ValuesIt, OutputIt>;
  return detail::scan_by_key_entry<acc_t, Shape, true>(d_temp_storage, &temp_storage_bytes, d_keys_in, d_values_in,
                                                       d_values_out, n, acc_t{}, plus{}, stream);
}

/// `exclusive_sum_by_key` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class KeysIt, class ValuesIt, class OutputIt>
[[nodiscard]] cudaError_t exclusive_sum_by_key(KeysIt d_keys_in, ValuesIt d_values_in, OutputIt d_values_out,
                                               std::size_t n, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<ValuesIt, OutputIt>;
  return detail::scan_by_key_entry<acc_t, Shape, true>(nullptr, nullptr, d_keys_in, d_values_in, d_values_out, n,
                                                       acc_t{}, plus{}, stream);
}

GPUPRIM_NAMESPACE_END
