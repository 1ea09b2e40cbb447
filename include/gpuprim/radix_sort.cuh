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
#include "device/segmented_sort.cuh"
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

/// The segmented sorts' two forms (device/segmented_sort.cuh).
template <bool Descending, class Key, class Value, class BeginIt, class EndIt>
cudaError_t segmented_sort_workspace_form(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                                          Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                                          std::size_t segments, BeginIt begin, EndIt end, int begin_bit, int end_bit,
                                          cudaStream_t stream) {
  if constexpr (radix_sort_requirements<Key, Value>::check() && segmented_sort_offsets_ok<BeginIt, EndIt>()) {
    const bool size_query = d_temp_storage == nullptr;
    if (!size_query && segments > 0 && n > 0 && temp_storage_bytes == 0) return cudaErrorInvalidValue;
    const cudaError_t e = segmented_radix_sort<Descending>(d_temp_storage, temp_storage_bytes, size_query, keys_in,
                                                           keys_out, values_in, values_out, n, segments, begin, end,
                                                           begin_bit, end_bit, stream);
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the static_asserts stop the build
  }
}

template <bool Descending, class Key, class Value, class BeginIt, class EndIt>
cudaError_t segmented_sort_allocating_form(const Key* keys_in, Key* keys_out, const Value* values_in,
                                           Value* values_out, std::size_t n, std::size_t segments, BeginIt begin,
                                           EndIt end, int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (radix_sort_requirements<Key, Value>::check() && segmented_sort_offsets_ok<BeginIt, EndIt>()) {
    return with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return segmented_radix_sort<Descending>(temp, bytes, size_query, keys_in, keys_out, values_in, values_out, n,
                                              segments, begin, end, begin_bit, end_bit, stream);
    });
  } else {
    return cudaErrorInvalidValue;
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

// ---- Segmented sorts ------------------------------------------------------------------------
// Segment i is [d_begin_offsets[i], d_end_offsets[i]) of the n keys (empty where end <= begin);
// segments may have gaps and come in any order but must not overlap. Each is sorted on its own
// (stable), in the same places of the output; output items outside every segment are left as
// they are. Offsets: random-access iterators of integers readable on the device. The host checks
// the pointers and the bit range; it cannot read the offsets, which must lie in [0, n].

#define GPUPRIM_SEGMENTED_SORT_KEYS(name, descending)                                                              \
  template <class Key, class BeginOffsetIt, class EndOffsetIt>                                                    \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,    \
                                 Key* d_keys_out, std::size_t n, std::size_t num_segments,                       \
                                 BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets, int begin_bit = 0,    \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    return detail::segmented_sort_workspace_form<descending>(                                                    \
        d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, static_cast<const detail::no_values*>(nullptr), \
        static_cast<detail::no_values*>(nullptr), n, num_segments, d_begin_offsets, d_end_offsets, begin_bit,     \
        end_bit, stream);                                                                                         \
  }                                                                                                               \
  template <class Key, class BeginOffsetIt, class EndOffsetIt>                                                    \
  [[nodiscard]] cudaError_t name(const Key* d_keys_in, Key* d_keys_out, std::size_t n, std::size_t num_segments, \
                                 BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets, int begin_bit = 0,    \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    return detail::segmented_sort_allocating_form<descending>(                                                   \
        d_keys_in, d_keys_out, static_cast<const detail::no_values*>(nullptr),                                    \
        static_cast<detail::no_values*>(nullptr), n, num_segments, d_begin_offsets, d_end_offsets, begin_bit,     \
        end_bit, stream);                                                                                         \
  }

#define GPUPRIM_SEGMENTED_SORT_PAIRS(name, descending)                                                             \
  template <class Key, class Value, class BeginOffsetIt, class EndOffsetIt>                                       \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,    \
                                 Key* d_keys_out, const Value* d_values_in, Value* d_values_out, std::size_t n,  \
                                 std::size_t num_segments, BeginOffsetIt d_begin_offsets,                        \
                                 EndOffsetIt d_end_offsets, int begin_bit = 0, int end_bit = 8 * sizeof(Key),    \
                                 cudaStream_t stream = 0) {                                                       \
    return detail::segmented_sort_workspace_form<descending>(d_temp_storage, temp_storage_bytes, d_keys_in,      \
                                                             d_keys_out, d_values_in, d_values_out, n,           \
                                                             num_segments, d_begin_offsets, d_end_offsets,       \
                                                             begin_bit, end_bit, stream);                        \
  }                                                                                                               \
  template <class Key, class Value, class BeginOffsetIt, class EndOffsetIt>                                       \
  [[nodiscard]] cudaError_t name(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,                \
                                 Value* d_values_out, std::size_t n, std::size_t num_segments,                   \
                                 BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets, int begin_bit = 0,    \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    return detail::segmented_sort_allocating_form<descending>(d_keys_in, d_keys_out, d_values_in, d_values_out,  \
                                                              n, num_segments, d_begin_offsets, d_end_offsets,   \
                                                              begin_bit, end_bit, stream);                       \
  }

/// Sorts each segment's keys ascending (stable), both forms (workspace: a size query when
/// `d_temp_storage == nullptr`; allocating: stream-ordered). Bad arguments: cudaErrorInvalidValue.
GPUPRIM_SEGMENTED_SORT_KEYS(segmented_radix_sort_keys, false)
/// As `segmented_radix_sort_keys`, descending (equal keys keep their order).
GPUPRIM_SEGMENTED_SORT_KEYS(segmented_radix_sort_keys_descending, true)
/// Sorts each segment's (key, value) pairs ascending by key (stable).
GPUPRIM_SEGMENTED_SORT_PAIRS(segmented_radix_sort_pairs, false)
/// As `segmented_radix_sort_pairs`, descending by key.
GPUPRIM_SEGMENTED_SORT_PAIRS(segmented_radix_sort_pairs_descending, true)

#undef GPUPRIM_SEGMENTED_SORT_KEYS
#undef GPUPRIM_SEGMENTED_SORT_PAIRS

GPUPRIM_NAMESPACE_END
