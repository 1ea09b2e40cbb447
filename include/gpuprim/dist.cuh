// Across the GPUs of a node through NCCL (host API): reduce, scan and radix sort of a sequence held
// in slices, one slice a rank (rank order is sequence order). Needs NCCL: CMake target
// gpuprim::dist. The algorithms: docs/dist.md; the sort's partition: device/dist_partition.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "device/dist_partition.cuh"
#include "radix_sort.cuh"
#include "reduce.cuh"
#include "scan.cuh"

GPUPRIM_NAMESPACE_BEGIN
/// Reduce, scan and radix sort across the ranks of an NCCL communicator (`<gpuprim/dist.cuh>`,
/// target gpuprim::dist).
namespace dist {

/// NCCL's failures come back from gpuprim::dist as `static_cast<cudaError_t>(nccl_error_base + r)`
/// for the ncclResult_t `r`, beside the CUDA runtime's own codes (all below it).
inline constexpr int nccl_error_base = 0x10000;

/// The code gpuprim::dist returns for an NCCL result: cudaSuccess for ncclSuccess.
[[nodiscard]] inline cudaError_t from_nccl(ncclResult_t result) noexcept {
  return result == ncclSuccess ? cudaSuccess : static_cast<cudaError_t>(nccl_error_base + static_cast<int>(result));
}

/// Whether a code returned by gpuprim::dist carries an NCCL failure.
[[nodiscard]] inline bool is_nccl_error(cudaError_t e) noexcept {
  return static_cast<int>(e) > nccl_error_base && static_cast<int>(e) < nccl_error_base + ncclNumResults;
}

/// The NCCL result a code carries (ncclSuccess for a CUDA code).
[[nodiscard]] inline ncclResult_t nccl_result(cudaError_t e) noexcept {
  return is_nccl_error(e) ? static_cast<ncclResult_t>(static_cast<int>(e) - nccl_error_base) : ncclSuccess;
}

/// A description of any code gpuprim::dist returns: NCCL's (ncclGetErrorString) for NCCL
/// failures, else the CUDA runtime's (cudaGetErrorString). `last_nccl_error` gives NCCL's message.
[[nodiscard]] inline const char* error_string(cudaError_t e) noexcept {
  return is_nccl_error(e) ? ncclGetErrorString(nccl_result(e)) : cudaGetErrorString(e);
}

/// NCCL's message for the last failure on `comm` (ncclGetLastError): what went wrong, where an
/// NCCL code says only which kind of failure.
[[nodiscard]] inline const char* last_nccl_error(ncclComm_t comm) noexcept { return ncclGetLastError(comm); }

namespace detail {
using namespace ::gpuprim::detail;

/// The communicator's size and this rank.
struct rank_info {
  int ranks = 1;
  int rank = 0;
};

inline cudaError_t get_rank_info(ncclComm_t comm, rank_info& info) {
  if (comm == nullptr) return cudaErrorInvalidValue;
  cudaError_t e = from_nccl(ncclCommCount(comm, &info.ranks));
  if (e == cudaSuccess) e = from_nccl(ncclCommUserRank(comm, &info.rank));
  return e;
}

/// A rank's reduction of its slice, gathered from every rank: `has` is 0 for an empty slice.
template <class T>
struct rank_partial {
  T value;
  unsigned has;
};

/// The output the local reduce writes: the value, and `has` set.
template <class T>
struct rank_partial_out {
  rank_partial<T>* slot;
  struct proxy {
    rank_partial<T>* slot;
    GPUPRIM_DEVICE proxy& operator=(const T& v) {
      slot->value = v;
      slot->has = 1u;
      return *this;
    }
  };
  GPUPRIM_HOST_DEVICE proxy operator*() const { return {slot}; }
};

/// The init of a rank's local reduce: its last item, read on the device where the reduce uses it
/// (the reduce runs over the items before it, from the slice's own start, so that a raw pointer
/// keeps its alignment), so that the slice is reduced without an init. The reduce's operator is
/// commutative, so the last item may come first.
template <class InputIt, class T>
struct item_init {
  using deferred_type = T;
  InputIt at;
  GPUPRIM_DEVICE explicit operator T() const { return static_cast<T>(*at); }
};

/// The output of a rank's ordered reduction for the scans (an inclusive scan, whose operator need
/// not commute): only its last result is kept, as the partial.
template <class T>
struct rank_total_out {
  rank_partial<T>* slot;
  std::size_t last;
  struct proxy {
    rank_partial<T>* slot;
    bool keep;
    GPUPRIM_DEVICE proxy& operator=(const T& v) {
      if (keep) {
        slot->value = v;
        slot->has = 1u;
      }
      return *this;
    }
  };
  GPUPRIM_HOST_DEVICE proxy operator[](std::size_t i) const { return {slot, i == last}; }
  GPUPRIM_HOST_DEVICE proxy operator*() const { return {slot, last == 0}; }
};

/// This rank's slice reduced without an init into `*mine`: by the reduce (`Ordered` false: `op`
/// commutes) or by an inclusive scan that keeps its last result (`Ordered`: the scans' operators
/// need only associate). With `size_query`, only `bytes`.
template <bool Ordered, class AccT, class InputIt, class Op>
cudaError_t local_partial(void* temp, std::size_t& bytes, bool size_query, InputIt in, std::size_t n, Op op,
                          rank_partial<AccT>* mine, cudaStream_t stream) {
  const std::size_t m = n > 0 ? n - 1 : 0;
  if constexpr (Ordered) {
    return ::gpuprim::detail::scan<AccT, use_default_shape>(temp, bytes, size_query, in, rank_total_out<AccT>{mine, m},
                                                            n, no_init{}, op, stream);
  } else {
    return ::gpuprim::detail::reduce<use_default_shape>(temp, bytes, size_query, in, rank_partial_out<AccT>{mine}, m,
                                                        item_init<InputIt, AccT>{in + m}, op, stream);
  }
}

/// The init of a rank's local exclusive scan: its prefix, which the fold kernel left on the device.
template <class T>
struct rank_prefix {
  const rank_partial<T>* prefix;
  GPUPRIM_DEVICE explicit operator T() const { return prefix->value; }
};

/// The input of a rank's local inclusive scan: the items, the first one after the ranks before
/// (when any of them has items).
template <class InputIt, class T, class Op>
struct seeded_input {
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = T;
  using iterator_category = std::random_access_iterator_tag;
  InputIt in;
  const rank_partial<T>* seed;
  Op op;
  difference_type offset = 0;

  GPUPRIM_DEVICE T operator[](difference_type i) const {
    const difference_type at = offset + i;
    const T x = static_cast<T>(in[at]);
    return at == 0 && seed->has ? static_cast<T>(op(seed->value, x)) : x;
  }
  GPUPRIM_DEVICE T operator*() const { return (*this)[0]; }
  GPUPRIM_HOST_DEVICE seeded_input operator+(difference_type k) const {
    seeded_input s = *this;
    s.offset += k;
    return s;
  }
};

/// Folds the partials of ranks [0, count) in rank order after `start` (when `start.has`): into
/// `*value` (when not null) and `*partial` (when not null). One thread.
template <class T, class Op>
__global__ void fold_partials_kernel(const rank_partial<T>* partials, int count, rank_partial<T> start, Op op,
                                     T* value, rank_partial<T>* partial) {
  rank_partial<T> acc = start;
  for (int q = 0; q < count; ++q) {
    if (partials[q].has == 0) continue;
    acc.value = acc.has ? static_cast<T>(op(acc.value, partials[q].value)) : partials[q].value;
    acc.has = 1u;
  }
  if (value != nullptr) *value = acc.value;
  if (partial != nullptr) *partial = acc;
}

template <class T>
void require_dist_accumulator() {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "gpuprim::dist: the accumulator type must be trivially copyable and default-constructible "
                "(the ranks exchange it as bytes)");
}

/// The reduce and the scans start alike: this rank's slice reduced without an init into
/// partials[rank] (nothing for an empty slice: `has` 0), then every rank's partial gathered.
/// `local` is the local algorithm's workspace part.
template <bool Ordered, class AccT, class InputIt, class Op>
cudaError_t partials_gathered(void* local, std::size_t local_bytes, InputIt in, std::size_t n, Op op,
                              rank_partial<AccT>* partials, const rank_info& info, ncclComm_t comm,
                              cudaStream_t stream) {
  rank_partial<AccT>* mine = partials + info.rank;
  cudaError_t e = cudaSuccess;
  if (n == 0) {
    e = cudaMemsetAsync(mine, 0, sizeof(rank_partial<AccT>), stream);
  } else {
    std::size_t bytes = local_bytes;
    e = local_partial<Ordered>(local, bytes, false, in, n, op, mine, stream);
  }
  if (e != cudaSuccess) return e;
  return from_nccl(ncclAllGather(mine, partials, sizeof(rank_partial<AccT>), ncclUint8, comm, stream));
}

/// The workspace of the reduce and the scans: every rank's partial, a prefix, the local part.
inline workspace_layout<3> partials_layout(int ranks, std::size_t partial_bytes, std::size_t local_bytes) {
  workspace_layout<3> layout;
  layout.part_bytes[0] = std::size_t(ranks) * partial_bytes;
  layout.part_bytes[1] = partial_bytes;
  layout.part_bytes[2] = local_bytes;
  return layout;
}

/// dist::reduce: local reduce (from the slice's start, its last item as the init), gather of the partials, fold in rank order on every rank.
template <class AccT, class InputIt, class Op>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, AccT* out, std::size_t n,
                   AccT init, Op op, ncclComm_t comm, cudaStream_t stream) {
  require_dist_accumulator<AccT>();
  rank_info info;
  cudaError_t e = get_rank_info(comm, info);
  if (e != cudaSuccess) return e;
  std::size_t local_bytes = 0;
  e = local_partial<false, AccT>(nullptr, local_bytes, true, in, n, op, static_cast<rank_partial<AccT>*>(nullptr),
                                 stream);
  if (e != cudaSuccess) return e;
  const workspace_layout<3> layout = partials_layout(info.ranks, sizeof(rank_partial<AccT>), local_bytes);
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  if (out == nullptr || (n > 0 && is_null_iterator(in))) return cudaErrorInvalidValue;
  void* parts[3];
  e = layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  auto* partials = static_cast<rank_partial<AccT>*>(parts[0]);
  e = partials_gathered<false>(parts[2], local_bytes, in, n, op, partials, info, comm, stream);
  if (e != cudaSuccess) return e;
  return launch(fold_partials_kernel<AccT, Op>, 1, 1, stream, launch_mode::plain, partials, info.ranks,
                rank_partial<AccT>{init, 1u}, op, out, static_cast<rank_partial<AccT>*>(nullptr));
}

/// dist scans: the slice's reduction (the reduce where the operator commutes, as the streaming
/// scan's reducer assumes; else an inclusive scan keeping its last result: 1811 against 575 us for
/// the local exclusive_sum of 2^28 i32 on one H200, 2026-12-03), gather, this rank's prefix (the
/// fold of the ranks before it), local scan from it. `Exclusive`: with `init`; else the inclusive
/// scan (init unused).
template <bool Exclusive, class AccT, class InputIt, class OutputIt, class Op>
cudaError_t scan(void* temp, std::size_t& temp_bytes, bool size_query, InputIt in, OutputIt out, std::size_t n,
                 AccT init, Op op, ncclComm_t comm, cudaStream_t stream) {
  require_dist_accumulator<AccT>();
  using seeded_t = seeded_input<InputIt, AccT, Op>;
  constexpr bool ordered = !::gpuprim::detail::streaming_scan_reorders<Op, AccT>;
  rank_info info;
  cudaError_t e = get_rank_info(comm, info);
  if (e != cudaSuccess) return e;
  std::size_t reduce_bytes = 0;
  std::size_t scan_bytes = 0;
  e = local_partial<ordered, AccT>(nullptr, reduce_bytes, true, in, n, op, static_cast<rank_partial<AccT>*>(nullptr),
                                   stream);
  if (e == cudaSuccess) {
    if constexpr (Exclusive) {
      e = ::gpuprim::detail::scan<AccT, use_default_shape>(nullptr, scan_bytes, true, in, out, n,
                                                           rank_prefix<AccT>{nullptr}, op, stream);
    } else {
      std::size_t plain = 0;
      e = ::gpuprim::detail::scan<AccT, use_default_shape>(nullptr, plain, true, in, out, n, no_init{}, op, stream);
      if (e == cudaSuccess) {
        e = ::gpuprim::detail::scan<AccT, use_default_shape>(nullptr, scan_bytes, true, seeded_t{in, nullptr, op},
                                                             out, n, no_init{}, op, stream);
      }
      if (plain > scan_bytes) scan_bytes = plain;
    }
  }
  if (e != cudaSuccess) return e;
  const std::size_t local_bytes = reduce_bytes > scan_bytes ? reduce_bytes : scan_bytes;
  const workspace_layout<3> layout = partials_layout(info.ranks, sizeof(rank_partial<AccT>), local_bytes);
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  if (!scan_arguments_valid(in, out, n)) return cudaErrorInvalidValue;
  void* parts[3];
  e = layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  auto* partials = static_cast<rank_partial<AccT>*>(parts[0]);
  auto* prefix = static_cast<rank_partial<AccT>*>(parts[1]);
  e = partials_gathered<ordered>(parts[2], local_bytes, in, n, op, partials, info, comm, stream);
  if (e != cudaSuccess) return e;
  // The prefix: init (exclusive) and the ranks before this one, in rank order.
  rank_partial<AccT> start{};
  if constexpr (Exclusive) start = rank_partial<AccT>{init, 1u};
  e = launch(fold_partials_kernel<AccT, Op>, 1, 1, stream, launch_mode::plain, partials, info.rank, start, op,
             static_cast<AccT*>(nullptr), prefix);
  if (e != cudaSuccess || n == 0) return e;
  std::size_t bytes = local_bytes;
  if constexpr (Exclusive) {
    return ::gpuprim::detail::scan<AccT, use_default_shape>(parts[2], bytes, false, in, out, n,
                                                            rank_prefix<AccT>{prefix}, op, stream);
  } else {
    // Rank 0 has nothing before it: its plain scan reads the input as vectors, as any scan.
    if (info.rank == 0) {
      return ::gpuprim::detail::scan<AccT, use_default_shape>(parts[2], bytes, false, in, out, n, no_init{}, op,
                                                              stream);
    }
    return ::gpuprim::detail::scan<AccT, use_default_shape>(parts[2], bytes, false, seeded_t{in, prefix, op}, out,
                                                            n, no_init{}, op, stream);
  }
}

/// The low-memory local sort of the n items in `keys` (and `values`), ascending or descending.
template <bool Descending, class Key, class Value>
cudaError_t local_sort(void* temp, std::size_t& bytes, bool size_query, double_buffer<Key>& keys,
                       double_buffer<Value>& values, std::size_t n, int begin_bit, int end_bit, cudaStream_t stream) {
  return ::gpuprim::detail::low_memory_sort<Descending, use_default_shape>(temp, bytes, size_query, keys, values, n,
                                                                          begin_bit, end_bit, stream);
}

/// The sort's control words: every rank's count, the boundaries' prefixes, the search's counts
/// (two buffers, a round's and the previous round's), the table of keys below and equal to each
/// boundary, every rank's splits. All std::uint64_t.
struct sort_control {
  std::size_t counts, prefixes, below0, below1, table, splits, words;
  explicit sort_control(int ranks) {
    const std::size_t p = std::size_t(ranks);
    const std::size_t b = p > 1 ? p - 1 : 1;
    counts = 0;
    prefixes = counts + p;
    below0 = prefixes + b;
    below1 = below0 + b * dist_digits;
    table = below1 + b * dist_digits;
    splits = table + p * 2 * b;
    words = splits + p * (p + 1);
  }
};

/// `count` items of `T` from `from` to `to` on the stream (nothing for 0).
template <class T>
cudaError_t copy_items(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count == 0 || to == from) return cudaSuccess;
  return cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToDevice, stream);
}

/// Sends this rank's sorted slices to their ranks and receives its own, in rank order (its own
/// part by a copy), keys and values alike.
template <class T>
void exchange_items(const T* sorted, T* received, const dist_exchange& x, const rank_info& info, ncclComm_t comm,
                    cudaStream_t stream, cudaError_t& e) {
  for (int q = 0; q < info.ranks && e == cudaSuccess; ++q) {
    if (q == info.rank) continue;
    if (x.send_count[q] > 0) {
      e = from_nccl(ncclSend(sorted + x.send_offset[q], x.send_count[q] * sizeof(T), ncclUint8, q, comm, stream));
    }
    if (e == cudaSuccess && x.recv_count[q] > 0) {
      e = from_nccl(ncclRecv(received + x.recv_offset[q], x.recv_count[q] * sizeof(T), ncclUint8, q, comm, stream));
    }
  }
}

template <class Key, class Value>
bool sort_arguments_valid(const Key* keys_in, const Key* keys_out, const Value* values_in, const Value* values_out,
                          std::size_t n, int begin_bit, int end_bit) {
  return radix_bits_valid<Key>(begin_bit, end_bit) && radix_pointers_valid(keys_in, keys_out, values_in, values_out, n);
}

/// dist sorts: the local sort, the boundary search (rounds of binary searches and all-reduces),
/// the splits gathered and copied to the host (the call waits for them here), one exchange, the
/// local sort of what arrived. `Value` is no_values for the keys-only sorts.
template <bool Descending, class Key, class Value>
cudaError_t sort(void* temp, std::size_t& temp_bytes, bool size_query, const Key* keys_in, Key* keys_out,
                 const Value* values_in, Value* values_out, std::size_t n, ncclComm_t comm, int begin_bit,
                 int end_bit, cudaStream_t stream) {
  constexpr bool pairs = !std::is_same_v<Value, no_values>;
  rank_info info;
  cudaError_t e = get_rank_info(comm, info);
  if (e != cudaSuccess) return e;
  double_buffer<Key> keys;
  double_buffer<Value> values;
  std::size_t sort_bytes = 0;
  e = local_sort<Descending>(nullptr, sort_bytes, true, keys, values, n, begin_bit, end_bit, stream);
  if (e != cudaSuccess) return e;
  const sort_control control(info.ranks);
  workspace_layout<4> layout;
  layout.part_bytes[0] = n * sizeof(Key);  // the local sorts' second buffers, which receive the exchange
  if constexpr (pairs) layout.part_bytes[1] = n * sizeof(Value);
  layout.part_bytes[2] = control.words * sizeof(std::uint64_t);
  layout.part_bytes[3] = sort_bytes;
  if (size_query) {
    temp_bytes = layout.bytes();
    return cudaSuccess;
  }
  if (!sort_arguments_valid(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit)) {
    return cudaErrorInvalidValue;
  }
  void* parts[4];
  e = layout.carve(temp, temp_bytes, parts);
  if (e != cudaSuccess) return e;
  auto* words = static_cast<std::uint64_t*>(parts[2]);
  auto* second_keys = static_cast<Key*>(parts[0]);
  auto* second_values = static_cast<Value*>(parts[1]);

  // The local sort, in place in the outputs (the inputs stay untouched).
  e = copy_items(keys_out, keys_in, n, stream);
  if (e == cudaSuccess && pairs) e = copy_items(values_out, values_in, n, stream);
  keys = double_buffer<Key>(keys_out, second_keys);
  values = double_buffer<Value>(values_out, second_values);
  std::size_t bytes = sort_bytes;
  if (e == cudaSuccess) e = local_sort<Descending>(parts[3], bytes, false, keys, values, n, begin_bit, end_bit, stream);
  if (e != cudaSuccess || info.ranks == 1) {
    if (e == cudaSuccess) e = copy_items(keys_out, keys.current(), n, stream);
    if (e == cudaSuccess && pairs) e = copy_items(values_out, values.current(), n, stream);
    return e;
  }

  // Every rank's count, then the boundaries: rounds of counts below the candidate digits.
  const int p = info.ranks;
  const dist_sort_key<Key> order{begin_bit, end_bit - begin_bit, Descending};
  e = launch(dist_store_kernel<std::uint64_t>, 1, 1, stream, launch_mode::plain, words + control.counts + info.rank,
             std::uint64_t(n));
  if (e == cudaSuccess) {
    e = from_nccl(ncclAllGather(words + control.counts + info.rank, words + control.counts, 1, ncclUint64, comm,
                                stream));
  }
  const int rounds = dist_rounds(order.width);
  const Key* sorted = keys.current();
  std::uint64_t* below[2] = {words + control.below0, words + control.below1};
  for (int round = 0; round < rounds && e == cudaSuccess; ++round) {
    std::uint64_t* out = below[round % 2];
    e = launch(dist_search_kernel<Key>, unsigned(p - 1), unsigned(dist_digits), stream, launch_mode::plain, sorted, n,
               order, static_cast<const std::uint64_t*>(words + control.counts), words + control.prefixes,
               static_cast<const std::uint64_t*>(below[(round + 1) % 2]), out, round);
    if (e == cudaSuccess) {
      e = from_nccl(ncclAllReduce(out, out, std::size_t(p - 1) * dist_digits, ncclUint64, ncclSum, comm, stream));
    }
  }
  // This rank's keys below and equal to each boundary key, gathered; then its splits, gathered.
  const std::size_t stride = 2 * std::size_t(p - 1);
  std::uint64_t* table_row = words + control.table + std::size_t(info.rank) * stride;
  std::uint64_t* split_row = words + control.splits + std::size_t(info.rank) * (p + 1);
  if (e == cudaSuccess) {
    e = launch(dist_boundary_kernel<Key>, unsigned((p - 1 + 255) / 256), 256u, stream, launch_mode::plain, sorted,
               n, order, static_cast<const std::uint64_t*>(words + control.counts), p,
               static_cast<const std::uint64_t*>(words + control.prefixes),
               static_cast<const std::uint64_t*>(below[(rounds + 1) % 2]), rounds, table_row);
  }
  if (e == cudaSuccess) {
    e = from_nccl(ncclAllGather(table_row, words + control.table, stride, ncclUint64, comm, stream));
  }
  if (e == cudaSuccess) {
    e = launch(dist_split_kernel<std::uint64_t>, unsigned((p + 1 + 255) / 256), 256u, stream, launch_mode::plain,
               static_cast<const std::uint64_t*>(words + control.table),
               static_cast<const std::uint64_t*>(words + control.counts), p, info.rank, split_row);
  }
  if (e == cudaSuccess) {
    e = from_nccl(ncclAllGather(split_row, words + control.splits, std::size_t(p) + 1, ncclUint64, comm, stream));
  }
  // The sizes of NCCL's sends are host values: the host waits for the splits.
  std::vector<std::uint64_t> splits(std::size_t(p) * (p + 1));
  if (e == cudaSuccess) {
    e = cudaMemcpyAsync(splits.data(), words + control.splits, splits.size() * sizeof(std::uint64_t),
                        cudaMemcpyDeviceToHost, stream);
  }
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return e;
  const dist_exchange x = make_dist_exchange(splits, p, info.rank);

  // One exchange into the other buffers, its own part copied; then the local sort of what arrived
  // (this rank's n items, in rank order: the sort's stability keeps equal keys in rank order).
  Key* received_keys = keys.alternate();
  Value* received_values = values.alternate();
  e = copy_items(received_keys + x.recv_offset[info.rank], sorted + x.send_offset[info.rank],
                 x.send_count[info.rank], stream);
  if (e == cudaSuccess && pairs) {
    e = copy_items(received_values + x.recv_offset[info.rank], values.current() + x.send_offset[info.rank],
                   x.send_count[info.rank], stream);
  }
  if (e != cudaSuccess) return e;
  e = from_nccl(ncclGroupStart());
  if (e != cudaSuccess) return e;
  exchange_items(sorted, received_keys, x, info, comm, stream, e);
  if (pairs) exchange_items(values.current(), received_values, x, info, comm, stream, e);
  const cudaError_t ended = from_nccl(ncclGroupEnd());
  if (e == cudaSuccess) e = ended;
  if (e != cudaSuccess) return e;
  keys = double_buffer<Key>(received_keys, keys.current());
  values = double_buffer<Value>(received_values, values.current());
  bytes = sort_bytes;
  e = local_sort<Descending>(parts[3], bytes, false, keys, values, n, begin_bit, end_bit, stream);
  if (e == cudaSuccess) e = copy_items(keys_out, keys.current(), n, stream);
  if (e == cudaSuccess && pairs) e = copy_items(values_out, values.current(), n, stream);
  return e;
}

/// The workspace form of every dist algorithm: `run(temp, bytes, size_query)`; a size query never
/// reports 0 bytes.
template <class Run>
cudaError_t workspace_form(void* temp, std::size_t& bytes, Run&& run) {
  const bool size_query = temp == nullptr;
  const cudaError_t e = run(temp, bytes, size_query);
  if (e == cudaSuccess && size_query && bytes == 0) bytes = 1;
  return e;
}

/// The keys-only sorts' values: none.
inline constexpr const no_values* no_values_in = nullptr;
inline constexpr no_values* no_values_out = nullptr;

/// The sorts' workspace form.
template <bool Descending, class Key, class Value>
cudaError_t sort_workspace_form(void* temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                                const Value* values_in, Value* values_out, std::size_t n, ncclComm_t comm,
                                int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (radix_sort_requirements<Key, Value>::check()) {
    return workspace_form(temp, temp_bytes, [&](void* t, std::size_t& bytes, bool size_query) {
      return sort<Descending>(t, bytes, size_query, keys_in, keys_out, values_in, values_out, n, comm, begin_bit,
                              end_bit, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// The sorts' allocating form: bad arguments are refused before anything is allocated.
template <bool Descending, class Key, class Value>
cudaError_t sort_allocating_form(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                                 std::size_t n, ncclComm_t comm, int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (radix_sort_requirements<Key, Value>::check()) {
    if (comm == nullptr || !sort_arguments_valid(keys_in, keys_out, values_in, values_out, n, begin_bit, end_bit)) {
      return cudaErrorInvalidValue;
    }
    return with_stream_ordered_workspace(stream, [&](void* t, std::size_t& bytes, bool size_query) {
      return sort<Descending>(t, bytes, size_query, keys_in, keys_out, values_in, values_out, n, comm, begin_bit,
                              end_bit, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

}  // namespace detail

/// Writes to `*d_out`, on every rank, `op(init, ...)` over every rank's `n` items (its slice of
/// the global sequence), accumulated in `T`: each rank reduces its slice, the ranks gather the
/// partials (one all-gather of a few bytes) and fold them in rank order, so every rank gets the
/// same bits, run after run, for the same slices. `op` associative and commutative, as for
/// gpuprim::reduce; `T` trivially copyable. Every rank calls it together (`comm`'s ranks);
/// asynchronous on `stream`. Workspace form: with `d_temp_storage == nullptr` only sets
/// `temp_storage_bytes`.
template <class InputIt, class T, class Op>
[[nodiscard]] cudaError_t reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                                 std::size_t n, T init, Op op, ncclComm_t comm, cudaStream_t stream = 0) {
  if constexpr (::gpuprim::detail::reduce_requirements<InputIt, T, T>::check()) {
    return detail::workspace_form(d_temp_storage, temp_storage_bytes, [&](void* temp, std::size_t& bytes, bool q) {
      return detail::reduce(temp, bytes, q, d_in, d_out, n, init, op, comm, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `dist::reduce` with its workspace taken stream-ordered (cudaMallocAsync / cudaFreeAsync).
template <class InputIt, class T, class Op>
[[nodiscard]] cudaError_t reduce(InputIt d_in, T* d_out, std::size_t n, T init, Op op, ncclComm_t comm,
                                 cudaStream_t stream = 0) {
  if constexpr (::gpuprim::detail::reduce_requirements<InputIt, T, T>::check()) {
    if (d_out == nullptr || (n > 0 && ::gpuprim::detail::is_null_iterator(d_in)) || comm == nullptr) {
      return cudaErrorInvalidValue;
    }
    return ::gpuprim::detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool q) {
      return detail::reduce(temp, bytes, q, d_in, d_out, n, init, op, comm, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `dist::reduce(..., T{}, plus{}, ...)`: the sum over every rank's items, on every rank.
template <class InputIt, class T>
[[nodiscard]] cudaError_t sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                              std::size_t n, ncclComm_t comm, cudaStream_t stream = 0) {
  return dist::reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, n, T{}, plus{}, comm, stream);
}

/// `dist::sum` with its workspace taken stream-ordered.
template <class InputIt, class T>
[[nodiscard]] cudaError_t sum(InputIt d_in, T* d_out, std::size_t n, ncclComm_t comm, cudaStream_t stream = 0) {
  return dist::reduce(d_in, d_out, n, T{}, plus{}, comm, stream);
}

/// The exclusive scan of the global sequence, each rank's slice in place of its output: rank r's
/// `d_out[i]` is `init` op every item of the ranks before r op its own items before i. Each rank
/// reduces its slice, the partials are gathered (a few bytes) and each rank scans its slice from
/// its prefix. `op` associative (not necessarily commutative); `T` trivially copyable and
/// default-constructible. In place is fine. Workspace form as for `dist::reduce`.
template <class InputIt, class OutputIt, class T, class Op>
[[nodiscard]] cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                         OutputIt d_out, std::size_t n, T init, Op op, ncclComm_t comm,
                                         cudaStream_t stream = 0) {
  if constexpr (::gpuprim::detail::scan_requirements<InputIt, OutputIt, T>::check()) {
    return detail::workspace_form(d_temp_storage, temp_storage_bytes, [&](void* temp, std::size_t& bytes, bool q) {
      return detail::scan<true>(temp, bytes, q, d_in, d_out, n, init, op, comm, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `dist::exclusive_scan` with its workspace taken stream-ordered.
template <class InputIt, class OutputIt, class T, class Op>
[[nodiscard]] cudaError_t exclusive_scan(InputIt d_in, OutputIt d_out, std::size_t n, T init, Op op,
                                         ncclComm_t comm, cudaStream_t stream = 0) {
  if constexpr (::gpuprim::detail::scan_requirements<InputIt, OutputIt, T>::check()) {
    if (!::gpuprim::detail::scan_arguments_valid(d_in, d_out, n) || comm == nullptr) return cudaErrorInvalidValue;
    return ::gpuprim::detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool q) {
      return detail::scan<true>(temp, bytes, q, d_in, d_out, n, init, op, comm, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// The inclusive scan of the global sequence, accumulated in the input's value type: rank r's
/// `d_out[i]` is every item of the ranks before r op its own items through i. Ranks after the first
/// read their first item through an iterator that folds in the ranks before (not as vectors).
/// Otherwise as `dist::exclusive_scan`.
template <class InputIt, class OutputIt, class Op>
[[nodiscard]] cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                         OutputIt d_out, std::size_t n, Op op, ncclComm_t comm,
                                         cudaStream_t stream = 0) {
  using acc_t = std::remove_cv_t<::gpuprim::detail::iterator_value_t<InputIt>>;
  if constexpr (::gpuprim::detail::scan_requirements<InputIt, OutputIt, acc_t>::check()) {
    return detail::workspace_form(d_temp_storage, temp_storage_bytes, [&](void* temp, std::size_t& bytes, bool q) {
      return detail::scan<false>(temp, bytes, q, d_in, d_out, n, acc_t{}, op, comm, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `dist::inclusive_scan` with its workspace taken stream-ordered.
template <class InputIt, class OutputIt, class Op>
[[nodiscard]] cudaError_t inclusive_scan(InputIt d_in, OutputIt d_out, std::size_t n, Op op, ncclComm_t comm,
                                         cudaStream_t stream = 0) {
  using acc_t = std::remove_cv_t<::gpuprim::detail::iterator_value_t<InputIt>>;
  if constexpr (::gpuprim::detail::scan_requirements<InputIt, OutputIt, acc_t>::check()) {
    if (!::gpuprim::detail::scan_arguments_valid(d_in, d_out, n) || comm == nullptr) return cudaErrorInvalidValue;
    return ::gpuprim::detail::with_stream_ordered_workspace(stream, [&](void* temp, std::size_t& bytes, bool q) {
      return detail::scan<false>(temp, bytes, q, d_in, d_out, n, acc_t{}, op, comm, stream);
    });
  } else {
    return cudaErrorInvalidValue;  // not reached: the requirements' static_asserts stop the build
  }
}

/// `dist::exclusive_scan` with `plus` from zero, accumulated as gpuprim::exclusive_sum does (the
/// output's type for a raw pointer, else the input's value type).
template <class InputIt, class OutputIt>
[[nodiscard]] cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                        OutputIt d_out, std::size_t n, ncclComm_t comm, cudaStream_t stream = 0) {
  using acc_t = ::gpuprim::detail::sum_accumulator_t<InputIt, OutputIt>;
  return dist::exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, n, acc_t{}, plus{}, comm, stream);
}

/// `dist::exclusive_sum` with its workspace taken stream-ordered.
template <class InputIt, class OutputIt>
[[nodiscard]] cudaError_t exclusive_sum(InputIt d_in, OutputIt d_out, std::size_t n, ncclComm_t comm,
                                        cudaStream_t stream = 0) {
  using acc_t = ::gpuprim::detail::sum_accumulator_t<InputIt, OutputIt>;
  return dist::exclusive_scan(d_in, d_out, n, acc_t{}, plus{}, comm, stream);
}

/// `dist::inclusive_scan` with `plus` (accumulated in the input's value type).
template <class InputIt, class OutputIt>
[[nodiscard]] cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                        OutputIt d_out, std::size_t n, ncclComm_t comm, cudaStream_t stream = 0) {
  return dist::inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, n, plus{}, comm, stream);
}

/// `dist::inclusive_sum` with its workspace taken stream-ordered.
template <class InputIt, class OutputIt>
[[nodiscard]] cudaError_t inclusive_sum(InputIt d_in, OutputIt d_out, std::size_t n, ncclComm_t comm,
                                        cudaStream_t stream = 0) {
  return dist::inclusive_scan(d_in, d_out, n, plus{}, comm, stream);
}

/// Sorts the global sequence ascending (stable): afterwards rank r's `d_keys_out` holds the r-th
/// slice of the sorted sequence, as many keys as its `d_keys_in` held (`n`, which may differ from
/// rank to rank), equal keys in rank order and then input order. Each rank sorts its keys, the
/// ranks find the keys at the slices' boundaries digit by digit (all-reduces of a few KB), exchange
/// the parts (one grouped ncclSend / ncclRecv, each key sent once) and sort what arrived. The host
/// waits once (for the sizes of the exchange), so the call cannot be captured in a graph. Keys and
/// bit range as gpuprim::radix_sort_keys, the same range on every rank. Workspace: n keys, the
/// local low-memory sort's and a few KB. Inputs untouched; outputs must not overlap them.
template <class Key>
[[nodiscard]] cudaError_t radix_sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,
                                          Key* d_keys_out, std::size_t n, ncclComm_t comm, int begin_bit = 0,
                                          int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::sort_workspace_form<false>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                            detail::no_values_in, detail::no_values_out, n, comm, begin_bit, end_bit,
                                            stream);
}
/// `dist::radix_sort_keys` with its workspace taken stream-ordered.
template <class Key>
[[nodiscard]] cudaError_t radix_sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n, ncclComm_t comm,
                                          int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::sort_allocating_form<false>(d_keys_in, d_keys_out, detail::no_values_in, detail::no_values_out, n,
                                             comm, begin_bit, end_bit, stream);
}
/// As `dist::radix_sort_keys`, descending (equal keys in rank order, then input order).
template <class Key>
[[nodiscard]] cudaError_t radix_sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                                     const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                                                     ncclComm_t comm, int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                                     cudaStream_t stream = 0) {
  return detail::sort_workspace_form<true>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                           detail::no_values_in, detail::no_values_out, n, comm, begin_bit, end_bit,
                                           stream);
}
/// `dist::radix_sort_keys_descending` with its workspace taken stream-ordered.
template <class Key>
[[nodiscard]] cudaError_t radix_sort_keys_descending(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                                                     ncclComm_t comm, int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                                     cudaStream_t stream = 0) {
  return detail::sort_allocating_form<true>(d_keys_in, d_keys_out, detail::no_values_in, detail::no_values_out, n,
                                            comm, begin_bit, end_bit, stream);
}
/// As `dist::radix_sort_keys`, with a value beside each key (any trivially copyable type): rank r's
/// `d_values_out[i]` is the value that came with its `d_keys_out[i]`. Workspace: n values more.
template <class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,
                                           Key* d_keys_out, const Value* d_values_in, Value* d_values_out,
                                           std::size_t n, ncclComm_t comm, int begin_bit = 0,
                                           int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::sort_workspace_form<false>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                                            d_values_out, n, comm, begin_bit, end_bit, stream);
}
/// `dist::radix_sort_pairs` with its workspace taken stream-ordered.
template <class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                           Value* d_values_out, std::size_t n, ncclComm_t comm, int begin_bit = 0,
                                           int end_bit = 8 * sizeof(Key), cudaStream_t stream = 0) {
  return detail::sort_allocating_form<false>(d_keys_in, d_keys_out, d_values_in, d_values_out, n, comm, begin_bit,
                                             end_bit, stream);
}
/// As `dist::radix_sort_pairs`, descending by key.
template <class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                                      const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                                      Value* d_values_out, std::size_t n, ncclComm_t comm,
                                                      int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                                      cudaStream_t stream = 0) {
  return detail::sort_workspace_form<true>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                                           d_values_out, n, comm, begin_bit, end_bit, stream);
}
/// `dist::radix_sort_pairs_descending` with its workspace taken stream-ordered.
template <class Key, class Value>
[[nodiscard]] cudaError_t radix_sort_pairs_descending(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in,
                                                      Value* d_values_out, std::size_t n, ncclComm_t comm,
                                                      int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                                      cudaStream_t stream = 0) {
  return detail::sort_allocating_form<true>(d_keys_in, d_keys_out, d_values_in, d_values_out, n, comm, begin_bit,
                                            end_bit, stream);
}

}  // namespace dist
GPUPRIM_NAMESPACE_END
