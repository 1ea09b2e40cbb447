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

/// Two device buffers of n items each: `current()` holds the data, `alternate()` is the second
/// buffer a low-memory sort may overwrite. A sort sets it so that `current()` names the buffer
/// that holds the result (on the host, before the sort has run on the GPU).
template <class T>
class double_buffer {
 public:
  /// Both buffers null (a sort of 0 items may take it).
  double_buffer() = default;
  /// `current` holds the n items to sort; `alternate` is a second buffer of n items.
  double_buffer(T* current, T* alternate) : current_(current), alternate_(alternate) {}
  /// The buffer that holds the data (after a sort: its result).
  T* current() const { return current_; }
  /// The other buffer (after a sort: scratch whose contents are unspecified).
  T* alternate() const { return alternate_; }

 private:
  T* current_ = nullptr;
  T* alternate_ = nullptr;
};

namespace detail {

/// The workspace form of a sort: `run(temp, bytes, size_query)` (a size query when `temp ==
/// nullptr`, which never reports 0 bytes, so that a workspace of 0 bytes is always too small where
/// there is `work`).
template <class Key, class Value, class Run>
cudaError_t sort_workspace_form(void* temp, std::size_t& bytes, bool work, Run&& run) {
  if constexpr (radix_sort_requirements<Key, Value>::check()) {
    const bool size_query = temp == nullptr;
    if (!size_query && work && bytes == 0) return cudaErrorInvalidValue;
    const cudaError_t e = run(temp, bytes, size_query);
    if (e == cudaSuccess && size_query && bytes == 0) bytes = 1;
    return e;
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// The allocating form of a sort: the workspace taken stream-ordered, unless the arguments the host
/// can check are bad (`valid` false: cudaErrorInvalidValue, nothing allocated).
template <class Key, class Value, class Run>
cudaError_t sort_allocating_form(bool valid, cudaStream_t stream, Run&& run) {
  if constexpr (radix_sort_requirements<Key, Value>::check()) {
    if (!valid) return cudaErrorInvalidValue;
    return with_stream_ordered_workspace(stream, run);
  } else {
    return cudaErrorInvalidValue;
  }
}

/// The low-memory sorts' host step: sorts, then swaps the buffers where the result lies in the
/// alternates.
template <bool Descending, class Shape, class Key, class Value>
cudaError_t low_memory_sort(void* temp, std::size_t& bytes, bool size_query, double_buffer<Key>& keys,
                            double_buffer<Value>& values, std::size_t n, int begin_bit, int end_bit,
                            cudaStream_t stream) {
  bool alternate = false;
  const cudaError_t e = radix_sort_low_memory<Descending, Shape>(temp, bytes, size_query, keys.current(),
                                                                 keys.alternate(), values.current(),
                                                                 values.alternate(), n, begin_bit, end_bit, stream,
                                                                 alternate);
  if (e == cudaSuccess && !size_query && alternate) {
    keys = double_buffer<Key>(keys.alternate(), keys.current());
    values = double_buffer<Value>(values.alternate(), values.current());
  }
  return e;
}

template <class Key>
bool low_memory_keys_valid(const double_buffer<Key>& keys, std::size_t n) {
  return n == 0 || (keys.current() != nullptr && keys.alternate() != nullptr && keys.current() != keys.alternate());
}

template <class T>
using identity_t = typename std::enable_if<true, T>::type;

/// The segmented sorts' two forms (device/segmented_sort.cuh).
template <bool Descending, class Key, class Value, class BeginIt, class EndIt>
cudaError_t segmented_sort_workspace_form(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* keys_in,
                                          Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                                          std::size_t segments, BeginIt begin, EndIt end, int begin_bit, int end_bit,
                                          cudaStream_t stream) {
  if constexpr (segmented_sort_offsets_ok<BeginIt, EndIt>()) {
    return sort_workspace_form<Key, Value>(
        d_temp_storage, temp_storage_bytes, segments > 0 && n > 0, [&](void* temp, std::size_t& bytes, auto size_query) {
          return segmented_radix_sort<Descending>(temp, bytes, size_query, keys_in, keys_out, values_in, values_out,
                                                  n, segments, begin, end, begin_bit, end_bit, stream);
        });
  } else {
    return cudaErrorInvalidValue;  // not reached: the static_asserts stop the build
  }
}

template <bool Descending, class Key, class Value, class BeginIt, class EndIt>
cudaError_t segmented_sort_allocating_form(const Key* keys_in, Key* keys_out, const Value* values_in,
                                           Value* values_out, std::size_t n, std::size_t segments, BeginIt begin,
                                           EndIt end, int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (segmented_sort_offsets_ok<BeginIt, EndIt>()) {
    const bool valid = segmented_sort_arguments_valid(keys_in, keys_out, values_in, values_out, n, segments, begin,
                                                      end, begin_bit, end_bit);
    return sort_allocating_form<Key, Value>(valid, stream, [&](void* temp, std::size_t& bytes, auto size_query) {
      return segmented_radix_sort<Descending>(temp, bytes, size_query, keys_in, keys_out, values_in, values_out, n,
                                              segments, begin, end, begin_bit, end_bit, stream);
    });
  } else {
    return cudaErrorInvalidValue;
  }
}

}  // namespace detail

/// The sorts from a const input: one macro per family, the forms and directions as functions.
#define GPUPRIM_RADIX_SORT_KEYS(name, descending)                                                                 \
  template <class Shape = detail::use_default_shape, class Key>                                                  \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,    \
                                 Key* d_keys_out, std::size_t n, int begin_bit = 0, int end_bit = 8 * sizeof(Key), \
                                 cudaStream_t stream = 0) {                                                       \
    return detail::sort_workspace_form<Key, detail::no_values>(                                                  \
        d_temp_storage, temp_storage_bytes, n > 0, [&](void* temp, std::size_t& bytes, auto size_query) {         \
          return detail::radix_sort<descending, Shape>(temp, bytes, size_query, d_keys_in, d_keys_out,            \
                                                       static_cast<const detail::no_values*>(nullptr),            \
                                                       static_cast<detail::no_values*>(nullptr), n, begin_bit,    \
                                                       end_bit, stream);                                          \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key>                                                  \
  [[nodiscard]] cudaError_t name(const Key* d_keys_in, Key* d_keys_out, std::size_t n, int begin_bit = 0,        \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    return detail::sort_allocating_form<Key, detail::no_values>(                                                 \
        detail::radix_bits_valid<Key>(begin_bit, end_bit) && (n == 0 || (d_keys_in && d_keys_out)), stream,       \
        [&](void* temp, std::size_t& bytes, auto size_query) {                                                    \
          return detail::radix_sort<descending, Shape>(temp, bytes, size_query, d_keys_in, d_keys_out,            \
                                                       static_cast<const detail::no_values*>(nullptr),            \
                                                       static_cast<detail::no_values*>(nullptr), n, begin_bit,    \
                                                       end_bit, stream);                                          \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key>                                                  \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<Key>& keys, \
                                 std::size_t n, int begin_bit = 0, int end_bit = 8 * sizeof(Key),                \
                                 cudaStream_t stream = 0) {                                                       \
    double_buffer<detail::no_values> none;                                                                        \
    return detail::sort_workspace_form<Key, detail::no_values>(                                                  \
        d_temp_storage, temp_storage_bytes, n > 0, [&](void* temp, std::size_t& bytes, auto size_query) {         \
          return detail::low_memory_sort<descending, Shape>(temp, bytes, size_query, keys, none, n, begin_bit,    \
                                                            end_bit, stream);                                     \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key>                                                  \
  [[nodiscard]] cudaError_t name(double_buffer<Key>& keys, std::size_t n, int begin_bit = 0,                     \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    double_buffer<detail::no_values> none;                                                                        \
    return detail::sort_allocating_form<Key, detail::no_values>(                                                 \
        detail::radix_bits_valid<Key>(begin_bit, end_bit) && detail::low_memory_keys_valid(keys, n), stream,      \
        [&](void* temp, std::size_t& bytes, auto size_query) {                                                    \
          return detail::low_memory_sort<descending, Shape>(temp, bytes, size_query, keys, none, n, begin_bit,    \
                                                            end_bit, stream);                                     \
        });                                                                                                       \
  }

#define GPUPRIM_RADIX_SORT_PAIRS(name, descending)                                                                \
  template <class Shape = detail::use_default_shape, class Key, class Value>                                     \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,    \
                                 Key* d_keys_out, const Value* d_values_in, Value* d_values_out, std::size_t n,  \
                                 int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {    \
    return detail::sort_workspace_form<Key, Value>(                                                              \
        d_temp_storage, temp_storage_bytes, n > 0, [&](void* temp, std::size_t& bytes, auto size_query) {         \
          return detail::radix_sort<descending, Shape>(temp, bytes, size_query, d_keys_in, d_keys_out,            \
                                                       d_values_in, d_values_out, n, begin_bit, end_bit, stream); \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key, class Value>                                     \
  [[nodiscard]] cudaError_t name(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,                \
                                 Value* d_values_out, std::size_t n, int begin_bit = 0,                          \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    return detail::sort_allocating_form<Key, Value>(                                                             \
        detail::radix_bits_valid<Key>(begin_bit, end_bit) &&                                                      \
            detail::radix_pointers_valid(d_keys_in, d_keys_out, d_values_in, d_values_out, n),                    \
        stream, [&](void* temp, std::size_t& bytes, auto size_query) {                                            \
          return detail::radix_sort<descending, Shape>(temp, bytes, size_query, d_keys_in, d_keys_out,            \
                                                       d_values_in, d_values_out, n, begin_bit, end_bit, stream); \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key, class Value>                                     \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<Key>& keys, \
                                 double_buffer<Value>& values, std::size_t n, int begin_bit = 0,                 \
                                 int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {                       \
    return detail::sort_workspace_form<Key, Value>(                                                              \
        d_temp_storage, temp_storage_bytes, n > 0, [&](void* temp, std::size_t& bytes, auto size_query) {         \
          return detail::low_memory_sort<descending, Shape>(temp, bytes, size_query, keys, values, n, begin_bit,  \
                                                            end_bit, stream);                                     \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key, class Value>                                     \
  [[nodiscard]] cudaError_t name(double_buffer<Key>& keys, double_buffer<Value>& values, std::size_t n,          \
                                 int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {    \
    return detail::sort_allocating_form<Key, Value>(                                                             \
        detail::radix_bits_valid<Key>(begin_bit, end_bit) && detail::low_memory_keys_valid(keys, n) &&            \
            detail::low_memory_keys_valid(values, n),                                                             \
        stream, [&](void* temp, std::size_t& bytes, auto size_query) {                                            \
          return detail::low_memory_sort<descending, Shape>(temp, bytes, size_query, keys, values, n, begin_bit,  \
                                                            end_bit, stream);                                     \
        });                                                                                                       \
  }

#define GPUPRIM_RADIX_ARGSORT(name, descending)                                                                   \
  template <class Shape = detail::use_default_shape, class Key, class Index>                                     \
  [[nodiscard]] cudaError_t name(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,    \
                                 detail::identity_t<Key>* d_keys_out, Index* d_indices_out, std::size_t n,       \
                                 int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {    \
    return detail::sort_workspace_form<Key, Index>(                                                              \
        d_temp_storage, temp_storage_bytes, n > 0, [&](void* temp, std::size_t& bytes, auto size_query) {         \
          return detail::radix_argsort<descending, Shape>(temp, bytes, size_query, d_keys_in, d_keys_out,         \
                                                          d_indices_out, n, begin_bit, end_bit, stream);          \
        });                                                                                                       \
  }                                                                                                               \
  template <class Shape = detail::use_default_shape, class Key, class Index>                                     \
  [[nodiscard]] cudaError_t name(const Key* d_keys_in, detail::identity_t<Key>* d_keys_out, Index* d_indices_out, \
                                 std::size_t n, int begin_bit = 0, int end_bit = 8 * sizeof(Key),                \
                                 cudaStream_t stream = 0) {                                                       \
    return detail::sort_allocating_form<Key, Index>(                                                             \
        detail::radix_bits_valid<Key>(begin_bit, end_bit) && (n == 0 || (d_keys_in && d_indices_out)), stream,    \
        [&](void* temp, std::size_t& bytes, auto size_query) {                                                    \
          return detail::radix_argsort<descending, Shape>(temp, bytes, size_query, d_keys_in, d_keys_out,         \
                                                          d_indices_out, n, begin_bit, end_bit, stream);          \
        });                                                                                                       \
  }


/// radix_sort_keys: sorts n keys ascending into `d_keys_out` (stable; `d_keys_in` is left
/// untouched; the buffers must not overlap). Only bits [begin_bit, end_bit) of the bit-ordered key
/// take part (see docs/radix_sort.md: the order is cub::DeviceRadixSort's, -0.0 == +0.0); an empty
/// range is a stable copy. Workspace form: with `d_temp_storage == nullptr` only sets
/// `temp_storage_bytes`; the allocating form takes it stream-ordered (cudaMallocAsync /
/// cudaFreeAsync). `Shape` (optional, `gpuprim::shape<BlockThreads, ItemsPerThread>`): the tile of
/// the passes. Asynchronous on `stream`; graph-capturable. Bad arguments: cudaErrorInvalidValue,
/// no launch.
///
/// The low-memory forms take a `double_buffer<Key>& keys` in place of the two pointers: they sort
/// the n keys in `keys.current()`, overwriting either buffer, and on return `keys.current()` names
/// the buffer of the result. Their workspace holds no n-sized buffer (a few MB at 2^28 keys).
GPUPRIM_RADIX_SORT_KEYS(radix_sort_keys, false)
/// As `radix_sort_keys`, descending (equal keys keep their input order).
GPUPRIM_RADIX_SORT_KEYS(radix_sort_keys_descending, true)
/// radix_sort_pairs: sorts n (key, value) pairs ascending by key (stable): `d_values_out[i]` is the
/// value that came with `d_keys_out[i]`. Inputs untouched; outputs must not overlap inputs. Value:
/// any trivially copyable type. The low-memory forms take a `double_buffer<Value>& values` too,
/// swapped with the keys'. Otherwise as `radix_sort_keys`.
GPUPRIM_RADIX_SORT_PAIRS(radix_sort_pairs, false)
/// As `radix_sort_pairs`, descending by key (equal keys keep their input order).
GPUPRIM_RADIX_SORT_PAIRS(radix_sort_pairs_descending, true)
/// radix_argsort: `d_indices_out[i]` is the input position of the i-th smallest key (stable), the
/// indices made as the first pass reads the keys (no index array is read). `Index`: `uint32_t` or
/// `uint64_t` (n - 1 must fit). `d_keys_out` receives the sorted keys, or is nullptr (a literal
/// nullptr too): then only the permutation is written. Otherwise as `radix_sort_keys`.
GPUPRIM_RADIX_ARGSORT(radix_argsort, false)
/// As `radix_argsort`, descending (equal keys keep their input order).
GPUPRIM_RADIX_ARGSORT(radix_argsort_descending, true)

#undef GPUPRIM_RADIX_SORT_KEYS
#undef GPUPRIM_RADIX_SORT_PAIRS
#undef GPUPRIM_RADIX_ARGSORT

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
