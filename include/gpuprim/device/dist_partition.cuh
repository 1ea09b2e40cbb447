// The partition of the sort across GPUs (dist.cuh): which part of each rank's sorted keys goes to
// which rank, so that rank r receives exactly the r-th slice of the global order (as many items
// as it holds) and equal keys stay in rank order. No NCCL here: the arithmetic is host-device, so
// tests/host/dist_partition.cu runs it for simulated ranks on the host; dist.cuh runs the kernels
// below between its collectives.
//
// The boundaries: boundary b (1 <= b < ranks) starts rank b's slice at global position
// target_b = n_0 + ... + n_{b-1}. Its key k_b is the key at that position of the global order,
// found digit by digit from the top of the bit window (8 bits a round): in each round every rank
// counts, by binary search in its sorted keys, the keys below each candidate digit (256 counts a
// boundary), the counts are summed over the ranks (an all-reduce), and the boundary takes the
// largest digit whose keys below are at most target_b. Then each rank counts its keys below k_b
// and equal to it; with every rank's counts (an all-gather) rank q sends before the boundary its
// keys below k_b and the first of its keys equal to k_b, as many as remain of
// target_b - (keys below k_b, all ranks) after the equal keys of the ranks before q.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "../detail/config.cuh"
#include "../detail/radix_traits.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// Bits of a digit of the boundary search, and the counts a boundary takes a round.
inline constexpr int dist_digit_bits = 8;
inline constexpr int dist_digits = 1 << dist_digit_bits;

/// The order the ranks agree on: a key's digit bits (radix_key: the bit-ordered transform, -0.0 as
/// +0.0, inverted when descending) in [begin_bit, begin_bit + width), as an unsigned number. The
/// local sorts order keys exactly by it (stable).
template <class Key>
struct dist_sort_key {
  int begin_bit = 0;
  int width = 0;
  bool descending = false;

  GPUPRIM_HOST_DEVICE std::uint64_t operator()(Key key) const {
    using traits = radix_key<Key>;
    if (width == 0) return 0;
    const std::uint64_t ordered = traits::digit_bits_scheduled(traits::order(traits::to_bits(key), descending));
    const std::uint64_t shifted = ordered >> begin_bit;
    return width >= 64 ? shifted : shifted & ((std::uint64_t{1} << width) - 1);
  }
  /// The largest key of the window.
  GPUPRIM_HOST_DEVICE std::uint64_t max_key() const {
    return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  }
};

/// Round `round` of the boundary search over a window of `width` bits: the digit's bits and shift.
struct dist_round {
  int shift = 0;
  int bits = 0;
};
GPUPRIM_HOST_DEVICE int dist_rounds(int width) { return (width + dist_digit_bits - 1) / dist_digit_bits; }
GPUPRIM_HOST_DEVICE dist_round dist_round_of(int width, int round) {
  const int left = width - dist_digit_bits * round;
  const int bits = left < dist_digit_bits ? left : dist_digit_bits;
  return {left - bits, bits};
}

/// Keys of the sorted `keys[0, n)` whose order key, shifted right by `shift`, is below `x`.
template <class Key>
GPUPRIM_HOST_DEVICE std::size_t dist_count_below(const Key* keys, std::size_t n, const dist_sort_key<Key>& order,
                                                 int shift, std::uint64_t x) {
  std::size_t lo = 0;
  std::size_t hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if ((order(keys[mid]) >> shift) < x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The digit a boundary at global position `target` takes: the largest d < digits whose keys
/// below (`below[d]`, summed over the ranks; non-decreasing in d) are at most `target`.
GPUPRIM_HOST_DEVICE int dist_select_digit(const std::uint64_t* below, int digits, std::uint64_t target) {
  int d = 0;
  while (d + 1 < digits && below[d + 1] <= target) ++d;
  return d;
}

/// Global start of rank `rank`'s slice: the items of the ranks before it.
GPUPRIM_HOST_DEVICE std::uint64_t dist_slice_start(const std::uint64_t* counts, int rank) {
  std::uint64_t start = 0;
  for (int q = 0; q < rank; ++q) start += counts[q];
  return start;
}

/// Rank `rank`'s split at boundary `boundary` (1..ranks-1): how many of its sorted keys go before
/// it. `table` holds a row of 2 (ranks - 1) counts a rank: for each boundary, the rank's keys below
/// the boundary key and equal to it; `target` is the boundary's global position.
GPUPRIM_HOST_DEVICE std::uint64_t dist_split(const std::uint64_t* table, int ranks, int boundary, int rank,
                                                    std::uint64_t target) {
  const int stride = 2 * (ranks - 1);
  const int column = 2 * (boundary - 1);
  std::uint64_t below_all = 0;
  std::uint64_t equal_before = 0;
  for (int q = 0; q < ranks; ++q) {
    below_all += table[q * stride + column];
    if (q < rank) equal_before += table[q * stride + column + 1];
  }
  const std::uint64_t below = table[rank * stride + column];
  const std::uint64_t equal = table[rank * stride + column + 1];
  // The boundary key was chosen with below_all <= target (dist_select_digit).
  const std::uint64_t equal_left = target - below_all;
  if (equal_left <= equal_before) return below;
  const std::uint64_t mine = equal_left - equal_before;
  return below + (mine < equal ? mine : equal);
}

/// What one rank sends and receives in the exchange, in items: to / from rank q, `send_count[q]`
/// items from `send_offset[q]` of its sorted keys, `recv_count[q]` items to `recv_offset[q]` of the
/// received keys (in rank order, so that equal keys stay in rank order).
struct dist_exchange {
  std::vector<std::uint64_t> send_offset, send_count, recv_offset, recv_count;
};

/// The exchange of rank `rank` from every rank's splits: `splits` holds a row of ranks + 1
/// positions a rank (0, its splits at the boundaries, its count).
inline dist_exchange make_dist_exchange(const std::vector<std::uint64_t>& splits, int ranks, int rank) {
  dist_exchange x;
  x.send_offset.resize(ranks);
  x.send_count.resize(ranks);
  x.recv_offset.resize(ranks);
  x.recv_count.resize(ranks);
  const std::size_t row = static_cast<std::size_t>(ranks) + 1;
  std::uint64_t received = 0;
  for (int q = 0; q < ranks; ++q) {
    x.send_offset[q] = splits[rank * row + q];
    x.send_count[q] = splits[rank * row + q + 1] - splits[rank * row + q];
    x.recv_offset[q] = received;
    x.recv_count[q] = splits[q * row + rank + 1] - splits[q * row + rank];
    received += x.recv_count[q];
  }
  return x;
}

/// Writes `value` to `*slot` (a rank's own entry of a buffer that is then gathered). Templates, these
/// kernels, so that every translation unit may hold them.
template <class Count>
__global__ void dist_store_kernel(Count* slot, Count value) {
  *slot = value;
}

/// One round of the boundary search, block b - 1 for boundary b, thread d for digit d: takes the
/// digit of the previous round (from its summed counts `below_prev`) into the boundary's prefix,
/// then counts this rank's keys below each candidate of this round into `below_out`.
template <class Key>
__global__ void __launch_bounds__(dist_digits)
    dist_search_kernel(const Key* keys, std::size_t n, dist_sort_key<Key> order, const std::uint64_t* counts,
                       std::uint64_t* prefixes, const std::uint64_t* below_prev, std::uint64_t* below_out,
                       int round) {
  const int boundary = static_cast<int>(blockIdx.x) + 1;
  __shared__ std::uint64_t prefix;
  if (threadIdx.x == 0) {
    std::uint64_t p = 0;
    if (round > 0) {
      const dist_round prev = dist_round_of(order.width, round - 1);
      const int d = dist_select_digit(below_prev + blockIdx.x * dist_digits, 1 << prev.bits,
                                      dist_slice_start(counts, boundary));
      p = (prefixes[blockIdx.x] << prev.bits) | static_cast<std::uint64_t>(d);
    }
    prefixes[blockIdx.x] = p;
    prefix = p;
  }
  __syncthreads();
  const dist_round cur = dist_round_of(order.width, round);
  const unsigned d = threadIdx.x;
  std::uint64_t below = 0;
  if (d < (1u << cur.bits)) below = dist_count_below(keys, n, order, cur.shift, (prefix << cur.bits) | d);
  below_out[blockIdx.x * dist_digits + d] = below;
}

/// After the last round (thread b - 1 for boundary b): the boundary key, and this rank's keys
/// below it and equal to it into its row of the table (`row`: 2 counts a boundary).
template <class Key>
__global__ void dist_boundary_kernel(const Key* keys, std::size_t n, dist_sort_key<Key> order,
                                     const std::uint64_t* counts, int ranks, const std::uint64_t* prefixes,
                                     const std::uint64_t* below_last, int rounds, std::uint64_t* row) {
  const int b = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (b >= ranks - 1) return;
  std::uint64_t key = 0;
  if (rounds > 0) {
    const dist_round last = dist_round_of(order.width, rounds - 1);
    const int d = dist_select_digit(below_last + b * dist_digits, 1 << last.bits, dist_slice_start(counts, b + 1));
    key = (prefixes[b] << last.bits) | static_cast<std::uint64_t>(d);
  }
  const std::size_t below = dist_count_below(keys, n, order, 0, key);
  const std::size_t through = key == order.max_key() ? n : dist_count_below(keys, n, order, 0, key + 1);
  row[2 * b] = below;
  row[2 * b + 1] = through - below;
}

/// This rank's splits (thread i for position i of its row, ranks + 1 of them; Count: std::uint64_t): 0, its split at each
/// boundary, its count.
template <class Count>
__global__ void dist_split_kernel(const Count* table, const Count* counts, int ranks, int rank, Count* row) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i > ranks) return;
  if (i == 0) {
    row[i] = 0;
  } else if (i == ranks) {
    row[i] = counts[rank];
  } else {
    row[i] = dist_split(table, ranks, i, rank, dist_slice_start(counts, i));
  }
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
