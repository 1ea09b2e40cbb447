// Device-wide reduce and sum (host API), re-exporting warp_reduce and block_reduce.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include "block/block_reduce.cuh"
#include "detail/config.cuh"
#include "detail/launch.cuh"
#include "detail/requirements.cuh"
#include "device/by_key.cuh"
#include "device/reduce_kernels.cuh"
#include "device/segmented_reduce.cuh"
#include "functional.cuh"
#include "warp/warp_reduce.cuh"

GPUPRIM_NAMESPACE_BEGIN

/// Writes `op(init, op(in[0], op(in[1], ...)))` (in an unspecified order and grouping: `op` must
/// be associative and commutative) to `*d_out`; the accumulator type is `T`, the type of `init`.
/// Workspace form: with `d_temp_storage == nullptr` only sets `temp_storage_bytes`. Asynchronous
/// on `stream`; the grouping depends on `n` and the types alone, so floating-point results are
/// the same bits on every GPU and at every input address.
template <class Shape = detail::use_default_shape, class InputIt, class T, class Init, class Op>
[[nodiscard]] cudaError_t reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                                 std::size_t n, Init init, Op op, cudaStream_t stream = 0) {
  if constexpr (detail::reduce_requirements<InputIt, T, Init>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    const cudaError_t e =
        detail::reduce<Shape>(d_temp_storage, temp_storage_bytes, size_query, d_in, d_out, n, init, op, stream);
    // Never report zero bytes: a null workspace means "size query".
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `reduce` with its workspace taken stream-ordered (cudaMallocAsync / cudaFreeAsync on `stream`).
template <class Shape = detail::use_default_shape, class InputIt, class T, class Init, class Op>
[[nodiscard]] cudaError_t reduce(InputIt d_in, T* d_out, std::size_t n, Init init, Op op, cudaStream_t stream = 0) {
  if constexpr (detail::reduce_requirements<InputIt, T, Init>::check()) {
    if (!detail::reduce_arguments_valid(d_in, d_out, n)) return cudaErrorInvalidValue;
    return detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return detail::reduce<Shape>(temp, bytes, size_query, d_in, d_out, n, init, op, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `reduce(..., T{}, plus{})`: the sum of the items in the output's type `T`.
template <class Shape = detail::use_default_shape, class InputIt, class T>
[[nodiscard]] cudaError_t sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                              std::size_t n, cudaStream_t stream = 0) {
  return reduce<Shape>(d_temp_storage, temp_storage_bytes, d_in, d_out, n, T{}, plus{}, stream);
}

/// `sum` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class InputIt, class T>
[[nodiscard]] cudaError_t sum(InputIt d_in, T* d_out, std::size_t n, cudaStream_t stream = 0) {
  return reduce<Shape>(d_in, d_out, n, T{}, plus{}, stream);
}

/// For each run of equal consecutive keys (numbered from 0 in input order): its key to
/// d_unique_out[r] and op over its values to d_aggregates_out[r]; the number of runs to
/// *d_num_runs_out. `op` needs associativity only (the values of a run fold in input order).
template <class Shape = detail::use_default_shape, class KeysIt, class UniqueIt, class ValuesIt, class AggregatesIt,
          class NumRunsIt, class Op>
[[nodiscard]] cudaError_t reduce_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeysIt d_keys_in,
                                        UniqueIt d_unique_out, ValuesIt d_values_in, AggregatesIt d_aggregates_out,
                                        NumRunsIt d_num_runs_out, std::size_t n, Op op, cudaStream_t stream = 0) {
  using v_t = detail::iterator_item_t<ValuesIt>;
  if constexpr (detail::by_key_requirements<KeysIt, ValuesIt, AggregatesIt, v_t>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    const cudaError_t e = detail::reduce_by_key<Shape>(d_temp_storage, temp_storage_bytes, size_query, d_keys_in,
                                                       d_unique_out, d_values_in, d_aggregates_out, d_num_runs_out,
                                                       n, op, stream);
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `reduce_by_key` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class KeysIt, class UniqueIt, class ValuesIt, class AggregatesIt,
          class NumRunsIt, class Op>
[[nodiscard]] cudaError_t reduce_by_key(KeysIt d_keys_in, UniqueIt d_unique_out, ValuesIt d_values_in,
                                        AggregatesIt d_aggregates_out, NumRunsIt d_num_runs_out, std::size_t n, Op op,
                                        cudaStream_t stream = 0) {
  using v_t = detail::iterator_item_t<ValuesIt>;
  if constexpr (detail::by_key_requirements<KeysIt, ValuesIt, AggregatesIt, v_t>::check()) {
    if (detail::is_null_iterator(d_num_runs_out) ||
        (n > 0 && (detail::is_null_iterator(d_keys_in) || detail::is_null_iterator(d_unique_out) ||
                   detail::is_null_iterator(d_values_in) || detail::is_null_iterator(d_aggregates_out)))) {
      return cudaErrorInvalidValue;
    }
    return detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return detail::reduce_by_key<Shape>(temp, bytes, size_query, d_keys_in, d_unique_out, d_values_in,
                                          d_aggregates_out, d_num_runs_out, n, op, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// d_out[s] = op(init, op over d_in[d_begin_offsets[s] .. d_end_offsets[s])) for every segment
/// s < num_segments (init where end <= begin); `op` associative and commutative, the accumulator
/// the type of init. Segments may leave gaps and come in any order; they must not overlap (the
/// offsets are device data: nothing checks them). Two launches for any mix of sizes
/// (device/segmented_reduce.cuh).
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class BeginOffsetIt,
          class EndOffsetIt, class T, class Op>
[[nodiscard]] cudaError_t segmented_reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                           OutputIt d_out, std::size_t num_segments, BeginOffsetIt d_begin_offsets,
                                           EndOffsetIt d_end_offsets, T init, Op op, cudaStream_t stream = 0) {
  if constexpr (detail::segmented_reduce_requirements<InputIt, OutputIt, BeginOffsetIt, EndOffsetIt, T>::check()) {
    const bool size_query = d_temp_storage == nullptr;
    const cudaError_t e = detail::segmented_reduce<Shape>(d_temp_storage, temp_storage_bytes, size_query, d_in, d_out,
                                                          num_segments, d_begin_offsets, d_end_offsets, init, op,
                                                          stream);
    if (e == cudaSuccess && size_query && temp_storage_bytes == 0) temp_storage_bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `segmented_reduce` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class BeginOffsetIt,
          class EndOffsetIt, class T, class Op>
[[nodiscard]] cudaError_t segmented_reduce(InputIt d_in, OutputIt d_out, std::size_t num_segments,
                                           BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets, T init, Op op,
                                           cudaStream_t stream = 0) {
  if constexpr (detail::segmented_reduce_requirements<InputIt, OutputIt, BeginOffsetIt, EndOffsetIt, T>::check()) {
    if (num_segments > 0 && (detail::is_null_iterator(d_in) || detail::is_null_iterator(d_out) ||
                             detail::is_null_iterator(d_begin_offsets) || detail::is_null_iterator(d_end_offsets))) {
      return cudaErrorInvalidValue;
    }
    return detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool size_query) {
      return detail::segmented_reduce<Shape>(temp, bytes, size_query, d_in, d_out, num_segments, d_begin_offsets,
                                             d_end_offsets, init, op, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `segmented_reduce(..., Acc{}, plus{})`, accumulated in the output's type for a raw pointer
/// output (as gpuprim::sum), else in the input's value type.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class BeginOffsetIt,
          class EndOffsetIt>
[[nodiscard]] cudaError_t segmented_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                        OutputIt d_out, std::size_t num_segments, BeginOffsetIt d_begin_offsets,
                                        EndOffsetIt d_end_offsets, cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<InputIt, OutputIt>;
  return segmented_reduce<Shape>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets,
                                 d_end_offsets, acc_t{}, plus{}, stream);
}

/// `segmented_sum` with its workspace taken stream-ordered.
template <class Shape = detail::use_default_shape, class InputIt, class OutputIt, class BeginOffsetIt,
          class EndOffsetIt>
[[nodiscard]] cudaError_t segmented_sum(InputIt d_in, OutputIt d_out, std::size_t num_segments,
                                        BeginOffsetIt d_begin_offsets, EndOffsetIt d_end_offsets,
                                        cudaStream_t stream = 0) {
  using acc_t = detail::sum_accumulator_t<InputIt, OutputIt>;
  return segmented_reduce<Shape>(d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, acc_t{}, plus{}, stream);
}

GPUPRIM_NAMESPACE_END
