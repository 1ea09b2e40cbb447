// Device-wide LSD radix sort of keys or key-value pairs (host API), re-exporting block_radix_rank
// and block_radix_sort. The algorithm: device/radix_sort_kernels.cuh; docs/radix_sort.md.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "block/block_exchange.cuh"
#include "block/block_radix_rank.cuh"
#include "block/block_radix_sort.cuh"
#include "detail/config.cuh"
#include "detail/launch.cuh"
#include "detail/requirements.cuh"
#include "device/radix_sort_dispatch.cuh"
#include "shape.cuh"

GPUPRIM_NAMESPACE_BEGIN

namespace detail {

/// Runs a sort in the workspace form (size query when `d_temp_storage == nullptr`; never 0 bytes).
template <bool Descending, class Shape, class Key, class Value>
cudaError_t radix_sort_workspace_form(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                                      Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                                      int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (radix_sort_requirements<Key, Value>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    // The size query never reports 0 bytes, so a workspace of 0 bytes is always too small.
    if (!size_query && n > 0 && temp_storage_bytes == 0) return cudaErrorInvalidValue;
    const cudaError_t e = radix_sort<Descending, Shape>(d_temp_storage, temp_storage_bytes, size_query, keys_in,
                                                        keys_out, values_in, values_out, n, begin_bit, end_bit, stream);
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// Runs a sort with its workspace taken stream-ordered.
template <bool Descending, class Shape, class Key, class Value>
cudaError_t radix_sort_allocating_form(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                                       std::size_t n, int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (radix_sort_requirements<Key, Value>::check()) {
    if (!radix_bits_valid<Key>(begin_bit, end_bit) ||
        !radix_pointers_valid(keys_in, keys_out, values_in, values_out, n)) {
      return cudaErrorInvalidValue;
    }
    return with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return radix_sort<Descending, Shape>(temp, bytes, size_query, keys_in, keys_out, values_in, values_out, n,
                                           begin_bit, end_bit, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

}  // namespace detail

/// Sorts n keys ascending into `d_keys_out` (stable; `d_keys_in` is left untouched; the buffers
/// must not overlap). Only bits [begin_bit, end_bit) of the bit-ordered key take part (see
/// docs/radix_sort.md: the order is cub::DeviceRadixSort's, -0.0 == +0.0); an empty range is a
/// stable copy. Workspace form: with `d_temp_storage == nullptr` only sets `temp_storage_bytes`.
/// `Shape` (optional, `gpuprim::shape<BlockThreads, ItemsPerThread>`): the tile of the passes.
/// Asynchronous on `stream`; graph-capturable. Bad arguments: cudaErrorInvalidValue, no launch.
template <class Shape = detail::use_default_shape, class Key>
[[nodiscard]] cudaError_t radix_sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                          const Key* d_keys_in, Key* d_keys_out, std::size_t n, int begin_bit = 0,
                                          int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::radix_sort_workspace_form<false, Shape>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                                  static_cast<const detail::no_values*>(nullptr),
                                                  static_cast<detail::no_values*>(nullptr), n, begin_bit, end_bit,
                                                  stream);
}

/// `radix_sort_keys` with its workspace taken stream-ordered (cudaMallocAsync / cudaFreeAsync).
template <class Shape = detail::use_default_shape, class Key>
[[nodiscard]] cudaError_t radix_sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n, int begin_bit = 0,
                                          int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::radix_sort_allocating_form<false, Shape>(d_keys_in, d_keys_out,
                                                   static_cast<const detail::no_values*>(nullptr),
                                                   static_cast<detail::no_values*>(nullptr), n, begin_bit, end_bit,
                                                   stream);
}

/// As `radix_sort_keys`, descending (equal keys keep their input order).
template <class Shape = detail::use_default_shape, class Key>
[[nodiscard]] cudaError_t radix_sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                                     const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                                                     int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                                     cudaStream_t stream = 0) {
  return detail::radix_sort_workspace_form<true, Shape>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                                 static_cast<const detail::no_values*>(nullptr),
                                                 static_cast<detail::no_values*>(nullptr), n, begin_bit, end_bit,
                                                 stream);
}

/// `radix_sort_keys_descending` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class Key>
[[nodiscard]] cudaError_t radix_sort_keys_descending(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                                                     int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                                     cudaStream_t stream = 0) {
  return detail::radix_sort_allocating_form<true, Shape>(d_keys_in, d_keys_out,
                                                  static_cast<const detail::no_values*>(nullptr),
                                                  static_cast<detail::no_values*>(nullptr), n, begin_bit, end_bit,
                                                  stream);
}

/// Sorts n (key, value) pairs ascending by key (stable): `d_values_out[i]` is the value that came
/// with `d_keys_out[i]`. Inputs untouched; outputs must not overlap inputs. Value: any trivially
/// copyable type. Otherwise as `radix_sort_keys`.
template <class Shape = detail::use_default_shape, class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                           const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                           Value* d_values_out, std::size_t n, int begin_bit = 0,
                                           int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::radix_sort_workspace_form<false, Shape>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                                  d_values_in, d_values_out, n, begin_bit, end_bit, stream);
}

/// `radix_sort_pairs` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                           Value* d_values_out, std::size_t n, int begin_bit = 0,
                                           int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::radix_sort_allocating_form<false, Shape>(d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit,
                                                   end_bit, stream);
}

/// As `radix_sort_pairs`, descending by key (equal keys keep their input order).
template <class Shape = detail::use_default_shape, class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                                      const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                                      Value* d_values_out, std::size_t n, int begin_bit = 0,
                                                      int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::radix_sort_workspace_form<true, Shape>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                                 d_values_in, d_values_out, n, begin_bit, end_bit, stream);
}

/// `radix_sort_pairs_descending` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs_descending(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                                      Value* d_values_out, std::size_t n, int begin_bit = 0,
                                                      int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::radix_sort_allocating_form<true, Shape>(d_keys_in, d_keys_out, d_values_in, d_values_out, n, begin_bit,
                                                  end_bit, stream);
}

GPUPRIM_NAMESPACE_END
