// Block-wide search of a sorted range held in global memory.
#pragma once

#include <cstddef>

#include "../detail/config.cuh"

GPUPRIM_NAMESPACE_BEGIN
namespace detail {

/// The first index in [0, count) at which `below(i)` is false (`count` when it never is), where
/// `below` is true for a prefix of the indices. Every thread of the 1D block of `Threads` threads
/// calls it and gets the answer: each round the threads test evenly spaced indices together,
/// narrowing the range by the block size (a few rounds, not log2(count)).
template <int Threads, class Below>
GPUPRIM_DEVICE std::size_t block_partition_point(std::size_t count, Below below) {
  std::size_t lo = 0, hi = count;  // the answer is in [lo, hi]
  while (lo < hi) {
    const std::size_t step = (hi - lo + Threads - 1) / Threads;
    const std::size_t at = lo + threadIdx.x * step;
    const int before = __syncthreads_count(at < hi && below(at));  // a prefix of the threads
    if (before == 0) return lo;
    lo = lo + std::size_t(before - 1) * step + 1;
    const std::size_t next = lo - 1 + step;
    hi = next < hi ? next : hi;
  }
  return lo;
}

}  // namespace detail
GPUPRIM_NAMESPACE_END
